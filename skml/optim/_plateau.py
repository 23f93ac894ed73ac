"""The per-epoch plateau rule: no progress for a while, then shrink the rate or stop.

Iterative estimators check one number after each epoch (the training loss,
or a held-out score) and act when it has stopped improving. scikit-learn's
SGD models and MLPs, Keras' ``EarlyStopping`` and PyTorch's
``ReduceLROnPlateau`` all use the same rule; :class:`PlateauStopper` is
that rule once, and :class:`EpochRate` the learning rate it shrinks (an
optimiser reads it at every step, the training loop changes it between
epochs).
"""

import math
import numbers

from ._schedules import _Schedule, _check_real

__all__ = ["EpochRate", "PlateauStopper"]


class EpochRate(_Schedule):
    """A learning rate changed between epochs, read by an optimiser at each step.

    A step-indexed schedule (:class:`~skml.optim.InverseScaling`, ...) cannot
    follow what only the epoch loop knows: the samples seen so far
    (scikit-learn's per-epoch "invscaling") or a plateau of the loss
    ("adaptive"). Pass an ``EpochRate`` as an optimiser's ``learning_rate``
    and set its ``value`` between epochs.

    Parameters
    ----------
    value : float
        The current learning rate, > 0.

    See Also
    --------
    PlateauStopper : Divides ``value`` on plateaus (``action="shrink"``).

    Examples
    --------
    >>> from skml.optim import SGD, EpochRate
    >>> rate = EpochRate(0.1)
    >>> opt = SGD(learning_rate=rate)
    >>> rate.value = 0.02          # e.g. after an epoch
    >>> opt.learning_rate(opt.t)
    0.02
    """

    def __init__(self, value):
        self.value = _check_real("value", value, low=0.0)

    def __call__(self, t):
        return self.value


class PlateauStopper:
    """Stop, or shrink the learning rate, once a per-epoch value stops improving.

    Call :meth:`update` with the epoch's value (a loss with ``mode="min"``,
    a score with ``mode="max"``). An epoch *improves* when its value beats
    the best value so far by at least ``tol``:

    - ``mode="min"``: ``value <= best - tol``;
    - ``mode="max"``: ``value >= best + tol``.

    After ``n_iter_no_change`` consecutive epochs without improvement the
    rule fires: with ``action="stop"`` :meth:`update` returns True (stop
    training); with ``action="shrink"`` the learning rate ``rate.value`` is
    divided by ``divisor`` and the count restarts, unless the rate is
    already at most ``min_rate``, in which case it returns True too.

    This is scikit-learn's rule for ``SGDClassifier`` and friends
    (``learning_rate="adaptive"``: divide by 5, stop below 1e-6); its MLPs
    fire one epoch later (their count must *exceed* ``n_iter_no_change``),
    which is ``n_iter_no_change + 1`` here.

    Parameters
    ----------
    n_iter_no_change : int or float("inf"), default=10
        Consecutive epochs without improvement that fire the rule, >= 1;
        infinity never fires.
    tol : float or None, default=1e-4
        Least improvement that counts, >= 0. None: every epoch improves, so
        the rule never fires (scikit-learn's ``tol=None``).
    mode : {"min", "max"}, default="min"
        Whether smaller (a loss) or larger (a score) values are better.
    action : {"stop", "shrink"}, default="stop"
        What the rule does when it fires.
    rate : EpochRate, default=None
        The learning rate to shrink; required with ``action="shrink"``.
    divisor : float, default=5.0
        The rate is divided by it (> 1) each time the rule fires.
    min_rate : float, default=1e-6
        With ``action="shrink"``, stop instead once the rate is <= this.

    Attributes
    ----------
    best : float
        Best value seen (``inf`` for "min", ``-inf`` for "max" before the
        first update). Set it, and ``n_bad_epochs``, to resume a previous
        run.
    n_bad_epochs : int
        Consecutive epochs without improvement so far.
    improved : bool
        Whether the last value was strictly better than every earlier one
        (the moment to keep a copy of the weights).
    shrunk : bool
        Whether the last update shrank the rate.

    See Also
    --------
    EpochRate : The learning rate this rule shrinks.

    Notes
    -----
    O(1) per update. A NaN value never improves. The best value is updated
    even when the improvement is below ``tol`` (scikit-learn's
    bookkeeping), so a slow steady decrease by less than ``tol`` per epoch
    still fires the rule.

    Examples
    --------
    >>> from skml.optim import PlateauStopper
    >>> stopper = PlateauStopper(n_iter_no_change=2, tol=0.1)
    >>> [stopper.update(loss) for loss in [1.0, 0.5, 0.45, 0.44]]
    [False, False, False, True]
    >>> stopper.best
    0.44
    """

    def __init__(self, n_iter_no_change=10, tol=1e-4, *, mode="min", action="stop",
                 rate=None, divisor=5.0, min_rate=1e-6):
        self.n_iter_no_change = _check_patience(n_iter_no_change)
        self.tol = None if tol is None else _check_real("tol", tol, low=0.0,
                                                        low_open=False)
        if mode not in ("min", "max"):
            raise ValueError(f"mode must be 'min' or 'max'; got {mode!r}.")
        if action not in ("stop", "shrink"):
            raise ValueError(f"action must be 'stop' or 'shrink'; got {action!r}.")
        if action == "shrink" and not isinstance(rate, EpochRate):
            raise TypeError(
                "action='shrink' needs rate=EpochRate(...), the learning rate to "
                f"shrink; got rate={rate!r}."
            )
        self.mode = mode
        self.action = action
        self.rate = rate
        self.divisor = _check_real("divisor", divisor, low=1.0)
        self.min_rate = _check_real("min_rate", min_rate, low=0.0, low_open=False)
        self.best = math.inf if mode == "min" else -math.inf
        self.n_bad_epochs = 0
        self.improved = False
        self.shrunk = False

    def update(self, value):
        """Record one epoch's value; True when training should stop.

        Parameters
        ----------
        value : float
            The epoch's loss (``mode="min"``) or score (``mode="max"``).

        Returns
        -------
        stop : bool
            True once the rule fires with nothing left to shrink.
        """
        value = float(value)
        self.shrunk = False
        if self.mode == "min":
            progress = self.tol is None or value <= self.best - self.tol
            self.improved = value < self.best
        else:
            progress = self.tol is None or value >= self.best + self.tol
            self.improved = value > self.best
        if self.improved:
            self.best = value
        self.n_bad_epochs = 0 if progress else self.n_bad_epochs + 1
        if self.n_bad_epochs < self.n_iter_no_change:
            return False
        if self.action == "shrink" and self.rate.value > self.min_rate:
            self.rate.value /= self.divisor
            self.n_bad_epochs = 0
            self.shrunk = True
            return False
        return True

    def __repr__(self):
        return (
            f"PlateauStopper(n_iter_no_change={self.n_iter_no_change!r}, "
            f"tol={self.tol!r}, mode={self.mode!r}, action={self.action!r}, "
            f"best={self.best!r}, n_bad_epochs={self.n_bad_epochs!r})"
        )


def _check_patience(n):
    if isinstance(n, numbers.Real) and not isinstance(n, bool) and n == math.inf:
        return math.inf
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n_iter_no_change must be an int >= 1 or inf; got {n!r}.")
    return int(n)
