"""The notes' hard-margin SVM (notes A §1.1, §1.4-1.5, notes B §5.1-5.3).

Separability is decided exactly by a linear programme, the dual is solved by
the SMO solver of SVC (``C = inf``), and the solution is polished on its
support set so that the margin constraints hold to rounding error.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy import linalg, optimize
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, encode_labels, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ._base import _BaseSVM, kernel_parameters, predict_doc, smo_dual

__all__ = ["HardMarginSVC"]

# SMO only has to find the support set: the polish makes the solution exact
# and verifies it. A loose KKT tolerance finds the set in a fraction of the
# iterations (breast_cancer: 7k at 0.1, 17k at 1e-3, 49k at 1e-6); when the
# polish rejects it, SMO runs again tighter. float32 kernel rows in the SMO
# cache would not support a tolerance much below 1e-6 anyway.
_SMO_TOLS = (1e-1, 1e-3, 1e-6)


def _separable(F, signs, linear):
    """Whether ``y_i(<F_i, v> + b) >= 1`` has a solution: the LP of the proof.

    ``F`` holds the centred, scaled data (``linear``: ``v = w``) or the
    orthogonal kernel-PCA coordinates of the points (see _gram_features).
    HiGHS either finds a feasible point or proves that none exists.
    """
    n, p = F.shape
    if not linear and p == n:
        # K has full rank: L is invertible, L v = y solves the system with
        # b = 0 (any labelling of distinct points under rbf), no LP needed.
        # (_gram_features returns n columns only with n independent ones.)
        return True
    Z = signs[:, None] * np.hstack([F, np.ones((n, 1))])
    # Presolve cannot shrink a dense problem without redundant rows; skipping
    # it saves a fifth of the LP time.
    res = optimize.linprog(
        np.zeros(p + 1), A_ub=-Z, b_ub=-np.ones(n), bounds=[(None, None)] * (p + 1),
        method="highs", options={"presolve": False},
    )
    if res.status not in (0, 2):
        raise ValueError(
            f"The separability LP failed ({res.message}); the kernel matrix is "
            "too ill-conditioned to decide whether the classes are separable."
        )
    return res.status == 0


def _identical_points_disagree(X, signs):
    """True when two equal rows of ``X`` (dense, CSR or raw objects) carry both signs."""
    if sp.issparse(X):
        X = X.tocsr(copy=True)
        X.eliminate_zeros()  # explicit zeros must not tell equal rows apart
        X.sort_indices()
        keys = [
            (X.indices[X.indptr[i]:X.indptr[i + 1]].tobytes(),
             X.data[X.indptr[i]:X.indptr[i + 1]].tobytes())
            for i in range(X.shape[0])
        ]
    elif isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.ndim == 2:
        keys = [row.tobytes() for row in (X + 0.0)]  # -0.0 and 0.0 alike
    else:
        return False  # objects for a callable kernel: the LP decides
    seen = {}
    for key, sign in zip(keys, signs):
        if seen.setdefault(key, sign) != sign:
            return True
    return False


def _gram_features(K, name):
    """Coordinates ``L`` with ``K = L L'`` (Cholesky, else kernel PCA), for the LP.

    By the representer theorem the hard-margin constraints in feature space,
    ``y_i(sum_j beta_j K_ij + b) >= 1``, read ``y_i(<L_i, v> + b) >= 1`` with
    ``v = L' beta``, and ``L'`` is onto: the two LPs are feasible together.
    This one has ``rank K`` columns instead of ``n`` and is well posed when
    ``K`` is singular (poly kernels, duplicated points), where the simplex on
    ``K`` itself gives up. Eigenvalues at rounding level are dropped: the
    directions they span cannot be told from noise.
    """
    K = (K + K.T) / 2.0
    n = K.shape[0]
    eps = np.finfo(float).eps
    floor = n * eps * max(np.abs(np.diag(K)).max(), np.finfo(float).tiny)
    try:
        # Cheap first try: pivots clearly above rounding prove K positive
        # definite, and an invertible L has full rank, which settles the LP.
        L = linalg.cholesky(K, lower=True)
        if np.diag(L).min() ** 2 > floor:
            return L
    except linalg.LinAlgError:
        pass
    lam, V = linalg.eigh(K)
    top = max(lam[-1], 0.0)
    if lam[0] < -1e-8 * top or top == 0.0:
        raise ValueError(
            f"The {name!r} kernel's Gram matrix is not positive semi-definite "
            f"(eigenvalues from {lam[0]:.3g} to {lam[-1]:.3g}): there is no feature "
            "space in which to maximise the margin. Use a positive semi-definite "
            "kernel (for 'sigmoid', other gamma and coef0 may give one)."
        )
    keep = lam > n * eps * top
    return V[:, keep] * np.sqrt(lam[keep] / top)


def _polish_on(columns, signs, S, tol):
    """Solve the KKT system of the hard-margin dual on the support set ``S``.

    With every constraint of ``S`` active, ``y_i f(x_i) = 1`` and
    ``sum_S alpha_i y_i = 0`` are ``|S| + 1`` linear equations in
    ``(alpha_S, b)``. The result is the optimum if it is primal feasible
    (``y_i f(x_i) >= 1`` everywhere) and dual feasible (``alpha >= 0``).
    """
    if S.size == 0:
        return None
    K_S = columns(S)  # k(x_i, x_j) for all i and j in S
    yS = signs[S]
    k = S.size
    M = np.zeros((k + 1, k + 1))
    M[:k, :k] = yS[:, None] * yS[None, :] * K_S[S]
    M[:k, k] = yS
    M[k, :k] = yS
    sol = linalg.lstsq(M, np.r_[np.ones(k), 0.0])[0]
    alpha, b = sol[:k], sol[k]
    if alpha.min() < -tol * max(1.0, alpha.max()):
        return None
    alpha = np.maximum(alpha, 0.0)
    margins = signs * (K_S @ (alpha * yS) + b)
    if margins.min() < 1.0 - tol:
        return None
    return alpha, b, margins


def _polish(columns, signs, alpha, b, tol):
    """The exact optimum near the SMO solution ``(alpha, b)``, or None."""
    sv = np.flatnonzero(alpha > 0)
    margins = signs * (columns(sv) @ (alpha[sv] * signs[sv]) + b)
    # SMO may leave tiny alphas that belong to zero, or miss a point that
    # lies on the margin; a few candidate support sets cost little (|S| + 1
    # unknowns each) and the first one that passes the checks is the optimum.
    top = alpha.max()
    candidates = [alpha > t * top for t in (0.0, 1e-10, 1e-7, 1e-4)]
    candidates.append((alpha > 0) | (margins <= 1.0 + 1e-4))
    for mask in candidates:
        S = np.flatnonzero(mask)
        found = _polish_on(columns, signs, S, tol)
        if found is not None:
            full = np.zeros_like(alpha)
            full[S] = found[0]
            return full, found[1], found[2]
    return None


@fill_doc(
    kernel_parameters=kernel_parameters("linear"),
    fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES,
)
class HardMarginSVC(ClassifierMixin, _BaseSVM):
    """The notes' hard-margin SVM, with a kernel and the normalised output.

    Notes A §1.1 (UML eq. 15.2) and notes B §5.1: on data with labels
    ``y_i in {-1, +1}`` that a hyperplane separates, solve

        (w0, b0) = argmin ½‖w‖²  subject to  y_i(<w, phi(x_i)> + b) >= 1 for all i

    with ``phi`` the feature map of the kernel (identity for "linear"), and
    return the normalised output: the decision function is
    ``(<w0, phi(x)> + b0)/‖w0‖``, the signed distance to the separating
    hyperplane in feature space, and its minimum over the training set is
    the margin ``margin_ = 1/‖w0‖``. For the linear kernel
    ``coef_ = w0/‖w0‖`` and ``intercept_ = b0/‖w0‖``. The problem is solved
    in its dual (notes A §1.4-1.5: the kernel trick applies to it),

        max_a  sum_i a_i - ½ sum_ij a_i a_j y_i y_j k(x_i, x_j)
        s.t.   sum_i a_i y_i = 0,   a_i >= 0,

    with ``w0 = sum_i a_i y_i phi(x_i)`` and ``‖w0‖² = a'Qa = sum_i a_i``.
    Data that the kernel does not separate are refused, and only two classes
    are accepted.

    Parameters
    ----------
    <kernel_parameters>
    tol : float, default=1e-8
        Feasibility tolerance of the solution, on the constraints
        ``y_i f(x_i) >= 1`` (in the units where the margin is 1) and on
        ``a >= 0``; constraints within ``max(100 tol, 1e-9)`` of equality
        count as active in ``support_``.
    max_iter : int, default=-1
        SMO iterations; -1 is libsvm's cap of ``max(1e7, 100 n)``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Class labels; ``classes_[1]`` is the positive class.
    coef_ : {ndarray, sparse matrix} of shape (1, n_features)
        The unit normal ``w0/‖w0‖`` of the separating hyperplane (linear
        kernel only; other kernels raise ``AttributeError``, as SVC).
    intercept_ : ndarray of shape (1,)
        ``b0/‖w0‖``.
    dual_coef_ : {ndarray, sparse matrix} of shape (1, n_SV)
        ``a_i y_i / ‖w0‖`` of the support vectors: the decision function is
        ``sum_i dual_coef_[0, i] k(sv_i, x) + intercept_``. Normalised like
        ``intercept_``, so these are SVC's dual coefficients divided by
        ``‖w0‖``.
    margin_ : float
        ``1/‖w0‖``, the smallest distance of a training point to the
        hyperplane in feature space (the notes' D1 convention).
    margin_width_ : float
        ``2/‖w0‖``, the width of the slab between the two supporting
        hyperplanes ``<w0, phi(x)> + b0 = ±1`` (the notes' D3 convention).
    support_ : ndarray of shape (n_SV,)
        Indices of the training points on the margin (active constraints),
        sorted. A point on the margin whose ``a_i`` is zero (a degenerate
        case, e.g. more than ``d + 1`` points on a linear margin) is listed,
        with a zero dual coefficient.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty for a precomputed kernel).
    n_iter_ : int
        SMO iterations (summed over the runs of the tolerance schedule).
    shape_fit_ : tuple of int
        Shape of the training X.
    <fitted_feature_attributes>

    See Also
    --------
    LinearSVC : The soft-margin linear SVM, for data that are not separable.
    SVC : The soft-margin kernel SVM; ``SVC(C=np.inf)`` is this dual without
        the separability proof and the normalisation.
    sklearn.svm.SVC : ``SVC(C=1e10)`` approaches this model.

    Notes
    -----
    The fit has three steps. (1) A linear programme (HiGHS) decides
    separability exactly: linear kernel, find ``(w, b)`` with
    ``y_i(<w, x_i> + b) >= 1``; other kernels, find ``(beta, b)`` with
    ``y_i(sum_j beta_j K_ij + b) >= 1``, feasible iff the classes are
    separable in the feature space of the Gram matrix ``K`` (representer
    theorem). That LP is solved in the equivalent, smaller form on kernel-PCA
    coordinates ``L`` (``K = L L'``, ``rank K`` columns), which stays well
    posed when ``K`` is singular; a ``K`` of full rank (rbf on distinct
    points) is separable outright. Infeasible raises ``ValueError``; without
    this proof SMO would run to its iteration cap on an unbounded dual.
    (2) SMO (libsvm's algorithm, shared with :class:`SVC`) solves the dual
    with ``C = inf`` to a loose KKT tolerance (0.1), enough to find the
    support set. (3) The KKT system on the support set, ``y_i f(x_i) = 1``
    and ``sum a_i y_i = 0``, is solved exactly in float64 and kept when
    ``a >= 0`` and every constraint holds within ``tol`` (these conditions
    prove it optimal); otherwise SMO runs again at 1e-3, then 1e-6.

    The linear kernel works on the centred data divided by its largest row
    norm, which changes neither separability nor the normalised solution
    but makes the tolerances scale-free; its LP has ``d + 1`` variables and
    SMO computes kernel rows on the fly. Other kernels build the ``n x n``
    Gram matrix once (O(n² d) time, O(n²) memory) and factor it (O(n³)) for
    the LP: they suit a few thousand samples. With "rbf" and distinct points
    the Gram matrix is positive definite, so any labelling is separable,
    though a small ``gamma`` makes it ill-conditioned (eigenvalues at
    rounding level count as zero, and such data are refused). A Gram matrix
    that is not positive semi-definite ("sigmoid" in general) has no feature
    space and is refused with ``ValueError``.

    **Margin conventions** (catalogue B §15): notes D1 call ``1/‖w0‖`` the
    margin, D3 call ``2/‖w0‖`` the margin; both are stored. The notes write
    the objective ``‖w‖²`` and the dual for ``½‖w‖²`` (catalogue A §0.1):
    the minimiser is the same.

    References
    ----------
    S. Shalev-Shwartz and S. Ben-David, "Understanding Machine Learning",
    Cambridge University Press, 2014, chapters 15-16.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.svm import HardMarginSVC
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    >>> clf = HardMarginSVC().fit(X, [1, -1])
    >>> # The perpendicular bisector: w = (1, 0), b = 0, margin 1 (compared
    >>> # with a tolerance: b is a rounding error of either sign).
    >>> bool(np.allclose(clf.coef_, [[1.0, 0.0]]) and abs(clf.intercept_[0]) < 1e-9)
    True
    >>> round(clf.margin_, 6)
    1.0
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])  # XOR
    >>> HardMarginSVC(kernel="rbf", gamma=1.0).fit(X, [0, 0, 1, 1]).predict(X)
    array([0, 0, 1, 1])
    """

    _parameter_constraints = {
        "kernel": _BaseSVM._parameter_constraints["kernel"],
        "degree": _BaseSVM._parameter_constraints["degree"],
        "gamma": _BaseSVM._parameter_constraints["gamma"],
        "coef0": _BaseSVM._parameter_constraints["coef0"],
        "tol": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
    }

    # CSR/CSC input (issue 20): the kernels read it as SVC does; the linear
    # kernel's separability LP is dense, so it centres a dense copy of X.
    _accepts_sparse = True

    def __init__(self, *, kernel="linear", degree=3, gamma="scale", coef0=0.0,
                 tol=1e-8, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        """Find the maximum-margin separating hyperplane in feature space.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or (n_samples, n_samples)
            Training data, separable by class with the kernel; for
            ``kernel="precomputed"`` the Gram matrix.
        y : array-like of shape (n_samples,)
            Two classes (any labels).

        Returns
        -------
        self : HardMarginSVC
            The fitted estimator.

        Raises
        ------
        ValueError
            If ``y`` has more than two classes, or if the kernel does not
            separate the two classes.
        """
        validate_params(self)
        X, y = self._validate_fit_data(X, y)
        self.classes_, y_enc = encode_labels(y)
        if len(self.classes_) > 2:
            raise ValueError(
                "Only binary classification is supported: HardMarginSVC found "
                f"{len(self.classes_)} classes in y. Use skml.svm.LinearSVC "
                "(one-vs-rest) or wrap it in sklearn.multiclass.OneVsRestClassifier."
            )
        signs = np.where(y_enc == 1, 1.0, -1.0)
        n = X.shape[0]
        # Linear: centred and scaled here (w and b converted back below);
        # other kernels: the shared coordinates of _set_geometry.
        self._set_geometry(X, shift_linear=False)
        linear = self.kernel == "linear"
        if linear:
            X_dense = X.toarray() if sp.issparse(X) else X
            center = X_dense.mean(axis=0)
            A = X_dense - center
            # Largest |a| first, so that the norms of X * 1e300 do not overflow.
            step = np.max(np.abs(A), initial=0.0)
            if not np.isfinite(step):
                raise ValueError(
                    "X's values span more than float64 can represent once centred; "
                    "rescale X, e.g. with StandardScaler."
                )
            step = step if step > 0 else 1.0
            scale = step * np.sqrt(np.max(np.einsum("ij,ij->i", A / step, A / step)))
            scale = scale if scale > 0 else 1.0
            A /= scale

            def columns(S):
                return A @ A[S].T
        else:
            # Provisionally every point is a support vector, so the shared
            # test-kernel code builds the Gram matrix (any kernel, callables).
            self._store_support(X, np.arange(n))
            A = self._kernel_block(X)
            if A.shape != (n, n):
                raise ValueError(
                    f"The kernel callable returned shape {A.shape}; "
                    f"expected ({n}, {n})."
                )

            def columns(S):
                return A[:, S]

        # Identical points with opposite labels have one feature vector under
        # any kernel: no hyperplane separates them. Said exactly here, the
        # LP below would meet them as rows equal to rounding only (after the
        # kernel PCA), where its feasibility tolerance can decide either way.
        clash = _identical_points_disagree(X, signs)
        F = A if linear or clash else _gram_features(A, self.kernel)
        if clash or not _separable(F, signs, linear):
            where = (
                "" if linear else f" in the feature space of the {self.kernel!r} kernel"
            )
            raise ValueError(
                "The data are not linearly separable" + where
                + ": no hyperplane puts the two classes on different sides, so the "
                "hard-margin SVM has no solution. Use LinearSVC or SVC (soft margin) "
                + ("or a kernel." if linear else "or another kernel.")
            )

        self.n_iter_ = 0
        for smo_tol in _SMO_TOLS:
            alpha, rho, _, n_iter, status, _ = smo_dual(
                A, signs, -1.0, np.inf, kernel="linear" if linear else "precomputed",
                tol=smo_tol, max_iter=self.max_iter,
            )
            self.n_iter_ += int(n_iter)
            polished = _polish(columns, signs, alpha, -rho, self.tol)
            if polished is not None or status:
                break
        if polished is not None:
            alpha, b, margins = polished
        else:
            # SMO's own solution, feasible to its KKT tolerance only
            warnings.warn(
                "The hard-margin solution could not be polished to tol="
                f"{self.tol:g}" + (f" (SMO stopped at max_iter={self.max_iter})"
                                   if status else "")
                + "; its constraints hold only approximately.", ConvergenceWarning,
            )
            b = -rho
            margins = signs * (columns(np.arange(n)) @ (alpha * signs) + b)

        # Active constraints (all points on the margin), as sorted indices.
        support = np.flatnonzero(
            (alpha > 0) | (margins <= 1.0 + max(100 * self.tol, 1e-9))
        )
        coef = alpha[support] * signs[support]
        w_norm = np.sqrt(coef @ columns(support)[support] @ coef)  # ‖w‖² = a'Qa
        self._store_support(X, support)
        if linear:
            # Back to the original units: w0 = w_s/scale, b0 = b_s - <w0, center>,
            # alpha_0 = alpha_s/scale² (sum a_i y_i = 0 absorbs the centring).
            w_s = A[support].T @ coef
            unit = w_s / w_norm
            margin = scale / w_norm
            intercept = (b * scale - w_s @ center) / w_norm
            dual = coef / (scale * w_norm)
        else:
            margin = 1.0 / w_norm
            intercept = b / w_norm
            dual = coef / w_norm
        self.dual_coef_ = self._public_dual(dual[None, :])
        self.intercept_ = np.array([intercept])
        self.margin_ = float(margin)
        self.margin_width_ = 2.0 * self.margin_
        self._set_decision_weights(dual[:, None], self.intercept_)
        if linear:
            # The unit normal computed in centred units: sum_i dual_i x_i in the
            # original ones would cancel large offsets of X.
            self._W_primal = unit[:, None]
        return self

    @fill_doc(predict_doc=predict_doc("scores : ndarray of shape (n_samples,)"))
    def decision_function(self, X):
        """Signed distances to the separating hyperplane in feature space.

        <predict_doc>
            ``(<w0, phi(x)> + b0)/‖w0‖``; positive means ``classes_[1]``.
        """
        check_is_fitted(self)
        X = self._validate_test_data(X)
        return self._decision_values(X).ravel()

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """The side of the hyperplane each sample lies on.

        <predict_doc>
            ``classes_[1]`` where the decision function is positive.
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
