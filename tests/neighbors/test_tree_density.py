"""kernel_density and two_point_correlation of KDTree and BallTree."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk
from sklearn.datasets import load_wine

from skml.neighbors import BallTree, KDTree
from skml.neighbors._tree_density import log_kernel_norm

KERNELS = ["gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"]
TREES = [(KDTree, sk.KDTree), (BallTree, sk.BallTree)]


def _kernel(u, kernel):
    inside = u < 1
    return {
        "gaussian": np.exp(-0.5 * u * u),
        "tophat": inside * 1.0,
        "epanechnikov": inside * (1 - u * u),
        "exponential": np.exp(-u),
        "linear": inside * (1 - u),
        "cosine": inside * np.cos(0.5 * np.pi * np.minimum(u, 1)),
    }[kernel]


def _brute_density(X, Q, h, kernel, metric="euclidean"):
    D = cdist(Q, X, metric)
    return _kernel(D / h, kernel).sum(1) / np.exp(log_kernel_norm(h, X.shape[1], kernel))


@pytest.fixture(scope="module")
def wine():
    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X[:, :3], X[::5, :3] + 0.1


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("trees", TREES, ids=["kd", "ball"])
def test_kernel_density_equals_scikit_learn_and_brute_force(wine, kernel, trees):
    X, Q = wine
    ours, ref = trees[0](X, leaf_size=5), trees[1](X, leaf_size=5)
    for h in [0.3, 1.0, 3.0]:
        exact = _brute_density(X, Q, h, kernel)
        got = ours.kernel_density(Q, h, kernel=kernel, rtol=0)
        assert_allclose(got, exact, rtol=1e-12, atol=1e-300)
        theirs = ref.kernel_density(Q, h, kernel=kernel, rtol=1e-10)
        assert_allclose(got, theirs, rtol=1e-9)
        log = ours.kernel_density(Q, h, kernel=kernel, rtol=0, return_log=True)
        with np.errstate(divide="ignore"):
            assert_allclose(log, np.log(exact), rtol=1e-12)


@pytest.mark.parametrize("trees", TREES, ids=["kd", "ball"])
@pytest.mark.parametrize("kernel", ["gaussian", "exponential", "epanechnikov"])
def test_tolerances_bound_the_error(wine, trees, kernel):
    # |K - K_true| <= atol + rtol * K, the contract of scikit-learn's method.
    X, Q = wine
    tree = trees[0](X, leaf_size=3)
    exact = _brute_density(X, Q, 0.8, kernel)
    for atol, rtol in [(0, 1e-2), (0, 1e-5), (1e-3, 0), (1e-4, 1e-3)]:
        got = tree.kernel_density(Q, 0.8, kernel=kernel, atol=atol, rtol=rtol)
        assert np.all(np.abs(got - exact) <= atol + rtol * got + 1e-15)


def test_normalisation_integrates_to_one():
    # A single point's density integrates to 1 over the plane, for each kernel.
    tree = KDTree(np.zeros((1, 2)))
    for kernel in KERNELS:
        def radial(r):
            return 2 * np.pi * r * tree.kernel_density([[r, 0.0]], 0.7, kernel=kernel,
                                                       rtol=0)[0]
        total, _ = integrate.quad(radial, 0, 30, limit=200, points=[0.7])
        assert total == pytest.approx(1.0, rel=1e-6), kernel
    # and in 5 dimensions the normalisers are scikit-learn's
    X = np.random.RandomState(0).normal(size=(50, 5))
    for kernel in KERNELS:
        assert_allclose(KDTree(X).kernel_density(X[:3], 1.5, kernel=kernel, rtol=0),
                        sk.KDTree(X).kernel_density(X[:3], 1.5, kernel=kernel, rtol=0),
                        rtol=1e-10)


def test_cosine_normaliser_in_even_dimensions():
    # scikit-learn 1.9's cosine normaliser is off in even dimensions (in 2-D
    # its density integrates to about 0.36, in 4-D it is nan); ours is the
    # integral of the kernel, in every dimension (see the test above).
    for d in [2, 4, 6]:
        X = np.random.RandomState(d).normal(size=(40, d))
        got = BallTree(X).kernel_density(X[:5], 1.5, kernel="cosine", rtol=0)
        assert_allclose(got, _brute_density(X, X[:5], 1.5, "cosine"), rtol=1e-12)
        assert np.all(np.isfinite(got))


def test_narrow_gaussian_log_density_stays_finite():
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(100, 3)), rng.normal(size=(5, 3))
    log = BallTree(X).kernel_density(Q, 1e-3, return_log=True)
    d = cdist(Q, X)
    # the nearest point dominates: log K = -d_min² / (2 h²) - log Z
    expect = -0.5 * (d.min(1) / 1e-3) ** 2 - log_kernel_norm(1e-3, 3, "gaussian")
    assert np.all(np.isfinite(log))
    assert_allclose(log, expect, rtol=1e-9)
    assert np.all(BallTree(X).kernel_density(Q, 1e-3) == 0.0)


def test_other_metric_density_uses_the_tree_metric():
    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    got = BallTree(X, metric="manhattan").kernel_density(X[:10], 2.0, "epanechnikov",
                                                         rtol=0)
    assert_allclose(got, _brute_density(X, X[:10], 2.0, "epanechnikov", "cityblock"),
                    rtol=1e-12)
    ref = sk.BallTree(X, metric="manhattan").kernel_density(X[:10], 2.0, "epanechnikov")
    assert_allclose(got, ref, rtol=1e-7)


@pytest.mark.parametrize("trees", TREES, ids=["kd", "ball"])
@pytest.mark.parametrize("p", [1, 2, np.inf])
def test_two_point_correlation_equals_scikit_learn(wine, trees, p):
    X, Q = wine
    r = np.linspace(0, 4, 9)
    ours = trees[0](X, leaf_size=4, p=p).two_point_correlation(Q, r)
    ref = trees[1](X, leaf_size=4, p=p).two_point_correlation(Q, r)
    assert_array_equal(ours, ref)
    # an unsorted 2-d r comes back in its shape
    r2 = r[::-1].reshape(3, 3)
    assert_array_equal(trees[0](X, p=p).two_point_correlation(Q, r2, dualtree=True),
                       ours[::-1].reshape(3, 3))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), leaf_size=st.integers(1, 8),
       r=st.lists(st.integers(-1, 6), min_size=1, max_size=5),
       ball=st.booleans(), seed=st.integers(0, 1000))
def test_two_point_counts_pairs_on_a_grid(n, leaf_size, r, ball, seed):
    # Integer grid points: distances hit the integer radii exactly (inclusive).
    rng = np.random.RandomState(seed)
    X = rng.randint(-3, 4, size=(n, 2)).astype(float)
    tree = (BallTree if ball else KDTree)(X, leaf_size=leaf_size, metric="manhattan")
    counts = tree.two_point_correlation(X[:10], np.array(r, dtype=float))
    D = cdist(X[:10], X, "cityblock")
    assert_array_equal(counts, [(D <= v).sum() for v in r])


def test_errors():
    tree = KDTree(np.random.RandomState(0).normal(size=(10, 2)))
    with pytest.raises(ValueError, match="h"):
        tree.kernel_density([[0.0, 0.0]], 0.0)
    with pytest.raises(ValueError, match="kernel"):
        tree.kernel_density([[0.0, 0.0]], 1.0, kernel="box")
    with pytest.raises(ValueError, match="rtol"):
        tree.kernel_density([[0.0, 0.0]], 1.0, rtol=-1)
    with pytest.raises(ValueError, match="dimension"):
        tree.kernel_density([[0.0, 0.0, 1.0]], 1.0)
    with pytest.raises(ValueError, match="NaN"):
        tree.two_point_correlation([[0.0, 0.0]], [np.nan])
