"""The ``envfactory`` command: synth, inspect, check, play, demo."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="envfactory",
    help="Turn tool descriptions into executable, verifiable environments for tool-using agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

TrustCode = Annotated[
    bool,
    typer.Option(
        "--trust-code",
        help="Allow running code the spec or environment names (a Python file, a server, generated code) and "
        "simulated tools that contact a model. Off by default.",
    ),
]
JUDGE_HELP = (
    "Who flags episodes the user spoiled (masked in training, reported in evaluation): facts (rules), local (the "
    "embedded model), openai:NAME (an endpoint, with the --base-url / --judge-base-url given), or none."
)
RefRoot = Annotated[
    list[Path] | None,
    typer.Option("--ref-root", help="Another folder that $ref may read (besides the spec's own; repeatable)."),
]

AGENTS = ("gold", "noop", "read-only", "random")  # the agents `solve` can run

SPECS_HELP = (
    "Tool descriptions: OpenAPI/Swagger (YAML/JSON, or a folder holding openapi.yaml), MCP tools/list "
    "JSON, OpenAI/Anthropic function JSON, a Python file (optionally FILE.py:Class), or "
    "'mcp+stdio:COMMAND' to list a live MCP server's tools."
)


Scenario = Annotated[
    Path | None,
    typer.Option(
        help="A JSON file loaded into every fresh object of a bound Python class (its initial state); for a "
        'live server, calls [{"tool": ..., "arguments": {...}}] made on every fresh server first.'
    ),
]
ScenarioLoader = Annotated[
    str | None,
    typer.Option(
        help="The method that loads --scenario [default: _load_scenario, load_scenario, load_state, "
        "set_state or load, whichever the class has]."
    ),
]


@app.command()
def synth(
    specs: Annotated[list[str], typer.Argument(help=SPECS_HELP, show_default=False)],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Output folder; each environment goes to OUT/<name>."),
    ] = Path("envs"),
    name: Annotated[str | None, typer.Option(help="Environment name (only with one spec).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for the generated data.")] = 0,
    rows: Annotated[int, typer.Option(min=0, help="Rows per entity in the seeded state.")] = 12,
    state: Annotated[str, typer.Option(help="'seeded', 'empty', or a JSON file {entity: [rows]}.")] = "seeded",
    bind: Annotated[
        bool,
        typer.Option(help="Python tools run their own implementation; an mcp+stdio: server answers its own tools."),
    ] = False,
    max_steps: Annotated[int, typer.Option(min=1, help="Step budget of an episode.")] = 50,
    check: Annotated[bool, typer.Option(help="Run the self-check and save fidelity.json.")] = True,
    trust_code: TrustCode = False,
    ref_root: RefRoot = None,
    model: Annotated[
        str | None, typer.Option(help="Read plain docs (.md, .html, .txt) with this model: local or openai:NAME.")
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="The endpoint of an openai: model.")] = None,
    scenario: Scenario = None,
    scenario_loader: ScenarioLoader = None,
    server_env: Annotated[
        list[str] | None,
        typer.Option("--env", help="KEY=VALUE an mcp+stdio: server starts with (repeatable; {tmp}: a fresh folder)."),
    ] = None,
) -> None:
    """Synthesize an environment from each SPEC and save it as a readable folder.

    A Python SPEC is imported, which executes it: it needs --trust-code (or --bind, which asks to run it).
    Plain documentation is read by a language model (--model); every tool and parameter it reports
    must quote the text it came from, or it is dropped. A live server 'mcp+stdio:COMMAND' with --bind
    answers its own tools: every episode starts a fresh server (commands that run episodes need --trust-code)."""
    from envfactory.cli import commands

    raise typer.Exit(
        commands.synth(
            specs,
            out,
            name,
            seed,
            rows,
            state,
            bind,
            max_steps,
            check,
            trust_code or bind,
            tuple(ref_root or ()),
            model,
            base_url,
            str(scenario) if scenario else None,
            scenario_loader,
            server_env or [],
        )
    )


@app.command()
def inspect(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
) -> None:
    """Show an environment's tools, entities, relations and fidelity."""
    from envfactory.cli import commands

    commands.inspect(env_dir)


@app.command()
def check(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    seed: Annotated[int, typer.Option(help="Seed for the probe arguments.")] = 0,
    trust_code: TrustCode = False,
) -> None:
    """Run the self-check (fidelity report); exit 1 if any check fails."""
    from envfactory.cli import commands

    raise typer.Exit(commands.check(env_dir, seed, trust_code))


@app.command()
def fidelity(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    against: Annotated[
        str,
        typer.Option(
            help="The real thing: FILE.py:Class implementing the same tools; a live MCP server "
            "'mcp+stdio:COMMAND' (started fresh per sequence; {tmp} in COMMAND or --env becomes a fresh empty "
            "folder); or a recorded trace (JSON lines of tool, arguments, ok, output, sequence)."
        ),
    ],
    sequences: Annotated[int, typer.Option(min=1, help="Seeded call sequences to replay on both sides.")] = 40,
    length: Annotated[int, typer.Option(min=1, help="Calls per sequence.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the sequences.")] = 0,
    env: Annotated[
        list[str] | None, typer.Option("--env", help="KEY=VALUE passed to the MCP server (repeatable).")
    ] = None,
    log: Annotated[
        Path | None, typer.Option(help="Where the MCP server's stderr goes [default: ENV_DIR/mcp-server.log].")
    ] = None,
    final_tool: Annotated[
        str | None,
        typer.Option(help="A read-everything tool called on both sides after each sequence to compare final states."),
    ] = None,
    trust_code: TrustCode = False,
    scenario: Scenario = None,
    scenario_loader: ScenarioLoader = None,
) -> None:
    """Measure an environment against the real implementation, beside an always-succeeding stub.

    Outcome, output and final-state agreement per tool; saved in ENV_DIR/fidelity.json. A Python
    implementation is imported and run: this needs --trust-code. An MCP server runs as the
    command you give, with its stderr in a log file."""
    from envfactory.cli import commands

    raise typer.Exit(
        commands.fidelity(
            env_dir,
            against,
            sequences,
            length,
            seed,
            trust_code,
            env or [],
            log,
            final_tool,
            str(scenario) if scenario else None,
            scenario_loader,
        )
    )


@app.command()
def learn(
    descriptions: Annotated[str, typer.Argument(help="The tool descriptions (any SPEC synth reads).")],
    source: Annotated[
        str,
        typer.Option(
            "--from",
            help="The real thing to learn from: FILE.py:Class, a live server 'mcp+stdio:COMMAND' (fresh per "
            "sequence), or a trace file (JSON lines of tool, arguments, ok, output, sequence).",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder; the environment goes to OUT/<name>.")] = (
        Path("envs")
    ),
    budget: Annotated[int, typer.Option(min=10, help="Calls to spend exploring a live source.")] = 500,
    seed: Annotated[int, typer.Option(help="Seed of the exploration and of the held-out split.")] = 0,
    held_out: Annotated[float, typer.Option(min=0.1, max=0.9, help="Share of sequences held out.")] = 0.3,
    test_calls: Annotated[
        int,
        typer.Option(
            min=0,
            help="Calls of the budget explored apart, with moves and a seed of their own, to measure on instead "
            "of a share of the learning sequences (live sources): a yardstick that stays put when exploring "
            "changes.",
        ),
    ] = 0,
    name: Annotated[str | None, typer.Option(help="Environment name.")] = None,
    env: Annotated[
        list[str] | None, typer.Option("--env", help="KEY=VALUE passed to the MCP server (repeatable).")
    ] = None,
    final_tool: Annotated[
        str | None, typer.Option(help="A read-everything tool that shows the real side's state after a sequence.")
    ] = None,
    trust_code: TrustCode = False,
    scenario: Scenario = None,
) -> None:
    """Learn an environment from the real thing: explore it, choose each tool's behaviour among candidates
    by the evidence, and report held-out agreement beside the stub and a second copy of the real thing.

    A Python class or a live server runs: this needs --trust-code. A trace needs nothing."""
    from envfactory.cli import commands

    raise typer.Exit(
        commands.learn(
            descriptions,
            source,
            out,
            budget=budget,
            seed=seed,
            held_out=held_out,
            test_calls=test_calls,
            name=name,
            trust_code=trust_code,
            env=env or [],
            final_tool=final_tool,
            scenario=str(scenario) if scenario else None,
        )
    )


@app.command()
def simulate(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    model: Annotated[str, typer.Option(help="'local' (embedded SmolLM2-135M) or 'openai:NAME'.")] = "local",
    base_url: Annotated[
        str | None, typer.Option(help="Not saved: episodes reach the model at ENVFACTORY_BASE_URL (your setting).")
    ] = None,
    tool: Annotated[list[str] | None, typer.Option(help="A tool to simulate (default: read-only fallbacks).")] = None,
) -> None:
    """Let a language model answer tools the templates could not express (reads only).

    Answers are validated against the tool's output schema (one retry, then the schema-faithful
    fallback) and cached by the whole request, so replays are deterministic; the tools are graded
    `simulated`. Episodes of the environment then call the model (over the network for openai:, at
    ENVFACTORY_BASE_URL: the folder never names an address) and need --trust-code."""
    from envfactory.cli import commands

    raise typer.Exit(commands.simulate(env_dir, model, base_url, tool or []))


@app.command(name="write-code")
def write_code(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    model: Annotated[str, typer.Option(help="'local' (embedded SmolLM2-135M) or 'openai:NAME'.")] = "local",
    base_url: Annotated[str | None, typer.Option(help="The endpoint of an openai: model.")] = None,
    tool: Annotated[
        list[str] | None, typer.Option(help="A tool to write (repeatable; default: every fallback).")
    ] = None,
    against: Annotated[
        str | None,
        typer.Option(
            help="A real implementation the code must agree with: FILE.py:Class (needs --trust-code) or "
            "mcp+stdio:COMMAND."
        ),
    ] = None,
    trust_code: TrustCode = False,
) -> None:
    """Let a language model write code for tools the templates could not express.

    Each candidate runs behind the operating system's boundary (bubblewrap: no files, no network, no
    other processes, no environment; CPU, memory, output and wall-clock limits; refused where
    bubblewrap is missing) and must pass the self-check probes; accepted code
    replaces the behaviour (fidelity medium, author noted), rejected tools stay flagged fallbacks."""
    from envfactory.cli import commands

    raise typer.Exit(commands.write_code(env_dir, model, base_url, tool or [], against, trust_code))


@app.command()
def serve(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve the episode's tools over MCP (stdio).")] = False,
    mcp_http: Annotated[
        bool, typer.Option("--mcp-http", help="Serve them over MCP's streamable HTTP at /mcp on --host/--port.")
    ] = False,
    tasks_file: Annotated[Path | None, typer.Option("--tasks", help="Tasks a reset can start (JSON lines).")] = None,
    control: Annotated[
        bool,
        typer.Option(
            help="MCP: also list env_reset, env_reply and env_verify for the harness (off: an agent would see them).",
        ),
    ] = False,
    host: Annotated[str, typer.Option(help="HTTP: the address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP: the port.")] = 8000,
    max_sessions: Annotated[
        int,
        typer.Option(
            min=1,
            help="HTTP: concurrent WebSocket sessions (each slot of a batched step is one); the server "
            "accepts max(512, this + 64) connections and raises its open-file limit to fit.",
        ),
    ] = 64,
    trust_code: TrustCode = False,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="ENVFACTORY_TOKEN",
            help="HTTP (OpenEnv and --mcp-http): require 'Authorization: Bearer TOKEN' "
            "(or ?token= on a WebSocket) everywhere but /health.",
        ),
    ] = None,
    max_body: Annotated[int, typer.Option(min=1, help="OpenEnv HTTP: the largest request body, in bytes.")] = 1 << 20,
    idle: Annotated[
        float, typer.Option(min=0.1, help="OpenEnv HTTP: seconds a silent WebSocket session is kept.")
    ] = 300.0,
    step_timeout: Annotated[
        float,
        typer.Option(
            min=0.01,
            help="OpenEnv HTTP: seconds a reset or step of a slow environment (user code, a "
            "language model) may take; past it the call is answered with an error and the session must reset.",
        ),
    ] = 60.0,
    trajectories: Annotated[
        Path | None,
        typer.Option(
            help="OpenEnv HTTP: where every finished episode's trajectory is appended as it ends "
            "(JSON lines) [default: ENV_DIR/served/trajectories.jsonl]."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="OpenEnv HTTP: server processes sharing the port, one per core to use; a session stays on the "
            "one that accepted it, and each holds --max-sessions / N of them.",
        ),
    ] = 1,
) -> None:
    """Serve an environment to other processes: each session or connection gets its own episode.

    By default an HTTP/WebSocket server in the OpenEnv protocol (reset, step, state, schema, health,
    /ws sessions, /metrics), so OpenEnv clients and the trainers that use them drive it unchanged. --mcp
    speaks MCP over stdio instead, so any MCP client or agent can be evaluated on it."""
    from envfactory.cli import commands

    raise typer.Exit(
        commands.serve(
            env_dir,
            mcp,
            tasks_file,
            control,
            trust_code,
            host=host,
            port=port,
            max_sessions=max_sessions,
            mcp_http=mcp_http,
            token=token,
            max_body=max_body,
            idle_s=idle,
            trajectories=trajectories,
            step_timeout_s=step_timeout,
            workers=workers,
        )
    )


@app.command()
def export(
    out: Annotated[Path, typer.Argument(help="The dataset folder to write.")],
    tasks_file: Annotated[Path | None, typer.Option("--tasks", help="A task file (JSON lines).")] = None,
    env_dir: Annotated[Path | None, typer.Option("--env", help="The tasks' environment: adds its tools.")] = None,
    trajectories: Annotated[
        Path | None, typer.Option(help="Trajectories (transcripts.jsonl from `eval --report`).")
    ] = None,
    name: Annotated[str, typer.Option(help="The dataset's title in its card.")] = "envfactory tasks",
) -> None:
    """Write tasks and trajectories as a Hugging Face dataset: JSON lines, Parquet and a dataset card."""
    from envfactory.cli import commands

    raise typer.Exit(commands.export(out, tasks_file, env_dir, trajectories, name))


@app.command(name="play")
def play_cmd(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    seed: Annotated[int, typer.Option(help="Episode seed.")] = 0,
    trust_code: TrustCode = False,
) -> None:
    """Call tools by hand and watch the state change (type `help` inside)."""
    from envfactory.cli import play

    play.run(env_dir, seed, trust_code)


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write environments, tasks and the run.")] = Path(
        "out/demo"
    ),
    seed: Annotated[int, typer.Option(help="Seed for data, tasks, training and evaluation.")] = 0,
    iterations: Annotated[int, typer.Option(min=1, help="RL iterations per policy.")] = 40,
    warm_start: Annotated[int, typer.Option(min=0, help="Epochs of cloning the gold plans before RL.")] = 8,
    envs_only: Annotated[bool, typer.Option("--envs-only", help="Stop after the environments and tasks.")] = False,
    figures: Annotated[
        Path | None, typer.Option(help="Also write the headline figures here (make demo: docs/demo-figures.json).")
    ] = None,
) -> None:
    """End to end: synthesize the bundled specs, make tasks, train with ERPO + randomization, evaluate, report."""
    from envfactory.cli import commands

    raise typer.Exit(commands.demo(out, seed, iterations, envs_only, warm_start, figures))


@app.command(name="train")
def train_command(
    env_dirs: Annotated[list[Path], typer.Argument(help="Environment folders to train on.")],
    tasks_file: Annotated[list[Path], typer.Option("--tasks", help="A task file per environment, in order.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder (metrics.jsonl, checkpoint.pt).")] = Path(
        "runs/train"
    ),
    iterations: Annotated[int, typer.Option(min=1)] = 60,
    estimator: Annotated[str, typer.Option(help="grpo, dr_grpo, rloo or erpo.")] = "erpo",
    randomize: Annotated[bool, typer.Option(help="Train under domain randomization (all families).")] = True,
    seed: Annotated[int, typer.Option()] = 0,
    max_level: Annotated[int | None, typer.Option(help="Only tasks up to this level.")] = 2,
    resume: Annotated[bool, typer.Option(help="Continue from OUT/checkpoint.pt.")] = False,
    warm_start: Annotated[
        int, typer.Option(min=0, help="Epochs of cloning the gold plans' decisions before RL (0: RL from scratch).")
    ] = 0,
    trust_code: TrustCode = False,
    judge: Annotated[str, typer.Option(help=JUDGE_HELP)] = "facts",
    judge_base_url: Annotated[str | None, typer.Option(help="The endpoint of an openai: judge.")] = None,
    held_out_every: Annotated[
        int,
        typer.Option(
            min=0,
            help="Train on each task file's train split (its .splits.json) and measure held-out success "
            "on the rest every N iterations (0: train on every task, measure nothing).",
        ),
    ] = 0,
    model: Annotated[
        str | None,
        typer.Option(
            help="Train a language model instead of the DRRN policy: 'local' (the embedded SmolLM2-135M) or a "
            "local Hugging Face model folder; LoRA, --warm-start epochs of supervised steps on the gold runs, "
            "then --iterations of RL."
        ),
    ] = None,
    draws: Annotated[
        int,
        typer.Option(
            min=1,
            help="With --model, dynamic sampling: an RL iteration draws up to this many batches of tasks until "
            "as many groups of episodes carry a signal (rewards not all equal) as a batch has tasks (1: one batch).",
        ),
    ] = 1,
    decode_rows: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="With --model, how many episodes' turns are decoded as one batch (default 16; 1: one at a time). "
            "More rows use the machine better, a GPU above all, and hold one key-value cache each.",
        ),
    ] = None,
) -> None:
    """Train the compact DRRN policy with a clipped policy-gradient objective, or (``--model``) a
    language model."""
    from envfactory.cli import rl_cmd

    raise typer.Exit(
        rl_cmd.train_cmd(
            env_dirs,
            tasks_file,
            out,
            iterations,
            estimator,
            randomize,
            seed,
            max_level,
            resume,
            warm_start,
            trust_code,
            judge,
            judge_base_url,
            held_out_every,
            model,
            draws,
            decode_rows,
        )
    )


@app.command(name="eval")
def eval_command(
    env_dirs: Annotated[list[Path], typer.Argument(help="Environment folders.")],
    tasks_file: Annotated[list[Path], typer.Option("--tasks", help="A task file per environment, in order.")],
    policy: Annotated[
        str, typer.Option(help="random, noop, gold, a run folder / checkpoint.pt, or a trained language model's run.")
    ] = "random",
    trials: Annotated[int, typer.Option(min=1, help="Trials per task (for pass^k).")] = 1,
    seed: Annotated[int, typer.Option()] = 0,
    randomize: Annotated[list[str] | None, typer.Option(help="Also evaluate under this family (repeatable).")] = None,
    max_level: Annotated[int | None, typer.Option(help="Only tasks up to this level.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Save the metrics as JSON.")] = None,
    trust_code: TrustCode = False,
    model: Annotated[
        str | None,
        typer.Option(
            help="Evaluate a language model instead of --policy: 'local' (the embedded SmolLM2-135M, "
            "offline) or 'openai:NAME' (any OpenAI-compatible endpoint; key from ENVFACTORY_API_KEY "
            "or OPENAI_API_KEY)."
        ),
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="The endpoint of an openai: model (vLLM, Ollama, ...).")] = None,
    limit: Annotated[int | None, typer.Option("-n", min=1, help="Only the first N tasks of each file.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Episodes run at once (keeps a served model busy).")] = 1,
    report_dir: Annotated[
        Path | None, typer.Option("--report", help="Write transcripts.jsonl, results.json and report.html here.")
    ] = None,
    cache: Annotated[
        Path | None, typer.Option(help="Response cache (SQLite); default .envfactory/llm.sqlite or $ENVFACTORY_CACHE.")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")] = False,
    max_tokens: Annotated[int, typer.Option(min=1, help="Tokens a model may write per turn.")] = 256,
    judge: Annotated[str, typer.Option(help=JUDGE_HELP)] = "facts",
    user_model: Annotated[
        str | None, typer.Option(help="Play the user with a model ('local' or 'openai:NAME') instead of the script.")
    ] = None,
    persona: Annotated[str, typer.Option(help="The LLM user's persona: cooperative, terse, confused, impatient.")] = (
        "cooperative"
    ),
    sample: Annotated[
        bool,
        typer.Option(
            "--sample",
            help="A trained language model (--policy RUN) samples its turns at its run's temperature, seeded "
            "per episode, instead of decoding greedily (for pass^k over --trials).",
        ),
    ] = False,
) -> None:
    """Evaluate a policy or a language model: success, pass^k, steps, tool-error rate, by level and
    under randomization."""
    from envfactory.cli import rl_cmd

    raise typer.Exit(
        rl_cmd.eval_cmd(
            env_dirs,
            tasks_file,
            policy,
            trials,
            seed,
            randomize or [],
            max_level,
            out,
            trust_code,
            model,
            base_url,
            limit,
            workers,
            report_dir,
            cache,
            no_cache,
            max_tokens,
            judge,
            user_model,
            persona,
            sample,
        )
    )


@app.command()
def rollout(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    tasks_file: Annotated[Path, typer.Option("--tasks", help="A task file (JSON lines).")],
    policy: Annotated[
        str,
        typer.Option(help="random, noop, gold, a run folder / checkpoint.pt, or model:local / model:openai:NAME@URL."),
    ] = "random",
    workers: Annotated[int, typer.Option(min=1, help="Ray actors playing episodes.")] = 2,
    address: Annotated[
        str | None, typer.Option(help="A Ray cluster to join (ray://HOST:10001 or auto); default: local Ray.")
    ] = None,
    trials: Annotated[int, typer.Option(min=1, help="Episodes per task.")] = 1,
    seed: Annotated[int, typer.Option()] = 0,
    out: Annotated[Path, typer.Option("--out", "-o", help="Trajectories as JSON lines.")] = Path("rollouts.jsonl"),
    trust_code: TrustCode = False,
) -> None:
    """Play episodes on Ray actors (local, or a cluster): backpressure, and a lost worker's episodes
    are played again elsewhere; the trajectories are those an in-process run gives."""
    from envfactory.cli import rl_cmd

    raise typer.Exit(rl_cmd.rollout_cmd(env_dir, tasks_file, policy, workers, address, trials, seed, out, trust_code))


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="A run folder from `demo` or `train`.")]) -> None:
    """Write RUN_DIR/report.html: learning curves, tables and transcripts in one page."""
    from envfactory.cli import rl_cmd

    raise typer.Exit(rl_cmd.report_cmd(run_dir))


@app.command()
def graph(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="PNG to write (default ENV_DIR/graph.png).")] = None,
) -> None:
    """Print the tool dependency graph and draw it."""
    from envfactory.cli import tasks_cmd

    tasks_cmd.graph(env_dir, out)


@app.command()
def tasks(
    env_dir: Annotated[Path, typer.Argument(help="An environment folder made by `synth`.")],
    n: Annotated[int, typer.Option("-n", min=1, help="How many distinct, self-tested tasks.")] = 100,
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    out: Annotated[Path, typer.Option("--out", "-o", help="The JSON-lines task file to write.")] = Path("tasks.jsonl"),
    test: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of tasks in the test split.")] = 0.2,
    heldout_tool: Annotated[list[str] | None, typer.Option(help="A tool whose tasks form the held-out split.")] = None,
    check_baselines: Annotated[
        bool, typer.Option("--baselines/--no-baselines", help="Measure no-op/read-only/random agents.")
    ] = True,
    trust_code: TrustCode = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Keep the tasks already in --out (an interrupted run) and continue.")
    ] = False,
    walk_first: Annotated[
        bool,
        typer.Option(
            "--walk-first",
            help="Walk the environment's own answers first (read, pick a record by a condition, act on it), as "
            "tasks on a real implementation are made: tasks of the kinds a bound class or live server gets.",
        ),
    ] = False,
) -> None:
    """Synthesize N verified tasks (AutoForge-style), writing each as a JSON line as soon as it is proven."""
    from envfactory.cli import tasks_cmd

    raise typer.Exit(
        tasks_cmd.tasks(
            env_dir, n, seed, out, test, heldout_tool or [], check_baselines, trust_code, resume, walk_first
        )
    )


@app.command(name="show-task")
def show_task(
    file: Annotated[Path, typer.Argument(help="A task file made by `tasks`.")],
    task: Annotated[str, typer.Argument(help="Which task: its id (shop-0-1) or its 0-based index.")] = "0",
) -> None:
    """Show one task: instruction, held-back facts, gold plan, blueprint and goal."""
    from envfactory.cli import tasks_cmd

    tasks_cmd.show_task(file, task)


@app.command()
def solve(
    env_dir: Annotated[Path, typer.Argument(help="The task's environment folder.")],
    file: Annotated[Path, typer.Argument(help="A task file made by `tasks`.")],
    task: Annotated[str, typer.Argument(help="Which task: its id (shop-0-1) or its 0-based index.")] = "0",
    agent: Annotated[str, typer.Option(help=f"One of: {', '.join(AGENTS)}.")] = "gold",
    seed: Annotated[int, typer.Option(help="Seed of the random agent.")] = 0,
    trust_code: TrustCode = False,
) -> None:
    """Run an agent (the gold plan by default) through a task and print the transcript and verdict."""
    from envfactory.cli import tasks_cmd

    if agent not in AGENTS:
        raise typer.BadParameter(f"unknown agent {agent!r}; choose one of {', '.join(AGENTS)}")
    raise typer.Exit(tasks_cmd.solve(env_dir, file, task, agent, seed, trust_code))


if __name__ == "__main__":
    app()
