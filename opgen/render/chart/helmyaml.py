"""Helm templates written as Kubernetes objects: data with slots, dumped as YAML.

A chart template is an object (the same dict `kubectl kustomize` would print)
in which some values are *slots*: placeholders that `Slots` hands out. The
object is dumped with the YAML opgen writes everywhere (`opgen.render.yaml`),
then each slot's line is replaced by Helm template text:

- an inline slot (`slots.inline(expression)`) is a scalar whose text becomes
  `expression`, e.g. `namespace: {{ .Release.Namespace }}`;
- a block slot (`slots.block(render)`) replaces its whole line, `key: SLOT` or
  `- SLOT`, by the lines `render(indent, lead)` returns, where `lead` is what
  stood before the slot (`key: ` or `- `): conditionals, `toYaml` blocks,
  ranges over values.

Everything else is literal text for Helm, so `{{` in it (a CRD description
about Go templates, say) is escaped as `{{ "{{" }}`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from opgen.render.yaml import dump_document

__all__ = ["BlockRender", "Slots", "escape", "indented", "to_yaml_lines"]

BlockRender = Callable[[int, str], list[str]]
"""Lines for a block slot, given its line's indentation and its lead (`key: `, `- `)."""

_TOKEN = re.compile(r"opgen-slot-(\d+)-x")
_TOKEN_TEXT = re.compile(r"opgen-slot-\d+-x")


class Slots:
    """Placeholders for one template, and the Helm text each stands for."""

    def __init__(self) -> None:
        self._inline: dict[str, str] = {}
        self._blocks: dict[str, BlockRender] = {}

    def _token(self) -> str:
        return f"opgen-slot-{len(self._inline) + len(self._blocks)}-x"

    def inline(self, expression: str) -> str:
        """A scalar that becomes `expression` in the template."""
        token = self._token()
        self._inline[token] = expression
        return token

    def block(self, render: BlockRender) -> str:
        """A value whose whole line becomes `render(indent, lead)`."""
        token = self._token()
        self._blocks[token] = render
        return token

    def dump(self, document: Mapping[str, Any]) -> str:
        """The template text of one object (without a `---` line)."""
        out: list[str] = []
        for line in escape(dump_document(document)).splitlines():
            found = _TOKEN.search(line)
            if found is None:
                out.append(line)
                continue
            token = found.group(0)
            if token in self._blocks:
                lead = line[: found.start()].lstrip(" ")
                indent = len(line) - len(line.lstrip(" "))
                out += self._block_lines(self._blocks[token], indent, lead)
            else:
                out.append(_TOKEN.sub(lambda m: self._inline[m.group(0)], line))
        return "\n".join(out) + "\n"

    def lines(self, key: str, value: Any, indent: int) -> list[str]:
        """`key:` and `value` as template lines at `indent`, inline slots filled.

        For text a block slot builds; a block slot inside `value` would be
        rendered at the wrong indentation, so it is refused.
        """
        text = dump_document({key: value})
        if any(token in self._blocks for token in _TOKEN_TEXT.findall(text)):
            raise ValueError(f"{key}: a block slot cannot sit inside a block's value")
        return [" " * indent + line for line in self.dump({key: value}).splitlines()]

    @staticmethod
    def _block_lines(render: BlockRender, indent: int, lead: str) -> list[str]:
        if not lead.startswith("- "):
            return render(indent, lead)
        # The slot is the first key of a list item: its lines sit under the
        # dash, and the first of them takes the dash.
        first, *rest = render(indent + 2, lead[2:])
        if first.lstrip().startswith("{{"):
            raise ValueError(
                f"a list item cannot start with a template action: {first!r}"
            )
        return [" " * indent + "- " + first.lstrip(" "), *rest]


def indented(indent: int, *lines: str) -> list[str]:
    """`lines` with `indent` spaces before each."""
    return [" " * indent + line for line in lines]


def to_yaml_lines(value: Any, indent: int) -> list[str]:
    """`value` as block YAML at `indent` (a key of a mapping, or list items)."""
    text = dump_document({"x": value}).split("\n", 1)[1] if _nested(value) else ""
    if not text:
        return []
    lines = text.rstrip("\n").splitlines()
    # dump_document indents a mapping's entries by 2 under "x:" and a list's
    # dashes by 0; re-indent both to `indent`.
    base = len(lines[0]) - len(lines[0].lstrip(" "))
    return [" " * indent + escape(line[base:]) for line in lines]


def escape(text: str) -> str:
    """`text` as literal text for Helm: `{{` written as `{{ "{{" }}`."""
    return text.replace("{{", '{{ "{{" }}')


def _nested(value: Any) -> bool:
    return isinstance(value, (dict, list, tuple)) and len(value) > 0
