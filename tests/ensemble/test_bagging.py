"""BaggingClassifier / BaggingRegressor: bootstrap facts, OOB, n_jobs, parity."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import ensemble as sken
from sklearn.model_selection import train_test_split

from skml.ensemble import BaggingClassifier, BaggingRegressor
from skml.ensemble._bagging import draw_bagging_indices
from skml.linear_model import Perceptron
from skml.tree import DecisionTreeClassifier
from tests._parity import parity_test


def test_bootstrap_unique_fraction_is_about_632():
    # Notes B §9.2: a bootstrap sample of size N holds ~1 - 1/e distinct rows.
    fractions = [
        len(np.unique(draw_bagging_indices(s, 2000, 1, 2000, 1, True, False)[1])) / 2000
        for s in range(20)
    ]
    assert np.mean(fractions) == pytest.approx(1 - np.exp(-1), abs=0.01)


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
def test_oob_sets_are_complements_of_memberships():
    X, y = datasets.load_iris(return_X_y=True)
    clf = BaggingClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, y)
    for samples, mask in zip(clf.estimators_samples_, clf._oob_masks()):
        drawn = np.zeros(len(X), dtype=bool)
        drawn[samples] = True
        assert np.array_equal(mask, ~drawn)


def test_single_member_without_bootstrap_is_the_base():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    bag = BaggingClassifier(DecisionTreeClassifier(random_state=0), n_estimators=1,
                            bootstrap=False, random_state=0).fit(X, y)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert np.array_equal(bag.predict(X), tree.predict(X))


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("cls, loader", [
    (BaggingClassifier, datasets.load_breast_cancer),
    (BaggingRegressor, datasets.load_diabetes),
])
def test_same_result_for_any_n_jobs(cls, loader):
    X, y = loader(return_X_y=True)
    kw = dict(n_estimators=6, max_features=0.7, oob_score=True, random_state=3)
    a = cls(n_jobs=1, **kw).fit(X, y)
    b = cls(n_jobs=2, **kw).fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X))
    assert a.oob_score_ == b.oob_score_
    for fa, fb in zip(a.estimators_features_, b.estimators_features_):
        assert np.array_equal(fa, fb)


def test_warm_start_equals_one_fit():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    full = BaggingClassifier(n_estimators=6, random_state=0).fit(X, y)
    warm = BaggingClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    warm.set_params(n_estimators=6).fit(X, y)
    assert np.array_equal(full.predict_proba(X), warm.predict_proba(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_member_without_predict_proba_votes_and_feature_subsets():
    X, y = datasets.load_iris(return_X_y=True)
    base = Perceptron(max_iter=20)
    assert not hasattr(base, "predict_proba")
    clf = BaggingClassifier(base, n_estimators=5, max_features=2, random_state=0).fit(X, y)
    assert all(len(f) == 2 for f in clf.estimators_features_)
    proba = clf.predict_proba(X)
    # Hard votes: fractions of 5 members.
    assert np.allclose(proba * 5, np.round(proba * 5))
    assert np.allclose(proba.sum(axis=1), 1)


def test_oob_needs_bootstrap():
    with pytest.raises(ValueError, match="bootstrap"):
        BaggingClassifier(bootstrap=False, oob_score=True).fit(np.eye(4), [0, 1, 0, 1])


@parity_test(BaggingClassifier)
def test_classifier_parity():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0, stratify=y)
    ours = BaggingClassifier(n_estimators=30, oob_score=True, random_state=0).fit(Xtr, ytr)
    ref = sken.BaggingClassifier(n_estimators=30, oob_score=True, random_state=0).fit(Xtr, ytr)
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.02
    assert abs(ours.oob_score_ - ref.oob_score_) <= 0.03
    assert ours.oob_decision_function_.shape == ref.oob_decision_function_.shape


@parity_test(BaggingRegressor)
def test_regressor_parity():
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    ours = BaggingRegressor(n_estimators=30, oob_score=True, random_state=0).fit(Xtr, ytr)
    ref = sken.BaggingRegressor(n_estimators=30, oob_score=True, random_state=0).fit(Xtr, ytr)
    assert abs(ours.score(Xte, yte) - ref.score(Xte, yte)) <= 0.05
    assert abs(ours.oob_score_ - ref.oob_score_) <= 0.05
    assert ours.oob_prediction_.shape == ref.oob_prediction_.shape


def test_verbose_progress(capsys):
    X, y = datasets.load_iris(return_X_y=True)
    BaggingClassifier(n_estimators=2, verbose=1, random_state=0).fit(X, y)
    assert "fitting 2 members" in capsys.readouterr().out


@pytest.mark.parametrize("cls, skcls", [(BaggingClassifier, sken.BaggingClassifier),
                                        (BaggingRegressor, sken.BaggingRegressor)])
@pytest.mark.parametrize("bootstrap, max_samples, expected", [
    (True, None, 100), (True, 7, 7), (True, 0.8, 8),
    # Without replacement only the 4 weighted rows can be drawn.
    (False, 4, 4), (False, 0.4, 4), (False, 0.25, 2),
])
@pytest.mark.filterwarnings("ignore:When fitting Bagging")
@pytest.mark.filterwarnings("ignore:Using the fractional value")
def test_weighted_draws_as_scikit_learn(cls, skcls, bootstrap, max_samples, expected):
    # scikit-learn 1.9: a float max_samples is a fraction of the total sample
    # weight when sample_weight is given (issue 19's outside check found 80
    # rows drawn here instead of int(0.8 * 10) = 8); the same rows are drawn.
    X = np.arange(100, dtype=float).reshape(-1, 1)
    y = np.repeat([0, 1], 50)
    w = np.zeros(100)
    w[[4, 5, 60, 61]] = [1.0, 2.0, 3.0, 4.0]
    kw = dict(n_estimators=4, max_samples=max_samples, bootstrap=bootstrap, random_state=0)
    ours = cls(**kw).fit(X, y, sample_weight=w)
    ref = skcls(**kw).fit(X, y, sample_weight=w)
    for a, b in zip(ours.estimators_samples_, ref.estimators_samples_):
        assert len(a) == expected
        assert np.isin(a, [4, 5, 60, 61]).all()
        np.testing.assert_array_equal(a, b)


def test_max_samples_beyond_n_samples():
    X, y = datasets.load_iris(return_X_y=True)
    bag = BaggingClassifier(n_estimators=2, max_samples=300, random_state=0).fit(X, y)
    assert all(len(s) == 300 for s in bag.estimators_samples_)
    with pytest.raises(ValueError, match="max_samples.*without replacement"):
        BaggingClassifier(max_samples=300, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="max_samples"):
        BaggingClassifier(max_samples=1.5).fit(X, y)


@pytest.mark.parametrize("cls, tree", [(BaggingClassifier, DecisionTreeClassifier),
                                       (BaggingRegressor, None)])
def test_members_judge_missing_and_infinite_values(cls, tree):
    # As scikit-learn: a member that imputes NaN and inf (a pipeline whose
    # tags cannot say so) is fitted, and a member that refuses them raises.
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from skml.tree import DecisionTreeRegressor

    def replace(X):
        X = np.array(X, dtype=float)
        X[~np.isfinite(X)] = 0.0
        return X

    X = np.array([[1, 3, 5], [2, np.nan, 6], [2, np.inf, 6], [2, -np.inf, 6], [3, 1, 7.0]])
    y = np.array([3, 6, 6, 6, 3])
    member = (tree or DecisionTreeRegressor)(random_state=0)
    bag = cls(make_pipeline(FunctionTransformer(replace), member), n_estimators=3,
              random_state=0).fit(X, y)
    assert bag.predict(X).shape == (5,)
    with pytest.raises(ValueError, match="infinity"):
        cls(member, n_estimators=3, random_state=0).fit(X, y)
    from skml.linear_model import Ridge

    linear = Perceptron() if cls is BaggingClassifier else Ridge()
    with pytest.raises(ValueError, match="NaN"):
        cls(linear, n_estimators=3, random_state=0).fit(X[:2], y[:2])


def test_member_seeds_skip_the_members_already_fitted():
    from skml.ensemble._base import member_seeds

    all_seeds = member_seeds(7, 0, 9)
    assert member_seeds(7, 4, 9) == all_seeds[4:]
    assert member_seeds(7, 9, 9) == []
    assert len(set(all_seeds)) == 9
    assert all(type(s) is int for s in all_seeds)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_bagging_sparse_equals_dense(fmt):
    # Issue 20: sparse X passes through to the trees (sparse split search);
    # integer targets keep the trees' sums exact, so dense and sparse agree.
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 8)).round(2)
    X[rng.random(X.shape) < 0.7] = 0.0
    S = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
    y = rng.integers(0, 2, 100)
    a = BaggingClassifier(n_estimators=10, random_state=0).fit(X, y)
    b = BaggingClassifier(n_estimators=10, random_state=0).fit(S, y)
    np.testing.assert_array_equal(b.predict_proba(S), a.predict_proba(X))
    a = BaggingRegressor(n_estimators=20, oob_score=True, random_state=0).fit(X, y * 1.0)
    b = BaggingRegressor(n_estimators=20, oob_score=True, random_state=0).fit(S, y * 1.0)
    np.testing.assert_array_equal(b.predict(S), a.predict(X))
    assert b.oob_score_ == a.oob_score_
    assert BaggingClassifier().__sklearn_tags__().input_tags.sparse
