"""The user-error judge's precision and recall on a labelled set, beside trivial judges.

    python bench/judge.py [--examples 40] [--model openai:NAME --base-url URL]

The labelled set is built from synthesized tasks of the bundled environments that hold back
facts: a conversation where the user answers the agent's question about a fact, either
correctly (clean), with another value (a contradiction) or stating a fact the task does not
hold (an invention); half in the scripted user's phrasing ("The note is X."), half in looser
words ("It's X, I think."). Judges: the rule judge (``facts``), the embedded model (``local``),
an endpoint if ``--model`` is given, and the two trivial ones (always / never spoiled).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks
from envfactory.users.judge import FactJudge, Judge, Judgement, LLMJudge

Example = tuple[Task, list[dict], bool, str]  # task, messages, spoiled?, kind


class Always:
    name = "always spoiled"

    def judge(self, task: Task, messages: list[dict]) -> Judgement:
        return Judgement(spoiled=True)


class Never:
    name = "never spoiled"

    def judge(self, task: Task, messages: list[dict]) -> Judgement:
        return Judgement(spoiled=False)


def labelled_set(n: int, seed: int = 0) -> list[Example]:
    rng = random.Random(seed)
    tasks = []
    for name, file in BUNDLED.items():
        env = Environment(synthesize(bundled_specs_dir() / file, name=name, trust_code=True))
        tasks += [t for t in generate_tasks(env, 40, seed=seed)[0] if t.user.facts]
    rng.shuffle(tasks)
    out: list[Example] = []
    for i in range(n):
        task = tasks[i % len(tasks)]
        label, value = rng.choice(sorted(task.user.facts.items()))
        kind = ("clean", "clean", "contradiction", "invention")[i % 4]
        loose = rng.random() < 0.5
        if kind == "clean":
            said = f"It's {value}, I think." if loose else f"The {label} is {value}."
        elif kind == "contradiction":
            wrong = f"{value}7" if isinstance(value, str) else value + 3 if isinstance(value, int) else "something else"
            said = f"Hmm, it's {wrong}." if loose else f"The {label} is {wrong}."
        else:
            said = f"The {label} is {value}. Also, the delivery date is 2031-02-03." if not loose else (
                f"{value}. Oh, and put it under my cousin Dana's name.")  # fmt: skip
        messages = [{"role": "user", "content": task.instruction},
                    {"role": "assistant", "content": f"What is the {label}?"},
                    {"role": "user", "content": said}]  # fmt: skip
        out.append((task, messages, kind != "clean", f"{kind}{' (loose)' if loose else ''}"))
    return out


def score(judge: Judge, examples: list[Example]) -> dict[str, float]:
    start = time.perf_counter()
    tp = fp = fn = tn = 0
    for task, messages, spoiled, _ in examples:
        flagged = judge.judge(task, messages).spoiled
        tp, fp = tp + (flagged and spoiled), fp + (flagged and not spoiled)
        fn, tn = fn + (not flagged and spoiled), tn + (not flagged and not spoiled)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "accuracy": (tp + tn) / len(examples),
            "seconds": time.perf_counter() - start, "unreadable": getattr(judge, "unreadable", 0)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", help="also judge with this model (openai:NAME)")
    parser.add_argument("--base-url")
    args = parser.parse_args()
    from envfactory.llm import make_client

    examples = labelled_set(args.examples, args.seed)
    spoiled = sum(e[2] for e in examples)
    cache = Path(tempfile.mkdtemp()) / "judge.sqlite"  # a fresh cache: every answer is the model's
    local = LLMJudge(make_client("local", cache=cache))
    judges: list[tuple[str, Judge]] = [("always spoiled", Always()), ("never spoiled", Never()),
                                       ("facts (rules)", FactJudge()), ("local (SmolLM2-135M)", local)]  # fmt: skip
    if args.model:
        judges.append((args.model, LLMJudge(make_client(args.model, base_url=args.base_url, cache=cache))))
    table = Table(title=f"User-error judges on {len(examples)} labelled conversations ({spoiled} spoiled)")
    for col in ("judge", "precision", "recall", "F1", "accuracy", "unreadable", "seconds"):
        table.add_column(col)
    for name, judge in judges:
        s = score(judge, examples)
        table.add_row(name, f"{s['precision']:.0%}", f"{s['recall']:.0%}", f"{s['f1']:.2f}", f"{s['accuracy']:.0%}",
                      str(s["unreadable"]), f"{s['seconds']:.1f}")  # fmt: skip
    Console(width=150).print(table)


if __name__ == "__main__":
    main()
