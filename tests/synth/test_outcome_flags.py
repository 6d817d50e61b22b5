"""Members that report whether the call succeeded are answered, not stored."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, function, synthesize_functions

from envfactory.ir.jsonschema import outcome_flags
from envfactory.runtime.environment import Environment

SENT = {"type": "boolean", "description": "True if the message was sent successfully, False otherwise."}
VERIFIED = {"type": "boolean", "description": "The status of the verification, True if successful, False if failed"}
TOOLS = [
    function("send_message", "Send a message to a user.", {"receiver": STR, "text": STR}, ["receiver", "text"],
             {"sent_status": SENT, "message_id": {"type": "integer"}}),
    function("get_message", "Get a message.", {"message_id": {"type": "integer"}}, ["message_id"],
             {"message_id": {"type": "integer"}, "receiver": STR, "text": STR}),
]  # fmt: skip


def test_a_success_flag_is_answered_true_and_is_not_a_field(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "chat", TOOLS)
    assert "sent_status" not in spec.state_schema["message"].fields
    episode = Environment(spec).episode()
    sent = episode.call_tool("send_message", {"receiver": "bob", "text": "hi"})
    assert sent.ok and sent.data["sent_status"] is True, sent.content
    read = episode.call_tool("get_message", {"message_id": sent.data["message_id"]})
    assert read.ok and "sent_status" not in read.data


def test_which_members_are_flags() -> None:
    schema = {"type": "object", "properties": {"sent_status": SENT, "verification_status": VERIFIED,
              "success": {"type": "boolean"}, "login_status": {"type": "boolean", "description": "Logged in?"},
              "message": {"type": "string", "description": "True if sent successfully"}}}  # fmt: skip
    assert outcome_flags(schema) == ("sent_status", "success")  # a check's verdict and a state are not flags
