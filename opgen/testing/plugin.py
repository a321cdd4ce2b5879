"""pytest plugin: envtest fixtures for opgen's tests and every generated project's.

Loaded through the `pytest11` entry point, so any project that depends on
opgen has these fixtures:

- `envtest` (session): a started `opgen.testing.Environment`, shared by the
  session; tests isolate themselves by namespace. Without binaries the tests
  that use it skip with the reason, or fail when `OPGEN_REQUIRE_ENVTEST=1`.
- `envtest_controller_manager` (session): the same environment with
  kube-controller-manager running (garbage collection, namespace deletion).
- `kube_client` (async): a `lightkube.AsyncClient` acting as the admin.
- `namespace` (async): a fresh namespace for the test, deleted afterwards.
- `manager_account` (session): the project's RBAC (`config/rbac`, with
  `config/default`'s namespace and name prefix) applied, and its manager's
  ServiceAccount with a token kubeconfig: run the manager as it runs deployed.

ini options: `opgen_crd_paths` (CRD files or directories installed at session
start; default `<rootdir>/config/crd/bases` when it exists) and
`opgen_envtest_controller_manager` (start kube-controller-manager with the
session). Tests using these fixtures get the `envtest` marker.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import pytest

from opgen.errors import EnvtestError
from opgen.testing.binaries import BinariesNotFound
from opgen.testing.controlplane.environment import Environment
from opgen.testing.controlplane.rbac import ManagerAccount

__all__ = [
    "CONTROLLER_MANAGER_INI",
    "CRD_PATHS_INI",
    "ENVTEST_FIXTURES",
    "REQUIRE_ENV",
    "envtest",
    "envtest_controller_manager",
    "envtest_required",
    "kube_client",
    "manager_account",
    "namespace",
    "namespace_name",
    "session_crd_paths",
]

REQUIRE_ENV = "OPGEN_REQUIRE_ENVTEST"
CRD_PATHS_INI = "opgen_crd_paths"
CONTROLLER_MANAGER_INI = "opgen_envtest_controller_manager"
DEFAULT_CRD_DIR = Path("config", "crd", "bases")
ENVTEST_FIXTURES = frozenset(
    {
        "envtest",
        "envtest_controller_manager",
        "kube_client",
        "namespace",
        "manager_account",
    }
)
NAMESPACE_LABEL = {"app.kubernetes.io/managed-by": "opgen-envtest"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        CRD_PATHS_INI,
        type="paths",
        default=[],
        help="CRD files or directories the envtest fixture installs at session start "
        "(default: <rootdir>/config/crd/bases when it exists).",
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if ENVTEST_FIXTURES.intersection(getattr(item, "fixturenames", ())):
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


def namespace_name(test_name: str) -> str:
    """A valid, unique namespace name that still says which test made it."""
    stem = re.sub(r"[^a-z0-9]+", "-", test_name.lower()).strip("-")[:40].strip("-")
    return f"t-{stem}-{secrets.token_hex(3)}" if stem else f"t-{secrets.token_hex(3)}"


def _start_or_skip(make: Callable[[], Environment]) -> Environment:
    try:
        return make().start()
    except BinariesNotFound as missing:
        if envtest_required(os.environ):
            pytest.fail(
                f"{missing}\n({REQUIRE_ENV} is set, so missing envtest binaries fail the tests)",
                pytrace=False,
            )
        pytest.skip(f"envtest binaries not found: {missing}")
    except EnvtestError as error:
        pytest.fail(f"envtest could not start: {error}", pytrace=False)


@pytest.fixture(scope="session")
def envtest(request: pytest.FixtureRequest) -> Iterator[Environment]:
    """A started control plane shared by the session (or the existing cluster)."""
    config = request.config
    environment = _start_or_skip(
        lambda: Environment(
            controller_manager=bool(config.getini(CONTROLLER_MANAGER_INI)),
            crd_paths=session_crd_paths(config),
        )
    )
    try:
        yield environment
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
    """The session's control plane with kube-controller-manager running."""
    try:
        envtest.start_controller_manager()
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


@_async_fixture
async def kube_client(envtest: Environment) -> AsyncIterator[Any]:
    """A `lightkube.AsyncClient` for the envtest admin user, closed after the test."""
    client = envtest.async_client()
    try:
        yield client
    finally:
        await client.close()


@_async_fixture
async def namespace(
    kube_client: Any, request: pytest.FixtureRequest
) -> AsyncIterator[str]:
    """A namespace created for this test and deleted after it; yields its name."""
    from lightkube import ApiError
    from lightkube.models.meta_v1 import ObjectMeta
    from lightkube.resources.core_v1 import Namespace

    name = namespace_name(request.node.name)
    await kube_client.create(
        Namespace(metadata=ObjectMeta(name=name, labels=NAMESPACE_LABEL))
    )
    try:
        yield name
    finally:
        try:
            await kube_client.delete(Namespace, name)
        except ApiError as error:
            if error.status.code != 404:
                raise
