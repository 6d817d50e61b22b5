"""The language-model policy: conversations as exact ids, and a warm start plus RL that learn.

The embedded SmolLM2-135M on a toy set of three tools (lights in rooms): a supervised warm start on
the gold runs must lower the loss epoch by epoch and raise held-out success above the base model's;
one RL iteration runs the estimator on sampled groups; a resumed run carries on where it stopped;
``envfactory eval --policy RUN --sample`` replays the same sampled episodes from the saved run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envfactory.cli.main import app
from envfactory.eval.runner import evaluate
from envfactory.ir.task import Task
from envfactory.llm.local import _load
from envfactory.llm.toolcalls import prompt_messages
from envfactory.rl.lm.chat import TokenChat
from envfactory.rl.lm.policy import TeacherPolicy, render_action
from envfactory.rl.lm.recipe import LMConfig, demonstrations, is_run, policy_maker, train_lm, trained_policy
from envfactory.rl.named import policy_factory
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks

LIGHTS = [
    {"type": "function", "function": {"name": "add_light", "description": "Add a light to a room.", "parameters": {
        "type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]}}},
    {"type": "function", "function": {"name": "list_lights", "description": "List every light.",
                                      "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "remove_light", "description": "Remove a light by its id.",
                                      "parameters": {"type": "object", "properties": {"light_id": {"type": "string"}},
                                                     "required": ["light_id"]}}},
]  # fmt: skip
SMALL = LMConfig(sft_epochs=3, sft_batch=2, sft_lr=2e-3, rl_iterations=1, tasks_per_batch=2, group=2,
                 max_new_tokens=40, max_turns=3, observe_chars=160)  # fmt: skip


@pytest.fixture(scope="module")
def lights(tmp_path_factory: pytest.TempPathFactory) -> tuple[Environment, list[Task], list[Task]]:
    spec = tmp_path_factory.mktemp("lights") / "lights.openai.json"
    spec.write_text(json.dumps(LIGHTS))
    env = Environment(synthesize(str(spec)))
    made, _ = generate_tasks(env, 16, seed=0)
    single = [t for t in made if len(t.gold) == 1 and not t.user.facts]  # one call, every value in the request
    assert len(single) >= 8
    return env, single[:4], single[6:9]


def test_a_conversation_is_the_ids_of_its_whole_rendering(lights: tuple[Environment, list[Task], list[Task]]) -> None:
    """Turn by turn, nothing re-tokenized, the ids are those of the template over the whole
    conversation; only the model's turns are masked in."""
    env, train, _ = lights
    tokenizer, _ = _load()
    teacher = TeacherPolicy(tokenizer)
    trajectory = evaluate(env, train[:1], lambda s: teacher, keep_messages=True)[0]
    assert trajectory.success
    chat = teacher.chat
    rendered = prompt_messages(list(trajectory.messages), env.openai_tools)
    whole = tokenizer.apply_chat_template(rendered, tokenize=False)
    assert tokenizer.decode(chat.ids) == whole.rstrip("\n")
    model_text = tokenizer.decode([i for i, m in zip(chat.ids, chat.mask, strict=True) if m])
    call = trajectory.messages[2]
    assert render_action(call) in model_text and "Tool result" not in model_text
    assert chat.prompt_length > 0 and not any(chat.mask[: chat.prompt_length])


def test_ids_the_model_wrote_are_kept_and_a_cut_off_turn_is_closed() -> None:
    tokenizer, _ = _load()
    chat = TokenChat(tokenizer)
    chat.start([{"role": "user", "content": "hi"}], [])
    start = len(chat.ids)
    chat.add_model([42, 43])  # cut off: no end-of-turn id
    assert chat.ids[start:] == [42, 43, tokenizer.eos_token_id] and chat.mask[start:] == [1, 1, 0]
    chat.add_turn("Tool result (x): {}")
    assert chat.mask[-1] == 0 and tokenizer.decode(chat.ids).endswith("<|im_start|>assistant\n")


def test_warm_start_lowers_the_loss_and_raises_held_out_success_then_rl_and_resume(
    lights: tuple[Environment, list[Task], list[Task]], tmp_path: Path
) -> None:
    env, train, test = lights
    tokenizer, base = _load()
    before = evaluate(env, test, policy_maker(base, tokenizer, SMALL, sample=False))
    run = tmp_path / "run"
    lines = train_lm({env.name: env}, {env.name: train}, SMALL.model_copy(update={"rl_iterations": 0}), run)
    sft = [line["loss"] for line in lines if line["stage"] == "sft"]
    assert len(sft) == 3 and sft[0] > sft[1] > sft[2], sft
    assert is_run(run) and (run / "metrics.jsonl").read_text().count("\n") == 3
    after = evaluate(env, test, trained_policy(run))
    assert sum(t.success for t in after) > sum(t.success for t in before), (before, after)
    # resume: RL from its first iteration, from the saved adapter and position; the warm start is not redone
    rl = train_lm({env.name: env}, {env.name: train}, SMALL, run, resume=True)
    assert [(m["stage"], m["step"]) for m in rl] == [("rl", 1)]
    assert rl[0]["episodes"] == 4 and 0.0 <= rl[0]["reward"] <= 1.0
    assert (run / "metrics.jsonl").read_text().count("\n") == 4
    named = policy_factory(str(run))(0)
    assert named.name == "lm"
    # the CLI replays the same episodes: `eval --policy RUN --sample` on the saved environment and tasks
    folder = env.spec.save(tmp_path / "envs" / env.name)
    tasks_file = write_tasks(tmp_path / "test.jsonl", test[:1])
    sampled = evaluate(env, test[:1], trained_policy(run, sample=True), trials=2, seed=3)
    out = tmp_path / "eval.json"
    result = CliRunner().invoke(app, ["eval", str(folder), "--tasks", str(tasks_file), "--policy", str(run),
                                      "--sample", "--trials", "2", "--seed", "3", "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    printed = json.loads(out.read_text())["none"]["all"]
    assert printed["success"] == sum(t.success for t in sampled) / len(sampled)
    assert printed["avg_steps"] == sum(t.steps for t in sampled) / len(sampled)


def test_only_successful_gold_runs_are_demonstrations(lights: tuple[Environment, list[Task], list[Task]]) -> None:
    env, train, _ = lights
    tokenizer, _ = _load()
    broken = train[0].model_copy(update={"gold": ()})  # a gold run that does nothing cannot succeed
    demos = demonstrations({env.name: env}, {env.name: [broken, *train[1:3]]}, tokenizer, SMALL)
    assert len(demos) == 2 and all(sum(d.mask) > 0 for d in demos)


def test_an_episode_reads_the_shared_part_of_its_prompt_from_one_cache_and_order_does_not_matter(
    lights: tuple[Environment, list[Task], list[Task]],
) -> None:
    """The system text and tools are read once per store; an episode's transcript is the same
    whether another episode filled the store first or not."""
    from envfactory.rl.lm.policy import Prefixes

    env, _, test = lights
    tokenizer, model = _load()
    config = SMALL.model_copy(update={"max_turns": 2, "max_new_tokens": 24})
    alone = evaluate(env, test[1:2], policy_maker(model, tokenizer, config, sample=True), keep_messages=True)
    shared = Prefixes()
    after = evaluate(env, test[:2], policy_maker(model, tokenizer, config, sample=True, prefixes=shared),
                     keep_messages=True)  # fmt: skip
    assert after[1].messages == alone[0].messages
    assert len(shared.entries) == 1  # one environment, one shared part
    (key,) = shared.entries
    chat = TokenChat(tokenizer)
    episode = env.episode()
    chat.start(episode.reset(task=test[0]), episode.tools)
    assert tuple(chat.ids[: chat.shared]) == key and test[0].instruction not in tokenizer.decode(list(key))
    assert test[0].instruction in tokenizer.decode(chat.ids[chat.shared :])
    assert Prefixes().start(model, chat.ids, 5).get_seq_length() == 0  # too short to be worth sharing
