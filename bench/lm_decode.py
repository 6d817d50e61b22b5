"""Decoding episodes side by side against one at a time, on the language-model bench's own episodes.

    python bench/lm_decode.py [--rows generate,1,4,16] [--trials 2] [--seed 0] [--domain real]

The embedded SmolLM2-135M as shipped plays ``bench/sim2real.py``'s held-out tasks (its default
sets; ``--domain`` synthetic or real), ``--trials`` sampled episodes each at temperature 0.7, once
per ``--rows``: ``generate`` is the baseline, each turn decoded alone by ``transformers``' own
``generate`` (what the policy did before); a number decodes the turns of that many episodes as one
batch (``envfactory.rl.lm.lockstep``; 1 is its loop alone). Each row's tokens are drawn from its
own seeded generator, so every setting should play the same episodes: the bench counts those that
differ from the first setting's. Printed per setting: wall time, ids written per second, episodes per second, success,
and the batches' mean size. One process; the model on the GPU when there is one.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bfcl import manifest as bfcl  # noqa: E402
from sim2real import BUILD, keep_sets, make_sets  # noqa: E402

from envfactory.eval.runner import evaluate_sets  # noqa: E402
from envfactory.rl.lm import lockstep  # noqa: E402
from envfactory.rl.lm.model import base_model  # noqa: E402
from envfactory.rl.lm.policy import LMPolicy  # noqa: E402
from envfactory.rl.lm.recipe import LMConfig, LMPolicies  # noqa: E402


class Counted(LMPolicies):
    """The bench's policies, each kept, to count the ids they wrote."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made: list[LMPolicy] = []

    def __call__(self, seed: int) -> LMPolicy:
        self.made.append(super().__call__(seed))
        return self.made[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="generate,1,4,16")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--domain", choices=("synthetic", "real"), default="real")
    parser.add_argument("--sets", default="ticket_api,posting_api,message_api")
    parser.add_argument("--train", type=int, default=12)
    parser.add_argument("--test", type=int, default=5)
    args = parser.parse_args()
    folder = bfcl.prepared(BUILD / "bfcl")
    sets = make_sets(folder, args)
    keep_sets(folder, args, sets)
    envs = sets.envs(args.domain)
    tasks = sets.synth_test if args.domain == "synthetic" else sets.real_test
    tokenizer, model = base_model("local")
    model.eval()
    episodes = sum(len(tasks[n]) for n in envs) * args.trials
    print(f"{episodes} episodes ({args.domain} held-out tasks x {args.trials} trials), the base model sampling")
    baseline: list[Any] | None = None
    print("| rows | wall s | ids written | ids/s | episodes/s | success | differing episodes | mean batch |")
    print("|---|---|---|---|---|---|---|---|")
    for setting in args.rows.split(","):
        rows = 1 if setting == "generate" else int(setting)
        lockstep.share_cache(model, setting != "generate")  # generate: rows one by one by it
        config = LMConfig(seed=args.seed, decode_rows=rows, max_new_tokens=64, max_turns=5, observe_chars=300)
        policies = Counted(model, tokenizer, config, sample=True)
        began = time.perf_counter()
        played = evaluate_sets(envs, tasks, policies, trials=args.trials, seed=args.seed, keep_messages=True)
        wall = time.perf_counter() - began
        written = sum(p.generated for p in policies.made)
        messages = [t.messages for t in played]
        baseline = baseline if baseline is not None else messages
        differing = sum(a != b for a, b in zip(messages, baseline, strict=True))
        sizes = policies.lockstep.sizes
        print(f"| {setting} | {wall:.0f} | {written} | {written / wall:.1f} | {len(played) / wall:.2f} | "
              f"{sum(t.success for t in played) / len(played):.0%} | {differing} | "
              f"{sum(sizes) / max(1, len(sizes)):.1f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
