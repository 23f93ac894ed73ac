"""Sparse CSR/CSC input to LinearSVC (issue 20): the same model as dense."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from skml.svm import LinearSVC
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

SETTINGS = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

CASES = [
    dict(solver="dual_cd"),
    dict(solver="dual_cd", loss="hinge", fit_intercept=False),
    dict(solver="newton"),
    dict(solver="pegasos", max_iter=4, average=True),
]


@SETTINGS
@given(pair=sparse_pairs(min_rows=10), case=st.sampled_from(CASES),
       weighted=st.booleans(), n_classes=st.sampled_from([2, 3]))
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sparse_equals_dense(pair, case, weighted, n_classes):
    X, S = pair
    rng = np.random.RandomState(0)
    y = np.arange(X.shape[0]) % n_classes
    sw = rng.uniform(0, 3, size=X.shape[0]) if weighted else None
    if weighted:
        sw[-1] = 0.0
    dense = LinearSVC(random_state=0, **case).fit(X, y, sample_weight=sw)
    sparse = LinearSVC(random_state=0, **case).fit(S, y, sample_weight=sw)
    assert dense.n_iter_ == sparse.n_iter_
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-11)
    assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-9, atol=1e-11)
    assert_allclose(sparse.decision_function(S), dense.decision_function(X),
                    rtol=1e-9, atol=1e-9)


def test_auto_picks_dual_cd_on_sparse():
    # Newton's (d + 1)^2 Hessian is not for sparse data: "auto" takes dual
    # CD there even where it would take Newton on the dense copy.
    X, S = make_sparse_pair(0, 60, 5, 0.5, "csr", np.float64)
    y = np.arange(60) % 2
    assert LinearSVC().fit(X, y)._solver == "newton"
    sparse = LinearSVC(random_state=0).fit(S, y)
    assert sparse._solver == "dual_cd"
    dense = LinearSVC(solver="dual_cd", random_state=0).fit(X, y)
    assert_allclose(sparse.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    assert_array_equal(sparse.dual_coef_, dense.dual_coef_)


@pytest.mark.parametrize("sparse", [False, True])
def test_zero_row_without_intercept_hinge(sparse):
    # Regression: x̃_i = 0 (an all-zero row, no intercept column) has
    # Q_ii = 0 under the hinge, and the dual update divided by it
    # (ZeroDivisionError on dense and sparse input alike). Its α_i goes to C.
    X, S = make_sparse_pair(3, 12, 3, 0.6, "csr", np.float64, explicit_zeros=False)
    X[4] = 0.0
    S = S.tolil()
    S[4] = 0.0
    S = S.tocsr()
    y = np.arange(12) % 2
    clf = LinearSVC(loss="hinge", fit_intercept=False, C=0.5, random_state=0)
    clf.fit(S if sparse else X, y)
    assert clf.dual_coef_[0, 4] == pytest.approx(0.5)
    assert np.all(np.isfinite(clf.coef_))
