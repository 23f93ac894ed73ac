"""Sparse (CSR/CSC) input of GradientBoosting* (issue 20): histogram mode bins
a CSC matrix column by column from its stored values (``_gb_sparse.bin_csc``),
prediction walks CSR rows; the model equals the dense fit's."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes

from skml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from skml.ensemble._gb_sparse import bin_csc
from skml.tree._hist_kernels import bin_columns
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs


def _assert_same_model(dense, fitted, X, S):
    for Z in (S.tocsr(), S.tocsc()):
        np.testing.assert_array_equal(fitted.predict(Z), dense.predict(X))
        np.testing.assert_array_equal(fitted.apply(Z), dense.apply(X))
    np.testing.assert_array_equal(fitted.train_score_, dense.train_score_)
    for ta, tb in zip(dense.estimators_.ravel(), fitted.estimators_.ravel()):
        np.testing.assert_array_equal(ta.tree_.feature, tb.tree_.feature)
        np.testing.assert_array_equal(ta.tree_.threshold, tb.tree_.threshold)
        np.testing.assert_array_equal(ta.tree_.value, tb.tree_.value)


@settings(max_examples=60, deadline=None)
@given(pair=sparse_pairs(min_rows=2, max_rows=60, min_cols=1, max_cols=8),
       max_bins=st.sampled_from([3, 5, 256]), ties=st.booleans())
def test_bin_csc_equals_dense_binning(pair, max_bins, ties):
    _, S = pair
    S = sp.csc_matrix(S, dtype=np.float64)
    if ties:  # repeated values; values rounded to 0 stay stored (explicit zeros)
        S.data = np.round(S.data)
    X = S.toarray()
    dense = bin_columns(X, max_bins)
    got = bin_csc(S, max_bins)
    for a, b in zip(dense, got):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@settings(max_examples=40, deadline=None)
@given(pair=sparse_pairs(min_rows=6, max_rows=60, max_cols=8),
       loss=st.sampled_from(["log_loss", "exponential", "multinomial"]),
       max_bins=st.sampled_from([3, 16, 256]), subsample=st.sampled_from([1.0, 0.6]),
       weighted=st.booleans(), seed=st.integers(0, 2**16))
def test_classifier_sparse_fit_equals_dense_fit(pair, loss, max_bins, subsample,
                                                weighted, seed):
    X, S = pair
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    n_classes = 3 if loss == "multinomial" else 2
    y = np.arange(n) % n_classes  # every class present
    rng.shuffle(y)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    params = dict(loss="log_loss" if loss == "multinomial" else loss, n_estimators=5,
                  max_depth=3, max_bins=max_bins, subsample=subsample, random_state=seed)
    dense = GradientBoostingClassifier(**params).fit(X, y, sample_weight=w)
    fitted = GradientBoostingClassifier(**params).fit(S, y, sample_weight=w)
    _assert_same_model(dense, fitted, X, S)
    np.testing.assert_array_equal(fitted.predict_proba(S), dense.predict_proba(X))


@settings(max_examples=40, deadline=None)
@given(pair=sparse_pairs(min_rows=6, max_rows=60, max_cols=8),
       loss=st.sampled_from(["squared_error", "absolute_error", "huber", "quantile"]),
       max_bins=st.sampled_from([3, 16, 256]), zero_weights=st.booleans(),
       seed=st.integers(0, 2**16))
def test_regressor_sparse_fit_equals_dense_fit(pair, loss, max_bins, zero_weights, seed):
    X, S = pair
    rng = np.random.default_rng(seed)
    n = X.shape[0]
    y = X.sum(axis=1) + rng.normal(size=n)
    w = None
    if zero_weights:  # rows of weight 0 are dropped (CSC row selection)
        w = rng.integers(0, 3, n).astype(float)
        w[0] = 1.0
    params = dict(loss=loss, n_estimators=5, max_depth=2, max_bins=max_bins,
                  random_state=seed)
    dense = GradientBoostingRegressor(**params).fit(X, y, sample_weight=w)
    fitted = GradientBoostingRegressor(**params).fit(S, y, sample_weight=w)
    _assert_same_model(dense, fitted, X, S)
    for a, b in zip(dense.staged_predict(X), fitted.staged_predict(S)):
        np.testing.assert_array_equal(a, b)


def test_early_stopping_and_warm_start_on_sparse():
    X, S = make_sparse_pair(0, 200, 10, 0.3, "csr", np.float64)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    params = dict(n_estimators=50, n_iter_no_change=3, validation_fraction=0.2,
                  random_state=0)
    dense = GradientBoostingClassifier(**params).fit(X, y)
    fitted = GradientBoostingClassifier(**params).fit(S, y)
    assert fitted.n_estimators_ == dense.n_estimators_
    _assert_same_model(dense, fitted, X, S)
    # warm start on the same sparse X adds rounds like a dense warm start
    a = GradientBoostingRegressor(n_estimators=3, warm_start=True, random_state=0)
    b = GradientBoostingRegressor(n_estimators=3, warm_start=True, random_state=0)
    a.fit(X, X[:, 2]), b.fit(S, X[:, 2])
    a.set_params(n_estimators=6).fit(X, X[:, 2])
    b.set_params(n_estimators=6).fit(S, X[:, 2])
    _assert_same_model(a, b, X, S)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_exact_mode_sparse_equals_dense_on_real_data(fmt):
    # max_bins=None grows with the exact builder's CSC split search. Its ties
    # (two features cutting a node's rows alike) may break another way on
    # sparse columns, so this compares the fitted values on bundled data.
    for load, Est in ((load_breast_cancer, GradientBoostingClassifier),
                      (load_diabetes, GradientBoostingRegressor)):
        X, y = load(return_X_y=True)
        X = np.where(X > np.median(X, axis=0), X, 0.0)
        S = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
        params = dict(n_estimators=10, max_bins=None, random_state=0)
        dense = Est(**params).fit(X, y)
        fitted = Est(**params).fit(S, y)
        np.testing.assert_allclose(fitted.predict(S), dense.predict(X), rtol=1e-10)
        np.testing.assert_allclose(fitted.train_score_, dense.train_score_, rtol=1e-10)


def test_sparse_bad_input():
    X, S = make_sparse_pair(1, 30, 4, 0.5, "csr", np.float64)
    y = np.arange(30) % 2
    S_nan = S.copy()
    S_nan.data[0] = np.nan
    with pytest.raises(ValueError, match="sparse X must be finite"):
        GradientBoostingClassifier(n_estimators=2).fit(S_nan, y)
    with pytest.raises(ValueError, match="categorical_features.*sparse"):
        GradientBoostingClassifier(n_estimators=2, max_bins=None,
                                   categorical_features=[0]).fit(S, y)
    fitted = GradientBoostingClassifier(n_estimators=2).fit(S, y)
    with pytest.raises(ValueError, match="sparse X must be finite"):
        fitted.predict(S_nan)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(S[:, :2])
