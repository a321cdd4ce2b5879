"""Wrong uses: each line with an error comment must fail mypy --strict."""

from opgen import runtime as rt
from tests.runtime.kinds import Gadget, Widget
from tests.runtime.typing_cases.clients import GadgetClient, WidgetClient


async def misuse(client: rt.Client, widget: Widget, gadget: Gadget) -> int:
    widgets = WidgetClient(client)
    gadgets = GadgetClient(client)
    await widgets.get("a")  # error: no namespace
    await widgets.create(gadget)  # error: wrong model
    await gadgets.get("a", namespace="ns")  # error: cluster-scoped
    await widgets.delete("a")  # error: no namespace
    await widgets.update_scale("a", "3", namespace="n")  # error: replicas
    name: int = (await gadgets.get("a")).metadata.name  # error: str
    return name
