import json
from pathlib import Path

import pytest
from tests.conftest import SPECS, wild

from envfactory.errors import EnvSpecError, SynthesisError
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.data import entity_order


def test_every_bundled_spec_synthesizes_without_low_fidelity_tools(bundled_specs: dict[str, EnvSpec]) -> None:
    formats = set()
    for name, spec in bundled_specs.items():
        assert spec.low_fidelity_tools == [], name
        assert {b.prior for b in spec.behaviours} == {"confident"}, name
        kinds = {b.effect.kind for b in spec.behaviours}
        assert {"read", "list"} & kinds and {"create", "update", "delete", "action", "transfer"} & kinds, name
        assert spec.state_schema.relations, f"{name} has no relations"
        assert kinds & {"action", "transfer"}, f"{name} has no state-changing action"
        formats |= {t.source.format for t in spec.tools.tools}
    assert formats == {"openapi", "mcp", "openai", "anthropic", "python"}


def test_inferred_schema_of_the_shop(bundled_specs: dict[str, EnvSpec]) -> None:
    schema = bundled_specs["shop"].state_schema
    assert schema.names == ["customer", "product", "order"]
    order = schema["order"]
    assert order.key == "id" and order.key_type == "string"
    assert order.refs == {"customer_id": "customer", "product_id": "product"}
    assert order.fields["status"]["enum"][0] == "pending"
    assert entity_order(schema).index("order") > entity_order(schema).index("customer")


def test_inferred_effects_of_the_shop(bundled_specs: dict[str, EnvSpec]) -> None:
    spec = bundled_specs["shop"]
    search = spec.behaviour("search_products").effect
    assert [(f.arg, f.field, f.op) for f in search.filters] == [
        ("query", None, "search"),
        ("category", "category", "eq"),
        ("min_price", "price", "gte"),
        ("max_price", "price", "lte"),
    ]
    ship = spec.behaviour("ship_order").effect
    assert (ship.kind, ship.field, ship.to, ship.allowed_from) == ("action", "status", "shipped", ("paid",))
    create = spec.behaviour("create_order").effect
    assert create.defaults == {"status": "pending"} and create.timestamps == ("created_at",)
    transfer = synthesize(SPECS / "banking.anthropic.json").behaviour("transfer_funds").effect
    assert (transfer.field, transfer.record.entity, transfer.usable) == (
        "balance",
        "transaction",
        ("active",),
    )


def test_seeded_data_respects_types_enums_bounds_and_references(bundled_specs: dict[str, EnvSpec]) -> None:
    for spec in bundled_specs.values():
        for entity in spec.state_schema.entities:
            rows = spec.initial_state[entity.name]
            assert len(rows) == 12
            keys = {r[entity.key] for r in rows}
            assert len(keys) == 12
            for row in rows:
                for field, fs in entity.fields.items():
                    value = row[field]
                    if "enum" in fs:
                        assert value in fs["enum"]
                    if "minimum" in fs:
                        assert value >= fs["minimum"]
                    if "maximum" in fs:
                        assert value <= fs["maximum"]
                for field, target in entity.refs.items():
                    target_keys = {r[spec.state_schema[target].key] for r in spec.initial_state[target]}
                    assert row[field] in target_keys


def test_same_seed_same_bytes_other_seed_other_data(tmp_path: Path) -> None:
    a = synthesize(SPECS / "shop.yaml", seed=7).save(tmp_path / "a")
    b = synthesize(SPECS / "shop.yaml", seed=7).save(tmp_path / "b")
    c = synthesize(SPECS / "shop.yaml", seed=8).save(tmp_path / "c")
    for file in a.iterdir():
        assert file.read_bytes() == (b / file.name).read_bytes()
    assert (a / "state.json").read_bytes() != (c / "state.json").read_bytes()


def test_explicit_initial_state_empty_or_from_a_file(tmp_path: Path) -> None:
    empty = synthesize(SPECS / "petstore.yaml", state="empty")
    assert all(rows == [] for rows in empty.initial_state.values())
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"pet": [{"id": 7, "name": "Rex", "species": "dog", "status": "available"}]}))
    spec = synthesize(SPECS / "petstore.yaml", state=str(state))
    episode = Environment(spec).episode()
    assert episode.call_tool("getPet", {"petId": 7}).data["name"] == "Rex"
    assert episode.call_tool("addPet", {"name": "Tom", "species": "cat"}).data["id"] == 8  # ids continue


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"unicorn": []}, "unknown entity 'unicorn'"),
        ({"pet": [{"name": "no key"}]}, r"pet\[0\] must be an object with key field 'id'"),
        ({"pet": [{"id": 1}, {"id": 1}]}, r"pet\[1\] repeats key 1"),
        ({"pet": [{"id": 1, "colour": "red"}]}, r"unknown fields \['colour'\]"),
    ],
)
def test_bad_initial_state_files_are_clear_errors(tmp_path: Path, doc: dict, message: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(doc))
    with pytest.raises(SynthesisError, match=message):
        synthesize(SPECS / "petstore.yaml", state=str(state))


def test_bound_python_class_runs_the_real_implementation(tmp_path: Path) -> None:
    spec = synthesize(SPECS / "travel.py", bind=True)
    assert {b.prior for b in spec.behaviours} == {"real"}
    saved = EnvSpec.load(spec.save(tmp_path / "travel"))
    untrusted = Environment(saved)  # compiling runs nothing; an episode would import the file
    with pytest.raises(EnvSpecError, match=r"runs code: .*travel\.py.*--trust-code"):
        untrusted.episode()
    env = Environment(saved, trust_code=True)  # re-imported from the saved target
    ep = env.episode()
    full = ep.call_tool("book_flight", {"flight_id": "flight_0004", "passenger_name": "Ada"})
    assert full.error == "invalid_arguments" and "is full" in full.content
    booked = ep.call_tool("book_flight", {"flight_id": "flight_0002", "passenger_name": "Ada"})
    assert booked.ok and booked.data["status"] == "confirmed"
    assert ep.call_tool("get_flight", {"flight_id": "flight_0002"}).data["seats_left"] == 1
    assert ep.call_tool("get_booking", {"booking_id": "nope"}).error == "not_found"
    ep.reset()  # a fresh implementation object per episode
    assert ep.call_tool("get_flight", {"flight_id": "flight_0002"}).data["seats_left"] == 2


def test_bind_needs_python_tools() -> None:
    with pytest.raises(SynthesisError, match="--bind needs Python tools"):
        synthesize(SPECS / "shop.yaml", bind=True)


def test_wild_specs_synthesize_into_working_environments() -> None:
    spec = synthesize(wild("oai-petstore-expanded-v3.yaml"))
    assert spec.low_fidelity_tools == []
    ep = Environment(spec).episode()
    created = ep.call_tool("addPet", {"name": "Rex"}).data
    assert ep.call_tool("find_pet_by_id", {"id": created["id"]}).data == created
    uspto = synthesize(wild("oai-uspto-v3.yaml"))
    assert {b.effect.kind for b in uspto.behaviours} == {"list"}  # a read/search-only API


def test_tools_without_inferable_semantics_get_a_deterministic_low_fidelity_fallback() -> None:
    import sys

    from tests.conftest import FIXTURES

    spec = synthesize(f"mcp+stdio:{sys.executable} {FIXTURES / 'mcp_server.py'}")
    assert spec.low_fidelity_tools == ["close_ticket"]  # a "close" with no status field to change
    assert "no status field" in spec.behaviour("close_ticket").notes[0]
    ep = Environment(spec).episode()
    first = ep.call_tool("close_ticket", {"ticket_id": "ticket_0001"})
    again = ep.call_tool("close_ticket", {"ticket_id": "ticket_0001"})
    # a write it cannot simulate is refused, never reported as done
    assert first.error == "unsupported" and first.content == again.content
    assert ep.state_hash() == Environment(spec).base.hash  # a fallback never changes the state
    created = ep.call_tool("create_ticket", {"title": "Printer on fire"}).data
    assert ep.call_tool("get_ticket", {"ticket_id": created["id"]}).data["title"] == "Printer on fire"


def test_a_tool_annotated_read_only_never_writes(tmp_path: Path) -> None:
    import json

    tools = {"tools": [
        {"name": "create_note", "description": "Create a note.", "inputSchema": {"type": "object", "properties": {
            "title": {"type": "string"}}, "required": ["title"]}},
        {"name": "get_note", "description": "Get a note.", "inputSchema": {"type": "object", "properties": {
            "note_id": {"type": "string"}}, "required": ["note_id"]}},
        {"name": "delete_note", "description": "Preview which note a deletion would remove.",
         "annotations": {"readOnlyHint": True},
         "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]}},
    ]}  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(path)
    effect = spec.behaviour("delete_note").effect
    assert effect.kind == "read" and "annotated read-only" in " ".join(spec.behaviour("delete_note").notes)
    from envfactory.runtime.environment import Environment

    episode = Environment(spec).episode()
    before = episode.state_hash()
    key = spec.initial_state["note"][0]["id"]
    assert episode.call_tool("delete_note", {"note_id": key}).ok and episode.state_hash() == before


def test_a_write_that_cannot_be_inferred_refuses_instead_of_pretending(tmp_path: Path) -> None:
    import json

    from envfactory.runtime.environment import Environment
    from envfactory.synth.selfcheck import self_check

    tools = [{"name": "archive_everything", "description": "Archive all the things.",
              "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}}},
             {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {
                 "city": {"type": "string"}}}}]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(path)
    assert spec.behaviour("archive_everything").effect.kind == "fallback"
    episode = Environment(spec).episode()
    refused = episode.call_tool("archive_everything", {"reason": "tidy"})
    assert refused.error == "unsupported" and "nothing was done" in refused.content
    assert episode.call_tool("get_weather", {"city": "Oslo"}).ok  # a read it cannot infer still answers
    report = self_check(spec)
    assert report.passed


def test_an_omitted_argument_stores_the_default_the_tool_declares(tmp_path: Path) -> None:
    from tests.synth.function_lists import function, synthesize_functions

    said = {"title": {"type": "string"},
            "description": {"type": "string", "description": "Defaults to an empty string.", "default": ""},
            "priority": {"type": "integer", "default": 1}, "queue": {"type": "string", "default": "None"}}  # fmt: skip
    ticket_id = {"type": "integer", "description": "ID of the ticket."}
    spec = synthesize_functions(tmp_path, "desk", [
        function("create_ticket", "Create a ticket.", said, ["title"], {"id": ticket_id, **said}),
        function("get_ticket", "Get a ticket.", {"ticket_id": ticket_id}, ["ticket_id"], {"id": ticket_id, **said}),
    ])  # fmt: skip
    episode = Environment(spec).episode()
    made = episode.call_tool("create_ticket", {"title": "Printer on fire"}).data
    row = episode.call_tool("get_ticket", {"ticket_id": made["id"]}).data
    assert row["description"] == "" and row["priority"] == 1  # stored, not absent
    assert "queue" not in row  # a default that spells nothing stores nothing


def test_references_that_go_round_leave_the_others_in_order() -> None:
    from envfactory.ir.state import Entity, StateSchema

    def entity(name: str, **refs: str) -> Entity:
        fields = {"id": {"type": "integer"}, **{f: {"type": "integer"} for f in refs}}
        return Entity(name=name, key="id", key_type="integer", fields=fields, refs=refs)

    schema = StateSchema(entities=(
        entity("booking", service_id="service", resource_id="resource"),  # declared before what it names
        entity("service", resource_id="resource"),
        entity("resource", service_id="service"),  # services and resources name each other
    ))  # fmt: skip
    order = entity_order(schema)
    assert order.index("booking") > max(order.index("service"), order.index("resource"))
