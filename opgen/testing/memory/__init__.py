"""An in-memory API server behind the runtime's transport seam (`seams.Transport`).

A manager, its cache, controllers and client run unchanged against it
(`Manager(transport=MemoryApiServer(...).transport())`), with no etcd and no
kube-apiserver. It earns trust by agreeing with envtest, scenario by scenario
(tests/testing/memory); docs/testing.md lists what it does not reproduce.

One job per module:

- `kinds`: the kinds it serves: CRDs from their YAML (the project's and
  imported ones) with the models that validate them, and `op.k8s` built-ins
  from their resource facts;
- `paths`: a request's path and query, read into the kind and object it names;
- `answers`: error answers in the server's `Status` shape;
- `metadata`: what the server sets and checks in `metadata` (uid,
  timestamps, generated names, name formats);
- `schema`: a CRD schema's pruning of unknown fields and its defaults, and
  the scale subresource's replica checks;
- `scale`: a custom resource seen as an `autoscaling/v1` Scale;
- `validation`: a candidate object checked through its kind's model, refusals
  as the server's 422 causes;
- `patches`: merge and JSON patches;
- `strategic`: strategic merge patch of built-ins, by the patch-merge keys
  and strategies of `opgen.api.k8s.patch_strategies`;
- `collector`: the API server's deletion finalizers per propagation policy,
  and garbage collection by owner references as kube-controller-manager's
  collector does it, run after every write;
- `fields`: field sets as server-side apply sees them (`fieldsV1` paths
  typed by the schema: structs, maps, list maps, sets), their merge and
  removal;
- `managed`: `managedFields` (Update and Apply managers) and server-side
  apply's conflicts, `force` and removal of fields no longer applied;
- `store`: the objects, the one resourceVersion counter, the event history
  that watches read;
- `server`: the REST semantics (create, get, list, watch, update, patch,
  delete and deletecollection, the status and scale subresources,
  finalizers, Namespaces' termination, dry runs);
- `conversion`: objects between a CRD's served versions (stored in its
  storage version; strategy `None`, or the project's conversion webhook);
- `admission`: the project's mutating and validating webhooks, matched by
  their configurations' rules and called with their failure policies;
- `handlers`: the project's webhook handlers (`setup_webhooks`), answering
  reviews in process from a thread of their own;
- `faults`: answers given instead of doing a request (429 with
  `Retry-After`, 500, a conflict, latency), on demand;
- `partial`: metadata-only answers (`PartialObjectMetadata`) to the
  `Accept` that asks for them;
- `transport`: the `seams.Transport` face of a server.
"""

from __future__ import annotations

from opgen.testing.memory.faults import Fault
from opgen.testing.memory.kinds import Kind, Kinds
from opgen.testing.memory.server import MemoryApiServer
from opgen.testing.memory.transport import MemoryTransport

__all__ = ["Fault", "Kind", "Kinds", "MemoryApiServer", "MemoryTransport"]
