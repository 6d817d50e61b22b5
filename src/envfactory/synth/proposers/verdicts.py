"""Whether the real side accepts a tool at all, looks its references up, or answers independently of the state."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from envfactory.ir.choice import Answer
from envfactory.ir.effect import Behaviour, CreateEffect, FallbackEffect, UpdateEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY
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


@PROPOSERS.register("checked-refs")
def checked_references(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """References the real side looks up and the model does not: a create's or update's argument that,
    on every call the real side accepted, named a record the model then held (one at least), and on
    two or more it refused — the model accepting them — named none (``create_task(parent_id="GZ-1")``):
    the field refers to that entity, a value naming nothing refused ``not_found``. Of several entities
    whose keys fit, the one most accepted calls named, the tool's own first on a tie. A reference the
    descriptions gave and left unchecked (a record of the entity's own kind) is checked on the
    refusals alone."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, (CreateEffect, UpdateEffect)) or effect.entity not in spec.state_schema:
            continue
        entity = spec.state_schema[effect.entity]
        targets = sorted((e for e in spec.state_schema.entities if e.key != SINGLETON_KEY),
                         key=lambda e: e.name != entity.name)  # fmt: skip
        found: dict[str, str] = {}
        for arg, field in effect.args.items():
            # a reference the descriptions gave but left unchecked needs no record named to be confirmed
            said = entity.refs.get(field) if field in effect.unchecked else None
            if said is not None and said not in spec.state_schema:
                continue
            if (field in entity.refs and said is None) or field == entity.key:
                continue
            named = [(p, values) for p in pairs if p.model_ok and (values := _named(p.args.get(arg)))]
            best: tuple[int, str] | None = None
            for target in targets if said is None else [spec.state_schema[said]]:
                held_in = refused_out = 0
                for p, values in named:
                    made = p.raw.get(target.key) if isinstance(p.raw, dict) else None
                    held = {str(r.get(target.key)) for r in p.state.get(target.name, ()) if r.get(target.key) != made}
                    inside = all(v in held for v in values)
                    if p.real_ok and not inside:
                        break  # the real side accepted a value naming nothing: not looked up here
                    held_in += p.real_ok
                    refused_out += not p.real_ok and not inside
                else:
                    if (held_in or said) and refused_out >= 2 and (best is None or held_in > best[0]):
                        best = (held_in, target.name)
            if best is not None:
                found[field] = best[1]
        if not found:
            continue
        changed = entity.model_copy(update={"refs": {**entity.refs, **found}})
        made_b = behaviour.model_copy(update={"effect": effect.model_copy(
            update={"unchecked": tuple(f for f in effect.unchecked if f not in found)})})  # fmt: skip
        looked_up = ", ".join(f"{f} (a {t})" for f, t in sorted(found.items()))
        out.append(Candidate(tool, "checked-refs", f"looks up {looked_up}", made_b, entities=(changed,),
                             confirms="calls naming records nobody holds are refused"))  # fmt: skip
    return out


def _named(value: Any) -> list[str]:
    """The keys an argument's value names: a text or a number, or each of a list of them (none: [])."""
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in values):
        return []
    return [str(v) for v in values]


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
