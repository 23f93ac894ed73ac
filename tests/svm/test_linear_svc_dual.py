"""LinearSVC(dual=...): scikit-learn's switch between dual and primal (issue 21)."""

import numpy as np
import pytest
from sklearn import svm as sk
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from skml.svm import LinearSVC

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)


@pytest.mark.parametrize("dual, solver", [(True, "dual_cd"), (False, "newton"),
                                          ("auto", "newton")])
def test_dual_picks_the_problem_and_matches_scikit_learn(dual, solver):
    ours = LinearSVC(dual=dual, tol=1e-8, max_iter=100000).fit(X, y)
    theirs = sk.LinearSVC(dual=dual, tol=1e-8, max_iter=100000).fit(X, y)
    assert ours._solver == solver
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-4)


def test_dual_and_primal_reach_the_same_minimiser():
    a = LinearSVC(dual=True, tol=1e-10, max_iter=100000).fit(X, y)
    b = LinearSVC(dual=False, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-5)


@pytest.mark.parametrize("params, match", [
    ({"dual": False, "loss": "hinge"}, "squared_hinge"),
    ({"dual": True, "solver": "newton"}, "contradicts"),
    ({"dual": False, "solver": "dual_cd"}, "contradicts"),
    ({"dual": "yes"}, "dual"),
])
def test_inconsistent_settings_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        LinearSVC(**params).fit(X, y)


def test_explicit_solver_with_agreeing_dual_or_pegasos_is_accepted():
    LinearSVC(dual=True, solver="dual_cd").fit(X, y)
    LinearSVC(dual=False, solver="pegasos", max_iter=5).fit(X, y)
