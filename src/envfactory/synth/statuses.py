"""Statuses read from prose: the values a record's status takes, and what each action needs and sets.

Descriptions say what a status is even when no schema declares it: "Cancel a *pending* order",
"The status of the order will be changed to 'cancelled'", "If the order is already processed or
delivered, it cannot be cancelled", "only while the ticket is open", "marks the invoice as paid".
:func:`said_rule` reads one tool's name and description into a :class:`Said` — the value it sets
(``to``), the values it needs (``allowed``) and the values that refuse it (``forbidden``) — by the
shapes of such sentences, never by one tool set's words:

- *sets*: ``status``/``state`` … ``changed``/``set``/``updated``/``moved``/``becomes`` … ``to X``;
  ``marks … as X``; ``sets``/``moves``/``puts`` a record ``to``/``into``/``as`` a state word;
- *needs*: a state word before the record's noun, in the name or the opening words
  (``cancel_pending_order``, "Cancel a pending order"); a sentence saying ``only`` … ``if``/``when``/
  ``while`` … X;
- *refused*: the state words of a sentence that says it cannot be done (``cannot``, ``can't``,
  ``may not``, ``not allowed``, ``not possible``), and ``not yet X``.

A *state word* is a quoted value of such a sentence, or one of the words statuses are usually
spelled with (:data:`STATE_WORDS`). :func:`statuses_follow_prose` gives an entity that has no
status field one, whose values are every state word its tools' prose says, so the actions can
be what they say they are.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import Entity, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import tokens
from envfactory.synth.transitions import FINISHED, STATUS_FIELDS, TERMINAL, TRANSITIONS

JSON = dict[str, Any]
_INITIAL = ("pending", "open", "new", "draft", "active", "placed", "requested", "scheduled", "submitted")
STATE_WORDS = frozenset(
    {
        *TERMINAL,
        *FINISHED,
        *_INITIAL,
        *(t for targets, _ in TRANSITIONS.values() for t in targets),
        *(a for _, allowed in TRANSITIONS.values() for a in allowed or ()),
        "processed",
        "processing",
        "in_progress",
        "on_hold",
        "overdue",
        "approved",
        "paid",
        "unpaid",
        "shipped",
        "booked",
        "confirmed",
        "void",
        "voided",
    }
)
# a quoted word, but not a member's name in a sketch of the reply (``{"ok": true, "task": {...}}``)
_QUOTED = r"['\"“‘]([A-Za-z][A-Za-z _-]{0,30}?)['\"”’](?!\s*:)"
_SETS = (
    re.compile(r"\b(?:status|state|stage)\b[^.;]{0,60}?\b(?:changed|set|updated|moved|switched|changes|becomes|become|"
               r"turns|goes)\s+(?:back\s+)?(?:to|into)?\s*" + _QUOTED, re.I),
    re.compile(r"\b(?:status|state|stage)\b[^.;]{0,60}?\b(?:changed|set|updated|moved|switched|changes|becomes|"
               r"become)\s+(?:back\s+)?(?:to|into)\s+(?:the\s+)?([a-z][a-z_-]{1,30})\b", re.I),
)  # fmt: skip
# "Resolve a blocker and set task to in_progress", "moves the card into 'done'": a record set to a state
_SET_TO = re.compile(
    r"\b(?:set|sets|setting|move|moves|moving|put|puts|switch|switches)\s+(?:(?:the|a|an|its|this)\s+)?"
    r"(?:[a-z][\w-]*\s+){0,2}?(?:to|into|as)\s+['\"“‘]?([a-z][a-z_ -]{1,30}?)['\"”’]?(?=[\s.,;:)]|$)",
    re.I,
)
_BACK_TO = re.compile(r"\b(?:back|returns?|reverts?)\s+to\s+(?:the\s+)?['\"“‘]?([a-z][a-z_-]{1,30})", re.I)
_MARKS = re.compile(r"\bmarks?\s+((?:['\"“‘]?[A-Za-z][\w-]*['\"”’]?\s*){1,5})", re.I)  # "marks the invoice as paid"
_REFUSES = re.compile(
    r"\b(?:cannot|can't|can ?not|may not|must not|not allowed|not possible|is refused|fails?)\b", re.I
)
_ONLY = re.compile(r"\bonly\b[^.;]{0,40}?\b(?:if|when|while|for)\b", re.I)
_NOT_YET = re.compile(r"\bnot\s+(?:yet|already)\s+([a-z][a-z_-]{1,30})\b", re.I)


@dataclass(frozen=True)
class Said:
    """What a tool's prose says of a status: the value it sets, the values it needs, those that refuse it."""

    to: str | None = None
    allowed: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(v for v in (self.to, *self.allowed, *self.forbidden) if v))

    def __bool__(self) -> bool:
        return bool(self.values)


def said_rule(tool: ToolSpec, noun: str | None = None) -> Said:
    """What ``tool``'s name and description say of its record's status (see the module docstring);
    ``noun`` is the record's (``order``), whose preceding word in the name may be a state. Read once
    per name, description and noun: intents, the schema and the effects all ask."""
    return _said(tool.name, tool.description or "", noun)


@functools.lru_cache(maxsize=4096)
def _said(name: str, text: str, noun: str | None) -> Said:
    sentences = [s for s in re.split(r"(?<=[.!?;])\s+|\n+", text) if s.strip()]
    quoted = {_spelled(q) for q in re.findall(_QUOTED, text)}
    words = STATE_WORDS | quoted | {_key(q) for q in quoted}
    to = next((_spelled(next(g for g in m.groups() if g)) for p in _SETS for m in p.finditer(text)), None)
    if to is not None and to not in words and _key(to) not in words:
        to = None  # "the state is changed to the next one": no value said
    to = to or _marked(text, words) or _back_to(text, words) or _set_to(text, words)
    allowed: list[str] = _before_noun(tokens(name), noun, words)
    opening = _words(sentences[0]) if sentences else []
    allowed += _before_noun(opening[:6], noun, words)
    forbidden: list[str] = []
    for sentence in sentences:
        found = [w for w in _states(sentence, words) if w != to]
        if _REFUSES.search(sentence):
            forbidden += found
        elif _ONLY.search(sentence):
            allowed += found
        forbidden += [_spelled(w) for w in _NOT_YET.findall(sentence) if _spelled(w) in words]
    allowed_t = tuple(dict.fromkeys(a for a in allowed if a != to and a not in forbidden))
    return Said(to=to, allowed=allowed_t,
                forbidden=tuple(dict.fromkeys(f for f in forbidden if f != to)))  # fmt: skip


def _back_to(text: str, words: frozenset[str] | set[str]) -> str | None:
    """ "Reset a task back to pending": the state word it goes back to."""
    return next((_spelled(m.group(1)) for m in _BACK_TO.finditer(text) if _spelled(m.group(1)) in words), None)


def _set_to(text: str, words: frozenset[str] | set[str]) -> str | None:
    """ "Resolve a blocker and set task to in_progress": the state word a record is set or moved to."""
    for match in _SET_TO.finditer(text):
        said = _spelled(match.group(1))
        for value in (said, said.split()[0]):  # "set it to done when ...": the state word alone
            if value in words or _key(value) in words:
                return value
    return None


def _marked(text: str, words: frozenset[str] | set[str]) -> str | None:
    """ "Mark a task done", "Marks the invoice as 'paid'": the first state word after *mark*."""
    for match in _MARKS.finditer(text):
        said = [_spelled(w.strip("'\"“”‘’.,;:()")) for w in match.group(1).split()]
        if "as" in said and said.index("as") + 1 < len(said):  # "mark a task as in-review": what it is marked as
            named = said[said.index("as") + 1]
            if named not in ("a", "an", "the", "it") and re.fullmatch(r"[a-z][a-z_-]*", named):
                return named
        found = next((w for w in said if w in words or _key(w) in words), None)
        if found is not None:
            return found
    return None


def _before_noun(words: list[str] | tuple[str, ...], noun: str | None, states: frozenset[str] | set[str]) -> list[str]:
    """``cancel_pending_order``: the state words just before the record's noun."""
    if not noun:
        return []
    head = tokens(noun)[:1]
    at = next((i for i, w in enumerate(words) if head and w == head[0]), None)
    out: list[str] = []
    before = list(words[1:at]) if at else []  # the first word is the deed (``complete_task``), not a state
    while before and (before[-1] in states or (before[-1] in ("or", "and") and out)):
        word = before.pop()
        if word in states:
            out.insert(0, word)
    return out


def _states(sentence: str, words: frozenset[str] | set[str]) -> list[str]:
    quoted = [_spelled(q) for q in re.findall(_QUOTED, sentence)]
    plain = [w for w in _words(sentence) if w in words]
    return list(dict.fromkeys([*(q for q in quoted if q in words), *plain]))


def _words(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z_-]*", text)]


def _spelled(value: str) -> str:
    """A state as the prose spells it, in lower case (``'Return Requested'`` -> ``return requested``)."""
    return " ".join(value.strip().lower().split())


def _key(value: str) -> str:
    return _spelled(value).replace("-", "_").replace(" ", "_")


def same_state(value: str, said: str) -> bool:
    """Whether two spellings are one state (``in_progress``, ``In Progress``, ``in-progress``)."""
    return _key(value) == _key(said)


Transition = tuple[str, tuple[str, ...] | None, tuple[str, ...]]  # to, allowed from (None: any), forbidden from


def said_transition(said: Said, enum: list[Any] | None, found: Transition | None) -> Transition | None:
    """The transition the prose states, on a status of values ``enum``, over the one the verb implies
    (``found``: :func:`~envfactory.synth.transitions.transition_for`): the value it sets, where the
    enum holds it; the values it needs and those that refuse it, spelled as the enum spells them."""
    spelled = {_key(str(v)): str(v) for v in enum or ()}
    if not spelled and said.to:  # a free-text status: the value the prose names, not the verb's guess
        return said.to, None, tuple(dict.fromkeys([*said.forbidden, *(found[2] if found else ())]))
    to = spelled.get(_key(said.to)) if said.to else None
    if to is None and found is None:
        return None
    to = to if to is not None else found[0]  # type: ignore[index]
    allowed = tuple(spelled[_key(a)] for a in said.allowed if _key(a) in spelled and spelled[_key(a)] != to)
    forbidden = tuple(spelled[_key(f)] for f in said.forbidden if _key(f) in spelled and spelled[_key(f)] != to)
    if allowed:
        return to, allowed, ()
    if forbidden:
        return to, None, tuple(dict.fromkeys([*forbidden, *(found[2] if found else ())]))
    if found is not None and found[0] == to:
        return found
    return to, None, tuple(v for k, v in spelled.items() if k in TERMINAL and v != to)


def statuses_follow_prose(schema: StateSchema, said: dict[str, list[Said]],
                          verbs: dict[str, list[str]] | None = None) -> StateSchema:  # fmt: skip
    """Each entity with no status field, whose tools' prose (``said``: entity -> what each tool
    said) sets a status, given ``status`` with every value said, the ones records start in first;
    and, for each of its actions (``verbs``: entity -> their verbs) whose value no prose said
    (``cancel_task`` beside "Mark a task as done"), the value the verb sets (``cancelled``). Where
    no prose says one, the actions alone give it, if they set two values or more (``timer_pause``,
    ``timer_resume``, ``timer_cancel``: ``active``, ``paused``, ``cancelled``) and the entity holds
    no enum or flag such a verb might set instead (``locked``)."""
    grown = []
    for entity in schema.entities:
        rules = [s for s in said.get(entity.name, ()) if s]
        values = list(dict.fromkeys(v for r in rules for v in r.values))
        acted = (verbs or {}).get(entity.name, ())
        if _has_status(entity) or (not any(r.to for r in rules) and (not acted or _flagged(entity))):
            grown.append(entity)
            continue
        for verb in acted:
            targets = TRANSITIONS.get(verb, ((),))[0]
            if targets and not {_key(v) for v in values} & set(targets):
                values.append(targets[0])
        if len(values) < 2:
            grown.append(entity)  # one value said is no status a record moves between
            continue
        values.sort(key=lambda v: (v not in _INITIAL and not any(v in r.allowed for r in rules), v in TERMINAL))
        field: JSON = {"type": "string", "enum": values, "description": "read from the tools' descriptions"}
        grown.append(entity.model_copy(update={"fields": {**entity.fields, "status": field}}))
    return StateSchema(entities=tuple(grown))


def _flagged(entity: Entity) -> bool:
    """Whether the entity holds an enum or a flag (a state an action may set instead of a status)."""
    return any(enum_values(f) or primary_type(f) == "boolean" for f in entity.fields.values())


def _has_status(entity: Entity) -> bool:
    return any(tokens(f)[-1:] and tokens(f)[-1] in STATUS_FIELDS for f in entity.fields)


__all__ = ["STATE_WORDS", "Said", "said_rule", "said_transition", "same_state", "statuses_follow_prose"]
