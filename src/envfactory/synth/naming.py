"""Words in tool, path and field names: tokens, verbs, singular nouns, id-field stems."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from envfactory import inflection
from envfactory.words import tokens

# verb -> effect kind; actions are looked up in synth.effects.TRANSITIONS
VERBS: dict[str, str] = {
    **dict.fromkeys(
        (
            "get",
            "fetch",
            "read",
            "retrieve",
            "show",
            "describe",
            "view",
            "lookup",
            "load",
            "inspect",
        ),
        "read",
    ),
    **dict.fromkeys(("list", "search", "find", "query", "browse", "filter", "all", "scan", "enumerate"), "list"),
    **dict.fromkeys(
        (
            "create",
            "add",
            "new",
            "insert",
            "register",
            "post",
            "make",
            "book",
            "reserve",
            "place",
            "upload",
            "write",
            "schedule",
            "send",
            "log",
            "record",
            "open",
            "issue",
            "borrow",
            "invite",
            "enroll",
            "save",
            "compose",
            "draft",
            "file",
            "purchase",
            "buy",
        ),
        "create",
    ),
    **dict.fromkeys(
        (
            "update",
            "edit",
            "modify",
            "patch",
            "set",
            "change",
            "rename",
            "put",
            "replace",
            "move",
            "reschedule",
            "tag",
            "rate",
            "adjust",
            "assign",
        ),
        "update",
    ),
    **dict.fromkeys(("delete", "remove", "destroy", "drop", "erase", "purge", "unregister", "discard"), "delete"),
    **dict.fromkeys(("transfer",), "transfer"),
}
FILLER = {
    "by",
    "id",
    "ids",
    "all",
    "a",
    "an",
    "the",
    "details",
    "detail",
    "info",
    "information",
    "for",
    "of",
    "new",
    "my",
    "from",
    "to",
    "with",
    "data",
    "item",
    "single",
    "one",
    "many",
}
ROLE_PREFIXES = (
    "from",
    "to",
    "source",
    "src",
    "destination",
    "dest",
    "dst",
    "target",
    "origin",
    "sender",
    "recipient",
    "receiver",
    "parent",
    "primary",
    "other",
)


@lru_cache(maxsize=4096)
def singular(word: str) -> str:
    word = word.lower()
    if len(word) <= 3 or word.endswith(("ss", "us", "is", "data", "status", "news")):
        return word
    return inflection.singular(word)


def plural(word: str) -> str:
    return inflection.plural(word.lower())


def key_variants(name: str) -> set[str]:
    """Spellings that refer to the same field: ``petId`` ~ ``pet_id`` ~ ``petid``."""
    toks = tokens(name)
    return {"_".join(toks), "".join(toks)}


@lru_cache(maxsize=1 << 16)
def flat(name: str) -> str:
    """A name with its case and separators gone: ``_parkingBrakeForce``, ``parking_brake_force`` ->
    ``parkingbrakeforce``."""
    return "".join(tokens(name))


def same_field(a: str, b: str) -> bool:
    return flat(a) == flat(b)


def matching_field(fields: Iterable[str], arg: str, noun: str = "") -> str | None:
    """The field ``arg`` names: the same name whatever its spelling (``petId`` ~ ``pet_id``), or,
    given the thing's ``noun``, the name left once the thing's own name is taken off its front (a
    comment's ``comment_content`` is its ``content``, an airport's ``airport_iata`` its ``iata_code``;
    a ``tweet_comment`` is a comment). A leading
    ``new`` says the value is the one the field takes (``new_branch_name``, ``new_title``)."""
    fields = list(fields)
    found = next((f for f in fields if same_field(f, arg)), None)
    words = tokens(arg)
    if found is None and len(words) > 1 and words[0] == "new":
        return matching_field(fields, "_".join(words[1:]), noun)
    if found is not None or not noun or len(words) < 2 or singular(words[0]) != noun.split("_")[-1]:
        return found
    rest = "_".join(words[1:])
    found = next((f for f in fields if same_field(f, rest)), None)
    if found is None:  # an airport's ``airport_iata`` is its ``iata_code``: the one field the rest names a handle of
        handles = [f for f in fields if tokens(f)[:-1] == words[1:] and tokens(f)[-1] in _HANDLE_WORDS]
        found = handles[0] if len(handles) == 1 else None
    return found


_HANDLE_WORDS = frozenset({"code", "id", "number", "num", "no", "key", "name"})


def credential(name: str) -> bool:
    """An argument that proves who calls (``access_token``, ``auth_token``, ``api_key``), not a
    property of what the call acts on: never a field of a record."""
    toks = tokens(name)
    who = {"access", "auth", "bearer", "api", "session"}
    return toks in (("token",), ("apikey",)) or (toks[-1:] in (("token",), ("key",)) and bool(set(toks[:-1]) & who))


def id_stem(field: str) -> str | None:
    """``customer_id`` / ``fromAccountId`` / ``book`` (no) -> the referenced noun, if any."""
    toks = list(tokens(field))
    if len(toks) < 2 or toks[-1] not in ("id", "ids", "key", "uuid", "code", "number", "num", "no"):
        return None
    toks = toks[:-1]
    while len(toks) > 1 and toks[0] in ROLE_PREFIXES:
        toks = toks[1:]
    return singular("_".join(toks)) if toks else None


def names_handle(arg: str, noun: str) -> bool:
    """``task_ref``, ``order_uid`` (or their lists, ``task_refs``) for a ``task`` or an ``order``:
    the record's handle under a word other than ``id``, whatever shape the API gives it."""
    toks = tokens(arg)
    return (
        len(toks) > 1 and toks[-1] in ("ref", "refs", "uid", "uids") and same_field(singular("_".join(toks[:-1])), noun)
    )


def role_of(field: str) -> str | None:
    toks = tokens(field)
    return toks[0] if toks and toks[0] in ROLE_PREFIXES else None
