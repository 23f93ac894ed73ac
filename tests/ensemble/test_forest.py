"""RandomForestClassifier / RandomForestRegressor: parity, bootstrap, OOB, n_jobs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets
from sklearn import ensemble as sken
from sklearn.model_selection import cross_val_score, train_test_split

from skml.ensemble import RandomForestClassifier, RandomForestRegressor
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests._parity import parity_test

OOB_WARNING = "ignore:Some inputs do not have OOB scores"


def _tree_arrays_equal(a, b):
    names = ("children_left", "children_right", "feature", "threshold", "value",
             "weighted_n_node_samples", "n_node_samples")
    return all(np.array_equal(getattr(a, n), getattr(b, n), equal_nan=True)
               for n in names)


# -- parity with scikit-learn -----------------------------------------------------

@parity_test(RandomForestClassifier)
@pytest.mark.parametrize("loader", [datasets.load_iris, datasets.load_wine,
                                    datasets.load_breast_cancer])
def test_classifier_parity(loader):
    X, y = loader(return_X_y=True)
    kw = dict(n_estimators=40, random_state=0)
    # 5-fold accuracy: a single small test split moves by 2.6 points per sample.
    ours = cross_val_score(RandomForestClassifier(**kw), X, y, cv=5).mean()
    ref = cross_val_score(sken.RandomForestClassifier(**kw), X, y, cv=5).mean()
    assert abs(ours - ref) <= 0.02
    a = RandomForestClassifier(oob_score=True, **kw).fit(X, y)
    b = sken.RandomForestClassifier(oob_score=True, **kw).fit(X, y)
    assert abs(a.oob_score_ - b.oob_score_) <= 0.03
    assert a.oob_decision_function_.shape == b.oob_decision_function_.shape


@parity_test(RandomForestRegressor)
def test_regressor_parity():
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    kw = dict(n_estimators=50, oob_score=True, random_state=0)
    ours = RandomForestRegressor(**kw).fit(Xtr, ytr)
    ref = sken.RandomForestRegressor(**kw).fit(Xtr, ytr)
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.04
    assert abs(ours.oob_score_ - ref.oob_score_) <= 0.04
    assert ours.oob_prediction_.shape == ref.oob_prediction_.shape


@pytest.mark.parametrize("weighted", [False, True])
def test_same_bootstrap_samples_as_sklearn(weighted):
    # The seeds and draws are scikit-learn's, with and without sample weights
    # (drawing probabilities) and with a fractional max_samples.
    X, y = datasets.load_wine(return_X_y=True)
    sw = None
    if weighted:
        sw = np.random.RandomState(0).randint(1, 4, len(y)).astype(float)
    kw = dict(n_estimators=7, max_samples=0.7, random_state=4)
    ours = RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    ref = sken.RandomForestClassifier(**kw).fit(X, y, sample_weight=sw)
    for a, b in zip(ours.estimators_samples_, ref.estimators_samples_):
        assert np.array_equal(a, b)
        assert a.dtype == b.dtype == np.int32
    assert [t.random_state for t in ours.estimators_] == \
        [t.random_state for t in ref.estimators_]


@pytest.mark.parametrize("bootstrap", [False, True])
def test_estimators_samples_are_int32_as_sklearn(bootstrap):
    X, y = datasets.load_iris(return_X_y=True)
    ours = RandomForestClassifier(n_estimators=3, bootstrap=bootstrap,
                                  random_state=0).fit(X, y)
    ref = sken.RandomForestClassifier(n_estimators=3, bootstrap=bootstrap,
                                      random_state=0).fit(X, y)
    for a, b in zip(ours.estimators_samples_, ref.estimators_samples_):
        assert a.dtype == b.dtype
        assert np.array_equal(a, b)


# -- bootstrap and out-of-bag facts (notes B §9.2) -----------------------------

def _tree_weights(forest, t, n):
    return np.bincount(forest.estimators_samples_[t], minlength=n).astype(float)


@settings(max_examples=10)
@given(seed=st.integers(0, 10_000), n=st.integers(8, 60))
def test_bootstrap_counts_are_repeated_rows(seed, n):
    # A forest tree is DecisionTree*(random_state=its seed) fitted with the
    # bootstrap counts as weights, and that tree predicts as one fitted on
    # the repeated rows.
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 4))
    y = rng.randint(0, 3, n)
    y[:3] = [0, 1, 2]
    forest = RandomForestClassifier(n_estimators=3, max_features=2,
                                    random_state=seed).fit(X, y)
    for t, tree in enumerate(forest.estimators_):
        counts = _tree_weights(forest, t, n)
        seed = tree.random_state
        weighted = DecisionTreeClassifier(max_features=2, random_state=seed)
        weighted.fit(X, y, sample_weight=counts)
        assert _tree_arrays_equal(weighted.tree_, tree.tree_)
        rows = forest.estimators_samples_[t]
        repeated = DecisionTreeClassifier(max_features=2, random_state=seed)
        repeated.fit(X[rows], y[rows])
        proba = np.zeros((n, 3))
        proba[:, np.searchsorted(forest.classes_, repeated.classes_)] = \
            repeated.predict_proba(X)
        assert np.allclose(tree.predict_proba(X), proba)


def test_regressor_tree_is_the_weighted_tree():
    X, y = datasets.load_diabetes(return_X_y=True)
    kw = dict(max_features=0.5, min_samples_leaf=3, ccp_alpha=20.0)
    forest = RandomForestRegressor(n_estimators=2, random_state=1, **kw).fit(X, y)
    unpruned = RandomForestRegressor(n_estimators=2, random_state=1,
                                     **{**kw, "ccp_alpha": 0.0}).fit(X, y)
    for t, tree in enumerate(forest.estimators_):
        ref = DecisionTreeRegressor(random_state=tree.random_state, **kw)
        ref.fit(X, y, sample_weight=_tree_weights(forest, t, len(y)))
        assert _tree_arrays_equal(ref.tree_, tree.tree_)
        assert tree.tree_.node_count < unpruned.estimators_[t].tree_.node_count


@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
def test_fractional_min_samples_are_fractions_of_n_samples(cls):
    # As scikit-learn: min_samples_split=0.5 on 20 rows is 10 samples in every
    # tree, not half of the ~13 distinct rows of its bootstrap (issue 19).
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 3))
    y = rng.randint(0, 2, 20) if cls is RandomForestClassifier else rng.normal(size=20)
    forest = cls(n_estimators=20, min_samples_split=0.5, max_features=None,
                 random_state=0).fit(X, y)
    for tree in forest.estimators_:
        t = tree.tree_
        internal = t.children_left >= 0
        assert np.all(t.n_node_samples[internal] >= 10)
    forest = cls(n_estimators=20, min_samples_leaf=0.25, max_features=None,
                 random_state=0).fit(X, y)
    for tree in forest.estimators_:
        t = tree.tree_
        assert np.all(t.n_node_samples[t.children_left < 0] >= 5)
    # Each tree is still the tree fitted with the bootstrap counts as weights.
    kw = dict(min_samples_split=0.3, min_samples_leaf=0.1, max_features=2)
    forest = cls(n_estimators=3, random_state=1, **kw).fit(X, y)
    tree_cls = DecisionTreeClassifier if cls is RandomForestClassifier else DecisionTreeRegressor
    for t, tree in enumerate(forest.estimators_):
        ref = tree_cls(random_state=tree.random_state, **kw)
        ref.fit(X, y, sample_weight=_tree_weights(forest, t, len(y)))
        assert _tree_arrays_equal(ref.tree_, tree.tree_)


def test_bootstrap_holds_about_632_percent_distinct_rows():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=30, max_depth=2, random_state=0)
    forest.fit(X, y)
    distinct = [len(np.unique(s)) / len(y) for s in forest.estimators_samples_]
    assert all(len(s) == len(y) for s in forest.estimators_samples_)
    assert np.mean(distinct) == pytest.approx(1 - np.exp(-1), abs=0.01)


@pytest.mark.filterwarnings(OOB_WARNING)
def test_oob_uses_only_trees_that_did_not_draw_the_sample():
    X, y = datasets.load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=8, oob_score=True, random_state=0)
    forest.fit(X, y)
    votes = np.zeros((len(y), 3))
    counts = np.zeros(len(y))
    for tree, rows in zip(forest.estimators_, forest.estimators_samples_):
        oob = np.ones(len(y), dtype=bool)
        oob[rows] = False
        assert not np.intersect1d(np.flatnonzero(oob), rows).size
        votes[oob] += tree.predict_proba(X[oob])
        counts[oob] += 1
    expected = votes / np.maximum(counts, 1)[:, None]
    assert np.allclose(forest.oob_decision_function_, expected)
    assert forest.oob_score_ == pytest.approx(np.mean(np.argmax(expected, 1) == y))


def test_regressor_oob_prediction_from_the_memberships():
    X, y = datasets.load_diabetes(return_X_y=True)
    reg = RandomForestRegressor(n_estimators=25, max_depth=4, oob_score=True,
                                random_state=0).fit(X, y)
    sums = np.zeros(len(y))
    counts = np.zeros(len(y))
    for tree, rows in zip(reg.estimators_, reg.estimators_samples_):
        oob = np.setdiff1d(np.arange(len(y)), rows)
        sums[oob] += tree.predict(X[oob])
        counts[oob] += 1
    expected = sums / counts
    assert np.allclose(reg.oob_prediction_, expected)
    r2 = 1 - np.sum((y - expected) ** 2) / np.sum((y - y.mean()) ** 2)
    assert reg.oob_score_ == pytest.approx(r2)


def test_oob_score_close_to_held_out_score():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.4, random_state=0,
                                          stratify=y)
    forest = RandomForestClassifier(n_estimators=60, oob_score=True, random_state=0)
    forest.fit(Xtr, ytr)
    assert abs(forest.oob_score_ - forest.score(Xte, yte)) <= 0.05


def test_callable_oob_score():
    X, y = datasets.load_diabetes(return_X_y=True)

    def neg_mae(y_true, y_pred):
        return -np.mean(np.abs(y_true - y_pred))

    reg = RandomForestRegressor(n_estimators=20, oob_score=neg_mae, random_state=0)
    reg.fit(X, y)
    assert reg.oob_score_ == pytest.approx(neg_mae(y, reg.oob_prediction_))


# -- determinism: n_jobs, warm start ------------------------------------------

@pytest.mark.filterwarnings(OOB_WARNING)
@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
def test_identical_for_any_n_jobs(cls):
    X, y = datasets.make_classification(n_samples=600, n_features=8, random_state=0)
    if cls is RandomForestRegressor:
        y = X[:, 0] + np.sin(X[:, 1])
    kw = dict(n_estimators=9, max_depth=8, oob_score=True, random_state=3)
    a = cls(n_jobs=1, **kw).fit(X, y)
    b = cls(n_jobs=2, **kw).fit(X, y)
    # Enough rows for prediction to split them among the threads.
    X_big = np.tile(X, (8, 1))
    method = "predict_proba" if cls is RandomForestClassifier else "predict"
    assert np.array_equal(getattr(a, method)(X_big), getattr(b, method)(X_big))
    assert a.oob_score_ == b.oob_score_
    assert np.array_equal(a.feature_importances_, b.feature_importances_)
    assert np.array_equal(a.apply(X), b.apply(X))
    for ta, tb in zip(a.estimators_, b.estimators_):
        assert _tree_arrays_equal(ta.tree_, tb.tree_)


@pytest.mark.filterwarnings(OOB_WARNING)
@pytest.mark.parametrize("cls", [RandomForestClassifier, RandomForestRegressor])
def test_warm_start_equals_one_fit(cls):
    X, y = datasets.load_breast_cancer(return_X_y=True)
    full = cls(n_estimators=6, oob_score=True, random_state=0).fit(X, y)
    warm = cls(n_estimators=3, warm_start=True, oob_score=True, random_state=0)
    warm.fit(X, y)
    first = warm.estimators_[0]
    warm.set_params(n_estimators=6).fit(X, y)
    assert warm.estimators_[0] is first and len(warm.estimators_) == 6
    assert np.array_equal(full.predict(X), warm.predict(X))
    assert full.oob_score_ == warm.oob_score_
    with pytest.warns(UserWarning, match="does not fit new trees"):
        warm.fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        warm.set_params(n_estimators=2).fit(X, y)


def test_refit_without_warm_start_starts_over():
    X, y = datasets.load_iris(return_X_y=True)
    clf = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    clf.set_params(n_estimators=5).fit(X, y)
    assert len(clf.estimators_) == 5


# -- importances, class weights, the trees ------------------------------------

def test_feature_importances_are_the_mean_tree_importances():
    X, y = datasets.load_wine(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    imp = forest.feature_importances_
    assert imp.sum() == pytest.approx(1.0) and np.all(imp >= 0)
    mean = np.mean([t.feature_importances_ for t in forest.estimators_], axis=0)
    assert np.allclose(imp, mean / mean.sum())
    stumps = RandomForestClassifier(n_estimators=3, min_impurity_decrease=10.0,
                                    random_state=0).fit(X, y)
    assert np.array_equal(stumps.feature_importances_, np.zeros(X.shape[1]))


def test_balanced_subsample_balances_each_bootstrap():
    X, y = datasets.load_wine(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=5, class_weight="balanced_subsample",
                                    random_state=0).fit(X, y)
    for tree, rows in zip(forest.estimators_, forest.estimators_samples_):
        # Weighted class totals at the root are equal: uniform root proportions.
        assert np.allclose(tree.tree_.value[0, 0], 1 / 3)
        counts = np.bincount(y[rows], minlength=3)
        expected = len(rows) / (3 * counts)
        w = np.bincount(rows, minlength=len(y)) * expected[y]
        assert tree.tree_.weighted_n_node_samples[0] == pytest.approx(w.sum())
    # Without a bootstrap it is "balanced" on the whole data.
    a = RandomForestClassifier(n_estimators=2, bootstrap=False,
                               class_weight="balanced_subsample",
                               random_state=0).fit(X, y)
    b = RandomForestClassifier(n_estimators=2, bootstrap=False, class_weight="balanced",
                               random_state=0).fit(X, y)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert np.allclose(b.estimators_[0].tree_.value[0, 0], 1 / 3)


def test_balanced_ignores_sample_weight_as_scikit_learn():
    # "balanced" counts the labels, not the weights (compute_sample_weight).
    from sklearn.utils.class_weight import compute_sample_weight

    X, y = datasets.load_wine(return_X_y=True)
    sw = np.random.RandomState(0).uniform(0.5, 3.0, len(y))
    forest = RandomForestClassifier(n_estimators=1, bootstrap=False,
                                    class_weight="balanced", random_state=0)
    forest.fit(X, y, sample_weight=sw)
    expected = (sw * compute_sample_weight("balanced", y)).sum()
    root = forest.estimators_[0].tree_.weighted_n_node_samples[0]
    assert root == pytest.approx(expected)


def test_class_weight_dict_reweights_the_classes():
    X, y = datasets.load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=3, bootstrap=False,
                                    class_weight={0: 2.0, 2: 0.5},
                                    random_state=0).fit(X, y)
    root = forest.estimators_[0].tree_.value[0, 0]
    assert np.allclose(root, np.array([2.0, 1.0, 0.5]) / 3.5)


def test_every_tree_identical_without_randomness():
    # Notes B §9.3: max_features = d and no bootstrap gives the same CART tree.
    X, y = datasets.load_breast_cancer(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=4, max_features=None, bootstrap=False,
                                    random_state=0).fit(X, y)
    proba = [t.predict_proba(X) for t in forest.estimators_]
    assert all(np.array_equal(proba[0], p) for p in proba[1:])
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert np.array_equal(forest.predict(X), tree.predict(X))


def test_apply_decision_path_and_members():
    X, y = datasets.load_iris(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    leaves = forest.apply(X)
    assert leaves.shape == (len(y), 4)
    indicator, ptr = forest.decision_path(X)
    n_nodes = sum(t.tree_.node_count for t in forest.estimators_)
    assert ptr[-1] == indicator.shape[1] == n_nodes
    for t, tree in enumerate(forest.estimators_):
        assert np.array_equal(tree.apply(X), leaves[:, t])
        assert np.all(indicator[np.arange(len(y)), ptr[t] + leaves[:, t]] == 1)
    proba = np.mean([t.predict_proba(X) for t in forest.estimators_], axis=0)
    assert np.allclose(forest.predict_proba(X), proba)
    with np.errstate(divide="ignore"):
        log_proba = np.log(forest.predict_proba(X))
    assert np.array_equal(forest.predict_log_proba(X), log_proba)


def test_max_samples_sets_the_bootstrap_size():
    X, y = datasets.load_iris(return_X_y=True)
    for ms, size in [(50, 50), (0.5, 75), (2.0, 300)]:
        forest = RandomForestClassifier(n_estimators=2, max_samples=ms, random_state=0)
        forest.fit(X, y)
        assert all(len(s) == size for s in forest.estimators_samples_)


def test_missing_values_are_routed():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    X[y == 1, 1] = np.nan  # missingness alone predicts the class
    X[:, 0] = rng.normal(size=400)
    forest = RandomForestClassifier(n_estimators=10, max_features=None, random_state=0)
    forest.fit(X, y)
    assert forest.score(X, y) == 1.0
    X_test = np.array([[0.0, np.nan, 0.0], [0.0, 0.5, 0.0]])
    assert forest.predict(X_test).tolist() == [1, 0]


@pytest.mark.parametrize("params", [{}, {"max_leaf_nodes": 12}, {"ccp_alpha": 0.01}])
def test_packed_prediction_equals_the_trees(params):
    # Prediction runs on the trees' nodes packed and renumbered in pre-order
    # (best-first growth numbers them otherwise); NaN goes where each tree sends it.
    rng = np.random.RandomState(1)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    X[rng.rand(*X.shape) < 0.1] = np.nan
    forest = RandomForestClassifier(n_estimators=6, random_state=0, **params).fit(X, y)
    X_test = rng.normal(size=(200, 5))
    X_test[rng.rand(*X_test.shape) < 0.2] = np.nan
    mean = np.mean([t.predict_proba(X_test) for t in forest.estimators_], axis=0)
    assert np.allclose(forest.predict_proba(X_test), mean)


def test_pandas_input_and_string_labels():
    pd = pytest.importorskip("pandas")
    X, y = datasets.load_iris(return_X_y=True, as_frame=True)
    labels = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, labels)
    assert list(forest.feature_names_in_) == list(X.columns)
    assert set(forest.predict(X)) <= set(labels)
    assert forest.score(X, labels) > 0.95
    assert isinstance(forest.estimators_[0].predict(X)[0], str)
    reg = RandomForestRegressor(n_estimators=3, random_state=0)
    reg.fit(X, pd.Series(y * 1.5))
    assert reg.predict(X).shape == (len(y),)


def test_verbose_progress(capsys):
    X, y = datasets.load_iris(return_X_y=True)
    RandomForestClassifier(n_estimators=2, verbose=2, random_state=0).fit(X, y)
    out = capsys.readouterr().out
    assert "growing 2 trees" in out and "building tree 2 of 2" in out


# -- bad input ----------------------------------------------------------------

@pytest.mark.parametrize("params, match", [
    ({"bootstrap": False, "oob_score": True}, "bootstrap"),
    ({"bootstrap": False, "max_samples": 10}, "max_samples"),
    ({"max_features": "auto"}, "max_features"),
    ({"n_estimators": 0}, "n_estimators"),
    ({"criterion": "squared_error"}, "criterion"),
    ({"class_weight": "balance"}, "class_weight"),
    ({"class_weight": {7: 2.0}}, "class_weight"),
    ({"max_samples": 0.0}, "max_samples"),
])
def test_bad_parameters(params, match):
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        RandomForestClassifier(**{"n_estimators": 2, **params}).fit(X, y)


def test_bad_data():
    X, y = datasets.load_iris(return_X_y=True)
    clf = RandomForestClassifier(n_estimators=2)
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        clf.fit(X, X[:, 0])
    with pytest.raises(ValueError, match="zero"):
        clf.fit(X, y, sample_weight=np.zeros(len(y)))
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|inf"):
        clf.fit(X_inf, y)
    with pytest.raises(ValueError):
        clf.fit(X[:, :, None], y)
    with pytest.raises(ValueError, match="inconsistent|samples"):
        clf.fit(X, y[:-1])
    reg = RandomForestRegressor(n_estimators=2)
    with pytest.raises(ValueError):
        reg.fit(X, y[:, None, None])
    clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])


def test_template_tree_and_trees_per_iteration_as_scikit_learn():
    import numpy as np

    from skml.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from skml.tree import DecisionTreeClassifier
    from tests._data import load

    X, y = load("iris")
    forest = RandomForestClassifier(n_estimators=3, max_depth=3, criterion="entropy",
                                    random_state=0).fit(X, y)
    template = forest.estimator_
    assert isinstance(template, DecisionTreeClassifier) and not hasattr(template, "tree_")
    assert template.max_depth == 3 and template.criterion == "entropy"
    # A member is the template with its own seed.
    member = forest.estimators_[0]
    grown = template.set_params(random_state=member.random_state)
    assert grown.get_params() == member.get_params()
    assert GradientBoostingClassifier(n_estimators=2).fit(X, y).n_trees_per_iteration_ == 3
    binary = GradientBoostingClassifier(n_estimators=2).fit(X[y < 2], y[y < 2])
    assert binary.n_trees_per_iteration_ == 1
    assert np.all(binary.predict(X[y < 2]) == binary.predict(X[y < 2]))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_forest_sparse_equals_dense(fmt):
    # Issue 20: the trees search sparse columns (zeros as one block); with
    # integer targets every sum is exact, so the forests are equal bit for bit.
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 15)).round(2)
    X[rng.random(X.shape) < 0.7] = 0.0
    S = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    y = rng.integers(0, 3, 120)
    for est, target in ((RandomForestClassifier, y), (RandomForestRegressor, y - 1.0)):
        params = dict(n_estimators=20, random_state=0, oob_score=True)
        dense = est(**params).fit(X, target)
        sparse = est(**params).fit(S, target)
        for a, b in zip(dense.estimators_, sparse.estimators_):
            np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
        np.testing.assert_array_equal(sparse.predict(S), dense.predict(X))
        np.testing.assert_array_equal(sparse.apply(S), dense.apply(X))
        assert sparse.oob_score_ == dense.oob_score_
    assert RandomForestClassifier().__sklearn_tags__().input_tags.sparse


# -- criterion="poisson", monotonic_cst (issue 21) --------------------------------


def test_forest_poisson_equals_its_trees_and_checks_y():
    rng = np.random.RandomState(0)
    X = rng.rand(200, 3)
    y = rng.poisson(np.exp(2 * X[:, 0])).astype(float)
    rf = RandomForestRegressor(n_estimators=5, criterion="poisson", random_state=0).fit(X, y)
    for est in rf.estimators_:
        assert est.criterion == "poisson"
        assert np.all(est.tree_.value[:, 0, 0] > 0)
    np.testing.assert_allclose(rf.predict(X), np.mean([e.predict(X) for e in rf.estimators_],
                                                      axis=0))
    with pytest.raises(ValueError, match="Some value"):
        RandomForestRegressor(criterion="poisson").fit(X, -y)
    with pytest.raises(ValueError, match="Sum of y is not strictly positive"):
        RandomForestRegressor(criterion="poisson").fit(X, 0 * y)
    with pytest.warns(FutureWarning, match="friedman_mse"):
        assert RandomForestRegressor(criterion="friedman_mse").criterion == "squared_error"


@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_forest_monotonic_cst_makes_every_tree_and_the_mean_monotone(Forest):
    rng = np.random.RandomState(0)
    X = rng.rand(300, 3)
    signal = np.sin(6 * X[:, 0]) - X[:, 1] + 0.3 * rng.randn(300)
    y = (signal > 0).astype(int) if Forest is RandomForestClassifier else signal
    f = Forest(n_estimators=8, monotonic_cst=[1, -1, 0], random_state=0).fit(X, y)
    Xt = rng.rand(20, 3)
    grid = np.linspace(0, 1, 30)
    for j, sign in [(0, 1), (1, -1)]:
        preds = []
        for v in grid:
            Z = Xt.copy()
            Z[:, j] = v
            preds.append(f.predict_proba(Z)[:, 1] if Forest is RandomForestClassifier
                         else f.predict(Z))
        assert np.all(np.diff(preds, axis=0) * sign >= -1e-12)
    assert all(list(e.monotonic_cst) == [1, -1, 0] for e in f.estimators_)
    with pytest.raises(ValueError, match="monotonic_cst has shape"):
        Forest(n_estimators=2, monotonic_cst=[1, 0]).fit(X, y)
