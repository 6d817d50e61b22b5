"""Real-first tasks: walks run on the implementation itself, the synthesized model only suggests.

On a bound class or a live server the model's rows are guesses; a task planned on them books a
flight the real tools refuse. Here every step runs on a fresh real episode. What the implementation
answers to its own reads (no arguments needed) is harvested once: the records its answers hold and
the values under each member name. A task is then a read whose answer lists records, one record
picked by a decisive condition over the real answer (the unique largest or smallest number of a
field, or the one a unique text names), a write on that record (its argument drawn from the
record), and, where the write's answer holds an id another write takes, that second write: a write
conditioned on a read, in two or three calls. Whether a call wrote is what the state hash says, not
what the model guessed; the goal is the real final state.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from envfactory.ir.effect import SingletonEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Call, Goal, Origin, Task
from envfactory.real.keypool import identifying
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.owner import owner_state
from envfactory.seeding import derive_seed
from envfactory.synth.naming import credential
from envfactory.synth.session import ENTITY as SESSION
from envfactory.tasks.errors import Rejected
from envfactory.values import ValueMaker
from envfactory.words import tokens

JSON = dict[str, Any]
READ_KINDS = frozenset({"read", "list", "count", "dump", "compute", "simulated"})
MAX_TEXT = 40  # a text that names a record is short
RANKS = 5  # "the third highest priority": a sort, then a pick
ORDINALS = ("", "second", "third", "fourth", "fifth")
CHAINED = 0.8  # the share of walks that try a second write
TRIES = 6  # writes tried within one attempt
MAX_GATHER = 12  # the most records read one by one to compare them
WALKED = "real-first/1"  # the generator of a walk's tasks
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


@dataclass(frozen=True)
class Records:
    """Records a read answered (dicts of at least two members, at least two of them)."""

    tool: str
    args: tuple[tuple[str, Any], ...]
    rows: tuple[JSON, ...]
    via: str | None = None  # gathered: the read that lists them, then ``calls`` read each
    calls: tuple[Call, ...] = ()
    listed: str = ""  # the member of ``via``'s answer that lists them


def session_tools(spec: EnvSpec) -> frozenset[str]:
    return frozenset(b.tool for b in spec.behaviours
                     if isinstance(b.effect, SingletonEffect) and b.effect.entity == SESSION)  # fmt: skip


def records_in(data: Any) -> Iterator[list[JSON]]:
    """Lists of records anywhere in an answer (a mapping of id -> record counts as one)."""
    if isinstance(data, list):
        rows = [r for r in data if isinstance(r, dict) and len(r) >= 2]
        if len(rows) >= 2:
            yield rows
        for item in data:
            if isinstance(item, (dict, list)):
                yield from records_in(item)
    elif isinstance(data, dict):
        values = list(data.values())
        rows = [v for v in values if isinstance(v, dict) and len(v) >= 2]
        if len(rows) >= 2 and len(rows) == len(values):
            yield [{**r, **({"id": k} if "id" not in r else {})} for k, r in zip(data, values, strict=True)]
        for value in values:
            if isinstance(value, (dict, list)):
                yield from records_in(value)


def harvest_values(data: Any, into: dict[str, list[Any]], under: str = "") -> None:
    """Scalars of an answer under the member names that hold them (a list's items under its own)."""
    if isinstance(data, dict):
        for key, value in data.items():
            harvest_values(value, into, str(key))
    elif isinstance(data, list):
        for item in data:
            harvest_values(item, into, under)
    elif under and isinstance(data, (str, int, float)) and not isinstance(data, bool):
        seen = into.setdefault(under, [])
        if data not in seen:
            seen.append(data)


def _scalar_lists(data: Any, tool: str) -> Iterator[tuple[str, list[Any]]]:
    """Short lists of distinct scalars in an answer (2 to 12: what a person reads through)."""
    found = [(tool, data)] if isinstance(data, list) else [(k, v) for k, v in data.items() if isinstance(v, list)]
    for member, items in found:
        plain = all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in items)
        if 2 <= len(items) <= MAX_GATHER and plain and len(set(items)) == len(items):
            yield str(member), list(items)


def _names(field: str, arg: str, recs: Records) -> bool:
    """A member that names its record (an id, a symbol), not an amount that happens to share a name."""
    return identifying(arg) or isinstance(recs.rows[0].get(field), str)


def fits(field: str, arg: str) -> bool:
    """A record's member that can feed an argument: the same name, or its ``id`` feeding ``ticket_id``."""
    if field == arg:
        return True
    words, arg_words = tokens(field), tokens(arg)
    if _handle(field) and _handle(arg):
        # ``id`` for ``ticket_id`` or ``task_ref``, a ``user_id`` for ``receiver_id``: the real side accepts it or not
        return True
    if identifying(field) and len(arg_words) > len(words) and arg_words[: len(words)] == words:
        return True  # a ``username`` for ``username_to_follow``
    return len(words) > 1 and words == arg_words


class RealWalker:
    """Real-first tasks of one real environment (harvested once, then a pure function of
    ``(seed, attempt)`` like every task)."""

    def __init__(self, real: Environment, model: EnvSpec) -> None:
        self.real, self.model = real, model
        skip = session_tools(model)
        self.reads = {b.tool for b in model.behaviours if b.effect.kind in READ_KINDS} - skip
        self.episode = real.episode(max_steps=10**6)
        self.values: dict[str, list[Any]] = {}
        self.lists: list[Records] = []
        self.scalars: list[tuple[str, str, list[Any]]] = []  # (tool, member, a short list of values)
        for key, value in self._own_account().items():
            if isinstance(value, (str, int)) and not isinstance(value, bool) and not key.startswith("_"):
                self.values.setdefault(key, [value])
        for tool in sorted(model.tools.names):  # the state hash says which of the others only read
            if tool not in skip and not model.tools[tool].required and self._harvest(tool, {}) != "wrote":
                self.reads.add(tool)
        for tool in sorted(self.reads):  # reads whose required arguments the first answers fill
            spec = model.tools[tool]
            if spec.required and all(self.values.get(a) for a in spec.required):
                for i in range(2):
                    self._harvest(tool, {a: self.values[a][i % len(self.values[a])] for a in spec.required})
        self._gather()
        self.writes = sorted(t for t in model.tools.names if t not in self.reads and t not in skip)
        self.effects = {b.tool: b.effect for b in model.behaviours}
        self.said = own_sentences({t: model.tools[t].description for t in model.tools.names})

    def _own_account(self) -> JSON:
        """What the user knows of their own account (a username, a password): a bound object's
        state, or a synthesized environment's session."""
        owner = self.episode._ctx.owner
        if owner is not None and not callable(getattr(owner, "state", None)):
            state = owner_state(owner)
            return state if isinstance(state, dict) else {}
        if SESSION in self.model.state_schema.names:
            rows = list(self.episode.store.rows(SESSION))
            return dict(rows[0]) if rows else {}
        return {}

    def _harvest(self, tool: str, args: JSON) -> str:
        """Call one tool on a fresh real episode; keep what it answered (``wrote``: it changed the state)."""
        self.episode.reset()
        before = self.episode.state_hash()
        result = self.episode.call_tool(tool, args)
        if self.episode.state_hash() != before:
            return "wrote"
        if not result.ok:
            return "refused"
        harvest_values(result.data, self.values)
        for rows in records_in(result.data):
            self.lists.append(Records(tool, tuple(sorted(args.items())), tuple(rows)))
        if not args and isinstance(result.data, (dict, list)):
            for member, items in _scalar_lists(result.data, tool):
                self.scalars.append((tool, member, items))
        return "read"

    def _gather(self) -> None:
        """Records a read of one thing answers, gathered over a short list another read gives
        (the stocks on a watchlist, each read by its symbol): the task then reads them all."""
        for tool in sorted(self.reads):
            spec = self.model.tools[tool]
            if len(spec.required) != 1:
                continue
            arg = spec.required[0]
            for source, member, items in self.scalars:
                rows = []
                for item in items:
                    self.episode.reset()
                    result = self.episode.call_tool(tool, {arg: item})
                    if not result.ok or not isinstance(result.data, dict) or not result.data:
                        break
                    rows.append({arg: item, **result.data})
                if len(rows) == len(items):
                    calls = tuple(Call(tool=tool, args={arg: item}) for item in items)
                    self.lists.append(Records(tool, (), tuple(rows), via=source, calls=calls, listed=member))

    # -- one task ----------------------------------------------------------------------------
    def task(self, seed: int, attempt: int) -> Task:
        rng = random.Random(derive_seed(seed, "real-first", attempt))
        maker = ValueMaker(derive_seed(seed, "real-first-values", attempt), self.model.config.clock_start, brief=True)
        options = [(w, arg, recs) for w in self.writes for arg in self.model.tools[w].required
                   for recs in self.lists if self._refers(w, arg, recs.tool)
                   and any(fits(f, arg) and _names(f, arg, recs) for f in recs.rows[0])]  # fmt: skip
        if not options:
            raise Rejected("no write takes a value the real reads answer")
        rng.shuffle(options)
        why = Rejected("no write takes a value the real reads answer")
        for write, arg, recs in options[:TRIES]:  # a write the real side refuses: the next one, in the same attempt
            try:
                return self._walk(seed, attempt, write, arg, recs, rng, maker)
            except Rejected as err:
                why = err
        raise why

    def _refers(self, write: str, arg: str, read: str | None = None) -> bool:
        """Whether ``arg`` of ``write`` can name a record picked from what ``read`` answered, as the
        model sees them: not a value a write stores (a copy of another record's title or due date
        is no act on it) unless it refers to another record (a parent's id), and a write's own key
        only for a record of the entity it writes."""
        effect = self.effects.get(write)
        if effect is None:
            return True
        entity = self._entity(write)
        schema = self.model.state_schema
        refs = schema[entity].refs if isinstance(entity, str) and entity in schema else {}
        stored = getattr(effect, "args", {})
        if arg in stored:
            return _handle(arg) or stored[arg] in refs
        if read is not None and arg == getattr(effect, "key_arg", None):
            listed = self._entity(read)
            return listed is None or entity is None or listed == entity
        return True

    def _walk(self, seed: int, attempt: int, write: str, arg: str, recs: Records, rng: random.Random,
              maker: ValueMaker) -> Task:  # fmt: skip
        field = next(f for f in recs.rows[0] if fits(f, arg))
        row, condition, member = self._pick(recs, field, rng)
        if row[field] in dict(recs.args).values():  # the author of a user's tweets is that user: nothing read
            raise Rejected(f"{write} would take {row[field]!r}, which the read was asked with")
        if recs.via:  # the records read one by one; a text naming the listed item itself needs its one read
            calls = [c for c in recs.calls if member in c.args and c.args[member] == row[member]] or list(recs.calls)
            gold = [Call(tool=recs.via, args={}), *calls]
        else:
            gold = [Call(tool=recs.tool, args=dict(recs.args))]
        reads = len(gold)
        gold.append(Call(tool=write, args=self._arguments(write, {arg: row[field]}, rng, maker, row)))
        episode = self.episode
        episode.reset(seed=attempt)  # a roll back of the last walk: in time proportional to what it changed
        start = self._run(episode, gold)
        fed = [(arg, field)]
        chaining = rng.random() < CHAINED
        chained = self._chain(episode, gold, rng, maker, row) if chaining else None
        if chained is not None and episode.state_hash() == start:  # it undid the first (deleted what it sent)
            episode.reset(seed=attempt)
            self._run(episode, gold)
            chained = None  # the first write kept, and a write on a second record tried instead
        other: tuple[int, str] | None = None
        if chained is not None:
            gold.append(chained[0])
            fed.append(chained[1:])
        elif chaining and not recs.via and (another := self._another(episode, recs, row, rng, maker)) is not None:
            other = (len(gold) - reads, another[3])  # a second record of the same answer
            gold.append(another[0])
            fed.append(another[1:3])
        final = episode.state_hash()
        if final == start:
            raise Rejected("the real implementation's state did not change")
        instruction = self._instruction(recs, condition, gold[reads:], fed, other)
        name = self.model.name
        return Task(env=name, id=f"{name}-{seed}-{attempt}", seed=attempt, instruction=instruction,
                    gold=tuple(gold), goal=Goal(state_hash=final), max_steps=2 * len(gold) + 6,
                    difficulty=float(len(gold)), level=min(5, len(gold)),
                    origin=Origin(generator=WALKED, seed=seed, attempt=attempt))  # fmt: skip

    def _pick(self, recs: Records, field: str, rng: random.Random) -> tuple[JSON, str, str]:
        """One record, the words that single it out (never the value fed on), and the member they use."""
        options = self._conditions(recs, field)
        if not options:
            raise Rejected("no record of the real answer can be singled out")
        # a person names a record by what it is called or holds, not by the second it was stamped at
        named = [o for o in options if not _stamped(o)]
        return rng.choice(named or options)

    def _conditions(self, recs: Records, field: str) -> list[tuple[JSON, str, str]]:
        """Every record a decisive condition singles out: (record, the words, the member they use)."""
        rows = [r for r in recs.rows if r.get(field) is not None and not isinstance(r.get(field), (dict, list))]
        options: list[tuple[JSON, str, str]] = []
        members = sorted({k for r in rows for k in r if k != field and k != "id"})
        for member in members:
            values: list[Any] = [r.get(member) for r in rows]
            said = " ".join(tokens(member))
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) and len(set(values)) > 1:
                ranked = sorted(set(values))
                for rank in range(min(RANKS, len(ranked) // 2)):
                    for best, word in ((ranked[-1 - rank], "highest"), (ranked[rank], "lowest")):
                        if values.count(best) == 1:
                            place = f"{ORDINALS[rank]} " if rank else ""
                            options.append((rows[values.index(best)], f"the one with the {place}{word} {said}", member))
            texts = [v for v in values if isinstance(v, str) and 0 < len(v) <= MAX_TEXT]
            for text in sorted(set(texts)):
                if texts.count(text) == 1 and len(texts) == len(values) and len(set(texts)) > 1:
                    options.append((rows[values.index(text)], f"the one whose {said} is {text!r}", member))
        return options

    def _another(self, episode: Episode, recs: Records, first: JSON, rng: random.Random,
                 maker: ValueMaker) -> tuple[Call, str, str, str] | None:  # fmt: skip
        """A write on a second record of the same answer, one a short text it alone holds singles
        out (a rank could move with the first write): the call, the argument fed, the member it
        took and the condition."""
        pairs = [(w, arg, f) for w in self.writes for arg in self.model.tools[w].required
                 if self._refers(w, arg, recs.tool)
                 for f in recs.rows[0] if fits(f, arg) and _names(f, arg, recs)]  # fmt: skip
        rng.shuffle(pairs)
        for write, arg, field in pairs[:3]:
            picks = [
                o for o in self._conditions(recs, field) if o[0] != first and " whose " in o[1] and not _stamped(o)
            ]
            if not picks:
                continue
            row, condition, _ = rng.choice(picks)
            call = Call(tool=write, args=self._arguments(write, {arg: row[field]}, rng, maker, row))
            before = episode.state_hash()
            result = episode.call_tool(call.tool, call.args)
            if result.ok and episode.state_hash() != before:
                return call, arg, field, condition
            if episode.state_hash() != before:
                raise Rejected(f"{write} was refused after changing the real state")
        return None

    def _arguments(
        self, tool: str, given: JSON, rng: random.Random, maker: ValueMaker, row: JSON | None = None
    ) -> JSON:
        """Required arguments: those fed, then values the implementation answered under that name
        (a credential, a user's own name), then values drawn from the schema."""
        spec = self.model.tools[tool]
        args = dict(given)
        for arg in spec.required:
            if arg in args:
                continue
            prop = spec.properties.get(arg) or {}
            known = self.values.get(arg)
            if known:
                args[arg] = rng.choice(known)
            elif prop.get("type") == "object" and not prop.get("properties") and row:
                args[arg] = self._changes(row, rng, maker)  # ``updates``: new values for the record's members
            else:
                args[arg] = maker.value(prop, arg, "")
        return args

    @staticmethod
    def _changes(row: JSON, rng: random.Random, maker: ValueMaker) -> JSON:
        members = sorted(
            k for k, v in row.items() if k != "id" and isinstance(v, (str, int)) and not isinstance(v, bool)
        )
        if not members:
            raise Rejected("the record has nothing to change")
        member = rng.choice(members)
        old = row[member]
        new: Any = old + rng.randint(1, 9) if isinstance(old, int) else maker.value({"type": "string"}, member, "")
        return {member: new}

    def _run(self, episode: Episode, gold: list[Call]) -> str:
        """Run the gold calls on the real episode; every call must be accepted, the last must write."""
        before = start = episode.state_hash()
        for call in gold:
            before = episode.state_hash()
            result = episode.call_tool(call.tool, call.args)
            if not result.ok:
                raise Rejected(f"the real implementation refuses {call.tool}: {result.content[:100]}")
        if episode.state_hash() == before:
            raise Rejected(f"{gold[-1].tool} did not change the real state")
        return start

    def _chain(self, episode: Episode, gold: list[Call], rng: random.Random,
               maker: ValueMaker, row: JSON) -> tuple[Call, str, str] | None:  # fmt: skip
        """A second write that takes what the first one answered (the id it minted), or acts on
        the same record."""
        answer = episode.log[-1][2].data if episode.log and episode.log[-1][2] is not None else None
        asked = list(gold[0].args.values())  # what the read was asked with is said already
        minted: dict[str, list[Any]] = {}
        harvest_values(answer, minted)
        for key, value in row.items():
            if not isinstance(value, (dict, list)):
                minted.setdefault(key, [value])
        options = [(w, arg, key) for w in self.writes if w != gold[-1].tool
                   for arg in self.model.tools[w].required if self._refers(w, arg, gold[-1].tool)
                   for key in sorted(minted) if fits(key, arg) and minted[key][0] not in asked]  # fmt: skip
        rng.shuffle(options)
        for write, arg, key in options[:4]:
            call = Call(tool=write, args=self._arguments(write, {arg: minted[key][0]}, rng, maker, row))
            before = episode.state_hash()
            result = episode.call_tool(call.tool, call.args)
            if result.ok and episode.state_hash() != before:
                return call, arg, key
            if episode.state_hash() != before:
                raise Rejected(f"{write} was refused after changing the real state")
        return None

    def _instruction(self, recs: Records, condition: str, writes: list[Call], fed: list[tuple[str, str]],
                     other: tuple[int, str] | None = None) -> str:  # fmt: skip
        """What the user asks: the read, the condition, each write with what it is told (never the
        id a read or a write answered: ``fed``, per write the argument and the member it took).
        Where the record's noun is known and the write's description acts on "a <noun>", a person's
        sentence: "Find the task whose slug is 'rock' and mark it as done." """
        listed = self._entity(recs.tool)
        noun = " ".join(tokens(listed)) if listed else None  # what the model calls them: "task", "sync conflict"
        # a create of the record's own kind speaks of the one it makes ("Create a task"), not of "it"
        acts = [None if _makes(self.effects.get(c.tool), listed) else _on_it(self.said.get(c.tool) or "", noun)
                for c in writes]  # fmt: skip
        plain = noun is not None and not recs.via and _given(*fed[0]) == "it" and acts[0] is not None
        parts = [self._opening(recs, condition, noun if plain else None, acts[0], writes[0], fed[0][0])]
        for i, call in enumerate(writes):
            if i > 0 or not plain:
                parts.append(self._then(i, call, writes, fed, acts[i], noun, plain, other))
        credentials = {a: v for c in writes for a, v in c.args.items() if credential(a)}
        parts += [f"My {' '.join(tokens(a))} is {v!r}." for a, v in credentials.items()]
        return " ".join(parts)

    @staticmethod
    def _opening(recs: Records, condition: str, noun: str | None, act: str | None, first: Call, fed: str) -> str:
        """The first sentence: find the record (with the first write, where ``noun`` is said plainly),
        or go through what a read shows and take the one the condition names."""
        if noun is not None and act is not None:
            asked = " and ".join(f"{' '.join(tokens(k))} {v!r}" for k, v in recs.args if not credential(k))
            of = f" of {asked}" if asked else ""  # "the tweet of username 'analyst_pro' whose content is ..."
            which = condition.replace("the one", f"the {noun}{of}", 1)
            return f"Find {which} and {act}{_told(first, fed)}."
        if recs.via:
            return (f"Go through the {' '.join(tokens(recs.listed))} that {' '.join(tokens(recs.via))!r} shows, look "
                    f"each of them up with {' '.join(tokens(recs.tool))!r}, and take {condition}.")  # fmt: skip
        asked = "".join(f", {' '.join(tokens(k))} {v!r}" for k, v in recs.args if not credential(k))
        return f"Look through what {' '.join(tokens(recs.tool))!r} shows{asked}, and take {condition}."

    def _then(self, i: int, call: Call, writes: list[Call], fed: list[tuple[str, str]], act: str | None,
              noun: str | None, plain: bool, other: tuple[int, str] | None) -> str:  # fmt: skip
        """The sentence of the ``i``-th write: on the same record, on what a write gave back, or on a
        second record of the same answer (``other``: its index and condition)."""
        arg, member = fed[i]
        what = self.said.get(call.tool) or " ".join(tokens(call.tool))
        what = what[:1].lower() + what[1:]
        same = i == 0 or call.args.get(arg) == writes[0].args.get(fed[0][0])
        tail, given = _told(call, arg), _given(arg, member)
        if other is not None and other[0] == i:  # a second record of the same answer
            which = other[1].replace("the one", f"the {noun}", 1) if noun else other[1]
            if plain and given == "it" and act is not None:
                return f"Then find {which} and {act}{tail}."
            return f"After that, take {other[1]} from the same list, and with {given}: {what}{tail}."
        if plain and same and given == "it" and act is not None:
            return f"Then {act}{tail}."
        if i == 0:
            lead = f"Then, with {given}"
        elif same:
            lead = "After that, with the same one" + ("" if given == "it" else f" ({given})")
        else:
            lead = "After that, with what that gave back" + ("" if given == "it" else f" ({given})")
        return f"{lead}: {what}{tail}."

    def _entity(self, tool: str) -> str | None:
        """The entity ``tool`` reads or writes, as the model sees it."""
        entity = getattr(self.effects.get(tool), "entity", None)
        return entity if isinstance(entity, str) and entity else None


def _stamped(option: tuple[JSON, str, str]) -> bool:
    """Whether a condition names its record by a time stamp (the second it was made at)."""
    row, _, member = option
    return _STAMP.match(str(row.get(member))) is not None


def _told(call: Call, fed: str) -> str:
    """The values a write is told beside the record: `` (due '2026-01-31')``; an object of changes
    by its members (`` (description 'Printer jams')``, not ``updates {'description': ...}``)."""
    told = [(m, w) for a, v in call.args.items() if a != fed and not credential(a)
            for m, w in (v.items() if isinstance(v, dict) and v else [(a, v)])]  # fmt: skip
    said = [f"{' '.join(tokens(str(a)))} {v!r}" for a, v in told]
    return f" ({', '.join(said)})" if said else ""


def _on_it(sentence: str, noun: str | None) -> str | None:
    """A write's own sentence said of the record at hand: "Mark a task as done" -> "mark it as
    done", "Set or change a task's due date" -> "set or change its due date"; None where it does
    not act on "a <noun>"."""
    if not noun or not sentence:
        return None
    # "a task", "an existing task's", "a specific context"; not "a new task" (that is another one)
    pattern = rf"\b(?:an?|the|one|this)\s+(?:(?!new\b)[a-z]+\s+)?{re.escape(noun)}(?P<own>'s)?\b"
    match = re.search(pattern, sentence, re.IGNORECASE)
    if match is None:
        return None
    said = sentence[: match.start()] + ("its" if match.group("own") else "it") + sentence[match.end() :]
    said = re.sub(r"\s*\([^()]*\)\s*$", "", said)  # "mark it as in-review (submit for review)": the aside
    return said[0].lower() + said[1:]


def _handle(name: str) -> bool:
    return tokens(name)[-1:] in [(w,) for w in HANDLES]


def _given(arg: str, field: str) -> str:
    """What a write is given of the record picked: "it" for its handle given as a handle
    (``id`` -> ``task_id``), else the member and the argument it fills ("its slug as the parent",
    "its title")."""
    if _handle(arg) and _handle(field):
        return "it"
    member, place = " ".join(tokens(field)), " ".join(tokens(arg))
    return f"its {member}" if member == place else f"its {member} as the {place}"


HANDLES = frozenset({"id", "key", "ref", "uid", "uuid"})


def own_sentences(descriptions: dict[str, str]) -> dict[str, str]:
    """Each tool's first sentence that says what it does: not one most of the tools' descriptions
    share (``"This tool belongs to the Message API, which ..."`` opening every one of them), nor
    the label it opens with."""
    split = {t: [s.strip().rstrip(":") for s in (d or "").strip().split(".") if s.strip()]
             for t, d in descriptions.items()}  # fmt: skip
    held = Counter(s for sentences in split.values() for s in set(sentences))
    shared = {s for s, n in held.items() if n >= 2 and n * 2 >= len(descriptions)}
    return {t: _unlabelled(next((s for s in sentences if s not in shared), "")) for t, sentences in split.items()}


def _unlabelled(sentence: str) -> str:
    """A sentence without the short label it opens with (``"Tool description: Send a message"``: a
    sentence of its own after it, not ``"List users: every one of them"``), nor the symbols (an
    emoji) before its first word."""
    sentence = re.sub(r"^[^\w\"'`(]+", "", sentence)
    label, colon, rest = sentence.partition(":")
    return rest.strip() if colon and rest.strip()[:1].isupper() and len(label.split()) <= 3 else sentence


def _makes(effect: Any, entity: str | None) -> bool:
    """Whether a write makes records of ``entity`` (a create, one or many)."""
    return entity is not None and getattr(effect, "kind", None) in ("create", "create_many") and effect.entity == entity


__all__ = ["WALKED", "RealWalker", "fits", "harvest_values", "own_sentences", "records_in"]
