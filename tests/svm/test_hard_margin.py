"""HardMarginSVC: SVC(C=1e10) parity, properties of notes A §1.1-1.5, B §5.1-5.3."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import nnls
from sklearn.datasets import load_iris, load_wine
from sklearn.svm import SVC

from skml.metrics.pairwise import polynomial_kernel, rbf_kernel
from skml.svm import HardMarginSVC
from tests._parity import parity_test


@st.composite
def separable_data(draw):
    """Points labelled by a planted hyperplane, with a gap of at least 0.2 around it."""
    n_features = draw(st.integers(1, 4))
    n_samples = draw(st.integers(4, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.RandomState(seed)
    w = rng.randn(n_features)
    w /= np.linalg.norm(w)
    b = rng.uniform(-0.5, 0.5)
    X = rng.uniform(-3, 3, size=(n_samples, n_features))
    score = X @ w + b
    keep = np.abs(score) >= 0.2
    X, score = X[keep], score[keep]
    y = np.where(score > 0, 1, -1)
    assume(len(np.unique(y)) == 2)
    return X, y


def test_toy_case():
    # Notes A §1.1: x = (+1, 0) labelled +1 and (-1, 0) labelled -1 give
    # w0 = (1, 0), b0 = 0, margin 1.
    clf = HardMarginSVC().fit([[1.0, 0.0], [-1.0, 0.0]], [1, -1])
    np.testing.assert_allclose(clf.coef_, [[1.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, [0.0], atol=1e-12)
    assert clf.margin_ == pytest.approx(1.0, abs=1e-12)
    assert clf.margin_width_ == pytest.approx(2.0, abs=1e-12)
    np.testing.assert_array_equal(clf.support_, [0, 1])


@parity_test(HardMarginSVC)
def test_parity_with_svc_large_c():
    # Setosa vs versicolor on sepal length and width: separable, and libsvm
    # with C = 1e10 is effectively hard-margin there.
    X, y = load_iris(return_X_y=True)
    X, y = X[y < 2][:, :2], y[y < 2]
    ours = HardMarginSVC().fit(X, y)
    ref = SVC(kernel="linear", C=1e10, tol=1e-8).fit(X, y)
    ref_norm = np.linalg.norm(ref.coef_)
    assert ours.margin_ == pytest.approx(1.0 / ref_norm, rel=1e-4)
    np.testing.assert_allclose(ours.coef_, ref.coef_ / ref_norm, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_ / ref_norm, atol=1e-3)
    # support_ lists every active constraint: here four points lie on the
    # margin, and libsvm gives one of them alpha = 0 (it drops it).
    assert set(ref.support_) <= set(ours.support_)
    np.testing.assert_allclose(ours.decision_function(X[ours.support_]) * np.where(
        y[ours.support_] == 1, 1, -1), ours.margin_, rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.score(X, y) == 1.0


@given(data=separable_data())
def test_margin_constraints_and_unit_normal(data):
    X, y = data
    clf = HardMarginSVC().fit(X, y)
    dist = y * clf.decision_function(X)
    assert np.linalg.norm(clf.coef_) == pytest.approx(1.0, abs=1e-12)
    assert dist.min() >= clf.margin_ * (1 - 1e-7)
    np.testing.assert_allclose(dist[clf.support_], clf.margin_, rtol=1e-6)
    # Both classes touch the margin.
    assert set(y[clf.support_]) == {-1, 1}
    assert clf.margin_width_ == pytest.approx(2 * clf.margin_)


@given(data=separable_data())
def test_kkt_and_zero_duality_gap(data):
    # Notes B §5.3 in the normalised units w0 = coef_/margin_: some alpha >= 0
    # on the support vectors gives w0 = sum alpha_i y_i x_i, sum alpha_i y_i = 0,
    # and 1/2 ||w0||^2 = sum alpha - 1/2 ||sum alpha y x||^2.
    X, y = data
    clf = HardMarginSVC().fit(X, y)
    w0 = clf.coef_[0] / clf.margin_
    S = clf.support_
    A = np.vstack([(y[S, None] * X[S]).T, y[S]])
    alpha, residual = nnls(A, np.r_[w0, 0.0])
    assert residual <= 1e-6 * max(1.0, np.linalg.norm(w0))
    dual = alpha.sum() - 0.5 * np.sum((A[:-1] @ alpha) ** 2)
    assert dual == pytest.approx(0.5 * w0 @ w0, rel=1e-6)


@given(data=separable_data(), c=st.floats(0.01, 100.0))
def test_scaling_invariance(data, c):
    X, y = data
    a = HardMarginSVC().fit(X, y)
    b = HardMarginSVC().fit(c * X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(c * X))
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-7)
    assert b.margin_ == pytest.approx(c * a.margin_, rel=1e-6)


@given(data=separable_data())
def test_refit_on_support_vectors(data):
    # Deleting the points off the margin leaves the hyperplane unchanged.
    X, y = data
    a = HardMarginSVC().fit(X, y)
    b = HardMarginSVC().fit(X[a.support_], y[a.support_])
    np.testing.assert_allclose(b.coef_, a.coef_, atol=1e-7)
    np.testing.assert_allclose(b.intercept_, a.intercept_, atol=1e-6)


def test_margin_width_is_the_gap_between_the_classes():
    X, y = load_iris(return_X_y=True)
    X, y = X[y < 2][:, :2], y[y < 2]
    clf = HardMarginSVC().fit(X, y)
    proj = X @ clf.coef_[0]
    gap = proj[y == 1].min() - proj[y == 0].max()
    assert gap == pytest.approx(clf.margin_width_, rel=1e-9)


def test_labels_and_sign():
    clf = HardMarginSVC().fit([[0.0], [1.0], [3.0], [4.0]], ["no", "no", "yes", "yes"])
    np.testing.assert_array_equal(clf.predict([[-1.0], [5.0]]), ["no", "yes"])
    assert clf.margin_ == pytest.approx(1.0)
    assert clf.intercept_[0] == pytest.approx(-2.0)


def test_not_separable_raises():
    X = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]  # XOR
    with pytest.raises(ValueError, match="not linearly separable"):
        HardMarginSVC().fit(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match="not linearly separable"):
        HardMarginSVC().fit([[1.0], [1.0]], [0, 1])  # same point, two labels


def test_binary_only():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="OneVsRestClassifier"):
        HardMarginSVC().fit(X, y)
    with pytest.raises(ValueError, match="class"):
        HardMarginSVC().fit(X[:5], np.zeros(5))


# -- kernels (notes A §1.4-1.5) ----------------------------------------------

XOR = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
XOR_Y = np.array([0, 0, 1, 1])


def _wine_01():
    # Wine classes 0 and 1, standardised: separable with an rbf kernel.
    X, y = load_wine(return_X_y=True)
    X, y = X[y < 2], y[y < 2]
    return (X - X.mean(axis=0)) / X.std(axis=0), y


@parity_test(HardMarginSVC)
def test_rbf_parity_with_svc_large_c():
    X, y = _wine_01()
    ours = HardMarginSVC(kernel="rbf", gamma=0.1).fit(X, y)
    ref = SVC(kernel="rbf", gamma=0.1, C=1e10, tol=1e-8).fit(X, y)
    w_norm = 1.0 / ours.margin_
    np.testing.assert_array_equal(ours.support_, np.sort(ref.support_))
    order = np.argsort(ref.support_)
    np.testing.assert_allclose(ours.decision_function(X) * w_norm,
                               ref.decision_function(X), rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(ours.dual_coef_ * w_norm, ref.dual_coef_[:, order],
                               rtol=1e-3)
    np.testing.assert_allclose(ours.intercept_ * w_norm, ref.intercept_, rtol=1e-3)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("kernel, params", [
    ("rbf", {"gamma": 0.1}), ("rbf", {"gamma": "scale"}),
    ("poly", {"degree": 2, "coef0": 1.0}),
])
def test_kernel_margin_constraints(kernel, params):
    X, y = _wine_01()
    clf = HardMarginSVC(kernel=kernel, **params).fit(X, y)
    signs = np.where(y == 1, 1, -1)
    dist = signs * clf.decision_function(X)
    assert dist.min() >= clf.margin_ * (1 - 1e-8)
    np.testing.assert_allclose(dist[clf.support_], clf.margin_, rtol=1e-8)
    off = np.setdiff1d(np.arange(len(y)), clf.support_)
    assert np.all(dist[off] > clf.margin_)
    # Dual feasibility (a >= 0: dual_coef_ has the sign of y) and the unit
    # normal in feature space: ||sum_i dual_coef_i phi(sv_i)||^2 = 1.
    assert np.all(clf.dual_coef_[0] * signs[clf.support_] >= 0)
    assert np.sum(clf.dual_coef_) == pytest.approx(0.0, abs=1e-9)
    sv = X[clf.support_]
    gram = (rbf_kernel(sv, sv, gamma=clf._gamma) if kernel == "rbf" else
            polynomial_kernel(sv, sv, degree=2, gamma=clf._gamma, coef0=1.0))
    assert clf.dual_coef_[0] @ gram @ clf.dual_coef_[0] == pytest.approx(1.0)
    assert clf.margin_width_ == pytest.approx(2 * clf.margin_)
    with pytest.raises(AttributeError, match="linear kernel"):
        clf.coef_


def test_precomputed_and_callable_equal_rbf():
    X, y = _wine_01()
    K = rbf_kernel(X, X, gamma=0.1)
    rbf = HardMarginSVC(kernel="rbf", gamma=0.1).fit(X, y)
    pre = HardMarginSVC(kernel="precomputed").fit(K, y)
    call = HardMarginSVC(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.1)).fit(X, y)
    for other, scores in [(pre, pre.decision_function(K)),
                          (call, call.decision_function(X))]:
        np.testing.assert_allclose(scores, rbf.decision_function(X), atol=1e-10)
        np.testing.assert_array_equal(other.support_, rbf.support_)
        assert other.margin_ == pytest.approx(rbf.margin_, rel=1e-10)
    assert pre.support_vectors_.shape == (0, 0)


def test_kernel_trick_equals_explicit_feature_map():
    # Notes A §1.5: (<x, z>)^2 on R^2 is <phi(x), phi(z)> with
    # phi(x) = (x1^2, sqrt2 x1 x2, x2^2); the kernel hard SVM equals the
    # linear one on phi(X), margin included.
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    keep = np.abs(X[:, 0] * X[:, 1]) > 0.05
    X, y = X[keep], y[keep]

    def phi(A):
        return np.c_[A[:, 0] ** 2, np.sqrt(2) * A[:, 0] * A[:, 1], A[:, 1] ** 2]

    kern = HardMarginSVC(kernel="poly", degree=2, gamma=1.0, coef0=0.0).fit(X, y)
    lin = HardMarginSVC().fit(phi(X), y)
    Xt = rng.uniform(-1, 1, size=(20, 2))
    np.testing.assert_allclose(kern.decision_function(Xt),
                               lin.decision_function(phi(Xt)), atol=1e-7)
    assert kern.margin_ == pytest.approx(lin.margin_, rel=1e-7)
    # The representer theorem: w = sum_i dual_coef_i phi(sv_i) is coef_.
    np.testing.assert_allclose(kern.dual_coef_ @ phi(kern.support_vectors_),
                               lin.coef_, atol=1e-7)


def test_linear_dual_coef_gives_coef():
    # Notes A §1.4: w = sum_i alpha_i y_i x_i, normalised alike.
    X, y = load_iris(return_X_y=True)
    X, y = X[y < 2][:, :2], y[y < 2]
    clf = HardMarginSVC().fit(X, y)
    np.testing.assert_allclose(clf.dual_coef_ @ clf.support_vectors_, clf.coef_,
                               atol=1e-9)
    np.testing.assert_array_equal(clf.support_vectors_, X[clf.support_])


def test_xor_separable_with_kernels_only():
    with pytest.raises(ValueError, match="not linearly separable"):
        HardMarginSVC().fit(XOR, XOR_Y)
    for clf in [HardMarginSVC(kernel="rbf", gamma=1.0),
                HardMarginSVC(kernel="poly", degree=2, gamma=1.0, coef0=1.0)]:
        clf.fit(XOR, XOR_Y)
        np.testing.assert_array_equal(clf.predict(XOR), XOR_Y)
        np.testing.assert_allclose(
            np.where(XOR_Y == 1, 1, -1) * clf.decision_function(XOR), clf.margin_,
            rtol=1e-9)


def test_kernel_lp_refuses_non_separable():
    # A point repeated with both labels defeats every kernel; a degree-1
    # polynomial is the linear kernel (singular 4 x 4 Gram matrix of rank 3).
    X = np.r_[XOR, XOR[:1]]
    y = np.r_[XOR_Y, 1]
    with pytest.raises(ValueError, match="feature space of the 'rbf' kernel"):
        HardMarginSVC(kernel="rbf", gamma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="feature space of the 'poly' kernel"):
        HardMarginSVC(kernel="poly", degree=1, gamma=1.0, coef0=0.0).fit(XOR, XOR_Y)
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    y = rng.randint(0, 2, 60)
    with pytest.raises(ValueError, match="feature space of the 'poly' kernel"):
        HardMarginSVC(kernel="poly", degree=2).fit(X, y)


def test_indefinite_kernel_refused():
    X, y = _wine_01()
    with pytest.raises(ValueError, match="not positive semi-definite"):
        HardMarginSVC(kernel="sigmoid").fit(X, y)


def test_precomputed_shape_checks():
    X, y = _wine_01()
    with pytest.raises(ValueError, match="square kernel matrix"):
        HardMarginSVC(kernel="precomputed").fit(X, y)
    clf = HardMarginSVC(kernel="precomputed").fit(rbf_kernel(X, X, gamma=0.1), y)
    with pytest.raises(ValueError, match="expecting 130 features"):
        clf.decision_function(X)


def test_docstring_example_does_not_depend_on_the_sign_of_zero(monkeypatch):
    # Issue 19: the example printed array([0.]) for the intercept here and
    # array([-0.]) on other CPUs. Force the negative rounding error and run it.
    import doctest

    fit = HardMarginSVC.fit

    def fit_with_negative_zero(self, *args, **kwargs):
        fit(self, *args, **kwargs)
        tiny = np.abs(self.intercept_) < 1e-9
        self.intercept_ = np.where(tiny, -np.abs(self.intercept_), self.intercept_)
        return self

    monkeypatch.setattr(HardMarginSVC, "fit", fit_with_negative_zero)
    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(HardMarginSVC, "HardMarginSVC", globs={}):
        runner.run(test)
    assert runner.summarize(verbose=False).attempted > 0
    assert runner.failures == 0


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_linear_scale_of_x_does_not_matter(factor):
    # Issue 23: at X * 1e-300 the squared norms used to scale the problem
    # underflowed to zero and separable data were called "not linearly
    # separable"; at X * 1e300 they overflowed. The scale is now taken from
    # max |x| first.
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    y = (y > 0).astype(int)  # setosa against the rest: separable
    clean = HardMarginSVC().fit(X, y)
    moved = HardMarginSVC().fit(X * factor, y)
    np.testing.assert_array_equal(moved.predict(X * factor), clean.predict(X))
    np.testing.assert_array_equal(moved.support_, clean.support_)
    # coef_ is the unit normal; the margin scales with X.
    np.testing.assert_allclose(moved.coef_, clean.coef_, rtol=1e-6)
    np.testing.assert_allclose(moved.margin_ / factor, clean.margin_, rtol=1e-6)


# --- sparse input (issue 20) ----------------------------------------------------


@st.composite
def _separable_sparse(draw):
    """A CSR matrix with a random sparsity pattern (explicit zeros, empty rows
    and columns allowed) and labels split by a hyperplane with a gap."""
    n = draw(st.integers(6, 20))
    d = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < draw(st.floats(0.2, 0.9)))
    w, b = rng.normal(size=d), rng.normal() * 0.3
    score = X @ w + b
    assume(np.min(np.abs(score)) > 0.1)
    y = (score > 0).astype(int)
    assume(0 < y.sum() < n)
    S = sp.csr_matrix(X)
    zeros = np.argwhere(X == 0)
    if len(zeros) and draw(st.booleans()):  # a stored (explicit) zero
        i, j = zeros[0]
        C = S.tocoo()
        S = sp.csr_matrix((np.r_[C.data, 0.0], (np.r_[C.row, i], np.r_[C.col, j])),
                          shape=X.shape)
        assert S.nnz == np.count_nonzero(X) + 1
    return S, y


@pytest.mark.parametrize("kernel", ["linear", "rbf", "laplacian"])
@given(data=_separable_sparse())
def test_sparse_input_gives_the_dense_model(kernel, data):
    S, y = data
    X = S.toarray()
    dense = HardMarginSVC(kernel=kernel, gamma=1.0).fit(X, y)
    sparse = HardMarginSVC(kernel=kernel, gamma=1.0).fit(S, y)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    # CSR after a sparse fit, as SVC's (and scikit-learn's SVC's). The dual is
    # not unique when several margin points are linearly dependent in feature
    # space (hypothesis found such data: one fit put weight on points the
    # other left at 0), so the model is compared through what is unique: the
    # margin and the decision function (below), and the duals must reproduce
    # the same weights on the support vectors' kernel columns.
    assert sp.issparse(sparse.dual_coef_) and not sp.issparse(dense.dual_coef_)
    K = sparse._kernel_block(S[sparse.support_])
    np.testing.assert_allclose(K @ sparse.dual_coef_.toarray()[0],
                               K @ dense.dual_coef_[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sparse.margin_, dense.margin_, rtol=1e-6)
    np.testing.assert_allclose(sparse.decision_function(S), dense.decision_function(X),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(sparse.predict(S), y)


def test_sparse_precomputed_is_refused():
    K = sp.csr_matrix(np.eye(4))
    with pytest.raises(TypeError, match="Sparse precomputed"):
        HardMarginSVC(kernel="precomputed").fit(K, [0, 0, 1, 1])


@pytest.mark.parametrize("to_input", [np.asarray, sp.csr_matrix], ids=["dense", "csr"])
def test_identical_points_with_both_labels_are_not_separable(to_input):
    # Regression (issue 21): all-zero rows of both labels (scikit-learn's
    # sparse-tag check data) reached the LP as kernel-PCA rows equal only to
    # rounding, and after the rbf rescaling changed by a last bit HiGHS
    # called them separable (a fit with a NaN margin followed).
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(40, 3))
    X[X < 0.6] = 0
    y = rng.randint(0, 2, size=40)
    assert len(set(y[~X.any(axis=1)])) == 2
    with pytest.raises(ValueError, match="not linearly separable"):
        HardMarginSVC(kernel="rbf", gamma=10.0).fit(to_input(X), y)
