"""SpectralClustering and KernelKMeans against scikit-learn.

SpectralClustering runs against sklearn.cluster.SpectralClustering with the
same parameters (the default laplacian="rw" is scikit-learn's normalised
embedding, and both draw the same random numbers, so the partitions should
agree: "same_partition" near 1.0). Neither has ``predict``: the score refits
on the test split (``fit_predict``, timed as "predict") and compares with
the true labels; the fit time is that of the training split.

KernelKMeans has no scikit-learn counterpart. Its honest reference is
sklearn.cluster.KMeans: (1) with the linear kernel, from the same fixed
initial centres and ``tol=0``, the two run the same Lloyd iterations, so the
partitions must agree exactly and the time ratio is the price of working
through the n x n Gram matrix (O(n^2) per iteration instead of O(n k d));
(2) with the rbf kernel against KMeans on the same data, a different
algorithm: the row shows the adjusted Rand index of each against the truth
side by side (and the time of each).

The memory options (issue 23 item 5) have rows of their own: Nyström
spectral clustering against scikit-learn's exact SpectralClustering (the
agreement column is then the ARI between the approximate and the exact
partitions), and the row-block and Nyström kernel k-means against KMeans as
above. The runner's tracemalloc column shows what each option saves; the
large-n figures (60k and 100k samples, peak RSS per fit in a subprocess)
come from ``python -m benchmarks.kernel_memory``
(``results/kernel_memory.md``).
"""

from benchmarks.case import Case
from benchmarks.cases.cluster import fixed_centres


def _spectral(dataset, params, label):
    return Case(
        estimator="SpectralClustering",
        skml="skml.cluster:SpectralClustering",
        reference="sklearn.cluster:SpectralClustering",
        dataset=dataset,
        score="adjusted_rand_fit_predict",
        family="cluster",
        params=params,
        reference_params=params,
        label=label,
    )


def _spectral_vs_exact(dataset, params, label):
    return Case(
        estimator="SpectralClustering",
        skml="skml.cluster:SpectralClustering",
        reference="sklearn.cluster:SpectralClustering",
        dataset=dataset,
        score="adjusted_rand_fit_predict",
        family="cluster",
        params={**params, "approximation": "nystroem"},
        reference_params=params,
        label=label,
    )


def _kernel_kmeans(dataset, params, reference_params, label):
    return Case(
        estimator="KernelKMeans",
        skml="skml.cluster:KernelKMeans",
        reference="sklearn.cluster:KMeans",
        dataset=dataset,
        score="adjusted_rand",
        family="cluster",
        params=params,
        reference_params=reference_params,
        label=label,
    )


_LINEAR_INIT = {"init": fixed_centres(8, "clf_5k_20"), "tol": 0.0}

CASES = [
    _spectral("iris", {"n_clusters": 3, "random_state": 0}, "rbf"),
    _spectral("blobs_4k_10", {"n_clusters": 6, "gamma": 0.1, "random_state": 0},
              "rbf"),
    _spectral("blobs_4k_10", {"n_clusters": 6, "affinity": "nearest_neighbors",
                              "random_state": 0}, "knn"),
    _kernel_kmeans("clf_5k_20",
                   {"n_clusters": 8, "kernel": "linear", **_LINEAR_INIT},
                   {"n_clusters": 8, "n_init": 1, **_LINEAR_INIT},
                   "linear,vs KMeans"),
    _kernel_kmeans("blobs_4k_10",
                   {"n_clusters": 6, "gamma": 0.1, "random_state": 0},
                   {"n_clusters": 6, "random_state": 0},
                   "rbf,vs KMeans"),
    _spectral_vs_exact("blobs_4k_10", {"n_clusters": 6, "gamma": 0.1,
                                       "random_state": 0},
                       "rbf,nystroem vs exact"),
    _kernel_kmeans("blobs_4k_10",
                   {"n_clusters": 6, "gamma": 0.1, "random_state": 0,
                    "block_size": 512},
                   {"n_clusters": 6, "random_state": 0},
                   "rbf,blocks,vs KMeans"),
    _kernel_kmeans("blobs_4k_10",
                   {"n_clusters": 6, "gamma": 0.1, "random_state": 0,
                    "approximation": "nystroem"},
                   {"n_clusters": 6, "random_state": 0},
                   "rbf,nystroem,vs KMeans"),
]
