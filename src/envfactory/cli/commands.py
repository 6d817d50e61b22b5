"""Implementations of the CLI commands (kept apart from argument parsing in ``main``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from rich.progress import Progress

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.cli.common import console, err_console, escape, friendly_errors, progress_teller, table
from envfactory.errors import EnvFactoryError
from envfactory.ir.env import EnvSpec, write_json
from envfactory.runtime.environment import Environment, executes
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import FidelityReport, self_check
from envfactory.synth.smoke import smoke_episode
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks


def synth(
    specs: list[str],
    out: Path,
    name: str | None,
    seed: int,
    rows: int,
    state: str,
    bind: bool,
    max_steps: int,
    check: bool,
    trust_code: bool = False,
    ref_roots: tuple[Path, ...] = (),
    model: str | None = None,
    base_url: str | None = None,
    scenario: str | None = None,
    scenario_loader: str | None = None,
    server_env: list[str] | None = None,
) -> int:
    from envfactory.real.mcp import parse_env

    reader = None
    if model is not None:
        from envfactory.llm import make_client

        reader = make_client(model, base_url=base_url)
    if name and len(specs) > 1:
        err_console.print("[bold red]error:[/] --name needs exactly one spec")
        return 2
    summary, failed = [], 0
    written: dict[str, str] = {}  # env name -> the spec it came from in this run
    with Progress(console=err_console, transient=True) as progress:
        task = progress.add_task("synthesizing", total=len(specs))
        for source in specs:
            progress.update(task, description=f"synthesizing {source}")
            try:
                spec = synthesize(
                    source,
                    name=name,
                    seed=seed,
                    rows=rows,
                    state=state,
                    bind=bind,
                    max_steps=max_steps,
                    trust_code=trust_code,
                    ref_roots=ref_roots,
                    reader=reader,
                    scenario=scenario,
                    scenario_loader=scenario_loader,
                    server_env=parse_env(server_env or []),
                )
                if spec.name in written:
                    raise EnvFactoryError(
                        f"{source}: its environment name {spec.name!r} is taken by {written[spec.name]} "
                        "in this run; synthesize it on its own with --name"
                    )
                written[spec.name] = source
                report = self_check(spec, trust_code=trust_code) if check else None
                path = spec.save(out / spec.name, extra={"fidelity.json": report_json(report)} if report else None)
            except EnvFactoryError as err:
                failed += 1
                err_console.print(f"[bold red]error:[/] {escape(str(err))}", soft_wrap=True)
                progress.advance(task)
                continue
            for warning in spec.tools.warnings:
                err_console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
            summary.append(_summary_row(spec, report, path))
            progress.advance(task)
    if summary:
        cols = [
            "env",
            "format",
            "tools",
            "entities",
            "rows",
            "low fid.",
            "warnings",
            "self-check",
            "saved to",
        ]
        console.print(table("Synthesized environments", cols, summary))
    return 1 if failed else 0


def _summary_row(spec: EnvSpec, report: FidelityReport | None, path: Path) -> list[object]:
    formats = sorted({t.source.format for t in spec.tools.tools})
    rows = sum(len(r) for r in spec.initial_state.values())
    low = ", ".join(spec.low_fidelity_tools) or "-"
    checked = "-" if report is None else _check_cell(report)
    return [
        spec.name,
        "/".join(formats),
        len(spec.tools.tools),
        len(spec.state_schema.entities),
        rows,
        low,
        len(spec.tools.warnings),
        checked,
        str(path),
    ]


def _check_cell(report: FidelityReport) -> str:
    counts = report.counts()
    ran = counts["pass"] + counts["fail"]
    skipped = f", {counts['skip']} skip" if counts["skip"] else ""
    return f"{'ok' if report.passed else 'FAIL'} {counts['pass']}/{ran}{skipped}"


def report_json(report: FidelityReport) -> dict[str, object]:
    return {"passed": report.passed, "counts": report.counts(), **report.model_dump(mode="json")}


@friendly_errors
def inspect(env_dir: Path) -> None:
    spec = EnvSpec.load(env_dir)
    running = executes(spec)
    if running:  # first, before anything else: what loading this folder with --trust-code would run
        console.print(f"[bold yellow]runs code or contacts a model ({len(running)} tools); commands that run "
                      "episodes need --trust-code:[/]", soft_wrap=True)  # fmt: skip
        for name, what in running:
            console.print(f"  [bold yellow]![/] {escape(name)}: {escape(what)}", soft_wrap=True)
    console.print(f"[bold]{spec.name}[/] — {escape(spec.description.splitlines()[0] if spec.description else '')}")
    measured = measured_grades(env_dir / "fidelity.json")
    probes = probes_passed(env_dir / "fidelity.json")
    rows = []
    for b in spec.behaviours:
        tool = spec.tools[b.tool]
        rows.append(
            [
                b.tool,
                b.effect.kind,
                getattr(b.effect, "entity", "-") or "-",
                f"{measured[b.tool]} (measured)" if b.tool in measured else f"unmeasured{probes.get(b.tool, '')}",
                ", ".join(tool.required) or "-",
                "; ".join(b.notes) or "-",
            ]
        )
    console.print(table("Tools", ["tool", "effect", "entity", "fidelity", "required", "notes"], rows))
    learned = [c for c in spec.choices if c.chosen.proposer != "descriptions" or c.flagged]
    if learned:
        cols = ["tool", "chosen", "runners-up", "flagged"]
        picked = [[c.tool, f"{c.chosen.proposer}: {c.chosen.summary}", len(c.runners_up), c.flagged or "-"]
                  for c in learned]  # fmt: skip
        console.print(table(f"Chosen on evidence ({spec.choices[0].evidence})", cols, picked))
    ents = [
        [
            e.name,
            e.key,
            ", ".join(f for f in e.fields if f != e.key),
            ", ".join(f"{f}→{t}" for f, t in e.refs.items()) or "-",
            len(spec.initial_state.get(e.name, [])),
        ]
        for e in spec.state_schema.entities
    ]
    console.print(table("Entities", ["entity", "key", "fields", "references", "rows"], ents))
    fidelity = env_dir / "fidelity.json"
    if fidelity.is_file():
        data = json.loads(fidelity.read_text())
        if "counts" in data:
            console.print(f"fidelity.json: {'passed' if data.get('passed') else 'FAILED'} {data.get('counts')}")
        measured = data.get("measured")
        if isinstance(measured, dict):
            console.print(
                f"measured against {measured.get('source')}: outcome agreement {measured.get('outcome', 0):.0%} "
                f"(stub {measured.get('stub_outcome', 0):.0%}), output fields "
                f"{(measured.get('output_fields') or 0):.0%} (stub {(measured.get('stub_output_fields') or 0):.0%})"
            )
    else:
        console.print("no fidelity.json yet — run `envfactory check`")


def probes_passed(path: Path) -> dict[str, str]:
    """Per tool, `` (probes passed: N of M)`` from the self-check saved in ``fidelity.json``: what an
    unmeasured tool has shown (it checks the model against itself, not against the real thing)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    out = {}
    for tool in data.get("tools", []) if isinstance(data, dict) else []:
        checks = [c for c in tool.get("checks", []) if c.get("status") != "skip"]
        passed = sum(c.get("status") == "pass" for c in checks)
        out[str(tool.get("tool"))] = f" (probes passed: {passed} of {len(checks)})"
    return out


def measured_grades(path: Path) -> dict[str, str]:
    """Per-tool grades measured against a real implementation (``envfactory fidelity``), if any.

    Where a measurement exists it is the grade: a tool measured to behave unlike the real one is
    not ``high``, whatever synthesis inferred."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    grades = data.get("measured", {}).get("grades") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in grades.items()} if isinstance(grades, dict) else {}


@friendly_errors
def check(env_dir: Path, seed: int, trust_code: bool = False) -> int:
    spec = EnvSpec.load(env_dir)
    report = self_check(spec, seed=seed, trust_code=trust_code)
    rows = []
    for tool in report.tools:
        for c in tool.checks:
            style = {"pass": "[green]pass[/]", "fail": "[red]FAIL[/]", "skip": "[yellow]skip[/]"}[c.status]
            rows.append(
                [
                    tool.tool,
                    tool.fidelity,
                    c.name,
                    style,
                    c.detail[:90] if c.status != "pass" else "",
                ]
            )
    out = table(f"Self-check of {spec.name}", ["tool", "grade", "check", "result", "detail"], [])
    for row in rows:
        out.add_row(*(escape(str(v)) if i != 3 else v for i, v in enumerate(row)))
    console.print(out)
    console.print(f"deterministic replay: {'yes' if report.deterministic else '[red]NO[/]'}")
    low = [t.tool for t in report.tools if t.low_fidelity]
    if low:
        console.print(f"[yellow]low-fidelity tools (schema-faithful fallback, no state change):[/] {', '.join(low)}")
    write_json(env_dir / "fidelity.json", report_json(report))
    console.print(f"{_check_cell(report)}; saved {env_dir / 'fidelity.json'}")
    return 0 if report.passed else 1


DEMO_TASKS = 150


def environments(out: Path, seed: int) -> tuple[dict[str, Environment], dict[str, list[Any]], int]:
    """Synthesize, self-check, play and make tasks for every bundled spec; print one table."""
    specs_dir = bundled_specs_dir()
    rows, failures = [], 0
    envs: dict[str, Environment] = {}
    tasks: dict[str, list[Any]] = {}
    with Progress(console=err_console, transient=True) as progress:
        task = progress.add_task("demo", total=len(BUNDLED))
        for name, file in BUNDLED.items():
            progress.update(task, description=f"{name}: synthesize, check, play, make tasks")
            spec = synthesize(specs_dir / file, name=name, seed=seed, trust_code=True)  # our own files
            env = Environment(spec)
            report = self_check(spec, env=env, seed=seed)
            path = spec.save(out / "envs" / name, extra={"fidelity.json": report_json(report)})
            run = smoke_episode(env, seed)
            made, made_report = generate_tasks(env, DEMO_TASKS, seed=seed)
            write_tasks(path / "tasks.jsonl", made)
            envs[name], tasks[name] = env, made
            failures += 0 if report.passed and len(made) == DEMO_TASKS else 1
            fmt = "/".join(sorted({t.source.format for t in spec.tools.tools}))
            levels = " ".join(str(made_report.levels.get(level, 0)) for level in range(1, 6))
            rows.append([name, fmt, len(spec.tools.tools), len(spec.state_schema.entities),
                         len(spec.low_fidelity_tools), _check_cell(report), f"{run.ok}/{len(run.calls)}",
                         f"{len(made)} ({levels})", run.state_hash[:8]])  # fmt: skip
            progress.advance(task)
    cols = ["env", "format", "tools", "entities", "low fid.", "self-check", "script ok",
            "tasks (by level 1-5)", "state hash"]  # fmt: skip
    console.print(table("Bundled environments", cols, rows))
    return envs, tasks, failures


def demo(out: Path, seed: int, iterations: int, envs_only: bool, warm_start: int = 8,
         figures: Path | None = None) -> int:  # fmt: skip
    """The end-to-end run: environments and tasks, robust training, held-out evaluation, report."""
    import time

    start = time.perf_counter()
    envs, tasks, failures = environments(out, seed)
    console.print(f"Environments and tasks written to {out}/envs/<name>.")
    if envs_only:
        return 1 if failures else 0
    from envfactory.demo import run_demo

    report = run_demo(envs, tasks, out / "run", seed=seed, iterations=iterations, warm_start=warm_start,
                      say=lambda text: err_console.print(f"[dim]{escape(text)}[/]"))  # fmt: skip
    table_spec = report["tables"][0]
    console.print(table("Evaluation (greedy policies, no randomization)", table_spec["header"],
                        [[r[0], r[1], r[2], f"{r[3]:.1%}", f"{r[4]:.1%}", f"{r[5]:.1f}", f"{r[6]:.1%}"]
                         for r in table_spec["rows"]]))  # fmt: skip
    robust = report["tables"][2]
    console.print(
        table(robust["title"], robust["header"], [[r[0], *(f"{v:.1%}" for v in r[1:])] for r in robust["rows"]])
    )
    for line in report["summary"]:
        console.print(escape(line))
    console.print(f"[bold]Report: {report['path']}[/]")
    if figures is not None:
        from envfactory.demo_figures import figures as headline
        from envfactory.demo_figures import write_figures

        data = headline(report, seed=seed, iterations=iterations, warm_start=warm_start)
        console.print(f"Figures: {write_figures(figures, data)} (the README quotes them)")
    console.print(f"demo took {time.perf_counter() - start:.0f} s")
    return 1 if failures else 0


@friendly_errors
def fidelity(
    env_dir: Path,
    against: str,
    sequences: int,
    length: int,
    seed: int,
    trust_code: bool,
    env: list[str] | None = None,
    log: Path | None = None,
    final_tool: str | None = None,
    scenario: str | None = None,
    scenario_loader: str | None = None,
) -> int:
    """Measure ENV_DIR against a real implementation; print it beside the stub; save it in fidelity.json."""
    from envfactory.real.instrument import measure
    from envfactory.real.mcp import PREFIX, parse_env
    from envfactory.real.replay import measure_trace

    spec = EnvSpec.load(env_dir)
    server_env = parse_env(env or [])
    live = against.startswith(PREFIX)
    if server_env and not live:
        raise EnvFactoryError("--env is passed to an MCP server; --against names none")
    if final_tool is not None and final_tool not in spec.tools.names:
        raise EnvFactoryError(f"--final-tool {final_tool!r} is not a tool of {spec.name}")
    if live:
        log = log or env_dir / "mcp-server.log"
    if against.endswith((".jsonl", ".json")) and not live:  # a recorded trace of a real system
        result = measure_trace(spec, Path(against), trust_code=trust_code)
    else:
        if not trust_code and not live:
            raise EnvFactoryError(
                f"measuring against {against} imports and runs it; pass --trust-code only if you trust that file"
            )
        with Progress(console=err_console, transient=True) as progress:
            bar = progress.add_task(f"replaying {sequences} sequences", total=sequences)
            result = measure(spec, against, sequences=sequences, length=length, seed=seed, env=server_env, log=log,
                             final_tool=final_tool, progress=lambda n: progress.update(bar, completed=n),
                             scenario=scenario, scenario_loader=scenario_loader, trust_code=trust_code)  # fmt: skip

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    rows = [[t.tool, t.calls, pct(t.outcome), pct(t.stub_outcome), pct(t.output_exact), pct(t.stub_output_exact),
             pct(t.output_fields), pct(t.stub_output_fields), t.grade] for t in result.tools]  # fmt: skip
    rows.append(["all", result.calls, pct(result.outcome), pct(result.stub_outcome), pct(result.output_exact),
                 pct(result.stub_output_exact), pct(result.output_fields), pct(result.stub_output_fields),
                 ""])  # fmt: skip
    cols = ["tool", "calls", "outcome agrees", "stub", "output exact", "stub", "output fields", "stub", "grade"]
    console.print(table(f"{spec.name} against {against} ({sequences} sequences of {length} calls)", cols, rows))
    if live:
        console.print(f"server stderr: {log}")
    if against.endswith((".jsonl", ".json")) and not live:
        console.print("final state: not measured (a trace records outputs, not the real system's state)")
    else:
        why = "" if result.final_state is not None else " (no records map onto entities; name a --final-tool)"
        console.print(f"final state equal after a sequence: {pct(result.final_state)}{why}")
    path = env_dir / "fidelity.json"
    saved = json.loads(path.read_text()) if path.is_file() else {}
    write_json(path, {**saved, "measured": {**result.model_dump(mode="json"), "grades": result.grades()}})
    console.print(f"saved in {path}")
    return 0


@friendly_errors
def learn(descriptions: str, source: str, out: Path, *, budget: int, seed: int, held_out: float, name: str | None,
          trust_code: bool, env: list[str], final_tool: str | None, scenario: str | None,
          test_calls: int = 0) -> int:  # fmt: skip
    """Synthesize DESCRIPTIONS, learn each tool's behaviour from SOURCE, save the environment with its
    choices, the evidence (trace.jsonl), the held-out figures (learn.json) and grades (fidelity.json)."""
    from envfactory.real.learn import learn as learn_from
    from envfactory.real.mcp import PREFIX, parse_env
    from envfactory.real.trace import write_trace
    from envfactory.synth import synthesize

    live = source.startswith(PREFIX)
    trace = source.endswith((".jsonl", ".json")) and not live
    if not trace and not trust_code:
        raise EnvFactoryError(f"learning from {source} runs it: pass --trust-code only if you trust it")
    server_env = parse_env(env)
    if server_env and not live:
        raise EnvFactoryError("--env is passed to an MCP server; --from names none")
    if test_calls and trace:
        raise EnvFactoryError("--test-calls explores a live source apart; a trace is measured on its own held-out "
                              "sequences (its held_out line, else --held-out of them)")  # fmt: skip
    from_server = server_env if descriptions.startswith(PREFIX) else None
    spec = synthesize(descriptions, name=name, seed=seed, state="empty" if live else "seeded",
                      trust_code=trust_code, server_env=from_server)  # fmt: skip
    folder = out / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    with Progress(console=err_console, transient=True) as progress:
        bar = progress.add_task(f"learning {spec.name} from {source}", total=None)
        learned, report, evidence = learn_from(
            spec, source, budget=budget, seed=seed, held_out=held_out, test_budget=test_calls, env=server_env,
            final_tool=final_tool,
            scenario=scenario, log=folder / "mcp-server.log" if live else None,
            progress=progress_teller(lambda message: progress.update(bar, description=message)),
        )  # fmt: skip
    learned.save(folder)
    write_trace(evidence, folder / "trace.jsonl")
    write_json(folder / "learn.json", report.model_dump(mode="json"))
    figures = {"outcome": report.learned.outcome, "stub_outcome": report.stub.outcome,
               "output_fields": report.learned.fields, "stub_output_fields": report.stub.fields}  # fmt: skip
    write_json(folder / "fidelity.json",
               {"measured": {"source": source, "held_out": True, **figures, "grades": report.grades}})  # fmt: skip
    console.print(learn_table(report, spec.name))
    for line in coverage_lines(report, evidence, spec.tools.names):
        console.print(f"  {escape(line)}")
    for tool, summary in sorted(report.changed.items()):
        console.print(f"  {tool}: {escape(summary)}")
    if report.volatile:  # what no model can agree with: a second copy of the real thing answered otherwise
        more = len(report.volatile) - 6
        shown = ", ".join(report.volatile[:6]) + (f" and {more} more" if more > 0 else "")
        console.print(f"  compared by presence only (a fresh copy answered them otherwise): {escape(shown)}")
    if report.final_reads:
        console.print(f"  final state: what {', '.join(report.final_reads)} answer at each sequence's end "
                      "(--final-tool names a tool that reads everything)")  # fmt: skip
    console.print(f"saved in {folder} (choices.json, trace.jsonl, learn.json, fidelity.json)")
    return 0


def coverage_lines(report: Any, evidence: Any, tools: list[str]) -> list[str]:
    """What the figures rest on: the held-out calls both sides refused (the earned column leaves them
    out), and the tools the real side accepted no call of — nothing was learned of them."""
    lines = []
    both = report.learned.mutual_refusals
    if both:
        lines.append(f"{both:.0%} of the held-out calls were refused by both sides: the earned outcome leaves them out")
    accepted = {c.tool for s in evidence.sequences for c in s.calls if c.ok}
    unseen = [t for t in tools if t not in accepted]
    if unseen:
        shown = ", ".join(unseen[:8]) + (f" and {len(unseen) - 8} more" if len(unseen) > 8 else "")
        lines.append(f"the real side accepted no call of {len(unseen)} of {len(tools)} tools (nothing learned of "
                     f"them; their behaviour is the descriptions'): {shown}")  # fmt: skip
    return lines


def learn_table(report: Any, name: str) -> Any:
    """The held-out figures of a learn report, each side in a row."""

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    sides = [("descriptions only", report.described), ("learned", report.learned), ("stub", report.stub)]
    if report.ceiling is not None:
        sides.append(("real, second copy (ceiling)", report.ceiling))
    rows = [[label, pct(f.outcome), pct(f.earned_outcome), pct(f.exact), pct(f.fields),
             pct(report.stub_final_state if label == "stub" else f.final_state)] for label, f in sides]  # fmt: skip
    title = (f"{name}: {report.calls} calls from {report.source}, figures on {report.held_out_sequences} held-out "
             f"sequences ({report.seconds:.1f} s)")  # fmt: skip
    return table(title, ["side", "outcome", "outcome (earned)", "exact", "fields", "final state"], rows)


@friendly_errors
def write_code(env_dir: Path, model: str, base_url: str | None, tools: list[str], against: str | None = None,
               trust_code: bool = False) -> int:  # fmt: skip
    """Ask a model for code behaviours; keep the ones that pass; save the environment."""
    from envfactory.llm import make_client
    from envfactory.real.mcp import PREFIX
    from envfactory.sandbox import require_boundary
    from envfactory.synth.llm_code import write_behaviours

    if against is not None and not against.startswith(PREFIX) and not trust_code:
        raise EnvFactoryError(f"checking against {against} imports and runs it; pass --trust-code if you trust it")
    require_boundary()  # before asking the model: its code could not run here
    spec = EnvSpec.load(env_dir)
    unknown = sorted(set(tools) - set(spec.tools.names))
    if unknown:
        raise EnvFactoryError(f"not tools of {spec.name}: {', '.join(unknown)}")
    if not trust_code:
        Environment(spec)  # the folder's own code and simulated tools run in the probes: they need consent too
    client = make_client(model, base_url=base_url)
    with err_console.status(f"{client.model} is writing code"):
        new, results = write_behaviours(spec, client, tools or None, against=against)
    if not results:
        console.print("no fallback tools: nothing to write")
        return 0
    console.print(table(f"Code written by {client.model}", ["tool", "accepted", "reason"],
                        [[r.tool, "yes" if r.accepted else "no", r.reason] for r in results]))  # fmt: skip
    if any(r.accepted for r in results):
        path = new.save(env_dir)
        console.print(f"saved {path}; run `envfactory check {env_dir}` to re-run every probe")
    return 0 if all(r.accepted for r in results) else 1


def _start_workers(workers: int, options: dict[str, Any], *, token: str | None, **settings: Any) -> None:
    """uvicorn's supervisor over ``workers`` processes, each building its app from ``settings``
    (:mod:`envfactory.serve.workers`); returns when they have stopped."""
    import uvicorn

    from envfactory.serve.workers import SETTINGS, TOKEN, WorkerSettings

    os.environ[SETTINGS] = WorkerSettings(**settings).model_dump_json()
    if token:
        os.environ[TOKEN] = token
    uvicorn.run("envfactory.serve.workers:app", factory=True, workers=workers, **options)


@friendly_errors
def serve(env_dir: Path, mcp: bool, tasks_file: Path | None, control: bool, trust_code: bool, *,
          host: str = "127.0.0.1", port: int = 8000, max_sessions: int = 64,
          mcp_http: bool = False, token: str | None = None, max_body: int = 1 << 20,
          idle_s: float = 300.0, trajectories: Path | None = None, step_timeout_s: float = 60.0,
          workers: int = 1) -> int:  # fmt: skip
    """Serve ENV_DIR over HTTP/WebSocket (OpenEnv) or, with ``--mcp``, over MCP stdio (where stdout
    belongs to the protocol and messages go to stderr). ``workers``: OpenEnv server processes
    sharing the port (:mod:`envfactory.serve.workers`)."""
    from envfactory.tasks.taskset import TaskSet

    spec = EnvSpec.load(env_dir)
    tasks = {t.id: t for t in TaskSet(tasks_file)} if tasks_file is not None else {}
    if mcp and mcp_http:
        raise EnvFactoryError("choose one: --mcp (stdio) or --mcp-http")
    if workers > 1 and (mcp or mcp_http):
        raise EnvFactoryError("--workers serves the OpenEnv protocol in several processes; MCP is served by one")
    if mcp_http:
        import uvicorn

        from envfactory.serve.guard import quiet_gc, server_options
        from envfactory.serve.mcp import http_app

        app = http_app(env_dir, tasks, control=control, trust_code=trust_code, max_sessions=max_sessions, host=host,
                       token=token, max_body=max_body, idle_s=idle_s)  # fmt: skip
        quiet_gc()
        guarded = "a bearer token required" if token else "no token (anyone who can reach it may use it)"
        err_console.print(f"serving {spec.name} over MCP (streamable HTTP) at http://{host}:{port}/mcp: at most "
                          f"{max_sessions} sessions, {guarded}")  # fmt: skip
        uvicorn.run(app, host=host, port=port, log_level="warning", **server_options(max_sessions=max_sessions))
        return 0
    if not mcp:
        import uvicorn

        from envfactory.integrations.openenv import make_app
        from envfactory.serve.guard import quiet_gc, server_options
        from envfactory.serve.workers import per_worker

        saved = trajectories or env_dir / "served" / "trajectories.jsonl"
        each = per_worker(max_sessions, workers)
        try:  # built here even for workers: what cannot be served is said before any starts
            app = make_app(env_dir, tasks, max_sessions=each, trust_code=trust_code, token=token,
                           max_body=max_body, idle_s=idle_s, trajectories=saved,
                           step_timeout_s=step_timeout_s)  # fmt: skip
        except OSError as err:
            raise EnvFactoryError(f"cannot write trajectories to {saved}: {err.strerror}; pass --trajectories") from err
        quiet_gc()
        guarded = "a bearer token required" if token else "no token (anyone who can reach it may use it)"
        where = f"at most {max_sessions} sessions"
        if workers > 1:
            where = f"{workers} worker processes, {each} sessions each"
        err_console.print(f"serving {spec.name} (OpenEnv protocol) on http://{host}:{port}: {len(tasks)} tasks, "
                          f"{where}, {guarded}; finished trajectories go to {saved}; Ctrl-C stops")  # fmt: skip
        # tool messages are small: compressing each WebSocket frame costs more than it saves
        options = {"host": host, "port": port, "log_level": "warning", "ws_per_message_deflate": False,
                   **server_options(max_sessions=each)}  # fmt: skip
        if workers > 1:
            _start_workers(workers, options, env_dir=env_dir, tasks_file=tasks_file, max_sessions=each,
                           trust_code=trust_code, max_body=max_body, idle_s=idle_s, trajectories=saved,
                           step_timeout_s=step_timeout_s, token=token)  # fmt: skip
            return 0
        uvicorn.run(app, **options)
        return 0
    from envfactory.serve.mcp import serve_stdio

    err_console.print(f"serving {spec.name} over MCP (stdio): {len(spec.tools.tools)} tools, {len(tasks)} tasks")
    serve_stdio(env_dir, tasks, control=control, trust_code=trust_code)
    return 0


@friendly_errors
def export(out: Path, tasks_file: Path | None, env_dir: Path | None, trajectories: Path | None, name: str) -> int:
    from envfactory.export import export_dataset
    from envfactory.ir.trajectory import Trajectory
    from envfactory.tasks.taskset import TaskSet

    if tasks_file is None and trajectories is None:
        raise EnvFactoryError("nothing to export: give --tasks and/or --trajectories")
    tasks = list(TaskSet(tasks_file)) if tasks_file is not None else []
    env = Environment.load(env_dir) if env_dir is not None else None
    trajs = []
    if trajectories is not None:
        fields = set(Trajectory.model_fields)
        for number, line in enumerate(trajectories.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    trajs.append(Trajectory.model_validate({k: v for k, v in json.loads(line).items() if k in fields}))
                except ValueError as err:
                    raise EnvFactoryError(f"{trajectories}: line {number} is not a trajectory: {err}") from None
    path = export_dataset(out, tasks=tasks, trajectories=trajs, env=env, name=name)
    console.print(f"wrote {len(tasks)} tasks and {len(trajs)} trajectories to {path} (JSON lines, Parquet, README.md)")
    return 0


@friendly_errors
def simulate(env_dir: Path, model: str, base_url: str | None, tools: list[str]) -> int:
    """Mark tools as simulated by a model; save the environment."""
    from envfactory.ir.effect import Behaviour, FallbackEffect, SimulatedEffect, changes_state

    spec = EnvSpec.load(env_dir)
    unknown = sorted(set(tools) - set(spec.tools.names))
    if unknown:
        raise EnvFactoryError(f"not tools of {spec.name}: {', '.join(unknown)}")
    chosen = tools or [b.tool for b in spec.behaviours if isinstance(b.effect, FallbackEffect) and not b.effect.writes]
    writes = [b.tool for b in spec.behaviours if b.tool in chosen and (changes_state(b.effect) or
                                                                      getattr(b.effect, "writes", False))]  # fmt: skip
    if writes:
        raise EnvFactoryError(f"a simulated tool never writes; these do: {', '.join(writes)}")
    if not chosen:
        console.print("no read-only fallback tools: nothing to simulate")
        return 0
    entities = tuple(spec.state_schema.names)
    effect = SimulatedEffect(model=model, entities=entities)  # the address stays the user's, out of the folder
    note = (f"answered by {model}, validated against the output schema and cached",)
    new = tuple(Behaviour(tool=b.tool, effect=effect, prior="simulated", notes=note) if b.tool in chosen else b
                for b in spec.behaviours)  # fmt: skip
    path = spec.model_copy(update={"behaviours": new}).save(env_dir)
    console.print(f"simulated by {model}: {', '.join(chosen)}; saved {path}")
    if base_url:
        console.print(f"the folder records no address: set ENVFACTORY_BASE_URL={base_url} where episodes run "
                      "(and pass --trust-code: simulated tools contact a model)")  # fmt: skip
    return 0
