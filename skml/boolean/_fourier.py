"""Learning Boolean functions in the Fourier basis: LMN and Harmonica (notes A §2.3-2.4)."""

from math import comb
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ..linear_model import Lasso
from ..utils import Interval, validate_params
from ..utils._docstrings import fill_doc
from ._parity import check_boolean, feature_sets, parity_features
from ..utils.validation import validate_data

__all__ = ["HarmonicaRegressor", "LowDegreeFourierRegressor"]

# Above this many parity columns the design matrix stops being small.
_MAX_COLUMNS = 200_000


def _design(estimator, X, reset):
    """The parity features of validated ``X`` (``reset``: choose the sets)."""
    if estimator.binarize is not None:
        # Bits x > threshold, then chi's convention (-1)^bit.
        X = (X > estimator.binarize).astype(np.float64)
    Z = check_boolean(X)
    if reset:
        # A feature constant in the sample makes chi_{S+k} a copy of +-chi_S:
        # the sets holding it carry nothing new (and would be counted twice).
        varying = [k for k in range(Z.shape[1]) if np.ptp(Z[:, k]) > 0]
        n_columns = sum(comb(len(varying), k) for k in range(min(estimator.degree,
                                                                 len(varying)) + 1))
        if n_columns > _MAX_COLUMNS:
            raise ValueError(
                f"degree={estimator.degree} over {len(varying)} features makes "
                f"{n_columns} parity features (more than {_MAX_COLUMNS}); lower the degree.")
        estimator.feature_sets_ = [tuple(varying[k] for k in S)
                                   for S in feature_sets(len(varying), estimator.degree)]
    return parity_features(Z, estimator.feature_sets_)


def _fit_design(estimator, X, y):
    """Validated ``X`` and ``y`` of ``fit``, and the parity features of ``X``."""
    validate_params(estimator)
    X, y = validate_data(estimator, X, y, y_numeric=True, dtype=np.float64)
    return X, y, _design(estimator, X, reset=True)


def _predict(estimator, X):
    """``Σ coef_[S] χ_S(x)`` over the fitted sets."""
    check_is_fitted(estimator)
    X = validate_data(estimator, X, reset=False, dtype=np.float64)
    return _design(estimator, X, reset=False) @ estimator.coef_


_FIT_SECTIONS = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Boolean samples, {0, 1} or {-1, 1} valued (any reals with ``binarize``).
y : array-like of shape (n_samples,)
    The values of ``f`` at the samples.

Returns
-------
self : object
    The fitted estimator.
"""


class LowDegreeFourierRegressor(RegressorMixin, BaseEstimator):
    """The Linial–Mansour–Nisan low-degree algorithm (notes A §2.3).

    The rows of ``X`` are taken as uniform samples of {0, 1}^n (or
    {-1, 1}^n) and ``y`` as the values of ``f`` there. Every Fourier
    coefficient of degree at most ``degree`` is estimated by the sample mean

        f̂(S) = (1/m) Σ_i y_i χ_S(x_i),   χ_S(x) = Π_{k ∈ S} (-1)^{x_k},

    and the model is ``h = Σ_{|S| ≤ degree} f̂(S) χ_S``. Each estimate is
    unbiased with error O(1/√m); sampling every point of the cube once gives
    the exact coefficients. (Least squares on the same parity features,
    ``LinearRegression`` on ``PolynomialFeatures(interaction_only=True)`` of
    ±1 inputs, is the regression counterpart; LMN averages column-wise.)

    Parameters
    ----------
    degree : int, default=2
        The largest ``|S|``; the notes derive it as ``log(s/ε)`` for a tree
        with ``s`` leaves.
    binarize : float or None, default=None
        ``None``: X must be {0, 1} or {-1, 1} valued. A number: any real X is
        turned into bits ``x > binarize`` first (as ``BernoulliNB`` does).

    Attributes
    ----------
    coef_ : ndarray of shape (n_sets,)
        ``f̂(S)`` for each set of ``feature_sets_``.
    feature_sets_ : list of tuple of int
        The sets S (column indices), by size then lexicographic; ``()`` is the
        constant. Features constant in the training sample are left out of
        every set (their parities copy lower-degree ones).
    n_features_in_ : int

    Examples
    --------
    >>> import itertools, numpy as np
    >>> from skml.boolean import LowDegreeFourierRegressor
    >>> X = np.array(list(itertools.product([0, 1], repeat=3)))
    >>> sort3 = np.array([float(a >= b >= c or a <= b <= c) for a, b, c in X])
    >>> lmn = LowDegreeFourierRegressor(degree=2).fit(X, sort3)
    >>> {S: float(c) for S, c in zip(lmn.feature_sets_, lmn.coef_) if c != 0}
    {(): 0.75, (0, 1): 0.25, (0, 2): -0.25, (1, 2): 0.25}
    """

    _parameter_constraints = {"degree": [Interval(Integral, 0, None, closed="left")],
                              "binarize": [Interval(Real, None, None, closed="both"), None]}

    def __init__(self, degree=2, *, binarize=None):
        self.degree = degree
        self.binarize = binarize

    @fill_doc(fit_sections=_FIT_SECTIONS)
    def fit(self, X, y):
        """Estimate the low-degree coefficients from samples ``(X, y)``.

        <fit_sections>
        """
        X, y, Phi = _fit_design(self, X, y)
        self.coef_ = Phi.T @ y / X.shape[0]
        return self

    def predict(self, X):
        """``h(x) = Σ f̂(S) χ_S(x)``."""
        return _predict(self, X)


class HarmonicaRegressor(RegressorMixin, BaseEstimator):
    """Harmonica: sparse recovery of a low-degree Fourier expansion (notes A §2.4).

    Compressed sensing on the parity features: with ``Ψ[i, S] = χ_S(x_i)``
    for all ``|S| <= degree``, the coefficients solve the Lasso

        min_a  1/(2m) ||y - c - Ψ a||² + alpha ||a||_1

    (skml's :class:`~skml.linear_model.Lasso`; the constant ``c`` is the
    unpenalised intercept, the coefficient of S = ∅). With ``n_top`` the
    ``n_top`` largest ``|a_S|`` are kept and refitted by least squares (the
    Harmonica paper's selection step; the notes fix no solver, the catalogue
    names Lasso). A planted ``k``-sparse polynomial of degree ``d`` is
    recovered from O(k d log n) random samples.

    Parameters
    ----------
    degree : int, default=3
    alpha : float, default=0.01
        The L1 weight.
    n_top : int or None, default=None
        Keep only this many monomials (then refit them without penalty).
    binarize : float or None, default=None
        As in :class:`LowDegreeFourierRegressor`.
    max_iter : int, default=10000
    tol : float, default=1e-8

    Attributes
    ----------
    coef_ : ndarray of shape (n_sets,)
        ``a_S`` for each set of ``feature_sets_`` (the ∅ entry is the intercept).
    feature_sets_ : list of tuple of int
    support_ : list of tuple of int
        The sets with a non-zero coefficient (∅ excluded).
    n_iter_ : int
        Coordinate-descent epochs of the Lasso.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from skml.boolean import HarmonicaRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 2, size=(200, 12))
    >>> Z = 1 - 2 * X
    >>> y = 2.0 * Z[:, 3] * Z[:, 7] - 1.5 * Z[:, 0] + 0.5
    >>> model = HarmonicaRegressor(degree=2, alpha=0.01, n_top=2).fit(X, y)
    >>> model.support_
    [(0,), (3, 7)]
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "n_top": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "binarize": [Interval(Real, None, None, closed="both"), None],
    }

    def __init__(self, degree=3, *, alpha=0.01, n_top=None, max_iter=10_000, tol=1e-8,
                 binarize=None):
        self.degree = degree
        self.binarize = binarize
        self.alpha = alpha
        self.n_top = n_top
        self.max_iter = max_iter
        self.tol = tol

    @fill_doc(fit_sections=_FIT_SECTIONS)
    def fit(self, X, y):
        """Recover the sparse coefficients from samples ``(X, y)``.

        <fit_sections>
        """
        X, y, Phi = _fit_design(self, X, y)
        if Phi.shape[1] == 1:  # no feature varies: the constant model
            self.n_iter_ = 1
            self.coef_ = np.array([np.mean(y)])
            self.support_ = []
            return self
        lasso = Lasso(alpha=self.alpha, max_iter=self.max_iter, tol=self.tol).fit(
            Phi[:, 1:], y)
        self.n_iter_ = max(1, int(np.max(lasso.n_iter_)))
        coef = np.concatenate([[lasso.intercept_], lasso.coef_])
        if self.n_top is not None:
            keep = np.argsort(-np.abs(coef[1:]), kind="stable")[:self.n_top] + 1
            keep = keep[coef[keep] != 0]
            # Least squares on the kept monomials and the constant removes the
            # Lasso's shrinkage.
            columns = np.concatenate([[0], np.sort(keep)])
            refit, *_ = np.linalg.lstsq(Phi[:, columns], y, rcond=None)
            coef = np.zeros_like(coef)
            coef[columns] = refit
        self.coef_ = coef
        self.support_ = [S for S, c in zip(self.feature_sets_[1:], coef[1:]) if c != 0]
        return self

    def predict(self, X):
        """``Σ a_S χ_S(x)``."""
        return _predict(self, X)
