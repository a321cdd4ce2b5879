"""CronJob v1beta1: the unserved version (controller-tools `unserved/types.go`)."""

from __future__ import annotations

from typing import Annotated

import opgen.api as op


class CronJobSpec(op.Model):
    """CronJobSpec defines the desired state of CronJob"""

    two_of_a_kind_part0: Annotated[str, op.MinLength(4)]
    """This tests that markers that are allowed on both fields and types are applied to fields"""
    int32_with_validations: Annotated[
        int, op.Format("int32"), op.Minimum(-2), op.Maximum(2), op.MultipleOf(2)
    ]


@op.kind(group="testdata.kubebuilder.io", version="v1beta1", singular="mycronjob")
@op.subresource_status()
@op.unserved_version()
class CronJob(op.CustomResource[CronJobSpec | None, None]):
    """CronJob is the Schema for the cronjobs API"""
