"""The intermediate representation between loading and rendering.

Plain frozen dataclasses, no I/O, no knowledge of Pydantic's JSON schema. The
load stage builds them from user modules; the schema stage reads the model
classes they point at; the render stage turns them into files.
"""

from opgen.model.kinds import (
    Kind,
    KindNames,
    KindVersion,
    PrinterColumn,
    ScaleSubresource,
    Scope,
    SourceRef,
)
from opgen.model.rbac import RbacRule

__all__ = [
    "Kind",
    "KindNames",
    "KindVersion",
    "PrinterColumn",
    "RbacRule",
    "ScaleSubresource",
    "Scope",
    "SourceRef",
]
