"""Ridge's scikit-learn solvers, positive and random_state (issue 21).

sparse_cg, lbfgs (positive), sag and saga reach the objective of
scikit-learn's same solver, dense and sparse, with sample weights and one
penalty per target; positive=True satisfies the KKT conditions of the
non-negativity constraint.
"""

import inspect
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge as SkRidge
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
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
    # saga refuses an intercept on sparse data (as scikit-learn's); sparse
    # sag at this tol runs sparse_cg on both sides.
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


@pytest.mark.parametrize("solver", ["cholesky", "saga", "svd"])
def test_intercept_on_sparse_data_refused_as_scikit_learn(diabetes, solver):
    X, y, sw = diabetes
    S = _sparsify(X)
    with pytest.raises(ValueError, match=f"solver='{solver}' does not support "
                                         "fitting the intercept on sparse data"):
        Ridge(solver=solver).fit(S, y)
    with pytest.raises(ValueError, match=f"solver='{solver}' does not support"):
        SkRidge(solver=solver).fit(S, y)
    # "auto" fits it (exactly, by the implicitly centred Gram matrix) ...
    auto = Ridge().fit(S, y, sample_weight=sw)
    dense = Ridge(solver="cholesky").fit(S.toarray(), y, sample_weight=sw)
    assert auto.solver_ == "cholesky"
    np.testing.assert_allclose(auto.coef_, dense.coef_, rtol=1e-10, atol=1e-10)
    assert auto.intercept_ == pytest.approx(dense.intercept_, rel=1e-10)
    # ... and without an intercept cholesky and saga take sparse X.
    if solver != "svd":
        reg = Ridge(solver=solver, fit_intercept=False, tol=1e-10,
                    max_iter=100_000, random_state=0).fit(S, y)
        assert reg.solver_ == solver


def test_sparse_sag_with_intercept_follows_scikit_learn(diabetes):
    X, y, sw = diabetes
    S = _sparsify(X)
    exact = Ridge(solver="cholesky").fit(S.toarray(), y, sample_weight=sw)
    # scikit-learn runs sag only for max_iter=None and tol > 1e-4, and warns.
    with pytest.warns(UserWarning, match='"sag" solver requires many iterations'):
        sag = Ridge(solver="sag", tol=1e-3, random_state=0).fit(S, y, sample_weight=sw)
    assert sag.solver_ == "sag" and sag.n_iter_.shape == (1,) and sag.n_iter_[0] >= 1
    # Otherwise it runs sparse_cg in sag's place, silently.
    for params in (dict(), dict(tol=1e-3, max_iter=50), dict(tol=1e-12)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)
            reg = Ridge(solver="sag", **params).fit(S, y, sample_weight=sw)
        assert reg.solver_ == "sparse_cg" and reg.n_iter_ is None
    np.testing.assert_allclose(reg.coef_, exact.coef_, rtol=1e-7, atol=1e-7)
    # Without an intercept sag runs, without the warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        reg = Ridge(solver="sag", tol=1e-3, fit_intercept=False).fit(S, y)
    assert reg.solver_ == "sag"


@pytest.mark.parametrize("solver, positive", [
    ("sparse_cg", False), ("lbfgs", True), ("cholesky", False), ("svd", False)])
@pytest.mark.parametrize("sparse", [False, True])
def test_n_iter_is_none_where_scikit_learn_gives_none(diabetes, solver, positive,
                                                      sparse):
    X, y, _ = diabetes
    if sparse and solver in ("cholesky", "svd"):
        pytest.skip("refused on sparse X with an intercept")
    X = _sparsify(X) if sparse else X
    reg = Ridge(solver=solver, positive=positive).fit(X, np.column_stack([y, y]))
    assert reg.n_iter_ is None
    assert SkRidge(solver=solver, positive=positive).fit(X, y).n_iter_ is None


@pytest.mark.parametrize("solver, positive", [
    ("cholesky", False), ("svd", False), ("lsqr", False), ("sparse_cg", False),
    ("sag", False), ("saga", False), ("lbfgs", True)])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("target", ["1d", "one column", "two targets"])
def test_n_iter_shape_and_dtype_as_scikit_learn(diabetes, solver, positive, sparse,
                                                target):
    # scikit-learn 1.9.1: an int32 array of one count per target (shape (1,)
    # for 1-d y) for lsqr, sag and saga, None for the others.
    X, y, _ = diabetes
    X = _sparsify(X) if sparse else X
    Y = {"1d": y, "one column": y[:, None],
         "two targets": np.column_stack([y, -0.5 * y + 3.0])}[target]
    fit_intercept = not (sparse and solver in ("cholesky", "svd", "saga"))
    if sparse and solver == "svd":
        pytest.skip("svd refuses sparse X")
    # tol > 1e-4: sparse sag with an intercept runs sag (not sparse_cg).
    params = dict(solver=solver, positive=positive, fit_intercept=fit_intercept,
                  tol=1e-3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        ours = Ridge(**params).fit(X, Y)
        theirs = SkRidge(**params).fit(X, Y)
    assert ours.solver_ == theirs.solver_
    if theirs.n_iter_ is None:
        assert ours.n_iter_ is None
        return
    n_targets = 2 if target == "two targets" else 1
    assert theirs.n_iter_.shape == (n_targets,)
    assert ours.n_iter_.shape == (n_targets,)
    assert ours.n_iter_.dtype == theirs.n_iter_.dtype == np.int32
    assert np.all(ours.n_iter_ >= 1)


@pytest.mark.parametrize("sparse", [False, True])
def test_n_iter_counts_each_target(diabetes, sparse):
    # Per target, not the largest: a target already fitted by w = 0 (y
    # constant, centred to 0) stops at once, the other one does not.
    X, y, _ = diabetes
    X = _sparsify(X) if sparse else X
    Y = np.column_stack([y, np.full_like(y, 7.0)])
    lsqr = Ridge(solver="lsqr", tol=1e-12, max_iter=4).fit(X, Y)
    np.testing.assert_array_equal(lsqr.n_iter_, [4, 0])
    np.testing.assert_array_equal(
        SkRidge(solver="lsqr", tol=1e-12, max_iter=4).fit(X, Y).n_iter_, [4, 0])
    for solver in ("sag", "saga"):
        reg = Ridge(solver=solver, tol=1e-3, fit_intercept=not sparse,
                    random_state=0).fit(X, Y if not sparse else Y - Y.mean(0))
        assert reg.n_iter_[0] > reg.n_iter_[1] >= 1
        one = Ridge(solver=solver, tol=1e-3, fit_intercept=not sparse,
                    random_state=0).fit(X, Y[:, 0] if not sparse else y - y.mean())
        assert one.n_iter_.shape == (1,) and one.n_iter_[0] >= 1


@pytest.mark.parametrize("solver", ["auto", "svd", "cholesky", "lsqr", "sparse_cg",
                                    "sag", "saga", "lbfgs"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("positive", [True, False])
def test_tags_as_scikit_learn(solver, fit_intercept, positive):
    # Every tag scikit-learn's Ridge sets, but array_api_support (skml's
    # Ridge has no array API path); sparse input is refused by "svd", and
    # by "cholesky" with an intercept, in both.
    params = dict(solver=solver, fit_intercept=fit_intercept, positive=positive)
    ours, theirs = get_tags(Ridge(**params)), get_tags(SkRidge(**params))
    theirs.array_api_support = False
    assert ours == theirs
    if not ours.input_tags.sparse and not positive:  # positive: refused first
        X, y = load_diabetes(return_X_y=True)
        with pytest.raises((TypeError, ValueError), match="[Ss]parse"):
            Ridge(**params).fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize("solver", ["svd", "cholesky", "lsqr", "sparse_cg", "sag",
                                    "saga", "lbfgs", "gd"])
@pytest.mark.parametrize("multi", [False, True])
def test_float32_input_gives_float32_coef_and_predictions(diabetes, solver, multi):
    X64, y, _ = diabetes
    Y64 = np.column_stack([y, 2.0 * y]) if multi else y
    X32, Y32 = X64.astype(np.float32), Y64.astype(np.float32)
    params = dict(solver=solver, positive=solver == "lbfgs", tol=1e-10,
                  max_iter=10_000, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        r32 = Ridge(**params).fit(X32, Y32)
        r64 = Ridge(**params).fit(X32.astype(np.float64), Y32.astype(np.float64))
    assert r32.coef_.dtype == np.float32
    assert np.asarray(r32.intercept_).dtype == np.float32
    assert r32.predict(X32).dtype == np.float32
    assert r64.coef_.dtype == np.float64 and r64.predict(X64).dtype == np.float64
    # The same float64 solve, rounded to float32.
    np.testing.assert_allclose(r32.coef_, r64.coef_.astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(r32.intercept_, r64.intercept_, rtol=1e-6)


@pytest.mark.parametrize("solver", ["sparse_cg", "sag", "saga", "lbfgs"])
@pytest.mark.parametrize("sparse", [False, True])
def test_one_penalty_per_target_equals_separate_fits(diabetes, solver, sparse):
    X, y, _ = diabetes
    X = _sparsify(X) if sparse else X
    Y = np.column_stack([y, -0.5 * y + 3.0])
    alphas = np.array([0.5, 50.0])
    params = dict(solver=solver, positive=solver == "lbfgs", tol=1e-10,
                  max_iter=100_000, random_state=0,
                  fit_intercept=not (sparse and solver == "saga"))
    both = Ridge(alpha=alphas, **params).fit(X, Y)
    for k in range(2):
        one = Ridge(alpha=alphas[k], **params).fit(X, Y[:, k])
        np.testing.assert_allclose(both.coef_[k], one.coef_, atol=1e-6)
        if params["fit_intercept"]:
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
