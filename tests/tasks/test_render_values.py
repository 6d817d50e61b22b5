from envfactory.tasks.render import show


def test_structured_values_read_as_a_person_would_write_them() -> None:
    assert show({"balance": 751, "currency": "USD"}) == "balance 751 and currency 'USD'"
    assert show({"due_date": "2026-01-05", "tags": ["a", "b"]}) == "due date '2026-01-05' and tags 'a' and 'b'"
    assert show([1, 2, 3]) == "1, 2 and 3" and show([]) == "nothing" and show(None) == "none"
    assert "{" not in show({"nested": {"x": 1}})


def test_only_things_people_own_are_called_mine(bundled_envs: dict) -> None:
    import random

    from envfactory.ir.blueprint import Blueprint
    from envfactory.tasks.render import Renderer

    shop, petstore = bundled_envs["shop"].spec, bundled_envs["petstore"].spec
    assert Renderer(shop, Blueprint(nodes=(), edges=()), random.Random(0))._personal("order")  # one's own order
    pets = Renderer(petstore, Blueprint(nodes=(), edges=()), random.Random(0))
    assert not pets._personal("pet")  # a shop's pet is nobody's until it is sold
    assert not pets._personal("no_such_entity")


def test_seeded_values_read_like_the_field_they_fill() -> None:
    import re

    from envfactory.values import ValueMaker

    maker = ValueMaker(0, "2026-01-01T00:00:00Z")
    stamps = [maker.value({"type": "integer"}, "voted_at", "vote") for _ in range(20)]
    assert all(1_700_000_000 < s < 1_800_000_000 for s in stamps)  # a Unix time, not "voted at 447"
    assert maker.value({"type": "integer"}, "vote_count", "vote") <= 50  # a count stays a count
    assert re.fullmatch(r"[A-Z]{2}-\d{5}", maker.value({"type": "string"}, "idModel", "webhook"))  # not a word
    name = maker.value({"type": "string"}, "user", "user")  # a user's ``user`` is a person's name
    assert len(name.split()) >= 2 and name.istitle()
    assert len(maker.value({"type": "string"}, "message", "message").split()) > 3  # a message is a sentence


def test_nested_structures_are_measured_by_their_depth() -> None:
    from envfactory.tasks.instantiate import _depth

    record = {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}
    assert _depth({"type": "string"}) == 0
    assert _depth({"type": "array", "items": {"type": "string"}}) == 1
    assert _depth({"type": "array", "items": record}) == 2  # order lines: a person lists them
    associations = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "types": {"type": "array", "items": record},
                "to": {"type": "object", "properties": {"id": {"type": "string"}}},
            },
        },
    }
    assert _depth(associations) == 4  # HubSpot's associations: nobody dictates these  # fmt: skip


def test_a_request_body_is_said_by_its_members(tmp_path) -> None:
    from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

    event = {
        "type": "object",
        "properties": {"event_type": {"type": "string", "enum": ["approved", "denied"]}, "order_number": STR},
        "required": ["event_type", "order_number"],
    }
    record = {"event_id": STR, **event["properties"]}
    tools = [
        function("create_event", "Record an event.", {"body": event}, ["body"], record),
        function("list_events", "List the events.", {}, [], {"events": {"type": "array", "items": {
            "type": "object", "properties": record}}}),
    ]  # fmt: skip
    _, tasks = checked_tasks(synthesize_functions(tmp_path, "events", tools), 10)
    said = [t.instruction for t in tasks if "event type" in t.instruction]
    assert said and not any("body" in s for s in said), said


def test_a_hidden_value_is_asked_for_as_a_person_counts_it() -> None:
    from envfactory.tasks.render import article

    assert (article("parent"), article("email"), article("due date"), article("status")) == ("a", "an", "a", "a")
    assert (
        article("content") == article("tags") == article("mentioned usernames") == ""
    )  # "content you should ask me for"


def test_yes_no_fields_and_articles_read_as_a_person_writes_them() -> None:
    from envfactory.tasks.render import article, flag_phrase

    assert flag_phrase("is_chargeable", False, many=True) == "that are not chargeable"
    assert flag_phrase("has_attachments", True, many=True) == "that have attachments"
    assert flag_phrase("archived", True, many=False) == "that is archived"
    assert flag_phrase("canEdit", False, many=False) == "that cannot edit"
    assert flag_phrase("featured", "yes", many=True) is None and flag_phrase("price", True, many=True) is None
    assert flag_phrase("description_is_html", False, many=True) == "whose description is not html"
    assert [article(w) for w in ("unit", "user", "hour", "email", "order")] == ["a", "a", "an", "an", "an"]


def test_a_member_named_as_its_object_is_not_said_twice() -> None:
    from envfactory.tasks.render import show

    address = {"address": "800 Whitney Branch", "city": "North Sabrinashire"}
    assert show(address, "address") == "'800 Whitney Branch' and city 'North Sabrinashire'"
    assert show(address) == "address '800 Whitney Branch' and city 'North Sabrinashire'"


def test_an_action_named_by_a_state_word_says_that_word() -> None:
    from envfactory.tasks.render import Renderer

    assert Renderer._verb("complete_task", "task") == "complete"
    assert Renderer._verb("cancel_pending_order", "order") == "cancel"


def test_a_time_stamp_is_asked_as_when_it_happened() -> None:
    from envfactory.tasks.render import when_done

    assert when_done("completed_at") == "completed" and when_done("createdOn") == "created"
    assert when_done("last_updated_at") == "last updated"
    assert when_done("status") is None and when_done("at") is None and when_done("stat") is None


def test_a_nested_field_named_after_its_holder_is_said_once() -> None:
    """``Country.country_code`` is "the country code" (not "the country country code"); an
    ``address.city`` stays "address city", JSON:API's ``attributes.name`` "name"."""
    from envfactory.tasks.render import field_words

    assert field_words("Country.country_code") == "country code"
    assert field_words("Region.region_code") == "region code"
    assert field_words("address.city") == "address city"
    assert field_words("attributes.name") == "name"
    assert field_words("Region.name") == "region name"
