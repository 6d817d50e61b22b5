"""Train the compact DRRN policy on one synthesized environment and compare it with chance.

python examples/train_policy.py
"""

from pathlib import Path

from envfactory import Environment, synthesize
from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.drrn import DRRNPolicy
from envfactory.rl.policy import RandomPolicy
from envfactory.rl.trainer import TrainConfig, train
from envfactory.tasks.generate import generate_tasks

SPECS = Path(__file__).resolve().parents[1] / "specs"

env = Environment(synthesize(SPECS / "library.json", name="library"))
tasks = [t for t in generate_tasks(env, 60, seed=0)[0] if t.level <= 2]  # short tasks
train_tasks, test_tasks = tasks[:30], tasks[30:]

config = TrainConfig(iterations=10, estimator="erpo", randomization={"faults": "random", "output": "random"})
model = train({"library": env}, {"library": train_tasks}, config,
              progress=lambda i, m: print(f"iteration {i}: success {m['reward']:.0%}"))  # fmt: skip

trained = summarize(evaluate(env, test_tasks, lambda s: DRRNPolicy(model, seed=s, greedy=True)))
chance = summarize(evaluate(env, test_tasks, lambda s: RandomPolicy(s)))
print(f"held-out tasks: trained {trained['success']:.0%}, random {chance['success']:.0%}")
