"""What each tool seems to do, read from its REST route, name and schemas.

An :class:`Intent` is the raw evidence (verb, noun, key argument, parent) before entities
are merged; ``synth.entities`` and ``synth.effects`` turn intents into a schema and effects.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from envfactory.ingest.openapi import glued_format
from envfactory.ir.jsonschema import (
    data_path,
    declares_one_record,
    entity_schema,
    enum_values,
    primary_type,
    value_list_member,
)
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import FILLER, VERBS, id_stem, singular, tokens
from envfactory.synth.statuses import STATE_WORDS, said_rule
from envfactory.synth.transitions import TRANSITIONS

JSON = dict[str, Any]
# verbs whose object is another entity: book_flight creates a booking of a flight
RECORD_VERBS = {
    "book": "booking",
    "reserve": "reservation",
    "borrow": "loan",
    "rent": "rental",
    "enroll": "enrollment",
    "subscribe": "subscription",
    "invite": "invitation",
    "order": "order",
}
GENERIC_TITLES = {
    "inline",
    "inline_object",
    "inline_response",
    "request",
    "request_body",
    "response",
    "result",
    "results",
    "error",
    "success",
    "ack",
    "output",
    "status",
    "ok",
    "empty",
    "page",
    "list",
    "items",
    "body",
    "payload",
    "object",
}
_TITLE_SUFFIXES = {
    "list",
    "page",
    "response",
    "result",
    "results",
    "dto",
    "model",
    "schema",
    "output",
    "arguments",
}
_METHOD_KIND = {
    "GET": "read",
    "PUT": "update",
    "PATCH": "update",
    "POST": "update",
    "DELETE": "delete",
}
_COLLECTION_KIND = {"GET": "list", "POST": "create"}


@dataclass
class Intent:
    tool: ToolSpec
    kind: str  # read | list | create | update | delete | action | transfer | unknown
    verb: str = ""
    nouns: list[str] = field(default_factory=list)  # candidates, most specific first
    key_arg: str | None = None
    parent: tuple[str, str] | None = None  # (argument, parent noun) of a nested route
    item_schema: JSON | None = None  # object schema of the returned entity, if any
    evidence: str = "name"

    @property
    def noun(self) -> str | None:
        return self.nouns[0] if self.nouns else None


# plural words that describe one thing, not many of it ("get_order_details", "get_user_settings")
_ONE_THING = frozenset({"details", "settings", "status", "preferences", "contents"})


def collection_paths(tools: list[ToolSpec]) -> frozenset[str]:
    """Paths with an item route below them (``/project/{u}/{p}/envvar`` when
    ``/project/{u}/{p}/envvar/{name}`` exists), parameters blanked: collections, not operations."""
    out = set()
    for tool in tools:
        segments = _segments(tool.source.http.path) if tool.source.http else []
        if len(segments) > 1 and _is_param(segments[-1]):
            out.add(_blank(segments[:-1]))
    return frozenset(out)


# an API version in a route (``/v1/taxes``, ``/categories/v2``, ``/v{version}/areas``): it names no resource
_VERSION_SEGMENT = re.compile(r"v(?:\d+(?:\.\d+)*|\{[^}/]+\})", re.IGNORECASE)


def _segments(path: str) -> list[str]:
    # plumbing in paths: a format extension (/wallets.json, /{id}.xml) names no resource, nor does
    # a fragment (AWS's /#CreateNotification) or the API's version
    return [_unglued(re.sub(r"\.(json|xml|yaml|yml|csv|txt|\{[^}/]*\})$", "", s, flags=re.IGNORECASE))
            for s in path.split("#")[0].strip("/").split("/") if s and not _VERSION_SEGMENT.fullmatch(s)]  # fmt: skip


def _unglued(segment: str) -> str:
    """``segment`` without a format parameter glued to its end (``articles{mediaTypeExtension}``)."""
    glued = glued_format(segment)
    return segment.removesuffix(f"{{{glued}}}") if glued else segment


# values, at most, a route parameter declares that qualifies what the route reads rather than keys it
# (``route_type``: 0 to 4 under ``/stops/{stop_id}/route_type/{route_type}``)
QUALIFIER_VALUES = 32


def _collected_noun(param: str, collections: frozenset[str]) -> str | None:
    """A parameter named by one noun alone (``{user}``) that the API keeps a collection of
    (``/users/{username}``): the thing it names."""
    words = tokens(param)
    if len(words) != 1 or not words[0].isalpha():
        return None
    held = {singular(last) for c in collections if (last := c.split("/")[-1]) != "{}"}
    return words[0] if words[0] in held else None


def _closed_words(tool: ToolSpec, arg: str) -> bool:
    """Whether a parameter takes one of a few declared words (an enum of texts): a qualifier."""
    members = (tool.properties.get(arg) or {}).get("enum")
    return isinstance(members, list) and bool(members) and all(isinstance(m, str) for m in members)


def _few_values(tool: ToolSpec, arg: str) -> bool:
    """Whether a parameter takes one of at most :data:`QUALIFIER_VALUES` declared values, numbers
    too (``route_type``: 0 to 4)."""
    return 0 < len(enum_values(tool.properties.get(arg))) <= QUALIFIER_VALUES


def _listed_under(tool: ToolSpec, stem: str | None, nouns: list[str]) -> list[str]:
    """What a GET on ``/.../things/{thing_id}`` lists when its whole answer is a list of records
    rather than one: things of the thing the parameter keys — the path's own noun where the
    parameter keys something else (``/times/{user_id}``: a user's times), else the records' title
    (``/scrobble/shows/{show_id}`` answering ``[MarkedEpisode]``: a show's marked episodes).
    Nothing (``[]``) for any other answer, or a list whose records nothing names."""
    http, schema = tool.source.http, tool.output_schema or {}
    items = schema.get("items")
    if (http is None or http.method.upper() != "GET" or primary_type(schema) != "array" or not isinstance(items, dict)
            or primary_type(items) != "object"):  # fmt: skip
        return []
    if stem not in nouns:
        return nouns
    title = title_noun(items)
    return _nouns(title.split("_")) if title and stem not in title.split("_") else []


def _made_for(tool: ToolSpec, owner: str, nouns: list[str], static: str) -> bool:
    """Whether a POST on ``/analyses/{project-id}`` makes a record for the one the parameter keys: the
    route's word is a plural noun (``analyses``; not ``pending``, ``buy`` or ``licensing``) of a
    thing other than the parameter's (a ``groupCategoryId`` keys the ``categories`` themselves), and
    the tool's name says no other act (``setAllowedNetworks`` sets the node's, ``completeUpload``
    completes the upload session the ``session-id`` keys)."""
    said, verb = tokens(static), name_verb(tool.name)[0]
    if not nouns or not said or singular(said[-1]) == said[-1]:
        return False
    if VERBS.get(verb, "create") != "create" or verb in TRANSITIONS:  # ``completeUpload``: acts on the one it keys
        return False
    return tokens(owner)[-1:] != tokens(nouns[0])[-1:] and owner not in nouns


def _is_param(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def _blank(segments: list[str]) -> str:
    return "/".join("{}" if _is_param(s) else s for s in segments)


def namespace(tools: list[ToolSpec]) -> str | None:
    """The word that opens every function tool's name when it names the server, not a thing: ``git``
    of ``git_status``, ``git_commit``, ``git_create_branch``, which fewer than half of their
    descriptions say. ``order`` of ``order_create``, ``order_get``, ``order_cancel`` is the thing
    itself: its descriptions name orders."""
    names = [list(tokens(t.name)) for t in tools]
    if len(tools) < 3 or any(t.source.http for t in tools) or any(len(n) < 2 for n in names):
        return None
    firsts = {n[0] for n in names}
    if len(firsts) != 1:
        return None
    word = firsts.pop()
    said = sum(1 for t in tools if word in {singular(w) for w in re.findall(r"[a-z]+", t.description.lower())})
    return word if 2 * said < len(tools) else None


def read_intent(tool: ToolSpec, collections: frozenset[str] = frozenset(), prefix: str | None = None) -> Intent:
    """What ``tool`` does to which noun; ``collections`` (:func:`collection_paths` of its tool set)
    tells a sub-collection (``POST .../envvar``) from an operation (``POST .../cancel``); ``prefix``
    (:func:`namespace`) is a server's name its tool names open with, which names nothing."""
    http = tool.source.http
    intent = _from_http(tool, collections) if http else None
    by_name = _from_name(tool, prefix)
    if intent is not None and http is not None and not intent.nouns and intent.parent and http.method.upper() == "GET":
        # GET /accounts/{id}/details/: a word that names nothing, after a record's id, reads that record
        arg, parent = intent.parent
        intent.kind, intent.nouns, intent.key_arg, intent.parent = "read", [parent], arg, None
    if intent is None or not intent.nouns:
        intent = by_name
    elif by_name.kind in ("action", "transfer") and intent.kind in ("update", "create"):
        intent.kind, intent.verb = by_name.kind, by_name.verb
    elif by_name.kind in ("list", "read") and intent.kind == "create" and by_name.verb != "post":
        intent.kind, intent.verb = "list", by_name.verb  # search through POST
    if not intent.nouns and tool.source.http and tool.source.http.tags:
        intent.nouns = _nouns(list(tokens(tool.source.http.tags[0])))  # tags: a last resort
    if intent.kind == "unknown" and tool.source.http and tool.source.http.method.upper() == "GET":
        intent.kind = "read"  # ``top_stories``: whatever the name's first word, a GET reads
    # an answer that is one list of plain values (``{filtered_stocks: [symbols]}``) holds keys, not a record
    intent.item_schema = None if value_list_member(tool.output_schema) else entity_schema(tool.output_schema)
    if intent.kind == "read" and intent.key_arg is None and data_path(tool.output_schema)[2]:
        intent.kind = "list"  # GET /{section}: no key names one record, and records come back as a list
    elif (
        intent.kind == "read"
        and intent.key_arg
        and _closed_words(tool, intent.key_arg)
        and data_path(tool.output_schema)[2]
    ):  # GET /jobs/{state}, ``state`` one of a few words, answering jobs: those in that state
        intent.kind, intent.key_arg = "list", None
    elif (
        intent.kind == "read"
        and intent.key_arg
        and (
            str((tool.properties.get(intent.key_arg) or {}).get("format")) in ("date", "date-time")
            or (set(tokens(intent.key_arg)) & _TIMES_AND_PAGES and tokens(intent.key_arg)[-1] not in _ID_WORDS)
        )
        and data_path(tool.output_schema)[2]
    ):  # GET /Posts/SpeakerAndDeputies/{forDate}, /team/{team_key}/matches/{year}, /teams/{year}/{page_num},
        intent.kind, intent.key_arg = "list", None  # answering a list: those of that day or year, that page
    elif intent.kind == "read" and intent.key_arg and primary_type(tool.properties.get(intent.key_arg)) == "boolean":
        # GET /annotations/{accId}/{speciesTypeKey}/{includeChildren}: a yes or no keys nothing, it asks
        intent.kind, intent.key_arg = "list", None
    if tool.source.http is None and intent.parent is None and intent.kind in ("create", "read", "list"):
        intent.parent = _owner(tool, intent.nouns)  # get_tweet_comments(tweet_id): the tweet's comments
    title = title_noun(intent.item_schema)
    if title and intent.kind in ("create", "read", "list") and title not in intent.nouns:
        if intent.verb in RECORD_VERBS or intent.evidence == "name":
            intent.nouns.insert(0, title)
        else:
            intent.nouns.append(title)
    return intent


def children_made(intents: list[Intent]) -> list[Intent]:
    """A function tool named by one word that another tool lists as a thing's children creates one:
    ``comment(tweet_id, comment_content)`` beside ``get_tweet_comments(tweet_id)`` comments on the
    tweet. Without such a list the word stays unknown (``mention(tweet_id, ...)`` edits the tweet)."""
    named = {n for i in intents for n in i.nouns[:1]}
    for intent in intents:
        tool = intent.tool
        if tool.source.http is not None or intent.kind != "unknown" or len(tokens(tool.name)) != 1:
            continue
        owner = next((stem for a in tool.required if (stem := id_stem(a))), None)
        if owner is not None and f"{owner}_{intent.verb}" in named:
            intent.kind, intent.nouns = "create", [f"{owner}_{intent.verb}", intent.verb]
            intent.parent = _owner(tool, intent.nouns)
    return intents


def queries_posted(intents: list[Intent]) -> list[Intent]:
    """A POST on a route that a GET also answers, described in the same words (``GET`` and ``POST
    /annotate/entities``, both "Annotate a given content and get all entities"), is the same query
    with its input in a body (for inputs too long for a URL): it reads as the GET does, it makes
    nothing. A create beside a list is described otherwise ("Create a user" / "List users"); a
    description opening with a verb that writes ("Add a contact to a group") is one write offered
    through both methods."""
    said: dict[str, Intent] = {}
    for intent in intents:
        http, words = intent.tool.source.http, _said(intent.tool)
        if http is not None and http.method.upper() == "GET" and words:
            said.setdefault(f"{http.path}\0{words}", intent)
    for intent in intents:
        http = intent.tool.source.http
        if http is None or http.method.upper() != "POST" or intent.kind not in ("create", "update"):
            continue
        query = said.get(f"{http.path}\0{_said(intent.tool)}")
        if query is not None and query.kind in ("list", "read") and not _writes(intent.tool.description):
            intent.kind, intent.verb, intent.nouns = query.kind, query.verb, list(query.nouns)
            intent.key_arg, intent.parent, intent.item_schema = query.key_arg, query.parent, query.item_schema
    return intents


def _names_new(param: str, said: list[str], tool: ToolSpec) -> bool:
    """Whether ``POST /{things}/{param}`` makes the thing under the key the caller gives: its description
    opens with a verb that creates ("Creates a new basket with this name"), the segment before the
    parameter is the things themselves (no verb leads it: ``/orders/CreateDeliveryNote/{id}`` names an
    order), and the parameter names one of them (``name``, ``keyId`` under ``/keys``), not another
    thing (``/tags/{resourceArn}``, ``/policies/{step}``, ``/archives/{archiveKind}``)."""
    nouns, words = _nouns(said), tokens(param)
    return (
        prose_verb(tool.description) in _MAKING
        and not _closed_words(tool, param)  # one of a few declared words qualifies the call, it names nothing
        and bool(said) and said[0] not in VERBS and not _verbish(said[0]) and bool(nouns)
        and {singular(w) for w in words} <= _HANDLES | set(nouns)
    )  # fmt: skip


# verbs that make a record where "add" may put one thing into another ("Add a user to a channel")
_MAKING = frozenset({"create", "make", "register"})
_HANDLES = frozenset({"name", "id", "key", "slug", "code", "uuid", "handle"})


def _said(tool: ToolSpec) -> str:
    return " ".join((tool.description or "").lower().split())


def _writes(text: str | None) -> bool:
    """Whether a description opens with a verb that changes something ("Add a contact to a group",
    "removeFromGroup", "Send a message"): a GET described so is a write offered through GET too."""
    opening = re.match(r"[\W_]*([A-Za-z]+)", text or "")
    first = tokens(opening.group(1))[:1] if opening else []
    verb = prose_verb(first[0]) if first else None
    return (verb is not None and VERBS[verb] not in ("read", "list")) or (bool(first) and first[0] in TRANSITIONS)


def rooted(intents: list[Intent]) -> list[Intent]:
    """Routes that open with a parameter (``/{id}``, ``/{id}/status``) beside a collection at the
    root (``GET /`` lists stories, ``POST /`` makes one: an API served under its collection's own
    path): the parameter keys that collection's records, ``/{id}`` reads, changes or deletes one,
    and the routes under it are that record's."""
    root = next((i.nouns[0] for i in intents if i.nouns and i.kind in ("list", "create")
                 and i.tool.source.http and not _segments(i.tool.source.http.path)), None)  # fmt: skip
    if root is None:
        return intents
    for intent in intents:
        http = intent.tool.source.http
        segments = _segments(http.path) if http else []
        if not segments or not _is_param(segments[0]):
            continue
        arg = segments[0][1:-1]
        kind = _METHOD_KIND.get(http.method.upper()) if http else None
        if len(segments) == 1 and kind in ("read", "update", "delete"):
            intent.kind, intent.nouns, intent.key_arg, intent.parent = kind, [root], arg, None
        elif len(segments) > 1 and not _is_param(segments[1]) and intent.parent is None and intent.key_arg != arg:
            intent.parent = (arg, root)
    return intents


def aspects_read(intents: list[Intent]) -> list[Intent]:
    """A route that reads one thing of one record (``GET /rides/{id}/receipt``, ``GET
    /files/{fileId}/signed-url``: a parameter naming a record other tools keep, then a word), whose
    word no other tool names and whose answer is one object, reads that record: the answer is a
    view of it, shaped from its row, not a table of its own. A word other tools name is a thing of
    its own (a card's ``board``); a plural word (an event's ``instances``) or a list answered (a
    user's ``budget`` lines) is records. An operation on a record (``POST /orgs/{id}/import``) keeps no
    records of it: a scope every route names is not a record because one route acts under it."""
    named = Counter(n for i in intents if i.kind != "action" for n in i.nouns[:1])
    for intent in intents:
        tool, http = intent.tool, intent.tool.source.http
        if http is None or http.method != "GET" or intent.kind not in ("read", "list") or intent.parent is None:
            continue
        segments = _segments(http.path)
        arg, parent = intent.parent
        if len(segments) < 2 or _is_param(segments[-1]) or segments[-2] != f"{{{arg}}}" or not intent.nouns:
            continue
        last = tokens(segments[-1])[-1:]
        if not last or singular(last[0]) != last[0]:  # ``/events/{id}/instances``, ``/guilds/{id}/audit-logs``: records
            continue
        answer = tool.output_schema
        if primary_type(answer) != "object" or data_path(answer)[2] or named[intent.nouns[0]] > 1 or not named[parent]:
            continue
        intent.kind, intent.nouns, intent.key_arg, intent.parent, intent.item_schema = "read", [parent], arg, None, None
    return intents


def _owner(tool: ToolSpec, nouns: list[str]) -> tuple[str, str] | None:
    """A function tool's parent: its compound noun leads with a thing one of its required arguments
    is the id of (``get_tweet_comments(tweet_id)``, ``get_order_items(order_id)``)."""
    words = nouns[0].split("_") if nouns else []
    if len(words) < 2:
        return None
    arg = next((a for a in tool.required if id_stem(a) == words[0]), None)
    return (arg, words[0]) if arg is not None else None


# verbs that send something out of the system (a notification, a reminder), whatever nouns follow them
OUTWARD_VERBS = frozenset({"notify", "alert", "remind", "warn", "ping", "announce", "broadcast"})


def verb_at(words: tuple[str, ...] | list[str], known: frozenset[str] | set[str] = frozenset()) -> int:
    """Where a name's verb is: its first word that is a verb (``VERBS``, ``TRANSITIONS`` or ``known``),
    whatever words a tool set puts before it (``chat_remove_group_participants``, ``whatsapp_send``),
    else its first word (an unknown verb: ``mention``). Every reader of a tool's verb goes through it."""
    if words[:1] and words[0] in OUTWARD_VERBS:
        return 0
    return next((i for i, t in enumerate(words) if t in TRANSITIONS or t in VERBS or t in known), 0)


def name_verb(name: str, known: frozenset[str] | set[str] = frozenset()) -> tuple[str, tuple[str, ...]]:
    """A tool name's verb (:func:`verb_at`) and the words after it."""
    words = tokens(name)
    if not words:
        return "", ()
    at = verb_at(words, known)
    return words[at], words[at + 1 :]


def _from_name(tool: ToolSpec, prefix: str | None = None) -> Intent:
    toks = list(tokens(tool.name))
    toks = toks[1:] if prefix and toks[:1] == [prefix] and len(toks) > 1 else toks
    if toks[:1] == ["mark"] and len(toks) > 1:  # mark_order_as_shipped: set a status by name
        rest = toks[1:]
        cut = rest.index("as") if "as" in rest else len(rest) - 1
        state = "_".join(rest[cut + 1 :] if "as" in rest else rest[cut:])
        return Intent(tool, "action", verb=f"mark_{state}", nouns=_nouns(rest[:cut]))
    verb_at = next((i for i, t in enumerate(toks) if t in TRANSITIONS or t in VERBS), None)
    if toks[:1] and toks[0] in OUTWARD_VERBS:  # notify_price_change: a message out, not a "change" of state
        verb_at = None
    if verb_at is None:  # an unknown verb, most likely the first word
        nouns = _nouns(toks[1:] if len(toks) > 1 else toks)
        if tool.source.http is None and said_rule(tool).to:  # check_in_booking: "its status changes to 'checked in'"
            held = [w for w in toks[1:] if any(id_stem(a) == w for a in tool.required)]
            return Intent(tool, "action", verb=toks[0], nouns=[*held, *(n for n in nouns if n not in held)])
        said = prose_verb(tool.description) if tool.source.http is None else None  # a route has its method
        # reprioritise_task: "Change an existing task's priority."; "Add funds to ..." says what to, not what is made
        if said is not None and len(toks) > 1 and VERBS[said] != "create":
            kind = VERBS[said]
            nouns = _nouns(_stateless(toks[1:]))
            if kind == "read" and toks[-1].endswith("s") and singular(toks[-1]) != toks[-1]:
                kind = "list"
            return Intent(tool, kind, verb=said, nouns=nouns, evidence="description")
        return Intent(tool, "unknown", verb=toks[0], nouns=nouns)
    verb = toks[verb_at]
    rest = toks[:verb_at] + toks[verb_at + 1 :]
    if toks == list(tokens(tool.name)) == [verb] and tool.source.http is None:  # ``add``: "Add one record
        rest = said_object(tool.description)  # to a CRM JSON file" says what (``git_add``: the server's own)
    if "by" in rest:
        rest = rest[: rest.index("by")]
    kind = "action" if verb in TRANSITIONS and verb not in VERBS else VERBS.get(verb, "action")
    nouns = _nouns(_stateless(rest))
    if kind in ("action", "update"):  # return_delivered_order_items(order_id, ...): the order whose id it takes
        held = [w for w in rest if any(id_stem(a) == w for a in tool.required)]
        nouns += [w for w in held if w not in nouns]
    if verb in RECORD_VERBS and kind == "create":
        nouns = [RECORD_VERBS[verb], *nouns]
    if kind == "read" and any(t.endswith("s") and singular(t) != t and t not in _ONE_THING for t in rest[-1:]):
        kind = "list"  # get_orders; not get_order_details
    if kind == "create" and tool.source.http is None and _changes_one(tool):
        kind = "update"  # schedule_task(id, due): "Set or change a task's due date." changes the task it names
    return Intent(tool, kind, verb=verb, nouns=nouns)


_CHANGING = frozenset({"change", "update", "edit", "modify", "set"})
# words of a route parameter that is a time or a page, which keys no record (``page_id`` names a page: it does)
_TIMES_AND_PAGES = frozenset({"year", "month", "week", "day", "date", "season", "quarter", "page"})
_ID_WORDS = frozenset({"id", "key", "uid", "uuid"})


def _changes_one(tool: ToolSpec) -> bool:
    """A tool named for making something whose description opens by changing one it names by id."""
    said = prose_verb(tool.description)
    return said in _CHANGING and any(a == "id" or id_stem(a) is not None for a in tool.required)


def prose_verb(text: str | None) -> str | None:
    """The known verb a description opens with, in any person (``List``, ``Lists``, ``Changes``,
    ``Retrieves``), or ``None``: what a tool does when its name's verb is unknown."""
    opening = re.match(r"[\W_]*(?:this tool\s+|tool to\s+|use this to\s+)?([A-Za-z]+)", text or "", re.I)
    if opening is None:
        return None
    word = opening.group(1).lower()
    for spelled in (word, word[:-1] if word.endswith("s") else None, word[:-2] if word.endswith("es") else None):
        if spelled and spelled in VERBS:
            return spelled
    return None


def _stateless(words: list[str]) -> list[str]:
    """A record's noun without the states before it (``cancel_pending_order``: an ``order``)."""
    at = 0
    while at < len(words) - 1 and words[at] in STATE_WORDS:
        at += 1
    return words[at:]


_QUANTIFIERS = r"(?:one|a|an|the|new|all|every|each|some|any|existing|multiple|several|single|given)"
_OBJECT = re.compile(
    rf"[\W_]*[a-z]+\s+(?:and\s+[a-z]+\s+)?(?:{_QUANTIFIERS}\s+)*([a-z][a-z ]*?)\s*"
    r"(?:\b(?:to|in|into|from|by|with|of|for|on|at|identified|that|which|whose|matching|as)\b|[.,;:(]|$)"
)


def said_object(description: str | None) -> list[str]:
    """The words of what a description's opening verb acts on, its last two at most: "Add one
    record to a file" -> ``[record]``; "List and filter records in a stage" -> ``[records]``."""
    first = re.split(r"(?<=[.!?])\s|\n", (description or "").strip(), maxsplit=1)[0]
    found = _OBJECT.match(first.lower())
    return found.group(1).split()[-2:] if found else []


def _nouns(words: list[str]) -> list[str]:
    # filler words go, except "data" leading a compound ("data set", "data source")
    words = [w for i, w in enumerate(words)
             if (w not in FILLER or (w == "data" and i < len(words) - 1)) and not w.isdigit()]  # fmt: skip
    if not words:
        return []
    last = singular(words[-1])
    out = ["_".join([*words[:-1], last])]
    if len(words) > 1:
        out.append(last)
    return out


def _from_http(tool: ToolSpec, collections: frozenset[str]) -> Intent | None:
    http = tool.source.http
    assert http is not None
    segments = _segments(http.path)
    method = http.method.upper()
    if not segments:
        return None
    is_param = [_is_param(s) for s in segments]
    last = segments[-1]
    # /stops/{stop_id}/route_type/{route_type}: a parameter named by the word before it, one of a few
    # declared values, qualifies what the route before them reads (a stop)
    qualified = len(segments) >= 4 and is_param[-1] and segments[-2] == last[1:-1] and is_param[-3]
    if method == "GET" and qualified and _few_values(tool, last[1:-1]):
        shorter = http.model_copy(update={"path": "/" + "/".join(segments[:-2])})
        intent = _from_http(tool.model_copy(update={"source": tool.source.model_copy(update={"http": shorter})}),
                            collections)  # fmt: skip
        if intent is not None:
            intent.tool = tool
        return intent
    scoped = _scoped(segments, is_param, method, tool)
    if scoped is not None:
        return scoped
    if is_param[-1]:
        statics = [s for s, p in zip(segments[:-1], is_param[:-1], strict=True) if not p]
        if not statics:
            return None
        said = list(tokens(statics[-1]))
        if method == "GET" and not is_param[-2] and len(statics) > 1 and _searches(said):
            # /cinema-detail/search/{cinema_name}: the cinema details found by that value, no record of a "search"
            return Intent(tool, "list", verb="search", nouns=_nouns(list(tokens(statics[-2]))), evidence="http")
        if method == "GET" and not is_param[-2] and _searches(list(tokens(last[1:-1]))) and not _searches(said):
            # /books/{query}: the books found by that text (a search term keys no book)
            return Intent(tool, "list", verb="search", nouns=_nouns(said), evidence="http")
        if method == "GET" and len(segments) > 2 and not is_param[-2] and not is_param[-3] \
                and _names_field_of(said, segments[-3], last[1:-1]):  # fmt: skip
            # /airport/iata/{airport_iata}: the airport found by its iata code (the airports, where it answers
            # a list); no record of an "iata"
            kind = "read" if declares_one_record(tool.output_schema) else "list"
            return Intent(tool, kind, verb="get", nouns=_nouns(list(tokens(segments[-3]))), evidence="http")
        if len(said) > 1 and (said[0] in VERBS or said[0] in _VERBISH):  # /groups/{id}/addContact/{contactId}
            said = said[1:]
        nouns = _nouns(said)
        parent = _parent(segments[:-2], is_param[:-2])
        stem = id_stem(last[1:-1])
        keyed = id_stem(segments[-2][1:-1]) if is_param[-2] else None
        if method == "POST" and stem is None and keyed and _made_for(tool, keyed, nouns, statics[-1]):
            # POST /snapshots/{project-id}/{language}: a snapshot made for the project, in a language
            intent = Intent(tool, "create", verb="post", nouns=nouns, evidence="http")
            intent.parent = (segments[-2][1:-1], keyed)
            return intent
        if is_param[-2] and stem is None and keyed and method in ("PUT", "PATCH", "POST"):
            # PUT /user/ratings/{itemType}/{itemId}/{itemRating}: the last parameter is the value set
            return Intent(tool, "update", verb=method.lower(), nouns=nouns, key_arg=segments[-2][1:-1],
                          evidence="http")  # fmt: skip
        holder = stem or _collected_noun(last[1:-1], collections)  # /times/{user}: a user's, where /users/{x} is
        listed = _listed_under(tool, holder, nouns)
        if stem and nouns and stem not in nouns and not is_param[-2] and _blank(segments) in collections:
            listed = nouns  # /cards/{appId} beside /cards/{appId}/{cardId}: the cards of an app, not one card
        elif method == "POST" and not is_param[-2] and stem and _made_for(tool, stem, nouns, segments[-2]):
            listed = nouns  # POST /analyses/{project-id}: an analysis made for the project, not the project changed
        if holder and listed and not is_param[-2]:
            intent = Intent(tool, _COLLECTION_KIND.get(method, "unknown"), verb=method.lower(), nouns=listed,
                            evidence="http")  # fmt: skip
            intent.parent = (last[1:-1], holder)
            return intent
        if len(segments) > 2 and is_param[-2] and stem and stem not in nouns:
            # /project/{username}/{project}/{build_num}: a build of the project, unnamed in the path; but
            # /files/{file_id}/metadata/{scope}/{template_key} with ``scope: global | enterprise``: one of
            # a few declared words qualifies the template, it keys no metadata record
            qualifier = _closed_words(tool, segments[-2][1:-1])
            nouns, parent = [stem, *nouns], (segments[-2][1:-1], nouns[0]) if nouns and not qualifier else None
        elif parent is None and len(segments) > 2 and is_param[-2] and (holder := id_stem(segments[-2][1:-1])):
            parent = (segments[-2][1:-1], holder) if holder not in nouns else None  # /cards/{appId}/{cardId}
        kind = _METHOD_KIND.get(method, "unknown")
        if method == "POST" and not is_param[-2] and _names_new(last[1:-1], list(tokens(statics[-1])), tool):
            kind = "create"  # POST /baskets/{name}, "Creates a new basket with this name": the caller names it
        intent = Intent(tool, kind, verb=method.lower(), nouns=nouns, key_arg=last[1:-1], evidence="http")
        intent.parent = parent
        return intent
    words = list(tokens(last))
    prev_param = len(segments) > 1 and is_param[-2]
    # ``ssh-key``, ``heroku-key``: a compound noun names a sub-collection; ``top_up``, ``set_name``: operations
    compound = len(words) > 1 and not _verbish(words[0]) and words[-1] not in _PARTICLES
    collection = _blank(segments) in collections or compound
    operation = (
        prev_param and method in ("POST", "PUT", "PATCH") and singular(words[-1]) == words[-1] and not collection
        if words
        else False
    )
    if len(segments) == 1 and len(words) > 1 and (words[0] in VERBS or words[0] in _VERBISH) and not collection:
        # /create-corpus, /sendMessage, /getChat (a remote-procedure API): the route's word says the verb
        # and the noun, as a tool's name does; a read or change of one record needs an argument keying it
        named = _from_name(tool.model_copy(update={"name": last}))
        if named.kind not in ("read", "update", "delete") or _keys_one(tool, named.nouns):
            named.tool, named.evidence = tool, "http"
            return named
    # a transition word leading a compound (``checkout-key``) is an adjective: the compound is a noun
    transition = words[:1] != [] and words[0] in TRANSITIONS and (len(words) == 1 or words[0] in VERBS)
    # a verb and its particle (``top-up``, ``sign-out``, ``check-in``) written to: an operation
    phrasal = len(words) == 2 and words[-1] in _PARTICLES and method != "GET"
    if (
        words
        and (transition or words[0] in VERBS or words[0] in _VERBISH or operation or phrasal)
        and len(segments) > 1
        and not collection
    ):
        # a write on /wallets/{id}/top_up or /wallets/{id}/clear (a singular word after an id) is an
        # operation on that wallet, not a table of top_ups: unknown verbs end as flagged fallbacks
        # /orders/{id}/cancel or /pets/findByStatus: a named operation on the previous resource
        owner_at = len(segments) - 3 if prev_param else len(segments) - 2
        if owner_at > 0 and segments[owner_at].lower() in ("batch", "bulk"):
            owner_at -= 1  # /contacts/batch/archive: many contacts at once
        owner = _nouns(list(tokens(segments[owner_at]))) if owner_at >= 0 and not is_param[owner_at] else []
        if not owner and prev_param and (stem := id_stem(segments[-2][1:-1])):
            owner = [stem]  # /project/{u}/{p}/{build_num}/cancel: the build's
        if not owner:
            return None
        named = _from_name(tool.model_copy(update={"name": last}))
        if operation and named.kind in ("unknown", "create"):
            named.kind, named.verb = "action", "_".join(words)
        elif method == "DELETE" and named.kind == "create":  # DELETE /expenses/sendEmails, "Bulk delete
            named.kind = "delete"  # expenses": a DELETE makes nothing, whatever its route's word says
        made = method == "POST" and named.kind == "create" and len(words) > 1 and bool(named.nouns)
        if prev_param or not made or owner[0] not in _SIGNED_IN:
            named.nouns = owner  # /orders/{id}/cancel: the order's; /account/register-sender makes a sender
        named.key_arg = segments[-2][1:-1] if prev_param else None
        named.evidence = "http"
        named.tool = tool
        if named.kind == "read" and not prev_param:
            named.kind = "list"
        return named
    if method == "GET" and _in_a_state(words, segments):
        # /profiles/{id}/updates/pending, /orders/shipped: the collection's records in that state, no "pending" table
        intent = Intent(tool, "list", verb="get", nouns=_nouns(list(tokens(segments[-2]))), evidence="http")
        intent.parent = _parent(segments[:-2], is_param[:-2])
        return intent
    intent = Intent(
        tool,
        _COLLECTION_KIND.get(method, "unknown"),
        verb=method.lower(),
        nouns=_nouns(words),
        evidence="http",
    )
    intent.parent = _parent(segments[:-1], is_param[:-1])
    return intent


_MAIL_STATES = frozenset({"sent", "received", "unread", "starred", "flagged"})


def _keys_one(tool: ToolSpec, nouns: list[str]) -> bool:
    """Whether an argument of ``tool`` keys one of the records ``nouns`` name (``chat_id``, ``id``)."""
    return any(a.lower() in _ID_WORDS or (id_stem(a) is not None and id_stem(a) in nouns) for a in tool.properties)


def _in_a_state(words: list[str], segments: list[str]) -> bool:
    """Whether a route's last word is a state its collection's records are in (``/updates/pending``,
    ``/orders/shipped``), the segment before it naming them (words, not a parameter or a version)."""
    if len(words) != 1 or words[0] not in STATE_WORDS | _MAIL_STATES or len(segments) < 2 or _is_param(segments[-2]):
        return False
    before = list(tokens(segments[-2]))
    return bool(before) and all(w.isalpha() for w in before) and not re.fullmatch(r"v\d+", segments[-2].lower())


# words that lead an operation in a path segment though VERBS gives them no CRUD meaning
_VERBISH = frozenset(
    {
        "mark",
        "generate",
        "verify",
        "merge",
        "import",
        "export",
        "restore",
        "copy",
        "reset",
        "refresh",
        "sync",
        "test",
        "validate",
        "claim",
        "resend",
        "revoke",
        "rotate",
        "trigger",
        "run",
        # operations that answer what they work out and keep nothing (``/tax/calculate``,
        # ``/qrcode/decode``, ``/gifs/translate``): no table of "calculates"
        "calculate",
        "compute",
        "convert",
        "translate",
        "decode",
        "encode",
        "detect",
        "predict",
        "classify",
        "parse",
        "analyze",
        "analyse",
        "summarize",
        "summarise",
        "transcribe",
        "reorder",
        "shuffle",
    }
)


_SEARCH_WORDS = frozenset({"search", "searchall", "find", "findall", "lookup", "query", "filter"})


def _searches(words: list[str]) -> bool:
    """Whether a route's word asks for records found by a value (``search``, ``searchall``, ``find-all``)."""
    return bool(words) and words[0] in _SEARCH_WORDS and set(words[1:]) <= {"all"}


def _names_field_of(said: list[str], owner: str, param: str) -> bool:
    """Whether a route's one word before its last parameter is a field of the record the segment
    before it names, as the parameter's name says: ``/airport/iata/{airport_iata}``,
    ``/country/code/{country_code}``, ``/users/email/{user_email}``."""
    words, noun = list(tokens(param)), list(tokens(owner))
    return (len(said) == 1 and len(words) > 1 and words[-1] == said[0] and bool(noun)
            and singular("_".join(words[:-1])) == singular("_".join(noun)))  # fmt: skip


def _verbish(word: str) -> bool:
    return word in VERBS or word in TRANSITIONS or word in _VERBISH


def names_operation(segment: str) -> bool:
    """Whether a route's segment names an operation (``calculate``, ``decode``, ``mark-read``), not a
    resource: led by a verb other than one that reads (``get-balance`` reads the balance)."""
    words = list(tokens(segment))
    return bool(words) and _verbish(words[0]) and VERBS.get(words[0]) not in ("read", "list")


_PARTICLES = ("up", "down", "in", "out", "on", "off", "over", "back")
# a route's namespace for the caller's own one record (``/account/...``, ``/me/...``): what is made under it
# is a thing of its own, not that record
_SIGNED_IN = frozenset({"me", "my", "self", "account", "profile", "current"})
_SCOPES = ("for", "by", "of", "from")  # /dweets/for/{thing}: the things' dweets, not a dweet named {thing}


def _scoped(segments: list[str], is_param: list[bool], method: str, tool: ToolSpec) -> Intent | None:
    """``GET /get/latest/dweet/for/{thing}``: a list of dweets narrowed by ``thing``;
    ``POST /dweet/for/{thing}``: a dweet created for ``thing``."""
    if len(segments) < 3 or not is_param[-1] or is_param[-2] or is_param[-3] or segments[-2].lower() not in _SCOPES:
        return None
    kind = _COLLECTION_KIND.get(method)
    lead = VERBS.get(next(iter(tokens(segments[0])), ""))
    if lead is not None and lead not in ("read", "list", "create"):
        return None  # GET /remove/alert/for/{thing}: an operation the name says better
    at = len(segments) - 3  # /dweet/quietly/for/{thing}: the adverb qualifies the dweet
    while at > 0 and not is_param[at - 1] and segments[at].lower().endswith("ly"):
        at -= 1
    nouns = _nouns(list(tokens(segments[at])))
    if kind is None or not nouns:
        return None
    return Intent(tool, kind, verb=method.lower(), nouns=nouns, evidence="http")


def _parent(segments: list[str], is_param: list[bool]) -> tuple[str, str] | None:
    if len(segments) >= 2 and is_param[-1] and not is_param[-2]:
        nouns = _nouns(list(tokens(segments[-2])))
        if nouns:
            return segments[-1][1:-1], nouns[0]
    return None


def title_noun(schema: JSON | None) -> str | None:
    title = (schema or {}).get("title")
    if not isinstance(title, str):
        return None
    words = [w for w in tokens(title) if w not in FILLER and not w.isdigit()]
    words = [re.sub(r"\d+$", "", w) for w in words]  # Response6, InlineObject12: generated names
    words = [w for w in words if w]
    if words and words[-1] in _TITLE_SUFFIXES:
        words = words[:-1]
    if not words or "_".join(words) in GENERIC_TITLES:
        return None
    return "_".join([*words[:-1], singular(words[-1])])
