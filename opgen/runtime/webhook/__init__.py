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

    server        WebhookServer, WebhookOptions: handlers by declared path, TLS, readiness
    endpoints     the server's handler: a JSON POST per path; anything else a 4xx in its format
    admission     AdmissionReview v1: defaulting (JSON patch of the changes), validation
    conversion    ConversionReview v1 through the hub; fields a spoke lacks survive
    jsonpatch     the patch between what the API server sent and what the defaulter made
    review        Answer, Denied, FieldError; reading a review's body
    certificates  where certificates are found; a local CA and serving certificate
"""

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
from opgen.runtime.webhook.review import Denied, FieldError
from opgen.runtime.webhook.server import WebhookOptions, WebhookServer

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
