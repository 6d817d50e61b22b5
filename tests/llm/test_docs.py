"""Plain documentation -> tool descriptions, read by a model and traced to the text."""

from __future__ import annotations

import json

import pytest
from tests.conftest import FIXTURES
from tests.llm.fake_openai import FakeOpenAI, completion

from envfactory.errors import SpecError
from envfactory.ingest import load
from envfactory.ingest.docs import plain_text, sections
from envfactory.llm import make_client
from envfactory.synth import synthesize

DOC = FIXTURES / "notes_api.md"


def _answer(body: dict) -> tuple[int, dict]:
    prompt = body["messages"][0]["content"]
    if "## Create a note" in prompt:
        params = [
            {"name": "title", "type": "string", "required": True, "quote": "the `title` (a string, required)"},
            {"name": "body", "type": "string", "required": False, "quote": "`body` text (optional)"},
            {"name": "color", "type": "string", "required": False, "quote": "a colour, invented"},
        ]
        tools = [{"name": "create note", "description": "Create a note.", "quote": "POST /notes` creates a note",
                  "parameters": params}]  # fmt: skip
    elif "## Delete a note" in prompt:
        tools = [{"name": "delete_note", "description": "Delete a note.", "quote": "removes the note with that id",
                  "parameters": [{"name": "id", "type": "string", "required": True,
                                  "quote": "DELETE /notes/{id}"}]},
                 {"name": "archive_note", "description": "Made up.", "quote": "archives a note"}]  # fmt: skip
    else:
        tools = []
    return 200, completion({"role": "assistant", "content": json.dumps({"tools": tools})})


def test_tools_are_read_from_docs_and_every_field_is_traced_to_its_text() -> None:
    with FakeOpenAI(_answer) as server:
        loaded = load(DOC, reader=make_client("openai:reader", base_url=server.url, cache=None))
        asked = len(server.requests)
    tools = {t.name: t for t in loaded.toolset.tools}
    assert set(tools) == {"create_note", "delete_note"}  # the invented archive_note quoted nothing real
    create = tools["create_note"]
    assert set(create.properties) == {"title", "body"} and create.required == ["title"]  # colour dropped
    assert create.source.quotes["title"] == "the `title` (a string, required)"
    assert create.source.format == "docs" and "Create a note" in (create.source.locator or "")
    warnings = " ".join(loaded.toolset.warnings)
    assert "archive_note" in warnings and "color" in warnings
    assert asked == 4  # one request per section: the preamble, create, delete, pricing


def test_docs_without_a_model_are_a_clear_error_and_synthesis_runs_on_what_was_read() -> None:
    with pytest.raises(SpecError, match="--model"):
        load(DOC)
    with FakeOpenAI(_answer) as server:
        spec = synthesize(DOC, reader=make_client("openai:reader", base_url=server.url, cache=None))
    kinds = {b.tool: b.effect.kind for b in spec.behaviours}
    assert kinds == {"create_note": "create", "delete_note": "delete"}


def test_html_headings_become_sections() -> None:
    text = plain_text("<h1>API</h1><p>intro</p><h2>Get a user</h2><p>GET /users/{id} &amp; more</p>", ".html")
    assert [h for h, _ in sections(text)] == ["API", "Get a user"] and "GET /users/{id} & more" in text
