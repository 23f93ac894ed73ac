"""SVC: parity with scikit-learn (libsvm) and the properties of notes B §5.5-5.11."""

import numpy as np
import pytest
from sklearn import svm as sk
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skml.metrics.pairwise import polynomial_kernel, rbf_kernel
from skml.svm import SVC
from skml.svm._base import smo_dual
from tests._parity import parity_test


def _scaled(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def cancer():
    return _scaled(load_breast_cancer)


def _assert_same_model(ours, ref, X, rtol=1e-2):
    d_ours, d_ref = ours.decision_function(X), ref.decision_function(X)
    scale = np.abs(d_ref).max()
    np.testing.assert_allclose(d_ours, d_ref, rtol=0, atol=rtol * scale)
    n_ours, n_ref = ours.n_support_.sum(), ref.n_support_.sum()
    assert abs(n_ours - n_ref) <= 0.02 * n_ref
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@parity_test(SVC)
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear", "C": 0.5},
        {"kernel": "rbf"},
        {"kernel": "rbf", "C": 10.0, "gamma": 0.05},
        {"kernel": "poly", "degree": 2, "coef0": 1.0},
        {"kernel": "poly", "degree": 3, "gamma": "auto"},
        # tanh(gamma <x,z> + coef0) is well behaved for a small gamma and a
        # negative shift (Lin and Lin 2003)
        {"kernel": "sigmoid", "gamma": 0.01, "coef0": -1.0, "C": 10.0},
    ],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()),
)
def test_parity_binary_breast_cancer(cancer, params):
    X, y = cancer
    ours = SVC(**params).fit(X, y)
    ref = sk.SVC(**params).fit(X, y)
    _assert_same_model(ours, ref, X)
    # same algorithm (WSS2, shrinking, float32 cache): same support set and
    # libsvm's layout and signs
    np.testing.assert_array_equal(ours.support_, ref.support_)
    C = params.get("C", 1.0)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-3 * C)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-3)


@parity_test(SVC)
@pytest.mark.parametrize("loader", [load_iris, load_wine], ids=["iris", "wine"])
@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
def test_parity_multiclass(loader, shape, kernel):
    X, y = _scaled(loader)
    params = {"kernel": kernel, "decision_function_shape": shape}
    ours = SVC(**params).fit(X, y)
    ref = sk.SVC(**params).fit(X, y)
    _assert_same_model(ours, ref, X)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-2)
    assert ours.n_iter_.shape == (3,)
    if kernel == "linear":
        atol = 1e-2 * np.abs(ref.coef_).max()
        np.testing.assert_allclose(ours.coef_, ref.coef_, atol=atol)


@parity_test(SVC)
def test_parity_break_ties_and_class_weight():
    X, y = _scaled(load_wine)
    params = {"break_ties": True, "class_weight": "balanced", "C": 0.3}
    ours = SVC(**params).fit(X, y)
    ref = sk.SVC(**params).fit(X, y)
    _assert_same_model(ours, ref, X)
    np.testing.assert_allclose(ours.class_weight_, ref.class_weight_)


def test_decision_function_is_the_kernel_expansion(cancer):
    # f(x) = sum_i dual_coef_i k(x_i, x) + b (notes B §5.9)
    X, y = cancer
    clf = SVC(gamma=0.1).fit(X, y)
    K = rbf_kernel(X, clf.support_vectors_, gamma=0.1)
    by_hand = K @ clf.dual_coef_[0] + clf.intercept_[0]
    np.testing.assert_allclose(clf.decision_function(X), by_hand, atol=1e-10)
    expected = clf.classes_[(by_hand >= 0).astype(int)]
    np.testing.assert_array_equal(clf.predict(X), expected)


def test_kernel_trick_equivalence():
    # Catalogue A §1.5: a linear SVC on the explicit degree-2 map
    # phi(x) = (1, sqrt2 x1, sqrt2 x2, x1^2, sqrt2 x1 x2, x2^2) is the SVC with
    # k(x, z) = (<x, z> + 1)^2 on the raw data.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2).astype(int)
    s = np.sqrt(2)
    phi = lambda A: np.column_stack(  # noqa: E731
        [np.ones(len(A)), s * A[:, 0], s * A[:, 1], A[:, 0] ** 2,
         s * A[:, 0] * A[:, 1], A[:, 1] ** 2]
    )
    K = polynomial_kernel(X, degree=2, gamma=1, coef0=1)
    np.testing.assert_allclose(phi(X) @ phi(X).T, K)
    explicit = SVC(kernel="linear", C=3.0, tol=1e-8).fit(phi(X), y)
    trick = SVC(kernel="poly", degree=2, gamma=1, coef0=1, C=3.0, tol=1e-8).fit(X, y)
    X_test = rng.normal(size=(30, 2))
    np.testing.assert_allclose(
        explicit.decision_function(phi(X_test)),
        trick.decision_function(X_test),
        atol=1e-5,
    )
    np.testing.assert_array_equal(explicit.support_, trick.support_)
    # w lies in the span of the support vectors: w = sum_i a_i y_i phi(x_i)
    # (to rounding: coef_ comes from the centred support vectors, so the
    # constant feature's weight is exactly 0 where this sum leaves ~1e-15)
    w = explicit.dual_coef_ @ phi(X)[explicit.support_]
    np.testing.assert_allclose(explicit.coef_, w, atol=1e-12)


def test_hard_margin_on_separable_data():
    X, y = make_blobs(
        n_samples=60, centers=[[-3, -3], [3, 3]], cluster_std=1.0, random_state=0
    )
    clf = SVC(kernel="linear", C=np.inf, tol=1e-6).fit(X, y)
    m = np.where(y == clf.classes_[1], 1, -1) * clf.decision_function(X)
    # notes B §5.1/5.3: min_i y_i f(x_i) = 1, the SVs lie on H+ and H-
    assert m.min() == pytest.approx(1.0, abs=1e-4)
    np.testing.assert_allclose(m[clf.support_], 1.0, atol=1e-4)
    ref = sk.SVC(kernel="linear", C=1e10, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-3)
    # refitting on the support vectors alone gives the same hyperplane
    sv = clf.support_
    again = SVC(kernel="linear", C=np.inf, tol=1e-6).fit(X[sv], y[sv])
    np.testing.assert_allclose(again.coef_, clf.coef_, rtol=1e-4)


def test_hard_margin_on_non_separable_data_raises():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    with pytest.raises(ValueError, match="not separable"):
        SVC(kernel="linear", C=np.inf, max_iter=10_000).fit(X, [0, 1, 0, 1])


def test_sample_weight_scales_C(cancer):
    X, y = cancer
    X, y = X[:120], y[:120]
    w = np.ones(len(y))
    w[::7] = 2.0
    gamma = 0.03  # fixed: "scale" would change with the duplicated rows below
    weighted = SVC(gamma=gamma, tol=1e-8).fit(X, y, sample_weight=w)
    # the same dual with C_i = C w_i written out by hand
    y_pm = np.where(y == weighted.classes_[0], 1.0, -1.0)  # libsvm: first class +1
    alpha, rho, *_ = smo_dual(
        X, y_pm, -1.0, 1.0 * w, kernel="rbf", gamma=gamma, tol=1e-8
    )
    K = rbf_kernel(X, gamma=gamma)
    by_hand = -(K @ (alpha * y_pm) - rho)  # scikit-learn's sign for two classes
    np.testing.assert_allclose(weighted.decision_function(X), by_hand, atol=1e-6)
    # uniform weight 2 is C doubled; weight 2 on a sample ~ that sample twice
    np.testing.assert_allclose(
        SVC(gamma=gamma, tol=1e-8).fit(X, y, sample_weight=np.full(len(y), 2.0))
        .decision_function(X),
        SVC(gamma=gamma, C=2.0, tol=1e-8).fit(X, y).decision_function(X), atol=1e-8,
    )
    dup = np.concatenate([np.arange(len(y)), np.arange(len(y))[::7]])
    np.testing.assert_allclose(
        SVC(gamma=gamma, tol=1e-8).fit(X[dup], y[dup]).decision_function(X),
        weighted.decision_function(X), atol=1e-4,
    )
    # zero weight removes a sample
    w0 = np.ones(len(y))
    w0[:10] = 0
    np.testing.assert_allclose(
        SVC(gamma=gamma).fit(X, y, sample_weight=w0).decision_function(X),
        SVC(gamma=gamma).fit(X[10:], y[10:]).decision_function(X), atol=1e-10,
    )


def test_string_labels_and_shapes():
    X, y = _scaled(load_iris)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    clf = SVC().fit(X, names)
    assert set(clf.predict(X)) <= set(names)
    assert (clf.predict(X) == names).mean() > 0.95
    assert clf.decision_function(X).shape == (150, 3)
    clf.set_params(decision_function_shape="ovo")
    assert clf.decision_function(X).shape == (150, 3)
    binary = SVC().fit(X[50:], names[50:])
    assert binary.decision_function(X).shape == (150,)
    assert list(binary.classes_) == ["versicolor", "virginica"]


def test_ovr_prediction_is_the_argmax_with_break_ties():
    X, y = _scaled(load_wine)
    clf = SVC(break_ties=True).fit(X, y)
    best = np.argmax(clf.decision_function(X), axis=1)
    np.testing.assert_array_equal(clf.predict(X), best)


def test_precomputed_and_callable_kernels_match_named(cancer):
    X, y = cancer
    named = SVC(kernel="rbf", gamma=0.05).fit(X, y)
    pre = SVC(kernel="precomputed").fit(rbf_kernel(X, gamma=0.05), y)
    call = SVC(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.05)).fit(X, y)
    X_test = X[:40] + 0.1
    d = named.decision_function(X_test)
    K_test = rbf_kernel(X_test, X, gamma=0.05)
    np.testing.assert_allclose(pre.decision_function(K_test), d, atol=1e-6)
    np.testing.assert_allclose(call.decision_function(X_test), d, atol=1e-6)
    assert pre.support_vectors_.shape == (0, 0)


def test_parallel_pairs_match_serial():
    X, y = _scaled(load_wine)
    serial = SVC(n_jobs=1).fit(X, y)
    threads = SVC(n_jobs=2).fit(X, y)
    np.testing.assert_allclose(threads.dual_coef_, serial.dual_coef_, atol=1e-8)
    np.testing.assert_array_equal(threads.n_iter_, serial.n_iter_)


def test_max_iter_warns():
    X, y = _scaled(load_wine)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = SVC(max_iter=2).fit(X, y)
    assert clf.fit_status_ == 1
    assert SVC().fit(X, y).fit_status_ == 0


def test_coef_only_for_linear_kernel(cancer):
    X, y = cancer
    with pytest.raises(AttributeError, match="linear kernel"):
        SVC().fit(X, y).coef_


@pytest.mark.parametrize(
    "X, y, params, match",
    [
        ([[0.0, np.nan], [1.0, 1.0]], [0, 1], {}, "NaN"),
        ([[0.0, np.inf], [1.0, 1.0]], [0, 1], {}, "infinity"),
        (np.zeros((2, 2, 2)), [0, 1], {}, "dim"),
        ([[0.0], [1.0], [2.0]], [0, 1], {}, "inconsistent"),
        ([[0.0], [1.0]], [1, 1], {}, "class"),
        ([[0.0], [1.0]], [0, 1], {"C": -1.0}, "'C' parameter"),
        ([[0.0], [1.0]], [0, 1], {"kernel": "laplace"}, "'kernel' parameter"),
        ([[0.0], [1.0]], [0, 1], {"gamma": "big"}, "'gamma' parameter"),
        (np.ones((2, 3)), [0, 1], {"kernel": "precomputed"}, "square"),
    ],
)
def test_bad_input(X, y, params, match):
    with pytest.raises(ValueError, match=match):
        SVC(**params).fit(X, y)


def test_bad_input_at_predict_and_weights():
    X, y = _scaled(load_iris)
    with pytest.raises(ValueError, match="zero"):
        SVC().fit(X, y, sample_weight=np.zeros(len(y)))
    clf = SVC(decision_function_shape="ovo", break_ties=True).fit(X, y)
    with pytest.raises(ValueError, match="break_ties"):
        clf.predict(X)
    with pytest.raises(ValueError, match="features"):
        SVC().fit(X, y).predict(X[:, :2])
    pre = SVC(kernel="precomputed").fit(X @ X.T, y)
    with pytest.raises(ValueError, match="150"):
        pre.predict(X @ X[:10].T)


@pytest.mark.parametrize("transform", [lambda X: X * 1e300, lambda X: X * 1e-300,
                                       lambda X: X + 1e8],
                         ids=["1e300", "1e-300", "offset"])
def test_rbf_model_does_not_depend_on_units_or_offset(transform):
    # Issue 23: X * 1e300 overflowed gamma="scale" (answers at chance level),
    # X + 1e8 lost every digit of ||x - z||² to cancellation. The solver now
    # sees (X - mean) / unit with gamma * unit²: the same kernel values.
    # (tol=1e-8: SMO stops at its KKT tolerance, and rounding in other
    # coordinates takes another path to the same optimum.)
    X, y = load_iris(return_X_y=True)
    clean = SVC(tol=1e-8).fit(X, y)
    moved = SVC(tol=1e-8).fit(transform(X), y)
    np.testing.assert_array_equal(moved.support_, clean.support_)
    np.testing.assert_allclose(moved.dual_coef_, clean.dual_coef_, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(moved.decision_function(transform(X)),
                               clean.decision_function(X), rtol=1e-5, atol=1e-7)


def test_linear_kernel_offset_and_overflow():
    # Centring leaves the linear dual unchanged (sum a_i y_i = 0) and keeps
    # the digits of X + 1e8; X * 1e300 overflows x.x and is refused clearly.
    X, y = load_iris(return_X_y=True)
    clean = SVC(kernel="linear", tol=1e-8).fit(X, y)
    moved = SVC(kernel="linear", tol=1e-8).fit(X + 1e8, y)
    np.testing.assert_array_equal(moved.predict(X + 1e8), clean.predict(X))
    # clean iris is solved uncentred since issue 21 (near the origin), the
    # moved copy centred: the two fits stop at different points within tol
    # (measured: coef_ 2.5e-5 apart)
    np.testing.assert_allclose(moved.coef_, clean.coef_, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(moved.intercept_, clean.intercept_ - clean.coef_.sum(1) * 1e8,
                               rtol=1e-5)
    with pytest.raises(ValueError, match="overflows float64.*Rescale X"):
        SVC(kernel="linear").fit(X * 1e300, y)
