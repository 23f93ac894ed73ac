"""Buffers on fresh pages (skml.utils._memory): they hold what numpy's
would, become resident only where written, and a numba function's twin
returns what the compiled function returns, to the numba type."""

import ctypes
import mmap
import sys

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from skml.tree._builder_kernels import tree_scratch
from skml.tree._grower import GrowthRules, growth_store
from skml.tree._splitter_kernels import SPLIT, sparse_rows, split_workspace
from skml.tree._tree import sparse_views
from skml.utils._memory import fresh_array, on_fresh_pages

_PAGE = 4096


def _resident_pages(array):
    libc = ctypes.CDLL(None)
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    start = array.ctypes.data // _PAGE * _PAGE
    n_pages = -(-(array.ctypes.data + array.nbytes - start) // _PAGE)
    flags = ctypes.create_string_buffer(n_pages)
    assert libc.mincore(start, n_pages * _PAGE, flags) == 0
    return sum(b & 1 for b in flags.raw)


def _on_a_map(array):
    base = array
    while isinstance(base, (np.ndarray, memoryview)):
        base = base.obj if isinstance(base, memoryview) else base.base
    return isinstance(base, mmap.mmap)


@pytest.mark.parametrize("shape, dtype", [(3, np.float64), ((50_000, 2), np.float64),
                                          (40_000, np.intp), (20_000, SPLIT)])
def test_fresh_arrays_hold_what_numpy_would(shape, dtype):
    zeros = fresh_array(shape, dtype)
    assert zeros.shape == np.zeros(shape, dtype).shape and zeros.dtype == np.dtype(dtype)
    assert zeros.flags.c_contiguous and zeros.flags.writeable and zeros.flags.aligned
    np.testing.assert_array_equal(zeros, np.zeros(shape, dtype))
    if np.dtype(dtype).fields is None:
        np.testing.assert_array_equal(fresh_array(shape, dtype, fill=-1), np.full(shape, -1, dtype))
    zeros[...] = 1 if np.dtype(dtype).fields is None else zeros[...]  # writeable


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore residency is Linux's")
def test_fresh_pages_are_resident_only_where_written():
    array = fresh_array(1 << 21, np.float64)  # 16 MiB
    assert _resident_pages(array) == 0
    array[:: 1 << 17] = 1.0  # one value per MiB: 16 pages
    assert _resident_pages(array) == 16
    assert _on_a_map(array)
    assert not _on_a_map(fresh_array(100, np.float64))  # numpy's own below the threshold


def test_the_twin_of_tree_scratch_is_the_compiled_one():
    # The forest's scratch: same numba types (so the growth kernel compiled
    # for the heap's buffers runs on these, no new compilation), the same
    # shapes, and the initialised buffers equal.
    X = sp.random(60, 40, density=0.2, format="csc", random_state=0)
    csc = sparse_views(X).arrays
    rules = GrowthRules(0, 2, 6, False, 10, 2, 1, 0.0, 0.0, -1, 0, -1)
    cat_n = np.zeros(40, dtype=np.intp)
    mono = np.zeros(0, dtype=np.int8)
    twin = on_fresh_pages(tree_scratch, split_workspace, sparse_rows, growth_store)
    fresh = twin(csc, cat_n, mono, rules, 60, 60)
    compiled = tree_scratch(csc, cat_n, mono, rules, 60, 60)
    assert numba.typeof(fresh) == numba.typeof(compiled)

    def arrays(obj):
        if isinstance(obj, np.ndarray):
            return [obj]
        return [a for item in obj for a in arrays(item)] if isinstance(obj, tuple) else []

    for a, b in zip(arrays(fresh), arrays(compiled), strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
    ws_fresh, ws_compiled = fresh[0], compiled[0]
    np.testing.assert_array_equal(ws_fresh.features, ws_compiled.features)
    np.testing.assert_array_equal(ws_fresh.node_pos, ws_compiled.node_pos)  # all -1
    np.testing.assert_array_equal(fresh[1][2], compiled[1][2])  # the stamps, zeros
