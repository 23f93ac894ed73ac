"""LinearSVC(penalty="l1"): the L1-regularised squared-hinge SVM (issue 21).

Solved from scratch by coordinate descent on the primal (skml/svm/
_l1_svc_kernels.py); scikit-learn's liblinear (``-s 5``) is the reference.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skml.svm import LinearSVC


def l1_objective(coef, intercept, X, y_pm, C, intercept_scaling=1.0):
    """``‖w‖₁ + |b / s| + C Σ max(0, 1 − y (Xw + b))²`` (liblinear's -s 5)."""
    margins = y_pm * (X @ np.ravel(coef) + intercept)
    slack = np.maximum(0.0, 1.0 - margins)
    return (np.abs(coef).sum() + abs(intercept / intercept_scaling)
            + C * np.sum(slack**2))


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("C", [0.01, 0.1, 1.0])
def test_objective_matches_liblinear(cancer, C):
    X, y = cancer
    y_pm = np.where(y == 1, 1.0, -1.0)
    kw = dict(penalty="l1", dual=False, C=C, tol=1e-6, max_iter=20000, random_state=0)
    ours = LinearSVC(**kw).fit(X, y)
    ref = sk_svm.LinearSVC(**kw).fit(X, y)
    f_ours = l1_objective(ours.coef_, ours.intercept_[0], X, y_pm, C)
    f_ref = l1_objective(ref.coef_, ref.intercept_[0], X, y_pm, C)
    # measured: equal to ~1e-9 relative; both stop at a relative
    # subgradient tolerance, hence the margin
    assert f_ours <= f_ref * (1 + 1e-6)
    assert f_ref <= f_ours * (1 + 1e-6)
    # the L1 penalty's point: comparably sparse weights (same count ± 2)
    n_ours, n_ref = np.count_nonzero(ours.coef_), np.count_nonzero(ref.coef_)
    assert abs(n_ours - n_ref) <= 2
    assert n_ours < X.shape[1]
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.99


def test_subgradient_optimality(cancer):
    # KKT of the L1 problem: |∂loss/∂w_j| <= 1 where w_j = 0, = -sign(w_j)
    # elsewhere (measured after this fit: 6e-7; checked to 1e-5)
    X, y = cancer
    y_pm = np.where(y == 1, 1.0, -1.0)
    C = 0.1
    model = LinearSVC(penalty="l1", dual=False, C=C, tol=1e-8, max_iter=50000,
                      random_state=0, fit_intercept=False).fit(X, y)
    w = model.coef_.ravel()
    slack = np.maximum(0.0, 1.0 - y_pm * (X @ w))
    grad = -2.0 * C * X.T @ (y_pm * slack)
    zero = w == 0
    assert np.all(np.abs(grad[zero]) <= 1.0 + 1e-5)
    np.testing.assert_allclose(grad[~zero], -np.sign(w[~zero]), atol=1e-5)
    assert zero.any() and (~zero).any()


def test_sparse_input_gives_the_dense_model(cancer):
    X, y = cancer
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.5] = 0.0
    kw = dict(penalty="l1", dual=False, C=0.1, random_state=0)
    dense = LinearSVC(**kw).fit(Xs, y)
    sparse = LinearSVC(**kw).fit(sp.csr_matrix(Xs), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-12)


def test_multiclass_one_vs_rest_and_weights():
    X, y = load_iris(return_X_y=True)
    model = LinearSVC(penalty="l1", dual=False, C=1.0, random_state=0).fit(X, y)
    assert model.coef_.shape == (3, 4) and model.intercept_.shape == (3,)
    assert model.score(X, y) > 0.9
    # a zero weight is the sample removed
    w = np.ones(len(y))
    w[::7] = 0.0
    a = LinearSVC(penalty="l1", dual=False, random_state=0, tol=1e-8).fit(X, y, sample_weight=w)
    b = LinearSVC(penalty="l1", dual=False, random_state=0, tol=1e-8).fit(X[w > 0], y[w > 0])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)


def test_intercept_scaling_controls_the_intercept_penalty():
    # the intercept is penalised as |b / s|, as liblinear's
    X = np.array([[2.0, 1.0], [3.0, 1.0], [1.0, 3.0], [2.0, 3.0]])
    y = np.array([0, 0, 1, 1])
    kw = dict(penalty="l1", dual=False, C=4, tol=1e-7, random_state=0)
    assert abs(LinearSVC(intercept_scaling=1, **kw).fit(X, y).intercept_[0]) < 1e-5
    b100 = LinearSVC(intercept_scaling=100, **kw).fit(X, y).intercept_[0]
    b1000 = LinearSVC(intercept_scaling=1000, **kw).fit(X, y).intercept_[0]
    assert b100 < -1 and abs(b100 - b1000) < 1e-2


@pytest.mark.parametrize("penalty, loss, dual", [
    ("l1", "hinge", True), ("l1", "hinge", False), ("l1", "squared_hinge", True),
    ("l2", "hinge", False),
])
def test_unsupported_combinations_are_refused(penalty, loss, dual):
    # Regression: penalty="l1" was refused by the parameter check itself
    X, y = load_iris(return_X_y=True)
    model = LinearSVC(penalty=penalty, loss=loss, dual=dual)
    with pytest.raises(ValueError, match=(
            f"Unsupported set of arguments.*penalty='{penalty}'.*loss='{loss}'"
            f".*dual={dual}")):
        model.fit(X, y)


def test_l1_refuses_other_solvers():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="penalty='l1'.*solver='auto'"):
        LinearSVC(penalty="l1", dual=False, solver="pegasos").fit(X, y)


def test_convergence_warning_text_and_n_iter():
    X, y = load_iris(return_X_y=True)
    for kw in (dict(), dict(penalty="l1", dual=False)):
        model = LinearSVC(max_iter=2, random_state=0, **kw)
        with pytest.warns(ConvergenceWarning, match="Liblinear failed to converge, "
                                                    "increase the number of iterations"):
            model.fit(X, y)
        assert isinstance(model.n_iter_, int) and model.n_iter_ == 2


def test_full_columns_equal_indexed_columns(cancer):
    # A column storing every sample is read by the vectorised helpers (sums
    # reassociated), one with a missing entry by the indexed loops: the same
    # problem in both forms (an extra sample of weight 0 whose entries are
    # zero, hence not stored) reaches the same minimiser.
    from skml.svm._l1_svc_kernels import l1_squared_hinge_cd

    X, y = cancer
    y_pm = np.where(y == 1, 1.0, -1.0)
    Xt = np.hstack([X, np.ones((X.shape[0], 1))]) * y_pm[:, None]
    full = sp.csc_matrix(Xt)
    gapped = sp.csc_matrix(np.vstack([Xt, np.zeros((1, Xt.shape[1]))]))
    gapped.eliminate_zeros()
    assert np.all(np.diff(full.indptr) == X.shape[0])
    assert np.all(np.diff(gapped.indptr) < X.shape[0] + 1)
    weights = []
    for M, C in ((full, np.full(X.shape[0], 0.5)),
                 (gapped, np.r_[np.full(X.shape[0], 0.5), 0.0])):
        w = np.zeros(Xt.shape[1])
        l1_squared_hinge_cd(M.data, M.indices.astype(np.int64),
                            M.indptr.astype(np.int64), C, w, 1e-10, 100000, 0)
        weights.append(w)
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-4, atol=1e-5)
    f = [l1_objective(w[:-1], w[-1], X, y_pm, 0.5) for w in weights]
    assert abs(f[0] - f[1]) <= 1e-9 * f[1]
