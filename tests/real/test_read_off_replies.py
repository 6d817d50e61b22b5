"""What replies say beyond the call: what an omitted argument stood for, and the values records name."""

from __future__ import annotations

import json

from envfactory.ingest import load
from envfactory.ir.effect import CreateEffect, ListEffect
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.answers import distinct, fill
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.omitted import kept_as_read, omitted_read
from envfactory.synth.proposers.shapes import template_of

TOOLS = [
    {"name": "save_note", "description": "Save a note in a folder.",
     "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}, "folder": {"type": "string"}},
                     "required": ["title"]}},
    {"name": "list_folders", "description": "List the folders notes are in.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "list_notes", "description": "List the notes of a folder.",
     "inputSchema": {"type": "object", "properties": {"folder": {"type": "string"}}}},
]  # fmt: skip


def test_an_omitted_argument_stands_for_the_one_value_the_replies_show_in_its_place() -> None:
    template = "Saved {arg.title} in {arg.folder} (level {arg.level}/10)"
    worded = ["Saved {arg.title} in {arg.folder} (level {arg.level}/10)",
              "Saved {arg.title} in inbox (level {arg.level}/10)", "Saved {arg.title} in inbox (level 5/10)",
              "Saved {arg.title} in inbox (level 5/10)"]  # fmt: skip
    given = [{"title": "a", "folder": "work", "level": 2}, {"title": "b", "level": 3}, {"title": "c"}, {"title": "d"}]
    schema = {"properties": {"level": {"type": "integer"}}}
    assert omitted_read(template, worded, given, schema) == {"folder": "inbox", "level": 5}
    # in objects too; a value shown once, or two values, say nothing
    assert omitted_read({"folder": "{arg.folder}"}, [{"folder": "inbox"}, {"folder": "inbox"}], [{}, {}], {}) == {
        "folder": "inbox"}  # fmt: skip
    assert omitted_read(template, worded[:3], given[:3], schema) == {"folder": "inbox"}
    assert omitted_read(template, [worded[1], worded[1].replace("inbox", "later")], given[1:3], schema) == {}


def test_a_create_stores_what_its_replies_say_an_omitted_argument_stood_for_but_not_a_word_for_nothing(
    tmp_path,
) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    saving = synthesize(load(path), state="empty", name="notes").behaviour("save_note")
    assert isinstance(saving.effect, CreateEffect) and saving.effect.args.get("folder") == "folder"
    assert kept_as_read(saving, {"folder": "inbox"}).effect.defaults == {"folder": "inbox"}
    assert kept_as_read(saving, {"folder": "none"}) == saving and kept_as_read(saving, {}) == saving
    # a list filters by it: "No notes found in folder 'inbox'" where no folder was given
    listing = synthesize(load(path), state="empty", name="notes").behaviour("list_notes")
    assert isinstance(listing.effect, ListEffect) and [f.arg for f in listing.effect.filters] == ["folder"]
    (kept,) = kept_as_read(listing, {"folder": "inbox"}).effect.filters  # type: ignore[union-attr]
    assert (kept.arg, kept.op, kept.default) == ("folder", "eq", "inbox")


def test_the_values_records_name_are_listed_each_once_first_held_or_sorted() -> None:
    notes = [{"id": 1, "folder": "work", "tags": ["b", "a"]}, {"id": 2, "folder": "home", "tags": ["a"]},
             {"id": 3, "folder": "work"}]  # fmt: skip
    assert distinct(notes, "folder") == [{"folder": "work"}, {"folder": "home"}]
    assert distinct(notes, "tags", sort=True) == [{"tags": "a"}, {"tags": "b"}]
    # a text listing them, and a list of them, are worded from the state: a folder made later is listed
    state = {"note": notes}
    text = template_of("Folders (2):\n- home\n- work\nend", {}, [], None, state)
    values = template_of({"folders": ["home", "work"]}, {}, None, None, state)
    later = {"note": [*notes, {"id": 4, "folder": "arch"}]}
    assert fill(text, {}, None, state=lambda e: later[e]) == "Folders (3):\n- arch\n- home\n- work\nend"
    assert fill(values, {}, None, state=lambda e: later[e]) == {"folders": ["arch", "home", "work"]}
    # values held once each too: the contexts of todo.txt lines, each in one line
    contexts = template_of(
        {"contexts": ["a", "b"]}, {}, None, None, {"todo": [{"id": 1, "ctx": ["b"]}, {"id": 2, "ctx": ["a"]}]}
    )
    assert contexts == {"contexts": {"$each": "state.todo", "distinct": "ctx", "order": "sorted", "item": "{item.ctx}"}}
    # a list no field's values make stays as it is
    assert template_of({"ids": [7, 9]}, {}, None, None, state) == {"ids": [7, 9]}


def test_a_tally_by_group_is_worded_from_the_values_records_hold_and_how_many_hold_each() -> None:
    notes = [{"id": "n1", "folder": "work", "tags": ["b", "a"]}, {"id": "n2", "folder": "home", "tags": ["a", "a"]},
             {"id": "n3", "folder": "work"}]  # fmt: skip
    assert distinct(notes, "folder", counted=True) == [{"folder": "work", "$count": 2}, {"folder": "home", "$count": 1}]
    assert distinct(notes, "tags", sort=True, counted=True) == [{"tags": "a", "$count": 2}, {"tags": "b", "$count": 1}]
    # ``{"areas": [{"area": "work", "n": 2}, ...]}`` read where three notes were held: a later state's tally
    real = {"areas": [{"area": "work", "n": 2}, {"area": "home", "n": 1}]}
    tally = template_of(real, {}, None, None, {"note": notes})
    assert tally == {"areas": {"$each": "state.note", "distinct": "folder", "counted": True,
                               "item": {"area": "{item.folder}", "n": "{item.$count}"}}}  # fmt: skip
    later = [*notes, {"id": "n4", "folder": "home"}, {"id": "n5", "folder": "zoo"}]
    assert fill(tally, {}, None, state=lambda e: later) == {
        "areas": [{"area": "work", "n": 2}, {"area": "home", "n": 2}, {"area": "zoo", "n": 1}]}  # fmt: skip
    # one note held, one group of one: a tally too, where no note holds a field ``n``; where notes do, the notes
    one = {"areas": [{"area": "work", "n": 1}]}
    assert template_of(one, {}, None, None, {"note": notes[:1]}) == tally
    numbered = [{**notes[0], "n": 1}]
    assert template_of(one, {}, None, None, {"note": numbered})["areas"]["item"] == {"area": "{item.folder}",
                                                                                   "n": "{item.n}"}  # fmt: skip
    # counts that are not how many hold each value stay as they are
    other = {"areas": [{"area": "work", "n": 5}, {"area": "home", "n": 1}]}
    assert template_of(other, {}, None, None, {"note": notes}) == other


def test_a_wording_right_on_most_leaves_is_offered_beside_the_one_exact_on_most_replies(tmp_path) -> None:
    """A tally's replies, empty while nothing is held: worded literally, a reply is exact wherever
    the list is empty; worded as a tally of what the model holds, right on every reply that lists
    something but wrong where the model holds a record the real side refused (its count wrong there
    too). Member by member the wordings unite (the count from one, the tally from the other), exact
    on fewer replies but right on more of their leaves: that wording is offered too."""
    from envfactory.synth.candidates import Evidence, Pair
    from envfactory.synth.proposers.replies import reply_templates

    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    spec = synthesize(load(path), state="empty", name="notes")
    note = {"id": "n1", "title": "a", "folder": "work"}

    def listed(real: dict[str, object], held: list[dict[str, object]], total: int) -> Pair:
        return Pair({}, True, real, True, {"count": total}, raw=[], state={"note": held})

    empty = {"total": 0, "folders": []}
    pairs = [listed(empty, [], 0) for _ in range(5)] + [listed(empty, [note], 0)]  # the model holds one too many
    pairs += [listed({"total": 1, "folders": [{"folder": "work", "n": 1}]}, [note], 0) for _ in range(2)]  # miscounted
    worded = [c.behaviour.answer.template for c in reply_templates(spec, Evidence({"list_folders": pairs}))
              if c.behaviour.answer is not None]  # fmt: skip
    tally = {"$each": "state.note", "distinct": "folder", "counted": True,
             "item": {"folder": "{item.folder}", "n": "{item.$count}"}}  # fmt: skip
    assert worded == [{"total": "{out.count}", "folders": []}, {"total": "{out.count}", "folders": tally}]


def _trace() -> Trace:
    folders = [("Plan", "work"), ("Milk", None), ("Tax", "home"), ("Call", None), ("Read", "zoo"), ("Gym", None)]
    sequences = []
    for s in range(6):
        calls, held = [], []
        for title, folder in folders[s:] + folders[:s]:
            args = {"title": title} | ({"folder": folder} if folder else {})
            held.append(folder or "inbox")
            calls.append(TraceCall(tool="save_note", arguments=args, ok=True, sequence=s,
                                   output=f"Saved '{title}' in {folder or 'inbox'}"))  # fmt: skip
            if len(held) % 2 == 0:
                shown = sorted(set(held))
                listed = f"Folders ({len(shown)}):\n" + "\n".join(f"- {f}" for f in shown)
                calls.append(TraceCall(tool="list_folders", arguments={}, ok=True, output=listed, sequence=s))
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="t", sequences=tuple(sequences))


def test_learned_a_note_saved_without_a_folder_is_in_the_default_one_and_listed_there(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    spec = synthesize(load(path), state="empty", name="notes")
    learned = choose(spec, _trace())
    episode = Environment(learned).episode()
    assert episode.call_tool("save_note", {"title": "Bills"}).data == "Saved 'Bills' in inbox"
    episode.call_tool("save_note", {"title": "Trip", "folder": "away"})
    episode.call_tool("save_note", {"title": "Cake", "folder": "away"})
    assert episode.call_tool("list_folders", {}).data == "Folders (2):\n- away\n- inbox"


JOURNAL = [{"name": "add_entry", "description": "Add a journal entry.",
            "inputSchema": {"type": "object", "required": ["entry"], "properties": {
                "entry": {"type": "string"}, "mood": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}}}}]  # fmt: skip


def test_a_list_argument_is_worded_as_its_values_joined() -> None:
    assert template_of("Tags: raise, town", {"tags": ["raise", "town"]}, None) == "Tags: {arg.tags|, }"
    assert template_of("Tags: real", {"tags": ["real"]}, None) == "Tags: {arg.tags|, }"  # one value, in a text
    assert template_of({"tags": ["real"]}, {"tags": ["real"]}, None) == {"tags": ["{arg.tags[0]}"]}  # JSON: as it was
    assert fill("Tags: {arg.tags|, }", {"tags": ["a", "b", "c"]}, None) == "Tags: a, b, c"
    assert fill("Tags: {arg.tags|; }", {}, None, {"tags": "none"}) == "Tags: none"  # what an omitted one stood for


def test_replies_each_worded_once_are_one_wording_with_what_omitted_arguments_stood_for(tmp_path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": JOURNAL}))
    spec = synthesize(load(path), state="empty", name="journal")
    calls = [
        ({"entry": "a"}, "not specified", "none"),
        ({"entry": "b", "tags": ["x"]}, "not specified", "x"),
        ({"entry": "c", "mood": "calm"}, "calm", "none"),
        ({"entry": "d", "tags": ["y"], "mood": "glad"}, "glad", "y"),
        ({"entry": "e"}, "not specified", "none"),
        ({"entry": "f", "mood": "sad", "tags": ["p"]}, "sad", "p"),
    ]
    replies = [(a, f"Entry added!\nMood: {m}\nTags: {t}") for a, m, t in calls]
    sequences = tuple(
        Sequence(
            id=s,
            calls=tuple(
                TraceCall(tool="add_entry", arguments=a, ok=True, sequence=s, output=o)
                for a, o in replies[s:] + replies[:s]
            ),
        )
        for s in range(len(replies))
    )
    learned = choose(spec, Trace(source="t", sequences=sequences))
    episode = Environment(learned).episode()
    got = episode.call_tool("add_entry", {"entry": "z", "tags": ["raise", "town", "student"]})
    assert got.data == "Entry added!\nMood: not specified\nTags: raise, town, student", got
    assert episode.call_tool("add_entry", {"entry": "z", "mood": "ok"}).data == "Entry added!\nMood: ok\nTags: none"
