"""HarmonicaSearchCV: staged sparse recovery over binary hyper-parameters."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.model_selection import RandomizedSearchCV

from skml.model_selection import HarmonicaSearchCV
from skml.tree import DecisionTreeClassifier
from tests._data import load
from tests._parity import parity_test

NAMES = [f"p{k}" for k in range(12)]


class _Binary(RegressorMixin, BaseEstimator):
    """A 'model' whose score is a sparse polynomial of its 12 binary settings."""

    def __init__(self, p0=0, p1=0, p2=0, p3=0, p4=0, p5=0, p6=0, p7=0, p8=0, p9=0,
                 p10=0, p11=0):
        for k in range(12):
            setattr(self, f"p{k}", locals()[f"p{k}"])

    def fit(self, X, y):
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        return np.zeros(len(X))

    def score(self, X, y):
        z = [1 - 2 * getattr(self, f"p{k}") for k in range(12)]  # ±1
        # Best at z2 = -1, z5 = z9 = +1 (p2 = 1, p5 = p9 = 0): score 4.5.
        return 2.0 * z[5] * z[9] - 1.5 * z[2] + 1.0 * z[5] + 0.01 * z[11]


GRID = {name: [0, 1] for name in NAMES}
X_TOY, Y_TOY = np.zeros((6, 1)), np.zeros(6)


def test_recovers_the_planted_optimum():
    search = HarmonicaSearchCV(_Binary(), GRID, n_samples=40, n_stages=2, n_top=3,
                               cv=2, random_state=0).fit(X_TOY, Y_TOY)
    assert {"p2": 1, "p5": 0, "p9": 0}.items() <= search.fixed_params_.items()
    assert ("p5", "p9") in search.stage_supports_[0]
    assert search.best_score_ == pytest.approx(4.5, abs=0.02)


@parity_test(HarmonicaSearchCV)
def test_parity_with_randomized_search_on_breast_cancer():
    # Over four binary tree settings, at about the same number of fits, the
    # best CV score is at least random search's minus a small margin.
    X, y = load("breast_cancer")
    grid = {"criterion": ["gini", "entropy"], "max_depth": [2, 6],
            "min_samples_leaf": [1, 20], "splitter": ["best", "random"]}
    ours = HarmonicaSearchCV(DecisionTreeClassifier(random_state=0), grid, n_samples=6,
                             n_stages=2, n_top=2, cv=3, random_state=0).fit(X, y)
    theirs = RandomizedSearchCV(DecisionTreeClassifier(random_state=0), grid,
                                n_iter=len(ours.cv_results_["params"]), cv=3,
                                random_state=0).fit(X, y)
    assert ours.best_score_ >= theirs.best_score_ - 0.01
    assert ours.best_estimator_.get_params()["max_depth"] == ours.best_params_["max_depth"]


def test_no_setting_is_evaluated_twice():
    search = HarmonicaSearchCV(_Binary(), {"p0": [0, 1], "p1": [0, 1]}, n_samples=20,
                               n_stages=3, cv=2, random_state=0).fit(X_TOY, Y_TOY)
    params = [tuple(sorted(p.items())) for p in search.cv_results_["params"]]
    assert len(params) == len(set(params)) <= 4


@pytest.mark.parametrize("grid, match", [
    ({}, "at least one parameter"),
    ({"p0": [0, 1, 2]}, "exactly two values"),
])
def test_clear_errors(grid, match):
    with pytest.raises(ValueError, match=match):
        HarmonicaSearchCV(_Binary(), grid, cv=2).fit(X_TOY, Y_TOY)
