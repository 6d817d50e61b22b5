"""Sessions: a login tool, maybe a logout and a status tool, and tools that need a signed-in user.

``plan_session`` recognizes a tool set with a login tool (``login``, ``authenticate``, ``signin``
in its name, not a status read) and models the session as a singleton record: the login tool
writes its non-secret arguments and turns the session on, the logout tool turns it off, the
status tool reads it. A password is never written by the login, but where the record holds one (a
real object's, a state file's), the login's name and password must match it: a mismatch signs out
(and answers the login's status boolean ``false``) or, without such a boolean, is refused. The
session's on/off field is named after the status tool's one boolean
output (``login_status``), else ``logged_in``; every boolean the login and logout tools declare in
their output (``authentication_status``) is set with it, so their answers say what happened. A
tool whose own description speaks of an authenticated, logged-in or current user gets a :class:`Gate`: it
is refused (``precondition_failed``) while the session is off. A token the login answers and other
tools take back (``access_token``) is issued fresh by every login, and those tools are refused
unless they pass the current one. Environments start signed in, so
that tasks can act; the agent can still sign out.
"""

from __future__ import annotations

import re
from typing import Any

from envfactory.ir.effect import Behaviour, CreateEffect, Gate, SingletonEffect
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW, Entity, StateSchema
from envfactory.ir.tool import ToolSet, ToolSpec
from envfactory.runtime.singleton import fresh_token
from envfactory.synth.naming import same_field, tokens

JSON = dict[str, Any]
ENTITY = "session"
_LOGIN = {"login", "authenticate", "signin", "logon", "auth"}
_LOGOUT = {"logout", "signout", "logoff"}
_SECRET = {"password", "passwd", "secret", "token", "pin", "otp", "code", "key"}
_NEEDS = re.compile(r"\b(authenticated|logged[ -]in|log[ -]?in|signed[ -]in|sign[ -]in|authenticat\w*|current user)\b",
                    re.I)  # fmt: skip


def _own_text(tool: ToolSpec) -> str:
    """The tool's own description (BFCL prefixes every tool with the whole API's)."""
    text = tool.description or ""
    return text.split("Tool description:", 1)[-1]


def _booleans(tool: ToolSpec) -> list[str]:
    props = (tool.output_schema or {}).get("properties") or {}
    return [k for k, v in props.items() if isinstance(v, dict) and primary_type(v) == "boolean"]


def _role(tool: ToolSpec) -> str | None:
    toks = set(tokens(tool.name))
    if toks & _LOGOUT:
        return "logout"
    if toks & _LOGIN:
        return "status" if {"status", "state", "check"} & toks or "get" in toks else "login"
    return None


def plan_session(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> tuple[Entity | None, dict[str, Behaviour], JSON]:
    """The session entity, the behaviours of its tools, and its initial (signed-in) record."""
    roles = {t.name: role for t in tools if (role := _role(t)) is not None}
    if "login" not in roles.values():
        return None, {}, {}
    status = next((t for t in tools if roles.get(t.name) == "status" and len(_booleans(t)) == 1), None)
    field = _booleans(status)[0] if status is not None else "logged_in"
    login = [t for t in tools if roles.get(t.name) == "login"]
    args = {a: a for t in login for a in t.properties if not set(tokens(a)) & _SECRET}
    secrets = {a: a for t in login for a in t.properties if set(tokens(a)) & _SECRET}
    fields: JSON = {SINGLETON_KEY: {"type": "string"}, field: {"type": "boolean"}}
    fields.update({a: login[0].properties.get(a) or {"type": "string"} for a in args if a in login[0].properties})
    fields.update({a: login[0].properties.get(a) or {"type": "string"} for a in secrets if a in login[0].properties})
    issued = _issued(login, tools)
    fields.update({f: {"type": "string"} for f in issued})
    out: dict[str, Behaviour] = {}
    for tool in tools:
        role = roles.get(tool.name)
        if role is None:
            continue
        sets = {b: role != "logout" or b != field for b in _booleans(tool)} if role != "status" else {}
        if role in ("login", "logout"):
            sets[field] = role == "login"
        login_args = {a: a for a in tool.properties if a in args} if role == "login" else {}
        # a stored password (a real object's, a state file's) is checked, with the name it goes with
        checks = ({a: a for a in tool.properties if a in secrets or a in args}
                  if role == "login" and any(a in secrets for a in tool.properties) else {})  # fmt: skip
        effect = SingletonEffect(entity=ENTITY, op="get" if role == "status" else "set", sets=sets, args=login_args,
                                 checks=checks, issues=issued if role == "login" else ())  # fmt: skip
        out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(f"session: {role}",))
    entity = Entity.singleton(ENTITY, fields)
    return entity, out, {SINGLETON_KEY: SINGLETON_ROW, field: True, **{f: fresh_token(0, f, None) for f in issued}}


def _issued(login: list[ToolSpec], tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> tuple[str, ...]:
    """The tokens a login answers (``access_token``) that other tools take back as an argument."""
    answered = [f for t in login for f in ((t.output_schema or {}).get("properties") or {}) if "token" in tokens(f)]
    taken = {a for t in tools if _role(t) is None for a in t.required}
    return tuple(dict.fromkeys(f for f in answered if any(same_field(f, a) for a in taken)))


def session_gates(tools: tuple[ToolSpec, ...] | list[ToolSpec], session: Entity, behaviours: dict[str, Behaviour],
                  ) -> dict[str, Gate]:  # fmt: skip
    """Gates for the tools whose own description needs a signed-in user."""
    field = next(f for f, s in session.fields.items() if f != SINGLETON_KEY and s.get("type") == "boolean")
    gate = Gate(entity=session.name, field=field, message="not signed in: log in first")
    gates = {t.name: gate for t in tools if t.name not in behaviours and _NEEDS.search(_own_text(t))}
    issued = {f for b in behaviours.values() if isinstance(b.effect, SingletonEffect) for f in b.effect.issues}
    for tool in tools:  # ``book_flight(access_token, ...)``: the token the login issued, or refused
        pair = next(((a, f) for a in tool.required for f in sorted(issued) if same_field(f, a)), None)
        if tool.name not in behaviours and pair is not None:
            arg, token = pair
            gates[tool.name] = Gate(entity=session.name, field=token, arg=arg,
                                    message=f"invalid {arg}: sign in and pass the {token} it returns")  # fmt: skip
    return gates


_CREATORS = frozenset({"creator", "author", "owner", "sender", "reporter", "submitter"})


def signed_creates(session: Entity, behaviours: list[Behaviour], schema: StateSchema, tools: ToolSet,
                   ) -> list[Behaviour]:  # fmt: skip
    """A create whose record names who made it (``created_by``, ``author``) and whose arguments do not
    stamps the signed-in user there, and needs one: nobody else could have made it."""
    who = next((f for f, s in session.fields.items() if f != SINGLETON_KEY and s.get("type") == "string"
                and not set(tokens(f)) & _SECRET and not set(tokens(f)) & {"token"}), None)  # fmt: skip
    on = next(f for f, s in session.fields.items() if f != SINGLETON_KEY and s.get("type") == "boolean")
    if who is None:
        return behaviours
    out = []
    for b in behaviours:
        effect = b.effect
        if not isinstance(effect, CreateEffect) or b.gate is not None or b.tool not in tools.names:
            out.append(b)
            continue
        taken = set(effect.args.values()) | set(effect.body.values())
        stamped = {f: f"{session.name}.{who}" for f in schema[effect.entity].fields
                   if f not in taken and (tokens(f)[-1:] == ("by",) or set(tokens(f)) & _CREATORS)}  # fmt: skip
        if not stamped:
            out.append(b)
            continue
        gate = Gate(entity=session.name, field=on, message="not signed in: log in first")
        notes = (*b.notes, f"stamps the signed-in {who} as {', '.join(stamped)}", "needs a signed-in session")
        out.append(b.model_copy(update={"effect": effect.model_copy(update={"signed": stamped}), "gate": gate,
                                        "notes": notes}))  # fmt: skip
    return out


__all__ = ["ENTITY", "plan_session", "session_gates", "signed_creates"]
