"""Bagging: members fitted on bootstrap samples, out-of-bag error (notes B §9.2)."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, check_random_state, column_or_1d

from ..tree import DecisionTreeClassifier, DecisionTreeRegressor
from ..tree._tree import RealNotInt
from ..utils import Interval, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES, PARAMETERS_X_SAMPLES,
                                 PARAMETERS_X_TRAINING, RETURNS_LABELS,
                                 RETURNS_LOG_PROBA, RETURNS_PROBA, fill_doc)
from ._base import (
    RETURNS_FITTED_ENSEMBLE,
    _MembersSequenceMixin,
    accepts_sample_weight,
    log_progress,
    make_member,
    member_allows_nan,
    member_seeds,
    params_at_rows,
    refuse_unrouted,
    resolve_fraction,
    routed_to,
    routing_enabled,
    sum_over_members,
)
from ..utils.validation import validate_data

__all__ = ["BaggingClassifier", "BaggingRegressor", "draw_bagging_indices"]

# The docstring blocks of the bagging estimators' methods, then of the classes.
_FIT_METADATA = """
sample_weight : array-like of shape (n_samples,), default=None
    Row weights, used as drawing probabilities.
**fit_params : dict
    Other metadata for the members' ``fit`` (per-sample ones cut to
    the rows drawn), routed as they request it; only with
    ``sklearn.set_config(enable_metadata_routing=True)``.
"""
_PROBA_PARAMS = """
**params : dict
    Metadata for the members' ``predict_proba`` (``predict`` when
    they have none), routed as they request it; only with
    ``sklearn.set_config(enable_metadata_routing=True)``.
"""

_DOC = {
    "draw parameters": """
n_estimators : int, default=10
    Number of members.
max_samples : int, float or None, default=None
    Rows drawn per member: ``n_samples`` if None, a count if int, and if
    float a fraction of ``n_samples`` or, with ``sample_weight``, of the
    total sample weight (scikit-learn 1.9's rule).
max_features : int or float, default=1.0
    Features given to each member: a count or a fraction.
bootstrap : bool, default=True
    Draw rows with replacement.
bootstrap_features : bool, default=False
    Draw features with replacement.
""",
    "run parameters": """
warm_start : bool, default=False
    Keep the fitted members and add new ones up to ``n_estimators``.
n_jobs : int, default=None
    Members fitted in parallel (joblib); results do not depend on it.
random_state : int, RandomState instance or None, default=None
    Seeds the row and feature draws and the members.
verbose : int, default=0
    Progress messages.
""",
    "member attributes": """
estimator_ : estimator
    The member template.
estimators_features_ : list of ndarray
    The features of each member.
estimators_samples_ : list of ndarray
    The rows drawn for each member (with repeats).
""",
    "fitted_features": FITTED_FEATURE_ATTRIBUTES,
    "references": """
References
----------
L. Breiman, "Bagging predictors", Machine Learning 24, 1996.
""",
}


def draw_bagging_indices(seed, n_samples, n_features, n_draws, n_feats,
                         bootstrap, bootstrap_features, sample_weight=None):
    """The feature and sample indices of one member, from its seed alone.

    Features are drawn first, then samples: with replacement when
    ``bootstrap`` (a bootstrap sample, notes B §9.2) and without otherwise.
    With ``sample_weight`` the samples are drawn with probabilities
    proportional to the weights, so a weight counts as a repetition.

    Examples
    --------
    >>> from skml.ensemble._bagging import draw_bagging_indices
    >>> f, s = draw_bagging_indices(0, 10, 3, 10, 3, True, False)
    >>> len(s), sorted(f.tolist())
    (10, [0, 1, 2])
    """
    rng = check_random_state(seed)
    if bootstrap_features:
        features = rng.randint(0, n_features, n_feats)
    else:
        features = rng.permutation(n_features)[:n_feats]
    if sample_weight is not None:
        p = sample_weight / sample_weight.sum()
        samples = rng.choice(n_samples, n_draws, replace=bootstrap, p=p)
    elif bootstrap:
        samples = rng.randint(0, n_samples, n_draws)
    else:
        samples = rng.permutation(n_samples)[:n_draws]
    return features, samples


# scikit-learn's words (user code filters them).
_OOB_WARNING = ("Some inputs do not have OOB scores. This probably means too few "
                "estimators were used to compute any reliable oob estimates.")


def _fit_member(base, seed, X, y, sample_weight, n_draws, n_feats, bootstrap,
                bootstrap_features, weighted_fit, fit_params):
    features, samples = draw_bagging_indices(
        seed, X.shape[0], X.shape[1], n_draws, n_feats, bootstrap,
        bootstrap_features, sample_weight,
    )
    member = make_member(base, seed)
    Xf = X[:, features]
    if weighted_fit:
        # Row sampling as integer weights: a tree fitted with counts equals
        # one fitted on the repeated rows, without copying X.
        counts = np.bincount(samples, minlength=X.shape[0]).astype(np.float64)
        member.fit(Xf, y, sample_weight=counts, **fit_params)
    else:
        member.fit(Xf[samples], y[samples],
                   **params_at_rows(fit_params, samples, X.shape[0]))
    return member, features, samples


def _member_accepts_sparse(estimator):
    """Sparse X passes through to members that declare they take it."""
    try:
        return get_tags(estimator).input_tags.sparse
    except Exception:  # a third-party estimator without tags
        return False


def _member_has(attr):
    """``available_if`` check: the member (fitted template, else the given one)
    has ``attr``."""
    def check(self):
        template = getattr(self, "estimator_", None)
        return hasattr(self._template() if template is None else template, attr)
    return check


class _BaseBagging(_MembersSequenceMixin, BaseEstimator):
    _parameter_constraints = {
        "estimator": [None, object],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [None, Interval(Integral, 1, None, closed="left"),
                        Interval(RealNotInt, 0, 1, closed="right")],
        "max_features": [Interval(Integral, 1, None, closed="left"),
                         Interval(Real, 0, 1, closed="right")],
        "bootstrap": ["boolean"],
        "bootstrap_features": ["boolean"],
        "oob_score": ["boolean"],
        "warm_start": ["boolean"],
        "n_jobs": [None, Integral],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, estimator=None, n_estimators=10, *, max_samples=None,
                 max_features=1.0, bootstrap=True, bootstrap_features=False,
                 oob_score=False, warm_start=False, n_jobs=None, random_state=None,
                 verbose=0):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap = bootstrap
        self.bootstrap_features = bootstrap_features
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _template(self):
        return self.estimator if self.estimator is not None else self._default()

    def _fit(self, X, y, sample_weight, fit_params):
        refuse_unrouted(self, fit_params)  # before any other check, as scikit-learn
        validate_params(self)
        template = self._template()
        if not hasattr(template, "fit"):
            raise TypeError(
                f"{type(self).__name__}: estimator {template!r} has no fit method."
            )
        # The messages' first sentences are scikit-learn's (user code matches them).
        if self.oob_score and not self.bootstrap:
            raise ValueError(
                "Out of bag estimation only available if bootstrap=True "
                "(otherwise no sample is out of bag)."
            )
        if self.warm_start and self.oob_score:
            raise ValueError("Out of bag estimate only available if warm_start=False "
                             "(oob_score=True cannot be combined with warm_start=True).")
        # Missing and infinite values are the members' to judge, as in
        # scikit-learn: a pipeline that imputes them is a valid member even
        # when its tags cannot say so.
        X, y = validate_data(self, X, y, ensure_all_finite=False,
                             accept_sparse=["csr", "csc"],
                             multi_output=self._multi_output)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            if not self.bootstrap:
                # Without replacement, weights only tilt which rows are drawn
                # first: they are no longer repetitions (scikit-learn warns too).
                warnings.warn(
                    f"When fitting {type(self).__name__} with sample_weight it is "
                    f"recommended to use bootstrap=True, got {self.bootstrap}.",
                    UserWarning, stacklevel=3)
        y = self._encode_y(y, sample_weight)
        n_samples, n_features = X.shape
        n_draws = self._resolve_n_draws(n_samples, sample_weight)
        n_feats = resolve_fraction(self.max_features, n_features, "max_features")
        self.estimator_ = template
        self._n_samples_fit = n_samples

        if not (self.warm_start and hasattr(self, "estimators_")):
            self.estimators_, self.estimators_features_, self._samples = [], [], []
        n_done = len(self.estimators_)
        n_more = self.n_estimators - n_done
        if n_more < 0:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be at least the {n_done} "
                "members already fitted when warm_start=True."
            )
        if n_more == 0:
            warnings.warn("Warm-start fitting without increasing n_estimators does not "
                          "fit new estimators.", UserWarning, stacklevel=3)
            return self

        seeds = member_seeds(self.random_state, n_done, self.n_estimators)
        if routing_enabled():
            # As scikit-learn: the rows drawn go to the member as counts in
            # sample_weight only when it requests sample_weight; the
            # ensemble's own sample_weight is consumed by the draws, never
            # routed.
            fit_params = routed_to(self, "fit", fit_params, "estimator")["fit"]
            weighted_fit = bool(get_routing_for_object(template).consumes(
                "fit", ("sample_weight",)))
        else:
            weighted_fit = accepts_sample_weight(template)
        log_progress(self.verbose, type(self).__name__,
                     f"fitting {n_more} members with n_jobs={self.n_jobs}")
        # Threads: skml members spend their time in numba kernels that
        # release the GIL, and threads share X instead of pickling it.
        results = Parallel(n_jobs=self.n_jobs, prefer="threads",
                           verbose=max(self.verbose - 1, 0))(
            delayed(_fit_member)(
                template, seed, X, y, sample_weight, n_draws, n_feats,
                self.bootstrap, self.bootstrap_features, weighted_fit, fit_params,
            )
            for seed in seeds
        )
        for member, features, samples in results:
            self.estimators_.append(member)
            self.estimators_features_.append(features)
            self._samples.append(samples)
        if self.oob_score:
            self._set_oob_score(X, y)
        elif hasattr(self, "oob_score_"):
            del self.oob_score_
        return self

    def _resolve_n_draws(self, n_samples, sample_weight):
        """Rows drawn per member, as scikit-learn 1.9: ``n_samples`` for None, a
        count for an int, and for a float a fraction of ``n_samples`` or, with
        ``sample_weight``, of the total weight (so that integer weights draw as
        many rows as the repeated data would)."""
        ms = self.max_samples
        if ms is None:
            n_draws = n_samples
        elif isinstance(ms, Integral):
            n_draws = int(ms)
        else:
            total = n_samples if sample_weight is None else float(sample_weight.sum())
            n_draws = max(int(ms * total), 1)
            if n_draws < max(10, n_samples ** (1 / 3)):
                # A fraction of a small total weight (weights that are not
                # counts) draws next to nothing: say so, as scikit-learn 1.9.
                what = ("the number of samples is" if sample_weight is None
                        else "the total sum of sample weights is")
                warnings.warn(
                    f"Using the fractional value max_samples={ms!r} when {what} "
                    f"{total} results in a low number ({n_draws}) of bootstrap "
                    "samples. We recommend passing `max_samples` as an integer "
                    "instead.", UserWarning, stacklevel=4)
        if not self.bootstrap and n_draws > n_samples:
            raise ValueError(
                f"Effective max_samples={n_draws} must be <= n_samples={n_samples} to "
                f"be able to sample without replacement. max_samples={ms!r} gives "
                f"{n_draws} rows per member."
            )
        return n_draws

    @property
    def estimators_samples_(self):
        """Indices of the samples drawn for each member (with repeats)."""
        check_is_fitted(self)
        return list(self._samples)

    def _oob_masks(self):
        for samples in self._samples:
            mask = np.ones(self._n_samples_fit, dtype=bool)
            mask[samples] = False
            yield mask

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, ensure_all_finite=False,
                             accept_sparse=["csr", "csc"])

    def _member_params(self, method, params):
        """The keywords of ``self.<method>(**params)`` for the members' methods."""
        return routed_to(self, method, params, "estimator")

    def _mean_over_members(self, func, X):
        """Mean of ``func(member, X[:, features])`` over the members."""
        total = sum_over_members(lambda mf: func(mf[0], X[:, mf[1]]),
                                 list(zip(self.estimators_, self.estimators_features_)),
                                 self.n_jobs)
        return total / len(self.estimators_)

    def get_metadata_routing(self):
        """Where the metadata go, as in scikit-learn 1.9.

        ``fit``'s keywords (not ``sample_weight``, which the draws consume) go
        to the members' ``fit``; a prediction method's keywords go to the
        members' method this ensemble calls (``predict`` uses the members'
        ``predict_proba`` when they have one, ``predict_log_proba`` falls back
        to ``predict_proba``, then to ``predict``).

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
            Used by scikit-learn's metadata routing (``enable_metadata_routing``).
        """
        template = self._template()
        mapping = MethodMapping().add(caller="fit", callee="fit")
        for caller, callee in self._routed_methods(template):
            mapping.add(caller=caller, callee=callee)
        return MetadataRouter(owner=self).add(estimator=template,
                                              method_mapping=mapping)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = member_allows_nan(self._template())
        tags.input_tags.sparse = _member_accepts_sparse(self._template())
        return tags


@fill_doc(**_DOC)
class BaggingClassifier(ClassifierMixin, _BaseBagging):
    """Bagging classifier: members on bootstrap samples, averaged votes.

    The notes' bagging (notes B §9.2): ``n_estimators`` members are fitted on
    bootstrap samples (uniform draws with replacement, ~63.2% distinct rows
    when ``max_samples=None``), optionally on random feature subsets, and
    vote. The out-of-bag estimate scores each training sample with only the
    members that did not draw it.

    Parameters
    ----------
    estimator : object, default=None
        The member template; ``None`` means
        ``skml.tree.DecisionTreeClassifier()`` (a full-depth CART tree).
    <draw parameters>
    oob_score : bool, default=False
        Compute the out-of-bag accuracy ``oob_score_``.
    <run parameters>

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members (fitted on encoded labels ``0..K-1``).
    <member attributes>
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_classes_ : int
        Number of classes.
    oob_score_ : float
        Out-of-bag accuracy (when ``oob_score=True``).
    oob_decision_function_ : ndarray of shape (n_samples, n_classes)
        Out-of-bag class probabilities of each training sample.
    <fitted_features>

    See Also
    --------
    sklearn.ensemble.BaggingClassifier : scikit-learn's bagging.
    AdaBoostClassifier : sequential, re-weighted members.

    Notes
    -----
    Aggregation follows scikit-learn: the mean of the members'
    ``predict_proba`` when they have one (soft voting), else the fraction of
    hard votes. Each member's seed is drawn from ``random_state`` before any
    fit, so results are identical for every ``n_jobs``. When the member
    takes ``sample_weight`` the bootstrap is passed as integer weights
    instead of copied rows. With ``sample_weight``, rows are drawn with
    probabilities proportional to the weights.

    Complexity: ``n_estimators`` member fits on ``max_samples`` rows.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.ensemble import BaggingClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = BaggingClassifier(n_estimators=10, oob_score=True, random_state=0)
    >>> clf = clf.fit(X, y)
    >>> bool(clf.oob_score_ > 0.9)
    True
    """

    _multi_output = False

    def _default(self):
        return DecisionTreeClassifier()

    def _encode_y(self, y, sample_weight):
        self.classes_, y_enc = encode_labels(y, min_classes=1, sample_weight=sample_weight)
        self.n_classes_ = len(self.classes_)
        return y_enc

    @fill_doc(X=PARAMETERS_X_TRAINING, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members on bootstrap samples of (X, y).

        <X>
        y : array-like of shape (n_samples,)
            Class labels.
        <metadata>

        <returns>
        """
        return self._fit(X, y, sample_weight, fit_params)

    @staticmethod
    def _routed_methods(template):
        """(caller, member method) pairs of the prediction methods."""
        proba = "predict_proba" if hasattr(template, "predict_proba") else "predict"
        log_proba = ("predict_log_proba" if hasattr(template, "predict_log_proba")
                     else proba)
        return [("predict", proba), ("predict_proba", proba),
                ("predict_log_proba", log_proba),
                ("decision_function", "decision_function")]

    def _member_proba(self, member, X, params=None):
        params = params or {}
        out = np.zeros((X.shape[0], self.n_classes_))
        cols = np.asarray(member.classes_, dtype=np.intp)
        if hasattr(member, "predict_proba"):
            out[:, cols] = member.predict_proba(X, **params.get("predict_proba", {}))
        else:
            votes = member.predict(X, **params.get("predict", {}))
            out[np.arange(X.shape[0]), np.asarray(votes).astype(np.intp)] = 1.0
        return out

    def _member_log_proba(self, member, X, params):
        out = np.full((X.shape[0], self.n_classes_), -np.inf)
        cols = np.asarray(member.classes_, dtype=np.intp)
        out[:, cols] = member.predict_log_proba(X, **params.get("predict_log_proba", {}))
        return out

    def _set_oob_score(self, X, y):
        votes = np.zeros((X.shape[0], self.n_classes_))
        for member, features, mask in zip(self.estimators_, self.estimators_features_,
                                          self._oob_masks()):
            if mask.any():
                votes[mask] += self._member_proba(member, X[mask][:, features])
        totals = votes.sum(axis=1, keepdims=True)
        if np.any(totals == 0):
            warnings.warn(_OOB_WARNING, UserWarning, stacklevel=4)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.oob_decision_function_ = votes / totals
        self.oob_score_ = float(np.mean(np.argmax(votes, axis=1) == y))

    @fill_doc(X=PARAMETERS_X_SAMPLES, params=_PROBA_PARAMS, returns=RETURNS_PROBA)
    def predict_proba(self, X, **params):
        """Mean of the members' class probabilities (or vote fractions).

        <X>
        <params>

        <returns>
        """
        return self._predict_proba(X, "predict_proba", params)

    def _predict_proba(self, X, caller, params):
        routed = self._member_params(caller, params)
        X = self._validate_X_predict(X)
        return self._mean_over_members(
            lambda member, Xf: self._member_proba(member, Xf, routed), X)

    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_LOG_PROBA)
    def predict_log_proba(self, X, **params):
        """Logarithm of :meth:`predict_proba`.

        With members that have ``predict_log_proba``, computed from their
        log-probabilities (``log(mean(exp(.)))``, as scikit-learn), so a
        member's -inf stays exact.

        <X>
        **params : dict
            Metadata for the members' ``predict_log_proba`` (else
            ``predict_proba``, else ``predict``), routed as they request it;
            only with ``sklearn.set_config(enable_metadata_routing=True)``.

        <returns>
        """
        check_is_fitted(self)
        if not hasattr(self.estimator_, "predict_log_proba"):
            with np.errstate(divide="ignore"):
                return np.log(self._predict_proba(X, "predict_log_proba", params))
        routed = self._member_params("predict_log_proba", params)
        X = self._validate_X_predict(X)
        log_proba = np.full((X.shape[0], self.n_classes_), -np.inf)
        for member, features in zip(self.estimators_, self.estimators_features_):
            log_proba = np.logaddexp(
                log_proba, self._member_log_proba(member, X[:, features], routed))
        return log_proba - np.log(len(self.estimators_))

    @available_if(_member_has("decision_function"))
    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def decision_function(self, X, **params):
        """Mean of the members' decision functions (as scikit-learn).

        Available when the member has ``decision_function``; the members are
        fitted on labels ``0..K-1``, so the columns follow ``classes_``.

        <X>
        **params : dict
            Metadata for the members' ``decision_function``, routed as they
            request it; only with
            ``sklearn.set_config(enable_metadata_routing=True)``.

        Returns
        -------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Mean decision values.
        """
        routed = self._member_params("decision_function", params)
        X = self._validate_X_predict(X)
        kw = routed.get("decision_function", {})
        return self._mean_over_members(
            lambda member, Xf: member.decision_function(Xf, **kw), X)

    @fill_doc(X=PARAMETERS_X_SAMPLES, params=_PROBA_PARAMS, returns=RETURNS_LABELS)
    def predict(self, X, **params):
        """The class with the largest mean probability.

        <X>
        <params>

        <returns>
        """
        proba = self._predict_proba(X, "predict", params)
        return self.classes_[np.argmax(proba, axis=1)]


@fill_doc(**_DOC)
class BaggingRegressor(RegressorMixin, _BaseBagging):
    """Bagging regressor: members on bootstrap samples, averaged predictions.

    The notes' bagging for regression (notes B §9.2): the members' outputs
    are averaged; the out-of-bag estimate averages, for each training
    sample, only the members that did not draw it.

    Parameters
    ----------
    estimator : object, default=None
        The member template; ``None`` means
        ``skml.tree.DecisionTreeRegressor()``.
    <draw parameters>
    oob_score : bool, default=False
        Compute the out-of-bag R^2 ``oob_score_``.
    <run parameters>

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    <member attributes>
    oob_score_ : float
        Out-of-bag R^2 (when ``oob_score=True``).
    oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Out-of-bag prediction of each training sample.
    <fitted_features>

    See Also
    --------
    sklearn.ensemble.BaggingRegressor : scikit-learn's bagging.
    BaggingClassifier : the classifier.

    Notes
    -----
    Same draws and seeding as :class:`BaggingClassifier`.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import BaggingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = BaggingRegressor(n_estimators=10, random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.8)
    True
    """

    # y of shape (n_samples, n_outputs) is taken when the members take it.
    _multi_output = True

    def _default(self):
        return DecisionTreeRegressor()

    def _encode_y(self, y, sample_weight):
        y = np.asarray(y, dtype=np.float64)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        return y

    @fill_doc(X=PARAMETERS_X_TRAINING, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members on bootstrap samples of (X, y).

        <X>
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.
        <metadata>

        <returns>
        """
        return self._fit(X, y, sample_weight, fit_params)

    @staticmethod
    def _routed_methods(template):
        return [("predict", "predict")]

    def _set_oob_score(self, X, y):
        sums = np.zeros(y.shape)
        counts = np.zeros(X.shape[0])
        for member, features, mask in zip(self.estimators_, self.estimators_features_,
                                          self._oob_masks()):
            if mask.any():
                sums[mask] += member.predict(X[mask][:, features])
                counts[mask] += 1
        if np.any(counts == 0):
            warnings.warn(_OOB_WARNING, UserWarning, stacklevel=4)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.oob_prediction_ = (sums.T / counts).T
        # R^2 over the samples that were out of bag at least once, averaged
        # over the outputs (scikit-learn's r2_score default).
        seen = counts > 0
        resid = y[seen] - self.oob_prediction_[seen]
        total = y[seen] - y[seen].mean(axis=0)
        r2 = 1.0 - (resid ** 2).sum(axis=0) / (total ** 2).sum(axis=0)
        self.oob_score_ = float(np.mean(r2))

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def predict(self, X, **params):
        """Mean of the members' predictions.

        <X>
        **params : dict
            Metadata for the members' ``predict``, routed as they request
            it; only with ``sklearn.set_config(enable_metadata_routing=True)``.

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predictions.
        """
        routed = self._member_params("predict", params)
        X = self._validate_X_predict(X)
        kw = routed.get("predict", {})
        return self._mean_over_members(lambda member, Xf: member.predict(Xf, **kw), X)
