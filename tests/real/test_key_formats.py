"""Keys worded as the real side mints them (``key-format``): ``s03``, and ``s01t02`` under ``s01``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from envfactory.ir.effect import CreateEffect, KeyFormat, KeySlug
from envfactory.real.learn import learn
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.behaviours import formatted_key, slugged
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.chooser import observe
from envfactory.synth.proposers.minted import key_formats, slug_keys

TEXT = {"type": "string"}
BOARD = '''
class Board:
    """Tasks keyed s01, s02, ...; a subtask of s01 keyed s01t01, s01t02, ..."""

    def __init__(self):
        self.tasks = {}

    def create_task(self, title, parent_id=None):
        if parent_id is not None and parent_id not in self.tasks:
            raise KeyError(f"no task {parent_id}")
        head = f"{parent_id}t" if parent_id else "s"
        n = sum(1 for t in self.tasks.values() if t["parent_id"] == parent_id) + 1
        key = f"{head}{n:02d}"
        self.tasks[key] = {"id": key, "title": title, "parent_id": parent_id}
        return {"id": key}

    def list_tasks(self):
        return list(self.tasks.values())

    def rename_task(self, task_ref, title):
        self.tasks[task_ref]["title"] = title
        return self.tasks[task_ref]
'''


def _tool(name: str, about: str, props: dict[str, dict[str, str]], required: list[str]) -> dict[str, object]:
    schema = {"type": "object", "properties": props, "required": required}
    return {"type": "function", "function": {"name": name, "description": about, "parameters": schema}}


def _board(tmp_path: Path) -> tuple[Path, str]:
    tools = [
        _tool("create_task", "Create a new task, or a subtask of a parent task.",
              {"title": TEXT, "parent_id": {"type": "string", "description": "The parent task id"}}, ["title"]),
        _tool("list_tasks", "List the tasks.", {}, []),
        _tool("rename_task", "Update a task's title.", {"task_ref": TEXT, "title": TEXT}, ["task_ref", "title"]),
    ]  # fmt: skip
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / "board.py").write_text(BOARD)
    return tmp_path / "tools.json", f"{tmp_path / 'board.py'}:Board"


def test_a_key_is_its_head_and_one_more_than_the_largest_number_of_its_scope() -> None:
    rows = [{"id": "s01", "up": None}, {"id": "s01t01", "up": "s01"}, {"id": "s04", "up": None}, {"id": 7, "up": None}]
    scoped = KeyFormat(head="s", width=2, scope="up", within="t")
    assert formatted_key(scoped, rows, "id") == "s05"  # s02, s03 deleted: the largest is 4
    assert formatted_key(scoped, rows, "id", "s01") == "s01t02"
    assert formatted_key(scoped, rows, "id", "s04") == "s04t01"
    assert formatted_key(KeyFormat(head="T-", width=4), rows, "id") == "T-0001"  # no key of that head yet
    assert formatted_key(KeyFormat(head="s"), rows, "id") == "s5"  # not padded: "s04" is the number 4


def test_keys_learned_from_a_live_implementation_are_minted_so_and_checked_in_its_own_shapes(tmp_path: Path) -> None:
    tools, source = _board(tmp_path)
    spec = synthesize(str(tools), state="empty")
    learned, report, _ = learn(spec, source, budget=120, seed=0)
    effect = learned.behaviour("create_task").effect
    assert isinstance(effect, CreateEffect)
    assert effect.key_format == KeyFormat(head="s", width=2, scope="parent_id", within="t")
    episode = Environment(learned).episode()
    made = [
        episode.call_tool("create_task", args).data
        for args in (
            {"title": "a"},
            {"title": "b"},
            {"title": "c", "parent_id": "s02"},
            {"title": "d", "parent_id": "s02"},
        )
    ]
    assert [m["id"] for m in made] == ["s01", "s02", "s02t01", "s02t02"]  # a parent shaped s02 passes its check
    assert report.learned.outcome is not None and report.learned.outcome >= 0.95


def test_starting_records_are_keyed_anew_and_setup_calls_naming_them_made_again(tmp_path: Path) -> None:
    tools, _ = _board(tmp_path)
    spec = synthesize(str(tools), state="empty")
    started = [{"id": "task_0001", "title": "Ship"}, {"id": "task_0002", "title": "Docs", "parent_id": "s01"},
               {"id": "task_0003", "title": "Fix"}]  # fmt: skip
    spec = spec.model_copy(update={"initial_state": {"task": started}})
    setup = (
        ("create_task", {"title": "Ship"}),
        ("create_task", {"title": "Docs", "parent_id": "s01"}),
        ("create_task", {"title": "Fix"}),
        ("rename_task", {"task_ref": "s01t01", "title": "Write docs"}),
    )
    # four in five of the keys have the one head "s": the scope words all five
    calls = [TraceCall(tool="create_task", arguments={"title": "B", "parent_id": "s01"}, ok=True,
                       output={"id": "s01t02"}),
             *(TraceCall(tool="create_task", arguments={"title": t}, ok=True, output={"id": f"s0{n}"})
               for n, t in enumerate("ACDE", 3))]  # fmt: skip
    sequences = tuple(Sequence(id=i, calls=tuple(c.model_copy(update={"sequence": i}) for c in calls)) for i in (0, 1))
    evidence, _ = observe(spec, Trace(source="board", sequences=sequences))
    (candidate,) = key_formats(spec, dataclasses.replace(evidence, accepted=setup))
    assert candidate.holds and candidate.rows is not None
    assert [(r["id"], r["title"]) for r in candidate.rows["task"]] == [
        ("s01", "Ship"), ("s01t01", "Write docs"), ("s02", "Fix")]  # fmt: skip
    episode = Environment(candidate.applied(spec)).episode()
    assert episode.call_tool("create_task", {"title": "C", "parent_id": "s01"}).data["id"] == "s01t02"


def test_keys_of_no_one_format_are_left_as_the_model_mints_them(tmp_path: Path) -> None:
    tools, _ = _board(tmp_path)
    spec = synthesize(str(tools), state="empty")
    answered = ["9f2c1", "a77e3", "k0b12"]  # random tokens that happen to end in digits
    calls = tuple(TraceCall(tool="create_task", arguments={"title": t}, ok=True, output={"id": t}, sequence=0)
                  for t in answered)  # fmt: skip
    sequences = (Sequence(id=0, calls=calls),)
    evidence, _ = observe(spec, Trace(source="board", sequences=sequences))
    assert key_formats(spec, evidence) == []


PROCESSES = '''
import re


class Processes:
    """Processes keyed by their name made a slug: "Team Present" is team-present."""

    def __init__(self):
        self.rows = {}

    def define_process(self, name, entry_point=""):
        key = re.sub(r"[^0-9a-z]+", "-", name.lower()).strip("-")
        if key in self.rows:
            return f'Error: Process "{name}" (ID: {key}) already exists.'
        self.rows[key] = {"id": key, "name": name, "entry_point": entry_point}
        return f'Process "{name}" created successfully with ID: {key}'

    def get_process(self, process_id):
        return self.rows[process_id]

    def list_processes(self):
        return list(self.rows.values())
'''


def test_a_slug_is_the_texts_words_in_lower_case_joined() -> None:
    assert slugged(KeySlug(arg="name"), "Team Present") == "team-present"
    assert slugged(KeySlug(arg="name", joiner="_"), "  Q4 -- Plan! ") == "q4_plan"
    assert (
        slugged(KeySlug(arg="title", head="Projects/", tail=".md"), "Write the report")
        == "Projects/write-the-report.md"
    )
    assert slugged(KeySlug(arg="name"), "Café olé") == "café-olé"  # letters of any script stay
    assert slugged(KeySlug(arg="name"), "?!") is None and slugged(KeySlug(arg="name"), 3) is None


def test_keys_made_of_a_name_are_learned_from_the_replies_prose(tmp_path: Path) -> None:
    tools = [_tool("define_process", "Define a new process.", {"name": TEXT, "entry_point": TEXT}, ["name"]),
             _tool("get_process", "Get a process by its id.", {"process_id": TEXT}, ["process_id"]),
             _tool("list_processes", "List the processes.", {}, [])]  # fmt: skip
    (tmp_path / "tools.json").write_text(json.dumps(tools))
    (tmp_path / "processes.py").write_text(PROCESSES)
    spec = synthesize(str(tmp_path / "tools.json"), state="empty")
    learned, _, _ = learn(spec, f"{tmp_path / 'processes.py'}:Processes", budget=120, seed=0)
    effect = learned.behaviour("define_process").effect
    assert isinstance(effect, CreateEffect) and effect.key_slug == KeySlug(arg="name")
    episode = Environment(learned).episode()
    assert episode.call_tool("define_process", {"name": "Team Present"}).ok
    assert episode.call_tool("get_process", {"process_id": "team-present"}).data["name"] == "Team Present"
    again = episode.call_tool("define_process", {"name": "team  present"})  # the same slug: refused
    assert not again.ok and again.error == "conflict"


def test_a_text_that_is_its_own_slug_or_no_word_of_the_reply_proposes_no_slug(tmp_path: Path) -> None:
    tools, _ = _board(tmp_path)
    spec = synthesize(str(tools), state="empty")

    def evidence(*answered: tuple[str, str]):
        calls = tuple(TraceCall(tool="create_task", arguments={"title": t}, ok=True, output=reply, sequence=0)
                      for t, reply in answered)  # fmt: skip
        return observe(spec, Trace(source="board", sequences=(Sequence(id=0, calls=calls),)))[0]

    shown = evidence(("Ship It", "Made ship-it."), ("Fix the bug", "Made fix-the-bug."))
    assert [c.behaviour.effect.key_slug for c in slug_keys(spec, shown)] == [KeySlug(arg="title")]
    assert slug_keys(spec, evidence(("ship", "Made ship."), ("docs", "Made docs."))) == []  # own slugs
    assert slug_keys(spec, evidence(("Ship It", "Made ship-it-2."), ("Fix the bug", "Made fix-the-bug-3."))) == []


def test_starting_records_are_keyed_by_their_slug_and_two_of_one_slug_keep_theirs(tmp_path: Path) -> None:
    tools, _ = _board(tmp_path)
    spec = synthesize(str(tools), state="empty")
    started = [{"id": "task_0001", "title": "Ship It"}, {"id": "task_0002", "title": "ship it!"}]
    spec = spec.model_copy(update={"initial_state": {"task": started}})
    calls = tuple(TraceCall(tool="create_task", arguments={"title": t}, ok=True, output=f"Made {r}.", sequence=0)
                  for t, r in (("Fix the bug", "fix-the-bug"), ("Plan B", "plan-b")))  # fmt: skip
    evidence, _ = observe(spec, Trace(source="board", sequences=(Sequence(id=0, calls=calls),)))
    (candidate,) = slug_keys(spec, evidence)
    assert candidate.rows is not None
    assert [r["id"] for r in candidate.rows["task"]] == ["ship-it", "task_0002"]  # the same slug: kept as it was
