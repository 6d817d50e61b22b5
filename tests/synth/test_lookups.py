"""Look-ups by what a person knows: the record whose fields equal the arguments, or not_found."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envfactory.ir.effect import ListEffect
from envfactory.ir.tool import ToolSource, ToolSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.lookups import Lookup, lookup_by

JSON = dict[str, Any]
STR = {"type": "string"}


def _tool(name: str, props: JSON, description: str = "", http: bool = False) -> ToolSpec:
    source = (
        ToolSource(format="openapi", http={"method": "GET", "path": "/x/{id}"}) if http else ToolSource(format="openai")
    )
    return ToolSpec(name=name, description=description, source=source,
                    input_schema={"type": "object", "properties": props, "required": list(props)})  # fmt: skip


@pytest.mark.parametrize(
    ("name", "props", "description", "found"),
    [
        ("find_user_id_by_email", {"email": STR}, "", Lookup(("email",), "key")),
        ("get_member_by_name_and_zip", {"first_name": STR, "last_name": STR, "zip": STR}, "",
         Lookup(("first_name", "last_name", "zip"), "row")),
        ("find_patient", {"phone": STR}, "Finds a patient by their phone number. Answers the record.",
         Lookup(("phone",), "row")),
        ("lookup_account", {"email": STR}, "Look up an account by e-mail address.", Lookup(("email",), "row")),
        ("list_orders_by_status", {"status": STR}, "", None),  # rows, not one
        ("get_tasks_by_project_id", {"project_id": STR}, "", None),  # another record's key
        ("find_user_by_email", {"email": STR, "tenant": STR}, "", None),  # a required argument it does not name
        ("create_user_by_email", {"email": STR}, "", None),  # not a read
        ("get_user", {"email": STR}, "Returns the user.", None),  # says no "by"
    ],
)  # fmt: skip
def test_a_look_up_is_read_from_the_name_or_the_first_sentence(
    name: str, props: JSON, description: str, found: Lookup | None
) -> None:
    assert lookup_by(_tool(name, props, description)) == found


def test_a_route_is_never_a_look_up() -> None:
    assert lookup_by(_tool("getCardsByEmail", {"email": STR}, http=True)) is None


def _spec(tmp_path: Path) -> Any:
    tools = [
        {"type": "function", "function": {"name": "find_customer_id_by_email", "description": "Find a customer's id.",
         "parameters": {"type": "object", "properties": {"email": STR}, "required": ["email"]}}},
        {"type": "function", "function": {"name": "find_customer_by_name_zip", "description": "Find a customer.",
         "parameters": {"type": "object", "properties": {"first_name": STR, "last_name": STR, "zip": STR},
                        "required": ["first_name", "last_name", "zip"]}}},
        {"type": "function", "function": {"name": "get_customer_details", "description": "A customer's details.",
         "parameters": {"type": "object", "properties": {"customer_id": STR}, "required": ["customer_id"]}}},
    ]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(__import__("json").dumps(tools))
    return synthesize(path)


def test_looked_up_fields_are_seeded_and_an_unknown_value_is_not_found(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    effect = spec.behaviour("find_customer_id_by_email").effect
    assert isinstance(effect, ListEffect) and effect.finds == "key"
    customer = spec.state_schema["customer"]
    assert {"email", "first_name", "last_name", "zip"} <= set(customer.fields)
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    ana = list(episode.store.rows("customer"))[3]
    found = episode.call_tool("find_customer_id_by_email", {"email": ana["email"]})
    assert found.ok and found.data == ana[customer.key]
    missing = episode.call_tool("find_customer_id_by_email", {"email": "nobody@nowhere.example"})
    assert missing.error == "not_found" and "nobody@nowhere.example" in missing.content
    who = {k: ana[k] for k in ("first_name", "last_name", "zip")}
    assert episode.call_tool("find_customer_by_name_zip", who).data == ana
    assert episode.call_tool("find_customer_by_name_zip", {**who, "zip": "00000-x"}).error == "not_found"
    details = episode.call_tool("get_customer_details", {"customer_id": found.data})
    assert details.ok and details.data["email"] == ana["email"]
