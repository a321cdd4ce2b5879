# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""Shared test set-up.

opgen's pytest plugin (installed with opgen) starts a real kube-apiserver and
etcd once per session and installs the CRDs from config/crd/bases. It provides
the fixtures `envtest` (the running environment: `.kubeconfig_path`,
`.install_crds(paths)`), `client` (an `rt.Client` acting as the admin, without
a cache: reads go straight to the server) and `namespace` (a fresh namespace
per test). Run `opgen envtest use` once to fetch or build the binaries.

Fixtures of your own go here.
"""
