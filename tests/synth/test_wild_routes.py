"""Routes and schemas from the measured public corpus (CircleCI, dweet.io, Wordnik, TheTVDB, AWS
Budgets, Trello, Box, ReadMe's discriminator examples), each reduced to a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ingest.openapi import is_transport
from envfactory.ir.effect import CreateEffect, DeleteManyEffect, ListEffect, UpdateEffect
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
THING = {"type": "object", "properties": {"thing": {"type": "string"}, "content": {"type": "string"}}}


def _spec(tmp_path: Path, paths: JSON, **extra: Any) -> EnvSpec:
    doc = {"openapi": "3.0.0", "info": {"title": "wild", "version": "1"}, "paths": paths, **extra}
    path = tmp_path / "wild.json"
    path.write_text(json.dumps(doc))
    return synthesize(path)


def _ok(schema: JSON | None = None) -> JSON:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema or {"type": "object"}}}}}


def _path(*names: str) -> list[JSON]:
    return [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names]


def _body(props: JSON, required: list[str] | None = None) -> JSON:
    schema = {"type": "object", "properties": props, "required": required or []}
    return {"content": {"application/json": {"schema": schema}}, "required": bool(required)}


def _passes(spec: EnvSpec) -> None:
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures


def test_a_collection_scoped_by_a_preposition_is_filtered_by_its_parameter(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {  # dweet.io: the dweets *for* a thing, not a dweet named {thing}
        "/dweet/for/{thing}": {"post": {"operationId": "dweet", "parameters": _path("thing"), "responses": _ok(THING),
                                        "requestBody": _body({"content": {"type": "string"}})}},
        "/get/dweets/for/{thing}": {"get": {"operationId": "get_dweets", "parameters": _path("thing"),
                                            "responses": _ok({"type": "array", "items": THING})}},
    })  # fmt: skip
    create, listing = spec.behaviour("dweet").effect, spec.behaviour("get_dweets").effect
    assert isinstance(create, CreateEffect) and create.entity == "dweet" and create.args["thing"] == "thing"
    assert isinstance(listing, ListEffect) and [(f.arg, f.field) for f in listing.filters] == [("thing", "thing")]
    assert spec.state_schema["dweet"].key == "id"  # not the thing's name: a thing has many dweets
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    episode.call_tool("dweet", {"thing": "lamp", "content": "on"})
    got = episode.call_tool("get_dweets", {"thing": "lamp"})
    assert got.ok and [d["content"] for d in got.data] == ["on"]
    _passes(spec)


def test_sub_collections_and_operations_below_an_item(tmp_path: Path) -> None:
    build = {"type": "object", "properties": {"build_num": {"type": "integer"}, "status": {"type": "string"}}}
    key = {"type": "object", "properties": {"fingerprint": {"type": "string"}, "type": {"type": "string"}}}
    spec = _spec(tmp_path, {  # CircleCI v1
        "/project/{username}/{project}/checkout-key": {
            "post": {"operationId": "new_key", "parameters": _path("username", "project"),
                     "requestBody": _body({"type": {"type": "string"}}), "responses": _ok(key)},
            "get": {"operationId": "keys", "parameters": _path("username", "project"),
                    "responses": _ok({"type": "array", "items": key})}},
        "/project/{username}/{project}/checkout-key/{fingerprint}": {
            "get": {"operationId": "key", "parameters": _path("username", "project", "fingerprint"),
                    "responses": _ok(key)}},
        "/project/{username}/{project}/ssh-key": {
            "post": {"operationId": "ssh_key", "parameters": _path("username", "project"),
                     "requestBody": _body({"hostname": {"type": "string"}}), "responses": _ok()}},
        "/project/{username}/{project}/{build_num}": {
            "get": {"operationId": "build", "parameters": _path("username", "project", "build_num"),
                    "responses": _ok(build)}},
        "/project/{username}/{project}/{build_num}/cancel": {
            "post": {"operationId": "cancel", "parameters": _path("username", "project", "build_num"),
                     "responses": _ok(build)}},
    })  # fmt: skip
    entity = {b.tool: getattr(b.effect, "entity", None) for b in spec.behaviours}
    # ``checkout`` is a transition word, but ``checkout-key`` is a noun; so is ``ssh-key``
    assert entity["new_key"] == entity["keys"] == entity["key"] == "checkout_key"
    assert spec.behaviour("new_key").effect.kind == "create" and spec.behaviour("keys").effect.kind == "list"
    assert entity["ssh_key"] == "ssh_key"
    # an unnamed item below another item is named by its id parameter, and so is the owner of its operations
    assert entity["build"] == "build" and spec.behaviour("build").effect.key_arg == "build_num"  # type: ignore[union-attr]
    assert spec.behaviour("cancel").effect.kind in ("action", "fallback")
    assert "project" not in spec.state_schema  # no project table invented from the route's prefix
    _passes(spec)


def test_the_most_specific_shared_noun_names_the_entity(tmp_path: Path) -> None:
    word_list = {"type": "object", "properties": {"permalink": {"type": "string"}, "name": {"type": "string"}}}
    word = {"type": "object", "properties": {"word": {"type": "string"}}}
    words = {"type": "array", "items": word}
    spec = _spec(tmp_path, {  # Wordnik: many tools mention words; the word list is still its own table
        "/wordLists": {"post": {"operationId": "createWordList", "requestBody": _body({"name": {"type": "string"}}),
                                "responses": _ok(word_list)}},
        "/wordList/{permalink}": {"get": {"operationId": "getWordList", "parameters": _path("permalink"),
                                          "responses": _ok(word_list)}},
        "/words/randomWords": {"get": {"operationId": "getRandomWords", "responses": _ok(words)}},
        "/word/{word}/relatedWords": {"get": {"operationId": "getRelatedWords", "parameters": _path("word"),
                                              "responses": _ok(words)}},
    })  # fmt: skip
    assert spec.behaviour("createWordList").effect.entity == "word_list"  # type: ignore[union-attr]
    assert spec.behaviour("getWordList").effect.entity == "word_list"  # type: ignore[union-attr]
    assert spec.state_schema["word_list"].key == "permalink"
    _passes(spec)


def test_a_trailing_value_parameter_is_set_on_the_item_its_id_names(tmp_path: Path) -> None:
    rating = {"type": "object", "properties": {"ratingItemId": {"type": "integer"}, "rating": {"type": "integer"}}}
    item_type = {"name": "itemType", "in": "path", "required": True,
                 "schema": {"type": "string", "enum": ["series", "episode"]}}  # fmt: skip
    ints = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "integer"}} for n in ("itemId", "itemRating")
    ]
    spec = _spec(tmp_path, {  # TheTVDB: PUT /user/ratings/{itemType}/{itemId}/{itemRating}
        "/user/ratings": {"get": {"operationId": "ratings", "responses": _ok({"type": "array", "items": rating})}},
        "/user/ratings/{itemType}/{itemId}/{itemRating}": {
            "put": {"operationId": "rate", "parameters": [item_type, *ints], "responses": _ok(rating)}},
    })  # fmt: skip
    effect = spec.behaviour("rate").effect
    assert isinstance(effect, UpdateEffect) and effect.key_arg == "itemId"
    assert effect.args == {"itemType": "itemType", "itemRating": "itemRating"}
    assert not spec.state_schema["rating"].refs  # ``{itemType}`` qualifies the rating; it is no parent rating
    _passes(spec)


def test_rpc_routes_and_signature_headers(tmp_path: Path) -> None:
    budget = {"type": "object", "properties": {"BudgetName": {"type": "string"}, "Limit": {"type": "number"}}}
    headers = [{"name": n, "in": "header", "required": n == "Action", "schema": {"type": "string"}}
               for n in ("Action", "Version", "X-Amz-Signature", "X-Amz-Credential")]  # fmt: skip
    spec = _spec(tmp_path, {  # AWS Budgets: one POST per operation on /#Name, signed by headers
        "/#CreateBudget": {"post": {"operationId": "CreateBudget", "parameters": headers,
                                    "requestBody": _body({"AccountId": {"type": "string"}, "Budget": budget}),
                                    "responses": _ok()}},
        "/#DescribeBudgets": {"post": {"operationId": "DescribeBudgets", "parameters": headers,
                                       "requestBody": _body({"AccountId": {"type": "string"}}),
                                       "responses": _ok({"type": "object", "properties": {
                                           "Budgets": {"type": "array", "items": budget}}})}},
    })  # fmt: skip
    assert set(spec.tools["CreateBudget"].properties) == {"AccountId", "Budget"}  # plumbing left out
    create = spec.behaviour("CreateBudget").effect
    assert isinstance(create, CreateEffect) and create.body_arg == "Budget"  # the record, wrapped in its name
    assert spec.behaviour("DescribeBudgets").effect.kind == "list"
    assert spec.state_schema["budget"].key == "BudgetName"  # budgets are named, not numbered
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    made = episode.call_tool("CreateBudget", {"AccountId": "1", "Budget": {"BudgetName": "ops", "Limit": 5}})
    assert made.ok and episode.store.get("budget", "ops") == {"BudgetName": "ops", "Limit": 5, "AccountId": "1"}
    again = episode.call_tool("CreateBudget", {"AccountId": "1", "Budget": {"BudgetName": "ops", "Limit": 7}})
    assert again.error == "conflict"
    assert is_transport({"name": "X-Amz-Date", "in": "header"}) and not is_transport({"name": "X-Team", "in": "header"})


def test_aliases_free_form_one_record_outputs_and_overlapping_object_unions(tmp_path: Path) -> None:
    board = {"type": "object", "properties": {"id": {"type": "string"}, "prefs/background": {"type": "string"}}}
    variant = [{"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"},
                                                                       "size": {"type": "number"}}},
               {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"},
                                                                       "label": {"type": "string"}}}]  # fmt: skip
    spec = _spec(tmp_path, {
        "/boards": {  # Trello: ``prefs/background`` and its older spelling ``prefs_background`` side by side
            "post": {"operationId": "addBoard", "responses": _ok(board),
                     "requestBody": _body({"name": {"type": "string"}, "prefs/background": {"type": "string"},
                                           "prefs_background": {"type": "string"}})},
            "get": {"operationId": "boards", "responses": _ok({"type": "array", "items": board})}},
        "/shared_items": {"get": {"operationId": "sharedItem", "responses": _ok({"type": "object"}), "parameters": [
            {"name": "link", "in": "query", "required": True, "schema": {"type": "string"}}]}},  # Box
        "/boards/{id}/variant": {"patch": {"operationId": "setVariant", "parameters": _path("id"),  # ReadMe
                                           "requestBody": _body({"body": {"oneOf": variant}}), "responses": _ok()}},
    })  # fmt: skip
    assert "anyOf" in spec.tools["setVariant"].properties["body"]  # {kind: "a"} fits both branches
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("setVariant", {"id": "x", "body": {"kind": "a"}}).error != "invalid_arguments"
    one = episode.call_tool("sharedItem", {"link": "http://x"})
    assert (one.ok and isinstance(one.data, dict)) or one.error == "not_found"  # one record, never a list
    _passes(spec)


def test_keys_take_the_shape_another_route_declares_for_them(tmp_path: Path) -> None:
    email = {"type": "object", "properties": {"id": {"type": "string"}, "subject": {"type": "string"}}}
    attachment = {"type": "object", "properties": {"id": {"type": "string"}, "filename": {"type": "string"}}}
    uuid = {"type": "string", "format": "uuid"}
    spec = _spec(tmp_path, {  # Resend: /emails/{id} says nothing, /emails/{email_id}/attachments wants a uuid
        "/emails": {"post": {"operationId": "send", "responses": _ok(email), "parameters": [
            {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}}],
                             "requestBody": _body({"subject": {"type": "string"}})}},
        "/emails/{id}": {"get": {"operationId": "email", "parameters": _path("id"), "responses": _ok(email)}},
        "/emails/{email_id}/attachments": {"get": {
            "operationId": "attachments", "responses": _ok({"type": "array", "items": attachment}),
            "parameters": [{"name": "email_id", "in": "path", "required": True, "schema": uuid}]}},
    })  # fmt: skip
    assert spec.state_schema["email"].key_schema == {"format": "uuid"}
    assert "Idempotency-Key" not in spec.tools["send"].properties
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    sent = episode.call_tool("send", {"subject": "hi"})
    assert sent.ok and episode.call_tool("attachments", {"email_id": sent.data["id"]}).ok
    _passes(spec)


def test_a_read_only_api_narrowed_by_a_required_section_gets_answer_tasks(tmp_path: Path) -> None:
    from envfactory.tasks.agents import gold, noop, success_rate
    from envfactory.tasks.generate import generate_tasks

    article = {"type": "object", "properties": {"title": {"type": "string"}, "byline": {"type": "string"},
                                                "section": {"type": "string"}}}  # fmt: skip
    section = {"name": "section", "in": "path", "required": True,
               "schema": {"type": "string", "enum": ["arts", "science", "travel"]}}  # fmt: skip
    fmt = {"name": "format", "in": "path", "required": True, "schema": {"type": "string", "enum": ["json"]}}
    spec = _spec(tmp_path, {  # NYT top stories: one tool, GET /{section}.{format}
        "/{section}.{format}": {"get": {"operationId": "top_stories", "parameters": [section, fmt],
                                        "responses": _ok({"type": "object", "properties": {
                                            "results": {"type": "array", "items": article}}})}},
    })  # fmt: skip
    assert list(spec.tools["top_stories"].required) == ["section"]  # ``.{format}`` is plumbing
    effect = spec.behaviour("top_stories").effect
    assert isinstance(effect, ListEffect) and [(f.arg, f.field) for f in effect.filters] == [("section", "section")]
    assert spec.state_schema["story"].fields["section"]["enum"] == ["arts", "science", "travel"]
    env = Environment(spec)
    tasks, _ = generate_tasks(env, 8, seed=0)
    assert len(tasks) == 8 and all(t.instruction.startswith("Among the stories whose section is") for t in tasks)
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_envelopes_inside_data_and_lists_that_are_never_empty(tmp_path: Path) -> None:
    from envfactory.ir.jsonschema import data_path, min_records

    plan = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    plans = {"type": "object", "properties": {"data": {"type": "object", "properties": {  # YNAB
        "plans": {"type": "array", "items": plan}, "default_plan": plan}}}}  # fmt: skip
    one = {"type": "object", "properties": {"data": {"type": "object", "properties": {
        "plan": plan, "server_knowledge": {"type": "integer"}}}}}  # fmt: skip
    assert [k for k, _ in data_path(plans)[0]] == ["data", "plans"] and data_path(plans)[2]
    assert [k for k, _ in data_path(one)[0]] == ["data", "plan"] and not data_path(one)[2]
    subscribers = {
        "type": "object",
        "properties": {
            "Subscribers": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "object", "properties": {"Address": {"type": "string"}}},
            }
        },
    }
    assert min_records(subscribers) == 1 and min_records(plans) == 0
    spec = _spec(tmp_path, {
        "/plans": {"get": {"operationId": "plans", "responses": _ok(plans)},
                   "post": {"operationId": "add_plan", "requestBody": _body({"name": {"type": "string"}}),
                            "responses": _ok(one)}},
        "/plans/{plan_id}": {"get": {"operationId": "plan", "parameters": _path("plan_id"), "responses": _ok(one)}},
    })  # fmt: skip
    assert set(spec.state_schema["plan"].fields) == {"id", "name"}  # not {plans, default_plan}
    _passes(spec)


def test_task_requests_are_person_sized_and_name_rows_instead_of_opaque_ids(tmp_path: Path) -> None:
    from envfactory.tasks.generate import generate_tasks
    from envfactory.values import ValueMaker

    wide = {"type": "object", "required": ["a"], "properties": {k: {"type": "string"} for k in "abcdefgh"}}
    many = {"type": "array", "maxItems": 50, "items": {"type": "string"}}
    assert set(ValueMaker(0).value(wide)) == set("abcdefgh")  # seeds: whole records
    brief = ValueMaker(0, brief=True)
    assert all("a" in (v := brief.value(wide)) and len(v) <= 3 for _ in range(20))
    assert all(1 <= len(brief.value(many)) <= 2 for _ in range(20))
    plan = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    payee = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                              "plan_id": {"type": "string"}}}  # fmt: skip
    spec = _spec(tmp_path, {
        "/plans": {"get": {"operationId": "plans", "responses": _ok({"type": "array", "items": plan})}},
        "/plans/{plan_id}/payees": {"post": {"operationId": "add_payee", "parameters": _path("plan_id"),
                                             "requestBody": _body({"name": {"type": "string"}}, ["name"]),
                                             "responses": _ok(payee)}},
    })  # fmt: skip
    tasks, _ = generate_tasks(Environment(spec), 10, seed=0)
    said = " ".join(t.instruction for t in tasks)
    assert "the plan whose name is '" in said and "plan_0" not in said  # found by its name, in the gold plan too
    assert all(any(c.tool == "plans" for c in t.gold) for t in tasks if "plan whose name" in t.instruction)


def test_walks_read_records_inside_nested_envelopes_and_string_limits(tmp_path: Path) -> None:
    from envfactory.tasks.agents import gold, noop, success_rate
    from envfactory.tasks.generate import generate_tasks
    from envfactory.tasks.instantiate import records_of

    plan = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                             "kind": {"type": "string", "enum": ["home", "work"]}}}  # fmt: skip
    plans = {"type": "object", "properties": {"data": {"type": "object", "properties": {
        "plans": {"type": "array", "items": plan}, "default_plan": plan}}}}  # fmt: skip
    assert records_of({"data": {"plans": [{"id": "a"}], "default_plan": {"id": "a"}}}, plans) == [{"id": "a"}]
    limit = {"name": "maxResults", "in": "query", "schema": {"type": "string"}}  # Google: a number in a string
    spec = _spec(tmp_path, {
        "/plans": {"get": {"operationId": "plans", "parameters": [limit], "responses": _ok(plans)}},
        "/plans/{plan_id}": {"delete": {"operationId": "drop", "parameters": _path("plan_id"), "responses": _ok()}},
    })  # fmt: skip
    env = Environment(spec)
    tasks, _ = generate_tasks(env, 10, seed=0)
    assert len(tasks) == 10 and any(
        c.tool == "plans" and isinstance(c.args.get("maxResults"), str) for t in tasks for c in t.gold
    )
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_seeded_values_fit_their_schema_where_the_description_contradicts_itself(tmp_path: Path) -> None:
    from envfactory.runtime.validation import compile_schema

    gif = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "import_datetime": {"type": "string", "format": "date-time", "examples": ["2013-08-01 12:41:48"]},
        },
    }  # Giphy's example
    lst = {"type": "object", "properties": {"list_name": {"type": "string"}}}
    overview = {"type": "object", "properties": {"id": {"type": "string"}, "list_id": {"type": "integer"},
                                                 "domain_id": {"type": "string", "format": "uuid"}}}  # fmt: skip
    domain = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/gifs": {"get": {"operationId": "gifs", "responses": _ok({"type": "array", "items": gif})}},
        "/lists/{list_name}": {"get": {"operationId": "list", "parameters": _path("list_name"), "responses": _ok(lst)}},
        "/overviews": {"get": {"operationId": "overviews", "responses": _ok({"type": "array", "items": overview})}},
        "/domains/{id}": {"get": {"operationId": "domain", "parameters": _path("id"), "responses": _ok(domain)}},
    })  # fmt: skip
    assert "list_id" not in spec.state_schema["overview"].refs  # an integer cannot name a list by its name
    assert spec.state_schema["domain"].key_schema == {"format": "uuid"}  # the record that names it says so
    for entity in spec.state_schema.entities:
        for row in spec.initial_state[entity.name]:
            for field, value in row.items():
                compile_schema(entity.fields[field])(value)  # raises on a misfit


def test_verb_led_segments_are_operations_and_batches_belong_to_their_collection(tmp_path: Path) -> None:
    board = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    contact = {"type": "object", "properties": {"id": {"type": "string"}, "email": {"type": "string"}}}
    inputs = {"inputs": {"type": "array", "items": {"type": "object", "properties": {"email": {"type": "string"}}}}}
    spec = _spec(tmp_path, {
        "/boards/{id}": {"get": {"operationId": "board", "parameters": _path("id"), "responses": _ok(board)}},
        "/boards/{id}/markAsViewed": {"post": {"operationId": "viewed", "parameters": _path("id"),  # Trello
                                               "responses": _ok(board)}},
        "/groups/{groupId}/addContact/{contactId}": {"post": {  # ZoomConnect
            "operationId": "add_to_group", "parameters": _path("groupId", "contactId"), "responses": _ok()}},
        "/contacts": {"get": {"operationId": "contacts", "responses": _ok({"type": "array", "items": contact})}},
        "/contacts/batch/create": {"post": {"operationId": "batch_create", "requestBody": _body(inputs, ["inputs"]),
                                            "responses": _ok()}},  # HubSpot
        "/contacts/batch/archive": {"post": {"operationId": "batch_archive", "requestBody": _body(inputs, ["inputs"]),
                                             "responses": _ok()}},
    })  # fmt: skip
    names = set(spec.state_schema.names)
    assert not names & {"mark_as_viewed", "add_contact", "input", "batch"}, names
    assert getattr(spec.behaviour("viewed").effect, "entity", "board") == "board"
    made = spec.behaviour("batch_create").effect
    assert made.kind == "create_many" and made.entity == "contact"  # type: ignore[union-attr]
    assert spec.behaviour("batch_archive").effect.kind != "create_many"  # archiving many is no create


def test_a_post_described_as_the_get_beside_it_is_the_same_query(tmp_path: Path) -> None:
    annotation = {"type": "object", "properties": {"spans": {"type": "array", "items": THING}}}
    said = "Annotate a given content and get all entities from it"
    query = {"name": "content", "in": "query", "required": True, "schema": {"type": "string"}}
    spec = _spec(tmp_path, {  # the Monarch Initiative's annotator: the query's input in a body, for long texts
        "/annotate/entities": {
            "get": {"operationId": "get_entities", "description": said, "parameters": [query],
                    "responses": _ok(annotation)},
            "post": {"operationId": "post_entities", "description": said, "responses": _ok(annotation),
                     "requestBody": _body({"content": {"type": "string"}}, ["content"])},
        },
        # a write offered through both methods stays a write (ZoomConnect's "Add a contact to a group")
        "/groups/{groupId}/addContact/{contactId}": {
            "get": {"operationId": "get_add_contact", "description": "Add a contact to a group",
                    "parameters": _path("groupId", "contactId"), "responses": _ok()},
            "post": {"operationId": "post_add_contact", "description": "Add a contact to a group",
                     "parameters": _path("groupId", "contactId"), "responses": _ok()},
        },
    })  # fmt: skip
    assert spec.behaviour("post_entities").effect.kind == spec.behaviour("get_entities").effect.kind == "list"
    assert spec.behaviour("post_add_contact").effect.kind not in ("read", "list")
    _passes(spec)


def test_an_answer_of_alternatives_holds_the_first_and_a_batch_answers_the_keys_it_made(tmp_path: Path) -> None:
    node = {"type": "object", "properties": {"id": {"type": "string"}, "hostname": {"type": "string"},
                                             "os": {"type": "string"}}}  # fmt: skip
    made = {
        "type": "object",
        "required": ["result", "data"],
        "properties": {  # Rudder's createNodes
            "result": {"type": "string", "enum": ["success", "error"]},
            "data": {
                "type": "object",
                "required": ["created", "failed"],
                "properties": {
                    "created": {"type": "array", "items": {"type": "string", "description": "created nodes ID"}},
                    "failed": {"type": "array", "items": {"type": "string", "description": "failed nodes ID"}},
                },
            },
        },
    }
    one = {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "data": {
                        "type": "object",
                        "properties": {  # JSON or CSV
                            "nodes": {"type": "array", "items": node}
                        },
                    }
                },
            },
            {"type": "string"},
        ]
    }
    spec = _spec(tmp_path, {
        "/nodes": {
            "put": {"operationId": "createNodes", "responses": _ok(made),
                    "requestBody": {"required": True, "content": {"application/json": {
                        "schema": {"type": "array", "items": node}}}}},
            "get": {"operationId": "listNodes", "responses": _ok(one)},
        },
        "/nodes/{nodeId}": {"get": {"operationId": "getNode", "parameters": _path("nodeId"), "responses": _ok(node)}},
    })  # fmt: skip
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    given = [{"id": "n1", "hostname": "web", "os": "linux"}, {"id": "n2", "hostname": "db", "os": "bsd"}]
    got = episode.call_tool("createNodes", {"body": given})
    assert got.ok and got.data["data"] == {"created": ["n1", "n2"], "failed": []}, got
    listed = episode.call_tool("listNodes", {})
    assert listed.ok and {"n1", "n2"} <= {r["id"] for r in listed.data["data"]["nodes"]}, listed
    _passes(spec)


def test_a_read_declared_as_text_answers_the_record_as_json_and_the_round_trip_reads_it(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {  # Docker's image inspection, its answer declared a string
        "/images": {"post": {"operationId": "createImage", "responses": _ok(THING),
                             "requestBody": _body({"thing": {"type": "string"}, "content": {"type": "string"}})}},
        "/images/{imageId}": {"get": {"operationId": "getImage", "parameters": _path("imageId"),
                                      "responses": _ok({"type": "string"})}},
    })  # fmt: skip
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    made = episode.call_tool("createImage", {"thing": "alpine", "content": "base"})
    assert made.ok
    key = next(iter(episode.store.changes()["image"]))
    got = episode.call_tool("getImage", {"imageId": key})
    assert got.ok and isinstance(got.data, str) and json.loads(got.data)["thing"] == "alpine", got
    _passes(spec)


def test_a_route_parameter_of_a_few_words_answering_records_lists_those_it_names(tmp_path: Path) -> None:
    job = {"type": "object", "properties": {"id": {"type": "integer"}, "state": {"type": "string"},
                                            "type": {"type": "string"}}}  # fmt: skip
    state = {"name": "state", "in": "path", "required": True,
             "schema": {"type": "string", "enum": ["active", "completed", "failed"]}}  # fmt: skip
    abuse = {"type": "object", "properties": {"id": {"type": "integer"}, "state": {"type": "integer"}}}
    spec = _spec(tmp_path, {  # PeerTube: the jobs in a state, and an abuse report's own state beside them
        "/jobs/{state}": {"get": {"operationId": "getJobs", "parameters": [state],
                                  "responses": _ok({"type": "object", "properties": {
                                      "total": {"type": "integer"}, "data": {"type": "array", "items": job}}})}},
        "/abuses": {"get": {"operationId": "listAbuses", "responses": _ok({"type": "array", "items": abuse})}},
        "/abuses/{abuseId}": {"put": {"operationId": "updateAbuse", "parameters": _path("abuseId"),
                                      "requestBody": _body({"state": {"type": "integer", "enum": [1, 2, 3]}}),
                                      "responses": {"204": {"description": "done"}}}},
    })  # fmt: skip
    listing = spec.behaviour("getJobs").effect
    assert isinstance(listing, ListEffect) and [(f.arg, f.field) for f in listing.filters] == [("state", "state")]
    assert spec.state_schema["job"].key != "state" and not spec.state_schema["abuse"].refs  # no job named by a state
    _passes(spec)


def test_the_self_check_adds_values_of_the_declared_type_and_makes_records_under_free_keys(tmp_path: Path) -> None:
    ids = {"type": "array", "items": {"type": "integer"}}
    collection = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "title": {"type": "string"}, "articles": ids},
    }
    collaborator = {"type": "object", "properties": {"user_id": {"type": "integer"}, "role_name": {"type": "string"}}}
    spec = _spec(tmp_path, {  # figshare: a collection's articles by their integer ids; a project's collaborators
        "/collections": {"get": {"operationId": "listCollections",
                                 "responses": _ok({"type": "array", "items": collection})}},
        "/collections/{collection_id}": {"get": {"operationId": "getCollection", "parameters": _path("collection_id"),
                                                 "responses": _ok(collection)}},
        "/collections/{collection_id}/articles": {"put": {
            "operationId": "replaceCollectionArticles", "parameters": _path("collection_id"),
            "requestBody": _body({"articles": ids}, ["articles"]), "responses": {"205": {"description": "replaced"}}}},
        "/collaborators": {
            "get": {"operationId": "listCollaborators", "responses": _ok({"type": "array", "items": collaborator})},
            "post": {"operationId": "inviteCollaborator", "responses": _ok(collaborator),
                     "requestBody": _body({"user_id": {"type": "integer", "minimum": 1, "maximum": 16},
                                           "role_name": {"type": "string"}}, ["user_id"])}},
        "/collaborators/{user_id}": {"get": {"operationId": "getCollaborator", "parameters": _path("user_id"),
                                             "responses": _ok(collaborator)}},
    })  # fmt: skip
    assert spec.behaviour("replaceCollectionArticles").effect.kind == "edit_list"
    _passes(spec)


def test_a_post_on_things_keyed_by_another_record_makes_a_thing_for_it(tmp_path: Path) -> None:
    analysis = {"type": "object", "properties": {"id": {"type": "string"}, "commit": {"type": "string"},
                                                 "status": {"type": "string"}}}  # fmt: skip
    project = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    spec = _spec(tmp_path, {  # LGTM: an analysis of a project's commit, requested under the project's id
        "/projects": {"get": {"operationId": "listProjects", "responses": _ok({"type": "array", "items": project})}},
        "/projects/{project-id}": {"get": {"operationId": "getProject", "parameters": _path("project-id"),
                                           "responses": _ok(project)}},
        "/analyses/{project-id}": {"post": {"operationId": "requestAnalysis", "parameters": _path("project-id"),
                                            "requestBody": _body({"commit": {"type": "string"}}, ["commit"]),
                                            "responses": _ok(analysis)}},
        "/analyses/{analysis-id}": {"get": {"operationId": "getAnalysis", "parameters": _path("analysis-id"),
                                            "responses": _ok(analysis)}},
        "/uploads/{session-id}": {"post": {"operationId": "completeUpload", "parameters": _path("session-id"),
                                           "responses": {"204": {"description": "done"}}}},
    })  # fmt: skip
    made = spec.behaviour("requestAnalysis").effect
    assert isinstance(made, CreateEffect) and made.entity == "analysis", made
    assert spec.behaviour("completeUpload").effect.kind != "create"  # completes the session its id keys
    _passes(spec)


def test_a_parameter_named_by_the_word_before_it_qualifies_what_the_route_before_them_reads(tmp_path: Path) -> None:
    stop = {"type": "object", "properties": {"stop_id": {"type": "integer"}, "stop_name": {"type": "string"}}}
    kind = {"name": "route_type", "in": "path", "required": True, "schema": {"type": "integer", "enum": [0, 1, 2]}}
    spec = _spec(tmp_path, {  # PTV: a stop's details, for a route type (train, tram, bus)
        "/v3/stops": {"get": {"operationId": "listStops", "responses": _ok({"type": "array", "items": stop})}},
        "/v3/stops/{stop_id}/route_type/{route_type}": {"get": {
            "operationId": "stopDetails", "parameters": [*_path("stop_id"), kind], "responses": _ok(stop)}},
    })  # fmt: skip
    read = spec.behaviour("stopDetails").effect
    assert read.kind == "read" and read.entity == "stop" and read.key_arg == "stop_id", read
    _passes(spec)


def test_a_record_read_under_one_of_the_records_it_lists_is_found_among_them(tmp_path: Path) -> None:
    held = {"type": "array", "items": {"type": "string"}}
    download = {
        "type": "object",
        "properties": {"Id": {"type": "string"}, "ZipFile": {"type": "string"}, "DocumentId": held},
    }
    document = {"type": "object", "properties": {"Id": {"type": "string"}, "Title": {"type": "string"}}}
    spec = _spec(tmp_path, {  # Gérer mes affaires: a zip of documents, read under one of them
        "/documents": {"get": {"operationId": "listDocuments", "responses": _ok({"type": "array", "items": document})}},
        "/documents/{documentId}": {"get": {"operationId": "getDocument", "parameters": _path("documentId"),
                                            "responses": _ok(document)}},
        "/documents/download": {"post": {"operationId": "zipDocuments", "responses": _ok(download),
                                         "requestBody": _body({"DocumentId": held})}},
        "/documents/{documentId}/download": {"get": {"operationId": "getDownload", "parameters": _path("documentId"),
                                                     "responses": _ok(download)}},
    })  # fmt: skip
    listing = spec.behaviour("getDownload").effect  # found by the document it holds, among those it lists
    assert isinstance(listing, ListEffect) and [(f.arg, f.field, f.op) for f in listing.filters] == [
        ("documentId", "DocumentId", "any")
    ], listing
    _passes(spec)


def test_a_filter_takes_the_field_of_its_own_name_and_only_values_that_can_meet(tmp_path: Path) -> None:
    file = {"type": "object", "properties": {  # ExaVault: ``resources`` only a compress call takes
        "id": {"type": "integer"}, "resources": {"type": "array", "items": {"type": "string"}},
        "resource": {"type": "string"}, "points": {"type": "array", "items": {"type": "array", "items": {
            "type": "number"}}}, "tags": {"type": "array", "items": {"type": "object", "properties": {
                "name": {"type": "string"}, "id": {"type": "integer"}}}}}}  # fmt: skip
    query = [{"name": "resource", "in": "query", "schema": {"type": "string"}},
             {"name": "point", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
             {"name": "tag", "in": "query", "schema": {"type": "string"}}]  # fmt: skip
    spec = _spec(tmp_path, {
        "/files": {"get": {"operationId": "find_files", "parameters": query,
                           "responses": _ok({"type": "array", "items": file})},
                   "post": {"operationId": "add_file", "requestBody": _body(file["properties"]),
                            "responses": _ok(file)}},
    })  # fmt: skip
    listing = spec.behaviour("find_files").effect
    assert isinstance(listing, ListEffect)
    # ``resource`` is the field of its name, not one of the ``resources``; a point as text never equals a
    # field's [lon, lat] pairs, so it filters nothing; a tag names one of the records in ``tags``
    assert {(f.arg, f.field, f.op) for f in listing.filters} == {("resource", "resource", "eq"),
                                                                 ("tag", "tags", "any")}  # fmt: skip
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    episode.call_tool("add_file", {"id": 900, "resource": "/a", "resources": ["/b"], "points": [[1.0, 2.0]],
                                   "tags": [{"name": "urgent", "id": 3}]})  # fmt: skip
    found = json.loads(episode.call_tool("find_files", {"resource": "/a", "tag": "urgent"}).content)
    assert [f["id"] for f in found] == [900]
    assert json.loads(episode.call_tool("find_files", {"resource": "/a", "tag": "later"}).content) == []
    assert json.loads(episode.call_tool("find_files", {"resource": "/b"}).content) == []
    _passes(spec)


def test_a_delete_keyed_by_a_list_of_ids_deletes_those_records(tmp_path: Path) -> None:
    """DaniWeb: ``DELETE /messages/{ID}`` where ``ID`` is a list of message ids; and a list given where
    one key is wanted names no record (not_found), never an internal error."""
    message = {"type": "object", "properties": {"id": {"type": "integer"}, "text": {"type": "string"}}}
    ids = [{"name": "ID", "in": "path", "required": True, "schema": {"type": "array", "items": {"type": "integer"}}}]
    spec = _spec(tmp_path, {
        "/messages": {"get": {"operationId": "list_messages", "responses": _ok({"type": "array", "items": message})},
                      "post": {"operationId": "send", "requestBody": _body({"text": {"type": "string"}}),
                               "responses": _ok(message)}},
        "/messages/{ID}": {"delete": {"operationId": "delete_messages", "parameters": ids, "responses": _ok()}},
        "/message/{id}": {"get": {"operationId": "get_message", "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {}}], "responses": _ok(message)}},
    })  # fmt: skip
    assert isinstance(spec.behaviour("delete_messages").effect, DeleteManyEffect)
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    made = [json.loads(episode.call_tool("send", {"text": t}).content)["id"] for t in ("a", "b", "c")]
    assert episode.call_tool("delete_messages", {"ID": made[:2]}).ok
    left = [m["id"] for m in json.loads(episode.call_tool("list_messages", {}).content)]
    assert made[2] in left and made[0] not in left and made[1] not in left
    assert episode.call_tool("get_message", {"id": [made[2]]}).error == "not_found"
    _passes(spec)


def test_a_list_answering_plain_values_lists_the_field_its_items_name(tmp_path: Path) -> None:
    """Anchore: the contents uploaded to an import are listed as their digests (``["sha256:..."]``,
    items "String digest of an uploaded content"), not as each record written as JSON text; a list of
    plain values naming no field lists the keys."""
    content = {"type": "object", "properties": {"id": {"type": "string"}, "digest": {"type": "string"},
                                                "created_at": {"type": "string"}}}  # fmt: skip
    digests = {"type": "array", "items": {"type": "string", "description": "String digest of an uploaded content"}}
    spec = _spec(tmp_path, {
        "/contents": {"get": {"operationId": "list_digests", "responses": _ok(digests)},
                      "post": {"operationId": "upload", "requestBody": _body({"digest": {"type": "string"}}),
                               "responses": _ok(content)}},
        "/contents/{id}": {"get": {"operationId": "get_content", "parameters": _path("id"), "responses": _ok(content)}},
        "/tags": {"get": {"operationId": "list_tags", "responses": _ok({"type": "array", "items": {"type": "string"}})},
                  "post": {"operationId": "add_tag", "requestBody": _body({"label": {"type": "string"}}),
                           "responses": _ok({"type": "object", "properties": {"id": {"type": "string"}}})}},
    })  # fmt: skip
    listing = spec.behaviour("list_digests").effect
    assert isinstance(listing, ListEffect) and listing.listed == "digest" and listing.keys_as is None
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("upload", {"digest": "sha256:abc"}).ok
    listed = json.loads(episode.call_tool("list_digests", {}).content)
    assert "sha256:abc" in listed and all(isinstance(d, str) and not d.startswith("{") for d in listed)
    made = json.loads(episode.call_tool("add_tag", {"label": "x"}).content)["id"]
    assert made in json.loads(episode.call_tool("list_tags", {}).content)
    _passes(spec)


def test_a_post_on_a_thing_the_caller_names_creates_it_and_its_task_says_the_name(tmp_path: Path) -> None:
    """Request Baskets: ``POST /baskets/{name}``, "Creates a new basket with this name", beside
    ``GET /baskets/{name}``; ``POST /tags/{resourceArn}`` ("Creates tags on a resource") names another
    thing and makes no tag keyed by it."""
    from envfactory.tasks.generate import generate_tasks

    basket = {"type": "object", "properties": {"capacity": {"type": "integer"}, "token": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/baskets/{name}": {
            "post": {"operationId": "create_basket", "description": "Creates a new basket with this name.",
                     "parameters": _path("name"), "requestBody": _body({"capacity": {"type": "integer"}}),
                     "responses": _ok(basket)},
            "get": {"operationId": "get_basket", "parameters": _path("name"), "responses": _ok(basket)}},
        "/tags/{resourceArn}": {"post": {"operationId": "tag_resource", "description": "Creates tags on a resource.",
                                         "parameters": _path("resourceArn"),
                                         "requestBody": _body({"tags": {"type": "object"}}), "responses": _ok()}},
    })  # fmt: skip
    create = spec.behaviour("create_basket").effect
    assert isinstance(create, CreateEffect) and create.entity == "basket" and create.key_arg == "name"
    assert not (isinstance(tagged := spec.behaviour("tag_resource").effect, CreateEffect) and tagged.key_arg)
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("create_basket", {"name": "inbox", "capacity": 200}).ok
    assert json.loads(episode.call_tool("get_basket", {"name": "inbox"}).content)["capacity"] == 200
    tasks, _ = generate_tasks(Environment(spec), 5, seed=0)
    made = [t for t in tasks if [c.tool for c in t.gold] == ["create_basket"]]
    # the new basket's name is said, or the user gives it when asked
    assert made and all(repr(t.gold[0].args["name"]) in t.instruction
                        or t.gold[0].args["name"] in map(str, t.user.facts.values()) for t in made)  # fmt: skip


def test_a_parameter_of_a_few_words_names_no_new_thing(tmp_path: Path) -> None:
    """IllumiDesk: ``POST /settings/entity/{entity}``, ``entity`` one of a few words, creates settings for
    that kind of thing, no "entity" named by the caller; a trigger made by name is."""
    kinds = [{"name": "entity", "in": "path", "required": True, "schema": {"type": "string", "enum": ["a", "b"]}}]
    event = {"type": "object", "properties": {"name": {"type": "string"}, "event": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/settings/entity/{entity}": {"post": {"operationId": "create_settings", "parameters": kinds,
                                               "description": "Create notification settings.", "responses": _ok()}},
        "/spaces/{id}/triggers/{name}": {"post": {"operationId": "create_trigger", "parameters": _path("id", "name"),
                                                  "description": "Creates a trigger for the space.",
                                                  "responses": _ok()}},
        "/spaces/{id}/triggers": {"get": {"operationId": "list_triggers", "parameters": _path("id"),
                                          "responses": _ok({"type": "array", "items": event})}},
    })  # fmt: skip
    settings = spec.behaviour("create_settings").effect
    assert not (isinstance(settings, CreateEffect) and settings.key_arg == "entity")
    trigger = spec.behaviour("create_trigger").effect
    assert isinstance(trigger, CreateEffect) and trigger.key_arg == "name"


def test_a_list_member_named_as_a_field_of_value_lists_lists_those_values(tmp_path: Path) -> None:
    """Telstra: ``POST /free-trial-numbers`` registers ``{freeTrialNumbers: ["0412345678", ...]}`` and the
    ``GET`` beside it answers ``{freeTrialNumbers: [...]}``: the numbers registered, value by value —
    never the made-up keys of the batches that registered them (which break the items' 10 characters)."""
    numbers = {"type": "array", "items": {"type": "string", "minLength": 10, "maxLength": 10}}
    body = {"type": "object", "properties": {"freeTrialNumbers": numbers}, "required": ["freeTrialNumbers"]}
    spec = _spec(tmp_path, {
        "/free-trial-numbers": {
            "get": {"operationId": "get_numbers", "responses": _ok(body)},
            "post": {"operationId": "add_numbers", "requestBody": {"content": {"application/json": {"schema": body}}},
                     "responses": _ok(body)}},
    })  # fmt: skip
    listing = spec.behaviour("get_numbers").effect
    assert isinstance(listing, ListEffect) and listing.keys_as == listing.listed == "freeTrialNumbers"
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("add_numbers", {"freeTrialNumbers": ["0412345678", "0487654321"]}).ok
    listed = json.loads(episode.call_tool("get_numbers", {}).content)["freeTrialNumbers"]
    assert {"0412345678", "0487654321"} <= set(listed) and all(isinstance(n, str) and len(n) == 10 for n in listed)
    _passes(spec)


def test_a_listing_that_shows_one_kind_by_default_is_not_asked_for_a_record_of_another(tmp_path: Path) -> None:
    """MotaWord: ``GET /continuous_projects?type=`` takes only ``active`` and defaults to it; a project
    made of another type is one the listing cannot show, so the self-check does not look for it there
    (and still looks for one it can show)."""
    kinds = {"type": "string", "enum": ["archived", "active"]}
    project = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "type": kinds}}
    kind = {"name": "type", "in": "query", "schema": {"type": "string", "enum": ["active"], "default": "active"}}
    spec = _spec(tmp_path, {
        "/projects": {"get": {"operationId": "list_projects", "parameters": [kind],
                              "responses": _ok({"type": "array", "items": project})},
                      "post": {"operationId": "create_project", "requestBody": _body(project["properties"]),
                               "responses": _ok(project)}},
        "/projects/{id}": {"get": {"operationId": "get_project", "parameters": _path("id"), "responses": _ok(project)}},
    })  # fmt: skip
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    archived = json.loads(episode.call_tool("create_project", {"name": "old", "type": "archived"}).content)["id"]
    active = json.loads(episode.call_tool("create_project", {"name": "new", "type": "active"}).content)["id"]
    shown = [r["id"] for r in json.loads(episode.call_tool("list_projects", {}).content)]
    assert active in shown and archived not in shown  # the listing filters by its declared default
    _passes(spec)


def _query(name: str, schema: JSON, required: bool = False) -> JSON:
    return {"name": name, "in": "query", "required": required, "schema": schema}


STORY = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"},
                                          "status": {"type": "string"}}}  # fmt: skip


def test_routes_opening_with_a_parameter_are_the_records_of_the_collection_at_the_root(tmp_path: Path) -> None:
    """Presalytics' story API, served under ``/story``: ``/`` lists and makes stories, ``/{id}`` is one."""
    spec = _spec(tmp_path, {
        "/": {"get": {"operationId": "story_get", "responses": _ok({"type": "array", "items": STORY})},
              "post": {"operationId": "story_post", "requestBody": _body({"title": {"type": "string"}}),
                       "responses": _ok(STORY)}},
        "/{id}": {"get": {"operationId": "story_id_get", "parameters": _path("id"), "responses": _ok(STORY)},
                  "delete": {"operationId": "story_id_delete", "parameters": _path("id"), "responses": _ok()}},
        "/{id}/status": {"get": {"operationId": "story_id_status_get", "parameters": _path("id"),
                                 "responses": _ok({"type": "object", "properties": {"status": {"type": "string"}}})}},
        "/{id}/messages": {"get": {"operationId": "story_id_messages_get", "parameters": _path("id"), "responses": _ok(
            {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"},
                                                                          "text": {"type": "string"}}}})}},
    })  # fmt: skip
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert (effects["story_id_get"].kind, effects["story_id_get"].entity, effects["story_id_get"].key_arg) == (
        "read", "story", "id")  # fmt: skip
    assert effects["story_id_delete"].kind == "delete" and effects["story_id_status_get"].kind == "read"
    messages = effects["story_id_messages_get"]
    assert isinstance(messages, ListEffect) and spec.state_schema[messages.entity].refs == {"story_id": "story"}
    _passes(spec)


def test_a_body_list_of_ids_one_record_keeps_makes_one_record(tmp_path: Path) -> None:
    """Meraki's ``POST .../bypassActivationLockAttempts`` with ``{ids: [text]}``: one attempt over those devices."""
    attempt = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "ids": {"type": "array", "items": {"type": "string"}}},
    }
    spec = _spec(tmp_path, {
        "/networks/{networkId}/attempts": {"post": {
            "operationId": "createAttempt", "parameters": _path("networkId"), "responses": _ok(),
            "requestBody": _body({"ids": {"type": "array", "items": {"type": "string"}}}, ["ids"])}},
        "/networks/{networkId}/attempts/{attemptId}": {"get": {
            "operationId": "getAttempt", "parameters": _path("networkId", "attemptId"), "responses": _ok(attempt)}},
    })  # fmt: skip
    assert spec.behaviour("createAttempt").effect.kind == "create"
    _passes(spec)


def test_a_listing_capped_below_the_records_shows_a_new_one_on_a_later_page(tmp_path: Path) -> None:
    """Mux: ``limit`` at most 10, ``page`` from 1; twelve seeded vocabularies and the one made."""
    vocabulary = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    spec = _spec(tmp_path, {"/vocabularies": {
        "get": {"operationId": "list_vocabularies", "responses": _ok({"type": "object", "properties": {
            "data": {"type": "array", "items": vocabulary}}}), "parameters": [
            _query("limit", {"type": "integer", "default": 10, "maximum": 10}),
            _query("page", {"type": "integer", "default": 1})]},
        "post": {"operationId": "create_vocabulary", "requestBody": _body({"name": {"type": "string"}}),
                 "responses": _ok({"type": "object", "properties": {"data": vocabulary}})}}})  # fmt: skip
    assert len(spec.initial_state["vocabulary"]) >= 10
    _passes(spec)


def test_a_made_record_a_listing_cannot_show_is_not_looked_for_in_it(tmp_path: Path) -> None:
    """Red Hat's inventory tags: a POST computes tags for an offering; listings show only ``tag``."""
    tags = {"type": "array", "items": {"type": "object", "properties": {"tag": {"type": "string"}},
                                       "additionalProperties": False}}  # fmt: skip
    spec = _spec(tmp_path, {
        "/tags": {"get": {"operationId": "listTags", "responses": _ok(tags)}},
        "/offerings/{id}/applied_tags": {"post": {"operationId": "appliedTags", "parameters": _path("id"),
                                                  "requestBody": _body({"parameters": {"type": "object"}}),
                                                  "responses": _ok(tags)}},
        "/offerings/{id}": {"get": {"operationId": "getOffering", "parameters": _path("id"), "responses": _ok(STORY)}},
    })  # fmt: skip
    assert spec.behaviour("appliedTags").effect.kind == "create"
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures
    made = next(t for t in report.tools if t.tool == "appliedTags")
    assert [c.status for c in made.checks if c.name == "create -> list contains it"] == ["skip"]


NAMESPACE = {"type": "string", "examples": ["namespace-0"]}


def test_a_listing_asked_for_records_by_their_own_keys_is_checked_with_keys_that_exist(tmp_path: Path) -> None:
    """Pinecone's ``POST /vectors/fetch`` with ``{ids: [...]}``: the check asks for a vector that is there."""
    vector = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "values": {"type": "array", "items": {"type": "number"}}},
    }
    spec = _spec(tmp_path, {
        "/vectors/fetch": {"post": {"operationId": "Fetch", "requestBody": _body(
            {"ids": {"type": "array", "items": {"type": "string"}}, "namespace": NAMESPACE}, ["ids"]),
            "responses": _ok({"type": "object", "properties": {"namespace": {"type": "string"}, "vectors": {
                "type": "object", "additionalProperties": vector}}})}},
        "/vectors/upsert": {"post": {"operationId": "Upsert", "requestBody": _body(
            {"vectors": {"type": "array", "items": vector}, "namespace": NAMESPACE}), "responses": _ok()}},
        "/vectors/update": {"post": {"operationId": "Update", "requestBody": _body(
            {"id": {"type": "string"}, "values": {"type": "array", "items": {"type": "number"}},
             "namespace": NAMESPACE}, ["id"]), "responses": _ok()}},
    })  # fmt: skip
    fetch = spec.behaviour("Fetch").effect
    assert isinstance(fetch, ListEffect) and any(f.arg == "ids" and f.op == "in" for f in fetch.filters)
    _passes(spec)


ACCOUNT = {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}, "iban": {"type": "string"}}}


def test_a_word_that_names_nothing_after_a_record_id_reads_that_record(tmp_path: Path) -> None:
    """Nordigen's ``GET /api/v2/accounts/{id}/details/`` (named ``retrieve_account_details_v2``)."""
    spec = _spec(tmp_path, {
        "/api/v2/accounts/{id}/": {"get": {"operationId": "retrieve_account_metadata", "parameters": _path("id"),
                                           "responses": _ok(ACCOUNT)}},
        "/api/v2/accounts/{id}/details/": {"get": {"operationId": "retrieve_account_details_v2",
                                                   "parameters": _path("id"), "responses": _ok(ACCOUNT)}},
    })  # fmt: skip
    details = spec.behaviour("retrieve_account_details_v2").effect
    assert (details.kind, details.entity, details.key_arg) == ("read", "account", "id")  # type: ignore[union-attr]
    _passes(spec)


def test_a_file_write_takes_its_content_not_a_route_parameter_and_answers_as_declared(tmp_path: Path) -> None:
    """ClearBlade's buckets: ``POST /{systemKey}/{deploymentName}/file/create`` with ``{path, contents}``."""
    scope = _path("systemKey", "deploymentName")
    meta = {"type": "object", "properties": {"base_name": {"type": "string"}, "size": {"type": "integer"}},
            "required": ["base_name"]}  # fmt: skip
    file_body = {"path": {"type": "string"}, "contents": {"type": "string"}}
    spec = _spec(tmp_path, {
        "/b/{systemKey}/{deploymentName}/file/create": {"post": {
            "operationId": "CreateBucketFile", "parameters": scope, "responses": _ok(meta),
            "requestBody": _body(file_body, ["path"])}},
        "/b/{systemKey}/{deploymentName}/file/delete": {"post": {
            "operationId": "DeleteBucketFile", "parameters": scope, "responses": _ok(meta),
            "requestBody": _body({"path": {"type": "string"}}, ["path"])}},
        "/b/{systemKey}/{deploymentName}/file/read": {"post": {
            "operationId": "ReadBucketFile", "parameters": scope, "responses": _ok(),
            "requestBody": _body({"path": {"type": "string"}}, ["path"])}},
    })  # fmt: skip
    write = spec.behaviour("CreateBucketFile").effect
    assert (write.kind, write.to_arg) == ("tree", "contents")  # type: ignore[union-attr]
    _passes(spec)
    ep = Environment(spec).episode()
    made = ep.call_tool("CreateBucketFile", {"systemKey": "s", "deploymentName": "d", "path": "/workspace/a.txt",
                                             "contents": "hi"})  # fmt: skip
    assert made.ok and made.data == {"base_name": ""}
    assert ep.store.get("node", "/workspace/a.txt")["content"] == "hi"  # type: ignore[index]


def test_a_record_keyed_by_the_id_its_body_gives_is_read_back_by_an_id_the_read_takes(tmp_path: Path) -> None:
    """Pendo's ``POST /users`` with ``{user: {id: text, ...}}`` beside ``GET /users/{id: number}``."""
    user = {"type": "object", "properties": {"id": {"type": "integer"}, "email": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/users": {"post": {"operationId": "post_users", "responses": _ok(), "requestBody": _body(
            {"user": {"type": "object", "properties": {"id": {"type": "string"}, "email": {"type": "string"}}}},
            ["user"])}},
        "/users/{id}": {"get": {"operationId": "get_users_by_id", "responses": _ok(user), "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "number"}}]}},
    })  # fmt: skip
    assert spec.behaviour("post_users").effect.body_arg == "user"  # type: ignore[union-attr]
    _passes(spec)


def test_a_listing_filtered_by_a_text_its_records_hold_as_records_is_checked_without_it(tmp_path: Path) -> None:
    """Sakari's contacts: ``tags`` records ``{tag, visible}``, the listing's ``tags`` a text."""
    contact = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "firstName": {"type": "string"},
            "tags": {
                "type": "array",
                "items": {"type": "object", "properties": {"tag": {"type": "string"}, "visible": {"type": "boolean"}}},
            },
        },
    }
    spec = _spec(tmp_path, {"/contacts": {
        "get": {"operationId": "contacts_fetchAll", "parameters": [
            _query("firstName", {"type": "string"}), _query("tags", {"type": "string"})],
            "responses": _ok({"type": "object", "properties": {
                "error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
                "pagination": {"type": "object", "properties": {"limit": {"type": "integer"}}},
                "data": {"type": "array", "items": contact}}})},
        "post": {"operationId": "contacts_create", "responses": _ok(contact), "requestBody": _body(
            {"firstName": {"type": "string"}, "tags": contact["properties"]["tags"]})}}})  # fmt: skip
    _passes(spec)


def test_a_field_a_route_names_records_by_takes_the_routes_number_type(tmp_path: Path) -> None:
    """GitLab v3's shares: the body's ``group_id`` a text, ``DELETE .../share/{group_id}`` an integer."""
    share = {"type": "object", "properties": {"id": {"type": "integer"}, "group_id": {"type": "string"},
                                              "group_access": {"type": "string"}}}  # fmt: skip
    spec = _spec(tmp_path, {
        "/projects/{id}/share": {"post": {"operationId": "shareProject", "parameters": _path("id"),
                                          "requestBody": _body({"group_id": {"type": "string"},
                                                                "group_access": {"type": "string"}}, ["group_id"]),
                                          "responses": _ok(share)}},
        "/projects/{id}/share/{group_id}": {"delete": {
            "operationId": "unshareProject", "responses": _ok(), "parameters": [
                *_path("id"), {"name": "group_id", "in": "path", "required": True, "schema": {"type": "integer"}}]}},
    })  # fmt: skip
    entity = spec.state_schema["share"]
    assert entity.fields["group_id"]["type"] == "integer"
    assert all(isinstance(r["group_id"], int) for r in spec.initial_state["share"])
    _passes(spec)


def test_a_search_answered_in_one_object_that_finds_nothing_answers_an_empty_feed(tmp_path: Path) -> None:
    """Channel 4's ``GET /search/page-{pageno}.atom?q=``: records holding no text to search in; nothing
    found is no 404."""
    feed = {"type": "object", "properties": {"id": {"type": "string"}, "feed": {"type": "object", "properties": {
        "updated": {"type": "string"}}}}}  # fmt: skip
    spec = _spec(
        tmp_path,
        {
            "/search/page-{pageno}.atom": {
                "get": {
                    "operationId": "Search_Feed",
                    "responses": _ok(feed),
                    "parameters": [*_path("pageno"), _query("q", {"type": "string"}, True)],
                }
            }
        },
    )
    search = spec.behaviour("Search_Feed").effect
    assert isinstance(search, ListEffect) and [f.op for f in search.filters] == ["search"]
    found = Environment(spec).episode().call_tool("Search_Feed", {"pageno": "1", "q": "nothing like it"})
    assert found.ok, found.content
    _passes(spec)


def test_a_list_of_declared_words_named_like_the_records_selects_parts_not_keys(tmp_path: Path) -> None:
    """Ijenko's ``GET /places/{placeId}/electricity/flows?flows=elec_usage``: which flows to answer."""
    flows = {"type": "object", "properties": {"code": {"type": "integer"}, "flows": {"type": "object"}}}
    spec = _spec(
        tmp_path,
        {
            "/places/{placeId}/electricity/flows": {
                "get": {
                    "operationId": "getFlows",
                    "responses": _ok(flows),
                    "parameters": [
                        *_path("placeId"),
                        _query(
                            "flows",
                            {"type": "array", "items": {"type": "string", "enum": ["elec_usage", "elec_feed_in"]}},
                        ),
                    ],
                }
            }
        },
    )
    effect = spec.behaviour("getFlows").effect
    assert not any(f.arg == "flows" for f in getattr(effect, "filters", ()))
    _passes(spec)


def test_records_keyed_under_the_sign_in_sessions_name_are_a_collection_of_their_own(tmp_path: Path) -> None:
    """Tradematic: ``POST /client/users/login`` signs in; ``GET /cloud/sessions/{sessionid}`` reads a
    cloud session, not the sign-in."""
    session = {"type": "object", "properties": {"id": {"type": "integer"}, "status": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/client/users/login": {"post": {"operationId": "login", "responses": _ok(), "requestBody": _body(
            {"username": {"type": "string"}, "password": {"type": "string"}}, ["username", "password"])}},
        "/cloud/sessions": {"get": {"operationId": "get_cloud_sessions",
                                    "responses": _ok({"type": "array", "items": session})}},
        "/cloud/sessions/{sessionid}": {"get": {"operationId": "get_cloud_session", "responses": _ok(session),
                                                "parameters": [{"name": "sessionid", "in": "path", "required": True,
                                                                "schema": {"type": "integer"}}]}},
    })  # fmt: skip
    assert spec.behaviour("login").effect.entity == "session"  # type: ignore[union-attr]
    assert spec.behaviour("get_cloud_session").effect.entity == "cloud_session"  # type: ignore[union-attr]
    assert spec.behaviour("get_cloud_sessions").effect.entity == "cloud_session"  # type: ignore[union-attr]
    _passes(spec)


def test_tasks_are_made_where_answers_declare_a_key_as_a_list_of_bytes(tmp_path: Path) -> None:
    """Meshery's patterns: ``id`` answered as Go's UUID, ``{type: array, items: {format: uint8}}``,
    read by ``GET /api/pattern/{id}`` with a uuid text."""
    from envfactory.tasks.generate import generate_tasks

    uuid_bytes = {"type": "array", "items": {"type": "integer", "format": "uint8"}}
    pattern = {"type": "object", "properties": {"id": uuid_bytes, "name": {"type": "string"},
                                                "pattern_file": {"type": "string"}}}  # fmt: skip
    uuid_path = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}]
    spec = _spec(tmp_path, {
        "/api/pattern": {
            "get": {"operationId": "idGetPatternFiles", "responses": _ok({"type": "object", "properties": {
                "page": {"type": "integer"}, "patterns": {"type": "array", "items": pattern}}})},
            "post": {"operationId": "idPostPatternFile", "responses": _ok(pattern), "requestBody": _body(
                {"name": {"type": "string"}, "pattern_file": {"type": "string"}})}},
        "/api/pattern/{id}": {"get": {"operationId": "idGetMesheryPattern", "parameters": uuid_path,
                                      "responses": _ok(pattern)},
                              "delete": {"operationId": "idDeleteMesheryPattern", "parameters": uuid_path,
                                         "responses": _ok()}},
    })  # fmt: skip
    tasks, _ = generate_tasks(Environment(spec), 20, seed=0)
    assert tasks


def test_a_read_keyed_by_a_date_that_answers_a_list_lists_that_days_records(tmp_path: Path) -> None:
    """UK Parliament's ``GET /api/Posts/SpeakerAndDeputies/{forDate}``: those in post that day."""
    member = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/api/Members/{id}": {"get": {"operationId": "getMember", "responses": _ok(member), "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}]}},
        "/api/Posts/SpeakerAndDeputies/{forDate}": {"get": {
            "operationId": "speakers", "responses": _ok({"type": "array", "items": member}), "parameters": [
                {"name": "forDate", "in": "path", "required": True,
                 "schema": {"type": "string", "format": "date-time"}}]}},
    })  # fmt: skip
    assert spec.behaviour("speakers").effect.kind == "list"
    _passes(spec)


def test_a_listing_that_must_be_paged_is_checked_on_its_first_page(tmp_path: Path) -> None:
    """Metadapi's MSA groups: ``limit`` and ``offset`` required, ``data`` never empty."""
    group = {"type": "object", "properties": {"msaCode": {"type": "string"}, "msaName": {"type": "string"}}}
    spec = _spec(tmp_path, {"/msagroups": {"get": {"operationId": "get-msagroups", "parameters": [
        _query("limit", {"type": "integer", "minimum": 1, "maximum": 50}, True),
        _query("offset", {"type": "integer", "minimum": 0}, True)],
        "responses": _ok({"type": "object", "required": ["data"], "properties": {
            "data": {"type": "array", "minItems": 1, "items": group}}})}}})  # fmt: skip
    _passes(spec)


def test_a_listing_answered_as_a_map_maps_each_records_key_to_it(tmp_path: Path) -> None:
    """Meshery's ``GET /api/providers``: ``{type: object, additionalProperties: ProviderProperties}``."""
    provider = {
        "type": "object",
        "properties": {"provider_name": {"type": "string"}, "description": {"type": "string"}},
    }
    spec = _spec(tmp_path, {
        "/api/providers": {"get": {"operationId": "idGetProvidersList",
                                   "responses": _ok({"type": "object", "additionalProperties": provider})}},
        "/api/providers/{provider_name}": {"get": {"operationId": "idGetProvider", "responses": _ok(provider),
                                                   "parameters": _path("provider_name")}},
    })  # fmt: skip
    listed = Environment(spec).episode().call_tool("idGetProvidersList", {})
    entity = spec.state_schema[spec.behaviour("idGetProvidersList").effect.entity]  # type: ignore[union-attr]
    keys = [str(r[entity.key]) for r in spec.initial_state[entity.name]]
    assert listed.ok and sorted(listed.data) == sorted(keys), listed.content
    assert all(isinstance(v, dict) for v in listed.data.values())
    _passes(spec)


def test_a_listing_answered_as_a_map_of_values_maps_each_key_to_its_value(tmp_path: Path) -> None:
    """BritBox's ``GET /account/profile/bookmarks``: ``{itemId: bookmarked-at}``."""
    bookmark = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "created": {"type": "string", "format": "date-time"}},
    }
    spec = _spec(tmp_path, {
        "/account/profile/bookmarks": {"get": {"operationId": "getBookmarks", "responses": _ok(
            {"type": "object", "additionalProperties": {"type": "string", "format": "date-time"}})}},
        "/account/profile/bookmarks/{itemId}": {"get": {"operationId": "getItemBookmark", "responses": _ok(bookmark),
                                                        "parameters": _path("itemId")}},
    })  # fmt: skip
    listed = Environment(spec).episode().call_tool("getBookmarks", {})
    rows = spec.initial_state["bookmark"]
    assert listed.ok and listed.data == {r["id"]: r["created"] for r in rows}, listed.content
    _passes(spec)


def test_a_key_takes_the_shape_of_the_parameter_naming_it_under_its_records(tmp_path: Path) -> None:
    """Storecove's ``/invoice_submissions/{guid}/evidence``, ``guid`` a uuid, no route reading a submission."""
    evidence = {"type": "object", "properties": {"guid": {"type": "string"}, "status": {"type": "string"},
                                                 "network": {"type": "string"}}}  # fmt: skip
    submission = {"type": "object", "properties": {"guid": {"type": "string"}, "note": {"type": "string"}}}
    guid = [{"name": "guid", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}]
    spec = _spec(tmp_path, {
        "/invoice_submissions": {"post": {"operationId": "create_invoice_submission", "responses": _ok(submission),
                                          "requestBody": _body({"note": {"type": "string"}})}},
        "/invoice_submissions/{guid}/evidence": {"get": {"operationId": "show_evidence", "parameters": guid,
                                                         "responses": _ok(evidence)}},
        "/invoice_submissions/{guid}/evidence/{kind}": {"get": {
            "operationId": "show_evidence_of_kind", "responses": _ok(evidence),
            "parameters": [*guid, {"name": "kind", "in": "path", "required": True,
                                   "schema": {"type": "string", "enum": ["sending", "clearing"]}}]}},
    })  # fmt: skip
    assert spec.behaviour("show_evidence").effect.entity == "evidence"  # type: ignore[union-attr]
    assert spec.state_schema["invoice_submission"].key_schema == {"format": "uuid"}
    _passes(spec)


def test_a_yes_or_no_at_the_end_of_a_route_keys_nothing(tmp_path: Path) -> None:
    """RGD's ``GET /annotations/{accId}/{speciesTypeKey}/{includeChildren}``: annotations asked for,
    not one keyed by a flag."""
    annotation = {"type": "object", "properties": {"key": {"type": "integer"}, "accId": {"type": "string"},
                                                   "speciesTypeKey": {"type": "integer"}}}  # fmt: skip
    spec = _spec(tmp_path, {"/annotations/{accId}/{speciesTypeKey}/{includeChildren}": {"get": {
        "operationId": "getAnnotations", "responses": _ok({"type": "array", "items": annotation}), "parameters": [
            *_path("accId"), {"name": "speciesTypeKey", "in": "path", "required": True, "schema": {"type": "integer"}},
            {"name": "includeChildren", "in": "path", "required": True, "schema": {"type": "boolean"}}]}}})  # fmt: skip
    effect = spec.behaviour("getAnnotations").effect
    assert effect.kind == "list"
    _passes(spec)


def test_a_delete_route_named_for_making_something_deletes(tmp_path: Path) -> None:
    """``DELETE /expenses/sendEmails`` with ``id: [...]``, "Bulk delete expenses" (a wrongly named
    operation): a DELETE makes nothing, so it deletes the expenses it is given."""
    expense = {"type": "object", "properties": {"id": {"type": "string"}, "comment": {"type": "string"}}}
    ids = {"id": {"type": "array", "items": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/expenses": {"get": {"operationId": "getExpenses", "responses": _ok({"type": "array", "items": expense})},
                      "post": {"operationId": "addExpense", "requestBody": _body({"comment": {"type": "string"}}),
                               "responses": _ok(expense)}},
        "/expenses/sendEmails": {"delete": {"operationId": "sendEmailsExpenses", "summary": "Bulk delete expenses",
                                            "requestBody": _body(ids), "responses": _ok()}},
    })  # fmt: skip
    assert isinstance(spec.behaviour("sendEmailsExpenses").effect, DeleteManyEffect)
    _passes(spec)


def test_an_object_that_must_hold_a_member_holds_one_where_none_is_required(tmp_path: Path) -> None:
    """``minProperties: 1`` with every member optional (a dictionary entry's pronunciations): seeded
    records and answers hold at least one member; and a filter's words that are no value of the
    field's format (``due_date``: ``valid`` or ``exceeded``) do not become the dates' enum."""
    from envfactory.runtime.conform import compile_conformer, placeholder_value
    from envfactory.runtime.validation import compile_schema

    sound = {
        "type": "object",
        "additionalProperties": False,
        "minProperties": 1,
        "properties": {"audioFile": {"type": "string"}, "dialects": {"type": "array", "items": {"type": "string"}}},
    }
    word = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "due_date": {"type": "string", "format": "date"},
            "sounds": {"type": "array", "items": sound, "minItems": 1},
        },
    }
    due = {"name": "due_date", "in": "query", "schema": {"type": "string", "enum": ["valid", "exceeded", None]}}
    spec = _spec(tmp_path, {
        "/words": {"get": {"operationId": "getWords", "parameters": [due],
                           "responses": _ok({"type": "array", "items": word})}},
        "/words/{id}": {"get": {"operationId": "getWord", "parameters": _path("id"), "responses": _ok(word)}},
    })  # fmt: skip
    entity = spec.state_schema["word"]
    assert "enum" not in entity.fields["due_date"]
    for row in spec.initial_state["word"]:
        for field, value in row.items():
            compile_schema(entity.fields[field])(value)  # raises on a misfit: ``{}`` for a sound
    assert placeholder_value(sound) == {"audioFile": ""}
    fit = compile_conformer(sound)
    assert fit is not None and fit({}) == {"audioFile": ""} and fit({"dialects": []}) == {"dialects": []}
    _passes(spec)


def test_a_map_of_ids_a_time_or_a_page_in_a_route_and_hostnames(tmp_path: Path) -> None:
    """``external_ids: {provider: id}`` (an object) refers to no record; ``/team/{team_key}/matches/{year}``
    and ``/teams/{year}/{page_num}`` answering lists are listings of that year and page, no record keyed
    by a year; a ``hostname`` holds a host's name; a listing's bounded filter is not asked beyond its bound."""
    from envfactory.runtime.validation import compile_schema

    user = {"type": "object", "properties": {"id": {"type": "integer"}, "username": {"type": "string"},
                                             "external_ids": {"type": "object"}}}  # fmt: skip
    external = {"type": "object", "properties": {"external_id": {"type": "string"}, "provider": {"type": "string"}}}
    host = {"type": "string", "format": "hostname"}
    team = {
        "type": "object",
        "properties": {"key": {"type": "string"}, "name": host, "rookie_year": {"type": "integer"}},
    }
    match = {"type": "object", "properties": {"key": {"type": "string"}, "year": {"type": "integer"}}}
    year = {"name": "year", "in": "path", "required": True, "schema": {"type": "integer"}}
    page = {"name": "page_num", "in": "path", "required": True, "schema": {"type": "integer"}}
    spec = _spec(tmp_path, {
        "/users": {"post": {"operationId": "createUser", "requestBody": _body(
            {"username": {"type": "string"}, "external_ids": {"type": "object"}}), "responses": _ok(user)}},
        "/users/{id}": {"get": {"operationId": "getUser", "parameters": _path("id"), "responses": _ok(user)}},
        "/externals/{external_id}": {"get": {"operationId": "getExternal", "parameters": _path("external_id"),
                                             "responses": _ok(external)}},
        "/team/{team_key}": {"get": {"operationId": "getTeam", "parameters": _path("team_key"),
                                     "responses": _ok(team)}},
        "/team/{team_key}/matches/{year}": {"get": {"operationId": "getTeamMatchesByYear",
                                                    "parameters": [*_path("team_key"), year],
                                                    "responses": _ok({"type": "array", "items": match})}},
        "/teams/{year}/{page_num}": {"get": {"operationId": "getTeamsByYear", "parameters": [year, page],
                                             "responses": _ok({"type": "array", "items": team})}},
        "/pages/{page_id}": {"get": {"operationId": "getPage", "parameters": _path("page_id"),
                                     "responses": _ok({"type": "array", "items": match})}},
    })  # fmt: skip
    assert "external_ids" not in spec.state_schema["user"].refs
    assert isinstance(spec.behaviour("getTeamMatchesByYear").effect, ListEffect)
    assert isinstance(spec.behaviour("getTeamsByYear").effect, ListEffect)
    assert spec.behaviour("getPage").effect.kind == "read"  # ``page_id`` names a page: no paging word
    for row in spec.initial_state["team"]:
        compile_schema(spec.state_schema["team"].fields["name"])(row["name"])  # raises on a misfit
    _passes(spec)


def test_a_search_word_before_the_last_parameter_searches_the_collection_before_it(tmp_path: Path) -> None:
    """``/cinema-detail/search/{cinema_name}``, ``/cinema-schedule/searchall/{param}``: cinema details and
    schedules found by a value, not records of a ``search`` entity."""
    detail = {"type": "object", "properties": {"id": {"type": "integer"}, "cinema_name": {"type": "string"}}}
    listed = _ok({"type": "array", "items": detail})
    spec = _spec(tmp_path, {
        "/api/v1/cinema-detail/search/{cinema_name}": {"get": {
            "operationId": "cinema-detail_search_read", "parameters": _path("cinema_name"), "responses": listed}},
        "/api/v1/cinema-schedule/searchall/{param}": {"get": {"operationId": "cinema-schedule_searchall_read",
                                                              "parameters": _path("param"), "responses": listed}},
    })  # fmt: skip
    assert sorted(spec.state_schema.names) == ["cinema", "cinema_schedule"]  # (a cinema's details are the cinema)
    effect = spec.behaviour("cinema-detail_search_read").effect
    assert isinstance(effect, ListEffect) and effect.entity == "cinema"
    _passes(spec)


def test_an_api_version_in_the_route_is_plumbing(tmp_path: Path) -> None:
    """``/v{version}/sites`` (Highways England): the version is how the call is sent, filled from the
    binding (``1`` where the spec gives no example), never an argument the agent or a task must
    supply; before, every tool required it, no list could be walked and the spec got 0 tasks."""
    from envfactory.tasks.generate import generate_tasks

    site = {"type": "object", "properties": {"Id": {"type": "string"}, "Name": {"type": "string"},
                                             "Status": {"type": "string"}}}  # fmt: skip
    spec = _spec(tmp_path, {
        "/v{version}/sites": {"get": {"operationId": "sites", "parameters": _path("version"),
                                      "responses": _ok({"type": "object", "properties": {
                                          "sites": {"type": "array", "items": site}}})}},
        "/v{version}/sites/{site_Id}": {"get": {"operationId": "site", "parameters": _path("version", "site_Id"),
                                                "responses": _ok(site)}},
    })  # fmt: skip
    for name in ("sites", "site"):
        http = spec.tools[name].source.http
        assert "version" not in spec.tools[name].properties and http is not None and http.values == {"version": "1"}
    assert list(spec.tools["site"].required) == ["site_Id"]
    _passes(spec)
    tasks, _ = generate_tasks(Environment(spec), 10, seed=0)
    assert len(tasks) == 10 and not any("version" in c.args for t in tasks for c in t.gold)


def test_a_route_ending_in_an_operation_verb_keeps_no_records_of_it(tmp_path: Path) -> None:
    """``POST /tax/calculate``, ``POST /qrcode/decode``, ``GET /gifs/translate``: operations that answer
    what they work out. Before, each was a table or a one-record singleton of "calculates",
    "decodes", "translates", and tasks asked to "create a new decode with qrimage 'ahead'"."""
    from envfactory.tasks.generate import generate_tasks

    answer = {"type": "object", "properties": {"amount": {"type": "number"}, "text": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/tax/calculate": {"post": {"operationId": "calculateTax", "responses": _ok(answer),
                                    "requestBody": _body({"amount": {"type": "number"}})}},
        "/qrcode/decode": {"post": {"operationId": "decodeQr", "responses": _ok(answer),
                                    "requestBody": _body({"qrimage": {"type": "string"}})}},
        "/gifs/translate": {"get": {"operationId": "translateGif", "responses": _ok(answer), "parameters": [
            {"name": "s", "in": "query", "required": True, "schema": {"type": "string"}}]}},
        "/notes": {"post": {"operationId": "addNote", "responses": _ok(THING),
                            "requestBody": _body({"content": {"type": "string"}})},
                   "get": {"operationId": "listNotes", "responses": _ok({"type": "array", "items": THING})}},
    })  # fmt: skip
    assert not {"calculate", "decode", "translate"} & set(spec.state_schema.names), spec.state_schema.names
    kinds = {b.tool: b.effect.kind for b in spec.behaviours}
    assert kinds["calculateTax"] == kinds["decodeQr"] == kinds["translateGif"] == "fallback", kinds
    _passes(spec)
    tasks, _ = generate_tasks(Environment(spec), 10, seed=0)
    assert tasks and not any(w in t.instruction.lower() for t in tasks for w in ("decode", "calculate", "translate"))


def test_a_format_parameter_glued_to_a_segment_is_plumbing(tmp_path: Path) -> None:
    """``/api/articles{mediaTypeExtension}`` (HealthCare.gov, Buffer): the response format glued to the
    route, as ``.{format}`` is — sent from the binding (its one declared value), never an argument,
    never part of a record's name. Before, every tool required it and the records were
    ``articles_media_type_extension``."""
    ext = {"name": "mediaTypeExtension", "in": "path", "required": True,
           "schema": {"type": "string", "enum": [".json"]}}  # fmt: skip
    article = {"type": "object", "properties": {"title": {"type": "string"}, "content": {"type": "string"}}}
    spec = _spec(tmp_path, {
        "/api/articles{mediaTypeExtension}": {"get": {"parameters": [ext], "responses": _ok(
            {"type": "object", "properties": {"articles": {"type": "array", "items": article}}})}},
        "/articles/{pageName}{mediaTypeExtension}": {"get": {"parameters": [*_path("pageName"), ext],
                                                             "responses": _ok(article)}},
    })  # fmt: skip
    assert spec.state_schema.names == ["article"]
    for tool in spec.tools.tools:
        assert "mediaTypeExtension" not in tool.properties and "media" not in tool.name.lower(), tool.name
        assert tool.source.http is not None and tool.source.http.values == {"mediaTypeExtension": ".json"}
    _passes(spec)


def test_a_route_ending_in_a_state_lists_its_collection(tmp_path: Path) -> None:
    """``GET /profiles/{id}/updates/pending`` and ``/updates/sent`` (Buffer), ``GET /orders/shipped``: the
    collection's records in that state — no "pending", "sent" or "shipped" table beside them."""
    update = {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"},
                                               "status": {"type": "string"}}}  # fmt: skip
    listing = {"type": "object", "properties": {"updates": {"type": "array", "items": update}}}
    spec = _spec(tmp_path, {
        "/profiles/{id}/updates/pending": {"get": {"operationId": "pending", "parameters": _path("id"),
                                                   "responses": _ok(listing)}},
        "/profiles/{id}/updates/sent": {"get": {"operationId": "sent", "parameters": _path("id"),
                                                "responses": _ok(listing)}},
        "/updates/{id}": {"get": {"operationId": "update", "parameters": _path("id"), "responses": _ok(update)}},
        "/profiles/{id}": {"get": {"operationId": "profile", "parameters": _path("id"),
                                   "responses": _ok({"type": "object", "properties": {"id": {"type": "string"}}})}},
    })  # fmt: skip
    assert not {"pending", "sent"} & set(spec.state_schema.names), spec.state_schema.names
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert effects["pending"].kind == effects["sent"].kind == "list"
    assert effects["pending"].entity == effects["sent"].entity == effects["update"].entity == "update"  # type: ignore[union-attr]
    _passes(spec)
