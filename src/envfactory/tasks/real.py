"""Tasks on the real thing: planned on a model, proven on the implementation.

A bound Python class or a live MCP server keeps its state where the task factory cannot walk it.
So tasks are planned on a *model*: the environment synthesized from the same tool descriptions,
starting where a fresh episode of the real implementation starts (:func:`envfactory.real.mirror.mirrored`).
Each planned task is then run on the real implementation: every gold call must succeed there,
every fact the task asks for must be stated by the real answers, and the goal becomes the real
final state. The self-test that follows (gold passes; no-op, read-only, early-stopping and
careless agents and single mutations fail) runs on the real implementation too. A task the real
thing answers otherwise than its model is rejected, never kept with the model's answer.
"""

from __future__ import annotations

import weakref

from envfactory.ir.task import Goal, Task
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.facts import states_fact
from envfactory.tasks.errors import Rejected

REAL_KINDS = frozenset({"bound", "served"})
_MODELS: weakref.WeakKeyDictionary[Environment, Environment] = weakref.WeakKeyDictionary()


def is_real(env: Environment) -> bool:
    """Whether a real implementation (a bound class, a live server) answers the environment's tools."""
    return any(b.effect.kind in REAL_KINDS for b in env.spec.behaviours)


def model_of(env: Environment) -> Environment:
    """The synthesized model of a real environment's tools, starting as the real one starts (made once)."""
    model = _MODELS.get(env)
    if model is None:
        from envfactory.real.mirror import mirrored
        from envfactory.synth import synthesize

        config = env.spec.config
        spec = synthesize(env.spec.tools, name=env.spec.name, seed=config.seed, state="empty",
                          max_steps=config.max_steps)  # fmt: skip
        model = _MODELS[env] = Environment(mirrored(spec, env))
    return model


def proven_on_real(task: Task, episode: Episode) -> Task:
    """``task`` (planned on the model) with the goal the real implementation reaches: its gold plan
    run on ``episode`` (a real one), which must accept every call and state every asked fact."""
    episode.reset(task=task)
    start = episode.state_hash()
    said = []
    for call in task.gold:
        result = episode.call_tool(call.tool, call.args)
        if not result.ok:
            raise Rejected(f"the real implementation refuses the gold plan: {call.tool} answers {result.error}")
        said.append(result.content)
    text = " ".join(said)
    if any(not states_fact(text, fact) for fact in task.goal.answer):
        raise Rejected("the real implementation answers otherwise than its model")
    final = episode.state_hash()
    if final == start and not task.goal.answer:
        raise Rejected("the gold plan leaves the real state unchanged")
    return task.model_copy(update={"goal": Goal(state_hash=final, rows={}, answer=task.goal.answer)})


__all__ = ["is_real", "model_of", "proven_on_real"]
