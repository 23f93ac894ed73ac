"""Kernel ridge regression: kernel linear regression in the representer form.

Notes B §5.10 ("Kernel based Linear Regression", notes D4 "redefine model and
loss function"): with ``w = sum_n alpha_n phi(x_n)`` the linear model becomes
``f(x) = sum_n alpha_n k(x_n, x)`` and the squared loss is minimised over
``alpha`` directly.
"""

from numbers import Real

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin

from skml.utils import Interval, validate_params
from skml.utils._docstrings import SECTIONS, fill_class_docs

from ._kernel_common import KERNEL_DOCS, _KERNEL_CONSTRAINTS, gram, kernel_tags
from ._kernel_common import set_geometry, test_gram, validate_fit_data

__all__ = ["KernelRidge"]


def _solve_dual(K, Y, alphas):
    """``(K + a_t I) c_t = y_t`` for every target column ``t``.

    Cholesky when ``K + a I`` is positive definite (the usual case, ``a > 0``);
    a least-squares solve otherwise (``a = 0`` with a singular ``K``, or an
    indefinite kernel such as the sigmoid), which gives the minimum-norm
    coefficients.
    """
    n = K.shape[0]
    out = np.empty_like(Y)
    same = np.all(alphas == alphas[0])
    groups = [np.arange(Y.shape[1])] if same else [[t] for t in range(Y.shape[1])]
    for cols in groups:
        A = K.copy()
        A.flat[:: n + 1] += alphas[cols[0]]
        try:
            out[:, cols] = scipy.linalg.solve(A, Y[:, cols], assume_a="pos",
                                              check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            out[:, cols] = scipy.linalg.lstsq(A, Y[:, cols], check_finite=False)[0]
    return out


@fill_class_docs(SECTIONS, KERNEL_DOCS)
class KernelRidge(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Kernel ridge regression: kernel linear regression in the representer form.

    The kernel linear regression of notes B §5.10 (notes D4 "redefine model
    and loss function": once ``w`` is a combination of the data, the model is
    ``f(x) = sum_n alpha_n k(x_n, x)`` and the loss is minimised over the
    ``alpha_n``), with the ridge penalty of notes B §2.3 written in the
    feature space, ``||w||^2 = a' K a``:

        min_a  sum_i s_i (y_i - (K a)_i)^2 + alpha a' K a,

    whose minimiser solves ``(K + alpha S^-1) a = y`` (``S`` the sample
    weights). With ``kernel="linear"`` this is ridge regression without
    intercept, ``w = X' a``. The name and parameters are scikit-learn's
    :class:`sklearn.kernel_ridge.KernelRidge`; the kernels are those of
    :mod:`skml.metrics.pairwise` (notes B §5.8).

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
        Ridge strength (one per target column when an array), ``>= 0``.
    kernel : str or callable, default="linear"
        "linear", "poly"/"polynomial", "rbf", "laplacian", "sigmoid", "chi2",
        "additive_chi2", "cosine",
        "precomputed" (X is the Gram matrix) or a callable ``k(x, y)`` on two
        rows returning a float.
    gamma : float, "scale" or None, default=None
        Coefficient of the rbf, laplacian, poly and sigmoid kernels; None is
        each kernel's default ``1 / n_features``. "scale" (an skml extension)
        is ``1 / (n_features Var(X))`` (laplacian: ``1 / (n_features std(X))``),
        as :class:`skml.svm.SVC`'s.
    <kernel_shape_parameters>
    kernel_params : dict, default=None
        More keyword arguments of the kernel (for a callable kernel: all).
        Unlike scikit-learn, which hands them to callables only, they also
        reach a named kernel and override ``gamma``/``degree``/``coef0``.

    Attributes
    ----------
    dual_coef_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The representer coefficients ``a``.
    X_fit_ : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Training data, needed by ``predict`` (the training Gram matrix for a
        precomputed kernel).
    <fitted_feature_attributes>

    See Also
    --------
    skml.linear_model.Ridge : The linear model in the primal.
    KernelLogisticRegression : The same representer form with the log-loss.
    sklearn.kernel_ridge.KernelRidge : The scikit-learn counterpart.

    Notes
    -----
    ``fit`` builds the ``n x n`` Gram matrix (O(n^2 d) time, O(n^2) memory)
    and solves one Cholesky system, O(n^3); ``predict`` costs O(m n d) for
    ``m`` test rows. Notes D4 leaves the regulariser open; ``a' K a`` (the
    feature-space ``||w||^2``) is the one that makes this the kernelised
    ridge regression.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.kernel_ridge import KernelRidge
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([0.0, 1.0, 4.0, 9.0])
    >>> reg = KernelRidge(alpha=1e-6, kernel="poly", degree=2, coef0=1).fit(X, y)
    >>> reg.predict([[4.0]]).round(3)
    array([16.])
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        **_KERNEL_CONSTRAINTS,
    }

    def __init__(self, alpha=1, *, kernel="linear", gamma=None, degree=3, coef0=1,
                 kernel_params=None):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params

    def fit(self, X, y, sample_weight=None):
        """Solve for the representer coefficients.

        Parameters
        ----------
        <kernel_fit_X>
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Targets.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Per-sample weights of the squared loss.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        validate_params(self)
        X, y, sample_weight = validate_fit_data(self, X, y, sample_weight,
                                                multi_output=True, y_numeric=True)
        alphas = np.atleast_1d(np.asarray(self.alpha, dtype=np.float64))
        if alphas.ndim != 1 or np.any(~np.isfinite(alphas)) or np.any(alphas < 0):
            raise ValueError(
                f"alpha must be a non-negative float or a 1-d array of them; got "
                f"{self.alpha!r}."
            )
        ravel = y.ndim == 1
        Y = y.reshape(-1, 1) if ravel else y
        if alphas.size not in (1, Y.shape[1]):
            raise ValueError(
                f"alpha has {alphas.size} values but y has {Y.shape[1]} targets; "
                "give one alpha or one per target."
            )
        alphas = np.broadcast_to(alphas, (Y.shape[1],))
        set_geometry(self, X, sample_weight)
        K = gram(self, X)
        # Weighted loss: substitute a = sqrt(S) b, so the system stays symmetric.
        sw = np.sqrt(sample_weight)
        dual = _solve_dual(K * np.outer(sw, sw), Y * sw[:, None], alphas)
        dual *= sw[:, None]
        self.dual_coef_ = dual.ravel() if ravel else dual
        self.X_fit_ = X
        return self

    def predict(self, X):
        """``f(x) = sum_n a_n k(x_n, x)``.

        <kernel_X>

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_targets)
        """
        K = test_gram(self, X)
        return K @ self.dual_coef_

    def __sklearn_tags__(self):
        return kernel_tags(self, super().__sklearn_tags__())
