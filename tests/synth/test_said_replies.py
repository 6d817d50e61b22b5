"""What docstrings say of replies and lists: a reply sketched with its record beside the records it
links, a record sketched as ``{...}``, a filter's declared default and its "all", a deed's stamp."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.jsonschema import data_path
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize

JSON = dict[str, Any]
STR, ID = {"type": "string"}, {"type": "integer"}
TICKET = "{id, title, status, severity, opened_at, resolved_at}"


def _obj(*members: str) -> JSON:
    return {"type": "object", "properties": {m: {} for m in members}}


def test_the_widest_object_is_the_record_when_the_others_are_records_it_links_drawn_smaller() -> None:
    related = {"type": "array", "items": _obj("id", "title")}
    reply = {"type": "object", "properties": {"ok": {"type": "boolean"}, "ticket": _obj("id", "title", "status"),
             "duplicate_of": _obj("id", "title"), "related": related}}  # fmt: skip
    path, record, as_list = data_path(reply)
    assert [k for k, _ in path] == ["ticket"] and record == _obj("id", "title", "status") and not as_list
    apart = {"type": "object", "properties": {"a": _obj("id", "x"), "b": _obj("id", "y")}}
    assert data_path(apart)[0] == ()  # neither is drawn within the other: no record to pick


def _spec(tmp_path: Path) -> Any:
    status = {"type": "string", "enum": ["open", "resolved", "all"], "default": "open",
              "description": 'One of "open" (default), "resolved" or "all".'}  # fmt: skip
    tools = [
        ("open_ticket", f'Open a new ticket.\n\nReturns:\n    {{"ok": true, "ticket": {TICKET}}}',
         {"title": STR, "severity": STR}, ["title"]),
        ("resolve_ticket", 'Mark a ticket resolved.\n\nReturns:\n    {"ok": true, "ticket": {...}}', {"id": ID},
         ["id"]),
        ("show_ticket", f'Show one ticket.\n\nReturns:\n    {{"ok": true, "ticket": {TICKET}, "duplicate_of": '
         '{"id", "title"} or\n    null, "related": [{"id", "title"}, ...]}', {"id": ID}, ["id"]),
        ("list_tickets", 'List tickets.\n\nReturns:\n    {"ok": true, "tickets": [ticket, ...], "count": N}',
         {"status": status}, []),
    ]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([{"type": "function", "function": {"name": n, "description": d, "parameters": {
        "type": "object", "properties": p, "required": r}}} for n, d, p, r in tools]))  # fmt: skip
    return synthesize(path, state="empty")


def test_replies_lists_and_stamps_follow_the_docstrings(tmp_path: Path) -> None:
    episode = Environment(_spec(tmp_path)).episode()
    episode.reset(seed=0)
    first = episode.call_tool("open_ticket", {"title": "printer jammed", "severity": "low"}).data["ticket"]
    episode.call_tool("open_ticket", {"title": "no coffee"})
    done = episode.call_tool("resolve_ticket", {"id": first["id"]})
    assert done.ok and done.data["ok"] is True, done.content
    assert done.data["ticket"]["status"] == "resolved" and done.data["ticket"]["resolved_at"]
    shown = episode.call_tool("show_ticket", {"id": first["id"]}).data
    assert shown["ticket"]["title"] == "printer jammed"
    titles = {s: [t["title"] for t in episode.call_tool("list_tickets", {"status": s}).data["tickets"]]
              for s in ("open", "resolved", "all")}  # fmt: skip
    assert titles == {"open": ["no coffee"], "resolved": ["printer jammed"], "all": ["printer jammed", "no coffee"]}
    omitted = episode.call_tool("list_tickets", {}).data["tickets"]  # as its declared default, "open"
    assert [t["title"] for t in omitted] == ["no coffee"]
