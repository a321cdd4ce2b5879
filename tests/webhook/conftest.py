"""The webhook tests' server: the test handlers served for the session's envtest.

`webhooks` installs the configurations opgen generates for the handlers
(calling a local server) and the kinds' CRDs (Gizmo converting through it),
and serves the handlers in a `WebhookManager` for the rest of the session.
Every answer the server sends is recorded (`Served.answers`), so a test can
see, for instance, that no patch was sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from opgen import runtime as rt
from opgen.runtime.webhook.review import Answer
from opgen.testing import Environment, WebhookInstallOptions, WebhookManager
from tests.webhook import handlers


@dataclass
class Served:
    """The session's webhook server, and what it answered."""

    envtest: Environment
    answers: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    """(path, name of the object asked about, answer)."""
    manager: WebhookManager | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def setup(self, manager: rt.Manager) -> None:
        handlers.setup(manager)
        for path, endpoint in manager.webhooks.endpoints.items():
            self._record(path, endpoint)

    def _record(self, path: str, endpoint: Any) -> None:
        review = endpoint.review

        async def recorded(body: bytes) -> Answer:
            answer: Answer = await review(body)
            with self.lock:
                self.answers.append((path, _name(body), answer.document))
            return answer

        endpoint.review = recorded

    def start(self) -> None:
        self.manager = WebhookManager(self.envtest, self.setup).start()

    def stop(self) -> None:
        if self.manager is not None:
            self.manager.stop()
            self.manager = None

    def responses(self, path: str, name: str) -> list[dict[str, Any]]:
        """The responses `path` sent about the object `name`, in order."""
        with self.lock:
            return [a["response"] for p, n, a in self.answers if (p, n) == (path, name)]


def _name(body: bytes) -> str:
    """The name of the object an AdmissionReview asks about ("" when it has none)."""
    try:
        request = json.loads(body)["request"]
        return str(request.get("name") or request["object"]["metadata"]["name"])
    except (ValueError, KeyError, TypeError):
        return ""


@pytest.fixture(scope="session")
def webhooks(envtest: Environment) -> Iterator[Served]:
    envtest.install_webhooks(
        WebhookInstallOptions(paths=handlers.generated_configurations())
    )
    envtest.install_crds(handlers.generated_crds())
    served = Served(envtest)
    served.start()
    try:
        yield served
    finally:
        served.stop()
        envtest.uninstall_webhooks()
