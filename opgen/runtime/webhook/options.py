"""`WebhookOptions`: the webhook server's settings, apart from the server itself, so
that a manager holds them without loading the webhook modules; they load when
a handler is first added (`manager.webhooks`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "WebhookOptions"]

DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024
"""controller-runtime's limit: two objects of at most 3 MiB each, plus the review."""


@dataclass(frozen=True)
class WebhookOptions:
    """The webhook server (controller-runtime's webhook.Options)."""

    host: str = ""
    """Address to listen on; "" (default): every interface."""
    port: int = 9443
    """Port to listen on (Kubebuilder's `--webhook-port`); 0 picks a free one. Default 9443."""
    cert_path: str | None = None
    """Folder with the serving certificate and key, reloaded when they change
    (`--webhook-cert-path`; cert-manager's Secret in a cluster). None: controller-runtime's
    `<tmp>/k8s-webhook-server/serving-certs` when it holds them, else self-signed."""
    cert_name: str = "tls.crt"
    """Certificate file name in `cert_path` (`--webhook-cert-name`). Default "tls.crt"."""
    cert_key: str = "tls.key"
    """Key file name in `cert_path` (`--webhook-cert-key`). Default "tls.key"."""
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    """Larger bodies are refused with 413. Default 7 MiB."""
    handler_timeout: float = 30.0
    """A handler still running after this many seconds is answered with a refusal
    (the API server itself waits at most the webhook's `timeoutSeconds`). Default 30."""
