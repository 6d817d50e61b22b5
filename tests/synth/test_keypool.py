"""The replay's arguments: known values where a real caller would use them, compared as a caller would."""

from __future__ import annotations

import random
from collections import Counter

from envfactory.real.agreement import _same_output, same_value
from envfactory.real.keypool import DEFAULTED, KeyPool
from envfactory.values import ValueMaker

TOKEN = {"type": "object", "properties": {"access_token": {"type": "string"}}, "required": ["access_token"]}


def test_a_value_learned_under_the_arguments_own_name_is_preferred() -> None:
    keys = KeyPool(["alice", "bob", "report.txt"])
    keys.learn({"access_token": "tok-1", "user_id": "u-7", "name": "carol"})
    rng, maker = random.Random(0), ValueMaker(0, "2025-01-01T00:00:00Z")
    drawn = Counter(keys.arguments(TOKEN, rng, maker)["access_token"] for _ in range(1000))
    # 80% take a known value, three quarters of those the token itself: ~0.6 + 0.2 / 6 of the rest
    assert 0.58 < drawn["tok-1"] / 1000 < 0.70
    assert drawn["alice"] > 0  # other known values still come, so a wrong token is tried too


def test_without_a_value_of_its_own_name_any_known_value_is_drawn() -> None:
    keys = KeyPool(["alice", "bob"])
    rng, maker = random.Random(1), ValueMaker(1, "2025-01-01T00:00:00Z")
    drawn = Counter(keys.arguments(TOKEN, rng, maker)["access_token"] for _ in range(500))
    assert 0.74 < (drawn["alice"] + drawn["bob"]) / 500 < 0.86


def test_an_optional_argument_with_a_declared_default_is_left_out_more_often() -> None:
    # a list's paging and filters: given at random, most lists answer nothing (``offset: 962``)
    schema = {"type": "object", "properties": {"offset": {"type": "integer", "default": 0},
                                               "query": {"type": "string"}}}  # fmt: skip
    rng, maker = random.Random(2), ValueMaker(2, "2025-01-01T00:00:00Z")
    given = Counter(k for _ in range(2000) for k in KeyPool(defaulted=DEFAULTED).arguments(schema, rng, maker))
    assert 0.22 < given["offset"] / 2000 < 0.28  # exploring: a quarter of the calls
    assert 0.47 < given["query"] / 2000 < 0.53  # half
    measured = Counter(k for _ in range(2000) for k in KeyPool().arguments(schema, rng, maker))
    assert 0.47 < measured["offset"] / 2000 < 0.53  # the instrument's sequences: half, as any optional one


def test_guessed_keys_go_once_the_real_side_shows_keys_of_its_own() -> None:
    # the model keyed the setup's records todo_0001, todo_0002; the server minted UUIDs
    minted = KeyPool(["{tmp}"], guesses=["todo_0001", "todo_0002"])
    minted.learn({"todos": [{"id": "3f2a-uuid", "text": "Buy milk"}]})
    minted.drop_guesses()
    assert minted.values == ["{tmp}", "3f2a-uuid"]
    # a server keying them alike shows the guesses: they stay, as do guesses when no key was shown
    alike = KeyPool(guesses=["alice", "bob"])
    alike.learn({"people": [{"name": "alice"}, {"name": "bob"}]})
    alike.drop_guesses()
    assert alike.values == ["alice", "bob"]
    prose = KeyPool(guesses=["todo_0001"])
    prose.learn("1. Buy milk")
    prose.drop_guesses()
    assert prose.values == ["todo_0001"]
    stated = KeyPool(guesses=["todo_0001"])  # prose that states an id of its own shows a key
    stated.learn("1. Buy milk (id 3f2a)")
    stated.drop_guesses()
    assert stated.values == ["3f2a"]


def test_numbers_agree_within_a_relative_millionth_and_booleans_only_with_booleans() -> None:
    assert same_value({"liter": 382.7806592}, {"liter": 101.12 * 3.785411784})  # 3.78541 vs the exact factor
    assert same_value([3, {"a": 2.0}], [3.0, {"a": 2}])
    assert not same_value({"liter": 1.0}, {"liter": 1.001})
    assert not same_value(True, 1) and not same_value({"a": 1}, {"a": 1, "b": 2})
    assert not same_value([1, 2], [1, 2, 3])


def test_an_answer_of_nothing_agrees_with_any_other_answer_of_nothing() -> None:
    assert _same_output(None, {}) and _same_output([], "") and _same_output({"a": 1.0}, {"a": 1})
    assert not _same_output(None, {"status": "ok"}) and not _same_output(0, None) and not _same_output(False, [])


def test_an_id_each_side_answers_under_its_own_name_is_paired() -> None:
    """A create answering ``{"success": true, "task_id": ...}`` where the model answers its record."""
    from envfactory.real.keypool import Aliases

    aliases = Aliases()
    aliases.pair({"success": True, "task_id": "task-9f2c"}, {"id": "task_0003", "story_id": "story_0001", "n": 1})
    assert aliases.translate({"task_id": "task-9f2c"}) == {"task_id": "task_0003"}
    unclear = Aliases()  # two ids on the model's side, neither its record's own: nothing is guessed
    unclear.pair({"ok": True, "task_id": "t-1"}, {"task_ref": "task_0003", "story_id": "story_0001"})
    assert unclear.mapping == {}


def test_a_records_own_key_is_drawn_for_the_argument_named_after_its_holder() -> None:
    # a list answered {"todos": [{"id": ...}]}: its ids are what ``todo_id`` means, not a file's path
    keys = KeyPool()
    keys.learn({"todos": [{"id": "u-1", "text": "milk"}, {"id": "u-2"}], "file": {"path": "/tmp/todo.txt"}})
    keys.learn({"task": {"id": 7}})
    schema = {"type": "object", "properties": {"todo_id": {"type": "string"}}, "required": ["todo_id"]}
    rng, maker = random.Random(3), ValueMaker(3, "2025-01-01T00:00:00Z")
    drawn = Counter(keys.arguments(schema, rng, maker)["todo_id"] for _ in range(1000))
    # 80% known, three quarters of those under its own name: 0.6 + 0.2 * 2/3 of the rest are the two ids
    assert 0.68 < (drawn["u-1"] + drawn["u-2"]) / 1000 < 0.80
    assert keys.by_field["taskId"] == [7] and keys.by_field["task_id"] == [7]
    assert "path_id" not in keys.by_field and "file_path" in keys.by_field


def test_ids_a_reply_states_in_prose_are_drawn_for_later_calls() -> None:
    """A create answered "Task created successfully with ID: 7" or "Saved! #12": later calls name
    those records, as a person reading the reply would (a number as a number)."""
    import random

    from envfactory.real.keypool import KeyPool, stated_ids
    from envfactory.values import ValueMaker

    assert stated_ids("Task created successfully with ID: 7") == [7]
    assert stated_ids("💸 Saved! #12\nAmount: ₹124") == [12]
    assert stated_ids("Your id is XK-55; see #heading") == ["XK-55"]
    marked = "### Write the API\n**ID:** `2f929847-f86a`\n(ID: `9c1e-77`)"
    assert stated_ids(marked, marked=True) == ["2f929847-f86a", "9c1e-77"] and stated_ids(marked) == []
    pool = KeyPool()
    pool.learn({"result": "Task created successfully with ID: 7"})
    pool.learn("💸 Saved! #12")
    schema = {"type": "object", "properties": {"task_id": {"type": "integer"}}, "required": ["task_id"]}
    rng, maker = random.Random(0), ValueMaker(0)
    drawn = [pool.arguments(schema, rng, maker)["task_id"] for _ in range(50)]
    assert {7, 12} <= set(drawn) and sum(d in (7, 12) for d in drawn) > 25


def test_two_records_alike_in_name_are_paired_by_the_ids_both_sides_counted() -> None:
    """Two tasks both named "Soon", ids 1 and 2 on both sides; the model stored the first one's
    status otherwise: the real 1 is the model's 1, not the model's 2 (which agrees on every text)."""
    from envfactory.real.keypool import Aliases, matched_records

    real = [{"id": 1, "name": "Soon", "status": "active"}, {"id": 2, "name": "Soon", "status": "active"}]
    model = [{"id": 1, "name": "Soon", "status": "none"}, {"id": 2, "name": "Soon", "status": "active"}]
    assert [(a["id"], b["id"]) for a, b in matched_records(real, model)] == [(1, 1), (2, 2)]
    aliases = Aliases()
    aliases.pair(real, model)
    assert aliases.translate(real)[0]["id"] == 1 and aliases.translate(real)[1]["id"] == 2
    # ids each side minted its own way still pair by the texts
    minted = [{"id": "a1", "name": "Soon", "status": "active"}]
    assert matched_records(minted, [{"id": "task_0001", "name": "Soon", "status": "active"}])


def test_a_folder_the_server_keeps_its_files_in_is_drawn_for_paths_only() -> None:
    """A workbook server started on ``{tmp}/book.xlsx``: an argument taking a path gets the paths the
    setup named, never a title or an id (a task server keeping its store in the folder)."""
    import random

    from envfactory.real.keypool import KeyPool, path_like

    assert path_like("fileAbsolutePath") and path_like("output_dir") and not path_like("parent_id")
    pool = KeyPool(["Inventory"], paths=["{tmp}/book.xlsx", "{tmp}"])
    rng, maker = random.Random(0), ValueMaker(0)
    schema = {"type": "object", "required": ["fileAbsolutePath", "sheetName", "parent_id"],
              "properties": {"fileAbsolutePath": {"type": "string"}, "sheetName": {"type": "string"},
                             "parent_id": {"type": "string"}}}  # fmt: skip
    drawn = [pool.arguments(schema, rng, maker) for _ in range(200)]
    assert sum(d["fileAbsolutePath"] in ("{tmp}/book.xlsx", "{tmp}") for d in drawn) > 100
    assert not any("{tmp}" in str(d["sheetName"]) or "{tmp}" in str(d["parent_id"]) for d in drawn)


def test_files_a_reply_names_in_prose_are_drawn_for_arguments_taking_a_file() -> None:
    """A backlog tool answering "Filed: Projects/plan-the-launch.md" and a backup answering "Backed
    up leads.json, prospects.json": a later ``read_file(path)`` or ``intake(file)`` names those files
    (``file`` is no identifier, and takes no other key), as a person reading the reply would; a web
    address, ``e.g.`` or a version number names no file."""
    import random

    from envfactory.real.keypool import KeyPool, stated_paths

    assert stated_paths("Filed: Projects/plan-the-launch.md") == ["Projects/plan-the-launch.md"]
    assert stated_paths("Backed up leads.json, prospects.json.") == ["leads.json", "prospects.json"]
    assert stated_paths("Note 'My plan.md' created in {tmp}/vault/notes.md") == ["My plan.md", "{tmp}/vault/notes.md"]
    assert stated_paths("see https://example.com/a/b.json, e.g. mail ann@example.org, v1.2.3, 12/07/2026") == []
    plain = KeyPool(["rec_1"])  # as the yardstick draws, which stays put: no file read off prose
    plain.learn("Backed up leads.json")
    assert plain.paths == [] and plain.arguments({"properties": {"file": {"type": "string"}}, "required": ["file"]},
                                                 random.Random(0), ValueMaker(0))["file"] != "leads.json"  # fmt: skip
    pool = KeyPool(["rec_1"], aimed=True)
    pool.learn({"result": "Filed: Projects/plan-the-launch.md"})
    pool.learn("Backed up leads.json")
    text = {"type": "string"}
    schema = {"type": "object", "required": ["path", "file", "title"],
              "properties": {"path": text, "file": text, "title": text}}  # fmt: skip
    rng, maker = random.Random(0), ValueMaker(0)
    drawn = [pool.arguments(schema, rng, maker) for _ in range(200)]
    files = {"Projects/plan-the-launch.md", "leads.json"}
    assert sum(d["path"] in files for d in drawn) > 100 and sum(d["file"] in files for d in drawn) > 120
    assert not any(d["file"] == "rec_1" for d in drawn)  # an id is no file
    assert not any(d["title"] in files for d in drawn)  # nor is a file a title
    assert not any(str(d["path"]).startswith(tuple(f + "/" for f in files)) for d in drawn)  # nothing "inside" a file


def test_an_argument_takes_the_keys_of_what_it_names_first() -> None:
    """A tool set of timers and notes, both keyed by a bare ``id``: ``timer_pause(id)`` names the
    timers ``timer_start`` answered, ``note_comment_add(note_id)`` the notes ``note_create`` answered —
    not a note's id for a timer, as a person calling them would."""
    import random

    from envfactory.real.keypool import KeyPool, owners, tool_nouns

    assert tool_nouns("timer_delete") == ("timer",) and tool_nouns("getTaskById") == ("task",)
    assert owners("todo_id", ("comment",)) == [("todo", "id")] and owners("id", ("timer",)) == [("timer", "id")]
    assert owners("task_refs", ()) == [("task", "id")]
    # a vault every tool names is the vault's, in whatever tool it was answered
    assert owners("vault", ("note",)) == owners("vault", ("directory",)) == [("vault", "id")]
    pool = KeyPool(aimed=True)
    for n in range(3):
        pool.learn({"id": f"t{n}", "label": "tea"}, scope=tool_nouns("timer_start"))
        pool.learn({"id": f"n{n}", "title": "plan"}, scope=tool_nouns("note_create"))
    rng, maker = random.Random(0), ValueMaker(0)
    schema = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    timers = [pool.arguments(schema, rng, maker, tool_nouns("timer_pause"))["id"] for _ in range(400)]
    # 80% known; three quarters of those a timer's, the rest any id: about 0.8 * (0.75 + 0.25 / 2) = 0.7
    assert 0.62 < sum(t.startswith("t") for t in timers) / 400 < 0.78
    assert sum(t.startswith("n") for t in timers) / 400 < 0.18
    linked = {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]}
    notes = [pool.arguments(linked, rng, maker, tool_nouns("comment_add"))["note_id"] for _ in range(400)]
    assert sum(n.startswith("n") for n in notes) / 400 > 0.62


def test_an_argument_named_after_a_thing_takes_the_keys_replies_gave_it() -> None:
    """``todo_list(project)``: a project is known by the ``name`` ``project_register`` answered, so
    the argument takes it (not a random word, which the real side refuses); the yardstick's plain pool,
    and an argument named after nothing a reply keyed, draw as before."""
    import random

    from envfactory.real.keypool import KeyPool, tool_nouns

    schema = {"type": "object", "properties": {"project": {"type": "string"}}, "required": ["project"]}

    def drawn(aimed: bool, field: str = "project") -> list[str]:
        pool = KeyPool(aimed=aimed)
        pool.learn({"name": "q4", "path": "/tmp/x"}, scope=tool_nouns("project_register"))
        rng, maker = random.Random(0), ValueMaker(0)
        wanted = {**schema, "properties": {field: {"type": "string"}}, "required": [field]}
        return [pool.arguments(wanted, rng, maker, tool_nouns("todo_list"))[field] for _ in range(200)]

    assert 0.7 < drawn(True).count("q4") / 200 < 0.9  # SHARE of the time
    assert drawn(False).count("q4") == 0
    assert drawn(True, "category").count("q4") == 0
    assert KeyPool(aimed=True).named("project_name") == []  # a key word: an identifying argument, drawn as such
