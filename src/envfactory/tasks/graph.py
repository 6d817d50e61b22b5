"""The tool dependency graph: an edge A -> B when an output of A can feed an input of B.

Each edge carries its ``flows`` — ``(output field, input argument, confidence)`` — and a
``weight`` (the best confidence). Nodes say which entity a tool yields and whether it writes.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from envfactory.ir.env import EnvSpec
from envfactory.synth.naming import same_field

WRITES = ("create", "update", "delete", "action", "transfer")
# a list filtered by a field named like a field of another entity, with no reference saying the
# two hold the same thing: a coincidence of names more often than a flow (a product's name is no
# customer's name, a pet's status no order's status)
NAME_ONLY = 0.3


def yielded_entity(effect: Any) -> str | None:
    """The entity whose rows a tool returns (for a transfer: the record it writes, if any)."""
    if effect.kind == "transfer":
        return effect.record.entity if effect.record else None
    if effect.kind == "delete":
        return None
    return getattr(effect, "entity", None)


def tool_graph(spec: EnvSpec) -> nx.DiGraph:
    graph = nx.DiGraph(name=spec.name)
    schema = spec.state_schema
    for b in spec.behaviours:
        graph.add_node(
            b.tool,
            kind=b.effect.kind,
            entity=getattr(b.effect, "entity", None),
            yields=yielded_entity(b.effect),
            write=b.effect.kind in WRITES,
        )
    for a in spec.behaviours:
        source = yielded_entity(a.effect)
        if source is None or source not in schema:
            continue
        entity = schema[source]
        for b in spec.behaviours:
            if a.tool == b.tool:
                continue
            flows = _flows(entity, b.effect, schema)
            if flows:
                graph.add_edge(a.tool, b.tool, flows=flows, weight=max(c for *_, c in flows))
    return graph


def _flows(entity: Any, effect: Any, schema: Any) -> list[tuple[str, str, float]]:
    name, key = entity.name, entity.key
    flows: list[tuple[str, str, float]] = []
    target = getattr(effect, "entity", None)
    key_arg = getattr(effect, "key_arg", None)
    by: str | None = getattr(effect, "by", None)  # a delete by a reference: the referenced key, or a row's copy
    if by and key_arg and target in schema and schema[target].refs.get(by) == name:
        flows.append((key, key_arg, 0.9))
    elif by and key_arg and target == name:
        flows.append((by, key_arg, 1.0))
    elif key_arg and target == name and effect.kind != "create":
        flows.append((key, key_arg, 1.0))
    if effect.kind == "transfer" and target == name:
        flows += [(key, effect.from_arg, 0.9), (key, effect.to_arg, 0.9)]
    if effect.kind in ("create", "update") and target in schema:
        refs = schema[target].refs
        flows += [(key, arg, 0.9) for arg, field in effect.args.items() if refs.get(field) == name]
    if effect.kind == "list" and target in schema:
        refs = schema[target].refs
        for flt in effect.filters:
            if flt.field and refs.get(flt.field) == name and flt.op == "eq":
                flows.append((key, flt.arg, 0.8))
    if key_arg and target in schema and target != name:  # lookup across entities: follow a reference
        flows += [(field, key_arg, 0.8) for field, ref in entity.refs.items() if ref == target]
    if effect.kind == "list" and target != name:
        taken = {arg for _, arg, _ in flows}
        for flt in effect.filters:
            shared = flt.op == "eq" and flt.field and any(same_field(f, flt.arg) for f in entity.fields)
            if shared and flt.arg not in taken:
                flows.append((flt.field, flt.arg, NAME_ONLY))
    return flows


def describe(graph: nx.DiGraph) -> list[str]:
    """One line per tool: what it yields and where its outputs can flow."""
    lines = []
    for tool, data in graph.nodes(data=True):
        mark = "write" if data["write"] else "read "
        outs = [
            f"{dst} ({', '.join(f'{f}->{a}' for f, a, _ in graph.edges[tool, dst]['flows'])})"
            for dst in graph.successors(tool)
        ]
        lines.append(f"[{mark}] {tool} -> {'; '.join(outs) or '(none)'}")
    return lines
