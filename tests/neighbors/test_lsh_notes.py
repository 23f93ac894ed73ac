"""The LSH index's notes variants (A §5.7): Strategy 1's cR-near query, automatic k and L."""

import numpy as np
import pytest

from skml.neighbors import LSHKNeighborsTransformer, LSHNearestNeighbors
from skml.neighbors._lsh import collision_probability


def test_auto_sizes_follow_the_theorem():
    # k = ceil(log_{1/P2} n), L = ceil(n^rho), rho = ln(1/P1) / ln(1/P2).
    X = np.random.RandomState(0).normal(size=(1500, 6))
    lsh = LSHNearestNeighbors(radius=1.5, c=2.0, n_tables="auto", n_hashes="auto",
                              bucket_width=3.0, random_state=0).fit(X)
    P1 = collision_probability(1.5, "pstable_gaussian", 3.0)
    P2 = collision_probability(3.0, "pstable_gaussian", 3.0)
    rho = np.log(1 / P1) / np.log(1 / P2)
    assert lsh.rho_ == pytest.approx(rho, rel=1e-12)
    assert 0 < rho < 1 / 2.0 + 0.1  # rho <= 1/c for p-stable hashing (about)
    assert lsh.n_hashes_ == int(np.ceil(np.log(1500) / np.log(1 / P2)))
    assert lsh.n_tables_ == int(np.ceil(1500**rho))
    # at that k, one table separates: P2^k <= 1/n
    assert P2**lsh.n_hashes_ <= 1 / 1500 + 1e-15


def test_cr_near_success_is_at_least_half_minus_one_over_e():
    # Notes A §5.7 theorem: with a point within R of the query, Strategy 1
    # (2L+1 examined points) reports a cR-near point with probability
    # >= 1/2 - 1/e. Far background points, one planted R-near point each.
    R, c = 1.0, 2.0
    successes, trials = 0, 0
    for seed in range(4):
        rng = np.random.RandomState(seed)
        X = rng.normal(scale=3.0, size=(800, 8))
        q_idx = rng.choice(800, 50, replace=False)
        step = rng.normal(size=(50, 8))
        step *= 0.9 * R / np.linalg.norm(step, axis=1, keepdims=True)
        Q = X[q_idx] + step
        lsh = LSHNearestNeighbors(radius=R, c=c, n_tables="auto", n_hashes="auto",
                                  bucket_width=4.0, max_candidates="2L+1",
                                  random_state=seed).fit(X)
        dist, ind = lsh.cr_near_neighbors(Q)
        found = ind >= 0
        true = np.linalg.norm(X[ind[found]] - Q[found], axis=1)
        np.testing.assert_allclose(dist[found], true, rtol=1e-9)
        assert np.all(dist[found] <= c * R + 1e-12)
        successes += found.sum()
        trials += len(Q)
    assert successes / trials >= 0.5 - 1 / np.e


def test_cr_near_reports_nothing_when_nothing_is_near():
    X = np.random.RandomState(1).normal(size=(300, 4))
    lsh = LSHNearestNeighbors(radius=0.1, c=2.0, random_state=0).fit(X)
    dist, ind = lsh.cr_near_neighbors(X[:5] + 100.0)
    assert np.all(ind == -1) and np.all(np.isinf(dist))
    # training points as queries: never themselves
    dist, ind = lsh.cr_near_neighbors(radius=10.0)
    assert np.all(ind != np.arange(300))


def test_auto_sizes_need_a_radius_and_separation():
    X = np.random.RandomState(2).randint(0, 2, size=(100, 16)).astype(float)
    with pytest.raises(ValueError, match="radius"):
        LSHKNeighborsTransformer(n_tables="auto").fit(X)
    with pytest.raises(ValueError, match="P2"):
        # Hamming fraction cR = 1.2 > 1: P2 = 0 cannot set k
        LSHNearestNeighbors(radius=0.6, c=2.0, family="bit_sampling",
                            n_hashes="auto").fit(X)
    with pytest.raises(ValueError, match="c"):
        LSHNearestNeighbors(c=1.0).fit(X)
