"""KEDA's ScaledJob (github.com/kedacore/keda/v2, apis/keda/v1alpha1), ported to opgen.

A widely used operator's API that embeds Kubernetes' own types: a whole
batch/v1 JobSpec (with its pod template) as `jobTargetRef`, and autoscaling/v2's
MetricTargetType. Written from scaledjob_types.go, scaletriggers_types.go,
condition_types.go and scaledobject_types.go of KEDA v2.21.0;
test_keda_port.py compares the CRD with the one KEDA publishes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypeAliasType

import opgen.api as op


class Rollout(op.Model):
    """Rollout defines the strategy for job rollouts"""

    strategy: Literal["gradual", "immediate"] | None = None
    propagation_policy: Literal["foreground", "background"] | None = None


class ScalingStrategy(op.Model):
    """ScalingStrategy defines the strategy of Scaling"""

    strategy: Literal["default", "custom", "accurate", "eager"] | None = None
    custom_scaling_queue_length_deduction: Annotated[int, op.Format("int32")] | None = (
        None
    )
    custom_scaling_running_job_percentage: str | None = None
    pending_pod_conditions: list[str] | None = None
    multiple_scalers_calculation: Literal["min", "avg", "sum", "max"] | None = None


class AuthenticationRef(op.Model):
    """AuthenticationRef points to the TriggerAuthentication or ClusterTriggerAuthentication object that
    is used to authenticate the scaler with the environment"""

    name: str
    kind: Literal["TriggerAuthentication", "ClusterTriggerAuthentication"] | None = None
    """Kind of the resource being referred to. Defaults to TriggerAuthentication."""


class ScaleTriggers(op.Model):
    """ScaleTriggers reference the scaler that will be used"""

    type: Annotated[str, op.MinLength(1)]
    name: str | None = None
    use_cached_metrics: bool | None = None
    metadata: dict[str, str]
    authentication_ref: AuthenticationRef | None = None
    metric_type: op.k8s.MetricTargetType | None = None


class ScaledJobSpec(op.Model):
    """ScaledJobSpec defines the desired state of ScaledJob"""

    job_target_ref: op.k8s.JobSpec
    polling_interval: Annotated[int, op.Minimum(1), op.Format("int32")] | None = None
    successful_jobs_history_limit: (
        Annotated[int, op.Minimum(0), op.Format("int32")] | None
    ) = None
    failed_jobs_history_limit: (
        Annotated[int, op.Minimum(0), op.Format("int32")] | None
    ) = None
    rollout_strategy: Literal["gradual", "immediate"] | None = None
    """Deprecated: Use Rollout.Strategy instead (see https://github.com/kedacore/keda/issues/3596)."""
    rollout: Rollout | None = None
    env_source_container_name: str | None = None
    min_replica_count: Annotated[int, op.Minimum(0), op.Format("int32")] | None = None
    max_replica_count: Annotated[int, op.Minimum(1), op.Format("int32")] | None = None
    scaling_strategy: ScalingStrategy | None = None
    triggers: Annotated[list[ScaleTriggers], op.MinItems(1)]


class Condition(op.Model):
    """Condition to store the condition state"""

    type: str
    """Type of condition"""
    status: str
    """Status of the condition, one of True, False, Unknown."""
    reason: str | None = None
    """The reason for the condition's last transition."""
    message: str | None = None
    """A human readable message indicating details about the transition."""


Conditions = TypeAliasType(
    "Conditions",
    Annotated[
        list[Condition],
        Field(
            description="Conditions an array representation to store multiple Conditions"
        ),
    ],
)


class TriggerActivityStatus(op.Model):
    """TriggerActivityStatus represents the activity status of an external trigger"""

    is_active: bool | None = None


class ScaledJobStatus(op.Model):
    """ScaledJobStatus defines the observed state of ScaledJob"""

    last_active_time: op.Time | None = None
    conditions: Conditions | None = None
    paused: str | None = Field(None, alias="Paused")
    triggers_types: str | None = None
    authentications_types: str | None = None
    external_metric_names: list[str] | None = None
    triggers_activity: dict[str, TriggerActivityStatus] | None = None


@op.kind(group="keda.sh", version="v1alpha1", short_names=["sj"])
@op.subresource_status()
@op.print_column(name="Min", type="integer", json_path=".spec.minReplicaCount")
@op.print_column(name="Max", type="integer", json_path=".spec.maxReplicaCount")
@op.print_column(
    name="Ready",
    type="string",
    json_path='.status.conditions[?(@.type=="Ready")].status',
)
@op.print_column(
    name="Active",
    type="string",
    json_path='.status.conditions[?(@.type=="Active")].status',
)
@op.print_column(
    name="Paused",
    type="string",
    json_path='.status.conditions[?(@.type=="Paused")].status',
)
@op.print_column(name="Triggers", type="string", json_path=".status.triggersTypes")
@op.print_column(
    name="Authentications", type="string", json_path=".status.authenticationsTypes"
)
@op.print_column(name="Age", type="date", json_path=".metadata.creationTimestamp")
class ScaledJob(op.CustomResource[ScaledJobSpec | None, ScaledJobStatus]):
    """ScaledJob is the Schema for the scaledjobs API"""
