"""Decision fusion: hard, soft and weighted voting (notes B §9.7)."""

import time
from numbers import Integral, Real

import numpy as np
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.multiclass import type_of_target
from sklearn.base import (BaseEstimator, ClassifierMixin, RegressorMixin,
                          TransformerMixin, clone, is_classifier)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ..utils import Options, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES,
                                 PARAMETERS_IGNORED_INPUT_FEATURES,
                                 PARAMETERS_X_SAMPLES, RETURNS_LABELS, RETURNS_PROBA,
                                 fill_doc)
from ._base import (MEMBERS_FIT_X, RETURNS_FITTED_ENSEMBLE, _DelegatedInputMixin,
                    _NamedEstimatorsMixin, check_named_estimators, check_target_1d,
                    fit_member, fit_router, fitted_member_names, members_take_sparse,
                    named_members, refuse_unrouted, route_fit_params, timed_message)

__all__ = ["VotingClassifier", "VotingRegressor"]

_REFERENCES = """
References
----------
Z.-H. Zhou, *Machine Learning*, §8.4 (combination strategies).
"""
_FIT_METADATA = """
sample_weight : array-like of shape (n_samples,), default=None
    Passed to every member's ``fit`` when given.
**fit_params : dict
    Other metadata for the members' ``fit``, routed as they request
    it; only with ``sklearn.set_config(enable_metadata_routing=True)``.
"""


def _fit_timed(est, X, y, verbose, owner, message, fit_params):
    """Fit one member; with ``verbose``, print a line with its fit time after,
    ``[Voting] .... (1 of 2) Processing lr, total=   0.0s`` as scikit-learn."""
    start = time.perf_counter()
    est = fit_member(est, X, y, owner=owner, fit_params=fit_params)
    if verbose:
        print(timed_message("Voting", message, time.perf_counter() - start),
              flush=True)
    return est


class _BaseVoting(_DelegatedInputMixin, _NamedEstimatorsMixin, TransformerMixin,
                  BaseEstimator):
    def _fit_members(self, X, y, sample_weight, fit_params):
        refuse_unrouted(self, fit_params)  # before any other check, as scikit-learn
        owner = type(self).__name__
        kept = check_named_estimators(
            self.estimators, owner, ensemble=self,
            member_type="classifier" if is_classifier(self) else "regressor")
        n_all = len(self.estimators)
        if self.weights is not None and len(self.weights) != n_all:
            raise ValueError(
                f"{owner}: Number of `estimators` and weights must be equal; got "
                f"{len(self.weights)} weights, {n_all} estimators."
            )
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, np.empty((len(y), 0)))
        member_params = route_fit_params(self, [name for name, _ in kept],
                                         sample_weight, fit_params)
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_timed)(clone(est), X, y, self.verbose, owner,
                                f"({i} of {len(kept)}) Processing {name}",
                                member_params[name])
            for i, (name, est) in enumerate(kept, start=1)
        )
        self.estimators_ = list(fitted)
        self.named_estimators_ = named_members(self.estimators, fitted)
        return self

    def get_metadata_routing(self):
        """Where ``fit``'s metadata go: each member's ``fit``, as requested.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
            Used by scikit-learn's metadata routing (``enable_metadata_routing``).
        """
        return fit_router(self, self.estimators)

    def _member_weights(self):
        if self.weights is None:
            return None
        return np.array([w for w, (_, est) in zip(self.weights, self.estimators)
                         if not (isinstance(est, str) and est == "drop")], dtype=float)

    def _check_X(self, X):
        # The members validate X (see _DelegatedInputMixin).
        check_is_fitted(self)
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Hard voting transforms to integer labels.
        tags.transformer_tags.preserves_dtype = []
        # X goes to the members unchanged (never densified here): sparse X
        # is taken when every member takes it, as scikit-learn declares.
        tags.input_tags.sparse = members_take_sparse(self.estimators)
        return tags


def _check_classification_target(y, owner):
    """scikit-learn's refusals: continuous y, then multilabel / multi-output y."""
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    try:
        y_type = type_of_target(y, input_name="y")
    except TypeError:  # unsortable mixed labels: encode_labels says so
        return
    if y_type == "unknown":
        return  # mixed or odd labels: encode_labels says what is wrong
    if y_type == "continuous":
        raise ValueError(
            f"Unknown label type: {y_type}. {owner} expects discrete classes, "
            "not a regression target with continuous values."
        )
    if y_type not in ("binary", "multiclass"):
        raise NotImplementedError(
            f"{owner} only supports binary or multiclass classification. "
            f"Multilabel and multi-output classification are not supported "
            f"(y is {y_type})."
        )


@fill_doc(fitted_features=FITTED_FEATURE_ATTRIBUTES, references=_REFERENCES)
class VotingClassifier(ClassifierMixin, _BaseVoting):
    """Voting classifier: plurality, absolute-majority or soft fusion.

    The notes' decision fusion (notes B §9.7, D3 "决策融合策略"): each member
    predicts; hard voting returns the label with the most (weighted) votes
    (plurality), absolute-majority voting returns a label only when it gets
    more than half of the (weighted) votes and rejects the sample otherwise,
    soft voting returns the argmax of the (weighted) mean of the members'
    ``predict_proba``. Members are any scikit-learn-compatible classifiers,
    skml's or not. X goes to the members unchanged, never densified: sparse
    X is taken when the members take it.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The named members; a member given as ``"drop"`` is left out.
    voting : {"hard", "soft", "majority"}, default="hard"
        Plurality of predicted labels ("hard", scikit-learn's), argmax of the
        mean probabilities ("soft", scikit-learn's), or the notes' absolute
        majority with a reject option ("majority": a label wins only with
        strictly more than half of the total vote weight, else the sample is
        rejected and :meth:`predict` returns ``reject_label`` for it).
    weights : array-like of shape (n_estimators,), default=None
        Weight of each member's vote or probabilities; equal when None.
    reject_label : int, float or str, default=-1
        What :meth:`predict` returns for a rejected sample with
        ``voting="majority"`` (ignored otherwise). It must not be one of the
        class labels. The predictions have the labels' dtype when
        ``reject_label`` is of the same kind (numbers with numbers, strings
        with strings), else dtype object.
    n_jobs : int, default=None
        Members fitted in parallel (joblib).
    flatten_transform : bool, default=True
        With soft voting, :meth:`transform` returns (n_samples,
        n_estimators * n_classes) when True, (n_estimators, n_samples,
        n_classes) when False.
    verbose : bool, default=False
        Print a line per fitted member, with its fit time, after its fit.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members (not dropped), fitted on labels ``0..K-1``.
    le_ : LabelEncoder
        Maps the labels of ``classes_`` to the members' ``0..K-1``.
    named_estimators_ : :class:`~sklearn.utils.Bunch`
        The fitted members by name; a dropped member is ``"drop"``.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    <fitted_features>

    See Also
    --------
    sklearn.ensemble.VotingClassifier : scikit-learn's voting.
    StackingClassifier : a learnt combination instead of a vote.

    Notes
    -----
    Ties in hard voting go to the class that comes first in ``classes_``,
    as in scikit-learn. With ``voting="majority"`` a tie can never win (no
    label has more than half), so with two members that disagree the
    sample is rejected; :meth:`score` counts a rejected sample as an error.
    Cost: the members' fits and predictions.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.ensemble import VotingClassifier
    >>> from skml.linear_model import LogisticRegression
    >>> from skml.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> vote = VotingClassifier([("lr", LogisticRegression()),
    ...                          ("tree", DecisionTreeClassifier(max_depth=3))],
    ...                         voting="soft").fit(X, y)
    >>> vote.predict(X[:2]).tolist()
    [0, 0]
    """

    _parameter_constraints = {
        "estimators": [list],
        "voting": [Options({"hard", "soft", "majority"})],
        "weights": [None, "array-like"],
        "reject_label": [Integral, Real, str],
        "n_jobs": [None, Integral],
        "flatten_transform": ["boolean"],
        "verbose": ["verbose"],
    }

    def __init__(self, estimators, *, voting="hard", weights=None, reject_label=-1,
                 n_jobs=None, flatten_transform=True, verbose=False):
        self.estimators = estimators
        self.voting = voting
        self.weights = weights
        self.reject_label = reject_label
        self.n_jobs = n_jobs
        self.flatten_transform = flatten_transform
        self.verbose = verbose

    @fill_doc(X=MEMBERS_FIT_X, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit every member on (X, y), with the labels encoded ``0..K-1``.

        <X>
        y : array-like of shape (n_samples,)
            Class labels.
        <metadata>

        <returns>
        """
        validate_params(self)
        _check_classification_target(y, "VotingClassifier")
        y = check_target_1d(y, "VotingClassifier")
        self.classes_, y_enc = encode_labels(y)
        if self.voting == "majority" and np.isin(
                np.asarray([self.reject_label], dtype=object),
                self.classes_.astype(object)).any():
            raise ValueError(
                f"VotingClassifier: reject_label={self.reject_label!r} is one of the "
                "class labels; choose a value that no class uses."
            )
        # scikit-learn's attribute: the encoder from labels to 0..K-1.
        self.le_ = LabelEncoder().fit(self.classes_)
        return self._fit_members(X, y_enc, sample_weight, fit_params)

    def _probas(self, X):
        return np.asarray([est.predict_proba(X) for est in self.estimators_])

    def _votes(self, X):
        return np.column_stack([np.asarray(est.predict(X)).astype(np.intp)
                                for est in self.estimators_])

    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_LABELS)
    def predict(self, X):
        """The (weighted) plurality label, or the argmax of the mean probability.

        <X>

        <returns>
        """
        X = self._check_X(X)
        if self.voting == "soft":
            return self.classes_[np.argmax(self._mean_proba(X), axis=1)]
        tally = self._tally(X)
        # argmax returns the first maximum: ties go to the earliest class.
        winner = np.argmax(tally, axis=1)
        if self.voting == "hard":
            return self.classes_[winner]
        # The notes' absolute majority: strictly more than half the weight.
        accepted = tally[np.arange(len(winner)), winner] > 0.5 * tally.sum(axis=1)
        return self._with_rejects(self.classes_[winner], accepted)

    def _tally(self, X):
        """Vote weight of each class per sample, (n_samples, n_classes)."""
        votes = self._votes(X)
        w = self._member_weights()
        w = np.ones(votes.shape[1]) if w is None else w
        tally = np.zeros((votes.shape[0], len(self.classes_)))
        for j in range(votes.shape[1]):
            tally[np.arange(votes.shape[0]), votes[:, j]] += w[j]
        return tally

    def _with_rejects(self, labels, accepted):
        reject = np.asarray(self.reject_label)
        numeric = {"i", "u", "f"}
        same_kind = (labels.dtype.kind in numeric and reject.dtype.kind in numeric) or (
            labels.dtype.kind == reject.dtype.kind == "U")
        dtype = np.result_type(labels, reject) if same_kind else object
        out = labels.astype(dtype)
        out[~accepted] = self.reject_label
        return out

    def _mean_proba(self, X):
        return np.average(self._probas(X), axis=0, weights=self._member_weights())

    def _soft(self):
        if self.voting != "soft":
            raise AttributeError(
                f"predict_proba is not available when voting={self.voting!r}"
            )
        return True

    @available_if(_soft)
    @fill_doc(X=PARAMETERS_X_SAMPLES, returns=RETURNS_PROBA)
    def predict_proba(self, X):
        """Weighted mean of the members' class probabilities (soft voting only).

        <X>

        <returns>
        """
        return self._mean_proba(self._check_X(X))

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def transform(self, X):
        """The members' outputs: probabilities (soft) or predicted labels (hard).

        <X>

        Returns
        -------
        out : ndarray
            Soft: (n_samples, n_estimators * n_classes) if
            ``flatten_transform`` else (n_estimators, n_samples, n_classes).
            Hard: (n_samples, n_estimators) encoded labels.
        """
        X = self._check_X(X)
        if self.voting == "soft":
            probas = self._probas(X)
            return np.hstack(list(probas)) if self.flatten_transform else probas
        return self._votes(X)

    @fill_doc(input_features=PARAMETERS_IGNORED_INPUT_FEATURES)
    def get_feature_names_out(self, input_features=None):
        """Names of the :meth:`transform` columns (per member, and class if soft).

        <input_features>

        Returns
        -------
        names : ndarray of str
            ``votingclassifier_<name>[<class>]``.
        """
        self._check_input_features(input_features)
        if self.voting == "soft" and not self.flatten_transform:
            # transform is then 3-d (n_estimators, n_samples, n_classes): no columns.
            raise ValueError(
                "get_feature_names_out is not supported when `voting='soft'` and "
                "`flatten_transform=False`: transform then returns a 3-d array."
            )
        prefix = type(self).__name__.lower()
        names = fitted_member_names(self.named_estimators_)
        if self.voting == "soft" and self.flatten_transform:
            return np.asarray([f"{prefix}_{n}{k}" for n in names
                               for k in range(len(self.classes_))], dtype=object)
        return np.asarray([f"{prefix}_{n}" for n in names], dtype=object)


@fill_doc(fitted_features=FITTED_FEATURE_ATTRIBUTES, references=_REFERENCES)
class VotingRegressor(RegressorMixin, _BaseVoting):
    """Voting regressor: the (weighted) mean of the members' predictions.

    The notes' averaging fusion (notes B §9.7, simple or weighted average).

    Parameters
    ----------
    estimators : list of (str, estimator)
        The named members; a member given as ``"drop"`` is left out.
    weights : array-like of shape (n_estimators,), default=None
        Weights of the average; equal when None.
    n_jobs : int, default=None
        Members fitted in parallel (joblib).
    verbose : bool, default=False
        Print a line per fitted member, with its fit time, after its fit.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members (not dropped).
    named_estimators_ : :class:`~sklearn.utils.Bunch`
        The fitted members by name; a dropped member is ``"drop"``.
    <fitted_features>

    See Also
    --------
    sklearn.ensemble.VotingRegressor : scikit-learn's.
    StackingRegressor : a learnt combination.

    Notes
    -----
    X goes to the members unchanged, never densified: sparse X is taken
    when the members take it. Multi-output y is refused, as scikit-learn
    1.9 refuses it ("y should be a 1d array"). Cost: the members' fits and
    predictions.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import VotingRegressor
    >>> from skml.linear_model import Ridge
    >>> from skml.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = VotingRegressor([("ridge", Ridge()),
    ...                        ("tree", DecisionTreeRegressor(max_depth=3))]).fit(X, y)
    >>> bool(reg.score(X, y) > 0.4)
    True
    """

    _parameter_constraints = {
        "estimators": [list],
        "weights": [None, "array-like"],
        "n_jobs": [None, Integral],
        "verbose": ["verbose"],
    }

    def __init__(self, estimators, *, weights=None, n_jobs=None, verbose=False):
        self.estimators = estimators
        self.weights = weights
        self.n_jobs = n_jobs
        self.verbose = verbose

    @fill_doc(X=MEMBERS_FIT_X, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit every member on (X, y).

        <X>
        y : array-like of shape (n_samples,)
            Targets.
        <metadata>

        <returns>
        """
        validate_params(self)
        y = check_target_1d(y, "VotingRegressor")
        return self._fit_members(X, y, sample_weight, fit_params)

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def predict(self, X):
        """The (weighted) mean of the members' predictions.

        <X>

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predictions.
        """
        return np.average(self.transform(X), axis=1, weights=self._member_weights())

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def transform(self, X):
        """Each member's prediction, one column per member.

        <X>

        Returns
        -------
        predictions : ndarray of shape (n_samples, n_estimators)
            The members' predictions.
        """
        X = self._check_X(X)
        return np.column_stack([est.predict(X) for est in self.estimators_])

    @fill_doc(input_features=PARAMETERS_IGNORED_INPUT_FEATURES)
    def get_feature_names_out(self, input_features=None):
        """Names of the :meth:`transform` columns.

        <input_features>

        Returns
        -------
        names : ndarray of str
            ``votingregressor_<name>``.
        """
        self._check_input_features(input_features)
        return np.asarray([f"votingregressor_{n}"
                           for n in fitted_member_names(self.named_estimators_)],
                          dtype=object)
