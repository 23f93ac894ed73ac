"""Sparse (CSR/CSC) input of the decision trees: the split search on CSC
columns (zeros as one block), apply/predict on CSR rows (issue 20)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes

from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests._sparse_hypothesis import sparse_pairs


def _assert_same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    assert ta.node_count == tb.node_count
    np.testing.assert_array_equal(ta.feature, tb.feature)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    np.testing.assert_array_equal(ta.children_left, tb.children_left)
    np.testing.assert_array_equal(ta.value, tb.value)
    np.testing.assert_array_equal(ta.impurity, tb.impurity)


# Integer targets and weights keep every running sum exact, so the dense scan
# (which adds the zeros one by one) and the sparse one (which adds them as one
# block) see equal proxies and break ties alike: the trees are equal bit for bit.
@settings(max_examples=40, deadline=None)
@given(pair=sparse_pairs(min_rows=6, max_rows=40, max_cols=10),
       criterion=st.sampled_from(["gini", "entropy", "gain_ratio", "squared_error",
                                  "absolute_error"]),
       splitter=st.sampled_from(["best", "random"]),
       max_features=st.integers(1, 10), min_samples_leaf=st.integers(1, 3),
       weighted=st.booleans(), seed=st.integers(0, 2**16))
def test_sparse_fit_equals_dense_fit(pair, criterion, splitter, max_features,
                                     min_samples_leaf, weighted, seed):
    X, S = pair
    rng = np.random.default_rng(seed)
    n, d = X.shape
    w = rng.integers(0, 3, n).astype(float) if weighted else None
    if w is not None and not w.any():
        w[0] = 1.0
    classify = criterion in ("gini", "entropy", "gain_ratio")
    y = rng.integers(0, 3, n) if classify else rng.integers(-3, 4, n).astype(float)
    Est = DecisionTreeClassifier if classify else DecisionTreeRegressor
    params = dict(criterion=criterion, splitter=splitter, random_state=seed,
                  max_features=min(max_features, d), min_samples_leaf=min_samples_leaf)
    dense = Est(**params).fit(X, y, sample_weight=w)
    sparse = Est(**params).fit(S, y, sample_weight=w)
    _assert_same_tree(dense, sparse)
    for Z in (S.tocsr(), S.tocsc()):
        np.testing.assert_array_equal(sparse.predict(Z), dense.predict(X))
        np.testing.assert_array_equal(sparse.apply(Z), dense.apply(X))
    assert (sparse.decision_path(S) != dense.decision_path(X)).nnz == 0


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("splitter", ["best", "random"])
def test_sparse_equals_dense_on_real_data(fmt, splitter):
    # Bundled datasets with every value below the column median set to zero.
    for load, Est, crit in ((load_breast_cancer, DecisionTreeClassifier, "gini"),
                            (load_breast_cancer, DecisionTreeClassifier, "entropy"),
                            (load_diabetes, DecisionTreeRegressor, "squared_error"),
                            (load_diabetes, DecisionTreeRegressor, "absolute_error")):
        X, y = load(return_X_y=True)
        X = np.where(X > np.median(X, axis=0), X, 0.0)
        S = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
        params = dict(criterion=crit, splitter=splitter, random_state=0, max_depth=8)
        dense = Est(**params).fit(X, y)
        sparse = Est(**params).fit(S, y)
        # Float sums in another order may round apart: equal to rounding.
        assert sparse.tree_.node_count == dense.tree_.node_count
        np.testing.assert_array_equal(sparse.tree_.feature, dense.tree_.feature)
        np.testing.assert_allclose(sparse.tree_.threshold, dense.tree_.threshold,
                                   rtol=1e-12)
        np.testing.assert_allclose(sparse.predict(S), dense.predict(X), rtol=1e-12)


def test_sparse_fit_never_densifies():
    # 300 x 200k at 1%: dense, X would take 480 MB.
    rng = np.random.default_rng(0)
    n, d, nnz = 300, 200_000, 600_000
    S = sp.coo_matrix((rng.normal(size=nnz),
                       (rng.integers(0, n, nnz), rng.integers(0, d, nnz))),
                      shape=(n, d)).tocsr()
    y = rng.integers(0, 2, n)
    DecisionTreeClassifier(max_depth=2, max_features=50, random_state=0).fit(S[:20], y[:20])
    tracemalloc.start()
    clf = DecisionTreeClassifier(max_depth=6, max_features=500, random_state=0).fit(S, y)
    pred = clf.predict(S)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert pred.shape == (n,)
    # X's CSC copy is ~11 MB (values, row indices, column pointers); the
    # workspaces are O(n + d).
    assert peak < 60e6


def test_sparse_refusals():
    X = sp.csr_matrix(np.array([[0.0, 1.0], [np.nan, 0.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor().fit(X, [1.0, 2.0, 3.0])
    X = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="categorical_features"):
        DecisionTreeClassifier(categorical_features=[0]).fit(X, [0, 1, 1])
    clf = DecisionTreeClassifier().fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        clf.predict(sp.csr_matrix(np.array([[np.nan, 1.0]])))


def test_sparse_finite_check_survives_an_overflowing_sum():
    # The finiteness check sums the stored values first; finite values whose
    # sum overflows to infinity are still accepted, and fit as dense.
    big = np.array([[1e308, 0.0], [1e308, 1.0], [0.0, 2.0], [1e308, 3.0]])
    with np.errstate(over="ignore"):
        assert not np.isfinite(big.sum())
    y = [0, 1, 1, 0]
    sparse_fit = DecisionTreeClassifier(random_state=0).fit(sp.csr_matrix(big), y)
    dense_fit = DecisionTreeClassifier(random_state=0).fit(big, y)
    np.testing.assert_array_equal(sparse_fit.tree_.threshold, dense_fit.tree_.threshold)
    big[2, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeClassifier().fit(sp.csr_matrix(big), y)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "gain_ratio", "squared_error"])
def test_sparse_whole_node_search_equals_dense(criterion):
    # max_features=None, best splitter: each node searches all its features
    # at once from its rows' entries grouped by feature; near the root (more
    # entries than the buckets hold) from the columns. Integer values, targets
    # and weights keep the sums exact, so the dense fit is the reference bit
    # for bit; empty rows and columns, negative values, ties.
    rng = np.random.default_rng(3)
    n, d = 300, 40
    X = rng.integers(-2, 4, (n, d)).astype(float) * (rng.random((n, d)) < 0.3)
    X[::9] = 0.0
    X[:, ::7] = 0.0
    w = rng.integers(0, 4, n).astype(float)
    classify = criterion in ("gini", "entropy", "gain_ratio")
    y = rng.integers(0, 3, n) if classify else rng.integers(-3, 4, n).astype(float)
    Est = DecisionTreeClassifier if classify else DecisionTreeRegressor
    for weights in (None, w):
        dense = Est(criterion=criterion, random_state=0).fit(X, y, sample_weight=weights)
        for S in (sp.csr_matrix(X), sp.csc_matrix(X)):
            sparse = Est(criterion=criterion, random_state=0).fit(S, y,
                                                                   sample_weight=weights)
            _assert_same_tree(dense, sparse)
            assert dense.tree_.max_depth > 5
