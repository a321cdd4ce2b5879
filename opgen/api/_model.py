"""`op.Model`: a Pydantic model configured the way Kubernetes objects look.

snake_case attributes in Python, camelCase on the wire (explicit aliases win),
construction by either name, attribute docstrings as descriptions, unknown
fields from the server ignored rather than rejected, and every opgen marker that
constrains values enforced on the Python side as the API server enforces it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator
from typing_extensions import Self

from opgen.api._cel import enforce_rules
from opgen.api._enforce import enforce_model
from opgen.engine.naming import to_camel

__all__ = ["BuiltinModel", "Model"]


class Model(BaseModel):
    """Base class for the spec, status and nested types of a custom resource."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        use_attribute_docstrings=True,
        extra="ignore",
        protected_namespaces=(),
    )

    @model_validator(mode="after")
    def _opgen_markers(self) -> Self:
        enforce_model(self)
        enforce_rules(self)
        return self


class BuiltinModel(Model):
    """Base class of Kubernetes' own types in `opgen.api.k8s`.

    Those modules define about a thousand classes, and importing them is most
    of an operator's start-up. So Pydantic builds each class's validator when
    the class is first used, and does not read attribute docstrings (finding a
    class's source costs Pydantic more than the rest of building it). The
    setting is None, not False: like a model the loader imported, the schema
    stage reads these docstrings from the source when a CRD embeds the type.
    """

    model_config = ConfigDict(defer_build=True)
    model_config["use_attribute_docstrings"] = None  # type: ignore[typeddict-item]
