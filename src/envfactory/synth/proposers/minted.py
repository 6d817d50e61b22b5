"""The keys a create mints, worded as the real side words them: ``s03``, ``T-0007``, ``s01t02``.

A create whose real replies answer, where the model's reply holds the key it minted, a text ending
in a number — the same text before it every time (``s``, ``T-``) — mints keys so worded
(``KeyFormat``): that text, then 1 + the largest number such a key holds. Where the text before the
number is instead, for a record given a value in a field an argument fills, that value and the same
few characters (a subtask ``s01t02`` of ``s01``), the keys are scoped by that field: numbered among
the records sharing the value. The records the model starts with are keyed anew in the order they
were made, and the setup calls that named them by the real side's keys — refused by the model
before, which held none of them — are made again.

A create whose replies show instead an argument's text made a slug (``team-present`` of "Team
Present", ``Projects/write-the-report.md``) makes its keys so (``KeySlug``): ``slug-keys``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from envfactory.ir.effect import CreateEffect, KeyFormat, KeySlug
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY, Entity
from envfactory.real.mirror import after_setup
from envfactory.runtime.answers import leaf_or_none, opened_text
from envfactory.runtime.behaviours import formatted_key, slugged
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves

FIT = 0.8  # share of the creates the format must word as the real side did
_WORDED = re.compile(r"(.*\D)(\d+)")  # a text, then the number it ends in


@PROPOSERS.register("key-format")
def key_formats(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create the model mints the key of, whose accepted real replies hold a key worded
    ``KeyFormat``-wise where the model's reply holds its own (two at least, four in five fitting):
    keys so worded, unscoped where that fits, else scoped by the one field that fits."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.key_arg is not None or effect.key_format or effect.numbered:
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key == SINGLETON_KEY or entity.key_type != "string":
            continue
        made = [(p, (m[1], m[2])) for p in pairs if p.real_ok and p.model_ok and isinstance(p.raw, dict)
                if (m := _WORDED.fullmatch(_real_key(p, entity) or "")) is not None]  # fmt: skip
        if len(made) < 2:
            continue
        fmt = _fitted(made, [(a, f) for a, f in effect.args.items() if f != entity.key])
        if fmt is None:
            continue
        keyed = effect.model_copy(update={"key_format": fmt})
        behaviour = spec.behaviour(tool).model_copy(update={"effect": keyed})
        changed = entity.model_copy(update={"key_schema": {}})
        rows = _rekeyed(spec, entity, fmt, tool, evidence)
        scoped = f", per {fmt.scope} ({fmt.within!r} within it)" if fmt.scope else ""
        summary = f"{entity.name} keys are worded {fmt.head}{'0' * (fmt.width - 1)}1{scoped}"
        # the keys the model holds, as the real side words them: a replay pairs either side's keys, so
        # the evidence may score them no higher than the model's own (a tie is taken: ``holds``)
        out.append(Candidate(tool, "key-format", summary, behaviour, entities=(changed,), rows=rows,
                             confirms="each create answers the key so worded", holds=True))  # fmt: skip
    return out


def _real_key(pair: Pair, entity: Entity) -> str | None:
    """The text the real reply holds, as answered, where the model's reply holds the key it minted."""
    mine = pair.raw.get(entity.key)
    if not isinstance(mine, str):
        return None
    answered = pair.answered
    for path, value in leaves(opened_text(pair.model)):
        theirs = leaf_or_none(answered, path) if value == mine else None
        if isinstance(theirs, str) and theirs != mine:
            return theirs
    return None


def _fitted(made: list[tuple[Pair, tuple[str, str]]], fields: list[tuple[str, str]]) -> KeyFormat | None:
    """The format that words most of ``made`` (a pair, its real key's text and number), four in five
    at least: one head for all, or scoped by one of ``fields`` (argument, field); on a tie the
    first, one head first."""
    width = _width([digits for _, (_, digits) in made])
    if width is None:
        return None
    heads = [head for _, (head, _) in made]
    common = max(sorted(set(heads)), key=heads.count)
    best = (heads.count(common), KeyFormat(head=common, width=width))
    for arg, scope in fields:
        fitted = _scoped(made, arg)
        if fitted is not None and fitted[0] > best[0]:
            best = (fitted[0], KeyFormat(head=fitted[1], width=width, scope=scope, within=fitted[2]))
    return best[1] if best[0] >= FIT * len(made) else None


def _scoped(made: list[tuple[Pair, tuple[str, str]]], arg: str) -> tuple[int, str, str] | None:
    """(how many it words, head, within) where a record given no value by ``arg`` is keyed by the one
    head, and one given a value by the value (as the real side was given it) and the one ``within``
    — both kinds seen."""
    heads, withins = [], []
    for p, (head, _) in made:
        value = p.given.get(arg)
        if value in (None, ""):
            heads.append(head)
        elif isinstance(value, (str, int)) and not isinstance(value, bool) and head.startswith(str(value)):
            withins.append(head[len(str(value)) :])
    if not heads or not withins:
        return None
    head, within = max(sorted(set(heads)), key=heads.count), max(sorted(set(withins)), key=withins.count)
    return heads.count(head) + withins.count(within), head, within


def _width(numbers: list[str]) -> int | None:
    """The width numbers are zero-padded to (1: not padded), where all agree; else ``None``."""
    padded = {len(n) for n in numbers if n.startswith("0") and len(n) > 1}
    if len(padded) > 1:
        return None
    width = padded.pop() if padded else 1
    return width if all(len(n) >= width and (len(n) == width or not n.startswith("0")) for n in numbers) else None


def _rekeyed(spec: EnvSpec, entity: Entity, fmt: KeyFormat, tool: str, evidence: Evidence) -> dict[str, list[JSON]]:
    """The starting records keyed by ``fmt`` in the order they were made (:func:`_keyed_anew`)."""

    def worded(row: JSON, rows: list[JSON]) -> str:
        return formatted_key(fmt, rows, entity.key, row.get(fmt.scope) if fmt.scope else None)

    return _keyed_anew(spec, entity, worded, tool, evidence)


def _keyed_anew(spec: EnvSpec, entity: Entity, key: Callable[[JSON, list[JSON]], Any], tool: str,
                evidence: Evidence) -> dict[str, list[JSON]]:  # fmt: skip
    """The starting records, each keyed by ``key`` (of the record, beside those keyed before it; ``None``:
    its key as it was) in the order they were made (a value holding an old key now holds the new one),
    then the setup calls — but this create's — that name a key only the new ones hold made again: the
    model refused them before, holding none of them."""
    renamed: dict[Any, Any] = {}
    rows: list[JSON] = []
    for row in spec.initial_state.get(entity.name, []):
        moved = {k: renamed.get(v, v) if isinstance(v, str) else v for k, v in row.items()}
        new = key(moved, rows)
        if new is not None:
            moved[entity.key] = renamed[row.get(entity.key)] = new
        rows.append(moved)
    new = set(renamed.values()) - set(renamed)
    again = [(t, a) for t, a in evidence.accepted if t != tool and any(v in new for _p, v in leaves(a))]
    started = spec.model_copy(update={"initial_state": {**spec.initial_state, entity.name: rows}})
    return {entity.name: after_setup(started, again).initial_state.get(entity.name, rows)}


@PROPOSERS.register("slug-keys")
def slug_keys(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create the model mints the key of, whose accepted real replies hold, as a word of its own,
    an argument's text made a slug (``Process "Team Present" created with ID: team-present``;
    ``Filed: Projects/write-the-report.md``) — the same argument, joiner and text around it in four
    replies in five that could show one, two at least: keys so made (``KeySlug``), a second record of
    the same text refused. A text that is its own slug already (``notes``) shows nothing either way."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.key_arg is not None or effect.key_format \
                or effect.key_slug is not None or effect.numbered:  # fmt: skip
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key == SINGLETON_KEY or entity.key_type != "string":
            continue
        seen: Counter[KeySlug] = Counter()
        could = 0  # replies that could show one: an argument's text that is no slug of itself
        for p in pairs:
            if not p.real_ok:
                continue
            texts = {a: v for a, v in p.given.items() if isinstance(v, str) and slugged(KeySlug(arg=a), v) != v}
            if not texts:
                continue
            could += 1
            seen.update(set(_slugs_in(p.answered, texts)))
        if not seen:
            continue
        fmt, shown = seen.most_common(1)[0]
        if shown < 2 or shown < FIT * could:
            continue
        field = effect.args.get(fmt.arg)
        behaviour = spec.behaviour(tool).model_copy(update={"effect": effect.model_copy(update={"key_slug": fmt})})
        changed = entity.model_copy(update={"key_schema": {}})
        rows = _keyed_anew(spec, entity, partial(_slug_of, fmt, field, entity.key), tool, evidence)
        summary = f"{entity.name} keys are made of {fmt.arg}: {fmt.head}{slugged(fmt, 'Some Text')}{fmt.tail}"
        out.append(Candidate(tool, "slug-keys", summary, behaviour, entities=(changed,), rows=rows,
                             confirms="each create answers its text so made", holds=True))  # fmt: skip
    return out


def _slug_of(fmt: KeySlug, field: str | None, key: str, row: JSON, rows: list[JSON]) -> str | None:
    """A starting record's key, made of the field the slug's argument fills (``None``: as it was — the
    field not filled, or an earlier record holding that key already)."""
    made = slugged(fmt, row.get(field)) if field else None
    return None if made is None or any(r.get(key) == made for r in rows) else made


SLUG_LEAST = 3  # characters, at least, of a slug that counts as shown
JOINERS = ("-", "_")
_OPENING, _CLOSING = "\"'`([<*", "\"'`)]>*.,;:!?"  # around a word in prose, not of it


def _slugs_in(reply: Any, texts: JSON) -> list[KeySlug]:
    """The ways a reply shows one of ``texts`` (argument -> its text) made a slug: each word (a run of
    characters but spaces, quotes and brackets and a sentence's closing mark aside) of a text the
    reply holds that holds the slug whole, with what it holds before and after it."""
    found = []
    words = [w.lstrip(_OPENING).rstrip(_CLOSING) for _p, leaf in leaves(reply) if isinstance(leaf, str)
             for w in leaf.split()]  # fmt: skip
    for arg, text in texts.items():
        for joiner in JOINERS:
            slug = slugged(KeySlug(arg=arg, joiner=joiner), text)
            if slug is None or len(slug) < SLUG_LEAST:
                continue
            whole = re.compile(rf"(?<![\w-]){re.escape(slug)}(?![\w-])")
            for word in words:
                if (m := whole.search(word)) is not None:
                    found.append(KeySlug(arg=arg, joiner=joiner, head=word[: m.start()], tail=word[m.end() :]))
    return found


__all__ = ["key_formats", "slug_keys"]
