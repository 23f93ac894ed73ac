"""Kernel logistic regression: logistic regression in the representer form.

Notes B §5.10 ("Kernel based Logistic Regression", notes D4 "redefine model
and loss function"): ``f(x) = sum_n alpha_n k(x_n, x) + b`` with the
cross-entropy of notes B §3.3 minimised over ``alpha`` and ``b``.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from skml.utils import Interval, encode_labels, validate_params
from skml.utils._docstrings import SECTIONS, fill_class_docs

from ._kernel_common import KERNEL_DOCS, _KERNEL_CONSTRAINTS, gram, kernel_tags
from ._kernel_common import set_geometry, test_gram, validate_fit_data

__all__ = ["KernelLogisticRegression"]


def _objective(K_a, b, a, y_pm, cs):
    f = K_a + b
    return float(cs @ np.logaddexp(0.0, -y_pm * f) + 0.5 * (a @ K_a))


def _newton_binary(K, y_pm, cs, fit_intercept, tol, max_iter):
    """Minimise ``sum_n cs_n log(1 + exp(-y_n f_n)) + 1/2 a'Ka``, ``f = Ka + b``.

    The gradient in ``a`` is ``K (r + a)`` with ``r_n = cs_n (p_n - t_n)``
    (``p = sigmoid(f)``, ``t = (y + 1) / 2``) and the Hessian
    ``K W K + K`` (``W = diag(cs p (1 - p))``). Both carry a factor ``K`` on
    the left, so the Newton step solves the smaller-conditioned system
    ``(W K + I) da + W 1 db = -(r + a)``, ``1'W K da + 1'W 1 db = -1'r``,
    which is well posed even when ``K`` is singular; a backtracking line
    search on the objective keeps every step a descent step.
    """
    n = K.shape[0]
    a = np.zeros(n)
    b = 0.0
    t = (y_pm + 1.0) / 2.0
    K_a = np.zeros(n)
    value = _objective(K_a, b, a, y_pm, cs)
    size = n + 1 if fit_intercept else n
    for n_iter in range(1, max_iter + 1):
        p = expit(K_a + b)
        r = cs * (p - t)
        w = cs * p * (1.0 - p)
        # Stop on the gradient's norm in the feature space: for ``w = sum a_n
        # phi(x_n)`` it is ``||phi' (r + a)|| = sqrt((r + a)' K (r + a))``,
        # the plain ``||grad_w||`` of linear logistic regression.
        g = r + a
        g_norm = np.sqrt(max(float(g @ (K @ g)), 0.0))
        if g_norm <= tol and (not fit_intercept or abs(r.sum()) <= tol):
            return a, b, n_iter - 1, True
        A = np.empty((size, size))
        A[:n, :n] = w[:, None] * K
        A.flat[: n * size : size + 1] += 1.0
        rhs = np.empty(size)
        rhs[:n] = -(r + a)
        if fit_intercept:
            A[:n, n] = w
            A[n, :n] = w @ K
            A[n, n] = w.sum()
            rhs[n] = -r.sum()
        try:
            step = scipy.linalg.solve(A, rhs, check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            step = scipy.linalg.lstsq(A, rhs, check_finite=False)[0]
        da = step[:n]
        db = step[n] if fit_intercept else 0.0
        K_da = K @ da
        # Newton decrement: -grad . step, with grad = (K (r + a), 1'r)
        decrement = -((r + a) @ K_da + (r.sum() * db if fit_intercept else 0.0))
        if not np.isfinite(decrement) or decrement <= 0.0:
            return a, b, n_iter, True  # no descent left at float64 precision
        s = 1.0
        while True:
            a_new, b_new, K_a_new = a + s * da, b + s * db, K_a + s * K_da
            value_new = _objective(K_a_new, b_new, a_new, y_pm, cs)
            if value_new <= value - 1e-4 * s * decrement or s < 1e-10:
                break
            s *= 0.5
        a, b, K_a, value = a_new, b_new, K_a_new, value_new
    return a, b, max_iter, False


@fill_class_docs(SECTIONS, KERNEL_DOCS)
class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    """Kernel logistic regression: the log-loss in the representer form.

    The kernel logistic regression of notes B §5.10 (notes D4 "redefine
    model and loss function": once ``w = sum_n alpha_n phi(x_n)``, the model
    is ``f(x) = sum_n alpha_n k(x_n, x)`` and the cross-entropy of notes
    B §3.3 is minimised over the ``alpha_n``), regularised by the
    feature-space ``||w||^2 = a' K a`` in the ``C`` form of scikit-learn's
    ``LogisticRegression``:

        min_{a, b}  1/2 a' K a + C sum_i s_i log(1 + exp(-y_i f(x_i))),
        f(x) = sum_n a_n k(x_n, x) + b,

    with ``y_i in {-1, +1}``, ``s_i`` the sample weights and ``b`` free (not
    penalised). With ``kernel="linear"`` this is exactly L2 logistic
    regression, ``w = X' a``. More than two classes: one binary problem per
    class against the rest (notes B §3.6), probabilities normalised over the
    classes. The problem is solved by Newton's method (notes B §6.11).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the log-loss against ``1/2 a' K a`` (the notes' ``lambda``
        is ``1 / C``).
    kernel : str or callable, default="rbf"
        "linear", "poly"/"polynomial", "rbf", "laplacian", "sigmoid", "chi2",
        "additive_chi2", "cosine", "precomputed" or a callable ``k(x, y)`` on two rows.
    gamma : float, "scale" or None, default="scale"
        Kernel coefficient of rbf, laplacian, poly and sigmoid. "scale" is
        ``1 / (n_features Var(X))`` (laplacian: ``1 / (n_features std(X))``),
        as :class:`skml.svm.SVC`'s, which makes the model of ``c X`` that of
        ``X``; None is ``1 / n_features``.
    <kernel_shape_parameters>
    kernel_params : dict, default=None
        More keyword arguments of the kernel.
    fit_intercept : bool, default=True
        Learn the unpenalised constant ``b``.
    tol : float, default=1e-6
        Stop when the gradient's norm in the feature space,
        ``sqrt((r + a)' K (r + a))``, and the intercept's derivative are at
        most ``tol`` (``||grad_w||`` of linear logistic regression).
    max_iter : int, default=100
        Newton iterations per binary problem.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    dual_coef_ : ndarray of shape (1, n_samples) or (n_classes, n_samples)
        The representer coefficients ``a`` of each binary problem.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The constants ``b``.
    X_fit_ : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Training data (the training Gram matrix for a precomputed kernel).
    n_iter_ : ndarray of shape (1,) or (n_classes,)
        Newton iterations per binary problem.
    <fitted_feature_attributes>

    See Also
    --------
    KernelRidge : The same representer form with the squared loss.
    skml.linear_model.LogisticRegression : The linear model in the primal.

    Notes
    -----
    Each Newton step solves an ``(n + 1)``-square system, O(n^3) time and
    O(n^2) memory; a handful of steps suffice. scikit-learn has no kernel
    logistic regression; ``make_pipeline(Nystroem(...), LogisticRegression())``
    approximates it with a low-rank feature map.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.kernel_ridge import KernelLogisticRegression
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])  # XOR: no linear model separates it
    >>> clf = KernelLogisticRegression(C=100.0, kernel="rbf", gamma=2.0).fit(X, y)
    >>> clf.predict(X)
    array([0, 0, 1, 1])
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        **_KERNEL_CONSTRAINTS,
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1,
                 kernel_params=None, fit_intercept=True, tol=1e-6, max_iter=100):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y, sample_weight=None):
        """Fit one Newton problem (binary) or one per class (one-vs-rest).

        Parameters
        ----------
        <kernel_fit_X>
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of the log-loss.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        validate_params(self)
        X, y, sample_weight = validate_fit_data(self, X, y, sample_weight)
        self.classes_, y_enc = encode_labels(y, sample_weight=sample_weight)
        set_geometry(self, X, sample_weight)
        K = gram(self, X)
        cs = self.C * sample_weight
        positives = [1] if len(self.classes_) == 2 else range(len(self.classes_))
        coefs, intercepts, n_iters, converged = [], [], [], True
        for k in positives:
            y_pm = np.where(y_enc == k, 1.0, -1.0)
            a, b, n_iter, ok = _newton_binary(K, y_pm, cs, self.fit_intercept,
                                              self.tol, self.max_iter)
            coefs.append(a)
            intercepts.append(b)
            n_iters.append(n_iter)
            converged &= ok
        if not converged:
            warnings.warn(
                f"KernelLogisticRegression: Newton's method did not converge in "
                f"max_iter={self.max_iter} iterations; increase max_iter.",
                ConvergenceWarning,
            )
        self.dual_coef_ = np.array(coefs)
        self.intercept_ = np.array(intercepts)
        self.n_iter_ = np.array(n_iters, dtype=np.int32)
        self.X_fit_ = X
        return self

    def decision_function(self, X):
        """``f(x) = sum_n a_n k(x_n, x) + b`` per binary problem.

        <kernel_X>

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: positive means ``classes_[1]``.
        """
        K = test_gram(self, X)
        scores = K @ self.dual_coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def predict_proba(self, X):
        """Class probabilities: ``sigmoid(f)`` (binary) or normalised one-vs-rest.

        <kernel_X>

        <proba_returns>
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        p = expit(scores)
        total = p.sum(axis=1, keepdims=True)
        return np.divide(p, total, out=np.full_like(p, 1.0 / p.shape[1]),
                         where=total > 0)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <kernel_X>

        <log_proba_returns>
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """The class of largest score.

        <kernel_X>

        <labels_returns>
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        return kernel_tags(self, super().__sklearn_tags__())
