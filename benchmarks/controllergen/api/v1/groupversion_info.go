// Package v1 is the RayCluster API of examples/standalone/raycluster_types.py written as
// Go types with kubebuilder markers: controller-gen's input in the generation
// benchmark (benchmarks/crd_vs_controller_gen.py).
//
// +groupName=ray.io
package v1
