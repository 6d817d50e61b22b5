"""The report page: the held-out curve of a real (tiny) training run, tables in one unit per
column that fit the page, transcripts in full."""

import base64
import json
import re
from pathlib import Path

import pytest

from envfactory.eval.curves import held_out_rows, moving_average, series_id
from envfactory.eval.report import FOLD_CHARS, write_report
from envfactory.eval.tables import MAX_COLUMNS, cell, column_units, html_table, turned
from envfactory.rl.held_out import HELD_OUT_FILE, HeldOut
from envfactory.rl.trainer import TrainConfig, train
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def svg_images(page: str) -> list[str]:
    return [base64.b64decode(b).decode() for b in re.findall(r"src='data:image/svg\+xml;base64,([^']+)'", page)]


def line_points(svg: str, gid: str) -> list[tuple[float, float]]:
    """The vertices of the first path inside the SVG group ``gid``."""
    group = svg[svg.index(f'<g id="{gid}">') :]
    d = re.search(r'<path d="([^"]+)"', group)
    assert d is not None
    return [(float(x), float(y)) for x, y in re.findall(r"[ML] ([-\d.]+) ([-\d.]+)", d.group(1))]


def test_the_report_of_a_tiny_run_holds_the_held_out_curve(bundled_envs: dict[str, Environment], tmp_path: Path):
    env = bundled_envs["library"]
    tasks = [t for t in generate_tasks(env, 20, seed=3)[0] if t.level <= 2]
    assert len(tasks) >= 6, len(tasks)
    held_out = HeldOut({"held-out tasks": {"library": (env, tasks[-3:])}}, every=1, sample=3, seed=0)
    config = TrainConfig(iterations=2, tasks_per_batch=2, group=2, seed=0)
    train({"library": env}, {"library": tasks[:-3]}, config, tmp_path, held_out=held_out)
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    points = [json.loads(line) for line in (tmp_path / HELD_OUT_FILE).read_text().splitlines()]
    assert [p["iteration"] for p in points] == [0, 1, 2]
    curve = {"title": "Learning curve", "metrics": metrics, "held_out": points}
    page = write_report(tmp_path, {"title": "tiny run", "curves": [curve]}).read_text()

    (svg,) = svg_images(page)
    assert "held-out: held-out tasks (greedy)" in svg  # the legend names the curve
    vertices = line_points(svg, series_id("held-out tasks"))
    assert len(vertices) == 3  # one vertex per evaluation point, left to right
    assert vertices[0][0] < vertices[1][0] < vertices[2][0]
    successes = [p["success"] for p in points]
    if len(set(successes)) > 1:  # the vertical positions follow the successes (y grows downwards)
        lo, hi = successes.index(min(successes)), successes.index(max(successes))
        assert vertices[lo][1] > vertices[hi][1]
    for key in ("loss", "entropy", "kl"):  # the update's series beside it, one vertex per iteration
        assert len(line_points(svg, f"update-{key}")) == 2
    assert "Held-out success along training" in page
    for p in points:
        assert f"<tr><td>{p['iteration']}</td><td>{p['success']:.1%}</td></tr>" in page


def test_held_out_rows_and_moving_average_by_hand() -> None:
    points = [
        {"iteration": 10, "split": "a", "success": 0.5},
        {"iteration": 0, "split": "a", "success": 0.25},
        {"iteration": 0, "split": "b", "success": 1.0},
    ]
    assert held_out_rows(points) == (["iteration", "a", "b"], [[0, 0.25, 1.0], [10, 0.5, ""]])
    assert moving_average([1.0, 0.0, 0.5, 0.5], window=2) == [1.0, 0.5, 0.25, 0.5]


def test_one_unit_per_column() -> None:
    header, rows = ["policy", "tasks", "success", "steps"], [["a", 78, 1, 3.1], ["b", 145, 0.324, 2.8]]
    assert column_units(header, rows) == ["text", "count", "percent", "number"]  # 1 and 0.324: both percents
    assert column_units(header, [["a", 3, 1, 2]]) == ["text", "count", "count", "count"]
    units = ["text", "count", "percent", "number"]
    assert column_units(header, [["a", 3, 1, 2]], units) == units  # declared units win
    assert [cell(1, "percent"), cell(0, "percent"), cell(0.324, "percent")] == ["100.0%", "0.0%", "32.4%"]
    assert [cell(78, "count"), cell(3.14159, "number"), cell("x", "percent")] == ["78", "3.14", "x"]
    with pytest.raises(ValueError, match="one of"):
        column_units(header, rows, ["text", "count"])


def test_a_wide_table_turns_on_its_side() -> None:
    settings = [f"family{i}:stress" for i in range(MAX_COLUMNS + 1)]
    header = ["policy", *settings]
    rows = [["ours", *[0.5] * len(settings)], ["random", *[0.0] * len(settings)]]
    units = column_units(header, rows)
    flipped = turned(header, rows, units, corner="setting")
    assert flipped is not None
    new_header, new_rows, new_units = flipped
    assert new_header == ["setting", "ours", "random"]
    assert new_rows[0] == ["family0:stress", 0.5, 0.0] and len(new_rows) == len(settings)
    assert new_units == ["text", "percent", "percent"]
    page = html_table({"header": header, "rows": rows, "corner": "setting"})
    assert page.count("<th>") == 3 and "<td>family7:stress</td><td>50.0%</td><td>0.0%</td>" in page
    assert turned(["p", "n", "s"], [["a", 3, 0.5]], ["text", "count", "percent"]) is None  # mixed units stay


def test_transcripts_are_whole_and_long_outputs_folded(tmp_path: Path) -> None:
    long_output = "row " * 400 + "THE-END"
    traj = {"env": "shop", "task_id": "t1", "success": False, "steps": 2, "reasons": ["a: wrong", "b: missing"],
            "messages": [{"role": "user", "content": "Cancel my order."},
                         {"role": "assistant", "content": None, "tool_calls": [
                             {"function": {"name": "list_orders", "arguments": "{}"}}]},
                         {"role": "tool", "content": long_output}]}  # fmt: skip
    page = write_report(tmp_path, {"title": "t", "transcripts": [traj]}).read_text()
    assert len(long_output) > FOLD_CHARS and "THE-END" in page  # nothing cut
    assert "<details class=t><summary><b>tool</b>" in page  # the long output is folded
    assert "failure (2 reasons)" in page and "<li>b: missing</li>" in page
    assert "list_orders({})" in page
