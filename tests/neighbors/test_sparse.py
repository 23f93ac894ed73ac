"""Sparse (CSR/CSC) input of the exact neighbour estimators (issue 20)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk_neighbors

from skml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

METRICS = ["euclidean", "manhattan", "cosine", "minkowski"]


def _reference_distances(A, B, metric):
    name = {"manhattan": "cityblock", "minkowski": "euclidean"}.get(metric, metric)
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    if metric == "cosine":
        # 1 - cos with a zero row at distance 1, as the estimators define it
        def unit(M):
            n = np.linalg.norm(M, axis=1)
            n[n == 0] = 1.0
            return M / n[:, None]

        return np.clip(1.0 - unit(A) @ unit(B).T, 0.0, 2.0)
    return cdist(A, B, name)


def _same_neighbours(dense, sparse, Xq, Xfit, metric, k):
    """Same distances; the indices agree up to ties (checked on true distances)."""
    (d1, i1), (d2, i2) = dense, sparse
    np.testing.assert_allclose(d2, d1, rtol=1e-9, atol=1e-9)
    D = _reference_distances(Xq, Xfit, metric)
    rows = np.arange(D.shape[0])[:, None]
    np.testing.assert_allclose(D[rows, i2], d1, rtol=1e-9, atol=1e-9)


@settings(max_examples=25)
@given(pair=sparse_pairs(), metric=st.sampled_from(METRICS),
       k=st.integers(1, 4))
def test_kneighbors_sparse_matches_dense(pair, metric, k):
    X, S = pair
    nn_d = NearestNeighbors(n_neighbors=k, metric=metric, algorithm="brute").fit(X)
    nn_s = NearestNeighbors(n_neighbors=k, metric=metric).fit(S)
    _same_neighbours(nn_d.kneighbors(X), nn_s.kneighbors(S), X, X, metric, k)
    # X=None (each point left out of its own neighbours), and mixed formats
    dense, sparse = nn_d.kneighbors(), nn_s.kneighbors()
    np.testing.assert_allclose(sparse[0], dense[0], rtol=1e-9, atol=1e-9)
    _same_neighbours(nn_d.kneighbors(S), nn_s.kneighbors(X), X, X, metric, k)


@settings(max_examples=20)
@given(pair=sparse_pairs(), metric=st.sampled_from(METRICS),
       radius=st.floats(0.0, 3.0))
def test_radius_neighbors_sparse_matches_dense(pair, metric, radius):
    X, S = pair
    G_d = NearestNeighbors(radius=radius, metric=metric).fit(X).radius_neighbors_graph(
        X, mode="distance")
    G_s = NearestNeighbors(radius=radius, metric=metric).fit(S).radius_neighbors_graph(
        S, mode="distance")
    D = _reference_distances(X, X, metric)
    # Pairs off the boundary by more than rounding must agree.
    clear = np.abs(D - radius) > 1e-9
    np.testing.assert_array_equal(_has_entry(G_s)[clear], _has_entry(G_d)[clear])
    both = _has_entry(G_s) & _has_entry(G_d)
    np.testing.assert_allclose(G_s.toarray()[both], G_d.toarray()[both],
                               rtol=1e-9, atol=1e-9)


def _has_entry(G):
    M = np.zeros(G.shape, dtype=bool)
    coo = G.tocoo()
    M[coo.row, coo.col] = True
    return M


@settings(max_examples=20)
@given(pair=sparse_pairs(min_rows=8), weights=st.sampled_from(["uniform", "distance"]),
       n_outputs=st.integers(1, 2))
def test_kneighbors_estimators_sparse_match_dense(pair, weights, n_outputs):
    X, S = pair
    rng = np.random.default_rng(X.shape[0])
    y_class = rng.integers(0, 3, size=(X.shape[0], n_outputs)).squeeze()
    y_reg = rng.normal(size=(X.shape[0], n_outputs)).squeeze()
    for Est, y in ((KNeighborsClassifier, y_class), (KNeighborsRegressor, y_reg)):
        dense = Est(n_neighbors=3, weights=weights).fit(X, y)
        sparse = Est(n_neighbors=3, weights=weights).fit(S, y)
        _, ind_d = dense.kneighbors(X)
        _, ind_s = sparse.kneighbors(S)
        same = np.all(np.sort(ind_d, axis=1) == np.sort(ind_s, axis=1), axis=1)
        # rows whose neighbour sets differ do so only by ties (tested above)
        np.testing.assert_allclose(sparse.predict(S)[same], dense.predict(X)[same],
                                   rtol=1e-9, atol=1e-12)
        if Est is KNeighborsClassifier:
            p_d, p_s = dense.predict_proba(X), sparse.predict_proba(S)
            for a, b in zip(p_d if n_outputs > 1 else [p_d],
                            p_s if n_outputs > 1 else [p_s]):
                np.testing.assert_allclose(b[same], a[same], rtol=1e-12)


def test_sparse_matches_scikit_learn():
    X, S = make_sparse_pair(0, 80, 40, 0.2, "csr", np.float64, min_row_nnz=1)
    y = np.random.default_rng(1).integers(0, 3, size=80)
    for metric in ["euclidean", "manhattan", "cosine"]:
        ours = KNeighborsClassifier(n_neighbors=5, metric=metric).fit(S, y)
        ref = sk_neighbors.KNeighborsClassifier(n_neighbors=5, metric=metric).fit(S, y)
        d1, i1 = ours.kneighbors(S[:20])
        d2, i2 = ref.kneighbors(S[:20])
        np.testing.assert_allclose(d1, d2, atol=1e-7)
        np.testing.assert_allclose(ours.predict_proba(S), ref.predict_proba(S))


def test_sparse_refusals_and_fallback():
    X, S = make_sparse_pair(0, 20, 5, 0.5, "csr", np.float64)
    for metric, p in (("chebyshev", 2), ("minkowski", 3)):
        with pytest.raises(ValueError, match="not valid for sparse input"):
            NearestNeighbors(metric=metric, p=p).fit(S)
    with pytest.warns(UserWarning, match="cannot use tree with sparse input"):
        nn = NearestNeighbors(n_neighbors=2, algorithm="kd_tree").fit(S)
    assert nn._fit_method == "brute"
    assert sp.issparse(nn._fit_X)  # stored as given, not densified


def test_sparse_precomputed_graph():
    X, _ = make_sparse_pair(0, 30, 4, 0.8, "csr", np.float64, empty_row=False)
    G = NearestNeighbors(n_neighbors=6).fit(X).kneighbors_graph(mode="distance")
    full = NearestNeighbors(n_neighbors=3).fit(X)
    pre = NearestNeighbors(n_neighbors=3, metric="precomputed").fit(G)
    d1, i1 = pre.kneighbors(G)
    d2, i2 = full.kneighbors()
    np.testing.assert_allclose(d1, d2)
    np.testing.assert_array_equal(i1, i2)
    with pytest.raises(ValueError, match="7 neighbors per samples are required"):
        pre.kneighbors(G, n_neighbors=7)
    # explicit zeros of a graph are neighbours at distance 0
    G2 = sp.csr_matrix(([0.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2))
    d, i = NearestNeighbors(n_neighbors=1, metric="precomputed").fit(G2).kneighbors(G2)
    np.testing.assert_array_equal(i.ravel(), [1, 0])
    np.testing.assert_array_equal(d.ravel(), [0.0, 1.0])


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_sparse_euclidean_index_matches_dense_with_duplicates(n_jobs):
    # Issue 20: the sparse Euclidean k-nearest search ranks through an
    # inverted index of the training rows; duplicates (and empty rows) come
    # out at exactly 0, X=None leaves each point out, ties go to the smaller
    # index, as in the dense brute force.
    rng = np.random.default_rng(3)
    S = sp.random(150, 60, density=0.05, format="csr", random_state=4,
                  data_rvs=lambda m: rng.integers(1, 4, size=m).astype(float))
    S = sp.vstack([S, S[:10]]).tocsr()  # exact duplicates, including empty rows
    X = S.toarray()
    dense = NearestNeighbors(n_neighbors=4, algorithm="brute").fit(X)
    sparse = NearestNeighbors(n_neighbors=4, n_jobs=n_jobs).fit(S)
    for q_dense, q_sparse in ((X[:40], S[:40]), (None, None)):
        d1, i1 = dense.kneighbors(q_dense)
        d2, i2 = sparse.kneighbors(q_sparse)
        np.testing.assert_array_equal(d2, d1)
        np.testing.assert_array_equal(i2, i1)
    d, i = sparse.kneighbors(S[:10])
    np.testing.assert_array_equal(d[:, :2], 0.0)
    d, i = sparse.kneighbors()
    np.testing.assert_array_equal(d[:10, 0], 0.0)
    assert not np.any(i == np.arange(160)[:, None])
