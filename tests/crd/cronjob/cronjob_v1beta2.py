"""CronJob v1beta2: the deprecated version with no spec (controller-tools `deprecated/types.go`)."""

from __future__ import annotations

import opgen.api as op


@op.kind(group="testdata.kubebuilder.io", version="v1beta2", singular="mycronjob")
@op.subresource_status()
@op.deprecated_version(
    warning="use v1 instead, this version causes your data center to catch fire when used on Tuesdays"
)
class CronJob(op.CustomResource[None, None]):
    """CronJob is the Schema for the cronjobs API"""
