"""Records numbered per scope (``scoped-numbers``): a row's ``id`` counted per table, as SQL numbers
each table's rows, beside a key of the record's own that no reply shows."""

from __future__ import annotations

import json

from envfactory.ingest import load
from envfactory.ir.effect import CreateEffect
from envfactory.ir.state import Entity
from envfactory.real.trace import Final, Sequence, Trace, TraceCall
from envfactory.runtime.behaviours import next_number
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.chooser import observe
from envfactory.synth.proposers.numbers import scoped_numbers

FREE = {"type": "object", "additionalProperties": {"type": ["string", "number", "null"]}}
TOOLS = [
    {"name": "create_record", "description": "Insert a new record into a table with specified data",
     "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}, "data": FREE},
                     "required": ["table", "data"]}},
    {"name": "read_records", "description": "Read records from a table with optional conditions",
     "inputSchema": {"type": "object", "properties": {"table": {"type": "string"}, "conditions": FREE},
                     "required": ["table"]}},
]  # fmt: skip
STARTED = [("contacts", {"name": "Ada"}), ("contacts", {"name": "Grace"}), ("orders", {"item": "pen"})]


def test_a_number_counts_within_its_scope_and_a_hidden_field_is_never_answered(tmp_path) -> None:
    rows = [{"t": "a", "n": 1}, {"t": "a", "n": 4}, {"t": "b", "n": 2}, {"t": "a", "n": True}]
    assert (next_number(rows, "n", "t", "a"), next_number(rows, "n", "t", "b"), next_number(rows, "n", "t", "c")) == (
        5, 3, 1)  # fmt: skip
    spec = _spec(tmp_path)
    entity = spec.state_schema["record"]
    fields = {"_row": {"type": "string"}, "id": {"type": "integer"}, "table": {"type": "string"}}
    numbered = Entity(name="record", key="_row", key_prefix="record", hidden=("_row",), fields=fields)
    create = spec.behaviour("create_record")
    assert isinstance(create.effect, CreateEffect) and entity.key == "id"
    behaviours = tuple(b.model_copy(update={"effect": create.effect.model_copy(update={"numbered": {"id": "table"}})})
                       if b.tool == "create_record" else b for b in spec.behaviours)  # fmt: skip
    schema = spec.state_schema.model_copy(update={"entities": (numbered,)})
    changed = {"state_schema": schema, "behaviours": behaviours, "initial_state": {"record": []}}
    episode = Environment(spec.model_copy(update=changed)).episode()
    for table, data in [*STARTED, ("orders", {"item": "ink"})]:
        made = episode.call_tool("create_record", {"table": table, "data": data}).data
        assert "_row" not in made
    listed = episode.call_tool("read_records", {"table": "orders"}).data
    assert [(r["id"], r["item"]) for r in listed] == [(1, "pen"), (2, "ink")] and all("_row" not in r for r in listed)


def _spec(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    spec = synthesize(load(path), state="empty", name="crud")
    key = spec.state_schema["record"].key
    rows = [{key: f"record_000{i}", "table": t, **d} for i, (t, d) in enumerate(STARTED, 1)]
    return spec.model_copy(update={"initial_state": {"record": rows}})


def _reads(table: str, rows: list[dict]) -> TraceCall:
    return TraceCall(tool="read_records", arguments={"table": table}, ok=True, output=rows)


def _crud_trace(n: int) -> Trace:
    """A SQL server: each table numbers its own rows from 1; every sequence adds orders, then reads."""
    sequences = []
    for s in range(n):
        contacts = [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]
        orders = [{"id": 1, "item": "pen"}]
        calls = [_reads("contacts", contacts), _reads("orders", orders)]
        for i in range(2 + s % 2):
            item = f"item {s}-{i}"
            orders.append({"id": len(orders) + 1, "item": item})
            calls.append(TraceCall(tool="create_record", arguments={"table": "orders", "data": {"item": item}}, ok=True,
                                   output={"message": "Record created", "insertedId": len(orders)}))  # fmt: skip
            calls.append(_reads("orders", list(orders)))
            calls.append(_reads("contacts", contacts))
        final = Final(reads=tuple({"tool": "read_records", "arguments": {"table": t}, "output": list(rows)}
                                  for t, rows in (("contacts", contacts), ("orders", orders))))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(c.model_copy(update={"sequence": s}) for c in calls), final=final))
    return Trace(source="crud", sequences=tuple(sequences))


def test_ids_counted_per_table_are_learned_and_the_global_count_is_not(tmp_path) -> None:
    spec = _spec(tmp_path)
    trace = _crud_trace(6)
    [candidate] = scoped_numbers(spec, observe(spec, trace)[0])
    assert candidate.behaviour.effect.numbered == {"id": "table"}
    assert [(r["table"], r["id"]) for r in candidate.rows["record"]] == [
        ("contacts", 1),
        ("contacts", 2),
        ("orders", 1),
    ]
    episode = Environment(candidate.applied(spec)).episode()
    made = episode.call_tool("create_record", {"table": "orders", "data": {"item": "cup"}}).data
    assert made == {"id": 2, "table": "orders", "item": "cup"}  # its own key is no reply's
    assert [r["id"] for r in episode.call_tool("read_records", {"table": "orders"}).data] == [1, 2]
    assert [r["id"] for r in episode.call_tool("read_records", {"table": "contacts"}).data] == [1, 2]
    # one count over every table (ids 4, 5, ... after three rows) is no scope: nothing proposed
    assert scoped_numbers(spec, observe(spec, _flat(trace))[0]) == []


def _flat(trace: Trace) -> Trace:
    """The same calls where one counter numbers every table's rows (three rows before the first create)."""
    sequences = []
    for s in trace.sequences:
        calls, made = [], 3
        for c in s.calls:
            if c.tool == "create_record":
                made += 1
                c = c.model_copy(update={"output": {"message": "Record created", "insertedId": made}})
            calls.append(c)
        sequences.append(s.model_copy(update={"calls": tuple(calls)}))
    return trace.model_copy(update={"sequences": tuple(sequences)})
