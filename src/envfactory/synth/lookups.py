"""Look-ups by what a person knows: ``find_user_id_by_email(email)``, ``get_member_by_name_and_zip``.

A function or MCP tool that reads, whose name (or whose description's first sentence) says it
finds one record *by* some of its arguments — every required argument among them, none of them a
key or an id — finds the
one record whose fields equal those arguments, and refuses ``not_found`` when none does. When the
name asks for the record's id or key (``find_user_id_by_email``) it answers the key alone;
otherwise the record. A plural noun (``list_orders_by_status``) asks for rows, not a look-up.

The words after *by* are matched to arguments by their words: ``by_name_zip`` names ``first_name``,
``last_name`` and ``zip``; ``by their e-mail address`` names ``email``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import singular, tokens

Finds = Literal["row", "key"]
_JOINERS = frozenset({"and", "or", "their", "its", "his", "her", "the", "a", "an", "given", "of", "address"})
_ASKS_KEY = frozenset({"id", "ids", "key", "uuid", "identifier", "number"})
_READS = frozenset({"find", "get", "lookup", "look", "fetch", "retrieve", "search", "locate", "resolve", "identify"})
_SAID_BY = re.compile(r"\bby\s+(?:(?:their|its|his|her|the|a|an|given)\s+)?([a-z][a-z\- ]{1,60}?)(?:[.,;:(]|$)", re.I)
_SPELLINGS = {"e-mail": "email", "e mail": "email", "zip code": "zip", "postcode": "zip", "postal code": "zip",
              "phone number": "phone", "user name": "username"}  # fmt: skip


@dataclass(frozen=True)
class Lookup:
    """What a look-up compares (the arguments) and what it answers (the row or its key)."""

    args: tuple[str, ...]
    finds: Finds


def lookup_by(tool: ToolSpec, key: str | None = None) -> Lookup | None:
    """The look-up ``tool`` makes (see the module docstring), or ``None``; ``key`` is the record's
    own key, which a look-up never compares."""
    words = tokens(tool.name)
    if tool.source.http is not None or not words or not _READS & set(words[:2]) or not tool.required:
        return None  # a route's ``ById`` is its path, read by the route's own reading
    if "by" in words:
        at = words.index("by")
        before, said = words[:at], [w for w in words[at + 1 :] if w not in _JOINERS]
    else:
        found = _SAID_BY.search(_first_sentence(tool.description or ""))
        if found is None:
            return None
        before, said = words, [w for w in tokens(_spelled(found.group(1))) if w not in _JOINERS]
    noun = [w for w in before if w not in _READS and w not in _ASKS_KEY]
    if not said or not noun or singular(noun[-1]) != noun[-1]:
        return None  # ``list_orders_by_status``: rows, not one
    args = tuple(a for a in tool.properties if set(tokens(a)) & set(said) and a != key)
    if not args or not set(tool.required) <= set(args) or any(set(tokens(a)) & _ASKS_KEY for a in args):
        return None  # ``get_tasks_by_project_id``: another record's key, not what a person knows
    return Lookup(args=args, finds="key" if before and before[-1] in _ASKS_KEY else "row")


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0] if text else ""


def _spelled(text: str) -> str:
    low = text.lower()
    for said, word in _SPELLINGS.items():
        low = low.replace(said, word)
    return low


__all__ = ["Finds", "Lookup", "lookup_by"]
