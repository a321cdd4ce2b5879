"""Correct uses of the generated typed clients: mypy --strict accepts them."""

from typed_demo.api.v1.gadget_types import Gadget
from typed_demo.api.v1.widget_types import Widget
from typed_demo.api.v1.zz_generated_client import GadgetClient, WidgetClient

import opgen.api as op
from opgen import runtime as rt


async def use(client: rt.Client, widget: Widget, gadget: Gadget) -> int:
    widgets = WidgetClient(client)
    gadgets = GadgetClient(client)
    got: Widget = await widgets.get("a", namespace="ns")
    await widgets.create(widget)
    await gadgets.update(gadget)
    await gadgets.delete(gadget, propagation_policy="Foreground")
    await widgets.patch(widget, {"spec": {"replicas": 2}})
    await widgets.patch_status(widget)
    status: Gadget = await gadgets.get_status("g")
    scale = await widgets.update_scale("a", 3, namespace="ns")
    page = await gadgets.list(labels={"a": "b"}, limit=10)
    async for event in widgets.watch(namespace="ns"):
        print(event.type, event.object.spec.replicas)
    return got.spec.replicas + scale.replicas + len(page) + len(status.kind)


def value_markers() -> list[object]:
    """Markers that work out their quick checks when made take only their arguments."""
    return [
        op.Minimum(0),
        op.Maximum(10),
        op.ExclusiveMinimum(0.5),
        op.ExclusiveMaximum(9.5),
        op.MultipleOf(2),
        op.MinLength(1),
        op.MaxLength(63),
        op.MinItems(1),
        op.MaxItems(8),
        op.MinProperties(1),
        op.MaxProperties(8),
        op.Format("date-time"),
    ]
