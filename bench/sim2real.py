"""Does a language model trained only on synthesized environments get better on the real tools?

    python bench/sim2real.py [--sets ticket_api,posting_api,message_api] [--train 12] [--test 5]
                             [--sft-epochs 2] [--rl-iterations 2] [--trials 2] [--seed 0]
                             [--draws 1] [--decode-rows 16] [--rl-seeds 1] [--reuse] [--jobs 1]
                             [--learn CALLS] [--tasks-only]

For each BFCL API class (``bfcl-eval``, pinned in ``bench/bfcl/requirements.txt``, installed into
``bench/bfcl/python`` when missing; nothing of it is committed) two environments: the one
synthesized from its published function list alone (*synthetic*), and the class itself, bound
with its published scenario (*real*). Tasks are made on each (``tasks`` as the CLI makes them,
real-first walks proven on the implementation); each task set is split into training and
held-out tasks. One embedded SmolLM2-135M (LoRA) is trained on all the sets at once:

- **base**: the model as shipped;
- **SFT**: warm start on the synthetic sets' gold runs;
- **SFT + RL**: then RL (GRPO) on the synthetic sets, clean;
- **SFT + RL, randomized**: the same RL under domain randomization (all families);
- **real (ceiling)**: the same budget spent on the real sets (their gold runs, then RL there).

Each is evaluated on held-out synthetic tasks and held-out *real* tasks (``--trials`` sampled
episodes each, temperature 0.7: success and pass^k), and on the real tasks perturbed (faults,
paraphrased tools) for the randomized-vs-clean comparison; beside them the no-op, random and gold
agents on the same tasks. ``--rl-seeds K`` trains both RL runs K times from the one warm start
(seeds ``seed`` to ``seed + K - 1``) and prints randomized minus clean on the perturbed real
episodes for each, with the mean and the range; ``--reuse`` keeps the runs and evaluations already
in OUT that were made with the same settings, so that adding seeds costs only the new ones.
``--jobs N`` runs what need not wait for each other side by side in N processes: the warm start
beside the ceiling, the RL runs beside each other, then each row's evaluation on each domain (for
many cores, or an accelerator, where each process holds its own copy of the model; each checks
that it made the same tasks as the bench). Episodes are seeded by (seed, task, trial), so the
numbers do not depend on N.

``--learn CALLS`` trains on environments *learned* from the class instead (``envfactory learn``:
CALLS calls of the class explored, 30 % of them apart to measure on, the model chosen by evidence;
kept in ``OUT/learned``): round 3's pipeline end to end, real thing → learned model → tasks → a
trained model → the real thing. Such a model starts from the class's own records, so the bench
prints how many real held-out instructions a training task states word for word (none should).

Each real class starts from its published scenario, except the ticket class, whose scenario holds
no tickets: it gets 20 seeded ones (``bench/real_tasks.py``'s). Everything is written to
``build/sim2real`` (git-ignored) and the table is printed; the same seed prints the same table, and
the command it prints last replays a row's real figures through ``envfactory eval``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate_sets
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Task
from envfactory.rl.lm.model import base_model
from envfactory.rl.lm.recipe import LMConfig, policy_maker, train_lm, trained_policy
from envfactory.rl.named import policy_factory
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks
from envfactory.wrappers import Randomization

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import real_tasks  # noqa: E402
from bfcl import manifest as bfcl  # noqa: E402

JSON = dict[str, Any]
BUILD = ROOT / "build" / "sim2real"  # git-ignored
ALL_RANDOM = Randomization(output="random", faults="random", descriptions="random", users="random")
PERTURBED = Randomization(faults="stress", descriptions="stress")


SEEDED = ("ticket_api",)  # its published scenario holds nothing to make tasks about: 0 of 17 tasks asked


def scenario(folder: Path, stem: str, seed: int) -> Path:
    """The class's published scenario; for the classes in ``SEEDED``, 20 seeded records of its own
    shape (``bench/real_tasks.py``'s, few enough that a listing fits a small model's context)."""
    makers = {entry[0]: entry[1] for entry in real_tasks.SETS.values()}
    if stem not in SEEDED:
        return folder / "scenarios" / f"{stem}.json"
    path = folder / "scenarios" / f"{stem}.small.json"
    text = json.dumps(makers[stem](random.Random(seed), 20))
    if not path.is_file() or path.read_text() != text:  # workers (--jobs) read it while others may write it
        partial_file = path.with_name(f"{path.name}.{os.getpid()}")
        partial_file.write_text(text)
        os.replace(partial_file, path)
    return path


def environments(folder: Path, stem: str, seed: int, learn_calls: int = 0,
                 out: Path | None = None) -> tuple[Environment, Environment]:  # fmt: skip
    """The synthesized environment and the bound class with its scenario. The synthesized one is
    read from the function list alone, or (``learn_calls``) learned from that many calls of the
    class (``envfactory learn``), kept in ``out/learned`` so that every worker trains on the same."""
    name = bfcl.CLASSES[stem]
    described = synthesize(str(folder / "descriptions" / f"{stem}.json"), name=name)
    source = f"{folder}/bfcl_eval/{bfcl.SOURCE}/{stem}.py:{name}"
    played = str(scenario(folder, stem, seed))
    real = Environment(synthesize(source, bind=True, scenario=played, name=name), trust_code=True)
    if not learn_calls:
        return Environment(described), real
    kept = (out or BUILD) / "learned" / f"{stem}-{learn_calls}-{seed}"
    if not (kept / "env.json").is_file():
        from envfactory.real.learn import learn

        learned, report, _ = learn(described, source, budget=learn_calls, seed=seed, scenario=played,
                                   test_budget=learn_calls * 3 // 10)  # fmt: skip
        learned.save(kept)
        f = report.learned
        print(
            f"{name}: learned from {report.calls} calls of the class in {report.seconds:.0f} s; held out: outcome "
            f"{f.outcome:.0%}, fields {f.fields or 0:.0%}, final state {f.final_state or 0:.0%}",
            flush=True,
        )
    return Environment(EnvSpec.load(kept)), real


def split(env: Environment, train: int, test: int, seed: int,
          first: bool = False) -> tuple[list[Task], list[Task]]:  # fmt: skip
    made, _ = generate_tasks(env, train + test, seed=seed, first=first)
    return made[:train], made[train : train + test]


def save(out: Path, domain: str, envs: dict[str, Environment], train: dict[str, list[Task]],
         test: dict[str, list[Task]]) -> list[tuple[Path, Path]]:  # fmt: skip
    """Each environment's folder and its held-out task file, for ``envfactory eval`` to replay."""
    saved = []
    for name, env in envs.items():
        folder = env.spec.save(out / "envs" / domain / name)
        write_tasks(out / "tasks" / domain / f"{name}.train.jsonl", train[name])
        saved.append((folder, write_tasks(out / "tasks" / domain / f"{name}.test.jsonl", test[name])))
    return saved


def scores(envs: dict[str, Environment], tasks: dict[str, list[Task]], make: Any, trials: int, seed: int,
           randomization: Randomization | None = None) -> JSON:  # fmt: skip
    """What ``envfactory eval ENVS --tasks FILES --trials N --seed S`` prints as ``all``: one policy
    factory over the environments in order, each episode seeded by (seed, task, trial)."""
    trajectories = evaluate_sets(envs, tasks, make(), trials=trials, seed=seed, randomization=randomization)
    ks = tuple(k for k in (1, 2, 4) if k <= trials)
    return summarize(trajectories, ks)


def shared_shapes(train: list[Task], held: list[Task]) -> int:
    """How many of ``held`` have a gold plan calling the tools, in order, of some task of ``train``."""
    shapes = {tuple(c.tool for c in t.gold) for t in train}
    return sum(tuple(c.tool for c in t.gold) in shapes for t in held)


def alike(synth_envs: dict[str, Environment], synth_train: dict[str, list[Task]], real_test: dict[str, list[Task]],
          args: argparse.Namespace) -> str:  # fmt: skip
    """How many real held-out tasks share their gold plan's tool sequence with a synthetic training
    task: with the synthetic tasks walked as the real ones are (what the bench trains on), and
    planned on the model (the task generator's default there)."""
    walked = sum(shared_shapes(synth_train[n], real_test[n]) for n in synth_envs)
    planned = sum(shared_shapes(split(env, args.train, args.test, args.seed)[0], real_test[n])
                  for n, env in synth_envs.items())  # fmt: skip
    total = sum(len(real_test[n]) for n in synth_envs)
    same = sum(len({t.instruction for t in real_test[n]} & {t.instruction for t in synth_train[n]}) for n in synth_envs)
    return (f"real held-out tasks whose tool sequence a synthetic training task shares: {walked}/{total} "
            f"(synthetic tasks planned on the model instead: {planned}/{total}); whose instruction one states "
            f"word for word: {same}/{total}")  # fmt: skip


def finished(run: Path, config: LMConfig) -> bool:
    """Whether ``run`` holds a completed training under ``config`` (for ``--reuse``)."""
    state, saved = run / "lm_state.json", run / "lm_config.json"
    if not (state.is_file() and saved.is_file()) or _trained_by(LMConfig.model_validate_json(saved.read_text())) != (
        _trained_by(config)
    ):
        return False
    position = json.loads(state.read_text())
    done = ("rl", config.rl_iterations) if config.rl_iterations else ("sft", config.sft_epochs)
    return (position.get("stage"), position.get("step")) == done


# settings a warm start alone (no RL iteration) never reads
RL_ONLY = ("rl_lr", "tasks_per_batch", "group", "estimator", "sampler", "draws", "randomization", "judge",
           "judge_base_url")  # fmt: skip


def _trained_by(config: LMConfig) -> LMConfig:
    """The settings a run's training depends on: a warm start alone does not depend on RL's."""
    if config.rl_iterations:
        return config
    return config.model_copy(update={name: LMConfig.model_fields[name].default for name in RL_ONLY})


def _settings(run: Path | None) -> list[JSON]:
    """What trained ``run`` (its saved settings, as far as its training read them); nothing for none."""
    if run is None or not (run / "lm_config.json").is_file():
        return []
    return [_trained_by(LMConfig.model_validate_json((run / "lm_config.json").read_text())).model_dump(mode="json")]


def randomization_effect(results: dict[str, JSON], seeds: int) -> str:
    """Randomized minus clean RL on the perturbed real episodes, per RL seed, with the mean and range."""
    diffs = []
    for rl_seed in range(seeds):
        tag = "" if rl_seed == 0 else f" (RL seed {rl_seed})"
        clean, randomized = results[f"SFT + RL{tag}"], results[f"SFT + RL, randomized{tag}"]
        diffs.append(randomized["real, perturbed"]["success"] - clean["real, perturbed"]["success"])
    each = ", ".join(f"{d:+.0%}" for d in diffs)
    return (f"randomized - clean RL on perturbed real episodes: {each} (RL seeds 0-{seeds - 1}); mean "
            f"{sum(diffs) / len(diffs):+.0%}, range {min(diffs):+.0%} to {max(diffs):+.0%}")  # fmt: skip


@dataclass(frozen=True)
class Sets:
    """The environments and their tasks, the same in every process for the same arguments."""

    synthetic: dict[str, Environment]
    real: dict[str, Environment]
    synth_train: dict[str, list[Task]]
    synth_test: dict[str, list[Task]]
    real_train: dict[str, list[Task]]
    real_test: dict[str, list[Task]]

    def envs(self, domain: str) -> dict[str, Environment]:
        return self.synthetic if domain == "synthetic" else self.real

    def train(self, domain: str) -> dict[str, list[Task]]:
        return self.synth_train if domain == "synthetic" else self.real_train

    def fingerprint(self) -> str:
        """Every task's id and gold plan, in order: a worker's sets must be the bench's own."""
        every = (self.synth_train, self.synth_test, self.real_train, self.real_test)
        return json.dumps([[[t.id, [c.model_dump(mode="json") for c in t.gold]] for t in ts] for d in every
                           for ts in d.values()])  # fmt: skip


def make_sets(folder: Path, args: argparse.Namespace, say: bool = False) -> Sets:
    synth_envs, real_envs, synth_train, synth_test, real_train, real_test = {}, {}, {}, {}, {}, {}
    for stem in [s for s in args.sets.split(",") if s]:
        synthetic, real = environments(folder, stem, args.seed, args.learn, args.out)
        name = synthetic.name
        synth_envs[name], real_envs[name] = synthetic, real
        # walked as the real class is (read, pick by a condition, act): the kinds of tasks the real one gets
        synth_train[name], synth_test[name] = split(synthetic, args.train, args.test, args.seed, first=True)
        real_train[name], real_test[name] = split(real, args.train, args.test, args.seed + 1)
        if say:
            counts = (f"{len(synth_train[name])} + {len(synth_test[name])}, "
                      f"real {len(real_train[name])} + {len(real_test[name])}")  # fmt: skip
            print(f"{name}: {len(synthetic.spec.tools.tools)} tools; tasks synthetic {counts}", flush=True)
    return Sets(synth_envs, real_envs, synth_train, synth_test, real_train, real_test)


_SETS: dict[str, Sets] = {}  # per process: a worker (--jobs) makes the sets once


def _sets_key(folder: Path, args: argparse.Namespace) -> str:
    return json.dumps([str(folder), args.sets, args.train, args.test, args.seed, args.learn])


def keep_sets(folder: Path, args: argparse.Namespace, sets: Sets) -> None:
    """Keep ``sets``, made in this process, for :func:`sets_in` to hand out."""
    _SETS[_sets_key(folder, args)] = sets


def sets_in(folder: Path, args: argparse.Namespace) -> Sets:
    key = _sets_key(folder, args)
    if key not in _SETS:
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))  # the classes import their siblings by absolute name
        _SETS[key] = made = make_sets(folder, args)
        if made.fingerprint() != args.fingerprint:
            raise RuntimeError(f"process {os.getpid()} made other tasks than the bench's own: a seed is not passed")
    return _SETS[key]


def lm_config(args: argparse.Namespace) -> LMConfig:
    return LMConfig(seed=args.seed, sft_epochs=args.sft_epochs, rl_iterations=args.rl_iterations, draws=args.draws,
                    decode_rows=args.decode_rows, tasks_per_batch=3, group=3, max_new_tokens=64, max_turns=5,
                    observe_chars=300)  # fmt: skip


def train_run(folder: Path, args: argparse.Namespace, run: str, domain: str, cfg: LMConfig,
              start: str | None = None) -> Path:  # fmt: skip
    """One training run (``runs/RUN``) on ``domain``'s training tasks; RL from ``start``'s adapter when given."""
    began = time.perf_counter()
    runs = args.out / "runs"
    out = runs / run
    if args.reuse and finished(out, cfg):
        print(f"reusing {out} (--reuse)", flush=True)
        return out
    sets = sets_in(folder, args)

    def show(stage: str, step: int, total: int, line: JSON) -> None:
        said = ", ".join(f"{k} {v}" for k, v in line.items() if k not in ("stage", "step"))
        print(f"  {run}: {stage} {step}/{total}: {said} ({time.perf_counter() - began:.0f} s)", flush=True)

    if start is not None:  # RL from the warm start's adapter: a copy of its run folder
        import shutil

        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(runs / start, out)
        (out / "lm_state.json").write_text(json.dumps({"stage": "rl", "step": 0}))
        (out / "optimizer.pt").unlink()
    print(f"training {run} ...", flush=True)
    train_lm(sets.envs(domain), sets.train(domain), cfg, out, resume=start is not None, progress=show)
    return out


PARTS = {"synthetic": ("synthetic", None), "real": ("real", None), "real, perturbed": ("real", PERTURBED)}


def evaluate_part(folder: Path, args: argparse.Namespace, label: str, kind: str, run: Path | None,
                  part: str) -> tuple[JSON, float]:  # fmt: skip
    """One of a row's scores (``part``, a key of ``PARTS``) and the seconds it took: ``kind`` is
    ``base`` (the model as shipped), ``run`` (a trained run's adapter) or ``named`` (the no-op,
    random or gold agent called ``label``)."""
    sets = sets_in(folder, args)
    began = time.perf_counter()
    make: Any
    if kind == "base":
        tokenizer, base = base_model(lm_config(args).model)
        base.eval()
        make = partial(policy_maker, base, tokenizer, lm_config(args), sample=True)
    elif kind == "run":
        make = partial(trained_policy, run, sample=True)
    else:
        make = partial(policy_factory, label)
    domain, randomization = PARTS[part]
    tasks = sets.synth_test if domain == "synthetic" else sets.real_test
    summary = scores(sets.envs(domain), tasks, make, args.trials, args.seed, randomization)
    return summary, time.perf_counter() - began


def _worker_start(jobs: int) -> None:
    import torch

    torch.set_num_threads(max(1, (os.cpu_count() or 1) // jobs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="ticket_api,posting_api,message_api")
    parser.add_argument("--train", type=int, default=12, help="training tasks per set")
    parser.add_argument("--test", type=int, default=5, help="held-out tasks per set (synthetic and real each)")
    parser.add_argument("--sft-epochs", type=int, default=2)
    parser.add_argument("--rl-iterations", type=int, default=2)
    parser.add_argument("--draws", type=int, default=1, help="dynamic sampling: batches an RL iteration may draw")
    parser.add_argument("--decode-rows", type=int, default=16,
                        help="episodes whose turns are decoded as one batch (1: one at a time)")  # fmt: skip
    parser.add_argument("--trials", type=int, default=2, help="sampled episodes per held-out task (pass^k)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rl-seeds", type=int, default=1, help="RL runs (clean and randomized) from the warm start")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep finished runs and evaluations of the same settings in OUT (for adding RL seeds)",
    )
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes: training runs that need not wait for each other, and each row's "
                             "evaluation, run side by side (for many cores, or an accelerator)")  # fmt: skip
    parser.add_argument("--learn", type=int, default=0, metavar="CALLS",
                        help="train on environments learned from CALLS calls of each class (envfactory learn) "
                             "instead of read from its function list alone")  # fmt: skip
    parser.add_argument("--out", type=Path, default=BUILD)
    parser.add_argument("--tasks-only", action="store_true",
                        help="make the tasks, print how alike the two sets are, and stop")  # fmt: skip
    args = parser.parse_args()
    args.out = args.out.resolve()
    started = time.perf_counter()
    folder = bfcl.prepared(BUILD / "bfcl")
    sets = make_sets(folder, args, say=True)
    keep_sets(folder, args, sets)
    args.fingerprint = sets.fingerprint()
    domains = (("synthetic", sets.synthetic, sets.synth_train, sets.synth_test),
               ("real", sets.real, sets.real_train, sets.real_test))  # fmt: skip
    replay = {domain: save(args.out, domain, envs, train, test) for domain, envs, train, test in domains}
    print(alike(sets.synthetic, sets.synth_train, sets.real_test, args), flush=True)
    if args.tasks_only:
        return
    config = lm_config(args)
    runs = args.out / "runs"
    spawn = multiprocessing.get_context("spawn")  # CUDA in the workers wants fresh processes
    pool = ProcessPoolExecutor(args.jobs, spawn, _worker_start, (args.jobs,)) if args.jobs > 1 else None

    def side_by_side(calls: list[tuple[Any, ...]]) -> Iterator[Any]:
        """``fn(*rest)`` for each ``(fn, *rest)``, in order: all at once in the pool's processes with
        ``--jobs``, else one after another here."""
        if pool is None:
            yield from (fn(*rest) for fn, *rest in calls)
            return
        yield from (f.result() for f in [pool.submit(fn, *rest) for fn, *rest in calls])

    rl_cfgs = {}
    for rl_seed in range(args.rl_seeds):
        tag = "" if rl_seed == 0 else f" (RL seed {rl_seed})"
        cfg = config.model_copy(update={"seed": args.seed + rl_seed})
        rl_cfgs[f"SFT + RL{tag}"] = (f"sft+rl{tag.strip()}", cfg)
        rl_cfgs[f"SFT + RL, randomized{tag}"] = (f"sft+rl-randomized{tag.strip()}",
                                                 cfg.model_copy(update={"randomization": ALL_RANDOM}))  # fmt: skip
    # the warm start and the ceiling need nothing of each other; the RL runs start from the warm start
    sft, ceiling = list(side_by_side([
        (train_run, folder, args, "sft", "synthetic", config.model_copy(update={"rl_iterations": 0})),
        (train_run, folder, args, "real", "real", config),
    ]))  # fmt: skip
    rl_runs = dict(zip(rl_cfgs, side_by_side([(train_run, folder, args, run, "synthetic", cfg, "sft")
                                              for run, cfg in rl_cfgs.values()]), strict=True))  # fmt: skip
    rows: dict[str, tuple[str, Path | None]] = {"base": ("base", None), "SFT": ("run", sft)}
    rows.update({label: ("run", run) for label, run in rl_runs.items()})
    rows["real (ceiling)"] = ("run", ceiling)
    rows.update({label: ("named", None) for label in ("noop", "random", "gold")})
    cache_file = args.out / "evaluated.json"
    cached = json.loads(cache_file.read_text()) if args.reuse and cache_file.is_file() else {}
    held = [{n: [t.id for t in ts] for n, ts in tasks.items()} for tasks in (sets.real_test, sets.synth_test)]
    # a trained row's evaluation stands for the settings its run was trained under: retrained with
    # others, it is evaluated again
    keys = {label: json.dumps([label, args.trials, args.seed, *held, *_settings(run)])
            for label, (_, run) in rows.items()}  # fmt: skip
    for label in rows:
        if keys[label] in cached:
            print(f"evaluated {label}: reused (--reuse)", flush=True)
    todo = [label for label in rows if keys[label] not in cached]
    parts = {label: [p for p in PARTS if p != "real, perturbed" or label in rl_runs] for label in todo}
    items = [(label, part) for label in todo for part in parts[label]]  # each in its own process with --jobs
    evaluated = side_by_side([(evaluate_part, folder, args, label, *rows[label], part) for label, part in items])
    args.out.mkdir(parents=True, exist_ok=True)
    done: dict[str, JSON] = {}
    for (label, part), (summary, seconds) in zip(items, evaluated, strict=True):
        row = done.setdefault(label, {"synthetic": {}, "real": {}, "real, perturbed": {}, "seconds": 0.0})
        row[part], row["seconds"] = summary, row["seconds"] + seconds
        if part == parts[label][-1]:
            cached[keys[label]] = result = {**row, "seconds": round(row["seconds"])}
            cache_file.write_text(json.dumps(cached))  # each row as it ends: a stopped bench keeps it for --reuse
            print(f"evaluated {label}: {json.dumps(result)}", flush=True)
    if pool is not None:
        pool.shutdown()
    results: dict[str, JSON] = {label: cached[keys[label]] for label in rows}
    said = {k: str(v) for k, v in vars(args).items() if k != "fingerprint"}
    (args.out / "results.json").write_text(json.dumps({"args": said, "rows": results}, indent=2))
    ks = [k for k in (2, 4) if k <= args.trials]
    table = Table(title=f"sim2real: SmolLM2-135M, sets {args.sets}, {args.train} train / {args.test} held-out tasks "
                        f"a set, {args.trials} trials, seed {args.seed}", title_justify="left")  # fmt: skip
    for column in ["row", "synthetic success", *(f"synthetic pass^{k}" for k in ks), "real success",
                   *(f"real pass^{k}" for k in ks), "real perturbed", "eval s"]:  # fmt: skip
        table.add_column(column, justify="right")
    for label, r in results.items():
        cells = [f"{r['synthetic']['success']:.0%}", *(f"{r['synthetic'].get(f'pass^{k}', 0):.0%}" for k in ks),
                 f"{r['real']['success']:.0%}", *(f"{r['real'].get(f'pass^{k}', 0):.0%}" for k in ks),
                 f"{r['real, perturbed']['success']:.0%}" if r["real, perturbed"] else "-",
                 str(r["seconds"])]  # fmt: skip
        table.add_row(label, *cells)
    Console(width=200).print(table)
    print(randomization_effect(results, args.rl_seeds))
    print(f"whole bench: {time.perf_counter() - started:.0f} s; runs in {runs}")
    folders, files = zip(*replay["real"], strict=True)
    print(
        "a row's real figures again, from the CLI (here: SFT + RL):\n  envfactory eval "
        + " ".join(map(str, folders))
        + "".join(f" --tasks {f}" for f in files)
        + f" --policy {rl_runs['SFT + RL']} --sample --trials {args.trials} --seed {args.seed} --trust-code"
    )


if __name__ == "__main__":
    main()
