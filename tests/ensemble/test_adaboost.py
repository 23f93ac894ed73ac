"""AdaBoostClassifier: the notes' numbers and bound, edge cases, parity with scikit-learn."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import datasets
from sklearn import ensemble as sken
from sklearn import tree as sktree
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split

from skml.ensemble import AdaBoostClassifier
from skml.ensemble._weight_boosting import adaboost_alpha
from tests._parity import parity_test


# Notes B §9.4 / §16 item 9: d_t = sqrt((1 - eps)/eps) and alpha = ln d_t.
@pytest.mark.parametrize("eps, d, alpha", [
    (0.3, 1.5275, 0.4236),
    (0.1, 3.0, 1.0986),
    (0.4, 1.2247, 0.2027),
])
def test_notes_worked_numbers(eps, d, alpha):
    assert np.sqrt((1 - eps) / eps) == pytest.approx(d, abs=1e-4)
    assert adaboost_alpha(eps) == pytest.approx(alpha, abs=1e-4)
    assert adaboost_alpha(eps) == pytest.approx(np.log(d), abs=1e-4)


def _labels_pm(clf, y):
    return np.where(y == clf.classes_[1], 1.0, -1.0)


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), n=st.integers(12, 60), t=st.integers(1, 12))
def test_training_error_bound(seed, n, t):
    # Training error <= (1/m) sum exp(-y H) = prod 2 sqrt(eps (1 - eps)) (notes A §3.1).
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=n) > 0).astype(int)
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    try:
        clf = AdaBoostClassifier(n_estimators=t, random_state=0).fit(X, y)
    except ValueError:  # first stump no better than chance: documented
        return
    eps = clf.estimator_errors_
    if np.any(eps == 0):  # a perfect stump ends boosting with zero error
        assert clf.score(X, y) == 1.0
        return
    bound = np.prod(2 * np.sqrt(eps * (1 - eps)))
    train_error = 1 - clf.score(X, y)
    assert train_error <= bound + 1e-12
    # The notes' H is the decision function times sum(alpha) / 2.
    H = clf.decision_function(X) * clf.estimator_weights_.sum() / 2
    margin = _labels_pm(clf, y) * H
    assert np.mean(np.exp(-margin)) == pytest.approx(bound, rel=1e-9)


def test_last_learner_has_error_one_half_under_new_weights():
    X, y = datasets.make_classification(200, 5, random_state=1)
    clf = AdaBoostClassifier(n_estimators=8, random_state=0).fit(X, y)
    y_pm = _labels_pm(clf, y)
    alpha_sums = np.cumsum(clf.estimator_weights_)
    for d, alpha_sum, h in zip(clf.staged_decision_function(X), alpha_sums,
                               clf.estimators_):
        H = d * alpha_sum / 2
        # D_{t+1} ∝ exp(-y H_t(x)) (notes A §3.1).
        d_next = np.exp(-y_pm * H)
        d_next /= d_next.sum()
        miss = h.predict(X) != np.searchsorted(clf.classes_, y)
        assert d_next[miss].sum() == pytest.approx(0.5, abs=1e-12)


def test_multiclass_reweighted_error_and_samme_weight():
    X, y = datasets.load_iris(return_X_y=True)
    clf = AdaBoostClassifier(n_estimators=5, random_state=0).fit(X, y)
    eps = clf.estimator_errors_
    assert np.allclose(clf.estimator_weights_, 0.5 * (np.log((1 - eps) / eps) + np.log(2)))


def test_perfect_learner_stops_with_decisive_weight():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    clf = AdaBoostClassifier(n_estimators=10).fit(X, y)
    assert len(clf.estimators_) == 1
    assert clf.estimator_errors_[0] == 0
    assert np.isfinite(clf.estimator_weights_[0]) and clf.estimator_weights_[0] > 10
    assert clf.score(X, y) == 1.0


class _Constant(ClassifierMixin, BaseEstimator):
    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def test_chance_learner_first_raises():
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="no better than"):
        AdaBoostClassifier(_Constant()).fit(X, y)


def test_base_without_sample_weight_rejected():
    class NoWeights(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            return self

    with pytest.raises(ValueError, match="sample_weight"):
        AdaBoostClassifier(NoWeights()).fit(np.eye(4), [0, 1, 0, 1])


def test_staged_and_importances():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    clf = AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    staged = list(clf.staged_predict(X))
    assert len(staged) == 10
    assert np.array_equal(staged[-1], clf.predict(X))
    scores = list(clf.staged_score(X, y))
    assert scores[-1] == pytest.approx(clf.score(X, y))
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1)
    imp = clf.feature_importances_
    assert imp.shape == (30,) and imp.sum() == pytest.approx(1.0)


@parity_test(AdaBoostClassifier)
@pytest.mark.parametrize("loader", [datasets.load_breast_cancer, datasets.load_iris])
def test_parity_with_sklearn(loader):
    X, y = loader(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0, stratify=y)
    ours = AdaBoostClassifier(n_estimators=30, random_state=0).fit(Xtr, ytr)
    ref = sken.AdaBoostClassifier(n_estimators=30, random_state=0).fit(Xtr, ytr)
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.02
    # Same (scikit-learn) stump on both sides: same members, alpha = w/2,
    # same decisions and probabilities.
    base = sktree.DecisionTreeClassifier(max_depth=1)
    ours = AdaBoostClassifier(base, n_estimators=30, random_state=0).fit(Xtr, ytr)
    ref = sken.AdaBoostClassifier(base, n_estimators=30, random_state=0).fit(Xtr, ytr)
    assert np.allclose(ours.estimator_weights_, ref.estimator_weights_ / 2)
    assert np.allclose(ours.estimator_errors_, ref.estimator_errors_)
    assert np.array_equal(ours.predict(Xte), ref.predict(Xte))
    assert np.allclose(ours.predict_proba(Xte), ref.predict_proba(Xte))
    assert np.allclose(ours.decision_function(Xte), ref.decision_function(Xte))
    for a, b in zip(ours.staged_decision_function(Xte), ref.staged_decision_function(Xte)):
        assert np.allclose(a, b)
    for a, b in zip(ours.staged_predict_proba(Xte), ref.staged_predict_proba(Xte)):
        assert np.allclose(a, b)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_decision_function_is_normalised_as_scikit_learn(n_classes):
    # Issue 19: the vote is divided by the sum of the weights, so one
    # learner gives +-2 (two classes) or {-1/(K-1), 1} (K classes).
    X, y = datasets.make_classification(150, 4, n_informative=3, n_redundant=0,
                                        n_classes=n_classes, random_state=0)
    base = sktree.DecisionTreeClassifier(max_depth=1)
    expected = {2: {-2.0, 2.0}, 3: {-0.5, 1.0}}[n_classes]
    one = AdaBoostClassifier(base, n_estimators=1).fit(X, y)
    assert set(np.unique(one.decision_function(X))) == expected
    ours = AdaBoostClassifier(base, n_estimators=6, random_state=0).fit(X, y)
    ref = sken.AdaBoostClassifier(base, n_estimators=6, random_state=0).fit(X, y)
    assert len(ours.estimators_) == len(ref.estimators_) == 6
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X),
                               rtol=1e-10, atol=1e-12)
    staged = list(ours.staged_decision_function(X))
    for a, b in zip(staged, ref.staged_decision_function(X)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(staged[-1], ours.decision_function(X))
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-10)
    # predict is the sign (argmax) of the decision function.
    d = ours.decision_function(X)
    pred = ours.classes_[(d > 0).astype(int)] if n_classes == 2 else \
        ours.classes_[np.argmax(d, axis=1)]
    np.testing.assert_array_equal(ours.predict(X), pred)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # scikit-learn's
@pytest.mark.filterwarnings("ignore:Sample weights have reached infinite values")
@pytest.mark.parametrize("loader", [datasets.load_iris, datasets.load_breast_cancer,
                                    datasets.load_wine])
@pytest.mark.parametrize("learning_rate", [5.0, 23.0, 300.0])
def test_large_learning_rate_as_scikit_learn(loader, learning_rate):
    # Found with scikit-learn's test_sample_weights_infinite (issue 19): an
    # error below the float resolution gave alpha = inf and NaN predictions;
    # weights that underflowed gave a later learner a near-zero error and a
    # decisive weight (breast cancer, learning_rate=300: 8% training accuracy).
    # With scikit-learn's weight floor, update and seeds, and its stump, the
    # ensemble is scikit-learn's.
    X, y = loader(return_X_y=True)
    kw = dict(n_estimators=30, learning_rate=learning_rate, random_state=0)
    ours = AdaBoostClassifier(**kw).fit(X, y)
    for method in (ours.predict_proba, ours.decision_function):
        assert np.all(np.isfinite(method(X)))
    assert np.all(np.isfinite(ours.estimator_weights_))
    base = sktree.DecisionTreeClassifier(max_depth=1)
    ours = AdaBoostClassifier(base, **kw).fit(X, y)
    ref = sken.AdaBoostClassifier(base, **kw).fit(X, y)
    n = len(ref.estimators_)
    assert len(ours.estimators_) == n
    np.testing.assert_allclose(ours.estimator_errors_, ref.estimator_errors_[:n], rtol=1e-9)
    np.testing.assert_allclose(2 * ours.estimator_weights_, ref.estimator_weights_[:n],
                               rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-9,
                               atol=1e-12)


def test_weights_overflow_stops_with_a_warning():
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.warns(UserWarning, match="Sample weights have reached infinite values"):
        clf = AdaBoostClassifier(n_estimators=30, learning_rate=300.0, random_state=0)
        clf.fit(X, y)
    assert len(clf.estimators_) < 30
    assert np.all(np.isfinite(clf.predict_proba(X)))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_adaboost_sparse_equals_dense(fmt):
    # Issue 20: sparse X passes through to the stumps (sparse split search).
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 8)).round(2)
    X[rng.random(X.shape) < 0.7] = 0.0
    S = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    y = rng.integers(0, 2, 100)
    a = AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    b = AdaBoostClassifier(n_estimators=10, random_state=0).fit(S, y)
    np.testing.assert_allclose(b.predict_proba(S), a.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal(b.predict(S), a.predict(X))
    assert AdaBoostClassifier().__sklearn_tags__().input_tags.sparse


# -- the presorted stump kernel grows the tree's own stump (issue 12) -------------------
_TREE_ARRAYS = ["children_left", "children_right", "feature", "threshold",
                "missing_go_to_left", "impurity", "n_node_samples",
                "weighted_n_node_samples", "value", "category_offset",
                "category_children", "max_depth", "n_classes", "feature_has_missing"]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(2, 120), p=st.integers(1, 6),
       n_classes=st.integers(2, 4), ties=st.booleans(), constant=st.booleans())
def test_stump_kernel_equals_decision_tree_stump(seed, n, p, n_classes, ties, constant):
    from skml.ensemble._weight_boosting import _StumpGrower
    from skml.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    if ties:  # repeated values, constant columns, values 1e-8 apart
        X = np.round(X)
        X[:, 0] = 1.0
        X[: n // 2, -1] += 1e-8
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(min(n, n_classes))
    if constant:  # no split: the root stays a leaf
        X[:] = 1.0
    w = rng.uniform(0.1, 3.0, n)
    w /= w.sum()
    k = int(y.max()) + 1
    Xf = _StumpGrower.features(X, w, k)
    assert Xf is not None
    grower = _StumpGrower(Xf, y, k)
    for rs in range(3):
        ref = DecisionTreeClassifier(max_depth=1, random_state=rs).fit(X, y, sample_weight=w)
        got, pred = grower.fit(DecisionTreeClassifier(max_depth=1, random_state=rs), w)
        for name in _TREE_ARRAYS:
            a, b = getattr(ref.tree_, name), getattr(got.tree_, name)
            np.testing.assert_array_equal(a, b, err_msg=name)
            assert np.asarray(a).dtype == np.asarray(b).dtype, name
        np.testing.assert_array_equal(pred, ref.predict(X))
        np.testing.assert_array_equal(got.predict(X), ref.predict(X))
        assert sorted(vars(got)) == sorted(vars(ref))


def test_fast_stumps_keep_the_ensemble():
    # The ensemble with the presorted stumps equals the one fitting each stump
    # with DecisionTreeClassifier (the path taken for NaN, zero weights, an
    # explicit estimator).
    from sklearn.datasets import make_classification

    from skml.tree import DecisionTreeClassifier

    X, y = make_classification(400, 6, n_informative=4, n_classes=3, random_state=0)
    X = np.round(X, 1)
    for lr in (1.0, 0.3):
        fast = AdaBoostClassifier(n_estimators=15, learning_rate=lr, random_state=0).fit(X, y)
        ref = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=15,
                                 learning_rate=lr, random_state=0).fit(X, y)
        np.testing.assert_array_equal(fast.estimator_weights_, ref.estimator_weights_)
        np.testing.assert_array_equal(fast.estimator_errors_, ref.estimator_errors_)
        np.testing.assert_array_equal(fast.decision_function(X), ref.decision_function(X))
    # infinity: refused by the tree, so by the ensemble too
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        AdaBoostClassifier(n_estimators=2).fit(X, y)
