"""Shapes found in public descriptions (the measured corpus): each reduced to a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.effect import Filter, ListEffect
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.agents import gold, noop, success_rate
from envfactory.tasks.generate import generate_tasks

JSON = dict[str, Any]


def _spec(tmp_path: Path, paths: JSON, schemas: JSON | None = None, **extra: Any) -> Path:
    doc = {"openapi": "3.0.0", "info": {"title": "wild", "version": "1"}, "paths": paths,
           "components": {"schemas": schemas or {}}, **extra}  # fmt: skip
    path = tmp_path / "wild.json"
    path.write_text(json.dumps(doc))
    return path


def _ok(schema: JSON, desc: str = "ok") -> JSON:
    return {"200": {"description": desc, "content": {"application/json": {"schema": schema}}}}


def _param(name: str, schema: JSON, where: str = "path") -> JSON:
    return {"name": name, "in": where, "required": where == "path", "schema": schema}


COMIC = {"type": "object", "properties": {"num": {"type": "integer"}, "title": {"type": "string"},
                                          "year": {"type": "string"}}}  # fmt: skip


def test_a_read_only_api_without_lists_gets_look_up_tasks(tmp_path: Path) -> None:
    path = _spec(tmp_path, {
        "/{comicId}/info.0.json": {"get": {"operationId": "get_comic",
                                           "parameters": [_param("comicId", {"type": "number"})],
                                           "responses": _ok(COMIC)}},
    })  # fmt: skip
    spec = synthesize(path)
    comic = spec.state_schema["comic"]
    assert comic.key_type == "integer"  # a number id parameter: integer keys
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    tasks, _ = generate_tasks(env, 5, seed=0)
    assert len(tasks) == 5 and all(t.goal.answer and t.instruction.startswith("What is the") for t in tasks)
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_list_tools_declaring_one_record_answer_with_the_first_match(tmp_path: Path) -> None:
    order = {"type": "object", "properties": {"id": {"type": "integer"}, "symbol": {"type": "string"}}}
    functions = [  # a published function list (BFCL's trading bot) declares one order for a filtered read
        {"name": "list_orders", "description": "List all orders.", "parameters": {"type": "dict", "properties": {}},
         "response": {"type": "array", "items": order}},
        {"name": "get_order_details", "description": "Get the details of an order by its stock symbol.",
         "parameters": {"type": "dict", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]},
         "response": order},
    ]  # fmt: skip
    path = tmp_path / "orders.jsonl"
    path.write_text("\n".join(json.dumps(f) for f in functions))
    spec = synthesize(path)
    assert spec.behaviour("get_order_details").effect.kind == "list"
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    row = list(episode.store.rows("order"))[3]
    got = episode.call_tool("get_order_details", {"symbol": row["symbol"]})
    assert got.ok and isinstance(got.data, dict) and got.data["symbol"] == row["symbol"]
    missing = episode.call_tool("get_order_details", {"symbol": "no such symbol"})
    assert missing.error == "not_found"


def test_records_beside_other_lists_and_contradicting_enums(tmp_path: Path) -> None:
    item = {"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "levels": {"type": "array", "enum": ["open", "company"], "items": {"type": "string"}},
        "profile": {"type": "object", "enum": ["personal", "business"]}}}  # fmt: skip
    envelope = {"type": "object", "properties": {
        "total_count": {"type": "integer"}, "entries": {"type": "array", "items": item},
        "order": {"type": "array", "items": {"type": "object", "properties": {"by": {"type": "string"}}}}}}  # fmt: skip
    path = _spec(tmp_path, {
        "/folders": {"get": {"operationId": "list_folders", "responses": _ok(envelope)}},
        "/folders/{folder_id}": {"get": {"operationId": "get_folder",
                                         "parameters": [_param("folder_id", {"type": "string"})],
                                         "responses": _ok(item)}},
    }, **{"x-topics": [{"content": {"$ref": "./docs/missing.md"}}]})  # fmt: skip
    spec = synthesize(path)  # the x- extension's dangling $ref is documentation, not a tool
    folder = spec.state_schema["folder"]
    assert folder.fields["levels"]["items"]["enum"] == ["open", "company"] and "enum" not in folder.fields["levels"]
    assert folder.fields["profile"]["type"] == "string"
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    episode = env.episode()
    episode.reset(seed=0)
    listed = episode.call_tool("list_folders", {}).data
    assert set(listed) == {"entries", "total_count"} and listed["total_count"] == len(listed["entries"])


CAR = {"type": "object", "properties": {
    "id": {"type": "string", "description": "The car's id"}, "vin": {"type": "string"},
    "country": {"type": "string", "enum": ["us", "ca", "uk", "de"]}, "price": {"type": "integer"},
}}  # fmt: skip


def test_seeded_rows_are_ones_the_tools_can_name(tmp_path: Path) -> None:
    """The parameters that find records say what values they hold: a read by a VIN of at least 10
    characters, a search by a VIN of 17 and by one of two countries (the first its default) —
    seeded cars hold such keys, VINs and countries, so every tool finds one and the self-check's
    calls pass the parameters' own checks."""
    country = {"type": "string", "enum": ["us", "ca"], "default": "us"}
    path = _spec(tmp_path, {
        "/cars": {"get": {"operationId": "search_cars", "parameters": [
            _param("vin", {"type": "string", "minLength": 17}, "query"), _param("country", country, "query")],
            "responses": _ok({"type": "array", "items": CAR})}},
        "/cars/{vin}": {"get": {"operationId": "get_car", "responses": _ok(CAR),
                                "parameters": [_param("vin", {"type": "string", "minLength": 10})]}},
        "/stats": {"get": {"operationId": "car_stats", "parameters": [_param("country", country, "query")],
                           "responses": _ok(CAR)}},
    })  # fmt: skip
    spec = synthesize(path)
    car = spec.state_schema["car"]
    rows = spec.initial_state["car"]
    assert all(len(str(r[car.key])) >= 10 for r in rows)
    assert all(len(r["vin"]) >= 17 for r in rows)
    assert {r["country"] for r in rows} <= {"us", "ca"}  # what every search accepts, of what cars declare
    assert self_check(spec, env=Environment(spec)).passed


def test_a_page_size_offered_as_an_enum_is_asked_as_one_of_its_members(tmp_path: Path) -> None:
    per_page = {"type": "integer", "enum": [2, 10, 20, 50], "default": 10}
    note = {"type": "object", "properties": {"id": {"type": "integer"}, "text": {"type": "string"}}}
    path = _spec(tmp_path, {
        "/notes": {"get": {"operationId": "list_notes", "parameters": [
            _param("page", {"type": "integer"}, "query"), _param("per_page", per_page, "query")],
            "responses": _ok({"type": "array", "items": note})},
            "post": {"operationId": "create_note", "requestBody": {"content": {"application/json": {"schema": note}}},
                     "responses": _ok(note)}},
    })  # fmt: skip
    spec = synthesize(path)
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures
    assert any(c.name == "create -> list contains it" and c.status == "pass" for t in report.tools for c in t.checks)


def test_a_read_answering_one_of_a_few_words_is_a_decision_not_a_record(tmp_path: Path) -> None:
    decision = {"type": "string", "enum": ["allow", "voiceMail", "block"]}
    path = _spec(tmp_path, {
        "/users/{userPhone}/should-block": {"get": {"operationId": "should_block", "parameters": [
            _param("userPhone", {"type": "string"}), _param("phoneNumber", {"type": "string"}, "query")],
            "responses": _ok(decision)}},
    })  # fmt: skip
    spec = synthesize(path)
    assert spec.behaviour("should_block").effect.kind == "fallback"
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    answer = env.episode(max_steps=5).call_tool("should_block", {"userPhone": "+15550100", "phoneNumber": "+15550199"})
    assert answer.data in decision["enum"]


def test_a_reference_never_holds_keys_of_another_format(tmp_path: Path) -> None:
    """A store's administrator ``email`` (``format: email``) names no record keyed ``email_0006``
    (customers found by their e-mail are keyed by a text of no declared format)."""
    store = {"type": "object", "properties": {"store_name": {"type": "string"},
                                              "email": {"type": "string", "format": "email"}}}  # fmt: skip
    customer = {"type": "object", "properties": {"email": {"type": "string"}, "name": {"type": "string"}}}
    path = _spec(tmp_path, {
        "/stores/{store_name}": {"get": {"operationId": "get_store", "responses": _ok(store),
                                         "parameters": [_param("store_name", {"type": "string"})]}},
        "/customers/email/{email}": {"get": {"operationId": "get_customer_by_email", "responses": _ok(customer),
                                             "parameters": [_param("email", {"type": "string"})]}},
    })  # fmt: skip
    spec = synthesize(path)
    assert "email" not in spec.state_schema["store"].refs
    assert all("@" in row["email"] for row in spec.initial_state["store"])


def test_a_create_whose_keys_are_all_taken_is_refused_not_looped_forever(tmp_path: Path) -> None:
    """Keys drawn from a few declared values can all be taken: the next create is a conflict (it
    had looped for ever, counting keys, on a public spec whose key prose read as three characters)."""
    ticket = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}
    path = _spec(tmp_path, {
        "/tickets": {"post": {"operationId": "add_ticket", "responses": _ok(ticket),
                              "requestBody": {"content": {"application/json": {"schema": ticket}}}}},
        "/tickets/{id}": {"get": {"operationId": "get_ticket", "parameters": [
            _param("id", {"type": "string", "enum": ["a", "b", "c"]})], "responses": _ok(ticket)}},
    })  # fmt: skip
    spec = synthesize(path)
    assert spec.state_schema["ticket"].key_schema.get("enum") == ["a", "b", "c"]
    episode = Environment(spec).episode(max_steps=20)
    made = [episode.call_tool("add_ticket", {"title": f"t{i}"}) for i in range(4)]
    assert made[0].ok  # seeded with half the keys a create makes: there is room for a new one
    assert not made[-1].ok and made[-1].error == "conflict"
    assert {r["id"] for r in episode.store.rows("ticket")} <= {"a", "b", "c"}


def test_lists_of_values_for_one_value_filter_by_any_and_never_crash(tmp_path: Path) -> None:
    """``/Line/Mode/{modes}/Status``, "a comma-separated list of modes": rows of any of them (the
    runtime had raised on a list where it looked for a wildcard word); ``/Line/{ids}``: those rows."""
    line = {"type": "object", "properties": {"id": {"type": "string"}, "modeName": {"type": "string"}}}
    names = {"type": "array", "items": {"type": "string"}}
    lines = _ok({"type": "array", "items": line})
    path = _spec(tmp_path, {
        "/Line/Mode/{modes}/Status": {"get": {"operationId": "status_by_mode", "responses": lines,
                                              "parameters": [_param("modes", names)]}},
        "/Line/{ids}": {"get": {"operationId": "get_lines", "responses": lines,
                                "parameters": [_param("ids", names)]}},
    })  # fmt: skip
    spec = synthesize(path)
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    episode = env.episode(max_steps=10)
    rows = list(episode.store.rows("line"))
    two = [rows[0]["id"], rows[1]["id"]]
    got = episode.call_tool("get_lines", {"ids": two})
    assert got.ok and sorted(r["id"] for r in got.data) == sorted(two)
    assert episode.call_tool("status_by_mode", {"modes": ["tube", "dlr"]}).ok


def test_an_equality_filter_given_a_list_keeps_rows_holding_any_of_it() -> None:
    from envfactory.ir.effect import Filter
    from envfactory.ir.state import Entity
    from envfactory.runtime.behaviours import compile_filters

    line = Entity(name="line", key="id", key_prefix="line",
                  fields={"id": {"type": "string"}, "mode": {"type": "string"}, "tags": {"type": "array"}})  # fmt: skip
    rows = [{"id": "a", "mode": "tube", "tags": ["x"]}, {"id": "b", "mode": "DLR", "tags": ["x", "y"]},
            {"id": "c", "mode": "bus", "tags": []}]  # fmt: skip
    [(_, by_mode)] = compile_filters((Filter(arg="modes", field="mode", op="eq"),), line)
    assert [r["id"] for r in by_mode(rows, ["tube", "dlr"])] == ["a", "b"]
    assert [r["id"] for r in by_mode(rows, "bus")] == ["c"]
    [(_, by_tags)] = compile_filters((Filter(arg="tags", field="tags", op="eq"),), line)
    assert [r["id"] for r in by_tags(rows, ["x", "y"])] == ["b"]  # a list field: the same list


def test_a_reference_no_writing_argument_can_hold_is_dropped(tmp_path: Path) -> None:
    """Conversations name their listing by ``listing_id: integer`` while listings are keyed by text
    (``/listings/{slug}``): the reference would refuse every new conversation as naming nothing."""
    listing = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}
    convo = {"type": "object", "properties": {"id": {"type": "integer"}, "listing_id": {"type": "string"},
                                              "body": {"type": "string"}}}  # fmt: skip
    body = {"type": "object", "properties": {"listing_id": {"type": "integer"}, "body": {"type": "string"}}}
    path = _spec(tmp_path, {
        "/listings/{id}": {"get": {"operationId": "get_listing", "responses": _ok(listing),
                                   "parameters": [_param("id", {"type": "string"})]}},
        "/conversations": {"post": {"operationId": "create_conversation", "responses": _ok(convo),
                                    "requestBody": {"content": {"application/json": {"schema": body}}}}},
    })  # fmt: skip
    spec = synthesize(path)
    assert "listing_id" not in spec.state_schema["conversation"].refs
    episode = Environment(spec).episode(max_steps=5)
    assert episode.call_tool("create_conversation", {"listing_id": 7, "body": "Is it still for sale?"}).ok


def test_a_primary_key_parameter_decides_the_key_type_and_an_optional_key_is_still_passed(tmp_path: Path) -> None:
    """``/dashboard/{pk}: integer`` beside ``/dashboard/{id_or_slug}: string``: integer keys (a
    ``pk`` names the key, as ``id`` does); ``DELETE /templates?template_id=`` declares its key
    optional, and the self-check still names the template it deletes."""
    dash = {"type": "object", "properties": {"id": {"type": "integer"}, "dashboard_title": {"type": "string"}}}
    tpl = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    path = _spec(tmp_path, {
        "/dashboard/{id_or_slug}": {"get": {"operationId": "get_dashboard", "responses": _ok(dash),
                                            "parameters": [_param("id_or_slug", {"type": "string"})]}},
        "/dashboard/{pk}": {"delete": {"operationId": "delete_dashboard", "responses": _ok(dash),
                                       "parameters": [_param("pk", {"type": "integer"})]}},
        "/templates": {"get": {"operationId": "list_templates", "responses": _ok({"type": "array", "items": tpl})},
                       "delete": {"operationId": "delete_template", "responses": _ok(tpl),
                                  "parameters": [_param("template_id", {"type": "integer"}, "query")]}},
    })  # fmt: skip
    spec = synthesize(path)
    assert spec.state_schema["dashboard"].key_type == "integer"
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures


def test_rows_whose_fields_sit_in_a_record_they_hold_get_questions(tmp_path: Path) -> None:
    """JSON:API's ``{id, type, attributes: {name, code, status}}``: the fields a person asks about
    are the attributes' (``no field splits the rows`` had left such read-only APIs without tasks)."""
    bank = {"type": "object", "properties": {
        "id": {"type": "string"}, "type": {"type": "string"},
        "attributes": {"type": "object", "properties": {
            "name": {"type": "string"}, "code": {"type": "string"},
            "status": {"type": "string", "enum": ["active", "liquidated"]}}},
        "links": {"type": "object", "properties": {"self": {"type": "string"}}},
    }}  # fmt: skip
    path = _spec(tmp_path, {
        "/banks": {"get": {"operationId": "get_banks", "responses": _ok({"type": "object", "properties": {
            "data": {"type": "array", "items": bank}}})}},
        "/banks/{id}": {"get": {"operationId": "get_bank", "parameters": [_param("id", {"type": "string"})],
                                "responses": _ok({"type": "object", "properties": {"data": bank}})}},
    })  # fmt: skip
    spec = synthesize(path)
    env = Environment(spec)
    tasks, _ = generate_tasks(env, 10, seed=0)
    assert len(tasks) == 10
    assert all("attributes" not in t.instruction and "links" not in t.instruction for t in tasks)
    assert any("whose name is" in t.instruction or "whose code is" in t.instruction for t in tasks)
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_records_numbered_by_their_own_number_are_keyed_by_it(tmp_path: Path) -> None:
    """Incidents carry an ``incidentNumber`` and no id: that is their key, so a new incident's number
    is what the list shows (a made-up ``id`` had been the key, and the list never showed it)."""
    incident = {"type": "object", "properties": {"incidentNumber": {"type": "string"}, "summary": {"type": "string"},
                                                 "host": {"type": "string"}}}  # fmt: skip
    made = {"type": "object", "properties": {"incidentNumber": {"type": "string"}}}
    body = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
    path = _spec(tmp_path, {
        "/incidents": {
            "get": {"operationId": "list_incidents", "responses": _ok({"type": "object", "properties": {
                "incidents": {"type": "array", "items": incident}}})},
            "post": {"operationId": "create_incident", "responses": _ok(made),
                     "requestBody": {"content": {"application/json": {"schema": body}}}}},
    })  # fmt: skip
    spec = synthesize(path)
    assert spec.state_schema["incident"].key == "incidentNumber"
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures


def test_a_list_whose_items_wrap_each_record_in_one_member_answers_them_wrapped(tmp_path: Path) -> None:
    fields = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                               "price": {"type": "number"}}}  # fmt: skip
    product = {"type": "object", "properties": {"product": {"$ref": "#/components/schemas/ProductFields"}}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Product"}}}, "required": True}
    one = {"$ref": "#/components/schemas/Product"}
    path = _spec(tmp_path, {"/products.json": {
        "get": {"operationId": "list_products", "responses": _ok({"type": "array", "items": one})},
        "post": {"operationId": "create_product", "requestBody": body, "responses": _ok(one)}}},
        {"Product": product, "ProductFields": fields})  # fmt: skip
    spec = synthesize(path)
    episode = Environment(spec).episode()
    made = episode.call_tool("create_product", {"product": {"name": "Lamp", "price": 9.5}}).data
    listed = episode.call_tool("list_products", {}).data
    assert made["product"]["name"] == "Lamp" and made["product"] in [item["product"] for item in listed]
    assert all(set(item) == {"product"} and item["product"]["id"] for item in listed)
    assert self_check(spec).passed


def test_a_route_parameter_of_a_few_declared_words_or_beside_the_rows_own_key_keys_no_row(tmp_path: Path) -> None:
    instance = {"type": "object", "properties": {"task_id": {"type": "string"}, "map_index": {"type": "integer"},
                                                 "state": {"type": "string"}}}  # fmt: skip
    url = {"type": "object", "properties": {"url": {"type": "string"}, "visits": {"type": "integer"}}}
    path = _spec(tmp_path, {
        "/tasks/{task_id}": {"get": {"operationId": "get_task_instance", "responses": _ok(instance),
                                     "parameters": [_param("task_id", {"type": "string"})]}},
        "/tasks/{task_id}/{map_index}": {"get": {"operationId": "get_mapped_task_instance",
            "parameters": [_param("task_id", {"type": "string"}), _param("map_index", {"type": "integer"})],
            "responses": _ok(instance)}},
        "/urls": {"get": {"operationId": "list_urls", "responses": _ok({"type": "array", "items": url})}},
        "/urls/{list_type}": {"get": {"operationId": "get_urls_of_type",
            "parameters": [_param("list_type", {"type": "string", "enum": ["crawled", "errors"]})],
            "responses": _ok(url)}}})  # fmt: skip
    spec = synthesize(path)
    mapped = spec.behaviour("get_mapped_task_instance").effect
    assert (mapped.kind, getattr(mapped, "key_arg", None)) == ("read", "task_id")  # the row's own key
    assert getattr(spec.behaviour("get_urls_of_type").effect, "key_arg", None) != "list_type"
    assert self_check(spec).passed


def test_an_upload_is_checked_by_the_read_that_answers_its_record_and_not_by_its_headers(tmp_path: Path) -> None:
    doc = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                            "size": {"type": "string"}, "path": {"type": "string"}}}  # fmt: skip
    header = {"name": "path", "in": "header", "required": False, "schema": {"type": "string"}}
    text = {"type": "string"}
    path = _spec(tmp_path, {
        "/files": {"post": {"operationId": "upload_file", "parameters": [header],
                            "requestBody": {"content": {"application/json": {"schema": {
                                "type": "object", "properties": {"name": {"type": "string"}}}}}},
                            "responses": _ok(doc)},
                   "get": {"operationId": "list_files", "responses": _ok({"type": "array", "items": doc})}},
        "/files/{id}": {"get": {"operationId": "get_file", "parameters": [_param("id", {"type": "string"})],
                                "responses": _ok(doc)}},
        "/files/{id}/content": {"get": {"operationId": "download_file", "parameters": [_param("id", text)],
                                        "responses": _ok({**text, "examples": ["pdf"]})}}})  # fmt: skip
    spec = synthesize(path)
    assert spec.tools["upload_file"].is_transport("path")
    checks = {c.name: c.status for t in self_check(spec).tools if t.tool == "upload_file" for c in t.checks}
    assert checks["created row holds the arguments"] == "pass" and checks["create -> read round trip"] == "pass"


def test_a_listing_declared_as_text_is_read_as_the_json_it_holds(tmp_path: Path) -> None:
    cert = {"type": "object", "properties": {"id": {"type": "string"}, "body": {"type": "string"}}}
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"body": {"type": "string"}}}}}}
    path = _spec(tmp_path, {"/certificates": {
        "post": {"operationId": "upload_certificate", "responses": _ok(cert), "requestBody": body},
        "get": {"operationId": "download_certificates", "responses": _ok({"type": "string"})}}})  # fmt: skip
    spec = synthesize(path)
    checks = {c.name: c.status for t in self_check(spec).tools if t.tool == "upload_certificate" for c in t.checks}
    assert checks["create -> list contains it"] == "pass"


def test_a_look_up_by_free_text_is_checked_with_words_a_row_holds(tmp_path: Path) -> None:
    place = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                              "lat": {"type": "number"}}}  # fmt: skip
    query = {**_param("query", {"type": "string"}, "query"), "required": True}
    path = _spec(tmp_path, {
        "/places": {"get": {"operationId": "list_places", "responses": _ok({"type": "array", "items": place})}},
        "/places/search": {"get": {"operationId": "find_place", "responses": _ok({"type": "array", "items": place}),
                                   "parameters": [query]}}})  # fmt: skip
    spec = synthesize(path)
    found = ListEffect(entity="place", filters=(Filter(arg="query", op="search"),), finds="row")  # none: not_found
    spec = spec.model_copy(update={"behaviours": tuple(
        b.model_copy(update={"effect": found}) if b.tool == "find_place" else b for b in spec.behaviours)})  # fmt: skip
    checks = {c.name: c.status for t in self_check(spec).tools if t.tool == "find_place" for c in t.checks}
    assert checks["list succeeds"] == "pass"


def test_a_required_number_the_call_does_not_give_starts_at_its_declared_minimum(tmp_path: Path) -> None:
    located = {"type": "object", "required": ["lat", "accuracy"], "properties": {
        "id": {"type": "string"}, "lat": {"type": "number"}, "accuracy": {"type": "number", "minimum": 1}}}  # fmt: skip
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"wlan": {"type": "string"}}}}}}
    path = _spec(
        tmp_path, {"/locate": {"post": {"operationId": "locate", "requestBody": body, "responses": _ok(located)}}}
    )
    spec = synthesize(path)
    answer = Environment(spec).episode().call_tool("locate", {"wlan": "ab:cd"}).data
    assert answer["accuracy"] == 1 and answer["lat"] == 0
    assert self_check(spec).passed
