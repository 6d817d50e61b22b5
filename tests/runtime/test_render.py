"""A tool's answer rendered from kept records of the starting rows (``shape.remembered``,
``compile_renderer``) is the same text as shaping and serializing it afresh, on every call of every
bundled environment, and never stale: a row written in one episode is answered anew there and
unchanged in the others."""

from __future__ import annotations

import random

from envfactory.core import to_json_text
from envfactory.runtime.behaviours import CallContext
from envfactory.runtime.environment import Environment
from envfactory.runtime.shape import ANSWERS, RECENT_ROWS, compile_renderer, compile_shaper
from envfactory.synth.arguments import sample_arguments
from envfactory.values import ValueMaker


def test_rendered_answers_are_the_fresh_shaping_on_every_bundled_environment(
    bundled_envs: dict[str, Environment],
) -> None:
    compared = 0
    for env in bundled_envs.values():
        episode = env.episode(max_steps=10**6)
        maker, rng = ValueMaker(0), random.Random(0)
        calls = [(b.tool, sample_arguments(env.spec, b, episode.store, maker)) for b in env.spec.behaviours * 6]
        for tool_name, args in rng.sample(calls, len(calls)):
            tool = env.tools[tool_name]
            if tool.render is None or tool.validate(args) is not None:
                continue
            ctx: CallContext = episode._ctx
            try:
                value = tool.execute(ctx, args)
            except Exception:  # a refusal: nothing is rendered
                continue
            assert tool.render(value) == tool.render(value) == to_json_text(tool.shape(value))
            compared += 1
    assert compared > 100


def test_a_row_only_json_can_write_is_rendered_as_json_writes_it() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}
    rows = [{"id": 1, "x": 0}, {"id": 2**70}]
    render, plain = compile_renderer(schema, None, frozenset(map(id, rows))), compile_shaper(schema)
    assert render(rows) == render(rows) == to_json_text(plain(rows)) == '[{"id":1},{"id":1180591620717411303424}]'


def test_a_written_row_is_answered_anew_and_other_episodes_still_see_the_old_one(
    bundled_envs: dict[str, Environment],
) -> None:
    shop = bundled_envs["shop"]
    first, second = shop.episode(), shop.episode()
    product = shop.spec.initial_state["product"][0]["id"]
    before = first.call_tool("get_product", {"product_id": product}).data
    assert second.call_tool("get_product", {"product_id": product}).data == before
    changed = first.call_tool("update_product", {"product_id": product, "stock": before["stock"] + 7})
    assert changed.ok and first.call_tool("get_product", {"product_id": product}).data["stock"] == before["stock"] + 7
    listed = {p["id"]: p for p in first.call_tool("search_products", {}).data}
    assert listed[product]["stock"] == before["stock"] + 7
    assert second.call_tool("get_product", {"product_id": product}).data == before
    assert {p["id"]: p for p in second.call_tool("search_products", {}).data}[product] == before


def test_the_records_of_written_rows_are_kept_beside_their_rows_and_dropped_past_the_bound() -> None:
    schema = {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"},
              "name": {"type": "string"}}, "required": ["id"]}}  # fmt: skip
    start = [{"id": 0, "name": "start"}]
    render, plain = compile_renderer(schema, None, frozenset(map(id, start))), compile_shaper(schema)
    written = [{"id": i, "name": f"row {i}", "x": 1} for i in range(1, RECENT_ROWS + 50)]
    for _ in range(2):  # past the bound, then again: each answer is the fresh shaping of the rows as they are
        for i in range(0, len(written), 97):
            rows = start + written[i : i + 97]
            assert render(rows) == to_json_text(plain(rows))
    again = [{**row, "name": "changed"} for row in written[:5]]  # new rows, possibly at a freed row's address
    del written
    assert render(again) == to_json_text(plain(again))
    assert '"changed"' in render(again)


def test_list_answers_kept_whole_are_dropped_past_their_bounds_and_stay_right() -> None:
    schema = {
        "type": "array",
        "items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    }
    start = [{"id": i, "x": i} for i in range(40)]
    render, plain = compile_renderer(schema, None, frozenset(map(id, start))), compile_shaper(schema)
    lists = [[*start[i % 40 : i % 40 + 1 + i % 37], {"id": 1000 + i}] for i in range(ANSWERS + 60)]
    for rows in lists + lists[:50]:  # past every bound, then again
        assert render(rows) == to_json_text(plain(rows))
