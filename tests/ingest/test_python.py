import pytest
from tests.conftest import FIXTURES, SPECS

from envfactory.errors import SpecError
from envfactory.ingest import from_callables, from_object, load


def test_functions_get_schemas_from_hints_and_all_docstring_styles() -> None:
    ts = load(FIXTURES / "py_tools.py", trust_code=True).toolset
    assert ts.names == ["get_weather", "convert", "shout", "untyped"]
    weather = ts["get_weather"]
    assert weather.properties["unit"] == {
        "default": "c",
        "enum": ["c", "f"],
        "type": "string",
        "description": "Temperature unit.",
    }
    assert weather.required == ["city"] and weather.description == "Get the current weather."
    assert ts["convert"].properties["amount"]["description"] == "How much to convert."  # NumPy style
    assert ts["shout"].properties["times"]["description"] == "How many times."  # reST style
    assert ts["shout"].output_schema == {"type": "string"}
    assert any("tool 'untyped', field 'thing': no type hint" in w for w in ts.warnings)


def test_class_instance_methods_become_bound_tools() -> None:
    loaded = load(f"{SPECS / 'travel.py'}:TravelAgency", trust_code=True)
    assert loaded.owner is not None and loaded.target.endswith("travel.py:TravelAgency")
    ts = loaded.toolset
    assert ts.name == "travel_agency"
    assert set(ts.names) == {
        "book_flight",
        "cancel_booking",
        "get_booking",
        "get_flight",
        "list_bookings",
        "search_flights",
    }
    book = ts["book_flight"]
    assert book.output_schema["title"] == "Booking"
    assert book.properties["seat_class"]["enum"] == ["economy", "premium", "business"]
    assert book.source.python.endswith(":TravelAgency.book_flight")


def test_a_file_with_one_class_is_read_as_that_class() -> None:
    assert load(SPECS / "travel.py", trust_code=True).owner is not None


def test_in_memory_callables_and_objects() -> None:
    def ping(host: str) -> bool:
        """Ping a host."""
        return True

    class Counter:
        def __init__(self) -> None:
            self.n = 0

        def bump(self, by: int = 1) -> int:
            """Add to the counter."""
            self.n += by
            return self.n

    assert from_callables([ping]).names == ["ping"]
    assert from_object(Counter(), name="counter")["bump"].properties["by"]["default"] == 1


def test_python_errors_name_the_file(tmp_path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('boom')\n")
    with pytest.raises(SpecError, match=r"broken.py'.*importing failed: RuntimeError: boom"):
        load(broken, trust_code=True)
    with pytest.raises(SpecError, match="has no attribute 'Nope'"):
        load(f"{SPECS / 'travel.py'}:Nope", trust_code=True)
    with pytest.raises(SpecError, match="file not found"):
        load(tmp_path / "missing.py", trust_code=True)


def test_a_file_imported_by_two_threads_at_once_is_whole_in_both(tmp_path, monkeypatch) -> None:
    """Episodes played side by side (``eval``'s lockstep) each ask for a bound implementation on
    first use: a thread never gets the module another thread is still running."""
    import sys
    import threading
    import types

    from envfactory.ingest.python import import_module_ref

    gate = types.ModuleType("_envfactory_test_gate")
    gate.entered, gate.release = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "_envfactory_test_gate", gate)
    path = tmp_path / "slow_api.py"
    body = "import _envfactory_test_gate as g\ng.entered.set()\ng.release.wait(60)\n"
    path.write_text(body + "\n\nclass SlowAPI:\n    pass\n")
    whole: dict[str, bool] = {}

    def load(name: str) -> None:
        whole[name] = hasattr(import_module_ref(str(path)), "SlowAPI")  # as the module is when handed over

    first = threading.Thread(target=load, args=("first",))
    first.start()
    assert gate.entered.wait(60)  # the first thread is inside the module's body
    second = threading.Thread(target=load, args=("second",))
    second.start()
    second.join(0.5)  # handed the half-run module, it would be done by now; waiting its turn, it is not
    gate.release.set()
    first.join()
    second.join()
    assert whole == {"first": True, "second": True}
