"""Reading kubeconfig files into one context's settings, as client-go's loader does.

- `KubeConfig.from_file(path)`: one file (an explicit `--kubeconfig`); it must exist.
- `KubeConfig.from_env()`: `$KUBECONFIG` when set (a `:`-separated list whose
  existing files are merged: the first file to name a cluster, user or context,
  or to set `current-context`, wins), else the pod's service account when
  `KUBERNETES_SERVICE_HOST`/`_PORT` are set and its token is mounted, else
  `~/.kube/config` — the order of controller-runtime's `config.GetConfig`.
- `get(context_name)`: one context's `SingleConfig` — its cluster and user
  (`settings`) and its namespace; each problem one `NoCluster` naming the file,
  the entry, what is wrong and how to fix it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opgen.runtime.kubeconfig.settings import (
    FIX,
    Cluster,
    Entry,
    NoCluster,
    User,
    cluster,
    user,
)

__all__ = ["SERVICE_ACCOUNT", "KubeConfig", "SingleConfig"]

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where a pod's service account token, CA and namespace are mounted."""


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


class KubeConfig:
    """Kubeconfig files, merged; `get()` one context of them."""

    def __init__(
        self,
        clusters: Mapping[str, Entry],
        users: Mapping[str, Entry],
        contexts: Mapping[str, Entry],
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
        clusters: dict[str, Entry] = {}
        users: dict[str, Entry] = {}
        contexts: dict[str, Entry] = {}
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
                    into.setdefault(entry_name, Entry(body, path))
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
        of_user = (
            user(self.users[user_name], f'user "{user_name}"', self.name)
            if user_name
            else User()
        )
        return SingleConfig(
            context_name=name,
            cluster=cluster(
                self.clusters[cluster_name], f'cluster "{cluster_name}"', self.name
            ),
            user=of_user,
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
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except ValueError:  # a YAML flow mapping: read as YAML below
            pass
    # Imported here: a pod's service account or a JSON kubeconfig needs no YAML
    # (about 12 ms of CPU and 0.9 MiB of resident memory an operator no longer
    # spends starting).
    import yaml

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
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
