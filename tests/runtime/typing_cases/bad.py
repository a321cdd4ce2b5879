"""Wrong uses of generated typed clients: each line marked as an error fails mypy."""

from typed_demo.api.v1.gadget_types import Gadget
from typed_demo.api.v1.widget_types import Widget
from typed_demo.api.v1.zz_generated_client import GadgetClient, WidgetClient

from opgen import runtime as rt


async def misuse(client: rt.Client, widget: Widget, gadget: Gadget) -> int:
    widgets = WidgetClient(client)
    gadgets = GadgetClient(client)
    await widgets.get("a")  # error: no namespace
    await widgets.create(gadget)  # error: wrong model
    await gadgets.update(widget)  # error: wrong model
    await gadgets.get("a", namespace="ns")  # error: cluster-scoped
    await gadgets.delete_collection(namespace="ns")  # error: cluster-scoped
    await widgets.delete(gadget)  # error: wrong model
    await widgets.patch_status(gadget)  # error: wrong model
    await widgets.get_scale("a")  # error: no namespace
    await widgets.update_scale("a", "3", namespace="n")  # error: replicas
    other: Gadget = await widgets.get("a", namespace="ns")  # error: a Widget
    name: int = (await gadgets.get("a")).metadata.name  # error: optional
    return name + len(other.kind)


def misspelt() -> object:
    return rt.Clinet  # error: misspelt
