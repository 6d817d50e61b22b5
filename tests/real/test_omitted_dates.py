"""A value a call leaves out that the real side fills in (a date defaulting to the day it was made),
read off the replies even where the schema declares ``null`` for it, and listed later."""

from __future__ import annotations

from tests.synth.function_lists import synthesize_tools

from envfactory.ir.effect import CreateEffect
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.omitted import omitted_read, read_off

DAY = "2026-12-07"
TOOLS = [
    {"name": "add_expense", "description": "Record an expense.",
     "inputSchema": {"type": "object", "required": ["amount", "note"], "properties": {
         "amount": {"type": "integer"}, "note": {"type": "string"},
         "date": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None,
                  "description": "Date YYYY-MM-DD"}}}},
    {"name": "search_expenses", "description": "Search the expenses whose note holds a word.",
     "inputSchema": {"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}}},
]  # fmt: skip


def test_an_argument_declared_null_and_left_out_stands_for_what_the_replies_show_in_its_place(tmp_path) -> None:
    worded = ["Date: {arg.date}", f"Date: {DAY}", f"Date: {DAY}"]
    given = [{"date": "2025-01-01"}, {"date": None}, {}]  # the declared default, null, is not a value given
    assert omitted_read("Date: {arg.date}", worded, given, {}) == {"date": DAY}
    spec = synthesize_tools(tmp_path, "spending", TOOLS)
    # read off the replies where it differs from what the schema declares; the declared null itself is not
    assert read_off(spec, "add_expense", {"date": DAY}) == {"date": DAY}
    assert read_off(spec, "add_expense", {"date": None}) == {}


def _trace() -> Trace:
    notes = ["lunch", "taxi", "books", "rent", "gym", "tea"]
    sequences = []
    for s in range(6):
        calls: list[TraceCall] = []
        for n, note in enumerate(notes[s:] + notes[:s]):
            if n % 2 == 0:  # searched before it is there: nothing found
                calls.append(TraceCall(tool="search_expenses", arguments={"query": note}, ok=True, sequence=s,
                                       output="No expenses found."))  # fmt: skip
            date = f"2025-03-{10 + n + s}" if (n + s) % 3 == 0 else None  # most calls leave the date out
            args = {"amount": 7 * (n + s) % 11 + 1, "note": note} | ({"date": date} if date else {})
            calls.append(TraceCall(tool="add_expense", arguments=args, ok=True, sequence=s,
                                   output=f"Saved: {note}\nDate: {date or DAY}"))  # fmt: skip
            if (n + s) % 2 == 1:
                calls.append(TraceCall(tool="search_expenses", arguments={"query": note}, ok=True, sequence=s,
                                       output=f"• {date or DAY} | {note}"))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="t", sequences=tuple(sequences))


def test_learned_a_date_left_out_is_the_day_the_real_side_showed_and_a_search_lists_it(tmp_path) -> None:
    learned = choose(synthesize_tools(tmp_path, "spending", TOOLS), _trace())
    effect = learned.behaviour("add_expense").effect
    assert isinstance(effect, CreateEffect) and effect.defaults.get("date") == DAY
    episode = Environment(learned).episode()
    assert episode.call_tool("search_expenses", {"query": "milk"}).data == "No expenses found."
    assert episode.call_tool("add_expense", {"amount": 3, "note": "milk"}).data == f"Saved: milk\nDate: {DAY}"
    assert episode.call_tool("search_expenses", {"query": "milk"}).data == f"• {DAY} | milk"
    episode.call_tool("add_expense", {"amount": 4, "note": "bread", "date": "2024-05-06"})
    assert episode.call_tool("search_expenses", {"query": "bread"}).data == "• 2024-05-06 | bread"
