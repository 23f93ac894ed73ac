"""GaussianNB: parity with scikit-learn, partial_fit, weights, notes B §4.3."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn import naive_bayes as sk
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from skml.naive_bayes import GaussianNB
from tests._parity import parity_test

LOADERS = [load_iris, load_wine, load_breast_cancer, load_digits]


def _blobs(seed, n=60, p=3, k=3):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, size=n)
    y[:k] = np.arange(k)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 2, size=p) + 2.0 * y[:, None]
    return X, y


@parity_test(GaussianNB)
@pytest.mark.parametrize("load", LOADERS, ids=lambda f: f.__name__)
def test_parity_probabilities(load):
    X, y = load(return_X_y=True)
    ours = GaussianNB().fit(X, y)
    ref = sk.GaussianNB().fit(X, y)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert_allclose(ours.theta_, ref.theta_, rtol=1e-10, atol=1e-12)
    assert_allclose(ours.var_, ref.var_, rtol=1e-10, atol=1e-15)
    assert_allclose(ours.epsilon_, ref.epsilon_, rtol=1e-10)
    assert_allclose(ours.class_prior_, ref.class_prior_, rtol=1e-12)
    assert_allclose(ours.class_count_, ref.class_count_, rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@parity_test(GaussianNB)
@pytest.mark.parametrize("load", LOADERS[:3], ids=lambda f: f.__name__)
def test_parity_weighted_is_scikit_learn_on_repeated_rows(load):
    # scikit-learn's epsilon_ uses the unweighted variance of X, ours the
    # weighted one, so that a weight w is exactly w repeated rows; the
    # reference is therefore scikit-learn fitted on the repeated rows.
    X, y = load(return_X_y=True)
    sw = np.random.RandomState(0).randint(1, 4, size=len(y))
    ours = GaussianNB().fit(X, y, sample_weight=sw)
    ref = sk.GaussianNB().fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert_allclose(ours.var_, ref.var_, rtol=1e-9, atol=1e-15)
    ref_w = sk.GaussianNB().fit(X, y, sample_weight=sw)
    assert_allclose(ours.theta_, ref_w.theta_, rtol=1e-10, atol=1e-12)
    assert_allclose(ours.var_ - ours.epsilon_, ref_w.var_ - ref_w.epsilon_,
                    rtol=1e-9, atol=1e-12)


@parity_test(GaussianNB)
def test_parity_priors_and_joint_log_proba():
    X, y = load_iris(return_X_y=True)
    priors = [0.2, 0.3, 0.5]
    ours = GaussianNB(priors=priors, var_smoothing=1e-3).fit(X, y)
    ref = sk.GaussianNB(priors=priors, var_smoothing=1e-3).fit(X, y)
    assert_allclose(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X),
                    rtol=1e-10)
    assert_allclose(ours.predict_log_proba(X), ref.predict_log_proba(X), atol=1e-9)


def test_mle_means_and_biased_variances():
    # Notes B §4.1: μ* is the class mean and σ*² the 1/N (biased) variance.
    X, y = _blobs(0)
    clf = GaussianNB(var_smoothing=0.0).fit(X, y)
    for k in range(3):
        assert_allclose(clf.theta_[k], X[y == k].mean(axis=0), rtol=1e-12)
        assert_allclose(clf.var_[k], X[y == k].var(axis=0, ddof=0), rtol=1e-12)
    assert_allclose(clf.class_prior_, np.bincount(y) / len(y))


def test_joint_log_likelihood_is_the_gaussian_formula():
    # The vectorised expansion against the per-class formula, on features far
    # from the origin where a naive expansion would cancel.
    X, y = _blobs(1)
    X = X + 1e4
    clf = GaussianNB().fit(X, y)
    direct = np.column_stack([
        np.log(clf.class_prior_[k])
        - 0.5 * np.sum(np.log(2 * np.pi * clf.var_[k]))
        - 0.5 * np.sum((X - clf.theta_[k]) ** 2 / clf.var_[k], axis=1)
        for k in range(3)
    ])
    assert_allclose(clf.predict_joint_log_proba(X), direct, rtol=1e-9, atol=1e-8)


@given(seed=st.integers(0, 2**16), n_chunks=st.integers(2, 6))
def test_partial_fit_over_chunks_equals_fit(seed, n_chunks):
    X, y = _blobs(seed)
    rng = np.random.RandomState(seed)
    sw = rng.uniform(0.1, 2.0, len(y))
    whole = GaussianNB().fit(X, y, sample_weight=sw)
    inc = GaussianNB()
    cuts = np.sort(rng.choice(np.arange(1, len(y)), n_chunks - 1, replace=False))
    for idx in np.split(np.arange(len(y)), cuts):
        inc.partial_fit(X[idx], y[idx], classes=[0, 1, 2], sample_weight=sw[idx])
    for name in ["theta_", "var_", "class_count_", "class_prior_", "epsilon_"]:
        assert_allclose(getattr(inc, name), getattr(whole, name), rtol=1e-10)
    assert_allclose(inc.predict_proba(X), whole.predict_proba(X), atol=1e-10)


def test_partial_fit_matches_scikit_learn_means_and_variances():
    X, y = load_wine(return_X_y=True)
    ours, ref = GaussianNB(var_smoothing=0.0), sk.GaussianNB(var_smoothing=0.0)
    for idx in np.array_split(np.random.RandomState(0).permutation(len(y)), 4):
        ours.partial_fit(X[idx], y[idx], classes=[0, 1, 2])
        ref.partial_fit(X[idx], y[idx], classes=[0, 1, 2])
    assert_allclose(ours.theta_, ref.theta_, rtol=1e-10)
    assert_allclose(ours.var_, ref.var_, rtol=1e-9)


@given(seed=st.integers(0, 2**16))
def test_integer_weights_equal_repeated_rows(seed):
    X, y = _blobs(seed, n=30)
    sw = np.random.RandomState(seed).randint(0, 4, size=len(y))
    sw[:3] = 1  # keep every class
    weighted = GaussianNB().fit(X, y, sample_weight=sw)
    repeated = GaussianNB().fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    for name in ["theta_", "var_", "class_count_", "epsilon_"]:
        assert_allclose(getattr(weighted, name), getattr(repeated, name), rtol=1e-10)


@given(seed=st.integers(0, 2**16), scale=st.floats(1e-3, 1e3))
def test_probabilities_sum_to_one(seed, scale):
    X, y = _blobs(seed)
    clf = GaussianNB().fit(X * scale, y)
    P = clf.predict_proba(X * scale)
    assert np.all((P >= 0) & (P <= 1))
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(np.exp(clf.predict_log_proba(X * scale)), P, rtol=1e-12)


def test_string_labels():
    X, y = _blobs(2)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = GaussianNB().fit(X, labels)
    assert list(clf.classes_) == ["setosa", "versicolor", "virginica"]
    numeric = GaussianNB().fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[numeric.predict(X)])
    assert np.mean(clf.predict(X) == labels) > 0.8
    inc = GaussianNB().partial_fit(X, labels, classes=clf.classes_)
    np.testing.assert_array_equal(inc.predict(X), clf.predict(X))


def test_one_class_is_a_constant_model_as_in_scikit_learn():
    # scikit-learn fits one class: it predicts that class with probability 1.
    X, _ = _blobs(6)
    y = np.full(X.shape[0], 7)
    ours, ref = GaussianNB().fit(X, y), sk.GaussianNB().fit(X, y)
    np.testing.assert_array_equal(ours.classes_, [7])
    np.testing.assert_array_equal(ours.predict(X), y)
    assert_allclose(ours.predict_proba(X), np.ones((X.shape[0], 1)))
    assert_allclose(ours.predict_log_proba(X), ref.predict_log_proba(X), atol=1e-12)
    assert_allclose(ours.theta_, ref.theta_, rtol=1e-10)
    assert_allclose(ours.var_, ref.var_, rtol=1e-10)
    assert_allclose(
        ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-8
    )
    inc = GaussianNB().partial_fit(X, y, classes=[7])
    assert_allclose(inc.predict_proba(X), ours.predict_proba(X))


def test_classes_of_zero_weight_are_kept_and_never_predicted():
    # scikit-learn keeps the class in classes_ with prior 0 (and mean 0,
    # variance epsilon) and predicts the other class everywhere.
    X, y = _blobs(7, k=2)
    sw = np.where(y == 1, 0.0, 1.0)
    ours = GaussianNB().fit(X, y, sample_weight=sw)
    ref = sk.GaussianNB().fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(ours.classes_, [0, 1])
    np.testing.assert_array_equal(ours.predict(X), np.zeros(X.shape[0]))
    with np.errstate(divide="ignore"):  # scikit-learn's log of the zero prior
        ref_proba = ref.predict_proba(X)
    assert_allclose(ours.predict_proba(X), ref_proba, atol=1e-12)
    assert_allclose(ours.class_count_, ref.class_count_)
    assert_allclose(ours.class_prior_, ref.class_prior_)
    assert_allclose(ours.theta_, ref.theta_, rtol=1e-10)
    # epsilon_ differs by design: ours is from the weighted variance of X
    # (a weight acts as repeats), scikit-learn's from the unweighted one.
    assert_allclose(
        ours.var_ - ours.epsilon_, ref.var_ - ref.epsilon_, rtol=1e-8, atol=1e-12
    )


def test_partial_fit_class_errors():
    X, y = _blobs(3)
    with pytest.raises(ValueError, match="classes must be passed"):
        GaussianNB().partial_fit(X, y)
    clf = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="do not exist"):
        clf.partial_fit(X, y + 5)
    with pytest.raises(ValueError, match="is not the same as on last call to partial_fit"):
        clf.partial_fit(X, y, classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(X[:, :2], y)


@pytest.mark.parametrize(
    "priors, match",
    [([0.5, 0.5], "match number of classes"), ([0.5, 0.6, -0.1], "non-negative"),
     ([0.5, 0.5, 0.5], "sum of the priors")],
)
def test_bad_priors(priors, match):
    X, y = _blobs(4)
    with pytest.raises(ValueError, match=match):
        GaussianNB(priors=priors).fit(X, y)


def test_var_smoothing_is_a_fraction_of_the_largest_variance():
    X, y = _blobs(5)
    clf = GaussianNB(var_smoothing=0.1).fit(X, y)
    assert_allclose(clf.epsilon_, 0.1 * X.var(axis=0).max(), rtol=1e-12)
    raw = GaussianNB(var_smoothing=0.0).fit(X, y)
    assert_allclose(clf.var_ - raw.var_, clf.epsilon_, rtol=1e-10)


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_extreme_magnitudes_give_the_same_model(scale):
    # Issue 23: the variances of X * 1e300 overflow (1e600) and those of
    # X * 1e-300 underflow; Gaussian naive Bayes is scale-equivariant, so the
    # posteriors must be those of the clean fit and the joint log densities
    # shifted by -d log(scale) (the density of x * c is that of x over c^d).
    X, y = load_iris(return_X_y=True)
    clean = GaussianNB().fit(X, y)
    big = GaussianNB().fit(X * scale, y)
    P = big.predict_proba(X * scale)
    assert np.all(np.isfinite(P))
    assert_allclose(P, clean.predict_proba(X), rtol=1e-6, atol=1e-12)
    assert_allclose(
        big.predict_joint_log_proba(X * scale),
        clean.predict_joint_log_proba(X) - X.shape[1] * np.log(scale),
        rtol=1e-9,
    )
    assert_allclose(big.theta_, clean.theta_ * scale, rtol=1e-12)
    inc = GaussianNB()
    for chunk in np.array_split(np.arange(len(X)), 3):
        inc.partial_fit(X[chunk] * scale, y[chunk], classes=[0, 1, 2])
    assert_allclose(inc.predict_proba(X * scale), P, rtol=1e-6, atol=1e-12)


def test_one_sample_gives_finite_densities():
    # Issue 23: one sample has no variance (epsilon_ was 0, every density
    # NaN); epsilon_ is then var_smoothing times the largest squared mean.
    X, y = load_iris(return_X_y=True)
    clf = GaussianNB().fit(X[:1], y[:1])
    assert clf.epsilon_ > 0
    assert_allclose(clf.epsilon_, 1e-9 * np.max(X[0] ** 2))
    jll = clf.predict_joint_log_proba(X)
    assert np.all(np.isfinite(jll))
    assert np.argmax(jll[:, 0]) == 0  # the sample itself is the most likely
    assert_allclose(clf.predict_proba(X), 1.0)
    np.testing.assert_array_equal(clf.predict(X), y[:1].repeat(len(X)))
