"""The models IR (`opgen.model.openapi`) → Python modules of `op.Model` classes.

`render_module(module, models, header=...)` writes one module: a
`TypeAliasType` for each documented named scalar, then one class per model,
in name order (with `evaluated_annotations`, each after the classes it refers
to), and last the kinds (models with a `resource`: `op.CustomResource`
subclasses with `@op.kind` and the other kind-level decorators, whose type
parameters are their `spec` and `status`); each
schema fact becomes the opgen marker that writes it back (`maxLength` →
`op.MaxLength`, `x-kubernetes-list-type` → `op.ListType`, ...: the markers
found and written from the marker registry by `opgen.render.spelling`), so a CRD
generated from the classes carries the schema the IR was read from.
Descriptions become docstrings, wire names that `op.Model`'s camelCase rule
would not produce become aliases, and references to models of other modules
import those modules. A fact without a marker is an error, never dropped.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import keyword
import textwrap
from dataclasses import dataclass, field
from typing import Any

from opgen import api as op
from opgen.api import InapplicableKeywords
from opgen.engine.markers import Marker
from opgen.engine.naming import pluralize, to_camel
from opgen.errors import SchemaError
from opgen.model.kinds import BuiltinResource
from opgen.model.openapi import (
    NO_DEFAULT,
    AliasDecl,
    FieldDecl,
    KnownType,
    ListOf,
    MapOf,
    ModelDecl,
    ModelRef,
    ModelSet,
    ModuleDecl,
    Node,
    ResourceDecl,
    Scalar,
    Shape,
    Untyped,
    walk,
)
from opgen.render.spelling import BY_KEYWORD, exclusive_flags, markers_for, spell
from opgen.render.templating import render, render_statement
from opgen.render.views import (
    ModelAliasView,
    ModelClassView,
    ModelFieldView,
    ModelsModuleView,
)

__all__ = ["import_order", "module_docstring", "render_module"]

_EMPTY: tuple[Any, ...] = ("", [], {})
_WRITING_ORDER: tuple[type[Marker], ...] = (
    op.Minimum,
    op.Maximum,
    op.Format,
    op.ListType,
    op.ListMapKey,
    op.MapType,
    op.MinLength,
    op.MaxLength,
    op.Pattern,
    op.Enum,
    op.MinItems,
    op.MaxItems,
    op.UniqueItems,
    op.MinProperties,
    op.MaxProperties,
    op.MultipleOf,
)
"""The order markers are written in, the order a person would write them; the
others follow in the schema's order. Only the order is the renderer's: each
marker's schema keyword is its class's own (`keyword`, through the registry)."""
_ORDER = {
    keyword: position
    for position, marker in enumerate(_WRITING_ORDER)
    for keyword, markers in BY_KEYWORD.items()
    if marker in markers
}


@dataclass
class _Module:
    """What rendering one module needs to know and collects on the way."""

    name: str
    models: ModelSet
    imports: dict[str, set[str]] = field(default_factory=dict)
    """Package → the modules of it this module imports."""
    uses_annotated: bool = False
    uses_literal: bool = False
    uses_field: bool = False
    uses_type_alias: bool = False
    defined: set[str] | None = None
    """With evaluated annotations, the keys of this module's classes defined
    so far: a reference to another is a forward one (None: postponed)."""
    forward: bool = False
    """Whether a reference since this was last cleared was a forward one."""

    def reference(self, key: str) -> str:
        target = self.models.named(key)
        if target.module == self.name:
            if self.defined is not None and isinstance(target, ModelDecl):
                self.forward |= target.key not in self.defined
            return target.name
        package, _, leaf = target.module.rpartition(".")
        self.imports.setdefault(package, set()).add(leaf)
        return f"{leaf}.{target.name}"

    def import_lines(self) -> list[str]:
        return [
            f"from {package} import {', '.join(sorted(leaves))}"
            for package, leaves in sorted(self.imports.items())
        ]


def render_module(
    module: ModuleDecl,
    models: ModelSet,
    *,
    header: str,
    base: str = "op.Model",
    base_from: str | None = None,
    evaluated_annotations: bool = False,
) -> str:
    """The black-formatted source of `module` (its models reference `models`);
    `base` is imported from the module `base_from` when one is given.

    With `evaluated_annotations`, the module does without `from __future__
    import annotations`: each class follows the classes it refers to, and only
    a field that refers to a class defined further down (a cycle) has its
    annotation written as a string. Pydantic then has no string to evaluate
    for the others when it makes the class, which is most of what importing
    a large module of models costs."""
    state = _Module(module.name, models)
    if base_from is not None and module.models:
        state.imports.setdefault(base_from, set()).add(base)
    aliases = [_alias_view(alias, state) for alias in module.aliases]
    ordered = sorted(module.models, key=lambda m: m.resource is not None)
    if evaluated_annotations:
        ordered = _definition_order(ordered)
        state.defined = set()
    classes = []
    for model in ordered:
        classes.append(
            _class_view(model, state, base)
            if model.resource is None
            else _kind_view(model, model.resource, state)
        )
        if state.defined is not None:
            state.defined.add(model.key)
    names = {c.name for c in classes} | {a.name for a in aliases}
    for reserved in (
        "op",
        "Annotated",
        "Literal",
        "Field",
        "TypeAliasType",
        "annotations",
    ):
        if reserved in names:
            raise SchemaError(
                f"{module.name}: a model named {reserved} would hide an import"
            )
    typing_names = ", ".join(
        name
        for name, used in (
            ("Annotated", state.uses_annotated),
            ("Literal", state.uses_literal),
        )
        if used
    )
    statements = [
        render_statement("models/alias.py.j2", module=alias) for alias in aliases
    ] + [render_statement("models/class.py.j2", module=cls) for cls in classes]
    view = ModelsModuleView(
        docstring=module_docstring(module.doc, header),
        postponed_annotations=not evaluated_annotations,
        typing_names=typing_names,
        uses_field=state.uses_field,
        uses_type_alias=state.uses_type_alias,
        uses_op=any(map(_refers_to_op, statements)),
        imports=tuple(state.import_lines()),
        aliases=tuple(aliases),
        classes=tuple(classes),
        exports=tuple(sorted(names)),
    )
    head = render("models/module.py.j2", module=view)
    return head + "".join(f"\n\n{statement}" for statement in statements)


def _refers_to_op(statement: str) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == "op"
        for node in ast.walk(ast.parse(statement))
    )


def _definition_order(ordered: list[ModelDecl]) -> list[ModelDecl]:
    """`ordered`, each model moved after the models of the module its fields
    refer to (depth first, in field order), as far as cycles allow."""
    module = {model.key: model for model in ordered}
    placed: list[ModelDecl] = []
    seen: set[str] = set()

    def place(model: ModelDecl) -> None:
        seen.add(model.key)
        for item in model.fields:
            for node in walk(item.node):
                key = node.shape.key if isinstance(node.shape, ModelRef) else None
                if key in module and key not in seen:
                    place(module[key])
        placed.append(model)

    for model in ordered:
        if model.key not in seen:
            place(model)
    return placed


def module_docstring(summary: str, text: str) -> str:
    """A module docstring: the summary line, then `text` wrapped at 79 columns."""
    paragraphs = [
        textwrap.fill(p, width=79, break_long_words=False, break_on_hyphens=False)
        for p in text.split("\n\n")
        if p.strip()
    ]
    body = "\n\n".join([p for p in (summary, *paragraphs) if p]).replace(
        '"""', '\\"\\"\\"'
    )
    return f'"""{body}\n"""' if "\n" in body else f'"""{body}"""'


def import_order(name: str) -> tuple[int, str, str]:
    """How isort (and ruff) order imported names: constants, classes, the rest,
    each case-insensitively."""
    group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return group, name.lower(), name


def _alias_view(alias: AliasDecl, state: _Module) -> ModelAliasView:
    expression, markers = _type_of(alias.node, state)
    arguments = [*markers]
    if alias.node.description:
        state.uses_field = True
        arguments.append(f"Field(description={_string(alias.node.description)})")
    if arguments:
        state.uses_annotated = True
        expression = f"Annotated[{expression}, {', '.join(arguments)}]"
    # A TypeAliasType is a named schema ($ref), so a field's own docstring wins
    # over the alias's description, as a Go field's doc wins over its type's.
    state.uses_type_alias = True
    return ModelAliasView(
        name=alias.name, value=f"TypeAliasType({_string(alias.name)}, {expression})"
    )


def _class_view(model: ModelDecl, state: _Module, base: str) -> ModelClassView:
    decorators = [_marker_text(m) for m in _markers(model.facts, "model", model.key)]
    fields = tuple(_field_view(model, item, state) for item in model.fields)
    if model.builtin is not None:
        state.imports.setdefault("opgen.engine.builtin", set()).add("resource")
        decorators.insert(0, _builtin_decorator(model.builtin))
        fields = tuple(_object_metadata(f, state) for f in fields)
    return ModelClassView(
        name=model.name,
        base=base,
        decorators=tuple(decorators),
        docstring=_docstring(model.description, "    "),
        fields=fields,
    )


def _builtin_decorator(builtin: BuiltinResource) -> str:
    """`resource(...)`: a built-in kind's facts from the server's discovery."""
    arguments = [
        f"group={_string(builtin.group)}",
        f"version={_string(builtin.version)}",
        f"plural={_string(builtin.plural)}",
    ]
    if not builtin.namespaced:
        arguments.append('scope="Cluster"')
    if builtin.subresources:
        arguments.append(
            "subresources=("
            + "".join(f"{_string(s)}, " for s in builtin.subresources).rstrip()
            + ")"
        )
    return f"resource({', '.join(arguments)})"


def _object_metadata(view: ModelFieldView, state: _Module) -> ModelFieldView:
    """A kind's `metadata`: an empty `ObjectMeta` when not given (every object
    has one), which the CRD of a type embedding the kind leaves optional."""
    if view.name != "metadata" or view.annotation != "op.ObjectMeta | None":
        return view
    state.uses_field = True
    return dataclasses.replace(
        view, annotation="op.ObjectMeta", default="Field(default_factory=op.ObjectMeta)"
    )


_TYPE_META = ("apiVersion", "kind", "metadata")
"""Root fields `op.CustomResource` declares itself."""


def _kind_view(
    model: ModelDecl, resource: ResourceDecl, state: _Module
) -> ModelClassView:
    """The root of a kind: `op.CustomResource[Spec, Status]` with its decorators."""
    fields = {item.wire_name: item for item in model.fields}
    parameters = []
    for name in ("spec", "status"):
        item = fields.get(name)
        if item is None:
            parameters.append("None")
            continue
        expression = _nested(item.node, state, f"{model.key}.{name}")
        if name == "spec" and not item.required:
            expression += " | None"
        parameters.append(expression)
    decorators = [*_kind_decorators(resource)]
    decorators += [_marker_text(m) for m in _markers(model.facts, "model", model.key)]
    own = tuple(
        _field_view(model, item, state)
        for item in model.fields
        if item.wire_name not in (*_TYPE_META, "spec", "status")
    )
    return ModelClassView(
        name=model.name,
        base=f"op.CustomResource[{', '.join(parameters)}]",
        decorators=tuple(decorators),
        docstring=_docstring(model.description, "    "),
        fields=own,
    )


def _kind_decorators(resource: ResourceDecl) -> list[str]:
    """`op.kind(...)` and the kind-level decorators that write the CRD's names,
    the version's flags, subresources, printer columns and selectable fields."""
    names, version = resource.names, resource.version
    markers: list[Marker] = [
        op.kind(
            group=resource.group,
            version=version.version,
            scope=resource.scope,
            plural=None if names.plural == pluralize(names.kind) else names.plural,
            singular=None if names.singular == names.kind.lower() else names.singular,
            short_names=names.short_names,
            categories=names.categories,
        )
    ]
    if resource.several_versions and version.storage:
        markers.append(op.storage_version())
    if not version.served:
        markers.append(op.unserved_version())
    if version.deprecated:
        markers.append(op.deprecated_version(version.deprecation_warning))
    if version.status_subresource:
        markers.append(op.subresource_status())
    if version.scale is not None:
        markers.append(
            op.subresource_scale(
                version.scale.spec_replicas_path,
                version.scale.status_replicas_path,
                version.scale.label_selector_path,
            )
        )
    markers += [
        op.print_column(
            column.name,
            column.type,
            column.json_path,
            description=column.description,
            format=column.format,
            priority=column.priority,
        )
        for column in version.printer_columns
    ]
    markers += [op.selectable_field(path) for path in version.selectable_fields]
    if resource.crd_annotations:
        markers.append(op.crd_metadata(annotations=dict(resource.crd_annotations)))
    return [_marker_text(marker) for marker in markers]


def _field_view(model: ModelDecl, item: FieldDecl, state: _Module) -> ModelFieldView:
    where = f"{model.key}.{item.wire_name}"
    node = item.node
    state.forward = False
    expression, markers = _type_of(node, state, where=where)
    forward = state.forward
    default = node.default
    if default is not NO_DEFAULT and (
        default in _EMPTY or _holds_classes(node, default)
    ):
        markers.append(f"op.Default({_literal(default)})")
    if item.required and default is not NO_DEFAULT:
        markers.append("op.Required()")
    if markers:
        state.uses_annotated = True
        expression = f"Annotated[{expression}, {', '.join(markers)}]"
    arguments: list[str] = []
    if default is not NO_DEFAULT:
        value: str | None = _python_value(node, default, state)
        if _holds_classes(node, default):
            # Made when a model is made: the class may be defined further down.
            arguments.append(f"default_factory=lambda: {value}")
        else:
            arguments.append(str(value))
    elif item.required:
        value = None
    else:
        expression = f"{expression} | None"
        value = "None"
        arguments.append(value)
    if to_camel(item.name) != item.wire_name or keyword.iskeyword(item.wire_name):
        arguments.append(f"alias={_string(item.wire_name)}")
    if len(arguments) == 1 and not arguments[0].startswith(("alias=", "default_")):
        value = arguments[0]
    elif arguments:
        state.uses_field = True
        value = f"Field({', '.join(arguments)})"
    return ModelFieldView(
        name=item.name,
        annotation=repr(expression) if forward else expression,
        default=value,
        docstring=_docstring(node.description, "    "),
    )


def _holds_classes(node: Node, value: Any) -> bool:
    """Whether the default `value` holds objects of classes: its Python value is
    then made of instances, whose serialised form may differ from the CRD's
    (the classes' own defaults filled in), so `op.Default` keeps the CRD's."""
    shape = node.shape
    if isinstance(shape, ModelRef | KnownType):
        return isinstance(value, dict)
    if isinstance(shape, ListOf) and isinstance(value, list):
        return any(_holds_classes(shape.item, item) for item in value)
    if isinstance(shape, MapOf) and isinstance(value, dict):
        return any(_holds_classes(shape.value, item) for item in value.values())
    return False


def _python_value(node: Node, value: Any, state: _Module) -> str:
    """A JSON default as a Python value of the node's type: objects of a class
    as instances (`Status(observed_generation=-1)`), not dict literals."""
    shape = node.shape
    model = state.models.named(shape.key) if isinstance(shape, ModelRef) else None
    if isinstance(model, ModelDecl) and isinstance(value, dict):
        fields = {item.wire_name: item for item in model.fields}
        if set(value) <= set(fields):
            arguments = ", ".join(
                f"{fields[wire].name}={_python_value(fields[wire].node, v, state)}"
                for wire, v in value.items()
            )
            return f"{state.reference(model.key)}({arguments})"
        return f"{state.reference(model.key)}.model_validate({_literal(value)})"
    if isinstance(shape, KnownType) and isinstance(value, dict):
        return f"op.{shape.name}.model_validate({_literal(value)})"
    if isinstance(shape, ListOf) and isinstance(value, list):
        items = ", ".join(_python_value(shape.item, item, state) for item in value)
        return f"[{items}]"
    if isinstance(shape, MapOf) and isinstance(value, dict):
        entries = ", ".join(
            f"{_string(key)}: {_python_value(shape.value, item, state)}"
            for key, item in value.items()
        )
        return "{" + entries + "}"
    return _literal(value)


def _type_of(node: Node, state: _Module, *, where: str = "") -> tuple[str, list[str]]:
    """The Python type of `node` and the markers its facts need."""
    shape = node.shape
    facts = dict(node.facts)
    if isinstance(shape, Scalar):
        expression = _scalar(shape, facts)
        values = facts.get("enum")
        if (
            shape.type == "string"
            and shape.format is None
            and isinstance(values, list)
            and values
            and all(isinstance(v, str) for v in values)
        ):
            del facts["enum"]
            expression = f"Literal[{', '.join(_string(v) for v in values)}]"
            state.uses_literal = True
    elif isinstance(shape, KnownType):
        expression = f"op.{shape.name}"
    elif isinstance(shape, ModelRef):
        expression = state.reference(shape.key)
    elif isinstance(shape, ListOf):
        expression = f"list[{_nested(shape.item, state, where + '[*]')}]"
    elif isinstance(shape, MapOf):
        expression = f"dict[str, {_nested(shape.value, state, where + '{*}')}]"
    elif isinstance(shape, Untyped):
        if not facts:
            raise SchemaError(
                f"{where}: a schema node without a type has no Python type",
                hint="give it a type, or x-kubernetes-preserve-unknown-fields: true",
            )
        expression = "op.JSON"
    else:  # pragma: no cover - the Shape union is closed
        raise TypeError(shape)
    what = "map" if isinstance(shape, MapOf) else "node"
    inapplicable = _inapplicable(shape, facts)
    markers = [_marker_text(m) for m in _markers(tuple(facts.items()), what, where)]
    if inapplicable:
        markers.append(_marker_text(InapplicableKeywords(**dict(inapplicable))))
    return expression, markers


def _inapplicable(shape: Shape, facts: dict[str, Any]) -> list[tuple[str, Any]]:
    """Takes out of `facts` the keywords that do not apply to the node's type
    (`maxLength` on an array), which the server stores and ignores."""
    json_type = (
        shape.type
        if isinstance(shape, Scalar)
        else (
            "array"
            if isinstance(shape, ListOf)
            else "object" if isinstance(shape, MapOf | ModelRef) else None
        )
    )
    if json_type is None:
        return []
    applies_to = InapplicableKeywords.applies_to
    found = [
        (key, facts[key])
        for key in sorted(facts)
        if key in applies_to and json_type not in applies_to[key]
    ]
    for key, _ in found:
        del facts[key]
    return found


def _nested(node: Node, state: _Module, where: str) -> str:
    """A list item or map value: its type, annotated with markers and description."""
    expression, markers = _type_of(node, state, where=where)
    if node.description is not None and not isinstance(node.shape, ModelRef):
        state.uses_field = True
        markers.append(f"Field(description={_string(node.description)})")
    if node.default is not NO_DEFAULT:
        markers.append(f"op.Default({_literal(node.default)})")
    if not markers:
        return expression
    state.uses_annotated = True
    return f"Annotated[{expression}, {', '.join(markers)}]"


def _scalar(shape: Scalar, facts: dict[str, Any]) -> str:
    if shape.type == "string" and shape.format == "byte":
        return "op.Bytes"
    base = {"string": "str", "integer": "int", "number": "op.Float", "boolean": "bool"}[
        shape.type
    ]
    if shape.format is not None:
        facts["format"] = shape.format
    return base


def _marker_text(marker: Marker) -> str:
    return spell(marker, _argument)


def _argument(name: str, value: Any) -> str:
    """A marker's argument as source; a regular expression reads best raw."""
    return _pattern(value) if name == "regex" else _literal(value)


def _markers(facts: tuple[tuple[str, Any], ...], what: str, where: str) -> list[Marker]:
    """The markers that write `facts` back (`what`: model, map or node)."""
    given = dict(facts)
    for flag in exclusive_flags(given):
        given.pop(flag, None)
    return [
        marker
        for key, value in sorted(
            given.items(), key=lambda item: _ORDER.get(item[0], 99)
        )
        for marker in markers_for(key, value, dict(facts), what, where)
    ]


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _pattern(regex: str) -> str:
    if "\\" in regex and '"' not in regex and not regex.endswith("\\"):
        return f'r"{regex}"'
    return _string(regex)


def _literal(value: Any) -> str:
    """A JSON value as a Python literal."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_string(k)}: {_literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(f"not a JSON value: {value!r}")


def _docstring(text: str | None, indent: str) -> str | None:
    """`text` as a docstring literal whose value (after `inspect.cleandoc`) is
    `text` again, up to indentation."""
    if not text:
        return None
    escaped = (
        text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').replace("\t", "\\t")
    )
    if escaped.endswith('"'):
        escaped = escaped[:-1] + '\\"'
    lines = escaped.split("\n")
    body = "\n".join(
        [lines[0], *((indent + line) if line else "" for line in lines[1:])]
    )
    return f'"""{body}"""'
