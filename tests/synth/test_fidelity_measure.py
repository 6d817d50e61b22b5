"""Fidelity measured against the real implementation, beside an always-succeeding stub."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SPECS
from tests.synth.function_lists import function, synthesize_functions

from envfactory.ir.effect import Behaviour, FallbackEffect
from envfactory.ir.env import EnvSpec
from envfactory.real.instrument import measure
from envfactory.real.mirror import entity_rows
from envfactory.synth import synthesize

TRAVEL = f"{SPECS / 'travel.py'}:TravelAgency"


def _broken(spec: EnvSpec, tool: str, graded: str = "low") -> EnvSpec:
    """``spec`` with ``tool`` replaced by a fallback that always succeeds (graded ``graded``)."""
    broken = tuple(
        Behaviour(tool=b.tool, effect=FallbackEffect(reason="broken on purpose"), fidelity=graded)  # type: ignore[arg-type]
        if b.tool == tool else b
        for b in spec.behaviours
    )  # fmt: skip
    return spec.model_copy(update={"behaviours": broken})


def test_a_synthesized_environment_is_measured_against_the_real_one() -> None:
    spec = synthesize(SPECS / "travel.py", trust_code=True)
    result = measure(spec, TRAVEL, sequences=12, length=8)
    assert result.calls == 96 and {t.tool for t in result.tools} == set(spec.tools.names)
    assert result.outcome >= result.stub_outcome + 0.2
    assert result.output_fields is not None and result.output_fields >= 0.7
    assert (result.stub_output_fields or 0) < 0.3
    assert result.final_state is not None  # the real object's flights map onto the flight entity
    again = measure(spec, TRAVEL, sequences=12, length=8)
    assert again == result  # seeded: two runs agree


def test_a_wrong_behaviour_measures_worse() -> None:
    spec = synthesize(SPECS / "travel.py", trust_code=True)
    good = {t.tool: t for t in measure(spec, TRAVEL, sequences=12, length=8).tools}
    bad = {t.tool: t for t in measure(_broken(spec, "cancel_booking"), TRAVEL, sequences=12, length=8).tools}
    assert bad["cancel_booking"].outcome < good["cancel_booking"].outcome - 0.3


def test_records_map_onto_entities_by_attribute_name() -> None:
    spec = synthesize(SPECS / "travel.py", trust_code=True)
    rows = entity_rows({"_flights": {"f1": {"id": "f1", "price": 2}}, "_bookings": {}, "other": 3}, spec.state_schema)
    assert rows == {"flight": [{"id": "f1", "price": 2}], "booking": []}
    # container words aside (``flight_queue``); a mapping's keys restored into rows that omit them;
    # a mapping of plain values (names to ids) is not records
    queued = {"flight_queue": {"f2": {"price": 3}, "note": "x"}, "booking_record": {"a": "b"}}
    assert entity_rows(queued, spec.state_schema) == {"flight": [{"id": "f2", "price": 3}]}


def test_a_create_takes_from_the_counter_it_refers_to_and_a_cancel_gives_it_back() -> None:
    from envfactory.runtime.environment import Environment

    spec = synthesize(SPECS / "travel.py", trust_code=True)
    assert spec.behaviour("book_flight").effect.consumes == {"flight_id": "seats_left"}
    episode = Environment(spec).episode(max_steps=1000)
    flight = next(r for r in spec.initial_state["flight"] if r["seats_left"] > 0)
    seats = flight["seats_left"]
    booked = episode.call_tool("book_flight", {"flight_id": flight["id"], "passenger_name": "Ada"})
    assert booked.ok
    assert episode.call_tool("get_flight", {"flight_id": flight["id"]}).data["seats_left"] == seats - 1
    assert episode.call_tool("cancel_booking", {"booking_id": booked.data["id"]}).ok
    assert episode.call_tool("get_flight", {"flight_id": flight["id"]}).data["seats_left"] == seats
    for i in range(seats):
        assert episode.call_tool("book_flight", {"flight_id": flight["id"], "passenger_name": f"P{i}"}).ok
    full = episode.call_tool("book_flight", {"flight_id": flight["id"], "passenger_name": "Late"})
    assert full.error == "precondition_failed" and "seats left" in full.content


def test_a_tool_measured_to_behave_wrongly_is_not_graded_high(tmp_path) -> None:
    from typer.testing import CliRunner

    from envfactory.cli.main import app

    spec = _broken(synthesize(SPECS / "travel.py", trust_code=True), "get_booking", graded="high")
    folder = spec.save(tmp_path / "travel")
    runner = CliRunner()
    done = runner.invoke(app, ["fidelity", str(folder), "--against", TRAVEL, "--trust-code", "--sequences", "10"])
    assert done.exit_code == 0, done.output
    shown = runner.invoke(app, ["inspect", str(folder)], env={"COLUMNS": "250"}).output
    line = next(row for row in shown.splitlines() if "get_booking" in row)
    assert "high" not in line and "(measured)" in line
    assert "high (measured)" in next(row for row in shown.splitlines() if "search_flights" in row)


def test_a_recorded_trace_is_replayed_beside_the_stub(tmp_path) -> None:
    import json

    from envfactory.real.replay import measure_trace

    spec = synthesize(SPECS / "travel.py", trust_code=True)
    flight = spec.initial_state["flight"][0]
    lines = [
        {"tool": "get_flight", "arguments": {"flight_id": flight["id"]}, "ok": True, "output": flight},
        {"tool": "get_flight", "arguments": {"flight_id": "flight_9999"}, "ok": False, "output": None},
        {"tool": "get_booking", "arguments": {"booking_id": "nope"}, "ok": False, "sequence": 2},
    ]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = measure_trace(spec, path)
    assert result.calls == 3 and result.sequences == 2
    assert result.outcome == 1.0 and result.stub_outcome < 0.5 and result.output_exact == 1.0
    path.write_text('{"tool": "get_flight"}\n')
    import pytest

    from envfactory.errors import SpecError

    with pytest.raises(SpecError, match="line 1 is not a traced call"):
        measure_trace(spec, path)


def test_a_free_text_status_refuses_only_a_repeat_case_insensitively(tmp_path: Path) -> None:
    import json

    from envfactory.runtime.environment import Environment

    tools = [
        {"name": "get_ticket", "description": "Get a ticket.", "parameters": {"type": "object", "properties": {
            "ticket_id": {"type": "integer"}}, "required": ["ticket_id"]},
         "returns": {"type": "object", "properties": {"id": {"type": "integer"}, "status": {"type": "string"}}}},
        {"name": "close_ticket", "description": "Close a ticket.", "parameters": {"type": "object", "properties": {
            "ticket_id": {"type": "integer"}}, "required": ["ticket_id"]}},
        {"name": "resolve_ticket", "description": "Resolve a ticket.", "parameters": {"type": "object", "properties": {
            "ticket_id": {"type": "integer"}}, "required": ["ticket_id"]}},
    ]  # fmt: skip
    path = tmp_path / "tickets.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(path, state="empty")
    spec = spec.model_copy(update={"initial_state": {**spec.initial_state, "ticket": [{"id": 7, "status": "Closed"}]}})
    episode = Environment(spec).episode(max_steps=100)
    assert episode.call_tool("close_ticket", {"ticket_id": 7}).error == "conflict"  # "Closed" is already closed
    assert episode.call_tool("resolve_ticket", {"ticket_id": 7}).ok  # a closed ticket may still be resolved


def test_a_real_objects_id_counter_continues_in_the_environment(tmp_path: Path) -> None:
    from envfactory.ir.env import EnvSpec
    from envfactory.real.mirror import real_counters
    from envfactory.runtime.environment import Environment

    spec = synthesize(SPECS / "petstore.yaml")
    keyed = spec.state_schema["pet"]  # keyed by integers
    state = {f"{keyed.name}_counter": 100, "other_counter": 5, f"{keyed.name}s": [], "flag_counter": True}
    assert real_counters(state, spec.state_schema) == {keyed.name: 99}  # the next one is number 100
    counted = spec.model_copy(update={"counters": {keyed.name: 99}})
    assert EnvSpec.load(counted.save(tmp_path / "env")).counters == {keyed.name: 99}  # kept in env.json
    store = Environment(counted).episode().store
    assert store.next_key(keyed.name, keyed.format_key) == 100


REGISTRY = '''
class Registry:
    """Bookings under ids this class makes up."""

    def __init__(self):
        self.bookings = {}

    def create_booking(self, name: str) -> dict:
        """Create a booking for a traveller.

        Args:
            name: the traveller's name.
        Returns:
            booking_id (int): the new booking's id.
        """
        booking_id = 9000 + 7 * len(self.bookings)
        self.bookings[booking_id] = {"booking_id": booking_id, "name": name}
        return {"booking_id": booking_id}

    def get_booking(self, booking_id: int) -> dict:
        """Get a booking.

        Args:
            booking_id: the booking's id.
        Returns:
            booking_id (int): its id.
            name (str): the traveller's name.
        """
        if booking_id not in self.bookings:
            return {"error": "booking not found"}
        return dict(self.bookings[booking_id])
'''


def test_ids_each_side_made_up_are_compared_as_the_pairs_they_are(tmp_path: Path) -> None:
    source = tmp_path / "registry.py"
    source.write_text(REGISTRY)
    booking_id, name = {"type": "integer", "description": "The booking's id."}, {"type": "string"}
    spec = synthesize_functions(tmp_path, "registry", [
        function("create_booking", "Create a booking.", {"name": name}, ["name"], {"booking_id": booking_id}),
        function("get_booking", "Get a booking.", {"booking_id": booking_id}, ["booking_id"],
                 {"booking_id": booking_id, "name": name}),
    ])  # fmt: skip
    result = measure(spec, f"{source}:Registry", sequences=20, length=8)
    read = next(t for t in result.tools if t.tool == "get_booking")
    assert read.outcome == 1.0 and read.output_fields == 1.0, read  # 9007 is the environment's own id


NOTEBOOK = '''
class Notebook:
    """Notes behind a sign-in."""

    def __init__(self):
        self.username, self.password, self.login_status = "", "", False
        self.notes = {}

    def _load_scenario(self, scenario):
        self.username, self.password = scenario["username"], scenario["password"]

    def notebook_login(self, username, password):
        if username != self.username or password != self.password:
            return {"login_status": False}
        self.login_status = True
        return {"login_status": True}

    def add_note(self, text):
        if not self.login_status:
            return {"error": "User not authenticated. Please log in first."}
        self.notes[len(self.notes) + 1] = text
        return {"note_id": len(self.notes)}
'''


def test_the_replay_signs_in_with_the_objects_own_credentials(tmp_path: Path) -> None:
    (tmp_path / "notes.py").write_text(NOTEBOOK)
    (tmp_path / "scenario.json").write_text('{"username": "ann", "password": "s3cret-pass"}')
    said = {"username": {"type": "string", "description": "Username of the user."},
            "password": {"type": "string", "description": "Password of the user."}}  # fmt: skip
    logged = {"type": "boolean", "description": "True if the user is logged in, False otherwise."}
    spec = synthesize_functions(tmp_path, "notebook", [
        function("notebook_login", "Log in a user.", said, ["username", "password"], {"login_status": logged}),
        function("add_note", "Add a note for the authenticated user.", {"text": {"type": "string"}}, ["text"],
                 {"note_id": {"type": "integer"}}),
    ])  # fmt: skip
    result = measure(spec, f"{tmp_path / 'notes.py'}:Notebook", scenario=str(tmp_path / "scenario.json"),
                     sequences=20, length=8)  # fmt: skip
    tools = {t.tool: t for t in result.tools}
    assert tools["notebook_login"].outcome == 1.0
    # both sides signed in and made notes: measured, not skipped; every note both made agrees wholly
    # (a call the model refused counts against its fields too)
    note = tools["add_note"]
    assert note.output_fields is not None and note.output_fields > 0.5 and note.output_fields == note.output_exact


SHELF = '''
class Shelf:
    """Books on a shelf; its list answers the bare list although the description declares ``{titles: [...]}``."""

    def __init__(self):
        self.books = []

    def add_book(self, title):
        self.books.append(title)
        return {"title": title}

    def list_books(self):
        return list(self.books)
'''


def test_an_envelope_the_description_declares_is_not_an_answer(tmp_path: Path) -> None:
    from envfactory.real.agreement import _opened

    assert _opened(["a"], {"titles": ["a"]}) == (["a"], ["a"])
    assert _opened({"fuel": 1}, {"status": {"fuel": 1}}) == ({"fuel": 1}, {"fuel": 1})
    assert _opened({"status": 1}, {"status": 2}) == ({"status": 1}, {"status": 2})  # the same key: compared as is
    (tmp_path / "shelf.py").write_text(SHELF)
    title = {"type": "string", "description": "Title of the book."}
    spec = synthesize_functions(tmp_path, "shelf", [
        function("add_book", "Add a book to the shelf.", {"title": title}, ["title"], {"title": title}),
        function("list_books", "List the titles of all books.", {}, [],
                 {"titles": {"type": "array", "items": {"type": "string"}, "description": "Titles of all books."}}),
    ])  # fmt: skip
    result = measure(spec, f"{tmp_path / 'shelf.py'}:Shelf", sequences=12, length=6)
    listed = next(t for t in result.tools if t.tool == "list_books")
    assert listed.output_fields == 1.0 and (listed.stub_output_fields or 0) < 0.5, listed
    # exact only as an agent reads it: the envelope an agent sees and the real code never answers
    # is no exact reply (the leaf fields above forgive it)
    from collections import defaultdict

    from envfactory.core import tool_result
    from envfactory.real.agreement import tally_call

    t: defaultdict[str, list[float]] = defaultdict(list)
    for answer in ({"titles": ["a"]}, ["a"]):
        said = tool_result(True, json.dumps(answer))
        tally_call(t, True, ["a"], said, said)
    assert t["exact"] == [0.0, 1.0] and t["fields"] == [1.0, 1.0]


def test_a_one_word_attribute_names_the_compound_entity_it_ends() -> None:
    from envfactory.ir.state import Entity, StateSchema

    key = {"id": {"type": "integer"}}
    comments = StateSchema(entities=(Entity(name="tweet_comment", key="id", fields=key),
                                     Entity(name="tweet", key="id", fields=key)))  # fmt: skip
    # posting's ``comments = {}``: no comments, not "unknown, keep the synthesized ones"
    assert entity_rows({"comments": {}, "tweets": {}}, comments) == {"tweet_comment": [], "tweet": []}
    two = StateSchema(entities=(*comments.entities, Entity(name="post_comment", key="id", fields=key)))
    assert "post_comment" not in (entity_rows({"comments": {}}, two) or {})  # two compounds end in it: neither
    assert entity_rows({"comments": {}}, two) is None


def test_a_singletons_fields_are_read_from_the_attribute_named_after_it() -> None:
    from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW, Entity, StateSchema

    fields = {SINGLETON_KEY: {"type": "string"}, "account_id": {"type": "integer"}, "balance": {"type": "number"}}
    schema = StateSchema(entities=(Entity(name="account", key=SINGLETON_KEY, fields=fields),))
    held = {"account_info": {"account_id": 12345, "balance": 10000.0}, "market_status": "Closed"}  # trading's
    assert entity_rows(held, schema) == {"account": [{SINGLETON_KEY: SINGLETON_ROW, "account_id": 12345,
                                                      "balance": 10000.0}]}  # fmt: skip
