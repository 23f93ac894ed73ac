"""AgglomerativeClustering: the linkage definitions, parity with scikit-learn."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.cluster import AgglomerativeClustering as SkAgglomerative
from sklearn.datasets import load_digits, load_iris
from sklearn.metrics import adjusted_rand_score

from skml.cluster import AgglomerativeClustering

from .._parity import parity_test

COMBINATIONS = [("ward", "euclidean")] + [
    (linkage, metric)
    for linkage in ("complete", "average", "single")
    for metric in ("euclidean", "manhattan", "cosine")
]


def _members(children, n):
    """Samples under each node id."""
    members = [[i] for i in range(n)]
    for a, b in children:
        members.append(members[a] + members[b])
    return members


def _expected_height(linkage, XA, XB, metric):
    if linkage == "ward":
        na, nb = len(XA), len(XB)
        gap = np.linalg.norm(XA.mean(0) - XB.mean(0))
        return np.sqrt(2.0 * na * nb / (na + nb)) * gap
    D = cdist(XA, XB, metric={"manhattan": "cityblock"}.get(metric, metric))
    return {"complete": D.max(), "average": D.mean(), "single": D.min()}[linkage]


@parity_test(AgglomerativeClustering)
@pytest.mark.parametrize("dataset", [load_iris, load_digits])
@pytest.mark.parametrize("linkage, metric", COMBINATIONS)
def test_same_merges_as_scikit_learn(dataset, linkage, metric):
    X = dataset().data
    # Integer-valued data tie many distances; a tiny jitter makes the merge
    # order unique, so the trees can be compared node by node.
    X = X + np.random.RandomState(0).normal(scale=1e-6, size=X.shape)
    ours = AgglomerativeClustering(5, linkage=linkage, metric=metric,
                                   compute_distances=True).fit(X)
    ref = SkAgglomerative(5, linkage=linkage, metric=metric,
                          compute_distances=True).fit(X)
    np.testing.assert_array_equal(np.sort(ours.children_, axis=1),
                                  np.sort(ref.children_, axis=1))
    np.testing.assert_allclose(ours.distances_, ref.distances_, rtol=1e-9,
                               atol=1e-12)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0


@pytest.mark.parametrize("linkage", ["ward", "complete", "average", "single"])
def test_distance_threshold_as_scikit_learn(linkage):
    X = load_iris().data + np.random.RandomState(1).normal(scale=1e-6,
                                                           size=(150, 4))
    ours = AgglomerativeClustering(None, linkage=linkage,
                                   distance_threshold=1.0).fit(X)
    ref = SkAgglomerative(None, linkage=linkage, distance_threshold=1.0).fit(X)
    assert ours.n_clusters_ == ref.n_clusters_
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    # every merge left undone is at or above the threshold
    assert np.all(ours.distances_[-(ours.n_clusters_ - 1):] >= 1.0)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 25),
    d=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    combination=st.sampled_from(COMBINATIONS),
)
def test_each_height_is_the_linkage_of_the_merged_clusters(n, d, seed,
                                                           combination):
    """Every merge joins two clusters at exactly their linkage distance, and
    heights never decrease (all four linkages are reducible)."""
    linkage, metric = combination
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d)) + (3.0 if metric == "cosine" else 0.0)
    model = AgglomerativeClustering(1, linkage=linkage, metric=metric,
                                    compute_distances=True).fit(X)
    members = _members(model.children_, n)
    assert sorted(members[-1]) == list(range(n))
    for (a, b), height in zip(model.children_, model.distances_):
        expected = _expected_height(linkage, X[members[a]], X[members[b]],
                                    metric)
        assert height == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert np.all(np.diff(model.distances_) >= -1e-12 * model.distances_[-1])


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 2**31 - 1))
def test_single_linkage_heights_are_the_minimum_spanning_tree(n, seed):
    X = np.random.RandomState(seed).uniform(size=(n, 3))
    model = AgglomerativeClustering(1, linkage="single",
                                    compute_distances=True).fit(X)
    mst = minimum_spanning_tree(squareform(pdist(X))).data
    np.testing.assert_allclose(np.sort(model.distances_), np.sort(mst),
                               rtol=1e-12)


@pytest.mark.parametrize("linkage", ["complete", "average", "single"])
def test_precomputed_and_callable_metrics_match_the_data(linkage):
    X = load_iris().data[::3] + np.random.RandomState(2).normal(
        scale=1e-6, size=(50, 4))
    direct = AgglomerativeClustering(4, linkage=linkage,
                                     compute_distances=True).fit(X)
    D = squareform(pdist(X))
    pre = AgglomerativeClustering(4, linkage=linkage, metric="precomputed",
                                  compute_distances=True).fit(D)
    call = AgglomerativeClustering(4, linkage=linkage,
                                   metric=lambda A: squareform(pdist(A)),
                                   compute_distances=True).fit(X)
    for other in (pre, call):
        np.testing.assert_array_equal(other.children_, direct.children_)
        np.testing.assert_allclose(other.distances_, direct.distances_,
                                   rtol=1e-12)
        np.testing.assert_array_equal(other.labels_, direct.labels_)


def test_labels_are_the_cut_tree_numbered_by_first_sample():
    X = np.array([[0.0], [10.0], [0.1], [10.2], [5.0]])
    model = AgglomerativeClustering(3, linkage="single").fit(X)
    np.testing.assert_array_equal(model.labels_, [0, 1, 0, 1, 2])
    assert model.n_clusters_ == 3 and model.n_leaves_ == 5
    assert not hasattr(model, "distances_")
    np.testing.assert_array_equal(
        AgglomerativeClustering(3, linkage="single").fit_predict(X),
        model.labels_)


@pytest.mark.parametrize(
    "factor, rtol",
    # A power of two scales every distance exactly; 1e300 rounds each x*1e300,
    # which moves the distances of near-duplicate rows by ~1e-10.
    [(2.0**990, 1e-12), (2.0**-990, 1e-12), (1e300, 1e-6), (1e-300, 1e-6)],
)
def test_extreme_magnitudes_give_the_same_tree(factor, rtol):
    X = load_iris().data + np.random.RandomState(3).normal(scale=1e-6,
                                                           size=(150, 4))
    for linkage in ("ward", "average", "single"):
        base = AgglomerativeClustering(3, linkage=linkage,
                                       compute_distances=True).fit(X)
        scaled = AgglomerativeClustering(3, linkage=linkage,
                                         compute_distances=True).fit(X * factor)
        np.testing.assert_array_equal(scaled.children_, base.children_)
        np.testing.assert_allclose(scaled.distances_, base.distances_ * factor,
                                   rtol=rtol)


def test_threads_give_the_same_tree():
    X = load_digits().data[:400] + np.random.RandomState(4).normal(
        scale=1e-6, size=(400, 64))
    one = AgglomerativeClustering(6, linkage="average",
                                  compute_distances=True).fit(X)
    two = AgglomerativeClustering(6, linkage="average", n_jobs=2,
                                  compute_distances=True).fit(X)
    np.testing.assert_array_equal(one.children_, two.children_)
    np.testing.assert_array_equal(one.distances_, two.distances_)


def test_memory_caches_the_tree(tmp_path):
    X = load_iris().data
    first = AgglomerativeClustering(3, memory=str(tmp_path)).fit(X)
    second = AgglomerativeClustering(3, memory=str(tmp_path)).fit(X)
    np.testing.assert_array_equal(first.children_, second.children_)
    assert any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "params, X, match",
    [
        (dict(linkage="ward", metric="manhattan"), None, "ward"),
        (dict(n_clusters=3, distance_threshold=1.0), None, "Exactly one"),
        (dict(n_clusters=None), None, "Exactly one"),
        (dict(n_clusters=None, distance_threshold=1.0, compute_full_tree=False),
         None, "compute_full_tree"),
        (dict(connectivity=np.eye(5)), None, "connectivity matrix"),
        (dict(connectivity=np.ones(6)), None, "connectivity"),
        (dict(n_clusters=7), None, "n_clusters=7"),
        (dict(metric="cosine", linkage="average"),
         np.array([[0.0, 0.0], [1, 2], [2, 1], [3, 3], [1, 1], [2, 2]]),
         "zero"),
        (dict(metric="precomputed", linkage="average"), np.ones((6, 3)),
         "square"),
        (dict(linkage="median"), None, "linkage"),
        (dict(memory=3), None, "memory"),
    ],
)
def test_bad_input_is_refused_clearly(params, X, match):
    if X is None:
        X = np.arange(12.0).reshape(6, 2) ** 1.5
    with pytest.raises(ValueError, match=match):
        AgglomerativeClustering(**params).fit(X)


def test_sparse_input_is_refused_as_scikit_learn_does():
    X = sp.random(10, 4, density=0.5, format="csr", random_state=0)
    with pytest.raises(TypeError, match="[Ss]parse"):
        AgglomerativeClustering(2).fit(X)
    with pytest.raises(TypeError):
        SkAgglomerative(2).fit(X)
