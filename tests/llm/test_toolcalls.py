"""The tool-call prompt for text-only models and the parser that repairs near-misses."""

from __future__ import annotations

import json

from envfactory.llm.toolcalls import parse_tool_calls, prompt_messages

TOOLS = ["get_order", "cancel_order", "list_orders"]


def _calls(text: str) -> list[tuple[str, dict]]:
    message, _ = parse_tool_calls(text, TOOLS)
    return [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in message.get("tool_calls", [])]


def test_well_formed_calls_are_read_as_they_are() -> None:
    text = '<tool_call>{"name": "get_order", "arguments": {"order_id": 7}}</tool_call>'
    message, repairs = parse_tool_calls(text, TOOLS)
    assert _calls(text) == [("get_order", {"order_id": 7})] and repairs == () and message["content"] is None


def test_near_misses_are_repaired_and_reported() -> None:
    assert _calls("<tool_call>{'name': 'get_order', 'arguments': {'order_id': 7,},}</tool_call>") == [
        ("get_order", {"order_id": 7})
    ]
    assert _calls('<tool_call>{"name": "Get_Order", "arguments": {"order_id": 7}') == [("get_order", {"order_id": 7})]
    assert _calls('Sure! {"name": "cancel_ordr", "parameters": "{\\"order_id\\": 3}"}') == [
        ("cancel_order", {"order_id": 3})
    ]
    assert _calls('{"function": {"name": "list_orders", "arguments": {"paid": True}}}') == [
        ("list_orders", {"paid": True})
    ]
    _, repairs = parse_tool_calls("<tool_call>{'name': 'Get_Order', 'arguments': {}}", TOOLS)
    assert "repaired JSON" in repairs and any("read as 'get_order'" in r for r in repairs)


def test_plain_words_stay_words_and_nonsense_is_no_call() -> None:
    message, _ = parse_tool_calls("Your order 7 is cancelled.", TOOLS)
    assert message == {"role": "assistant", "content": "Your order 7 is cancelled."}
    message, repairs = parse_tool_calls("<tool_call>{{{ nonsense", TOOLS)
    assert "tool_calls" not in message and repairs


def test_a_conversation_with_calls_and_results_becomes_plain_turns() -> None:
    messages = [
        {"role": "system", "content": "You work the shop."},
        {"role": "user", "content": "Cancel order 7."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "cancel_order", "arguments": '{"order_id": 7}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"id": 7, "status": "cancelled"}'},
    ]  # fmt: skip
    tools = [{"type": "function", "function": {"name": "cancel_order", "description": "Cancel an order.",
              "parameters": {"type": "object", "properties": {"order_id": {"type": "integer"}},
                             "required": ["order_id"]}}}]  # fmt: skip
    out = prompt_messages(messages, tools)
    assert out[0]["role"] == "system" and "cancel_order(order_id: integer)" in out[0]["content"]
    assert "You work the shop." in out[0]["content"] and "<tool_call>" in out[0]["content"]
    assert {m["role"] for m in out} == {"system", "user", "assistant"}  # no tool role for a text-only model
    assert out[-2]["content"] == '<tool_call>{"name": "cancel_order", "arguments": {"order_id": 7}}</tool_call>'
    assert out[-1]["content"].startswith("Tool result (cancel_order):")
