"""Whether the real side accepts a tool at all, looks its references up, or answers independently of the state."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from envfactory.ir.choice import Answer
from envfactory.ir.effect import Behaviour, CreateEffect, FallbackEffect, UpdateEffect
from envfactory.ir.env import EnvSpec
from envfactory.runtime.answers import REFUSED, args_key
from envfactory.synth.candidates import PROPOSERS, Candidate, Evidence


@PROPOSERS.register("refuses")
def refuses(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the real side refused on most calls the model accepted: it refuses (and changes nothing)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        if not pairs or sum(not p.real_ok for p in pairs) * 5 < len(pairs) * 4:
            continue
        if all(not p.model_ok for p in pairs):
            continue
        reason = Counter(str(p.real) for p in pairs if not p.real_ok).most_common(1)[0][0]
        behaviour = Behaviour(tool=tool, effect=FallbackEffect(reason=reason[:200], writes=True), prior="guess",
                              notes=("the real implementation refused it",))  # fmt: skip
        out.append(Candidate(tool, "refuses", "refuses", behaviour, confirms="the real side refuses every call"))
    return out


_REFERENCED = re.compile(r"not found \(argument for '([^']+)'\)")


@PROPOSERS.register("unchecked-refs")
def unchecked_references(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """References the real side does not look up: it accepted calls the model refused because a
    referenced record does not exist (``add_activity(task_id="MJ-1")``). A create or update stops
    checking those fields; a tool that needs a named record stops needing it; another tool keyed by
    a record (an action, a delete) accepts a key nobody holds and changes nothing
    (``Behaviour.accepts_missing``: ``set_task_handoff(task_id="BQ-11228")`` answered as worded)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        missed = [str(p.model) for p in pairs if p.real_ok and not p.model_ok and "not found" in str(p.model)]
        if not missed:
            continue
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        made: Behaviour
        if isinstance(effect, (CreateEffect, UpdateEffect)):
            fields = sorted({m.group(1) for text in missed for m in _REFERENCED.finditer(text)} - set(effect.unchecked))
            if not fields:
                continue
            made = behaviour.model_copy(update={"effect": effect.model_copy(
                update={"unchecked": (*effect.unchecked, *fields)})})  # fmt: skip
            summary = f"does not look up {', '.join(fields)}"
        elif needs := getattr(effect, "needs", None):
            made = behaviour.model_copy(update={"effect": effect.model_copy(update={"needs": {}})})
            summary = f"does not look up {', '.join(sorted(needs))}"
        elif getattr(effect, "key_arg", None) and not behaviour.accepts_missing:
            made = behaviour.model_copy(update={"accepts_missing": True})
            summary = f"accepts a {getattr(effect, 'entity', 'record')} nobody holds, changing nothing"
        else:
            continue
        out.append(Candidate(tool, "unchecked-refs", summary, made,
                             confirms="calls naming records that do not exist are accepted"))  # fmt: skip
    return out


@PROPOSERS.register("accepts")
def accepts(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the real side accepted where the model refused most calls: it answers without refusing.
    The real side may refuse some calls too (a third of them, arguments drawn at random): laid under
    their recorded replies, those still refuse where they were seen."""
    out = []
    for tool, pairs in evidence.pairs.items():
        real_ok = [p for p in pairs if p.real_ok]
        refused = sum(not p.model_ok for p in real_ok)
        if len(real_ok) < 2 or refused * 2 < len(real_ok) or len(real_ok) * 3 < len(pairs) * 2:
            continue
        behaviour = Behaviour(tool=tool, effect=FallbackEffect(reason="the real implementation accepts it"),
                              prior="guess", notes=("accepts every call, as the real one did",))  # fmt: skip
        out.append(Candidate(tool, "accepts", "accepts every call", behaviour,
                             confirms="the real side accepts calls the descriptions' model refuses"))  # fmt: skip
    return out


MAKES = frozenset({"create", "create_many"})  # effects whose replies name the records they made


@PROPOSERS.register("recorded")
def recorded_answers(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Replies that did not depend on the state: the same arguments always answered the same (reference
    data, a schema, a fixed refusal). The effect still runs; the reply is the recorded one. Not for a
    tool that makes records: its reply names what it made, the same only because every sequence
    starts alike, and a memory of it pairs none of the model's own ids with the real side's."""
    out = []
    for tool, pairs in evidence.pairs.items():
        if spec.behaviour(tool).effect.kind in MAKES:
            continue
        table: dict[str, Any] = {}
        steady = True
        for p in pairs:
            reply = p.real if p.real_ok else {REFUSED: p.real or "refused"}
            key = args_key(p.args)
            if key in table and table[key] != reply:
                steady = False
                break
            table[key] = reply
        if not steady or not table:
            continue
        behaviour = spec.behaviour(tool)
        answer = Answer(kind="recorded", recorded=table)
        out.append(Candidate(tool, "recorded", f"replies recorded for {len(table)} argument set(s)",
                             behaviour.model_copy(update={"answer": answer}), memorizes=True,
                             confirms="the same arguments answer the same at any point of a sequence"))  # fmt: skip
    return out


__all__ = ["accepts", "recorded_answers", "refuses", "unchecked_references"]
