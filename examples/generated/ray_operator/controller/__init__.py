# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Reconcilers of the ray-operator operator, one module per kind."""
