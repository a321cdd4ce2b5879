"""CronJob v1: the storage version of controller-tools' CronJob test API, in Python."""

from __future__ import annotations

import datetime
import enum
from typing import Annotated, Literal

from pydantic import Field, PrivateAttr
from typing_extensions import TypeAliasType

import opgen.api as op

GROUP = "testdata.kubebuilder.io"


class ConcurrencyPolicy(str, enum.Enum):
    """ConcurrencyPolicy describes how the job will be handled.
    Only one of the following concurrent policies may be specified.
    If none of the following policies is specified, the default one
    is AllowConcurrent."""

    ALLOW = "Allow"
    FORBID = "Forbid"
    REPLACE = "Replace"


LongerString = TypeAliasType(
    "LongerString",
    Annotated[
        str,
        op.MinLength(4),
        Field(
            description="This tests that markers that are allowed on both fields and types "
            "are applied to types"
        ),
    ],
)
StringEvenType = TypeAliasType(
    "StringEvenType",
    Annotated[
        str,
        op.Rule("self.size() % 2 == 0", message="must have even length"),
        Field(
            description="StringEvenType is a type that includes an expression-based validation."
        ),
    ],
)
StringAliasWithTitle = TypeAliasType(
    "StringAliasWithTitle", Annotated[str, op.Title("title on type")]
)
StringAliasWithValidation = TypeAliasType(
    "StringAliasWithValidation", Annotated[str, op.MinLength(1), op.MaxLength(255)]
)
Hosts = TypeAliasType(
    "Hosts",
    Annotated[
        list[str],
        op.MinItems(1),
        op.Items(
            op.MinLength(1),
            op.MaxLength(255),
            op.Pattern(
                r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
            ),
        ),
        op.ListType("set"),
        Field(description="This tests string slice item validation."),
    ],
)


class NestedObject(op.Model):
    foo: str
    bar: bool


@op.StructType("atomic")
class NestedStructWithSeveralFields(NestedObject):
    pass


class JustNestedObject(NestedObject):
    pass


class RootObject(op.Model):
    nested: NestedObject


class AssociativeType(op.Model):
    name: str
    secondary: int
    foo: str


NestedAssociativeList = TypeAliasType(
    "NestedAssociativeList",
    Annotated[
        list[AssociativeType],
        op.ListType("map"),
        op.ListMapKey("name"),
        op.ListMapKey("secondary"),
    ],
)
NestedMapOfInfo = TypeAliasType(
    "NestedMapOfInfo", Annotated[dict[str, op.Bytes], op.MapType("granular")]
)


class PreservedModel(op.Model):
    concrete_field: str


Preserved = TypeAliasType(
    "Preserved",
    Annotated[
        PreservedModel, op.Schemaless(), op.Type("object"), op.PreserveUnknownFields()
    ],
)


@op.MinProperties(1)
@op.MaxProperties(2)
class MinMaxObject(op.Model):
    # Go's omitempty strings: None, not "", or every object would carry three
    # properties and break maxProperties (found by tests/proof).
    foo: str | None = None
    bar: str | None = None
    baz: str | None = None


class EmpiableObject(op.Model):
    foo: str = "forty-two"
    bar: str = ""


class ContainsNestedMap(op.Model):
    inner_map: dict[str, str] = {}


class UnexportedStruct(op.Model):
    foo: str
    """This tests that exported fields are not skipped in the schema generation"""


class ExportedStruct(op.Model):
    baz: str
    """This tests that exported fields are not skipped in the schema generation"""


class EmbeddedStruct(op.Model):
    """EmbeddedStruct is for testing that embedded struct is handled correctly when it is used through an alias type."""

    from_embedded: str = ""
    """FromEmbedded is a field from the embedded struct that was used through an alias type."""


class InlinePointerStruct(op.Model):
    """InlinePointerStruct tests pointer embedded struct with inline tag."""

    from_pointer: str = ""


IntOrStringPattern = r"^((100|[0-9]{1,2})%|[0-9]+)$"


@op.Rule(
    "has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)",
    message="forbiddenInt is not allowed",
    field_path=".forbiddenInt",
    reason="FieldValueForbidden",
)
class CronJobSpec(
    UnexportedStruct, ExportedStruct, EmbeddedStruct, InlinePointerStruct
):
    """CronJobSpec defines the desired state of CronJob"""

    schedule: str
    """The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."""
    starting_deadline_seconds: Annotated[int, op.Format("int64")] | None = None
    """Optional deadline in seconds for starting the job if it misses scheduled
    time for any reason.  Missed jobs executions will be counted as failed ones."""
    concurrency_policy: ConcurrencyPolicy | None = None
    """Specifies how to treat concurrent executions of a Job.
    Valid values are:
    - "Allow" (default): allows CronJobs to run concurrently;
    - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
    - "Replace": cancels currently running job and replaces it with a new one"""
    k8s_concurrency_policy: Literal["Allow", "Forbid", "Replace"] | None = None
    """Specifies how to treat concurrent executions of a Job.
    Valid values are:
    - "Allow" (default): allows CronJobs to run concurrently;
    - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
    - "Replace": cancels currently running job and replaces it with a new one"""
    suspend: bool | None = None
    """This flag tells the controller to suspend subsequent executions, it does
    not apply to already started executions.  Defaults to false."""
    _internal_data: str = PrivateAttr("")
    no_really_suspend: Annotated[bool, op.Type("string")] | None = None
    """This flag is like suspend, but for when you really mean it.
    It helps test the +kubebuilder:validation:Type marker."""
    binary_name: op.Bytes
    """This tests byte slice schema generation."""
    can_be_null: Annotated[str | None, op.Nullable(), op.Required()]
    """This tests that nullable works correctly"""
    job_template: op.k8s.JobTemplateSpec
    """Specifies the job that will be created when executing a CronJob."""
    successful_jobs_history_limit: Annotated[int, op.Format("int32")] | None = None
    """The number of successful finished jobs to retain.
    This is a pointer to distinguish between explicit zero and not specified."""
    failed_jobs_history_limit: Annotated[int, op.Format("int32")] | None = None
    """The number of failed finished jobs to retain.
    This is a pointer to distinguish between explicit zero and not specified."""
    byte_slice_data: dict[str, op.Bytes] = {}
    """This tests byte slices are allowed as map values."""
    string_slice_data: dict[str, list[str]] = {}
    """This tests string slices are allowed as map values."""
    ptr_data: dict[str, str] = {}
    """This tests pointers are allowed as map values."""
    two_of_a_kind_part0: Annotated[str, op.MinLength(4)]
    """This tests that markers that are allowed on both fields and types are applied to fields"""
    two_of_a_kind_part1: LongerString
    """This tests that markers that are allowed on both fields and types are applied to types"""
    defaulted_string: Annotated[
        str, op.Example("forty-two"), op.Title("DefaultedString"), op.Required()
    ] = "forty-two"
    """This tests that primitive defaulting can be performed."""
    defaulted_slice: Annotated[
        list[str], op.Example(["a", "b"]), op.Title("DefaultedSlice"), op.Required()
    ] = ["a", "b"]
    """This tests that slice defaulting can be performed."""
    defaulted_object: Annotated[
        list[RootObject],
        op.Example(
            [
                {"nested": {"foo": "baz", "bar": True}},
                {"nested": {"foo": "qux", "bar": False}},
            ]
        ),
        op.Title("124"),
        op.Required(),
    ] = [
        RootObject(nested=NestedObject(foo="baz", bar=True)),
        RootObject(nested=NestedObject(foo="qux", bar=False)),
    ]
    """This tests that slice and object defaulting can be performed."""
    defaulted_empty_slice: Annotated[
        list[str], op.Default([]), op.Title("{}"), op.Required()
    ] = []
    """This tests that empty slice defaulting can be performed."""
    defaulted_empty_map: Annotated[dict[str, str], op.Default({}), op.Required()] = {}
    """This tests that an empty object defaulting can be performed on a map."""
    defaulted_empty_object: Annotated[EmpiableObject, op.Default({}), op.Required()] = (
        EmpiableObject()
    )
    """This tests that an empty object defaulting can be performed on an object."""
    double_defaulted_string: Annotated[str, op.Required()] = "kubebuilder-default"
    """This tests that kubebuilder defaulting takes precedence."""
    kubernetes_defaulted_string: Annotated[str, op.Required()] = "forty-two"
    """This tests that primitive defaulting can be performed."""
    kubernetes_defaulted_slice: Annotated[list[str], op.Required()] = ["a", "b"]
    """This tests that slice defaulting can be performed."""
    kubernetes_defaulted_object: Annotated[list[RootObject], op.Required()] = [
        RootObject(nested=NestedObject(foo="baz", bar=True)),
        RootObject(nested=NestedObject(foo="qux", bar=False)),
    ]
    """This tests that slice and object defaulting can be performed."""
    kubernetes_defaulted_empty_slice: Annotated[
        list[str], op.Default([]), op.Required()
    ] = []
    """This tests that empty slice defaulting can be performed."""
    kubernetes_defaulted_empty_map: Annotated[
        dict[str, str], op.Default({}), op.Required()
    ] = {}
    """This tests that an empty object defaulting can be performed on a map."""
    kubernetes_defaulted_empty_object: Annotated[
        EmpiableObject, op.Default({}), op.Required()
    ] = EmpiableObject()
    """This tests that an empty object defaulting can be performed on an object."""
    kubernetes_defaulted_ref: str = ""
    """This tests that use of +default=ref(...) doesn't break generation"""
    pattern_object: Annotated[
        str,
        op.Pattern(
            r"^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$"
        ),
    ]
    """This tests that pattern validator is properly applied."""
    embedded_resource: Annotated[op.RawExtension, op.EmbeddedResource()]
    unpruned_json: Annotated[NestedObject, op.PreserveUnknownFields()] = Field(
        alias="unprunedJSON"
    )
    unpruned_embedded_resource: Annotated[
        op.RawExtension, op.PreserveUnknownFields(), op.EmbeddedResource()
    ]
    unpruned_from_type: Preserved = Field(alias="unprunedFomType")
    """This tests that a type-level pruning marker works."""
    unpruned_from_type_and_field: Annotated[Preserved, op.PreserveUnknownFields()] = (
        Field(alias="unprunedFomTypeAndField")
    )
    """This tests that a type-level pruning marker combined with a field-level pruning marker works."""
    associative_list: Annotated[
        list[AssociativeType],
        op.ListType("map"),
        op.ListMapKey("name"),
        op.ListMapKey("secondary"),
    ]
    """This tests that associative lists work."""
    k8s_associative_list: Annotated[
        list[AssociativeType], op.ListType("map"), op.ListMapKey("name")
    ]
    """This tests that associative lists work using the +k8s:listType alias."""
    k8s_set_list: Annotated[list[str], op.ListType("set")] = []
    """This tests that +k8s:listType=set works."""
    k8s_atomic_list: Annotated[list[str], op.ListType("atomic")] = []
    """This tests that +k8s:listType=atomic works."""
    nested_associative_list: NestedAssociativeList = Field(
        alias="nestedassociativeList"
    )
    """This tests that associative lists work via a nested type."""
    k8s_nested_associative_list: NestedAssociativeList
    """This tests that associative lists work via a nested type using the +k8s:listType alias."""
    map_of_info: Annotated[dict[str, op.Bytes], op.MapType("granular")]
    """A map that allows different actors to manage different fields"""
    nested_map_of_info: NestedMapOfInfo
    """A map that allows different actors to manage different fields via a nested type."""
    struct_with_several_fields: Annotated[NestedObject, op.StructType("atomic")]
    """A struct that can only be entirely replaced"""
    nested_struct_with_several_fields: NestedStructWithSeveralFields
    """A struct that can only be entirely replaced via a nested type."""
    nested_struct_with_several_fields_double_marked: Annotated[
        NestedStructWithSeveralFields, op.StructType("atomic")
    ]
    """A struct that can only be entirely replaced via a nested type and
    field markers."""
    just_nested_object: JustNestedObject | None = None
    """This tests that type references are properly flattened"""
    explicitly_optional_kubebuilder: Annotated[str, op.Optional()]
    """This tests explicitly optional kubebuilder fields"""
    explicitly_optional_kubernetes: Annotated[str, op.Optional()]
    """This tests explicitly optional kubernetes fields"""
    explicitly_optional_k8s: Annotated[str, op.Optional()]
    """This tests explicitly optional k8s fields"""
    explicitly_required_kubebuilder: Annotated[str, op.Required()]
    """This tests explicitly required kubebuilder fields"""
    explicitly_required_kubernetes: Annotated[str, op.Required()]
    """This tests explicitly required kubernetes fields"""
    explicitly_required_k8s: Annotated[str, op.Required()]
    """This tests explicitly required k8s fields"""
    min_max_properties: MinMaxObject | None = None
    """This tests that min/max properties work"""
    schemaless: Annotated[op.Bytes, op.Schemaless(), op.Type("string")] | None = None
    """This tests that the schemaless marker works"""
    int_or_string_with_a_pattern: (
        Annotated[
            op.IntOrString,
            op.MaxLength(11),
            op.MinLength(2),
            op.Pattern(IntOrStringPattern),
        ]
        | None
    ) = None
    """This tests that an IntOrString can also have string validation.
    This can be useful if you want to limit the string to a percentage or integer.
    The XIntOrString marker is a requirement for having a pattern on this type."""
    int_or_string_with_enum: (
        Annotated[op.IntOrString, op.Enum(1, 2, "foo", "bar")] | None
    ) = None
    """This tests that an IntOrString can have enum validation.
    The XIntOrString marker is required for applying enum to IntOrString."""
    nested_map: dict[str, dict[str, str]] = {}
    """Checks that nested maps work"""
    nested_nested_map: dict[str, dict[str, dict[str, str]]] = {}
    """Checks that multiply-nested maps work"""
    contains_nested_map_map: dict[str, ContainsNestedMap] = Field(
        default={}, alias="nestedMapInStruct"
    )
    """Checks that maps containing types that contain maps work"""
    map_of_arrays_of_floats: dict[str, list[bool]] = {}
    """Maps of arrays of things-that-aren’t-strings are permitted"""  # noqa: RUF001
    map_of_text_marshaler_keys: dict[str, str] = {}
    """Maps keyed by a type that implements encoding.TextMarshaler are permitted,
    since such keys serialize to strings (just like TextMarshaler fields do)."""
    float_with_validations: Annotated[
        op.Float, op.Minimum(-0.5), op.Maximum(1.5), op.MultipleOf(0.5)
    ]
    float64_with_validations: Annotated[
        op.Float, op.Minimum(-0.5), op.Maximum(1.5), op.MultipleOf(0.5)
    ]
    int_with_validations: Annotated[
        int, op.Minimum(-2), op.Maximum(2), op.MultipleOf(2)
    ]
    int32_with_validations: Annotated[
        int, op.Format("int32"), op.Minimum(-2), op.Maximum(2), op.MultipleOf(2)
    ]
    _unexported_field: str = PrivateAttr("")
    string_with_even_length: Annotated[
        str,
        op.Rule("self.size() % 2 == 0", message="must have even length"),
        op.Rule("true"),
    ] = ""
    """Test of the expression-based validation rule marker, with optional message."""
    string_with_even_length_and_message_expression: Annotated[
        str,
        op.Rule(
            "self.size() % 2 == 0",
            message_expression="self + ' has odd length, must be even'",
        ),
    ] = ""
    """Test of the expression-based validation with messageExpression marker.
    Due to a bug in the cost calculation we can not include the lenght in the message expression:
    https://github.com/kubernetes/kubernetes/issues/124234"""
    string_with_even_length_and_good_prefix: (
        Annotated[
            StringEvenType,
            op.Rule("self.startsWith('good-')", message="must have good prefix"),
        ]
        | None
    ) = None
    """Test of the expression-based validation on both field and type."""
    forbidden_int: int | None = None
    """Test that we can add a forbidden field using XValidation Reason and FieldPath.
    The validation is applied to the spec struct itself and not the field."""
    array: list[int] = []
    """Checks that fixed-length arrays work"""
    array_using_composite_literal: list[str] = []
    """Checks that arrays work when the type contains a composite literal"""
    hosts: (
        Annotated[
            list[str],
            op.MinItems(1),
            op.Items(
                op.MinLength(1),
                op.MaxLength(255),
                op.Pattern(
                    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
                ),
            ),
            op.ListType("set"),
        ]
        | None
    ) = None
    """This tests string slice item validation."""
    enum_slice: Annotated[list[int], op.Items(op.Enum(0, 1, 3))] = []
    """This tests slice item validation with enum"""
    hosts_alias: Hosts | None = None
    alias_from_package: str = ""
    """This tests that alias imported from a package is handled correctly. The
    corev1.IPFamilyPolicyType is just reused since it's available from
    imported package. We can create our own in a separate package if needed."""
    string_alias: str = ""
    """This tests that string alias is handled correctly."""
    string_alias_ptr: str | None = None
    string_alias_added_validation: (
        Annotated[str, op.MinLength(1), op.MaxLength(255)] | None
    ) = None
    """This tests that validation on a string alias type is handled correctly."""
    string_alias_already_validated: StringAliasWithValidation | None = None
    """This tests that validation on a string alias type itself is handled correctly."""
    string_alias_with_added_title: Annotated[
        StringAliasWithTitle, op.Title("title on field")
    ] = ""
    """These test that title works on both a type and field, with field taking precedence."""
    string_alias_with_title: StringAliasWithTitle = ""
    string_pair: Annotated[list[str], op.MinItems(2), op.MaxItems(2)]
    """This tests string slice validation."""
    longer_string_array: Annotated[list[LongerString], op.MinItems(3)] | None = None
    """This tests string alias slice item validation."""
    int_or_string_array_with_a_pattern: Annotated[
        list[op.IntOrString],
        op.Items(op.MaxLength(10), op.MinLength(1), op.Pattern(IntOrStringPattern)),
    ] = []
    """This tests that a slice of IntOrString can also have string validation.
    This can be useful if you want to limit the string to a percentage or integer.
    The XIntOrString marker is a requirement for having a pattern on this type."""
    int_or_string_with_enum_slice: Annotated[
        list[op.IntOrString],
        op.Items(op.MaxLength(3), op.MinLength(1), op.Enum(1, 2, "foo", "bar")),
    ] = []
    """This tests that a slice of  IntOrString can also have enum validation.
    The XIntOrString marker is required for applying enum to IntOrString."""
    protocol: str = "TCP"
    """This tests that we can embed protocol correctly (without ending up with allOf).
    Context: https://github.com/kubernetes-sigs/controller-tools/issues/1027
    Defaults to "TCP"."""
    selectable_field_string: str = ""
    """This tests that selectable field."""
    only_allow_setting_on_update: (
        Annotated[
            int,
            op.Format("int32"),
            op.Rule(
                "oldSelf.hasValue() || self == 0",
                message="must be set to 0 on creation. can be set to any value on an update.",
                optional_old_self=True,
            ),
        ]
        | None
    ) = None
    """Test that we can add a field that can only be set to a non-default value on updates using XValidation OptionalOldSelf."""
    locally_bounded_integer: (
        Annotated[int, op.Format("int32"), op.Minimum(1), op.Maximum(10)] | None
    ) = None
    """This tests that unmarkered types are handled correctly.
    When markers are applied at the field level instead of the type level."""
    locally_bounded_string: Annotated[str, op.MinLength(1), op.MaxLength(10)] | None = (
        None
    )
    """This tests that unmarkered types are handled correctly.
    When markers are applied at the field level instead of the type level."""
    field_level_alias_override: (
        Annotated[StringAliasWithValidation, op.MinLength(10), op.MaxLength(10)] | None
    ) = None
    """This tests that field-level overrides are handled correctly
    for local type aliases."""
    field_level_local_declaration_override: (
        Annotated[LongerString, op.MinLength(10), op.MaxLength(10)] | None
    ) = None
    """This tests that field-level overrides are handled correctly
    for local type declarations."""


class Url(op.Model):
    scheme: str = ""
    host: str = ""
    path: str = ""


class CronJobStatus(op.Model):
    """CronJobStatus defines the observed state of CronJob"""

    active: list[op.ObjectReference] = []
    """A list of pointers to currently running jobs."""
    last_schedule_time: op.Time | None = None
    """Information when was the last time the job was successfully scheduled."""
    last_schedule_time2: (
        Annotated[datetime.datetime, op.Type("integer"), op.Format("int64")] | None
    ) = None
    """Information when was the last time the job was successfully scheduled."""
    last_schedule_micro_time: op.MicroTime | None = None
    """Information about the last time the job was successfully scheduled,
    with microsecond precision."""
    last_active_log_url: Annotated[Url, op.Type("string")] | None = Field(
        default=None, alias="lastActiveLogURL"
    )
    """LastActiveLogURL specifies the logging url for the last started job"""
    last_active_log_url2: Annotated[Url, op.Type("string")] | None = Field(
        default=None, alias="lastActiveLogURL2"
    )
    """LastActiveLogURL2 specifies the logging url for the last started job"""
    last_active_log_url3: str | None = Field(default=None, alias="lastActiveLogURL3")
    """LastActiveLogURL3 specifies the logging url for the last started job"""
    last_active_log_url4: str | None = Field(default=None, alias="lastActiveLogURL4")
    """LastActiveLogURL4 specifies the logging url for the last started job"""


@op.kind(group=GROUP, version="v1", singular="mycronjob")
@op.subresource_status()
@op.storage_version()
@op.crd_metadata(
    annotations={
        "api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/controller-tools",
        "cert-manager.io/inject-ca-from-secret": "cert-manager/cert-manager-webhook-ca",
    }
)
@op.selectable_field(".spec.selectableFieldString")
class CronJob(op.CustomResource[CronJobSpec | None, CronJobStatus]):
    """CronJob is the Schema for the cronjobs API"""
