"""Work buffers on fresh pages: resident only where they are written.

A numba function that allocates (``np.empty`` in nopython mode) takes its
blocks from the C heap, and the allocator writes a header before each block
(numba adds a marker at its start). numpy asks the kernel for transparent
huge pages (``madvise(MADV_HUGEPAGE)``) on its arrays of 4 MiB or more, and
the heap ranges those arrays leave when freed keep the request, so each of
those writes can make a whole 2 MiB page resident. The tree builder's
scratch, sized for the worst tree and written a few pages at a time, came
out 8 MiB resident before its first write on the sparse text benchmark.

:func:`on_fresh_pages` runs the Python source of such a numba function with
numpy's ``empty``, ``zeros`` and ``full`` replaced: blocks of at least
``min_bytes`` are anonymous memory maps of their own, backed by ordinary
pages (``MADV_NOHUGEPAGE`` where the system has it), untouched and reading
as zeros until written, and unmapped when the last array on them goes.
The arrays have the types numba gives its own (C-contiguous, aligned,
writeable), so the compiled code they are passed to is the same.
"""

import mmap
import types

import numpy as np

__all__ = ["fresh_array", "on_fresh_pages"]

_MIN_BYTES = 1 << 16  # smaller blocks are not worth a map of their own


def fresh_array(shape, dtype=np.float64, fill=None, min_bytes=_MIN_BYTES):
    """An array on a fresh anonymous map, uninitialised (``fill`` None: it
    reads as zeros) or filled with ``fill``; numpy's own below ``min_bytes``
    (``np.zeros``, or ``np.full``)."""
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(s) for s in shape)
    count = 1
    for s in shape:
        count *= s
    if count * dtype.itemsize < max(min_bytes, 1):
        return np.zeros(shape, dtype) if fill is None else np.full(shape, fill, dtype)
    pages = mmap.mmap(-1, count * dtype.itemsize)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):
        try:
            pages.madvise(mmap.MADV_NOHUGEPAGE)
        except OSError:  # (a kernel without transparent huge pages)
            pass
    array = np.frombuffer(pages, dtype=dtype, count=count).reshape(shape)
    if fill is not None:
        array[...] = fill
    return array


class _NumpyOnFreshPages:
    """numpy, but for ``empty``, ``zeros`` and ``full`` (:func:`fresh_array`)."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def empty(shape, dtype=np.float64):
        return fresh_array(shape, dtype)

    @staticmethod
    def zeros(shape, dtype=np.float64):
        return fresh_array(shape, dtype)

    @staticmethod
    def full(shape, fill_value, dtype=None):
        return fresh_array(shape, np.asarray(fill_value).dtype if dtype is None else dtype,
                           fill_value)


def on_fresh_pages(func, *callees):
    """A Python function that runs numba function ``func``'s source with
    its allocations on fresh pages (see the module docstring).

    ``callees``: the numba functions ``func`` calls that allocate too; they
    are run the same way from it (the others it calls run compiled). Meant
    for allocating functions, run once per fit: the loops of their Python
    source run at Python speed.
    """
    shim = _NumpyOnFreshPages()

    def python_twin(dispatcher, replace):
        source = dispatcher.py_func
        scope = dict(source.__globals__, np=shim, **replace)
        return types.FunctionType(source.__code__, scope, source.__name__,
                                  source.__defaults__, source.__closure__)

    twins = {c.py_func.__name__: python_twin(c, {}) for c in callees}
    names = func.py_func.__code__.co_names
    return python_twin(func, {name: twin for name, twin in twins.items() if name in names})
