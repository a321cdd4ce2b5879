"""Admission and conversion webhooks, served by the manager over HTTPS.

    import opgen.api as op
    from opgen import runtime as rt

    @op.webhook(RayCluster, mutating=True)
    class RayClusterDefaulter:
        async def default(self, obj: RayCluster) -> None:
            obj.spec.worker_replicas = obj.spec.worker_replicas or 1

    @op.webhook(RayCluster, mutating=False)
    class RayClusterValidator:
        async def validate_create(self, obj: RayCluster) -> list[str]: ...
        async def validate_update(self, old: RayCluster, new: RayCluster) -> list[str]: ...
        async def validate_delete(self, obj: RayCluster) -> list[str]: ...

    manager.webhooks.add(RayClusterDefaulter())
    manager.webhooks.add(RayClusterValidator())

Modules, one job each:

    server        WebhookServer: handlers by declared path, TLS, readiness
    options       WebhookOptions: the server's settings, which a manager holds without the server
    endpoints     the server's handler: a JSON POST per path; anything else a 4xx in its format
    admission     AdmissionReview v1: defaulting (JSON patch of the changes), validation
    conversion    ConversionReview v1 through the hub; fields a spoke lacks survive
    jsonpatch     the patch between what the API server sent and what the defaulter made
    review        Answer, Denied, FieldError; reading a review's body
    certificates  where certificates are found; a local CA and serving certificate

Each name here loads its module on first use, so a manager that serves no
webhook loads none of them but `options`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opgen.runtime.webhook.admission import (
        AdmissionRequest,
        Defaulter,
        Validator,
        admission_request,
    )
    from opgen.runtime.webhook.certificates import (
        DEFAULT_CERT_DIR,
        LocalCertificates,
        write_local_certificates,
    )
    from opgen.runtime.webhook.conversion import PRESERVED_ANNOTATION, Converter
    from opgen.runtime.webhook.options import WebhookOptions
    from opgen.runtime.webhook.review import Denied, FieldError
    from opgen.runtime.webhook.server import WebhookServer

_EXPORTS: dict[str, str] = {
    "AdmissionRequest": "admission",
    "Defaulter": "admission",
    "Validator": "admission",
    "admission_request": "admission",
    "DEFAULT_CERT_DIR": "certificates",
    "LocalCertificates": "certificates",
    "write_local_certificates": "certificates",
    "PRESERVED_ANNOTATION": "conversion",
    "Converter": "conversion",
    "WebhookOptions": "options",
    "Denied": "review",
    "FieldError": "review",
    "WebhookServer": "server",
}

__all__ = [
    "DEFAULT_CERT_DIR",
    "PRESERVED_ANNOTATION",
    "AdmissionRequest",
    "Converter",
    "Defaulter",
    "Denied",
    "FieldError",
    "LocalCertificates",
    "Validator",
    "WebhookOptions",
    "WebhookServer",
    "admission_request",
    "write_local_certificates",
]


if not TYPE_CHECKING:
    # Hidden from type checkers, as in `opgen.runtime`: they read the imports above.

    def __getattr__(name: str) -> object:
        """Each name loads its module on first use: a manager that serves no
        webhook holds only `WebhookOptions`; the server, the reviews and their
        handlers stay unloaded."""
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
