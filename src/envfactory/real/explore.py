"""Exploration: call sequences on the real implementation under a call budget, recorded as a trace.

Each sequence runs on a fresh copy of the real thing (a fresh object or server). A step is drawn
from a few moves, each aimed at something a model must get right:

- ``least-called``: a tool called least often so far with arguments drawn (the ``example`` and
  ``repeat`` moves and the opening reads are not counted: a tool whose examples are called often is
  still met with other arguments, and its refusals seen), over every sequence, with schema-valid
  arguments whose ids, names and paths are drawn from what the real side answered so far
  (:class:`~envfactory.real.keypool.KeyPool`), so reads hit existing records and deletes happen —
  on a large tool set every tool is met early and in several sequences, which is what the chooser
  needs to score its candidates on one part of the evidence and confirm them on another;
- ``made-first``: where the least-called tool needs a key of something this sequence has none of
  (``get_epic(epic_id)`` before any epic), the tool whose replies gave such keys most often so far
  (``create_epic``) is called first, then that tool (:func:`made_first`): on a tool set of many
  entities, reads, edits and deletes otherwise meet only "not found" (learning's exploration only,
  ``aimed``, as are keys drawn by what they belong to — an argument named after a thing, ``project``,
  takes the keys replies gave such things — and files read off prose: the yardstick's
  sequences are drawn as before, so they stay put while how learning explores changes);
- ``any``: a random tool, arguments drawn the same way;
- ``read-after-write``: after an accepted write, a read-only tool (what did the write change?);
- ``repeat``: the previous call again (duplicates, idempotence, a delete twice);
- ``bad-id``: a random tool with its identifying arguments replaced by values nobody minted
  (what does "not found" look like?);
- ``example``: a call known to be meaningful — the user's setup calls and reads, and the examples
  the descriptions give for a tool's arguments — with an argument now and then drawn anew (free
  text such as a query or a formula is rarely valid when drawn from its schema alone).

A value the real side refused every time it was given under one argument name, three times and
never accepted, is drawn no more (:class:`~envfactory.real.keypool.Shunned`: a folder path where a
server takes paths inside its vault, an example's vault nobody configured) — unless refused as a
duplicate or as naming nothing, refusals a model must learn (``keypool.KEPT_REFUSALS``). A refusal that says what
an argument must be — the values it may take (``must be one of {design, schema, ...}``), a least
length, an ending, a written form, a range — has later draws of that argument made so
(:mod:`envfactory.real.told`): a schema saying only ``string`` would leave every such call refused.

Every sequence opens with the given state reads (so the ids a fresh copy minted for its own
starting records are seen, and a replay can pair them with the model's; the keys the model gave
those records are drawn no more once these reads show keys of the real side's own, none of them:
an id the real side never held is accepted by the model) and ends by recording
what the real side holds (its read-everything tool, the object's records, or those reads), so a
replay can compare final states.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from envfactory.core import BROKEN
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.real.instrument import SIGN_IN, RealSide, natural_names
from envfactory.real.keypool import DEFAULTED, KeyPool, Shunned, identifying, tool_nouns
from envfactory.real.mcp import TMP
from envfactory.real.told import told, told_schema
from envfactory.real.trace import Final, Sequence, Trace, TraceCall
from envfactory.seeding import derive_seed
from envfactory.values import ValueMaker

JSON = dict[str, Any]
OPENING = 2  # state reads a sequence opens with
# the moves of the sequences explored apart to measure on (``learn(test_budget=...)``): a yardstick,
# so it does not follow changes to how learning explores
YARDSTICK = (("any", 0.45), ("read-after-write", 0.2), ("repeat", 0.1), ("bad-id", 0.1), ("example", 0.15))
MOVES = (("least-called", 0.45), *YARDSTICK[1:])  # learning's: the yardstick's, each tool met early


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
    final_reads: list[tuple[str, JSON]] | None = None,
    examples: list[tuple[str, JSON]] | None = None,
    progress: Callable[[int, int], None] | None = None,
    moves: tuple[tuple[str, float], ...] = MOVES,
    first_id: int = 0,
    aimed: bool = True,
) -> Trace:
    """``budget`` calls on ``real`` in sequences of ``length`` (see the module docstring);
    ``progress(calls done, budget)`` after each sequence. ``final_reads`` (tool, arguments): reads
    that together show the state, recorded at the end of each sequence where the real side has no
    read-everything tool (they do not count against the budget). ``examples``: meaningful calls
    (the ``example`` move), besides those the descriptions give. ``moves``: the moves and their
    weights; ``first_id``: the id of the first sequence (the next ones count on); ``aimed``: keys drawn
    by what they belong to, files read off prose and ``made-first`` (learning's); without, arguments
    drawn as the yardstick draws them (:class:`~envfactory.real.keypool.KeyPool`'s ``aimed``)."""
    model = real.synth_spec
    reads = read_only_tools(model)
    known = [(t, a) for t, a in (examples or []) if t in model.tools.names] + described_examples(model)
    sequences: list[Sequence] = []
    called: Counter[str] = Counter({t.name: 0 for t in model.tools.tools})
    shunned = Shunned()
    makers: dict[tuple[str, str], Counter[str]] = {}  # owner -> the tools whose replies gave it keys
    done = 0
    while done < budget:
        n = len(sequences)
        rng = random.Random(derive_seed(seed, "explore", n))
        maker = ValueMaker(derive_seed(seed, "explore-values", n), model.config.clock_start)
        calls: list[TraceCall] = []
        with real.sequence() as side:
            keys = KeyPool(side.known_keys(), names=natural_names(model), guesses=side.guessed_keys(),
                           defaulted=DEFAULTED, paths=side.known_paths(), shunned=shunned.pairs(),
                           aimed=aimed)  # fmt: skip
            keys.learn(side.known_fields())
            last: tuple[str, JSON] | None = None
            wrote = False
            # each sequence opens by reading what is there, so ids a fresh copy minted for itself are known
            dump = getattr(real, "final_tool", None)
            reads_first = final_reads or ([(dump, {"path": TMP} if model.tools[dump].required == ["path"] else {})]
                                          if dump in model.tools.names else [])  # fmt: skip
            # at most two, those that need no arguments first: the sequence is for exploring
            ranked = sorted(reads_first, key=lambda read: len(read[1]))
            steps = min(length, budget - done)
            opening = ranked[: min(OPENING, max(0, steps - 1))]
            pending: str | None = None  # a tool called once what it names is made (``made-first``)
            for step in range(steps):
                if step < len(opening):
                    tool, args = opening[step]
                elif pending is not None:
                    move, tool, pending = "least-called", pending, None
                    args = keys.arguments(model.tools[tool].input_schema, rng, maker, tool_nouns(tool))
                else:
                    move, tool, args = _step(model, reads, keys, rng, maker, last, wrote, known, moves, called)
                    first = made_first(model, keys, tool, makers) if aimed and move == "least-called" else None
                    if first is not None and step + 1 < steps:
                        move, tool, pending = "made-first", first, tool
                        args = keys.arguments(model.tools[tool].input_schema, rng, maker, tool_nouns(tool))
                if step >= len(opening):
                    called[tool] += move not in ("example", "repeat", "made-first")
                r = side.call(tool, args)
                done += 1
                if r.error_code in BROKEN:  # the real code crashed: nothing to learn from
                    continue
                shunned.saw(args, r.ok, r.message or "", r.error_code)
                if r.ok:
                    keys.learn(args)
                    held = {owner: len(values) for owner, values in keys.by_owner.items()}
                    keys.learn(r.data, scope=tool_nouns(tool))
                    for owner, values in keys.by_owner.items():  # keys the reply minted, not the arguments'
                        if len(values) > held.get(owner, 0):
                            makers.setdefault(owner, Counter())[tool] += 1
                elif r.message and (said := told(r.message, args)) is not None:
                    model = told_schema(model, tool, said.arg, said.schema)  # drawn as the refusal says
                calls.append(TraceCall(tool=tool, arguments=args, ok=r.ok, output=r.data if r.ok else None,
                                       error=None if r.ok else r.error_code, message=None if r.ok else r.message,
                                       sequence=first_id + n))  # fmt: skip
                last, wrote = (tool, args), r.ok and tool not in {t.name for t in reads}
                if step + 1 == len(opening):  # what the opening reads showed is what the real side holds
                    keys.drop_guesses()
            final = side.final() or read_back(side, final_reads or [])
        sequences.append(Sequence(id=first_id + n, calls=tuple(calls), final=final))
        if progress is not None:
            progress(done, budget)
    return Trace(source=source, sequences=tuple(sequences), start=model.initial_state)


def read_back(side: Any, reads: list[tuple[str, JSON]]) -> Final | None:
    """The answers of ``reads`` as the recorded final state (a refused read is recorded refused)."""
    if not reads:
        return None
    answers = []
    for tool, args in reads:
        r = side.call(tool, args)
        answers.append({"tool": tool, "arguments": args, "output": r.data} if r.ok else
                       {"tool": tool, "arguments": args, "ok": False})  # fmt: skip
    return Final(reads=tuple(answers))


def described_examples(spec: EnvSpec) -> list[tuple[str, JSON]]:
    """Calls the descriptions give: each tool's required arguments filled from their ``examples``
    (or ``example``, ``default``), where every required one has one."""
    out = []
    for tool in spec.tools.tools:
        props = tool.input_schema.get("properties") or {}
        args: JSON = {}
        for name in tool.required:
            schema: JSON = props[name] if isinstance(props.get(name), dict) else {}
            given = (schema.get("examples") or [None])[0] if isinstance(schema.get("examples"), list) else None
            value = next((v for v in (given, schema.get("example"), schema.get("default")) if v is not None), None)
            if value is None:
                break
            args[name] = value
        else:
            if tool.required:
                out.append((tool.name, args))
    return out


def _step(spec: EnvSpec, reads: list[ToolSpec], keys: KeyPool, rng: random.Random, maker: ValueMaker,
          last: tuple[str, JSON] | None, wrote: bool, known: list[tuple[str, JSON]],
          moves: tuple[tuple[str, float], ...] = MOVES,
          called: Counter[str] | None = None) -> tuple[str, str, JSON]:  # fmt: skip
    """The move drawn, and the call it makes."""
    move = rng.choices([m for m, _ in moves], weights=[w for _, w in moves])[0]
    if move == "repeat" and last is not None:
        return move, *last
    if move == "example" and known:
        tool_name, example = rng.choice(known)
        args = dict(example)
        fresh = keys.arguments(spec.tools[tool_name].input_schema, rng, maker, tool_nouns(tool_name))
        for name in [k for k, v in args.items() if k in fresh and keys.shuns(k, v)]:
            args[name] = fresh[name]  # an example's value the real side always refused (a vault nobody configured)
        if args and fresh and rng.random() < 0.3:  # one argument drawn anew, the rest as given
            name = rng.choice(sorted(args))
            if name in fresh:
                args[name] = fresh[name]
        return move, tool_name, args
    if move == "read-after-write" and wrote and reads:
        tool = rng.choice(reads)
        return move, tool.name, keys.arguments(tool.input_schema, rng, maker, tool_nouns(tool.name))
    tool = rng.choice(spec.tools.tools)
    if move == "least-called" and called:
        fewest = min(called[t.name] for t in spec.tools.tools)
        tool = rng.choice([t for t in spec.tools.tools if called[t.name] == fewest])
    args = keys.arguments(tool.input_schema, rng, maker, tool_nouns(tool.name))
    if move == "bad-id":
        args = _unknown_ids(args, tool, keys, maker)
    return move if move in ("least-called", "bad-id") else "any", tool.name, args


def made_first(spec: EnvSpec, keys: KeyPool, tool: str, makers: dict[tuple[str, str], Counter[str]]) -> str | None:
    """The tool to call before ``tool`` so that it names something that exists: for a required
    identifying argument none of whose owners holds a key yet in this sequence (``get_epic(epic_id)``
    before any epic), the tool whose replies gave that owner keys most often so far (``create_epic``);
    ``None`` where every such argument can be filled or nothing is known to make it."""
    for owned in keys.wanting(spec.tools[tool].input_schema, tool_nouns(tool)):
        tally: Counter[str] = Counter()
        for owner in owned:
            tally.update(makers.get(owner, Counter()))
        tally.pop(tool, None)
        if tally:
            return tally.most_common(1)[0][0]
    return None


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


__all__ = ["MOVES", "YARDSTICK", "explore", "made_first", "read_back", "read_only_tools"]
