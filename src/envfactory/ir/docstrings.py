"""A tool description written as a docstring: its argument notes and what it says it returns.

Python servers publish their functions' docstrings as tool descriptions (Google, NumPy, reST or
Epydoc style): ``Args:`` notes that say what each argument holds ('One of "pending", "done"') and
a ``Returns:`` part that says, often as a sketch, what the reply holds. :func:`read_docstring`
splits one into those parts; the argument notes become the arguments' descriptions where the
schema has none (so the constraints they state are read, :mod:`envfactory.ir.prose`), and the
reply sketch becomes the reply's schema where none is declared (:mod:`envfactory.ir.sketch`).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

import docstring_parser

from envfactory.ir.sketch import sketch_schemas
from envfactory.ir.tool import ToolSet

_SECTION = re.compile(r"^\s*(args|arguments|parameters|params|raises|yields|examples?|notes?|see also|attributes|"
                      r"warnings?|returns?)\s*:?\s*$", re.I)  # fmt: skip
_RETURNS = re.compile(r"^\s*returns?\s*:\s*(.*)$", re.I)
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


@dataclass(frozen=True)
class Docstring:
    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)  # argument -> its note
    returns: str | None = None  # what the Returns part says


def read_docstring(text: str | None) -> Docstring:
    """The parts of a docstring-style description (see the module docstring); plain prose has none."""
    if not text or not text.strip():
        return Docstring()
    clean = inspect.cleandoc(text)
    try:
        doc = docstring_parser.parse(clean)
    except (docstring_parser.ParseError, ValueError, IndexError):
        return Docstring(summary=clean.split("\n", 1)[0])
    params = {p.arg_name: " ".join((p.description or "").split()) for p in doc.params if p.arg_name}
    return Docstring(summary=doc.short_description or "", params={k: v for k, v in params.items() if v},
                     returns=_returns(clean))  # fmt: skip


def _returns(text: str) -> str | None:
    """The text of a ``Returns:`` part (Google) or a ``Returns`` part underlined (NumPy)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        google = _RETURNS.match(line)
        numpy = line.strip().lower() in ("returns", "return") and i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1])
        if not google and not numpy:
            continue
        body = [google.group(1)] if google and google.group(1) else []
        for nxt in lines[i + (2 if numpy else 1) :]:
            if (_SECTION.match(nxt) and not _RETURNS.match(nxt)) or (nxt.strip() and _UNDERLINE.match(nxt)):
                break
            body.append(nxt.strip())
        said = "\n".join(body).strip()
        return said or None
    return None


def with_notes(input_schema: dict[str, object], notes: dict[str, str]) -> dict[str, object]:
    """``input_schema`` with each argument the docstring notes and the schema does not describe
    described by its note (a copy; the schema's own descriptions win)."""
    props = input_schema.get("properties")
    if not notes or not isinstance(props, dict):
        return input_schema
    described = {
        name: ({**prop, "description": notes[name]} if isinstance(prop, dict) and name in notes
               and not prop.get("description") else prop)
        for name, prop in props.items()
    }  # fmt: skip
    return {**input_schema, "properties": described}


def sketched_replies(toolset: ToolSet) -> ToolSet:
    """``toolset`` with the reply of each tool that declares none drawn from its docstring's
    ``Returns:`` sketch, where it has one (``{"ok": true, "task": {id, title}}``)."""
    said = {
        t.name: r for t in toolset.tools if t.output_schema is None and (r := read_docstring(t.description).returns)
    }
    if not said:
        return toolset
    drawn = sketch_schemas(said)
    if not drawn:
        return toolset
    tools = tuple(
        t.model_copy(update={"output_schema": drawn[t.name]}) if t.name in drawn else t for t in toolset.tools
    )
    return toolset.model_copy(update={"tools": tools})


__all__ = ["Docstring", "read_docstring", "sketched_replies", "with_notes"]
