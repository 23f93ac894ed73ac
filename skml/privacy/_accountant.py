r"""A privacy budget with sequential composition (notes B §13.1).

Basic composition: mechanisms that are :math:`(\varepsilon_i, \delta_i)`-DP,
run on the same data, are together :math:`(\sum_i \varepsilon_i,
\sum_i \delta_i)`-DP. Post-processing is free: nothing computed from a noisy
output spends budget. Group privacy: an :math:`\varepsilon`-DP mechanism is
:math:`k\varepsilon`-DP for datasets differing in :math:`k` rows.
"""

import math
import numbers

from ._validation import _check_delta, _check_epsilon

__all__ = ["BudgetAccountant", "BudgetExceededError", "group_privacy"]

# Spending that lands on the total up to rounding (ten spends of 0.1 against
# a budget of 1.0) is within budget.
_SLACK = 1e-12


class BudgetExceededError(ValueError):
    """Raised when a spend would take an accountant past its budget."""


def group_privacy(epsilon, k, delta=0.0):
    r"""Privacy of an :math:`(\varepsilon, \delta)`-DP mechanism for groups of k rows.

    Notes B §13.1: datasets differing in ``k`` rows are
    :math:`(k\varepsilon, k e^{(k-1)\varepsilon}\delta)`-indistinguishable
    (the ratio of probabilities is at most :math:`e^{k\varepsilon}`).

    Parameters
    ----------
    epsilon : float
        Of the mechanism, > 0.
    k : int
        Group size, >= 1.
    delta : float, default=0.0
        Of the mechanism, in [0, 1).

    Returns
    -------
    epsilon_k, delta_k : float

    Examples
    --------
    >>> from skml.privacy import group_privacy
    >>> group_privacy(0.5, 3)
    (1.5, 0.0)
    """
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta, allow_zero=True)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k (the group size) must be an int >= 1; got {k!r}.")
    k = int(k)
    return k * epsilon, min(1.0, k * math.exp((k - 1) * epsilon) * delta)


class BudgetAccountant:
    r"""Track the spend of a total :math:`(\varepsilon, \delta)` budget.

    Basic sequential composition (notes B §13.1): the spends add up, in
    :math:`\varepsilon` and in :math:`\delta`. A spend that would go past
    either total raises :class:`BudgetExceededError` and is not recorded.

    Parameters
    ----------
    epsilon : float, default=inf
        Total ε, > 0 (inf: no limit).
    delta : float, default=0.0
        Total δ, in [0, 1).

    Attributes
    ----------
    spent : list of (float, float)
        The recorded spends, in order.

    Examples
    --------
    >>> from skml.privacy import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    >>> acc.spend(0.25)
    >>> acc.spend(0.5, 1e-6)
    >>> acc.total()
    (0.75, 1e-06)
    >>> acc.remaining()[0]
    0.25
    """

    def __init__(self, epsilon=float("inf"), delta=0.0):
        self.epsilon = _check_epsilon(epsilon, allow_inf=True)
        self.delta = _check_delta(delta, allow_zero=True)
        self.spent = []

    def total(self):
        """The composed spend so far, ``(sum of epsilons, sum of deltas)``."""
        eps = math.fsum(e for e, _ in self.spent)
        delta = math.fsum(d for _, d in self.spent)
        return eps, delta

    def remaining(self):
        """``(epsilon, delta)`` still available (never negative)."""
        eps, delta = self.total()
        return max(self.epsilon - eps, 0.0), max(self.delta - delta, 0.0)

    def check(self, epsilon, delta=0.0):
        """Whether a spend of ``(epsilon, delta)`` fits; raises if it does not.

        Raises
        ------
        BudgetExceededError
            Naming the total and the part that would be exceeded.
        """
        epsilon = _check_epsilon(epsilon)
        delta = _check_delta(delta, allow_zero=True)
        eps_used, delta_used = self.total()
        if eps_used + epsilon > self.epsilon * (1 + _SLACK) + _SLACK:
            raise BudgetExceededError(
                f"Privacy budget exceeded: spending epsilon={epsilon!r} on top of "
                f"{eps_used!r} goes past the total epsilon={self.epsilon!r}."
            )
        if delta_used + delta > self.delta * (1 + _SLACK) + _SLACK * 1e-6:
            raise BudgetExceededError(
                f"Privacy budget exceeded: spending delta={delta!r} on top of "
                f"{delta_used!r} goes past the total delta={self.delta!r}."
            )
        return True

    def spend(self, epsilon, delta=0.0):
        """Record a spend of ``(epsilon, delta)`` after checking it fits.

        Raises
        ------
        BudgetExceededError
            When the spend would exceed the budget (nothing is recorded).
        """
        self.check(epsilon, delta)
        self.spent.append((float(epsilon), float(delta)))

    def __len__(self):
        return len(self.spent)

    def __repr__(self):
        return (f"BudgetAccountant(epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"spent={self.total()!r})")
