"""Verb synonyms: how other APIs name an operation, and how other people ask for it.

Real services disagree on verbs (``freeze_account`` / ``lockAccount`` / ``suspend-account``)
and users do too ("freeze" / "block" / "put a hold on"). A policy that keys on one verb breaks
on the next API; training across these is what the ``descriptions`` and ``users`` families are
for. Tool-name synonyms are single words; user phrasings may be several.
"""

from __future__ import annotations

import random
import re

# verb -> single-word synonyms used in tool names and descriptions
NAME_SYNONYMS: dict[str, tuple[str, ...]] = {
    "get": ("fetch", "retrieve", "read"),
    "list": ("browse", "enumerate", "index"),
    "search": ("find", "query", "lookup"),
    "create": ("new", "insert", "open"),
    "add": ("insert", "new", "put"),
    "register": ("enroll", "signup", "onboard"),
    "update": ("modify", "amend", "patch"),
    "delete": ("erase", "drop", "purge"),
    "remove": ("erase", "drop", "purge"),
    "cancel": ("void", "revoke", "abort"),
    "freeze": ("lock", "suspend", "block"),
    "unfreeze": ("unlock", "reactivate", "unblock"),
    "close": ("terminate", "shut", "deactivate"),
    "archive": ("shelve", "stash", "retire"),
    "refund": ("reimburse", "repay", "chargeback"),
    "ship": ("dispatch", "fulfil", "deliver"),
    "pay": ("settle", "charge", "checkout"),
    "approve": ("accept", "authorize", "greenlight"),
    "confirm": ("finalize", "secure", "lockin"),
    "return": ("checkin", "release", "giveback"),
    "reschedule": ("retime", "shift", "postpone"),
    "move": ("relocate", "refile", "rehome"),
    "book": ("reserve", "ticket", "hold"),
    "place": ("submit", "put", "lodge"),
    "transfer": ("wire", "send", "remit"),
}

# verb as a user says it -> other ways to say it (lower case; the first letter's case is kept)
USER_SYNONYMS: dict[str, tuple[str, ...]] = {
    "freeze": ("block", "put a hold on", "suspend"),
    "unfreeze": ("unblock", "lift the hold on", "reactivate"),
    "close": ("shut down", "terminate", "deactivate"),
    "cancel": ("call off", "void", "scrap"),
    "refund": ("reimburse", "pay me back for", "give a refund for"),
    "ship": ("dispatch", "send out", "post"),
    "pay": ("settle", "pay for", "cover"),
    "approve": ("okay", "sign off on", "green-light"),
    "confirm": ("lock in", "finalize", "firm up"),
    "return": ("check in", "hand back", "bring back"),
    "archive": ("file away", "shelve", "put away"),
    "delete": ("get rid of", "erase", "trash"),
    "remove": ("get rid of", "erase", "trash"),
    "create": ("set up", "open", "start"),
    "add": ("set up", "put in", "register"),
    "make": ("set up", "open", "start"),
    "update": ("modify", "amend", "fix"),
    "edit": ("modify", "amend", "fix"),
    "change": ("switch", "alter", "turn"),
    "set": ("switch", "alter", "make"),
    "transfer": ("send", "wire", "move"),
    "reschedule": ("move", "shift", "push"),
    "move": ("shift", "relocate", "put"),
}

_QUOTED = re.compile(r"('[^']*')")
# a verb opens a clause: at the start, after punctuation, or after "please" / "you" / "to" / "then"
_VERB = re.compile(r"(?:(?<=^)|(?<=[.!?:,] )|(?<=\b[Pp]lease )|(?<=\byou )|(?<=\bto )|(?<=\b[Tt]hen ))([A-Za-z]+)\b")


def reword(text: str, table: dict[str, tuple[str, ...]], rng: random.Random, rate: float = 1.0) -> str:
    """Replace clause-opening verbs found in ``table``; quoted values (``'...'``) stay verbatim.

    Only verbs that open a clause are touched, so nouns that look like verbs ("ship date",
    "a book") keep their meaning. The first letter's case is kept.
    """

    def swap(match: re.Match[str]) -> str:
        word = match.group(1)
        options = table.get(word.lower())
        if not options or rng.random() >= rate:
            return word
        new = rng.choice(options)
        return new[0].upper() + new[1:] if word[0].isupper() else new

    return "".join(part if _QUOTED.fullmatch(part) else _VERB.sub(swap, part) for part in _QUOTED.split(text))


def rename_verb(words: list[str], rng: random.Random) -> list[str]:
    """A tool name's leading verb swapped for a synonym (``add_book`` -> ``insert_book``)."""
    options = NAME_SYNONYMS.get(words[0]) if words else None
    return [rng.choice(options), *words[1:]] if options else words
