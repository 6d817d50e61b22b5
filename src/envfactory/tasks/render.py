"""Instructions in natural language, rendered from a bound blueprint with seeded phrasings.

The instruction states the goal and its constraints — which rows, which values, what to report
— and never the tool sequence or any id the agent has to look up itself. Ids appear only where
the user would know them ("my order order_0003"), i.e. for references the blueprint leaves direct.
"""

from __future__ import annotations

import random
from typing import Any

from envfactory.ir.blueprint import Blueprint, Node
from envfactory.ir.env import EnvSpec
from envfactory.synth.arguments import tool_references
from envfactory.synth.naming import credential, flat, id_stem, plural, same_field, singular, tokens
from envfactory.synth.statuses import STATE_WORDS
from envfactory.tasks.walks import FIND

JSON = dict[str, Any]
OPENERS = ("", "Please ", "Could you ", "I need you to ", "Hi! Please ")
THEN = ("Then", "After that,", "Next,", "Once that is done,")
HIGH = {"argmax": ("highest", "largest", "greatest"), "argmin": ("lowest", "smallest", "least")}
LATEST = {"argmax": "latest", "argmin": "earliest"}
PERSONAL = frozenset(
    {
        "order",
        "booking",
        "reservation",
        "account",
        "card",
        "subscription",
        "cart",
        "wallet",
        "note",
        "task",
        "reminder",
        "ticket",
        "playlist",
        "appointment",
        "message",
        "post",
        "file",
        "document",
        "loan",
        "profile",
        "budget",
        "transaction",
        "payment",
        "favorite",
        "contact",
        "event",
        "todo",
    }
)
OWNERS = frozenset({"owner", "user", "customer", "member", "author", "creator", "buyer", "patient", "borrower",
                    "holder", "cardholder", "passenger", "created"})  # fmt: skip


class Renderer:
    def __init__(
        self,
        spec: EnvSpec,
        blueprint: Blueprint,
        rng: random.Random,
        references: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.spec, self.bp, self.rng = spec, blueprint, rng
        self.references = references if references is not None else tool_references(spec)
        # effects are read by kind, field by field (entity, key_arg, filters...): typed as Any here
        self.effects: dict[str, Any] = {b.tool: b.effect for b in spec.behaviours}
        self.feeds: dict[str, dict[str, tuple[str, str | None]]] = {}
        for e in blueprint.edges:
            if e.dst_arg:
                self.feeds.setdefault(e.dst, {})[e.dst_arg] = (e.src, e.src_field)

    def instruction(self) -> str:
        text = self._clauses()
        # a token the calls must pass (``access_token``) is the user's to give, once
        given = {(arg, value) for node in self.bp.nodes if node.kind == "call" for arg, value in node.args.items()
                 if arg in self._credentials(node)}  # fmt: skip
        for arg, value in sorted(given, key=str):
            text += f" My {words(arg)} is {show(value)}."
        return text.strip()

    def _credentials(self, node: Node) -> set[str]:
        """The arguments of a call that say who calls: a gate's token, any ``access_token``/``api_key``."""
        gate = self.spec.behaviour(node.tool).gate if node.tool in self.spec.tools.names else None
        return {a for a in node.args if credential(a)} | ({gate.arg} if gate is not None and gate.arg else set())

    def _clauses(self) -> str:
        clauses = [self._answer(self.bp.node(a)) for a in self.bp.answers]
        done: set[str] = set()
        for node in self.bp.nodes:
            if node.kind == "choose":
                clauses.append(self._rule(node))
                done |= {n.id for n in self.bp.nodes if n.guard and n.guard[0] == node.id}
            elif node.kind == "call" and node.write and node.id not in done:
                clauses.append(self._write(node))
        text = ""
        for i, clause in enumerate(c for c in clauses if c):
            if i == 0:
                opener = self.rng.choice(OPENERS)
                text = opener + (clause[0].lower() + clause[1:] if opener else clause)
                if opener == "Could you " and text.endswith("."):  # a request asked as a question
                    text = text[:-1] + "?"
            else:
                text += f" {self.rng.choice(THEN)} {clause[0].lower() + clause[1:]}"
        return text.strip()

    # -- clauses ------------------------------------------------------------------------------------
    def _write(self, node: Node, pronoun: bool = False) -> str:
        effect = self.effects[node.tool]  # type: ignore[index]
        entity = words(effect.entity) if getattr(effect, "entity", None) else "record"
        target = "it" if pronoun else self._arg_ref(node, getattr(effect, "key_arg", None), effect.entity)
        values = self._values(node)
        kind = effect.kind
        if kind == "update":
            verb = self.rng.choice(("set", "change"))
            key = getattr(effect, "key_arg", None)
            moved = [  # references the update changes ("its room to the room whose name is ...")
                f"{words(self._ref_entity(node.tool, a) or a)} to "
                f"{self._arg_ref(node, a, self._ref_entity(node.tool, a))}"
                for a in [*self.feeds.get(node.id, {}), *node.args]
                if a != key and self._ref_entity(node.tool, a)
            ]
            changes = " and its ".join(p for p in (values, *moved) if p)
            if pronoun:
                return f"{verb.capitalize()} its {changes}."
            return f"{self.rng.choice(('Update', 'Edit'))} {target}: {verb} its {changes}."
        if kind == "action":
            return f"{self._verb(node.tool, effect.entity).capitalize()} {target}."  # type: ignore[arg-type]
        if kind == "delete":
            if getattr(effect, "by", None):  # "delete the latest message sent to a receiver"
                return f"{self.rng.choice(('Delete', 'Remove'))} the latest {entity} to {target}."
            return f"{self.rng.choice(('Delete', 'Remove'))} {target}."
        if kind == "transfer":
            amount = node.args.get(effect.amount_arg)
            src = self._arg_ref(node, effect.from_arg, effect.entity)
            dst = self._arg_ref(node, effect.to_arg, effect.entity)
            return f"Transfer {amount} from {src} to {dst}."
        ref_args = [*self.feeds.get(node.id, {}), *(a for a in node.args if self._ref_entity(node.tool, a))]
        refs = []
        for arg in ref_args:
            entity_name = self._ref_entity(node.tool, arg)
            ref = self._arg_ref(node, arg, entity_name)
            # "with the plan whose name is ...", not "with plan: the plan whose name is ..."
            named = entity_name is not None and f"{words(entity_name)} " in f"{ref} "
            role = words(id_stem(arg) or arg)  # ``receiver_id`` of a user: "the user named 'Ann' as receiver"
            if named and entity_name is not None and role not in (words(entity_name), words(arg)):
                refs.append(f"{ref} as {role}")
            else:
                refs.append(ref if named else f"{words(entity_name or arg)}: {ref}")
        details = ", ".join([*refs, values] if values else refs)
        verb = self.rng.choice(("Create", "Add", "Make"))
        return f"{verb} a new {entity}" + (f" with {details}." if details else ".")

    def _values(self, node: Node) -> str:
        effect = self.effects[node.tool]  # type: ignore[index]
        parts = []
        # the row's key and an amount are said elsewhere — but the key a create is given is the new record's
        # name, said here (``POST /baskets/{name}``) —; credentials once, at the end
        key_arg = getattr(effect, "key_arg", None) if effect.kind != "create" else None
        unsaid = self._credentials(node) | {key_arg, getattr(effect, "amount_arg", None)}
        tool = self.spec.tools[node.tool] if node.tool in self.spec.tools.names else None
        unsaid |= {a for a in node.args if tool is not None and tool.is_transport(a)}  # a header is no request
        for arg, value in node.args.items():
            if self._ref_entity(node.tool, arg) or arg in unsaid:
                continue
            if arg in node.hidden:  # "and a parent you should ask me for", not "parent (ask me for the parent)"
                said = words(arg)
                if effect.kind == "update":  # "change its title to one you should ask me for", not "its a title"
                    parts.append(f"{said} to one you should ask me for")
                else:
                    parts.append(f"{article(said)} {said} you should ask me for".lstrip())
            elif value in ({}, []):
                if effect.kind == "update":  # "set its tags to empty"; a new record simply has none
                    parts.append(f"{words(arg)} to empty")
            elif arg.lower() in WRAPPERS and isinstance(value, dict) and effect.kind == "create":
                parts.append(show(value))  # a request ``body``'s members are what the user says, unlabelled
            else:
                parts.append(f"{words(arg)} {'to ' if effect.kind == 'update' else ''}{show(value, words(arg))}")
        return (" and its " if effect.kind == "update" else " and ").join(parts)

    def _rule(self, node: Node) -> str:
        branches = {n.guard[1]: n for n in self.bp.nodes if n.guard and n.guard[0] == node.id}  # type: ignore[index]
        subject = self.describe(node.inputs[0])
        then = self._write(branches[True], pronoun=True)
        other = self._write(branches[False], pronoun=True)
        return (f"Look at {subject}: if its {field_words(node.field)} is above {show(node.value)}, "  # type: ignore[arg-type]
                f"{then[0].lower() + then[1:-1]}; otherwise {other[0].lower() + other[1:]}")  # fmt: skip

    def _answer(self, node: Node) -> str:
        if node.kind == "lookup":
            deed = when_done(plain_field(node.field))
            if deed:  # ``completed_at``: "Tell me when the task ... was completed."
                return f"Tell me when {self.describe(node.inputs[0])} was {deed}."
            return f"Tell me the {field_words(node.field)} of {self.describe(node.inputs[0])}."  # type: ignore[arg-type]
        rows = self.describe_set(node.inputs[0])
        if node.kind == "count":
            return f"Tell me the number of {rows}."
        return f"Tell me the total {field_words(node.field)} of the {rows}."  # type: ignore[arg-type]

    # -- references -------------------------------------------------------------------------------
    def _arg_ref(self, node: Node, arg: str | None, entity: str | None) -> str:
        fed = self.feeds.get(node.id, {}).get(arg or "")
        if fed is not None:
            return self.describe(fed[0])
        value = node.args.get(arg or "")
        if value is not None and entity:
            owner = self.rng.choice(("my ", "the ", ""))
            if owner == "my " and not self._personal(entity):
                owner = "the "  # "my episode 4" of a TV database: nobody's
            return f"{owner}{words(entity)} {value}"
        return "it"

    def _personal(self, entity: str) -> bool:
        """Whether a person would call a row of ``entity`` theirs: it is a thing people own or
        book (``PERSONAL``), or it records whose it is (an owner, user, customer, author field)."""
        if entity not in self.spec.state_schema.names:
            return False
        if set(tokens(entity)) & PERSONAL:
            return True
        return any(set(tokens(f)) & OWNERS for f in self.spec.state_schema[entity].fields)

    def describe(self, node_id: str) -> str:
        """A phrase for the row a node yields ("the order with the highest quantity")."""
        node = self.bp.node(node_id)
        entity = words(node.entity) if node.entity else "record"
        if node.kind == "filter" and node.op == "is":
            flag = flag_phrase(plain_field(node.field), node.value, many=False)
            return (
                f"the {entity} {flag}"
                if flag
                else f"the {entity} whose {field_words(node.field)} is {show(node.value)}"
            )  # type: ignore[arg-type]
        if node.kind in ("argmax", "argmin"):
            schema = field_schema(self.spec.state_schema[node.entity].fields, node.field or "")  # type: ignore[index]
            most = (
                LATEST[node.kind] if schema.get("format") in ("date", "date-time") else self.rng.choice(HIGH[node.kind])
            )
            scope = self.describe_set(node.inputs[0])
            fld = field_words(node.field)
            if scope == plural(entity):
                return f"the {entity} with the {most} {fld}"
            return f"the one with the {most} {fld} among the {scope}"  # type: ignore[arg-type]
        if node.kind == "compare":
            a, b = (self.describe(i) for i in node.inputs)
            side = "higher" if node.op == "gt" else "lower"
            return f"whichever of {a} and {b} has the {side} {field_words(node.field)}"  # type: ignore[arg-type]
        if node.kind == "lookup":
            return f"the {entity} of {self.describe(node.inputs[0])}"
        if node.kind == "call" and node.op == FIND and node.args:  # the user names it; the agent finds it
            paging = getattr(self.spec.behaviour(node.tool).effect, "paging", None)  # type: ignore[arg-type]
            paged = paging.args if paging is not None else set()  # a page the agent asks for, not the user
            said = [(a, v) for a, v in node.args.items() if not self._ref_entity(node.tool, a) and a not in paged]
            if len(said) == 1 and (flat(said[0][0]) == flat(node.entity or "") or tokens(said[0][0])[-1:] == ("name",)):
                return f"the {entity} named {show(said[0][1])}"
            return f"the {entity} whose " + " and ".join(f"{self._said_as(node.tool, a, node.field)} is {show(v)}"
                                                         for a, v in said)  # fmt: skip
        return f"that {entity}"

    def _said_as(self, tool: str | None, arg: str, found_by: str | None = None) -> str:
        """A finder's argument in a person's words: the field it is compared with where the argument
        only prefixes the thing's name to it (an airport's ``airport_iata`` is its "iata code"), the
        field the row was named by where the argument is a search term (a book's "title")."""
        effect = self.spec.behaviour(tool).effect if tool in self.spec.tools.names else None
        if found_by and any(f.arg == arg and f.op == "search" for f in getattr(effect, "filters", ())):
            return field_words(found_by)
        field = next((f.field for f in getattr(effect, "filters", ()) if f.arg == arg and f.field), None)
        noun = getattr(effect, "entity", "") or ""
        if field and not same_field(field, arg) and tokens(arg)[:1] == tokens(noun)[-1:]:
            return field_words(field)
        return words(arg)

    def describe_set(self, node_id: str) -> str:
        node = self.bp.node(node_id)
        if node.kind == "filter" and node.op in ("eq", "gte", "lte"):
            base = self.describe_set(node.inputs[0])
            relation = {"eq": "is", "gte": "is at least", "lte": "is at most"}[node.op]
            flag = flag_phrase(plain_field(node.field), node.value, many=True) if node.op == "eq" else None
            if flag:  # "expenses that are not chargeable", not "expenses whose is chargeable is no"
                return f"{base} {flag}"
            return f"{base} whose {field_words(node.field)} {relation} {show(node.value)}"  # type: ignore[arg-type]
        if node.kind == "call":
            entities = plural(words(node.entity)) if node.entity else "records"
            owners = [self.describe(src) for src, _ in self.feeds.get(node.id, {}).values()]
            direct = [f"{words(self._ref_entity(node.tool, a) or a)} {v}"
                      for a, v in node.args.items() if self._ref_entity(node.tool, a)]  # fmt: skip
            of = owners + direct
            return f"{entities} of {' and '.join(of)}" if of else entities
        return self.describe(node_id)

    def _ref_entity(self, tool: str | None, arg: str) -> str | None:
        """The entity an argument refers to (by key or foreign key), if any."""
        return self.references[tool].get(arg) if tool is not None else None

    @staticmethod
    def _verb(tool: str, entity: str) -> str:
        """``emails_cancel`` on an email: "cancel"; ``cancel_pending_order``: "cancel" (the state is the
        record's, not the deed's); ``return_delivered_order_items``: "return the items of"."""
        named = tokens(entity)
        toks = [t for t in tokens(tool) if t not in ("by", "id") and t not in STATE_WORDS]
        at = next((i for i, t in enumerate(toks) if t in named or singular(t) in named), len(toks))
        verb = [t for t in toks[:at] if t not in named and singular(t) not in named]
        rest = [t for t in toks[at:] if t not in named and singular(t) not in named]
        if verb and rest:
            return f"{' '.join(verb)} the {' '.join(rest)} of"
        if not verb and not rest:  # ``complete_task``: the state word is the deed ("complete the task")
            verb = [t for t in tokens(tool) if t not in ("by", "id") and t not in named and singular(t) not in named]
        return " ".join(verb or rest) or "update"


WRAPPERS = frozenset({"body", "payload", "data", "request", "requestbody", "input", "params"})


def words(name: str | None) -> str:
    return " ".join(tokens(name or ""))


# a record's envelope of its own fields (JSON:API's ``attributes``): said without it
_FIELD_WRAPPERS = frozenset({"attributes", "data", "properties", "fields", "details", "info", "metadata"})


def when_done(field: str) -> str | None:
    """The deed a time stamp records, where its name says one: ``completed_at``, ``createdOn``,
    ``last_updated_at`` -> "completed", "created", "last updated"; None otherwise."""
    toks = tokens(field)
    if len(toks) < 2 or toks[-1] not in ("at", "on") or not toks[-2].endswith("ed"):
        return None
    return " ".join(toks[:-1])


def plain_field(path: str | None) -> str:
    """A field a request names, as its words say it: ``attributes.name`` is the ``name``, and
    ``Country.country_code`` the ``country_code`` (its words say whose it is); an ``address.city``
    stays the address's city."""
    outer, dot, inner = (path or "").partition(".")
    said = tokens(outer)
    if dot and "." not in inner and said and tuple(tokens(inner)[: len(said)]) == tuple(said):
        return inner
    return inner if dot and outer.lower() in _FIELD_WRAPPERS else (path or "")


def field_words(path: str | None) -> str:
    return words(plain_field(path).replace(".", " "))


def field_schema(fields: dict[str, Any], path: str) -> dict[str, Any]:
    """The schema of ``address.city`` among an entity's ``fields`` ({} where none is declared)."""
    if path in fields or "." not in path:
        return fields.get(path) or {}
    outer, _, inner = path.partition(".")
    return ((fields.get(outer) or {}).get("properties") or {}).get(inner) or {}


# nouns no one counts: "content you should ask me for", not "a content"
MASS = frozenset({"content", "text", "data", "metadata", "information", "feedback", "advice", "evidence", "news",
                  "software", "music", "money", "weather", "traffic", "furniture", "equipment", "luggage"})  # fmt: skip


def article(phrase: str) -> str:
    """ "a" or "an" before ``phrase`` (by its first letter: "an email", "a due date"); none before a
    plural or a mass noun ("tags", "content")."""
    last = phrase.split()[-1].lower() if phrase.split() else ""
    if last in MASS or (last.endswith("s") and singular(last) != last):
        return ""
    first = phrase.split()[0].lower() if phrase.split() else ""
    if first.startswith(_SOUNDS_CONSONANT):  # "a unit", "a user", "a one-off"
        return "a"
    if first.startswith(_SILENT_H):  # "an hour"
        return "an"
    return "an" if phrase[:1].lower() in "aeiou" and phrase[:1] else "a"


_SOUNDS_CONSONANT = ("uni", "use", "usa", "usu", "uti", "uri", "url", "eu", "one", "once", "ubi")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")
_FLAG_VERBS = {"is": ("is", "are"), "has": ("has", "have"), "can": ("can", "can")}


def flag_phrase(field: str, value: Any, *, many: bool) -> str | None:
    """A yes/no field said as a person says it: ``is_chargeable: false`` -> "that are not chargeable",
    ``has_attachments: true`` -> "that have attachments", ``archived: true`` -> "that are archived";
    None where the field is no such flag."""
    toks = tokens(field)
    if not isinstance(value, bool) or not toks:
        return None
    if "is" in toks[1:-1]:  # ``description_is_html: false`` -> "whose description is not html"
        cut = toks.index("is", 1)
        subject, rest = " ".join(toks[:cut]), " ".join(toks[cut + 1 :])
        return f"whose {subject} is {rest}" if value else f"whose {subject} is not {rest}"
    if toks[0] in _FLAG_VERBS and len(toks) > 1:
        verb, rest = _FLAG_VERBS[toks[0]][many], " ".join(toks[1:])
    elif len(toks) == 1 and toks[0].endswith(("ed", "able", "ible")):
        verb, rest = ("are" if many else "is"), toks[0]
    else:
        return None
    if value:
        return f"that {verb} {rest}"
    negated = {"are": "are not", "is": "is not", "has": "does not have", "have": "do not have", "can": "cannot"}
    return f"that {negated[verb]} {rest}"


def show(value: Any, said: str = "") -> str:
    """A value as a person says it; ``said``: the words already said before it (an ``address``
    object's own ``address`` member is not said twice: "address '800 Whitney Branch', city ...")."""
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return _joined([show(v) for v in value]) or "nothing"
    if isinstance(value, dict):  # as a person would say it, not a Python literal; empty members unsaid
        said_members = [("" if words(str(k)) == said else f"{words(str(k))} ") + show(v)
                        for k, v in value.items() if v not in ({}, [], None)]  # fmt: skip
        return _joined(said_members) or "nothing"
    if value is None:
        return "none"
    return str(value)


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""
