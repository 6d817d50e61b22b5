"""Episodes decoded side by side: each row writes what it would write alone, rounds hold exactly the
episodes still running, and evaluation in lockstep gives the trajectories of one at a time."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from tests.rl.test_lm import SMALL, lights  # noqa: F401 -- the toy set's fixture

from envfactory.eval.runner import PlaysTogether, evaluate
from envfactory.llm.local import trainable
from envfactory.rl.lm import lockstep
from envfactory.rl.lm.lockstep import Lockstep, Turn, decode
from envfactory.rl.lm.recipe import policy_maker

PROMPTS = ["List three fruits.", "Say hello to Ada in one short sentence, please.", "What is two plus two?"]


@pytest.fixture(scope="module")
def model() -> tuple[Any, Any]:
    tokenizer, model = trainable()
    model.eval()
    return tokenizer, model


def _ids(tokenizer: Any, text: str) -> list[int]:
    rendered = tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                             add_generation_prompt=True)  # fmt: skip
    return list(tokenizer(rendered, add_special_tokens=False)["input_ids"])


def _alone(model: Any, turn: Turn, eos: int) -> list[int]:
    """The reference: ``transformers``' own ``generate`` on the whole conversation, no cache kept."""
    import torch
    from transformers import DynamicCache

    fresh = Turn(list(turn.ids), DynamicCache(), seed=turn.seed, sample=turn.sample, temperature=turn.temperature)
    with torch.no_grad():
        return lockstep._generate(model, fresh, max_new_tokens=12, eos=eos)


def test_a_batch_writes_what_each_conversation_writes_alone_turn_after_turn(model: tuple[Any, Any]) -> None:
    """Greedy, three conversations of different lengths in one batch, then a second turn read on
    the caches the first left: every row is what ``generate`` writes for it alone."""
    tokenizer, lm = model
    eos = tokenizer.eos_token_id
    turns = [Turn(_ids(tokenizer, p)) for p in PROMPTS]
    assert len({len(t.ids) for t in turns}) == 3
    for round_ in range(2):
        expected = [_alone(lm, t, eos) for t in turns]
        written = decode(lm, turns, max_new_tokens=12, eos=eos)
        assert written == expected, f"round {round_}"
        for turn, ids in zip(turns, written, strict=True):
            assert turn.cache.get_seq_length() == len(turn.ids) - 1 + len(ids)
            turn.ids = turn.ids + ids + ([eos] if ids[-1] != eos else []) + _ids(tokenizer, "And then?")[1:]


def test_a_sampled_row_draws_the_same_tokens_whatever_shares_its_batch(model: tuple[Any, Any]) -> None:
    tokenizer, lm = model
    eos = tokenizer.eos_token_id

    def row(seed: int) -> Turn:
        return Turn(_ids(tokenizer, PROMPTS[0]), seed=seed, sample=True, temperature=0.7)

    alone = decode(lm, [row(5)], max_new_tokens=12, eos=eos)[0]
    together = decode(lm, [row(1), row(5), Turn(_ids(tokenizer, PROMPTS[1]))], max_new_tokens=12, eos=eos)
    assert together[1] == alone == _alone(lm, row(5), eos)
    assert together[0] != alone  # another seed draws otherwise: the seed is what decides


def _scripted(monkeypatch: pytest.MonkeyPatch, rounds: list[list[int]]) -> None:
    """``decode`` replaced: each round records which jobs (by the seed they carry) it held."""

    def fake(model: Any, turns: list[Turn], *, max_new_tokens: int, eos: int) -> list[list[int]]:
        rounds.append([t.seed for t in turns])
        return [[t.seed, eos] for t in turns]

    monkeypatch.setattr(lockstep, "decode", fake)


def _five_jobs(monkeypatch: pytest.MonkeyPatch, wants: list[int], attempt: int) -> tuple[Any, ...]:
    """Job ``i`` asks for ``wants[i]`` turns, sleeping a random while before each; three rows."""
    rounds: list[list[int]] = []
    _scripted(monkeypatch, rounds)
    stepper = Lockstep(object(), max_new_tokens=4, eos=0, rows=3)
    pause = random.Random(attempt)
    delays = [[pause.random() / 500 for _ in range(n)] for n in wants]

    def job(i: int) -> list[list[int]]:
        got = []
        for delay in delays[i]:
            time.sleep(delay)
            got.append(stepper.generate(Turn([1, 2], seed=i)))
        return got

    ended: list[int] = []
    results = stepper.run([partial(job, i) for i in range(len(wants))], progress=ended.append)
    return rounds, results, ended, stepper.sizes


def test_a_round_holds_every_running_job_and_the_next_ones_join_as_others_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five jobs asking for 3, 1, 2, 1 and 2 turns, three rows: worked out by hand, the rounds are
    {0,1,2}, {0,2,3} (job 3 took job 1's place), {0,4}, {4} — whichever thread runs first, every time."""
    wants = [3, 1, 2, 1, 2]
    for attempt in range(8):
        rounds, results, ended, sizes = _five_jobs(monkeypatch, wants, attempt)
        assert rounds == [[0, 1, 2], [0, 2, 3], [0, 4], [4]], attempt
        assert results == [[[i, 0]] * n for i, n in enumerate(wants)]
        assert ended == [1, 2, 3, 4, 5] and sizes == [3, 3, 2, 1]


def test_a_failing_job_fails_the_run_after_the_others_end_and_a_failed_round_fails_its_jobs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rounds: list[list[int]] = []
    _scripted(monkeypatch, rounds)
    stepper = Lockstep(object(), max_new_tokens=4, eos=0, rows=2)
    finished = threading.Event()

    def fails() -> None:
        stepper.generate(Turn([1], seed=0))
        raise RuntimeError("episode broke")

    def carries_on() -> None:
        for _ in range(3):
            stepper.generate(Turn([1], seed=1))
        finished.set()

    with pytest.raises(RuntimeError, match="episode broke"):
        stepper.run([fails, carries_on])
    assert finished.is_set() and rounds == [[0, 1], [1], [1]]

    def broken(model: Any, turns: list[Turn], *, max_new_tokens: int, eos: int) -> list[list[int]]:
        raise MemoryError("no room for the batch")

    monkeypatch.setattr(lockstep, "decode", broken)
    asks: list[Callable[[], list[int]]] = [lambda: stepper.generate(Turn([1])) for _ in range(3)]
    with pytest.raises(MemoryError, match="no room"):
        stepper.run(asks)


def test_evaluation_in_lockstep_gives_the_trajectories_of_one_episode_at_a_time(
    lights: tuple[Any, list[Any], list[Any]],  # noqa: F811 -- the fixture imported above
    model: tuple[Any, Any],
) -> None:
    """The base model, sampling, on two of the toy set's tasks, two trials each: 4 rows at a time or 1."""
    env, train, test = lights
    tokenizer, base = model
    tasks = [train[0], test[0]]
    together = policy_maker(base, tokenizer, SMALL.model_copy(update={"decode_rows": 4}), sample=True)
    alone = policy_maker(base, tokenizer, SMALL.model_copy(update={"decode_rows": 1}), sample=True)
    assert isinstance(together, PlaysTogether)
    a = evaluate(env, tasks, together, trials=2, seed=3, keep_messages=True)
    b = evaluate(env, tasks, alone, trials=2, seed=3, keep_messages=True)
    assert [t.messages for t in a] == [t.messages for t in b]
    assert max(together.lockstep.sizes) == 4 and set(alone.lockstep.sizes) == {1}
