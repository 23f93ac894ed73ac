"""AgglomerativeClustering along a connectivity graph (structured clustering)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components
from sklearn.cluster import AgglomerativeClustering as SkAgglomerative
from sklearn.neighbors import kneighbors_graph

from skml.cluster import AgglomerativeClustering

from .._data import load

LINKAGES = ["ward", "complete", "average", "single"]


def _members(children, n):
    members = [[i] for i in range(n)]
    for a, b in children:
        members.append(members[a] + members[b])
    return members


def _fit_both(X, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # disconnected graphs
        ours = AgglomerativeClustering(**params).fit(X)
        theirs = SkAgglomerative(**params).fit(X)
    return ours, theirs


@pytest.mark.parametrize("linkage", LINKAGES)
@pytest.mark.parametrize("n_neighbors", [3, 10])
def test_same_merges_as_scikit_learn_on_wine(linkage, n_neighbors):
    # Standardised wine has no tied distances, so the merges are unique: the
    # same children in the same order and the same heights. With 3 neighbours
    # the graph is disconnected and completed as scikit-learn completes it.
    X, _ = load("wine", scale=True)
    graph = kneighbors_graph(X, n_neighbors, include_self=False)
    ours, theirs = _fit_both(X, n_clusters=4, linkage=linkage, connectivity=graph,
                             compute_distances=True)
    np.testing.assert_array_equal(ours.children_, np.sort(theirs.children_, axis=1))
    np.testing.assert_allclose(ours.distances_, theirs.distances_, rtol=1e-10)
    assert ours.n_connected_components_ == theirs.n_connected_components_
    assert (ours.labels_[:, None] == ours.labels_).tolist() == (
        theirs.labels_[:, None] == theirs.labels_).tolist()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(8, 40), k=st.integers(2, 5), seed=st.integers(0, 10_000),
       linkage=st.sampled_from(LINKAGES))
def test_every_merge_follows_an_edge_and_clusters_stay_contiguous(n, k, seed, linkage):
    # The defining property: two clusters merge only if an edge of the
    # (symmetrised) graph joins them, so every node of the tree induces a
    # connected subgraph.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    graph = kneighbors_graph(X, k, include_self=False)
    graph = ((graph + graph.T) > 0).astype(float)
    if connected_components(graph)[0] > 1:
        return  # completion adds edges: covered by the scikit-learn parity test
    model = AgglomerativeClustering(n_clusters=1, linkage=linkage,
                                    connectivity=graph).fit(X)
    dense = graph.toarray() > 0
    members = _members(model.children_, n)
    for a, b in model.children_:
        assert dense[np.ix_(members[a], members[b])].any()
    for node in members[n:]:
        assert connected_components(graph[node][:, node])[0] == 1


def test_graph_forbids_the_unstructured_merges():
    # Two tight pairs far apart on a line, but the chain graph only links
    # neighbours along the line: 0-1-2-3 with 1 and 2 close, 0 and 3 far.
    X = np.array([[0.0], [10.0], [10.5], [20.0], [0.2]])
    chain = sp.diags([np.ones(4), np.ones(4)], [-1, 1], shape=(5, 5))
    free = AgglomerativeClustering(n_clusters=2, linkage="single").fit(X)
    tied = AgglomerativeClustering(n_clusters=2, linkage="single",
                                   connectivity=chain).fit(X)
    # Without the graph 0 and 4 (distance 0.2) merge first; along the chain
    # 4 only touches 3, so the first merge is 1-2 (0.5).
    assert free.children_[0].tolist() == [0, 4]
    assert tied.children_[0].tolist() == [1, 2]


def test_disconnected_graph_is_completed_with_a_warning():
    X, _ = load("iris", scale=True)
    X = X + 1e-9 * np.arange(X.size).reshape(X.shape)  # no tied distances
    graph = kneighbors_graph(X, 2, include_self=False)
    with pytest.warns(UserWarning, match="connected components"):
        model = AgglomerativeClustering(n_clusters=3, connectivity=graph).fit(X)
    assert model.n_connected_components_ == connected_components(
        graph + graph.T)[0] > 1
    assert model.children_.shape == (len(X) - 1, 2)


@pytest.mark.parametrize("linkage", LINKAGES)
def test_tree_stopped_early_gives_the_same_clusters(linkage):
    X, _ = load("wine", scale=True)
    graph = kneighbors_graph(X, 10, include_self=False)
    full = AgglomerativeClustering(n_clusters=6, linkage=linkage, connectivity=graph,
                                   compute_full_tree=True).fit(X)
    early = AgglomerativeClustering(n_clusters=6, linkage=linkage, connectivity=graph,
                                    compute_full_tree=False).fit(X)
    assert early.children_.shape == (len(X) - 6, 2)
    np.testing.assert_array_equal(early.children_, full.children_[: len(X) - 6])
    np.testing.assert_array_equal(early.labels_, full.labels_)
    # "auto" stops early only for many clusters (>= max(100, 2% of n)).
    auto = AgglomerativeClustering(n_clusters=6, linkage=linkage,
                                   connectivity=graph).fit(X)
    assert auto.children_.shape == (len(X) - 1, 2)


def test_callable_and_dense_connectivity_and_precomputed_distances():
    X, _ = load("wine", scale=True)
    graph = kneighbors_graph(X, 8, include_self=False)
    reference = AgglomerativeClustering(4, linkage="average", connectivity=graph).fit(X)
    called = AgglomerativeClustering(
        4, linkage="average",
        connectivity=lambda data: kneighbors_graph(data, 8, include_self=False)).fit(X)
    dense = AgglomerativeClustering(4, linkage="average",
                                    connectivity=graph.toarray()).fit(X)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    precomputed = AgglomerativeClustering(4, linkage="average", metric="precomputed",
                                          connectivity=graph).fit(D)
    for other in (called, dense, precomputed):
        np.testing.assert_array_equal(other.children_, reference.children_)


def test_distance_threshold_with_a_graph_as_scikit_learn():
    X, _ = load("wine", scale=True)
    graph = kneighbors_graph(X, 10, include_self=False)
    ours, theirs = _fit_both(X, n_clusters=None, distance_threshold=6.0,
                             connectivity=graph)
    assert ours.n_clusters_ == theirs.n_clusters_
    np.testing.assert_allclose(ours.distances_, theirs.distances_, rtol=1e-10)
