"""What a refusal says an argument may be, read and drawn from by exploration."""

from __future__ import annotations

from pathlib import Path

from envfactory.real.explore import explore
from envfactory.real.instrument import real_source
from envfactory.real.told import listed_values, told_argument, told_schema
from envfactory.synth import synthesize


def test_the_values_a_refusal_lists_are_read_and_nothing_else() -> None:
    said = "kind 'answer' is not valid; must be one of {design, schema, production, meta} (D26 / T94)."
    assert listed_values(said) == ["design", "schema", "production", "meta"]
    assert listed_values("Invalid priority: expected one of high, med, low.") == ["high", "med", "low"]
    assert listed_values('status must be "open" or "done"') == ["open", "done"]
    assert listed_values("value must be one of: a | b | c") == ["a", "b", "c"]
    assert listed_values("Invalid status. Valid values are: todo, doing, done") == ["todo", "doing", "done"]
    for nothing in ("Task not found", "name must be a string or null", "must be between 1 and 5", "Expected a number"):
        assert listed_values(nothing) == [], nothing
    # the argument it is about: the one whose value it quotes, else the one it names
    assert told_argument(said, {"name": "x1", "kind": "answer"}) == ("kind", ["design", "schema", "production", "meta"])
    assert told_argument("priority: expected one of high, low", {"priority": 3, "text": "hi"}) == (
        "priority", ["high", "low"])  # fmt: skip
    assert told_argument("must be one of a, b", {"x": "q", "y": "r"}) is None  # names neither
    # only the words before the listing name the argument: a value or name inside it names nothing
    said = "project must be specified either as argument or as the top-level folder in path."
    assert told_argument(said, {"path": "notes/a.md", "title": "x"}) is None
    assert told_argument("status: must be one of be, do", {"status": "x", "mode": "be"}) == ("status", ["be", "do"])


PICKY = """
class Board:
    def __init__(self):
        self.tasks = []

    def add(self, name: str, kind: str) -> dict:
        \"\"\"Create a task.\"\"\"
        if kind not in ("design", "schema", "production", "meta"):
            raise ValueError(f"kind {kind!r} is not valid; must be one of {{design, schema, production, meta}}")
        self.tasks.append({"name": name, "kind": kind})
        return {"name": name, "kind": kind}
"""


def test_exploration_draws_an_argument_from_the_values_a_refusal_listed(tmp_path: Path) -> None:
    (tmp_path / "board.py").write_text(PICKY)
    source = f"{tmp_path / 'board.py'}:Board"
    spec = synthesize(source, trust_code=True, state="empty")
    assert "enum" not in spec.tools["add"].input_schema["properties"]["kind"]
    told = told_schema(spec, "add", "kind", ["design", "meta"])
    assert told.tools["add"].input_schema["properties"]["kind"]["enum"] == ["design", "meta"]
    trace = explore(spec, real_source(spec, source), budget=40, seed=0)
    accepted = [c.arguments["kind"] for s in trace.sequences for c in s.calls if c.tool == "add" and c.ok]
    assert len(accepted) >= 5 and set(accepted) <= {"design", "schema", "production", "meta"}
