"""Proofs against a real kube-apiserver: opgen's CRDs, checker and models agree with it.

Every test here runs against the session's envtest control plane (see
docs/testing.md, "Proofs against the API server").
"""
