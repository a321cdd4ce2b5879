package main

import (
	"context"
	"encoding/json"
	"maps"
	"strconv"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// widgetReconciler does what tests/runtime/sample.py's WidgetReconciler does:
// cache reads, one owned ConfigMap, a status with replicas, observedGeneration
// and a Ready condition, and writes only when something differs.
type widgetReconciler struct {
	client     client.Client
	scheme     *runtime.Scheme
	reconciles atomic.Int64
	// onReconciled is called with the number of reconciles done so far.
	onReconciled func(int64)
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	defer func() { r.onReconciled(r.reconciles.Add(1)) }()
	var widget Widget
	if err := r.client.Get(ctx, req.NamespacedName, &widget); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	desired := map[string]string{
		"message":  widget.Spec.Message,
		"replicas": strconv.FormatInt(widget.Spec.Replicas, 10),
	}
	name := req.Name + "-config"
	var config corev1.ConfigMap
	err := r.client.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: name}, &config)
	switch {
	case apierrors.IsNotFound(err):
		config = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: req.Namespace},
			Data:       desired,
		}
		if err := controllerutil.SetControllerReference(&widget, &config, r.scheme); err != nil {
			return ctrl.Result{}, err
		}
		// AlreadyExists: the cache had not seen it yet; its watch event brings us back.
		if err := r.client.Create(ctx, &config); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, err
		}
	case err != nil:
		return ctrl.Result{}, err
	case !maps.Equal(config.Data, desired):
		config.Data = desired
		if err := r.client.Update(ctx, &config); err != nil {
			return ctrl.Result{}, err
		}
	}

	status := widget.Status
	changed := false
	if status.Replicas != widget.Spec.Replicas || status.ObservedGeneration != widget.Generation {
		status.Replicas = widget.Spec.Replicas
		status.ObservedGeneration = widget.Generation
		changed = true
	}
	if meta.SetStatusCondition(&status.Conditions, metav1.Condition{
		Type:               "Ready",
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapReady",
		Message:            "the ConfigMap is up to date",
		ObservedGeneration: widget.Generation,
	}) {
		changed = true
	}
	if !changed {
		return ctrl.Result{}, nil
	}
	// The same write as opgen's patch_status: a merge patch of the whole status.
	patch, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return ctrl.Result{}, err
	}
	widget.Status = status
	return ctrl.Result{}, r.client.Status().Patch(ctx, &widget, client.RawPatch(types.MergePatchType, patch))
}
