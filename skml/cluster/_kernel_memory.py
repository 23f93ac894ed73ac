"""Kernel matrices larger than memory: the size check, row blocks, Nyström features.

Shared by :class:`KernelKMeans` and :class:`SpectralClustering`. A dense
``n × n`` float64 kernel matrix takes ``8 n²`` bytes (26.8 GiB at
``n = 60 000``). Before one is allocated, :func:`check_dense_fits` compares
that with the memory the process can still obtain and refuses with a
``ValueError`` that says how many samples would fit and which option avoids
the matrix. The two ways around it:

- **row blocks**: ``K(X[rows], X)`` for a few rows at a time, each block
  used and dropped (``O(n · block)`` memory, the kernel recomputed at every
  pass);
- **Nyström features** (Williams and Seeger, 2001): ``m`` landmark rows
  ``L``, ``C = K(X, L)`` and ``A = K(L, L)``, and
  ``Φ = C A^{+1/2}`` (``n × m``), so that ``Φ Φ^T = C A^+ C^T ≈ K``: an
  explicit feature map whose inner products approximate the kernel, in
  ``O(n m)`` memory and ``O(n m d + m³)`` time.

Every kernel value comes from :func:`skml.metrics.pairwise.pairwise_kernels`
(through the estimator's ``_kernel`` method); :func:`check_kernel_values`
refuses values that are useless at the data's magnitude (overflowed, or the
same for every pair).
"""

import os

import numpy as np
import scipy.sparse as sp

from ..utils._magnitude import max_abs

__all__ = [
    "available_memory",
    "check_dense_fits",
    "check_kernel_values",
    "dense_fits",
    "nystroem_features",
    "nystroem_landmarks",
    "nystroem_normaliser",
    "row_blocks",
    "rows_per_block",
]

_GIB = 2.0**30
# A dense matrix counts as fitting when it takes at most this share of the
# memory still available: the rest of the fit (X, the n × k arrays, the
# eigensolver's vectors) and the other processes need some too.
FIT_FRACTION = 0.8
# Row blocks of about this many bytes: large enough for BLAS to run at full
# speed (hundreds of rows of n columns), small enough to be negligible.
BLOCK_BYTES = 128 * 2**20
# Blocks start at multiples of 64 rows, as in skml.metrics.pairwise, so
# that a block of kernel rows is bitwise the same rows of the full matrix.
_ROW_ALIGN = 64


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def available_memory():
    """Bytes this process can still allocate, or ``None`` if unknown.

    The smallest of: ``MemAvailable`` of ``/proc/meminfo`` (Linux), the
    headroom under a cgroup memory limit (v2 ``memory.max``, v1
    ``memory.limit_in_bytes``), and, where ``/proc`` is missing, the
    physical memory reported by ``os.sysconf``. ``None`` where none of
    these exist (then no size check is made).
    """
    candidates = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    candidates.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    for limit_path, usage_path in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
         "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        limit, usage = _read_int(limit_path), _read_int(usage_path)
        # "max" (v2) or a huge sentinel (v1) mean no limit.
        if limit is not None and usage is not None and limit < 2**60:
            candidates.append(max(limit - usage, 0))
    if not candidates:
        try:
            candidates.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            return None
    return min(candidates)


def _size(n_bytes):
    if n_bytes >= _GIB:
        return f"{n_bytes / _GIB:.1f} GiB"
    return f"{n_bytes / 2**20:.1f} MiB"


def dense_fits(n_rows, n_cols, copies=1):
    """Whether ``copies`` float64 ``n_rows × n_cols`` matrices fit in memory.

    Returns ``(fits, needed, available)`` in bytes; ``fits`` is True when
    the available memory is unknown.
    """
    needed = 8.0 * n_rows * n_cols * copies
    available = available_memory()
    fits = available is None or needed <= FIT_FRACTION * available
    return fits, needed, available


def check_dense_fits(n_samples, copies, owner, what, advice):
    """Raise a ``ValueError`` before allocating a matrix that cannot fit.

    Parameters
    ----------
    n_samples : int
        The matrix is ``n_samples × n_samples`` float64.
    copies : int
        How many such matrices the fit holds at its peak.
    owner : str
        The estimator, for the message.
    what : str
        What the matrix is ("kernel matrix", "affinity matrix").
    advice : str
        What to do instead (the options that avoid the matrix).
    """
    fits, needed, available = dense_fits(n_samples, n_samples, copies)
    if fits:
        return
    n_max = int(np.sqrt(FIT_FRACTION * available / (8.0 * copies)))
    held = "" if copies == 1 else f" ({copies} such matrices at its peak)"
    raise ValueError(
        f"{owner} needs the {n_samples} x {n_samples} {what}{held}: "
        f"{_size(needed)} as float64, but only {_size(available)} of memory is "
        f"available; at most about {n_max} samples fit. {advice}"
    )


def rows_per_block(n_cols, block_size=None):
    """Rows per block: ``block_size``, or about :data:`BLOCK_BYTES` of float64."""
    if block_size is not None:
        return max(int(block_size), 1)
    rows = int(BLOCK_BYTES // (8 * max(n_cols, 1)))
    return max(_ROW_ALIGN, rows - rows % _ROW_ALIGN)


def row_blocks(n_rows, block):
    """Consecutive slices of ``block`` rows covering ``range(n_rows)``."""
    return [slice(start, min(start + block, n_rows))
            for start in range(0, n_rows, block)]


def nystroem_landmarks(n_samples, n_landmarks, sample_weight, rng):
    """Indices (sorted) of ``n_landmarks`` distinct rows drawn uniformly.

    Only rows of non-zero weight are drawn (a zero-weight row is absent from
    the problem); all of them when there are at most ``n_landmarks``.
    """
    candidates = np.flatnonzero(sample_weight > 0)
    if candidates.shape[0] <= n_landmarks:
        return candidates
    return np.sort(rng.choice(candidates, size=n_landmarks, replace=False))


def nystroem_normaliser(K_landmarks):
    """``A^{+1/2}`` of the landmarks' Gram matrix ``A`` (``m × r``).

    From the eigendecomposition ``A = V diag(s) V^T``: the columns
    ``v_i / sqrt(s_i)`` for the eigenvalues above ``m · eps · max(s)`` (as
    ``numpy.linalg.pinv``), so duplicated landmarks and the negative
    eigenvalues of an indefinite kernel are dropped. ``Φ = C A^{+1/2}``
    then has ``Φ Φ^T = C A^+ C^T``.
    """
    A = np.asarray(K_landmarks, dtype=np.float64)
    A = 0.5 * (A + A.T)  # kernels computed blockwise are symmetric to rounding
    s, V = np.linalg.eigh(A)
    cut = A.shape[0] * np.finfo(np.float64).eps * max(float(s.max(initial=0.0)), 0.0)
    keep = s > cut
    if not np.any(keep):
        raise ValueError(
            "The landmarks' kernel matrix has no positive eigenvalue: the kernel "
            "is not positive semi-definite on the data, so the Nystroem "
            "approximation is not defined. Use approximation='exact'."
        )
    return V[:, keep] / np.sqrt(s[keep])


def nystroem_features(kernel_to_landmarks, n_samples, normaliser, n_landmarks):
    """``Φ = K(X, L) A^{+1/2}``, computed in row blocks (``n × r``).

    ``kernel_to_landmarks(rows)`` returns ``K(X[rows], L)``; the blocks keep
    the ``n × m`` matrix ``C`` from existing next to ``Φ``.
    """
    out = np.empty((n_samples, normaliser.shape[1]))
    for rows in row_blocks(n_samples, rows_per_block(n_landmarks)):
        out[rows] = kernel_to_landmarks(rows) @ normaliser
    return out


def _has_distinct_rows(X):
    if X.shape[0] < 2:
        return False
    if sp.issparse(X):
        return bool(np.any(X.max(axis=0).toarray() != X.min(axis=0).toarray()))
    return bool(np.any(X != X[:1]))


def check_kernel_values(K, X, owner, what, param, *, constant=True, isolated=True):
    """Refuse kernel values that overflowed or cannot tell the samples apart.

    A kernel with a fixed scale parameter is not scale-invariant: at
    ``X * 1e300`` the squared distances (1e600) overflow and the rbf values
    come out NaN (or exactly 0 off the diagonal), at ``X * 1e-300`` they
    underflow and every value is exactly 1. The clustering of such a matrix
    is arbitrary, so the user hears why instead (issue 23).

    Parameters
    ----------
    K : ndarray of shape (m, n_samples)
        Kernel values ``K(X[:m], X)`` (the whole matrix when ``m = n``), so
        that ``K[i, i]`` is a sample with itself.
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data they were computed from.
    owner, what : str
        The estimator and the matrix ("kernel matrix", "affinity matrix").
    param : str
        The parameter setting the kernel's scale, as shown to the user
        (``"gamma=0.25"``).
    constant : bool, default=True
        Also refuse a matrix that is the same for every pair of samples
        (all 1: the distances underflowed), for kernels of the form
        ``exp(-gamma * distance)`` (rbf, laplacian).
    isolated : bool, default=True
        Also refuse a matrix that is zero for every pair of distinct samples
        (the distances overflowed), for the same kernels.
    """
    K = np.asarray(K)
    top = max_abs(X)
    if not np.all(np.isfinite(K)):
        raise ValueError(
            f"{owner}: the {what} computed from X is not finite (NaN or inf) "
            f"although X is: the kernel overflowed at the magnitude of X (largest "
            f"|x| {top:.3g}, whose squares exceed float64's range). Rescale X "
            f"(e.g. with StandardScaler) or pass a precomputed {what}."
        )
    m = K.shape[0]
    if not (constant or isolated) or m < 1 or K.shape[1] < 2 or not _has_distinct_rows(X):
        return
    diag = K[np.arange(m), np.arange(m)]
    same = constant and np.ptp(K) == 0
    only_self = isolated and np.count_nonzero(K) == m and np.all(diag != 0)
    if same or only_self:
        value = K.flat[1] if K.shape[1] > 1 else K.flat[0]
        raise ValueError(
            f"{owner}: at {param} the {what} is {value:.3g} for every pair of "
            f"distinct samples, so it cannot tell them apart: the samples' squared "
            f"distances (largest |x| {top:.3g}) are of another magnitude than "
            f"1 / gamma, and exp(-gamma d) underflows to zero or rounds to one. "
            f"Rescale X (e.g. with StandardScaler) or set gamma to about "
            f"1 / (a typical squared distance)."
        )
