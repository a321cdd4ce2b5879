"""Reconciles sharded across replicas, on Kubernetes Leases and labels.

- `protocol`: the labels and `ShardingOptions` (`ManagerOptions.sharding`);
- `ring`: the consistent hash ring that places objects on members;
- `membership`: each replica's own Lease in the ring, and the assigner's view
  of the live members;
- `assigner`: run by the elected leader, writes each object's shard label and
  moves objects with the drain handover;
- `holder`: a replica's side of the handover, the gate before each reconcile;
- `replica`: what the manager wires together when sharding is on.

See docs/runtime.md#sharding.
"""
