"""BernoulliNB: parity with scikit-learn, the notes' 3/7 (B §4.3, §16 item 6)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as sk
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from skml.naive_bayes import BernoulliNB
from tests._parity import parity_test

# D4 "Discriminative v.s. Generative": class 1 = {(1, 1)}; class 2 = 4 x (1, 0),
# 4 x (0, 1), 4 x (0, 0).
TOY_X = np.array([[1, 1]] + [[1, 0]] * 4 + [[0, 1]] * 4 + [[0, 0]] * 4, dtype=float)
TOY_Y = np.array([1] + [2] * 12)


def _binary(seed, n=40, p=6, k=3):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, size=n)
    y[:k] = np.arange(k)
    bias = rng.uniform(0.1, 0.9, size=(k, p))
    X = (rng.uniform(size=(n, p)) < bias[y]).astype(float)
    return X, y


@parity_test(BernoulliNB)
@pytest.mark.parametrize(
    "load", [load_iris, load_wine, load_breast_cancer, load_digits],
    ids=lambda f: f.__name__,
)
@pytest.mark.parametrize("weighted", [False, True])
def test_parity_probabilities(load, weighted):
    X, y = load(return_X_y=True)
    threshold = float(np.median(X))  # digits: ink above the median pixel
    sw = np.random.RandomState(0).uniform(0.2, 3.0, len(y)) if weighted else None
    ours = BernoulliNB(binarize=threshold).fit(X, y, sample_weight=sw)
    ref = sk.BernoulliNB(binarize=threshold).fit(X, y, sample_weight=sw)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    assert_allclose(ours.class_log_prior_, ref.class_log_prior_, rtol=1e-12)
    assert_allclose(ours.feature_count_, ref.feature_count_, rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@parity_test(BernoulliNB)
@pytest.mark.parametrize(
    "params",
    [{"alpha": 0.3, "fit_prior": False}, {"class_prior": [0.6, 0.4]}],
)
def test_parity_parameters(params):
    X, y = load_breast_cancer(return_X_y=True)
    X = X > np.median(X, axis=0)
    ours = BernoulliNB(binarize=None, **params).fit(X, y)
    ref = sk.BernoulliNB(binarize=None, **params).fit(X, y)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_notes_worked_example_three_sevenths():
    # P(C1 | (1,1)) = (1/13) / (1/13 + (12/13)(1/3)(1/3)) = 3/7 (notes B §16 item 6).
    p_c1, p_c2 = 1 / 13, 12 / 13
    p_x_given_c2 = (4 / 12) * (4 / 12)  # naive: P(x1=1|C2) P(x2=1|C2)
    hand = p_c1 * 1.0 / (p_c1 * 1.0 + p_c2 * p_x_given_c2)
    assert hand == pytest.approx(3 / 7, abs=1e-15)
    for alpha in [0.0, 1e-10]:
        clf = BernoulliNB(alpha=alpha).fit(TOY_X, TOY_Y)
        assert_allclose(clf.predict_proba([[1, 1]]), [[3 / 7, 4 / 7]], atol=1e-8)
        assert clf.predict([[1, 1]])[0] == 2  # against intuition, as the notes say
    assert round(3 / 7, 6) == 0.428571


def test_zero_smoothing_gives_impossible_events_probability_zero():
    # alpha = 0: class 1 never shows x = (0, 0), so P(C1 | (0, 0)) = 0 exactly.
    clf = BernoulliNB(alpha=0.0).fit(TOY_X, TOY_Y)
    P = clf.predict_proba([[0, 0], [1, 0]])
    assert_allclose(P, [[0.0, 1.0], [0.0, 1.0]])
    assert not np.any(np.isnan(clf.predict_log_proba([[0, 0]])))


def test_laplace_smoothing_formula():
    X, y = _binary(0)
    clf = BernoulliNB(alpha=1.0).fit(X, y)
    for k in range(3):
        ones, n_k = X[y == k].sum(axis=0), np.sum(y == k)
        assert_allclose(np.exp(clf.feature_log_prob_[k]), (ones + 1) / (n_k + 2))


def test_alpha_per_feature():
    # p_kj = (N_kj + alpha_j) / (N_k + 2 alpha_j); scikit-learn 1.9 raises a
    # broadcasting error for this case, so the reference is the formula.
    X, y = _binary(5)
    alpha = np.linspace(0.1, 2.0, X.shape[1])
    clf = BernoulliNB(alpha=alpha).fit(X, y)
    for k in range(3):
        ones, n_k = X[y == k].sum(axis=0), np.sum(y == k)
        expected = (ones + alpha) / (n_k + 2 * alpha)
        assert_allclose(np.exp(clf.feature_log_prob_[k]), expected)


def test_binarize_threshold():
    X, y = _binary(1)
    Xc = X * 3.0 + np.random.RandomState(1).uniform(-0.5, 0.5, X.shape)
    a = BernoulliNB(binarize=1.5).fit(Xc, y)
    b = BernoulliNB(binarize=None).fit(X, y)
    assert_allclose(a.feature_log_prob_, b.feature_log_prob_)
    assert_allclose(a.predict_proba(Xc), b.predict_proba(X))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_equals_dense(fmt):
    X, y = _binary(2)
    dense = BernoulliNB().fit(X, y)
    sparse = BernoulliNB().fit(sp.csr_matrix(X).asformat(fmt), y)
    assert_allclose(sparse.feature_count_, dense.feature_count_)
    assert_allclose(sparse.predict_proba(sp.csr_matrix(X)), dense.predict_proba(X))


def test_sparse_negative_threshold_is_an_error():
    X, y = _binary(3)
    with pytest.raises(ValueError, match="binarize"):
        BernoulliNB(binarize=-0.5).fit(sp.csr_matrix(X), y)


@given(seed=st.integers(0, 2**16), n_chunks=st.integers(2, 5))
def test_partial_fit_over_chunks_equals_fit(seed, n_chunks):
    X, y = _binary(seed)
    sw = np.random.RandomState(seed).uniform(0.1, 2, len(y))
    whole = BernoulliNB().fit(X, y, sample_weight=sw)
    inc = BernoulliNB()
    for idx in np.array_split(np.arange(len(y)), n_chunks):
        inc.partial_fit(X[idx], y[idx], classes=[0, 1, 2], sample_weight=sw[idx])
    assert_allclose(inc.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)
    assert_allclose(inc.class_log_prior_, whole.class_log_prior_, rtol=1e-12)


@given(seed=st.integers(0, 2**16))
def test_integer_weights_equal_repeated_rows(seed):
    X, y = _binary(seed, n=25)
    sw = np.random.RandomState(seed).randint(0, 4, size=len(y))
    sw[:3] = 1
    weighted = BernoulliNB().fit(X, y, sample_weight=sw)
    repeated = BernoulliNB().fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    assert_allclose(weighted.feature_log_prob_, repeated.feature_log_prob_, rtol=1e-12)
    assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


@given(seed=st.integers(0, 2**16), alpha=st.floats(0.0, 5.0))
def test_probabilities_sum_to_one(seed, alpha):
    X, y = _binary(seed)
    P = BernoulliNB(alpha=alpha).fit(X, y).predict_proba(X)
    assert np.all((P >= 0) & (P <= 1))
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)


def test_string_labels_and_one_class():
    labels = np.where(TOY_Y == 1, "water", "normal")
    clf = BernoulliNB(alpha=1e-10).fit(TOY_X, labels)
    assert clf.predict([[1, 1]])[0] == "normal"


@pytest.mark.parametrize("sparse", [False, True])
def test_one_class_is_a_constant_model_as_in_scikit_learn(sparse):
    # scikit-learn fits one class: it predicts that class with probability 1.
    X = sp.csr_matrix(TOY_X) if sparse else TOY_X
    y = np.full(13, "water")
    ours, ref = BernoulliNB().fit(X, y), sk.BernoulliNB().fit(X, y)
    np.testing.assert_array_equal(ours.classes_, ["water"])
    np.testing.assert_array_equal(ours.predict(X), y)
    assert_allclose(ours.predict_proba(X), np.ones((13, 1)))
    assert_allclose(ours.predict_log_proba(X), ref.predict_log_proba(X), atol=1e-12)
    assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    assert_allclose(
        ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X), rtol=1e-12
    )
    inc = BernoulliNB().partial_fit(X, y, classes=["water"])
    assert_allclose(inc.feature_log_prob_, ours.feature_log_prob_)


def test_classes_of_zero_weight_are_kept_and_never_predicted():
    X, y = _binary(8, k=2)
    sw = np.where(y == 1, 0.0, 1.0)
    ours = BernoulliNB().fit(X, y, sample_weight=sw)
    ref = sk.BernoulliNB().fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(ours.classes_, [0, 1])
    np.testing.assert_array_equal(ours.predict(X), np.zeros(X.shape[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scikit-learn's log(0)
        ref_proba = ref.predict_proba(X)
    assert_allclose(ours.predict_proba(X), ref_proba, atol=1e-12)
    assert_allclose(ours.class_count_, ref.class_count_)
    assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)


def test_alpha_checks():
    X, y = _binary(4)
    with pytest.raises(ValueError, match="one value per feature"):
        BernoulliNB(alpha=[1.0, 2.0]).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        BernoulliNB(alpha=0.0, force_alpha=False).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BernoulliNB(alpha=0.0, force_alpha=True).fit(X, y)


def test_categorical_column_is_refused_by_name():
    # Issue 23: a pandas categorical column reached the binarisation as
    # objects and failed with numpy's "'>' not supported".
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    df = pd.DataFrame(rng.rand(8, 3), columns=["a", "colour", "c"])
    df["colour"] = pd.Categorical(["red", "blue"] * 4)
    y = np.arange(8) % 2
    with pytest.raises(ValueError, match="column 'colour'.*non-numeric.*'red'"):
        BernoulliNB().fit(df, y)
    with pytest.raises(ValueError, match="column 'colour'"):
        BernoulliNB().partial_fit(df, y, classes=[0, 1])
    clf = BernoulliNB().fit(df.assign(colour=1.0), y)
    with pytest.raises(ValueError, match="column 'colour'"):
        clf.predict(df)
    # Numbers held as objects are numbers.
    numeric = df.assign(colour=rng.rand(8) - 0.5)
    np.testing.assert_array_equal(
        BernoulliNB().fit(numeric.astype(object), y).predict_proba(numeric.to_numpy()),
        BernoulliNB().fit(numeric.to_numpy(), y).predict_proba(numeric.to_numpy()),
    )


def _old_binarised_copy_jll(clf, X):
    """The joint log-likelihood through a binarised copy of X (the pre-issue-20 path)."""
    Xb = sp.csr_matrix(X) if sp.issparse(X) else X
    if clf.binarize is not None:
        Xb = (Xb > clf.binarize).astype(np.float64)
    log_p = clf.feature_log_prob_
    with np.errstate(divide="ignore"):
        log_not_p = np.log1p(-np.exp(log_p))
    bad_p, bad_q = np.isneginf(log_p), np.isneginf(log_not_p)
    lp, lq = np.where(bad_p, 0.0, log_p), np.where(bad_q, 0.0, log_not_p)
    jll = np.asarray(Xb @ (lp - lq).T) + clf.class_log_prior_ + lq.sum(axis=1)
    n_bad = np.asarray(Xb @ (bad_p * 1.0 - bad_q).T) + bad_q.sum(axis=1)
    jll[n_bad > 0.5] = -np.inf
    return jll


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_predict_binarises_on_the_fly_as_the_binarised_copy(sparse, dtype, alpha):
    rng = np.random.RandomState(0)
    X = rng.randint(-2, 4, size=(60, 9)).astype(dtype)
    if dtype != np.int64:
        X = X + np.asarray(0.3, dtype=dtype)  # values right at a float32 threshold
    y = np.arange(60) % 3
    X_test = X[::-1].copy()
    X_test[0, :] = 3  # with alpha = 0, events never seen in training
    if sparse:
        X, X_test = sp.csr_matrix(np.maximum(X, 0)), sp.csr_matrix(np.maximum(X_test, 0))
    for threshold in (0.3, 1.0, None):
        if threshold is None:  # already binary data, used as it is
            X, X_test = (X > 0.3).astype(dtype), (X_test > 0.3).astype(dtype)
        clf = BernoulliNB(alpha=alpha, binarize=threshold).fit(X, y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = clf.predict_joint_log_proba(X_test)
            expected = _old_binarised_copy_jll(clf, X_test)
        assert_array_equal(np.isneginf(got), np.isneginf(expected))
        finite = np.isfinite(expected)
        assert_allclose(got[finite], expected[finite], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_predict_allocates_no_binarised_copy_of_X(sparse):
    # issue 20: the binarised test matrix (8 MB here, float64) is never formed;
    # predict's memory is its (n_samples, n_classes) output.
    import tracemalloc

    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(4000, 250))
    if sparse:
        X = sp.csr_matrix(np.where(X > 0, X, 0.0))
    y = np.arange(4000) % 2
    clf = BernoulliNB(binarize=0.2).fit(X, y)
    clf.predict(X[:5])  # compile outside the measurement
    tracemalloc.start()
    try:
        clf.predict_joint_log_proba(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # output 64 kB; a binarised copy is >= 1 MB (bool)


def test_partial_fit_other_classes_message_as_scikit_learn():
    X, y = _binary(4)
    clf = BernoulliNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="is not the same as on last call to partial_fit"):
        clf.partial_fit(X, y, classes=[0, 1, 1])
