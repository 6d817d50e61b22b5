"""A bound implementation is a first-class environment: its state is hashed, snapshotted and restored."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import SPECS

from envfactory.errors import SnapshotError
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

SUBCLASS = '''
import sys
sys.path.insert(0, {folder!r})
from travel import TravelAgency


class BudgetAgency(TravelAgency):
    """Only sells economy seats."""

    marker = "budget"

    def book_flight(self, flight_id: str, passenger_name: str, seat_class: str = "economy"):
        """Book an economy seat.

        Args:
            flight_id: The flight to book.
            passenger_name: Full name of the passenger.
            seat_class: Must be economy.
        """
        if seat_class != "economy":
            raise ValueError("this agency sells economy seats only")
        return super().book_flight(flight_id, passenger_name, seat_class)
'''

BARE = '''
class NeedsScenario:
    """Tools that need a scenario the caller never loaded."""

    def __init__(self) -> None:
        self._rows = None

    def get_row(self, row_id: str) -> dict:
        """Get one row.

        Args:
            row_id: Its id.
        """
        return self._rows[row_id]

    def count_rows(self) -> int:
        """How many rows there are."""
        return len(self._rows)
'''


def _travel() -> Environment:
    return Environment(synthesize(SPECS / "travel.py", bind=True), trust_code=True)


def test_writes_change_the_hash_and_restore_rolls_back() -> None:
    env = _travel()
    episode = env.episode()
    start = episode.state_hash()
    before = episode.snapshot()
    assert episode.call_tool("book_flight", {"flight_id": "flight_0002", "passenger_name": "Ada"}).ok
    after_one = episode.state_hash()
    assert after_one != start
    assert episode.call_tool("book_flight", {"flight_id": "flight_0002", "passenger_name": "Bo"}).ok
    assert episode.state_hash() not in (start, after_one)
    snap = episode.snapshot()
    episode.restore(before)
    assert episode.state_hash() == start
    assert episode.call_tool("get_flight", {"flight_id": "flight_0002"}).data["seats_left"] == 2
    twin = env.episode()
    twin.restore(snap)  # another episode replays the calls on a fresh object
    assert twin.call_tool("get_flight", {"flight_id": "flight_0002"}).data["seats_left"] == 0
    forged = {**snap, "owner": {"_flights": {}, "_bookings": {}}}
    with pytest.raises(SnapshotError, match="deterministic"):
        twin.restore(forged)


def test_binding_a_subclass_runs_the_subclass(tmp_path: Path) -> None:
    (tmp_path / "travel.py").write_text((SPECS / "travel.py").read_text())
    (tmp_path / "budget.py").write_text(SUBCLASS.format(folder=str(tmp_path)))
    spec = synthesize(f"{tmp_path / 'budget.py'}:BudgetAgency", bind=True)
    episode = Environment(spec, trust_code=True).episode()
    refused = episode.call_tool("book_flight", {"flight_id": "flight_0001", "passenger_name": "Ada",
                                                "seat_class": "business"})  # fmt: skip
    assert refused.error == "invalid_arguments" and "economy seats only" in refused.content


def test_an_implementation_that_answers_nothing_fails_the_self_check(tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text(BARE)
    spec = synthesize(f"{tmp_path / 'bare.py'}:NeedsScenario", bind=True)
    report = self_check(spec, trust_code=True)
    assert not report.passed
    assert any(c.name == "the implementation answers some call" for t in report.tools for c in t.checks)
    assert self_check(synthesize(SPECS / "travel.py", bind=True), trust_code=True).passed


BUGGY = '''
class Counter:
    """A counter whose reset is broken."""

    def __init__(self):
        self.count = 0

    def bump(self, by: int) -> dict:
        """Add to the count."""
        if by > 100:
            raise RuntimeError("too much at once")
        self.count += by
        return {"count": self.count}

    def reset(self) -> dict:
        """Set the count to zero."""
        self.cuont = 0
        return {"count": self.count.value}
'''


def test_a_crash_in_bound_code_is_an_internal_error_not_a_refusal(tmp_path: Path) -> None:
    (tmp_path / "counter.py").write_text(BUGGY)
    spec = synthesize(f"{tmp_path / 'counter.py'}:Counter", bind=True)
    episode = Environment(spec, trust_code=True).episode()
    assert episode.call_tool("bump", {"by": 500}).error == "precondition_failed"  # the code refuses
    crashed = episode.call_tool("reset", {})
    assert crashed.error == "internal_error" and "AttributeError" in crashed.content  # the code is broken
    assert not self_check(spec, trust_code=True).passed


def test_the_instrument_leaves_the_real_codes_crashes_out(tmp_path: Path) -> None:
    from envfactory.real.instrument import measure

    (tmp_path / "counter.py").write_text(BUGGY)
    spec = synthesize(f"{tmp_path / 'counter.py'}:Counter", trust_code=True)  # from its descriptions, not bound
    m = measure(spec, f"{tmp_path / 'counter.py'}:Counter", sequences=6, length=6)
    assert m.real_crashes > 0 and m.calls + m.real_crashes == 36
    assert all(t.tool != "reset" or t.calls == 0 for t in m.tools)


def test_tasks_are_planned_on_a_model_and_proven_on_the_bound_class() -> None:
    from envfactory.tasks.agents import gold
    from envfactory.tasks.generate import baselines, generate_tasks
    from envfactory.tasks.selftest import run_agent
    from envfactory.users.scripted import ScriptedUser

    env = _travel()
    tasks, report = generate_tasks(env, 12, seed=0)
    assert len(tasks) == 12, report.as_json()
    writing = [t for t in tasks if any(c.tool == "book_flight" for c in t.gold)]
    assert writing and all(t.goal.rows == {} for t in tasks)  # the goal is the real object's state
    episode = env.episode(max_steps=100, user=ScriptedUser())
    for task in tasks:
        assert run_agent(episode, task, gold(task)), task.instruction  # on the real implementation
    assert episode.state_hash() == tasks[-1].goal.state_hash
    assert set(baselines(env, tasks).values()) == {0.0}  # no-op, read-only, careless reader, random
