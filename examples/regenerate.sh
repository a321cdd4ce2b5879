#!/usr/bin/env bash
# Rebuild the example project from scratch: opgen init, opgen create api,
# examples/raycluster_types.py as its types, opgen generate.
#
#   examples/regenerate.sh [OUT_DIR] [OPGEN]
#
# OUT_DIR defaults to examples/generated; OPGEN to the opgen on PATH.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/generated}"
opgen="${2:-opgen}"
rm -rf "$out"
mkdir -p "$out"
cd "$out"
"$opgen" init --domain io --project-name ray-operator --owner "The opgen authors" >/dev/null
"$opgen" create api --group ray --version v1 --kind RayCluster >/dev/null
cp "$here/raycluster_types.py" ray_operator/api/v1/raycluster_types.py
"$opgen" generate >/dev/null
echo "wrote $out"
