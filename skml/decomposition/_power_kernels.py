"""The power iteration of notes A §4.2 for one component (compiled by numba).

Each step is one matrix-vector product and a projection: cheap (O(d²)) but
inherently sequential, and numpy's per-call overhead (~8 calls per step)
dominated the hundreds to thousands of steps a small eigengap needs.
"""

import numpy as np
from numba import njit

# BLAS-free, vectorised dot products: see skml.utils._kernels for why.
from skml.utils._kernels import dot


@njit(cache=True, nogil=True)
def _step(A, b, found, out):
    """``out = (I − F Fᵀ) A b`` for the found vectors F (rows of ``found``)."""
    d = A.shape[0]
    for r in range(d):
        out[r] = dot(A[r], b)
    for c in range(found.shape[0]):
        coef = dot(found[c], out)
        for r in range(d):
            out[r] -= coef * found[c, r]


@njit(cache=True, nogil=True)
def power_iterate(A, b, found, max_iter, tol):
    """Iterate ``b ← P A b / ||P A b||`` until it moves less than ``tol``.

    Parameters
    ----------
    A : ndarray of shape (d, d)
        The (deflated) symmetric PSD matrix, C-contiguous.
    b : ndarray of shape (d,)
        Unit start vector, orthogonal to ``found``; overwritten by the result.
    found : ndarray of shape (k, d)
        The eigenvectors found so far (rows); ``P`` projects them out.
    max_iter : int
    tol : float

    Returns
    -------
    n_iter : int
        Steps taken (``max_iter`` if not converged).
    """
    d = A.shape[0]
    out = np.empty(d, dtype=A.dtype)
    t = 0
    while t < max_iter:
        t += 1
        _step(A, b, found, out)
        norm = np.sqrt(dot(out, out))
        if norm == 0.0:  # A vanishes on the rest: eigenvalue 0, any b works
            break
        step = 0.0
        for r in range(d):
            new = out[r] / norm
            step += (new - b[r]) ** 2
            b[r] = new
        if np.sqrt(step) < tol:
            break
    return t
