"""The candidate generator reads rows: ids singled out by a phrase, an extreme, or a next page."""

import json

from envfactory.rl.actions import Memory, candidates
from envfactory.rl.drrn import _reading

ACCOUNTS = [
    {"id": "account_0001", "owner_name": "Ada Byron", "balance": 50.0},
    {"id": "account_0002", "owner_name": "Ariel Kaiser", "balance": 900.0},
    {"id": "account_0003", "owner_name": "Bo Chen", "balance": 10.0},
]


def tool(name: str, required: list[str], **props: dict) -> dict:
    return {"function": {"name": name, "parameters": {"type": "object", "required": required, "properties": props}}}


FREEZE = tool("freeze_account", ["account_id"], account_id={"type": "string"})


def picks(memory: Memory, instruction: str, tools: list[dict]) -> dict[str, str]:
    """argument value -> provenance, over the call candidates."""
    return {json.dumps(c.args): src for c in candidates(tools, memory, instruction) if c.kind == "call"
            for src in c.sources}  # fmt: skip


def test_a_row_named_by_a_phrase_of_the_request_is_a_match() -> None:
    text = "Freeze the account whose owner name is 'Ariel Kaiser'."
    memory = Memory()
    memory.read_instruction(text)
    assert picks(memory, text, [FREEZE]) == {}  # no id yet: the account must be looked up first
    memory.read_output(json.dumps(ACCOUNTS), "list_accounts")
    assert picks(memory, text, [FREEZE])['{"account_id": "account_0002"}'] == "match"


def test_extremes_of_a_field_the_request_names() -> None:
    text = "Close the account with the least balance."
    memory = Memory()
    memory.read_instruction(text)
    memory.read_output(json.dumps({"data": {"items": ACCOUNTS}}), "list_accounts")  # wrapped: still rows
    found = picks(memory, text, [tool("close_account", ["account_id"], account_id={"type": "string"})])
    assert found['{"account_id": "account_0003"}'] == "min" and found['{"account_id": "account_0002"}'] == "max"
    other = Memory()
    other.read_instruction("Close the account account_0001.")
    other.read_output(json.dumps(ACCOUNTS), "list_accounts")
    assert other.derived("account", ("close", "account")) == []  # balance is not mentioned: no extremes
    singled = other.derived("account", ("close", "the", "least", "balance"))
    assert {(v.source, v.hint) for v in singled} == {("min", "least"), ("max", "least")}


def test_integer_ids_numbers_as_strings_and_the_entity_from_the_tool() -> None:
    text = "Cancel the order whose ship date is '2025-02-12'."
    memory = Memory()
    memory.read_instruction(text)
    rows = [{"Id": "6", "ShipDate": "2025-02-12", "Quantity": "2"}, {"Id": "7", "ShipDate": "2025-03-01"}]
    memory.read_output(json.dumps(rows), "listOrders")  # PascalCase keys, numbers as strings
    cancel = tool("cancelOrder", ["orderId"], orderId={"type": "integer"})
    assert picks(memory, text, [cancel])['{"orderId": 6}'] == "match"


def test_a_next_page_becomes_a_cursor_for_the_page_argument() -> None:
    listing = tool("list_accounts", [], page={"type": "integer"}, owner_name={"type": "string"})
    memory = Memory()
    memory.read_instruction("Close the account with the least balance.")
    memory.read_output(
        json.dumps({"items": ACCOUNTS[:2], "page": 1, "has_more": True, "next_page": 2}), "list_accounts"
    )
    calls = [c for c in candidates([listing], memory, "") if c.kind == "call"]
    assert {"page": 2} in [c.args for c in calls]
    assert next(c for c in calls if c.args == {"page": 2}).sources == ("cursor",)


def test_the_policy_reads_more_pages_and_error_words() -> None:
    assert _reading('{"items":[],"hasMore":true}') == ("more", [])
    assert _reading('[{"id": 1}]') == ("ok", [])
    last, words = _reading('{"error":{"code":"UNAVAILABLE","message":"503 Service Unavailable: busy, please retry"}}')
    assert last == "error" and {"unavailable", "busy", "retry"} <= set(words) and "503" not in words
