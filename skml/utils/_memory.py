"""Resident-memory advice for large, sparsely touched work buffers.

numpy asks the kernel for transparent huge pages (``madvise(MADV_HUGEPAGE)``)
on every array of 4 MiB or more, and the heap ranges those arrays leave when
freed keep the advice. A buffer that numba (or numpy) later places there is
made resident 2 MiB at a time, however little of it is written. The tree
builder's scratch is such a buffer: sized for the worst node (a node store
for ``2 n`` nodes, records for every feature), written a few pages at a
time. :func:`advise_small_pages` tells the kernel to back the given arrays
with ordinary pages, so that only the pages written become resident.

The advice changes no byte of the arrays and is only a hint: where it is not
available (not Linux, no ``madvise`` in the C library) nothing happens.
"""

import ctypes
import ctypes.util
import sys

import numpy as np

__all__ = ["advise_small_pages"]

_MADV_NOHUGEPAGE = 15  # <linux/mman.h>
_PAGE = 4096


def _load_madvise():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        madvise = libc.madvise
    except (OSError, AttributeError):
        return None
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return madvise


_madvise = _load_madvise()


def advise_small_pages(buffers, min_bytes=1 << 16):
    """Advise ordinary (4 KiB) pages for the arrays in ``buffers``.

    ``buffers``: an array, or tuples (named or not) of arrays and tuples,
    walked recursively; other objects are skipped. Arrays of at least
    ``min_bytes`` are advised (a smaller one inside a huge-page range would
    still make the whole 2 MiB resident, but the tiny ones are not worth a
    system call), and only the whole pages inside each array, so that no
    neighbouring allocation is affected. Returns the number of bytes advised
    (0 where the advice is unavailable).
    """
    if _madvise is None:
        return 0
    advised = 0
    if isinstance(buffers, np.ndarray):
        if buffers.nbytes >= min_bytes:
            address = buffers.ctypes.data
            start = -(-address // _PAGE) * _PAGE
            stop = (address + buffers.nbytes) // _PAGE * _PAGE
            if stop > start and _madvise(start, stop - start, _MADV_NOHUGEPAGE) == 0:
                advised = stop - start
    elif isinstance(buffers, tuple):
        for item in buffers:
            advised += advise_small_pages(item, min_bytes)
    return advised
