"""The Gram matrices of the representer-form estimators (shared by both)."""

from numbers import Real

import numpy as np
import scipy.sparse as sp

from sklearn.utils.validation import check_is_fitted

from skml.metrics.pairwise import KERNEL_PARAMS, pairwise_kernels
from skml.utils import Interval, Options, check_sample_weight
from skml.utils.validation import validate_data

# Docstring blocks of both estimators.
KERNEL_DOCS = {
    "kernel_shape_parameters": """
degree : float, default=3
    Degree of the polynomial kernel.
coef0 : float, default=1
    Constant of the polynomial and sigmoid kernels.
""",
    "kernel_X": """
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Samples (for a precomputed kernel: ``k(X, X_train)``).
""",
    "kernel_fit_X": """
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Training data, or the Gram matrix for ``kernel="precomputed"``.
""",
}

_KERNEL_CONSTRAINTS = {
    "kernel": [Options(set(KERNEL_PARAMS) | {"precomputed"}), callable],
    "gamma": [Interval(Real, 0, None, closed="left"), Options({"scale"}), None],
    "degree": [Interval(Real, 0, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
}


def validate_fit_data(estimator, X, y, sample_weight, **kw):
    """``X``, ``y`` and ``sample_weight`` checked for ``fit``.

    ``X`` may be sparse; with ``kernel="precomputed"`` it must be the square
    Gram matrix of the training samples. ``kw`` goes to ``validate_data``.
    """
    X, y = validate_data(estimator, X, y, accept_sparse=("csr", "csc"),
                         dtype=np.float64, **kw)
    if estimator.kernel == "precomputed" and X.shape[0] != X.shape[1]:
        raise ValueError(
            "With kernel='precomputed', X must be the square Gram matrix of "
            f"the training samples; got shape {X.shape}."
        )
    return X, y, check_sample_weight(sample_weight, X)


def test_gram(estimator, X):
    """``k(X, X_fit_)`` for a fitted estimator (``X`` itself when precomputed)."""
    check_is_fitted(estimator)
    X = validate_data(estimator, X, accept_sparse=("csr", "csc"), reset=False,
                      dtype=np.float64)
    if estimator.kernel != "precomputed":
        return gram(estimator, X, estimator.X_fit_)
    if X.shape[1] != estimator.X_fit_.shape[0]:
        raise ValueError(
            "With kernel='precomputed', X must be k(X_test, X_train) with "
            f"{estimator.X_fit_.shape[0]} columns; got {X.shape[1]}."
        )
    return np.asarray(X.toarray() if hasattr(X, "toarray") else X)


def kernel_tags(estimator, tags):
    """Sparse input accepted; pairwise when the kernel is precomputed."""
    tags.input_tags.sparse = True
    tags.input_tags.pairwise = estimator.kernel == "precomputed"
    return tags


def set_geometry(estimator, X, sample_weight):
    """Choose the coordinates the kernel is evaluated in (at ``fit``).

    The shift-invariant kernels (rbf, laplacian) see dense ``X`` minus its
    (weighted) mean: the same kernel values, without the cancellation of
    ``||x||^2 + ||z||^2 - 2<x, z>`` on data far from the origin. With
    ``gamma="scale"`` the data are also divided by their largest magnitude
    ``m`` and ``gamma`` is set in those units (``1 / (n_features var)`` for
    rbf, poly and sigmoid, as SVC's "scale"; ``1 / (n_features std)`` for the
    L1 laplacian; ``var`` over all entries, weighted by ``sample_weight`` so
    that a weight of 2 is a repeated row), so the model of ``c X`` is the
    model of ``X`` for any ``c``, including 1e-300 and 1e300.
    Sets ``_shift``, ``_unit`` and ``_gamma``.
    """
    estimator._shift, estimator._unit, estimator._gamma = None, 1.0, estimator.gamma
    kernel = estimator.kernel
    if callable(kernel) or kernel in ("precomputed", "linear"):
        if estimator.gamma == "scale":
            estimator._gamma = None
        return
    total = sample_weight.sum()
    sparse = sp.issparse(X)
    if kernel in ("rbf", "laplacian") and not sparse:
        estimator._shift = (sample_weight @ X) / total
        X = X - estimator._shift
    if estimator.gamma != "scale":
        return
    values = X.data if sparse else X
    unit = float(np.max(np.abs(values), initial=0.0))
    if not np.isfinite(unit):
        raise ValueError("X's values overflow float64 once centred; rescale X.")
    estimator._unit = unit if unit > 0 else 1.0
    Xs = X / estimator._unit
    rows = np.asarray(Xs.sum(axis=1)).ravel()
    rows_sq = np.asarray(Xs.multiply(Xs).sum(axis=1) if sparse
                         else np.einsum("ij,ij->i", Xs, Xs)).ravel()
    size = total * X.shape[1]
    mean = (sample_weight @ rows) / size
    var = max(float((sample_weight @ rows_sq) / size - mean * mean), 0.0)
    spread = var if kernel != "laplacian" else np.sqrt(var)
    estimator._gamma = 1.0 / (X.shape[1] * spread) if spread > 0 else 1.0


def gram(estimator, X, Y=None):
    """``k(X, Y)`` with the estimator's kernel and parameters.

    String kernels get ``gamma``, ``degree`` and ``coef0`` (those they do not
    take are dropped, as scikit-learn's KernelRidge does) plus
    ``kernel_params``; a callable gets ``kernel_params`` only. ``X`` and
    ``Y`` are mapped to the coordinates chosen by :func:`set_geometry`.
    """
    params = dict(estimator.kernel_params or {})
    if not callable(estimator.kernel):
        degree = estimator.degree
        if isinstance(degree, float) and degree.is_integer():
            degree = int(degree)
        params = {"gamma": estimator._gamma, "degree": degree,
                  "coef0": estimator.coef0, **params}
        X, Y = _to_kernel_space(estimator, X), (
            None if Y is None else _to_kernel_space(estimator, Y))
    K = pairwise_kernels(X, Y, metric=estimator.kernel, filter_params=True, **params)
    K = np.asarray(K.toarray() if hasattr(K, "toarray") else K, dtype=np.float64)
    if not np.all(np.isfinite(K)):
        raise ValueError(
            "The kernel matrix holds NaN or infinite values: X's values are too "
            "large for this kernel; rescale X, e.g. with StandardScaler."
        )
    return K


def _to_kernel_space(estimator, X):
    if estimator._shift is not None:
        X = (X.toarray() if sp.issparse(X) else X) - estimator._shift
    return X if estimator._unit == 1.0 else X / estimator._unit


__all__ = ["_KERNEL_CONSTRAINTS", "gram", "kernel_tags", "set_geometry", "test_gram",
           "validate_fit_data"]
