package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Widget kind of tests/runtime/kinds.py (group test.opgen.dev, version v1),
// written as a Go author would; the CRD installed is the one opgen generates.

var groupVersion = schema.GroupVersion{Group: "test.opgen.dev", Version: "v1"}

type WidgetSpec struct {
	Replicas int64   `json:"replicas"`
	Message  string  `json:"message,omitempty"`
	Fail     *string `json:"fail,omitempty"`
}

type WidgetStatus struct {
	Replicas           int64              `json:"replicas"`
	Selector           *string            `json:"selector,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Ready              *bool              `json:"ready,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

func addToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(groupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(scheme, groupVersion)
	return nil
}

// Deep copies, as controller-gen's object generator would write them.

func (in *WidgetSpec) DeepCopyInto(out *WidgetSpec) {
	*out = *in
	if in.Fail != nil {
		fail := *in.Fail
		out.Fail = &fail
	}
}

func (in *WidgetStatus) DeepCopyInto(out *WidgetStatus) {
	*out = *in
	if in.Selector != nil {
		selector := *in.Selector
		out.Selector = &selector
	}
	if in.Ready != nil {
		ready := *in.Ready
		out.Ready = &ready
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func (in *Widget) DeepCopyInto(out *Widget) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

func (in *Widget) DeepCopy() *Widget {
	if in == nil {
		return nil
	}
	out := new(Widget)
	in.DeepCopyInto(out)
	return out
}

func (in *Widget) DeepCopyObject() runtime.Object {
	return in.DeepCopy()
}

func (in *WidgetList) DeepCopyInto(out *WidgetList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Widget, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

func (in *WidgetList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(WidgetList)
	in.DeepCopyInto(out)
	return out
}
