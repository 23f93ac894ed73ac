"""Explicit feature maps of notes B §1.5: the quadratic map and the XOR transform."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SKLogisticRegression

from skml.linear_model import LogisticRegression, Perceptron
from skml.preprocessing import DistanceToAnchors, QuadraticFeatureMap

from .._data import load
from .._parity import parity_test

XOR_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
XOR_Y = np.array([0, 0, 1, 1])


def test_xor_transform_worked_numbers():
    # Catalogue B §16 item 11 (notes D4): (0,0)->(0,√2), (1,1)->(√2,0),
    # (0,1)->(1,1), (1,0)->(1,1).
    r2 = np.sqrt(2.0)
    expected = np.array([[0.0, r2], [r2, 0.0], [1.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(DistanceToAnchors().fit_transform(XOR_X), expected,
                               atol=1e-15)


def test_xor_is_separable_after_the_transform_and_not_before():
    Z = DistanceToAnchors().fit_transform(XOR_X)
    clf = LogisticRegression(C=1e4).fit(Z, XOR_Y)
    assert clf.score(Z, XOR_Y) == 1.0
    # on raw XOR no linear classifier reaches 100% (notes D1's contradiction);
    # the perceptron never has a mistake-free epoch
    raw = SKLogisticRegression(C=1e4).fit(XOR_X, XOR_Y)
    assert raw.score(XOR_X, XOR_Y) < 1.0
    assert Perceptron(max_iter=50, shuffle=False).fit(Z, XOR_Y).score(Z, XOR_Y) == 1.0


@pytest.mark.parametrize("coef0", [0.0, 1.0, 2.5])
@pytest.mark.parametrize("compact", [False, True])
def test_quadratic_map_inner_products_are_the_kernel(coef0, compact):
    # Catalogue B §1.5 / §16 item 12: <phi(x), phi(z)> = (<x, z> + c)^2.
    rng = np.random.RandomState(0)
    X, Z = rng.randn(7, 4), rng.randn(5, 4)
    phi = QuadraticFeatureMap(coef0=coef0, compact=compact).fit(X)
    np.testing.assert_allclose(phi.transform(X) @ phi.transform(Z).T,
                               (X @ Z.T + coef0) ** 2, rtol=1e-12, atol=1e-12)
    d = 4
    assert phi.n_output_features_ == (d * (d + 1) // 2 if compact else d * d) + (
        d + 1 if coef0 else 0)


def test_d4_homogeneous_2d_map():
    # Notes D4: phi(x) = (x1^2, sqrt2 x1 x2, x2^2).
    x = np.array([[3.0, -2.0]])
    out = QuadraticFeatureMap(coef0=0.0, compact=True).fit_transform(x)
    np.testing.assert_allclose(out, [[9.0, -6.0 * np.sqrt(2.0), 4.0]])


def test_d1_full_map_layout():
    # Notes D1: phi = [vec(x x'); sqrt2 x; 1].
    x = np.array([[1.0, 2.0]])
    out = QuadraticFeatureMap().fit_transform(x)
    np.testing.assert_allclose(
        out, [[1.0, 2.0, 2.0, 4.0, np.sqrt(2.0), 2.0 * np.sqrt(2.0), 1.0]])


def test_distance_to_anchors_rejects_bad_anchors():
    with pytest.raises(ValueError, match="anchors"):
        DistanceToAnchors(anchors=[[0.0, 0.0, 0.0]]).fit(XOR_X)
    with pytest.raises(ValueError, match="p"):
        DistanceToAnchors(p=0.5).fit(XOR_X)


def test_distance_to_anchors_any_norm_and_magnitude():
    rng = np.random.RandomState(1)
    X, A = rng.randn(6, 3), rng.randn(2, 3)
    for p in (1, 2, 3.5):
        out = DistanceToAnchors(A, p=p).fit_transform(X)
        ref = np.array([[np.linalg.norm(x - a, ord=p) for a in A] for x in X])
        np.testing.assert_allclose(out, ref, rtol=1e-12)
        big = DistanceToAnchors(A * 1e300, p=p).fit_transform(X * 1e300)
        np.testing.assert_allclose(big, ref * 1e300, rtol=1e-12)


@parity_test(QuadraticFeatureMap)
@pytest.mark.parametrize("coef0", [0.0, 1.0, 3.0])
def test_parity_gram_matrix_is_scikit_learns_polynomial_kernel(coef0):
    # The map is the degree-2 polynomial kernel made explicit: on standardised
    # wine the Gram matrix of its features is scikit-learn's kernel.
    from sklearn.metrics.pairwise import polynomial_kernel

    X, _ = load("wine", scale=True)
    phi = QuadraticFeatureMap(coef0=coef0).fit_transform(X)
    np.testing.assert_allclose(phi @ phi.T,
                               polynomial_kernel(X, degree=2, gamma=1.0, coef0=coef0),
                               rtol=1e-10, atol=1e-9)


@parity_test(DistanceToAnchors)
@pytest.mark.parametrize("p", [1, 2])
def test_parity_with_scikit_learns_pairwise_distances_on_iris(p):
    from sklearn.metrics.pairwise import euclidean_distances, manhattan_distances

    X, y = load("iris")
    anchors = np.vstack([X[y == k].mean(axis=0) for k in range(3)])
    reference = (euclidean_distances if p == 2 else manhattan_distances)(X, anchors)
    np.testing.assert_allclose(DistanceToAnchors(anchors, p=p).fit_transform(X),
                               reference, rtol=1e-12, atol=1e-12)
