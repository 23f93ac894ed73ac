"""ExtraTreeClassifier / ExtraTreeRegressor: the decision trees with
scikit-learn's extremely randomised defaults (one uniform random threshold
per drawn feature, Geurts et al. 2006)."""

import numpy as np
import pytest
from scipy import stats
from sklearn import datasets
from sklearn import tree as sktree
from sklearn.model_selection import cross_val_score

from skml.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from tests._parity import parity_test
from tests.ensemble.test_forest import _tree_arrays_equal



# -- parity with scikit-learn -----------------------------------------------------

@parity_test(ExtraTreeClassifier)
@pytest.mark.parametrize("loader", [datasets.load_iris, datasets.load_wine,
                                    datasets.load_breast_cancer])
def test_classifier_parity(loader):
    # One random tree's 5-fold accuracy moves by up to 0.06 between seeds (in
    # either library), so the mean over 5 seeds is compared: measured
    # differences of that mean 0.001-0.003 on the three data sets.
    X, y = loader(return_X_y=True)
    diffs = [cross_val_score(ExtraTreeClassifier(random_state=s), X, y, cv=5).mean()
             - cross_val_score(sktree.ExtraTreeClassifier(random_state=s), X, y,
                               cv=5).mean() for s in range(5)]
    assert abs(np.mean(diffs)) <= 0.04


@parity_test(ExtraTreeRegressor)
def test_regressor_parity():
    # 5-fold R^2 of one tree moves by up to 0.08 between seeds; the mean over
    # 5 seeds differed by 0.008.
    X, y = datasets.load_diabetes(return_X_y=True)
    diffs = [cross_val_score(ExtraTreeRegressor(random_state=s, min_samples_leaf=5), X, y,
                             cv=5).mean()
             - cross_val_score(sktree.ExtraTreeRegressor(random_state=s, min_samples_leaf=5),
                               X, y, cv=5).mean() for s in range(5)]
    assert abs(np.mean(diffs)) <= 0.06


def test_defaults_are_sklearns():
    for ours, theirs in ((ExtraTreeClassifier(), sktree.ExtraTreeClassifier()),
                         (ExtraTreeRegressor(), sktree.ExtraTreeRegressor())):
        mine = ours.get_params()
        for name, value in theirs.get_params().items():
            assert mine[name] == value, name
    assert ExtraTreeClassifier().splitter == "random"
    assert ExtraTreeClassifier().max_features == "sqrt"
    assert ExtraTreeRegressor().max_features == 1.0


# -- properties -------------------------------------------------------------------

def _node_ranges(est, X):
    """Smallest and largest value of each node's split feature over the
    training rows reaching the node (internal nodes only)."""
    path = est.decision_path(X).tocsc()
    tree = est.tree_
    out = []
    for node in np.flatnonzero(tree.children_left >= 0):
        rows = path.indices[path.indptr[node]:path.indptr[node + 1]]
        col = X[rows, tree.feature[node]]
        out.append((node, col.min(), col.max()))
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cls", [ExtraTreeClassifier, ExtraTreeRegressor])
def test_random_thresholds_lie_strictly_inside_the_node_range(cls, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 5)).round(1)  # ties: many rows per value
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int) if cls is ExtraTreeClassifier \
        else X[:, 0] - 2 * X[:, 2] + rng.normal(size=150)
    est = cls(random_state=seed).fit(X, y)
    assert est.tree_.node_count > 3
    ranges = _node_ranges(est, X)
    for node, lo, hi in ranges:
        thr = est.tree_.threshold[node]
        assert lo < thr < hi, (node, lo, thr, hi)


def test_one_feature_is_a_uniform_random_threshold_stump():
    # One candidate feature and max_features=1: the root's split is the one
    # random threshold drawn, so over seeds the thresholds are uniform on
    # (min, max), and each child predicts its rows' mean.
    rng = np.random.default_rng(0)
    x = rng.uniform(2.0, 5.0, size=300)
    x[[0, 1]] = 2.0, 5.0
    X = x[:, None]
    y = np.sin(3 * x) + rng.normal(scale=0.1, size=300)
    thresholds = []
    for seed in range(300):
        est = ExtraTreeRegressor(max_depth=1, max_features=1, random_state=seed).fit(X, y)
        tree = est.tree_
        assert tree.node_count == 3 and tree.feature[0] == 0
        thr = tree.threshold[0]
        assert 2.0 < thr < 5.0
        left = x <= thr
        np.testing.assert_allclose(est.predict(np.array([[2.0], [5.0]])),
                                   [y[left].mean(), y[~left].mean()], rtol=1e-12)
        thresholds.append(thr)
    # deterministic seeds: a fixed p-value, far from any cut-off
    assert stats.kstest((np.array(thresholds) - 2.0) / 3.0, "uniform").pvalue > 0.01


@pytest.mark.parametrize("tree_cls, et_cls, kw", [
    (DecisionTreeClassifier, ExtraTreeClassifier, {"max_features": "sqrt"}),
    (DecisionTreeRegressor, ExtraTreeRegressor, {"max_features": 1.0}),
])
def test_extra_tree_is_the_decision_tree_with_random_splitter(tree_cls, et_cls, kw):
    X, y = datasets.load_wine(return_X_y=True)
    if tree_cls is DecisionTreeRegressor:
        y = X[:, 0] + y
    a = et_cls(random_state=3).fit(X, y)
    b = tree_cls(splitter="random", random_state=3, **kw).fit(X, y)
    assert _tree_arrays_equal(a.tree_, b.tree_)
    c = et_cls(splitter="best", random_state=3).fit(X, y)
    d = tree_cls(random_state=3, **kw).fit(X, y)
    assert _tree_arrays_equal(c.tree_, d.tree_)


def test_multioutput_class_weight_and_monotonic_cst():
    X, y = datasets.load_iris(return_X_y=True)
    Y = np.column_stack([y, (X[:, 0] > 5.8).astype(int)])
    est = ExtraTreeClassifier(random_state=0, class_weight="balanced").fit(X, Y)
    assert est.predict(X).shape == (150, 2)
    assert [p.shape for p in est.predict_proba(X)] == [(150, 3), (150, 2)]
    Xr, yr = datasets.load_diabetes(return_X_y=True)
    reg = ExtraTreeRegressor(random_state=0, monotonic_cst=[1] + [0] * 9,
                             max_depth=6).fit(Xr, yr)
    grid = np.tile(Xr[:1], (50, 1))
    grid[:, 0] = np.linspace(Xr[:, 0].min(), Xr[:, 0].max(), 50)
    assert np.all(np.diff(reg.predict(grid)) >= 0)
