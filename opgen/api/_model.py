"""`op.Model`: a Pydantic model configured the way Kubernetes objects look.

snake_case attributes in Python, camelCase on the wire (explicit aliases win),
construction by either name, attribute docstrings as descriptions, unknown
fields from the server ignored rather than rejected.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from opgen.api.naming import to_camel

__all__ = ["Model"]


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
