"""Kinds whose CEL rules the property test checks: the example's rules, and rules
over lists, maps, strings, quantities and int-or-string values, with has()
guards, messageExpression and transition rules."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op

GROUP = "celproof.opgen.dev"
MAX_REPLICAS = 10


@op.Rule(
    "self.minReplicas <= self.maxReplicas",
    message="minReplicas must not exceed maxReplicas",
    field_path=".minReplicas",
)
@op.Rule(
    "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
    message="replicas must lie between minReplicas and maxReplicas",
    field_path=".replicas",
)
class WorkerGroupSpec(op.Model):
    """The example's worker group (examples/raycluster_types.py), its rules as written."""

    group_name: Annotated[str, op.MinLength(1), op.MaxLength(8)]
    replicas: Annotated[int, op.Minimum(0), op.Maximum(MAX_REPLICAS)] = 1
    min_replicas: Annotated[int, op.Minimum(0), op.Maximum(MAX_REPLICAS)] = 0
    max_replicas: Annotated[int, op.Minimum(0), op.Maximum(MAX_REPLICAS)] = MAX_REPLICAS


class Container(op.Model):
    name: Annotated[str, op.MaxLength(8)]
    image: Annotated[str, op.MaxLength(16)] | None = None


class PodSpec(op.Model):
    containers: Annotated[list[Container], op.MaxItems(3)] = []


class Template(op.Model):
    spec: PodSpec | None = None


class HeadGroup(op.Model):
    template: Template | None = None


class Group(WorkerGroupSpec):
    template: Template | None = None


@op.Rule(
    "has(self.image) || (has(self.headGroup) && has(self.headGroup.template)"
    " && has(self.headGroup.template.spec)"
    " && size(self.headGroup.template.spec.containers) > 0"
    " && has(self.headGroup.template.spec.containers[0].image)"
    " && (!has(self.workerGroups) || self.workerGroups.all(g, has(g.template)"
    " && has(g.template.spec) && size(g.template.spec.containers) > 0"
    " && has(g.template.spec.containers[0].image))))",
    message="set spec.image, or an image on the first container of the head's"
    " and every worker group's template",
    field_path=".image",
)
@op.Rule(
    "!has(self.workerReplicas) || !has(self.workerGroups)"
    " || (self.workerGroups.map(g, g.minReplicas).sum() <= self.workerReplicas"
    " && self.workerReplicas <= self.workerGroups.map(g, g.maxReplicas).sum())",
    message="workerReplicas must lie between the sums of the groups' minReplicas"
    " and maxReplicas",
    field_path=".workerReplicas",
)
class ClusterSpec(op.Model):
    """The example's RayClusterSpec rules, on a smaller tree."""

    ray_version: Annotated[str, op.MaxLength(8), op.Immutable()] | None = None
    image: Annotated[str, op.MinLength(1), op.MaxLength(16)] | None = None
    head_group: HeadGroup | None = None
    worker_replicas: Annotated[int, op.Minimum(0)] | None = None
    worker_groups: Annotated[
        list[Group], op.ListType("map"), op.ListMapKey("group_name"), op.MaxItems(4)
    ] = []


@op.Rule(
    "size(self.metadata.name) <= 12"
    " && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message="a cluster's name is at most 12 lower-case letters, digits and '-'",
    field_path=".metadata",
)
@op.kind(group=GROUP, version="v1")
class Cluster(op.CustomResource[ClusterSpec, None]):
    """The example's rules (kind, spec and worker group)."""


class Port(op.Model):
    name: Annotated[str, op.MaxLength(8)]
    number: Annotated[
        op.IntOrString,
        op.Rule(
            "type(self) == int ? self > 0 && self < 65536 : self.matches('^[a-z]+$')",
            message="a port number or a lower-case name",
        ),
    ]


@op.Rule(
    "!has(self.minSize) || !has(self.maxSize) || self.minSize <= self.maxSize",
    message_expression="'minSize ' + self.minSize + ' exceeds maxSize ' + self.maxSize",
)
@op.Rule(
    "!has(self.memory) || type(self.memory) == int"
    " || quantity(self.memory).isLessThan(quantity('8Gi'))",
    message="memory must be below 8Gi",
    field_path=".memory",
)
class ValuesSpec(op.Model):
    """Rules over lists, maps, strings, quantities and int-or-string values."""

    name: Annotated[
        str,
        op.MaxLength(12),
        op.Rule("self.matches('^[a-z]+(-[a-z]+)*$')", message="lower-case words"),
        op.Rule(
            "self.split('-').size() <= 2",
            message_expression="'name ' + self + ' has more than two words'",
        ),
    ]
    tags: Annotated[
        list[Annotated[str, op.MaxLength(6)]],
        op.MaxItems(5),
        op.Rule("self.all(t, t != 'bad')", message="no tag may be bad"),
        op.Rule(
            "!self.exists(t, t == 'one') || self.exists_one(t, t == 'one')",
            message="at most one tag 'one'",
            reason="FieldValueForbidden",
        ),
        op.Rule("self.isSorted()", message="tags must be sorted"),
    ] = []
    labels: Annotated[
        dict[str, Annotated[str, op.MaxLength(6)]],
        op.MaxProperties(4),
        op.Rule("self.all(k, k.startsWith('x-'))", message="label keys start with x-"),
        op.Rule("!('forbidden' in self)", reason="FieldValueForbidden"),
    ] = {}
    ports: Annotated[
        list[Port], op.ListType("map"), op.ListMapKey("name"), op.MaxItems(3)
    ] = []
    memory: op.Quantity | None = None
    min_size: Annotated[str, op.MaxLength(4)] | None = None
    max_size: Annotated[str, op.MaxLength(4)] | None = None
    replicas: Annotated[
        int,
        op.Minimum(0),
        op.Maximum(100),
        op.Rule(
            "self >= oldSelf",
            message_expression="'replicas may only grow'",
        ),
        op.Rule(
            "oldSelf.hasValue() || self <= 3",
            optional_old_self=True,
            message="at most 3 replicas on creation",
        ),
    ] = 0
    owner: Annotated[str, op.MaxLength(8), op.Immutable()] | None = None


@op.kind(group=GROUP, version="v1")
class Values(op.CustomResource[ValuesSpec, None]):
    """Rules over every kind of value."""
