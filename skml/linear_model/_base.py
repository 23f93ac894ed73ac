"""Pieces shared by the least-squares family (LinearRegression, Ridge, Lasso).

The API is deliberately small; other linear estimators may import from here:

``preprocess_data(X, y, *, fit_intercept, sample_weight=None, copy=True)``
    Centre ``X`` and ``y`` on their (weighted) means when ``fit_intercept``,
    then multiply each row by ``sqrt(sample_weight)``. Returns
    ``X, y, X_offset, y_offset``. A weighted least-squares problem on the
    original data becomes an unweighted, intercept-free one on the output.
``set_intercept(estimator, X_offset, y_offset)``
    Sets ``estimator.intercept_ = y_offset - X_offset @ coef_.T`` (or ``0.0``
    without intercept), after ``coef_`` is set.
``solve_spd(A, B)``
    Solve ``A @ x = B`` for symmetric positive definite ``A`` by Cholesky on
    the diagonally equilibrated matrix; returns ``None`` when ``A`` is
    singular or too ill-conditioned for the normal equations to be trusted.
``CentredSparse(X, y, fit_intercept=..., sample_weight=None)``
    The sparse counterpart of ``preprocess_data``: ``X`` stays sparse and
    uncentred; the centred, row-rescaled matrix is available as a
    ``LinearOperator`` (``.op``) and through its dense Gram matrices
    (``.gram()``, p x p, and ``.kernel()``, n x n), built from sparse
    products without ever forming ``X - x̄``.
``LinearRegressorMixin``
    ``predict(X) = X @ coef_.T + intercept_`` for regressors; put it left of
    ``BaseEstimator``.
``LinearClassifierMixin``
    ``decision_function`` (the linear scores) and ``predict`` (their sign, or
    arg-max for one score per class) for linear classifiers; it includes
    ``SparseCoefMixin``.
``SparseCoefMixin``
    ``sparsify()`` / ``densify()``: ``coef_`` to and from a scipy.sparse CSR
    matrix, as scikit-learn's linear classifiers and SGD estimators have them.
"""

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.linalg import lapack
from scipy.sparse.linalg import LinearOperator
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted
from ..utils._docstrings import fill_doc, predict_doc
from ..utils.validation import validate_data

__all__ = [
    "CentredSparse",
    "LinearClassifierMixin",
    "LinearRegressorMixin",
    "SparseCoefMixin",
    "preprocess_data",
    "set_intercept",
    "solve_spd",
]

# Reciprocal condition number (1-norm, after equilibration) below which the
# Cholesky solution of the normal equations is not trusted: its relative error
# is about cond * eps, so 1e-9 keeps it below ~1e-7; SVD is used instead.
RCOND_MIN = 1e-9

# Docstring blocks of the least-squares regressors (placed by fill_doc).
REGRESSION_COEF = """
coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
    1-d when ``y`` is 1-d or has one column (as in scikit-learn).
intercept_ : float or ndarray of shape (n_targets,)
    ``0.0`` when ``fit_intercept=False``; shape (1,) for a ``y`` of one
    column.
"""


def class_weights_from_dict(class_weight, classes):
    """Per-class weights from a ``{label: weight}`` dict, ones for the others.

    A label that is not among ``classes`` raises ``ValueError`` naming it.
    """
    weights = np.ones(len(classes))
    for label, weight in class_weight.items():
        match = np.flatnonzero(classes == label)
        if match.size == 0:
            raise ValueError(
                f"class_weight holds the label {label!r}, which is not a class "
                f"of y ({classes!r})."
            )
        weights[match[0]] = weight
    return weights


def preprocess_data(X, y, *, fit_intercept, sample_weight=None, copy=True):
    """Centre and row-rescale ``X`` and ``y`` for a least-squares solver.

    With weights ``s_i`` and offsets ``x̄ = Σ s_i x_i / Σ s_i`` (``0`` when
    ``fit_intercept=False``), ``Σ s_i (y_i - x_i w - b)²`` minimised over
    ``b`` equals ``‖√s (y - ȳ) - √s (X - x̄) w‖²``, and the best intercept is
    ``b = ȳ - x̄ w``: the intercept is never penalised by a solver working on
    the returned arrays.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,) or (n_samples, n_targets), float64
    fit_intercept : bool
        Centre the data (else offsets are zero and nothing is subtracted).
    sample_weight : ndarray of shape (n_samples,), default=None
        Validated non-negative weights; ``None`` means unit weights.
    copy : bool, default=True
        When False, ``X`` may be modified in place; ``y`` never is.

    Returns
    -------
    X, y : ndarray
        Transformed arrays (the memory layout of ``X`` is kept).
    X_offset : ndarray of shape (n_features,)
    y_offset : float or ndarray of shape (n_targets,)
    """
    n_features = X.shape[1]
    if fit_intercept:
        X_offset = _column_means(X, sample_weight)
        y_offset = _column_means(y, sample_weight)
        if copy:
            X = X - X_offset
        else:
            X -= X_offset
        # y is never the caller's array to overwrite (copy_X names X only),
        # and its copy costs O(n) against the solver's O(n p).
        y = y - y_offset
        copy = False  # X and y are now our own arrays
    else:
        X_offset = np.zeros(n_features, dtype=X.dtype)
        y_offset = np.zeros(y.shape[1:], dtype=X.dtype) if y.ndim > 1 else 0.0
    if sample_weight is not None:
        sw_sqrt = np.sqrt(sample_weight)
        y = y * (sw_sqrt if y.ndim == 1 else sw_sqrt[:, np.newaxis])
        if copy:
            X = X * sw_sqrt[:, np.newaxis]
        else:
            X *= sw_sqrt[:, np.newaxis]
    return X, y, X_offset, y_offset


class CentredSparse:
    """Sparse ``X`` centred and row-rescaled implicitly, for least squares.

    Represents ``X̃ = diag(√s) (X − 1 x̄ᵀ)`` and ``Ỹ = diag(√s) (Y − ȳ)``
    (``x̄ = 0``, ``ȳ = 0`` without intercept), the arrays ``preprocess_data``
    returns for dense data, while storing only ``Xs = diag(√s) X`` (sparse,
    O(nnz)): ``X̃ v = Xs v − √s (x̄·v)`` and ``X̃ᵀu = Xsᵀu − x̄ (√s·u)``. The
    centring of scikit-learn's sparse solvers, where subtracting the means
    would make X dense.

    Attributes
    ----------
    Xs : sparse matrix (CSR or CSC, as given)
    X_offset : ndarray of shape (n_features,)
    y_offset : float or ndarray of shape (n_targets,)
    Y : ndarray of shape (n_samples, n_targets)
        ``Ỹ``, always 2-d.
    sqrt_sw : ndarray of shape (n_samples,)
    op : scipy.sparse.linalg.LinearOperator
        ``X̃`` (matvec, rmatvec, matmat and rmatmat).
    """

    def __init__(self, X, y, *, fit_intercept, sample_weight=None):
        n_samples, n_features = X.shape
        sw = np.ones(n_samples) if sample_weight is None else sample_weight
        self.sqrt_sw = np.sqrt(sw)
        self.sw_sum = float(sw.sum())
        if sample_weight is None:
            self.Xs = X
        else:
            self.Xs = sp.diags(self.sqrt_sw) @ X
            self.Xs = self.Xs.asformat(X.format)
        if fit_intercept:
            # x̄ = Xᵀs / Σs = Xsᵀ√s / Σs: a sparse product, no dense X.
            self.X_offset = np.asarray(self.Xs.T @ self.sqrt_sw).ravel() / self.sw_sum
            self.y_offset = _column_means(y, sample_weight)
        else:
            self.X_offset = np.zeros(n_features)
            self.y_offset = np.zeros(y.shape[1:]) if y.ndim > 1 else 0.0
        Y = (y - self.y_offset).reshape(n_samples, -1)
        self.Y = Y * self.sqrt_sw[:, np.newaxis]
        self.op = LinearOperator(
            (n_samples, n_features),
            matvec=self._matvec,
            rmatvec=self._rmatvec,
            matmat=self._matvec,
            rmatmat=self._rmatvec,
            dtype=np.float64,
        )

    def _matvec(self, v):
        out = np.asarray(self.Xs @ v)
        shift = self.X_offset @ v
        if out.ndim == 1:
            return out - self.sqrt_sw * shift
        return out - np.outer(self.sqrt_sw, shift)

    def _rmatvec(self, u):
        out = np.asarray(self.Xs.T @ u)
        shift = self.sqrt_sw @ u
        if out.ndim == 1:
            return out - self.X_offset * shift
        return out - np.outer(self.X_offset, shift)

    def gram(self):
        """``X̃ᵀX̃ = XsᵀXs − (Σs) x̄ x̄ᵀ``, dense (n_features, n_features)."""
        G = (self.Xs.T @ self.Xs).toarray()
        G -= self.sw_sum * np.outer(self.X_offset, self.X_offset)
        return G

    def kernel(self):
        """``X̃X̃ᵀ``, dense (n_samples, n_samples), for the dual problems."""
        K = (self.Xs @ self.Xs.T).toarray()
        a = np.asarray(self.Xs @ self.X_offset).ravel()  # Xs x̄
        r = self.sqrt_sw
        K -= np.outer(a, r)
        K -= np.outer(r, a)
        K += (self.X_offset @ self.X_offset) * np.outer(r, r)
        return K


def _column_means(A, sample_weight):
    # einsum's own SIMD loops: 2-3x faster than np.average along axis 0 of a
    # C-ordered array, and no BLAS call (a threaded GEMV here woke BLAS
    # worker threads that then slowed the single-threaded Lasso kernel).
    if sample_weight is None:
        return np.einsum("i...->...", A) / A.shape[0]
    return np.einsum("i,i...->...", sample_weight, A) / sample_weight.sum()


def set_intercept(estimator, X_offset, y_offset):
    """Set ``estimator.intercept_`` from the centring offsets and ``coef_``."""
    if getattr(estimator, "fit_intercept", True):
        estimator.intercept_ = y_offset - X_offset @ estimator.coef_.T
    else:
        estimator.intercept_ = 0.0


def solve_spd(A, B):
    """Solve ``A @ x = B`` for symmetric positive (semi-)definite ``A``.

    ``A`` is equilibrated to unit diagonal first (Cholesky's accuracy then
    depends on the conditioning of the correlation-like matrix, not on the
    scales of the features), factorised, and its reciprocal condition number
    estimated with LAPACK ``pocon`` (O(n²) given the factor).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric; overwritten.
    B : ndarray of shape (n,) or (n, k)

    Returns
    -------
    x : ndarray shaped like ``B``, or None
        ``None`` when ``A`` is not numerically positive definite or its
        equilibrated reciprocal condition number is below ``RCOND_MIN``.
    """
    d = np.sqrt(np.diagonal(A).copy())
    if not np.all(d > 0):
        return None
    scale = 1.0 / d
    A *= scale
    A *= scale[:, np.newaxis]
    anorm = np.abs(A).sum(axis=0).max()
    try:
        c, lower = linalg.cho_factor(A, overwrite_a=True, check_finite=False)
    except linalg.LinAlgError:
        return None
    rcond, info = lapack.dpocon(c, anorm, uplo="L" if lower else "U")
    if info != 0 or not rcond >= RCOND_MIN:
        return None
    Bs = B * (scale if B.ndim == 1 else scale[:, np.newaxis])
    x = linalg.cho_solve((c, lower), Bs, overwrite_b=True, check_finite=False)
    x *= scale if B.ndim == 1 else scale[:, np.newaxis]
    return x


def _linear_scores(X, coef):
    """``X @ coef.T`` as a dense array, for dense or sparse ``X`` and ``coef``."""
    scores = X @ coef.T
    if sp.issparse(scores):
        return scores.toarray()
    return np.asarray(scores)


class SparseCoefMixin:
    """``sparsify`` and ``densify`` of ``coef_`` (scikit-learn's pair of methods).

    A sparse ``coef_`` (CSR) saves memory and time in ``predict`` when most
    weights are zero (an L1 or elastic-net fit); the linear mixins' scores
    accept it. Fitting again replaces it with a dense ``coef_``.
    """

    def sparsify(self):
        """Convert ``coef_`` to a ``scipy.sparse`` CSR matrix.

        Worth it when most weights are zero: a rule of thumb is fewer than
        half of ``coef_.size`` non-zero (``(coef_ == 0).sum()`` tells).
        ``partial_fit`` and warm starts need a dense ``coef_``: call
        :meth:`densify` first.

        Returns
        -------
        self : object
            The estimator, with a sparse ``coef_``.
        """
        check_is_fitted(self)
        if not sp.issparse(self.coef_):
            self._coef_was_1d = np.ndim(self.coef_) == 1
            self.coef_ = sp.csr_matrix(np.atleast_2d(self.coef_))
        return self

    def densify(self):
        """Convert a sparse ``coef_`` back to a dense ndarray (the default form).

        Returns
        -------
        self : object
            The estimator, with a dense ``coef_``.
        """
        check_is_fitted(self)
        if sp.issparse(self.coef_):
            dense = self.coef_.toarray()
            self.coef_ = dense.ravel() if getattr(self, "_coef_was_1d", False) else dense
        return self


class LinearRegressorMixin(RegressorMixin):
    """``predict`` of a fitted linear regressor: ``X @ coef_.T + intercept_``.

    Expects ``coef_`` of shape (n_features,) or (n_targets, n_features) and
    ``intercept_`` (float or (n_targets,)). Scoring (R²) comes from
    ``RegressorMixin``. Place it left of ``BaseEstimator``.
    """

    def predict(self, X):
        """Predict with the linear model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is accepted even where ``fit`` refuses it (as
            scikit-learn's linear models predict).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        check_is_fitted(self)
        X = validate_data(
            self, X, accept_sparse=("csr", "csc"), reset=False,
            dtype=[np.float64, np.float32],
        )
        scores = _linear_scores(X, self.coef_)
        if sp.issparse(self.coef_) and getattr(self, "_coef_was_1d", False):
            scores = scores.ravel()  # a sparsified 1-d coef_ (SGDRegressor)
        return scores + self.intercept_


class LinearClassifierMixin(SparseCoefMixin, ClassifierMixin):
    """Scores and predictions of a fitted linear classifier.

    Expects ``coef_`` of shape (1, n_features) for two classes or
    (n_classes, n_features), ``intercept_`` of matching length and
    ``classes_``. Sparse input is accepted when the estimator's tags say so.
    Place it left of ``BaseEstimator``.
    """

    @fill_doc(
        predict_doc=predict_doc("scores : ndarray of shape (n_samples,) or (n_samples, n_classes)")
    )
    def decision_function(self, X):
        """Linear scores ``X @ coef_.T + intercept_``.

        <predict_doc>
            For two classes a single score, positive for ``classes_[1]``;
            otherwise one column per class.
        """
        check_is_fitted(self)
        sparse = ("csr", "csc") if get_tags(self).input_tags.sparse else False
        X = validate_data(self, X, accept_sparse=sparse, dtype=np.float64, reset=False)
        scores = _linear_scores(X, self.coef_) + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """Predict class labels: the sign of the score, or its arg-max.

        <predict_doc>
            Labels from ``classes_`` (a score of exactly 0 gives ``classes_[0]``,
            the notes' sign(0) = -1).
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
