"""Blueprint: a task's plan as a DAG of tool calls and reasoning nodes, with its difficulty.

A blueprint is first abstract (tools, fields, kinds) and then bound to a state by
``tasks.instantiate``, which fills ``value`` and ``args``. Edges say which value flows where.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NodeKind = Literal["call", "filter", "argmax", "argmin", "count", "sum", "compare", "choose", "lookup"]
LEVEL_BOUNDS = (1.25, 2.75, 4.5, 6.5)
REASONING: frozenset[str] = frozenset({"filter", "argmax", "argmin", "count", "sum", "compare", "choose", "lookup"})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Node(_Frozen):
    """One step. ``call`` nodes run a tool; the others reason over what calls returned."""

    id: str
    kind: NodeKind
    tool: str | None = None
    entity: str | None = None  # the entity whose rows this node yields or inspects
    field: str | None = None  # the field a reasoning node looks at
    op: str | None = None  # filter: eq | gte | lte; choose/compare: gt | lt
    value: Any = None  # bound: filter value, threshold
    inputs: tuple[str, ...] = ()
    guard: tuple[str, bool] | None = None  # runs only when choose node guard[0] evaluates to guard[1]
    args: dict[str, Any] = Field(default_factory=dict)  # bound literal arguments of a call
    hidden: tuple[str, ...] = ()  # arguments the user knows but does not state up front
    write: bool = False  # the call changes the state


class Edge(_Frozen):
    src: str
    dst: str
    src_field: str | None = None  # a field of the row src yields (None: the value itself)
    dst_arg: str | None = None  # the argument of a call it fills (None: a reasoning input)


class Blueprint(_Frozen):
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...] = ()
    answers: tuple[str, ...] = ()  # nodes whose value the agent must tell the user

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    @property
    def calls(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == "call"]

    @property
    def writes(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == "call" and n.write]

    @property
    def reasoning(self) -> list[Node]:
        return [n for n in self.nodes if n.kind in REASONING]

    @property
    def depth(self) -> int:
        """The longest chain of nodes (edges and guards both count)."""
        parents: dict[str, set[str]] = {n.id: set(n.inputs) for n in self.nodes}
        for edge in self.edges:
            parents[edge.dst].add(edge.src)
        for n in self.nodes:
            if n.guard:
                parents[n.id].add(n.guard[0])
        memo: dict[str, int] = {}

        def longest(node_id: str) -> int:
            if node_id not in memo:
                memo[node_id] = 1 + max((longest(p) for p in parents[node_id]), default=0)
            return memo[node_id]

        return max((longest(n.id) for n in self.nodes), default=0)

    @property
    def branches(self) -> int:
        return sum(1 for n in self.nodes if n.kind == "choose")

    @property
    def difficulty(self) -> float:
        """From structure only: calls, writes, reasoning nodes, depth and branching."""
        score = (
            0.5 * len(self.calls)
            + 0.75 * len(self.writes)
            + 0.75 * len(self.reasoning)
            + 0.25 * max(0, self.depth - 1)
            + 0.5 * self.branches
        )
        return round(score, 2)

    @property
    def level(self) -> int:
        """Difficulty bucketed: 1 is a single write, 5 is long multi-write reasoning."""
        return 1 + sum(self.difficulty > bound for bound in LEVEL_BOUNDS)

    def shape(self) -> str:
        """A hash of the structure without bound values (tools, kinds, fields, edges)."""
        nodes = [(n.id, n.kind, n.tool, n.entity, n.field, n.op, n.guard, n.write) for n in self.nodes]
        edges = [(e.src, e.dst, e.src_field, e.dst_arg) for e in self.edges]
        text = json.dumps([nodes, edges, list(self.answers)], default=str)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
