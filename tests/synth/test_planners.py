"""Description planners compete for each tool by what their plan pins down, never by the order they
were registered in; the plans that lost a tool are its runners-up."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, function, synthesize_functions

from envfactory.ir.effect import Behaviour, FallbackEffect
from envfactory.ir.tool import ToolSpec
from envfactory.registry import Registry
from envfactory.synth.planners import PLANNERS, Plan, Planner, claim
from envfactory.synth.session import plan_session

SIGN_IN = [
    function("login", "Sign in.", {"username": STR, "password": STR}, ["username", "password"],
             {"login_status": {"type": "boolean"}}),
    function("logout", "Sign out.", {}, [], {"logout_status": {"type": "boolean"}}),
    function("get_session_login_status", "Whether someone is signed in.", {}, [],
             {"login_status": {"type": "boolean"}}),
    function("get_profile", "The signed-in user's profile.", {}, [], {"name": STR, "email": STR}),
]  # fmt: skip


def _tools(tmp_path: Path) -> list[ToolSpec]:
    return list(synthesize_functions(tmp_path, "accounts", SIGN_IN).tools.tools)


def _stub(planner: str, rank: str, tools: set[str]) -> Planner:
    def propose(offered: list[ToolSpec]) -> list[Plan]:
        mine = {
            t.name: Behaviour(tool=t.name, effect=FallbackEffect(reason="a stub"), prior="guess")
            for t in offered
            if t.name in tools
        }
        return [Plan(planner, rank, mine)] if mine else []  # type: ignore[arg-type]

    return propose


def _registry(names: list[str]) -> Registry[Planner]:
    out = Registry[Planner]("planner")
    for name in names:
        out.add(name, PLANNERS[name])
    return out


def test_the_registration_order_of_planners_changes_nothing(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    names = list(PLANNERS)
    forward, backward = claim(tools, _registry(names)), claim(tools, _registry(names[::-1]))
    assert [p.planner for p in forward.plans] == [p.planner for p in backward.plans] == ["session", "singletons"]
    assert forward.behaviours == backward.behaviours
    assert {t: [p.planner for p in ps] for t, ps in forward.runners_up.items()} == {
        t: [p.planner for p in ps] for t, ps in backward.runners_up.items()
    }


def test_the_plan_that_pins_more_down_takes_a_contested_tool(tmp_path: Path) -> None:
    """A sign-in session explains login, logout and the status together; reading the status as a
    keyless session record (its noun) loses it, and is its runner-up. The profile, which no session
    explains, goes to the next round, where the record reading takes it."""
    tools = _tools(tmp_path)
    claims = claim(tools)
    session, _, _ = plan_session(tools)
    assert session is not None
    assert claims.planner_of("login") == claims.planner_of("logout") == "session"
    assert claims.planner_of("get_profile") == "singletons"
    assert claims.planner_of("get_session_login_status") == "session"
    assert [p.planner for p in claims.runners_up["get_session_login_status"]] == ["singletons"]
    assert set(claims.runners_up) == {"get_session_login_status"}


def test_rank_then_tools_explained_then_name_decide() -> None:
    tools = [ToolSpec(name=n, input_schema={"type": "object", "properties": {}}) for n in ("a", "b", "c")]
    planners = Registry[Planner]("planner")
    planners.add("wide", _stub("wide", "record", {"a", "b", "c"}))
    planners.add("narrow", _stub("narrow", "structure", {"a"}))
    claims = claim(tools, planners)
    assert [(p.planner, sorted(p.behaviours)) for p in claims.plans] == [("narrow", ["a"]), ("wide", ["b", "c"])]
    assert [p.planner for p in claims.runners_up["a"]] == ["wide"]
    even = Registry[Planner]("planner")
    even.add("zeta", _stub("zeta", "record", {"a", "b"}))
    even.add("alpha", _stub("alpha", "record", {"b", "c"}))
    assert [p.planner for p in claim(tools, even).plans] == ["zeta", "alpha"]  # equal standing: the name


def test_synthesis_records_the_contested_tools_and_the_chooser_starts_from_them(tmp_path: Path) -> None:
    from envfactory.synth.chooser import choose

    spec = synthesize_functions(tmp_path, "accounts", SIGN_IN)
    assert [c.tool for c in spec.choices] == ["get_session_login_status"]
    login = spec.choices[0]
    assert login.evidence == "descriptions" and "session" in login.chosen.summary
    assert [r.summary for r in login.runners_up] == ["singleton (from the descriptions: singletons)"]
    assert "get_profile" not in {c.tool for c in spec.choices}  # nobody else offered it
    again = {c.tool: c for c in choose(spec, None).choices}
    assert again["get_session_login_status"] == login and again["get_profile"].runners_up == ()
