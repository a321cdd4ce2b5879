package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The same API as examples/standalone/raycluster_types.py. Python's int is Go's int (an
// integer without a format), op.Format("int32") is int32, and every doc comment
// is the field's docstring.

// How aggressively the autoscaler adds workers.
// +kubebuilder:validation:Enum=Default;Aggressive;Conservative
type UpscalingMode string

// Compute resources of one Ray container.
type ResourceRequirements struct {
	// Minimum resources, e.g. {"cpu": "500m", "memory": "1Gi"}.
	// +optional
	Requests map[string]resource.Quantity `json:"requests,omitempty"`
	// Maximum resources.
	// +optional
	Limits map[string]resource.Quantity `json:"limits,omitempty"`
}

// A set of identical workers.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",fieldPath=".minReplicas"
type WorkerGroup struct {
	// Name of the group; cannot change once set.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="field is immutable"
	GroupName string `json:"groupName"`
	// Desired number of workers.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Lower bound for the autoscaler.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=0
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// Upper bound for the autoscaler.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=100
	// +optional
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
	// Resources of each worker; the cluster default applies when unset.
	// +optional
	Resources *ResourceRequirements `json:"resources,omitempty"`
	// Extra flags for `ray start`, without the leading dashes.
	// +optional
	RayStartParams map[string]string `json:"rayStartParams,omitempty"`
}

// The head node.
// +kubebuilder:validation:ExactlyOneOf=image;imageFrom
type HeadSpec struct {
	// Container image of the head node, e.g. rayproject/ray:2.9.0.
	// +kubebuilder:validation:Pattern=`^[^\s]+$`
	// +optional
	Image *string `json:"image,omitempty"`
	// A ConfigMap holding the image name, instead of `image`.
	// +optional
	ImageFrom *corev1.LocalObjectReference `json:"imageFrom,omitempty"`
	// How the head service is exposed.
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	// +kubebuilder:default=ClusterIP
	// +optional
	ServiceType string `json:"serviceType,omitempty"`
	// Port (number or name) of the Ray dashboard.
	// +kubebuilder:default=8265
	// +optional
	DashboardPort intstr.IntOrString `json:"dashboardPort,omitempty"`
}

// Desired state of a Ray cluster.
type RayClusterSpec struct {
	// Ray version of every node, e.g. 2.9.0.
	// +kubebuilder:validation:Pattern=`^\d+\.\d+\.\d+$`
	// +kubebuilder:example="2.9.0"
	RayVersion string `json:"rayVersion"`
	// The head node.
	Head HeadSpec `json:"head"`
	// Number of head nodes (exactly one for now).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1
	// +kubebuilder:default=1
	// +optional
	HeadReplicas int `json:"headReplicas,omitempty"`
	// Total number of workers; the target of `kubectl scale`.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=0
	// +optional
	WorkerReplicas int `json:"workerReplicas,omitempty"`
	// Groups of workers, merged by name under server-side apply.
	// +listType=map
	// +listMapKey=groupName
	// +kubebuilder:validation:MaxItems=16
	// +optional
	WorkerGroups []WorkerGroup `json:"workerGroups,omitempty"`
	// Autoscaler behaviour; no autoscaling when unset.
	// +optional
	UpscalingMode *UpscalingMode `json:"upscalingMode,omitempty"`
	// Scale idle workers down after this long, e.g. 10m.
	// +optional
	IdleTimeout *metav1.Duration `json:"idleTimeout,omitempty"`
	// Delete all pods but keep the cluster definition.
	// +kubebuilder:default=false
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// Labels added to every pod.
	// +kubebuilder:validation:MaxProperties=32
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Names of node taints the pods tolerate.
	// +listType=set
	// +optional
	Tolerations []string `json:"tolerations,omitempty"`
}

// Observed state of a Ray cluster.
type RayClusterStatus struct {
	// Whether the head and every worker are running.
	// +kubebuilder:default=false
	// +optional
	Ready bool `json:"ready,omitempty"`
	// Number of running workers.
	// +kubebuilder:default=0
	// +optional
	WorkerReady int `json:"workerReady,omitempty"`
	// Label selector of the worker pods (for the scale subresource).
	// +optional
	Selector string `json:"selector,omitempty"`
	// The .metadata.generation this status describes.
	// +optional
	ObservedGeneration int `json:"observedGeneration,omitempty"`
	// When the cluster last changed size.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`
	// Ready, Suspended and other conditions, keyed by type.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RayCluster is the Schema for the rayclusters API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.workerReplicas,statuspath=.status.workerReady,selectorpath=.status.selector
// +kubebuilder:resource:shortName=rayc,categories=ray
// +kubebuilder:printcolumn:name="Workers",type="integer",JSONPath=".status.workerReady"
// +kubebuilder:printcolumn:name="Ready",type="boolean",JSONPath=".status.ready"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.rayVersion",priority=1
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:selectablefield:JSONPath=".spec.rayVersion"
type RayCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RayClusterSpec `json:"spec"`
	// +optional
	Status RayClusterStatus `json:"status,omitempty"`
}

// RayClusterList contains a list of RayCluster.
// +kubebuilder:object:root=true
type RayClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RayCluster `json:"items"`
}
