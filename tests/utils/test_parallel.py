"""The thread and block policy of skml.utils._parallel."""

import os

import joblib
import numba
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

from skml.utils import _blas, _parallel
from skml.utils._parallel import (
    ITEMS_PER_TASK,
    MIN_ROWS_PER_THREAD,
    NUMBA_SINGLE_THREAD_MAX_WORK,
    SINGLE_THREAD_MAX_WORK,
    WORKING_MEMORY,
    blas_threads,
    blas_threads_for,
    fixed_chunks,
    numba_threads,
    resolve_n_jobs,
    row_blocks,
    run_in_threads,
)


def test_n_jobs_as_joblib_means_it():
    cpus = joblib.cpu_count()
    assert resolve_n_jobs(None) == 1
    assert resolve_n_jobs(1) == 1
    assert resolve_n_jobs(3) == 3
    assert resolve_n_jobs(-1) == cpus
    assert resolve_n_jobs(-2) == max(cpus - 1, 1)
    with joblib.parallel_backend("threading", n_jobs=2):
        assert resolve_n_jobs(None) == 2
    with pytest.raises(ValueError, match="n_jobs == 0"):
        resolve_n_jobs(0)


def test_n_jobs_none_can_follow_the_blas_limit():
    with threadpool_limits(limits=1, user_api="blas"):
        assert blas_threads() == 1
        assert resolve_n_jobs(None, none="blas") == 1
    assert resolve_n_jobs(None, none="blas") == blas_threads()
    assert resolve_n_jobs(2, none="blas") == 2


@given(
    n_rows=st.integers(0, 5000),
    n_cols=st.integers(0, 3_000_000),
    n_threads=st.integers(1, 8),
)
# Found by hypothesis: ceil(4 / 3) = 2 rows a block made 2 blocks for 3 threads.
@example(n_rows=4, n_cols=0, n_threads=3)
def test_row_blocks_cover_the_rows_within_the_budget(n_rows, n_cols, n_threads):
    blocks = row_blocks(n_rows, n_cols, n_threads)
    covered = np.concatenate([np.arange(n_rows)[b] for b in blocks] or [[]])
    np.testing.assert_array_equal(covered, np.arange(n_rows))
    sizes = [b.stop - b.start for b in blocks]
    assert all(size >= 1 for size in sizes)
    budget = WORKING_MEMORY // n_threads
    # One row may exceed the budget (it cannot be split); more may not.
    assert all(size == 1 or size * 8 * n_cols <= budget for size in sizes)
    if n_threads > 1:
        assert len(blocks) >= min(n_threads, n_rows)


def test_row_blocks_follow_the_working_memory(monkeypatch):
    assert len(row_blocks(100, 10)) == 1
    monkeypatch.setattr(_parallel, "WORKING_MEMORY", 8 * 10 * 7)  # 7 rows a block
    assert [b.stop - b.start for b in row_blocks(100, 10)] == [7] * 14 + [2]


def test_numba_threads():
    assert numba_threads(NUMBA_SINGLE_THREAD_MAX_WORK, 10**6) == 1
    big = NUMBA_SINGLE_THREAD_MAX_WORK + 1
    most = min(numba.config.NUMBA_NUM_THREADS, os.cpu_count() or 1)
    assert numba_threads(big, 10**6) == most
    assert numba_threads(big, MIN_ROWS_PER_THREAD) == 1  # too few rows to share
    assert numba_threads(big, 0) == 1


def test_blas_threads_for_limits_small_work_only():
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with blas_threads_for(SINGLE_THREAD_MAX_WORK):
            assert blas_threads() == 1
        assert blas_threads() == before
        with blas_threads_for(SINGLE_THREAD_MAX_WORK + 1):
            assert blas_threads() == before
    # The old import place gives the same function.
    assert _blas.blas_threads_for is blas_threads_for


@pytest.mark.parametrize("n_threads", [1, 2])
def test_run_in_threads_keeps_order_and_shared_writes(n_threads):
    out = np.zeros(20)

    def task(block):
        out[block] = block.start
        return block.start

    blocks = row_blocks(20, 1, n_threads)
    with joblib.parallel_backend("loky"):  # a process backend cannot take over
        starts = run_in_threads(task, blocks, n_threads)
    assert starts == [b.start for b in blocks]
    expected = np.concatenate([[b.start] * (b.stop - b.start) for b in blocks])
    np.testing.assert_array_equal(out, expected)
    assert run_in_threads(task, [], n_threads) == []


@given(n=st.integers(0, 50), size=st.integers(1, 10))
def test_fixed_chunks(n, size):
    chunks = fixed_chunks(range(n), size)
    assert [x for chunk in chunks for x in chunk] == list(range(n))
    assert all(len(chunk) == size for chunk in chunks[:-1])
    assert all(1 <= len(chunk) <= size for chunk in chunks)
    assert len(fixed_chunks(range(n))) == -(-n // ITEMS_PER_TASK)
