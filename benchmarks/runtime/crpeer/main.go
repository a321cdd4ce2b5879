// Command crpeer is the controller-runtime side of opgen's runtime benchmark
// (benchmarks/runtime/bench.py): the Widget operator of tests/runtime/sample.py
// on controller-runtime, with the benchmark's settings, run until SIGTERM.
//
// Environment: KUBECONFIG, BENCH_NAMESPACE (the cache watches only it),
// BENCH_WORKERS (32), BENCH_QPS (1000), BENCH_BURST (2000), BENCH_EXPECT
// (print `reconciled` once that many reconciles are done), and
// BENCH_READ_YOUR_WRITES=1 for the client wrapper of fresh.go.
//
// Prints `ready` once the caches have synced and the controller runs, and on
// exit one JSON line with its peak RSS (VmHWM: see peakRSSKiB), CPU time and
// reconcile count.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"go.uber.org/zap/zapcore"
)

// The wait of opgen.runtime.freshness.DEFAULT_WAIT.
const freshnessWait = time.Second

func envInt(name string, fallback int) int {
	if value, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return value
	}
	return fallback
}

// peakRSSKiB is VmHWM of /proc/self/status, as the Python operators report it
// (benchmarks/runtime/_proc_status.py). Not getrusage's Maxrss: Linux carries
// the maximum resident set across fork and exec, so this process would report
// at least its parent's, the benchmark driver's.
func peakRSSKiB() (int64, error) {
	status, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer status.Close()
	lines := bufio.NewScanner(status)
	for lines.Scan() {
		if value, found := strings.CutPrefix(lines.Text(), "VmHWM:"); found {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		}
	}
	if err := lines.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crpeer:", err)
	os.Exit(1)
}

func main() {
	ctrl.SetLogger(zap.New(zap.Level(zapcore.ErrorLevel)))
	namespace := os.Getenv("BENCH_NAMESPACE")
	config, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fail(err)
	}
	config.QPS = float32(envInt("BENCH_QPS", 1000))
	config.Burst = envInt("BENCH_BURST", 2000)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fail(err)
	}
	if err := addToScheme(scheme); err != nil {
		fail(err)
	}
	ctx := ctrl.SetupSignalHandler()
	mgr, err := ctrl.NewManager(config, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
	})
	if err != nil {
		fail(err)
	}

	var reader client.Client = mgr.GetClient()
	if os.Getenv("BENCH_READ_YOUR_WRITES") == "1" {
		expectations := newExpectations(freshnessWait, mgr.GetCache())
		for _, kind := range []client.Object{&Widget{}, &corev1.ConfigMap{}} {
			informer, err := mgr.GetCache().GetInformer(ctx, kind)
			if err != nil {
				fail(err)
			}
			if err := expectations.track(kind, informer); err != nil {
				fail(err)
			}
		}
		reader = &freshClient{reader, expectations}
	}

	expect := int64(envInt("BENCH_EXPECT", 0))
	reconciler := &widgetReconciler{client: reader, scheme: scheme}
	reconciler.onReconciled = func(done int64) {
		if done == expect {
			fmt.Println("reconciled")
		}
	}
	err = ctrl.NewControllerManagedBy(mgr).
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: envInt("BENCH_WORKERS", 32)}).
		Complete(reconciler)
	if err != nil {
		fail(err)
	}
	go func() {
		<-mgr.Elected()
		if mgr.GetCache().WaitForCacheSync(ctx) {
			fmt.Println("ready")
		}
	}()
	if err := mgr.Start(ctx); err != nil {
		fail(err)
	}

	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail(err)
	}
	peak, err := peakRSSKiB()
	if err != nil {
		fail(err)
	}
	seconds := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	fmt.Printf("{\"peak_rss_kib\": %d, \"cpu_seconds\": %.3f, \"reconciles\": %d}\n",
		peak, seconds(usage.Utime)+seconds(usage.Stime), reconciler.reconciles.Load())
}
