"""Read-only APIs (search, catalogues, reference data) get answer tasks that trivial agents fail."""

from __future__ import annotations

from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import CarelessReader, gold, noop, success_rate
from envfactory.tasks.generate import baselines, generate_tasks
from envfactory.users.scripted import ScriptedUser


def test_a_read_only_api_yields_verified_answer_tasks() -> None:
    env = Environment(synthesize(FIXTURES / "catalogue.yaml"))
    tasks, report = generate_tasks(env, 30, seed=0)
    assert len(tasks) == 30 and report.kept == 30
    kinds = {env.spec.behaviour(c.tool).effect.kind for t in tasks for c in t.gold}
    assert kinds <= {"read", "list"} and all(t.goal.answer for t in tasks)
    assert all(t.goal.state_hash == env.base.hash for t in tasks)  # nothing to change
    shapes = {t.blueprint.shape() for t in tasks if t.blueprint}
    assert len(shapes) >= 3  # counts, sums and look-ups
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    assert success_rate(episode, tasks, gold) == 1.0
    assert success_rate(episode, tasks, noop) == 0.0
    assert success_rate(episode, tasks, lambda t: CarelessReader()) == 0.0
    assert all(v == 0.0 for v in baselines(env, tasks).values())
    assert not any(fact in t.instruction for t in tasks for fact in t.goal.answer)


def test_records_found_by_a_field_their_route_names_are_asked_about(tmp_path) -> None:
    """``GET /airport/iata/{airport_iata}`` and ``/airport/name/{airport_name}``: the airport found by
    its iata code or its name — one entity, not an "iata" and a "name" table keyed by made-up ids —,
    and a read-only API of such look-ups still gets answer tasks ("the elevation of the airport whose
    iata code is 'LHR'"), found the way a person would, and proven against trivial agents. Before,
    each route was a table of its own, its argument compared with nothing."""
    from tests.synth.openapi_docs import get, synthesize_paths

    airport = {"type": "object", "properties": {
        "airport_name": {"type": "string"}, "iata_code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "city": {"type": "string"}, "elevation_ft": {"type": "integer"}}}  # fmt: skip
    spec = synthesize_paths(tmp_path, {
        "/v1/airport/iata/{airport_iata}": get("byIata", airport, "airport_iata"),
        "/v1/airport/name/{airport_name}": get("byName", airport, "airport_name"),
    })  # fmt: skip
    assert [e.name for e in spec.state_schema.entities] == ["airport"]
    by = {b.tool: b.effect for b in spec.behaviours}
    assert [(f.arg, f.field, f.op) for f in by["byIata"].filters] == [("airport_iata", "iata_code", "eq")]  # type: ignore[union-attr]
    env = Environment(spec)
    row = spec.initial_state["airport"][0]
    episode = env.episode()
    assert row["city"] in episode.call_tool("byIata", {"airport_iata": row["iata_code"]}).content
    tasks, _ = generate_tasks(env, 20, seed=0)
    assert len(tasks) == 20 and all(t.goal.answer for t in tasks)
    assert any("iata code is" in t.instruction for t in tasks), [t.instruction for t in tasks]
    assert not any("airport iata" in t.instruction for t in tasks)
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    assert success_rate(episode, tasks, gold) == 1.0
    assert success_rate(episode, tasks, noop) == 0.0
    assert all(v == 0.0 for v in baselines(env, tasks).values())


def test_a_list_that_requires_its_page_is_walked_with_the_first_page(tmp_path) -> None:
    """Mastercard's ``GET /atms/v1/atm?PageOffset=&PageLength=`` (both required): the page size and
    offset are paging, not values the answer is computed from; tasks call it with a wide first
    page. Before, the list fell back ("computes its answer from PageLength, PageOffset") and the
    API's main records got no task."""
    from tests.synth.openapi_docs import ok, synthesize_paths

    atm = {"type": "object", "properties": {"Owner": {"type": "string"}, "Sponsor": {"type": "string"},
                                            "LocationName": {"type": "string"}}}  # fmt: skip
    page = [{"name": n, "in": "query", "required": True, "schema": {"type": "integer"}}
            for n in ("PageOffset", "PageLength")]  # fmt: skip
    spec = synthesize_paths(tmp_path, {"/atms/v1/atm": {"get": {"operationId": "atms", "parameters": page,
        "responses": ok({"type": "object", "properties": {"Atms": {"type": "array", "items": atm}}})}}})  # fmt: skip
    effect = spec.behaviour("atms").effect
    assert effect.kind == "list" and effect.paging.limit_arg == "PageLength"  # type: ignore[union-attr]
    assert effect.paging.offset_arg == "PageOffset"  # type: ignore[union-attr]
    env = Environment(spec)
    tasks, _ = generate_tasks(env, 10, seed=0)
    assert len(tasks) == 10 and all(t.gold[0].args["PageOffset"] == 0 for t in tasks)
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_a_page_limit_pages_and_is_no_field(tmp_path) -> None:
    """Rotten Tomatoes' ``?page_limit=&page=``: paging, not a field of the records listed (tasks had
    asked about "the dvd whose page limit is 'moment'")."""
    from tests.synth.openapi_docs import ok, synthesize_paths

    dvd = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}
    params = [{"name": n, "in": "query", "schema": {"type": "integer"}} for n in ("page_limit", "page")]
    spec = synthesize_paths(tmp_path, {"/dvds": {"get": {"operationId": "dvds", "parameters": params,
        "responses": ok({"type": "object", "properties": {"movies": {"type": "array", "items": dvd}}})}}})  # fmt: skip
    effect = spec.behaviour("dvds").effect
    assert effect.paging.limit_arg == "page_limit" and effect.paging.page_arg == "page"  # type: ignore[union-attr]
    assert "page_limit" not in spec.state_schema["dvd"].fields


def test_records_a_search_term_finds_are_asked_about_by_their_title(tmp_path) -> None:
    """ISBNdb's shape: ``GET /book/{isbn}`` reads a book, ``GET /books/{query}`` searches the books (a
    search term keys no book, and the search declares no answer). Before, the search was a read of
    a book keyed by the query and nothing listed or found the books: no task at all. Now the search
    finds a book by its title — "the publisher of the book whose title is '...'" —, the page it asks
    for is the agent's business, and trivial agents fail."""
    from tests.synth.openapi_docs import get, synthesize_paths

    text, number = {"type": "string"}, {"type": "integer"}
    book = {"type": "object", "properties": {"isbn": text, "title": text, "publisher": text, "pages": number}}
    search = get("searchBooks", {}, "query")
    search["get"]["parameters"].append({"name": "pageSize", "in": "query", "schema": {"type": "integer"}})
    search["get"]["responses"] = {"200": {"description": "the books matching the query"}}
    spec = synthesize_paths(tmp_path, {"/book/{isbn}": get("getBook", book, "isbn"), "/books/{query}": search})
    effect = spec.behaviour("searchBooks").effect
    assert effect.kind == "list" and [(f.arg, f.op) for f in effect.filters] == [("query", "search")]  # type: ignore[union-attr]
    env = Environment(spec)
    tasks, _ = generate_tasks(env, 20, seed=0)
    assert len(tasks) == 20 and all(t.goal.answer for t in tasks)
    found = [t for t in tasks if any(c.tool == "searchBooks" for c in t.gold)]
    assert found and all("whose title is" in t.instruction for t in found), [t.instruction for t in found]
    assert not any("page size" in t.instruction or "query" in t.instruction for t in tasks)
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    assert success_rate(episode, tasks, gold) == 1.0
    assert success_rate(episode, tasks, noop) == 0.0
    assert all(v == 0.0 for v in baselines(env, tasks).values())
