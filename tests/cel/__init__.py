"""Tests of CEL rules: Kubernetes' environment, the models' checks, opgen's compile step."""
