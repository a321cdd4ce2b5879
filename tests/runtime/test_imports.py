"""The runtime imports without the generator's dependencies, and without generator modules."""

from __future__ import annotations

import subprocess
import sys
import textwrap

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
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
