"""The runtime imports without the generator's dependencies, and without generator modules."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.fresh import in_fresh_interpreter

ROOT = Path(__file__).parents[2]
BLOCKED = ["typer", "jinja2", "black", "datamodel_code_generator"]


def test_runtime_imports_with_generator_dependencies_blocked() -> None:
    script = textwrap.dedent(f"""
        import sys
        blocked = {BLOCKED!r}

        class Blocker:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in blocked:
                    raise ImportError(f"{{name}} is blocked: the runtime must not import it")
                return None

        sys.meta_path.insert(0, Blocker())
        from opgen import runtime as rt
        import opgen.runtime.manager, opgen.runtime.typed, opgen.runtime.events
        assert rt.Manager and rt.Controller and rt.Client
        generator = [m for m in sys.modules if m.split(".")[:2] in (
            ["opgen", "load"], ["opgen", "schema"], ["opgen", "render"],
            ["opgen", "write"], ["opgen", "project"], ["opgen", "cli"])]
        assert not generator, generator
        assert not [m for m in sys.modules if m.split(".")[0] in blocked]
        print("ok")
        """)
    assert in_fresh_interpreter(script, cwd=ROOT) == "ok"


def test_an_operator_loads_the_cel_engine_and_web_server_only_when_used() -> None:
    """Start-up cost: decoding skips CEL rules and a manager serving nothing has no
    HTTP server, so neither loads until a model checks a rule or a server starts."""
    script = textwrap.dedent("""
        import sys
        from typing import Annotated
        import opgen.api as op
        from opgen import runtime as rt
        from tests.runtime.sample import WidgetReconciler

        def loaded():
            return sorted(m for m in sys.modules
                          if m in ("opgen.engine.cel.program", "aiohttp.web"))

        assert loaded() == [], loaded()

        class Bounded(op.Model):
            size: Annotated[int, op.Rule("self <= 3", message="at most 3")] = 0

        Bounded(size=1)
        assert loaded() == ["opgen.engine.cel.program"], loaded()
        print("ok")
        """)
    assert in_fresh_interpreter(script, cwd=ROOT) == "ok"


def test_a_reconciler_imported_for_its_markers_loads_no_http_stack(
    tmp_path: Path,
) -> None:
    """`opgen generate` imports every reconciler and webhook handler to read its
    `op.rbac` and `op.webhook` markers. Importing the runtime as they do loads
    none of its modules, aiohttp or prometheus_client; the first use of a name
    loads what it needs."""
    script = textwrap.dedent("""
        from __future__ import annotations  # as the scaffold writes it
        import sys
        import opgen.api as op
        from opgen import runtime as rt

        @op.rbac(groups=["apps"], resources=["deployments"], verbs=["get", "list"])
        class Reconciler:
            def __init__(self, client: rt.Client) -> None:
                self.client = client

        def heavy():
            return sorted(m for m in sys.modules
                          if m.startswith("opgen.runtime.")
                          or m.split(".")[0] in ("aiohttp", "prometheus_client", "yaml"))

        assert heavy() == [], heavy()
        assert rt.NotFound.__module__ == "opgen.runtime.errors"
        assert "aiohttp" not in sys.modules
        assert rt.Client.__module__ == "opgen.runtime.client"
        assert "aiohttp" in sys.modules
        print("ok")
        """)
    reconciler = tmp_path / "reconciler.py"  # markers read their class's source
    ran = in_fresh_interpreter(script, cwd=ROOT, script=reconciler, pythonpath=ROOT)
    assert ran == "ok"


def test_a_manager_serving_no_webhook_loads_no_webhook_module() -> None:
    """A manager holds its `WebhookOptions` alone; the webhook server and the
    review modules load when `manager.webhooks` is first used (a handler added),
    not for an operator that serves none, through a whole run."""
    script = textwrap.dedent("""
        import asyncio, sys
        from opgen import runtime as rt
        from tests.runtime.kinds import Widget
        from tests.runtime.test_scripted_manager import ScriptedApi, widget

        def loaded():
            return sorted(m for m in sys.modules
                          if m.startswith("opgen.runtime.webhook."))

        async def nothing(request):
            return rt.Result()

        async def run_once():
            off = "0"
            manager = rt.Manager(
                options=rt.ManagerOptions(
                    metrics=rt.MetricsOptions(bind_address=off),
                    probes=rt.ProbeOptions(bind_address=off),
                ),
                transport=ScriptedApi(widget("a", replicas=1)),
            )
            manager.add_controller(rt.Controller(
                "noop", for_=rt.For(Widget),
                reconciler=rt.FuncReconciler(nothing),
            ))
            running = asyncio.create_task(manager.run(install_signal_handlers=False))
            await manager.elected.wait()
            assert manager.webhook_address is None
            manager.stop()
            await running
            return manager

        manager = asyncio.run(run_once())
        assert loaded() == ["opgen.runtime.webhook.options"], loaded()
        assert not manager.webhooks.has_handlers
        assert "opgen.runtime.webhook.server" in loaded(), loaded()
        print("ok")
        """)
    assert in_fresh_interpreter(script, cwd=ROOT) == "ok"


def test_an_operator_loads_difflib_only_for_a_misspelt_name() -> None:
    """`difflib` (suggestions for a misspelt `op.<name>` or RBAC verb) is not
    loaded by an operator that names everything right; the first misspelling
    loads it and is answered with a guess."""
    script = textwrap.dedent("""
        import sys
        import opgen.api as op
        from opgen import runtime as rt
        from tests.runtime.sample import WidgetReconciler

        assert "difflib" not in sys.modules
        try:
            op.Minimun
        except AttributeError as error:
            assert "did you mean op.Minimum?" in str(error), error
        assert "difflib" in sys.modules
        print("ok")
        """)
    assert in_fresh_interpreter(script, cwd=ROOT) == "ok"
