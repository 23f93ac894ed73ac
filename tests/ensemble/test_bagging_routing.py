"""Metadata routing through BaggingClassifier/BaggingRegressor (issue 21).

As scikit-learn 1.9: ``fit``'s metadata (not ``sample_weight``, which the
draws consume) go to the members' ``fit``, per-sample ones cut to the rows
drawn when the rows are indexed; a prediction method's metadata go to the
member method it calls. Without routing any such keyword is an error.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.datasets import load_diabetes, load_iris
from sklearn.exceptions import UnsetMetadataPassedError

from skml.ensemble import BaggingClassifier, BaggingRegressor
from skml.linear_model import LogisticRegression
from skml.tree import DecisionTreeClassifier
from tests._routing import Log


class _Base:
    def __init__(self, log=None):
        self.log = log

    def _record(self, method, n, **metadata):
        self.log.append((method, n, metadata))


class IndexedClassifier(_Base, ClassifierMixin, BaseEstimator):
    """No sample_weight in fit: bagging indexes the rows drawn."""

    def fit(self, X, y, groups=None):
        self._record("fit", len(y), groups=groups)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X, groups=None):
        self._record("predict", len(X), groups=groups)
        return np.full(len(X), self.classes_[0])


class FullClassifier(IndexedClassifier):
    """Takes sample_weight and has every prediction method."""

    def fit(self, X, y, sample_weight=None, groups=None):
        self._record("fit", len(y), sample_weight=sample_weight, groups=groups)
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X, groups=None):
        self._record("predict_proba", len(X), groups=groups)
        out = np.zeros((len(X), len(self.classes_)))
        out[:, 0] = 1.0
        return out

    def predict_log_proba(self, X, groups=None):
        self._record("predict_log_proba", len(X), groups=groups)
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def decision_function(self, X, groups=None):
        self._record("decision_function", len(X), groups=groups)
        return np.zeros((len(X), len(self.classes_)))


class ProbaClassifier(IndexedClassifier):
    """predict_proba but no predict_log_proba."""

    def predict_proba(self, X, groups=None):
        self._record("predict_proba", len(X), groups=groups)
        return np.full((len(X), len(self.classes_)), 1.0 / len(self.classes_))


class RecordingRegressor(_Base, RegressorMixin, BaseEstimator):
    def fit(self, X, y, groups=None):
        self._record("fit", len(y), groups=groups)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X, groups=None):
        self._record("predict", len(X), groups=groups)
        return np.full(len(X), self.mean_)


def _entries(log, method):
    return [(n, md) for m, n, md in log if m == method]


@pytest.mark.parametrize("Bagging, Member, load", [
    (BaggingClassifier, IndexedClassifier, load_iris),
    (BaggingRegressor, RecordingRegressor, load_diabetes)])
def test_fit_metadata_cut_to_the_rows_drawn(Bagging, Member, load):
    X, y = load(return_X_y=True)
    groups = np.arange(len(y))
    log = Log()
    with sklearn.config_context(enable_metadata_routing=True):
        bag = Bagging(Member(log).set_fit_request(groups=True), n_estimators=3,
                      max_samples=0.5, random_state=0).fit(X, y, groups=groups)
    fits = _entries(log, "fit")
    assert len(fits) == 3
    for (n, md), samples in zip(fits, bag.estimators_samples_):
        assert n == len(samples) == len(y) // 2
        np.testing.assert_array_equal(md["groups"], groups[samples])


def test_weighted_member_gets_counts_and_all_rows_metadata():
    X, y = load_iris(return_X_y=True)
    groups = np.arange(len(y))
    log = Log()
    with sklearn.config_context(enable_metadata_routing=True):
        member = FullClassifier(log).set_fit_request(sample_weight=True, groups=True)
        bag = BaggingClassifier(member, n_estimators=2, random_state=0).fit(
            X, y, sample_weight=np.ones(len(y)), groups=groups)
    for (n, md), samples in zip(_entries(log, "fit"), bag.estimators_samples_):
        assert n == len(y)
        np.testing.assert_array_equal(md["groups"], groups)
        np.testing.assert_array_equal(md["sample_weight"],
                                      np.bincount(samples, minlength=len(y)))


@pytest.mark.parametrize("Member, caller, callee", [
    (FullClassifier, "predict", "predict_proba"),
    (FullClassifier, "predict_proba", "predict_proba"),
    (FullClassifier, "predict_log_proba", "predict_log_proba"),
    (FullClassifier, "decision_function", "decision_function"),
    (ProbaClassifier, "predict_log_proba", "predict_proba"),
    (IndexedClassifier, "predict", "predict"),
    (IndexedClassifier, "predict_log_proba", "predict"),
])
def test_prediction_metadata_reach_the_member_method_called(Member, caller, callee):
    X, y = load_iris(return_X_y=True)
    log = Log()
    with sklearn.config_context(enable_metadata_routing=True):
        member = getattr(Member(log), f"set_{callee}_request")(groups=True)
        bag = BaggingClassifier(member, n_estimators=2, random_state=0).fit(X, y)
        getattr(bag, caller)(X[:4], groups="g")
    calls = _entries(log, callee)
    assert len(calls) == 2
    assert all(n == 4 and md == {"groups": "g"} for n, md in calls)


def test_regressor_predict_metadata_and_errors():
    X, y = load_diabetes(return_X_y=True)
    log = Log()
    with sklearn.config_context(enable_metadata_routing=True):
        bag = BaggingRegressor(RecordingRegressor(log).set_predict_request(groups=True),
                               n_estimators=2, random_state=0).fit(X, y)
        bag.predict(X[:3], groups="g")
        assert _entries(log, "predict") == [(3, {"groups": "g"})] * 2
        bag = BaggingRegressor(RecordingRegressor(Log()), n_estimators=2).fit(X, y)
        with pytest.raises(UnsetMetadataPassedError, match="groups"):
            bag.predict(X, groups="g")
        with pytest.raises(UnsetMetadataPassedError, match="groups"):
            bag.fit(X, y, groups=np.zeros(len(y)))


@pytest.mark.parametrize("Bagging, Member, load", [
    (BaggingClassifier, FullClassifier, load_iris),
    (BaggingRegressor, RecordingRegressor, load_diabetes)])
def test_without_routing_keywords_are_refused(Bagging, Member, load):
    X, y = load(return_X_y=True)
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Bagging(Member(Log())).fit(X, y, groups=np.zeros(len(y)))
    bag = Bagging(Member(Log()), n_estimators=2).fit(X, y, sample_weight=np.ones(len(y)))
    methods = ["predict"] + (["predict_proba", "predict_log_proba", "decision_function"]
                             if Bagging is BaggingClassifier else [])
    for method in methods:
        with pytest.raises(ValueError, match=f"{method} is only supported if"):
            getattr(bag, method)(X, groups="g")


def test_decision_function_is_the_members_mean():
    X, y = load_iris(return_X_y=True)
    bag = BaggingClassifier(LogisticRegression(max_iter=1000), n_estimators=4,
                            random_state=0).fit(X, y)
    expected = np.mean([m.decision_function(X[:, f]) for m, f in
                        zip(bag.estimators_, bag.estimators_features_)], axis=0)
    np.testing.assert_allclose(bag.decision_function(X), expected)
    assert bag.decision_function(X).shape == (len(y), 3)
    assert not hasattr(BaggingClassifier(DecisionTreeClassifier()), "decision_function")


def test_log_proba_from_member_log_probabilities():
    X, y = load_iris(return_X_y=True)
    bag = BaggingClassifier(LogisticRegression(max_iter=1000), n_estimators=4,
                            max_samples=0.3, random_state=0).fit(X, y)
    np.testing.assert_allclose(bag.predict_log_proba(X), np.log(bag.predict_proba(X)),
                               rtol=1e-10, atol=1e-12)
