"""AdaBoost: the notes' binary re-weighting and SAMME for many classes."""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.base import ClassifierMixin, BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..tree import DecisionTreeClassifier
from ..tree._splitter_kernels import presort_features
from ..tree._tree import TREE_LEAF, TREE_UNDEFINED, Tree, tiny_column_scales
from ._bagging import _member_accepts_sparse
from ..utils import Interval, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES, PARAMETERS_X_SAMPLES,
                                 PARAMETERS_X_TRAINING, RETURNS_LABELS,
                                 RETURNS_LOG_PROBA, RETURNS_PROBA, fill_doc)
from ._base import (
    RETURNS_FITTED_ENSEMBLE,
    _MembersSequenceMixin,
    accepts_sample_weight,
    member_allows_nan,
    set_random_states,
)
from ..utils.validation import validate_data
from ._weight_boosting_kernels import gini_stump

__all__ = ["AdaBoostClassifier"]

_EPS = np.finfo(np.float64).eps


def adaboost_alpha(eps, n_classes=2, learning_rate=1.0):
    """The notes' learner weight ``alpha = 1/2 [ln((1 - eps)/eps) + ln(K - 1)]``.

    For two classes this is ``1/2 ln((1 - eps)/eps)`` (notes B §9.4, notes A
    §3.1); the ``ln(K - 1)`` term is SAMME's multi-class extension.
    scikit-learn's ``estimator_weights_`` are twice this value.

    Examples
    --------
    >>> from skml.ensemble._weight_boosting import adaboost_alpha
    >>> float(round(adaboost_alpha(0.3), 4))
    0.4236
    """
    return 0.5 * learning_rate * (np.log((1.0 - eps) / eps) + np.log(n_classes - 1.0))


class _StumpGrower:
    """The default weak learner's fits, one presort for all the rounds.

    Grows exactly the stump ``DecisionTreeClassifier(max_depth=1).fit(X, y,
    sample_weight=w)`` would (see ``_weight_boosting_kernels``), and the
    training-set predictions with it, but sorts the features once per
    ensemble fit instead of once per round. Used for dense X without NaN,
    positive weights and no column too small to split (the tree's rescaling
    case); the other fits go through the tree itself.
    """

    def __init__(self, X, y_enc, n_classes):
        self.X = X
        n, p = self.X.shape
        self.y = np.ascontiguousarray(y_enc, dtype=np.intp)
        self.n_classes = n_classes
        self.classes = np.unique(y_enc)
        self.order = presort_features(self.X, np.arange(n), np.zeros(p, dtype=np.intp))

    @staticmethod
    def features(X, sample_weight, n_classes):
        """X as the stumps read it (Fortran float64), or None when the fit
        must go through the tree (sparse or non-numeric X, NaN or infinity,
        a zero weight, a column too small to split, one class)."""
        if (sparse.issparse(X) or X.ndim != 2 or X.dtype.kind not in "biuf"
                or n_classes < 2
                or not np.all(sample_weight > 0)):
            return None
        X = np.asfortranarray(X, dtype=np.float64)
        if not np.isfinite(X).all() or tiny_column_scales(X) is not None:
            return None
        return X

    def fit(self, h, w):
        """Fit the stump ``h`` (a fresh ``DecisionTreeClassifier(max_depth=1)``
        with its seed set) on the weights ``w``; returns its training predictions."""
        n, p = self.X.shape
        K = self.n_classes
        seed = check_random_state(h.random_state).randint(np.iinfo(np.int32).max)
        value = np.zeros((3, K))
        stats = np.zeros((3, 3))
        pred = np.empty(n, dtype=np.intp)
        f, thr, ml = gini_stump(self.X, self.order, self.y,
                                np.ascontiguousarray(w, dtype=np.float64), K, seed,
                                value, stats, pred)
        m = 3 if f >= 0 else 1
        leaf = np.full(m, TREE_LEAF, dtype=np.intp)
        left, right = leaf.copy(), leaf.copy()
        feature = np.full(m, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(m, float(TREE_UNDEFINED))
        missing_left = np.zeros(m, dtype=np.uint8)
        if f >= 0:
            left[0], right[0], feature[0], threshold[0], missing_left[0] = 1, 2, f, thr, ml
        arrays = (left, right, feature, threshold, missing_left,
                  stats[:m, 0].copy(), stats[:m, 1].astype(np.intp),
                  stats[:m, 2].copy(), value[:m].copy(), leaf.copy(),
                  np.zeros(0, dtype=np.intp), 1 if f >= 0 else 0)
        tree = Tree(arrays, n_features=p, n_classes=K,
                    n_category_slots=np.zeros(p, dtype=np.intp))
        fitted = DecisionTreeClassifier._from_grown(
            tree, h.get_params(), n_features_in=p, max_features=p, classes=self.classes)
        return fitted, pred


def _samme_codes(pred, n_classes):
    """Class votes coded +1 for the predicted class, -1/(K-1) elsewhere."""
    codes = np.full((pred.shape[0], n_classes), -1.0 / (n_classes - 1))
    codes[np.arange(pred.shape[0]), pred] = 1.0
    return codes


@fill_doc(fitted_features=FITTED_FEATURE_ATTRIBUTES)
class AdaBoostClassifier(ClassifierMixin, _MembersSequenceMixin, BaseEstimator):
    """AdaBoost classifier: re-weighted weak learners combined by weighted vote.

    The notes' AdaBoost (notes B §9.4, notes A §3.1): each round fits a weak
    learner ``h_t`` on the distribution ``D_t``, measures its weighted error
    ``eps_t``, gives it the weight ``alpha_t = 1/2 ln((1 - eps_t)/eps_t)``
    and re-weights ``D_{t+1} ∝ D_t exp(-alpha_t y h(x))``, so that ``h_t``
    has weighted error exactly 1/2 under ``D_{t+1}``. With more than two
    classes the weight gains SAMME's ``+ 1/2 ln(K - 1)`` and ``y h(x)`` reads
    +1 for a correct vote and -1 for a wrong one (Zhu et al.).

    Parameters
    ----------
    estimator : object, default=None
        The weak learner; it must accept ``sample_weight`` in ``fit``.
        ``None`` means ``skml.tree.DecisionTreeClassifier(max_depth=1)``, a
        decision stump (notes B §8.10). It picks the split of least weighted
        Gini impurity, as scikit-learn's default does, not of least weighted
        0-1 error as the notes' stump (B §8.10, 003 "AdaBoost"): the two
        can choose different stumps when several split the weighted data
        almost equally well.
    n_estimators : int, default=50
        Most rounds; fewer are kept when a learner is perfect or no better
        than chance (see Notes).
    learning_rate : float, default=1.0
        Shrinks each ``alpha_t``; 1.0 is the notes' algorithm.
    random_state : int, RandomState instance or None, default=None
        Seeds the ``random_state`` of every weak learner.

    Attributes
    ----------
    estimator_ : estimator
        The unfitted template the members are cloned from.
    estimators_ : list of estimators
        The fitted weak learners.
    estimator_weights_ : ndarray of shape (n_estimators_fitted,)
        ``alpha_t`` in the notes' convention: half of scikit-learn's
        ``estimator_weights_`` (see Notes).
    estimator_errors_ : ndarray of shape (n_estimators_fitted,)
        Weighted training error ``eps_t`` of each learner.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    <fitted_features>
    feature_importances_ : ndarray of shape (`n_features_in_`,)
        The learners' importances averaged with weights ``alpha_t``.

    See Also
    --------
    sklearn.ensemble.AdaBoostClassifier : scikit-learn's SAMME.
    BaggingClassifier : independent members on bootstrap samples.

    Notes
    -----
    **Weights.** ``estimator_weights_[t] = alpha_t = 1/2 [ln((1 - eps_t)/eps_t)
    + ln(K - 1)]`` times ``learning_rate``; scikit-learn stores
    ``ln((1 - eps_t)/eps_t) + ln(K - 1)``, i.e. ``2 alpha_t`` (notes B §0.1).
    Votes, predictions and the normalised sample weights do not depend on
    that factor: scikit-learn multiplies the misclassified weights by
    ``exp(2 alpha_t)`` and renormalises, which is the same distribution as
    the notes' ``exp(-alpha_t y h)``.

    **decision_function** is scikit-learn's: the notes' additive model
    ``H(x) = sum_t alpha_t h_t(x)`` (binary, ``h`` in {-1, +1}) divided by
    ``sum_t alpha_t``, times 2 for two classes (so one learner gives
    +-2); with K classes ``sum_t alpha_t c_t(x) / sum_t alpha_t``, where
    ``c_t`` is +1 at the predicted class and -1/(K-1) elsewhere. The notes'
    ``H = decision_function * sum_t alpha_t / 2`` (binary) satisfies
    ``mean(exp(-y H(x))) = prod_t 2 sqrt(eps_t (1 - eps_t))``, the bound on
    the training error. ``predict_proba`` is, as in scikit-learn, a softmax
    of the decision function over K - 1 (of ``-d/2, d/2`` for two classes).

    **Edge cases** (left open by the notes, notes A §0 item 16).
    ``eps_t = 0``: the learner is perfect on the training data; boosting
    stops and keeps it with the finite weight
    ``max(1/2 ln((1 - 1e-10)/1e-10), 1 + sum of the previous alphas)``, large
    enough that it alone decides every prediction. ``eps_t >= 1 - 1/K``
    (1/2 for two classes): the learner is no better than chance; it is
    discarded and boosting stops (as scikit-learn); if it is the first one a
    ``ValueError`` is raised. As in scikit-learn, no sample weight goes below
    the float resolution (2.2e-16; weights that were zero stay zero): with a
    large ``learning_rate`` the weights of the samples classified right
    otherwise shrink to nothing and the next learner, fitted on the few
    others, gets a near-zero error and an undeserved decisive weight; and if
    the weights overflow, boosting stops with a warning, keeping the learners
    so far. The weak learners' seeds are drawn in order from
    ``random_state`` itself, as scikit-learn's, so with scikit-learn's stump
    both ensembles are the same. One class in ``y`` (or only one with non-zero
    weight): the first learner is perfect and the model constant, as in
    scikit-learn (``predict_proba`` all ones, shape (n_samples, 1), when
    ``classes_`` has one label).

    Complexity: ``n_estimators`` fits of the weak learner plus O(n) per round.

    References
    ----------
    Y. Freund and R. Schapire, "A decision-theoretic generalization of
    on-line learning and an application to boosting", 1997.
    J. Zhu, H. Zou, S. Rosset and T. Hastie, "Multi-class AdaBoost", 2009.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skml.ensemble import AdaBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = AdaBoostClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    _parameter_constraints = {
        "estimator": [None, object],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator=None, *, n_estimators=50, learning_rate=1.0,
                 random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.random_state = random_state

    def _template(self):
        if self.estimator is None:
            return DecisionTreeClassifier(max_depth=1)
        return self.estimator

    @fill_doc(X=PARAMETERS_X_TRAINING, returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None):
        """Boost ``n_estimators`` weak learners on (X, y).

        <X>
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Initial distribution ``D_1`` (normalised); uniform when None.

        <returns>
        """
        validate_params(self)
        template = self._template()
        if not hasattr(template, "fit"):
            raise TypeError(
                f"AdaBoostClassifier: estimator {template!r} has no fit method."
            )
        if not accepts_sample_weight(template):
            raise ValueError(
                f"{type(template).__name__} doesn't support sample_weight: "
                "AdaBoostClassifier needs an estimator whose fit takes it."
            )
        # X goes to the members as given: n-d arrays too (a member that takes
        # them, as scikit-learn allows); the default stump wants 2-d X.
        X, y = validate_data(
            self, X, y, ensure_all_finite=not member_allows_nan(template),
            accept_sparse=["csr", "csc"], allow_nd=True, dtype=None,
        )
        sample_weight = check_sample_weight(sample_weight, X)
        self.classes_, y_enc = encode_labels(y, min_classes=1, sample_weight=sample_weight)
        n_classes = self.n_classes_ = len(self.classes_)
        self.estimator_ = template
        rng = check_random_state(self.random_state)

        # D_1: the caller's weights, normalised to a distribution.
        w_t = sample_weight / sample_weight.sum()
        positive = sample_weight > 0
        stumps = None
        X_stumps = (None if self.estimator is not None
                    else _StumpGrower.features(X, sample_weight, n_classes))
        if X_stumps is not None:
            stumps = _StumpGrower(X_stumps, y_enc, n_classes)
        self.estimators_, alphas, errors = [], [], []
        for t in range(self.n_estimators):
            # No weight below the float resolution (scikit-learn's rule, its
            # issue #20320): with a large learning_rate the weights of the
            # samples classified right shrink geometrically, and once they
            # round to nothing the next learner is fitted on the few others
            # and gets a near-zero error, so a huge alpha, while wrong on most
            # of the data. Weights that were zero stay zero.
            w_t = np.where(positive, np.maximum(w_t, _EPS), 0.0)
            # Seeds drawn from the ensemble's generator itself, in order, as
            # scikit-learn: with its weak learner, the very same members.
            h_t = set_random_states(clone(template), rng)
            if stumps is not None:
                h_t, pred = stumps.fit(h_t, w_t)
            else:
                h_t.fit(X, y_enc, sample_weight=w_t)
                pred = h_t.predict(X)
            correct = pred == y_enc
            eps_t = float(np.average(~correct, weights=w_t))
            if eps_t <= 0.0:
                # A perfect learner: let it decide alone (see Notes).
                alpha = max(adaboost_alpha(1e-10, max(n_classes, 2)), 1.0 + sum(alphas))
                self.estimators_.append(h_t)
                alphas.append(alpha)
                errors.append(0.0)
                break
            if eps_t >= 1.0 - 1.0 / n_classes:
                if not self.estimators_:
                    raise ValueError(
                        "AdaBoostClassifier: the first weak learner is worse than "
                        f"random, no better than chance (weighted error {eps_t:.3g} "
                        f">= {1 - 1 / n_classes:.3g}); "
                        "the ensemble cannot be fit."
                    )
                break
            alpha = adaboost_alpha(eps_t, n_classes, self.learning_rate)
            self.estimators_.append(h_t)
            alphas.append(alpha)
            errors.append(eps_t)
            if t == self.n_estimators - 1:
                break
            # D_{t+1} ∝ D_t exp(-alpha_t y h_t(x)), y h = +1 right, -1 wrong;
            # computed as scikit-learn, the misclassified weights times
            # exp(2 alpha_t) in log space (the same distribution once
            # normalised), so that an overflow stops boosting at the same round.
            with np.errstate(over="ignore", divide="ignore"):
                log_w = np.log(w_t) + np.where(correct | ~positive, 0.0, 2.0 * alpha)
                w_t = np.where(positive, np.exp(log_w), 0.0)
                total = w_t.sum()
            if not np.isfinite(total):
                warnings.warn(
                    f"Sample weights have reached infinite values at iteration {t}: "
                    "boosting stopped (the learners so far are kept). Try a lower "
                    "learning_rate.", UserWarning, stacklevel=2)
                break
            if total <= 0:
                break
            w_t /= total
        self.estimator_weights_ = np.asarray(alphas, dtype=np.float64)
        self.estimator_errors_ = np.asarray(errors, dtype=np.float64)
        return self

    def _votes(self, X, h):
        pred = h.predict(X).astype(np.intp, copy=False)
        if self.n_classes_ == 2:
            return 2.0 * pred - 1.0
        return _samme_codes(pred, self.n_classes_)

    def _staged_additive_model(self, X):
        """Yield ``(H_t(X), sum_{s<=t} alpha_s)``, the notes' additive model."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse=["csr", "csc"],
                          ensure_all_finite=not member_allows_nan(self.estimator_),
                          allow_nd=True, dtype=None)
        score = 0.0
        alpha_sum = 0.0
        for alpha, h in zip(self.estimator_weights_, self.estimators_):
            if self.n_classes_ == 1:  # a constant model: no vote to weigh
                score = np.zeros((X.shape[0], 1))
            else:
                score = score + alpha * self._votes(X, h)
            alpha_sum += alpha
            yield score, alpha_sum

    def _normalise(self, score, alpha_sum):
        # scikit-learn's SAMME scale: the vote divided by the sum of the
        # weights, so each column lies in [-1/(K-1), 1]; for two classes the
        # two columns' difference, in [-2, 2] (h = +-1 counts twice).
        if self.n_classes_ == 2:
            return 2.0 * score / alpha_sum
        return score / alpha_sum

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def staged_decision_function(self, X):
        """Yield the decision function of the first t learners, t = 1, 2, ...

        <X>

        Yields
        ------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            :meth:`decision_function` of the first t learners.
        """
        for score, alpha_sum in self._staged_additive_model(X):
            yield self._normalise(score, alpha_sum)

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def decision_function(self, X):
        """The weighted vote normalised by the sum of the weights, as scikit-learn.

        <X>

        Returns
        -------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Binary: ``2 H(X) / sum_t alpha_t`` in [-2, 2], positive means
            ``classes_[1]``. Many classes: ``sum_t alpha_t c_t(X) / sum_t
            alpha_t`` with the SAMME codes ``c_t`` (+1 for the voted class,
            -1/(K-1) elsewhere), one column per class, the largest wins.
            One class: zeros of shape (n_samples, 1), as scikit-learn.
        """
        score = None
        for score in self.staged_decision_function(X):
            pass
        return score

    def _predict_from(self, score):
        if self.n_classes_ == 2:
            return self.classes_[(score > 0).astype(np.intp)]
        return self.classes_[np.argmax(score, axis=1)]

    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_LABELS)
    def predict(self, X):
        """Sign (or argmax) of the weighted vote.

        <X>

        <returns>
        """
        return self._predict_from(self.decision_function(X))

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def staged_predict(self, X):
        """Yield the predictions after each round.

        <X>

        Yields
        ------
        y : ndarray of shape (n_samples,)
            Predicted labels of the first t learners.
        """
        for score in self.staged_decision_function(X):
            yield self._predict_from(score)

    def staged_score(self, X, y, sample_weight=None):
        """Yield the (weighted) accuracy after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,)
            Their true labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the accuracy.

        Yields
        ------
        score : float
            Accuracy of the first t learners.
        """
        y = np.asarray(y)
        for pred in self.staged_predict(X):
            yield float(np.average(pred == y, weights=sample_weight))

    def _proba_from(self, decision):
        # scikit-learn's form (Zhu et al., eq. 15): a softmax of the
        # normalised vote over K - 1 (for two classes, of -d/2 and d/2).
        if self.n_classes_ == 1:
            return np.ones_like(decision)
        if self.n_classes_ == 2:
            z = np.column_stack([-decision, decision]) / 2.0
        else:
            z = decision / (self.n_classes_ - 1)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def staged_predict_proba(self, X):
        """Yield class probabilities after each round.

        <X>

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities of the first t learners.
        """
        for decision in self.staged_decision_function(X):
            yield self._proba_from(decision)

    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_PROBA)
    def predict_proba(self, X):
        """Class probabilities, a softmax of the normalised vote (as scikit-learn).

        <X>

        <returns>
        """
        proba = None
        for proba in self.staged_predict_proba(X):
            pass
        return proba

    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_LOG_PROBA)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <X>

        <returns>
        """
        return np.log(self.predict_proba(X))

    @property
    def feature_importances_(self):
        check_is_fitted(self)
        try:
            imps = np.array([h.feature_importances_ for h in self.estimators_])
        except AttributeError as exc:
            raise AttributeError(
                "feature_importances_ needs weak learners with feature_importances_."
            ) from exc
        return self.estimator_weights_ @ imps / self.estimator_weights_.sum()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = member_allows_nan(self._template())
        tags.input_tags.sparse = _member_accepts_sparse(self._template())
        return tags
