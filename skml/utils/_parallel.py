"""One policy for threads and blocks, used by every parallel part of skml.

Three questions, answered once here:

- **How many workers for ``n_jobs``?** As scikit-learn and joblib mean it
  (:func:`resolve_n_jobs`): ``None`` is one worker unless a
  ``joblib.parallel_backend`` context says otherwise, ``-1`` all CPUs,
  ``-2`` all but one. The exact neighbour searches read ``None`` as "the
  BLAS thread limit" instead (``none="blas"``), as scikit-learn's brute
  force follows its OpenMP limit.
- **How many rows per block?** (:func:`row_blocks`) Enough that one float64
  temporary of ``rows x n_cols`` stays within :data:`WORKING_MEMORY`, the
  budget shared by the threads, and at least one block per thread.
- **How many threads for numba and BLAS?** Small problems run on one thread
  (:func:`numba_threads`, :func:`blas_threads_for`): waking a thread pool
  costs more than it saves below a fixed amount of work.

Work spread over threads goes through :func:`run_in_threads`; a reduction
that must not depend on ``n_jobs`` splits its items with :func:`fixed_chunks`.
"""

import os
from contextlib import nullcontext
from functools import lru_cache

import numba
from joblib import effective_n_jobs
from sklearn.utils.parallel import Parallel, delayed
from threadpoolctl import ThreadpoolController

__all__ = [
    "ITEMS_PER_TASK",
    "WORKING_MEMORY",
    "blas_threads",
    "blas_threads_for",
    "fixed_chunks",
    "numba_threads",
    "resolve_n_jobs",
    "row_blocks",
    "run_in_threads",
]

# Budget (bytes) of the temporary blocks of a blocked computation (query to
# training distances, LMNN's impostor search), shared by its threads: memory
# stays bounded whatever n. 16 MiB measured fastest on the 20k x 20
# neighbours benchmark (64 MiB blocks cost page faults on every allocation
# and leave the cache between the product and the selection; much smaller
# blocks pay the per-call overhead of the distance function).
WORKING_MEMORY = 16 * 2**20

# Below this many multiply-adds per pass over the data, BLAS runs on one
# thread: each product then takes well under a millisecond, and waking the
# BLAS threads costs more than it saves (a 15000x20 by 20x3 product took
# 22 ms on two threads against 0.13 ms on one, on a busy 2-core machine).
SINGLE_THREAD_MAX_WORK = 4_000_000

# Up to this much work per pass (e.g. n k d multiply-adds of a Lloyd pass) a
# numba kernel runs on one thread. The pass is fast (a 15k x 20, k = 8 pass,
# 2.4M multiply-adds, takes 0.4 ms) and handing blocks to threads costs a
# wake-up per block and pass: on a busy 2-core machine that made a 20k x 20
# k-means fit 3x slower, not faster.
NUMBA_SINGLE_THREAD_MAX_WORK = 20_000_000

# Fewest rows a numba thread is given: fewer do not pay for the wake-up.
MIN_ROWS_PER_THREAD = 256

# Items (ensemble members, ...) per task of a reduction. Fixed, so that the
# order of the floating-point sums, hence the result to the last bit, does
# not depend on n_jobs.
ITEMS_PER_TASK = 8


@lru_cache(maxsize=1)
def _threadpool_controller():
    return ThreadpoolController()  # inspects the loaded libraries once: slow


def blas_threads():
    """The current BLAS thread limit (1 when no BLAS library is found)."""
    blas = _threadpool_controller().select(user_api="blas").info()
    return max([1] + [lib["num_threads"] for lib in blas])


def resolve_n_jobs(n_jobs, *, none="joblib"):
    """Number of workers that ``n_jobs`` means.

    Parameters
    ----------
    n_jobs : int or None
        scikit-learn's parameter: a positive count, ``-1`` for all CPUs,
        ``-1 - i`` for all but ``i``.
    none : {"joblib", "blas"}, default="joblib"
        Meaning of ``n_jobs=None``: joblib's (1, or the active
        ``parallel_backend``'s count), or the current BLAS thread limit
        (the exact neighbour searches: the blocks then run in that many
        threads with single-threaded BLAS each, so that the work after each
        product is parallel too, and a pinned benchmark stays
        single-threaded).

    Returns
    -------
    int
        At least 1.
    """
    if n_jobs is None and none == "blas":
        return blas_threads()
    return max(1, effective_n_jobs(n_jobs))


def numba_threads(work, n_rows):
    """Threads for a numba pass of ``work`` multiply-adds over ``n_rows`` rows.

    One thread up to :data:`NUMBA_SINGLE_THREAD_MAX_WORK`; above, numba's
    thread count, the user's knob (``NUMBA_NUM_THREADS``) for every
    numba-compiled part of skml, capped by the CPUs and by
    :data:`MIN_ROWS_PER_THREAD` rows per thread. (The configured value, not
    ``numba.get_num_threads()``, which would launch numba's own pool.)
    """
    if work <= NUMBA_SINGLE_THREAD_MAX_WORK:
        return 1
    return max(1, min(numba.config.NUMBA_NUM_THREADS, os.cpu_count() or 1,
                      n_rows // MIN_ROWS_PER_THREAD))


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


def row_blocks(n_rows, n_cols, n_threads=1):
    """Slices of rows for a blocked computation with ``n_threads`` threads.

    Each block's float64 temporary of ``rows x n_cols`` fits its share of
    :data:`WORKING_MEMORY`; with several threads there is at least one block
    per thread.

    Returns
    -------
    list of slice
        Consecutive, covering ``range(n_rows)`` (empty for ``n_rows == 0``).
    """
    budget = WORKING_MEMORY // max(n_threads, 1)
    step = max(1, min(n_rows, budget // (8 * max(n_cols, 1))))
    if n_threads <= 1 or n_rows == 0:
        return [slice(start, min(start + step, n_rows)) for start in range(0, n_rows, step)]
    # Blocks of a fixed step of ceil(n_rows / n_threads) rows can be fewer than
    # the threads (4 rows, 3 threads: 2 + 2): spread the rows evenly over
    # enough blocks instead (sizes differ by one at most, none over ``step``).
    n_blocks = min(n_rows, max(-(-n_rows // step), n_threads))
    edges = [n_rows * b // n_blocks for b in range(n_blocks + 1)]
    return [slice(a, b) for a, b in zip(edges[:-1], edges[1:])]


def run_in_threads(func, blocks, n_threads):
    """``[func(b) for b in blocks]``, in ``n_threads`` threads.

    For work that is BLAS or a nogil numba kernel, so that threads scale;
    BLAS is limited to one thread inside them to avoid oversubscription.
    Tasks may write into the caller's arrays, hence ``require="sharedmem"``:
    a process backend activated by the user (``joblib.parallel_backend``)
    overrides a mere ``prefer="threads"`` and the writes would be lost.
    """
    if n_threads == 1 or len(blocks) <= 1:
        return [func(b) for b in blocks]
    with _threadpool_controller().limit(limits=1, user_api="blas"):
        return Parallel(n_jobs=n_threads, require="sharedmem")(
            delayed(func)(b) for b in blocks
        )


def fixed_chunks(items, size=ITEMS_PER_TASK):
    """``items`` cut into consecutive lists of ``size`` (the last shorter).

    The tasks of a reduction whose floating-point order must not depend on
    ``n_jobs``: sum within a chunk, then over the chunks in order.
    """
    items = list(items)
    return [items[i:i + size] for i in range(0, len(items), size)]
