"""What a refusal says an argument may be, read and drawn from by exploration."""

from __future__ import annotations

import random
import re
from pathlib import Path

from tests.synth.function_lists import synthesize_tools

from envfactory.real.explore import _step, explore
from envfactory.real.instrument import real_source
from envfactory.real.keypool import KeyPool, Shunned
from envfactory.real.learn import learn
from envfactory.real.told import Told, listed_values, told, told_argument, told_schema
from envfactory.runtime.environment import Environment
from envfactory.runtime.stated import meets
from envfactory.synth import synthesize
from envfactory.values import ValueMaker


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


def test_what_a_refusal_states_beyond_a_listing_is_read_for_the_argument_it_names() -> None:
    cases = {  # one of each statement, in wordings of several shapes
        "body is too vague. Write at least 20 characters explaining why.": ("body", {"minLength": 20}, "least-length"),
        "body: minimum length of 12 characters": ("body", {"minLength": 12}, "least-length"),
        "title must be between 3 and 50 characters": ("title", {"minLength": 3, "maxLength": 50}, "between"),
        "not a note: 'floor' (a note path ends in .md or .base)": ("path", {"pattern": r"\.(md|base)$"}, "ending"),
        "path 'floor' must end with '.json'": ("path", {"pattern": r"\.(json)$"}, "ending"),
        "since must be an ISO date (YYYY-MM-DD), not 'run'": ("since", {"format": "date"}, "form"),
        "due: expected YYYY-MM-DDTHH:MM": ("due", {"format": "date-time"}, "form"),
        "month must be written YYYY-MM": ("month", {"pattern": r"^\d{4}-(0[1-9]|1[0-2])$"}, "form"),
        "id must look like rec_00001. Copy it from a listing.": ("id", {"pattern": r"^rec_\d{5}$"}, "looks-like"),
    }
    args = {"body": "short", "title": "x", "path": "floor", "since": "run", "due": "soon", "month": "may",
            "id": "QO-41314"}  # fmt: skip
    for message, (arg, schema, reader) in cases.items():
        given = {arg: args[arg], "other": "z"}
        assert told(message, given) == Told(arg, schema, reader), message
    # a range of a number, not of a text; a listing whatever the value
    assert told("importance must be between 1 and 10", {"importance": 42, "note": "x"}) == Told(
        "importance", {"minimum": 1, "maximum": 10}, "between")  # fmt: skip
    assert told("importance must be between 1 and 10", {"importance": "high", "note": "x"}) is None
    # nothing stated, or no one argument named
    for message in ("Task not found", "Vault 'work' is not configured.", "must be at least 20 characters"):
        assert told(message, {"vault": "work", "body": "x", "title": "y"}) is None, message


def test_a_stated_rule_is_drawn_on_a_nullable_argument_too(tmp_path: Path) -> None:
    nullable = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Due Before"}
    tool = {"name": "list_tasks", "description": "List tasks.",
            "inputSchema": {"type": "object", "properties": {"due_before": nullable}}}  # fmt: skip
    spec = told_schema(synthesize_tools(tmp_path, "tasks", [tool]), "list_tasks", "due_before", {"format": "date"})
    prop = spec.tools["list_tasks"].input_schema["properties"]["due_before"]
    assert prop == {"type": "string", "format": "date", "default": None, "title": "Due Before"}
    maker = ValueMaker(0)
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", maker.value(prop, "due_before")) for _ in range(10))


def test_a_value_meets_what_a_refusal_stated() -> None:
    assert not meets("fixed it", {"minLength": 20}) and meets("the cache was never cleared", {"minLength": 20})
    assert meets("Projects/Plan.md", {"pattern": r"\.(md|base)$"}) and not meets("floor", {"pattern": r"\.(md)$"})
    assert meets("2026-12-07", {"format": "date"}) and not meets("run", {"format": "date"})
    assert meets(10, {"minimum": 1, "maximum": 10}) and not meets(11, {"minimum": 1, "maximum": 10})
    assert meets(["a"], {"minLength": 5})  # a keyword about texts says nothing of a list


def test_an_ending_alone_is_drawn_as_a_name_with_that_ending() -> None:
    maker = ValueMaker(0)
    drawn = [maker.value({"type": "string", "pattern": r"\.(md|base)$"}, "path") for _ in range(20)]
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*\.(md|base)", d) for d in drawn), drawn
    assert {d.rsplit(".", 1)[1] for d in drawn} == {"md", "base"}


STRICT = """
class Ledger:
    def __init__(self):
        self.bugs = {}

    def record_bug(self, symptom: str, root_cause: str) -> dict:
        \"\"\"Record a fixed bug.\"\"\"
        if len(root_cause) < 20:
            raise ValueError("root_cause is too vague. Write at least 20 characters explaining why it happened.")
        bug = {"id": f"rec_{len(self.bugs) + 1:05d}", "symptom": symptom, "root_cause": root_cause}
        self.bugs[bug["id"]] = bug
        return bug

    def save_note(self, path: str, text: str) -> dict:
        \"\"\"Write a note at a path.\"\"\"
        if not path.endswith(".md"):
            raise ValueError(f"not a note: {path!r} (a note path ends in .md)")
        return {"path": path, "saved": True}

    def list_bugs(self) -> list:
        \"\"\"All bugs recorded.\"\"\"
        return list(self.bugs.values())
"""


def test_exploration_and_the_model_follow_what_refusals_stated(tmp_path: Path) -> None:
    (tmp_path / "ledger.py").write_text(STRICT)
    source = f"{tmp_path / 'ledger.py'}:Ledger"
    spec = synthesize(source, trust_code=True, state="empty")
    learned, report, trace = learn(spec, source, budget=160, seed=0)
    calls = [c for s in trace.sequences for c in s.calls]
    for tool in ("record_bug", "save_note"):  # each refused once or twice, then drawn as the refusal said
        made = [c for c in calls if c.tool == tool]
        assert sum(c.ok for c in made) >= len(made) // 2, [(c.arguments, c.ok) for c in made]
    # the model refuses as the real side does, in its words
    env = Environment(learned, trust_code=True)
    episode = env.episode()
    short = episode.call_tool("record_bug", {"symptom": "crash", "root_cause": "fixed it"})
    assert not short.ok and "at least 20 characters" in short.content
    assert episode.call_tool("record_bug", {"symptom": "crash", "root_cause": "the cache was never cleared"}).ok
    assert not episode.call_tool("save_note", {"path": "floor", "text": "x"}).ok
    assert episode.call_tool("save_note", {"path": "plans/floor.md", "text": "x"}).ok
    assert report.learned.outcome == 1.0 and report.described.outcome is not None and report.described.outcome < 1.0


def test_a_value_always_refused_under_a_name_is_drawn_no_more(tmp_path: Path) -> None:
    shunned = Shunned()
    for _ in range(3):
        shunned.saw({"vault": "work", "path": "a.md"}, ok=False, message="Vault 'work' is not configured.")
        shunned.saw({"vault": "notes", "path": "{tmp}"}, ok=False, message="Path must be a relative path.")
        # a refusal about another argument says nothing of this one: "notes" is refused beside it only
        shunned.saw({"vault": "notes", "path": "b.md"}, ok=False, message="The requested path does not exist.")
    shunned.saw({"vault": "work", "path": "c.md"}, ok=False)  # no words: about nothing
    for _ in range(3):  # a name already taken, or one naming nothing, is refused on purpose: drawn again
        shunned.saw({"name": "greeting"}, ok=False, message="A template named 'greeting' already exists.",
                    code="conflict")  # fmt: skip
        shunned.saw({"name": "nope"}, ok=False, message="Note 'nope' not found.", code="not_found")
    assert shunned.pairs() == {("vault", "work"), ("path", "{tmp}"), ("path", "b.md")}
    shunned.saw({"vault": "notes", "path": "b.md"}, ok=True)
    assert shunned.pairs() == {("vault", "work"), ("path", "{tmp}")}  # accepted once: never shunned
    pool = KeyPool(["work", "notes"], names=frozenset({"vault"}), paths=["{tmp}"], shunned=shunned.pairs())
    rng, maker = random.Random(0), ValueMaker(0)
    schema = {"properties": {"vault": {"type": "string"}, "path": {"type": "string"}}, "required": ["vault", "path"]}
    drawn = [pool.arguments(schema, rng, maker) for _ in range(40)]
    assert all(d["path"] != "{tmp}" and d["vault"] != "work" for d in drawn)
    assert sum(d["vault"] == "notes" for d in drawn) >= 20  # the known value still drawn, the other left
    # nor drawn from the schema's own examples
    example = {"properties": {"space": {"type": "string", "examples": ["work"]}}, "required": ["space"]}
    assert sum(pool.arguments(example, rng, maker)["space"] == "work" for _ in range(40)) >= 10
    avoided = KeyPool([], shunned=frozenset({("space", "work")}))
    assert sum(avoided.arguments(example, rng, maker)["space"] == "work" for _ in range(40)) <= 1
    # a list or an object drawn is never a shunned value
    tags = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
    nested = {"properties": {"tags": tags, "meta": {"anyOf": [{"type": "object"}, {"type": "null"}]}},
              "required": ["tags", "meta"]}  # fmt: skip
    assert any(isinstance(avoided.arguments(nested, rng, maker)["tags"], list) for _ in range(10))
    # nor given by an example call, whose list arguments stay as they are
    put = {"name": "put", "description": "Put a note in a vault.",
           "inputSchema": {**schema, "properties": {**schema["properties"], "tags": tags}}}  # fmt: skip
    spec = synthesize_tools(tmp_path, "vaults", [put])
    known = [("put", {"vault": "work", "path": "a.md", "tags": ["x"]})]
    for seed in range(10):
        move, _, args = _step(spec, [], pool, random.Random(seed), maker, None, False, known, (("example", 1.0),))
        assert move == "example" and args["vault"] != "work"
    before = KeyPool(["work", "notes"], names=frozenset({"vault"}), paths=["{tmp}"])
    drawn = [before.arguments(schema, rng, maker) for _ in range(40)]
    assert any(d["path"] == "{tmp}" for d in drawn) and any(d["vault"] == "work" for d in drawn)
