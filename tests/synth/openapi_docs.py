"""OpenAPI documents written inline, a few routes each, for synthesis tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.env import EnvSpec
from envfactory.synth import synthesize

JSON = dict[str, Any]
STR = {"type": "string"}


def synthesize_paths(tmp_path: Path, paths: JSON) -> EnvSpec:
    """The environment synthesized from an OpenAPI 3 document holding ``paths``."""
    doc = {"openapi": "3.0.0", "info": {"title": "inline", "version": "1"}, "paths": paths}
    path = tmp_path / "inline.json"
    path.write_text(json.dumps(doc))
    return synthesize(path)


def ok(schema: JSON) -> JSON:
    """A ``responses`` member answering ``schema`` as JSON."""
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def get(op: str, schema: JSON, arg: str = "id") -> JSON:
    """A path item: ``GET`` named ``op``, one required path parameter ``arg``, answering ``schema``."""
    return {"get": {"operationId": op, "responses": ok(schema),
                    "parameters": [{"name": arg, "in": "path", "required": True, "schema": STR}]}}  # fmt: skip
