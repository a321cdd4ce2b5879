"""A local control plane to develop against, until Ctrl-C: what `opgen envtest run` runs.

`run_local_cluster` starts an `Environment` with kube-controller-manager (so
garbage collection and namespace deletion work) and the given CRDs, publishes
its admin kubeconfig where kubectl and `make run` find it, reports, and
waits for SIGINT or SIGTERM; then it takes the kubeconfig back and stops
every process. A signal while starting stops what was started. Nothing is
left behind: the processes run in their own process groups, stopped as a
whole, and the watchdog of `LocalControlPlane` stops them even if this
process is killed outright.

Publishing merges a context named `opgen-envtest` (with a cluster and a
user of that name) into the kubeconfig kubectl uses (the first file of
`$KUBECONFIG`, else `~/.kube/config`) and makes it the current context,
as `kind create cluster` does; stopping removes the three entries and
switches back to the context that was current before (a file that did not
exist before, or that held nothing, is removed). With `kubeconfig=PATH` a standalone file is written
there instead, and removed at the end.
"""

from __future__ import annotations

import contextlib
import copy
import os
import signal
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import yaml

from opgen.errors import EnvtestError
from opgen.testing.binaries import Binaries
from opgen.testing.controlplane import crds
from opgen.testing.controlplane.environment import Environment

__all__ = [
    "CONTEXT",
    "ClusterInfo",
    "Published",
    "kubectl_kubeconfig_path",
    "publish",
    "run_local_cluster",
    "unpublish",
]

CONTEXT = "opgen-envtest"


@dataclass(frozen=True)
class Published:
    """Where the control plane's kubeconfig went, and what to restore."""

    path: Path
    merged: bool
    """Merged into an existing kubeconfig (else a file of its own)."""
    created: bool
    """The file did not exist before."""
    previous_context: str | None


@dataclass(frozen=True)
class ClusterInfo:
    """What `run_local_cluster` reports once the control plane is up."""

    server: str
    crds: tuple[str, ...]
    kubeconfig: Published
    process_ids: Mapping[str, int]


class _Stop(BaseException):
    """Raised by the signal handler: unwinds the start or the wait, never caught halfway."""


def kubectl_kubeconfig_path(environ: Mapping[str, str]) -> Path:
    """The kubeconfig file kubectl writes to: the first of `$KUBECONFIG`, else ~/.kube/config."""
    configured = environ.get("KUBECONFIG", "")
    first = next((part for part in configured.split(os.pathsep) if part), None)
    if first:
        return Path(first).expanduser()
    home = environ.get("HOME") or str(Path.home())
    return Path(home) / ".kube" / "config"


def _renamed(admin: Mapping[str, Any]) -> dict[str, Any]:
    """The admin kubeconfig's one cluster, user and context, all named CONTEXT."""
    cluster = copy.deepcopy(admin["clusters"][0]["cluster"])
    user = copy.deepcopy(admin["users"][0]["user"])
    context = copy.deepcopy(admin["contexts"][0]["context"])
    context.update(cluster=CONTEXT, user=CONTEXT)
    return {
        "clusters": [{"name": CONTEXT, "cluster": cluster}],
        "users": [{"name": CONTEXT, "user": user}],
        "contexts": [{"name": CONTEXT, "context": context}],
    }


def _write(path: Path, config: Mapping[str, Any]) -> None:
    """Replace `path` atomically, readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".opgen-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            yaml.safe_dump(dict(config), out, sort_keys=False)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _read(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise EnvtestError(
            f"cannot read the kubeconfig {path}: {error}",
            hint="fix the file, or pass --kubeconfig PATH to write a file of its own",
        ) from error
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise EnvtestError(
            f"{path} is not a kubeconfig (no mapping at the top)",
            hint="pass --kubeconfig PATH to write a file of its own",
        )
    return loaded


def _without_ours(config: dict[str, Any]) -> dict[str, Any]:
    for section in ("clusters", "users", "contexts"):
        entries = config.get(section) or []
        config[section] = [e for e in entries if e.get("name") != CONTEXT]
    return config


def publish(admin: Mapping[str, Any], path: Path, *, merge: bool = True) -> Published:
    """Write the control plane's kubeconfig to `path`: merged and current, or a file of its own."""
    ours = _renamed(admin)
    if not merge:
        _write(
            path,
            {
                "apiVersion": "v1",
                "kind": "Config",
                **ours,
                "current-context": CONTEXT,
            },
        )
        return Published(path, merged=False, created=True, previous_context=None)
    created = not path.exists()
    config: dict[str, Any] = (
        {"apiVersion": "v1", "kind": "Config"} if created else _read(path)
    )
    previous = config.get("current-context") or None
    if previous == CONTEXT:  # left by a run that was killed: nothing to go back to
        previous = None
    config = _without_ours(config)
    for section in ("clusters", "users", "contexts"):
        config[section] = [*config[section], *ours[section]]
    config["current-context"] = CONTEXT
    _write(path, config)
    return Published(path, merged=True, created=created, previous_context=previous)


def unpublish(published: Published) -> None:
    """Take the kubeconfig back: remove the entries (or the file), restore the context."""
    path = published.path
    if not path.exists():
        return
    if not published.merged:
        path.unlink()
        return
    config = _without_ours(_read(path))
    if config.get("current-context") == CONTEXT:
        names = {c.get("name") for c in config["contexts"]}
        if published.previous_context in names:
            config["current-context"] = published.previous_context
        else:
            config.pop("current-context", None)
    empty = not any(config[s] for s in ("clusters", "users", "contexts"))
    if empty and (published.created or _says_nothing(config)):
        path.unlink()
        return
    _write(path, config)


def _says_nothing(config: Mapping[str, Any]) -> bool:
    """A kubeconfig with no entries, context, preferences or extensions (an empty
    file before `publish`): kubectl needs no such file, so none is left behind."""
    ignored = {"apiVersion", "kind", "clusters", "users", "contexts"}
    return not any(value for key, value in config.items() if key not in ignored)


@contextlib.contextmanager
def _stopping_on_signals(notice: Callable[[str], None]) -> Iterator[None]:
    """SIGINT and SIGTERM raise `_Stop` once; later ones only say the stop is under way."""
    stopping = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if stopping:
            notice("still stopping; the control plane's processes are being shut down")
            return
        stopping = True
        notice(f"{signal.Signals(signum).name} received: stopping the control plane")
        raise _Stop

    previous = {
        sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def run_local_cluster(
    binaries: Binaries,
    crd_paths: Sequence[crds.CrdSource],
    kubeconfig_path: Path,
    *,
    merge: bool,
    ready: Callable[[ClusterInfo], None],
    notice: Callable[[str], None],
    environ: Mapping[str, str] | None = None,
) -> None:
    """Run the control plane until SIGINT or SIGTERM, then clean up; returns normally then."""
    environment = Environment(
        binaries=binaries,
        controller_manager=True,
        crd_paths=crd_paths,
        use_existing_cluster=False,
        environ=environ,
    )
    published: Published | None = None
    try:
        with _stopping_on_signals(notice):
            try:
                notice("starting etcd, kube-apiserver and kube-controller-manager")
                environment.start()
                published = publish(
                    environment.kubeconfig, kubeconfig_path, merge=merge
                )
                names = tuple(
                    sorted(document.name for document in crds.load_crds(crd_paths))
                )
                ready(
                    ClusterInfo(
                        environment.server,
                        names,
                        published,
                        dict(environment.process_ids),
                    )
                )
                while True:
                    signal.pause()
            finally:
                # Signals now only print a notice: the cleanup always completes.
                try:
                    if published is not None:
                        unpublish(published)
                finally:
                    environment.stop()
    except _Stop:
        pass
