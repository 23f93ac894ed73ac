"""Linear soft-margin SVM (notes A §1.2-1.3, notes B §5.4-5.6): dual CD and Pegasos."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..linear_model._base import LinearClassifierMixin, class_weights_from_dict
from ..utils._blas import blas_threads_for
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils._csr_rows import as_rows, row_sq_norms
from ..utils import Interval, Options, check_sample_weight, encode_labels, validate_params
from . import _linear_svc_kernels as K
from ._l1_svc_kernels import l1_squared_hinge_cd
from ..utils.validation import validate_data

__all__ = ["LinearSVC", "linear_svc_objective"]

_LOSSES = {"hinge": K.HINGE, "squared_hinge": K.SQUARED_HINGE}
_MAX_SEED = np.iinfo(np.int32).max
_N_ITER_NO_CHANGE = 5
def linear_svc_objective(coef, intercept, X, y, C=1.0, *, loss="squared_hinge",
                         intercept_scaling=1.0, sample_weight=None):
    """Primal objective of a binary linear SVM, as minimised by :class:`LinearSVC`.

    ``½(‖w‖² + (b/s)²) + C Σ_i sample_weight_i ℓ(y_i (<w, x_i> + b))`` with
    ``s = intercept_scaling`` (the intercept is the weight of a constant
    feature ``s``, hence penalised as ``(b/s)²``; pass ``intercept=0`` for a
    model without intercept).

    Parameters
    ----------
    coef : array-like of shape (n_features,)
    intercept : float
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), values in {-1, +1}
    C : float, default=1.0
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
    intercept_scaling : float, default=1.0
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    value : float
    """
    coef = np.ravel(coef)
    intercept = float(np.ravel(intercept)[0]) if np.ndim(intercept) else float(intercept)
    margins = np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ coef + intercept)
    slack = np.maximum(0.0, 1.0 - margins)
    losses = slack if loss == "hinge" else slack**2
    sw = np.ones_like(losses) if sample_weight is None else np.asarray(sample_weight)
    penalty = coef @ coef + (intercept / intercept_scaling) ** 2
    return 0.5 * penalty + C * float(sw @ losses)


def _offset_coordinates(X, bias_scale):
    """Well-conditioned coordinates for data far from the origin, or None.

    With ``x̃ = (x, s)`` and the weights ``v = (w, b/s)``, data around a mean
    ``m`` large against their spread (``X + 1e8``) make ``Σ x̃ x̃ᵀ`` nearly
    rank one along ``a = (m, s)``: Newton's system has condition ~(‖m‖ /
    spread)² and its solution is noise. Write ``v = Q ρ + (τ/‖a‖) â``, ``Q``
    an orthonormal basis of ``a``'s complement: then ``<x̃, v>`` is
    ``<Qᵀ(x − m, 0), ρ> + τ (1 + <(x − m, 0), â>/‖a‖)`` (features of the
    data's own spread, and a near-constant one) and ``‖v‖²`` is
    ``‖ρ‖² + τ²/‖a‖²``: the same problem, well conditioned.

    Returns the features, the last (bias) column, the diagonal penalty and
    the map from ``(ρ, τ)`` back to ``v``.
    """
    if bias_scale == 0.0 or sp.issparse(X):
        # Sparse X stays uncentred (centring would densify it).
        return None
    m = X.mean(axis=0)
    Xc = X - m
    spread = float(np.max(np.abs(Xc), initial=0.0))
    a = np.append(m, bias_scale)
    norm_a = float(np.linalg.norm(a))
    # Ordinary data (‖m‖ within a hundred spreads) keep the plain solver.
    if norm_a <= 100.0 * max(spread, bias_scale):
        return None
    a_hat = a / norm_a
    Q = np.linalg.qr(np.column_stack([a_hat, np.eye(len(a))]))[0][:, 1:len(a)]
    F = Xc @ Q[:-1]  # (x − m, 0) in the complement's basis
    bias = 1.0 + (Xc @ a_hat[:-1]) / norm_a
    penalty = np.append(np.ones(len(a) - 1), 1.0 / norm_a**2)

    def back(theta):
        return Q @ theta[:-1] + (theta[-1] / norm_a) * a_hat

    return np.ascontiguousarray(F), bias, penalty, back


def _csc_with_bias(X, bias_scale):
    """``X̃ = [X, s]`` as CSC arrays (int64 indices) for the L1 coordinate descent.

    The zeros of dense ``X`` are dropped: a column step visits its nonzeros only.
    """
    Xt = sp.hstack(
        [sp.csc_matrix(X), sp.csc_matrix(np.full((X.shape[0], 1), bias_scale))],
        format="csc",
    )
    Xt.sum_duplicates()
    Xt.eliminate_zeros()
    return sp.csc_matrix(
        (Xt.data.astype(np.float64), Xt.indices.astype(np.int64),
         Xt.indptr.astype(np.int64)), shape=Xt.shape,
    )


def _row_sq_norms(X):
    """``‖x_i‖²`` of every row, dense or sparse (O(nnz), no copy of X)."""
    if sp.issparse(X):
        return row_sq_norms(as_rows(X))
    return np.einsum("ij,ij->i", X, X)


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class LinearSVC(LinearClassifierMixin, BaseEstimator):
    """Linear support vector classifier: the notes' soft-margin SVM primal.

    Minimises the soft-margin SVM objective (notes A §1.2-1.3, notes B §5.4,
    §5.6) over ``w`` and ``b``,

        ½(‖w‖² + (b/s)²) + C Σ_i c_i ℓ(y_i(<w, x_i> + b)),

    with ``y_i in {-1, +1}``, ``ℓ(t) = max(0, 1 − t)`` (hinge) or its square,
    ``c_i`` the product of the sample and class weights and ``s`` the
    ``intercept_scaling``. Two solvers reach the same minimiser: the dual
    coordinate descent of liblinear (Hsieh et al. 2008), the finite Newton
    method on the primal (squared hinge only; Keerthi and DeCoste 2005), and
    Pegasos, the notes' stochastic sub-gradient descent on the λ-form of the
    same objective (notes B §5.6). More than two classes: one binary SVM per
    class against the rest, predicting the arg-max of the scores, or the
    joint Crammer-Singer SVM of notes B §5.11 (``multi_class="crammer_singer"``).

    Parameters
    ----------
    penalty : {"l1", "l2"}, default="l2"
        "l2": the notes' ``½‖w‖²``. "l1": ``‖w‖₁`` (sparse weights), with the
        squared hinge on the primal only (``dual=False`` or "auto"), solved by
        coordinate descent (CDN, Yuan et al. 2010, liblinear's ``-s 5``; see
        ``_l1_svc_kernels.py``); the intercept is then penalised as ``|b/s|``.
        Other combinations raise scikit-learn's "Unsupported set of
        arguments" ``ValueError``.
    loss : {"hinge", "squared_hinge"}, default="squared_hinge"
        The margin loss ``ℓ``; "hinge" is the notes' soft-margin SVM.
    tol : float, default=1e-4
        Dual CD: stop when the spread of the projected gradient (max − min)
        is at most ``tol`` (liblinear's rule). Newton: stop when the gradient
        norm has fallen by the factor ``tol``. Pegasos: stop after 5 epochs
        without a relative gain of ``tol`` in the primal objective.
    C : float, default=1.0
        Weight of the loss against ``½‖w‖²``; the notes' ``λ`` is
        ``1/(2 C n)`` (see Notes).
    fit_intercept : bool, default=True
        Learn ``b``, as the weight of an extra constant feature of value
        ``intercept_scaling`` (so ``b`` is penalised, like in liblinear).
    intercept_scaling : float, default=1.0
        Value of that constant feature; a larger value penalises ``b`` less.
    class_weight : dict, "balanced" or None, default=None
        Multiply ``C`` for the samples of each class (one-vs-rest: for the
        positive class of each binary problem, the rest keep weight 1).
    verbose : int, default=0
        Print one line per binary problem (Pegasos: per epoch when > 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the order in which the samples are visited.
    max_iter : int, default=1000
        Dual CD: outer iterations (passes over the active samples). Pegasos:
        epochs of ``n_samples`` steps.
    solver : {"auto", "dual_cd", "newton", "pegasos"}, default="auto"
        The optimiser. "newton" (squared hinge only) is the primal finite
        Newton method; "auto" picks it for the squared hinge when there are
        more samples than features (as scikit-learn's ``dual="auto"``), and
        "dual_cd" otherwise.
    dual : "auto" or bool, default="auto"
        scikit-learn's switch between the dual and primal problems, read when
        ``solver="auto"``: True is "dual_cd", False the primal "newton"
        (squared hinge only, as liblinear's primal), "auto" the rule above.
        Both problems have the same minimiser, so only the time differs. An
        explicit ``solver`` that contradicts it is an error.
    average : bool, default=True
        Pegasos only: return the polynomial-decay average of the iterates
        rather than the last one.
    projection : bool, default=True
        Pegasos only: project every iterate on the ball that holds the
        minimiser, ``‖w‖ ≤ sqrt(2 mean(c) / λ_P)``.
    n_jobs : int, default=None
        Threads for the one-vs-rest problems (the kernels release the GIL).
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": one binary SVM per class against the rest. "crammer_singer":
        the joint multi-class SVM of notes B §5.11 ("joint optimisation", all
        classes' ``(w_k, b_k)`` on one scale), ``min ½ Σ_k ‖w̃_k‖² + C Σ_i
        c_i max_k (1 − δ(y_i, k) + <w̃_k − w̃_{y_i}, x̃_i>)``, solved by exact
        block coordinate descent on its dual (Keerthi et al. 2008, as
        liblinear); ``loss``, ``solver``, ``average`` and ``projection`` are
        then unused. ``dual_coef_`` is then the ``(n_classes, n_samples)``
        block ``α`` with ``w̃_k = Σ_i α_ik x̃_i``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights ``w`` (one row per class for more than two classes).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts ``b`` (zero without ``fit_intercept``).
    n_iter_ : int
        Iterations (dual CD) or epochs (Pegasos) run, the largest over the
        binary problems.
    dual_coef_ : ndarray of shape (1, n_samples) or (n_classes, n_samples)
        Dual CD only: the ``α_i`` of each binary problem (not multiplied by
        ``y_i``), with ``coef_ = Σ α_i y_i x_i``.
    <fitted_feature_attributes>

    See Also
    --------
    HardMarginSVC : The notes' hard-margin SVM on separable data.
    sklearn.svm.LinearSVC : The liblinear reference.

    Notes
    -----
    **Dual coordinate descent.** With ``x̃_i = (x_i, s)``, the dual is
    ``min_α ½ αᵀ(Q + D)α − Σ α_i`` over ``0 ≤ α_i ≤ U_i``, where
    ``Q_ij = y_i y_j <x̃_i, x̃_j>``; the hinge has ``U_i = C c_i`` and ``D = 0``,
    the squared hinge ``U_i = ∞`` and ``D_ii = 1/(2 C c_i)``. Keeping
    ``w = Σ α_i y_i x̃_i`` makes one coordinate update cost ``O(d)``, so an
    outer iteration costs ``O(n d)`` time and the solver ``O(n + d)`` memory.
    Bound variables whose gradient points outwards are shrunk (skipped)
    until the reduced problem converges, as in liblinear. Samples of zero
    weight are left out, so a zero weight equals removing the sample.

    **Newton.** The squared-hinge primal is piecewise quadratic; with ``I``
    the samples of margin below 1, its gradient is
    ``w − 2 Σ_I C c_i (1 − m_i) y_i x̃_i`` and its generalised Hessian
    ``I + 2 Σ_I C c_i x̃_i x̃_iᵀ``. Each step costs ``O(n d²)`` time and
    ``O(n d + d²)`` memory and is damped by backtracking; when ``n >> d`` a
    handful of steps reach the exact minimiser.

    **Pegasos.** Dividing the objective by ``C n`` gives the λ-form of the
    notes, ``λ‖w‖² + (1/n) Σ c_i ℓ_i`` with ``λ = 1/(2 C n)`` (notes A §1.2;
    catalogue B §0.1: ``C = 1/(2 λ n)``). Pegasos writes it
    ``λ_P/2 ‖w‖² + ...`` with ``λ_P = 2λ = 1/(C n)``, the strong-convexity
    modulus, and steps ``η_t = 1/(λ_P t)``. Each epoch costs ``O(n d)``;
    the error after ``T`` steps decreases like ``log(T)/(λ_P T)``, so
    Pegasos is slow for large ``C``. For the squared hinge (not Lipschitz)
    the clock starts at ``t0 = c_max R² / λ_P``, ``R`` the largest
    ``‖x̃_i‖``, so that the first step is not orders of magnitude too long.

    **Sparse input** (CSR; other formats are converted) is never densified:
    dual CD and Pegasos read each row's stored entries, so a dual update costs
    ``O(nnz(x_i))`` and memory stays ``O(nnz + d)``; Newton forms its dense
    ``(d + 1)²`` Hessian, so "auto" picks dual CD for sparse data. Dense and
    sparse fits of the same data give the same model to rounding.

    **The intercept is penalised** through ``intercept_scaling``, as in
    scikit-learn's LinearSVC (notes D1's padding), unlike the notes' D3/D4
    form, where ``b`` is free; a large ``intercept_scaling`` approaches it.

    References
    ----------
    C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan,
    "A dual coordinate descent method for large-scale linear SVM", ICML 2008.
    G.-X. Yuan, K.-W. Chang, C.-J. Hsieh and C.-J. Lin, "A comparison of
    optimization methods and software for large-scale L1-regularized linear
    classification", JMLR 11, 2010.
    S. S. Keerthi and D. DeCoste, "A modified finite Newton method for fast
    solution of large scale linear SVMs", JMLR 6, 2005.
    S. Shalev-Shwartz, Y. Singer, N. Srebro and A. Cotter, "Pegasos: primal
    estimated sub-gradient solver for SVM", Mathematical Programming, 2011.
    K. Crammer and Y. Singer, "On the algorithmic implementation of
    multiclass kernel-based vector machines", JMLR 2, 2001.
    S. S. Keerthi, S. Sundararajan, K.-W. Chang, C.-J. Hsieh and C.-J. Lin,
    "A sequential dual method for large scale multi-class linear SVMs",
    KDD 2008.
    O. Shamir and T. Zhang, "Stochastic gradient descent for non-smooth
    optimization: convergence results and optimal averaging schemes", 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.svm import LinearSVC
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = LinearSVC(random_state=0).fit(X, y)
    >>> clf.predict([[-1.5, -1.0], [1.5, 1.0]])
    array([0, 1])
    """

    _parameter_constraints = {
        "penalty": [Options({"l1", "l2"})],
        "loss": [Options(set(_LOSSES))],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "class_weight": [dict, Options({"balanced"}), None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "solver": [Options({"auto", "dual_cd", "newton", "pegasos"})],
        "dual": [Options({"auto"}), "boolean"],
        "average": ["boolean"],
        "projection": ["boolean"],
        "n_jobs": [Integral, None],
        "multi_class": [Options({"ovr", "crammer_singer"})],
    }

    def __init__(
        self,
        penalty="l2",
        loss="squared_hinge",
        *,
        dual="auto",
        tol=1e-4,
        C=1.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        class_weight=None,
        verbose=0,
        random_state=None,
        max_iter=1000,
        solver="auto",
        average=True,
        projection=True,
        n_jobs=None,
        multi_class="ovr",
    ):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.solver = solver
        self.average = average
        self.projection = projection
        self.n_jobs = n_jobs
        self.multi_class = multi_class

    def fit(self, X, y, sample_weight=None):
        """Fit the linear SVM (one binary problem per class beyond two classes).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR, never densified.
        y : array-like of shape (n_samples,)
            Labels (any type).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of ``C``.

        Returns
        -------
        self : LinearSVC
            The fitted estimator.
        """
        validate_params(self)
        self._check_combination()
        solver = self._solver_from_dual()
        if solver == "newton" and self.loss == "hinge":
            raise ValueError(
                "solver='newton' (or dual=False) needs the differentiable "
                "loss='squared_hinge'; use solver='dual_cd' (dual=True) or "
                "'pegasos' for the hinge."
            )
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=np.float64, order="C"
        )
        with np.errstate(over="ignore"):
            sq_norms = _row_sq_norms(X)
        if not np.all(np.isfinite(sq_norms)):
            # C is absolute, so the model of X * 1e300 is not that of X
            # rescaled: refuse instead of iterating on infinities.
            raise ValueError(
                "X's values are too large for float64 in the SVM's inner "
                f"products (|x|² overflows for {int(np.sum(~np.isfinite(sq_norms)))} "
                "rows): rescale X, e.g. with StandardScaler."
            )
        if solver == "auto" and self.penalty == "l1":
            solver = "l1_cd"
        if solver == "auto":
            # Newton's Hessian is (d + 1)²: never the default on sparse data.
            solver = (
                "newton"
                if self.loss == "squared_hinge"
                and X.shape[0] > X.shape[1]
                and not sp.issparse(X)
                else "dual_cd"
            )
        self._solver = solver
        sample_weight = check_sample_weight(sample_weight, X)
        self.classes_, y_enc = encode_labels(y, sample_weight=sample_weight)
        n_classes = len(self.classes_)
        class_weight = self._class_weights(y_enc, sample_weight)
        rng = check_random_state(self.random_state)
        if self.multi_class == "crammer_singer":
            return self._fit_crammer_singer(X, y_enc, sample_weight, class_weight, rng)
        n_rows = 1 if n_classes == 2 else n_classes
        seeds = rng.randint(_MAX_SEED, size=n_rows)
        bias_scale = float(self.intercept_scaling) if self.fit_intercept else 0.0
        if solver == "l1_cd":
            # by columns, with the intercept column s: built once for all classes
            X = _csc_with_bias(X, bias_scale)

        def job(k):
            positive = 1 if n_classes == 2 else k
            y_k = np.where(y_enc == positive, 1.0, -1.0)
            # liblinear's convention: one-vs-rest negatives keep weight 1.
            neg_weight = class_weight[0] if n_classes == 2 else 1.0
            c_k = sample_weight * np.where(y_k > 0, class_weight[positive], neg_weight)
            return self._fit_binary(X, y_k, c_k, bias_scale, int(seeds[k]))

        with blas_threads_for(X.shape[0] * X.shape[1]):
            if n_rows == 1:
                results = [job(0)]
            else:
                results = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                    delayed(job)(k) for k in range(n_rows)
                )
        W = np.array([r[0] for r in results])
        self.coef_ = W[:, :-1].copy()
        self.intercept_ = W[:, -1] * bias_scale
        self.n_iter_ = int(max(r[1] for r in results))
        if solver == "dual_cd":
            self.dual_coef_ = np.array([r[2] for r in results])
        if self.n_iter_ >= self.max_iter:
            warnings.warn(
                "Liblinear failed to converge, increase the number of iterations. "
                f"(LinearSVC, solver {solver!r}, max_iter={self.max_iter}; "
                "scaling the data also helps.)",
                ConvergenceWarning,
            )
        return self

    def _check_combination(self):
        """Refuse scikit-learn's unsupported (penalty, loss, dual) sets, as it does.

        The one-vs-rest problems only: Crammer-Singer ignores all three.
        """
        if self.multi_class == "crammer_singer":
            return
        penalty, loss, dual = self.penalty, self.loss, self.dual
        reason = None
        if penalty == "l1" and loss == "hinge":
            reason = ("the L1 penalty is solved with the squared hinge only "
                      "(loss='squared_hinge')")
        elif penalty == "l1" and dual is True:
            reason = "the L1 penalty is solved on the primal only (dual=False)"
        elif loss == "hinge" and dual is False and self.solver == "auto":
            reason = ("the hinge loss is solved on the dual only (dual=True, or "
                      "solver='pegasos'); dual=False needs loss='squared_hinge'")
        if penalty == "l1" and reason is None and self.solver != "auto":
            reason = ("penalty='l1' has its own coordinate descent solver; "
                      "leave solver='auto'")
        if reason is not None:
            raise ValueError(
                f"Unsupported set of arguments: penalty={penalty!r}, loss={loss!r}, "
                f"dual={dual!r}: {reason}."
            )

    def _solver_from_dual(self):
        """``solver`` with scikit-learn's ``dual`` applied (it only settles "auto")."""
        if self.penalty == "l1":
            return "l1_cd"
        if self.dual == "auto":
            return self.solver
        wanted = "dual_cd" if self.dual else "newton"
        if self.solver == "auto":
            return wanted
        if self.solver in ("dual_cd", "newton") and self.solver != wanted:
            raise ValueError(
                f"dual={self.dual} contradicts solver={self.solver!r}; set one of "
                "them (dual=True is solver='dual_cd', dual=False solver='newton')."
            )
        return self.solver

    def _fit_crammer_singer(self, X, y_enc, sample_weight, class_weight, rng):
        """The joint multi-class SVM of notes B §5.11 (Crammer and Singer).

        ``min ½ Σ_m ‖w̃_m‖² + C Σ_i c_i max_m (1 − δ(y_i, m) + <w̃_m − w̃_{y_i},
        x̃_i>)`` over all the classes' weights at once, by the exact block
        coordinate descent of ``crammer_singer_cd``. ``loss``, ``solver``,
        ``average`` and ``projection`` do not apply (scikit-learn ignores
        ``loss`` too). Two classes: the two weight vectors' difference.
        """
        n_classes = len(self.classes_)
        bias_scale = float(self.intercept_scaling) if self.fit_intercept else 0.0
        c = self.C * sample_weight * class_weight[y_enc]
        keep = c > 0
        X_k = X[keep] if not np.all(keep) else X
        if not sp.issparse(X_k):
            X_k = np.ascontiguousarray(X_k)
        alpha = np.zeros((X_k.shape[0], n_classes))
        W = np.zeros((n_classes, X.shape[1] + 1))
        seed = int(rng.randint(_MAX_SEED))
        with blas_threads_for(X.shape[0] * X.shape[1]):
            n_iter = K.crammer_singer_cd(
                as_rows(X_k), y_enc[keep].astype(np.int64), c[keep], n_classes,
                bias_scale, alpha, W, self.tol, self.max_iter, seed,
            )
        if self.verbose:
            print(f"[LinearSVC crammer_singer] {n_iter} iterations")
        if n_classes == 2:
            W = W[1:] - W[:1]
        self.coef_ = W[:, :-1].copy()
        self.intercept_ = W[:, -1] * bias_scale
        self.n_iter_ = int(n_iter)
        self._solver = "crammer_singer"
        dual = np.zeros((X.shape[0], n_classes))
        dual[keep] = alpha
        self.dual_coef_ = dual.T
        if self.n_iter_ >= self.max_iter:
            warnings.warn(
                f"LinearSVC (crammer_singer) reached max_iter={self.max_iter} "
                "before convergence; increase max_iter, or scale the data.",
                ConvergenceWarning,
            )
        return self

    def _class_weights(self, y_enc, sample_weight):
        n_classes = len(self.classes_)
        if self.class_weight is None:
            return np.ones(n_classes)
        if self.class_weight == "balanced":
            return compute_class_weight(
                "balanced", classes=np.arange(n_classes), y=y_enc,
                sample_weight=sample_weight,
            )
        return class_weights_from_dict(self.class_weight, self.classes_)

    def _fit_binary(self, X, y, c, bias_scale, seed):
        """Solve one binary problem; return ``(w with its bias coordinate, n_iter, alpha)``."""
        loss = _LOSSES[self.loss]
        if self._solver == "l1_cd":
            # X is the CSC X̃ of _csc_with_bias; a zero c_i drops sample i
            w = np.zeros(X.shape[1])
            indices = X.indices.astype(np.int64)
            n_iter = l1_squared_hinge_cd(
                X.data * y[indices], indices, X.indptr.astype(np.int64),
                self.C * c, w, self.tol, self.max_iter, seed,
            )
            if self.verbose:
                print(f"[LinearSVC l1_cd] {n_iter} iterations, "
                      f"{np.count_nonzero(w[:-1])} nonzero weights")
            return w, n_iter, None
        n_samples, n_features = X.shape
        keep = c > 0
        if not np.all(keep):
            # A zero C_i removes sample i from the primal; leaving it out of
            # the dual keeps D_ii = 1/(2 C_i) finite.
            X, y, c = X[keep], y[keep], c[keep]
            if not sp.issparse(X):
                X = np.ascontiguousarray(X)
        w = np.zeros(n_features + 1)
        if self._solver == "newton":
            w, n_iter = self._newton(X, y, c, bias_scale, w)
            return w, n_iter, None
        if self._solver == "dual_cd":
            alpha = np.zeros(X.shape[0])
            n_iter = K.dual_cd(
                as_rows(X), y, self.C * c, loss, bias_scale, alpha, w, self.tol,
                self.max_iter, seed,
            )
            alpha_full = np.zeros(n_samples)
            alpha_full[keep] = alpha
            if self.verbose:
                print(f"[LinearSVC dual_cd] {n_iter} iterations, "
                      f"{np.count_nonzero(alpha)} support vectors")
            return w, n_iter, alpha_full
        w, n_iter = self._pegasos(X, y, c, loss, bias_scale, w, seed, n_samples)
        return w, n_iter, None

    def _newton(self, X, y, c, bias_scale, w):
        """Finite Newton method on the squared-hinge primal (Keerthi and DeCoste).

        ``P`` is piecewise quadratic with gradient ``w − 2 X̃ᵀ_I C_I (1 − m_I) y_I``
        and generalised Hessian ``I + 2 X̃ᵀ_I C_I X̃_I`` over the samples ``I``
        with margin ``m_i < 1``; each step solves the (d + 1)-square Newton
        system and backtracks (Armijo) if needed. Data far from the origin
        are solved in the coordinates of ``_offset_coordinates``.
        """
        moved = _offset_coordinates(X, bias_scale)
        if moved is None:
            return self._newton_in(X, bias_scale, np.ones(len(w)), y, c, w)
        F, bias, penalty, back = moved
        theta, n_iter = self._newton_in(F, bias, penalty, y, c, np.zeros(len(w)))
        return back(theta), n_iter

    def _newton_in(self, X, bias_scale, penalty, y, c, w):
        """Newton on ``½ vᵀ diag(penalty) v + Σ C c_i ℓ(y_i (X v[:-1] + bias v[-1]))``.

        ``bias_scale`` is the last feature: a constant or one value per row.
        """
        C = self.C * c
        n_features = X.shape[1]
        constant_bias = np.ndim(bias_scale) == 0

        def margins_of(v):
            return y * (X @ v[:-1] + v[-1] * bias_scale)

        def objective(m, v):
            slack = np.maximum(0.0, 1.0 - m)
            return 0.5 * (v @ (penalty * v)) + C @ (slack * slack)

        m = margins_of(w)
        value = objective(m, w)
        g0_norm = None
        n_iter = 0
        while n_iter < self.max_iter:
            act = m < 1.0
            coef = 2.0 * C[act] * (1.0 - m[act]) * y[act]
            Xa = X[act]
            bias_a = bias_scale if constant_bias else bias_scale[act]
            grad = penalty * w
            grad[:-1] -= Xa.T @ coef
            grad[-1] -= np.sum(bias_a * coef)
            g_norm = np.linalg.norm(grad)
            if g0_norm is None:
                g0_norm = g_norm
            if g_norm <= self.tol * g0_norm or g_norm == 0.0:
                break
            h = 2.0 * C[act]
            H = np.diag(penalty)
            if sp.issparse(Xa):
                XaH = sp.diags(h) @ Xa
                H[:-1, :-1] += (Xa.T @ XaH).toarray()
            else:
                XaH = Xa * h[:, None]
                H[:-1, :-1] += Xa.T @ XaH
            if constant_bias:
                H[:-1, -1] += bias_scale * np.asarray(XaH.sum(axis=0)).ravel()
            else:
                H[:-1, -1] += XaH.T @ bias_a
            H[-1, :-1] = H[:-1, -1]
            H[-1, -1] += np.sum(bias_a**2 * h)
            # H is (n_features + 1)^2 and SPD; numpy's LU is exact enough and far
            # cheaper per call than scipy's solve on these small systems.
            step = -np.linalg.solve(H, grad)
            slope = grad @ step
            t = 1.0
            while True:
                w_new = w + t * step
                m_new = margins_of(w_new)
                value_new = objective(m_new, w_new)
                if value_new <= value + 1e-4 * t * slope or t < 1e-10:
                    break
                t *= 0.5
            n_iter += 1
            w, m, value = w_new, m_new, value_new
            if self.verbose > 1:
                print(f"[LinearSVC newton] iteration {n_iter}: objective {value:.10g}")
        if self.verbose:
            print(f"[LinearSVC newton] {n_iter} iterations")
        return w, n_iter

    def _pegasos(self, X, y, c, loss, bias_scale, w, seed, n_samples):
        # The primal divided by C n: λ_P/2 ‖w‖² + (1/n) Σ c_i ℓ_i.
        lam = 1.0 / (self.C * n_samples)
        # Weights of removed (zero) samples still count in the mean over n.
        mean_c = c.sum() / n_samples
        radius = np.sqrt(2.0 * mean_c / lam) if self.projection else np.inf
        t0 = 0.0
        if loss == K.SQUARED_HINGE:
            # The squared hinge is not Lipschitz: Pegasos' first steps
            # 1/(λ t) overshoot by orders of magnitude. Starting the clock at
            # t0 caps the first step at 1/(c_max R²), about 2/L for the
            # smoothness L = 2 c_max R² of one sample's loss.
            r2 = np.max(_row_sq_norms(X), initial=0.0) + bias_scale**2
            t0 = c.max() * r2 / lam
        w_avg = np.zeros_like(w)
        seeds = np.random.RandomState(seed).randint(_MAX_SEED, size=self.max_iter)
        t, best, stall, n_iter = 0, np.inf, 0, 0
        rows = as_rows(X)
        rule = K.PegasosRule(int(loss), float(bias_scale), float(t0), float(lam),
                             float(radius), bool(self.average))
        while n_iter < self.max_iter:
            t = K.pegasos_epoch(rows, y, c, rule, w, w_avg, t, seeds[n_iter])
            n_iter += 1
            w_out = w_avg if self.average else w
            margins = y * (X @ w_out[:-1] + w_out[-1] * bias_scale)
            slack = np.maximum(0.0, 1.0 - margins)
            losses = slack if loss == K.HINGE else slack * slack
            value = 0.5 * lam * (w_out @ w_out) + (c @ losses) / n_samples
            if self.verbose > 1:
                print(f"[LinearSVC pegasos] epoch {n_iter}: objective/(C n) {value:.6g}")
            # Stochastic steps make the objective noisy: stop after
            # _N_ITER_NO_CHANGE epochs without a relative gain of tol.
            if value < best - self.tol * abs(best if np.isfinite(best) else value):
                stall = 0
            else:
                stall += 1
                if stall >= _N_ITER_NO_CHANGE:
                    break
            best = min(best, value)
        if self.verbose:
            print(f"[LinearSVC pegasos] {n_iter} epochs, {t} steps")
        return (w_avg if self.average else w).copy(), n_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
