"""Bound classes that need their scenario loaded (BFCL's API classes), and that refuse a call by
returning ``{"error": ...}`` rather than raising."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envfactory.errors import EnvFactoryError
from envfactory.real.instrument import measure
from envfactory.runtime.behaviours import returned_error
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize

NOTES = '''
class Notes:
    """Notes of one user, loaded from a scenario."""

    def __init__(self):
        self.notes: dict

    def _load_scenario(self, scenario: dict) -> None:
        self.notes = dict(scenario.get("notes", {}))

    def add_note(self, title: str, text: str) -> dict:
        """Add a note."""
        if title in self.notes:
            return {"error": f"Note '{title}' already exists."}
        self.notes[title] = text
        return {"added": title}

    def read_note(self, title: str) -> dict:
        """Read a note."""
        if title not in self.notes:
            return {"error": f"Note '{title}' not found."}
        return {"text": self.notes[title]}
'''


@pytest.fixture
def notes(tmp_path: Path) -> tuple[Path, Path]:
    source, scenario = tmp_path / "notes.py", tmp_path / "scenario.json"
    source.write_text(NOTES)
    scenario.write_text(json.dumps({"notes": {"todo": "milk"}}))
    return source, scenario


def test_every_episode_gets_a_fresh_object_loaded_with_the_scenario(notes: tuple[Path, Path]) -> None:
    source, scenario = notes
    spec = synthesize(f"{source}:Notes", bind=True, scenario=str(scenario))
    assert spec.config.scenario == str(scenario.resolve())
    env = Environment(spec, trust_code=True)
    first = env.episode()
    assert first.call_tool("read_note", {"title": "todo"}).data == {"text": "milk"}
    assert first.call_tool("add_note", {"title": "call", "text": "mum"}).ok
    again = first.call_tool("add_note", {"title": "call", "text": "dad"})
    assert again.error == "conflict" and "already exists" in again.content  # a returned {"error": ...}
    assert first.call_tool("read_note", {"title": "nope"}).error == "not_found"
    second = env.episode()  # the scenario again, not what the first episode wrote
    assert second.call_tool("read_note", {"title": "call"}).error == "not_found"


def test_a_scenario_needs_a_bound_class_with_a_loader(notes: tuple[Path, Path], tmp_path: Path) -> None:
    source, scenario = notes
    with pytest.raises(EnvFactoryError, match="bind"):
        synthesize(f"{source}:Notes", trust_code=True, scenario=str(scenario))
    spec = synthesize(f"{source}:Notes", bind=True, scenario=str(scenario), scenario_loader="load_everything")
    with pytest.raises(EnvFactoryError, match="no scenario loader load_everything"):
        Environment(spec, trust_code=True).episode()


def test_fidelity_against_a_class_with_its_scenario(notes: tuple[Path, Path]) -> None:
    source, scenario = notes
    spec = synthesize(f"{source}:Notes", trust_code=True)  # the descriptions only, no binding
    measured = measure(spec, f"{source}:Notes", scenario=str(scenario), sequences=4, length=5)
    assert measured.calls == 20 and measured.outcome is not None
    # no scenario: the object has no notes at all, so every call crashes in its code; the instrument
    # never crashes, and counts those calls apart instead of as refusals to agree with
    bare = measure(spec, f"{source}:Notes", sequences=1, length=2)
    assert bare.calls == 0 and bare.real_crashes == 2


@pytest.mark.parametrize(
    ("result", "code"),
    [({"error": "User 'x' not found in the workspace."}, "not_found"), ({"error": "Ticket already exists"}, "conflict"),
     ({"error": "No user is currently logged in."}, "precondition_failed"), ({"error": 3}, None),
     ({"error": "x", "status": 1}, None), ({"ok": True}, None),
     ([{"error": "User not authenticated. Please log in to view tickets."}], "precondition_failed"),
     ([{"error": "a"}, {"error": "b"}], None),
     ({"booking_status": False, "error": "Invalid access token"}, "invalid_arguments"),
     ({"success": True, "error": "partial"}, None), ({"error": ""}, None),
     ({"error": "timeout: no answer within 30s"}, "transient")],
)  # fmt: skip
def test_returned_errors_are_read_by_their_message(result: object, code: str | None) -> None:
    refused = returned_error(result)
    assert (refused.code if refused else None) == code
