"""The one registry of opgen markers: every marker class `opgen.api` defines.

Every marker class is listed here explicitly, grouped by where it stands.
Nothing registers itself at import time; the schema stage asks this registry
whether an `Annotated` metadata object is an opgen marker, a known Pydantic
constraint, or something opgen does not understand (an error, not a silent
no-op). Not for types files: the generator and opgen's docs tests read it.
"""

from __future__ import annotations

from opgen.api import (
    _cel,
    _inapplicable,
    _junctors,
    _meta,
    _shape,
    _structure,
    _validation,
)
from opgen.engine import kinds
from opgen.engine.registry import MarkerRegistry

__all__ = ["default_registry"]


def default_registry() -> MarkerRegistry:
    """All markers opgen understands."""
    return MarkerRegistry(
        markers=(
            # value validation
            _validation.Minimum,
            _validation.Maximum,
            _validation.ExclusiveMinimum,
            _validation.ExclusiveMaximum,
            _validation.MultipleOf,
            _validation.MinLength,
            _validation.MaxLength,
            _validation.Pattern,
            _validation.Format,
            _validation.Enum,
            _shape.MinItems,
            _shape.MaxItems,
            _shape.UniqueItems,
            _shape.MinProperties,
            _shape.MaxProperties,
            _shape.Type,
            _shape.Nullable,
            _junctors.OneOf,
            _junctors.AnyOf,
            _junctors.AllOf,
            _junctors.Not,
            _inapplicable.InapplicableKeywords,
            # structure
            _structure.Required,
            _structure.Optional,
            _structure.Default,
            _structure.Example,
            _structure.Title,
            _structure.Undescribed,
            _structure.ExternalDocs,
            _structure.EmbeddedResource,
            _meta.EmbeddedObjectMeta,
            _structure.PreserveUnknownFields,
            _structure.Schemaless,
            _structure.ListType,
            _structure.ListMapKey,
            _structure.MapType,
            _structure.StructType,
            _structure.Items,
            # CEL
            _cel.Rule,
            _cel.Immutable,
            _cel.AtMostOneOf,
            _cel.ExactlyOneOf,
            _cel.AtLeastOneOf,
            # kind level
            kinds.KindDecl,
            kinds.SubresourceStatus,
            kinds.SubresourceScale,
            kinds.PrintColumn,
            kinds.StorageVersion,
            kinds.UnservedVersion,
            kinds.DeprecatedVersion,
            kinds.SkipVersion,
            kinds.SelectableField,
            kinds.CrdMetadata,
        )
    )
