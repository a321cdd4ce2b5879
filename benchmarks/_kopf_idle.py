"""The kopf side of `benchmarks/runtime_install.py`: a kopf operator for the same kind.

Runs with `kopf run --standalone` in kopf's own virtualenv (kopf is not an
opgen dependency; PyYAML comes with kopf). One handler for RayCluster objects,
which the benchmark never creates: what is measured is kopf starting and
idling with one watch, as the opgen manager does.
"""

import base64
import os

import kopf
import yaml


@kopf.on.login()
def login(**_):
    """The envtest kubeconfig's admin credentials (a client certificate)."""
    with open(os.environ["KUBECONFIG"]) as file:
        config = yaml.safe_load(file)
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    return kopf.ConnectionInfo(
        server=cluster["server"],
        ca_data=base64.b64decode(cluster["certificate-authority-data"]),
        certificate_data=base64.b64decode(user["client-certificate-data"]),
        private_key_data=base64.b64decode(user["client-key-data"]),
    )


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False


@kopf.on.create("ray.example.com", "v1", "rayclusters")
def created(name, **_):
    return {"seen": name}
