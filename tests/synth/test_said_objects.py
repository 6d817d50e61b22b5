"""What the prose says a tool acts on, where its name does not: a bare verb's object, a record's
handle under a word other than ``id``, and references to records no tool can make."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envfactory.ir.effect import CreateEffect, ListEffect
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.intents import said_object

JSON = dict[str, Any]
STR = {"type": "string"}


def _write(tmp_path: Path, tools: list[tuple[str, str, JSON, list[str]]]) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"type": "function", "function": {
        "name": name, "description": text, "parameters": {"type": "object", "properties": props, "required": req}}}
        for name, text, props, req in tools]))  # fmt: skip
    return path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Add one note to a notebook file.", ["note"]),
        ("Remove the given bookmark.", ["bookmark"]),
        ("List and sort invoices by date.", ["invoices"]),
        ("Create a new shipping label for an order", ["shipping", "label"]),
        ("Archive every stale draft that is older than a week.", ["stale", "draft"]),
        ("", []),
    ],
)
def test_the_object_of_a_descriptions_opening_verb_is_read(text: str, words: list[str]) -> None:
    assert said_object(text) == words


def test_a_tool_named_only_by_its_verb_acts_on_what_its_description_names(tmp_path: Path) -> None:
    spec = synthesize(_write(tmp_path, [
        ("add", "Add one note to a notebook.", {"title": STR, "body": STR}, ["title"]),
        ("list", "List and filter notes in the notebook.", {"title": STR}, []),
    ]), state="empty")  # fmt: skip
    assert spec.behaviour("add").effect == CreateEffect(entity="note", args={"title": "title", "body": "body"})
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    made = episode.call_tool("add", {"title": "groceries", "body": "eggs"})
    assert made.ok and made.data["title"] == "groceries"
    assert [n["title"] for n in episode.call_tool("list", {}).data] == ["groceries"]


def test_a_records_handle_is_its_key_and_a_list_of_handles_names_rows(tmp_path: Path) -> None:
    ref, refs = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
    spec = synthesize(_write(tmp_path, [
        ("create_card", "Create a card.", {"title": STR}, ["title"]),
        ("edit_card", "Edit a card's title.", {"card_ref": ref, "title": STR}, ["card_ref"]),
        ("archive_card", "Mark a card as archived.", {"card_ref": ref}, ["card_ref"]),
        ("show_cards", "Show cards by their refs.", {"card_refs": refs}, ["card_refs"]),
    ]), state="empty")  # fmt: skip
    card = spec.state_schema["card"]
    assert "card_ref" not in card.fields and "card_refs" not in card.fields
    show = spec.behaviour("show_cards").effect
    assert isinstance(show, ListEffect) and [(f.arg, f.field, f.op) for f in show.filters] == [
        ("card_refs", card.key, "in")
    ]
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    first = episode.call_tool("create_card", {"title": "one"}).data[card.key]
    episode.call_tool("create_card", {"title": "two"})
    assert episode.call_tool("edit_card", {"card_ref": first, "title": "uno"}).ok
    assert [c["title"] for c in episode.call_tool("show_cards", {"card_refs": [first]}).data] == ["uno"]


def _notes(tmp_path: Path, state: str) -> Any:
    return synthesize(_write(tmp_path, [
        ("save_note", "Save a note in a folder.", {"content": STR, "folder_id": STR}, ["content"]),
        ("list_notes", "List the notes of a folder.", {"folder_id": STR}, []),
        ("list_folders", "List every folder.", {}, []),
    ]), state=state)  # fmt: skip


def test_a_reference_to_records_no_tool_makes_is_not_looked_up_where_none_exist(tmp_path: Path) -> None:
    spec = _notes(tmp_path, "empty")
    assert spec.state_schema["note"].refs == {"folder_id": "folder"}
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    saved = episode.call_tool("save_note", {"content": "milk", "folder_id": "home"})
    assert saved.ok, saved.content  # no folder can ever exist: refusing would refuse every note
    assert [n["content"] for n in episode.call_tool("list_notes", {"folder_id": "home"}).data] == ["milk"]
    seeded = Environment(_notes(tmp_path, "seeded")).episode()  # seeded folders: a note names one of them
    seeded.reset(seed=0)
    assert seeded.call_tool("save_note", {"content": "milk", "folder_id": "nowhere"}).error == "not_found"


def test_a_reference_to_records_with_fields_of_their_own_is_still_looked_up(tmp_path: Path) -> None:
    spec = synthesize(_write(tmp_path, [  # contacts hold a name and an e-mail: data the real thing keeps
        ("add_note", "Add a note about a contact.", {"contact_id": STR, "text": STR}, ["contact_id", "text"]),
        ("get_contact", "Get a contact.\n\nReturns:\n    {id, name, email}", {"contact_id": STR}, ["contact_id"]),
    ]), state="empty")  # fmt: skip
    effect = spec.behaviour("add_note").effect
    assert isinstance(effect, CreateEffect) and effect.unchecked == ()
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("add_note", {"contact_id": "c9", "text": "called"}).error == "not_found"
    fetched = synthesize(_write(tmp_path, [  # nothing said of what a contact holds, but it is read by its key
        ("add_note", "Add a note about a contact.", {"contact_id": STR, "text": STR}, ["contact_id", "text"]),
        ("get_contact", "Get a contact.", {"contact_id": STR}, ["contact_id"]),
    ]), state="empty")  # fmt: skip
    assert fetched.behaviour("add_note").effect.unchecked == ()  # type: ignore[union-attr]
