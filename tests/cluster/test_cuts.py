"""Public similarity graphs and cuts (notes A §7.3): definitions and the lemma."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist

from skml.cluster import (
    cut,
    graph_laplacian,
    normalized_cut,
    ratio_cut,
    similarity_graph,
)


def _random_graph(seed, n, density):
    rng = np.random.RandomState(seed)
    W = rng.uniform(0.1, 2.0, size=(n, n)) * (rng.uniform(size=(n, n)) < density)
    W = np.triu(W, 1)
    return W + W.T


cases = st.tuples(st.integers(0, 10_000), st.integers(2, 20), st.floats(0.05, 0.8),
                  st.integers(1, 5))


@settings(max_examples=60, deadline=None)
@given(case=cases)
def test_cuts_match_their_definitions_and_the_trace_lemma(case):
    seed, n, density, k = case
    W = _random_graph(seed, n, density)
    labels = np.random.RandomState(seed + 1).randint(0, k, size=n) * 7 - 3
    L = graph_laplacian(W)
    brute_cut, brute_ratio, H, Hn = 0.0, 0.0, [], []
    d = W.sum(axis=1)
    for c in np.unique(labels):
        inside = labels == c
        leaving = W[np.ix_(inside, ~inside)].sum()
        brute_cut += leaving
        brute_ratio += leaving / inside.sum()
        H.append(inside / np.sqrt(inside.sum()))
        vol = d[inside].sum()
        Hn.append(inside / np.sqrt(vol) if vol > 0 else np.zeros(n))
    H, Hn = np.array(H).T, np.array(Hn).T
    assert cut(W, labels) == pytest.approx(brute_cut, rel=1e-12, abs=1e-12)
    assert ratio_cut(W, labels) == pytest.approx(brute_ratio, rel=1e-12, abs=1e-12)
    # the notes' lemma: RatioCut = tr(H^T L H); and Ncut = tr(Hn^T L Hn)
    assert ratio_cut(W, labels) == pytest.approx(np.trace(H.T @ L @ H), rel=1e-10,
                                                 abs=1e-10)
    assert normalized_cut(W, labels) == pytest.approx(np.trace(Hn.T @ L @ Hn),
                                                      rel=1e-10, abs=1e-10)
    Ws = sp.csr_matrix(W)
    for f in (cut, ratio_cut, normalized_cut):
        assert f(Ws, labels) == pytest.approx(f(W, labels), rel=1e-12, abs=1e-12)


def test_the_diagonal_is_not_an_edge():
    W = np.array([[5.0, 1.0], [1.0, 5.0]])
    assert cut(W, [0, 1]) == 2.0 and ratio_cut(W, [0, 1]) == 2.0
    assert cut(W, [0, 0]) == 0.0


def test_full_graph_is_the_notes_gaussian_weights():
    X = np.random.RandomState(0).normal(size=(15, 3))
    W = similarity_graph(X, sigma=0.7)
    expected = np.exp(-cdist(X, X, "sqeuclidean") / 0.7**2)
    np.fill_diagonal(expected, 0.0)
    assert_allclose(W, expected, rtol=1e-12, atol=1e-15)


def test_knn_and_epsilon_graphs():
    X = np.random.RandomState(1).normal(size=(30, 2))
    full = similarity_graph(X, sigma=1.5)
    knn = similarity_graph(X, kind="knn", n_neighbors=4, sigma=1.5).toarray()
    mutual = similarity_graph(X, kind="knn", n_neighbors=4, sigma=1.5,
                              mutual=True).toarray()
    assert_allclose(knn, knn.T)
    assert np.all((knn > 0).sum(axis=1) >= 4)
    assert np.all((mutual > 0) <= (knn > 0))
    kept = knn > 0
    assert_allclose(knn[kept], full[kept], rtol=1e-12)
    D = cdist(X, X)
    order = np.argsort(D, axis=1)[:, 1:5]
    for i in range(30):
        assert np.all(knn[i, order[i]] > 0)
    eps = similarity_graph(X, kind="epsilon", epsilon=0.5).toarray()
    expected = (D <= 0.5).astype(float)
    np.fill_diagonal(expected, 0.0)
    assert_allclose(eps, expected)


@pytest.mark.parametrize("call, match", [
    (lambda: cut(np.eye(3), [0, 1]), "labels"),
    (lambda: ratio_cut(-np.ones((2, 2)), [0, 1]), "negative"),
    (lambda: similarity_graph(np.ones((4, 2)), kind="star"), "kind"),
    (lambda: similarity_graph(np.ones((4, 2)), sigma=0), "sigma"),
    (lambda: similarity_graph(np.ones((4, 2)), kind="epsilon"), "epsilon"),
    (lambda: similarity_graph(np.ones((4, 2)), kind="knn", n_neighbors=4),
     "n_neighbors"),
])
def test_bad_input_is_refused_clearly(call, match):
    with pytest.raises(ValueError, match=match):
        call()
