"""One BLAS thread for small problems."""

from contextlib import nullcontext
from functools import lru_cache

from threadpoolctl import ThreadpoolController

# Below this many multiply-adds per pass over the data, BLAS runs on one
# thread: each product then takes well under a millisecond, and waking the
# BLAS threads costs more than it saves (a 15000x20 by 20x3 product took
# 22 ms on two threads against 0.13 ms on one, on a busy 2-core machine).
SINGLE_THREAD_MAX_WORK = 4_000_000


@lru_cache(maxsize=1)
def _threadpool_controller():
    return ThreadpoolController()  # inspects the loaded libraries once


def blas_threads_for(work):
    """Context manager limiting BLAS to one thread when ``work`` is small.

    Parameters
    ----------
    work : int
        Multiply-adds of one pass over the data (e.g. ``n_samples *
        n_features * n_outputs``).

    Returns
    -------
    context : context manager
        ``threadpoolctl``'s limit when ``work <= SINGLE_THREAD_MAX_WORK``,
        else a no-op.
    """
    if work > SINGLE_THREAD_MAX_WORK:
        return nullcontext()
    return _threadpool_controller().limit(limits=1, user_api="blas")
