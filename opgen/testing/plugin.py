"""pytest plugin: envtest fixtures for opgen's tests and every generated project's.

Loaded through the `pytest11` entry point, so any project that depends on
opgen has these fixtures:

- `envtest` (session): a started `opgen.testing.Environment`, shared by the
  session; tests isolate themselves by namespace. Without binaries the tests
  that use it skip with the reason, or fail when `OPGEN_REQUIRE_ENVTEST=1`.
- `envtest_controller_manager` (session): the same environment with
  kube-controller-manager running (garbage collection, namespace deletion).
- `client` (async): an `rt.Client` acting as the admin, without a cache
  (every read goes to the API server), closed after the test.
- `namespace` (async): a fresh namespace for the test, deleted afterwards.
- `manager_account` (session): the project's RBAC (`config/rbac`, with
  `config/default`'s namespace and name prefix) applied, and its manager's
  ServiceAccount with a token kubeconfig: run the manager as it runs deployed.

One switch per test run picks the API server behind `client` and
`namespace`: `--api-server=envtest` (the default; ini `opgen_api_server`) or
`--api-server=memory`, a fresh `opgen.testing.memory.MemoryApiServer` per
test serving the session's CRDs and calling the project's webhooks in
process (`memory_api_server`; the CRDs and webhooks are read once a session,
`memory_session`), with no binaries and no envtest marker. A
test that asks for `envtest`, `envtest_controller_manager` or
`manager_account` itself runs wholly on envtest, its `client` included
(`on_memory` says which a test gets).

Either backend's start-up (`envtest`, `memory_session`) also builds the
validators and decoders of the models the collected test modules and the
project's package name (`opgen.testing.prepared`), work a process does once
and its first test using each would otherwise pay, then freezes what
start-up made out of the cyclic collector's way (`settle_startup`).

ini options: `opgen_crd_paths` (CRD files or directories installed at session
start; default `<rootdir>/config/crd/bases` when it exists) and
`opgen_envtest_controller_manager` (start kube-controller-manager with the
session). Tests using these fixtures get the `envtest` marker.

Webhooks: when the session's webhook configurations (`opgen_webhook_paths`,
default `<rootdir>/config/webhook`) hold any, or one of its CRDs converts by
webhook, the session installs them pointing at a local server
(`WebhookInstallOptions`) and serves the project's webhooks for the whole
session (`WebhookManager`), registered by `opgen_webhook_setup` (default
`<package>.main:setup_webhooks`, the package named in `<rootdir>/PROJECT`), on
`opgen_webhook_host` (default 127.0.0.1; an address an existing cluster can
reach when `USE_EXISTING_CLUSTER` is set).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest
import yaml

from opgen.errors import EnvtestError
from opgen.testing.binaries import BinariesNotFound
from opgen.testing.controlplane.crds import load_crds
from opgen.testing.controlplane.environment import Environment
from opgen.testing.controlplane.rbac import ManagerAccount
from opgen.testing.controlplane.webhookmanager import Setup, WebhookManager
from opgen.testing.controlplane.webhooks import (
    WebhookInstallOptions,
    load_configurations,
)

__all__ = [
    "API_SERVERS",
    "API_SERVER_INI",
    "CONTROLLER_MANAGER_INI",
    "CRD_PATHS_INI",
    "ENVTEST_FIXTURES",
    "REQUIRE_ENV",
    "api_server",
    "client",
    "envtest",
    "envtest_controller_manager",
    "envtest_required",
    "manager_account",
    "memory_api_server",
    "memory_session",
    "namespace",
    "namespace_name",
    "on_memory",
    "project_package",
    "session_crd_paths",
    "session_webhook_paths",
    "session_webhook_setup",
]

REQUIRE_ENV = "OPGEN_REQUIRE_ENVTEST"
API_SERVER_INI = "opgen_api_server"
API_SERVERS = ("envtest", "memory")
MEMORY_SERVED = frozenset({"client", "namespace"})
"""The fixtures `--api-server=memory` serves from the memory server."""
ENVTEST_ONLY = frozenset({"envtest", "envtest_controller_manager", "manager_account"})
"""Fixtures that are envtest itself: a test using one runs on envtest whatever the run chose."""
CRD_PATHS_INI = "opgen_crd_paths"
CONTROLLER_MANAGER_INI = "opgen_envtest_controller_manager"
WEBHOOK_PATHS_INI = "opgen_webhook_paths"
WEBHOOK_SETUP_INI = "opgen_webhook_setup"
WEBHOOK_HOST_INI = "opgen_webhook_host"
DEFAULT_CRD_DIR = Path("config", "crd", "bases")
DEFAULT_WEBHOOK_DIR = Path("config", "webhook")
ENVTEST_FIXTURES = frozenset(
    {
        "envtest",
        "envtest_controller_manager",
        "namespace",
        "manager_account",
    }
)
NAMESPACE_LABEL = {"app.kubernetes.io/managed-by": "opgen-envtest"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--api-server",
        choices=API_SERVERS,
        default=None,
        help="The API server behind the client and namespace fixtures: envtest (a "
        "real kube-apiserver and etcd) or memory (opgen.testing.memory); default: "
        f"the {API_SERVER_INI} ini option, else envtest.",
    )
    parser.addini(
        API_SERVER_INI,
        default="envtest",
        help="The API server behind the client and namespace fixtures when "
        "--api-server is not given: envtest or memory.",
    )
    parser.addini(
        CRD_PATHS_INI,
        type="paths",
        default=[],
        help="CRD files or directories the envtest fixture installs at session start "
        "(default: <rootdir>/config/crd/bases when it exists).",
    )
    parser.addini(
        WEBHOOK_PATHS_INI,
        type="paths",
        default=[],
        help="Webhook configuration files or directories served for the session "
        "(default: <rootdir>/config/webhook when it exists).",
    )
    parser.addini(
        WEBHOOK_SETUP_INI,
        default="",
        help="module:function registering the webhooks with an opgen.runtime.Manager "
        "(default: <package>.main:setup_webhooks, the package named in PROJECT).",
    )
    parser.addini(
        WEBHOOK_HOST_INI,
        default="127.0.0.1",
        help="The address the API server calls the session's webhook server on.",
    )
    parser.addini(
        CONTROLLER_MANAGER_INI,
        type="bool",
        default=False,
        help="Start kube-controller-manager (garbage collector, namespace controller) "
        "with the envtest session.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "envtest: needs a real kube-apiserver and etcd (skipped without binaries unless "
        f"{REQUIRE_ENV}=1)",
    )


def api_server(config: pytest.Config) -> str:
    """The run's API server: `--api-server`, else the ini option, else envtest."""
    chosen = config.getoption("api_server", None) or config.getini(API_SERVER_INI)
    if chosen not in API_SERVERS:
        raise pytest.UsageError(
            f"{API_SERVER_INI} = {chosen!r}: choose one of {', '.join(API_SERVERS)}"
        )
    return str(chosen)


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    needing = ENVTEST_FIXTURES | {"client"}
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if api_server(config) == "memory" and not ENVTEST_ONLY & names:
            names -= MEMORY_SERVED
        if needing & names:
            item.add_marker("envtest")


def envtest_required(environ: Mapping[str, str]) -> bool:
    """Whether missing binaries fail the tests instead of skipping them."""
    return environ.get(REQUIRE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def session_crd_paths(config: pytest.Config) -> list[Path]:
    """`opgen_crd_paths` when set, else `<rootdir>/config/crd/bases` when it exists."""
    configured: list[Path] = list(config.getini(CRD_PATHS_INI))
    if configured:
        return configured
    default = config.rootpath / DEFAULT_CRD_DIR
    return [default] if default.is_dir() else []


def session_webhook_paths(config: pytest.Config) -> list[Path]:
    """`opgen_webhook_paths` when set, else `<rootdir>/config/webhook` when it exists."""
    configured: list[Path] = list(config.getini(WEBHOOK_PATHS_INI))
    if configured:
        return configured
    default = config.rootpath / DEFAULT_WEBHOOK_DIR
    return [default] if default.is_dir() else []


def session_webhook_setup(config: pytest.Config) -> str | None:
    """`opgen_webhook_setup` when set, else `<package>.main:setup_webhooks` for the
    package `<rootdir>/PROJECT` names; None without either."""
    configured = str(config.getini(WEBHOOK_SETUP_INI) or "").strip()
    if configured:
        return configured
    package = project_package(config)
    return None if package is None else f"{package}.main:setup_webhooks"


def project_package(config: pytest.Config) -> str | None:
    """The package `<rootdir>/PROJECT` names; None without one."""
    project = config.rootpath / "PROJECT"
    if not project.is_file():
        return None
    try:
        package = (yaml.safe_load(project.read_text(encoding="utf-8")) or {}).get(
            "package"
        )
    except (OSError, yaml.YAMLError, AttributeError):
        return None
    return package if isinstance(package, str) and package else None


def _needs_webhooks(crd_paths: Sequence[Path], webhook_paths: Sequence[Path]) -> bool:
    """Whether the session's configurations hold a webhook or a CRD converts by one."""
    try:
        if load_configurations(webhook_paths):
            return True
        return any(
            ((crd.body.get("spec") or {}).get("conversion") or {}).get("strategy")
            == "Webhook"
            for crd in load_crds(crd_paths)
        )
    except EnvtestError as error:
        pytest.fail(f"envtest could not read the webhooks: {error}", pytrace=False)


def _webhook_setup(config: pytest.Config) -> Setup:
    target = session_webhook_setup(config)
    if target is None or ":" not in target:
        pytest.fail(
            "the session has webhook configurations but no way to serve them: set the "
            f"ini option {WEBHOOK_SETUP_INI} = module:function (a function registering "
            "the webhooks with an opgen.runtime.Manager)",
            pytrace=False,
        )
    module, _, name = target.partition(":")
    try:
        setup = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        pytest.fail(
            f"cannot load the webhook setup {target} ({WEBHOOK_SETUP_INI}): {error}",
            pytrace=False,
        )
    return setup  # type: ignore[no-any-return]


def namespace_name(test_name: str) -> str:
    """A valid, unique namespace name that still says which test made it."""
    stem = re.sub(r"[^a-z0-9]+", "-", test_name.lower()).strip("-")[:40].strip("-")
    return f"t-{stem}-{secrets.token_hex(3)}" if stem else f"t-{secrets.token_hex(3)}"


def settle_startup(request: pytest.FixtureRequest) -> None:
    """Prepare the session's models (`opgen.testing.prepared`: the validators
    and decoders of the classes the collected test modules and the project's
    package name, built once a process by whichever test first used them),
    then freeze what a backend's start-up leaves (the imports, the CRDs' kinds and
    models, the control plane's handles) out of the cyclic collector's way: it
    lives as long as the session, and each full collection during the tests
    walked it again (about 0.15 s of CPU in the example's controller tests,
    `benchmarks/memory_vs_envtest.py`). Collected first, so no garbage is frozen;
    `Manager.run` thaws it on return, as it thaws its own."""
    from opgen.testing.prepared import prepare_models, prepare_runtime

    modules = session_modules(request)
    prepare_models(modules)
    prepare_runtime(modules)
    gc.collect()
    gc.freeze()


def session_modules(request: pytest.FixtureRequest) -> list[ModuleType]:
    """The collected test modules and those of the project's package."""
    from opgen.testing.prepared import project_modules

    modules = {getattr(item, "module", None) for item in request.session.items}
    modules.update(project_modules(project_package(request.config)))
    return [m for m in modules if m is not None]


def _skip_or_fail(missing: BinariesNotFound) -> NoReturn:
    if envtest_required(os.environ):
        pytest.fail(
            f"{missing}\n({REQUIRE_ENV} is set, so missing envtest binaries fail the tests)",
            pytrace=False,
        )
    pytest.skip(f"envtest binaries not found: {missing}")


def _start_or_skip(make: Callable[[], Environment]) -> Environment:
    try:
        return make().start()
    except BinariesNotFound as missing:
        _skip_or_fail(missing)
    except EnvtestError as error:
        pytest.fail(f"envtest could not start: {error}", pytrace=False)


@pytest.fixture(scope="session")
def envtest(request: pytest.FixtureRequest) -> Iterator[Environment]:
    """A started control plane shared by the session (or the existing cluster),
    serving the project's webhooks when it has any."""
    config = request.config
    crd_paths = session_crd_paths(config)
    webhook_paths = session_webhook_paths(config)
    options = None
    setup = None
    if _needs_webhooks(crd_paths, webhook_paths):
        setup = _webhook_setup(config)
        options = WebhookInstallOptions(
            paths=webhook_paths, local_host=str(config.getini(WEBHOOK_HOST_INI))
        )
    environment = _start_or_skip(
        lambda: Environment(
            controller_manager=bool(config.getini(CONTROLLER_MANAGER_INI)),
            crd_paths=crd_paths,
            webhook_install_options=options,
        )
    )
    manager = None
    try:
        if setup is not None:
            try:
                manager = WebhookManager(environment, setup).start()
            except EnvtestError as error:
                pytest.fail(
                    f"envtest could not serve the webhooks: {error}", pytrace=False
                )
        settle_startup(request)
        yield environment
    finally:
        try:
            if manager is not None:
                manager.stop()
        finally:
            environment.stop()


@pytest.fixture(scope="session")
def manager_account(
    envtest: Environment, request: pytest.FixtureRequest
) -> ManagerAccount:
    """The project's manager ServiceAccount, bound by the project's generated RBAC.

    `config/rbac` of the project at pytest's rootdir is applied as `config/default`
    deploys it (namespace `<project>-system`, names prefixed `<project>-`);
    `kubeconfig_path` holds a token of the account.
    """
    try:
        return envtest.deploy_rbac(request.config.rootpath)
    except EnvtestError as error:
        pytest.fail(f"could not apply the project's RBAC: {error}", pytrace=False)


@pytest.fixture(scope="session")
def envtest_controller_manager(envtest: Environment) -> Environment:
    """The session's control plane with kube-controller-manager running (the tests
    using it skip, or fail when envtest is required, if the set has none)."""
    try:
        envtest.start_controller_manager()
    except BinariesNotFound as missing:
        _skip_or_fail(missing)
    except EnvtestError as error:
        pytest.fail(
            f"envtest could not start kube-controller-manager: {error}", pytrace=False
        )
    return envtest


def _needs_pytest_asyncio(name: str) -> Callable[[], NoReturn]:
    def fixture() -> NoReturn:
        pytest.fail(
            f"the `{name}` fixture needs pytest-asyncio (pip install pytest-asyncio)"
        )

    return fixture


def _async_fixture(function: Callable[..., Any]) -> Any:
    """`pytest_asyncio.fixture`, or a fixture explaining that pytest-asyncio is missing."""
    try:
        import pytest_asyncio
    except ImportError:
        return pytest.fixture(name=function.__name__)(
            _needs_pytest_asyncio(function.__name__)
        )
    return pytest_asyncio.fixture(function)


@pytest.fixture(scope="session")
def memory_session(request: pytest.FixtureRequest) -> tuple[Any, Any]:
    """What every memory server of the session serves, read once (the memory
    backend's start-up, as starting the control plane is envtest's): the kinds
    of the session's CRDs (`opgen_crd_paths`), and its webhooks (the
    `opgen_webhook_paths` configurations and the `opgen_webhook_setup`
    function; None without any)."""
    from opgen.testing.memory import Kinds
    from opgen.testing.memory.kinds import prepare_shapes

    config = request.config
    crd_paths = session_crd_paths(config)
    webhook_paths = session_webhook_paths(config)
    kinds = Kinds()
    kinds.add_crds(crd_paths)
    webhooks = None
    if _needs_webhooks(crd_paths, webhook_paths):
        webhooks = (load_configurations(webhook_paths), _webhook_setup(config))
        importlib.import_module(
            "opgen.testing.memory.handlers"
        )  # else the first test's
    prepare_shapes(session_modules(request))
    settle_startup(request)
    return kinds, webhooks


@pytest.fixture
def memory_api_server(
    memory_session: tuple[Any, Any], request: pytest.FixtureRequest
) -> Iterator[Any]:
    """A fresh memory API server serving the session's CRDs (`opgen_crd_paths`),
    calling the project's webhooks in process when the session has any (the
    `opgen_webhook_paths` configurations and CRD conversions, the handlers
    `opgen_webhook_setup` registers), and collecting garbage when the session's
    envtest would (with `opgen_envtest_controller_manager`), so a test sees the
    same on both."""
    from opgen.testing.memory import MemoryApiServer

    kinds, webhooks = memory_session
    collects = bool(request.config.getini(CONTROLLER_MANAGER_INI))
    server = MemoryApiServer(kinds, garbage_collection=collects)
    if webhooks is not None:
        server.use_webhooks(*webhooks)
    try:
        yield server
    finally:
        server.close()


def on_memory(test: pytest.FixtureRequest | pytest.Item) -> bool:
    """Whether a test (its request or item) runs on the memory server: the run
    chose it, and the test asks for no envtest fixture itself (such a test runs
    wholly on envtest, so that its `client` and the control plane it uses are
    one server)."""
    if api_server(test.config) != "memory":
        return False
    return not ENVTEST_ONLY.intersection(getattr(test, "fixturenames", ()))


@_async_fixture
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Any]:
    """An `rt.Client` for the envtest admin user (or the memory server, with
    `--api-server=memory`), without a cache: reads go straight to the API
    server. Closed after the test."""
    from opgen import runtime as rt
    from opgen.runtime.rest import RestClient

    if on_memory(request):
        server = request.getfixturevalue("memory_api_server")
        # no client-side rate limit: it protects a real API server, which this is not
        unlimited = rt.ClientOptions(qps=0)
        async with rt.Client(RestClient(server.transport(), unlimited)) as admin:
            yield admin
        return
    envtest: Environment = request.getfixturevalue("envtest")
    async with envtest.client() as admin:
        yield admin


@_async_fixture
async def namespace(client: Any, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A namespace created for this test (on the backend `client` talks to) and
    deleted after it; yields its name."""
    from opgen import api as op
    from opgen import runtime as rt

    name = namespace_name(request.node.name)
    await client.create(
        op.k8s.Namespace(metadata=op.ObjectMeta(name=name, labels=NAMESPACE_LABEL))
    )
    try:
        yield name
    finally:
        with contextlib.suppress(rt.NotFound):
            await client.delete(op.k8s.Namespace(metadata=op.ObjectMeta(name=name)))
