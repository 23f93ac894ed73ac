"""Results do not depend on the joblib backend (issue 19).

An active ``joblib.parallel_backend("loky")`` overrides ``prefer="threads"``,
so work split over processes must return its results rather than write
into arrays shared with the caller. Fit and predict under loky with
``n_jobs=2`` must equal ``n_jobs=1``, bit for bit.
"""

import joblib
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from skml.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    StackingClassifier,
    VotingClassifier,
)
from skml.tree import DecisionTreeClassifier

# 1000 rows: the forests predict on threads from 1000 rows on; 16 members:
# two tasks of 8 members each.
X_CLF, Y_CLF = make_classification(1000, 5, n_informative=3, random_state=0)
X_REG, Y_REG = make_regression(1000, 5, noise=1.0, random_state=0)


def _outputs(est, X, y):
    est.fit(X, y)
    out = {"predict": est.predict(X)}
    if hasattr(est, "predict_proba"):
        out["predict_proba"] = est.predict_proba(X)
    if hasattr(est, "apply"):
        out["apply"] = est.apply(X)
        indicator, ptr = est.decision_path(X)
        out["decision_path"] = indicator.toarray()
        out["n_nodes_ptr"] = ptr
    for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        if hasattr(est, name):
            out[name] = getattr(est, name)
    return out


CASES = {
    "RandomForestClassifier": (lambda n_jobs: RandomForestClassifier(
        16, max_depth=6, oob_score=True, random_state=0, n_jobs=n_jobs), X_CLF, Y_CLF),
    "RandomForestRegressor": (lambda n_jobs: RandomForestRegressor(
        16, max_depth=6, oob_score=True, random_state=0, n_jobs=n_jobs), X_REG, Y_REG),
    "BaggingClassifier": (lambda n_jobs: BaggingClassifier(
        DecisionTreeClassifier(max_depth=6), 16, max_features=0.8, oob_score=True,
        random_state=0, n_jobs=n_jobs), X_CLF, Y_CLF),
    "BaggingRegressor": (lambda n_jobs: BaggingRegressor(
        n_estimators=16, oob_score=True, random_state=0, n_jobs=n_jobs), X_REG, Y_REG),
    "VotingClassifier": (lambda n_jobs: VotingClassifier(
        [("a", DecisionTreeClassifier(max_depth=3, random_state=0)),
         ("b", DecisionTreeClassifier(max_depth=5, random_state=1))],
        voting="soft", n_jobs=n_jobs), X_CLF, Y_CLF),
    "StackingClassifier": (lambda n_jobs: StackingClassifier(
        [("a", DecisionTreeClassifier(max_depth=3, random_state=0)),
         ("b", DecisionTreeClassifier(max_depth=5, random_state=1))],
        cv=3, n_jobs=n_jobs), X_CLF, Y_CLF),
}


@pytest.mark.parametrize("name", list(CASES))
def test_loky_backend_gives_the_single_job_result(name):
    make, X, y = CASES[name]
    expected = _outputs(make(1), X, y)
    with joblib.parallel_backend("loky"):
        got = _outputs(make(2), X, y)
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
