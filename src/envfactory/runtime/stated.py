"""Whether a value meets what a refusal stated an argument must be (:mod:`envfactory.real.told`), as
JSON-schema keywords: a least and most length, a pattern, a written form, a range. The check of such a
rule learned from the real side (:class:`~envfactory.ir.choice.ArgCheck`'s ``stated``) asks this."""

from __future__ import annotations

import re
from typing import Any

JSON = dict[str, Any]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$")


def meets(value: Any, schema: JSON) -> bool:
    """Whether ``value`` meets the keywords a refusal stated (:class:`envfactory.real.told.Told`'s
    ``schema``): a text its least and most length, pattern and written form, a number its range; a
    value of another kind than a keyword is about meets it."""
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", len(value)):
            return False
        if "pattern" in schema and re.search(schema["pattern"], value) is None:
            return False
        form = {"date": _DATE, "date-time": _DATE_TIME}.get(schema.get("format", ""))
        return form is None or form.match(value) is not None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return schema.get("minimum", value) <= value <= schema.get("maximum", value)
    return True


__all__ = ["meets"]
