"""Lists in the order the real thing lists them (``list-order``), and the sort the runtime makes."""

from __future__ import annotations

import json

from envfactory.ingest import load
from envfactory.ir.effect import Order
from envfactory.runtime.behaviours import ordered
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.candidates import Evidence, Pair
from envfactory.synth.proposers.lists import list_orders, text_order

PRIORITY = {"anyOf": [{"type": "string", "enum": ["low", "med", "high"]}, {"type": "null"}]}
TOOLS = [
    {"name": "create_task", "description": "Create a task.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "priority": PRIORITY},
                     "required": ["title"]}},
    {"name": "list_tasks", "description": "List the tasks.", "inputSchema": {"type": "object", "properties": {}}},
]  # fmt: skip


def test_rows_are_sorted_key_by_key_nulls_last_and_never_raise() -> None:
    rows = [{"id": 1, "p": None, "s": "done"}, {"id": 2, "p": "low", "s": "open"}, {"id": 3, "p": "high", "s": "open"},
            {"id": 4, "p": "med", "s": "open"}, {"id": 5, "p": None, "s": "open"}]  # fmt: skip
    by = (Order(field="s", descending=True), Order(field="p", ranks=("high", "med", "low")))
    assert [r["id"] for r in ordered(rows, by)] == [3, 4, 2, 5, 1]
    assert [r["id"] for r in ordered(rows, (Order(field="p"),))] == [3, 2, 4, 1, 5]  # ascending, nulls last, stable
    assert [r["id"] for r in ordered(rows, (Order(field="p", descending=True),))] == [4, 2, 3, 1, 5]
    odd = [{"p": [1]}, {"p": {"a": 1}}, {"p": 2}, {"p": "x"}, {}]  # what a write may store: compared, never raised on
    assert len(ordered(odd, (Order(field="p"),))) == 5


def _spec(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    return synthesize(load(path), state="empty", name="tasks")


def test_a_list_learns_the_order_the_real_side_lists_its_rows_in(tmp_path) -> None:
    spec = _spec(tmp_path)
    key = spec.state_schema["task"].key
    made = [{key: f"task_000{i}", "title": t, "priority": p}
            for i, (t, p) in enumerate([("a", "low"), ("b", "high"), ("c", None), ("d", "med")], 1)]  # fmt: skip

    def listed(*order: int) -> Pair:  # the real side's rows in that order, the model's as written
        real = [made[i - 1] for i in order]
        return Pair({}, True, {"tasks": real}, True, {"tasks": made[: len(order)]}, raw=made[: max(order)])

    pairs = [listed(2, 1), listed(2, 4, 1, 3), listed(2, 1, 3)]  # high, med, low, then none
    (candidate,) = list_orders(spec, Evidence({"list_tasks": pairs}))
    assert candidate.behaviour.effect.order == (Order(field="priority", ranks=("high", "med", "low")),)
    episode = Environment(candidate.applied(spec)).episode()
    for title, priority in [("x", None), ("y", "low"), ("z", "high")]:
        episode.call_tool("create_task", {"title": title, "priority": priority})
    assert [t["title"] for t in episode.call_tool("list_tasks", {}).data] == ["z", "y", "x"]
    # listed as written wherever the same rows were listed: nothing to learn
    assert list_orders(spec, Evidence({"list_tasks": [listed(1, 2), listed(1, 2, 3)]})) == []
    # no key explains an order that contradicts itself: nothing proposed
    assert list_orders(spec, Evidence({"list_tasks": [listed(2, 1), listed(1, 2)]})) == []


def test_an_order_is_read_off_the_real_rows_values_by_declared_values_first_and_no_key_more_than_needed(
    tmp_path,
) -> None:
    """The model's rows lack ``priority`` (made by a tool that did not store it), the real rows answer it:
    the order is read off the real values. Only ``high`` and ``low`` were listed, which sort alike
    alphabetically and as declared: declared, since that is how a person writes them. The rows tied on
    priority were listed as written, so no second key (a title descending would order them too)."""
    spec = _spec(tmp_path)
    key = spec.state_schema["task"].key
    model = [{key: f"task_000{i}", "title": t} for i, t in enumerate("azcb", 1)]
    priority = {1: "low", 2: "high", 3: None, 4: None}

    def listed(*order: int) -> Pair:
        real = [{**model[i - 1], "priority": priority[i]} for i in order]
        return Pair({}, True, {"tasks": real}, True, {"tasks": model}, raw=model[: max(order)])

    pairs = [listed(2, 1), listed(2, 1, 3, 4)]
    (candidate,) = list_orders(spec, Evidence({"list_tasks": pairs}))
    assert candidate.behaviour.effect.order == (Order(field="priority", ranks=("high", "med", "low")),)


def test_a_text_tells_the_order_by_where_each_rows_own_values_stand() -> None:
    rows = [{"id": 1, "category": "Food", "note": "Lunch with Sam"}, {"id": 2, "category": "Food", "note": "Taxi"},
            {"id": 3, "category": "Rent", "note": "December rent"}]  # fmt: skip
    text = "Found 3\n#3 Rent | December rent\n#2 Food | Taxi\n#1 Food | Lunch with Sam"
    # Food is two rows' (no place of its own), Rent stands once: row 3 is placed by it, row 2 by Taxi
    assert text_order(text, rows, "id") == ["3", "2", "1"]
    assert text_order("#3 December rent\n#1 Lunch with Sam", rows, "id") is None  # Taxi stands nowhere
    assert text_order("Taxi, Taxi and December rent, Lunch with Sam", rows, "id") is None  # Taxi twice
    # a value stands as a whole word only: "Taxis" is not row 2's "Taxi"
    assert text_order("Taxis: December rent; Lunch with Sam", rows, "id") is None


def test_a_list_answered_in_prose_learns_its_rows_newest_first(tmp_path) -> None:
    """The real side words its list as text, newest first; the rows hold no field that orders them so
    but their key (the titles are in no order): the key, descending."""
    spec = _spec(tmp_path)
    key = spec.state_schema["task"].key
    made = [{key: f"task_000{i}", "title": t} for i, t in enumerate(["Pay rent", "Buy milk", "Call Bob"], 1)]

    def listed(n: int) -> Pair:  # the first n rows, the real side's text listing them newest first
        text = "\n".join(f"- {r['title']}" for r in reversed(made[:n]))
        return Pair({}, True, {"result": text}, True, {"result": "as the model words it"}, raw=made[:n])

    (candidate,) = list_orders(spec, Evidence({"list_tasks": [listed(2), listed(3)]}))
    assert candidate.behaviour.effect.order == (Order(field=key, descending=True),)
    episode = Environment(candidate.applied(spec)).episode()
    for title in ("x", "y", "z"):
        episode.call_tool("create_task", {"title": title})
    assert [t["title"] for t in episode.call_tool("list_tasks", {}).data] == ["z", "y", "x"]
    # a text listing them as written: nothing to learn
    as_written = Pair({}, True, {"result": "- Pay rent\n- Buy milk"}, True, {"result": "-"}, raw=made[:2])
    assert list_orders(spec, Evidence({"list_tasks": [as_written]})) == []
    # the lists in between held one row at most; the final state's reads, kept apart, tell the order
    one = Pair({}, True, {"result": "- Pay rent"}, True, {"result": "-"}, raw=made[:1])
    assert list_orders(spec, Evidence({"list_tasks": [one]})) == []
    (late,) = list_orders(spec, Evidence({"list_tasks": [one]}, at_end={"list_tasks": [listed(3)]}))
    assert late.behaviour.effect.order == (Order(field=key, descending=True),)
    # but never beside the lists in between: a final read in the written order (drifted) changes nothing
    drifted = Evidence({"list_tasks": [listed(2), listed(3)]}, at_end={"list_tasks": [as_written]})
    assert [c.behaviour.effect.order for c in list_orders(spec, drifted)] == [(Order(field=key, descending=True),)]
