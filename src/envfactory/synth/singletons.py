"""Singleton resources: ``GET /me``, ``GET``/``PATCH /settings``, ``GET /balance``, ``get_profile``.

One record, not a table: the resource's path has no parameters and its read answers one object
(not a list), and nothing on that path creates (no ``POST``); or, for function and MCP tools, the
name's noun is a known singleton (settings, preferences, profile, account, balance, ...) and the
tool takes no id. The record is stored under a fixed hidden key (the IR's ``SINGLETON_ROW``) and
answered without it; ``set`` tools (``PUT``/``PATCH``, ``update_*``/``set_*``) write the fields
their arguments name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from itertools import pairwise
from typing import Any

from envfactory.ir.effect import Behaviour, Prior, SingletonEffect
from envfactory.ir.jsonschema import data_path, entity_schema, primary_type, value_list_member
from envfactory.ir.state import SINGLETON_KEY, Entity, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.synth.effects import DEPOSIT_VERBS, WITHDRAW_VERBS
from envfactory.synth.intents import name_verb, names_operation, verb_at
from envfactory.synth.naming import flat, singular, tokens

JSON = dict[str, Any]
NOUNS = {"me": "profile", "profile": "profile", "settings": "settings", "preferences": "preferences",
         "account": "account", "balance": "balance", "config": "config", "configuration": "config",
         "session": "session", "quota": "quota", "usage": "usage", "device": "device", "whoami": "profile"}  # fmt: skip
_SET = {"update", "set", "patch", "put", "change", "edit", "configure", "toggle"}
_GET = {"get", "read", "show", "fetch", "view", "describe", "whoami"}
_FUND_WORDS = frozenset(w for v in DEPOSIT_VERBS | WITHDRAW_VERBS for w in v.split("_")[:1])


def _verb(tool: ToolSpec) -> str:
    return name_verb(tool.name, _SET | _GET)[0]


def _one_object(tool: ToolSpec) -> JSON | None:
    """The object a read answers, when it answers one (not a list, not an envelope of a list)."""
    schema = tool.output_schema
    if primary_type(schema) != "object":
        return None
    _, record, as_list = data_path(schema)
    if as_list:
        return None
    found = entity_schema(schema) or record
    return found if isinstance(found, dict) and found.get("properties") else None


def _groups(tools: list[ToolSpec] | tuple[ToolSpec, ...]) -> dict[str, list[ToolSpec]]:
    """Candidate singletons: noun -> its tools."""
    by_path: dict[str, list[ToolSpec]] = defaultdict(list)
    named: dict[str, list[ToolSpec]] = defaultdict(list)
    for tool in tools:
        http = tool.source.http
        if http is not None:
            by_path[http.path.rstrip("/")].append(tool)
            continue
        toks = list(tokens(tool.name))
        noun = next((NOUNS[t] for t in reversed(toks) if t in NOUNS), None)
        ids = [a for a in tool.required if a == "id" or a.endswith(("_id", "Id"))]
        if noun and toks and _verb(tool) in _SET | _GET and not ids:
            named[noun].append(tool)
    out = {noun: group for noun, group in named.items() if any(_verb(t) in _GET for t in group)}
    paths = set(by_path)
    from_paths: dict[str, list[ToolSpec]] = {}
    collections = {_noun(seg) for path in paths for seg, nxt in pairwise(path.split("/"))
                   if seg and "{" not in seg and nxt.startswith("{")}  # fmt: skip
    for path, group in by_path.items():
        last = path.rsplit("/", 1)[-1]
        if not last or "{" in path or any(p.startswith(path + "/{") for p in paths) or names_operation(last):
            continue  # ``GET /gifs/translate``: an operation answering one object, not one record
        methods = {t.source.http.method.upper() for t in group if t.source.http}
        reads = [t for t in group if t.source.http and t.source.http.method.upper() == "GET"]
        posts = [t for t in group if t.source.http and t.source.http.method.upper() == "POST"]
        noun = _noun(last)
        # ``POST /account/settings`` named changeAccountSettings, answering the settings: the one record set
        setting = bool(posts) and all(_verb(t) in _SET for t in posts)
        if (posts and not setting) or "DELETE" in methods:
            continue
        if not reads and not (setting and noun in NOUNS.values() and _one_object(posts[0]) is not None):
            continue
        if reads and _one_object(reads[0]) is None:
            continue
        if noun not in collections:  # ``/search/series`` beside ``/series/{id}``: a search, not one record
            from_paths.setdefault(noun, []).extend(group)
    for noun, group in from_paths.items():  # one record, however many versions of its route (``/v2/me``)
        out.setdefault(noun, group)
    return out


def _noun(segment: str) -> str:
    words = list(tokens(segment))
    return NOUNS.get(words[-1], "_".join([*words[:-1], singular(words[-1])])) if words else segment


def plan_singletons(tools: list[ToolSpec] | tuple[ToolSpec, ...]) -> tuple[list[Entity], dict[str, Behaviour]]:
    entities: list[Entity] = []
    behaviours: dict[str, Behaviour] = {}
    for noun, group in _groups(tools).items():
        reads = [t for t in group if (t.source.http and t.source.http.method.upper() == "GET")
                 or (not t.source.http and _verb(t) in _GET)]  # fmt: skip
        records = [r for r in (_one_object(t) for t in reads or group) if r is not None]  # a set answering it
        record = records[0] if records else None
        fields: JSON = {}
        for each in records:  # every read's members: a route's versions may spell them apart (IssuedAt, issued_at)
            for name, member in (each.get("properties") or {}).items():
                if isinstance(member, dict):
                    fields.setdefault(name, member)
        writes = [t for t in group if t not in reads]
        spelt = {flat(f): f for f in fields}  # ``moCallBackUrl`` sets what the answer says as ``mo-callback-url``
        for tool in writes:
            for arg, schema in tool.properties.items():
                if flat(arg) not in spelt:
                    fields.setdefault(arg, schema if isinstance(schema, dict) else {})
        if not fields:
            continue
        required = tuple((record or {}).get("required") or ())
        sources = tuple(t.name for t in group)
        entities.append(Entity.singleton(noun, fields, required=required, sources=sources))
        for tool in reads:
            behaviours[tool.name] = Behaviour(tool=tool.name, effect=SingletonEffect(entity=noun, op="get"),
                                              prior="confident", notes=(f"the one {noun} record",))  # fmt: skip
        for tool in writes:
            mapped = {a: a if a in fields else spelt[flat(a)] for a in tool.properties
                      if a in fields or flat(a) in spelt}  # fmt: skip
            ignored = [a for a in tool.properties if a not in mapped]
            notes = [f"sets fields of the one {noun} record"] + ([f"ignored: {ignored}"] if ignored else [])
            effect = SingletonEffect(entity=noun, op="set", args=mapped)
            prior: Prior = "plausible" if ignored else "confident"
            behaviours[tool.name] = Behaviour(tool=tool.name, effect=effect, prior=prior, notes=tuple(notes))
    return entities, behaviours


_APPEND = frozenset({"add", "append", "insert", "include", "save", "follow", "watch", "star", "pin", "bookmark",
                     "favorite", "favourite"})  # fmt: skip
_DROP = frozenset({"remove", "delete", "drop", "unwatch", "unfollow", "unstar", "unpin", "unfavorite", "unfavourite"})
_PLAIN = ("string", "integer", "number")
# the list a relation verb edits, when the tool does not name it: ``follow_user`` adds to ``following``
_RELATION_LISTS = {
    "follow": ("following", "followed"), "unfollow": ("following", "followed"),
    "star": ("starred", "star"), "unstar": ("starred", "star"),
    "watch": ("watching", "watched"), "unwatch": ("watching", "watched"),
    "pin": ("pinned", "pin"), "unpin": ("pinned", "pin"),
    "bookmark": ("bookmark", "bookmarked"), "favorite": ("favorite",), "unfavorite": ("favorite",),
}  # fmt: skip
# "True if followed, False if already following": the answer says whether the list changed
_CHANGE_FLAG = re.compile(r"\bfalse if (?:it was |they were |the \w+ was )?(?:already|not)\b", re.IGNORECASE)


def _one_value_arg(tool: ToolSpec) -> str | None:
    """The tool's one argument, when it is required and a plain value or an array of them."""
    if len(tool.properties) != 1 or len(tool.required) != 1 or tool.required[0] not in tool.properties:
        return None
    schema = tool.properties[tool.required[0]]
    kind = primary_type(schema)
    plain = kind in _PLAIN or (kind == "array" and primary_type(schema.get("items")) in _PLAIN)
    return tool.required[0] if plain else None


def plan_keyless_lists(tools: list[ToolSpec] | tuple[ToolSpec, ...]) -> tuple[list[Entity], dict[str, Behaviour]]:
    """Keyless lists of values (a watchlist, favourites, a block list) among function and MCP tools:
    a read taking no required argument that answers one array of plain values named as its noun
    (``get_watchlist`` -> ``{watchlist: [...]}``), and tools whose name holds that noun and whose
    one argument is a value (or values) to add (``add_to_watchlist(stock)``) or remove
    (``remove_stock_from_watchlist(symbol)``). One singleton record holds the list: adding skips
    values already there, removing one that is not there is ``not_found``
    (``SingletonEffect.adds``/``takes`` on a list field)."""
    entities: list[Entity] = []
    out: dict[str, Behaviour] = {}
    plain = [t for t in tools if t.source.http is None]
    for read in plain:
        verb, rest = name_verb(read.name, _GET)
        member = value_list_member(read.output_schema)
        noun = [singular(t) for t in rest if t not in ("my", "all", "current")]
        if verb not in _GET | {"list"} or read.required or member is None or not noun:
            continue
        said = [singular(t) for t in tokens(member)]
        if said not in (noun, [*noun, "list"]) or "_".join(noun) in {e.name for e in entities}:
            continue
        writers: dict[str, tuple[str, int]] = {}  # tool -> (its value argument, +1 adds / -1 removes)
        for tool in plain:
            words, arg = [singular(t) for t in tokens(tool.name)], _one_value_arg(tool)
            named = set(noun) <= set(words[1:]) or noun[-1] in _RELATION_LISTS.get(words[0] if words else "", ())
            if tool is read or tool.name in out or arg is None or not named:
                continue
            if words[0] in _APPEND or words[0] in _DROP:
                writers[tool.name] = (arg, 1 if words[0] in _APPEND else -1)
        if not any(sign > 0 for _, sign in writers.values()):
            continue
        name = "_".join(noun)
        schema = ((read.output_schema or {}).get("properties") or {})[member]
        entities.append(Entity.singleton(name, {member: schema}, sources=(read.name, *writers)))
        out[read.name] = Behaviour(tool=read.name, effect=SingletonEffect(entity=name), prior="confident",
                                   notes=(f"the {member} list",))  # fmt: skip
        for tool in (t for t in plain if t.name in writers):
            arg, sign = writers[tool.name]
            answers = {m: member for m in ((tool.output_schema or {}).get("properties") or {}) if m == member}
            move = {arg: member}
            flag = change_flag(tool)
            effect = SingletonEffect(entity=name, op="set", adds=move if sign > 0 else {},
                                     takes=move if sign < 0 else {}, answers=answers, reports=flag)  # fmt: skip
            note = f"{arg} {'adds to' if sign > 0 else 'removes from'} the {member} list"
            note += f"; {flag!r} says whether it changed" if flag else ""
            out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))
    return entities, out


def change_flag(tool: ToolSpec) -> str | None:
    """The boolean output member that says whether an edit changed anything ("True if followed,
    False if already following")."""
    for member, schema in ((tool.output_schema or {}).get("properties") or {}).items():
        if (
            isinstance(schema, dict)
            and primary_type(schema) == "boolean"
            and _CHANGE_FLAG.search(str(schema.get("description") or ""))
        ):
            return str(member)
    return None


def list_refs(schema: StateSchema, behaviours: list[Behaviour]) -> StateSchema:
    """A keyless list whose adding argument names another entity, or that entity's own key
    (``add_to_watchlist(stock)``, stocks keyed by ``symbol``), refers to it: what is added must exist."""
    others = [e for e in schema.entities if e.key != SINGLETON_KEY]
    refs: dict[str, dict[str, str]] = {}
    for b in behaviours:
        effect = b.effect
        if not isinstance(effect, SingletonEffect) or effect.entity not in schema:
            continue
        fields = schema[effect.entity].fields
        for arg, field in effect.adds.items():
            if primary_type(fields.get(field)) != "array":
                continue
            target = next((e.name for e in others if e.name == singular(arg) or e.key == arg), None)
            if target is not None:
                refs.setdefault(effect.entity, {})[field] = target
    if not refs:
        return schema
    return StateSchema(entities=tuple(e.model_copy(update={"refs": {**e.refs, **refs[e.name]}}) if e.name in refs
                                      else e for e in schema.entities))  # fmt: skip


_BALANCE = {"balance", "funds", "credit", "credits", "wallet"}
_PREFIXES = ("new_", "current_", "updated_", "remaining_")


def plan_funds(tools: list[ToolSpec], singles: list[Entity]) -> dict[str, Behaviour]:
    """Keyless deposits and withdrawals (``fund_account(amount)``, ``withdraw_funds(amount)``) on the
    singleton that holds a balance: the one amount argument is added to or taken from it (never
    below zero), and the answer's ``new_balance`` is the balance."""
    out: dict[str, Behaviour] = {}
    for tool in tools:
        toks = tokens(tool.name)
        toks = toks[verb_at(toks, _FUND_WORDS) :]  # a tool set's prefix (``bank_withdraw_funds``) names no verb
        verb = "_".join(toks[:2]) if "_".join(toks[:2]) in DEPOSIT_VERBS else (toks[0] if toks else "")
        numeric = [a for a, s in tool.properties.items() if isinstance(s, dict) and primary_type(s) in
                   ("number", "integer")]  # fmt: skip
        keyed = any(a == "id" or a.endswith(("_id", "Id")) for a in tool.required)
        if verb not in DEPOSIT_VERBS | WITHDRAW_VERBS or len(numeric) != 1 or keyed:
            continue
        found = next(((e, f) for e in singles for f in e.fields if tokens(f)[-1:] and tokens(f)[-1] in _BALANCE), None)
        if found is None:
            continue
        entity, field = found
        members = ((tool.output_schema or {}).get("properties") or {}).keys()
        answers = {m: field for m in members if m.lower().removeprefix(_prefix(m.lower())) == field.lower()}
        move, deposit = {numeric[0]: field}, verb in DEPOSIT_VERBS
        effect = SingletonEffect(entity=entity.name, op="set", answers=answers, adds=move if deposit else {},
                                 takes={} if deposit else move)  # fmt: skip
        said = "adds to" if deposit else "takes from"
        out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="plausible",
                                   notes=(f"{numeric[0]} {said} the {entity.name}'s {field}",))  # fmt: skip
    return out


def _prefix(name: str) -> str:
    return next((p for p in _PREFIXES if name.startswith(p)), "")


__all__ = ["NOUNS", "list_refs", "plan_funds", "plan_keyless_lists", "plan_singletons"]
