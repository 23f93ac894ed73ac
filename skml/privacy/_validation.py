"""Shared checks of privacy parameters (clear errors naming the parameter)."""

import numbers

import numpy as np

__all__ = []


def _check_epsilon(epsilon, name="epsilon", allow_inf=False):
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a positive float; got {epsilon!r}.")
    epsilon = float(epsilon)
    if np.isnan(epsilon) or epsilon <= 0 or (np.isinf(epsilon) and not allow_inf):
        bound = "(0, inf]" if allow_inf else "(0, inf)"
        raise ValueError(f"{name} must be in {bound}; got {epsilon!r}.")
    return epsilon


def _check_delta(delta, name="delta", allow_zero=False):
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, numbers.Real):
        raise TypeError(f"{name} must be a float in (0, 1); got {delta!r}.")
    delta = float(delta)
    low_ok = delta >= 0 if allow_zero else delta > 0
    if np.isnan(delta) or not low_ok or delta >= 1:
        bound = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be in {bound}; got {delta!r}.")
    return delta


def _check_positive(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a positive float; got {value!r}.")
    value = float(value)
    if np.isnan(value) or value <= 0 or np.isinf(value):
        raise ValueError(f"{name} must be a positive finite float; got {value!r}.")
    return value


def _check_bounds(lower, upper, name="bounds"):
    for v in (lower, upper):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or (
            not np.isfinite(v)
        ):
            raise ValueError(
                f"{name} must be two finite numbers (lower, upper); got "
                f"({lower!r}, {upper!r})."
            )
    if lower > upper:
        raise ValueError(f"{name}: lower {lower!r} is above upper {upper!r}.")
    return float(lower), float(upper)


def _rng(random_state):
    """A numpy Generator from None, an int, a RandomState or a Generator."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
    ):
        return np.random.default_rng(random_state)
    raise TypeError(
        "random_state must be None, an int, a RandomState or a Generator; got "
        f"{random_state!r}."
    )
