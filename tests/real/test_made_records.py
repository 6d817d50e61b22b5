"""Records a tool makes, read off the real replies (``made-records``), and ids paired with the
records a model started with only where they are those records."""

from __future__ import annotations

import json

from envfactory.ingest import load
from envfactory.real.keypool import Aliases, StartingRecords
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.candidates import Evidence, Pair
from envfactory.synth.proposers.made import made_records

TOOLS = [
    {"name": "create_task", "description": "Create a task.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}},
    {"name": "list_tasks", "description": "List the tasks.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "split_up", "description": "Split it up.",
     "inputSchema": {"type": "object", "properties": {"task_id": {"type": "integer"},
                                                      "parts": {"type": "array", "items": {"type": "string"}}},
                     "required": ["task_id", "parts"]}},
    {"name": "duplicate", "description": "Duplicate it.",
     "inputSchema": {"type": "object", "properties": {"task_id": {"type": "integer"}, "title": {"type": "string"}},
                     "required": ["task_id"]}},
]  # fmt: skip


def _spec(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    spec = synthesize(load(path), state="empty", name="tasks")
    entity = spec.state_schema["task"]
    schema = spec.state_schema.model_copy(update={"entities": tuple(
        e.model_copy(update={"key_type": "integer", "fields": {**e.fields, "status": {"type": "string"}}})
        if e.name == "task" else e for e in spec.state_schema.entities)})  # fmt: skip
    return spec.model_copy(update={"state_schema": schema}), entity


HELD = {"task": [{"id": 1, "title": "Plan the trip"}]}  # what the model held after each call


def _split(task_id: int, parts: list[str], first: int) -> Pair:
    stamp = "2026-12-05T10:00:00Z"
    made = [{"id": first + i, "title": p, "status": "pending", "parent_id": task_id, "created_at": stamp}
            for i, p in enumerate(parts)]  # fmt: skip
    real = {"ok": True, "parent": {"id": task_id, "title": "Plan the trip", "status": "pending"}, "subtasks": made}
    return Pair({"task_id": task_id, "parts": parts}, True, real, True, {"ok": True}, state=HELD)


def test_a_tool_answering_one_new_record_per_item_of_a_list_makes_them(tmp_path) -> None:
    spec, _ = _spec(tmp_path)
    assert spec.behaviour("split_up").effect.kind == "fallback"
    pairs = [_split(1, ["book", "pack"], 2), _split(1, ["go"], 4), _split(1, ["a", "b", "c"], 5)]
    (candidate,) = [c for c in made_records(spec, Evidence({"split_up": pairs})) if c.tool == "split_up"]
    effect = candidate.behaviour.effect
    assert (effect.kind, effect.items_arg, effect.value_field, effect.minted) == ("create_many", "parts", "title", True)
    assert effect.args == {"task_id": "parent_id"}  # the argument every new record holds
    assert effect.defaults == {"status": "pending"} and effect.timestamps == ("created_at",)
    assert "parent_id" in candidate.entities[0].fields  # a field the model's records lacked
    # the model then makes them, each under a key it mints and answers, a repeat made again
    env = Environment(candidate.applied(spec))
    episode = env.episode()
    made = episode.call_tool("split_up", {"task_id": 1, "parts": ["x", "x"]}).data
    assert [(r["id"], r["title"], r["parent_id"], r["status"]) for r in made] == [
        (1, "x", 1, "pending"), (2, "x", 1, "pending")]  # fmt: skip
    assert all(r["created_at"] for r in made)
    assert len(list(episode.store.rows("task"))) == 2


def test_an_argument_that_named_a_held_record_on_every_accepted_call_is_a_reference_looked_up(tmp_path) -> None:
    spec, _ = _spec(tmp_path)
    pairs = [_split(1, ["book", "pack"], 2), _split(1, ["go"], 4)]
    refused = Pair({"task_id": 648, "parts": ["x"]}, False, "precondition_failed", True, {"ok": True}, state=HELD)
    (candidate,) = [c for c in made_records(spec, Evidence({"split_up": [*pairs, refused]})) if c.tool == "split_up"]
    assert candidate.entities[0].refs == {"parent_id": "task"}  # task 1 was held each time, 648 never
    episode = Environment(candidate.applied(spec)).episode()
    episode.store.put("task", 1, {"id": 1, "title": "Plan the trip"})
    assert episode.call_tool("split_up", {"task_id": 1, "parts": ["x"]}).ok
    missing = episode.call_tool("split_up", {"task_id": 648, "parts": ["x"]})
    assert not missing.ok and missing.error == "not_found" and len(list(episode.store.rows("task"))) == 2
    # without a refusal of a value nobody held, nothing says the real side looks it up
    (plain,) = [c for c in made_records(spec, Evidence({"split_up": pairs})) if c.tool == "split_up"]
    assert plain.entities[0].refs == {}


def test_a_tool_answering_one_new_record_a_call_creates_it_and_old_records_are_no_evidence(tmp_path) -> None:
    spec, _ = _spec(tmp_path)

    def copy(title: str, key: int) -> Pair:
        real = {"copy": {"id": key, "title": title, "status": "pending"}, "of": {"id": 1, "title": "Plan the trip"}}
        return Pair({"task_id": 1, "title": title}, True, real, True, "ok", state=HELD)

    pairs = [copy("one", 2), copy("two", 3)]
    (candidate,) = [c for c in made_records(spec, Evidence({"duplicate": pairs})) if c.tool == "duplicate"]
    effect = candidate.behaviour.effect
    assert (effect.kind, effect.args, effect.defaults) == ("create", {"title": "title"}, {"status": "pending"})
    # a reply naming only records the model holds makes nothing: no candidate
    read = [Pair({"task_id": 1}, True, {"task": {"id": 1, "title": "Plan the trip"}}, True, "ok", state=HELD)] * 3
    assert not [c for c in made_records(spec, Evidence({"duplicate": read})) if c.tool == "duplicate"]
    # nor one naming them under keys the real side mints each run: the seeded task, by its title
    minted = [Pair({"task_id": 1, "title": "Plan the trip"}, True, {"items": [{"id": 90 + i, "title": "Plan the trip",
                                                                  "status": "pending"}]}, True, [], state=HELD)
              for i in range(3)]  # fmt: skip
    assert not [c for c in made_records(spec, Evidence({"duplicate": minted})) if c.tool == "duplicate"]


def test_a_new_record_titled_as_a_starting_one_is_not_paired_with_it() -> None:
    started = StartingRecords({"task": {1: {"id": 1, "title": "Buy milk"}}})
    # both sides minted 4 for the record a create made: known, so no starting record takes it over
    aliases = Aliases()
    aliases.pair({"task": {"id": 4, "title": "Buy milk"}}, {"task": {"id": 4, "title": "Buy milk"}})
    aliases.pair_started({"task": {"id": 4, "title": "Buy milk"}}, started)
    assert aliases.translate([1, 4]) == [1, 4]
    # a list holding the starting record and a new one of the same title: only the one with its ids is it
    listed = Aliases()
    listed.pair_started([{"id": 5, "title": "Buy milk"}, {"id": 1, "title": "Buy milk"}], started)
    assert listed.translate([1, 5]) == [1, 5]
    # a starting record the real side minted its own id for is still paired with the model's
    minted = Aliases()
    minted.pair_started([{"id": "t-9f2c", "title": "Buy milk"}], started)
    assert minted.translate("t-9f2c") == 1
    # and once paired, another real id is not paired onto the same model record
    minted.pair_started([{"id": "t-0b7a", "title": "Buy milk"}], started)
    assert minted.translate("t-0b7a") == "t-0b7a"


def test_a_paired_number_is_translated_where_it_names_a_record_only() -> None:
    # a table's row 1 answered where the model holds "record_0001": that number elsewhere is no record
    aliases = Aliases()
    aliases.pair({"id": 1, "name": "Ada"}, {"id": "record_0001", "name": "Ada"})
    schema = [{"cid": 1, "name": "name", "notnull": 1, "pk": 0}, {"cid": 0, "name": "id", "pk": 1}]
    assert aliases.translate(schema) == schema
    assert aliases.translate({"tableCount": 1, "insertedId": 1, "contact_id": 1, "ids": [1], "from": 1}) == {
        "tableCount": 1, "insertedId": "record_0001", "contact_id": "record_0001", "ids": ["record_0001"],
        "from": "record_0001"}  # fmt: skip
    assert aliases.translate(1) == "record_0001"  # a whole reply that is the number: the record made
    assert aliases.translate({"note": "see 1"}) == {"note": "see 1"}


def test_an_id_the_call_was_given_is_not_paired_with_what_the_model_made_up_in_its_place() -> None:
    """``decompose_task(id=2)``: the real side answers its parent 2 and subtasks 6, 7 under it; a model
    that answers a made-up parent ``OD-1`` beside subtasks it minted pairs the subtasks, not the parent —
    the call named record 2, it did not make it — so what later calls and replies say of 2 stays 2. A
    given id answered as a record the model holds is paired (a create given its key, which the model
    stored under a key of its own minting)."""
    real = {
        "parent": {"id": 2, "title": "Call Bob"},
        "subtasks": [{"id": 6, "title": "her", "parent_id": 2}, {"id": 7, "title": "it", "parent_id": 2}],
    }
    model = {"parent": {"id": "OD-1", "title": "x"},
             "subtasks": [{"id": "t_6", "title": "her", "parent_id": "OD-1"}, {"id": "t_7", "title": "it",
                                                                                "parent_id": "OD-1"}]}  # fmt: skip
    aliases = Aliases()
    aliases.pair(real, model, given={"id": 2, "into": ["her", "it"]}, holds={"t_6", "t_7"}.__contains__)
    assert aliases.translate({"id": 2, "ids": [6, 7]}) == {"id": 2, "ids": ["t_6", "t_7"]}
    # an id paired before the call keeps its pair
    aliases.mapping[2] = "t_2"
    aliases.pair(real, model, given={"id": 2})
    assert aliases.translate({"parent_id": 2}) == {"parent_id": "t_2"}
    # without the arguments, the made-up parent is paired (what the call was given is not known)
    blind = Aliases()
    blind.pair(real, model)
    assert blind.translate({"id": 2}) == {"id": "OD-1"}
    # a create given its own key, stored by the model under one it minted: that record is held, paired
    made = Aliases()
    made.pair({"user_id": "u1"}, {"user_id": "user_0001"}, given={"user_id": "u1"}, holds={"user_0001"}.__contains__)
    assert made.translate("u1") == "user_0001"
