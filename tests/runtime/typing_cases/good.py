"""Correct uses: mypy --strict accepts them."""

from opgen import runtime as rt
from tests.runtime.kinds import Gadget, Widget
from tests.runtime.typing_cases.clients import GadgetClient, WidgetClient


async def use(client: rt.Client, widget: Widget, gadget: Gadget) -> int:
    widgets = WidgetClient(client)
    gadgets = GadgetClient(client)
    got: Widget = await widgets.get("a", namespace="ns")
    await widgets.create(widget)
    await gadgets.update(gadget)
    scale = await widgets.update_scale("a", 3, namespace="ns")
    page = await gadgets.list(labels={"a": "b"}, limit=10)
    async for event in widgets.watch(namespace="ns"):
        print(event.object.spec.replicas)
    return got.spec.replicas + scale.replicas + len(page.items)
