"""The arrays a sparse X gives the tree split search (:func:`sparse_views`):
a CSR X as validated is read in place, the other view holds rows (and
positions for rows out of order), not values, and the trees stay those of the dense fit bit for bit (issue 20)."""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from skml.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from skml.tree._splitter_kernels import SHORT_ROW
from skml.tree._tree import sparse_views


def _integer_matrix(seed, n, d, density):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 4, (n, d)).astype(float) * (rng.random((n, d)) < density)
    X[::9] = 0.0  # empty rows
    X[:, ::7] = 0.0  # empty columns
    return X


def _unsorted(S, seed):
    """A copy of S (CSR or CSC) whose rows (columns) list their entries in a
    random order."""
    S = S.copy()
    rng = np.random.default_rng(seed)
    for i in range(S.indptr.shape[0] - 1):
        a, b = S.indptr[i], S.indptr[i + 1]
        order = rng.permutation(b - a)
        S.indices[a:b] = S.indices[a:b][order]
        S.data[a:b] = S.data[a:b][order]
    S.has_sorted_indices = False
    return S


def _with_explicit_zeros_and_duplicates(X, seed):
    rng = np.random.default_rng(seed)
    rows, cols = np.nonzero(X)
    vals = X[rows, cols]
    half = vals / 2  # each value split in two stored entries (exact: integers/2)
    zr, zc = np.nonzero(X == 0)
    pick = rng.random(zr.shape[0]) < 0.05
    return sp.csr_matrix((np.concatenate([half, half, np.zeros(pick.sum())]),
                          (np.concatenate([rows, rows, zr[pick]]),
                           np.concatenate([cols, cols, zc[pick]]))), shape=X.shape)


def _check_views(views, X):
    """The views hold X's entries: columns in row order, rows as X's."""
    data, indices, indptr, col_pos, row_ptr, row_cols, row_pos = views.arrays
    C = sp.csc_matrix(X)
    C.sort_indices()
    np.testing.assert_array_equal(indptr, C.indptr)
    row_vals = data[row_pos] if row_pos.shape[0] else data
    if indices.shape[0] == row_cols.shape[0]:
        np.testing.assert_array_equal(indices, C.indices)
        if col_pos.shape[0]:
            col_vals = data[col_pos]
        elif row_pos.shape[0]:  # a CSC: the values in column order
            col_vals = data
        else:  # a CSR: each entry found in its row
            col_of = np.repeat(np.arange(X.shape[1]), np.diff(indptr))
            col_vals = np.array([
                row_vals[row_ptr[i] + np.flatnonzero(row_cols[row_ptr[i]:row_ptr[i + 1]] == j)[0]]
                for i, j in zip(indices, col_of)])
        np.testing.assert_array_equal(col_vals, C.data)
    for i in range(X.shape[0]):
        a, b = row_ptr[i], row_ptr[i + 1]
        dense_row = np.zeros(X.shape[1])
        dense_row[row_cols[a:b]] = row_vals[a:b]
        np.testing.assert_array_equal(dense_row, X[i])


def test_canonical_csr_and_csc_are_read_in_place():
    X = _integer_matrix(0, 60, 25, 0.3)
    S = sp.csr_matrix(X)
    for columns in (True, False):
        views = sparse_views(S, columns=columns)
        data, indices, _, col_pos, row_ptr, row_cols, row_pos = views.arrays
        assert np.shares_memory(data, S.data)
        assert np.shares_memory(row_ptr, S.indptr)
        assert np.shares_memory(row_cols, S.indices)
        assert row_pos.shape[0] == 0
        # the column view: one integer per stored value (its row; the value
        # is found in the row), or none
        assert indices.shape[0] == (S.nnz if columns else 0)
        assert col_pos.shape[0] == 0
        _check_views(views, X)
    # rows in any order are fine (no duplicates, no stored zeros); short
    # ones are searched as they are
    U = _unsorted(S, 1)
    views = sparse_views(U, columns=True)
    assert np.shares_memory(views.arrays[0], U.data)
    assert views.arrays[3].shape[0] == 0
    _check_views(views, X)
    # a CSR's views made without columns get them later the same way
    for T, n_pos in ((S, 0), (U, 0)):
        views = sparse_views(sparse_views(T, columns=False), columns=True)
        assert views.arrays[1].shape[0] == T.nnz and views.arrays[3].shape[0] == n_pos
        _check_views(views, X)
    C = sp.csc_matrix(X)
    views = sparse_views(C, columns=False)  # a CSC is the column view anyway
    data, indices, indptr, col_pos, _, _, row_pos = views.arrays
    assert np.shares_memory(data, C.data) and np.shares_memory(indices, C.indices)
    assert col_pos.shape[0] == 0 and row_pos.shape[0] == C.nnz
    _check_views(views, X)


def test_other_input_is_copied_to_a_canonical_csr():
    X = _integer_matrix(2, 50, 20, 0.3)
    dirty = _with_explicit_zeros_and_duplicates(X, 3)
    for S in (dirty, dirty.tocsc(), sp.csr_matrix(X, dtype=np.float32),
              _unsorted(sp.csc_matrix(X), 4)):
        views = sparse_views(S, columns=True)
        assert not np.shares_memory(views.arrays[0], S.data)
        _check_views(views, X)
    # column scales divide a copy
    scales = np.full(X.shape[1], 2.0)
    S = sp.csr_matrix(X)
    views = sparse_views(S, scales)
    assert not np.shares_memory(views.arrays[0], S.data)
    _check_views(views, X / 2)
    np.testing.assert_array_equal(S.toarray(), X)


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error"])
def test_whole_node_search_from_the_rows_equals_dense(criterion):
    # Best splitter and all features: no column view; the root's entries
    # overflow the buckets (filled in batches of features) and the partition
    # reads each sample's row. Every input form gives the dense tree.
    X = _integer_matrix(5, 300, 40, 0.3)
    rng = np.random.default_rng(6)
    w = rng.integers(0, 4, X.shape[0]).astype(float)
    classify = criterion != "squared_error"
    y = rng.integers(0, 3, 300) if classify else rng.integers(-3, 4, 300).astype(float)
    Est = DecisionTreeClassifier if classify else DecisionTreeRegressor
    forms = (sp.csr_matrix(X), _unsorted(sp.csr_matrix(X), 7),
             _with_explicit_zeros_and_duplicates(X, 8), sp.csc_matrix(X),
             _unsorted(sp.csc_matrix(X), 9))
    for weights in (None, w):
        dense = Est(criterion=criterion, random_state=0).fit(X, y, sample_weight=weights)
        assert dense.tree_.max_depth > 5
        for S in forms:
            fit = Est(criterion=criterion, random_state=0).fit(S, y, sample_weight=weights)
            for name in ("feature", "threshold", "children_left", "value", "impurity",
                         "n_node_samples"):
                np.testing.assert_array_equal(getattr(fit.tree_, name),
                                              getattr(dense.tree_, name))


@pytest.mark.parametrize("Est, params", [
    (RandomForestClassifier, dict(n_estimators=3, max_features=0.5)),
    (RandomForestRegressor, dict(n_estimators=3)),  # whole-node search per tree
    (ExtraTreesClassifier, dict(n_estimators=3)),
    (ExtraTreesRegressor, dict(n_estimators=3, max_features=0.4)),
])
def test_forests_share_the_views_and_equal_dense(Est, params):
    X = _integer_matrix(10, 150, 30, 0.3)
    rng = np.random.default_rng(11)
    classify = Est in (RandomForestClassifier, ExtraTreesClassifier)
    y = rng.integers(0, 3, 150) if classify else rng.integers(-3, 4, 150).astype(float)
    w = rng.integers(1, 3, 150).astype(float)
    dense = Est(random_state=0, **params).fit(X, y, sample_weight=w)
    for S in (sp.csr_matrix(X), sp.csc_matrix(X), _unsorted(sp.csr_matrix(X), 12)):
        for n_jobs in (1, 2):
            fit = Est(random_state=0, n_jobs=n_jobs, **params).fit(S, y, sample_weight=w)
            for a, b in zip(fit.estimators_, dense.estimators_):
                np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
                np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
                np.testing.assert_array_equal(a.tree_.value, b.tree_.value)
            np.testing.assert_array_equal(fit.predict(S), dense.predict(X))


@pytest.mark.parametrize("ordered", [True, False])
def test_long_csr_rows_are_bisected_or_keep_positions(ordered):
    # Rows longer than SHORT_ROW: bisected when in order; out of order, the
    # column view keeps each entry's position. The forests equal dense.
    X = _integer_matrix(14, 60, 600, 0.6)
    S = sp.csr_matrix(X)
    assert np.diff(S.indptr).max() > SHORT_ROW
    if not ordered:
        S = _unsorted(S, 15)
    views = sparse_views(S, columns=True)
    assert views.arrays[3].shape[0] == (0 if ordered else S.nnz)
    _check_views(views, X)
    y = (X[:, 1] + X[:, 8] - X[:, 20] > 0).astype(int)
    for Est in (RandomForestClassifier, ExtraTreesClassifier):
        dense = Est(n_estimators=3, max_features=0.2, random_state=0).fit(X, y)
        fit = Est(n_estimators=3, max_features=0.2, random_state=0).fit(S, y)
        for a, b in zip(fit.estimators_, dense.estimators_):
            np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
            np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


def test_forest_on_tiny_sparse_columns_scales_its_thresholds_back():
    # Columns below 2**-400 are split at a scale of their own (tiny_column_scales);
    # the trees grown from the shared sparse views scale their thresholds back.
    X = _integer_matrix(13, 120, 10, 0.4)
    X[:, :5] *= 1e-300
    y = (X[:, 1] > 0).astype(int) + (X[:, 6] > 0)
    dense = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    fit = RandomForestClassifier(n_estimators=3, random_state=0).fit(sp.csr_matrix(X), y)
    for a, b in zip(fit.estimators_, dense.estimators_):
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(fit.predict(sp.csr_matrix(X)), dense.predict(X))


def test_decision_tree_on_a_csr_copies_no_values():
    # 2000 x 2000 at 10% (~390k stored values, 3.1 MB of float64 values). The
    # whole-node search reads the CSR in place and makes no column view: it
    # adds the buckets (2 bytes per value) and per-node and per-sample arrays
    # (~1 MB here); a CSC copy took 12 bytes per value, and the row structure
    # 12 more (37 bytes per value in all, measured before).
    rng = np.random.default_rng(0)
    n, d, nnz = 2000, 2000, 400_000
    S = sp.csr_matrix((rng.integers(1, 5, nnz).astype(float),
                       (rng.integers(0, n, nnz), rng.integers(0, d, nnz))), shape=(n, d))
    y = rng.integers(0, 2, n)
    DecisionTreeClassifier(max_depth=2, random_state=0).fit(S[:50], y[:50])
    tracemalloc.start()
    DecisionTreeClassifier(max_depth=8, random_state=0).fit(S, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10 * S.nnz
