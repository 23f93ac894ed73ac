"""named_estimators_ keeps a dropped member as "drop", as scikit-learn's
(its ensemble/tests/test_common.py::test_ensemble_heterogeneous_estimators_behavior)."""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from skml.ensemble import (
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from skml.linear_model import LinearRegression, LogisticRegression
from skml.naive_bayes import GaussianNB
from skml.neighbors import KNeighborsClassifier, KNeighborsRegressor
from skml.tree import DecisionTreeRegressor


@pytest.mark.parametrize("make", [
    lambda: VotingClassifier([("lr", LogisticRegression(max_iter=500)),
                              ("knn", KNeighborsClassifier()), ("nb", GaussianNB())]),
    lambda: StackingClassifier([("lr", LogisticRegression(max_iter=500)),
                                ("knn", KNeighborsClassifier()), ("nb", GaussianNB())],
                               cv=3),
    lambda: VotingRegressor([("lr", LinearRegression()), ("knn", KNeighborsRegressor()),
                             ("tree", DecisionTreeRegressor(random_state=0))]),
    lambda: StackingRegressor([("lr", LinearRegression()), ("knn", KNeighborsRegressor()),
                               ("tree", DecisionTreeRegressor(random_state=0))], cv=3),
])
def test_dropped_member_is_named_drop(make):
    X, y = load_iris(return_X_y=True)
    full = make().fit(X, y)
    dropped = make()
    second = dropped.estimators[1][0]
    dropped.set_params(**{second: "drop"}).fit(X, y)
    assert list(dropped.named_estimators_) == list(full.named_estimators_)
    assert dropped.named_estimators_[second] == "drop"
    assert getattr(dropped.named_estimators_, second) == "drop"
    assert len(dropped.estimators_) == 2
    kept = [name for name, _ in dropped.estimators if name != second]
    for name, est in zip(kept, dropped.estimators_):
        assert dropped.named_estimators_[name] is est
    names = dropped.get_feature_names_out()
    assert not any(second in str(n) for n in names)
    assert np.all(np.isfinite(np.asarray(dropped.transform(X), dtype=float)))
