import pytest

from envfactory.ir.tool import HttpBinding, ToolSource, ToolSpec
from envfactory.synth.intents import read_intent
from envfactory.synth.naming import id_stem, same_field, singular, tokens
from envfactory.synth.transitions import transition_for


def test_tokens_split_every_naming_style() -> None:
    assert tokens("findPetsByStatus") == ("find", "pets", "by", "status")
    assert tokens("list-data-sets") == ("list", "data", "sets")
    assert tokens("get_HTTPResponse") == ("get", "http", "response")


def test_singular_and_id_stems() -> None:
    assert [singular(w) for w in ("orders", "categories", "boxes", "status", "news")] == [
        "order",
        "category",
        "box",
        "status",
        "news",
    ]
    assert id_stem("customer_id") == "customer" and id_stem("fromAccountId") == "account"
    assert id_stem("name") is None and id_stem("id") is None
    assert same_field("petId", "pet_id") and not same_field("pet", "pet_id")


def tool(name: str, method: str | None = None, path: str | None = None, **props: dict) -> ToolSpec:
    http = HttpBinding(method=method, path=path) if method else None
    schema = {"type": "object", "properties": props}
    return ToolSpec(name=name, input_schema=schema, source=ToolSource(format="t", http=http))


@pytest.mark.parametrize(
    ("name", "kind", "noun"),
    [
        ("get_order", "read", "order"),
        ("list_orders", "list", "order"),
        ("searchProducts", "list", "product"),
        ("create_invoice", "create", "invoice"),
        ("cancel_subscription", "action", "subscription"),
        ("delete_note", "delete", "note"),
        ("book_flight", "create", "booking"),
        ("purchase_insurance", "create", "insurance"),  # a purchase is recorded, not pretended
        ("get_orders", "list", "order"),
        ("mark_message_as_read", "action", "message"),
        ("frobnicate_widget", "unknown", "widget"),
    ],
)
def test_intent_from_names(name: str, kind: str, noun: str | None) -> None:
    intent = read_intent(tool(name))
    assert (intent.kind, intent.noun) == (kind, noun)


@pytest.mark.parametrize(
    ("method", "path", "kind", "noun", "key", "parent"),
    [
        ("GET", "/pets", "list", "pet", None, None),
        ("POST", "/pets", "create", "pet", None, None),
        ("GET", "/pets/{petId}", "read", "pet", "petId", None),
        ("PUT", "/pets/{petId}", "update", "pet", "petId", None),
        ("DELETE", "/pets/{petId}", "delete", "pet", "petId", None),
        ("POST", "/orders/{id}/cancel", "action", "order", "id", None),
        ("GET", "/users/{userId}/orders", "list", "order", None, ("userId", "user")),
        ("GET", "/pets/findByStatus", "list", "pet", None, None),
    ],
)
def test_intent_from_rest_routes(method, path, kind, noun, key, parent) -> None:
    intent = read_intent(tool("op", method, path))
    assert (intent.kind, intent.noun, intent.key_arg, intent.parent) == (kind, noun, key, parent)


def test_transitions_respect_the_status_enum() -> None:
    assert transition_for("cancel", ["placed", "shipped", "delivered", "cancelled"]) == (
        "cancelled",
        None,
        ("delivered",),
    )
    assert transition_for("approve", ["placed", "approved", "cancelled"]) == ("approved", ("placed",), ())
    assert transition_for("cancel", ["open", "closed"]) is None  # no matching value: no guess
    assert transition_for("mark_read", ["unread", "read"]) == ("read", None, ())
    # a free-text status: only a repeat is refused (at run time), no terminal state is invented
    assert transition_for("resolve", None) == ("resolved", None, ())
