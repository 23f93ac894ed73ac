"""Metadata routing through VotingClassifier/VotingRegressor (issue 21).

scikit-learn's routing (``enable_metadata_routing=True``) sends ``fit``
keywords to the members that request them; without it only
``sample_weight`` passes and anything else is a clear error.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.datasets import load_diabetes, load_iris
from sklearn.exceptions import UnsetMetadataPassedError

from skml.ensemble import VotingClassifier, VotingRegressor
from skml.linear_model import LogisticRegression, Ridge
from tests._routing import Log


class _Recording:
    """A member that records the metadata its ``fit`` received."""

    def __init__(self, log=None):
        self.log = log

    def fit(self, X, y, sample_weight=None, groups=None):
        self.log.append({"sample_weight": sample_weight, "groups": groups})
        self.classes_ = np.unique(y)
        self.mean_ = float(np.mean(y))
        return self


class RecordingClassifier(_Recording, ClassifierMixin, BaseEstimator):
    def predict(self, X):
        return np.full(len(X), self.classes_[0])

    def predict_proba(self, X):
        out = np.zeros((len(X), len(self.classes_)))
        out[:, 0] = 1.0
        return out


class RecordingRegressor(_Recording, RegressorMixin, BaseEstimator):
    def predict(self, X):
        return np.full(len(X), self.mean_)


CASES = [(VotingClassifier, RecordingClassifier, LogisticRegression, load_iris),
         (VotingRegressor, RecordingRegressor, Ridge, load_diabetes)]


@pytest.mark.parametrize("Voting, Recording, Plain, load", CASES)
def test_requested_metadata_reach_only_the_requesting_member(Voting, Recording, Plain,
                                                             load):
    X, y = load(return_X_y=True)
    groups = np.arange(len(y)) % 3
    weights = np.linspace(0.5, 1.5, len(y))
    log_a, log_b = Log(), Log()
    with sklearn.config_context(enable_metadata_routing=True):
        a = Recording(log_a).set_fit_request(sample_weight=True, groups=True)
        b = Recording(log_b).set_fit_request(sample_weight=False, groups=False)
        c = Plain().set_fit_request(sample_weight=True)
        Voting([("a", a), ("b", b), ("c", c)]).fit(X, y, sample_weight=weights,
                                                   groups=groups)
    np.testing.assert_array_equal(log_a[0]["groups"], groups)
    np.testing.assert_array_equal(log_a[0]["sample_weight"], weights)
    assert log_b == [{"sample_weight": None, "groups": None}]


@pytest.mark.parametrize("Voting, Recording, Plain, load", CASES)
def test_unrequested_metadata_is_an_error(Voting, Recording, Plain, load):
    X, y = load(return_X_y=True)
    with sklearn.config_context(enable_metadata_routing=True):
        voting = Voting([("a", Recording(Log()))])
        with pytest.raises(UnsetMetadataPassedError, match="groups"):
            voting.fit(X, y, groups=np.zeros(len(y)))


@pytest.mark.parametrize("Voting, Recording, Plain, load", CASES)
def test_without_routing_only_sample_weight_passes(Voting, Recording, Plain, load):
    X, y = load(return_X_y=True)
    log = Log()
    Voting([("a", Recording(log))]).fit(X, y, sample_weight=np.ones(len(y)))
    np.testing.assert_array_equal(log[0]["sample_weight"], np.ones(len(y)))
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        Voting([("a", Recording(Log()))]).fit(X, y, groups=np.zeros(len(y)))


def test_routing_leaves_the_fitted_model_unchanged():
    X, y = load_iris(return_X_y=True)
    weights = np.linspace(0.5, 1.5, len(y))
    members = [("lr", LogisticRegression(max_iter=500))]
    plain = VotingClassifier(members, voting="soft").fit(X, y, sample_weight=weights)
    with sklearn.config_context(enable_metadata_routing=True):
        routed_members = [("lr", LogisticRegression(max_iter=500)
                           .set_fit_request(sample_weight=True))]
        routed = VotingClassifier(routed_members, voting="soft").fit(
            X, y, sample_weight=weights)
    np.testing.assert_allclose(routed.predict_proba(X), plain.predict_proba(X))


def test_scikit_learn_error_messages():
    X, y = load_iris(return_X_y=True)
    lr = LogisticRegression(max_iter=500)
    for estimators in ([], [lr], [(213, lr)]):
        with pytest.raises(ValueError, match="Invalid 'estimators' attribute, "
                                             "'estimators' should be a non-empty list"):
            VotingClassifier(estimators).fit(X, y)
    with pytest.raises(ValueError, match="Number of `estimators` and weights must be"):
        VotingClassifier([("lr", lr)], weights=[1, 2]).fit(X, y)
    with pytest.raises(ValueError, match="All estimators are dropped"):
        VotingClassifier([("lr", "drop")]).fit(X, y)

    class NoWeight(RecordingClassifier):
        def fit(self, X, y):
            return super().fit(X, y)

    with pytest.raises(TypeError, match="Underlying estimator NoWeight does not support "
                                        "sample weights"):
        VotingClassifier([("n", NoWeight(Log()))]).fit(X, y, sample_weight=np.ones(len(y)))
