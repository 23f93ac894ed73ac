"""skml.cluster.KMeans against sklearn.cluster.KMeans from the same initial centres.

Both sides start from the same fixed centres (standard normal draws with a
fixed seed, the features being standardised; a nested list so the report's
JSON can hold it) with ``n_init=1``: the runs are then the same Lloyd
iterations and the partitions agree exactly ("same_partition" 1.0). The
k-means++ row seeds both sides with the same ``random_state``. The elkan
rows run ``algorithm="elkan"`` on both sides.
"""

import numpy as np

from benchmarks.case import Case

N_FEATURES = {"iris": 4, "digits": 64}


def fixed_centres(k, dataset):
    """``k`` seeded standard-normal centres with the dataset's width."""
    d = N_FEATURES.get(dataset) or int(dataset.rsplit("_", 1)[1])
    return np.random.RandomState(k).standard_normal((k, d)).round(6).tolist()


def _pair(dataset, params, label="", **kw):
    return Case(
        estimator="KMeans",
        skml="skml.cluster:KMeans",
        reference="sklearn.cluster:KMeans",
        dataset=dataset,
        score="adjusted_rand",
        family="cluster",
        params=params,
        reference_params=params,
        label=label,
        **kw,
    )


def _same_init(k, dataset):
    return {"n_clusters": k, "init": fixed_centres(k, dataset), "n_init": 1}


CASES = [
    _pair("iris", _same_init(3, "iris"), label="k3"),
    _pair("digits", _same_init(10, "digits"), label="k10"),
    _pair("clf_20k_20", _same_init(8, "clf_20k_20"), label="k8"),
    _pair("clf_20k_20", {"n_clusters": 8, "random_state": 0}, label="k8,k-means++"),
    _pair("clf_20k_100", _same_init(8, "clf_20k_100"), label="k8"),
    _pair("clf_100k_20", _same_init(10, "clf_100k_20"), label="k10",
          profiles=("full",)),
    # algorithm="elkan" against scikit-learn's elkan (issue 21).
    _pair("digits", {**_same_init(10, "digits"), "algorithm": "elkan"},
          label="k10,elkan"),
    _pair("clf_20k_100", {**_same_init(8, "clf_20k_100"), "algorithm": "elkan"},
          label="k8,elkan"),
    _pair("clf_100k_20", {**_same_init(10, "clf_100k_20"), "algorithm": "elkan"},
          label="k10,elkan", profiles=("full",)),
]
