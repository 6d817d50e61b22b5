"""Sessions: login, logout and status tools, and the tools that need a signed-in user (the shape of
BFCL's posting, ticket, trading and travel APIs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import SingletonEffect
from envfactory.real.instrument import PythonSide, measure
from envfactory.runtime.environment import Environment

PREFIX = "This tool belongs to the posting API, used by authenticated users. Tool description: "


def _tool(name: str, text: str, props: dict[str, Any], required: list[str], response: dict[str, Any]) -> JSON:
    return function(name, PREFIX + text, props, required, response)


JSON = dict[str, Any]
POST = {"id": {"type": "integer"}, "content": STR}
TOOLS = [
    _tool("authenticate", "Sign in.", {"username": STR, "password": STR}, ["username", "password"],
          {"authentication_status": {"type": "boolean"}}),
    _tool("logout", "Sign out.", {}, [], {"logout_status": {"type": "boolean"}}),
    _tool("get_login_status", "Whether someone is signed in.", {}, [], {"login_status": {"type": "boolean"}}),
    _tool("create_post", "Post for the authenticated user.", {"content": STR}, ["content"], POST),
    _tool("list_posts", "All posts.", {}, [], {"posts": {"type": "array", "items": {"type": "object",
                                                                                   "properties": POST}}}),
]  # fmt: skip


def _spec(tmp_path: Path) -> Any:
    return synthesize_functions(tmp_path, "posts", TOOLS)


def test_a_session_gates_the_tools_that_need_a_signed_in_user(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    login = spec.behaviour("authenticate").effect
    assert isinstance(login, SingletonEffect) and login.args == {"username": "username"}  # the password is not kept
    assert spec.behaviour("create_post").gate is not None and spec.behaviour("list_posts").gate is None
    assert "needs a signed-in session" in spec.behaviour("create_post").notes  # what `inspect` shows
    ep = Environment(spec).episode()
    ep.reset(seed=0)
    assert ep.call_tool("get_login_status", {}).data == {"login_status": True}  # environments start signed in
    assert ep.call_tool("create_post", {"content": "hi"}).ok
    assert ep.call_tool("logout", {}).data == {"logout_status": True}
    assert ep.call_tool("get_login_status", {}).data == {"login_status": False}
    before = ep.state_hash()
    refused = ep.call_tool("create_post", {"content": "again"})
    assert refused.error == "precondition_failed" and ep.state_hash() == before  # refused, nothing written
    assert ep.call_tool("list_posts", {}).ok  # not gated
    signed = ep.call_tool("authenticate", {"username": "ann", "password": "x"})
    assert signed.data == {"authentication_status": True}
    assert ep.call_tool("create_post", {"content": "again"}).ok


def test_session_tool_sets_self_check_and_tasks_never_ask_to_sign_in(tmp_path: Path) -> None:
    _, tasks = checked_tasks(_spec(tmp_path), 10)
    assert tasks and not any(c.tool in ("authenticate", "logout") for t in tasks for c in t.gold)


POSTS = '''
class Posts:
    def __init__(self):
        self.signed_in = False
        self.posts = {}

    def authenticate(self, username: str, password: str) -> dict:
        """Sign in."""
        self.signed_in = True
        return {"authentication_status": True}

    def logout(self) -> dict:
        """Sign out."""
        self.signed_in = False
        return {"logout_status": True}

    def get_login_status(self) -> dict:
        """Whether someone is signed in."""
        return {"login_status": self.signed_in}

    def create_post(self, content: str) -> dict:
        """Post for the authenticated user."""
        if not self.signed_in:
            return {"error": "User not authenticated."}
        post = {"id": len(self.posts), "content": content}
        self.posts[post["id"]] = post
        return post

    def list_posts(self) -> dict:
        """All posts."""
        return {"posts": list(self.posts.values())}
'''


def test_fidelity_starts_the_session_as_the_real_object_does(tmp_path: Path) -> None:
    (tmp_path / "posts.py").write_text(POSTS)
    spec = _spec(tmp_path)
    real = f"{tmp_path / 'posts.py'}:Posts"
    side = PythonSide(spec, real, None)  # the real object starts signed out, asked through its status tool
    assert side.synth_spec.initial_state["session"][0]["login_status"] is False
    measured = measure(spec, real, sequences=10, length=8)
    assert measured.outcome == 1.0 > measured.stub_outcome  # the stub posts while signed out


def test_a_stored_password_is_checked_and_a_wrong_one_signs_out(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    login = spec.behaviour("authenticate").effect
    assert isinstance(login, SingletonEffect) and login.checks == {"username": "username", "password": "password"}
    stored = {"_id": "self", "login_status": False, "username": "ann", "password": "pw1"}
    ep = Environment(spec.model_copy(update={"initial_state": {**spec.initial_state, "session": [stored]}})).episode()
    assert ep.call_tool("authenticate", {"username": "ann", "password": "nope"}).data == {
        "authentication_status": False
    }  # answered, as the declared boolean says, and still signed out
    assert ep.call_tool("create_post", {"content": "x"}).error == "precondition_failed"
    assert ep.call_tool("authenticate", {"username": "bob", "password": "pw1"}).data == {"authentication_status": False}
    assert ep.call_tool("authenticate", {"username": "ann", "password": "pw1"}).data == {"authentication_status": True}
    assert ep.call_tool("create_post", {"content": "x"}).ok
    fresh = Environment(spec).episode()  # no stored password (a synthesized start): any credentials sign in
    assert fresh.call_tool("authenticate", {"username": "zed", "password": "?"}).data == {"authentication_status": True}


TICKETS = [
    function("ticket_login", "Log in to the ticket system.", {"username": STR, "password": STR},
             ["username", "password"], {"success": {"type": "boolean"}}),
    function("ticket_get_login_status", "Whether someone is logged in.", {}, [], {"login_status": {"type": "boolean"}}),
    function("create_ticket", "Create a ticket in the system and queue it.", {"title": STR, "description": STR},
             ["title"], {"id": {"type": "integer"}, "title": STR, "status": STR, "created_by": STR}),
    function("get_ticket", "Get a ticket.", {"ticket_id": {"type": "integer"}}, ["ticket_id"],
             {"id": {"type": "integer"}, "title": STR, "status": STR, "created_by": STR}),
    function("resolve_ticket", "Resolve a ticket with a resolution.",
             {"ticket_id": {"type": "integer"}, "resolution": STR}, ["ticket_id", "resolution"], {"status": STR}),
]  # fmt: skip


def test_a_create_that_records_its_creator_stamps_the_signed_in_user(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "tickets", TICKETS)
    create = spec.behaviour("create_ticket")
    assert create.gate is not None  # nothing says so, but who else would be the creator?
    ep = Environment(spec).episode()
    assert ep.call_tool("ticket_login", {"username": "ann", "password": "pw"}).ok
    made = ep.call_tool("create_ticket", {"title": "Printer on fire"}).data
    assert made["created_by"] == "ann"
    assert ep.call_tool("get_ticket", {"ticket_id": made["id"]}).data["created_by"] == "ann"
    signed_out = spec.model_copy(update={"initial_state": {**spec.initial_state, "session": [
        {**spec.initial_state["session"][0], "login_status": False}]}})  # fmt: skip
    refused = Environment(signed_out).episode().call_tool("create_ticket", {"title": "Printer on fire"})
    assert refused.error == "precondition_failed"


def test_what_an_action_is_told_the_row_keeps(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "tickets", TICKETS)
    assert "resolution" in spec.state_schema["ticket"].fields
    ep = Environment(spec).episode()
    ticket = spec.initial_state["ticket"][0]["id"]
    assert ep.call_tool("resolve_ticket", {"ticket_id": ticket, "resolution": "rebooted"}).ok
    assert ep.store.get("ticket", ticket)["resolution"] == "rebooted"
    checked_tasks(spec, 5)


def test_signing_out_when_nobody_is_signed_in_does_not_succeed(tmp_path: Path) -> None:
    done = {"type": "boolean", "description": "True if logout was successful, False otherwise."}
    tools = [*TOOLS[:1], _tool("logout", "Sign out.", {}, [], {"success": done}), *TOOLS[2:]]
    episode = Environment(synthesize_functions(tmp_path, "posts", tools)).episode()  # starts signed in
    assert episode.call_tool("logout", {}).data == {"success": True}
    again = episode.call_tool("logout", {})  # "False otherwise": answered, not refused
    assert again.ok and again.data == {"success": False}
    assert episode.call_tool("get_login_status", {}).data == {"login_status": False}
