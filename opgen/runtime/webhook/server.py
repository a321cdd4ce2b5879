"""`WebhookServer`: the handlers a manager serves, by the paths their declarations give.

`add(handler)` reads the `@op.webhook` / `@op.conversion` declaration on the
handler's class: a defaulter or validator is served on its declared path, a
converter on `/convert` (one path for every kind, as controller-runtime).
The manager starts the server on every replica, leader or not, as soon as
one handler is registered, and its `/readyz` waits until a TLS handshake
with the server succeeds.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
from pathlib import Path

from opgen.engine.reading import webhook_declarations
from opgen.model.webhooks import (
    CONVERSION_PATH,
    PROBE_PATH,
    AdmissionWebhook,
    Conversion,
)
from opgen.runtime import tls
from opgen.runtime.metrics import Metrics
from opgen.runtime.serving import HttpServer
from opgen.runtime.webhook.admission import ADMISSION_API_VERSION, AdmissionHandler
from opgen.runtime.webhook.certificates import default_cert_dir
from opgen.runtime.webhook.conversion import ConversionHandler
from opgen.runtime.webhook.endpoints import Endpoint, Endpoints
from opgen.runtime.webhook.options import DEFAULT_MAX_REQUEST_BYTES, WebhookOptions
from opgen.runtime.webhook.review import Answer, BadReview, read_json, review_request

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "PROBE_MESSAGE",
    "PROBE_PATH",
    "WebhookOptions",
    "WebhookServer",
]

log = logging.getLogger("opgen.runtime.webhook")

PROBE_MESSAGE = "opgen webhook probe"


class _Probe:
    """The endpoint at `PROBE_PATH`: refuses every admission request with
    `PROBE_MESSAGE`. `opgen.testing` adds a webhook for labelled ConfigMaps
    pointing here, to learn when the API server calls the server through a
    new configuration."""

    async def review(self, body: bytes) -> Answer:
        try:
            document = read_json(body)
        except BadReview as bad:
            return self.refusal(400, "BadRequest", bad.message)
        return await self.answer(document)

    async def answer(self, document: object) -> Answer:
        try:
            request = review_request(
                document, kind="AdmissionReview", api_versions=(ADMISSION_API_VERSION,)
            )
        except BadReview as bad:
            return self.refusal(400, "BadRequest", bad.message)
        return _probe_answer(200, str(request["uid"]), PROBE_MESSAGE)

    def refusal(self, status: int, reason: str, message: str) -> Answer:
        return _probe_answer(status, "", message)


def _probe_answer(status: int, uid: str, message: str) -> Answer:
    response = {
        "uid": uid,
        "allowed": False,
        "status": {"code": 403, "reason": "Forbidden", "message": message},
    }
    document = {
        "apiVersion": ADMISSION_API_VERSION,
        "kind": "AdmissionReview",
        "response": response,
    }
    return Answer(status, document)


class WebhookServer:
    """Admission and conversion handlers over HTTPS; see the module docstring."""

    def __init__(
        self, options: WebhookOptions | None = None, metrics: Metrics | None = None
    ) -> None:
        self.options = options or WebhookOptions()
        self.metrics = metrics or Metrics()
        self.conversion = ConversionHandler(self.metrics)
        self.endpoints: dict[str, Endpoint] = {}
        self.certificate: tls.ServingCertificate | None = None
        self.reload_interval = 10.0
        """Seconds between checks of the certificate files for a change."""
        self.read_timeout = 90.0
        """Seconds a connection may take to send a request's head, counted from the TLS
        handshake or the previous answer: an idle keep-alive connection is closed after
        it. As long as the API server keeps its idle connections (90 s), so it closes
        them first."""
        self.body_timeout = 30.0
        """Seconds a request's body may take to arrive (then 408)."""
        self.shutdown_timeout = 5.0
        """Seconds `stop()` gives reviews in flight to be answered before cancelling them."""
        self._http: HttpServer | None = None
        self._watch: asyncio.Task[None] | None = None

    @property
    def has_handlers(self) -> bool:
        return bool(self.endpoints)

    @property
    def paths(self) -> list[str]:
        return sorted(self.endpoints)

    @property
    def address(self) -> tuple[str, int] | None:
        """The host and port served on once started (the real port for port 0); else None."""
        if self._http is None or not self._http.serving:
            return None
        return (self.options.host or "0.0.0.0", self._http.port)

    def add(self, handler: object) -> None:
        """Serve `handler` by its class's `@op.webhook` or `@op.conversion` declaration."""
        declarations = webhook_declarations(type(handler))
        if not declarations:
            raise TypeError(
                f"{type(handler).__name__} carries no @op.webhook or @op.conversion declaration"
            )
        if self._http is not None:
            raise RuntimeError("add webhooks before the manager runs")
        for declaration in declarations:
            if isinstance(declaration, Conversion):
                self.conversion.add(declaration, handler)
                self.endpoints[CONVERSION_PATH] = self.conversion
            elif isinstance(declaration, AdmissionWebhook):
                if declaration.path in self.endpoints or declaration.path == PROBE_PATH:
                    raise ValueError(f"two webhooks are declared on {declaration.path}")
                self.endpoints[declaration.path] = AdmissionHandler(
                    declaration,
                    handler,
                    self.metrics,
                    timeout=self.options.handler_timeout,
                )

    def _serving_certificate(self) -> tls.ServingCertificate:
        options = self.options
        folder: Path | None = Path(options.cert_path) if options.cert_path else None
        if folder is None:
            default = default_cert_dir()
            if (default / options.cert_name).is_file() and (
                default / options.cert_key
            ).is_file():
                folder = default
        if folder is not None:
            for name in (options.cert_name, options.cert_key):
                if not (folder / name).is_file():
                    raise FileNotFoundError(
                        f"the webhook server's {name} is not in {folder} "
                        "(--webhook-cert-path, --webhook-cert-name, --webhook-cert-key)"
                    )
        else:
            log.warning(
                "no webhook certificate (--webhook-cert-path) and none in %s: serving a "
                "self-signed one, which the API server does not trust (docs/webhooks.md)",
                default_cert_dir(),
            )
        return tls.ServingCertificate(
            folder,
            cert_name=options.cert_name,
            key_name=options.cert_key,
            name="opgen-webhook",
        )

    async def start(self) -> None:
        """Listen and serve; the certificate files are watched for changes."""
        if self._http is not None:
            return
        self.certificate = self._serving_certificate()
        http = HttpServer(
            self.options.host,
            self.options.port,
            Endpoints({**self.endpoints, PROBE_PATH: _Probe()}, self.metrics),
            ssl_context=self.certificate.context,
            read_timeout=self.read_timeout,
            body_timeout=self.body_timeout,
            max_body_bytes=self.options.max_request_bytes,
            shutdown_timeout=self.shutdown_timeout,
            log=log,
        )
        await http.start()
        self._http = http
        log.info(
            "serving webhooks %s on https://%s:%d",
            ", ".join(sorted(self.endpoints)),
            self.options.host or "0.0.0.0",
            http.port,
        )
        if not self.certificate.self_signed:
            self._watch = asyncio.create_task(
                self.certificate.watch(self.reload_interval)
            )

    async def stop(self) -> None:
        """Stop listening and close every connection; reviews in flight get up to
        `shutdown_timeout` seconds to be answered."""
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
            self._watch = None
        if self._http is not None:
            await self._http.stop()
            self._http = None

    async def check_ready(self) -> None:
        """Raise unless a TLS handshake with the server succeeds (the `/readyz` check)."""
        if self._http is None or not self._http.serving:
            raise RuntimeError("the webhook server is not serving")
        host = self.options.host
        if host in ("", "0.0.0.0"):
            host = "127.0.0.1"
        elif host == "::":
            host = "::1"
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(host, self._http.port, ssl=context), 5
        )
        writer.close()
