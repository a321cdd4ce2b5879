"""Everything a user imports in a types file: `import opgen.api as op`.

- `op.Model`, `op.CustomResource[Spec, Status]`: Pydantic models shaped like
  Kubernetes objects.
- Kind-level decorators: `op.kind`, `op.subresource_status`,
  `op.subresource_scale`, `op.print_column`, `op.storage_version`,
  `op.unserved_version`, `op.deprecated_version`, `op.skip_version`,
  `op.selectable_field`, `op.crd_metadata`.
- Field and type markers for `Annotated[...]` (or as class decorators):
  validation (`Minimum`, `MaxLength`, `Pattern`, `Enum`, ...), structure
  (`Required`, `Default`, `ListType`, `Items`, ...), CEL (`Rule`, `Immutable`,
  `ExactlyOneOf`, ...).
- Kubernetes value types: `Quantity`, `IntOrString`, `Time`, `MicroTime`,
  `Duration`, `RawExtension`, `JSON`, `Bytes`, `Float`, `ObjectMeta`,
  `Condition`, `Conditions`, `ObjectReference`, `LocalObjectReference`,
  `OwnerReference`.
- `op.rbac` for reconcilers; `op.webhook` and `op.conversion` for webhook
  handlers.
- `op.k8s`: Kubernetes' own types (`op.k8s.PodTemplateSpec`, ...), imported
  on first use (docs/core-types.md).

`__all__` holds only what a types file or a reconciler uses; docs/markers.md
describes each name. The markers are built on the machinery of
`opgen.engine` (internal: the `Marker` base class, placements, the Go and
Kubernetes value rules, and `opgen.engine.reading`, through which the
generator and the runtime read markers back). `opgen.api.registry` lists every
marker class for the generator. The `_`-prefixed modules are private to this
package (an import-linter contract holds it). This package never imports the
generator.
"""

from typing import TYPE_CHECKING

from opgen.api._cel import (
    AtLeastOneOf,
    AtMostOneOf,
    ExactlyOneOf,
    Immutable,
    Rule,
    RuleCause,
    failed_rules,
    rule_causes,
    validate_update,
)
from opgen.api._inapplicable import InapplicableKeywords
from opgen.api._junctors import AllOf, AnyOf, Not, OneOf
from opgen.api._kind import (
    crd_metadata,
    deprecated_version,
    kind,
    print_column,
    selectable_field,
    skip_version,
    storage_version,
    subresource_scale,
    subresource_status,
    unserved_version,
)
from opgen.api._lookup import unknown_name
from opgen.api._meta import (
    Condition,
    Conditions,
    EmbeddedObjectMeta,
    LocalObjectReference,
    ObjectMeta,
    ObjectReference,
    OwnerReference,
)
from opgen.api._model import Model
from opgen.api._rbac import rbac
from opgen.api._resource import CustomResource
from opgen.api._shape import (
    MaxItems,
    MaxProperties,
    MinItems,
    MinProperties,
    Nullable,
    Type,
    UniqueItems,
)
from opgen.api._structure import (
    Default,
    EmbeddedResource,
    Example,
    ExternalDocs,
    Items,
    ListMapKey,
    ListType,
    MapType,
    Optional,
    PreserveUnknownFields,
    Required,
    Schemaless,
    StructType,
    Title,
    Undescribed,
)
from opgen.api._types import (
    JSON,
    Bytes,
    Duration,
    Float,
    IntOrString,
    MicroTime,
    Quantity,
    RawExtension,
    Time,
    quantity_amount,
)
from opgen.api._validation import (
    Enum,
    ExclusiveMaximum,
    ExclusiveMinimum,
    Format,
    Maximum,
    MaxLength,
    Minimum,
    MinLength,
    MultipleOf,
    Pattern,
)
from opgen.api._webhook import conversion, webhook

if TYPE_CHECKING:
    from opgen.api import k8s


__all__ = [
    "JSON",
    "AllOf",
    "AnyOf",
    "AtLeastOneOf",
    "AtMostOneOf",
    "Bytes",
    "Condition",
    "Conditions",
    "CustomResource",
    "Default",
    "Duration",
    "EmbeddedObjectMeta",
    "EmbeddedResource",
    "Enum",
    "ExactlyOneOf",
    "Example",
    "ExclusiveMaximum",
    "ExclusiveMinimum",
    "ExternalDocs",
    "Float",
    "Format",
    "Immutable",
    "InapplicableKeywords",
    "IntOrString",
    "Items",
    "ListMapKey",
    "ListType",
    "LocalObjectReference",
    "MapType",
    "MaxItems",
    "MaxLength",
    "MaxProperties",
    "Maximum",
    "MicroTime",
    "MinItems",
    "MinLength",
    "MinProperties",
    "Minimum",
    "Model",
    "MultipleOf",
    "Not",
    "Nullable",
    "ObjectMeta",
    "ObjectReference",
    "OneOf",
    "Optional",
    "OwnerReference",
    "Pattern",
    "PreserveUnknownFields",
    "Quantity",
    "RawExtension",
    "Required",
    "Rule",
    "RuleCause",
    "Schemaless",
    "StructType",
    "Time",
    "Title",
    "Type",
    "Undescribed",
    "UniqueItems",
    "conversion",
    "crd_metadata",
    "deprecated_version",
    "failed_rules",
    "k8s",
    "kind",
    "print_column",
    "quantity_amount",
    "rbac",
    "rule_causes",
    "selectable_field",
    "skip_version",
    "storage_version",
    "subresource_scale",
    "subresource_status",
    "unserved_version",
    "validate_update",
    "webhook",
]

if not TYPE_CHECKING:  # mypy keeps reporting unknown names itself

    def __getattr__(name: str) -> object:
        # `op.k8s` holds hundreds of models: imported when first used, not with `op`.
        if name == "k8s":
            # `import a.b` imports the submodule without looking the attribute up
            # here first (`from opgen.api import k8s` would call back into this).
            import opgen.api.k8s

            return opgen.api.k8s
        raise unknown_name(name, __all__)
