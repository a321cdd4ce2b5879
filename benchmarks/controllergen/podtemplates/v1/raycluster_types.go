package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The same API as examples/raycluster_types.py. Python's int is Go's int (an
// integer without a format), op.Format("int32") is int32, op.k8s.PodTemplateSpec
// is corev1.PodTemplateSpec, and every doc comment is the field's docstring.

// How fast a worker group grows towards its share of `workerReplicas`.
// +kubebuilder:validation:Enum=Default;Aggressive;Conservative
type UpscalingMode string

// The Ray head: a Deployment of `headReplicas` pods and a Service in front.
type HeadGroupSpec struct {
	// The head pods. Their first container runs Ray: the cluster's image when
	// it names none, `ray start --head` when it sets no command, and Ray's ports
	// (gcs-server 6379, dashboard 8265, client 10001) when it declares none.
	// Without a template: one such container, named ray-head.
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// How the head Service is exposed; it serves the Ray container's ports.
	// +kubebuilder:validation:Enum=ClusterIP;NodePort;LoadBalancer
	// +kubebuilder:default=ClusterIP
	// +optional
	ServiceType string `json:"serviceType,omitempty"`
	// Extra flags for `ray start --head`, without the leading dashes,
	// e.g. {"num-cpus": "0"}.
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	RayStartParams map[string]string `json:"rayStartParams,omitempty"`
}

// A group of identical Ray workers: one Deployment, <cluster>-worker-<group>.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.maxReplicas",message="minReplicas must not exceed maxReplicas",fieldPath=".minReplicas"
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",message="replicas must lie between minReplicas and maxReplicas",fieldPath=".replicas"
type WorkerGroupSpec struct {
	// Name of the group, unique in the cluster (lower-case letters, digits and
	// '-'); its Deployment is <cluster>-worker-<group>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	GroupName string `json:"groupName"`
	// The group's workers while the groups' replicas add up to
	// `spec.workerReplicas`; otherwise the group's weight in the spread of
	// `spec.workerReplicas` (see there).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// The fewest workers the group runs, whatever `spec.workerReplicas` says.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=0
	// +optional
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// The most workers the group runs.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=2147483647
	// +optional
	MaxReplicas int32 `json:"maxReplicas,omitempty"`
	// The worker pods. Their first container runs Ray: the cluster's image
	// when it names none, `ray start --address=<head>:6379` when it sets no
	// command. Without a template: one such container, named ray-worker.
	// +optional
	Template *corev1.PodTemplateSpec `json:"template,omitempty"`
	// Extra flags for `ray start`, without the leading dashes,
	// e.g. {"num-gpus": "1"}.
	// +kubebuilder:validation:MaxProperties=64
	// +optional
	RayStartParams map[string]string `json:"rayStartParams,omitempty"`
}

// The desired state of a RayCluster.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.rayVersion) || has(self.rayVersion)",message="field rayVersion is immutable once set"
// +kubebuilder:validation:XValidation:rule="has(self.image) || (has(self.headGroup) && has(self.headGroup.template) && has(self.headGroup.template.spec) && size(self.headGroup.template.spec.containers) > 0 && has(self.headGroup.template.spec.containers[0].image) && (!has(self.workerGroups) || self.workerGroups.all(g, has(g.template) && has(g.template.spec) && size(g.template.spec.containers) > 0 && has(g.template.spec.containers[0].image))))",message="set spec.image, or an image on the first container of the head's and every worker group's template",fieldPath=".image"
// +kubebuilder:validation:XValidation:rule="!has(self.workerReplicas) || !has(self.workerGroups) || (self.workerGroups.map(g, g.minReplicas).sum() <= self.workerReplicas && self.workerReplicas <= self.workerGroups.map(g, g.maxReplicas).sum())",message="workerReplicas must lie between the sums of the groups' minReplicas and maxReplicas",fieldPath=".workerReplicas"
type RayClusterSpec struct {
	// The Ray version every node runs, e.g. 2.9.0; it cannot change once set
	// (Ray upgrades by a new cluster).
	// +kubebuilder:validation:Pattern=`^\d+\.\d+\.\d+$`
	// +kubebuilder:example="2.9.0"
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="field is immutable"
	// +optional
	RayVersion *string `json:"rayVersion,omitempty"`
	// The default image of every group: the Ray container of the head and of
	// each worker group runs it unless its template names another, e.g.
	// rayproject/ray:2.9.0.
	// +kubebuilder:validation:MinLength=1
	// +optional
	Image *string `json:"image,omitempty"`
	// Number of head pods.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	HeadReplicas int32 `json:"headReplicas,omitempty"`
	// The total number of workers over every group: what `kubectl scale`
	// sets. Unset, it is the sum of the groups' replicas (the defaulting webhook
	// writes it). When the groups' replicas add up to it, each group runs its
	// replicas. Otherwise the difference is shared in proportion to each
	// group's room (growing: maxReplicas minus replicas; shrinking: replicas
	// minus minReplicas), one worker at a time to the group with the most room
	// per worker moved so far (D'Hondt), the earlier group on a tie. Without
	// worker groups, every worker runs in one group, `workers`.
	// +kubebuilder:validation:Minimum=0
	// +optional
	WorkerReplicas *int32 `json:"workerReplicas,omitempty"`
	// The head; Ray's defaults and the cluster's image when unset.
	// +optional
	HeadGroup *HeadGroupSpec `json:"headGroup,omitempty"`
	// The groups of workers, merged by name under server-side apply.
	// +listType=map
	// +listMapKey=groupName
	// +kubebuilder:validation:MaxItems=16
	// +optional
	WorkerGroups []WorkerGroupSpec `json:"workerGroups,omitempty"`
	// How fast a group grows: Default adds its new workers at once;
	// Conservative at most as many at a time as it has ready workers (at least
	// one); Aggressive is a deprecated alias for Default.
	// +kubebuilder:default=Default
	// +optional
	UpscalingMode UpscalingMode `json:"upscalingMode,omitempty"`
	// Scale every group and the head to zero pods, keeping the Service and the
	// definition; false again restores the cluster.
	// +kubebuilder:default=false
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// What one worker group runs.
type WorkerGroupStatus struct {
	// The group's name.
	GroupName string `json:"groupName"`
	// Its share of `spec.workerReplicas`, as its Deployment asks for it.
	// +kubebuilder:default=0
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Its ready workers.
	// +kubebuilder:default=0
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// The observed state of a RayCluster.
type RayClusterStatus struct {
	// Whether the head and every worker are ready (and the cluster is not
	// suspended).
	// +kubebuilder:default=false
	// +optional
	Ready bool `json:"ready,omitempty"`
	// Whether every head pod is ready.
	// +kubebuilder:default=false
	// +optional
	HeadReady bool `json:"headReady,omitempty"`
	// Ready workers over every group: the scale subresource's replicas.
	// +kubebuilder:default=0
	// +optional
	WorkerReady int32 `json:"workerReady,omitempty"`
	// Each worker group's share of the workers and its ready workers.
	// +listType=map
	// +listMapKey=groupName
	// +optional
	WorkerGroups []WorkerGroupStatus `json:"workerGroups,omitempty"`
	// The label selector of the worker pods, for the scale subresource (and
	// the HorizontalPodAutoscaler).
	// +optional
	Selector *string `json:"selector,omitempty"`
	// The `.metadata.generation` the controller last acted on.
	// +optional
	ObservedGeneration *int `json:"observedGeneration,omitempty"`
	// The latest observations of the object's state: Ready, Progressing,
	// Degraded and Suspended.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RayCluster is the Schema for the rayclusters API.
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.workerReplicas,statuspath=.status.workerReady,selectorpath=.status.selector
// +kubebuilder:resource:shortName=rayc,categories=ray
// +kubebuilder:printcolumn:name="Desired",type="integer",JSONPath=".spec.workerReplicas",description="Workers asked for"
// +kubebuilder:printcolumn:name="Ready",type="integer",JSONPath=".status.workerReady",description="Workers ready"
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.conditions[?(@.type==\"Ready\")].reason",description="Why the cluster is or is not ready"
// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
// +kubebuilder:printcolumn:name="Version",type="string",JSONPath=".spec.rayVersion",priority=1
// +kubebuilder:printcolumn:name="Image",type="string",JSONPath=".spec.image",priority=1
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 58 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="a RayCluster's name is at most 58 lower-case letters, digits and '-', starting with a letter: its head Service is <name>-head",fieldPath=".metadata"
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
