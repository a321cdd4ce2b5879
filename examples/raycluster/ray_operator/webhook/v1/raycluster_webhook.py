# Copyright The opgen authors.
# SPDX-License-Identifier: Apache-2.0
"""The webhooks of RayCluster (ray.io/v1).

`opgen create webhook` wrote this file and adds the webhooks it is asked for
later above the `+opgen:insert:webhooks` line; everything outside the
`+opgen:scaffold` markers is yours. `opgen generate` turns the `@op.webhook`
and `@op.conversion` declarations into config/webhook/manifests.yaml and the
CRD's conversion section.

- Defaulting fills in the image of every group's Ray container from
  `spec.image`, and keeps `spec.workerReplicas` the total of the groups.
- Validation refuses a cluster whose pods could never fit the namespace's
  ResourceQuotas (other objects: beyond what CEL sees), and warns about
  deprecated settings.
- Conversion maps ray.io/v1alpha1, the flat first shape, to and from v1.

They see RayClusters written through the API (create, update, apply,
patch); `kubectl scale` writes the scale subresource, which no webhook of
RayClusters sees: the CRD's CEL rules still hold there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from decimal import Decimal

import opgen.api as op
from opgen import runtime as rt

from ray_operator.api.v1 import raycluster_types as v1
from ray_operator.api.v1 import spread

# +opgen:scaffold:imports
from ray_operator.api.v1.raycluster_types import RayCluster
from ray_operator.api.v1alpha1 import raycluster_types as v1alpha1

# +opgen:scaffold:imports:end

log = logging.getLogger(__name__)


@op.webhook(RayCluster, mutating=True)
class RayClusterDefaulter:
    """Sets defaults on RayCluster objects before the API server stores them."""

    def __init__(self, client: rt.Client) -> None:
        # The manager's client (cached reads), for rules that read other objects.
        self.client = client

    async def default(self, obj: RayCluster) -> None:
        """Fill in, in place, what `obj` leaves out.

        - The Ray container (the first container of a template) of the head
          and of every worker group gets `spec.image` when it names no image;
          on an update, one that ran the old `spec.image` follows the new one.
          Pin a group by giving its Ray container another image.
        - `spec.workerReplicas`, when unset, becomes the sum of the groups'
          replicas; an update that changes the groups' replicas and leaves
          `workerReplicas` as it was sets it to their new sum. So the total
          and the groups never disagree: `kubectl scale` changes the total
          and the spread rule shares it out (ray_operator.api.v1.spread), an
          edit of the groups changes the total.
        """
        old = previous(RayCluster)
        fill_images(obj.spec, old.spec.image if old else None)
        keep_total(obj.spec, old.spec if old else None)


def previous(kind: type[RayCluster]) -> RayCluster | None:
    """The stored object an UPDATE changes (None for a CREATE, or outside a request)."""
    try:
        stored = rt.webhook.admission_request().raw.get("oldObject")
    except LookupError:  # called directly, as in a unit test
        return None
    return kind.model_validate(stored) if stored else None


def ray_containers(spec: v1.RayClusterSpec) -> Iterator[op.k8s.Container]:
    """The Ray container of the head and of each worker group that has a template."""
    templates = [spec.head_group.template if spec.head_group else None]
    templates += [group.template for group in spec.worker_groups]
    for template in templates:
        if template is not None and template.spec and template.spec.containers:
            yield template.spec.containers[0]


def fill_images(spec: v1.RayClusterSpec, old_default: str | None) -> None:
    """Give every Ray container without an image (or with the old default) `spec.image`."""
    if spec.image is None:
        return
    for container in ray_containers(spec):
        if not container.image or container.image == old_default:
            container.image = spec.image


def keep_total(spec: v1.RayClusterSpec, old: v1.RayClusterSpec | None) -> None:
    """Set `workerReplicas` to the groups' total when unset, or when only the groups changed."""
    if spec.worker_replicas is None:
        spec.worker_replicas = spread.declared_total(spec)
        return
    if old is None or not spec.worker_groups:
        return
    groups_changed = _replicas(spec) != _replicas(old)
    if groups_changed and spec.worker_replicas == old.worker_replicas:
        spec.worker_replicas = sum(g.replicas for g in spec.worker_groups)


def _replicas(spec: v1.RayClusterSpec) -> dict[str, int]:
    return {g.group_name: g.replicas for g in spec.worker_groups}


@op.webhook(RayCluster, mutating=False)
# The quota check reads the namespace's ResourceQuotas.
@op.rbac(groups=["core"], resources=["resourcequotas"], verbs=["get", "list", "watch"])
class RayClusterValidator:
    """Checks RayCluster objects against rules its schema cannot express."""

    def __init__(self, client: rt.Client) -> None:
        # The manager's client (cached reads), for rules that read other objects.
        self.client = client

    async def validate_create(self, obj: RayCluster) -> list[str]:
        """Check a new object; return warnings (kubectl prints them).

        Refuse it by raising `rt.webhook.Denied`, with `rt.webhook.FieldError`
        causes naming the fields at fault.
        """
        return await self.check(obj)

    async def validate_update(self, old: RayCluster, new: RayCluster) -> list[str]:
        """Check a change: `old` is the stored object, `new` what the client sent."""
        return await self.check(new)

    async def validate_delete(self, obj: RayCluster) -> list[str]:
        """Check a deletion (called when "DELETE" is among the operations)."""
        return []

    async def check(self, obj: RayCluster) -> list[str]:
        """The rules every stored RayCluster meets; returns warnings."""
        if not obj.spec.suspend:
            quotas = await self.client.list(
                op.k8s.ResourceQuota, namespace=obj.metadata.namespace
            )
            for quota in quotas:
                check_quota(obj, quota)
        return deprecations(obj.spec)


def deprecations(spec: v1.RayClusterSpec) -> list[str]:
    """Warnings about settings that still work but should go."""
    if spec.upscaling_mode is v1.UpscalingMode.AGGRESSIVE:
        return [
            "spec.upscalingMode: Aggressive is deprecated, an alias for Default;"
            " set Default"
        ]
    return []


def check_quota(obj: RayCluster, quota: op.k8s.ResourceQuota) -> None:
    """Refuse `obj` when its pods alone exceed a hard limit of `quota`.

    Counted: the `pods` quota, and `requests.<resource>` (`cpu` and `memory`
    bare too) and `limits.<resource>` over the containers of the head's and
    the workers' pods at their replicas (a container's request defaults to
    its limit, as the API server does). Other pods of the namespace are not
    counted: this refuses a cluster that could never run there, where the
    quota itself would stop its pods one by one.
    """
    hard = (quota.spec.hard if quota.spec else None) or {}
    needs = pod_needs(obj)
    for key, limit in sorted(hard.items()):
        need = needs.get(key)
        if need is None or need <= op.quantity_amount(limit):
            continue
        raise rt.webhook.Denied(
            f"the cluster needs {key}={_number(need)} (head and "
            f"{spread.declared_total(obj.spec)} workers); ResourceQuota "
            f"{quota.metadata.name} allows {limit}"
        )


def pod_needs(obj: RayCluster) -> dict[str, Decimal]:
    """What the cluster's pods take of each quota key, at their replicas."""
    spec = obj.spec
    head = spec.head_group.template if spec.head_group else None
    pods = [(head, spec.head_replicas)]
    by_group = {g.group_name: g.template for g in spec.worker_groups}
    pods += [(by_group.get(name), count) for name, count in spread.spread(spec).items()]
    needs: dict[str, Decimal] = {"pods": Decimal(sum(count for _, count in pods))}
    for template, count in pods:
        for key, amount in _pod_resources(template).items():
            needs[key] = needs.get(key, Decimal(0)) + amount * count
    for bare in ("cpu", "memory"):
        if f"requests.{bare}" in needs:
            needs[bare] = needs[f"requests.{bare}"]
    needs["count/pods"] = needs["pods"]
    return needs


def _pod_resources(template: op.k8s.PodTemplateSpec | None) -> dict[str, Decimal]:
    found: dict[str, Decimal] = {}
    if template is None or template.spec is None:
        return found
    for container in template.spec.containers:
        resources = container.resources
        limits: Mapping[str, str] = (resources.limits if resources else None) or {}
        requests = {**limits, **((resources.requests if resources else None) or {})}
        for prefix, amounts in (("requests", requests), ("limits", limits)):
            for resource, amount in amounts.items():
                key = f"{prefix}.{resource}"
                found[key] = found.get(key, Decimal(0)) + op.quantity_amount(amount)
    return found


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f")


@op.conversion(hub=RayCluster, spoke=v1alpha1.RayCluster)
class RayClusterV1alpha1Conversion:
    """Converts RayCluster between v1alpha1 and the hub version, v1.

    v1alpha1's fields are v1's flat fields under the same names; a v1alpha1
    RayCluster is a v1 one without groups (its workers run in the group
    `workers`). What only v1 has (the groups, rayVersion, suspend, the
    conditions) survives a round trip through v1alpha1 without help: the
    runtime keeps it in an annotation of the v1alpha1 object.
    """

    def convert_to_hub(self, spoke: v1alpha1.RayCluster) -> RayCluster:
        """The v1 form of a v1alpha1 object."""
        status = spoke.status
        return RayCluster(
            metadata=spoke.metadata,
            spec=v1.RayClusterSpec(
                head_replicas=spoke.spec.head_replicas,
                worker_replicas=spoke.spec.worker_replicas,
                image=spoke.spec.image,
            ),
            status=(
                v1.RayClusterStatus(
                    ready=status.ready, worker_ready=status.worker_ready
                )
                if status
                else None
            ),
        )

    def convert_from_hub(self, hub: RayCluster) -> v1alpha1.RayCluster:
        """The v1alpha1 form of a v1 object."""
        status = hub.status
        return v1alpha1.RayCluster(
            metadata=hub.metadata,
            spec=v1alpha1.RayClusterSpec(
                head_replicas=hub.spec.head_replicas,
                worker_replicas=hub.spec.worker_replicas,
                image=hub.spec.image,
            ),
            status=(
                v1alpha1.RayClusterStatus(
                    ready=status.ready, worker_ready=status.worker_ready
                )
                if status
                else None
            ),
        )


# +opgen:insert:webhooks


def setup(manager: rt.Manager) -> None:
    """Register these webhooks with the manager's webhook server (main.py calls it)."""
    # +opgen:scaffold:setup
    manager.webhooks.add(RayClusterDefaulter(manager.client))
    manager.webhooks.add(RayClusterValidator(manager.client))
    manager.webhooks.add(RayClusterV1alpha1Conversion())
    # +opgen:scaffold:setup:end
