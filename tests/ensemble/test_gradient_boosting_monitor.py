"""GradientBoosting*: ``fit(monitor=)`` and the deprecated ``criterion`` (issue 21).

Both as scikit-learn 1.9: the monitor is called after each round as
``monitor(i, self, locals())`` and a true return stops the fit with rounds
``0..i`` kept; ``criterion`` is accepted, has no effect and warns.
"""

import warnings

import numpy as np
import pytest
from sklearn import ensemble as sken
from sklearn.datasets import make_classification, make_regression

from skml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor


def _data(GB):
    if GB is GradientBoostingClassifier:
        return make_classification(n_samples=200, n_features=5, n_classes=3,
                                   n_informative=3, random_state=0)
    return make_regression(n_samples=200, n_features=5, noise=5.0, random_state=0)


def _predict(gb, X):
    if isinstance(gb, GradientBoostingClassifier):
        return gb.predict_proba(X)
    return gb.predict(X)


@pytest.mark.parametrize("GB", [GradientBoostingClassifier, GradientBoostingRegressor])
@pytest.mark.parametrize("max_bins, subsample", [(None, 1.0), (256, 1.0), (256, 0.7)])
def test_monitor_stops_after_the_round_it_returns_true(GB, max_bins, subsample):
    X, y = _data(GB)
    seen = []

    def monitor(i, est, local_vars):
        seen.append((i, est, sorted(local_vars)))
        return i == 4

    kw = dict(n_estimators=20, max_depth=2, max_bins=max_bins, subsample=subsample,
              random_state=0)
    gb = GB(**kw).fit(X, y, monitor=monitor)
    assert [i for i, _, _ in seen] == [0, 1, 2, 3, 4]
    assert all(est is gb for _, est, _ in seen)
    assert "raw" in seen[0][2] and "y" in seen[0][2]
    assert gb.n_estimators_ == 5
    assert gb.estimators_.shape[0] == gb.train_score_.shape[0] == 5
    if subsample < 1.0:
        assert gb.oob_scores_.shape == gb.oob_improvement_.shape == (5,)
    # The same model as five rounds fitted without a monitor.
    five = GB(**{**kw, "n_estimators": 5}).fit(X, y)
    np.testing.assert_allclose(_predict(gb, X), _predict(five, X))
    np.testing.assert_allclose(gb.train_score_, five.train_score_)


@pytest.mark.parametrize("GB", [GradientBoostingClassifier, GradientBoostingRegressor])
def test_monitor_false_runs_every_round_and_counts_over_warm_starts(GB):
    X, y = _data(GB)
    seen = []
    gb = GB(n_estimators=6, max_depth=2, random_state=0, warm_start=True)
    gb.fit(X, y, monitor=lambda i, est, local_vars: seen.append(i))
    gb.set_params(n_estimators=9).fit(X, y, monitor=lambda i, est, lv: seen.append(i))
    assert seen == list(range(9))
    assert gb.n_estimators_ == 9


@pytest.mark.parametrize("GB, SkGB", [
    (GradientBoostingClassifier, sken.GradientBoostingClassifier),
    (GradientBoostingRegressor, sken.GradientBoostingRegressor)])
def test_monitor_matches_scikit_learn(GB, SkGB):
    X, y = _data(GB)

    def stop_at_7(i, est, local_vars):
        return i >= 6

    ours = GB(n_estimators=30, max_bins=None, random_state=0).fit(X, y, monitor=stop_at_7)
    theirs = SkGB(n_estimators=30, random_state=0).fit(X, y, monitor=stop_at_7)
    assert ours.n_estimators_ == theirs.n_estimators_ == 7
    assert ours.estimators_.shape == theirs.estimators_.shape


def test_monitor_must_be_callable():
    X, y = _data(GradientBoostingRegressor)
    with pytest.raises(TypeError, match="monitor must be a callable"):
        GradientBoostingRegressor(n_estimators=2).fit(X, y, monitor=3)


@pytest.mark.parametrize("GB", [GradientBoostingClassifier, GradientBoostingRegressor])
@pytest.mark.parametrize("max_bins", [None, 256])
def test_criterion_is_deprecated_and_has_no_effect(GB, max_bins):
    X, y = _data(GB)
    kw = dict(n_estimators=10, max_depth=3, max_bins=max_bins, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        default = GB(**kw).fit(X, y)  # the default warns not
    assert default.criterion == "deprecated"
    for criterion in ("friedman_mse", "squared_error"):
        with pytest.warns(FutureWarning, match="`criterion` is deprecated"):
            gb = GB(criterion=criterion, **kw).fit(X, y)
        np.testing.assert_array_equal(_predict(gb, X), _predict(default, X))
    with pytest.raises(ValueError, match="criterion"):
        GB(criterion="gini", **kw).fit(X, y)
