# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""API types of the ray-operator operator, one package per version."""
