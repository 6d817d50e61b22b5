"""Output-shape randomization: the same data, dressed the way other APIs dress it."""

from __future__ import annotations

import json
import random
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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
    # lists come back a page at a time, {"items": [...], "page": 1, "has_more": true, "next_page": 2};
    # list tools gain an optional ``page`` argument
    paginate: bool = False
    page_size: int = Field(default=5, ge=1)


def sample_output(rng: random.Random) -> OutputShape:
    return OutputShape(
        wrap=rng.choice(((), ("data",), ("result",), ("response", "data"))),
        key_case=rng.choice((None, "camel", "pascal")),
        shuffle_keys=rng.random() < 0.5,
        extra_fields=rng.choice((0, 0, 1, 2)),
        numbers_as_strings=rng.random() < 0.25,
        paginate=rng.random() < 0.5,
        page_size=rng.choice((3, 4, 5, 8)),
    )


def recase(key: str, case: KeyCase | None) -> str:
    if case is None:
        return key
    words = tokens(key) or (key,)
    if case == "snake":
        return "_".join(words)
    head = words[0] if case == "camel" else words[0].capitalize()
    return head + "".join(w.capitalize() for w in words[1:])


_PAGE = {"type": "integer", "minimum": 1, "description": "Page of results to return (1 = first)."}


class OutputWrapper(EpisodeWrapper):
    family = "output"
    config: OutputShape

    def on_reset(self) -> None:
        """With pagination, list tools (an array output schema, no ``page`` of their own) gain ``page``."""
        self.paged: set[str] = set()
        self.offered: list[JSON] = self.inner.tools
        if not self.config.paginate:
            return
        specs = {tool.name: tool for tool in self.inner.env.spec.tools.tools}
        offered = []
        for entry in self.inner.tools:
            fn = entry["function"]
            params = fn.get("parameters") or {"type": "object"}
            props = params.get("properties") or {}
            spec = specs.get(fn["name"])
            if spec is not None and (spec.output_schema or {}).get("type") == "array" and "page" not in props:
                self.paged.add(fn["name"])
                entry = {**entry, "function": {**fn, "parameters": {**params, "properties": {**props, "page": _PAGE}}}}
            offered.append(entry)
        self.offered = offered

    @property
    def tools(self) -> list[JSON]:
        return self.offered

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        page = 1
        if name in self.paged:
            args = _parsed(arguments)
            if isinstance(args, dict) and "page" in args:
                page = args.pop("page")
                if not isinstance(page, int) or isinstance(page, bool) or page < 1:
                    return self.inner.reject(f"argument 'page': expected an integer >= 1, got {page!r}")
                arguments = args
        result = self.inner.call_tool(name, arguments)
        if not result.ok:
            return result
        return ToolResult(True, to_json_text(self.reshape(json.loads(result.content), page, name)), None)

    def reshape(self, value: Any, page: int = 1, tool: str = "") -> Any:
        cfg = self.config
        value = self._walk(value)
        if cfg.paginate and isinstance(value, list):
            start = (page - 1) * cfg.page_size if tool in self.paged else 0
            size = cfg.page_size if tool in self.paged else max(len(value), 1)
            more = start + size < len(value)
            value = {"items": value[start : start + size], "page": page, "has_more": more}
            if more:
                value["next_page"] = page + 1
            value = {recase(k, cfg.key_case): v for k, v in value.items()}
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


STRESS = OutputShape(wrap=("response", "data"), key_case="pascal", shuffle_keys=True, extra_fields=3,
                     numbers_as_strings=True, paginate=True, page_size=4)  # fmt: skip
FAMILIES.add("output", Family(OutputShape, OutputWrapper, sample_output, STRESS))


def _parsed(arguments: JSON | str | None) -> Any:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments or "{}")
        except json.JSONDecodeError:
            return arguments
    return dict(arguments or {})
