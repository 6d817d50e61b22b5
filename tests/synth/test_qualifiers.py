"""Declared words are no records: a path parameter taking one of a few words
(``/files/{file_id}/metadata/{scope}/{template_key}``, ``scope: global | enterprise``) qualifies
the record, it keys no parent; a field taking one declared word its target's keys are not drawn
from (``templateKey: securityClassification-6VMVochwUWo``) refers to nothing."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

TEXT = {"type": "string"}
FLAG = {"type": "boolean"}
TEMPLATE = {"type": "object", "properties": {"id": TEXT, "$scope": TEXT, "displayName": TEXT, "hidden": FLAG}}
METADATA = {"type": "object", "properties": {"$scope": {"type": "string"}, "$template": {"type": "string"}}}
FILE = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _param(name: str, schema: dict) -> dict:
    return {"name": name, "in": "path", "required": True, "schema": schema}


def test_a_parameter_of_declared_words_keys_no_parent(tmp_path: Path) -> None:
    scope = _param("scope", {"type": "string", "enum": ["global", "enterprise"]})
    params = [_param("file_id", {"type": "string"}), scope, _param("template_key", {"type": "string"})]
    body = {"content": {"application/json": {"schema": TEMPLATE}}}
    paths = {
        "/files/{file_id}": {"get": {"operationId": "getFile", "parameters": [params[0]], "responses": _ok(FILE)}},
        "/files/{file_id}/metadata": {"get": {"operationId": "listFileMetadata", "parameters": [params[0]],
                                              "responses": _ok({"type": "array", "items": METADATA})}},
        "/files/{file_id}/metadata/{scope}/{template_key}": {
            "parameters": params,
            "get": {"operationId": "getFileMetadata", "responses": _ok(TEMPLATE)},
            "put": {"operationId": "updateFileMetadata", "requestBody": body, "responses": _ok(TEMPLATE)},
        },
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "files"))
    entity = spec.state_schema[spec.behaviour("updateFileMetadata").effect.entity]
    assert "metadata" not in entity.refs.values(), entity.refs
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("updateFileMetadata", "update succeeds")] == "pass", report.failures


def test_a_field_of_one_declared_word_names_no_record_keyed_otherwise(tmp_path: Path) -> None:
    template = {"type": "object", "properties": {"templateKey": TEXT, "displayName": TEXT}}
    fixed = {"type": "string", "enum": ["securityClassification-6VMVochwUWo"]}
    classification = {"type": "object", "properties": {"id": TEXT, "templateKey": fixed, "displayName": TEXT}}
    body = {"content": {"application/json": {"schema": classification}}}
    paths = {
        "/templates/{templateKey}": {"get": {"operationId": "getTemplate", "parameters": [_param("templateKey", TEXT)],
                                             "responses": _ok(template)}},
        "/templates": {"get": {"operationId": "listTemplates", "responses": _ok({"type": "array", "items": template})}},
        "/classifications": {"post": {"operationId": "createClassification", "requestBody": body,
                                      "responses": _ok(classification)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "templates"))
    entity = spec.state_schema[spec.behaviour("createClassification").effect.entity]
    assert "templateKey" not in entity.refs, entity.refs
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("createClassification", "create succeeds")] == "pass", report.failures
