// A trimmed copy of the shape of k8s.io/kubernetes' published go.mod (test fixture).

module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
	github.com/JeffAshton/win_pdh v0.0.0-20161109143554-76bb4ee9f0ab
	github.com/blang/semver/v4 v4.0.0
	go.etcd.io/etcd/client/v3 v3.6.8
	k8s.io/api v0.0.0
	k8s.io/apiextensions-apiserver v0.0.0
	k8s.io/apimachinery v0.0.0
	k8s.io/client-go v0.0.0
	k8s.io/component-base v0.0.0
	k8s.io/klog/v2 v2.140.0
	k8s.io/kube-openapi v0.0.0-20260317180543-43fb72c5454a
	k8s.io/streaming v0.0.0
	k8s.io/utils v0.0.0-20260210185600-b8788abfbbc2
	sigs.k8s.io/json v0.0.0-20250730193827-2d320260d730
)

require (
	go.etcd.io/etcd/server/v3 v3.6.8 // indirect
	k8s.io/cri-client v0.0.0 // indirect
	k8s.io/gengo/v2 v2.0.0-20250922181213-ec3ebc5fd46b // indirect
)

require k8s.io/kubelet v0.0.0

replace k8s.io/not-a-requirement => k8s.io/not-a-requirement v0.0.0
