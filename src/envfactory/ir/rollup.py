"""A field a record takes from the records under it: a parent task's status rolled up from its subtasks.

A task with subtasks is ``in-progress`` while any subtask is started or in review, ``pending`` while
the rest wait, ``done`` once all are closed and ``cancelled`` when all were cancelled: whatever
its subtasks hold, the parent holds the first value of an order that one of them holds, each value
read through a mapping first (``in-review`` counts as ``in-progress``). A :class:`Rollup` is that
rule — the field holding the parent's key, the field rolled up, the mapping and the order — kept on
the entity (``Entity.rollup``) and applied by the store to a record's parent, and on up, whenever
the record is written or deleted; :func:`rolled_rows` applies it to starting records.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

JSON = dict[str, Any]
MAX_DEPTH = 64  # parents climbed from one record, at most (a cycle of parents stops there)


class Rollup(BaseModel):
    """``field`` of a record with records under it (their ``parent`` holds its key): of the values
    they hold, each read through ``maps``, the first in ``order``; unchanged where they hold none."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    parent: str
    field: str
    order: tuple[str, ...]
    maps: dict[str, str] = Field(default_factory=dict)

    def of(self, values: Iterable[Any]) -> str | None:
        """The value a parent takes from its children's ``values``; None: it keeps its own."""
        held = {self.maps.get(v, v) for v in values if isinstance(v, str)}
        return next((v for v in self.order if v in held), None)

    def children(self, rows: Iterable[JSON], key: Any) -> list[JSON]:
        """The records of ``rows`` under the record keyed ``key``."""
        return [r for r in rows if _same(r.get(self.parent), key)]


def rolled_rows(rows: list[JSON], key: str, rule: Rollup) -> list[JSON]:
    """``rows`` (one entity's starting records) with every parent's field rolled up from its
    children, deepest first (repeated until nothing changes, at most :data:`MAX_DEPTH` times)."""
    out = list(rows)
    for _ in range(MAX_DEPTH):
        changed = False
        for i, row in enumerate(out):
            kids = rule.children(out, row.get(key))
            value = rule.of(k.get(rule.field) for k in kids) if kids else None
            if value is not None and row.get(rule.field) != value:
                out[i] = {**row, rule.field: value}
                changed = True
        if not changed:
            break
    return out


def _same(a: Any, b: Any) -> bool:
    return a is not None and b is not None and (a == b or str(a) == str(b))


__all__ = ["MAX_DEPTH", "Rollup", "rolled_rows"]
