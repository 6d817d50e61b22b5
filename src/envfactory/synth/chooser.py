"""The chooser: per tool, the candidate that best explains the evidence, scored on calls it was not fit on.

Every tool starts with the behaviour synthesized from its descriptions (the prior). The evidence's
sequences are cut into folds; each proposer (:data:`~envfactory.synth.candidates.PROPOSERS`) fits
its candidates on all folds but one and the candidate is scored on the one left out, for every fold
in turn, so a candidate that only memorizes what it was shown (recorded replies) scores no better
than it generalizes — and once chosen, a memory is cut fold by fold to what the other folds showed,
so it never hides a later candidate's gain on the calls it memorized. A tool's candidates are tried
strongest first (each scored alone on the tool's behaviour as it stood), and one replaces the
current choice only when it scores higher over the whole environment (a behaviour's effect on the
state shows in later reads and in the final state; a candidate that corrects only what the model
holds, read off the real records, on a tie as well, since no reply may show it until a wording from
the state is chosen): which candidate wins does not depend on the order the proposers are registered
in, only ties do. Tools are visited in turn, for up to three rounds while a round changes something,
since a choice can enable another (a learned key format lets a reply's template name the key; a
field learned as composed of others lets a reply answer the whole record).

Without evidence nothing is scored and every tool keeps its prior, recorded with evidence
``descriptions``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel

from envfactory.ir.choice import Choice, Scored
from envfactory.ir.choice import Evidence as EvidenceKind
from envfactory.ir.effect import ActionEffect, FallbackEffect, changes_state
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.ir.tool import unwrapped
from envfactory.real.instrument import Measurement
from envfactory.real.replay import replay
from envfactory.real.trace import Trace, TraceCall
from envfactory.runtime.answers import args_key, opened_text
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.result import ToolResult
from envfactory.runtime.spelling import spelt
from envfactory.synth import proposers as _registered  # noqa: F401 - registers every proposer
from envfactory.synth.candidates import PROPOSERS, Candidate, Evidence, Pair, Proposer
from envfactory.synth.proposers.replies import WORDINGS, state_rows, state_tallies

PRIOR = "descriptions"
JSON = dict[str, Any]


def score(m: Measurement) -> float:
    """One figure of agreement: outcomes, exact replies, reply fields and final states, each in [0, 1]."""
    return m.outcome + (m.output_exact or 0.0) + (m.output_fields or 0.0) + (m.final_state or 0.0)


def observe(spec: EnvSpec, trace: Trace, env: Environment | None = None,
            described: EnvSpec | None = None) -> tuple[Evidence, Measurement]:  # fmt: skip
    """Replay ``trace`` on ``spec``: each call's real side beside the model's answer, and the figures;
    ``described``: the model as the descriptions gave it, whose actions a choice replaced by a
    fallback are kept in the evidence (``Evidence.described``)."""
    pairs: dict[str, list[Pair]] = {}
    writes = {b.tool for b in spec.behaviours if changes_state(b.effect) or getattr(b.effect, "writes", False)}
    spellings = {b.tool: b.spellings for b in spec.behaviours if b.spellings}
    replaced = {b.tool: was for b in spec.behaviours if isinstance(b.effect, FallbackEffect) and described
                and isinstance((was := described.behaviour(b.tool)).effect, ActionEffect)}  # fmt: skip
    actions = {b.tool for b in spec.behaviours if isinstance(b.effect, ActionEffect)} | set(replaced)
    wrote: set[str] = set()  # sequences in which the real side accepted a write so far
    wrappers = {t.name: t.wrapped for t in spec.tools.tools if t.wrapped}

    def unwrap(tool: str, args: JSON) -> JSON:  # a recorded call's arguments as its tool reads them
        return unwrapped(args, wrappers[tool]) if tool in wrappers else args

    def seen(seq: str, index: int, call: TraceCall, result: ToolResult, raw: Any, episode: Episode,
             recorded: TraceCall | None = None) -> None:  # fmt: skip
        fresh = seq not in wrote
        if call.ok and call.tool in writes:
            wrote.add(seq)
        real = call.output if call.ok else (call.error or "refused")
        pairs.setdefault(call.tool, []).append(
            Pair(
                spelt(unwrap(call.tool, call.arguments), spellings.get(call.tool, {})),  # as the tool reads them
                call.ok,
                real,
                result.ok,
                opened_text(result.data) if result.ok else _message(result),
                raw if result.ok else None,
                index,
                fresh,
                state_tallies(spec, episode.store) if call.ok else {},
                opened_text(episode.last_shaped) if result.ok and episode.last_shaped is not None else None,
                state_rows(spec, episode.store) if result.ok else {},  # what the model's accepted call left
                recorded.output if call.ok and recorded is not None else None,
                recorded.arguments if recorded is not None else None,
                state_rows(spec, episode.store) if not result.ok and call.tool in actions else {},
                seq,
                None if call.ok else call.message,
            )
        )

    ends: list[tuple[tuple[Any, ...], dict[str, list[JSON]]]] = []

    def ended(seq: str, answered: list[tuple[str, JSON, bool, Any]], episode: Episode) -> None:
        if not answered:
            return
        held = state_rows(spec, episode.store)
        ends.append((tuple(opened_text(a) for _, _, ok, a in answered if ok), held))
        # the reads of the final state are calls of read-only tools too, accepted or refused: evidence
        # of how they answer, among the pairs for the tools the sequences rarely call in between, kept
        # apart for the others (below)
        for k, (tool, args, ok, real) in enumerate(answered):
            if tool in writes or tool not in spec.tools.names:
                continue
            result = episode.call_tool(tool, args)  # a read: on the model it changes nothing
            shaped = episode.last_shaped
            (at_end if tool in sparse else apart).setdefault(tool, []).append(
                Pair(
                    spelt(args, spellings.get(tool, {})),
                    ok,
                    real if ok else "refused",
                    result.ok,
                    opened_text(result.data) if result.ok else _message(result),
                    episode.last_raw if result.ok else None,
                    END + k,
                    seq not in wrote,
                    state_tallies(spec, episode.store) if ok else {},
                    opened_text(shaped) if result.ok and shaped is not None else None,
                    held if ok and result.ok else {},
                    sequence=seq,
                )
            )

    # a final read is biased evidence — every one after all of its sequence's writes, where the model's
    # state may have drifted —: it speaks for a read only where the calls in between say too little
    accepted = Counter(c.tool for s in trace.sequences for c in s.calls if c.ok)
    sparse = {t for t in spec.tools.names if t not in writes and accepted[t] < FEW_CALLS}
    at_end: dict[str, list[Pair]] = {}
    apart: dict[str, list[Pair]] = {}
    measured = replay(spec, trace, observe=seen, env=env, observe_end=ended)
    for tool, end_pairs in at_end.items():
        pairs[tool] = [*pairs.get(tool, ()), *end_pairs]
    return Evidence(pairs, volatile=frozenset(trace.volatile), ends=tuple(ends), described=replaced,
                    at_end=apart), measured  # fmt: skip


END = 10_000  # a final read's place in its sequence: after every call
FEW_CALLS = 5  # accepted calls of a read in between, below which its final reads are evidence too


@dataclass
class _Standing:
    scored: dict[tuple[str, str, str], float]
    calls: int


def choose(
    spec: EnvSpec,
    trace: Trace | None,
    *,
    proposers: dict[str, Proposer] | None = None,
    folds: int = 2,
    rounds: int = 3,
    evidence_kind: EvidenceKind = "real",
    accepted: tuple[tuple[str, JSON], ...] = (),
    progress: Callable[[str], None] | None = None,
) -> EnvSpec:
    """``spec`` with each tool's behaviour chosen on ``trace`` (see the module docstring), and its
    ``choices`` recorded; with no trace (or an empty one) every tool keeps its prior. ``accepted``:
    calls the real side is known to accept (the setup calls every fresh copy was given)."""
    prior = {c.tool: c for c in spec.choices}  # what the descriptions' planners chose among, where they disagreed
    chosen: dict[str, Scored] = {
        b.tool: prior[b.tool].chosen if b.tool in prior else Scored(proposer=PRIOR, summary=_summary(b.effect.kind))
        for b in spec.behaviours
    }
    runners: dict[str, dict[str, Scored]] = {
        t: {r.summary: r for r in prior[t].runners_up} if t in prior else {} for t in chosen
    }
    if trace is None or not trace.sequences:
        return _recorded(spec, chosen, runners, "descriptions")
    proposers = proposers if proposers is not None else dict(PROPOSERS.items())
    wordings = {name: proposers[name] for name in WORDINGS if name in proposers}
    parts = _folds(trace, folds)
    current = spec
    for round_ in range(rounds):
        started = current
        offered, apart = _offers(current, trace, parts, proposers, accepted, spec)
        for tool in [t.name for t in spec.tools.tools]:
            if current is not started:  # proposed as the round started: what other tools' choices changed
                # since (an entity's key and fields, starting records) stays under the tool's candidates
                offered[tool] = {key: (_rebased(full, started, current),
                                       [_rebased(c, started, current) if c else None for c in per_fold])
                                 for key, (full, per_fold) in offered.get(tool, {}).items()}  # fmt: skip
            # a part of the tool's behaviour chosen in an earlier round may have lost its lead to choices
            # made since on other tools: the descriptions' part is a candidate again
            offered.setdefault(tool, {}).update(_undoings(spec, current, tool, len(parts)))
            if not offered[tool]:
                continue
            # a tool's candidates change only the sequences that call it: they are scored there
            local = [p.of(s.id for s in p.sequences if any(c.tool == tool for c in s.calls)) for p in parts]
            calls = sum(len(s.calls) for p in local for s in p.sequences)
            base = _cv_score(current, local, apart)
            proposed_on = current
            alone = {key: _cv_score(current, local, apart, per_fold) for key, (_, per_fold) in offered[tool].items()}
            # the strongest first, each alone on the tool's behaviour as it was (registration order breaks
            # ties): which candidate wins never depends on the order proposers happen to be visited in
            ranked = sorted(offered[tool], key=lambda k: -alone[k])
            looked = 0
            for key in ranked:
                full, per_fold = offered[tool][key]
                # what a candidate changes is laid onto the tool's current behaviour: choices compose
                full, per_fold = (
                    _rebased(full, proposed_on, current),
                    [_rebased(c, proposed_on, current) if c else None for c in per_fold],
                )
                # scored again on top of a choice made since (choices compose)
                s = alone[key] if current is proposed_on else _cv_score(current, local, apart, per_fold)
                entry = Scored(proposer=key[1], summary=key[2], score=round(s, 4), calls=calls)
                # a correction of what the model holds, read off the real records, is taken on a tie too:
                # no reply may show it yet (a memorized wording), and a wording from the state can then win;
                # so is a literal of the tool's wording told as what it equals (a count of the records)
                taken: EnvSpec | None = None
                if s > base + 1e-9 or ((full.holds or full.explains) and s > base - 1e-9):
                    taken = full.applied(current)
                elif looked < LOOKAHEAD and s <= base + 1e-9 and (full.unworded or _hidden(full, current)):
                    # a change of what the tool does, tied or worse under a learned wording that may hide
                    # or garble it (read off records the change no longer lists): the tool worded anew on top
                    looked += 1
                    worded = _worded_anew(full, per_fold, current, trace, local, parts, apart, wordings, accepted)
                    if worded is not None and worded[0] > base + 1e-9:
                        s, taken, then = worded
                        entry = Scored(proposer=f"{key[1]}+{then.proposer}", summary=f"{key[2]}; {then.summary}",
                                       score=round(s, 4), calls=calls)  # fmt: skip
                if taken is None and abs(s - base) <= 1e-9 and not full.memorizes:
                    # a tie on the folds: evidence in one fold only (a tool of a large set called in one
                    # learning sequence, a server's one refusal) reaches no scoring there; the candidate
                    # fit on all of it is taken where, in place in every fold, it explains the tool's
                    # calls better — that score is then what the next candidates must beat
                    fitted = full.applied(current)
                    fit = _cv_score(fitted, local, apart)
                    if fit > base + 1e-9:
                        taken, s = fitted, fit
                        entry = Scored(proposer=key[1], summary=key[2], score=round(s, 4), calls=calls)
                if taken is not None:
                    runners[tool][chosen[tool].summary] = chosen[tool]
                    chosen[tool], current, base = entry, taken, s
                    runners[tool].pop(entry.summary, None)
                elif entry.summary != chosen[tool].summary:
                    runners[tool][entry.summary] = entry
            chosen[tool] = chosen[tool].model_copy(update={"score": round(base, 4), "calls": calls})
        if progress is not None:
            progress(f"round {round_ + 1}: agreement score {_cv_score(current, parts, apart):.3f}")
        if current is started:  # nothing changed: another round would propose the same
            break
    return _recorded(current, chosen, runners, evidence_kind, _unexplained(observe(current, trace)[1]))


def _undoings(prior: EnvSpec, current: EnvSpec, tool: str, folds: int,
              ) -> dict[tuple[str, str, str], tuple[Candidate, list[Candidate | None]]]:  # fmt: skip
    """Per part of ``tool``'s behaviour that a choice changed (its effect, wording, checks, ...): the
    current behaviour with that part as the descriptions gave it, the same in every fold (nothing is
    fit)."""
    was, now = prior.behaviour(tool), current.behaviour(tool)
    out: dict[tuple[str, str, str], tuple[Candidate, list[Candidate | None]]] = {}
    for part in _BEHAVING:
        if getattr(was, part) == getattr(now, part):
            continue
        undone = Candidate(tool, PRIOR, f"{part} as the descriptions give it",
                           now.model_copy(update={part: getattr(was, part)}))  # fmt: skip
        out[undone.key] = (undone, [undone] * folds)
    return out


Offered = dict[str, dict[tuple[str, str, str], tuple[Candidate, list[Candidate | None]]]]


def _offers(spec: EnvSpec, trace: Trace, parts: list[Trace], proposers: dict[str, Proposer], accepted: Any,
            described: EnvSpec | None = None) -> tuple[Offered, list[dict[str, set[str]]]]:  # fmt: skip
    """Per tool, each candidate fit on the whole trace and, per fold, fit on the other folds; and per
    fold, the arguments each tool was called with on the other folds, as the model was called
    (the evidence a candidate fit for that fold saw); ``described``: the model as the descriptions
    gave it (see :func:`observe`)."""
    full = _proposed(spec, _with(observe(spec, trace, described=described)[0], accepted), proposers)
    fitted, apart = [], []
    for part in parts:
        evidence = observe(spec, _without(trace, part), described=described)[0]
        fitted.append({c.key: c for c in _proposed(spec, _with(evidence, accepted), proposers)})
        apart.append({tool: {args_key(p.args) for p in pairs} for tool, pairs in evidence.pairs.items()})
    out: Offered = {}
    keys = {c.key for c in full}
    for c in full:
        per_fold = [_match(f, c, keys) for f in fitted]
        out.setdefault(c.tool, {})[c.key] = (c, per_fold)
    return out, apart


# what a tool reads, does and says; then what the behaviour says of itself
_BEHAVING = ("effect", "answer", "checks", "gate", "spellings", "accepts_missing")
_PARTS = (*_BEHAVING, "notes", "prior")


def _rebased(candidate: Candidate, proposed_on: EnvSpec, current: EnvSpec) -> Candidate:
    """``candidate``, proposed on ``proposed_on``, as a change of ``current``: the parts of the tool's
    behaviour it changes (effect, answer, checks, ...) replace those of the current behaviour; so do
    the parts of an entity it changes (a field's schema) and the values of starting records it changes,
    so that a choice made since on the same entity (fields a record learned to hold, records a first
    read showed) stays."""
    before, now = proposed_on.behaviour(candidate.tool), current.behaviour(candidate.tool)
    if before != now:
        changes = {k: _part_rebased(getattr(candidate.behaviour, k), getattr(before, k), getattr(now, k))
                   for k in _PARTS if getattr(candidate.behaviour, k) != getattr(before, k)}  # fmt: skip
        candidate = replace(candidate, behaviour=now.model_copy(update=changes))
    if candidate.entities:
        entities = tuple(_entity_rebased(e, proposed_on, current) for e in candidate.entities)
        candidate = replace(candidate, entities=entities)
    if candidate.rows:
        rows = {name: _rows_rebased(name, made, proposed_on, current) for name, made in candidate.rows.items()}
        candidate = replace(candidate, rows=rows)
    return candidate


_NONE = object()  # a key a mapping lacks


def _part_rebased(made: Any, before: Any, now: Any) -> Any:
    """A part of a behaviour a candidate changed from ``before``, laid onto ``now``: where all three are
    one kind of effect, only the members it changed (a create's starting values onto the clock fields
    chosen since), a mapping's only its keys; else the candidate's part whole."""
    if not (isinstance(made, BaseModel) and type(made) is type(before) is type(now)):
        return made
    changed: dict[str, Any] = {}
    for name in type(made).model_fields:
        mine, was, kept = getattr(made, name), getattr(before, name), getattr(now, name)
        if mine == was:
            continue
        changed[name] = _merged(mine, was, kept)
    return now.model_copy(update=changed)


def _merged(mine: Any, was: Any, kept: Any) -> Any:
    """What a candidate made of a value (``mine``, from ``was``) laid onto what it is now (``kept``):
    mappings member by member, at every depth (a count the candidate added to an answer beside a
    list wording chosen since), a member it did not change as it is now; else ``mine`` whole."""
    if not (isinstance(mine, dict) and isinstance(was, dict) and isinstance(kept, dict)):
        return mine
    out = {k: v for k, v in kept.items() if k in mine or k not in was}
    for k, v in mine.items():
        before = was.get(k, _NONE)
        if before != v:
            out[k] = _merged(v, before, kept[k]) if k in kept else v
    return out


def _entity_rebased(entity: Entity, proposed_on: EnvSpec, current: EnvSpec) -> Entity:
    if entity.name not in proposed_on.state_schema or entity.name not in current.state_schema:
        return entity
    before, now = proposed_on.state_schema[entity.name], current.state_schema[entity.name]
    if before == now:
        return entity
    fields = {**now.fields, **{f: s for f, s in entity.fields.items() if before.fields.get(f) != s}}
    changes = {k: getattr(entity, k) for k in type(entity).model_fields
               if k != "fields" and getattr(entity, k) != getattr(before, k)}  # fmt: skip
    return now.model_copy(update={**changes, "fields": fields})


def _rows_rebased(name: str, made: list[JSON], proposed_on: EnvSpec, current: EnvSpec) -> list[JSON]:
    """``made`` (the starting records of ``name`` as a candidate leaves them) laid onto ``current``'s:
    each value it changed, by record key, and the records it added."""
    before, now = proposed_on.initial_state.get(name, []), current.initial_state.get(name, [])
    if before == now or name not in current.state_schema:
        return made
    key = current.state_schema[name].key
    was, given = {str(r.get(key)): r for r in before}, {str(r.get(key)): r for r in made}
    out = []
    for row in now:
        old, new = was.get(str(row.get(key))), given.get(str(row.get(key)))
        if old is not None and new is not None and new != old:
            row = {**row, **{f: v for f, v in new.items() if old.get(f) != v}}
        out.append(row)
    held = {str(r.get(key)) for r in now} | set(was)
    return out + [r for r in made if str(r.get(key)) not in held]


def _with(evidence: Evidence, accepted: tuple[tuple[str, JSON], ...]) -> Evidence:
    return replace(evidence, accepted=accepted) if accepted else evidence


def _match(fitted: dict[tuple[str, str, str], Candidate], c: Candidate,
           others: AbstractSet[tuple[str, str, str]] = frozenset()) -> Candidate | None:  # fmt: skip
    """The candidate of the same proposer for the same tool fit on other calls (its summary may differ:
    a recorded table of other size), else ``None``; never one that is the counterpart of another of
    ``others`` (the candidates fit on the whole trace: saving over a record by its ``title`` is no
    fold's version of saving over it by its ``parent_id``)."""
    if c.key in fitted:
        return fitted[c.key]
    return next((f for k, f in fitted.items() if f.tool == c.tool and f.proposer == c.proposer and k not in others),
                None)  # fmt: skip


def _proposed(spec: EnvSpec, evidence: Evidence, proposers: dict[str, Proposer]) -> list[Candidate]:
    return [c for proposer in proposers.values() for c in proposer(spec, evidence)]


LOOKAHEAD = 2  # tied changes of a tool's effect worded anew, per tool and round, the strongest first


def _hidden(candidate: Candidate, current: EnvSpec) -> bool:
    """Whether a candidate changes what its tool does (its effect) or how it reads its arguments (their
    spellings) while the tool answers a learned wording, which may word the change away (a fixed list
    of the one setup record; an argument echoed as a literal where it was not spelt as the real side
    spells it)."""
    now, made = current.behaviour(candidate.tool), candidate.behaviour
    return now.answer is not None and (made.effect != now.effect or made.spellings != now.spellings)


def _worded_anew(candidate: Candidate, per_fold: list[Candidate | None], current: EnvSpec, trace: Trace,
                 local: list[Trace], parts: list[Trace], apart: list[dict[str, set[str]]],
                 wordings: dict[str, Proposer], accepted: Any) -> tuple[float, EnvSpec, Candidate] | None:  # fmt: skip
    """The best wording of the candidate's tool proposed on top of it (``wordings``' candidates, fit
    and scored fold by fold as any candidate is, the candidate laid on first): its score on
    ``local``, the model with both, and the wording; ``None`` where none is proposed."""
    tried = candidate.applied(current)
    best: tuple[float, EnvSpec, Candidate] | None = None
    for worded, folds in _offers(tried, trace, parts, wordings, accepted)[0].get(candidate.tool, {}).values():
        total, used = 0.0, 0
        for part, seen, first, then in zip(local, apart, per_fold, folds, strict=True):
            if not part.sequences:
                continue
            spec = first.applied(current) if first is not None else current
            spec = _rebased(then, tried, spec).applied(spec) if then is not None else spec
            total, used = total + score(replay(_unmemorized(spec, seen), part)), used + 1
        s = total / used if used else 0.0
        if best is None or s > best[0]:
            best = (s, worded.applied(tried), worded)
    return best


def _cv_score(spec: EnvSpec, parts: list[Trace], apart: list[dict[str, set[str]]],
              per_fold: list[Candidate | None] | None = None) -> float:  # fmt: skip
    """The mean score over folds of ``spec`` (with each fold's candidate in place) on that fold;
    ``apart``: per fold, the arguments each tool was called with outside it (see :func:`_unmemorized`)."""
    total, used = 0.0, 0
    for i, part in enumerate(parts):
        if not part.sequences:
            continue
        candidate = per_fold[i] if per_fold is not None else None
        total += score(replay(_unmemorized(candidate.applied(spec) if candidate else spec, apart[i]), part))
        used += 1
    return total / used if used else 0.0


def _unmemorized(spec: EnvSpec, seen: dict[str, set[str]]) -> EnvSpec:
    """``spec`` with each table of recorded replies cut to the arguments in ``seen``: a table chosen
    earlier was fit on every fold, so scored on a fold it would answer that fold's own calls from memory,
    and a later candidate that explains them (a lookup that refuses what does not exist) could never
    score better than the memory; cut, every choice is scored on calls it was not fit on."""
    behaviours, cut = [], False
    for b in spec.behaviours:
        answer = b.answer
        if answer is not None and answer.kind == "recorded":
            known = seen.get(b.tool, set())
            kept = {k: v for k, v in answer.recorded.items() if k in known}
            if len(kept) < len(answer.recorded):
                b, cut = b.model_copy(update={"answer": answer.model_copy(update={"recorded": kept})}), True
        behaviours.append(b)
    return spec.model_copy(update={"behaviours": tuple(behaviours)}) if cut else spec


def _folds(trace: Trace, k: int) -> list[Trace]:
    """``trace`` cut into ``k`` folds of its sequences (:func:`fold_of`)."""
    ids = [s.id for s in trace.sequences]
    k = max(1, min(k, len(ids)))
    assigned = fold_of([{c.tool for c in s.calls} for s in trace.sequences], k)
    return [trace.of(i for i, f in zip(ids, assigned, strict=True) if f == fold) for fold in range(k)]


def fold_of(tools: list[set[str]], k: int) -> list[int]:
    """The fold of each sequence, given the tools each calls: a tool called in several sequences is
    called in several folds where it can be, so every fold left out holds calls of it that the other
    folds' candidates are scored on — a tool whose every call fell in one fold could never be scored,
    and kept its prior whatever the evidence said. Each sequence in turn joins the fold that holds the
    fewest of its tools, the rarest tools weighing first (compared in order of how few sequences call
    them), then the fold with the fewest sequences, then the first: deterministic, and folds of sizes
    within a few sequences of each other."""
    if k <= 1:
        return [0] * len(tools)
    calling = Counter(t for called in tools for t in called)
    held: list[Counter[str]] = [Counter() for _ in range(k)]
    sizes = [0] * k
    out = []
    for called in tools:
        rarest = sorted(called, key=lambda t: (calling[t], t))

        def crowding(fold: int, rarest: list[str] = rarest) -> tuple[Any, ...]:
            return (*(held[fold][t] for t in rarest), sizes[fold], fold)

        fold = min(range(k), key=crowding)
        held[fold].update(called)
        sizes[fold] += 1
        out.append(fold)
    return out


def _without(trace: Trace, part: Trace) -> Trace:
    left = {s.id for s in part.sequences}
    return trace.of(s.id for s in trace.sequences if s.id not in left)


FLAG_OUTCOME, FLAG_FIELDS = 0.9, 0.5  # below these on the evidence, no candidate explains the tool


def _unexplained(m: Measurement) -> dict[str, str]:
    """Per tool, what the chosen behaviour still fails to explain of the evidence."""
    out = {}
    for t in m.tools:
        outcome = t.earned_outcome if t.earned_outcome is not None else t.outcome
        if t.earned == 0:
            out[t.tool] = f"every one of its {t.calls} calls was refused on both sides or answered nothing"
        elif outcome < FLAG_OUTCOME:
            out[t.tool] = f"outcomes agree on {outcome:.0%} of its calls"
        elif t.output_fields is not None and t.output_fields < FLAG_FIELDS:
            out[t.tool] = f"{t.output_fields:.0%} of its reply fields agree"
    return out


def _recorded(spec: EnvSpec, chosen: dict[str, Scored], runners: dict[str, dict[str, Scored]],
              evidence: EvidenceKind, flagged: dict[str, str] | None = None) -> EnvSpec:  # fmt: skip
    flagged = flagged or {}
    choices = tuple(
        Choice(tool=t, chosen=chosen[t], evidence=evidence, flagged=flagged.get(t),
               runners_up=tuple(sorted(runners[t].values(), key=lambda s: -(s.score or 0.0))))
        for t in spec.tools.names
    )  # fmt: skip
    return spec.model_copy(update={"choices": choices})


def _message(result: ToolResult) -> str:
    return result.message or ""


def _summary(kind: str) -> str:
    return f"{kind} (from the descriptions)"


__all__ = ["PRIOR", "choose", "observe", "score"]
