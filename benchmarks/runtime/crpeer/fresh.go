package main

import (
	"context"
	"reflect"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Read-your-writes, the same rule as opgen.runtime.freshness: every write records
// the resourceVersion the API server answered, and a cached read of that object
// first waits, at most `wait`, until the informer has stored that version or a
// later one (numeric comparison when both are numbers, else equality).

type objectKey struct {
	kind      reflect.Type
	namespace string
	name      string
}

type pendingWrite struct {
	resourceVersion string
	deadline        time.Time
	seen            chan struct{}
}

type expectations struct {
	wait    time.Duration
	cache   client.Reader
	mu      sync.Mutex
	pending map[objectKey]*pendingWrite
	tracked map[reflect.Type]bool
}

func newExpectations(wait time.Duration, cache client.Reader) *expectations {
	return &expectations{
		wait:    wait,
		cache:   cache,
		pending: map[objectKey]*pendingWrite{},
		tracked: map[reflect.Type]bool{},
	}
}

func isAtLeast(have, want string) bool {
	if have == want {
		return true
	}
	h, errH := strconv.ParseUint(have, 10, 64)
	w, errW := strconv.ParseUint(want, 10, 64)
	return errH == nil && errW == nil && h >= w
}

func keyOf(obj client.Object) objectKey {
	return objectKey{reflect.TypeOf(obj), obj.GetNamespace(), obj.GetName()}
}

// track makes cached reads of objects of `sample`'s type wait for `informer`.
func (e *expectations) track(sample client.Object, informer cache.Informer) error {
	kind := reflect.TypeOf(sample)
	e.mu.Lock()
	e.tracked[kind] = true
	e.mu.Unlock()
	observe := func(obj any, deleted bool) {
		if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj, deleted = tombstone.Obj, true
		}
		accessor, err := meta.Accessor(obj)
		if err != nil {
			return
		}
		e.observed(objectKey{kind, accessor.GetNamespace(), accessor.GetName()}, accessor.GetResourceVersion(), deleted)
	}
	_, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { observe(obj, false) },
		UpdateFunc: func(_, obj any) { observe(obj, false) },
		DeleteFunc: func(obj any) { observe(obj, true) },
	})
	return err
}

func (e *expectations) expect(obj client.Object) {
	key := keyOf(obj)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.tracked[key.kind] {
		return
	}
	rv := obj.GetResourceVersion()
	if current, ok := e.pending[key]; ok && isAtLeast(current.resourceVersion, rv) {
		return
	}
	e.pending[key] = &pendingWrite{rv, time.Now().Add(e.wait), make(chan struct{})}
}

func (e *expectations) observed(key objectKey, rv string, deleted bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	pending, ok := e.pending[key]
	if ok && (deleted || isAtLeast(rv, pending.resourceVersion)) {
		close(pending.seen)
		delete(e.pending, key)
	}
}

// settle waits until the store holds this client's last write of key (bounded).
func (e *expectations) settle(ctx context.Context, key objectKey) {
	e.mu.Lock()
	pending, ok := e.pending[key]
	e.mu.Unlock()
	if !ok {
		return
	}
	// The event may have come before the write's answer: then the cache has it.
	stored := reflect.New(key.kind.Elem()).Interface().(client.Object)
	err := e.cache.Get(ctx, client.ObjectKey{Namespace: key.namespace, Name: key.name}, stored, client.UnsafeDisableDeepCopy)
	if err == nil && isAtLeast(stored.GetResourceVersion(), pending.resourceVersion) {
		e.mu.Lock()
		if e.pending[key] == pending {
			delete(e.pending, key)
		}
		e.mu.Unlock()
		return
	}
	timer := time.NewTimer(time.Until(pending.deadline))
	defer timer.Stop()
	select {
	case <-pending.seen:
	case <-ctx.Done():
	case <-timer.C:
		e.mu.Lock()
		if e.pending[key] == pending {
			delete(e.pending, key)
		}
		e.mu.Unlock()
	}
}

func (e *expectations) pendingIn(kind reflect.Type, namespace string) []objectKey {
	e.mu.Lock()
	defer e.mu.Unlock()
	var keys []objectKey
	for key := range e.pending {
		if key.kind == kind && (namespace == "" || key.namespace == namespace) {
			keys = append(keys, key)
		}
	}
	return keys
}

// freshClient is a client.Client whose cached reads see its own writes.
type freshClient struct {
	client.Client
	expectations *expectations
}

func (c *freshClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.expectations.settle(ctx, objectKey{reflect.TypeOf(obj), key.Namespace, key.Name})
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *freshClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	// The items' type: a *WidgetList lists *Widget objects.
	if items := reflect.ValueOf(list).Elem().FieldByName("Items"); items.IsValid() {
		namespace := (&client.ListOptions{}).ApplyOptions(opts).Namespace
		for _, key := range c.expectations.pendingIn(reflect.PointerTo(items.Type().Elem()), namespace) {
			c.expectations.settle(ctx, key)
		}
	}
	return c.Client.List(ctx, list, opts...)
}

func (c *freshClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	err := c.Client.Create(ctx, obj, opts...)
	if err == nil {
		c.expectations.expect(obj)
	}
	return err
}

func (c *freshClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	err := c.Client.Update(ctx, obj, opts...)
	if err == nil {
		c.expectations.expect(obj)
	}
	return err
}

func (c *freshClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	err := c.Client.Patch(ctx, obj, patch, opts...)
	if err == nil {
		c.expectations.expect(obj)
	}
	return err
}

func (c *freshClient) Status() client.SubResourceWriter {
	return &freshStatusWriter{c.Client.Status(), c.expectations}
}

type freshStatusWriter struct {
	client.SubResourceWriter
	expectations *expectations
}

func (w *freshStatusWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	err := w.SubResourceWriter.Update(ctx, obj, opts...)
	if err == nil {
		w.expectations.expect(obj)
	}
	return err
}

func (w *freshStatusWriter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	err := w.SubResourceWriter.Patch(ctx, obj, patch, opts...)
	if err == nil {
		w.expectations.expect(obj)
	}
	return err
}
