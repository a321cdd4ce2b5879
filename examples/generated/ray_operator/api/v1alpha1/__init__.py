# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The ray API, version v1alpha1."""
