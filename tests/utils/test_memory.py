"""advise_small_pages: the advice lands on the arrays' own pages, changes
none of their bytes, and walks nested tuples."""

import sys
from collections import namedtuple

import numpy as np
import pytest

from skml.utils._memory import _madvise, advise_small_pages

_PAGE = 4096


def _vma_flags(address):
    """The VmFlags of the mapping holding ``address`` (/proc/self/smaps)."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= address < hi
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    return None


def test_nothing_to_advise():
    assert advise_small_pages(np.zeros(10)) == 0  # not one whole page inside
    assert advise_small_pages(("not an array", 3, None)) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux") or _madvise is None,
                    reason="madvise is Linux's")
def test_advice_lands_on_the_arrays_pages_and_keeps_their_bytes():
    rng = np.random.default_rng(0)
    big = rng.normal(size=3 * (1 << 18))  # 6 MiB
    ints = np.arange(1 << 17, dtype=np.intp)  # 1 MiB
    small = np.ones(100)
    Pair = namedtuple("Pair", ["ints", "small"])
    before = big.copy(), ints.copy()
    advised = advise_small_pages((big, Pair(ints, small), "skipped"))
    np.testing.assert_array_equal(big, before[0])
    np.testing.assert_array_equal(ints, before[1])
    # Whole pages inside each array, and nothing of the small one.
    assert advised % _PAGE == 0
    assert big.nbytes + ints.nbytes - 4 * _PAGE <= advised <= big.nbytes + ints.nbytes
    for array in (big, ints):
        inner = -(-array.ctypes.data // _PAGE) * _PAGE
        flags = _vma_flags(inner)
        assert flags is not None and "nh" in flags, flags
    assert advise_small_pages(ints, min_bytes=ints.nbytes + 1) == 0
