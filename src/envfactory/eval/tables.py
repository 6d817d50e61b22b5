"""Report tables: one unit per column (never guessed cell by cell), and a table too wide for the
page turned on its side (its columns become rows)."""

from __future__ import annotations

import html
from typing import Any, Literal, cast

Unit = Literal["text", "count", "percent", "number"]
UNITS: tuple[str, ...] = ("text", "count", "percent", "number")
MAX_COLUMNS = 7  # more columns than this do not fit a 1,100-px page at the report's font size


def column_units(header: list[str], rows: list[list[Any]], units: list[str] | None = None) -> list[Unit]:
    """``units`` as given (checked), else each column's unit from all its cells: text if any cell
    is not a number, a count if every cell is an integer, a percent if every cell lies in [0, 1]."""
    if units is not None:
        if len(units) != len(header) or any(u not in UNITS for u in units):
            raise ValueError(f"units {units} must name one of {UNITS} per column of {header}")
        return [cast(Unit, u) for u in units]
    out: list[Unit] = []
    for i in range(len(header)):
        cells = [row[i] for row in rows]
        if any(isinstance(c, bool) or not isinstance(c, int | float) for c in cells):
            out.append("text")
        elif all(isinstance(c, int) for c in cells):
            out.append("count")
        elif all(0 <= c <= 1 for c in cells):
            out.append("percent")
        else:
            out.append("number")
    return out


def cell(value: Any, unit: Unit) -> str:
    """One cell in its column's unit: ``0.5`` as a percent is ``50.0%``, ``1`` is ``100.0%``."""
    if unit == "text" or not isinstance(value, int | float) or isinstance(value, bool):
        return str(value)
    if unit == "percent":
        return f"{value:.1%}"
    if unit == "count":
        return str(int(value))
    return f"{value:.2f}"


def turned(header: list[str], rows: list[list[Any]], units: list[Unit], corner: str = "") -> tuple[
    list[str], list[list[Any]], list[Unit]
] | None:  # fmt: skip
    """The table with its first column's labels as the header and its other columns as rows,
    when those columns share one unit; else ``None`` (the table cannot be turned)."""
    values = set(units[1:])
    if len(values) != 1:
        return None
    new_header = [corner or header[0], *(str(row[0]) for row in rows)]
    new_rows = [[name, *(row[i] for row in rows)] for i, name in enumerate(header) if i > 0]
    return new_header, new_rows, ["text", *([units[1]] * len(rows))]


def html_table(table: dict[str, Any]) -> str:
    """``table``: header, rows, optional units (one per column) and corner (the first header
    cell once the table is turned). More than ``MAX_COLUMNS`` columns turn it on its side."""
    header, rows = list(table["header"]), [list(r) for r in table["rows"]]
    units = column_units(header, rows, table.get("units"))
    if len(header) > MAX_COLUMNS and len(rows) < len(header):
        flipped = turned(header, rows, units, table.get("corner", ""))
        if flipped is not None:
            header, rows, units = flipped
    align = [" class=l" if u == "text" and i > 0 else "" for i, u in enumerate(units)]  # text reads from the left
    head = "".join(f"<th{a}>{html.escape(str(h))}</th>" for h, a in zip(header, align, strict=True))
    body = "".join(
        "<tr>"
        + "".join(f"<td{a}>{html.escape(cell(c, u))}</td>" for c, u, a in zip(row, units, align, strict=True))
        + "</tr>"
        for row in rows
    )
    return f"<div class=wide><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


__all__ = ["MAX_COLUMNS", "UNITS", "Unit", "cell", "column_units", "html_table", "turned"]
