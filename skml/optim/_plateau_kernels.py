"""The plateau rule of :class:`~skml.optim.PlateauStopper` for numba loops.

A training loop compiled by numba (the SGD kernel) cannot call the Python
class; it keeps the rule's state, the best value and the count of epochs
without progress, in two locals and updates them with :func:`plateau_update`
after each epoch. ``tests/optim/test_plateau.py`` checks that both give the
same counts on the same values.
"""

import numpy as np
from numba import njit

__all__ = ["plateau_update"]


@njit(cache=True, nogil=True)
def plateau_update(value, best, n_bad, tol, maximize):
    """One epoch of the plateau rule: the new ``(best, n_bad)``.

    Parameters
    ----------
    value : float
        The epoch's score (``maximize``) or loss.
    best : float
        The best value so far (``-inf`` or ``inf`` before the first epoch).
    n_bad : int
        Consecutive epochs so far without progress.
    tol : float
        Progress means beating ``best`` by at least ``tol``; ``-inf`` turns
        the check off (every epoch is progress), as ``tol=None`` does in
        :class:`~skml.optim.PlateauStopper`.
    maximize : bool
        Whether larger values are better.

    Returns
    -------
    best : float
    n_bad : int
        0 after an epoch of progress, else ``n_bad + 1``; the caller acts
        (shrinks its rate or stops) when it reaches its patience.
    """
    if maximize:
        stalled = tol > -np.inf and value < best + tol
        if value > best:
            best = value
    else:
        stalled = tol > -np.inf and value > best - tol
        if value < best:
            best = value
    return best, n_bad + 1 if stalled else 0
