"""Turning stored JSON into a kind's Python objects, and the outcome when it does not fit.

The API server never validates what it has stored again: an object created
under an older CRD schema, converted between versions, kept under
`x-kubernetes-preserve-unknown-fields` or written while a rule was loosened
can hold values the operator's current model refuses. Decoding is therefore a
step with an outcome of its own:

- A user model (Pydantic) is validated at the first read of each stored version
  (`Decoder.read(entry)`, which keeps the outcome in the store's entry), not
  when the informer stores it, so a version nothing reads (a status change the
  predicates filter out, one replaced before a reconcile) is never validated.
  The first read hands out the object it validated and keeps only that it is
  valid: most stored versions are read once (a reconcile, then a write that
  replaces them), and a copy taken for a read that never comes cost a pickle
  per version (about half a validation) and its bytes in the store. The second
  read validates again and keeps a pickle of that object (`Decoder.prepare(raw)`
  makes one directly); an object that does not fit is kept as its problems
  (`Undecodable`). CEL rules (`op.Rule`) are not evaluated again: the server
  judged the object when it was written (`rules_skipped`).
- `Decoder.fresh(raw, prepared)` runs on every later cached read. A kept pickle is
  unpickled: a fresh, mutable tree (reconcilers may change what they read), built
  without validating again — cheaper than `model_validate_json`
  (`python -m benchmarks cached_read` prints the figures). An object that does
  not fit raises `DecodeError`.
- `DecodeError` names the object (kind, namespace, name, resourceVersion) and
  each field and rule that failed (`problems`), and carries what is needed to act
  on it anyway: the stored data (`data`) and a partial decode
  (`partial(Kind)`: the metadata and every top-level field that validates on its
  own), enough to release a finalizer or write a status condition.
- `decode(rtype, raw)` decodes an answer of the API server (uncached reads,
  write answers) with the same error.

Built-in kinds (`op.k8s.Deployment`, ...) are different: the API server
validates them itself, so their objects are made from the JSON on every read
without opgen's checks (`opgen.runtime.construct`), which is cheaper than
unpickling.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import pickle
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, cast

import msgspec
from pydantic import BaseModel, TypeAdapter, ValidationError

from opgen.engine.cel.rules import rules_skipped
from opgen.runtime import resources
from opgen.runtime.resources import ResourceType
from opgen.runtime.store import UNREAD, Entry

__all__ = [
    "DecodeError",
    "Decoder",
    "FieldProblem",
    "Undecodable",
    "decode",
    "decode_dict",
    "problems_of",
    "refresh",
]

T = TypeVar("T")

_SHOWN_PROBLEMS = 3
"""Problems spelled out in a DecodeError's message; the rest are counted."""


@dataclass(frozen=True)
class FieldProblem:
    """One reason a stored object does not fit its model."""

    path: str
    """The field, in wire names: `spec.workers[0].replicas` ("" for the whole object)."""
    rule: str
    """What refused it: the opgen marker (`op.Minimum(1)`), else Pydantic's error
    type (`int_parsing`, `missing`, ...), else the exception's class."""
    message: str
    """What is wrong: `must be greater than or equal to 1`."""
    value: Any = None
    """The stored value (None when the field is missing)."""

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        got = "" if self.rule == "missing" else f"; got {_short(self.value)}"
        return f"{where}{self.message} ({self.rule}{got})"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _path(loc: Sequence[int | str]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def problems_of(error: Exception) -> tuple[FieldProblem, ...]:
    """What a failed decode says, one `FieldProblem` per field."""
    if isinstance(error, ValidationError):
        problems = []
        for item in error.errors(include_url=False):
            context = item.get("ctx") or {}
            marker = context.get("marker")
            problems.append(
                FieldProblem(
                    path=_path(item["loc"]),
                    rule=str(marker) if marker else item["type"],
                    message=str(context.get("problem") or item["msg"]),
                    value=None if item["type"] == "missing" else item.get("input"),
                )
            )
        return tuple(problems)
    return (FieldProblem(path="", rule=type(error).__name__, message=str(error)),)


class DecodeError(Exception):
    """A stored object does not fit its kind's Python model.

    Raised by reads (cached and uncached) of that object, and the reconcile
    outcome when uncaught: one log line, an Event on the object, a metric, and
    no retry until the object changes. `problems` says which fields and rules;
    `data` is the object as stored; `partial(Kind)` decodes what still fits."""

    def __init__(
        self,
        rtype: ResourceType[Any],
        raw: bytes,
        problems: tuple[FieldProblem, ...],
    ) -> None:
        meta = _metadata(raw)
        self._rtype = rtype
        self._raw = raw
        self.model: type[Any] = rtype.cls
        """The class the object was decoded as (pass it to `partial`)."""
        self.kind = rtype.kind
        self.api_version = rtype.api_version
        self.namespace: str | None = meta.get("namespace") or None
        self.name: str = meta.get("name") or ""
        self.uid: str = meta.get("uid") or ""
        self.resource_version: str = meta.get("resourceVersion") or ""
        self.problems = problems
        super().__init__(self._describe())

    @property
    def object_name(self) -> str:
        """`namespace/name`, or `name` for a cluster-scoped object."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def _describe(self) -> str:
        model = f"{self._rtype.cls.__module__}.{self._rtype.cls.__qualname__}"
        shown = "; ".join(str(p) for p in self.problems[:_SHOWN_PROBLEMS])
        more = len(self.problems) - _SHOWN_PROBLEMS
        if more > 0:
            shown += f"; and {more} more"
        return (
            f"{self.kind} {self.object_name} (resourceVersion {self.resource_version})"
            f" does not fit {model}: {shown}"
        )

    @property
    def data(self) -> dict[str, Any]:
        """The object as stored (wire form, a fresh dict on every access)."""
        return cast("dict[str, Any]", msgspec.json.decode(self._raw))

    @property
    def metadata(self) -> dict[str, Any]:
        """The object's metadata in wire form (camelCase keys)."""
        return cast("dict[str, Any]", self.data.get("metadata") or {})

    def partial(self, kind: type[T]) -> T:
        """The object with what still fits `kind`: its metadata, and each top-level
        field (`spec`, `status`, ...) that validates on its own; the others unset.

        Enough for every write that reads only kind, name and namespace (`patch`,
        `delete`, the finalizer helpers, Events), and for a status write:
        `obj.status = ...; await client.patch_status(obj)`. Rules that span
        fields (model validators) are not checked."""
        if kind is not self._rtype.cls:
            raise TypeError(
                f"this error is about a {self._rtype.cls.__qualname__}, "
                f"not a {getattr(kind, '__qualname__', kind)!r}"
            )
        return cast("T", _partial_model(cast("type[BaseModel]", kind), self.data))


def _metadata(raw: bytes) -> dict[str, Any]:
    try:
        data = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return {}
    meta = data.get("metadata") if isinstance(data, dict) else None
    return meta if isinstance(meta, dict) else {}


@functools.cache
def _field_adapter(cls: type[BaseModel], name: str) -> TypeAdapter[Any]:
    info = cls.model_fields[name]
    annotation: Any = info.annotation
    if info.metadata:
        params = (annotation, *info.metadata)
        annotation = Annotated[params]
    return TypeAdapter(annotation)


def _partial_model(cls: type[BaseModel], data: Mapping[str, Any]) -> BaseModel:
    values: dict[str, Any] = {}
    for name, info in cls.model_fields.items():
        key = info.alias or name
        if key not in data:
            continue
        try:
            values[name] = _field_adapter(cls, name).validate_python(data[key])
        except ValidationError:
            continue
    return cls.model_construct(**values)


def decode(rtype: ResourceType[T], raw: bytes) -> T:
    """Decode an object the API server sent; `DecodeError` when it does not fit."""
    try:
        with _decoding(rtype):
            return rtype.decode_json(raw)
    except Exception as error:  # a model's own validator may raise anything
        raise DecodeError(rtype, raw, problems_of(error)) from error


def decode_dict(rtype: ResourceType[T], data: Mapping[str, Any]) -> T:
    """`decode` for an object already parsed from JSON (a list item, a watch event)."""
    try:
        with _decoding(rtype):
            return rtype.decode_dict(data)
    except Exception as error:  # a model's own validator may raise anything
        raw = msgspec.json.encode(data)
        raise DecodeError(rtype, raw, problems_of(error)) from error


def _decoding(rtype: ResourceType[Any]) -> AbstractContextManager[object]:
    """The context a decode of `rtype` runs in: CEL rules skipped (the server
    judged the object when it was written); nothing for a built-in kind, whose
    decoders evaluate no rule (`resources`)."""
    return _NOTHING if rtype.builtin else rules_skipped()


_NOTHING = contextlib.nullcontext()


@dataclass(eq=False)
class Undecodable:
    """What the store keeps of an object that does not fit its model."""

    problems: tuple[FieldProblem, ...]
    reported: bool = False
    """Whether a skipped read (a list, an index, a Watches mapping) has logged it:
    that is done once per stored version."""


class _Valid:
    """What an entry keeps after the first read of a valid object: no copy yet."""

    def __repr__(self) -> str:
        return "VALID"


_VALID = _Valid()


@dataclass(frozen=True, eq=False)
class _Kept:
    """A validated object that cannot be pickled (a class defined inside a
    function): copied with deepcopy on each read."""

    obj: Any


class Decoder(Generic[T]):
    """Decodes one kind's stored objects: validated at the first read of each
    stored version, copied on every read."""

    def __init__(self, rtype: ResourceType[T]) -> None:
        self.rtype = rtype
        self._picklable = True

    def prepare(self, raw: bytes) -> object:
        """What a store entry keeps to hand out copies: a pickle of the validated
        object, None (a built-in kind, built from `raw` on read), or an
        `Undecodable` with the problems."""
        return self._validate(raw, copy_kept=True)[0]

    def _validate(self, raw: bytes, *, copy_kept: bool) -> tuple[object, T | None]:
        """What the entry keeps, and the validated object (None: a built-in kind,
        or one that does not fit). Without `copy_kept` a valid object keeps only
        `_VALID`, no copy."""
        if self.rtype.builtin:
            return None, None
        try:
            with rules_skipped():
                obj = self.rtype.decode_json(raw)
        except Exception as error:  # a model's own validator may raise anything
            return Undecodable(problems_of(error)), None
        if not copy_kept:
            return _VALID, obj
        if self._picklable:
            try:
                return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), obj
            except (pickle.PicklingError, TypeError, AttributeError):
                self._picklable = False
        return _Kept(copy.deepcopy(obj)), obj

    def read(self, entry: Entry) -> T:
        """A new object for a read of `entry`; its first read prepares it and keeps
        that in the entry. `DecodeError` when it does not fit. An object of a
        built-in kind is remembered as made from `entry.raw` (`resources.read_from`)."""
        prepared = entry.decoded
        if prepared is UNREAD or prepared is _VALID:
            # the first read keeps no copy; the second keeps one for the reads after
            # it, taken before anyone sees the object it hands out
            prepared, obj = self._validate(entry.raw, copy_kept=prepared is _VALID)
            entry.keep(prepared)
            if obj is not None:
                return obj
        obj = self.fresh(entry.raw, prepared)
        if prepared is None:  # a built-in kind's, made from the JSON as it is
            resources.remember_read(obj, entry.raw)
        return obj

    def fresh(self, raw: bytes, prepared: object) -> T:
        """A new object for a read of the entry (`raw`, and what `prepare` made of
        it); `DecodeError` when it does not fit."""
        if type(prepared) is bytes:
            return cast("T", pickle.loads(prepared))
        if prepared is None:
            return decode(self.rtype, raw)
        if prepared is _VALID:
            obj = self._validate(raw, copy_kept=False)[1]
            assert obj is not None
            return obj
        if isinstance(prepared, Undecodable):
            raise DecodeError(self.rtype, raw, prepared.problems)
        assert isinstance(prepared, _Kept)
        return cast("T", copy.deepcopy(prepared.obj))


def refresh(obj: T, rtype: ResourceType[T], raw: bytes) -> T:
    """Refresh `obj` in place from a write's answer. An answer that does not fit
    the model (the stored object no longer validates, or `obj` is a partial decode)
    refreshes the metadata alone: the write itself succeeded."""
    try:
        fresh = decode(rtype, raw)
    except DecodeError:
        meta = dict(_metadata(raw))
        meta.pop("managedFields", None)
        resources.set_metadata(obj, meta)
        resources.forget_read(obj)
        return obj
    resources.assign(obj, fresh)
    if rtype.builtin:  # now the object as the API server sent it, as a read's
        resources.remember_read(obj, raw)
    return obj
