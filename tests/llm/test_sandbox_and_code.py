"""LLM-written behaviours: the sandbox stops hostile code and reports it; written code must pass
the probes or is rejected; accepted code runs in the sandbox and changes state only by checked
changes; the environment keeps working whatever the code does."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.conftest import FIXTURES
from tests.llm.fake_openai import FakeOpenAI, completion

from envfactory.llm import make_client
from envfactory.runtime.environment import Environment
from envfactory.sandbox import run_sandboxed
from envfactory.synth import synthesize
from envfactory.synth.llm_code import extract_code, write_behaviours
from envfactory.synth.selfcheck import self_check

TALLY = """def run(state, args):
    rows = state["ticket"]
    return {"result": {"open": sum(r.get("status") == "open" for r in rows),
                       "closed": sum(r.get("status") == "closed" for r in rows)}}
"""


@pytest.mark.parametrize(
    ("code", "outcome", "detail"),
    [
        ("def run(s, a):\n    open('{tmp}/pwned', 'w').write('x')", "forbidden", "open"),
        ("import socket\ndef run(s, a):\n    return 1", "forbidden", "import socket"),
        ("def run(s, a):\n    import os\n    return os.system('true')", "forbidden", "os.system"),
        ("import subprocess\ndef run(s, a):\n    return 1", "forbidden", "import subprocess"),
        # a busy loop meets the CPU limit, or under load the wall clock first: either stops it
        ("def run(s, a):\n    while True:\n        pass", "timeout", ("CPU", "killed")),
        ("import time\ndef run(s, a):\n    time.sleep(60)", "timeout", "killed"),
        ("def run(s, a):\n    x = []\n    while True:\n        x.append(' ' * 10**6)", "memory", "memory"),
        ("def run(s, a):\n    raise ValueError('bad input')", "error", "ValueError: bad input"),
    ],
)
def test_hostile_code_is_stopped_and_reported(
    code: str, outcome: str, detail: str | tuple[str, ...], tmp_path: Path
) -> None:
    # the clocks are the limit only where a timeout is the point: elsewhere they are far enough that a
    # loaded machine reaches the memory limit (or the error) first, whatever else it runs (filling memory a
    # megabyte at a time took over a second of CPU beside the parallel suite, and met the CPU limit first)
    wall, cpu = (3, 1) if outcome == "timeout" else (120, 60)
    result = run_sandboxed(code.replace("{tmp}", str(tmp_path)), "run", {}, {}, cpu_seconds=cpu, wall_seconds=wall)
    assert result.outcome == outcome and any(
        d in result.detail for d in ((detail,) if isinstance(detail, str) else detail)
    )
    assert not (tmp_path / "pwned").exists()


def test_good_code_answers_and_printing_does_not_corrupt_the_answer() -> None:
    code = "import json\ndef run(state, args):\n    print('noise')\n    return {'n': len(state['x']) + args['k']}"
    result = run_sandboxed(code, "run", {"x": [1, 2]}, {"k": 1})
    assert result.ok and result.value == {"n": 3}


def test_extract_code_reads_fenced_and_bare_answers() -> None:
    assert extract_code(f"Here you go:\n```python\n{TALLY}```\nEnjoy") == TALLY.strip()
    assert extract_code("def run(state, args):\n    return {}") == "def run(state, args):\n    return {}"
    assert extract_code("I cannot do that.") is None


def _write(answers: list[str], tools: list[str] | None = None):
    spec = synthesize(FIXTURES / "tickets_tally.json")
    replies = iter(answers)
    with FakeOpenAI(lambda body: (200, completion({"role": "assistant", "content": next(replies)}))) as server:
        client = make_client("openai:coder", base_url=server.url, cache=None)
        new, results = write_behaviours(spec, client, tools)
        prompts = [r["messages"][0]["content"] for r in server.requests]
    return spec, new, results, prompts


def test_code_that_passes_the_probes_replaces_the_fallback_and_counts_the_state() -> None:
    _, new, results, prompts = _write([f"```python\n{TALLY}```"])
    assert [(r.tool, r.accepted) for r in results] == [("tally_workload", True)]
    assert (
        "How many tickets are open" in prompts[0] and '"ticket"' in prompts[0] and "def run(state, args)" in prompts[0]
    )
    behaviour = new.behaviour("tally_workload")
    assert behaviour.effect.kind == "code" and behaviour.prior == "plausible" and "coder" in behaviour.notes[0]
    episode = Environment(new, trust_code=True).episode()
    rows = list(episode.store.rows("ticket"))
    expected = {"open": sum(r["status"] == "open" for r in rows), "closed": sum(r["status"] == "closed" for r in rows)}
    assert episode.call_tool("tally_workload", {}).data == expected
    episode.call_tool("create_ticket", {"title": "Printer on fire", "status": "open"})
    assert episode.call_tool("tally_workload", {}).data["open"] == expected["open"] + 1
    assert self_check(new, trust_code=True).passed


def test_code_that_fails_the_probes_is_rejected_with_the_reason_and_the_tool_stays_flagged() -> None:
    hostile = "def run(state, args):\n    open('/tmp/envfactory-pwned', 'w')\n    return {'result': {}}"
    wrong = "def run(state, args):\n    return {'result': {'open': 'many'}}"
    _, new, results, prompts = _write([hostile, wrong])
    assert not results[0].accepted and "schema" in results[0].reason
    assert "rejected: " in prompts[1] and "forbidden: open" in prompts[1]  # the retry was told why
    assert new.behaviour("tally_workload").effect.kind == "fallback"
    assert not os.path.exists("/tmp/envfactory-pwned")
    working = Environment(new, trust_code=True).episode().call_tool("tally_workload", {})
    assert working.ok  # the environment keeps working


def test_changes_from_code_are_checked_before_any_is_applied(tmp_path: Path) -> None:
    sneaky = (
        "def run(state, args):\n    row = dict(state['ticket'][0], status='closed')\n"
        "    return {'result': {'open': 0, 'closed': 1}, 'put': {'ticket': [row, {'title': 'no key'}]}}"
    )
    spec = synthesize(FIXTURES / "tickets_tally.json")
    from envfactory.ir.effect import Behaviour, CodeEffect

    effect = CodeEffect(code=sneaky, entities=("ticket",))
    code = Behaviour(tool="tally_workload", effect=effect, prior="plausible")
    behaviours = tuple(code if b.tool == "tally_workload" else b for b in spec.behaviours)
    episode = Environment(spec.model_copy(update={"behaviours": behaviours}), trust_code=True).episode()
    before = episode.state_hash()
    result = episode.call_tool("tally_workload", {})
    assert result.error == "internal_error" and "without its key" in json.loads(result.content)["error"]["message"]
    assert episode.state_hash() == before


GET_FLIGHT = """def run(state, args):
    row = next((r for r in state["flight"] if r["id"] == args["flight_id"]), None)
    if row is None:
        return {"error": {"code": "not_found", "message": "no such flight"}}
    return {"result": row}
"""


def test_where_a_real_implementation_exists_written_code_must_agree_with_it() -> None:
    from tests.conftest import SPECS

    from envfactory.ir.effect import Behaviour, FallbackEffect

    spec = synthesize(SPECS / "travel.py", trust_code=True)
    stub = Behaviour(tool="get_flight", effect=FallbackEffect(reason="pretend"), prior="guess")
    spec = spec.model_copy(update={"behaviours": tuple(stub if b.tool == "get_flight" else b for b in spec.behaviours)})
    wrong = "def run(state, args):\n    return {'error': {'code': 'not_found', 'message': 'never heard of it'}}"
    answers = iter([wrong, wrong, GET_FLIGHT])
    with FakeOpenAI(lambda body: (200, completion({"role": "assistant", "content": next(answers)}))) as server:
        client = make_client("openai:coder", base_url=server.url, cache=None)
        real = f"{SPECS / 'travel.py'}:TravelAgency"
        _, rejected = write_behaviours(spec, client, ["get_flight"], against=real)
        assert not rejected[0].accepted and "disagrees with" in rejected[0].reason
        new, accepted = write_behaviours(spec, client, ["get_flight"], against=real)
    assert accepted[0].accepted and "agreed with" in new.behaviour("get_flight").notes[0]


def test_no_hostile_program_leaves_the_boundary_even_with_the_audit_hook_switched_off() -> None:
    from envfactory.testing.hostile_code import escapes, programs

    chosen = programs()
    found, escaped = escapes(chosen)
    assert len(chosen) >= 50 and escaped == []
    assert sum(v for k, v in found.items() if k.endswith(" programs")) == len(chosen)


def test_floods_are_cut_at_the_cap_and_the_answer_says_so() -> None:
    code = "import sys\ndef run(s, a):\n    while True:\n        sys.stderr.write('x' * 65536)"
    result = run_sandboxed(code, "run", {}, {}, wall_seconds=30)
    assert result.outcome == "flood" and "stderr" in result.detail


def test_the_sandbox_sees_no_environment_and_no_files_of_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVFACTORY_API_KEY", "sk-do-not-leak")
    code = (
        "import __main__\n__main__.hook.__code__ = (lambda e, a: None).__code__\nimport os\n"
        "def run(s, a):\n    return {'env': dict(os.environ), 'root': sorted(os.listdir('/')), 'cwd': os.getcwd()}"
    )
    result = run_sandboxed(code, "run", {}, {})
    assert result.ok and "sk-do-not-leak" not in json.dumps(result.value)
    assert set(result.value["root"]) <= {"usr", "lib", "lib64", "lib32", "etc", "proc", "dev", "root"}


def test_without_a_boundary_code_is_refused_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from envfactory import jail
    from envfactory.sandbox import SandboxUnavailable

    monkeypatch.setattr(jail, "problem", lambda: f"bubblewrap is not installed ({jail.INSTALL})")
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        run_sandboxed("def run(s, a):\n    return 1", "run", {}, {})
    spec = synthesize(FIXTURES / "tickets_tally.json")
    from envfactory.ir.effect import Behaviour, CodeEffect

    code = Behaviour(tool="tally_workload", effect=CodeEffect(code=TALLY, entities=("ticket",)), prior="plausible")
    behaviours = tuple(code if b.tool == "tally_workload" else b for b in spec.behaviours)
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        Environment(spec.model_copy(update={"behaviours": behaviours}), trust_code=True)


def test_a_folder_with_code_needs_consent_and_inspect_says_so_first(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from envfactory.cli.main import app
    from envfactory.errors import EnvSpecError
    from envfactory.ir.effect import Behaviour, CodeEffect

    spec = synthesize(FIXTURES / "tickets_tally.json")
    marker = tmp_path / "ran"
    planted = f"def run(state, args):\n    open({str(marker)!r}, 'w')\n    return {{'result': {{}}}}"
    code = Behaviour(tool="tally_workload", effect=CodeEffect(code=planted, entities=("ticket",)), prior="plausible")
    env_dir = spec.model_copy(
        update={"behaviours": tuple(code if b.tool == "tally_workload" else b for b in spec.behaviours)}
    ).save(tmp_path / "tickets")
    with pytest.raises(EnvSpecError, match="runs code or contacts a model: tally_workload"):
        Environment.load(env_dir)
    runner = CliRunner()
    for command in (["check", str(env_dir)], ["tasks", str(env_dir), "--out", str(tmp_path / "t.jsonl")]):
        refused = runner.invoke(app, command)
        assert refused.exit_code != 0 and "--trust-code" in refused.output, refused.output
    shown = runner.invoke(app, ["inspect", str(env_dir)])
    assert shown.output.index("tally_workload: generated code") < shown.output.index("Tools")
    assert not marker.exists()
