"""Typed clients as a generator would write them, used by the typing test."""

from opgen.runtime import typed
from tests.runtime.kinds import Gadget, Widget


class WidgetClient(
    typed.NamespacedClient[Widget],
    typed.NamespacedStatus[Widget],
    typed.NamespacedScale[Widget],
):
    model = Widget


class GadgetClient(
    typed.ClusterClient[Gadget], typed.ClusterStatus[Gadget], typed.ClusterScale[Gadget]
):
    model = Gadget
