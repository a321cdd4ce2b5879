# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""API group ray.io, version v1alpha1: the names its kinds share.

Kinds in this package pass these to `op.kind(...)`.
"""

GROUP = "ray.io"
VERSION = "v1alpha1"
API_VERSION = f"{GROUP}/{VERSION}"
