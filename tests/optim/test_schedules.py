"""Learning-rate schedules of notes B §6.3."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.optim import Constant, ExponentialDecay, InverseScaling, StepDecay

eta0s = st.floats(1e-6, 10.0)


def test_step_decay_milestones_follow_the_notes_boundaries():
    """eta0 for t <= t0, eta0 * f for t0 < t <= t1, eta0 * f^2 for t > t1."""
    schedule = StepDecay(1.0, factor=0.5, milestones=(5, 12))
    values = {t: schedule(t) for t in (0, 5, 6, 12, 13, 100)}
    assert values == {0: 1.0, 5: 1.0, 6: 0.5, 12: 0.5, 13: 0.25, 100: 0.25}
    notes = StepDecay(0.3, milestones=(5, 12))  # the notes' divide-by-10
    assert [notes(t) for t in (5, 6, 12, 13)] == pytest.approx([0.3, 0.03, 0.03, 0.003])


def test_step_decay_step_size_drops_at_multiples():
    schedule = StepDecay(2.0, step_size=3, factor=0.5)
    assert [schedule(t) for t in range(8)] == [2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.5, 0.5]


def test_inverse_scaling_exact_values():
    assert InverseScaling(0.8)(0) == 0.8
    assert InverseScaling(0.8)(3) == 0.4  # eta0 / sqrt(4)
    assert InverseScaling(0.8, power_t=1.0)(3) == 0.2  # the 1/k rule
    assert InverseScaling(0.8, power_t=0.0)(1000) == 0.8


def test_inverse_scaling_is_sklearn_invscaling_with_shifted_counter():
    # sklearn SGD: eta = eta0 / t ** power_t with t starting at 1
    eta0, power_t = 0.1, 0.25
    for t in range(1, 20):
        assert InverseScaling(eta0, power_t)(t - 1) == pytest.approx(eta0 / t**power_t)


def test_exponential_and_constant_exact_values():
    assert ExponentialDecay(3.0, 0.5)(0) == 3.0
    assert ExponentialDecay(3.0, 0.5)(4) == 3.0 / 16
    assert ExponentialDecay(3.0, 1.0)(50) == 3.0
    assert Constant(0.25)(0) == Constant(0.25)(10**6) == 0.25


schedules = st.one_of(
    st.builds(Constant, eta0s),
    st.builds(InverseScaling, eta0s, st.floats(0.0, 2.0)),
    st.builds(ExponentialDecay, eta0s, st.floats(0.5, 1.0)),
    st.builds(
        StepDecay, eta0s, step_size=st.integers(1, 20), factor=st.floats(0.01, 1.0)
    ),
    st.builds(
        StepDecay,
        eta0s,
        factor=st.floats(0.01, 1.0),
        milestones=st.lists(
            st.integers(0, 200), min_size=1, max_size=4, unique=True
        ).map(sorted),
    ),
)


@given(schedules)
def test_schedules_are_positive_and_non_increasing(schedule):
    values = np.array([schedule(t) for t in range(300)])
    assert values[0] == schedule.eta0
    assert np.all(values >= 0)  # > 0 mathematically; tiny factors underflow to 0.0
    assert np.all(np.diff(values) <= 0)


@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: Constant(0.0), "eta0"),
        (lambda: Constant(-1.0), "eta0"),
        (lambda: Constant(np.inf), "eta0"),
        (lambda: Constant("0.1"), "eta0"),
        (lambda: InverseScaling(0.1, power_t=-0.5), "power_t"),
        (lambda: ExponentialDecay(0.1, gamma=0.0), "gamma"),
        (lambda: ExponentialDecay(0.1, gamma=1.5), "gamma"),
        (lambda: StepDecay(0.1), "exactly one"),
        (lambda: StepDecay(0.1, step_size=5, milestones=(3,)), "exactly one"),
        (lambda: StepDecay(0.1, step_size=0), "step_size"),
        (lambda: StepDecay(0.1, step_size=2.5), "step_size"),
        (lambda: StepDecay(0.1, step_size=2, factor=1.5), "factor"),
        (lambda: StepDecay(0.1, step_size=2, factor=0.0), "factor"),
        (lambda: StepDecay(0.1, milestones=(5, 3)), "milestones"),
        (lambda: StepDecay(0.1, milestones=()), "milestones"),
        (lambda: StepDecay(0.1, milestones=(-1, 3)), "milestones"),
    ],
)
def test_bad_arguments_raise(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_repr():
    assert repr(StepDecay(0.1, milestones=[3, 7])) == (
        "StepDecay(eta0=0.1, step_size=None, factor=0.1, milestones=(3, 7))"
    )
