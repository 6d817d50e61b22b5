"""How a model's answers are compared with the real implementation's: per call, per tool, overall.

A call scores outcome agreement (both accepted, or both refused: a reply that is a refusal dressed
as an answer is a refusal, ``reply_error``), and on calls the real side answered, the exact reply and
the share of leaf fields equal (a side that refused an answer agrees with none of it, so refusing
never scores better on replies than answering wrongly); beside each, the always-succeeding stub's
score on the same call. Agreement earned only by both sides refusing or answering nothing is counted apart and earns no
grade. The instrument, the replay of recorded traces and ``learn`` all tally through here.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from envfactory.ir.env import EnvSpec
from envfactory.runtime.canonical import canonical_number
from envfactory.runtime.replies import reply_error

JSON = dict[str, Any]


class ToolAgreement(BaseModel):
    """One tool's agreement with the real implementation, beside the stub's on the same calls."""

    model_config = ConfigDict(frozen=True)

    tool: str
    calls: int
    outcome: float
    same_error: float
    output_exact: float | None
    output_fields: float | None
    stub_outcome: float
    stub_output_exact: float | None
    stub_output_fields: float | None

    earned: int | None = None  # calls not agreed on by both refusing or both answering nothing
    earned_outcome: float | None = None  # outcome agreement on those calls
    stub_earned_outcome: float | None = None
    mutual_refusals: int = 0  # calls both sides refused: agreement that earns no grade
    both_empty: int = 0  # calls both answered nothing (null, {}, [], "")

    @property
    def grade(self) -> str:
        """``unmeasured`` when no call was earned (every agreement came from both sides refusing or
        answering nothing); else, on the earned calls, ``high`` only when measured so: outcomes agree
        on >= 90 %, >= 70 % of output fields agree, and one of the two beats the stub by 20 points (a
        search that always succeeds can only beat it on its outputs); ``medium`` when either beats
        the stub at all; else ``low``."""
        if self.earned == 0:
            return "unmeasured"
        outcome = self.earned_outcome if self.earned_outcome is not None else self.outcome
        stub = self.stub_earned_outcome if self.stub_earned_outcome is not None else self.stub_outcome
        fields = self.output_fields if self.output_fields is not None else 0.0
        stub_fields = self.stub_output_fields if self.stub_output_fields is not None else 0.0
        margin = max(outcome - stub, fields - stub_fields)
        if outcome >= 0.9 and fields >= 0.7 and margin >= 0.2:
            return "high"
        if outcome >= 0.7 and margin > 0:
            return "medium"
        return "low"


class Measurement(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    sequences: int
    calls: int
    outcome: float
    stub_outcome: float
    output_exact: float | None
    stub_output_exact: float | None
    output_fields: float | None
    stub_output_fields: float | None
    final_state: float | None  # None: the real object's records could not be mapped onto entities
    real_crashes: int = 0  # calls on which the real code crashed (``internal_error``): left out of every figure
    tools: tuple[ToolAgreement, ...]
    earned_outcome: float | None = None  # outcome agreement on calls not agreed on by refusing or answering nothing
    stub_earned_outcome: float | None = None
    mutual_refusals: float | None = None  # share of calls both sides refused (reported apart; earns no grade)
    both_empty: float | None = None  # share of calls both sides answered with nothing

    def grades(self) -> dict[str, str]:
        return {t.tool: t.grade for t in self.tools}


def normalized(value: Any) -> Any:
    """Lists as multisets (a dump's order is not the state): sorted by their items' rounded text."""
    if isinstance(value, dict):
        return {k: normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((normalized(v) for v in value), key=_order)
    return value


def _order(value: Any) -> bytes:
    return orjson.dumps(_rounded(value), option=orjson.OPT_SORT_KEYS)


def tally_call(t: dict[str, list[float]], real_ok: bool, real_output: Any, s: Any, f: Any,
               mask: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
    """Score one call: the real side's outcome and reply beside the model's result ``s`` and the
    stub's ``f``. ``mask`` marks the reply places the real thing does not reproduce, on every side."""
    # the model's replies are read as the real one's: answering {"success": false} refused; the stub
    # always succeeds, whatever placeholder its echo holds
    s_ok, f_ok = _accepted(s), bool(f.ok)
    t["outcome"].append(float(real_ok == s_ok))
    t["stub_outcome"].append(float(real_ok == f_ok))
    mutual = not real_ok and not s_ok
    empty = real_ok and s_ok and real_output in _NOTHING and s.data in _NOTHING
    t["mutual"].append(float(mutual))
    t["empty"].append(float(empty))
    if not mutual and not empty:  # agreement either side earned by answering something
        t["earned"].append(float(real_ok == s_ok))
        t["stub_earned"].append(float(real_ok == f_ok))
    for side, result, ok in (("", s, s_ok), ("stub_", f, f_ok)):
        if real_ok and not ok and real_output not in _NOTHING:  # refusing an answer agrees with none of it
            t[f"{side}exact"].append(0.0)
            t[f"{side}fields"].append(0.0)
        elif real_ok and ok:
            real, other = (real_output, result.data) if mask is None else (mask(real_output), mask(result.data))
            same = _same_output(real, other)  # exact: as an agent reads it, envelope and all
            t[f"{side}exact"].append(float(same))
            real, other = _opened(real, other)
            t[f"{side}fields"].append(1.0 if same or _same_output(real, other) else leaf_share(real, other))


def _accepted(result: Any) -> bool:
    """Whether a result accepted the call: ok, and its reply no refusal dressed as an answer."""
    return bool(result.ok) and reply_error(result.data) is None


def _opened(real: Any, other: Any) -> tuple[Any, Any]:
    """Both answers with an envelope taken off: a one-key object facing an answer without that key
    stands for its value (a description declares ``{airports: [...]}`` where the code returns the
    list, or ``{status: {...}}`` where it returns the inner object). For leaf fields only: an
    answer is exact only as an agent reads it, envelope and all."""
    if isinstance(other, dict) and len(other) == 1 and not (isinstance(real, dict) and real.keys() & other.keys()):
        return real, next(iter(other.values()))
    if isinstance(real, dict) and len(real) == 1 and not (isinstance(other, dict) and other.keys() & real.keys()):
        return next(iter(real.values())), other
    return real, other


_NOTHING: tuple[Any, ...] = (None, "", {}, [])


def _same_output(real: Any, other: Any) -> bool:
    """Equal answers; an answer of nothing (``null``, ``{}``, ``[]``, ``""``) equals any other."""
    return (real in _NOTHING and other in _NOTHING) or same_value(real, other)


def measurement(
    source: str,
    sequences: int,
    tally: dict[str, dict[str, list[float]]],
    finals: list[float],
    crashes: dict[str, int] | None = None,
) -> Measurement:
    every: dict[str, list[float]] = defaultdict(list)
    for t in tally.values():
        for k, v in t.items():
            every[k] += v
    tools = tuple(_tool_agreement(name, t) for name, t in sorted(tally.items()))
    return Measurement.model_validate(
        {"source": source, "sequences": sequences, "calls": len(every["outcome"]), "final_state": _mean(finals),
         "tools": tools, "real_crashes": sum((crashes or {}).values()), **_scores(every),
         "earned_outcome": _mean(every["earned"]), "stub_earned_outcome": _mean(every["stub_earned"]),
         "mutual_refusals": _mean(every["mutual"]), "both_empty": _mean(every["empty"])}
    )  # fmt: skip


def stub_spec(spec: EnvSpec) -> EnvSpec:
    """Every tool a fallback: always succeeds, echoes its output schema, changes nothing."""
    from envfactory.ir.effect import Behaviour, FallbackEffect

    stubbed = tuple(
        Behaviour(tool=b.tool, effect=FallbackEffect(reason="the always-succeeding stub"), prior="guess")
        for b in spec.behaviours
    )
    return spec.model_copy(update={"behaviours": stubbed})


def leaves(value: Any, path: str = "") -> dict[str, Any]:
    """Every leaf by its path; an empty object or list is a leaf too (else ``[]`` matches anything)."""
    if isinstance(value, (dict, list)) and not value:
        return {path: value}
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(leaves(v, f"{path}.{k}"))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(leaves(v, f"{path}[{i}]"))
        return out
    return {path: value}


def leaf_share(real: Any, other: Any) -> float:
    """The share of the leaves either side holds that both hold, equal (1.0 for two empty values)."""
    a, b = leaves(real), leaves(other)
    union = set(a) | set(b)
    return sum(1 for k in union if k in a and k in b and same_value(a[k], b[k])) / len(union) if union else 1.0


REL_TOL = 1e-6


def same_value(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers within a relative ``REL_TOL``: two implementations of one formula
    (``gallon * 3.78541`` and ``gallon * 3.785411784``, ``3`` and ``3.0``) agree; a boolean equals
    only a boolean."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=REL_TOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(v, b[k]) for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _rounded(value: Any) -> Any:
    """``value`` with floats to 6 significant digits and integral ones as integers (an order for
    values that ``same_value`` may call equal)."""
    if type(value) is float:
        return canonical_number(float(f"{value:.6g}")) if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def same_rows(real: list[JSON], synth: list[JSON], key_field: str = "id") -> bool:
    key = lambda r: str(r.get(key_field))  # noqa: E731
    return same_value(sorted(real, key=key), sorted(synth, key=key))


def seen_fields(synth: list[JSON], real: list[JSON]) -> list[JSON]:
    """A singleton's synthesized row cut to the fields the real object holds."""
    held = set(real[0]) if real else set()
    return [{k: v for k, v in row.items() if k in held} for row in synth]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _scores(t: dict[str, list[float]]) -> dict[str, float | None]:
    """The agreement figures of a tally, ours and the stub's (shared by a tool's and the overall)."""
    return {
        "outcome": _mean(t["outcome"]) or 0.0,
        "stub_outcome": _mean(t["stub_outcome"]) or 0.0,
        "output_exact": _mean(t["exact"]),
        "stub_output_exact": _mean(t["stub_exact"]),
        "output_fields": _mean(t["fields"]),
        "stub_output_fields": _mean(t["stub_fields"]),
    }


def _tool_agreement(name: str, t: dict[str, list[float]]) -> ToolAgreement:
    same_error = _mean(t["same_error"]) or 0.0
    return ToolAgreement.model_validate(
        {"tool": name, "calls": len(t["outcome"]), "same_error": same_error, **_scores(t),
         "earned": len(t["earned"]), "earned_outcome": _mean(t["earned"]),
         "stub_earned_outcome": _mean(t["stub_earned"]),
         "mutual_refusals": int(sum(t["mutual"])), "both_empty": int(sum(t["empty"]))}
    )  # fmt: skip


__all__ = [
    "Measurement", "ToolAgreement", "leaf_share", "leaves", "measurement", "normalized", "same_rows", "same_value",
    "seen_fields", "stub_spec", "tally_call",
]  # fmt: skip
