"""How big a CRD is where the limit applies: in etcd, as kube-apiserver stores it.

etcd refuses a write above its request limit (1.5 MiB by default). What
kube-apiserver writes for a CustomResourceDefinition is not the object a
client sends:

- it stores CRDs as `apiextensions.k8s.io/v1beta1` JSON (kube-apiserver's
  storage codec for the group, kubernetes/kubernetes#82292), where a schema,
  subresources, printer columns or selectable fields that every version has
  alike are written once, under `spec`, instead of once per version;
- in JSON as Go's `encoding/json` writes it: compact, `<`, `>` and `&`
  escaped as `\\u003c` (six bytes for one), U+2028 and U+2029 escaped,
  every other character as UTF-8;
- with what the server adds: `metadata.uid`, `generation`,
  `creationTimestamp`, the creator's `managedFields` entry, `status` (the
  accepted names, the `NamesAccepted` and `Established` conditions, the
  stored versions), which the write that establishes the CRD holds;
- inside an etcd transaction that also names the object's key.

`stored_size(crd)` is that size, to compare with `ETCD_REQUEST_LIMIT`. A CRD
of four identical versions is stored once; a description of `<`s is six
times its length.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ETCD_REQUEST_LIMIT", "stored_size"]

ETCD_REQUEST_LIMIT = 1536 * 1024
"""etcd's default `--max-request-bytes`."""

_HOISTED = ("schema", "subresources", "additionalPrinterColumns", "selectableFields")
"""Per-version fields the v1beta1 form writes once when every version has them alike
(the spec-level fields are `validation`, `subresources`, `additionalPrinterColumns`,
`selectableFields`)."""
_SPEC_NAME = {"schema": "validation"}
_TRANSACTION = 128
"""etcd's framing of the write beyond the key (named twice) and the value: a
CRD whose description alone fills it up is established by kube-apiserver
1.36.3 at 1,571,572 bytes of description, and not at 1,571,576 (the status
update that establishes it is the larger write)."""
_TIME = "2006-01-02T15:04:05Z"


def stored_size(crd: dict[str, Any]) -> int:
    """The bytes etcd is asked to store for `crd` once the API server has
    accepted and established it."""
    stored = _as_stored(crd)
    text = json.dumps(stored, ensure_ascii=False, separators=(",", ":"))
    value = len(text.encode("utf-8")) + 1  # Encoder.Encode ends with a newline
    value += 5 * sum(text.count(c) for c in "<>&")
    value += 3 * sum(text.count(c) for c in "\u2028\u2029")
    key = f"/registry/apiextensions.k8s.io/customresourcedefinitions/{_name(crd)}"
    return value + 2 * len(key) + _TRANSACTION


def _name(crd: dict[str, Any]) -> str:
    metadata = crd.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else ""


def _as_stored(crd: dict[str, Any]) -> dict[str, Any]:
    spec = dict(crd.get("spec") or {})
    versions = [dict(v) for v in spec.get("versions") or [] if isinstance(v, dict)]
    if versions:
        spec["version"] = versions[0].get("name")
    for key in _HOISTED:
        values = [_canonical(version.get(key)) for version in versions]
        if versions and len(set(values)) == 1:
            if versions[0].get(key) is not None:
                spec[_SPEC_NAME.get(key, key)] = versions[0][key]
            for version in versions:
                version.pop(key, None)
    spec["versions"] = versions
    spec.setdefault("conversion", {"strategy": "None"})
    spec["preserveUnknownFields"] = bool(spec.get("preserveUnknownFields", False))
    names = dict(spec.get("names") or {})
    kind = str(names.get("kind", ""))
    names.setdefault("singular", kind.lower())
    names.setdefault("listKind", f"{kind}List")
    spec["names"] = names
    metadata = dict(crd.get("metadata") or {})
    metadata.update(
        uid="00000000-0000-0000-0000-000000000000",
        generation=1,
        creationTimestamp=_TIME,
        managedFields=_managed_fields(spec),
    )
    storage = [v.get("name") for v in versions if v.get("storage")]
    status = {
        "conditions": [
            _condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            _condition(
                "Established",
                "InitialNamesAccepted",
                "the initial names have been accepted",
            ),
        ],
        "acceptedNames": names,
        "storedVersions": storage,
    }
    return {
        "kind": "CustomResourceDefinition",
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _condition(kind: str, reason: str, message: str) -> dict[str, str]:
    return {
        "type": kind,
        "status": "True",
        "lastTransitionTime": _TIME,
        "reason": reason,
        "message": message,
    }


def _managed_fields(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The creator's entry, as `kubectl create` leaves it: every field of
    `spec` it set, `versions` an atomic list (so no deeper)."""
    fields: dict[str, Any] = {
        f"f:{key}": {} for key in spec if key not in ("names", "conversion")
    }
    fields["f:names"] = {f"f:{key}": {} for key in spec["names"]}
    fields["f:conversion"] = {".": {}, "f:strategy": {}}
    return [
        {
            "manager": "kubectl-create",
            "operation": "Update",
            "apiVersion": "apiextensions.k8s.io/v1",
            "time": _TIME,
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": fields},
        }
    ]
