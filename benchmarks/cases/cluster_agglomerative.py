"""AgglomerativeClustering against scikit-learn's, with the same parameters.

Both build the same tree (the parity tests check merge for merge), so the
adjusted Rand index against the truth should agree and the time ratio is
the whole comparison: nearest-neighbour chain over the condensed distances
(ward, complete, average) and Prim's spanning tree with distances on the
fly (single) against scipy's linkage and scikit-learn's own spanning tree.
The score refits on the test split (``fit_predict``, timed as "predict").
Structured rows give both the same connectivity callable (a 10-nearest-
neighbour graph of the data, built by scikit-learn's ``kneighbors_graph`` in
both runs, so its time is common to the two sides).
"""

from benchmarks.case import Case


class KNNGraph:
    """Connectivity callable: the ``n_neighbors``-nearest-neighbour graph of X."""

    def __init__(self, n_neighbors):
        self.n_neighbors = n_neighbors

    def __call__(self, X):
        from sklearn.neighbors import kneighbors_graph

        return kneighbors_graph(X, self.n_neighbors, include_self=False)

    def __repr__(self):
        return f"KNNGraph({self.n_neighbors})"


def _agglomerative(dataset, params, label, profiles=("quick", "full")):
    return Case(
        estimator="AgglomerativeClustering",
        skml="skml.cluster:AgglomerativeClustering",
        reference="sklearn.cluster:AgglomerativeClustering",
        dataset=dataset,
        score="adjusted_rand_fit_predict",
        family="cluster",
        params=params,
        reference_params=params,
        label=label,
        profiles=profiles,
    )


CASES = [
    _agglomerative("blobs_4k_10", {"n_clusters": 6, "linkage": linkage}, linkage)
    for linkage in ("ward", "average", "single")
] + [
    _agglomerative("clf_20k_20", {"n_clusters": 2, "linkage": linkage}, linkage,
                   profiles=("full",))
    for linkage in ("ward", "complete", "average", "single")
] + [
    _agglomerative("blobs_4k_10", {"n_clusters": 6, "linkage": linkage,
                                   "connectivity": KNNGraph(10)},
                   f"{linkage},knn10")
    for linkage in ("ward", "average")
] + [
    _agglomerative("clf_20k_20", {"n_clusters": 2, "linkage": linkage,
                                  "connectivity": KNNGraph(10)},
                   f"{linkage},knn10", profiles=("full",))
    for linkage in ("ward", "complete", "average", "single")
]
