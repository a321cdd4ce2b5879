"""Reconciles sharded across replicas, on Kubernetes Leases and slot labels.

- `protocol`: the labels, annotations and `ShardingOptions` (`ManagerOptions.sharding`);
- `hashing`: the stable hash that places an object in a slot;
- `assignment`: slots → members, the balanced target and the safe next step;
- `membership`: each replica's own Lease in the ring (with its claims), and the
  assigner's view of the live members;
- `assigner`: run by the elected leader, labels objects with their slot once and
  writes the assignment;
- `follower`: a replica moving its claims, caches and gates to its slots;
- `holder`: the gate before each reconcile, on the slots a replica holds;
- `replica`: what the manager wires together when sharding is on.

See docs/runtime.md#sharding.
"""
