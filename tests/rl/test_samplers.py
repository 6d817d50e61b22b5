import math
import random
from collections import Counter

import pytest

from envfactory.rl.samplers import (
    AdversarialSampler,
    CurriculumSampler,
    UniformSampler,
    WorstCaseSampler,
    adversarial_weights,
    cvar_weights,
    group_dro_weights,
)


def test_weight_rules_by_hand() -> None:
    w = adversarial_weights({"a": 1.0, "b": 0.5, "c": 0.0}, floor=0.3)
    # failures 0, .5, 1 -> normalized 0, 1/3, 2/3 -> 0.7 x that + 0.1 each
    assert w == pytest.approx({"a": 0.1, "b": 0.7 / 3 + 0.1, "c": 1.4 / 3 + 0.1})
    g = group_dro_weights({"x": 0.5, "y": 0.5}, {"x": 1.0, "y": 0.0}, eta=math.log(3))
    assert g == pytest.approx({"x": 0.75, "y": 0.25})  # 0.5*3 : 0.5*1
    assert cvar_weights({"x": 0.9, "y": 0.1, "z": 0.5, "w": 0.2}, alpha=0.5) == {
        "x": 0.5,
        "y": 0.0,
        "z": 0.5,
        "w": 0.0,
    }
    assert cvar_weights({"x": 0.1, "y": 0.2}, alpha=0.01) == {"x": 0.0, "y": 1.0}
    with pytest.raises(ValueError):
        cvar_weights({"x": 1.0}, alpha=0)


def draws(sampler, n: int = 4000, seed: int = 0) -> Counter:
    rng = random.Random(seed)
    return Counter(sampler.sample(rng) for _ in range(n))


def test_uniform_and_seeded() -> None:
    s = UniformSampler(["a", "b"])
    assert s.probabilities() == {"a": 0.5, "b": 0.5}
    assert draws(s, 100, seed=1) == draws(s, 100, seed=1)


def test_adversarial_draws_more_where_the_policy_fails_but_starves_nothing() -> None:
    s = AdversarialSampler(["easy", "hard"], floor=0.2, alpha=0.5)
    for _ in range(20):
        s.update("easy", 1.0)
        s.update("hard", 0.0)
    p = s.probabilities()
    assert p["hard"] > 0.85 and p["easy"] >= 0.1 - 1e-9
    counts = draws(s)
    assert counts["hard"] > 5 * counts["easy"] > 0


def test_worst_case_sampler_shifts_to_the_failing_environment() -> None:
    groups = {"shop": ["shop/1", "shop/2"], "bank": ["bank/1"]}
    for objective in ("dro", "cvar"):
        s = WorstCaseSampler(groups, objective=objective, alpha=0.5, floor=0.1)
        for _ in range(30):
            s.update("shop/1", 1.0)
            s.update("bank/1", 0.0)
        p = s.group_probabilities()
        assert p["bank"] > 0.8 and p["shop"] >= 0.05, (objective, p)
        assert sum(s.probabilities().values()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unknown objective"):
        WorstCaseSampler(groups, objective="max")


def test_curriculum_sampler_opens_levels_as_success_comes() -> None:
    levels = {"t1": 1, "t2": 1, "t3": 2, "t4": 3}
    s = CurriculumSampler(levels)
    assert set(draws(s, 200)) == {"t1", "t2"}
    for _ in range(50):
        s.update("t1", 1.0)
    assert "t3" in draws(s, 200)
    assert sum(s.probabilities().values()) == pytest.approx(1.0)
