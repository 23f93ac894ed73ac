"""Sparse CSR/CSC input to naive Bayes (issue 20): as scikit-learn.

BernoulliNB counts the stored entries (thresholded as they are added up) and must
give the model of the dense copy; GaussianNB refuses sparse input as
scikit-learn's does (a per-class variance would densify it).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skml.naive_bayes import BernoulliNB, GaussianNB
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(pair=sparse_pairs(min_rows=6), binarize=st.sampled_from([0.0, 0.3, None]),
       weighted=st.booleans(), n_classes=st.sampled_from([2, 3]))
def test_bernoulli_sparse_equals_dense(pair, binarize, weighted, n_classes):
    X, S = pair
    if binarize is None:
        # Already binary data: the stored values are used as they are.
        X = (X != 0).astype(X.dtype)
        S = S.copy()
        S.data = (S.data != 0).astype(S.dtype)
    y = np.arange(X.shape[0]) % n_classes
    sw = None
    if weighted:
        sw = np.random.RandomState(0).uniform(0, 2, size=X.shape[0])
    dense = BernoulliNB(binarize=binarize).fit(X, y, sample_weight=sw)
    sparse = BernoulliNB(binarize=binarize).fit(S, y, sample_weight=sw)
    assert_allclose(sparse.feature_count_, dense.feature_count_, rtol=1e-12)
    assert_allclose(sparse.class_count_, dense.class_count_, rtol=1e-12)
    assert_allclose(sparse.feature_log_prob_, dense.feature_log_prob_, rtol=1e-12)
    assert_allclose(sparse.predict_log_proba(S), dense.predict_log_proba(X),
                    rtol=1e-10, atol=1e-10)
    assert_array_equal(sparse.predict(S), dense.predict(X))


def test_bernoulli_partial_fit_on_sparse_batches_equals_dense():
    X, S = make_sparse_pair(0, 40, 7, 0.4, "csr", np.float64)
    y = np.arange(40) % 3
    dense, sparse = BernoulliNB(), BernoulliNB()
    for rows in (slice(0, 15), slice(15, 40)):
        dense.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        sparse.partial_fit(S[rows], y[rows], classes=[0, 1, 2])
    assert_allclose(sparse.feature_count_, dense.feature_count_)
    assert_allclose(sparse.predict_proba(S), dense.predict_proba(X))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_gaussian_refuses_sparse_like_scikit_learn(fmt):
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB

    X, S = make_sparse_pair(1, 20, 4, 0.5, fmt, np.float64)
    y = np.arange(20) % 2
    with pytest.raises(TypeError) as theirs:
        SkGaussianNB().fit(S, y)
    with pytest.raises(TypeError, match="[Ss]parse") as ours:
        GaussianNB().fit(S, y)
    assert type(ours.value) is type(theirs.value)
    fitted = GaussianNB().fit(X, y)
    with pytest.raises(TypeError, match="[Ss]parse"):
        fitted.predict(S)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("binarize", [0.0, 0.5, None])
def test_bernoulli_sparse_counts_are_the_dense_counts_exactly(dtype, binarize):
    # The CSR count thresholds the stored entries while it adds them up, row
    # by row: the same sums, in the same order, as the dense indicator product.
    rng = np.random.RandomState(3)
    X = rng.randint(0, 3, size=(60, 9)) * (rng.uniform(size=(60, 9)) < 0.4)
    X = X.astype(dtype)
    y = rng.randint(0, 3, size=60)
    sw = rng.uniform(0.1, 3.0, size=60)
    dense = BernoulliNB(binarize=binarize).fit(X, y, sample_weight=sw)
    sparse = BernoulliNB(binarize=binarize).fit(sp.csr_matrix(X), y, sample_weight=sw)
    assert_array_equal(sparse.feature_count_, dense.feature_count_)
    assert_array_equal(sparse.feature_log_prob_, dense.feature_log_prob_)


def test_bernoulli_sparse_fit_allocates_nothing_the_size_of_X():
    # Issue 20: memory proportional to nnz means no binarised copy of the
    # stored values (nor a sparse product of that size) during fit; the
    # model itself is n_classes x n_features (here 16 KB against 800 KB).
    import tracemalloc

    S = sp.random(2000, 1000, density=0.05, format="csr", random_state=0)
    y = np.arange(2000) % 2
    BernoulliNB().fit(S[:50], y[:50])  # compile and import outside the trace
    tracemalloc.start()
    try:
        BernoulliNB().fit(S, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < S.data.nbytes / 4
