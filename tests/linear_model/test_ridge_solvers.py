"""Ridge's scikit-learn solvers, positive and random_state (issue 21).

sparse_cg, lbfgs (positive), sag and saga reach the objective of
scikit-learn's same solver, dense and sparse, with sample weights and one
penalty per target; positive=True satisfies the KKT conditions of the
non-negativity constraint.
"""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge as SkRidge
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skml.linear_model import Ridge


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1, user_api="blas"):
        yield


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    sw = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    return X, y, sw


def _sparsify(X):
    return sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))


def _objective(model, X, y, alpha, sw):
    r = y - model.predict(X)
    coef = np.atleast_2d(model.coef_)
    return float(np.sum(sw[:, None] * np.atleast_2d(r.T).T ** 2)
                 + np.sum(np.asarray(alpha) * np.sum(coef**2, axis=1)))


@pytest.mark.parametrize("solver, positive", [
    ("sparse_cg", False), ("lbfgs", True), ("auto", True), ("sag", False),
    ("saga", False)])
@pytest.mark.parametrize("sparse", [False, True])
def test_solvers_reach_sklearn_same_solver_objective(diabetes, solver, positive,
                                                     sparse):
    X, y, sw = diabetes
    X = _sparsify(X) if sparse else X
    # scikit-learn's saga fits no intercept on sparse data; ours does.
    fit_intercept = not (sparse and solver == "saga")
    params = dict(alpha=3.0, solver=solver, positive=positive, tol=1e-10,
                  max_iter=100_000, random_state=0, fit_intercept=fit_intercept)
    ours = Ridge(**params).fit(X, y, sample_weight=sw)
    theirs = SkRidge(**params).fit(X, y, sample_weight=sw)
    f_ours, f_theirs = (_objective(m, X, y, 3.0, sw) for m in (ours, theirs))
    # measured: agreement to ~1e-15 relative (1e-12 for sag)
    assert f_ours == pytest.approx(f_theirs, rel=1e-10)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-5)


def test_saga_fits_the_intercept_on_sparse_data(diabetes):
    X, y, sw = diabetes
    ours = Ridge(solver="saga", tol=1e-10, max_iter=100_000, random_state=0).fit(
        _sparsify(X), y, sample_weight=sw)
    exact = Ridge(solver="cholesky").fit(_sparsify(X), y, sample_weight=sw)
    np.testing.assert_allclose(ours.coef_, exact.coef_, atol=1e-5)
    assert ours.intercept_ == pytest.approx(exact.intercept_, abs=1e-5)


@pytest.mark.parametrize("solver", ["sparse_cg", "sag", "saga", "lbfgs"])
@pytest.mark.parametrize("sparse", [False, True])
def test_one_penalty_per_target_equals_separate_fits(diabetes, solver, sparse):
    X, y, _ = diabetes
    X = _sparsify(X) if sparse else X
    Y = np.column_stack([y, -0.5 * y + 3.0])
    alphas = np.array([0.5, 50.0])
    params = dict(solver=solver, positive=solver == "lbfgs", tol=1e-10,
                  max_iter=100_000, random_state=0)
    both = Ridge(alpha=alphas, **params).fit(X, Y)
    for k in range(2):
        one = Ridge(alpha=alphas[k], **params).fit(X, Y[:, k])
        np.testing.assert_allclose(both.coef_[k], one.coef_, atol=1e-6)
        assert both.intercept_[k] == pytest.approx(one.intercept_, abs=1e-6)


def test_positive_satisfies_kkt_conditions(diabetes):
    # min ||y - b - Xw||^2 + alpha ||w||^2 s.t. w >= 0: the gradient g of the
    # objective (b at its optimum) is >= 0 where w = 0 and 0 where w > 0.
    X, y, _ = diabetes
    y = y - 3.0 * X[:, 2]  # makes some unconstrained coefficients negative
    assert np.any(Ridge(alpha=1.0).fit(X, y).coef_ < 0)
    reg = Ridge(alpha=1.0, positive=True, tol=1e-12).fit(X, y)
    w = reg.coef_
    assert np.all(w >= 0) and np.any(w == 0) and np.any(w > 0)
    g = -2 * X.T @ (y - reg.predict(X)) + 2 * 1.0 * w
    scale = np.abs(2 * X.T @ y).max()
    assert np.all(g[w == 0] >= -1e-7 * scale)
    np.testing.assert_allclose(g[w > 0], 0, atol=1e-7 * scale)
    assert np.sum(y - reg.predict(X)) == pytest.approx(0, abs=1e-6 * np.abs(y).sum())


def test_sag_random_state_reproducible_and_used(diabetes):
    X, y, _ = diabetes
    a = Ridge(solver="sag", random_state=1, max_iter=3, tol=0.0)
    b = Ridge(solver="sag", random_state=1, max_iter=3, tol=0.0)
    c = Ridge(solver="sag", random_state=2, max_iter=3, tol=0.0)
    with pytest.warns(Warning):
        a.fit(X, y), b.fit(X, y), c.fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


@pytest.mark.parametrize("params, match", [
    (dict(solver="cholesky", positive=True), "does not support positive"),
    (dict(solver="sag", positive=True), "does not support positive"),
    (dict(solver="lbfgs"), "only when positive=True"),
])
def test_bad_solver_positive_combinations_raise(diabetes, params, match):
    X, y, _ = diabetes
    with pytest.raises(ValueError, match=match):
        Ridge(**params).fit(X, y)


def test_signature_is_a_superset_of_sklearn():
    ours = set(inspect.signature(Ridge).parameters)
    assert set(inspect.signature(SkRidge).parameters) <= ours
    assert set(inspect.signature(SkRidge.fit).parameters) <= set(
        inspect.signature(Ridge.fit).parameters)
