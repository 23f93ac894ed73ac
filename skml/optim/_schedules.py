"""Learning-rate schedules (notes B §6.3).

A schedule is a callable ``schedule(t) -> learning rate`` for the step count
``t = 0, 1, 2, ...`` (the number of updates already taken). Every optimiser in
:mod:`skml.optim` accepts one as its ``learning_rate``; any other callable of
the same form works too.
"""

import inspect
import math
import numbers

__all__ = ["Constant", "ExponentialDecay", "InverseScaling", "InverseTimeDecay",
           "StepDecay"]


def _check_real(name, value, low=None, high=None, low_open=True, high_open=False):
    """Return ``float(value)``; ValueError unless a finite real in the interval."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number; got {value!r}.")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must be in {left}{lo}, {hi}{right}; got {value!r}.")
    return float(value)


class _Schedule:
    """Shared ``repr`` for the schedules; subclasses implement ``__call__``."""

    def __repr__(self):
        names = inspect.signature(type(self)).parameters
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__name__}({args})"


class Constant(_Schedule):
    """Constant learning rate, ``eta_t = eta0``.

    Parameters
    ----------
    eta0 : float
        The learning rate, > 0.

    See Also
    --------
    InverseScaling, StepDecay, ExponentialDecay

    Examples
    --------
    >>> from skml.optim import Constant
    >>> Constant(0.1)(1000)
    0.1
    """

    def __init__(self, eta0):
        self.eta0 = _check_real("eta0", eta0, low=0.0)

    def __call__(self, t):
        return self.eta0


class InverseScaling(_Schedule):
    """Inverse-power decay, ``eta_t = eta0 / (t + 1) ** power_t``.

    The inverse-square-root rule of the notes (notes B §6.3, ``eta / sqrt(t+1)``)
    is ``power_t=0.5``; ``power_t=1`` is the ``1/k`` rule for SGD (§8.3 of D1).
    This is scikit-learn's ``learning_rate='invscaling'`` with its step counter
    starting at 1 (ours starts at 0, hence ``t + 1``).

    Parameters
    ----------
    eta0 : float
        Initial learning rate, > 0.
    power_t : float, default=0.5
        Exponent of the decay, >= 0 (0 gives a constant rate).

    See Also
    --------
    Constant, InverseTimeDecay, StepDecay, ExponentialDecay

    Examples
    --------
    >>> from skml.optim import InverseScaling
    >>> InverseScaling(1.0, power_t=0.5)(3)
    0.5
    """

    def __init__(self, eta0, power_t=0.5):
        self.eta0 = _check_real("eta0", eta0, low=0.0)
        self.power_t = _check_real("power_t", power_t, low=0.0, low_open=False)

    def __call__(self, t):
        return self.eta0 / (t + 1) ** self.power_t


class InverseTimeDecay(_Schedule):
    """Sublinear decay with a free rate, ``eta_t = eta0 / (1 + c t) ** power``.

    The notes' sublinear schedules (notes B §6.3, D1 §9.4):
    ``eta0 / (1 + c t)`` (``power=1``) and ``eta0 / sqrt(1 + c t)``
    (``power=0.5``). ``c`` sets how many steps the rate takes to halve
    (``1 / c`` with ``power=1``); ``c=1`` is :class:`InverseScaling`.

    Parameters
    ----------
    eta0 : float
        Initial learning rate, > 0.
    c : float, default=1.0
        Decay rate per step, >= 0 (0 gives a constant rate).
    power : float, default=1.0
        Exponent, >= 0: 1 for ``eta0 / (1 + c t)``, 0.5 for the square root.

    See Also
    --------
    InverseScaling, StepDecay, ExponentialDecay

    Examples
    --------
    >>> from skml.optim import InverseTimeDecay
    >>> [InverseTimeDecay(1.0, c=0.5)(t) for t in (0, 2, 6)]
    [1.0, 0.5, 0.25]
    >>> InverseTimeDecay(1.0, c=0.5, power=0.5)(6)
    0.5
    """

    def __init__(self, eta0, c=1.0, power=1.0):
        self.eta0 = _check_real("eta0", eta0, low=0.0)
        self.c = _check_real("c", c, low=0.0, low_open=False)
        self.power = _check_real("power", power, low=0.0, low_open=False)

    def __call__(self, t):
        return self.eta0 / (1.0 + self.c * t) ** self.power


class StepDecay(_Schedule):
    """Piecewise-constant decay: multiply by ``factor`` every few steps.

    Two forms (give exactly one of ``step_size`` and ``milestones``):

    - ``step_size``: ``eta_t = eta0 * factor ** (t // step_size)``, the rate
      drops at ``t = step_size, 2 step_size, ...`` (``torch`` ``StepLR``).
    - ``milestones=(t0, t1, ...)``: the notes' form (notes B §6.3),
      ``eta_t = eta0`` for ``t <= t0``, ``eta0 * factor`` for ``t0 < t <= t1``,
      ``eta0 * factor**2`` for ``t > t1``, and so on. The drop comes one step
      *after* each milestone, as printed in the notes (``torch``'s
      ``MultiStepLR`` drops *at* the milestone).

    The notes divide by 10; here ``factor=0.1`` multiplies.

    Parameters
    ----------
    eta0 : float
        Initial learning rate, > 0.
    step_size : int, default=None
        Number of steps between two drops, >= 1.
    factor : float, default=0.1
        Multiplier applied at each drop, in (0, 1].
    milestones : sequence of int, default=None
        Strictly increasing step counts >= 0 after which the rate drops.

    See Also
    --------
    Constant, InverseScaling, ExponentialDecay

    Examples
    --------
    >>> from skml.optim import StepDecay
    >>> schedule = StepDecay(1.0, factor=0.5, milestones=(10, 20))
    >>> [schedule(t) for t in (10, 11, 20, 21)]
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, eta0, step_size=None, factor=0.1, milestones=None):
        self.eta0 = _check_real("eta0", eta0, low=0.0)
        self.factor = _check_real("factor", factor, low=0.0, high=1.0)
        if (step_size is None) == (milestones is None):
            raise ValueError(
                "StepDecay needs exactly one of step_size and milestones; got "
                f"step_size={step_size!r}, milestones={milestones!r}."
            )
        if step_size is not None:
            is_int = isinstance(step_size, numbers.Integral)
            if isinstance(step_size, bool) or not is_int or step_size < 1:
                raise ValueError(f"step_size must be an int >= 1; got {step_size!r}.")
            step_size = int(step_size)
        else:
            milestones = tuple(milestones)
            ok = len(milestones) > 0 and all(
                isinstance(m, numbers.Integral) and not isinstance(m, bool) and m >= 0
                for m in milestones
            )
            if not ok or any(a >= b for a, b in zip(milestones, milestones[1:])):
                raise ValueError(
                    "milestones must be a non-empty, strictly increasing sequence of "
                    f"ints >= 0; got {milestones!r}."
                )
            milestones = tuple(int(m) for m in milestones)
        self.step_size = step_size
        self.milestones = milestones

    def __call__(self, t):
        if self.step_size is not None:
            n_drops = t // self.step_size
        else:
            n_drops = sum(t > m for m in self.milestones)
        return self.eta0 * self.factor**n_drops


class ExponentialDecay(_Schedule):
    """Exponential decay, ``eta_t = eta0 * gamma ** t``.

    Parameters
    ----------
    eta0 : float
        Initial learning rate, > 0.
    gamma : float
        Decay per step, in (0, 1].

    See Also
    --------
    Constant, InverseScaling, StepDecay

    Examples
    --------
    >>> from skml.optim import ExponentialDecay
    >>> ExponentialDecay(1.0, gamma=0.5)(3)
    0.125
    """

    def __init__(self, eta0, gamma):
        self.eta0 = _check_real("eta0", eta0, low=0.0)
        self.gamma = _check_real("gamma", gamma, low=0.0, high=1.0)

    def __call__(self, t):
        return self.eta0 * self.gamma**t
