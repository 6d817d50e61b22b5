"""Learning from the real thing: candidates chosen by evidence, held-out figures, honest grades, and
refusals inside replies read as refusals wherever a real implementation answers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.conftest import ROOT, SPECS

from envfactory.ingest import load
from envfactory.ir.effect import Behaviour, FallbackEffect
from envfactory.real.instrument import ToolAgreement
from envfactory.real.learn import learn
from envfactory.real.trace import Sequence, Trace, TraceCall, read_trace, split, write_trace
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.candidates import Candidate, Evidence
from envfactory.synth.chooser import choose
from envfactory.testing.roundtrip import check_round_trip

FIXTURES = ROOT / "tests" / "fixtures"
NOTES = f"mcp+stdio:{sys.executable} {FIXTURES / 'notes_server.py'}"


def _notes_trace(n: int) -> Trace:
    """What a notebook answered: creates worded 'Created note N: TITLE', ids counted from one."""
    sequences = []
    for s in range(n):
        calls = []
        for i in range(1, 4):
            title = f"note {s}-{i}"
            calls.append(TraceCall(tool="add_note", arguments={"title": title}, ok=True,
                                   output=f"Created note {i}: {title}", sequence=s))  # fmt: skip
        calls.append(TraceCall(tool="delete_note", arguments={"note_id": 2}, ok=True, output="Deleted note 2",
                               sequence=s))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="notes", sequences=tuple(sequences))


def _notes_spec():
    with_notes = FIXTURES / "notes_server.py"
    return synthesize(f"{with_notes}", trust_code=True, state="empty", name="notebook")


def test_the_right_candidate_beats_a_wrong_one_on_the_evidence() -> None:
    spec = _notes_spec()
    trace = _notes_trace(6)

    def wrong(s, evidence: Evidence) -> list[Candidate]:
        refusing = Behaviour(tool="add_note", effect=FallbackEffect(reason="refuses", writes=True), prior="guess")
        return [Candidate("add_note", "wrong", "refuses every call", refusing)]

    from envfactory.synth.candidates import PROPOSERS

    proposers = {"wrong": wrong, **dict(PROPOSERS.items())}
    learned = choose(spec, trace, proposers=proposers)
    choice = {c.tool: c for c in learned.choices}
    assert choice["add_note"].chosen.proposer in ("template", "integer-keys"), choice["add_note"]
    wrongs = [r for r in choice["add_note"].runners_up if r.proposer == "wrong"]
    assert wrongs and wrongs[0].score is not None and wrongs[0].score < (choice["add_note"].chosen.score or 0)
    episode = Environment(learned).episode()
    assert episode.call_tool("add_note", {"title": "milk"}).data == "Created note 1: milk"
    assert episode.call_tool("delete_note", {"note_id": 1}).data == "Deleted note 1"
    assert choice["delete_note"].evidence == "real"


def test_without_evidence_every_tool_keeps_its_prior_and_no_grade_is_claimed(tmp_path: Path) -> None:
    spec = synthesize(SPECS / "shop.yaml")
    kept = choose(spec, None)
    assert kept.behaviours == spec.behaviours
    assert {c.evidence for c in kept.choices} == {"descriptions"}
    assert {c.chosen.proposer for c in kept.choices} == {"descriptions"}
    nothing = ToolAgreement(tool="t", calls=4, outcome=1.0, same_error=1.0, output_exact=None, output_fields=None,
                            stub_outcome=0.0, stub_output_exact=None, stub_output_fields=None, earned=0,
                            mutual_refusals=4)  # fmt: skip
    assert nothing.grade == "unmeasured"  # agreement earned only by both sides refusing
    from typer.testing import CliRunner

    from envfactory.cli.main import app

    runner = CliRunner()
    assert runner.invoke(app, ["synth", str(SPECS / "shop.yaml"), "-o", str(tmp_path)]).exit_code == 0
    shown = runner.invoke(app, ["inspect", str(tmp_path / "shop")]).output
    tools = [line for line in shown.splitlines() if "get_order" in line or "pay_order" in line]
    assert tools and all("unmeasured" in line and "high" not in line for line in tools)


def test_learning_from_a_live_server_and_from_its_trace_alone(tmp_path: Path) -> None:
    spec = _notes_spec()
    learned, report, trace = learn(spec, NOTES, budget=80, seed=0)
    check_round_trip(learned)  # the folder `learn -o` writes loads back as it was
    assert report.evidence == "real" and report.calls == 80 and report.held_out_sequences >= 2
    # no tool reads everything and none was named: the lists that need no argument stand for the state
    assert report.final_reads == ("list_notes",) and report.ceiling is not None
    assert report.ceiling.final_state == 1.0 and report.learned.final_state is not None
    assert report.ceiling is not None and report.ceiling.outcome == 1.0
    assert report.learned.outcome >= report.described.outcome
    assert (report.learned.exact or 0) > (report.described.exact or 0)  # the wording was learned
    assert (report.learned.exact or 0) > (report.stub.exact or 0)
    path = write_trace(trace, tmp_path / "trace.jsonl")
    assert read_trace(path).calls == trace.calls
    # a refusal keeps its kind and the real side's words ("Error: note 7 not found")
    refused = [c for s in read_trace(path).sequences for c in s.calls if not c.ok]
    assert refused and all(c.error and c.message and c.message.startswith("Error: ") for c in refused)
    again, from_trace, _ = learn(spec, str(path), seed=0)
    assert from_trace.evidence == "traces" and from_trace.ceiling is None
    assert (from_trace.learned.exact or 0) >= 0.8 * (report.learned.exact or 0)
    refused = Environment(again).episode().call_tool("get_note", {"note_id": 99})
    assert not refused.ok  # the server's "Error: note 99 not found" was a refusal in the evidence too


def test_a_refusal_inside_a_reply_is_an_error_of_a_bound_tool() -> None:
    env = Environment(synthesize(f"{FIXTURES / 'todo_class.py'}:Todos", bind=True), trust_code=True)
    episode = env.episode()
    assert episode.call_tool("get_todo", {"todo_id": 1}).ok
    missing = episode.call_tool("get_todo", {"todo_id": 7})
    assert not missing.ok and missing.error == "not_found"
    bad = episode.call_tool("set_priority", {"todo_id": 1, "priority": "high"})
    assert not bad.ok and "single uppercase letter" in bad.content
    flagged = episode.call_tool("complete_todo", {"todo_id": 9})
    assert not flagged.ok and flagged.error == "not_found"


def test_a_refusal_inside_a_reply_is_an_error_of_a_served_tool_and_fails_a_task_proof() -> None:
    served = synthesize(NOTES, bind=True)
    episode = Environment(served, trust_code=True).episode()
    made = episode.call_tool("add_note", {"title": "milk"})
    assert made.ok and json.loads(made.content) == {"result": "Created note 1: milk"}
    missing = episode.call_tool("get_note", {"note_id": 5})  # answered {"result": "Error: note 5 not found"}
    assert not missing.ok and missing.error == "not_found"
    empty = episode.call_tool("add_note", {"title": " "})
    assert not empty.ok and "title is required" in empty.content
    from envfactory.tasks.agents import gold
    from envfactory.tasks.generate import generate_tasks
    from envfactory.tasks.selftest import run_agent

    env = Environment(served, trust_code=True)
    tasks, _ = generate_tasks(env, 1, seed=0)
    assert tasks
    from envfactory.users.scripted import ScriptedUser

    probe = env.episode(max_steps=100, user=ScriptedUser())
    for task in tasks:  # every kept plan is accepted by the server, refusals in replies included
        assert run_agent(probe, task, gold(task)), task.instruction
        assert all(r.ok for _, _, r in probe.log if r is not None)


def test_the_self_check_grades_nothing_it_did_not_measure(tmp_path: Path) -> None:
    from envfactory.synth.selfcheck import self_check

    for name in ("banking.anthropic.json", "shop.yaml"):
        report = self_check(synthesize(SPECS / name))
        assert {t.fidelity for t in report.tools} == {"unmeasured"}, name  # never high or medium unmeasured
        priors = {t.prior for t in report.tools}  # synthesis's confidence is kept apart, in no grade's words
        assert priors & {"confident", "plausible"} and not priors & {"high", "medium"}


def test_evidence_that_cannot_be_learned_from_is_one_clear_error(tmp_path: Path) -> None:
    import pytest

    from envfactory.errors import SpecError

    spec = synthesize(SPECS / "shop.yaml")
    one = tmp_path / "one.jsonl"
    one.write_text('{"tool": "list_customers", "arguments": {}, "ok": true, "output": []}\n')
    with pytest.raises(SpecError, match="at least two sequences"):
        learn(spec, str(one))
    stranger = tmp_path / "stranger.jsonl"
    stranger.write_text('{"tool": "launch_rocket", "ok": true}\n')
    with pytest.raises(SpecError, match="does not have: launch_rocket"):
        learn(spec, str(stranger))


def test_places_a_fresh_copy_answers_otherwise_count_by_presence_only() -> None:
    """A clock's stamp: learnt on learning sequences replayed on a fresh copy, masked on every side."""
    from envfactory.real.volatile import VOLATILE, differing, masked, place

    assert place("list_tasks", ".tasks[3].created_at") == "list_tasks.tasks[].created_at"
    first = {"tasks": [{"id": 1, "created_at": "09:00:01"}, {"id": 2, "created_at": "09:00:02"}]}
    second = {"tasks": [{"id": 1, "created_at": "09:00:05"}, {"id": 2, "created_at": "09:00:06"}], "n": 2}
    assert differing("list_tasks", first, second) == {"list_tasks.tasks[].created_at"}  # "n": shape, not value
    volatile = frozenset({"list_tasks.tasks[].created_at"})
    assert masked(first, "list_tasks", volatile) == {"tasks": [{"id": 1, "created_at": VOLATILE},
                                                               {"id": 2, "created_at": VOLATILE}]}  # fmt: skip
    assert masked(first, "add_task", volatile) == first  # "09:00:01" is no clock's stamp of a date
    # a date-time stamp under a field a fresh copy answered otherwise is the record's: masked in every tool
    story = {"stories": [{"title": "Send", "created_at": "2026-12-05T03:29:33.812Z", "due": "2026-12-06T10:00:00Z"}]}
    stamped_volatile = frozenset({"get_task.task.created_at"})
    assert masked(story, "list_stories", stamped_volatile) == {
        "stories": [{"title": "Send", "created_at": VOLATILE, "due": "2026-12-06T10:00:00Z"}]
    }
    assert masked({"created_at": "soon"}, "list_stories", stamped_volatile) == {"created_at": "soon"}

    stamped = f"mcp+stdio:{sys.executable} {FIXTURES / 'stamped_server.py'}"
    spec = synthesize(load(stamped), state="empty")
    _, report, trace = learn(spec, stamped, budget=60, seed=0, final_tool="list_tasks")
    assert "list_tasks.tasks[].created_at" in trace.volatile and "add_task.created_at" in trace.volatile
    assert not any(p.endswith((".title", ".id")) for p in trace.volatile)
    assert report.calls == 60 and report.ceiling is not None and report.ceiling.final_state == 1.0
    assert report.volatile == trace.volatile  # the report says what counted by presence only


def test_learn_says_which_reply_places_counted_by_presence_only(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from envfactory.cli.main import app

    stamped = f"mcp+stdio:{sys.executable} {FIXTURES / 'stamped_server.py'}"
    shown = CliRunner().invoke(app, ["learn", stamped, "--from", stamped, "--trust-code", "--budget", "40",
                                     "--final-tool", "list_tasks", "-o", str(tmp_path)])  # fmt: skip
    assert shown.exit_code == 0, shown.output
    line = next(line for line in shown.output.splitlines() if "compared by presence only" in line)
    assert "add_task.created_at" in line and ".title" not in line
    # no terminal (a log file): where it is, a plain line each time it moves to another phase
    said = shown.output.splitlines()
    assert any(s.startswith("explored 10/") for s in said) and any(s.startswith("round 1:") for s in said)


def test_sequences_explored_apart_are_a_yardstick_that_stays_put(tmp_path: Path) -> None:
    spec = _notes_spec()
    _, report, trace = learn(spec, NOTES, budget=80, seed=0, test_budget=24)
    _, _, more = learn(spec, NOTES, budget=120, seed=0, test_budget=24)
    learning, held = split(trace)
    assert trace.held_out and {s.id for s in held.sequences} == set(trace.held_out)
    assert not {s.id for s in learning.sequences} & set(trace.held_out)  # never learned from
    assert report.held_out_sequences == len(trace.held_out) and held.calls == 24
    assert more.calls > trace.calls  # learning explored more, the yardstick did not move:
    assert [[(c.tool, c.arguments, c.output) for c in s.calls] for s in split(more)[1].sequences] == [
        [(c.tool, c.arguments, c.output) for c in s.calls] for s in held.sequences
    ]
    again = read_trace(write_trace(trace, tmp_path / "trace.jsonl"))
    assert again.held_out == trace.held_out  # a trace file keeps which sequences are measured on
    _, from_trace, _ = learn(spec, str(tmp_path / "trace.jsonl"), seed=0)
    assert from_trace.held_out_sequences == len(trace.held_out)
    import pytest

    from envfactory.errors import SpecError

    with pytest.raises(SpecError, match="at most half the budget"):  # never cut down in silence
        learn(spec, NOTES, budget=40, test_budget=30)


def test_exploring_meets_every_tool_of_a_large_set_early(tmp_path: Path) -> None:
    from collections import Counter

    from envfactory.real.explore import MOVES, YARDSTICK, explore
    from envfactory.real.instrument import real_source

    methods = "".join(f"    def switch_{i}(self, level: int) -> str:\n        return 'set {i}'\n\n" for i in range(16))
    (tmp_path / "panel.py").write_text(f"class Panel:\n{methods}")
    source = f"{tmp_path / 'panel.py'}:Panel"
    spec = synthesize(source, trust_code=True, state="empty")

    def calls(moves: tuple[tuple[str, float], ...]) -> Counter[str]:
        trace = explore(spec, real_source(spec, source), budget=48, length=8, seed=0, moves=moves)
        return Counter(c.tool for s in trace.sequences for c in s.calls)

    learning, yardstick = calls(MOVES), calls(YARDSTICK)
    assert set(learning) == set(spec.tools.names) and min(learning.values()) >= 2  # each twice in 48 calls
    assert len(set(yardstick)) < len(spec.tools.names)  # drawn at random, some are never called


def test_a_tool_whose_examples_are_called_often_is_still_met_with_drawn_arguments(tmp_path: Path) -> None:
    """The calls the user's examples make do not count as meeting a tool: the least-called move still
    brings it arguments of its own drawing, so what it refuses is seen while learning."""
    from envfactory.real.explore import explore
    from envfactory.real.instrument import real_source

    methods = "".join(f"    def switch_{i}(self, level: int, mode: str) -> str:\n        return 'set {i}'\n\n"
                      for i in range(16))  # fmt: skip
    (tmp_path / "panel.py").write_text(f"class Panel:\n{methods}")
    source = f"{tmp_path / 'panel.py'}:Panel"
    spec = synthesize(source, trust_code=True, state="empty")
    example = ("switch_0", {"level": 7, "mode": "eco"})
    trace = explore(spec, real_source(spec, source), budget=48, length=8, seed=0, examples=[example],
                    moves=(("least-called", 0.6), ("example", 0.4)))  # fmt: skip
    calls = [(c.tool, c.arguments) for s in trace.sequences for c in s.calls]
    assert calls.count(example) >= 5  # the example is called, and often
    # an example now and then has one argument drawn anew; drawn whole, the call is the tool's own
    drawn = [a for t, a in calls if t == "switch_0" and a["level"] != 7 and a["mode"] != "eco"]
    assert len(drawn) >= 2 and all(sum(t == f"switch_{i}" for t, _ in calls) >= 1 for i in range(16)), drawn


def test_a_create_the_real_side_refused_as_already_existing_refuses_a_second_record() -> None:
    spec = _notes_spec()
    sequences = []
    for s in range(4):
        calls = [TraceCall(tool="add_note", arguments={"title": f"note {s}-{i}"}, ok=True,
                           output=f"Created note {i}: note {s}-{i}", sequence=s) for i in (1, 2)]  # fmt: skip
        if s == 1:  # the one refusal the evidence holds: the server says the title is taken
            calls.append(TraceCall(tool="add_note", arguments={"title": "note 1-1"}, ok=False,
                                   error="a note titled 'note 1-1' already exists", sequence=s))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    learned = choose(spec, Trace(source="notes", sequences=tuple(sequences)))
    chosen = {c.tool: c for c in learned.choices}["add_note"]
    assert "refuses a second note with the same title" in chosen.chosen.summary + str(
        [r.summary for r in chosen.runners_up if r.proposer == "unique-fields"]
    )
    episode = Environment(learned).episode()
    assert episode.call_tool("add_note", {"title": "milk"}).ok
    again = episode.call_tool("add_note", {"title": "milk"})
    assert not again.ok and again.error == "conflict"
    assert episode.call_tool("add_note", {"title": "bread"}).ok
    # a server that accepted a second record with a title it held: no such rule is proposed
    twice = sequences[1].model_copy(update={"calls": (*sequences[1].calls[:2], sequences[1].calls[2].model_copy(
        update={"ok": True, "error": None, "output": "Created note 3: note 1-1"}))})  # fmt: skip
    tolerant = choose(spec, Trace(source="notes", sequences=(sequences[0], twice, *sequences[2:])))
    episode = Environment(tolerant).episode()
    assert episode.call_tool("add_note", {"title": "milk"}).ok and episode.call_tool("add_note", {"title": "milk"}).ok


def test_evidence_in_one_learning_sequence_still_teaches_where_the_folds_tie() -> None:
    # a tool called in one sequence only: no fold scores its candidates (the fold holding its calls
    # learns nothing of it from the others), so the candidate fit on all the evidence is taken
    # where it explains the tool's calls better than the tool did — never a memory of the replies
    spec = _notes_spec()
    sequences = list(_notes_trace(4).sequences)
    reads = tuple(TraceCall(tool="get_note", arguments={"note_id": i}, ok=True, output=f"Note {i}: note 2-{i}",
                            sequence=2) for i in (1, 3))  # fmt: skip
    sequences[2] = sequences[2].model_copy(update={"calls": (*sequences[2].calls[:3], *reads)})
    learned = choose(spec, Trace(source="notes", sequences=tuple(sequences)))
    chosen = {c.tool: c for c in learned.choices}["get_note"].chosen
    assert chosen.proposer == "template", chosen  # not the recorded replies it ties with
    episode = Environment(learned).episode()
    episode.call_tool("add_note", {"title": "milk"})
    assert episode.call_tool("get_note", {"note_id": 1}).data == "Note 1: milk"


def test_exploring_names_records_by_every_argument_the_model_reads_as_a_key(tmp_path: Path) -> None:
    """An argument named as no id is (``task_ref``) but read by the model as the key of a write is
    given the keys the real side answered, so exploration renames tasks that exist."""
    from envfactory.real.explore import explore
    from envfactory.real.instrument import natural_names, real_source

    tool = lambda name, about, props: {"type": "function", "function": {  # noqa: E731
        "name": name, "description": about,
        "parameters": {"type": "object", "properties": props, "required": list(props)}}}  # fmt: skip
    text = {"type": "string"}
    (tmp_path / "tools.json").write_text(json.dumps([
        tool("create_task", "Create a new task.", {"title": text}),
        tool("list_tasks", "List the tasks.", {}),
        tool("rename_task", "Update a task's title.", {"task_ref": text, "title": text}),
    ]))  # fmt: skip
    (tmp_path / "board.py").write_text(
        "class Board:\n"
        "    def __init__(self):\n        self.tasks = {}\n"
        "    def create_task(self, title):\n"
        "        key = f's{len(self.tasks) + 1:02d}'\n        self.tasks[key] = {'id': key, 'title': title}\n"
        "        return {'id': key}\n"
        "    def list_tasks(self):\n        return list(self.tasks.values())\n"
        "    def rename_task(self, task_ref, title):\n"
        "        self.tasks[task_ref]['title'] = title\n        return self.tasks[task_ref]\n"
    )  # fmt: skip
    spec = synthesize(str(tmp_path / "tools.json"), state="empty")
    assert spec.behaviour("rename_task").effect.key_arg == "task_ref" and "task_ref" in natural_names(spec)
    source = f"{tmp_path / 'board.py'}:Board"
    trace = explore(spec, real_source(spec, source), budget=60, length=10, seed=0)
    renamed = [c for s in trace.sequences for c in s.calls if c.tool == "rename_task" and c.ok]
    assert renamed and all(c.arguments["task_ref"].startswith("s") for c in renamed)


def test_a_servers_setup_records_start_under_the_ids_it_minted(tmp_path: Path) -> None:
    """Setup calls are written for the server: a later one names what an earlier one made by the
    server's id (``parent: s01``). The model starts where a fresh server does, under those ids, so
    a held-out call naming ``s01`` reaches the model's record; before, the model keyed the records
    ``task_0001`` and refused every such call as not found (and its subtask had no parent)."""
    from envfactory.real.instrument import real_source

    tree = f"mcp+stdio:{sys.executable} {FIXTURES / 'tree_server.py'}"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps([
        {"tool": "create_task", "arguments": {"title": "Ship v2"}},
        {"tool": "create_task", "arguments": {"title": "Write docs", "parent": "s01"}},
        {"tool": "create_task", "arguments": {"title": "Fix login"}},
        {"tool": "start_task", "arguments": {"task_ref": "s01t01"}},
    ]))  # fmt: skip
    spec = synthesize(tree, trust_code=True, state="empty", name="tree")
    model = real_source(spec, tree, scenario=str(setup)).synth_spec
    (entity,) = [e for e in model.state_schema.entities if model.initial_state.get(e.name)]
    rows = {row[entity.key]: row for row in model.initial_state[entity.name]}
    assert set(rows) == {"s01", "s01t01", "s02"}, rows
    assert rows["s01t01"]["parent"] == "s01", rows
    assert rows["s01"]["title"] == "Ship v2" and rows["s02"]["title"] == "Fix login", rows
    episode = Environment(model).episode()
    read = episode.call_tool("get_task", {"task_ref": "s02"})
    assert read.ok and "Fix login" in read.content, read


def test_a_servers_random_ids_never_key_the_models_start(tmp_path: Path) -> None:
    """A server minting random ids mints others on every fresh copy: the model's starting records
    keep the keys the model minted (only what two fresh servers answer alike is the real side's),
    and two runs start from the same state."""
    from envfactory.real.instrument import real_source

    tree = f"mcp+stdio:{sys.executable} {FIXTURES / 'tree_server.py'}"
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps([{"tool": "create_task", "arguments": {"title": "Ship v2"}}]))
    spec = synthesize(tree, trust_code=True, state="empty", name="tree")
    starts = [real_source(spec, tree, scenario=str(setup), env={"TREE_RANDOM": "1"}).synth_spec.initial_state
              for _ in range(2)]  # fmt: skip
    assert starts[0] == starts[1]
    (rows,) = [rows for rows in starts[0].values() if rows]
    assert [row["title"] for row in rows] == ["Ship v2"] and rows[0]["id"] == "task_0001", rows


def test_a_server_keeping_its_store_in_its_folder_never_gets_the_folder_as_a_value() -> None:
    """``{tmp}`` in a command is a key only for a file server rooted there; a server that keeps its
    own store in the folder (``--store {tmp}/notes``) is never called with ``{tmp}`` as a title or an id."""
    _, _, trace = learn(_notes_spec(), NOTES + " --store {tmp}/notes", budget=40, seed=0)
    called = [json.dumps(c.arguments) for s in trace.sequences for c in s.calls]
    assert called and not any("{tmp}" in a for a in called)


def test_learn_says_what_its_figures_rest_on() -> None:
    """Calls both sides refused, and tools the real side never accepted a call of, are said plainly."""
    from types import SimpleNamespace

    from envfactory.cli.commands import coverage_lines

    evidence = Trace(source="s", sequences=(Sequence(id=0, calls=(
        TraceCall(tool="add_note", arguments={"title": "a"}, ok=True, output="Created note 1: a"),
        TraceCall(tool="get_note", arguments={"note_id": 9}, ok=False, error="not_found"))),))  # fmt: skip
    report = SimpleNamespace(learned=SimpleNamespace(mutual_refusals=0.27))
    lines = coverage_lines(report, evidence, ["add_note", "get_note", "delete_note"])
    assert lines[0].startswith("27% of the held-out calls were refused by both sides")
    assert "no call of 2 of 3 tools" in lines[1] and lines[1].endswith("get_note, delete_note")
    assert coverage_lines(SimpleNamespace(learned=SimpleNamespace(mutual_refusals=0.0)), evidence, ["add_note"]) == []


LEDGER = f"mcp+stdio:{sys.executable} {FIXTURES / 'wrapped_server.py'}"


def test_a_server_whose_tools_take_their_arguments_wrapped_is_learned_and_called_so(tmp_path: Path) -> None:
    """``add_entry(params: AddInput)``: the tool's arguments are the model's members (``amount``,
    ``note``), read as the tool's own — synthesis, exploration and the evidence see those —, while the
    server is called, and agents shown the schema, wrapped in ``params``. Learned, its replies and
    final state are the server's."""
    spec = synthesize(LEDGER, state="empty", name="ledger")
    add = spec.tools["add_entry"]
    assert add.wrapped == "params" and set(add.input_schema["properties"]) == {"amount", "note"}
    assert add.to_openai()["function"]["parameters"]["required"] == ["params"]
    assert spec.tools["list_entries"].wrapped is None
    learned, report, trace = learn(spec, LEDGER, budget=80, seed=0, test_budget=30)
    made = [c for s in trace.sequences for c in s.calls if c.tool == "add_entry" and c.ok]
    assert made and all(set(c.arguments) == {"amount", "note"} for c in made)  # the server took them wrapped
    assert report.ceiling is not None and report.ceiling.final_state == 1.0
    assert report.learned.outcome >= 0.95 and (report.learned.fields or 0) >= 0.9
    assert (report.learned.final_state or 0) >= 0.8
    # an agent calls as the schema shows, wrapped; a plan drawn from the arguments calls them bare: both
    # are read alike, and the transcript shows each call as callers send it
    episode = Environment(learned).episode()
    tea = episode.call_tool("add_entry", {"params": {"amount": 3.5, "note": "tea"}})
    assert tea.data == {"result": "Saved #1: tea"}
    assert episode.call_tool("add_entry", {"amount": 2.0, "note": "milk"}).data == {"result": "Saved #2: milk"}
    assert episode.call_tool("get_entry", {"params": {"entry_id": 2}}).data["result"]["note"] == "milk"
    called = [json.loads(m["tool_calls"][0]["function"]["arguments"]) for m in episode.messages if m.get("tool_calls")]
    assert called[1] == {"params": {"amount": 2.0, "note": "milk"}}
    assert not episode.call_tool("add_entry", {"params": {"amount": "much"}}).ok  # checked as the tool reads them
    # tasks are proven on it, and a gold run is shown as an agent would call: wrapped
    from envfactory.eval.runner import evaluate
    from envfactory.rl.policy import GoldPolicy
    from envfactory.tasks.generate import generate_tasks

    env = Environment(learned)
    tasks = generate_tasks(env, 3, seed=0)[0]
    runs = evaluate(env, tasks, lambda s: GoldPolicy(), keep_messages=True)
    assert runs and all(r.success for r in runs)
    sent = [
        json.loads(c["function"]["arguments"])
        for r in runs
        for m in r.messages or []
        for c in m.get("tool_calls") or []
    ]
    assert sent and all(set(a) == {"params"} for a in sent)


def _epics_and_panels(tmp_path: Path) -> str:
    """A bound class of many tools: epics made by ``create_epic`` (which mints ``epic-N``) and read by
    ``get_epic``, beside a dozen switches."""
    methods = "".join(f"    def switch_{i}(self, level: int) -> str:\n        return 'set {i}'\n\n" for i in range(12))
    (tmp_path / "board.py").write_text(
        "class Board:\n"
        "    def __init__(self):\n        self.epics = {}\n"
        "    def create_epic(self, title: str) -> dict:\n"
        "        key = f'epic-{len(self.epics) + 1}'\n        self.epics[key] = {'title': title}\n"
        "        return {'success': True, 'epic_id': key}\n"
        "    def get_epic(self, epic_id: str) -> dict:\n"
        "        if epic_id not in self.epics:\n            raise KeyError(f'Epic not found: {epic_id}')\n"
        "        return self.epics[epic_id]\n"
        f"{methods}"
    )  # fmt: skip
    return f"{tmp_path / 'board.py'}:Board"


def test_a_tool_needing_a_key_of_something_not_made_yet_is_called_after_what_makes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fourteen tools, sequences of six: ``get_epic`` drawn as the least-called tool is rarely drawn
    after a ``create_epic`` by chance, so it meets only "not found". Once ``create_epic`` has minted
    an epic's key, the least-called ``get_epic`` of a sequence without one calls it first."""
    from envfactory.real import explore as exploring
    from envfactory.real.instrument import real_source

    source = _epics_and_panels(tmp_path)
    spec = synthesize(source, trust_code=True, state="empty")

    def read(budget: int) -> list[TraceCall]:
        trace = exploring.explore(spec, real_source(spec, source), budget=budget, length=6, seed=0,
                                  moves=(("least-called", 1.0),))  # fmt: skip
        return [c for s in trace.sequences for c in s.calls if c.tool == "get_epic"]

    found = read(150)
    assert sum(c.ok for c in found) >= 4, [(c.arguments, c.message) for c in found]
    monkeypatch.setattr(exploring, "made_first", lambda *_: None)  # drawn alone, as before
    assert sum(c.ok for c in read(150)) < sum(c.ok for c in found)
