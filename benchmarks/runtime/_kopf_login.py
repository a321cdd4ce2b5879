"""kopf's login for the benchmarks' kopf operators: the envtest kubeconfig's admin.

Runs in kopf's virtualenv, beside an operator: `_kopf_operator.py` imports it,
`kopf run` loads it with `../_kopf_idle.py`. Objects go to BENCH_NAMESPACE
when it is set.
"""

from __future__ import annotations

import base64
import os
from typing import Any

import kopf
import yaml


@kopf.on.login()
def login(**_: Any) -> kopf.ConnectionInfo:
    """The admin's client certificate, from the kubeconfig in KUBECONFIG."""
    with open(os.environ["KUBECONFIG"]) as file:
        config = yaml.safe_load(file)
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    return kopf.ConnectionInfo(
        server=cluster["server"],
        ca_data=base64.b64decode(cluster["certificate-authority-data"]),
        certificate_data=base64.b64decode(user["client-certificate-data"]),
        private_key_data=base64.b64decode(user["client-key-data"]),
        default_namespace=os.environ.get("BENCH_NAMESPACE"),
    )
