"""Tests of skml.metrics.pairwise against scikit-learn and the notes' properties
(notes A §1.5-1.6, notes B §5.8, catalogue B §16 item 12)."""

import functools

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics.pairwise as sk
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal

from skml.metrics import pairwise as pw
from skml.metrics._pairwise_helpers import chunk_rows
from tests import _data

KERNELS = ["linear", "poly", "polynomial", "rbf", "sigmoid", "laplacian", "chi2",
           "additive_chi2", "cosine"]
TOL = dict(rtol=1e-10, atol=1e-10)


# Data: the real sets from tests/_data.load, where iris has duplicated rows
# (zero distances off the diagonal) and wine has unscaled features up to
# ~1700, where the norm expansion cancels most; or random normal points.
def _random(n=60, d=5, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).normal(size=(n, d)).astype(dtype)


def samples(min_n=2, max_n=10, max_d=4, bound=5.0):
    shapes = st.tuples(st.integers(min_n, max_n), st.integers(1, max_d))
    values = st.floats(-bound, bound, allow_nan=False, width=64)
    return shapes.flatmap(lambda shape: arrays(np.float64, shape, elements=values))


# --- parity with scikit-learn ------------------------------------------------


@pytest.mark.parametrize("data", ["iris", "wine", "random"])
@pytest.mark.parametrize("metric", KERNELS)
def test_kernels_match_sklearn(data, metric):
    X = _random() if data == "random" else _data.load(data)[0]
    if metric in ("chi2", "additive_chi2"):  # histogram kernels: non-negative data
        X = np.abs(X)
    Y = X[::7] + 0.25
    assert_allclose(
        pw.pairwise_kernels(X, Y, metric=metric),
        sk.pairwise_kernels(X, Y, metric=metric),
        **TOL,
    )
    assert_allclose(
        pw.pairwise_kernels(X, metric=metric),
        sk.pairwise_kernels(X, metric=metric),
        **TOL,
    )


@pytest.mark.parametrize(
    "name, params",
    [
        ("linear_kernel", {}),
        ("polynomial_kernel", dict(degree=2, gamma=0.3, coef0=0.5)),
        ("polynomial_kernel", dict(degree=4.5, gamma=None, coef0=2)),
        ("rbf_kernel", dict(gamma=0.7)),
        ("rbf_kernel", dict(gamma=0.0)),
        ("sigmoid_kernel", dict(gamma=0.1, coef0=-0.5)),
        ("laplacian_kernel", dict(gamma=0.2)),
        ("chi2_kernel", dict(gamma=0.4)),
        ("chi2_kernel", {}),
        ("additive_chi2_kernel", {}),
        ("cosine_similarity", {}),
    ],
)
def test_kernel_functions_match_sklearn(name, params):
    non_negative = name in ("polynomial_kernel", "chi2_kernel", "additive_chi2_kernel")
    X = np.abs(_random(40, 3)) if non_negative else _random(40, 3)
    Y = X[:15] * 0.5
    ours, theirs = getattr(pw, name), getattr(sk, name)
    assert_allclose(ours(X, Y, **params), theirs(X, Y, **params), **TOL)
    assert_allclose(ours(X, **params), theirs(X, **params), **TOL)


@pytest.mark.parametrize("data", ["iris", "wine"])
@pytest.mark.parametrize("squared", [False, True])
def test_euclidean_distances_match_sklearn(data, squared):
    X = _data.load(data)[0]
    Y = X[::5] + 0.5
    assert_allclose(
        pw.euclidean_distances(X, Y, squared=squared),
        sk.euclidean_distances(X, Y, squared=squared),
        **TOL,
    )
    ours = pw.euclidean_distances(X, squared=squared)
    assert_allclose(ours, sk.euclidean_distances(X, squared=squared), **TOL)
    assert_array_equal(np.diag(ours), 0.0)
    # Passing the same object as Y means X is Y too.
    assert_array_equal(np.diag(pw.euclidean_distances(X, X, squared=squared)), 0.0)


@pytest.mark.parametrize("shape", ["flat", "column", "row"])
def test_euclidean_distances_with_given_norms(shape):
    X, Y = _random(30, 4, seed=1), _random(20, 4, seed=2)
    XX, YY = (X**2).sum(axis=1), (Y**2).sum(axis=1)
    def reshape(a):
        return {"flat": a, "column": a[:, None], "row": a[None]}[shape]

    kw = dict(X_norm_squared=reshape(XX), Y_norm_squared=reshape(YY))
    expected = sk.euclidean_distances(X, Y, **kw)
    assert_allclose(pw.euclidean_distances(X, Y, **kw), expected, **TOL)
    squared = pw.euclidean_distances(X, Y, **kw, squared=True)
    assert_allclose(squared, expected**2, rtol=1e-12)


def test_euclidean_distances_use_float64_norms_and_ignore_float32_norms():
    X, Y = _random(10, 3), _random(8, 3, seed=3)
    wrong = np.full(10, 100.0)
    # float64 norms are trusted (so wrong ones change the result) ...
    assert not np.allclose(
        pw.euclidean_distances(X, Y, X_norm_squared=wrong), pw.euclidean_distances(X, Y)
    )
    # ... float32 norms are recomputed in float64, as scikit-learn does.
    assert_array_equal(
        pw.euclidean_distances(X, Y, X_norm_squared=wrong.astype(np.float32)),
        pw.euclidean_distances(X, Y),
    )


@pytest.mark.parametrize("same", [True, False])
def test_euclidean_distances_float32(same):
    X = _random(300, 6, dtype=np.float32) * 100 + 1000
    Y = None if same else _random(50, 6, seed=4, dtype=np.float32) * 100 + 1000
    ours = pw.euclidean_distances(X, Y)
    assert ours.dtype == np.float32
    assert_allclose(ours, sk.euclidean_distances(X, Y), rtol=1e-6, atol=1e-4)
    # The float64 upcast keeps float32 accuracy despite the large offset
    # (a float32 expansion would be off by ~1e3 * sqrt(eps32) ~ 0.3).
    exact = sk.euclidean_distances(
        X.astype(np.float64), None if same else Y.astype(np.float64)
    )
    assert_allclose(ours, exact, rtol=1e-6, atol=1e-3)
    if same:
        assert_array_equal(np.diag(ours), 0.0)


def test_mixed_float32_float64_gives_float64():
    X32, Y64 = _random(10, 3, dtype=np.float32), _random(5, 3)
    for func in (pw.euclidean_distances, pw.rbf_kernel, pw.linear_kernel):
        assert func(X32, Y64).dtype == np.float64
        assert func(X32).dtype == np.float32
    assert pw.laplacian_kernel(X32).dtype == np.float32


def test_sparse_input_matches_sklearn():
    X = sp.random(80, 30, density=0.2, format="csr", random_state=0)
    Y = sp.random(25, 30, density=0.3, format="csr", random_state=1)
    for name in ["linear_kernel", "polynomial_kernel", "rbf_kernel", "sigmoid_kernel"]:
        for A, B in [(X, Y), (X, None), (X, Y.toarray()), (X.toarray(), Y)]:
            assert_allclose(getattr(pw, name)(A, B), getattr(sk, name)(A, B), **TOL)
    assert_allclose(
        pw.euclidean_distances(X, Y, squared=True),
        sk.euclidean_distances(X, Y, squared=True),
        **TOL,
    )
    assert_array_equal(np.diag(pw.euclidean_distances(X)), 0.0)
    K = pw.linear_kernel(X, Y, dense_output=False)
    assert sp.issparse(K)
    assert_allclose(K.toarray(), (X @ Y.T).toarray())
    # A float32 sparse matrix is upcast like a dense one.
    X32 = X.astype(np.float32)
    assert_allclose(
        pw.euclidean_distances(X32, squared=True),
        sk.euclidean_distances(X32, squared=True),
        rtol=1e-6,
        atol=1e-6,
    )


def test_sparse_laplacian_is_a_clear_type_error():
    X = sp.random(5, 3, density=0.5, format="csr", random_state=0)
    with pytest.raises(TypeError, match="sparse"):
        pw.laplacian_kernel(X)


# --- chunking ----------------------------------------------------------------


def test_chunk_rows_is_aligned_to_64_and_respects_the_budget():
    assert chunk_rows(100, 64 * 105 * 8 / 2**20) == 64
    assert chunk_rows(1000, 1) == 128  # 131 rows fit, rounded down
    assert chunk_rows(10**6, 1e-3) == 1
    assert chunk_rows(10, 1e-6) == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("same", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_chunking_gives_the_unchunked_result(dtype, same, sparse):
    n_X, n_Y, d = 333, 100, 5
    X = _random(n_X, d, dtype=dtype)
    Y = X if same else _random(n_Y, d, seed=5, dtype=dtype)
    n_cols = Y.shape[0]
    if sparse:
        X = sp.csr_matrix(X)
        Y = X if same else sp.csr_matrix(Y)
    # Dense float64 is one in-place product whatever the budget, so there
    # the test checks that the budget changes nothing.
    full = pw.euclidean_distances(X, Y, working_memory=1e6)
    # A budget of exactly 64 rows: 6 blocks, bitwise the unchunked result.
    budget = 64 * (n_cols + d) * 8 / 2**20
    assert chunk_rows(n_cols + (d if dtype == np.float32 else 0), budget) == 64
    assert_array_equal(pw.euclidean_distances(X, Y, working_memory=budget), full)
    # One row per block (BLAS then takes another code path): equal to rounding.
    tiny = pw.euclidean_distances(X, Y, working_memory=1e-6)
    assert_allclose(tiny, full, rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-5)
    if same:
        assert_array_equal(np.diag(tiny), 0.0)


# --- kernel trick (notes A §1.5, catalogue B §16 item 12) --------------------


def _phi_affine_quadratic(x):
    # D1: phi(x) = [vec(x x^T); sqrt(2) x; 1] so <phi(x), phi(z)> = (<x,z> + 1)^2.
    return np.concatenate([np.outer(x, x).ravel(), np.sqrt(2) * x, [1.0]])


def _phi_homogeneous_quadratic(x):
    # D4: phi(x) = (x1^2, sqrt(2) x1 x2, x2^2) so <phi(x), phi(z)> = (x.z)^2.
    return np.array([x[0] ** 2, np.sqrt(2) * x[0] * x[1], x[1] ** 2])


@given(samples(min_n=1, max_n=6, max_d=4))
def test_kernel_trick_affine_quadratic(X):
    Phi = np.array([_phi_affine_quadratic(x) for x in X])
    K = pw.polynomial_kernel(X, degree=2, gamma=1, coef0=1)
    assert_allclose(K, Phi @ Phi.T, rtol=1e-9, atol=1e-9)


@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.just(2)),
              elements=st.floats(-5, 5, allow_nan=False)))
def test_kernel_trick_homogeneous_quadratic(X):
    Phi = np.array([_phi_homogeneous_quadratic(x) for x in X])
    K = pw.polynomial_kernel(X, degree=2, gamma=1, coef0=0)
    assert_allclose(K, Phi @ Phi.T, rtol=1e-9, atol=1e-9)


# --- the notes' Laplace and Gaussian conventions -------------------------------


@pytest.mark.parametrize("gamma", [None, 0.3, 2.0])
def test_l2_laplacian_matches_a_direct_computation(gamma):
    X, Y = _random(12, 3), _random(7, 3, seed=6)
    g = 1 / 3 if gamma is None else gamma
    direct = np.array(
        [[np.exp(-g * np.sqrt(np.sum((x - y) ** 2))) for y in Y] for x in X]
    )
    K_l2 = pw.laplacian_kernel(X, Y, gamma=gamma, norm="l2")
    assert_allclose(K_l2, direct, rtol=1e-13)
    direct_l1 = np.array([[np.exp(-g * np.sum(np.abs(x - y))) for y in Y] for x in X])
    assert_allclose(pw.laplacian_kernel(X, Y, gamma=gamma), direct_l1, rtol=1e-13)
    K = pw.laplacian_kernel(X, gamma=gamma, norm="l2")
    assert_array_equal(np.diag(K), 1.0)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_gamma_from_sigma_reproduces_the_notes_gaussians(sigma):
    X, Y = _random(9, 2), _random(4, 2, seed=7)
    D2 = np.array([[np.sum((x - y) ** 2) for y in Y] for x in X])
    d1 = pw.rbf_kernel(X, Y, gamma=pw.gamma_from_sigma(sigma, convention="D1"))
    d3 = pw.rbf_kernel(X, Y, gamma=pw.gamma_from_sigma(sigma, convention="D3"))
    assert_allclose(d1, np.exp(-D2 / sigma), rtol=1e-12)
    assert_allclose(d3, np.exp(-D2 / (2 * sigma**2)), rtol=1e-12)


def test_gamma_from_sigma_rejects_bad_values():
    with pytest.raises(ValueError, match="sigma"):
        pw.gamma_from_sigma(0.0)
    with pytest.raises(ValueError, match="convention"):
        pw.gamma_from_sigma(1.0, convention="D4")


@given(samples(max_n=8), st.floats(0.01, 10))
def test_rbf_kernel_is_one_on_the_diagonal_and_in_unit_interval(X, gamma):
    K = pw.rbf_kernel(X, gamma=gamma)
    assert_array_equal(np.diag(K), 1.0)
    assert np.all((K >= 0) & (K <= 1))


# --- Mercer check (notes A §1.6) -----------------------------------------------


@given(
    samples(max_n=12),
    st.sampled_from(
        [
            ("rbf", dict(gamma=0.5)),
            ("rbf", dict(gamma=10.0)),
            ("poly", dict(degree=3, gamma=0.5, coef0=1.0)),
            ("poly", dict(degree=2, gamma=1.0, coef0=0.0)),
            ("linear", {}),
            ("laplacian", dict(gamma=0.5)),
            ("laplacian", dict(gamma=0.5, norm="l2")),
        ]
    ),
)
def test_mercer_kernels_are_valid(X, kernel):
    name, params = kernel
    assert pw.is_valid_kernel(name, X, **params)
    assert pw.is_valid_kernel(pw.pairwise_kernels(X, metric=name, **params))


@given(samples(max_n=10))
def test_negative_squared_distance_is_not_a_kernel(X):
    assume(np.ptp(X, axis=0).max() > 1e-3)  # at least two distinct points

    def neg_sq_dist(A, B):
        return -pw.euclidean_distances(A, B, squared=True)

    assert not pw.is_valid_kernel(neg_sq_dist, X)


@given(samples(max_n=10, bound=2.0))
def test_sigmoid_kernel_with_negative_offset_is_not_a_kernel(X):
    # tanh(<x,x> - 1) < 0 on the diagonal for a point inside the unit ball.
    X = np.vstack([X, np.full((1, X.shape[1]), 0.1)])
    assert not pw.is_valid_kernel("sigmoid", X, gamma=1.0, coef0=-1.0)


def test_sigmoid_kernel_indefinite_with_positive_diagonal():
    # D4's tanh(x.z) on x = 1, 2: the diagonal is positive but
    # det = tanh(1) tanh(4) - tanh(2)^2 < 0.
    X = np.array([[1.0], [2.0]])
    K = pw.sigmoid_kernel(X, gamma=1.0, coef0=0.0)
    assert np.all(np.diag(K) > 0)
    assert np.linalg.det(K) < 0
    assert not pw.is_valid_kernel(K)
    assert not pw.is_valid_kernel("sigmoid", X, gamma=1.0, coef0=0.0)


def test_is_valid_kernel_on_matrices():
    assert pw.is_valid_kernel(np.eye(3))
    assert pw.is_valid_kernel(np.zeros((2, 2)))
    assert not pw.is_valid_kernel(np.array([[1.0, 0.5], [0.4, 1.0]]))  # asymmetric
    assert not pw.is_valid_kernel(np.array([[1.0, 2.0], [2.0, 1.0]]))  # eig -1
    # Rounding-level negative eigenvalues pass; larger ones do not.
    assert pw.is_valid_kernel(np.diag([1.0, -1e-12]))
    assert not pw.is_valid_kernel(np.diag([1.0, -1e-6]))
    assert not pw.is_valid_kernel(np.diag([1.0, -1e-6]), tol=1e-8)
    assert pw.is_valid_kernel(np.diag([1.0, -1e-6]), tol=1e-5)
    assert pw.is_valid_kernel(sp.eye(4, format="csr"))


def test_is_valid_kernel_errors():
    with pytest.raises(ValueError, match="square"):
        pw.is_valid_kernel(np.ones((2, 3)))
    with pytest.raises(ValueError, match="needs the sample X"):
        pw.is_valid_kernel("rbf")
    with pytest.raises(ValueError, match="samples"):
        pw.is_valid_kernel(np.eye(3), np.ones((4, 2)))
    with pytest.raises(TypeError, match="precomputed"):
        pw.is_valid_kernel(np.eye(3), gamma=1.0)
    with pytest.raises(ValueError, match="NaN"):
        pw.is_valid_kernel(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    with pytest.raises(ValueError, match="tol"):
        pw.is_valid_kernel(np.eye(2), tol=-1.0)


# --- metric properties of euclidean_distances ----------------------------------


@given(samples(min_n=1, max_n=10, bound=100.0))
def test_euclidean_distances_are_a_metric(X):
    D = pw.euclidean_distances(X)
    # The expansion's rounding error on an (unsquared) distance is about
    # sqrt(eps) * ||x||.
    tol = 1e-6 * (1.0 + np.abs(X).max() * np.sqrt(X.shape[1]))
    assert np.all(D >= 0)
    assert_array_equal(np.diag(D), 0.0)
    assert_allclose(D, D.T, atol=tol)
    # Triangle inequality for every triple (i, k, j).
    assert np.all(D[:, None, :] <= D[:, :, None] + D[None, :, :] + tol)


@given(samples(min_n=1, max_n=8, bound=100.0), samples(min_n=1, max_n=8, bound=100.0))
def test_euclidean_distances_between_sets_match_direct_norms(X, Y):
    assume(X.shape[1] == Y.shape[1])
    D = pw.euclidean_distances(X, Y)
    direct = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=-1))
    tol = 1e-6 * (1.0 + max(np.abs(X).max(), np.abs(Y).max()) * np.sqrt(X.shape[1]))
    assert_allclose(D, direct, atol=tol)


# --- pairwise_kernels ----------------------------------------------------------


def test_kernel_registry():
    assert set(pw.PAIRWISE_KERNEL_FUNCTIONS) == set(KERNELS)
    assert set(pw.KERNEL_PARAMS) == set(KERNELS)
    assert pw.PAIRWISE_KERNEL_FUNCTIONS["poly"] is pw.polynomial_kernel


def test_pairwise_kernels_passes_parameters_and_filters():
    X = _random(20, 3)
    assert_allclose(
        pw.pairwise_kernels(X, metric="laplacian", gamma=0.5, norm="l2"),
        pw.laplacian_kernel(X, gamma=0.5, norm="l2"),
    )
    with pytest.raises(TypeError, match="degree"):
        pw.pairwise_kernels(X, metric="rbf", gamma=0.5, degree=3)
    assert_allclose(
        pw.pairwise_kernels(X, metric="rbf", gamma=0.5, degree=3, filter_params=True),
        sk.rbf_kernel(X, gamma=0.5),
        **TOL,
    )


def test_pairwise_kernels_callable_matches_sklearn():
    X, Y = _random(15, 3), _random(6, 3, seed=8)

    def k(x, y, scale=1.0):
        return scale * np.exp(-np.abs(x - y).sum()) + x @ y

    for B in (None, Y):
        assert_allclose(
            pw.pairwise_kernels(X, B, metric=k, scale=2.0),
            sk.pairwise_kernels(X, B, metric=k, scale=2.0),
            **TOL,
        )
    # The module's own matrix functions are called once on the whole arrays.
    assert_allclose(
        pw.pairwise_kernels(X, Y, metric=pw.rbf_kernel, gamma=0.3),
        sk.rbf_kernel(X, Y, gamma=0.3),
        **TOL,
    )


@pytest.mark.parametrize("metric", ["rbf", "laplacian", "poly", "callable"])
@pytest.mark.parametrize("same", [True, False])
def test_pairwise_kernels_n_jobs(metric, same):
    X = _random(41, 3)
    Y = None if same else _random(13, 3, seed=9)
    if metric == "callable":
        metric = lambda x, y: float(np.tanh(x @ y))  # noqa: E731
    serial = pw.pairwise_kernels(X, Y, metric=metric)
    parallel = pw.pairwise_kernels(X, Y, metric=metric, n_jobs=2)
    assert_allclose(parallel, serial, rtol=1e-14, atol=1e-14)
    if same and metric == "rbf":
        assert_array_equal(np.diag(parallel), 1.0)


@pytest.mark.parametrize("metric", ["rbf", "callable"])
def test_pairwise_kernels_n_jobs_under_a_process_backend(metric):
    # The threads fill one output array: a process backend activated by the
    # user must not send them to other processes (zeros, issue 19).
    X = _random(23, 3)
    if metric == "callable":
        metric = lambda x, y: float(np.tanh(x @ y))  # noqa: E731
    serial = pw.pairwise_kernels(X, metric=metric)
    with joblib.parallel_backend("loky"):
        parallel = pw.pairwise_kernels(X, metric=metric, n_jobs=2)
    assert_allclose(parallel, serial, rtol=1e-14, atol=1e-14)


def test_pairwise_kernels_precomputed():
    K = pw.rbf_kernel(_random(5, 2))
    assert_array_equal(pw.pairwise_kernels(K, metric="precomputed"), K)
    K_test = pw.pairwise_kernels(K[:2], _random(5, 2), metric="precomputed")
    assert_array_equal(K_test, K[:2])
    with pytest.raises(ValueError, match="precomputed"):
        pw.pairwise_kernels(K[:2], metric="precomputed")


def test_pairwise_kernels_bad_metric():
    X = _random(4, 2)
    with pytest.raises(ValueError, match="Unknown kernel.*'cityblock'"):
        pw.pairwise_kernels(X, metric="cityblock")
    with pytest.raises(TypeError, match="metric"):
        pw.pairwise_kernels(X, metric=3)
    with pytest.raises(ValueError, match="n_jobs"):
        pw.pairwise_kernels(X, n_jobs=1.5)
    with pytest.raises(ValueError, match="filter_params"):
        pw.pairwise_kernels(X, filter_params="yes")


# --- input validation ----------------------------------------------------------

ALL_FUNCTIONS = [
    pw.euclidean_distances,
    pw.linear_kernel,
    pw.polynomial_kernel,
    pw.rbf_kernel,
    pw.sigmoid_kernel,
    pw.laplacian_kernel,
    pw.pairwise_kernels,
]


@pytest.mark.parametrize("func", ALL_FUNCTIONS)
def test_bad_input_raises_clear_errors(func):
    X = _random(4, 3)
    for bad, message in [(np.nan, "NaN"), (np.inf, "infinity")]:
        Xb = X.copy()
        Xb[1, 2] = bad
        with pytest.raises(ValueError, match=message):
            func(Xb)
        with pytest.raises(ValueError, match=message):
            func(X, Xb)
    with pytest.raises(ValueError, match=r"\(4, 3\).*\(2, 2\)"):
        func(X, np.ones((2, 2)))
    with pytest.raises(ValueError, match="dim 3"):
        func(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="2D"):
        func(np.ones(3))
    with pytest.raises(ValueError, match="0 sample"):
        func(np.ones((0, 3)))


@pytest.mark.parametrize(
    "func, params, name",
    [
        (pw.rbf_kernel, dict(gamma=-1.0), "gamma"),
        (pw.rbf_kernel, dict(gamma="scale"), "gamma"),
        (pw.polynomial_kernel, dict(degree=0.5), "degree"),
        (pw.polynomial_kernel, dict(coef0=np.nan), "coef0"),
        (pw.sigmoid_kernel, dict(gamma=-0.1), "gamma"),
        (pw.laplacian_kernel, dict(gamma=0.0), "gamma"),
        (pw.laplacian_kernel, dict(norm="l3"), "norm"),
        (pw.linear_kernel, dict(dense_output=1), "dense_output"),
        (pw.euclidean_distances, dict(squared="no"), "squared"),
        (pw.euclidean_distances, dict(working_memory=0), "working_memory"),
    ],
)
def test_bad_parameters_name_the_parameter(func, params, name):
    with pytest.raises(ValueError, match=f"'{name}' parameter of {func.__name__}"):
        func(_random(4, 2), **params)


def test_bad_norm_shapes():
    X, Y = _random(4, 2), _random(3, 2)
    with pytest.raises(ValueError, match="X_norm_squared of shape \\(3,\\)"):
        pw.euclidean_distances(X, Y, X_norm_squared=np.ones(3))
    with pytest.raises(ValueError, match="Y_norm_squared of shape \\(2, 2\\)"):
        pw.euclidean_distances(X, Y, Y_norm_squared=np.ones((2, 2)))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_euclidean_distances_at_extreme_magnitude(factor):
    # Issue 23: ||x||² overflowed at X * 1e300 (inf and NaN distances) and
    # underflowed at X * 1e-300 (all distances 0). Distances are computed on
    # X / 2^e and scaled back: the clean ones times the factor.
    rng = np.random.RandomState(0)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    assert_allclose(pw.euclidean_distances(X * factor, Y * factor) / factor,
                    pw.euclidean_distances(X, Y), rtol=1e-12)
    D = pw.euclidean_distances(X * factor)
    assert_array_equal(np.diag(D), 0.0)
    assert_allclose(D / factor, pw.euclidean_distances(X), rtol=1e-12, atol=1e-15)


# --- kernel algebra (notes B §5.8, D1 Ch. 7 closure rules) ---------------------

_PSD_OPERANDS = [
    "linear",
    "rbf",
    functools.partial(pw.rbf_kernel, gamma=5.0),
    functools.partial(pw.polynomial_kernel, degree=2, gamma=0.5, coef0=1.0),
    functools.partial(pw.laplacian_kernel, gamma=0.7, norm="l2"),
    functools.partial(pw.laplacian_kernel, gamma=0.3, norm="l1"),
]


@given(
    samples(max_n=12),
    st.lists(st.sampled_from(_PSD_OPERANDS), min_size=1, max_size=3),
    st.sampled_from(["sum", "product"]),
    st.floats(1e-3, 1e3),
)
def test_sums_products_and_multiples_of_kernels_are_kernels(X, operands, op, c):
    # The notes' closure rules: k1 + k2, k1 k2 and c k1 (c > 0) of Mercer
    # kernels are Mercer kernels, so every Gram matrix stays symmetric PSD.
    combine = pw.kernel_sum if op == "sum" else pw.kernel_product
    k = pw.kernel_scale(combine(*operands), c)
    assert pw.is_valid_kernel(k, X)


@given(samples(max_n=8), samples(max_n=8))
def test_combined_kernels_are_the_entrywise_sum_and_product(X, Y):
    assume(X.shape[1] == Y.shape[1])
    k1 = functools.partial(pw.rbf_kernel, gamma=0.4)
    K1, K2 = k1(X, Y), pw.linear_kernel(X, Y)
    assert_allclose(pw.kernel_sum(k1, "linear")(X, Y), K1 + K2, **TOL)
    assert_allclose(pw.kernel_product(k1, "linear")(X, Y), K1 * K2, **TOL)
    assert_allclose(pw.kernel_scale(pw.kernel_sum(k1, "linear"), 3.0)(X, Y),
                    3.0 * (K1 + K2), **TOL)
    assert_allclose(pw.kernel_sum(k1)(X), k1(X, X), **TOL)  # Y=None is X


def test_kernel_algebra_takes_gaussian_process_kernels_and_pickles():
    from skml.gaussian_process.kernels import RBF

    X = _random(10, 3)
    k = pw.kernel_sum(RBF(length_scale=2.0), "linear")
    assert_allclose(k(X), RBF(length_scale=2.0)(X) + X @ X.T, **TOL)
    k2 = joblib.load(_roundtrip(pw.kernel_scale("rbf", 2.0)))
    assert_allclose(k2(X), 2.0 * pw.rbf_kernel(X), **TOL)
    assert repr(pw.kernel_product("rbf", "linear")) == "(rbf * linear)"


def _roundtrip(obj):
    import io

    buffer = io.BytesIO()
    joblib.dump(obj, buffer)
    buffer.seek(0)
    return buffer


def test_kernel_algebra_rejects_bad_operands():
    with pytest.raises(ValueError, match="at least one kernel"):
        pw.kernel_sum()
    with pytest.raises(ValueError, match="unknown kernel name 'rbff'"):
        pw.kernel_product("rbf", "rbff")
    with pytest.raises(TypeError, match="must be a name or a callable"):
        pw.kernel_sum("rbf", 3.0)
    for c in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="c"):
            pw.kernel_scale("rbf", c)
    bad = pw.kernel_sum("linear", lambda A, B: np.ones((1, 1)))
    with pytest.raises(ValueError, match="different shapes"):
        bad(_random(4, 2))


def test_svc_with_a_combined_kernel_is_svc_on_its_gram_matrix():
    from skml.svm import SVC

    X, y = _random(60, 3), np.arange(60) % 2
    X[y == 1] += 1.0
    k = pw.kernel_sum(functools.partial(pw.rbf_kernel, gamma=0.5), "linear")
    a = SVC(kernel=k).fit(X, y)
    b = SVC(kernel="precomputed").fit(k(X), y)
    assert_allclose(a.dual_coef_, b.dual_coef_, rtol=1e-8, atol=1e-10)
    assert_allclose(a.decision_function(X[:7]), b.decision_function(k(X[:7], X)),
                    rtol=1e-8, atol=1e-10)


# --- the chi-squared and cosine kernels ----------------------------------------


@given(samples(min_n=1, max_n=6, max_d=4))
def test_chi2_kernel_is_a_valid_kernel_on_non_negative_data(X):
    # exp(-gamma chi2) is positive definite on non-negative data (Hein and
    # Bousquet 2005): its Gram matrix is PSD, with ones on the diagonal.
    X = np.abs(X)
    K = pw.chi2_kernel(X, gamma=0.5)
    assert_allclose(np.diag(K), 1.0)
    assert np.linalg.eigvalsh((K + K.T) / 2).min() >= -1e-9
    A = pw.additive_chi2_kernel(X)
    assert np.all(A <= 0) and np.allclose(np.diag(A), 0.0)
    assert_allclose(K, np.exp(0.5 * A), rtol=1e-12)


@given(samples(min_n=1, max_n=6, max_d=4))
def test_cosine_similarity_is_the_linear_kernel_of_unit_rows(X):
    K = pw.cosine_similarity(X)
    # the reference's rows divided by their largest entry first: the squares
    # of subnormal entries would underflow (a direction, not a zero row)
    top = np.abs(X).max(axis=1, keepdims=True)
    Xs = X / np.where(top > 0, top, 1.0)
    norms = np.linalg.norm(Xs, axis=1)
    U = Xs / np.where(norms > 0, norms, 1.0)[:, None]
    assert_allclose(K, U @ U.T, rtol=1e-12, atol=1e-12)
    assert np.all(np.abs(K) <= 1 + 1e-12)
    assert_allclose(pw.cosine_similarity(sp.csr_matrix(X)), K, rtol=1e-12, atol=1e-12)
    # the shared unit_rows rescales data whose squares overflow or underflow
    # (entries the scaling itself would flush to zero are left out)
    if np.all((X == 0) | (np.abs(X) > 1e-100)):
        for scale in (1e200, 1e-200):
            assert_allclose(pw.cosine_similarity(X * scale), K, rtol=1e-12, atol=1e-12)


def test_chi2_kernels_refuse_negative_and_sparse_input():
    X = np.abs(_random(5, 3))
    with pytest.raises(ValueError, match="X contains negative values"):
        pw.chi2_kernel(-X)
    with pytest.raises(ValueError, match="Y contains negative values"):
        pw.additive_chi2_kernel(X, -X)
    with pytest.raises(TypeError, match="sparse"):
        pw.chi2_kernel(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="gamma"):
        pw.chi2_kernel(X, gamma=-1.0)


def test_kernel_estimators_take_the_chi2_kernel():
    from skml.kernel_ridge import KernelRidge

    X = np.abs(_random(40, 3))
    y = X.sum(axis=1)
    # gamma=None is chi2_kernel's own default (scikit-learn's KernelRidge
    # crashes on it).
    a = KernelRidge(kernel="chi2").fit(X, y).predict(X[:5])
    b = KernelRidge(kernel="precomputed").fit(pw.chi2_kernel(X), y).predict(
        pw.chi2_kernel(X[:5], X))
    assert_allclose(a, b, rtol=1e-10)
