#!/usr/bin/env bash
# Build the example operator project from scratch: the one recipe behind
# `make example` (into out/example) and `make example-project` (into the
# committed examples/generated).
#
#   examples/regenerate.sh [OUT_DIR] [OPGEN]
#
# OUT_DIR defaults to examples/generated; OPGEN to the opgen on PATH.
#
# Steps, in a fresh folder that then replaces OUT_DIR (a failure leaves OUT_DIR
# as it was); docs/tutorial.md (section 9) tells them as a user takes them:
#   opgen init --domain io --project-name ray-operator --owner "The opgen authors"
#   opgen create api --group ray --version v1alpha1 --kind RayCluster --no-controller
#   opgen create api --group ray --version v1 --kind RayCluster
#   examples/raycluster_types.py -> ray_operator/api/v1/raycluster_types.py
#   opgen create webhook --group ray --version v1 --kind RayCluster
#       --defaulting --programmatic-validation --conversion --spoke v1alpha1
#   examples/raycluster/*  -> the same paths in the project (the other files
#                             the user writes: v1alpha1 types, reconciler,
#                             webhooks, tests, samples)
#   opgen edit --embedded-object-meta
#   opgen generate
#   opgen create chart
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/generated}"
opgen="${2:-opgen}"
out="${out%/}"

if [ -e "$out" ] && [ ! -f "$out/PROJECT" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
    echo "error: $out exists and is not an opgen project; not replacing it" >&2
    exit 1
fi

export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the output
mkdir -p "$(dirname "$out")"
build="$out.building.$$"
rm -rf "$build"
mkdir "$build"
trap 'rm -rf "$build"' EXIT
(
    cd "$build"
    "$opgen" init --domain io --project-name ray-operator --owner "The opgen authors" >/dev/null
    "$opgen" create api --group ray --version v1alpha1 --kind RayCluster --no-controller >/dev/null
    "$opgen" create api --group ray --version v1 --kind RayCluster >/dev/null
    cp "$here/raycluster_types.py" ray_operator/api/v1/raycluster_types.py
    "$opgen" create webhook --group ray --version v1 --kind RayCluster \
        --defaulting --programmatic-validation --conversion --spoke v1alpha1 >/dev/null
    cp -R "$here/raycluster/." .
    "$opgen" edit --embedded-object-meta >/dev/null
    "$opgen" generate >/dev/null
    "$opgen" create chart >/dev/null
)
rm -rf "$out"
mv "$build" "$out"
trap - EXIT

describe() {
    [ -e "$out/$1" ] || { echo "error: $out/$1 is missing" >&2; exit 1; }
    printf '  %-52s %s\n' "$1" "$2"
}
echo "Built the example operator project in $out"
echo "(opgen init, create api for v1alpha1 and v1, create webhook, the user's files"
echo " from examples/, opgen generate, create chart; docs/tutorial.md section 9 tells the steps):"
echo
describe config/crd/bases/ray.io_rayclusters.yaml "the CRD: v1alpha1 and v1 (stored), converted by webhook"
describe config/rbac/role.yaml "the manager's RBAC, from the op.rbac markers"
describe config/webhook/manifests.yaml "the webhook configurations, from @op.webhook"
describe config/ "kustomize: default, manager, rbac, webhook, certmanager, samples..."
describe ray_operator/api/v1/raycluster_types.py "the API (examples/raycluster_types.py)"
describe ray_operator/api/v1/spread.py "how workerReplicas is spread over the groups"
describe ray_operator/controller/raycluster_controller.py "the reconciler: Deployments, Service, status"
describe ray_operator/webhook/v1/raycluster_webhook.py "defaulting, validation, conversion"
describe ray_operator/main.py "the manager: python -m ray_operator"
describe tests/ "its tests: unit, and against a real API server (envtest)"
describe Makefile "make help: manifests, generate, lint, test, deploy..."
describe Dockerfile "the manager's image (runtime install only)"
describe dist/chart/ "the Helm chart, from the same source as config/"
describe PROJECT "what opgen was asked, for opgen generate"
echo
echo "$(find "$out" -type f | wc -l | tr -d ' ') files. Look at everything it deploys with: kubectl kustomize $out/config/default"
