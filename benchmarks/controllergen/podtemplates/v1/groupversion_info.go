// Package v1 is the RayCluster API of examples/raycluster_types.py (the example
// operator's, with pod templates) written as Go types with kubebuilder markers:
// controller-gen's input for the pod-template API of the generation benchmark
// (benchmarks/crd_vs_controller_gen.py).
//
// +groupName=ray.io
package v1
