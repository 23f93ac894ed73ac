"""What a fitted tree and a forest keep (issue 20): per-feature arrays cost
nothing when they carry nothing, a forest holds each leaf value once, and
the compact storage reads, pickles and predicts as the full one did."""

import pickle

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_iris

from skml.ensemble import (
    ExtraTreesClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from skml.tree._packed import leaf_ids, pack_trees
from skml.tree._tree import Tree, tiny_column_scales


def _data(seed=0, n=300, p=40, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 1).astype(int)
    if nan:
        X[rng.random(size=X.shape) < 0.05] = np.nan
        X[:, 3] = 1.0  # a column without a missing value
    return X, y


def _unique_nbytes(arrays):
    """Bytes of the distinct buffers behind ``arrays`` (views counted once)."""
    seen, total = set(), 0
    for a in arrays:
        base = a
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) not in seen and base.strides != (0,) * base.ndim:
            seen.add(id(base))
            total += base.nbytes
    return total


def test_numeric_tree_keeps_no_per_feature_or_categorical_array():
    X, y = _data()
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    assert tree._category_slots is None and tree._has_missing is None
    assert tree._category_offset is None
    # ... and reads them as before: shape, dtype, values, read-only.
    slots, missing, offset = (tree.n_category_slots, tree.feature_has_missing,
                              tree.category_offset)
    assert slots.shape == missing.shape == (X.shape[1],)
    assert offset.shape == (tree.node_count,)
    assert slots.dtype == np.intp and missing.dtype == bool and offset.dtype == np.intp
    assert not slots.any() and not missing.any() and (offset == -1).all()
    assert not tree.has_categorical_nodes
    with pytest.raises(ValueError):
        missing[0] = True


def test_missing_values_recorded_on_the_rows_the_tree_grew_on():
    X, y = _data(nan=True)
    w = np.ones(X.shape[0])
    w[:40] = 0.0
    X[:40, 5] = np.nan  # missing only in rows left out
    X[40:, 5] = np.where(np.isnan(X[40:, 5]), 0.0, X[40:, 5])
    tree = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=w).tree_
    expected = np.isnan(X[40:]).any(axis=0)
    np.testing.assert_array_equal(tree.feature_has_missing, expected)
    assert not tree.feature_has_missing[3] and not tree.feature_has_missing[5]


def test_categorical_tree_keeps_its_arrays():
    rng = np.random.default_rng(0)
    X = np.c_[rng.integers(0, 4, 200), rng.normal(size=200)]
    y = (X[:, 0] % 2 == 0).astype(int)
    tree = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y).tree_
    assert tree.has_categorical_nodes
    np.testing.assert_array_equal(tree.n_category_slots, [4, 0])
    assert (tree.category_offset >= 0).any()


def test_tree_pickled_with_full_arrays_loads_compact_and_predicts_the_same():
    # A pickle written before the compact storage held the three arrays.
    X, y = _data(nan=True)
    est = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    tree = est.tree_
    state = dict(tree.__dict__)
    for name in ("_category_offset", "_category_slots", "_has_missing"):
        del state[name]
    state["category_offset"] = np.full(tree.node_count, -1, dtype=np.intp)
    state["n_category_slots"] = np.zeros(tree.n_features, dtype=np.intp)
    state["feature_has_missing"] = np.asarray(tree.feature_has_missing).copy()
    old = Tree.__new__(Tree)
    old.__setstate__(state)
    assert old._category_offset is None and old._category_slots is None
    np.testing.assert_array_equal(old.feature_has_missing, tree.feature_has_missing)
    np.testing.assert_array_equal(old.apply(X), tree.apply(X))
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(loaded.predict_proba(X), est.predict_proba(X))
    np.testing.assert_array_equal(loaded.decision_path(X).toarray(),
                                  est.decision_path(X).toarray())


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_forest_holds_each_leaf_value_once_and_pickles(Forest):
    X, y = load_breast_cancer(return_X_y=True)
    forest = Forest(n_estimators=5, random_state=0).fit(X, y)
    assert not hasattr(forest, "_packed")  # no layout of all the trees end to end
    arrays = []
    for est in forest.estimators_:
        tree = est.tree_
        packed = tree._pack  # made by the fit: each member packs its own
        assert packed is not None and packed.node_id is None  # depth-first: node order
        assert packed.values.shape[1] == 0  # leaf values read from tree.value
        assert tree._category_slots is None and tree._has_missing is None
        arrays += [packed.nodes, packed.roots]
        arrays += [a for a in vars(tree).values() if isinstance(a, np.ndarray)]
    # Bytes a node: the trees' arrays and their packed layouts, each buffer once
    # (measured 81.4 for a binary classifier, 73.5 for a regressor;
    # scikit-learn's node is 64 + 8 * width; 89 before the thresholds were
    # read from the layout).
    n_nodes = sum(est.tree_.node_count for est in forest.estimators_)
    width = forest.estimators_[0].tree_.value.shape[2]
    assert _unique_nbytes(arrays) / n_nodes <= 65 + 8 * width + 1.5
    blob = pickle.dumps(forest)
    # The pickle holds each node once (no packed layout) ...
    assert len(blob) < _unique_nbytes(arrays) - sum(
        est.tree_._pack.nodes.nbytes for est in forest.estimators_) + 20_000
    loaded = pickle.loads(blob)
    for est in loaded.estimators_:  # ... which loading makes again
        assert est.tree_._pack is not None
    np.testing.assert_array_equal(loaded.predict(X), forest.predict(X))
    np.testing.assert_array_equal(loaded.apply(X), forest.apply(X))
    a, _ = loaded.decision_path(X)
    b, _ = forest.decision_path(X)
    assert (a != b).nnz == 0
    if hasattr(forest, "predict_proba"):
        np.testing.assert_array_equal(loaded.predict_proba(X), forest.predict_proba(X))


def test_best_first_forest_reads_its_values_by_record():
    # Best-first members number their nodes out of pre-order: the leaf values
    # are then read through each layout's node ids.
    X, y = load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=4, max_leaf_nodes=9, random_state=0).fit(X, y)
    walked = np.mean([est.tree_.value[est.tree_.apply(X), 0] for est in forest.estimators_],
                     axis=0)
    np.testing.assert_allclose(forest.predict_proba(X), walked, rtol=0, atol=1e-12)
    leaves = forest.apply(X)
    for t, est in enumerate(forest.estimators_):
        np.testing.assert_array_equal(leaves[:, t], est.apply(X))


def test_forest_pickled_with_its_packing_loads():
    # Pickles written before held the packed layout and the trees' own values.
    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    state = forest.__getstate__()
    state["_packed"] = pack_trees([e.tree_ for e in forest.estimators_])
    old = RandomForestClassifier.__new__(RandomForestClassifier)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    np.testing.assert_array_equal(old.predict_proba(X), forest.predict_proba(X))


def test_forest_members_share_equal_missing_value_arrays():
    X, y = _data(nan=True, p=30)
    forest = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    trees = [e.tree_ for e in forest.estimators_]
    # Each tree's own answer: the features missing among its bagged rows.
    for tree, rows in zip(trees, forest.estimators_samples_):
        np.testing.assert_array_equal(tree.feature_has_missing,
                                      np.isnan(X[rows]).any(axis=0))
    for prev, tree in zip(trees, trees[1:]):
        if np.array_equal(tree.feature_has_missing, prev.feature_has_missing):
            assert np.shares_memory(tree.feature_has_missing, prev.feature_has_missing)
    assert np.shares_memory(trees[0].feature_has_missing, trees[-1].feature_has_missing)
    loaded = [e.tree_ for e in pickle.loads(pickle.dumps(forest)).estimators_]
    assert np.shares_memory(loaded[0].feature_has_missing, loaded[-1].feature_has_missing)
    np.testing.assert_allclose(
        forest.predict_proba(X), np.mean([e.predict_proba(X) for e in forest.estimators_], 0))


def test_best_first_trees_keep_their_record_ids():
    X, y = load_breast_cancer(return_X_y=True)
    trees = [DecisionTreeClassifier(max_leaf_nodes=12, random_state=s).fit(X, y).tree_
             for s in range(3)]
    packed = pack_trees(trees, compact=True)
    full = pack_trees(trees)
    if packed.node_id is not None:  # best-first ids are not in pre-order
        np.testing.assert_array_equal(packed.node_id, full.node_id)
    np.testing.assert_array_equal(leaf_ids(packed, X), leaf_ids(full, X))
    depth_first = [DecisionTreeClassifier(max_depth=5, random_state=s).fit(X, y).tree_
                   for s in range(3)]
    packed = pack_trees(depth_first, compact=True)
    assert packed.node_id is None
    np.testing.assert_array_equal(leaf_ids(packed, X), leaf_ids(pack_trees(depth_first), X))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_tiny_column_scales_of_sparse_x_equal_the_dense_ones(fmt):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 8)) * (rng.random(size=(50, 8)) < 0.3)
    X[:, 2] *= 1e-300
    X[:, 5] *= -1e-250
    X[:, 6] = 0.0
    S = sparse.csr_matrix(X).asformat(fmt)
    np.testing.assert_array_equal(tiny_column_scales(S), tiny_column_scales(X))
    assert tiny_column_scales(sparse.csr_matrix(np.ones((3, 2))).asformat(fmt)) is None


def test_regression_tree_reads_like_before():
    X, y = _data()
    est = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y.astype(float))
    imp = est.feature_importances_
    assert imp.shape == (X.shape[1],) and abs(imp.sum() - 1) < 1e-12
    assert est.tree_.children(0).shape == (2,)


def test_warm_started_forest_repacks_and_views_every_member():
    X, y = load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    forest.set_params(n_estimators=6).fit(X, y)
    once = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    for est in forest.estimators_:
        assert est.tree_._pack is not None
    np.testing.assert_array_equal(forest.predict_proba(X), once.predict_proba(X))
    np.testing.assert_array_equal(forest.apply(X), once.apply(X))


@pytest.mark.parametrize("chunk", [1, 50, 400])
def test_packing_a_chunk_of_trees_at_a_time_gives_the_same_records(chunk, monkeypatch):
    from skml.tree import _packed

    X, y = load_iris(return_X_y=True)
    trees = [e.tree_ for e in RandomForestClassifier(n_estimators=7, random_state=0)
             .fit(X, y).estimators_]
    trees.append(DecisionTreeClassifier(max_leaf_nodes=6, random_state=0).fit(X, y).tree_)
    whole = pack_trees(trees)
    monkeypatch.setattr(_packed, "_PACK_CHUNK", chunk)
    for with_values in (True, False):
        parts = pack_trees(trees, with_values=with_values)
        assert parts.nodes.tobytes() == whole.nodes.tobytes()
        np.testing.assert_array_equal(parts.node_id, whole.node_id)
        if with_values:
            assert parts.values.tobytes() == whole.values.tobytes()
    np.testing.assert_array_equal(leaf_ids(parts, X), leaf_ids(whole, X))
    # compact: node ids kept per chunk until the best-first tree (last) needs
    # them all (the earlier records' ids made from their roots)
    compact = pack_trees(trees, compact=True)
    np.testing.assert_array_equal(compact.node_id, whole.node_id)
    assert pack_trees(trees[:-1], compact=True).node_id is None


@pytest.mark.parametrize("Forest, params, kind", [
    (RandomForestClassifier, {"max_features": None}, "sparse"),  # whole-node search
    (RandomForestClassifier, {"criterion": "entropy", "max_leaf_nodes": 20}, "sparse"),
    (ExtraTreesClassifier, {}, "sparse"),
    (RandomForestRegressor, {"criterion": "absolute_error"}, "sparse"),
    (RandomForestRegressor, {"monotonic_cst": [1] + [0] * 39}, "dense"),
])
def test_trees_grown_in_one_scratch_equal_trees_grown_alone(Forest, params, kind):
    # A fit's thread task grows its trees one after another in one scratch
    # (grow_tree(scratch=...)); warm start, one tree per fit, makes a new
    # scratch for each: the trees must be the same, bit for bit.
    rng = np.random.RandomState(0)
    X = rng.rand(300, 40) * (rng.rand(300, 40) < 0.2)
    y = X[:, 0] * 3 + 0.1 * rng.normal(size=300)
    if issubclass(Forest, ClassifierMixin):
        y = (y > np.median(y)).astype(int)
    X = sparse.csr_matrix(X) if kind == "sparse" else X
    together = Forest(n_estimators=6, random_state=0, **params).fit(X, y)
    alone = Forest(n_estimators=1, random_state=0, warm_start=True, **params)
    for k in range(1, 7):
        alone.set_params(n_estimators=k).fit(X, y)
    for a, b in zip(together.estimators_, alone.estimators_):
        for name in ("children_left", "feature", "threshold", "value", "impurity"):
            np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    two_jobs = Forest(n_estimators=6, random_state=0, n_jobs=2, **params).fit(X, y)
    np.testing.assert_array_equal(two_jobs.predict(X), together.predict(X))
