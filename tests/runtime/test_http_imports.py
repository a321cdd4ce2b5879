"""Which opgen modules may use which half of aiohttp: its client only in the
transport (and envtest's archive download, which fetches files, not API
objects), its web server only in the server modules.

import-linter sees the modules a module imports (pyproject.toml's contracts);
this also reads the names a module takes from the package itself
(`aiohttp.ClientSession`, `from aiohttp import web`), and fails when, say, the
server module opens a `ClientSession` or the transport starts serving.
"""

from __future__ import annotations

import ast
from pathlib import Path

import opgen

PACKAGE = Path(opgen.__file__).parent
TRANSPORT = "opgen/runtime/transport.py"
DOWNLOAD = "opgen/testing/binaries/download.py"
SERVERS = {"opgen/runtime/serving.py"}

CLIENT_NAMES = frozenset(
    {
        "ClientSession",
        "TCPConnector",
        "ClientTimeout",
        "TraceConfig",
        "request",
        "client",
        "client_reqrep",
        "client_exceptions",
        "connector",
        "cookiejar",
        "tracing",
    }
)
"""aiohttp's client: its session, connector, timeouts, tracing, `aiohttp.request`,
and the modules that define them."""


def aiohttp_uses(tree: ast.AST) -> set[str]:
    """What a module takes from aiohttp: `web`, `ClientSession`, ... (the first
    name after `aiohttp.`, from imports and attribute uses alike)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            root, _, rest = node.module.partition(".")
            if root == "aiohttp":
                if rest:
                    used.add(rest.split(".")[0])
                else:
                    used.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                root, _, rest = alias.name.partition(".")
                if root == "aiohttp" and rest:
                    used.add(rest.split(".")[0])
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "aiohttp"
        ):
            used.add(node.attr)
    return used


def modules() -> dict[str, set[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        if relative.startswith("opgen/templates/"):
            continue
        found[relative] = aiohttp_uses(ast.parse(path.read_text(), relative))
    return found


def test_only_the_transport_uses_aiohttps_client() -> None:
    using = {name for name, used in modules().items() if used & CLIENT_NAMES}
    assert using == {TRANSPORT, DOWNLOAD}


def test_only_the_servers_use_aiohttps_web_server() -> None:
    using = {name for name, used in modules().items() if "web" in used}
    assert using <= SERVERS
    assert "web" not in modules()[TRANSPORT]


def test_the_check_sees_each_form_of_import() -> None:
    source = (
        "import aiohttp\nimport aiohttp.web\nfrom aiohttp import ClientSession\n"
        "from aiohttp.client import ClientTimeout\naiohttp.TCPConnector()\n"
    )
    assert aiohttp_uses(ast.parse(source)) == {
        "web",
        "ClientSession",
        "client",
        "TCPConnector",
    }
