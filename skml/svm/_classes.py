"""Kernel SVMs trained by SMO: SVC (notes B §5.5-5.11) and SVR (§5.12)."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)

from skml.utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc

from ._base import (
    _BaseSVM,
    fit_doc,
    kernel_parameters,
    libsvm_sample_weight,
    predict_doc,
)
from ._platt import couple_pairwise, cross_val_decision, fit_sigmoid, predict_sigmoid

__all__ = ["SVC", "SVR", "kkt_violations"]


def _ovr_decision_function(predictions, confidences, n_classes):
    """One-vs-rest scores from one-vs-one votes, as libsvm/scikit-learn.

    Each class gets its number of pairwise wins plus the sum of its pairwise
    confidences squashed into (-1/3, 1/3), so ties in votes are broken by
    confidence without ever overturning a vote count.
    """
    n_samples = predictions.shape[0]
    votes = np.zeros((n_samples, n_classes))
    confidence = np.zeros((n_samples, n_classes))
    k = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            confidence[:, a] -= confidences[:, k]
            confidence[:, b] += confidences[:, k]
            votes[predictions[:, k] == 0, a] += 1
            votes[predictions[:, k] == 1, b] += 1
            k += 1
    return votes + confidence / (3 * (np.abs(confidence) + 1))


def _warn_prob_attribute(name):
    """scikit-learn 1.9 deprecates ``probA_``/``probB_`` with ``probability``."""
    warnings.warn(
        f"Attribute `{name}` was deprecated in version 1.9 and will be removed in "
        "1.11, with SVC's `probability` parameter (as in scikit-learn).",
        FutureWarning,
    )


@fill_doc(
    kernel_parameters=kernel_parameters("rbf"),
    fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES,
)
class SVC(ClassifierMixin, _BaseSVM):
    """C-support vector classifier with a kernel, trained by SMO.

    The soft-margin dual of notes B §5.5 with the kernel of §5.9,

        max_a  sum_i a_i - 1/2 sum_ij a_i a_j y_i y_j k(x_i, x_j)
        s.t.   sum_i a_i y_i = 0,   0 <= a_i <= C_i,

    solved by SMO (notes B §5.7) as libsvm does: the pair of variables is
    chosen by the second-order working-set selection of Fan, Chen and Lin
    (2005), the two-variable problem is solved in closed form and clipped to
    the box, kernel rows are kept in an LRU cache of ``cache_size`` MB, and
    variables stuck at a bound are shrunk away. The fit stops when the maximal
    KKT violation ``m(a) - M(a)`` is at most ``tol``. The decision function is
    ``f(x) = sum_i a_i y_i k(x_i, x) + b`` with ``b`` the mean of
    ``y_i - sum_j a_j y_j k(x_j, x_i)`` over the free support vectors
    (``0 < a_i < C_i``, notes B §5.5 "recovery"). More than two classes are
    handled one-vs-one, as libsvm and scikit-learn do, the ``K(K-1)/2``
    pairs trained in parallel threads. ``multi_class="ovr"`` trains instead
    the ``K`` one-vs-rest SVMs of notes B §5.11 ("Multi-Class SVM": class
    ``k`` against all others, predict the class whose classifier gives the
    largest output), the same models as
    :class:`sklearn.multiclass.OneVsRestClassifier` around this class. With
    the default one-vs-one training, ``decision_function_shape="ovr"`` only
    reshapes the pairwise votes. The joint multi-class QP of the same section
    (Crammer-Singer) is ``LinearSVC(multi_class="crammer_singer")``.

    Parameters
    ----------
    C : float, default=1.0
        Box bound of the dual, the weight of the hinge losses in the primal
        ``1/2 ||w||^2 + C sum_i hinge_i``. ``np.inf`` is the hard margin
        (separable data only: otherwise ``fit`` raises ``ValueError`` once
        ``max_iter`` is reached).
    <kernel_parameters>
    shrinking : bool, default=True
        Use libsvm's shrinking heuristic.
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    cache_size : float, default=200
        Kernel-row cache, in MB, shared by the pairs trained at the same time.
    class_weight : dict or "balanced", default=None
        Multiplies C per class: ``C_i = C * class_weight[y_i] * sample_weight_i``.
    verbose : bool, default=False
        Print a line per pair at the end of its optimisation.
    max_iter : int, default=-1
        Iteration limit per pair; -1 is no limit (libsvm's cap of
        ``max(1e7, 100 n)``).
    decision_function_shape : {"ovo", "ovr"}, default="ovr"
        Shape of ``decision_function`` for more than two classes: the
        ``K(K-1)/2`` pairwise values (libsvm's), or ``K`` one-vs-rest scores
        built from the pairwise votes. Training is one-vs-one either way.
    multi_class : {"ovo", "ovr"}, default="ovo"
        Training for more than two classes: one SVM per pair of classes
        (libsvm's), or one per class against the rest (notes B §5.11). With
        "ovr", ``decision_function`` is the ``K`` scores ``f_k(x)`` (for any
        ``decision_function_shape``), ``predict`` their arg-max, and
        ``dual_coef_``/``intercept_`` have one row per class. Two classes:
        both are the one binary SVM.
    break_ties : bool, default=False
        With "ovr" and more than two classes, predict the argmax of the
        one-vs-rest scores instead of the plain vote.
    random_state : int, RandomState instance or None, default=None
        Shuffles the folds of ``probability``'s cross-validation (the solver
        itself is deterministic).
    n_jobs : int, default=None
        Threads for the one-vs-one pairs (the solver releases the GIL).
    probability : bool or "deprecated", default="deprecated"
        Deprecated, as in scikit-learn 1.9 (removed in its 1.11): setting it
        warns with a FutureWarning. ``True`` adds ``predict_proba`` by
        libsvm's method: per binary sub-problem, Platt's sigmoid fitted to
        5-fold cross-validated decision values, then pairwise coupling (Wu,
        Lin and Weng's method 2; with ``multi_class="ovr"`` the class
        sigmoids are normalised instead). It costs five extra fits per
        sub-problem, and ``predict`` still follows the decision function, so
        it can disagree with the arg-max of ``predict_proba``. Prefer
        ``sklearn.calibration.CalibratedClassifierCV(SVC(), ensemble=False)``.

    Attributes
    ----------
    class_weight_ : ndarray of shape (n_classes,)
        Multipliers of C per class.
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : {ndarray, sparse matrix} of shape (n_classes * (n_classes - 1) / 2, n_features)
        Primal weights ``w = sum_i a_i y_i x_i`` (linear kernel only; one
        row per class with ``multi_class="ovr"``).
    dual_coef_ : {ndarray, sparse matrix} of shape (n_classes - 1, n_SV)
        ``a_i y_i`` of the support vectors, in libsvm's one-vs-one layout
        (``multi_class="ovr"``: shape (n_classes, n_SV), row ``k`` the
        problem "class k against the rest", ``y_i = +1`` for class ``k``).
    fit_status_ : int
        0 if every pair converged, 1 otherwise.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constants ``b`` of the pairwise decision functions (one per
        class with ``multi_class="ovr"``).
    <fitted_feature_attributes>
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        SMO iterations per pair.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty for a precomputed kernel).
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Platt's ``A`` and ``B`` per sub-problem (``probability=True``; empty
        otherwise). Deprecated with ``probability``.
    shape_fit_ : tuple of int
        Shape of the training X.

    See Also
    --------
    SVR : Epsilon-support vector regression with the same solver.
    sklearn.calibration.CalibratedClassifierCV : Probabilities from the
        decision function (there is no ``probability`` parameter).

    Notes
    -----
    Each SMO iteration costs O(n) plus two kernel rows, O(n d) each when not
    cached; the number of iterations grows between linearly and
    quadratically with n. Memory: the data plus ``cache_size`` MB.

    Notes <-> parameters (catalogue B §0.1): D1's ``1/2||w||^2 + C sum hinge``
    is ``C``; D1's ``1/(2 lambda)||w||^2 + 1/n sum hinge`` is ``C = lambda/n``;
    D4's ``sum hinge + lambda ||w||^2`` is ``C = 1/(2 lambda)``. Gaussian
    kernels: D1 ``exp(-||x-z||^2/sigma)`` is ``gamma = 1/sigma``, D3
    ``exp(-||x-z||^2/(2 sigma^2))`` is ``gamma = 1/(2 sigma^2)``; the notes'
    polynomial ``(<x,z> + c)^p`` is ``kernel="poly", gamma=1, coef0=c``.

    References
    ----------
    Platt, "Sequential Minimal Optimization", 1998. Fan, Chen and Lin,
    "Working set selection using second order information for training
    SVM", JMLR 6, 2005. Chang and Lin, "LIBSVM: a library for support vector
    machines", 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.svm import SVC
    >>> X = np.array([[-2, -1], [-1, -1], [1, 1], [2, 1]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = SVC(kernel="linear").fit(X, y)
    >>> clf.predict([[-0.8, -1], [3, 2]])
    array([0, 1])
    >>> clf.n_support_
    array([1, 1], dtype=int32)
    """

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "class_weight": [Options({"balanced"}), dict, None],
        "decision_function_shape": [Options({"ovo", "ovr"})],
        "break_ties": ["boolean"],
        "multi_class": [Options({"ovo", "ovr"})],
        "random_state": ["random_state"],
        "n_jobs": [Interval(Integral, None, None, closed="neither"), None],
        "probability": ["boolean", Options({"deprecated"})],
    }

    _accepts_sparse = True

    def __init__(
        self,
        *,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        verbose=False,
        max_iter=-1,
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
        n_jobs=None,
        multi_class="ovo",
        probability="deprecated",
    ):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.multi_class = multi_class
        self.probability = probability

    @fill_doc(fit_doc=fit_doc("Class labels (any type)."))
    def fit(self, X, y, sample_weight=None):
        """Fit one SMO problem per pair of classes (or per class, "ovr").

        <fit_doc>
        """
        validate_params(self)
        if self.probability != "deprecated":
            warnings.warn(
                "SVC's probability parameter is deprecated, as in scikit-learn 1.9 "
                "(removed in its 1.11); use sklearn.calibration.CalibratedClassifierCV"
                "(SVC(), ensemble=False) instead of SVC(probability=True).",
                FutureWarning,
            )
        X, y = self._validate_fit_data(X, y)
        # libsvm's rule, as scikit-learn: weights <= 0 drop their samples
        sample_weight = libsvm_sample_weight(sample_weight, X)
        self.classes_, y_enc = encode_labels(y)
        n_classes = len(self.classes_)
        self.class_weight_ = compute_class_weight(
            self.class_weight, classes=self.classes_, y=np.asarray(y)
        ).astype(np.float64)
        C_i = self.C * sample_weight * self.class_weight_[y_enc]
        if np.unique(y_enc[C_i > 0]).size < 2:
            raise ValueError(
                "Invalid input - all samples with positive weights belong to the "
                "same class (an SVM needs two classes with positive weight)."
            )
        K_or_X, kernel = self._solver_kernel(X)

        self._ovr = self.multi_class == "ovr" and n_classes > 2
        if self._ovr:
            # notes B §5.11: class k (+1) against all the others (-1)
            pairs = [(k, None) for k in range(n_classes)]
        else:
            pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
        n_workers = min(len(pairs), effective_n_jobs(self.n_jobs))
        # The pairs solved at the same time share the cache budget.
        cache_size = self.cache_size / n_workers

        def solve_pair(a, b):
            if b is None:  # one-vs-rest
                idx = np.flatnonzero(C_i > 0)
                y_pair = np.where(y_enc[idx] == a, 1.0, -1.0)
                data = (K_or_X[np.ix_(idx, idx)] if kernel == "precomputed"
                        else K_or_X[idx])
                alpha, rho, n_iter, status = self._solve(
                    data, y_pair, -1.0, C_i[idx], kernel=kernel,
                    cache_size=cache_size,
                )
                return idx, alpha, rho, n_iter, status
            idx = np.concatenate([
                np.flatnonzero((y_enc == a) & (C_i > 0)),
                np.flatnonzero((y_enc == b) & (C_i > 0)),
            ])
            y_pair = np.where(y_enc[idx] == a, 1.0, -1.0)
            data = K_or_X[np.ix_(idx, idx)] if kernel == "precomputed" else K_or_X[idx]
            alpha, rho, n_iter, status = self._solve(
                data, y_pair, -1.0, C_i[idx], kernel=kernel, cache_size=cache_size
            )
            return idx, alpha, rho, n_iter, status

        if n_workers == 1:  # spare joblib's per-task overhead on small problems
            results = [solve_pair(a, b) for a, b in pairs]
        else:
            results = Parallel(n_jobs=n_workers, prefer="threads")(
                delayed(solve_pair)(a, b) for a, b in pairs
            )
        if self._ovr:
            self._store_ovr(X, y_enc, results)
        else:
            self._store_ovo(X, y_enc, pairs, results)
        self._fit_probability(K_or_X, kernel, y_enc, C_i, pairs)
        return self

    def _fit_probability(self, K_or_X, kernel, y_enc, C_i, pairs):
        """Platt's sigmoid per sub-problem on cross-validated decision values.

        The folds are solved on the fitted model's kernel (same coordinates,
        gamma and weighted C), as libsvm's internal cross-validation.
        """
        self._prob_A = self._prob_B = np.empty(0)
        if self.probability is not True:
            return
        rng = check_random_state(self.random_state)
        A, B = np.empty(len(pairs)), np.empty(len(pairs))
        for k, (a, b) in enumerate(pairs):
            in_pair = C_i > 0 if b is None else (C_i > 0) & np.isin(y_enc, (a, b))
            idx = np.flatnonzero(in_pair)
            y_pos = y_enc[idx] == a

            def decide(train, test, idx=idx, y_pos=y_pos):
                rows, cols = idx[train], idx[test]
                y_pm = np.where(y_pos[train], 1.0, -1.0)
                if kernel == "precomputed":
                    data = K_or_X[np.ix_(rows, rows)]
                else:
                    data = K_or_X[rows]
                alpha, rho, _, _ = self._solve(data, y_pm, -1.0, C_i[rows],
                                               kernel=kernel)
                sv = alpha > 0
                if kernel == "precomputed":
                    K_test = K_or_X[np.ix_(cols, rows[sv])]
                else:
                    K_test = self._solver_kernel_block(K_or_X[cols], K_or_X[rows[sv]])
                return np.asarray(K_test @ (alpha[sv] * y_pm[sv])).ravel() - rho

            A[k], B[k] = fit_sigmoid(cross_val_decision(decide, y_pos, rng), y_pos)
        self._prob_A, self._prob_B = A, B

    def _has_probability(self):
        if self.probability is not True:
            raise AttributeError(
                "predict_proba is not available when probability is not True "
                "(prefer sklearn.calibration.CalibratedClassifierCV).")
        return True

    @fill_doc(
        predict_doc=predict_doc("proba : ndarray of shape (n_samples, n_classes)")
    )
    @available_if(_has_probability)
    def predict_proba(self, X):
        """Class probabilities (``probability=True``; deprecated with it).

        <predict_doc>
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        if self._prob_A.size == 0:
            # scikit-learn's error: the model has no Platt sigmoids to apply
            raise NotFittedError(
                "predict_proba is not available when fitted with probability=False "
                "(this SVC was fitted without probability=True; refit it).")
        X = self._validate_test_data(X)
        dec = self._decision_values(X)
        n_classes = len(self.classes_)
        if n_classes == 2:
            # libsvm's sign (positive: classes_[0]), undone by _store_ovo
            p0 = predict_sigmoid(-dec[:, 0], self._prob_A[0], self._prob_B[0])
            return np.column_stack([p0, 1.0 - p0])
        pairwise = predict_sigmoid(dec, self._prob_A, self._prob_B)
        if getattr(self, "_ovr", False):
            return pairwise / pairwise.sum(axis=1, keepdims=True)
        r = np.zeros((dec.shape[0], n_classes, n_classes))
        k = 0
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                r[:, a, b], r[:, b, a] = pairwise[:, k], 1.0 - pairwise[:, k]
                k += 1
        return couple_pairwise(r)

    @fill_doc(
        predict_doc=predict_doc("log_proba : ndarray of shape (n_samples, n_classes)")
    )
    @available_if(_has_probability)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <predict_doc>
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    @property
    def probA_(self):
        """Platt's ``A`` per sub-problem (deprecated with ``probability``)."""
        check_is_fitted(self)
        _warn_prob_attribute("probA_")
        return self._prob_A.copy()

    @property
    def probB_(self):
        """Platt's ``B`` per sub-problem (deprecated with ``probability``)."""
        check_is_fitted(self)
        _warn_prob_attribute("probB_")
        return self._prob_B.copy()

    def _gather_support(self, X, y_enc, results):
        """Store the support vectors of all sub-problems, grouped by class.

        A sample is a support vector when it has ``alpha > 0`` in any
        sub-problem; they are stored in libsvm's order (by class, then by
        index). Also stores ``n_support_`` and ``n_iter_`` and warns on a
        sub-problem stopped at ``max_iter``. Returns ``column``, the support
        column of each training sample (-1 for the others), and the number of
        support vectors.
        """
        n_classes = len(self.classes_)
        is_sv = np.zeros(X.shape[0], dtype=bool)
        for idx, alpha, *_ in results:
            is_sv[idx[alpha > 0]] = True
        support = np.concatenate(
            [np.flatnonzero(is_sv & (y_enc == c)) for c in range(n_classes)]
        )
        self.n_support_ = np.bincount(y_enc[support], minlength=n_classes).astype(
            np.int32
        )
        self._n_support = self.n_support_.copy()  # checked at predict time
        self._store_support(X, support)
        column = np.full(X.shape[0], -1)
        column[support] = np.arange(len(support))
        self.n_iter_ = np.array([r[3] for r in results], dtype=np.int32)
        self._warn_status(max(r[4] for r in results))
        return column, len(support)

    def _store_ovr(self, X, y_enc, results):
        """One row of ``dual_coef_`` and one intercept per class."""
        n_classes = len(self.classes_)
        column, n_sv = self._gather_support(X, y_enc, results)
        W = np.zeros((n_sv, n_classes))
        intercept = np.empty(n_classes)
        for k, (idx, alpha, rho, _, _) in enumerate(results):
            nz = alpha > 0
            W[column[idx[nz]], k] = np.where(y_enc[idx[nz]] == k, 1.0, -1.0) * alpha[nz]
            intercept[k] = -rho
        self.dual_coef_ = self._public_dual(W.T.copy())
        self.intercept_ = self._set_decision_weights(W, intercept)

    def _store_ovo(self, X, y_enc, pairs, results):
        """Gather the pairwise solutions in libsvm's layout."""
        n_classes = len(self.classes_)
        column, n_sv = self._gather_support(X, y_enc, results)
        dual = np.zeros((n_classes - 1, n_sv))
        intercept = np.empty(len(pairs))
        # W: per-pair weights on all SVs, so all decision values are one product
        W = np.zeros((n_sv, len(pairs)))
        for k, ((a, b), (idx, alpha, rho, _, _)) in enumerate(zip(pairs, results)):
            coef = np.where(y_enc[idx] == a, alpha, -alpha)
            nz = alpha > 0
            cols = column[idx[nz]]
            in_a = y_enc[idx[nz]] == a
            dual[b - 1, cols[in_a]] = coef[nz][in_a]
            dual[a, cols[~in_a]] = coef[nz][~in_a]
            W[cols, k] = coef[nz]
            intercept[k] = -rho
        if n_classes == 2:
            # scikit-learn flips libsvm's signs so positive scores mean classes_[1]
            dual, intercept, W = -dual, -intercept, -W
        self.dual_coef_ = self._public_dual(dual)
        self.intercept_ = self._set_decision_weights(W, intercept)

    @fill_doc(predict_doc=predict_doc(
        "scores : ndarray of shape (n_samples,) or (n_samples, n_classes) or "
        "(n_samples, n_classes * (n_classes - 1) / 2)"
    ))
    def decision_function(self, X):
        """Signed distances to the separating surfaces.

        <predict_doc>
            Binary: positive means ``classes_[1]``. Otherwise one-vs-rest
            scores (``"ovr"``) or libsvm's pairwise values (``"ovo"``,
            positive means the first class of the pair).
        """
        check_is_fitted(self)
        X = self._validate_test_data(X)
        dec = self._decision_values(X)
        if len(self.classes_) == 2:
            return dec.ravel()
        if getattr(self, "_ovr", False):
            return dec
        if self.decision_function_shape == "ovr":
            return _ovr_decision_function(dec < 0, -dec, len(self.classes_))
        return dec

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """Class labels by pairwise vote (or the best ``ovr`` score).

        <predict_doc>
            Predicted labels; vote ties go to the class listed first.
        """
        check_is_fitted(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError(
                "break_ties must be False when decision_function_shape is 'ovo'"
            )
        X = self._validate_test_data(X)
        dec = self._decision_values(X)
        n_classes = len(self.classes_)
        if n_classes == 2:
            return self.classes_[(dec.ravel() >= 0).astype(np.intp)]
        if getattr(self, "_ovr", False):
            return self.classes_[np.argmax(dec, axis=1)]
        if self.break_ties and self.decision_function_shape == "ovr":
            scores = _ovr_decision_function(dec < 0, -dec, n_classes)
            return self.classes_[np.argmax(scores, axis=1)]
        votes = np.zeros((dec.shape[0], n_classes), dtype=np.int64)
        k = 0
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                wins_a = dec[:, k] > 0
                votes[wins_a, a] += 1
                votes[~wins_a, b] += 1
                k += 1
        return self.classes_[np.argmax(votes, axis=1)]


@fill_doc(
    kernel_parameters=kernel_parameters("rbf"),
    fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES,
)
class SVR(RegressorMixin, _BaseSVM):
    """Epsilon-support vector regression with a kernel, trained by SMO.

    The epsilon-insensitive regression of notes B §5.12,
    ``min 1/2 ||w||^2 + C sum_i (xi_i + xi_i*)`` with the tube
    ``|y_i - f(x_i)| <= epsilon + slack``, solved in the dual over the
    ``2n`` variables ``(a, a*)`` as libsvm does:

        min  1/2 (a - a*)' K (a - a*) + eps sum (a + a*) - sum z_i (a_i - a*_i)
        s.t. sum (a_i - a*_i) = 0,   0 <= a_i, a*_i <= C_i,

    by the same SMO solver as :class:`SVC` (second-order working sets, row
    cache, shrinking). Prediction is ``f(x) = sum_i (a_i - a*_i) k(x_i, x) + b``;
    note the notes write ``(a*_i - a_i)``, the opposite sign convention.

    Parameters
    ----------
    <kernel_parameters>
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    C : float, default=1.0
        Weight of the slacks; ``C_i = C * sample_weight_i``.
    epsilon : float, default=0.1
        Half-width of the insensitive tube.
    shrinking : bool, default=True
        Use libsvm's shrinking heuristic.
    cache_size : float, default=200
        Kernel-row cache in MB.
    verbose : bool, default=False
        Print a line at the end of the optimisation.
    max_iter : int, default=-1
        Iteration limit; -1 is no limit (libsvm's cap).

    Attributes
    ----------
    coef_ : {ndarray, sparse matrix} of shape (1, n_features)
        Primal weights (linear kernel only).
    dual_coef_ : {ndarray, sparse matrix} of shape (1, n_SV)
        ``a_i - a*_i`` of the support vectors.
    fit_status_ : int
        0 if the solver converged, 1 otherwise.
    intercept_ : ndarray of shape (1,)
        The constant ``b``.
    <fitted_feature_attributes>
    n_iter_ : int
        SMO iterations.
    n_support_ : ndarray of shape (1,)
        Number of support vectors.
    shape_fit_ : tuple of int
        Shape of the training X.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors.
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The support vectors (empty for a precomputed kernel).

    See Also
    --------
    SVC : Classification with the same solver.

    Notes
    -----
    Same costs as :class:`SVC` with ``2n`` variables; the cache holds kernel
    rows of the ``n`` samples (each serves both ``a_i`` and ``a*_i``).
    ``epsilon >= (max y - min y) / 2`` gives a constant prediction with no
    support vectors.

    References
    ----------
    Smola and Schoelkopf, "A tutorial on support vector regression", 2004.
    Fan, Chen and Lin, JMLR 6, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.svm import SVR
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> y = 2 * X.ravel() + 1
    >>> reg = SVR(kernel="linear", C=10.0, epsilon=0.1).fit(X, y)
    >>> reg.predict([[4.5]]).round(1)
    array([10.])
    """

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="left")],
    }

    _accepts_sparse = True

    def __init__(
        self,
        *,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        C=1.0,
        epsilon=0.1,
        shrinking=True,
        cache_size=200,
        verbose=False,
        max_iter=-1,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter

    @fill_doc(fit_doc=fit_doc("Targets."))
    def fit(self, X, y, sample_weight=None):
        """Fit the epsilon-SVR dual by SMO.

        <fit_doc>
        """
        validate_params(self)
        X, y = self._validate_fit_data(X, y, y_numeric=True)
        # libsvm's rule, as scikit-learn: weights <= 0 drop their samples
        sample_weight = libsvm_sample_weight(sample_weight, X)
        C_i = self.C * sample_weight
        keep = np.flatnonzero(C_i > 0)
        K_or_X, kernel = self._solver_kernel(X)
        if len(keep) < X.shape[0]:
            rows = np.ix_(keep, keep) if kernel == "precomputed" else keep
            K_or_X = K_or_X[rows]
        alpha, rho, n_iter, status = self._solve(
            K_or_X, y[keep], self.epsilon, C_i[keep], kernel=kernel, svr=True
        )
        n = len(keep)
        beta = alpha[:n] - alpha[n:]
        nz = np.flatnonzero(beta != 0)
        self._store_support(X, keep[nz])
        dual = beta[nz][np.newaxis, :]
        self.dual_coef_ = self._public_dual(dual)
        self.intercept_ = np.array([-rho])
        self.n_support_ = np.array([len(nz)], dtype=np.int32)
        self._n_support = self.n_support_.copy()  # checked at predict time
        self.n_iter_ = int(n_iter)
        self._warn_status(status)
        self.intercept_ = self._set_decision_weights(dual.T, self.intercept_)
        return self

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """Predict ``f(x) = sum_i (a_i - a*_i) k(x_i, x) + b``.

        <predict_doc>
            Predicted targets.
        """
        check_is_fitted(self)
        X = self._validate_test_data(X)
        return self._decision_values(X).ravel()


def kkt_violations(svc, X, y, sample_weight=None):
    """How far a fitted binary :class:`SVC` is from the KKT conditions of its dual.

    The soft-margin SVM's optimality conditions (notes B §5.2 and §5.5, D1
    §6.3): with ``a_i`` the dual variables, ``C_i`` their bounds and
    ``m_i = y_i f(x_i)`` the margins,

    - box: ``0 <= a_i <= C_i``;
    - equality: ``sum_i a_i y_i = 0`` (the derivative in ``b``);
    - complementary slackness: ``a_i = 0`` needs ``m_i >= 1``,
      ``0 < a_i < C_i`` needs ``m_i = 1``, ``a_i = C_i`` needs ``m_i <= 1``.

    SMO stops when the largest violation of the last condition, in gradient
    units, is below ``tol``, so a fit's ``"margin"`` value is of order
    ``tol``.

    Parameters
    ----------
    svc : SVC
        A fitted two-class SVC (for more classes, check each pairwise or
        one-vs-rest problem as a binary SVC).
    X : array-like of shape (n_samples, n_features)
        The training data of ``svc``.
    y : array-like of shape (n_samples,)
        Its labels.
    sample_weight : array-like of shape (n_samples,), default=None
        The weights of the fit (they set ``C_i``).

    Returns
    -------
    violations : dict
        ``"box"``, ``"equality"`` and ``"margin"``: the largest violation of
        each condition (0 when it holds); ``"max"``: the largest of the
        three; ``"margin_per_sample"``: each sample's complementary-slackness
        violation.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.svm import SVC, kkt_violations
    >>> X = np.array([[-2.0, -1.0], [-1.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> svc = SVC(kernel="linear", tol=1e-8).fit(X, y)
    >>> bool(kkt_violations(svc, X, y)["max"] < 1e-6)
    True
    """
    check_is_fitted(svc)
    if len(svc.classes_) != 2 or getattr(svc, "_ovr", False):
        raise ValueError(
            "kkt_violations checks a two-class SVC; fit one SVC per pairwise or "
            "one-vs-rest problem to check a multi-class model."
        )
    y = np.asarray(y)
    X = svc._validate_test_data(X)
    if X.shape[0] != y.shape[0] or X.shape[0] != svc.shape_fit_[0]:
        raise ValueError(
            f"X and y must be the {svc.shape_fit_[0]} training samples of the SVC; "
            f"got {X.shape[0]} rows and {y.shape[0]} labels."
        )
    sample_weight = check_sample_weight(sample_weight, X)
    y_enc = np.searchsorted(svc.classes_, y)
    if not np.array_equal(svc.classes_[np.clip(y_enc, 0, 1)], y):
        raise ValueError("y holds labels that are not the SVC's classes_.")
    y_pm = np.where(y_enc == 1, 1.0, -1.0)
    alpha = np.zeros(X.shape[0])
    dual = svc.dual_coef_
    dual = dual.toarray() if sp.issparse(dual) else dual
    alpha[svc.support_] = dual[0] * y_pm[svc.support_]
    C_i = svc.C * sample_weight * svc.class_weight_[y_enc]
    margins = y_pm * svc.decision_function(X)
    box = float(max(np.max(-alpha, initial=0.0),
                    np.max(np.where(np.isfinite(C_i), alpha - C_i, 0.0), initial=0.0)))
    equality = float(abs(alpha @ y_pm))
    at_zero = alpha <= 0.0
    at_upper = np.isfinite(C_i) & (alpha >= C_i * (1.0 - 1e-12)) & ~at_zero
    free = ~at_zero & ~at_upper
    per_sample = np.zeros(X.shape[0])
    per_sample[at_zero] = np.maximum(0.0, 1.0 - margins[at_zero])
    per_sample[free] = np.abs(1.0 - margins[free])
    per_sample[at_upper] = np.maximum(0.0, margins[at_upper] - 1.0)
    # samples left out of the fit (C_i = 0) carry no condition
    per_sample[C_i == 0] = 0.0
    margin = float(per_sample.max(initial=0.0))
    box = max(box, 0.0) + 0.0  # no -0.0
    return {"box": box, "equality": equality, "margin": margin,
            "max": max(box, equality, margin), "margin_per_sample": per_sample}
