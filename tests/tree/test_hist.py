"""Histogram growth (binned features, sibling subtraction): the boosting mode."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skml.tree._tree import bin_features, grow_tree


def _data(seed, n=400, n_values=25, nan_rate=0.0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, n_values, size=(n, 4)).astype(float) / 3.0
    y = X[:, 0] - np.sin(X[:, 1]) + rng.normal(scale=0.5, size=n)
    if nan_rate:
        X[rng.random((n, 4)) < nan_rate] = np.nan
    return X, y, rng.integers(0, 3, n).astype(float)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), nan_rate=st.sampled_from([0.0, 0.1]),
       best_first=st.booleans())
@example(seed=394, nan_rate=0.0, best_first=False)  # two features, one partition
def test_few_values_give_the_exact_tree(seed, nan_rate, best_first):
    # With fewer distinct values than bins every midpoint is a bin edge, so
    # the histogram search sees the exact search's candidates: the same
    # partition of the rows into leaves, with the same values (thresholds may
    # differ where a bin is empty at a node). Compared up to the naming of
    # the nodes: two features can cut a small node's rows into the same two
    # groups, mirrored, so the splits tie up to rounding and either may win,
    # with the children in the other order (hypothesis found seed 394).
    X, y, w = _data(seed, nan_rate=nan_rate)
    kw = dict(criterion="squared_error", seed=seed, max_depth=4, min_samples_leaf=3,
              max_leaf_nodes=10 if best_first else None)
    exact = grow_tree(X, y, w, **kw)
    hist = grow_tree(None, y, w, binned=bin_features(X), **kw)
    fit = w > 0
    leaves_e, leaves_h = exact.apply(X[fit]), hist.apply(X[fit])
    pairs = set(zip(leaves_e.tolist(), leaves_h.tolist()))
    assert len(pairs) == len(set(leaves_e.tolist())) == len(set(leaves_h.tolist()))
    np.testing.assert_allclose(hist.predict(X[fit]), exact.predict(X[fit]),
                               rtol=1e-10, atol=1e-12)
    assert hist.node_count == exact.node_count
    np.testing.assert_array_equal(np.sort(hist.n_node_samples),
                                  np.sort(exact.n_node_samples))
    np.testing.assert_allclose(np.sort(hist.impurity), np.sort(exact.impurity),
                               rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("max_bins", [16, 256])
def test_many_values_are_binned_and_thresholds_route_like_the_bins(max_bins):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3))
    y = X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.1, size=3000)
    X[rng.random((3000, 3)) < 0.05] = np.nan
    y[np.isnan(X[:, 0])] = 4.0  # missing carries signal
    binned = bin_features(X, max_bins=max_bins)
    assert binned.codes.dtype == np.uint8
    assert binned.n_bins.max() <= max_bins - 1
    np.testing.assert_array_equal(binned.codes[np.isnan(X)], max_bins - 1)
    w = np.ones(3000)
    tree = grow_tree(None, y, w, criterion="squared_error", binned=binned,
                     min_samples_leaf=20, seed=0)
    # Raw-scale thresholds send every training sample to the leaf the
    # binned growth put it in.
    leaves = tree.apply(X)
    is_leaf = tree.children_left == -1
    np.testing.assert_array_equal(np.bincount(leaves, minlength=tree.node_count)[is_leaf],
                                  tree.n_node_samples[is_leaf])
    pred = tree.predict(X)[:, 0, 0]
    assert 1 - np.mean((pred - y) ** 2) / np.var(y) > (0.9 if max_bins == 256 else 0.8)
    assert tree.feature_has_missing.all()


def test_sibling_subtraction_keeps_counts_and_sums_exact():
    # Every node's stats equal a direct computation over its samples,
    # including nodes whose histogram came from a subtraction.
    X, y, w = _data(3, n=600, n_values=40)
    tree = grow_tree(None, y, w, criterion="squared_error", binned=bin_features(X),
                     seed=0, min_samples_leaf=5)
    path = tree.decision_path(X[w > 0]).toarray().astype(bool)
    yw, ww = y[w > 0], w[w > 0]
    for nd in range(tree.node_count):
        reach = path[:, nd]
        assert reach.sum() == tree.n_node_samples[nd]
        assert tree.value[nd, 0, 0] == pytest.approx(np.average(yw[reach], weights=ww[reach]))


def test_histogram_mode_rejects_what_it_does_not_do():
    X, y, w = _data(0)
    binned = bin_features(X)
    with pytest.raises(ValueError, match="squared-error"):
        grow_tree(None, y, w, criterion="absolute_error", binned=binned)
    with pytest.raises(ValueError, match="numeric"):
        grow_tree(None, y, w, criterion="squared_error", binned=binned,
                  n_category_slots=np.array([3, 0, 0, 0]))
    with pytest.raises(ValueError, match="max_bins"):
        bin_features(X, max_bins=300)


@settings(max_examples=10)
@given(seed=st.integers(0, 2**31 - 2), nan_rate=st.sampled_from([0.0, 0.1]))
def test_best_first_without_binding_limit_grows_the_depth_first_tree(seed, nan_rate):
    # Each node draws its features from its own stream (issue 19), so the
    # best-first search order grows the depth-first tree, in another order.
    X, y, w = _data(seed, nan_rate=nan_rate)
    kw = dict(criterion="squared_error", seed=seed, max_depth=5, max_features=2,
              binned=bin_features(X))
    depth_first = grow_tree(None, y, w, **kw)
    best_first = grow_tree(None, y, w, max_leaf_nodes=10_000, **kw)
    assert depth_first.node_count == best_first.node_count
    fit = w > 0
    # The same leaves, hence the same partition of the samples and values.
    np.testing.assert_array_equal(depth_first.predict(X[fit]), best_first.predict(X[fit]))
    np.testing.assert_array_equal(np.sort(depth_first.threshold), np.sort(best_first.threshold))
    np.testing.assert_array_equal(np.sort(depth_first.feature), np.sort(best_first.feature))


def _grow_in_threads(X, y, w, n_threads, **kw):
    import numba

    from skml.tree._hist_kernels import bin_columns, grow_tree_hist, hist_growth_rules

    codes, edges, n_bins, missing_bin, _ = bin_columns(X, 256)
    rules = hist_growth_rules(
        X.shape[1], max_features=kw.get("max_features"), max_depth=kw.get("max_depth"),
        min_samples_split=2, min_samples_leaf=kw.get("min_samples_leaf", 1),
        min_weight_leaf=0.0, min_impurity_decrease=0.0,
        max_leaf_nodes=kw.get("max_leaf_nodes"), seed=3)
    # Its content on entry is ignored (the growth's scratch until the end).
    leaf_of = np.full(X.shape[0], -7, dtype=np.intp)
    outer = numba.get_num_threads()
    numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
    try:
        grown = grow_tree_hist(codes.T, np.ascontiguousarray(codes), edges, n_bins,
                               missing_bin, y, w, rules, leaf_of, n_threads)
    finally:
        numba.set_num_threads(outer)
    return grown, leaf_of


def _fields(nodes):
    """The node records' bytes field by field: the records' padding bytes are
    not written (the growth allocates them uninitialised)."""
    return [nodes[name].tobytes() for name in nodes.dtype.names]


@pytest.mark.parametrize("weights", ["unit", "integer", "zero"])
@pytest.mark.parametrize("growth", [dict(max_depth=6, min_samples_leaf=5),
                                    dict(max_leaf_nodes=24, max_features=3)])
def test_histograms_in_threads_grow_the_one_thread_tree_bit_for_bit(weights, growth):
    # Each feature's bins are summed by one thread in the one-thread row
    # order: the tree (thresholds, values, impurities) is bit-identical for
    # any thread count. 9000 rows, so that the root and the first children
    # are above PARALLEL_MIN_ROWS and take the parallel kernels.
    from skml.tree._hist_kernels import PARALLEL_MIN_ROWS

    rng = np.random.default_rng(5)
    n = 9000
    assert n // 2 > PARALLEL_MIN_ROWS
    X = rng.normal(size=(n, 7))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.sin(3 * np.nan_to_num(X[:, 0])) + np.nan_to_num(X[:, 1]) + rng.normal(scale=0.3, size=n)
    w = {"unit": np.ones(n), "integer": rng.integers(1, 4, n).astype(float),
         "zero": rng.integers(0, 3, n).astype(float)}[weights]
    one, leaf_one = _grow_in_threads(X, y, w, 1, **growth)
    assert one.nodes.shape[0] > 15
    for n_threads in (2, 3, 7):
        many, leaf_many = _grow_in_threads(X, y, w, n_threads, **growth)
        assert _fields(one.nodes) == _fields(many.nodes)
        assert one.value.tobytes() == many.value.tobytes()
        np.testing.assert_array_equal(leaf_one, leaf_many)


@pytest.mark.parametrize("unit", [True, False])
def test_parallel_histogram_kernels_equal_the_serial_ones(unit):
    from skml.tree._hist_kernels import (
        _histogram, _histogram_par, _histogram_rows, _histogram_rows_par, _node_sums)

    rng = np.random.default_rng(0)
    n, p = 3000, 5
    codes = rng.integers(0, 256, size=(n, p)).astype(np.uint8)
    y = rng.normal(size=n)
    w = np.ones(n) if unit else rng.random(n)
    samples = np.sort(rng.choice(n, 1700, replace=False))
    wy = np.empty(n)
    _node_sums(y, w, samples, 100, 1600, wy)
    serial = np.zeros((p, 256, 3))
    par = np.full((p, 256, 3), np.nan)  # every cell must be written
    _histogram_rows(codes, w, wy, samples, 100, 1600, unit, serial)
    for n_blocks in range(1, p + 1):
        par[:] = np.nan
        _histogram_rows_par(codes, w, wy, samples, 100, 1600, unit, n_blocks, par)
        assert serial.tobytes() == par.tobytes()
    for identity in (True, False):
        rows = np.arange(n) if identity else samples
        end = n if identity else 1700
        _node_sums(y, w, rows, 0, end, wy)
        _histogram(codes.T, w, wy, rows, 0, end, unit, identity, serial)
        par[:] = np.nan
        _histogram_par(codes.T, w, wy, rows, 0, end, unit, identity, par)
        assert serial.tobytes() == par.tobytes()


@pytest.mark.parametrize("unit", [True, False])
def test_sample_major_and_feature_major_histograms_are_bit_identical(unit):
    # Below the root a node's histogram reads the sample-major codes or the
    # feature-major ones by its density (ROWS_MAX_GAP): both add each bin's
    # rows in node order, so the choice never changes a bit.
    from skml.tree._hist_kernels import _histogram, _histogram_rows, _node_sums

    rng = np.random.default_rng(1)
    n, p = 5000, 6
    codes = rng.integers(0, 256, size=(n, p)).astype(np.uint8)
    y = rng.normal(size=n) * 1e3
    w = np.ones(n) if unit else rng.random(n)
    samples = rng.permutation(n)
    wy = np.empty(n)
    by_rows = np.zeros((p, 256, 3))
    by_features = np.full((p, 256, 3), np.nan)
    for start, end in ((0, n), (40, 2900), (4000, 4300)):
        _node_sums(y, w, samples, start, end, wy)
        _histogram_rows(codes, w, wy, samples, start, end, unit, by_rows)
        _histogram(codes.T, w, wy, samples, start, end, unit, False, by_features)
        assert by_rows.tobytes() == by_features.tobytes()


@pytest.mark.parametrize("weights", ["unit", "zero"])
def test_sparse_nodes_of_large_codes_grow_the_same_tree_in_threads(weights):
    # Codes above ROWS_CACHED bytes: the sparse nodes' histograms read the
    # feature-major codes, the dense ones the sample-major codes; one and
    # two threads grow the same tree.
    from skml.tree._hist_kernels import ROWS_CACHED

    rng = np.random.default_rng(2)
    n, p = 60000, 20
    assert n * p > ROWS_CACHED
    X = rng.normal(size=(n, p))
    X[rng.random(X.shape) < 0.02] = np.nan
    y = np.nan_to_num(X[:, 0]) * np.nan_to_num(X[:, 1]) + rng.normal(scale=0.5, size=n)
    w = np.ones(n) if weights == "unit" else rng.integers(0, 3, n).astype(float)
    one, leaf_one = _grow_in_threads(X, y, w, 1, max_depth=7, min_samples_leaf=20)
    assert one.nodes.shape[0] > 100
    two, leaf_two = _grow_in_threads(X, y, w, 2, max_depth=7, min_samples_leaf=20)
    assert _fields(one.nodes) == _fields(two.nodes)
    assert one.value.tobytes() == two.value.tobytes()
    np.testing.assert_array_equal(leaf_one, leaf_two)
    # Every grown row lands in a leaf holding it, the others get -1.
    starts = one.nodes["start"][leaf_one[w > 0]]
    ends = one.nodes["end"][leaf_one[w > 0]]
    assert np.all(one.nodes["left"][leaf_one[w > 0]] == -1)
    assert np.all(ends > starts)
    assert np.all(leaf_one[w == 0] == -1)
