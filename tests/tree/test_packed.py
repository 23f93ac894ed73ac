"""pack_trees: the compiled pass over binary trees against the per-tree array path."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris

from skml.ensemble import GradientBoostingRegressor, RandomForestClassifier
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from skml.tree import _packed
from skml.tree._packed import pack_trees


def _array_path(trees, with_values=True):
    """pack_trees through the per-tree array operations (as for categorical
    trees), by making the compiled pass decline."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_packed, "_pack_flat", lambda *args: None)
        return pack_trees(trees, with_values=with_values)


def _assert_same(a, b):
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


def _tree_lists():
    X, y = load_diabetes(return_X_y=True)
    Xi, yi = load_iris(return_X_y=True)
    X_nan = X.copy()
    X_nan[np.random.RandomState(0).rand(*X.shape) < 0.1] = np.nan
    gb = GradientBoostingRegressor(n_estimators=12, max_depth=4,
                                   random_state=0).fit(X, y)
    gb_nan = GradientBoostingRegressor(n_estimators=6, random_state=0).fit(X_nan, y)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(Xi, yi)
    multi = DecisionTreeRegressor(max_depth=5, random_state=0).fit(
        X, np.c_[y, -y, y ** 0.5])
    stump = DecisionTreeClassifier(max_depth=1).fit(Xi, yi)
    leaf = DecisionTreeRegressor().fit(X[:5], np.ones(5))  # a single leaf
    return {
        "boosting": [e.tree_ for e in gb.estimators_.ravel()],
        "boosting_nan": [e.tree_ for e in gb_nan.estimators_.ravel()],
        "forest": [e.tree_ for e in forest.estimators_],
        "multi_output": [multi.tree_, multi.tree_],
        "mixed_sizes": [stump.tree_, leaf.tree_, stump.tree_],
    }


@pytest.mark.parametrize("with_values", [True, False])
def test_compiled_pass_packs_as_the_array_path(with_values):
    for name, trees in _tree_lists().items():
        if name == "mixed_sizes" and with_values:
            continue  # one packing holds one value width
        _assert_same(pack_trees(trees, with_values=with_values),
                     _array_path(trees, with_values=with_values))
        for tree in trees[:2]:
            _assert_same(pack_trees([tree], with_values=with_values),
                         _array_path([tree], with_values=with_values))


def test_packed_prediction_matches_the_tree_walk():
    X, _ = load_diabetes(return_X_y=True)
    for trees in _tree_lists().values():
        packed = pack_trees(trees, with_values=False)
        X_t = np.ascontiguousarray(X[:, :trees[0].n_features])
        leaves = _packed.leaf_ids(packed, X_t)
        for t, tree in enumerate(trees):
            assert np.array_equal(leaves[:, t], tree.apply(
                np.ascontiguousarray(X[:, :tree.n_features])))


def test_categorical_trees_take_the_array_path():
    rng = np.random.RandomState(0)
    X = np.c_[rng.randint(0, 4, 200), rng.rand(200)]
    y = X[:, 0] * 2 + X[:, 1]
    tree = DecisionTreeRegressor(max_depth=3, categorical_features=[0],
                                 random_state=0).fit(X, y).tree_
    assert tree.has_categorical_nodes
    packed = pack_trees([tree, tree])
    assert packed.pool.size
    _assert_same(packed, _array_path([tree, tree]))
