"""Fault injection: transient failures, rate limits and timeouts that succeed on retry, and
error messages worded the way other services word them."""

from __future__ import annotations

import json
import random
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.runtime.result import ToolResult, to_json_text
from envfactory.wrappers.base import FAMILIES, EpisodeWrapper, Family

JSON = dict[str, Any]
_FAULTS = {
    "transient": "503 Service Unavailable: the backend is busy, please retry",
    "rate_limit": "429 Too Many Requests: rate limit exceeded, retry after 1 second",
    "timeout": "504 Gateway Timeout: the request took too long, it was not applied",
}
_TRANSIENT = {  # gRPC-style and HTTP-style codes for the injected faults
    "transient": [("UNAVAILABLE", "{m}"), ("503", "Service temporarily overloaded ({m})")],
    "rate_limit": [("RESOURCE_EXHAUSTED", "{m}"), ("429", "Slow down: {m}")],
    "timeout": [("DEADLINE_EXCEEDED", "{m}"), ("504", "Upstream timed out: {m}")],
}
_WORDING = {
    "not_found": [("NOT_FOUND", "Resource does not exist: {m}"), ("404", "Not found ({m})")],
    "invalid_arguments": [("BAD_REQUEST", "Validation failed: {m}"), ("400", "Invalid input - {m}")],
    "conflict": [("CONFLICT", "State conflict: {m}"), ("409", "Conflict: {m}")],
    "precondition_failed": [
        ("FAILED_PRECONDITION", "Operation not allowed: {m}"),
        ("412", "Precondition failed: {m}"),
    ],
    "unknown_tool": [("METHOD_NOT_FOUND", "No such operation: {m}"), ("404", "Unknown endpoint: {m}")],
}


class Faults(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    transient_rate: float = 0.0
    rate_limit_rate: float = 0.0
    timeout_rate: float = 0.0
    reword_errors: bool = False


def sample_faults(rng: random.Random) -> Faults:
    return Faults(
        transient_rate=rng.choice((0.0, 0.1, 0.2)),
        rate_limit_rate=rng.choice((0.0, 0.05, 0.1)),
        timeout_rate=rng.choice((0.0, 0.05)),
        reword_errors=rng.random() < 0.5,
    )


class FaultsWrapper(EpisodeWrapper):
    family = "faults"
    config: Faults

    def on_reset(self) -> None:
        self.failed: set[str] = set()  # calls that failed once: their retry goes through
        self.dialect = self.rng.randrange(2)

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        key = f"{name}\x1f{arguments if isinstance(arguments, str) else json.dumps(arguments, sort_keys=True)}"
        if key not in self.failed:
            roll = self.rng.random()
            cfg = self.config
            rates = (
                ("transient", cfg.transient_rate),
                ("rate_limit", cfg.rate_limit_rate),
                ("timeout", cfg.timeout_rate),
            )
            for kind, rate in rates:
                if roll < rate:
                    self.failed.add(key)
                    result = self.inner.reject(_FAULTS[kind], "transient")  # the attempt costs a step
                    return self._reworded(result, _TRANSIENT[kind]) if cfg.reword_errors else result
                roll -= rate
        self.failed.discard(key)
        result = self.inner.call_tool(name, arguments)
        if result.ok or not self.config.reword_errors or result.error not in _WORDING:
            return result
        return self._reworded(result, _WORDING[result.error])

    def _reworded(self, result: ToolResult, dialects: list[tuple[str, str]]) -> ToolResult:
        """The same error (``result.error`` is unchanged) in this episode's service dialect."""
        code, template = dialects[self.dialect]
        message = result.message
        return ToolResult(
            False,
            to_json_text({"error": {"code": code, "message": template.format(m=message)}}),
            result.error,
        )


STRESS = Faults(transient_rate=0.2, rate_limit_rate=0.1, timeout_rate=0.05, reword_errors=True)
FAMILIES.add("faults", Family(Faults, FaultsWrapper, sample_faults, STRESS))
