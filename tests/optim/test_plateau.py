"""PlateauStopper and EpochRate: the per-epoch plateau rule of skml.optim."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.optim import SGD, EpochRate, PlateauStopper
from skml.optim._plateau_kernels import plateau_update


def _first_firing(values, n, tol, mode):
    """Declarative form of the rule: the first epoch closing n bad epochs in a row.

    Epoch k is bad when it fails to beat every earlier value by tol.
    """
    sign = 1.0 if mode == "min" else -1.0
    run = 0
    for k, value in enumerate(values):
        earlier = [sign * v for v in values[:k]]
        best = min(earlier) if earlier else math.inf
        run = run + 1 if not sign * value <= best - tol else 0
        if run >= n:
            return k
    return None


@given(
    values=st.lists(st.floats(-5, 5), min_size=1, max_size=30),
    n=st.integers(1, 4),
    tol=st.sampled_from([0.0, 0.1, 1.0]),
    mode=st.sampled_from(["min", "max"]),
)
def test_stop_fires_exactly_where_the_rule_says(values, n, tol, mode):
    stopper = PlateauStopper(n, tol, mode=mode)
    fired = None
    for k, value in enumerate(values):
        if stopper.update(value):
            fired = k
            break
    assert fired == _first_firing(values, n, tol, mode)
    seen = values[: len(values) if fired is None else fired + 1]
    assert stopper.best == (min(seen) if mode == "min" else max(seen))


@given(
    values=st.lists(st.floats(-5, 5), min_size=1, max_size=30),
    tol=st.sampled_from([None, 0.0, 0.1, 1.0]),
    mode=st.sampled_from(["min", "max"]),
)
def test_numba_rule_counts_as_the_stopper(values, tol, mode):
    # plateau_update (the SGD kernel's copy of the rule) keeps the same best
    # value and count of bad epochs as PlateauStopper, epoch by epoch
    # (patience inf: the stopper never resets its count).
    stopper = PlateauStopper(math.inf, tol, mode=mode)
    best, n_bad = (math.inf if mode == "min" else -math.inf), 0
    for value in values:
        stopper.update(value)
        best, n_bad = plateau_update(value, best, n_bad,
                                     -math.inf if tol is None else tol, mode == "max")
        assert (best, n_bad) == (stopper.best, stopper.n_bad_epochs)


def test_worked_example_and_improved_flag():
    stopper = PlateauStopper(n_iter_no_change=2, tol=0.1)
    assert not stopper.update(1.0) and stopper.improved
    assert not stopper.update(0.5) and stopper.n_bad_epochs == 0
    # 0.45 is a new best (improved) but not by tol: a bad epoch all the same.
    assert not stopper.update(0.45) and stopper.improved and stopper.n_bad_epochs == 1
    assert stopper.update(0.47) and not stopper.improved
    assert stopper.best == 0.45


def test_max_mode_counts_scores():
    stopper = PlateauStopper(n_iter_no_change=1, tol=0.0, mode="max")
    assert not stopper.update(0.5)
    assert not stopper.update(0.5)  # equal counts as progress with tol=0
    assert stopper.update(0.4)
    assert stopper.best == 0.5


def test_shrink_divides_the_rate_then_stops_at_min_rate():
    rate = EpochRate(1e-5)
    stopper = PlateauStopper(1, tol=10.0, action="shrink", rate=rate, min_rate=1e-6)
    assert not stopper.update(1.0)  # the first value always improves
    assert not stopper.update(1.0) and stopper.shrunk and rate.value == 1e-5 / 5
    assert stopper.n_bad_epochs == 0
    assert not stopper.update(1.0) and rate.value == pytest.approx(1e-5 / 25)
    assert stopper.update(1.0) and not stopper.shrunk  # 4e-7 <= min_rate: stop


def test_shrinking_rate_reaches_the_optimiser():
    rate = EpochRate(0.5)
    opt = SGD(learning_rate=rate)
    w = np.array([1.0])
    stopper = PlateauStopper(1, tol=1.0, action="shrink", rate=rate, divisor=2.0)
    stopper.update(0.0)
    stopper.update(0.0)
    opt.step([w], [np.array([1.0])])
    assert w[0] == 1.0 - 0.25


def test_never_fires_without_tol_or_with_infinite_patience():
    for stopper in (PlateauStopper(1, tol=None), PlateauStopper(np.inf, tol=1.0)):
        assert not any(stopper.update(1.0) for _ in range(50))


def test_nan_never_improves():
    stopper = PlateauStopper(2, tol=0.0)
    stopper.update(1.0)
    assert not stopper.update(np.nan) and not stopper.improved
    assert stopper.update(np.nan)
    assert stopper.best == 1.0


def test_resume_from_saved_state():
    a = PlateauStopper(3, tol=0.0)
    for value in (3.0, 2.0, 2.5, 2.5):
        a.update(value)
    b = PlateauStopper(3, tol=0.0)
    b.best, b.n_bad_epochs = a.best, a.n_bad_epochs
    assert a.update(2.2) == b.update(2.2) is True


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n_iter_no_change": 0}, ValueError, "n_iter_no_change"),
    ({"n_iter_no_change": 2.5}, ValueError, "n_iter_no_change"),
    ({"n_iter_no_change": True}, ValueError, "n_iter_no_change"),
    ({"tol": -1.0}, ValueError, "tol"),
    ({"mode": "up"}, ValueError, "mode"),
    ({"action": "halve"}, ValueError, "action"),
    ({"action": "shrink"}, TypeError, "rate"),
    ({"action": "shrink", "rate": 0.1}, TypeError, "EpochRate"),
    ({"divisor": 1.0, "action": "shrink", "rate": EpochRate(1.0)}, ValueError,
     "divisor"),
])
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        PlateauStopper(**kwargs)


def test_epoch_rate_checks_and_repr():
    assert repr(EpochRate(0.1)) == "EpochRate(value=0.1)"
    assert EpochRate(0.1)(1000) == 0.1
    with pytest.raises(ValueError, match="value"):
        EpochRate(0.0)
