"""Exploration: call sequences on the real implementation under a call budget, recorded as a trace.

Each sequence runs on a fresh copy of the real thing (a fresh object or server). A step is drawn
from a few moves, each aimed at something a model must get right:

- ``any``: a random tool with schema-valid arguments whose ids, names and paths are drawn from
  what the real side answered so far (:class:`~envfactory.real.keypool.KeyPool`), so reads hit
  existing records and deletes happen;
- ``read-after-write``: after an accepted write, a read-only tool (what did the write change?);
- ``repeat``: the previous call again (duplicates, idempotence, a delete twice);
- ``bad-id``: a random tool with its identifying arguments replaced by values nobody minted
  (what does "not found" look like?).

Every sequence ends by recording what the real side holds (its read-everything tool, or the
object's records), so a replay can compare final states.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envfactory.core import BROKEN
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.real.instrument import SIGN_IN, RealSide, _natural
from envfactory.real.keypool import KeyPool, identifying
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.seeding import derive_seed
from envfactory.values import ValueMaker

JSON = dict[str, Any]
MOVES = (("any", 0.55), ("read-after-write", 0.2), ("repeat", 0.1), ("bad-id", 0.15))


def read_only_tools(spec: EnvSpec) -> list[ToolSpec]:
    """Tools that only read: annotated so, or synthesized as a read, list, count or dump."""
    reads = {"read", "list", "count", "dump"}
    return [t for t in spec.tools.tools if t.annotations.read_only or spec.behaviour(t.name).effect.kind in reads]


def explore(
    spec: EnvSpec,
    real: RealSide,
    *,
    budget: int = 500,
    length: int = 10,
    seed: int = 0,
    source: str = "real",
    progress: Callable[[int, int], None] | None = None,
) -> Trace:
    """``budget`` calls on ``real`` in sequences of ``length`` (see the module docstring);
    ``progress(calls done, budget)`` after each sequence."""
    model = real.synth_spec
    reads = read_only_tools(model)
    sequences: list[Sequence] = []
    done = 0
    while done < budget:
        n = len(sequences)
        rng = random.Random(derive_seed(seed, "explore", n))
        maker = ValueMaker(derive_seed(seed, "explore-values", n), model.config.clock_start)
        calls: list[TraceCall] = []
        with real.sequence() as side:
            keys = KeyPool(side.known_keys(), names=_natural(model))
            keys.learn(side.known_fields())
            last: tuple[str, JSON] | None = None
            wrote = False
            for _ in range(min(length, budget - done)):
                tool, args = _step(model, reads, keys, rng, maker, last, wrote)
                r = side.call(tool, args)
                done += 1
                if r.error_code in BROKEN:  # the real code crashed: nothing to learn from
                    continue
                if r.ok:
                    keys.learn(args)
                    keys.learn(r.data)
                calls.append(TraceCall(tool=tool, arguments=args, ok=r.ok, output=r.data if r.ok else None,
                                       error=None if r.ok else r.error_code, sequence=n))  # fmt: skip
                last, wrote = (tool, args), r.ok and tool not in {t.name for t in reads}
            final = side.final()
        sequences.append(Sequence(id=n, calls=tuple(calls), final=final))
        if progress is not None:
            progress(done, budget)
    return Trace(source=source, sequences=tuple(sequences))


def _step(spec: EnvSpec, reads: list[ToolSpec], keys: KeyPool, rng: random.Random, maker: ValueMaker,
          last: tuple[str, JSON] | None, wrote: bool) -> tuple[str, JSON]:  # fmt: skip
    move = rng.choices([m for m, _ in MOVES], weights=[w for _, w in MOVES])[0]
    if move == "repeat" and last is not None:
        return last
    if move == "read-after-write" and wrote and reads:
        tool = rng.choice(reads)
        return tool.name, keys.arguments(tool.input_schema, rng, maker)
    tool = rng.choice(spec.tools.tools)
    args = keys.arguments(tool.input_schema, rng, maker)
    if move == "bad-id":
        args = _unknown_ids(args, tool, keys, maker)
    return tool.name, args


def _unknown_ids(args: JSON, tool: ToolSpec, keys: KeyPool, maker: ValueMaker) -> JSON:
    """``args`` with every identifying argument (not a sign-in) a value nobody minted."""
    props = tool.input_schema.get("properties") or {}
    out = dict(args)
    for name, value in args.items():
        if name in SIGN_IN or not identifying(name, keys.names) or isinstance(value, (dict, list, bool)):
            continue
        schema = props.get(name) if isinstance(props.get(name), dict) else {}
        fresh = 987654 if isinstance(value, int) else f"{maker.value({'type': 'string'}, name)}-unknown"
        out[name] = fresh if "enum" not in (schema or {}) else value
    return out


__all__ = ["MOVES", "explore", "read_only_tools"]
