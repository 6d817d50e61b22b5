"""CLI commands for learning: train, eval, report, and the end-to-end demo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from envfactory.cli.common import console, err_console, friendly_errors, table
from envfactory.errors import EnvFactoryError
from envfactory.eval.metrics import breakdown, summarize
from envfactory.eval.report import write_report
from envfactory.eval.runner import evaluate_sets
from envfactory.rl.held_out import HELD_OUT_FILE, HeldOut
from envfactory.runtime.environment import Environment
from envfactory.tasks.taskset import TaskSet, check_task
from envfactory.wrappers import FAMILIES, condition

ALL_RANDOM = {name: "random" for name in ("output", "faults", "descriptions", "users")}


def _load(
    env_dirs: list[Path], task_files: list[Path], max_level: int | None, trust_code: bool = False
) -> tuple[dict, dict]:
    if len(env_dirs) != len(task_files):
        raise EnvFactoryError(
            f"give one task file per environment ({len(env_dirs)} envs, {len(task_files)} task files)"
        )
    envs, tasks = {}, {}
    for env_dir, file in zip(env_dirs, task_files, strict=True):
        env = Environment.load(env_dir, trust_code=trust_code)
        chosen = [
            check_task(t, env.spec, f"{file}: line {i + 1}")
            for i, t in enumerate(TaskSet(file))
            if max_level is None or t.level <= max_level
        ]
        envs[env.name], tasks[env.name] = env, chosen
    return envs, tasks


def _policy(spec: str) -> Any:
    from envfactory.rl.named import policy_factory

    return policy_factory(spec)


@friendly_errors
def train_cmd(env_dirs: list[Path], task_files: list[Path], out: Path, iterations: int, estimator: str,
              randomize: bool, seed: int, max_level: int | None, resume: bool, warm_start: int = 0,
              trust_code: bool = False, judge: str | None = "facts",
              judge_base_url: str | None = None, held_out_every: int = 0, model: str | None = None,
              draws: int = 1, decode_rows: int | None = None) -> int:  # fmt: skip
    from envfactory.rl.trainer import TrainConfig, train

    if draws > 1 and model is None:
        raise EnvFactoryError("--draws is dynamic sampling for a language model's RL: give --model too")
    if decode_rows is not None and model is None:
        raise EnvFactoryError("--decode-rows is how many of a language model's episodes decode together: "
                              "give --model too")  # fmt: skip
    envs, tasks = _load(env_dirs, task_files, max_level, trust_code)
    if model is not None:
        return _train_lm(envs, tasks, out, model, iterations, estimator, randomize, seed, resume, warm_start, judge,
                         judge_base_url, draws, decode_rows)  # fmt: skip
    held_out = None
    if held_out_every:
        tasks, held_out = _held_out(envs, tasks, task_files, held_out_every, seed)
    config = TrainConfig(iterations=iterations, estimator=estimator, seed=seed, warm_start=warm_start,
                         randomization=ALL_RANDOM if randomize else None, judge=judge or None,
                         judge_base_url=judge_base_url)  # fmt: skip
    if warm_start and not resume:
        err_console.print(f"warm start: cloning the gold plans' decisions for {warm_start} epochs")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console) as progress:
        bar = progress.add_task("training", total=iterations)

        def show(i: int, m: dict[str, Any]) -> None:
            progress.update(bar, completed=i, description=f"training (success {m['reward']:.0%})")

        train(envs, tasks, config, out, resume=resume, progress=show, held_out=held_out)
    console.print(
        f"run written to {out} (metrics.jsonl, checkpoint.pt); evaluate with `envfactory eval ... --policy {out}`"
    )
    return 0


def _train_lm(envs: dict[str, Environment], tasks: dict[str, list], out: Path, model: str, iterations: int,
              estimator: str, randomize: bool, seed: int, resume: bool, sft_epochs: int,
              judge: str | None, judge_base_url: str | None, draws: int = 1,
              decode_rows: int | None = None) -> int:  # fmt: skip
    """A language model: the warm start on gold runs (``--warm-start`` epochs), then RL."""
    from envfactory.rl.lm.recipe import LMConfig, train_lm
    from envfactory.wrappers import Randomization

    config = LMConfig(model=model, seed=seed, sft_epochs=sft_epochs, rl_iterations=iterations, estimator=estimator,
                      randomization=Randomization(**ALL_RANDOM) if randomize else None,
                      judge=judge or None, judge_base_url=judge_base_url, draws=draws,
                      decode_rows=decode_rows or LMConfig.model_fields["decode_rows"].default)  # fmt: skip
    err_console.print(f"training {model} with LoRA: {sft_epochs} warm-start epochs on the gold runs, then "
                      f"{iterations} RL iterations ({estimator}, {config.tasks_per_batch} tasks x {config.group} "
                      "episodes each)")  # fmt: skip
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console) as progress:
        bars: dict[str, Any] = {}

        def show(stage: str, step: int, total: int, line: dict[str, Any]) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=total)
            said = f"reward {line['reward']:.0%}" if "reward" in line else f"loss {line['loss']:.3f}"
            progress.update(bars[stage], completed=step, description=f"{stage} ({said})")

        train_lm(envs, tasks, config, out, resume=resume, progress=show)
    console.print(f"run written to {out} (adapter/, metrics.jsonl, tensorboard/); evaluate with "
                  f"`envfactory eval ... --policy {out}`")  # fmt: skip
    return 0


def _held_out(envs: dict[str, Environment], tasks: dict[str, list], task_files: list[Path], every: int,
              seed: int) -> tuple[dict[str, list], HeldOut]:  # fmt: skip
    """The train split of each task file (by its .splits.json) and the rest as held-out tasks."""
    train_tasks, split = {}, {}
    for (name, chosen), file in zip(tasks.items(), task_files, strict=True):
        splits_file = file.with_suffix(".splits.json")
        if not splits_file.is_file():
            raise EnvFactoryError(f"{file}: no {splits_file.name} beside it (written by `envfactory tasks`), "
                                  "so --held-out-every cannot tell held-out tasks from training tasks")  # fmt: skip
        train_ids = set(json.loads(splits_file.read_text())["train"])
        train_tasks[name] = [t for t in chosen if t.id in train_ids]
        split[name] = (envs[name], [t for t in chosen if t.id not in train_ids])
        if not train_tasks[name] or not split[name][1]:
            raise EnvFactoryError(f"{splits_file}: --held-out-every needs training and held-out tasks in {name}")
    return train_tasks, HeldOut({"held-out tasks": split}, every=every, seed=seed)


@friendly_errors
def eval_cmd(env_dirs: list[Path], task_files: list[Path], policy: str, trials: int, seed: int,
             families: list[str], max_level: int | None, out: Path | None,
             trust_code: bool = False, model: str | None = None, base_url: str | None = None,
             limit: int | None = None, workers: int = 1, report_dir: Path | None = None,
             cache: Path | None = None, no_cache: bool = False, max_tokens: int = 256,
             judge: str | None = "facts", user_model: str | None = None,
             persona: str = "cooperative", sample: bool = False) -> int:  # fmt: skip
    from envfactory.users.judge import make_judge

    envs, tasks = _load(env_dirs, task_files, max_level, trust_code)
    the_judge = make_judge(judge, base_url=base_url)
    make_user = None
    if user_model is not None:
        from envfactory.llm import make_client
        from envfactory.users.llm_user import PERSONAS, LLMUser

        if persona not in PERSONAS:
            raise EnvFactoryError(f"unknown persona {persona!r}; choose from {', '.join(PERSONAS)}")
        user_client = make_client(user_model, base_url=base_url)
        make_user = lambda s: LLMUser(user_client, persona=persona, seed=s)  # noqa: E731
    if limit is not None:
        tasks = {name: chosen[:limit] for name, chosen in tasks.items()}
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise EnvFactoryError(f"unknown randomization families {unknown}; choose from {list(FAMILIES)}")
    client = None
    make: Any
    from envfactory.rl.lm.recipe import is_run
    from envfactory.rl.named import policy_factory

    if is_run(policy):  # a trained language model: its adapter on its base model (or the one named)
        make = policy_factory(policy, model=model, sample=sample)
        policy = f"{policy} ({'sampled' if sample else 'greedy'})"
    elif model is not None:
        from envfactory.llm import make_client
        from envfactory.llm.agent import LLMAgent

        client = make_client(model, base_url=base_url, cache=None if no_cache else (cache or "default"),
                             concurrency=max(1, workers))  # fmt: skip
        make = lambda s: LLMAgent(client, seed=s, max_tokens=max_tokens)  # noqa: E731
        policy = client.model
    else:
        make = _policy(policy)
    ks = tuple(k for k in (1, 2, 4, 8) if k <= trials)
    results: dict[str, Any] = {}
    transcripts: list[Any] = []
    total = sum(len(t) for t in tasks.values()) * trials * (1 + len(families))
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:  # fmt: skip
        job = bar.add_task(f"episodes of {policy}", total=total)
        finished = 0
        for family in ["none", *families]:
            randomization = condition(family)

            def advance(n: int, start: int = finished) -> None:
                bar.update(job, completed=start + n)

            trajs = evaluate_sets(envs, tasks, make, trials=trials, seed=seed, randomization=randomization,
                                  keep_messages=report_dir is not None, workers=workers, progress=advance,
                                  judge=the_judge, make_user=make_user)  # fmt: skip
            finished += sum(len(tasks[name]) for name in envs) * trials
            if report_dir is not None:
                transcripts += [{**t.model_dump(mode="json"), "randomization_family": family} for t in trajs]
            results[family] = {"all": summarize(trajs, ks), "by_env": breakdown(trajs, lambda t: t.env, ks),
                               "by_level": breakdown(trajs, lambda t: t.level, ks)}  # fmt: skip
    cols = ["randomization", "tasks", "success", *(f"pass^{k}" for k in ks), "avg steps", "tool-error rate"]
    rows = []
    for family, r in results.items():
        a = r["all"]
        passes = [f"{a[f'pass^{k}']:.1%}" for k in ks]
        rows.append(
            [family, a["tasks"], f"{a['success']:.1%}", *passes, f"{a['avg_steps']:.1f}", f"{a['tool_error_rate']:.1%}"]
        )
    console.print(table(f"Evaluation of {policy}", cols, rows))
    by_env = results["none"]["by_env"]
    console.print(table("By environment (no randomization)", ["env", "tasks", "success"],
                        [[e, m["tasks"], f"{m['success']:.1%}"] for e, m in by_env.items()]))  # fmt: skip
    by_level = results["none"]["by_level"]
    console.print(table("By level (no randomization)", ["level", "tasks", "success"],
                        [[lv, m["tasks"], f"{m['success']:.1%}"] for lv, m in by_level.items()]))  # fmt: skip
    if client is not None:
        stats = client.stats.as_dict()
        results["model"] = {"name": client.model, **stats}
        console.print(
            f"model {client.model}: {int(stats['requests'])} requests, {int(stats['prompt_tokens'])} prompt + "
            f"{int(stats['completion_tokens'])} completion tokens, {stats['tokens_per_second']:.1f} tokens/s "
            f"generated, cache {int(stats['cache_hits'])} hits / {int(stats['cache_misses'])} misses, "
            f"{int(stats['retries'])} retries"
        )
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, default=str))
        console.print(f"saved {out}")
    if report_dir is not None:
        report_dir.mkdir(parents=True, exist_ok=True)
        with open(report_dir / "transcripts.jsonl", "w", encoding="utf-8") as f:
            for t in transcripts:
                f.write(json.dumps(t, default=str) + "\n")
        page = write_report(report_dir, {
            "title": f"Evaluation of {policy}",
            "summary": [f"{sum(len(t) for t in tasks.values())} tasks x {trials} trials on {', '.join(envs)}"],
            "tables": [{"title": f"Evaluation of {policy}", "header": cols, "rows": rows}],
            "transcripts": transcripts[:20],
        })  # fmt: skip
        console.print(f"transcripts: {report_dir / 'transcripts.jsonl'}; report: {page}")
    return 0


@friendly_errors
def report_cmd(run_dir: Path) -> int:
    results_file = run_dir / "results.json"
    if results_file.is_file():
        results = json.loads(results_file.read_text())
    else:
        metrics_file = run_dir / "metrics.jsonl"
        if not metrics_file.is_file():
            raise EnvFactoryError(
                f"{run_dir}: no results.json or metrics.jsonl; run `envfactory train` or `demo` first"
            )
        metrics = [json.loads(line) for line in metrics_file.read_text().splitlines() if line.strip()]
        points_file = run_dir / HELD_OUT_FILE
        points = [json.loads(line) for line in points_file.read_text().splitlines()] if points_file.is_file() else []
        results = {
            "title": f"Training run {run_dir.name}",
            "curves": [{"title": "Learning curve", "metrics": metrics, "held_out": points}],
        }
    path = write_report(run_dir, results)
    console.print(f"report: {path}")
    return 0


@friendly_errors
def rollout_cmd(env_dir: Path, tasks_file: Path, policy: str, workers: int, address: str | None, trials: int,
                seed: int, out: Path, trust_code: bool = False) -> int:  # fmt: skip
    import time

    from envfactory.rl.distributed import ray_rollouts

    _, tasks = _load([env_dir], [tasks_file], None, trust_code)
    chosen = next(iter(tasks.values()))
    total = len(chosen) * trials
    start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err_console, transient=True) as bar:  # fmt: skip
        job = bar.add_task(f"episodes on {workers} Ray workers", total=total)
        trajs = ray_rollouts(env_dir, chosen, policy, workers=workers, address=address, trials=trials, seed=seed,
                             trust_code=trust_code, progress=lambda n: bar.update(job, completed=n))  # fmt: skip
    seconds = time.perf_counter() - start
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for t in trajs:
            f.write(t.model_dump_json() + "\n")
    summary = summarize(trajs)
    console.print(f"{len(trajs)} episodes in {seconds:.1f} s ({len(trajs) / seconds:.1f}/s) on {workers} workers; "
                  f"success {summary['success']:.1%}; saved {out}")  # fmt: skip
    return 0
