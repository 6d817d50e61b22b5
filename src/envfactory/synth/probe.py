"""What a self-check probe works with: a fresh episode per tool, seeded arguments, a transcript of
checks; and the ``PROBES`` registry the probe modules add to (``synth/selfcheck_*.py``), which
:mod:`envfactory.synth.selfcheck` runs. The probe modules import this module, never the runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from envfactory.core import BROKEN
from envfactory.ir.effect import (
    Behaviour,
    Effect,
    ReadEffect,
)
from envfactory.ir.jsonschema import primary_type
from envfactory.registry import Registry
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.result import ToolResult
from envfactory.runtime.validation import interpreted_validator
from envfactory.seeding import derive_seed
from envfactory.synth.arguments import sample_arguments
from envfactory.synth.data import coerce_key
from envfactory.values import ValueMaker

JSON = dict[str, Any]
Status = Literal["pass", "fail", "skip"]


class Check(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    status: Status
    detail: str = ""


E = TypeVar("E", bound=Effect)


class Probe:
    """One tool's checks: a fresh episode, seeded arguments, a transcript of outputs."""

    def __init__(self, env: Environment, behaviour: Behaviour, seed: int) -> None:
        self.env, self.spec, self.behaviour = env, env.spec, behaviour
        self.episode: Episode = env.episode(max_steps=1000)
        self.maker = ValueMaker(derive_seed(seed, "check", behaviour.tool), env.spec.config.clock_start)
        self.checks: list[Check] = []
        self.transcript: list[str] = []
        self.out_check = output_validator(self.spec.tools[behaviour.tool].output_schema)

    def args(self, **fixed: Any) -> JSON:
        return {
            **sample_arguments(self.spec, self.behaviour, self.episode.store, self.maker),
            **fixed,
        }

    def call(self, tool: str, args: JSON) -> Any:
        result = self.episode.call_tool(tool, args)
        self.transcript.append(result.content)
        if result.error in BROKEN:  # a crash is never a refusal, whatever the probe expected
            self.note("runs without an internal error", False, result.content[:200])
        if result.ok and tool == self.behaviour.tool:
            problem = self.out_check(result.data)
            self.note("output matches output schema", problem is None, problem or "")
        return result

    def note(self, name: str, ok: bool | None, detail: str = "") -> None:
        if any(c.name == name for c in self.checks) and ok:
            return  # record each passing check once
        self.checks.append(Check(name=name, status="skip" if ok is None else "pass" if ok else "fail", detail=detail))

    def effect(self, kind: type[E]) -> E:
        """The probed tool's effect, as the type its probe was registered for."""
        effect = self.behaviour.effect
        if not isinstance(effect, kind):
            raise TypeError(f"{self.behaviour.tool}: a {kind.__name__} probe got a {type(effect).__name__}")
        return effect

    def read(self, entity: str, key: Any) -> ToolResult | None:
        """Read ``key`` back through the entity's read tool (None when it has none)."""
        reader = self.tool_of("read", entity)
        if reader is None:
            return None
        behaviour = self.spec.behaviour(reader)
        if not isinstance(behaviour.effect, ReadEffect):
            return None
        # other required arguments (a parent's id in /budgets/{budget_id}/accounts/{id}) drawn as usual
        scope = sample_arguments(self.spec, behaviour, self.episode.store, self.maker, optional=False)
        # the key as the reader's parameter takes it (an integer key passed as text, and back)
        prop = self.spec.tools[reader].properties.get(behaviour.effect.key_arg) or {}
        return self.call(reader, {**scope, behaviour.effect.key_arg: coerce_key(key, prop)})

    def rows(self, entity: str) -> list[JSON]:
        """The episode's live rows of ``entity``."""
        return list(self.episode.store.rows(entity))

    def tool_of(self, kind: str, entity: str) -> str | None:
        """A tool of ``kind`` on ``entity``, preferring one that answers the record rather than a text
        (a file's download, ``pdf binary content``), then one with the fewest required arguments."""
        tools = [
            b.tool
            for b in self.spec.behaviours
            if b.effect.kind == kind and getattr(b.effect, "entity", None) == entity
        ]
        answers_text = {t: primary_type(self.spec.tools[t].output_schema) == "string" for t in tools}
        return min(tools, key=lambda t: (answers_text[t], len(self.spec.tools[t].required)), default=None)


def output_validator(schema: JSON | None) -> Callable[[Any], str | None]:
    """Outputs are checked against the schema as written (no argument limits, no strictness), by an
    interpreted validator: each is checked a few times, and compiling big answer schemas was most of
    the self-check's time."""
    if not schema:
        return lambda _v: None
    return interpreted_validator(schema)


Prober = Callable[[Probe], None]
PROBES: Registry[Prober] = Registry("self-check")


__all__ = ["PROBES", "Check", "Probe", "Prober", "Status", "output_validator"]
