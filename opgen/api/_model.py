"""`op.Model`: a Pydantic model configured the way Kubernetes objects look.

snake_case attributes in Python, camelCase on the wire (explicit aliases win),
construction by either name, unknown fields from the server ignored rather than
rejected, and every opgen marker that constrains values enforced on the Python
side as the API server enforces it. Attribute docstrings are the CRD's
descriptions: the generator reads them from the source (`opgen.load.docstrings`),
so an operator, which imports its types at every start, never does.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, model_validator
from pydantic_core import CoreSchema, PydanticUndefined, SchemaValidator
from typing_extensions import Self

from opgen.api._cel import enforce_rules, rules_empty
from opgen.api._enforce import model_check
from opgen.engine.naming import to_camel

__all__ = ["BuiltinModel", "Model", "settle_checks"]

_CHECKS = "__opgen_checks__"
"""Set on a model class: what its instances are checked by after validation,
`model_check`'s and `enforce_rules` or the one of them it needs (most models
need neither)."""

_DEFINED = "__opgen_defined__"
"""Set on a model class when its class statement has run: a schema built for
it from then on is built for a use of the class, its decorators applied."""

Check = Callable[[Any], None]


class Model(BaseModel):
    """Base class for the spec, status and nested types of a custom resource."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="ignore",
        protected_namespaces=(),
    )
    # None, not False: Pydantic reads no attribute docstrings (finding a class's
    # source costs it more than building the class), and the schema stage reads
    # them from the source instead, as a CRD's descriptions. A model that sets
    # True has Pydantic read them; False: it has none.
    model_config["use_attribute_docstrings"] = None  # type: ignore[typeddict-item]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        type.__setattr__(cls, _DEFINED, True)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[BaseModel], handler: GetCoreSchemaHandler, /
    ) -> CoreSchema:
        if source is cls and cls.__dict__.get(_DEFINED):
            _drop_empty_check(cls)
        return handler(source)

    @model_validator(mode="after")
    def _opgen_markers(self) -> Self:
        cls = type(self)
        checks: tuple[Check, ...] | None = cls.__dict__.get(_CHECKS)
        if checks is None:
            # most models (a pod template's dozens) have nothing to enforce: found once
            checks = _checks(cls)
            if not checks:
                _drop_empty_check(cls)
        for check in checks:
            check(self)
        return self

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """Pydantic's deep copy, with the fields' plain dicts, lists and scalars
        copied here rather than through `copy.deepcopy`'s generic dispatch, which
        was most of the cost of copying a pod template."""
        if memo is None:
            memo = {}
        cls = type(self)
        duplicate = cls.__new__(cls)
        memo[id(self)] = duplicate
        setattr_ = object.__setattr__
        setattr_(duplicate, "__dict__", _copied_fields(self.__dict__, memo))
        extra = self.__pydantic_extra__
        if extra is not None:
            extra = _copied(extra, memo)
        setattr_(duplicate, "__pydantic_extra__", extra)
        setattr_(
            duplicate, "__pydantic_fields_set__", set(self.__pydantic_fields_set__)
        )
        private = getattr(self, "__pydantic_private__", None)
        if private is not None:
            private = copy.deepcopy(
                {k: v for k, v in private.items() if v is not PydanticUndefined},
                memo,
            )
        setattr_(duplicate, "__pydantic_private__", private)
        return duplicate


def _checks(cls: type) -> tuple[Check, ...]:
    """What checks instances of `cls`: `model_check`'s check unless it has no
    model-level marker, `enforce_rules` unless it has no CEL rule; kept on the
    class."""
    markers = model_check(cls)
    checks: tuple[Check, ...] = (
        *(() if markers is None else (markers,)),
        *(() if rules_empty(cls) else (enforce_rules,)),
    )
    type.__setattr__(cls, _CHECKS, checks)
    return checks


_ATOMS = frozenset({str, int, float, bool, bytes, type(None)})


def _copied_fields(values: dict[str, Any], memo: dict[int, Any]) -> dict[str, Any]:
    """A model's `__dict__`, deep-copied: its keys are field names, and most of
    its values None (a pod spec's forty fields), passed over without a lookup."""
    duplicate = values.copy()
    atoms = _ATOMS
    for key, item in values.items():
        if item is not None and type(item) not in atoms:
            duplicate[key] = _copied(item, memo)
    return duplicate


def _copied_dict(
    value: dict[Any, Any], duplicate: dict[Any, Any], memo: dict[int, Any]
) -> dict[Any, Any]:
    """Fill `duplicate`, a shallow copy of `value`, with deep copies: most items
    are None, strings and numbers, kept as they are without a call each."""
    atoms = _ATOMS
    for key, item in value.items():
        if type(key) not in atoms:
            duplicate.clear()
            for k, v in value.items():
                duplicate[_copied(k, memo)] = _copied(v, memo)
            break
        if type(item) not in atoms:
            duplicate[key] = _copied(item, memo)
    return duplicate


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy(value, memo)`, quicker for exact dicts, lists and scalars."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    if kind is dict:
        found = memo[id(value)] = value.copy()
        return _copied_dict(value, found, memo)
    if kind is list:
        found = memo[id(value)] = []
        atoms = _ATOMS
        found.extend(
            item if type(item) in atoms else _copied(item, memo) for item in value
        )
        return found
    if isinstance(value, Model):
        return value.__deepcopy__(memo)
    return copy.deepcopy(value, memo)


class BuiltinModel(Model):
    """Base class of Kubernetes' own types in `opgen.api.k8s`.

    Those modules define about a thousand classes, and importing them is most
    of an operator's start-up. So Pydantic builds each class's validator when
    the class is first used (by then without `_opgen_markers` if it has
    nothing to enforce, as every model's).
    """

    model_config = ConfigDict(defer_build=True)


def settle_checks(cls: type) -> None:
    """Decide now, not at the first use of `cls` (an `op.Model` class whose
    decorators have run), whether its validator keeps `_opgen_markers`."""
    if isinstance(cls, type) and issubclass(cls, Model) and cls.__dict__.get(_DEFINED):
        _drop_empty_check(cls)


def _drop_empty_check(cls: type[BaseModel]) -> None:
    """Leave `_opgen_markers` out of `cls`'s validator when it has nothing to
    enforce, once its class statement and decorators have run: when the class
    is first used, alone or inside another model's schema.

    The validator it was built with at its class statement, before the
    decorators that may give it markers and rules, loses it (`_unwrapped`, or
    built again from the class); a `BuiltinModel` is built at its first use,
    so without it from the start. Its subclasses still get it, from `Model`'s
    decorators, and decide for themselves.
    """
    validators = cls.__pydantic_decorators__.model_validators
    if "_opgen_markers" not in validators:
        return
    checks = cls.__dict__.get(_CHECKS)
    if checks is None:
        if not cls.__pydantic_fields_complete__:
            return  # its markers are not all known yet: decided at its first instance
        checks = _checks(cls)
    if checks:
        return
    validators.pop("_opgen_markers", None)
    if cls.__pydantic_complete__ and not _unwrapped(cls):
        cls.model_rebuild(force=True, _parent_namespace_depth=0)


def _unwrapped(cls: type[BaseModel]) -> bool:
    """Take `_opgen_markers`, the outermost validator of `cls`'s built core
    schema, off it, and build its validator from what is left; False when the
    schema is not laid out so (then it is built again from the class).

    Building it again from the class would build again the schemas of the
    `op.k8s` classes it nests (a pod template's, 50 ms), which Pydantic keeps
    only inside the schemas of the classes that nest them."""
    schema: Any = cls.__dict__.get("__pydantic_core_schema__")
    if not isinstance(schema, dict):
        return False
    root = schema["schema"] if schema.get("type") == "definitions" else schema
    function = root.get("function")
    if not (
        root.get("type") == "function-after"
        and isinstance(function, dict)
        and function.get("function") is _OPGEN_MARKERS
    ):
        return False
    inner = dict(root["schema"])
    if "ref" in root:
        inner["ref"] = root["ref"]
    if "metadata" in root:
        inner["metadata"] = {**inner.get("metadata", {}), **root["metadata"]}
    schema = inner if root is schema else {**schema, "schema": inner}
    type.__setattr__(cls, "__pydantic_core_schema__", schema)
    # the model's own config, as Pydantic gives it to the validator it builds
    validator = SchemaValidator(schema, inner.get("config"))
    type.__setattr__(cls, "__pydantic_validator__", validator)
    return True


_OPGEN_MARKERS = Model.__dict__["_opgen_markers"]
"""The function `_opgen_markers` stands for in a core schema."""
