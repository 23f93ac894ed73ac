"""LSH index: collision probabilities, recall, exact re-ranking (notes A §5.4-5.7)."""

import joblib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate, stats
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk
from sklearn.datasets import load_digits
from sklearn.manifold import Isomap

from skml.neighbors import (
    LSHKNeighborsTransformer,
    LSHNearestNeighbors,
    NearestNeighbors,
)
from skml.neighbors._lsh import collision_probability
from tests._parity import parity_test

# Digits (1797 x 64, pixel values 0-16): the 10th neighbour is at distance ~23,
# so w = 80 gives one hash a collision probability ~0.8 there (notes A §5.6).
DIGITS_LSH = {"n_tables": 20, "n_hashes": 8, "bucket_width": 80.0, "random_state": 0}


def _recall(exact, approx):
    return np.mean((exact[:, :, None] == approx[:, None, :]).any(axis=2))


def _clusters(seed=0, n=600, d=10):
    rng = np.random.RandomState(seed)
    centres = rng.normal(scale=5.0, size=(12, d))
    return centres[rng.randint(12, size=n)] + rng.normal(size=(n, d))


def _pair_collisions(est):
    """Fraction of tables where training points 0 and 1 share the bucket."""
    inverse = np.argsort(est.bucket_index_, axis=1)
    keys = np.take_along_axis(est.bucket_keys_, inverse, 1)
    return np.mean(keys[:, 0] == keys[:, 1])


def _binomial_tol(p, n):
    return 4.5 * np.sqrt(p * (1 - p) / n) + 1e-12


# -- closed forms (notes A §5.6) ------------------------------------------------
@pytest.mark.parametrize("family,c,w,expected", [
    ("pstable_gaussian", 1.0, 1.0, 0.3687),
    ("pstable_gaussian", 1.0, 4.0, 0.8005),
    ("pstable_gaussian", 2.0, 4.0, 0.6095),
    ("pstable_gaussian", 0.5, 1.0, 0.6095),
    ("pstable_cauchy", 1.0, 4.0, 0.6186),
])
def test_collision_probability_reference_values(family, c, w, expected):
    assert collision_probability(c, family, w) == pytest.approx(expected, abs=5e-5)


@pytest.mark.parametrize("family,density", [
    ("pstable_gaussian", stats.norm.pdf), ("pstable_cauchy", stats.cauchy.pdf)])
@pytest.mark.parametrize("c,w", [(1.0, 1.0), (0.7, 3.0), (3.0, 2.0)])
def test_closed_form_equals_the_notes_integral(family, density, c, w):
    # P(c) = 2 int_0^w (1/c) f(t/c) (1 - t/w) dt (notes A §5.6, S2).
    integral, _ = integrate.quad(lambda t: 2 / c * density(t / c) * (1 - t / w), 0, w)
    assert collision_probability(c, family, w) == pytest.approx(integral, abs=1e-10)


@given(c=st.floats(0.05, 20.0), w=st.floats(0.05, 20.0), factor=st.floats(1.01, 3.0),
       family=st.sampled_from(["pstable_gaussian", "pstable_cauchy"]))
def test_collision_probability_decreases_in_c_and_increases_in_w(c, w, factor, family):
    p = collision_probability(c, family, w)
    assert 0.0 < p < 1.0
    assert collision_probability(c * factor, family, w) < p
    assert collision_probability(c, family, w * factor) > p


# -- empirical collision rates of the fitted hashes ----------------------------------
@pytest.mark.parametrize("family,c,w", [
    ("pstable_gaussian", 1.0, 1.0), ("pstable_gaussian", 2.0, 4.0),
    ("pstable_cauchy", 1.0, 4.0), ("pstable_cauchy", 3.0, 2.0)])
def test_pstable_collision_rate_matches_closed_form(family, c, w):
    d = 6
    X = np.zeros((2, d))
    X[1] = np.random.RandomState(1).normal(size=d)
    X[1] *= c / np.linalg.norm(X[1], ord=2 if family == "pstable_gaussian" else 1)
    X += 0.3  # the offsets b matter only relative to the points
    L = 6000
    est = LSHNearestNeighbors(family=family, n_tables=L, n_hashes=1, bucket_width=w,
                              random_state=0).fit(X)
    p = collision_probability(c, family, w)
    assert abs(_pair_collisions(est) - p) < _binomial_tol(p, L)
    assert est.collision_probability(c) == pytest.approx(p)


def test_table_of_k_hashes_collides_with_p_to_the_k():
    X = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    L, k = 6000, 3
    est = LSHNearestNeighbors(n_tables=L, n_hashes=k, bucket_width=4.0,
                              random_state=0).fit(X)
    p = est.collision_probability(1.0, level="table")
    assert p == pytest.approx(collision_probability(1.0, "pstable_gaussian", 4.0) ** k)
    assert abs(_pair_collisions(est) - p) < _binomial_tol(p, L)
    index = est.collision_probability(1.0, level="index")
    assert index == pytest.approx(1 - (1 - p) ** L)


@pytest.mark.parametrize("r", [0, 3, 10, 17])
def test_bit_sampling_collides_with_one_minus_r_over_d(r):
    d, L = 20, 6000
    X = np.zeros((2, d))
    X[1, :r] = 1.0
    est = LSHNearestNeighbors(family="bit_sampling", n_tables=L, n_hashes=1,
                              random_state=0).fit(X)
    p = 1 - r / d
    assert est.collision_probability(r / d) == pytest.approx(p)
    assert abs(_pair_collisions(est) - p) < _binomial_tol(p, L)


@pytest.mark.parametrize("theta", [0.3, 1.2, 2.5])
def test_hyperplane_collides_with_one_minus_theta_over_pi(theta):
    L = 6000
    X = np.array([[1.0, 0.0, 0.0], [np.cos(theta), np.sin(theta), 0.0]])
    X[1] *= 3.0
    est = LSHNearestNeighbors(family="hyperplane", n_tables=L, n_hashes=1,
                              random_state=0).fit(X)
    p = 1 - theta / np.pi
    assert est.collision_probability(1 - np.cos(theta)) == pytest.approx(p)
    assert abs(_pair_collisions(est) - p) < _binomial_tol(p, L)


# -- the index and its queries (notes A §5.7) ----------------------------------
@parity_test(LSHNearestNeighbors)
def test_recall_at_10_on_digits_against_scikit_learn():
    X = load_digits().data
    ref = sk.NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X)
    d_ref, i_ref = ref.kneighbors(X[::3])
    est = LSHNearestNeighbors(n_neighbors=10, **DIGITS_LSH).fit(X)
    dist, ind = est.kneighbors(X[::3])
    assert _recall(i_ref, ind) >= 0.9
    # Re-ranking is exact: the distances are the true ones, and never better
    # than the exact k nearest.
    assert_allclose(dist, np.linalg.norm(X[::3][:, None] - X[ind], axis=2), atol=1e-9)
    assert np.all(dist >= d_ref - 1e-9)
    assert est.candidate_counts(X[::3], 10).mean() < 0.5 * X.shape[0]


@pytest.mark.parametrize("family,metric", [
    ("pstable_gaussian", "euclidean"), ("pstable_cauchy", "manhattan"),
    ("hyperplane", "cosine")])
def test_returned_distances_are_exact_and_sorted(family, metric):
    X = _clusters()
    est = LSHNearestNeighbors(n_neighbors=7, family=family, n_tables=8, n_hashes=4,
                              bucket_width=20.0, random_state=0).fit(X[:500])
    dist, ind = est.kneighbors(X[500:])
    ref = sk.NearestNeighbors(metric=metric, algorithm="brute").fit(X[:500])
    true = np.take_along_axis(ref.kneighbors(X[500:], 500)[0],
                              np.argsort(ref.kneighbors(X[500:], 500)[1], 1), 1)
    assert_allclose(dist, np.take_along_axis(true, ind, 1), rtol=1e-10, atol=1e-12)
    assert np.all(np.diff(dist, axis=1) >= 0)
    assert est.effective_metric_ == metric and est.family_ == family


def test_hamming_distances_equal_scikit_learn():
    rng = np.random.RandomState(0)
    X = (rng.uniform(size=(400, 40)) < 0.3).astype(float)
    est = LSHNearestNeighbors(n_neighbors=5, metric="hamming", n_tables=20, n_hashes=6,
                              random_state=0).fit(X)
    assert est.family_ == "bit_sampling"
    dist, ind = est.kneighbors(X[:30])
    ref = sk.NearestNeighbors(metric="hamming").fit(X)
    assert_allclose(dist, np.mean(X[:30, None] != X[ind], axis=2), atol=1e-12)
    # Hamming distances tie often: compare distances, not indices.
    assert np.mean(np.isclose(dist, ref.kneighbors(X[:30])[0])) >= 0.9


def test_enough_tables_give_high_recall():
    X = _clusters(1, n=1000)
    exact = NearestNeighbors(n_neighbors=10).fit(X).kneighbors()[1]
    recalls = []
    for L in (1, 30):
        est = LSHNearestNeighbors(n_neighbors=10, n_tables=L, n_hashes=6,
                                  bucket_width=12.0,
                                  fallback="raise" if L == 30 else "brute",
                                  random_state=0).fit(X)
        recalls.append(_recall(exact, est.kneighbors()[1]))
    assert recalls[1] >= 0.95 and recalls[1] > recalls[0]


def test_zero_hashes_is_brute_force():
    # L = 1, k = 0: one bucket holding every point (notes A §5.7, tests).
    X = _clusters(2, n=300)
    for Q in (None, X[:40] + 0.1):
        est = LSHNearestNeighbors(n_neighbors=6, n_tables=1, n_hashes=0).fit(X)
        ref = NearestNeighbors(n_neighbors=6, algorithm="brute").fit(X)
        d1, i1 = est.kneighbors(Q)
        d2, i2 = ref.kneighbors(Q)
        assert_array_equal(i1, i2)
        assert_allclose(d1, d2, rtol=1e-9)


def test_stop_after_2L_plus_1_examined_points():
    X = _clusters(3, n=800)
    L = 4
    est = LSHNearestNeighbors(n_neighbors=3, n_tables=L, n_hashes=2, bucket_width=30.0,
                              max_candidates="2L+1", random_state=0).fit(X)
    counts = est.candidate_counts(X[:100] + 0.01)
    assert counts.max() == 2 * L + 1
    free = est.set_params(max_candidates=None).fit(X).candidate_counts(X[:100] + 0.01)
    assert np.all(free >= counts) and free.max() > 2 * L + 1
    capped = est.set_params(max_candidates=25).fit(X).candidate_counts(X[:100] + 0.01)
    assert capped.max() == 25
    # The cap never stops a k-NN query below k points.
    assert est.set_params(max_candidates=1).fit(X).candidate_counts(X[:5], 3).min() >= 3


def test_multi_probe_examines_a_superset_of_buckets():
    X = _clusters(4, n=1000)
    # fallback="raise": the recall is the buckets' own, not brute force's.
    base = LSHNearestNeighbors(n_neighbors=3, n_tables=6, n_hashes=8, bucket_width=20.0,
                               fallback="raise", random_state=0)
    exact = NearestNeighbors(n_neighbors=3).fit(X).kneighbors()[1]
    counts, recalls = [], []
    for T in (0, 3, 12):
        est = base.set_params(multi_probe=T).fit(X)
        counts.append(est.candidate_counts())
        recalls.append(_recall(exact, est.kneighbors()[1]))
    assert np.all(counts[1] >= counts[0]) and np.all(counts[2] >= counts[1])
    assert counts[2].mean() > counts[0].mean() and recalls[2] > recalls[0]


@pytest.mark.parametrize("family", ["hyperplane", "bit_sampling"])
def test_multi_probe_for_binary_codes(family):
    X = (_clusters(5, n=400) > 0).astype(float)
    est = LSHNearestNeighbors(family=family, n_tables=3, n_hashes=10, random_state=0)
    c0 = est.fit(X).candidate_counts()
    c1 = est.set_params(multi_probe=4).fit(X).candidate_counts()
    assert np.all(c1 >= c0) and c1.mean() > c0.mean()


def test_query_with_none_excludes_self():
    X = _clusters(6, n=400)
    est = LSHNearestNeighbors(n_neighbors=5, n_tables=6, n_hashes=4, bucket_width=10.0,
                              random_state=0).fit(X)
    dist, ind = est.kneighbors()
    assert not np.any(ind == np.arange(400)[:, None])
    d_self, i_self = est.kneighbors(X, 6)
    assert_array_equal(i_self[:, 0], np.arange(400))
    assert_array_equal(i_self[:, 1:], ind)
    assert_allclose(d_self[:, 1:], dist)
    with pytest.raises(ValueError, match="n_neighbors"):
        est.kneighbors(None, 400)


def test_deterministic_for_random_state():
    X = _clusters(7, n=500)
    a = LSHNearestNeighbors(n_tables=5, n_hashes=5, bucket_width=5.0, random_state=3)
    b = LSHNearestNeighbors(n_tables=5, n_hashes=5, bucket_width=5.0, random_state=3)
    c = LSHNearestNeighbors(n_tables=5, n_hashes=5, bucket_width=5.0, random_state=4)
    ra, rb = a.fit(X).kneighbors(X[:50]), b.fit(X).kneighbors(X[:50])
    assert_array_equal(ra[1], rb[1])
    assert_array_equal(ra[0], rb[0])
    assert_array_equal(a.bucket_keys_, b.bucket_keys_)
    assert not np.array_equal(a.bucket_keys_, c.fit(X).bucket_keys_)


def test_fallback():
    X = _clusters(8, n=300)
    # Buckets so narrow that every point is alone: no query finds 5 candidates.
    est = LSHNearestNeighbors(n_neighbors=5, n_tables=2, n_hashes=8, bucket_width=1e-3,
                              random_state=0).fit(X)
    ref = NearestNeighbors(n_neighbors=5, algorithm="brute").fit(X)
    for Q in (None, X[:20] + 0.5):
        d1, i1 = est.kneighbors(Q)
        d2, i2 = ref.kneighbors(Q)
        assert_array_equal(i1, i2)
        assert_allclose(d1, d2)
    with pytest.raises(ValueError, match="fewer than n_neighbors=5 candidates"):
        est.set_params(fallback="raise").fit(X).kneighbors(X[:20] + 0.5)


def test_kneighbors_graph_matches_kneighbors():
    X = _clusters(9, n=300)
    est = LSHNearestNeighbors(n_neighbors=4, n_tables=6, n_hashes=4, bucket_width=10.0,
                              random_state=0).fit(X)
    dist, ind = est.kneighbors(X[:30])
    graph = est.kneighbors_graph(X[:30], mode="distance")
    assert graph.shape == (30, 300) and graph.nnz == 120
    assert_allclose(np.take_along_axis(graph.toarray(), ind, 1), dist)


# -- transformer ----------------------------------------------------------------
@parity_test(LSHKNeighborsTransformer)
def test_transformer_graph_against_scikit_learn_on_digits():
    X = load_digits().data[:900]
    k = 10
    ours = LSHKNeighborsTransformer(n_neighbors=k, **DIGITS_LSH).fit_transform(X)
    ref = sk.KNeighborsTransformer(n_neighbors=k).fit_transform(X)
    assert ours.format == "csr" and ours.shape == ref.shape == (900, 900)
    assert ours.nnz == ref.nnz == 900 * (k + 1)
    # The sample itself is its first neighbour, stored explicitly at distance 0.
    assert_array_equal(ours.indices[ours.indptr[:-1]], np.arange(900))
    assert np.all(ours.data[ours.indptr[:-1]] == 0.0)
    edges = (ours.toarray() > 0) & (ref.toarray() > 0)
    assert edges.sum() / (900 * k) >= 0.9
    conn = LSHKNeighborsTransformer(n_neighbors=k, mode="connectivity",
                                    **DIGITS_LSH).fit_transform(X)
    assert conn.nnz == 900 * k and np.all(conn.data == 1.0)


def test_isomap_accepts_the_graph():
    X = load_digits().data[:600]
    graph = LSHKNeighborsTransformer(n_neighbors=8, **DIGITS_LSH).fit_transform(X)
    emb = Isomap(n_neighbors=8, n_components=2,
                 metric="precomputed").fit_transform(graph)
    ref = Isomap(n_neighbors=8, n_components=2).fit_transform(X)
    assert emb.shape == (600, 2) and np.all(np.isfinite(emb))
    # Same geometry up to the embedding's sign: the axes correlate strongly.
    corr = np.corrcoef(emb.T, ref.T)[:2, 2:]
    assert np.all(np.abs(np.diag(corr)) > 0.8)


# -- bad input ------------------------------------------------------------------------
def test_bit_sampling_needs_binary_data():
    X = _clusters(10, n=50)
    with pytest.raises(ValueError, match="binary data"):
        LSHNearestNeighbors(family="bit_sampling").fit(X)
    est = LSHNearestNeighbors(family="bit_sampling").fit((X > 0).astype(float))
    with pytest.raises(ValueError, match="binary data"):
        est.kneighbors(X[:3])


@pytest.mark.parametrize("params,match", [
    ({"family": "hyperplane", "metric": "euclidean"}, "not metric='euclidean'"),
    ({"family": "bit_sampling", "metric": "l1"}, "locality-sensitive"),
    ({"n_tables": 0}, "n_tables"),
    ({"bucket_width": 0.0}, "bucket_width"),
    ({"max_candidates": "2L"}, "max_candidates"),
    ({"multi_probe": -1}, "multi_probe"),
    ({"family": "minhash"}, "family"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        LSHNearestNeighbors(**params).fit(_clusters(n=40))


def test_bad_queries():
    X = _clusters(n=60)
    est = LSHNearestNeighbors(random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        est.kneighbors(X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        est.kneighbors(np.full((2, X.shape[1]), np.nan))
    with pytest.raises(ValueError, match="level"):
        est.collision_probability(1.0, level="bucket")
    with pytest.raises(ValueError, match="mode"):
        LSHKNeighborsTransformer(mode="weights").fit(X)


def test_threads_give_the_same_answer():
    X = _clusters(11, n=2000)
    params = {"n_tables": 6, "n_hashes": 6, "bucket_width": 12.0, "multi_probe": 2,
              "random_state": 0}
    one = LSHNearestNeighbors(n_jobs=1, **params).fit(X).kneighbors()
    two = LSHNearestNeighbors(n_jobs=2, **params).fit(X).kneighbors()
    assert_array_equal(one[1], two[1])
    assert_array_equal(one[0], two[0])


def test_process_backend_gives_the_same_answer():
    # The query threads write into shared arrays (issue 19).
    X = _clusters(11, n=600)
    params = {"n_tables": 6, "n_hashes": 6, "bucket_width": 12.0, "random_state": 0}
    one = LSHNearestNeighbors(n_jobs=1, **params).fit(X).kneighbors()
    with joblib.parallel_backend("loky"):
        two = LSHNearestNeighbors(n_jobs=2, **params).fit(X).kneighbors()
    assert_array_equal(one[1], two[1])
    assert_allclose(one[0], two[0], rtol=1e-12)


def test_auto_bucket_width_scales_with_the_data():
    X = _clusters(12, n=800)
    exact = NearestNeighbors(n_neighbors=5).fit(X).kneighbors()[1]
    widths, recalls = [], []
    for scale in (1.0, 100.0):
        est = LSHNearestNeighbors(n_neighbors=5, n_tables=10, n_hashes=6,
                                  bucket_width="auto", random_state=0).fit(X * scale)
        widths.append(est.bucket_width_)
        recalls.append(_recall(exact, est.kneighbors()[1]))
    kth = NearestNeighbors(n_neighbors=5).fit(X).kneighbors()[0][:, -1]
    assert widths[0] == pytest.approx(4 * np.median(kth), rel=0.2)
    assert widths[1] == pytest.approx(100 * widths[0])
    assert recalls[0] == recalls[1] >= 0.9


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_radius_neighbors_are_true_near_points_found_in_the_buckets(metric):
    X = _clusters(13, n=700)
    radius = {"euclidean": 3.0, "manhattan": 6.0, "cosine": 0.02}[metric]
    width = 30.0 if metric == "manhattan" else 12.0
    est = LSHNearestNeighbors(metric=metric, radius=radius, n_tables=20, n_hashes=4,
                              bucket_width=width, random_state=0).fit(X)
    ref = sk.NearestNeighbors(metric=metric, radius=radius).fit(X)
    scipy_metric = {"manhattan": "cityblock"}.get(metric, metric)
    for Q in (None, X[:50] + 0.05):
        dist, ind = est.radius_neighbors(Q, sort_results=True)
        i_ref = ref.radius_neighbors(Q, return_distance=False)
        queries = X if Q is None else Q
        found = total = 0
        for row, (d, i, ir) in enumerate(zip(dist, ind, i_ref)):
            assert np.all(d <= radius) and np.all(np.diff(d) >= 0)
            assert set(i) <= set(ir)  # only true R-near points are reported
            true = cdist(queries[row:row + 1], X[i], scipy_metric)[0]
            assert_allclose(d, true, atol=1e-12)
            found, total = found + len(i), total + len(ir)
        assert found / total >= 0.9
    graph = est.radius_neighbors_graph(X[:20], mode="distance")
    assert graph.shape == (20, 700)


@pytest.mark.parametrize("factor", [2.0**997, 2.0**-997])  # ~1e300, ~1e-300
@pytest.mark.parametrize("family", ["pstable_gaussian", "pstable_cauchy", "hyperplane"])
def test_extreme_magnitude_gives_the_clean_neighbours(factor, family):
    # Issue 23: the exact re-ranking squared coordinates, so distances were
    # inf at X * 1e300. It runs on X / 2^e; the hashes need no rescaling
    # (the bucket width is measured on the data). With a power-of-two factor
    # every step is exact: the same buckets, neighbours and scaled distances
    # (another factor rounds a few projections across a bucket boundary).
    X = load_digits().data[:300] / 16.0
    params = dict(n_neighbors=5, family=family, multi_probe=2, bucket_width="auto",
                  random_state=0)
    ref = LSHNearestNeighbors(**params).fit(X)
    lsh = LSHNearestNeighbors(**params).fit(X * factor)
    unit = 1.0 if family == "hyperplane" else factor
    d_ref, i_ref = ref.kneighbors(X[:40])
    d, i = lsh.kneighbors(X[:40] * factor)
    assert_array_equal(i, i_ref)
    assert_allclose(d / unit, d_ref, rtol=1e-10, atol=1e-14)
    radius = float(np.median(d_ref[:, -1]))
    d_ref, i_ref = ref.radius_neighbors(X[:40], radius, sort_results=True)
    d, i = lsh.radius_neighbors(X[:40] * factor, radius * unit, sort_results=True)
    for row in range(40):
        assert_array_equal(i[row], i_ref[row])
        assert_allclose(d[row] / unit, d_ref[row], rtol=1e-10, atol=1e-14)
