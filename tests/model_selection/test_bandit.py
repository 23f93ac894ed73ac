"""successive_halving_bandit: the notes' properties (A §11.2)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skml.model_selection import successive_halving_bandit


def _bernoulli(p, counter=None):
    def arm(rng):
        if counter is not None:
            counter[0] += 1
        return float(rng.random() < p)

    return arm


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), extra=st.integers(0, 400), seed=st.integers(0, 10_000))
def test_rounds_halving_and_budget(n, extra, seed):
    n_rounds = math.ceil(math.log2(n))
    budget = n * n_rounds + extra
    counter = [0]
    rng = np.random.default_rng(seed)
    arms = [_bernoulli(p, counter) for p in rng.random(n)]
    best, history = successive_halving_bandit(arms, budget, random_state=seed)
    assert len(history) == n_rounds
    for before, after in zip(history, history[1:]):
        assert len(after["arms"]) == math.ceil(len(before["arms"]) / 2)
        assert after["arms"] == before["kept"]
    assert len(history[-1]["kept"]) == 1 and history[-1]["kept"][0] == best
    assert counter[0] <= budget
    assert counter[0] == sum(h["pulls_per_arm"] * len(h["arms"]) for h in history)


@pytest.mark.parametrize("j", [1, 2, 3, 5])
def test_power_of_two_halves_exactly(j):
    n = 2**j
    arms = [_bernoulli(p) for p in np.linspace(0.1, 0.9, n)]
    best, history = successive_halving_bandit(arms, 40 * n * j, random_state=0)
    assert [len(h["arms"]) for h in history] == [n // 2**r for r in range(j)]
    assert 0 <= best < n


def test_survivors_are_the_best_averages():
    arms = [_bernoulli(p) for p in (0.3, 0.8, 0.5, 0.6, 0.1)]
    _, history = successive_halving_bandit(arms, 300, random_state=1)
    for h in history:
        means = np.asarray(h["means"])
        kept = set(h["kept"])
        worst_kept = min(m for a, m in zip(h["arms"], means) if a in kept)
        best_dropped = max((m for a, m in zip(h["arms"], means) if a not in kept),
                           default=-np.inf)
        assert worst_kept >= best_dropped


@pytest.mark.parametrize("averages", ["round", "all"])
def test_best_arm_success_rate(averages):
    # Means 0.9 / 0.6 x 7: Δ = 0.3 for every other arm, H_2 = 8 / 0.09 ≈ 89;
    # B = 600 gives 25 pulls an arm in the first round. Measured: 999/1000
    # wins for either choice of averages (seeds 0-999); the bound 0.95 on
    # 200 seeds leaves a wide margin.
    means = [0.6, 0.6, 0.6, 0.9, 0.6, 0.6, 0.6, 0.6]
    arms = [_bernoulli(p) for p in means]
    wins = sum(
        successive_halving_bandit(arms, 600, random_state=s, averages=averages)[0] == 3
        for s in range(200)
    )
    assert wins / 200 >= 0.95


def test_success_grows_with_budget():
    # A small gap (0.1): the success rate rises with the budget, as the
    # theorem's B ~ H_2 says. Measured on five blocks of 200 seeds:
    # 0.35-0.46 at B=48, 0.96-0.99 at B=1200.
    means = [0.5, 0.5, 0.6, 0.5]
    arms = [_bernoulli(p) for p in means]

    def rate(budget):
        return np.mean([successive_halving_bandit(arms, budget, random_state=s)[0] == 2
                        for s in range(200)])

    low, high = rate(48), rate(1200)
    assert high > low + 0.2
    assert high >= 0.85


def test_single_arm_and_ties():
    assert successive_halving_bandit([lambda rng: 1.0], 5) == (0, [])
    same = [lambda rng: 0.5] * 4
    best, history = successive_halving_bandit(same, 16, random_state=0)
    assert best == 0 and history[0]["kept"] == [0, 1]


def test_reproducible():
    arms = [_bernoulli(p) for p in (0.4, 0.5, 0.45)]
    a = successive_halving_bandit(arms, 60, random_state=3)
    b = successive_halving_bandit(arms, 60, random_state=3)
    assert a == b


def test_bad_input():
    arm = _bernoulli(0.5)
    with pytest.raises(ValueError, match="arms"):
        successive_halving_bandit([], 10)
    with pytest.raises(ValueError, match="budget=5 is too small"):
        successive_halving_bandit([arm] * 4, 5)
    with pytest.raises(ValueError, match="budget"):
        successive_halving_bandit([arm] * 4, 0)
    with pytest.raises(ValueError, match="averages"):
        successive_halving_bandit([arm] * 4, 40, averages="mean")
    with pytest.raises(TypeError, match="arms"):
        successive_halving_bandit([arm, 0.5], 40)
