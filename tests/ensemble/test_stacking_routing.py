"""Metadata routing through StackingClassifier/StackingRegressor (issue 21).

As scikit-learn 1.9: ``fit``'s metadata go to the members' ``fit`` as they
request them (and to the final estimator's ``fit`` as passed); ``predict``'s
go to the final estimator's ``predict``, routed when routing is on and
passed as they are when it is off. Without routing, ``fit`` keywords other
than ``sample_weight`` are an error.
"""

from functools import partial

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.datasets import load_diabetes, load_iris
from sklearn.exceptions import UnsetMetadataPassedError

from skml.ensemble import StackingClassifier, StackingRegressor
from skml.linear_model import LogisticRegression, Ridge
from tests._routing import Log


class _Recording:
    """Records the metadata its ``fit`` and ``predict`` receive."""

    def __init__(self, log=None):
        self.log = log

    def fit(self, X, y, sample_weight=None, groups=None):
        self.log.append(("fit", len(y), sample_weight, groups))
        self.classes_ = np.unique(y)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X, groups=None):
        self.log.append(("predict", len(X), None, groups))
        return np.full(len(X), self.classes_[0] if self._is_clf else self.mean_)


class RecordingClassifier(_Recording, ClassifierMixin, BaseEstimator):
    _is_clf = True

    def predict_proba(self, X):
        out = np.zeros((len(X), len(self.classes_)))
        out[:, 0] = 1.0
        return out


class RecordingRegressor(_Recording, RegressorMixin, BaseEstimator):
    _is_clf = False


CASES = [(StackingClassifier, RecordingClassifier, partial(LogisticRegression, max_iter=1000),
          load_iris),
         (StackingRegressor, RecordingRegressor, Ridge, load_diabetes)]


def _fits(log):
    return [entry for entry in log if entry[0] == "fit"]


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_fit_metadata_reach_the_requesting_members(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    groups = np.arange(len(y)) % 3
    weights = np.linspace(0.5, 1.5, len(y))
    log_a, log_b, log_final = Log(), Log(), Log()
    with sklearn.config_context(enable_metadata_routing=True):
        a = Recording(log_a).set_fit_request(sample_weight=True, groups=True)
        b = Recording(log_b).set_fit_request(sample_weight=False, groups=False)
        c = Plain().set_fit_request(sample_weight=True)
        stack = Stacking([("a", a), ("b", b), ("c", c)],
                         final_estimator=Recording(log_final), cv=3)
        stack.fit(X, y, sample_weight=weights, groups=groups)
    # Refit on all rows, then once per fold on the training rows.
    fits_a = _fits(log_a)
    assert len(fits_a) == 4
    assert fits_a[0][1] == len(y)
    np.testing.assert_array_equal(fits_a[0][2], weights)
    np.testing.assert_array_equal(fits_a[0][3], groups)
    assert all(n < len(y) and len(sw) == n and len(g) == n for _, n, sw, g in fits_a[1:])
    assert all(sw is None and g is None for _, _, sw, g in _fits(log_b))
    # The final estimator's fit gets fit's metadata as passed (scikit-learn 1.9).
    (_, n, sw, g), = _fits(log_final)
    np.testing.assert_array_equal(sw, weights)
    np.testing.assert_array_equal(g, groups)


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_predict_metadata_reach_the_final_estimator(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    groups = np.arange(len(y)) % 3
    log = Log()
    with sklearn.config_context(enable_metadata_routing=True):
        final = Recording(log).set_predict_request(groups=True)
        stack = Stacking([("p", Plain())], final_estimator=final, cv=3).fit(X, y)
        stack.predict(X[:7], groups=groups[:7])
    (_, n, _, g), = [entry for entry in log if entry[0] == "predict"]
    assert n == 7
    np.testing.assert_array_equal(g, groups[:7])


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_unrequested_metadata_is_an_error(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    with sklearn.config_context(enable_metadata_routing=True):
        stack = Stacking([("a", Recording(Log()))], final_estimator=Plain(), cv=3)
        with pytest.raises(UnsetMetadataPassedError, match="groups"):
            stack.fit(X, y, groups=np.zeros(len(y)))
        final = Recording(Log()).set_fit_request(groups=False)
        stack = Stacking([("p", Plain())], final_estimator=final, cv=3).fit(X, y)
        with pytest.raises(UnsetMetadataPassedError, match="groups"):
            stack.predict(X, groups=np.zeros(len(y)))


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_without_routing(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    # fit: only sample_weight passes; any other keyword is refused, before
    # the estimators list is even checked (as scikit-learn).
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Stacking([("a", Recording(Log()))]).fit(X, y, groups=np.zeros(len(y)))
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Stacking(["not", "a pair"]).fit(X, y, groups=np.zeros(len(y)))
    log = Log()
    weights = np.linspace(0.5, 1.5, len(y))
    stack = Stacking([("a", Recording(log))], final_estimator=Recording(Log()), cv=3)
    stack.fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(_fits(log)[0][2], weights)
    # predict: keywords go to the final estimator's predict as they are.
    final_log = Log()
    stack = Stacking([("p", Plain())], final_estimator=Recording(final_log), cv=3)
    stack.fit(X, y).predict(X[:5], groups="g")
    assert final_log[-1] == ("predict", 5, None, "g")


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_holdout_cuts_per_sample_metadata(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    groups = np.arange(len(y))
    log, final_log = Log(), Log()
    with sklearn.config_context(enable_metadata_routing=True):
        member = Recording(log).set_fit_request(groups=True)
        stack = Stacking([("a", member)], final_estimator=Recording(final_log),
                         cv="holdout", holdout_fraction=0.4, random_state=0)
        stack.fit(X, y, groups=groups)
    (_, n1, _, g1), = _fits(log)
    (_, n2, _, g2), = _fits(final_log)
    assert n1 + n2 == len(y) and len(g1) == n1 and len(g2) == n2
    # Each part gets its own rows' groups: together every row once.
    np.testing.assert_array_equal(np.sort(np.concatenate([g1, g2])), groups)


@pytest.mark.parametrize("Stacking, Recording, Plain, load", CASES)
def test_get_metadata_routing_before_and_after_fit(Stacking, Recording, Plain, load):
    X, y = load(return_X_y=True)
    with sklearn.config_context(enable_metadata_routing=True):
        stack = Stacking([("a", Recording(Log()).set_fit_request(groups=True)),
                          ("b", "drop")],
                         final_estimator=Recording(Log()).set_predict_request(groups=True))
        for _ in range(2):
            routing = stack.get_metadata_routing()
            assert routing.consumes("fit", ["groups", "other"]) == {"groups"}
            assert routing.consumes("predict", ["groups"]) == {"groups"}
            stack.set_params(cv=3).fit(X, y, groups=np.zeros(len(y)))


def test_routing_leaves_the_fitted_model_unchanged():
    X, y = load_iris(return_X_y=True)
    weights = np.linspace(0.5, 1.5, len(y))
    plain = StackingClassifier([("lr", LogisticRegression(max_iter=500))], cv=3)
    plain.fit(X, y, sample_weight=weights)
    with sklearn.config_context(enable_metadata_routing=True):
        routed = StackingClassifier(
            [("lr", LogisticRegression(max_iter=500).set_fit_request(sample_weight=True))],
            cv=3).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(routed.predict_proba(X), plain.predict_proba(X))


class _NoWeight:
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.mean_ = float(np.mean(y))
        return self


class NoWeightClassifier(_NoWeight, ClassifierMixin, BaseEstimator):
    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), 1.0 / len(self.classes_))


class NoWeightRegressor(_NoWeight, RegressorMixin, BaseEstimator):
    def predict(self, X):
        return np.full(len(X), self.mean_)


@pytest.mark.parametrize("Stacking, NoWeight, Plain, load", [
    (StackingClassifier, NoWeightClassifier, partial(LogisticRegression, max_iter=1000),
     load_iris),
    (StackingRegressor, NoWeightRegressor, Ridge, load_diabetes)])
def test_clear_errors(Stacking, NoWeight, Plain, load):
    X, y = load(return_X_y=True)
    w = np.ones(len(y))
    for members, final in [([("p", Plain()), ("n", NoWeight())], None),
                           ([("p", Plain())], NoWeight())]:
        with pytest.raises(TypeError, match="NoWeight.* does not support sample weights"):
            Stacking(members, final_estimator=final, cv=3).fit(X, y, sample_weight=w)
    with pytest.raises(ValueError, match="Invalid 'estimators' attribute"):
        Stacking([]).fit(X, y)
    if Stacking is StackingClassifier:
        with pytest.raises(ValueError, match="does not implement the method predict_proba"):
            Stacking([("r", NoWeightRegressor())], stack_method="predict_proba").fit(X, y)
