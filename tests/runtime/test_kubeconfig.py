"""opgen's kubeconfig loader and credentials (opgen/runtime/kubeconfig/), as client-go's:
each kubeconfig shape, `$KUBECONFIG` merging, the pod's service account, token
rotation, exec plugins (v1, v1beta1, v1alpha1) and their expiry, and one clear
error for each kubeconfig that cannot be used."""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import ssl
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from opgen.runtime import kubeconfig as kc
from opgen.runtime.kubeconfig import (
    ConfigError,
    KubeConfig,
    NoCluster,
    connection,
    load_config,
)
from opgen.runtime.kubeconfig.credentials import (
    TOKEN_FILE_PERIOD,
    Credentials,
    ExecPlugin,
    Fetched,
    TokenFile,
    source_for,
)
from opgen.testing.controlplane.pki import generate_pki


def config_of(
    cluster: dict[str, Any] | None = None,
    user: dict[str, Any] | None = None,
    namespace: str | None = None,
) -> dict[str, Any]:
    context: dict[str, Any] = {"cluster": "c", "user": "u"}
    if namespace:
        context["namespace"] = namespace
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "c",
                "cluster": (
                    cluster
                    if cluster is not None
                    else {"server": "https://k8s.test:6443"}
                ),
            }
        ],
        "users": [{"name": "u", "user": user or {}}],
        "contexts": [{"name": "x", "context": context}],
        "current-context": "x",
    }


def write(path: Path, config: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config))
    return path


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# -- the shapes of a kubeconfig ----------------------------------------------------


def test_a_context_reads_its_cluster_user_and_namespace(tmp_path: Path) -> None:
    """Every cluster and user field, file paths resolved against the kubeconfig's
    directory (not the working directory), inline data decoded."""
    path = write(
        tmp_path / "kube" / "config",
        config_of(
            {
                "server": "https://k8s.test:6443/",
                "certificate-authority": "certs/ca.crt",
                "tls-server-name": "kubernetes",
                "proxy-url": "http://proxy.test:3128",
            },
            {
                "tokenFile": "token",
                "client-certificate": "/abs/client.crt",
                "client-key-data": base64.b64encode(b"KEY").decode(),
            },
            namespace="team",
        ),
    )
    config = load_config(path)
    assert config.fname == path and config.context_name == "x"
    assert config.namespace == "team"
    assert config.cluster.server == "https://k8s.test:6443"
    assert config.cluster.certificate_authority == tmp_path / "kube/certs/ca.crt"
    assert config.cluster.tls_server_name == "kubernetes"
    assert config.cluster.proxy_url == "http://proxy.test:3128"
    assert config.user.token_file == tmp_path / "kube/token"
    assert config.user.client_certificate == Path("/abs/client.crt")
    assert config.user.client_key_data == b"KEY"


def test_a_context_without_user_or_namespace(tmp_path: Path) -> None:
    config = KubeConfig.from_server("https://k8s.test").get()
    assert config.namespace == "default" and config.fname is None
    assert config.user == kc.settings.User()
    assert source_for(config.user, config.cluster, "x") is None


def test_an_explicit_context_overrides_the_current_one(tmp_path: Path) -> None:
    data = config_of()
    data["clusters"].append({"name": "d", "cluster": {"server": "https://other"}})
    data["contexts"].append({"name": "y", "context": {"cluster": "d"}})
    path = write(tmp_path / "config", data)
    assert load_config(path).cluster.server == "https://k8s.test:6443"
    assert load_config(path, context="y").cluster.server == "https://other"


def test_kubeconfig_lists_merge_first_file_wins(tmp_path: Path) -> None:
    """As client-go: each cluster, user and context comes from the first file that
    names it, `current-context` from the first file that sets one, and paths
    resolve against the file that holds them; missing files are skipped."""
    first = write(
        tmp_path / "a" / "config",
        {
            "clusters": [
                {
                    "name": "c",
                    "cluster": {
                        "server": "https://first",
                        "certificate-authority": "ca",
                    },
                }
            ],
        },
    )
    second = write(
        tmp_path / "b" / "config",
        {
            "clusters": [
                {"name": "c", "cluster": {"server": "https://second"}},
                {"name": "d", "cluster": {"server": "https://d"}},
            ],
            "users": [{"name": "u", "user": {"tokenFile": "token"}}],
            "contexts": [
                {"name": "x", "context": {"cluster": "c", "user": "u"}},
                {"name": "y", "context": {"cluster": "d"}},
            ],
            "current-context": "x",
        },
    )
    listed = f"{tmp_path / 'gone'}:{first}:{second}"
    merged = KubeConfig.from_env(environ={"KUBECONFIG": listed}, home=tmp_path)
    config = merged.get()
    assert config.context_name == "x" and config.fname == first
    assert config.cluster.server == "https://first"
    assert config.cluster.certificate_authority == tmp_path / "a" / "ca"
    assert config.user.token_file == tmp_path / "b" / "token"
    assert merged.get("y").cluster.server == "https://d"


SERVICE_HOST = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}


def service_account(directory: Path, namespace: str | None = "team") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "token").write_text("pod-token\n")
    (directory / "ca.crt").write_text("CA")
    if namespace is not None:
        (directory / "namespace").write_text(namespace)
    return directory


@pytest.mark.parametrize(
    ("host", "server"),
    [("10.0.0.1", "https://10.0.0.1:443"), ("fd00::1", "https://[fd00::1]:443")],
)
def test_in_cluster_the_service_account(tmp_path: Path, host: str, server: str) -> None:
    account = service_account(tmp_path / "sa")
    environ = {**SERVICE_HOST, "KUBERNETES_SERVICE_HOST": host}
    config = KubeConfig.from_env(
        environ=environ, service_account=account, home=tmp_path
    ).get()
    assert config.cluster.server == server
    assert config.cluster.certificate_authority == account / "ca.crt"
    assert config.user.token_file == account / "token"
    assert config.namespace == "team"
    assert config.fname is None, "no kubeconfig file: check_cluster leaves it alone"


def test_in_cluster_no_yaml_is_imported(tmp_path: Path) -> None:
    """An operator in a pod reads no kubeconfig file: PyYAML stays unloaded."""
    account = service_account(tmp_path / "sa")
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from opgen.runtime.kubeconfig import KubeConfig\n"
        f"environ = {SERVICE_HOST!r}\n"
        f"KubeConfig.from_env(environ=environ, service_account=Path({str(account)!r}),"
        f" home=Path({str(tmp_path)!r})).get()\n"
        "print('yaml' in sys.modules)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "False"


def test_a_json_kubeconfig_is_read_without_yaml(tmp_path: Path) -> None:
    """A kubeconfig written as JSON is read as JSON: PyYAML stays unloaded; a YAML
    flow mapping (which starts with `{` too but is not JSON) is still read as YAML."""
    as_json = tmp_path / "config.json"
    as_json.write_text(json.dumps(config_of({"server": "https://json"}), indent=2))
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "from opgen.runtime.kubeconfig import KubeConfig\n"
        f"config = KubeConfig.from_file(Path({str(as_json)!r})).get()\n"
        "print(config.cluster.server, 'yaml' in sys.modules)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert ran.stdout.split() == ["https://json", "False"]

    flow = tmp_path / "flow"
    flow.write_text(
        "{apiVersion: v1, kind: Config, current-context: x,"
        " clusters: [{name: c, cluster: {server: 'https://flow'}}],"
        " users: [{name: u, user: {}}],"
        " contexts: [{name: x, context: {cluster: c, user: u}}]}\n"
    )
    assert KubeConfig.from_file(flow).get().cluster.server == "https://flow"


def test_the_environments_order(tmp_path: Path) -> None:
    """$KUBECONFIG, else the pod's service account, else ~/.kube/config (as
    controller-runtime's GetConfig); a set $KUBECONFIG naming no file is an error."""
    account = service_account(tmp_path / "sa", namespace=None)
    home_config = write(
        tmp_path / "home" / ".kube" / "config", config_of({"server": "https://home"})
    )
    listed = write(tmp_path / "listed", config_of({"server": "https://listed"}))

    def server(environ: dict[str, str]) -> str:
        loaded = KubeConfig.from_env(
            environ=environ, service_account=account, home=tmp_path / "home"
        )
        return loaded.get().cluster.server

    assert server({**SERVICE_HOST, "KUBECONFIG": str(listed)}) == "https://listed"
    assert server(SERVICE_HOST) == "https://10.0.0.1:443"
    assert server({}) == "https://home"
    in_pod = KubeConfig.from_env(
        environ=SERVICE_HOST, service_account=account, home=tmp_path
    ).get()
    assert in_pod.namespace == "default"
    home_config.unlink()
    with pytest.raises(NoCluster, match=r"kubeconfig ~/.kube/config: not found"):
        server({})
    with pytest.raises(NoCluster, match=r"\$KUBECONFIG=/nowhere: not found"):
        server({"KUBECONFIG": "/nowhere"})


# -- errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cluster", "user", "message"),
    [
        (
            {},
            None,
            'cluster "c": has no `server`; set it to the API server\'s URL',
        ),
        (
            {"server": "https://k", "certificate-authority-data": "not base64!"},
            None,
            'cluster "c": `certificate-authority-data` is not base64; encode',
        ),
        (
            {
                "server": "https://k",
                "certificate-authority": "ca",
                "insecure-skip-tls-verify": True,
            },
            None,
            'cluster "c": sets both a certificate authority and `insecure-skip-tls-verify`',
        ),
        (
            {"server": "https://k", "proxy-url": "socks5://p:1080"},
            None,
            "`proxy-url` socks5://p:1080 is not supported: opgen's HTTP client (aiohttp)",
        ),
        (
            None,
            {"auth-provider": {"name": "gcp", "config": {}}},
            'user "u": uses auth-provider "gcp", which opgen does not support; use '
            "the `gke-gcloud-auth-plugin` exec plugin, which replaced it in "
            "Kubernetes 1.26 (`gcloud container clusters get-credentials` writes "
            "it), or a token",
        ),
        (
            None,
            {"auth-provider": {"name": "oidc"}},
            'uses auth-provider "oidc", which opgen does not support',
        ),
        (
            None,
            {"client-certificate": "c.crt"},
            'user "u": has a client certificate without a key; add `client-key`',
        ),
        (None, {"username": "me"}, "basic auth needs both `username` and `password`"),
        (None, {"as": "admin"}, "impersonation (`as`) is not supported by opgen"),
        (
            None,
            {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "x"}},
            'user "u": exec: the v1 exec API needs `interactiveMode`; set it to Never',
        ),
        (
            None,
            {"exec": {"apiVersion": "client.authentication.k8s.io/v2", "command": "x"}},
            "exec: apiVersion 'client.authentication.k8s.io/v2' is not one opgen runs",
        ),
        (
            None,
            {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1beta1",
                    "command": "x",
                    "interactiveMode": "Always",
                }
            },
            "interactiveMode Always needs a terminal, which an operator does not have",
        ),
    ],
)
def test_a_kubeconfig_that_cannot_be_used_is_one_clear_error(
    tmp_path: Path,
    cluster: dict[str, Any] | None,
    user: dict[str, Any] | None,
    message: str,
) -> None:
    path = write(tmp_path / "config", config_of(cluster, user))
    with pytest.raises(NoCluster) as refused:
        load_config(path)
    text = str(refused.value)
    assert text.startswith(f"kubeconfig {path}: "), text
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"cluster": "nope"}, 'context "x": names cluster "nope", which no kubeconfig'),
        ({"cluster": "c", "user": "nope"}, 'names user "nope", which no kubeconfig'),
        ({}, 'context "x": names no cluster; add `cluster: NAME` to it'),
    ],
)
def test_a_context_naming_what_is_not_there(
    tmp_path: Path, context: dict[str, Any], message: str
) -> None:
    data = config_of()
    data["contexts"][0]["context"] = context
    path = write(tmp_path / "config", data)
    with pytest.raises(NoCluster, match=r"^kubeconfig .*") as refused:
        load_config(path)
    assert message in str(refused.value)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "not found"),
        ("", "it is empty"),
        ("apiVersion: v1\nkind: Config\n", "it is empty"),
        (
            "clusters: []\ncontexts: [{name: a, context: {cluster: a}}]\n",
            "it names no current-context",
        ),
        (": : :\n", "it is not valid YAML"),
        ("- a list\n", "it is not a kubeconfig mapping"),
    ],
)
def test_no_kubeconfig_or_no_context(
    tmp_path: Path, content: str | None, problem: str
) -> None:
    path = tmp_path / "config"
    if content is not None:
        path.write_text(content)
    with pytest.raises(NoCluster) as missing:
        load_config(path)
    assert problem in str(missing.value)
    with pytest.raises(NoCluster, match='it has no context "y" \\(it has: x\\)'):
        load_config(write(tmp_path / "other", config_of()), context="y")


# -- TLS -------------------------------------------------------------------------------


def common_name(certificate: Mapping[str, object]) -> str:
    """The commonName of a certificate's subject, as `SSLContext.get_ca_certs` gives it."""
    subject = certificate["subject"]
    assert isinstance(subject, tuple)
    name: str = dict(n[0] for n in subject)["commonName"]
    return name


def test_certificates_from_files_and_inline_data(tmp_path: Path) -> None:
    pki = generate_pki(tmp_path / "pki")
    inline = config_of(
        {
            "server": "https://127.0.0.1:6443",
            "certificate-authority-data": base64.b64encode(pki.ca_pem).decode(),
        },
        {
            "client-certificate-data": base64.b64encode(pki.client_cert_pem).decode(),
            "client-key-data": base64.b64encode(pki.client_key_pem).decode(),
        },
    )
    from_files = config_of(
        {"server": "https://127.0.0.1:6443", "certificate-authority": "pki/ca.crt"},
        {"client-certificate": "pki/admin.crt", "client-key": "pki/admin.key"},
    )
    for data in (inline, from_files):
        made = connection(load_config(write(tmp_path / "config", data)))
        assert made.ssl_context.verify_mode == ssl.CERT_REQUIRED
        assert made.ssl_context.check_hostname
        authorities = made.ssl_context.get_ca_certs()
        assert [common_name(ca) for ca in authorities] == [
            "opgen-envtest-ca"
        ], "the cluster's CA alone, not the system's too"
    insecure = config_of({"server": "https://k", "insecure-skip-tls-verify": True})
    made = connection(load_config(write(tmp_path / "insecure", insecure)))
    assert made.ssl_context.verify_mode == ssl.CERT_NONE


def test_a_certificate_that_cannot_be_loaded(tmp_path: Path) -> None:
    path = write(
        tmp_path / "config",
        config_of(
            {"server": "https://k", "certificate-authority": "missing.crt"}, None
        ),
    )
    with pytest.raises(NoCluster) as refused:
        connection(load_config(path))
    assert str(refused.value).startswith(
        f'context "x" of {path}: cannot load the cluster\'s certificate authority ('
    )


# -- credentials --------------------------------------------------------------------


async def headers_of(user: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    config = load_config(write(tmp_path / "config", config_of(None, user)))
    return dict(await connection(config).credentials.current())


async def test_tokens_and_basic_auth(tmp_path: Path) -> None:
    assert await headers_of({"token": "t"}, tmp_path) == {"Authorization": "Bearer t"}
    assert await headers_of({"username": "u", "password": "p"}, tmp_path) == {
        "Authorization": "Basic dTpw"
    }
    (tmp_path / "token").write_text("from-file\n")
    assert await headers_of({"token": "t", "tokenFile": "token"}, tmp_path) == {
        "Authorization": "Bearer from-file"
    }, "as client-go: the file wins over the token"
    config = load_config(write(tmp_path / "c", config_of(None, {"token": "t"})))
    fixed = connection(config).credentials
    sent = await fixed.current()
    assert await fixed.after_401(sent) is None, "a fixed token: the 401 stands"


async def test_a_rotated_token_file_is_read_again(tmp_path: Path) -> None:
    """Read again once a minute (client-go's period) and after a 401; kept as it
    was read in between, and kept when the file cannot be read for a moment."""
    token = tmp_path / "token"
    token.write_text("one")
    clock = Clock()
    credentials = Credentials(TokenFile(token, "here", clock), clock=clock)
    sent = await credentials.current()
    assert sent == {"Authorization": "Bearer one"}
    token.write_text("two")
    assert await credentials.current() is sent, "kept until the period passes"
    clock.now += TOKEN_FILE_PERIOD
    assert await credentials.current() == {"Authorization": "Bearer two"}
    token.write_text("three")
    refused = await credentials.current()
    assert await credentials.after_401(refused) == {"Authorization": "Bearer three"}
    assert await credentials.after_401(refused) == {"Authorization": "Bearer three"}
    again = await credentials.current()
    assert await credentials.after_401(again) is None, "unchanged: the 401 stands"
    token.unlink()
    clock.now += TOKEN_FILE_PERIOD
    assert await credentials.current() == {"Authorization": "Bearer three"}
    with pytest.raises(ConfigError, match=r"here: cannot read tokenFile .*/token"):
        await Credentials(TokenFile(token, "here")).current()


class CountingSource:
    def __init__(self) -> None:
        self.fetches = 0
        self.gate = asyncio.Event()

    async def fetch(self, refused: bool) -> Fetched | None:
        self.fetches += 1
        await self.gate.wait()
        return Fetched({"Authorization": f"Bearer {self.fetches}"})


async def test_many_401s_fetch_once() -> None:
    source = CountingSource()
    source.gate.set()
    credentials = Credentials(source)
    sent = await credentials.current()
    source.gate.clear()
    retries = [asyncio.create_task(credentials.after_401(sent)) for _ in range(5)]
    await asyncio.sleep(0)
    source.gate.set()
    fresh = await asyncio.gather(*retries)
    assert source.fetches == 2
    assert all(headers == {"Authorization": "Bearer 2"} for headers in fresh)


# -- exec plugins --------------------------------------------------------------------

PLUGIN = """\
import json, os, pathlib, sys
here = pathlib.Path(sys.argv[1])
runs = here / "runs"
runs.write_text(runs.read_text() + "run\\n" if runs.exists() else "run\\n")
(here / "exec-info").write_text(os.environ["KUBERNETES_EXEC_INFO"])
(here / "env").write_text(os.environ.get("PLUGIN_SAYS", ""))
answer = json.loads((here / "answer").read_text())
if answer.get("fail"):
    print("no credentials for you", file=sys.stderr)
    sys.exit(3)
print(json.dumps(answer))
"""


def exec_user(tmp_path: Path, version: str, **extra: Any) -> dict[str, Any]:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    return {
        "exec": {
            "apiVersion": version,
            "command": sys.executable,
            "args": [str(tmp_path / "plugin.py"), str(tmp_path)],
            "env": [{"name": "PLUGIN_SAYS", "value": "hello"}],
            "interactiveMode": "Never",
            **extra,
        }
    }


def answer(
    tmp_path: Path, version: str, token: str, expires: str | None = None
) -> None:
    status: dict[str, Any] = {"token": token}
    if expires is not None:
        status["expirationTimestamp"] = expires
    credential = {"apiVersion": version, "kind": "ExecCredential", "status": status}
    (tmp_path / "answer").write_text(json.dumps(credential))


def runs(tmp_path: Path) -> int:
    return len((tmp_path / "runs").read_text().splitlines())


@pytest.mark.parametrize("version", kc.settings.EXEC_API_VERSIONS)
async def test_exec_plugins_of_each_api_version(tmp_path: Path, version: str) -> None:
    answer(tmp_path, version, "from-exec")
    user = exec_user(tmp_path, version, provideClusterInfo=True)
    cluster = {"server": "https://k8s.test", "tls-server-name": "kubernetes"}
    config = load_config(write(tmp_path / "config", config_of(cluster, user)))
    credentials = connection(config).credentials
    assert await credentials.current() == {"Authorization": "Bearer from-exec"}
    assert (tmp_path / "env").read_text() == "hello"
    info = json.loads((tmp_path / "exec-info").read_text())
    assert info["apiVersion"] == version and info["kind"] == "ExecCredential"
    assert info["spec"]["interactive"] is False
    assert info["spec"]["cluster"]["server"] == "https://k8s.test"
    assert info["spec"]["cluster"]["tls-server-name"] == "kubernetes"


async def test_an_exec_credential_is_kept_until_it_expires_or_is_refused(
    tmp_path: Path,
) -> None:
    version = "client.authentication.k8s.io/v1"
    clock = Clock(
        datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc).timestamp()
    )
    answer(tmp_path, version, "first", expires="2026-01-01T00:10:00Z")
    config = load_config(
        write(tmp_path / "config", config_of(None, exec_user(tmp_path, version)))
    )
    plugin = source_for(config.user, config.cluster, "here")
    assert isinstance(plugin, ExecPlugin)
    credentials = Credentials(plugin, clock=clock)
    first = await credentials.current()
    assert first == {"Authorization": "Bearer first"}
    clock.now += 599
    assert await credentials.current() is first and runs(tmp_path) == 1
    answer(tmp_path, version, "second", expires="2026-01-01T00:20:00.5+00:00")
    clock.now += 1
    second = await credentials.current()
    assert second == {"Authorization": "Bearer second"} and runs(tmp_path) == 2
    answer(tmp_path, version, "third")  # no expiry: kept until refused
    assert await credentials.after_401(second) == {"Authorization": "Bearer third"}
    assert runs(tmp_path) == 3
    clock.now += 10**6
    assert await credentials.current() == {"Authorization": "Bearer third"}
    assert runs(tmp_path) == 3


@pytest.mark.parametrize(
    ("answered", "message"),
    [
        (
            {"fail": True},
            "exited with status 3: no credentials for you; run it by hand",
        ),
        (
            {
                "apiVersion": "client.authentication.k8s.io/v1alpha1",
                "kind": "ExecCredential",
                "status": {"token": "t"},
            },
            "it answered apiVersion 'client.authentication.k8s.io/v1alpha1', the "
            "kubeconfig asks for client.authentication.k8s.io/v1beta1",
        ),
        (
            {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "kind": "ExecCredential",
                "status": {},
            },
            "its ExecCredential has no status.token",
        ),
        (
            {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "kind": "ExecCredential",
                "status": {"clientCertificateData": "x", "clientKeyData": "y"},
            },
            "it returns a client certificate, which opgen does not support",
        ),
        ({"kind": "Nope"}, "its output is not an ExecCredential"),
    ],
)
async def test_an_exec_plugin_that_fails(
    tmp_path: Path, answered: dict[str, Any], message: str
) -> None:
    version = "client.authentication.k8s.io/v1beta1"
    (tmp_path / "answer").write_text(json.dumps(answered))
    path = write(tmp_path / "config", config_of(None, exec_user(tmp_path, version)))
    credentials = connection(load_config(path)).credentials
    with pytest.raises(ConfigError) as failed:
        await credentials.current()
    text = str(failed.value)
    assert text.startswith(f'context "x" of {path}: exec plugin `{sys.executable}`: ')
    assert message in text


async def test_an_exec_plugin_that_is_not_installed(tmp_path: Path) -> None:
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "no-such-plugin-here",
            "installHint": "brew install\n  no-such-plugin",
        }
    }
    credentials = connection(
        load_config(write(tmp_path / "c", config_of(None, user)))
    ).credentials
    with pytest.raises(
        ConfigError, match=r"cannot run it \(.*\); brew install no-such-plugin$"
    ):
        await credentials.current()


def test_an_exec_command_with_a_path_is_relative_to_the_kubeconfig(
    tmp_path: Path,
) -> None:
    def command(name: str) -> str:
        user = {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "command": name,
            }
        }
        config = load_config(write(tmp_path / "kube" / "config", config_of(None, user)))
        assert config.user.exec is not None
        return config.user.exec.command

    assert command("bin/plugin") == str(tmp_path / "kube" / "bin" / "plugin")
    assert command("plugin") == "plugin", "a bare name is looked up on PATH"
