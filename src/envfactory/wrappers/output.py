"""Output-shape randomization: the same data, dressed the way other APIs dress it."""

from __future__ import annotations

import json
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from envfactory.runtime.result import ToolResult, to_json_text
from envfactory.synth.naming import tokens
from envfactory.wrappers.base import FAMILIES, EpisodeWrapper, Family

JSON = dict[str, Any]
KeyCase = Literal["snake", "camel", "pascal"]
_EXTRA = {"request_id": "req-{n}", "api_version": "2.{n}", "cached": False, "server": "edge-{n}"}


class OutputShape(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    wrap: tuple[str, ...] = ()  # ("data",) -> {"data": ...}; ("result", "data") nests twice
    key_case: KeyCase | None = None
    shuffle_keys: bool = False
    extra_fields: int = 0  # irrelevant fields added to each object at the top level
    numbers_as_strings: bool = False
    paginate: bool = False  # lists come back as {"items": [...], "page": 1, "has_more": false}


def sample_output(rng: random.Random) -> OutputShape:
    return OutputShape(
        wrap=rng.choice(((), ("data",), ("result",), ("response", "data"))),
        key_case=rng.choice((None, "camel", "pascal")),
        shuffle_keys=rng.random() < 0.5,
        extra_fields=rng.choice((0, 0, 1, 2)),
        numbers_as_strings=rng.random() < 0.25,
        paginate=rng.random() < 0.3,
    )


def recase(key: str, case: KeyCase | None) -> str:
    if case is None:
        return key
    words = tokens(key) or (key,)
    if case == "snake":
        return "_".join(words)
    head = words[0] if case == "camel" else words[0].capitalize()
    return head + "".join(w.capitalize() for w in words[1:])


class OutputWrapper(EpisodeWrapper):
    family = "output"
    config: OutputShape

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        result = self.inner.call_tool(name, arguments)
        if not result.ok:
            return result
        return ToolResult(True, to_json_text(self.reshape(json.loads(result.content))), None)

    def reshape(self, value: Any) -> Any:
        cfg = self.config
        value = self._walk(value)
        if cfg.paginate and isinstance(value, list):
            value = {"items": value, "page": 1, "has_more": False}
        if isinstance(value, dict):
            for i in range(cfg.extra_fields):
                key, template = list(_EXTRA.items())[i % len(_EXTRA)]
                value[recase(key, cfg.key_case)] = (
                    template.format(n=self.rng.randint(1, 99)) if isinstance(template, str) else template
                )
        for key in reversed(cfg.wrap):
            value = {recase(key, cfg.key_case): value}
        return value

    def _walk(self, value: Any) -> Any:
        cfg = self.config
        if isinstance(value, dict):
            items = [(recase(k, cfg.key_case), self._walk(v)) for k, v in value.items()]
            if cfg.shuffle_keys:
                self.rng.shuffle(items)
            return dict(items)
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if cfg.numbers_as_strings and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value


FAMILIES.add("output", Family(OutputShape, OutputWrapper, sample_output))
