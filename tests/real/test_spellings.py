"""Arguments read in the spelling the real thing reads them in (``spellings``)."""

from __future__ import annotations

import json

import pytest

from envfactory.errors import EnvSpecError
from envfactory.ingest import load
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.runtime.spelling import SPELLINGS, spelt
from envfactory.synth import synthesize
from envfactory.synth.candidates import Evidence, Pair
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.spellings import spellings

TOOLS = [
    {"name": "create_note", "description": "Create a note.",
     "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}, "body": {"type": "string"}},
                     "required": ["name"]}},
    {"name": "list_notes", "description": "List the notes.", "inputSchema": {"type": "object", "properties": {}}},
]  # fmt: skip


def _spec(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    return synthesize(load(path), state="empty", name="notes")


def test_each_spelling_spells_as_its_name_says() -> None:
    said = {name: SPELLINGS[name]("  Foot High_and-Low ") for name in SPELLINGS}
    assert said == {
        "lower": "  foot high_and-low ", "upper": "  FOOT HIGH_AND-LOW ", "stripped": "Foot High_and-Low",
        "hyphenated": "Foot-High_and-Low", "underscored": "Foot_High_and_Low", "spaced": "Foot High and Low",
        "lower-hyphenated": "foot-high_and-low", "lower-underscored": "foot_high_and_low",
        "lower-spaced": "foot high and low"}  # fmt: skip
    # only text arguments it names; the arguments given are not changed
    given = {"name": "GT-92413", "n": 3, "other": "GT-1"}
    assert spelt(given, {"name": "lower-spaced", "n": "lower", "x": "upper"}) == {
        "name": "gt 92413", "n": 3, "other": "GT-1"}  # fmt: skip
    assert given["name"] == "GT-92413"


def test_a_tool_reads_its_argument_spelt_before_its_checks_effect_and_wording(tmp_path) -> None:
    spec = _spec(tmp_path)
    behaviours = tuple(b.model_copy(update={"spellings": {"name": "hyphenated"}}) if b.tool == "create_note" else b
                       for b in spec.behaviours)  # fmt: skip
    episode = Environment(spec.model_copy(update={"behaviours": behaviours})).episode()
    assert episode.call_tool("create_note", {"name": "Foot High"}).ok
    assert [n["name"] for n in episode.call_tool("list_notes", {}).data] == ["Foot-High"]


def test_a_spelling_nobody_registered_is_a_clear_error_naming_the_tool_and_argument(tmp_path) -> None:
    spec = _spec(tmp_path)
    behaviours = tuple(b.model_copy(update={"spellings": {"name": "title-case"}}) if b.tool == "create_note" else b
                       for b in spec.behaviours)  # fmt: skip
    with pytest.raises(EnvSpecError, match=r"tool 'create_note': spellings not known: name: title-case \(known: lower"):
        Environment(spec.model_copy(update={"behaviours": behaviours}))


def test_a_spelling_is_proposed_where_replies_hold_only_it(tmp_path) -> None:
    spec = _spec(tmp_path)

    def made(name: str, shown: str) -> Pair:
        return Pair({"name": name}, True, {"saved": f"Note '{shown}' saved"}, True, {"name": name})

    (candidate,) = spellings(spec, Evidence({"create_note": [made("GT-92413", "gt 92413"), made("ideas", "ideas"),
                                                            made("Big Plan", "big plan")]}))  # fmt: skip
    assert candidate.behaviour.spellings == {"name": "lower-spaced"} and candidate.summary == "reads name lower-spaced"
    # shown once only: too little; a reply holding the value as given: the argument is read as given
    assert spellings(spec, Evidence({"create_note": [made("GT-92413", "gt 92413")]})) == []
    mixed = [made("GT-92413", "gt 92413"), made("Big Plan", "big plan"), made("Two Words", "Two Words")]
    assert spellings(spec, Evidence({"create_note": mixed})) == []


def test_the_chooser_keeps_a_spelling_the_lists_after_the_writes_bear_out(tmp_path) -> None:
    spec = _spec(tmp_path)
    names = ["Foot High", "Big Plan", "Red Door", "Cold Tea", "Blue Sky", "Long Road"]
    sequences = []
    for s, name in enumerate(names):
        shown = name.replace(" ", "-")
        sequences.append(Sequence(id=s, calls=(
            TraceCall(tool="create_note", arguments={"name": name}, ok=True, output={"name": shown}, sequence=s),
            TraceCall(tool="list_notes", arguments={}, ok=True, output=[{"name": shown}], sequence=s))))  # fmt: skip
    learned = choose(spec, Trace(source="t", sequences=tuple(sequences)))
    assert learned.behaviour("create_note").spellings == {"name": "hyphenated"}
    episode = Environment(learned).episode()
    episode.call_tool("create_note", {"name": "Green Hill"})
    assert "Green-Hill" in json.dumps(episode.call_tool("list_notes", {}).data)


def test_a_spelling_under_a_learned_wording_is_worded_anew_before_it_is_judged(tmp_path) -> None:
    """A wording learned before a spelling may hold the argument as a literal where the real side
    spelt it otherwise (``project 'kq 24210'``): the spelling alone changes no reply, so the chooser
    words the tool anew on top of it (``_hidden``), as it does for a change of what a tool does."""
    from envfactory.ir.choice import Answer
    from envfactory.synth.candidates import Candidate
    from envfactory.synth.chooser import _hidden

    spec = _spec(tmp_path)
    behaviour = spec.behaviour("list_notes")
    spelt_one = behaviour.model_copy(update={"spellings": {"name": "lower-spaced"}})
    candidate = Candidate("list_notes", "spellings", "reads name lower-spaced", spelt_one)
    assert not _hidden(candidate, spec)  # no learned wording: the spelling is judged as it is
    worded = behaviour.model_copy(update={"answer": Answer(kind="template", template="No notes for 'kq 24210'")})
    current = spec.model_copy(update={"behaviours": tuple(worded if b.tool == "list_notes" else b
                                                          for b in spec.behaviours)})  # fmt: skip
    assert _hidden(candidate, current)
    same = Candidate("list_notes", "template", "answers as it is", worded)
    assert not _hidden(same, current)  # a wording alone changes neither
