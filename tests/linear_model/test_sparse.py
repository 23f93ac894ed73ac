"""Sparse CSR/CSC input to the linear models (issue 20).

Dense and sparse copies of the same data (random sparsity patterns with
explicit zeros, empty rows and empty columns; float32 and float64) must give
the same model to rounding, with and without sample weights.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skml.linear_model import (
    Lasso,
    LinearRegression,
    LogisticRegression,
    Perceptron,
    Ridge,
    SGDClassifier,
    SGDRegressor,
)
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _labels(X, seed):
    rng = np.random.RandomState(seed)
    score = X @ rng.normal(size=X.shape[1]) + 0.1 * rng.normal(size=X.shape[0])
    y = (score > np.median(score)).astype(int)
    y[:2] = [0, 1]  # both classes present
    return y


def _weights(n, seed, use):
    if not use:
        return None
    w = np.random.RandomState(seed).uniform(0.0, 3.0, size=n)
    w[0] = 0.0  # a zero weight too
    return w


# --------------------------------------------------------------------------
# SGD family: the same sequence of updates on the stored entries
# --------------------------------------------------------------------------

SGD_CLASSIFIER_CASES = [
    dict(),
    dict(average=True),
    dict(penalty=None, loss="log_loss"),
    dict(loss="modified_huber", early_stopping=True, n_iter_no_change=2,
         validation_fraction=0.3),
    dict(loss="squared_hinge", shuffle=False, tol=None, max_iter=4),
    dict(optimizer="adam", batch_size=4, max_iter=5, tol=None),
]


@SETTINGS
@given(pair=sparse_pairs(min_rows=10), case=st.sampled_from(SGD_CLASSIFIER_CASES),
       weighted=st.booleans())
def test_sgd_classifier_sparse_equals_dense(pair, case, weighted):
    X, S = pair
    y = _labels(X.astype(np.float64), 0)
    sw = _weights(X.shape[0], 1, weighted)
    # On CSR rows the intercept steps are scaled by 0.01 (as scikit-learn's),
    # so only fits without an intercept are the same model.
    kw = {"random_state": 0, "max_iter": 20, "fit_intercept": False, **case}
    dense = SGDClassifier(**kw).fit(X, y, sample_weight=sw)
    sparse = SGDClassifier(**kw).fit(S, y, sample_weight=sw)
    assert dense.n_iter_ == sparse.n_iter_
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-10, atol=1e-12)
    tol = 1e-10 if X.dtype == np.float64 else 1e-5
    assert_allclose(sparse.decision_function(S), dense.decision_function(X),
                    rtol=tol, atol=tol)


@SETTINGS
@given(pair=sparse_pairs(min_rows=10), weighted=st.booleans(),
       average=st.booleans())
def test_sgd_regressor_sparse_equals_dense(pair, weighted, average):
    X, S = pair
    rng = np.random.RandomState(2)
    y = X.astype(np.float64) @ rng.normal(size=X.shape[1]) + rng.normal(size=X.shape[0])
    sw = _weights(X.shape[0], 3, weighted)
    kw = dict(random_state=0, max_iter=20, average=average, fit_intercept=False)
    dense = SGDRegressor(**kw).fit(X, y, sample_weight=sw)
    sparse = SGDRegressor(**kw).fit(S, y, sample_weight=sw)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-10, atol=1e-12)
    # float32 input gives float32 coefficients, so float32 predictions.
    tol = 1e-10 if X.dtype == np.float64 else 1e-5
    assert_allclose(sparse.predict(S), dense.predict(X), rtol=tol, atol=tol)


@SETTINGS
@given(pair=sparse_pairs(min_rows=10), weighted=st.booleans())
def test_perceptron_sparse_equals_dense(pair, weighted):
    X, S = pair
    y = _labels(X.astype(np.float64), 4)
    sw = _weights(X.shape[0], 5, weighted)
    kw = dict(random_state=0, max_iter=20, fit_intercept=False)
    dense = Perceptron(**kw).fit(X, y, sample_weight=sw)
    sparse = Perceptron(**kw).fit(S, y, sample_weight=sw)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    assert_array_equal(sparse.n_updates_, dense.n_updates_)
    assert_array_equal(sparse.predict(S), dense.predict(X))


def test_sgd_partial_fit_on_sparse_batches_equals_dense():
    X, S = make_sparse_pair(0, 40, 8, 0.3, "csr", np.float64)
    y = _labels(X, 6)
    kw = dict(random_state=0, fit_intercept=False)
    dense, sparse = SGDClassifier(**kw), SGDClassifier(**kw)
    for rows in (slice(0, 20), slice(20, 40)):
        dense.partial_fit(X[rows], y[rows], classes=[0, 1])
        sparse.partial_fit(S[rows], y[rows], classes=[0, 1])
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("average", [False, True])
def test_sgd_sparse_intercept_steps_are_scaled(average):
    # On CSR rows the plain path multiplies each intercept step by 0.01 (as
    # scikit-learn: the intercept moves at every sample, a sparse weight only
    # where the sample stores it). Reference: the per-sample updates of
    # squared-error SGD with a constant step and the L2 shrinkage, written out.
    X, S = make_sparse_pair(3, 30, 6, 0.4, "csr", np.float64)
    y = X @ np.arange(1.0, 7.0) + 0.5
    eta, alpha = 0.01, 0.01
    w, b = np.zeros(6), 0.0
    w_avg, b_avg = np.zeros(6), 0.0
    for i in range(30):
        g = X[i] @ w + b - y[i]
        w = w * (1.0 - eta * alpha) - eta * g * X[i]
        b -= 0.01 * eta * g
        w_avg += (w - w_avg) / (i + 1)
        b_avg += (b - b_avg) / (i + 1)
    reg = SGDRegressor(learning_rate="constant", eta0=eta, alpha=alpha, max_iter=1,
                       tol=None, shuffle=False, average=average).fit(S, y)
    assert_allclose(reg.coef_, w_avg if average else w, rtol=1e-12, atol=1e-14)
    assert_allclose(reg.intercept_, [b_avg if average else b], rtol=1e-12)
    dense = SGDRegressor(learning_rate="constant", eta0=eta, alpha=alpha,
                         max_iter=1, tol=None, shuffle=False,
                         average=average).fit(X, y)
    assert not np.allclose(dense.intercept_, reg.intercept_)


def test_sgd_l1_on_sparse_truncates_only_the_sample_features():
    # scikit-learn's sparse path applies the cumulative L1 penalty lazily to
    # the features of the current sample; a feature never seen keeps w = 0
    # and the fit is close to (not equal to) the dense one.
    X, S = make_sparse_pair(1, 60, 10, 0.3, "csr", np.float64, empty_col=False)
    y = _labels(X, 7)
    kw = dict(penalty="l1", alpha=1e-3, random_state=0, max_iter=30)
    dense = SGDClassifier(**kw).fit(X, y)
    sparse = SGDClassifier(**kw).fit(S, y)
    assert np.all(np.isfinite(sparse.coef_))
    assert np.corrcoef(sparse.coef_.ravel(), dense.coef_.ravel())[0, 1] > 0.95


def test_sgd_sparse_does_not_densify():
    # A 2000 x 200000 CSR matrix of 4000 entries: a dense copy would take
    # 3.2 GB, so the fit can only run on the stored entries.
    rng = np.random.RandomState(0)
    n, d = 2000, 200_000
    rows = np.repeat(np.arange(n), 2)
    cols = np.column_stack([np.arange(n) % 3, rng.randint(3, d, size=n)]).ravel()
    S = sp.csr_matrix((rng.normal(size=2 * n), (rows, cols)), shape=(n, d))
    y = np.arange(n) % 2
    clf = SGDClassifier(random_state=0, max_iter=3, tol=None).fit(S, y)
    assert clf.coef_.shape == (1, d)
    assert clf.predict(S[:5]).shape == (5,)


# --------------------------------------------------------------------------
# Least squares: the implicitly centred Gram matrix and LSQR
# --------------------------------------------------------------------------


def _targets(X, seed, n_targets):
    rng = np.random.RandomState(seed)
    Y = X @ rng.normal(size=(X.shape[1], n_targets)) + rng.normal(size=(X.shape[0], n_targets))
    return Y[:, 0] if n_targets == 1 else Y


def _assert_same_regression(sparse, dense, X, S, rtol):
    # Fitted values are well determined even where the coefficients are not
    # (collinear or empty columns): compare those always; coefficients too.
    scale = max(1.0, np.abs(dense.predict(X)).max())
    assert_allclose(sparse.predict(S), dense.predict(X), rtol=0, atol=rtol * scale)
    assert_allclose(sparse.coef_, dense.coef_, rtol=rtol, atol=rtol * scale)
    assert np.shape(sparse.intercept_) == np.shape(dense.intercept_)


@SETTINGS
@given(pair=sparse_pairs(min_rows=10, max_cols=6), weighted=st.booleans(),
       fit_intercept=st.booleans(), n_targets=st.sampled_from([1, 3]))
def test_linear_regression_sparse_equals_dense(pair, weighted, fit_intercept, n_targets):
    X, S = pair
    Xd = X.astype(np.float64)
    y = _targets(Xd, 8, n_targets)
    sw = _weights(X.shape[0], 9, weighted)
    # tol drives LSQR on the (rank-deficient: empty columns) sparse path.
    kw = dict(fit_intercept=fit_intercept, tol=1e-13)
    dense = LinearRegression(**kw).fit(X, y, sample_weight=sw)
    sparse = LinearRegression(**kw).fit(S, y, sample_weight=sw)
    assert sparse.solver_ in ("normal", "lsqr")
    _assert_same_regression(sparse, dense, Xd, S, 1e-7)


@SETTINGS
@given(pair=sparse_pairs(min_rows=6, max_cols=12), weighted=st.booleans(),
       fit_intercept=st.booleans(), n_targets=st.sampled_from([1, 2]),
       solver=st.sampled_from(["auto", "lsqr"]))
def test_ridge_sparse_equals_dense(pair, weighted, fit_intercept, n_targets, solver):
    X, S = pair
    Xd = X.astype(np.float64)
    y = _targets(Xd, 10, n_targets)
    sw = _weights(X.shape[0], 11, weighted)
    alpha = 0.7 if n_targets == 1 else [0.3, 2.0]
    kw = dict(alpha=alpha, fit_intercept=fit_intercept, solver=solver, tol=1e-13)
    dense = Ridge(**kw).fit(X, y, sample_weight=sw)
    sparse = Ridge(**kw).fit(S, y, sample_weight=sw)
    assert sparse.solver_ == ("cholesky" if solver == "auto" else "lsqr")
    # float32 S: the float64 solution rounded to float32 (scikit-learn's dtype).
    assert sparse.coef_.dtype == S.dtype
    _assert_same_regression(sparse, dense, Xd, S, 1e-8 if S.dtype == np.float64 else 1e-5)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("Est", [LinearRegression, Ridge])
def test_least_squares_gd_on_sparse(Est):
    X, S = make_sparse_pair(12, 25, 5, 0.4, "csr", np.float64)
    y = _targets(X, 13, 1)
    kw = dict(solver="gd", max_iter=20)
    dense = Est(**kw).fit(X, y)
    sparse = Est(**kw).fit(S, y)
    assert sparse.n_iter_ == dense.n_iter_
    # The same steps from the same Lipschitz constant, computed two ways.
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(sparse.loss_curve_, dense.loss_curve_, rtol=1e-9)


def test_ridge_svd_refuses_sparse_like_scikit_learn():
    X, S = make_sparse_pair(0, 10, 3, 0.5, "csr", np.float64)
    # With an intercept a ValueError, without one a TypeError, as scikit-learn's.
    with pytest.raises(ValueError, match="solver='svd' does not support"):
        Ridge(solver="svd").fit(S, X[:, 0])
    with pytest.raises(TypeError, match="SVD solver does not support sparse"):
        Ridge(solver="svd", fit_intercept=False).fit(S, X[:, 0])


def test_sparse_least_squares_on_wide_data_uses_lsqr_without_densifying():
    # 300 x 30000 at 3 entries a row: the Gram matrices (7.2 GB, 720 KB)
    # — the dual one is used by Ridge, LinearRegression goes to LSQR.
    rng = np.random.RandomState(0)
    n, d = 300, 30_000
    rows = np.repeat(np.arange(n), 3)
    S = sp.csr_matrix((rng.normal(size=3 * n), (rows, rng.randint(0, d, 3 * n))),
                      shape=(n, d))
    y = rng.normal(size=n)
    lr = LinearRegression(tol=1e-10).fit(S, y)
    assert lr.solver_ == "lsqr"
    assert_allclose(lr.predict(S), y, atol=1e-4)  # interpolates (n < d)
    ridge = Ridge(alpha=1.0).fit(S, y)
    assert ridge.solver_ == "cholesky" and ridge.coef_.shape == (d,)


# --------------------------------------------------------------------------
# Lasso: coordinate descent on CSC columns, centred implicitly
# --------------------------------------------------------------------------


@SETTINGS
@given(pair=sparse_pairs(min_rows=6, max_cols=10), weighted=st.booleans(),
       fit_intercept=st.booleans(), n_targets=st.sampled_from([1, 2]),
       options=st.sampled_from([
           dict(), dict(precompute=True), dict(positive=True),
           dict(selection="random", random_state=0),
       ]))
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_lasso_sparse_equals_dense(pair, weighted, fit_intercept, n_targets, options):
    X, S = pair
    Xd = X.astype(np.float64)
    y = _targets(Xd, 14, n_targets)
    sw = _weights(X.shape[0], 15, weighted)
    kw = dict(alpha=0.05, fit_intercept=fit_intercept, tol=1e-10, max_iter=3000,
              **options)
    dense = Lasso(**kw).fit(X, y, sample_weight=sw)
    sparse = Lasso(**kw).fit(S, y, sample_weight=sw)
    assert_array_equal(sparse.n_iter_, dense.n_iter_)
    _assert_same_regression(sparse, dense, Xd, S, 1e-7)


def test_lasso_sparse_keeps_sparse_and_matches_zeros():
    X, S = make_sparse_pair(16, 40, 15, 0.2, "csr", np.float64, empty_col=True)
    y = _targets(X, 17, 1)
    dense = Lasso(alpha=0.1).fit(X, y)
    sparse = Lasso(alpha=0.1).fit(S, y)
    assert_array_equal(sparse.coef_ == 0, dense.coef_ == 0)
    assert 0 < np.count_nonzero(sparse.coef_) < X.shape[1]
