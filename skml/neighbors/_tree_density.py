"""Kernel density and two-point correlation on the trees (KDTree, BallTree).

Both methods are shared by the two trees through :class:`TreeStatsMixin`;
the traversals are in ``_tree_density_kernels``.
"""

import math
from numbers import Real

import numpy as np

from ..utils import Interval, Options
from ._ball_tree_kernels import dist_to_rdist
from ._tree_density_kernels import (
    COSINE,
    EPANECHNIKOV,
    EXPONENTIAL,
    GAUSSIAN,
    LINEAR,
    TOPHAT,
    kernel_density,
    two_point_counts,
)

__all__ = ["TreeStatsMixin", "log_kernel_norm"]

KERNELS = {"gaussian": GAUSSIAN, "tophat": TOPHAT, "epanechnikov": EPANECHNIKOV,
           "exponential": EXPONENTIAL, "linear": LINEAR, "cosine": COSINE}


def _log_unit_ball_volume(d):
    return 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1.0)


def _cosine_radial_integral(n):
    """``int_0^1 r^n cos(pi r / 2) dr`` by the integration-by-parts recursion.

    With ``a = pi / 2``, ``C(n) = 1/a - (n/a) S(n-1)`` and
    ``S(n) = (n/a) C(n-1)`` (``S`` the sine moments, ``cos a = 0``,
    ``sin a = 1``), from ``C(0) = S(0) = 1/a``.
    """
    a = 0.5 * math.pi
    c, s = 1.0 / a, 1.0 / a
    for k in range(1, n + 1):
        c, s = 1.0 / a - (k / a) * s, (k / a) * c
    return c


def log_kernel_norm(h, d, kernel):
    """Log of ``int K(||x|| / h) dx`` over R^d: the density's normaliser.

    ``V_d`` is the volume of the unit ball and ``d V_d`` the area of its
    sphere; the radial integrals are elementary (cosine: see
    :func:`_cosine_radial_integral`).
    """
    log_v = _log_unit_ball_volume(d)
    log_h = d * math.log(h)
    if kernel == "gaussian":
        return 0.5 * d * math.log(2.0 * math.pi) + log_h
    if kernel == "tophat":
        return log_v + log_h
    if kernel == "epanechnikov":
        return log_v + log_h + math.log(2.0 / (d + 2.0))
    if kernel == "exponential":
        return log_v + math.lgamma(d + 1.0) + log_h
    if kernel == "linear":
        return log_v + log_h - math.log(d + 1.0)
    return math.log(d) + log_v + log_h + math.log(_cosine_radial_integral(d - 1))


def _check(value, name, allowed, owner):
    from ..utils._param_validation import _describe, _satisfies

    if not any(_satisfies(value, c) for c in allowed):
        forms = " or ".join(_describe(c) for c in allowed)
        raise ValueError(f"{owner}.{name}: must be {forms}; got {value!r}.")


class TreeStatsMixin:
    """``kernel_density`` and ``two_point_correlation`` of a tree.

    The tree provides ``_kind``, ``_kernel_tree()``, ``_code``, ``_p``,
    ``_scale``, ``_tree_query(X)`` (validated queries in the tree's
    coordinates) and ``_knn``.
    """

    def kernel_density(self, X, h, kernel="gaussian", atol=0, rtol=1e-8,
                       breadth_first=True, return_log=False):
        """Kernel density estimate at the rows of X (not divided by n_samples).

        ``density(x) = sum_j K(d(x, x_j) / h) / Z`` with ``Z`` the integral
        of ``K(||u|| / h)`` over R^d (scikit-learn's normalisation, for every
        metric; for the cosine kernel in even dimensions scikit-learn 1.9's
        constant is off, nan in 4-D, and this one is the true integral):
        gaussian ``exp(-u²/2)``, tophat ``1{u < 1}``, epanechnikov ``1 - u²``,
        exponential ``exp(-u)``, linear ``1 - u``, cosine ``cos(pi u / 2)``
        (the last four zero for ``u >= 1``).

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points.
        h : float
            Bandwidth, > 0.
        kernel : {"gaussian", "tophat", "epanechnikov", "exponential", \
"linear", "cosine"}, default="gaussian"
            Kernel.
        atol, rtol : float, default=0, 1e-8
            Tolerance: the result ``K`` satisfies
            ``|K - K_true| <= atol + rtol * K``. Tree nodes whose kernel
            values vary less than that allows are summed from their bounds.
        breadth_first : bool, default=True
            Accepted for compatibility; the traversal is always depth first
            (the tolerance holds either way).
        return_log : bool, default=False
            Return the log-density. Sums are carried relative to the nearest
            point's kernel value, so a narrow gaussian gives a finite
            log-density where the density itself underflows.

        Returns
        -------
        density : ndarray of shape (n_queries,)
        """
        owner = type(self).__name__
        _check(h, "h", [Interval(Real, 0, None, closed="neither")], owner)
        _check(kernel, "kernel", [Options(set(KERNELS))], owner)
        _check(atol, "atol", [Interval(Real, 0, None, closed="left")], owner)
        _check(rtol, "rtol", [Interval(Real, 0, None, closed="left")], owner)
        Xq = self._tree_query(X)
        n_q, d = Xq.shape[0], self.data.shape[1]
        h_tree = h / self._scale
        kcode = KERNELS[kernel]
        log_norm = log_kernel_norm(h, d, kernel)
        tree = self._kernel_tree()

        def sums(rows, shift):
            if atol == 0:
                atol_u = np.zeros(shift.shape[0])
            else:
                with np.errstate(over="ignore"):
                    atol_u = atol * np.exp(log_norm + shift)
            out = np.zeros(shift.shape[0])
            if out.shape[0]:
                kernel_density(self._kind, tree, Xq[rows], self._code, self._p, h_tree,
                               kcode, shift, atol_u, float(rtol), out)
            return out

        shift = np.zeros(n_q)
        out = sums(slice(None), shift)
        # A gaussian or exponential sum can underflow (a narrow kernel, far
        # queries) although its log is finite. Those rows are summed again
        # with every term divided by the nearest point's kernel value, so the
        # largest term is 1, and the shift comes off in log space. Above
        # 1e-250 the terms that matter are normal numbers: no second pass.
        redo = np.flatnonzero(out < 1e-250)
        if kcode in (GAUSSIAN, EXPONENTIAL) and redo.shape[0]:
            d_nn = self._knn(Xq[redo], 1)[0][:, 0] / h_tree
            shift[redo] = 0.5 * d_nn * d_nn if kcode == GAUSSIAN else d_nn
            out[redo] = sums(redo, shift[redo])
        with np.errstate(divide="ignore"):
            log_density = np.log(out) - shift - log_norm
        return log_density if return_log else np.exp(log_density)

    def two_point_correlation(self, X, r, dualtree=False):
        """Number of pairs (query, indexed point) within each distance r.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points.
        r : float or array-like
            Distances; ``counts[i]`` counts the pairs with distance
            ``<= r[i]``.
        dualtree : bool, default=False
            Accepted for compatibility; the count is computed query by
            query (the answer is the same).

        Returns
        -------
        counts : ndarray of int, shape r.shape
        """
        Xq = self._tree_query(X)
        r = np.asarray(r, dtype=np.float64)
        if np.any(np.isnan(r)):
            raise ValueError(f"{type(self).__name__}.two_point_correlation: r "
                             "contains NaN.")
        flat = r.reshape(-1)
        order = np.argsort(flat, kind="stable")
        # Radii in the tree's reduced units, ascending (a negative radius
        # counts nothing: -inf is below every distance).
        r_red = np.array([-np.inf if v < 0 else dist_to_rdist(v, self._code, self._p)
                          for v in flat[order] / self._scale], dtype=np.float64)
        tree = self._kernel_tree()
        counts = np.zeros(flat.shape[0], dtype=np.int64)
        two_point_counts(self._kind, tree, Xq, self._code, self._p, r_red, counts)
        out = np.zeros(flat.shape[0], dtype=np.int64)
        out[order] = counts
        return out.reshape(r.shape)
