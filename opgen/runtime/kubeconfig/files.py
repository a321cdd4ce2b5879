"""Reading kubeconfig files into one context's settings, as client-go's loader does.

- `KubeConfig.from_file(path)`: one file (an explicit `--kubeconfig`); it must exist.
- `KubeConfig.from_env()`: `$KUBECONFIG` when set (a `:`-separated list whose
  existing files are merged: the first file to name a cluster, user or context,
  or to set `current-context`, wins), else the pod's service account when
  `KUBERNETES_SERVICE_HOST`/`_PORT` are set and its token is mounted, else
  `~/.kube/config` — the order of controller-runtime's `config.GetConfig`.
- `get(context_name)`: one context's `SingleConfig` — its cluster, user and
  namespace, file paths resolved against the directory of the file that names
  them, inline data decoded, each problem one `ConfigError` naming the file, the
  entry, what is wrong and how to fix it.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "EXEC_API_VERSIONS",
    "FIX",
    "SERVICE_ACCOUNT",
    "Cluster",
    "ConfigError",
    "ExecConfig",
    "KubeConfig",
    "NoCluster",
    "SingleConfig",
    "User",
]

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where a pod's service account token, CA and namespace are mounted."""

EXEC_API_VERSIONS = (
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
    "client.authentication.k8s.io/v1alpha1",
)

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_AUTH_PROVIDERS = {
    "gcp": "the `gke-gcloud-auth-plugin` exec plugin, which replaced it in "
    "Kubernetes 1.26 (`gcloud container clusters get-credentials` writes it)",
    "azure": "the `kubelogin` exec plugin, which replaced it in Kubernetes 1.26 "
    "(`kubelogin convert-kubeconfig`)",
    "oidc": "an OIDC exec plugin such as `kubectl oidc-login` (int128/kubelogin)",
}


_IMPERSONATION = ("as", "as-uid", "as-groups", "as-user-extra")

FIX = (
    "start a local cluster with `make cluster` (in another terminal), "
    "or set KUBECONFIG to a running cluster's kubeconfig"
)


class ConfigError(Exception):
    """A kubeconfig, or the credentials it names, cannot be used."""


class NoCluster(ConfigError):
    """No cluster to talk to: no kubeconfig, no usable context in it, or an API
    server that does not answer. Its message is one line naming the kubeconfig
    or the server, what is wrong and what to do (a generated operator's `main()`
    prints it and exits 1)."""


@dataclass(frozen=True)
class Cluster:
    server: str
    certificate_authority: Path | None = None
    certificate_authority_data: bytes | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    proxy_url: str | None = None
    exec_config: Any = None
    """The `client.authentication.k8s.io/exec` extension, given to an exec plugin."""


@dataclass(frozen=True)
class ExecConfig:
    api_version: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    interactive_mode: str = "IfAvailable"
    install_hint: str | None = None
    provide_cluster_info: bool = False


@dataclass(frozen=True)
class User:
    token: str | None = None
    token_file: Path | None = None
    client_certificate: Path | None = None
    client_certificate_data: bytes | None = None
    client_key: Path | None = None
    client_key_data: bytes | None = None
    username: str | None = None
    password: str | None = None
    exec: ExecConfig | None = None


@dataclass(frozen=True)
class SingleConfig:
    """One context's settings: where its API server is and who to be there."""

    context_name: str
    cluster: Cluster
    user: User
    namespace: str
    """The context's namespace ("default" when it names none)."""
    fname: Path | None
    """The kubeconfig file (the first of a merged list); None in a pod or from a dict."""


@dataclass(frozen=True)
class _Entry:
    """A named cluster, user or context, and the file that named it."""

    body: Mapping[str, Any]
    file: Path | None


class KubeConfig:
    """Kubeconfig files, merged; `get()` one context of them."""

    def __init__(
        self,
        clusters: Mapping[str, _Entry],
        users: Mapping[str, _Entry],
        contexts: Mapping[str, _Entry],
        current_context: str | None,
        files: Sequence[Path] = (),
        name: str | None = None,
    ) -> None:
        self.clusters = dict(clusters)
        self.users = dict(users)
        self.contexts = dict(contexts)
        self.current_context = current_context
        self.files = tuple(files)
        self.name = name or (", ".join(map(str, files)) if files else "(given)")
        """How messages name it: the file, `$KUBECONFIG=...`, or `(given)`."""

    @classmethod
    def from_dict(
        cls, config: Mapping[str, Any], fname: str | Path | None = None
    ) -> KubeConfig:
        """A kubeconfig already read; relative paths in it resolve against `fname`'s
        directory (the working directory without one)."""
        path = Path(fname) if fname is not None else None
        return cls._merged([(path, config)], name=str(path) if path else None)

    @classmethod
    def from_file(cls, path: str | Path) -> KubeConfig:
        path = Path(path).expanduser()
        return cls._merged([(path, _read(path, str(path)))], name=str(path))

    @classmethod
    def from_server(cls, url: str, namespace: str | None = None) -> KubeConfig:
        """A context for `url` without credentials (a test's unreachable server)."""
        context: dict[str, str] = {"cluster": "server"}
        if namespace:
            context["namespace"] = namespace
        return cls.from_dict(
            {
                "clusters": [{"name": "server", "cluster": {"server": url}}],
                "contexts": [{"name": "server", "context": context}],
                "current-context": "server",
            }
        )

    @classmethod
    def from_env(
        cls,
        *,
        environ: Mapping[str, str] | None = None,
        service_account: Path = SERVICE_ACCOUNT,
        home: Path | None = None,
    ) -> KubeConfig:
        """`$KUBECONFIG`, else the pod's service account, else `~/.kube/config`."""
        environ = os.environ if environ is None else environ
        listed = environ.get("KUBECONFIG", "")
        if listed:
            name = f"$KUBECONFIG={listed}"
            paths = [Path(p).expanduser() for p in listed.split(os.pathsep) if p]
            present = [p for p in paths if p.exists()]
            if not present:
                raise NoCluster(_no_cluster(name, "not found"))
            return cls._merged([(p, _read(p, name)) for p in present], name=name)
        pod = cls.in_cluster(environ, service_account)
        if pod is not None:
            return pod
        path = (home or Path.home()) / ".kube" / "config"
        if not path.exists():
            raise NoCluster(_no_cluster("~/.kube/config", "not found"))
        return cls._merged([(path, _read(path, str(path)))], name=str(path))

    @classmethod
    def in_cluster(
        cls,
        environ: Mapping[str, str] | None = None,
        service_account: Path = SERVICE_ACCOUNT,
    ) -> KubeConfig | None:
        """The pod's service account (token re-read as it rotates, CA, namespace);
        None outside a pod."""
        environ = os.environ if environ is None else environ
        host = environ.get("KUBERNETES_SERVICE_HOST", "")
        port = environ.get("KUBERNETES_SERVICE_PORT", "")
        token = service_account / "token"
        if not host or not port or not token.exists():
            return None
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        cluster: dict[str, Any] = {"server": f"https://{host}:{port}"}
        if (service_account / "ca.crt").exists():
            cluster["certificate-authority"] = str(service_account / "ca.crt")
        context = {"cluster": "in-cluster", "user": "in-cluster"}
        namespace_file = service_account / "namespace"
        if namespace_file.exists():
            context["namespace"] = namespace_file.read_text().strip()
        return cls._merged(
            [
                (
                    None,
                    {
                        "clusters": [{"name": "in-cluster", "cluster": cluster}],
                        "users": [
                            {"name": "in-cluster", "user": {"tokenFile": str(token)}}
                        ],
                        "contexts": [{"name": "in-cluster", "context": context}],
                        "current-context": "in-cluster",
                    },
                )
            ],
            name="the pod's service account",
        )

    @classmethod
    def _merged(
        cls, configs: Sequence[tuple[Path | None, Any]], name: str | None
    ) -> KubeConfig:
        clusters: dict[str, _Entry] = {}
        users: dict[str, _Entry] = {}
        contexts: dict[str, _Entry] = {}
        current: str | None = None
        for path, config in configs:
            where = str(path) if path is not None else name or "(given)"
            if config is None:
                config = {}
            if not isinstance(config, Mapping):
                raise NoCluster(_no_cluster(where, "it is not a kubeconfig mapping"))
            for section, into in (
                ("clusters", clusters),
                ("users", users),
                ("contexts", contexts),
            ):
                for entry_name, body in _entries(config, section, where):
                    into.setdefault(entry_name, _Entry(body, path))
            if current is None and config.get("current-context"):
                current = str(config["current-context"])
        files = [p for p, _ in configs if p is not None]
        return cls(clusters, users, contexts, current, files, name)

    def get(self, context_name: str | None = None) -> SingleConfig:
        """One context (`context_name`, else the current one)."""
        name = context_name or self.current_context
        if not name:
            if not (self.clusters or self.contexts or self.users):
                raise NoCluster(_no_cluster(self.name, "it is empty"))
            raise NoCluster(
                _no_cluster(
                    self.name,
                    "it names no current-context",
                    "name a context, or set one with "
                    "`kubectl config use-context NAME`",
                )
            )
        if name not in self.contexts:
            known = ", ".join(sorted(self.contexts)) or "none"
            raise NoCluster(
                _no_cluster(self.name, f'it has no context "{name}" (it has: {known})')
            )
        context = self.contexts[name]
        where = f'kubeconfig {context.file or self.name}: context "{name}"'
        cluster_name = context.body.get("cluster")
        if not cluster_name:
            raise NoCluster(f"{where}: names no cluster; add `cluster: NAME` to it")
        if cluster_name not in self.clusters:
            raise NoCluster(
                f'{where}: names cluster "{cluster_name}", which no kubeconfig file '
                "defines; add it under `clusters:` or fix the context"
            )
        user_name = context.body.get("user")
        if user_name and user_name not in self.users:
            raise NoCluster(
                f'{where}: names user "{user_name}", which no kubeconfig file '
                "defines; add it under `users:` or fix the context"
            )
        user = (
            _user(self.users[user_name], f'user "{user_name}"', self.name)
            if user_name
            else User()
        )
        return SingleConfig(
            context_name=name,
            cluster=_cluster(
                self.clusters[cluster_name], f'cluster "{cluster_name}"', self.name
            ),
            user=user,
            namespace=str(context.body.get("namespace") or "default"),
            fname=self.files[0] if self.files else None,
        )


def _no_cluster(where: str, problem: str, fix: str = FIX) -> str:
    return f"no cluster to connect to: kubeconfig {where}: {problem}; {fix}"


def _read(path: Path, name: str) -> Any:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise NoCluster(_no_cluster(name, "not found")) from None
    except OSError as error:
        raise NoCluster(_no_cluster(name, f"cannot read it ({error})")) from None
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        problem = " ".join(str(error).split())
        raise NoCluster(
            f"kubeconfig {path}: it is not valid YAML ({problem}); fix the file"
        ) from None


def _entries(
    config: Mapping[str, Any], section: str, where: str
) -> list[tuple[str, Mapping[str, Any]]]:
    kind = section[:-1]
    listed = config.get(section) or []
    if not isinstance(listed, list):
        raise NoCluster(f"kubeconfig {where}: `{section}` must be a list of entries")
    entries = []
    for item in listed:
        if not isinstance(item, Mapping) or not item.get("name"):
            raise NoCluster(
                f"kubeconfig {where}: an entry of `{section}` has no name; "
                f"give each `name:` and `{kind}:`"
            )
        body = item.get(kind) or {}
        if not isinstance(body, Mapping):
            raise NoCluster(
                f'kubeconfig {where}: {kind} "{item["name"]}": `{kind}` must be a mapping'
            )
        entries.append((str(item["name"]), body))
    return entries


class _Fields:
    """Typed reads of one entry's fields, each error naming the file and entry."""

    def __init__(self, entry: _Entry, subject: str, name: str) -> None:
        self.body = entry.body
        self.file = entry.file
        self.where = f"kubeconfig {entry.file or name}: {subject}"

    def error(self, problem: str) -> NoCluster:
        return NoCluster(f"{self.where}: {problem}")

    def text(self, key: str) -> str | None:
        value = self.body.get(key)
        if value is None or value == "":
            return None
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise self.error(f"`{key}` must be a string")
        return str(value)

    def flag(self, key: str) -> bool:
        value = self.body.get(key, False)
        if not isinstance(value, bool):
            raise self.error(f"`{key}` must be true or false, not {value!r}")
        return value

    def path(self, key: str) -> Path | None:
        value = self.text(key)
        if value is None:
            return None
        path = Path(value).expanduser()
        if not path.is_absolute() and self.file is not None:
            path = self.file.parent / path
        return path

    def data(self, key: str) -> bytes | None:
        value = self.text(key)
        if value is None:
            return None
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise self.error(
                f"`{key}` is not base64; encode the PEM with `base64 -w0`"
            ) from None


def _cluster(entry: _Entry, subject: str, name: str) -> Cluster:
    fields = _Fields(entry, subject, name)
    server = fields.text("server")
    if server is None:
        raise fields.error("has no `server`; set it to the API server's URL")
    if "://" not in server:
        server = f"https://{server}"
    ca_file = fields.path("certificate-authority")
    ca_data = fields.data("certificate-authority-data")
    insecure = fields.flag("insecure-skip-tls-verify")
    if insecure and (ca_file or ca_data):
        raise fields.error(
            "sets both a certificate authority and `insecure-skip-tls-verify`; "
            "remove one (verifying with the CA is the safe choice)"
        )
    proxy = fields.text("proxy-url")
    if proxy is not None and not proxy.startswith(("http://", "https://")):
        raise fields.error(
            f"`proxy-url` {proxy} is not supported: opgen's HTTP client (aiohttp) "
            "reaches the API server through http:// or https:// proxies only; "
            "use one of those, or remove `proxy-url`"
        )
    exec_config = None
    for extension in entry.body.get("extensions") or []:
        if isinstance(extension, Mapping) and (
            extension.get("name") == "client.authentication.k8s.io/exec"
        ):
            exec_config = extension.get("extension")
    return Cluster(
        server=server.rstrip("/"),
        certificate_authority=ca_file,
        certificate_authority_data=ca_data,
        insecure_skip_tls_verify=insecure,
        tls_server_name=fields.text("tls-server-name"),
        proxy_url=proxy,
        exec_config=exec_config,
    )


def _user(entry: _Entry, subject: str, name: str) -> User:
    fields = _Fields(entry, subject, name)
    provider = entry.body.get("auth-provider")
    if provider:
        kind = provider.get("name") if isinstance(provider, Mapping) else None
        instead = _AUTH_PROVIDERS.get(str(kind), "the provider's exec plugin")
        raise fields.error(
            f'uses auth-provider "{kind}", which opgen does not support; use '
            f"{instead}, or a token"
        )
    impersonating = [key for key in _IMPERSONATION if entry.body.get(key)]
    if impersonating:
        raise fields.error(
            f"impersonation (`{impersonating[0]}`) is not supported by opgen; give "
            "the operator that identity's own credentials (a token or certificate)"
        )
    username, password = fields.text("username"), fields.text("password")
    if (username is None) != (password is None):
        raise fields.error("basic auth needs both `username` and `password`")
    certificate = fields.path("client-certificate")
    certificate_data = fields.data("client-certificate-data")
    key = fields.path("client-key")
    key_data = fields.data("client-key-data")
    if (certificate or certificate_data) and not (key or key_data):
        raise fields.error(
            "has a client certificate without a key; add `client-key` or "
            "`client-key-data`"
        )
    if (key or key_data) and not (certificate or certificate_data):
        raise fields.error(
            "has a client key without a certificate; add `client-certificate` "
            "or `client-certificate-data`"
        )
    return User(
        token=fields.text("token"),
        token_file=fields.path("tokenFile"),
        client_certificate=certificate,
        client_certificate_data=certificate_data,
        client_key=key,
        client_key_data=key_data,
        username=username,
        password=password,
        exec=_exec(entry, fields),
    )


def _exec(entry: _Entry, user: _Fields) -> ExecConfig | None:
    body = entry.body.get("exec")
    if not body:
        return None
    if not isinstance(body, Mapping):
        raise user.error("`exec` must be a mapping")
    fields = _Fields(_Entry(body, entry.file), "", "")
    fields.where = f"{user.where}: exec"
    version = fields.text("apiVersion")
    if version not in EXEC_API_VERSIONS:
        raise fields.error(
            f"apiVersion {version!r} is not one opgen runs; use one of "
            + ", ".join(EXEC_API_VERSIONS)
        )
    command = fields.text("command")
    if command is None:
        raise fields.error("has no `command`; name the credential plugin to run")
    if os.sep in command and not Path(command).is_absolute() and entry.file:
        command = str(entry.file.parent / command)  # as client-go resolves it
    mode = fields.text("interactiveMode")
    if mode is None:
        if version.endswith("/v1"):
            raise fields.error(
                "the v1 exec API needs `interactiveMode`; set it to Never "
                "(an operator has no terminal)"
            )
        mode = "IfAvailable"
    if mode not in ("Never", "IfAvailable", "Always"):
        raise fields.error(
            f"interactiveMode {mode!r} is not Never, IfAvailable or Always"
        )
    if mode == "Always":
        raise fields.error(
            "interactiveMode Always needs a terminal, which an operator does not "
            "have; set it to Never, or use a plugin that needs no input"
        )
    args = body.get("args") or []
    env = body.get("env") or []
    if not isinstance(args, list) or not isinstance(env, list):
        raise fields.error("`args` and `env` must be lists")
    pairs = []
    for variable in env:
        if not isinstance(variable, Mapping) or "name" not in variable:
            raise fields.error("each `env` entry needs `name` and `value`")
        pairs.append((str(variable["name"]), str(variable.get("value", ""))))
    return ExecConfig(
        api_version=version,
        command=command,
        args=tuple(str(arg) for arg in args),
        env=tuple(pairs),
        interactive_mode=mode,
        install_hint=fields.text("installHint"),
        provide_cluster_info=fields.flag("provideClusterInfo"),
    )
