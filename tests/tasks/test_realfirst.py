"""Real-first tasks: walks on the implementation itself — a read's records, one picked by a
decisive condition over the real answer, a write on it (and a second one), proven there."""

from __future__ import annotations

from pathlib import Path

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import noop
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.realfirst import fits, harvest_values, records_in
from envfactory.tasks.selftest import run_agent

HELPDESK = '''
class Helpdesk:
    """A help desk whose tickets only its own code knows."""

    def __init__(self) -> None:
        self.tickets = [{"id": 100 + i, "title": f"issue {i}", "priority": (i * 37) % 11 * 10 + i, "status": "open"}
                        for i in range(8)]

    def list_tickets(self) -> list:
        """List every ticket."""
        return [dict(t) for t in self.tickets]

    def _ticket(self, ticket_id: int) -> dict:
        for ticket in self.tickets:
            if ticket["id"] == ticket_id:
                return ticket
        raise KeyError(f"ticket {ticket_id} not found")

    def close_ticket(self, ticket_id: int) -> dict:
        """Close a ticket.

        Args:
            ticket_id: The ticket.
        """
        ticket = self._ticket(ticket_id)
        if ticket["status"] == "closed":
            return {"error": "the ticket is closed already"}
        ticket["status"] = "closed"
        return {"id": ticket_id, "status": "closed"}

    def set_priority(self, ticket_id: int, priority: int) -> dict:
        """Set a ticket's priority.

        Args:
            ticket_id: The ticket.
            priority: The new priority.
        """
        self._ticket(ticket_id)["priority"] = priority
        return {"id": ticket_id, "priority": priority}
'''


def test_records_values_and_fits_are_read_from_answers() -> None:
    answer = {"orders": {"o1": {"total": 5, "user": "a"}, "o2": {"total": 7, "user": "b"}}, "page": 1}
    assert list(records_in(answer)) == [[{"total": 5, "user": "a", "id": "o1"}, {"total": 7, "user": "b", "id": "o2"}]]
    found: dict[str, list[object]] = {}
    harvest_values({"watchlist": ["NVDA", "AAPL"], "user": {"username": "ann", "age": 3}}, found)
    assert found == {"watchlist": ["NVDA", "AAPL"], "username": ["ann"], "age": [3]}
    assert fits("id", "ticket_id") and fits("user_id", "receiver_id") and fits("username", "username_to_follow")
    assert not fits("amount", "price") and not fits("title", "ticket_id")


def test_tasks_on_a_bound_class_are_walked_on_it(tmp_path: Path) -> None:
    path = tmp_path / "helpdesk.py"
    path.write_text(HELPDESK)
    env = Environment(synthesize(path, bind=True, trust_code=True), trust_code=True)
    tasks, report = generate_tasks(env, 8, seed=0)
    assert len(tasks) == 8, report.as_json()
    listed = {100 + i for i in range(8)}
    for task in tasks:
        assert task.gold[0].tool == "list_tickets" and task.origin is not None
        assert task.origin.generator == "real-first/1"
        fed = task.gold[1].args["ticket_id"]
        assert fed in listed and str(fed) not in task.instruction  # found through the read, never stated
        assert "highest" in task.instruction or "lowest" in task.instruction or "whose" in task.instruction
        episode = env.episode(max_steps=task.max_steps)
        assert not run_agent(episode, task, noop(task))
    assert sum(len(t.gold) >= 3 for t in tasks) >= 3  # a second write on the same ticket
    again, _ = generate_tasks(env, 8, seed=0)
    assert [t.model_dump_json() for t in again] == [t.model_dump_json() for t in tasks]


NOTEBOOK = '''
import random


class Notebook:
    """Notes whose ids come from the class's own random generator."""

    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.notes = {}

    def add_note(self, text: str) -> dict:
        """Add a note.

        Args:
            text: What the note says.
        """
        note_id = f"n{self.rng.randrange(10**6)}"
        self.notes[note_id] = text
        return {"id": note_id, "text": text}

    def list_notes(self) -> list:
        """List every note."""
        return [{"id": k, "text": v} for k, v in self.notes.items()]
'''


def test_a_task_proven_on_a_class_with_randomness_is_solved_by_its_gold_run_in_every_trial(tmp_path: Path) -> None:
    """The episode starts from the task's own seed, whatever the trial's: the class's generators
    answer as they did when the task was proven, so its goal state is reachable."""
    from envfactory.eval.runner import evaluate
    from envfactory.rl.policy import GoldPolicy

    path = tmp_path / "notebook.py"
    path.write_text(NOTEBOOK)
    env = Environment(synthesize(path, bind=True, trust_code=True), trust_code=True)
    made, _ = generate_tasks(env, 6, seed=0)
    writes = [t for t in made if any(c.tool == "add_note" for c in t.gold)]
    assert writes
    trajectories = evaluate(env, writes, lambda s: GoldPolicy(), trials=3, seed=11)
    assert all(t.success for t in trajectories), [t.reasons for t in trajectories if not t.success]
