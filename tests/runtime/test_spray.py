"""A reply that lists every candidate value fails; a natural answer passes (runtime.facts.spray)."""

from __future__ import annotations

import pytest

from envfactory.runtime.environment import Environment
from envfactory.runtime.facts import spray
from envfactory.tasks.generate import generate_tasks
from envfactory.users.scripted import ScriptedUser


def test_the_rule_by_hand() -> None:
    assert spray("The total is 42.50.", ["42.5"]) is None
    assert spray("Moved 50 from 3 to 7; new balance 120.", ["120"], context="move 50 from account 3 to 7") is None
    numbers = " ".join(f"{i / 100:.2f}" for i in range(0, 6000, 7))
    assert spray(numbers, ["42.5"]) is not None
    rows = [{"title": t} for t in ("Dune", "Emma", "Ulysses", "Hamlet", "Persuasion", "Middlemarch")]
    assert spray("The book is Emma.", ["Emma"], rows=rows) is None
    assert spray("Dune, Emma, Ulysses, Hamlet, Persuasion, Middlemarch", ["Emma"], rows=rows) is not None


@pytest.mark.parametrize("guess", ["1, 2, 3, 4", "It is 2 or 3.", "3 / 4", "either 3 or 5", "Balances: 120, 150, 3."])
def test_a_short_guess_list_fails(guess: str) -> None:
    """Issue #25: "1, 2, 3, 4" passed an answer task whose answer was 3 (three extras were allowed)."""
    assert "list of alternatives" in (spray(guess, ["3"]) or "")


@pytest.mark.parametrize(
    ("reply", "facts", "context"),
    [
        ("There are 3 orders: 120, 150 and 300.", ["3"], ""),
        ("Balances: 120, 150, 300. The largest is 300.", ["300"], ""),
        ("The total is 42.50 (3 items).", ["42.5"], ""),
        ("Booked for 2026-01-05, 3 guests.", ["3"], ""),
        ("Accounts 3 and 7 now hold 120, 80.", ["120", "80"], ""),
        ("Order order_0001, 3 units.", ["3"], ""),
        ("Of accounts 4, 9 the one to close is 3.", ["3"], "accounts 4, 9"),
        ("4, 3", ["3"], "is it 4?"),  # beside a number the request holds
    ],
)
def test_natural_replies_pass(reply: str, facts: list[str], context: str) -> None:
    assert spray(reply, facts, context=context) is None


def test_spraying_agents_fail_every_answer_task_the_gold_reply_passes(bundled_envs: dict) -> None:
    passed = {"gold": 0, "numbers": 0, "texts": 0, "guesses": 0}
    total = 0
    for name in ("library", "shop", "banking"):
        env: Environment = bundled_envs[name]
        tasks = [t for t in generate_tasks(env, 60, seed=3)[0] if t.goal.answer]
        for task in tasks:
            total += 1
            for agent in passed:
                episode = env.episode(max_steps=task.max_steps, user=ScriptedUser(task))
                episode.reset(task=task)
                for label in task.user.facts:
                    episode.respond(f"What is the {label}?")
                for call in task.gold:
                    episode.call_tool(call.tool, call.args)
                if agent == "gold":
                    reply = "All done. " + ", ".join(task.goal.answer)
                elif agent == "guesses":
                    reply = "1, 2, 3, 4"
                else:
                    values = {
                        (f"{v:.2f}" if agent == "numbers" else v)
                        for rows in episode.state().values()
                        for row in rows
                        for v in row.values()
                        if (isinstance(v, (int, float)) and not isinstance(v, bool)) == (agent == "numbers")
                        and isinstance(v, (int, float, str))
                    }
                    reply = "Candidates: " + ", ".join(sorted(map(str, values)))
                episode.respond(reply)
                passed[agent] += episode.verify().success
    assert total >= 20
    assert passed == {"gold": total, "numbers": 0, "texts": 0, "guesses": 0}
