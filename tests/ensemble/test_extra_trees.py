"""ExtraTreesClassifier / ExtraTreesRegressor: the random forest's machinery
with ExtraTree* members (random thresholds, no bootstrap by default)."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn.base import clone
from sklearn import ensemble as sken
from sklearn.model_selection import cross_val_score, train_test_split

from skml.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.tree import ExtraTreeClassifier, ExtraTreeRegressor
from tests._parity import parity_test
from tests.ensemble.test_forest import OOB_WARNING, _tree_arrays_equal


# -- parity with scikit-learn -----------------------------------------------------

@parity_test(ExtraTreesClassifier)
@pytest.mark.parametrize("loader", [datasets.load_iris, datasets.load_wine,
                                    datasets.load_breast_cancer])
def test_classifier_parity(loader):
    # 5-fold accuracy, 40 trees: over seeds 0-4 skml - scikit-learn was within
    # [-0.022, 0.017] on these three data sets.
    X, y = loader(return_X_y=True)
    kw = dict(n_estimators=40, random_state=0)
    ours = cross_val_score(ExtraTreesClassifier(**kw), X, y, cv=5).mean()
    ref = cross_val_score(sken.ExtraTreesClassifier(**kw), X, y, cv=5).mean()
    assert abs(ours - ref) <= 0.04


@parity_test(ExtraTreesRegressor)
def test_regressor_parity():
    # Held-out R^2 and out-of-bag R^2 (bootstrap=True), 50 trees: over seeds
    # 0-4 the differences were within [-0.033, 0.035] and [-0.037, 0.026].
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    kw = dict(n_estimators=50, bootstrap=True, oob_score=True, random_state=0)
    ours = ExtraTreesRegressor(**kw).fit(Xtr, ytr)
    ref = sken.ExtraTreesRegressor(**kw).fit(Xtr, ytr)
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.06
    assert abs(ours.oob_score_ - ref.oob_score_) <= 0.06
    assert ours.oob_prediction_.shape == ref.oob_prediction_.shape


def test_defaults_are_sklearns():
    for ours, theirs in ((ExtraTreesClassifier(), sken.ExtraTreesClassifier()),
                         (ExtraTreesRegressor(), sken.ExtraTreesRegressor())):
        mine = ours.get_params()
        for name, value in theirs.get_params().items():
            if name != "estimator":
                assert mine[name] == value, name
    assert ExtraTreesClassifier().bootstrap is False
    assert isinstance(ExtraTreesClassifier().estimator, ExtraTreeClassifier)
    assert isinstance(ExtraTreesRegressor().estimator, ExtraTreeRegressor)
    # siblings of the random forests, not subclasses
    assert not isinstance(ExtraTreesClassifier(), RandomForestClassifier)
    assert not isinstance(ExtraTreesRegressor(), RandomForestRegressor)


# -- properties -------------------------------------------------------------------

@pytest.mark.parametrize("forest_cls, tree_cls", [
    (ExtraTreesClassifier, ExtraTreeClassifier), (ExtraTreesRegressor, ExtraTreeRegressor)])
def test_each_member_is_the_extra_tree_of_its_seed(forest_cls, tree_cls):
    X, y = datasets.load_wine(return_X_y=True)
    if tree_cls is ExtraTreeRegressor:
        y = X[:, 0] + y
    sw = np.random.RandomState(0).randint(1, 3, len(y)).astype(float)
    forest = forest_cls(n_estimators=4, max_depth=5, random_state=1).fit(X, y, sw)
    for est in forest.estimators_:
        assert isinstance(est, tree_cls) and est.splitter == "random"
        alone = tree_cls(max_depth=5, random_state=est.random_state).fit(X, y, sw)
        assert _tree_arrays_equal(est.tree_, alone.tree_)
    # no bootstrap: every tree saw every row
    assert all(len(s) == len(y) for s in forest.estimators_samples_)


def test_forest_prediction_is_the_mean_of_its_trees():
    X, y = datasets.load_iris(return_X_y=True)
    clf = ExtraTreesClassifier(n_estimators=7, random_state=0).fit(X, y)
    mean = np.mean([t.predict_proba(X) for t in clf.estimators_], axis=0)
    np.testing.assert_allclose(clf.predict_proba(X), mean, rtol=1e-12)
    Xr, yr = datasets.load_diabetes(return_X_y=True)
    reg = ExtraTreesRegressor(n_estimators=7, max_depth=6, random_state=0).fit(Xr, yr)
    mean = np.mean([t.predict(Xr) for t in reg.estimators_], axis=0)
    np.testing.assert_allclose(reg.predict(Xr), mean, rtol=1e-12)


def test_random_thresholds_differ_from_the_random_forest():
    # the same seeds, bootstrap off and all features: a random forest grows
    # the same best-split tree every time, extra trees do not
    X, y = datasets.load_diabetes(return_X_y=True)
    kw = dict(n_estimators=3, bootstrap=False, max_features=1.0, max_depth=3,
              random_state=0)
    rf = RandomForestRegressor(**kw).fit(X, y)
    et = ExtraTreesRegressor(**kw).fit(X, y)
    assert _tree_arrays_equal(rf.estimators_[0].tree_, rf.estimators_[1].tree_)
    assert not np.array_equal(et.estimators_[0].tree_.threshold,
                              et.estimators_[1].tree_.threshold)


@pytest.mark.filterwarnings(OOB_WARNING)
def test_bootstrap_oob_multioutput_and_class_weight():
    X, y = datasets.load_iris(return_X_y=True)
    Y = np.column_stack([y == 2, X[:, 0] > 5.8]).astype(int)
    kw = dict(n_estimators=15, bootstrap=True, oob_score=True, max_samples=0.8,
              class_weight="balanced_subsample", random_state=0)
    ours = ExtraTreesClassifier(**kw).fit(X, Y)
    ref = sken.ExtraTreesClassifier(**kw).fit(X, Y)
    assert ours.predict(X).shape == ref.predict(X).shape == (150, 2)
    assert ours.oob_decision_function_.shape == ref.oob_decision_function_.shape
    assert 0.7 < ours.oob_score_ <= 1.0
    for a, b in zip(ours.estimators_samples_, ref.estimators_samples_):
        assert np.array_equal(a, b)  # scikit-learn's bootstrap draws
    Xr, yr = datasets.load_diabetes(return_X_y=True)
    Yr = np.column_stack([yr, Xr[:, 0] * 100])
    reg = ExtraTreesRegressor(n_estimators=10, bootstrap=True, oob_score=True,
                              random_state=0).fit(Xr, Yr)
    assert reg.predict(Xr).shape == reg.oob_prediction_.shape == (len(yr), 2)


def test_bad_parameters():
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="Out of bag estimation only available"):
        ExtraTreesClassifier(n_estimators=3, oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="max_sample"):
        ExtraTreesClassifier(n_estimators=3, max_samples=0.5).fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        ExtraTreesRegressor(n_estimators=0).fit(X, y)


def test_monotonic_cst():
    X, y = datasets.load_diabetes(return_X_y=True)
    reg = ExtraTreesRegressor(n_estimators=10, monotonic_cst=[0, 0, 1] + [0] * 7,
                              random_state=0).fit(X, y)
    grid = np.tile(X[:1], (60, 1))
    grid[:, 2] = np.linspace(X[:, 2].min(), X[:, 2].max(), 60)
    assert np.all(np.diff(reg.predict(grid)) >= -1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_fit_equals_dense_fit(fmt):
    # Integer targets and classes: the dense and sparse split searches add the
    # same numbers, so the forests are equal tree for tree. (With float
    # targets the sums round apart and near-tied random splits can flip, as
    # for the single trees of tests/tree/test_sparse.py.)
    from scipy import sparse

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 8)).round(2)
    X[rng.random(X.shape) < 0.7] = 0.0
    S = sparse.csr_matrix(X) if fmt == "csr" else sparse.csc_matrix(X)
    y_reg = np.round(3 * (X[:, 0] - X[:, 1]) + rng.normal(size=200))
    y_clf = (y_reg > 0).astype(int) + (y_reg > 2)
    Xt = rng.normal(size=(50, 8))
    for est, y in ((ExtraTreesRegressor(n_estimators=4, random_state=0), y_reg),
                   (ExtraTreesClassifier(n_estimators=4, bootstrap=True, random_state=0),
                    y_clf)):
        dense = clone(est).fit(X, y)
        sparse_fit = clone(est).fit(S, y)
        for a, b in zip(dense.estimators_, sparse_fit.estimators_):
            assert _tree_arrays_equal(a.tree_, b.tree_)
        method = "predict_proba" if hasattr(est, "predict_proba") else "predict"
        np.testing.assert_array_equal(getattr(sparse_fit, method)(sparse.csr_matrix(Xt)),
                                      getattr(dense, method)(Xt))
