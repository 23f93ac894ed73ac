"""skml's LSH index against scikit-learn's exact brute force (issue 6).

The rows time ``fit`` (hashing and sorting the tables, against storing the
points) and the 10-nearest-neighbour query of the test split (the adapters'
``transform`` returns the neighbour indices). The score is recall@10: the
fraction of the exact 10 nearest neighbours that the answer contains (1.0
for brute force); the agreement is the fraction of equal index entries.

The 50k row uses ``mixture_67k_32`` (50k training points, 16.7k queries, 32
features): a mixture of 200 flat Gaussian clusters, data of low intrinsic
dimension such as LSH is meant for. Isotropic Gaussian noise is its worst
case (every point about equally far), where no hashing beats brute force at
high recall. The bucket width is about four times the typical 10th-neighbour
distance (3.2 on that set, ~23 on digits), where one hash collides with
probability ~0.8 (notes A §5.6).
"""

from sklearn.neighbors import NearestNeighbors as _SklearnNN

from benchmarks.case import Case
from skml.neighbors import LSHKNeighborsTransformer as _SkmlLSHTransformer
from skml.neighbors import LSHNearestNeighbors as _SkmlLSH

K = 10


def _exact(fit_X, queries):
    nn = _SklearnNN(n_neighbors=K, algorithm="brute").fit(fit_X)
    return nn.kneighbors(queries, return_distance=False)


class SkmlLSHIndices(_SkmlLSH):
    """skml LSHNearestNeighbors whose ``transform`` is the neighbour indices."""

    def transform(self, X):
        self._last_query = X
        return self.kneighbors(X, return_distance=False)

    def exact_neighbors(self):
        return _exact(self._fit_X, self._last_query)


class SkmlLSHGraphIndices(_SkmlLSHTransformer):
    """skml LSHKNeighborsTransformer whose ``transform`` is the neighbour
    indices read from its graph (the sample itself is not in the queries)."""

    def transform(self, X):
        self._last_query = X
        graph = super().transform(X)
        return graph.indices.reshape(graph.shape[0], -1)[:, :K]

    def exact_neighbors(self):
        return _exact(self._fit_X, self._last_query)


class SklearnBruteIndices(_SklearnNN):
    """scikit-learn NearestNeighbors whose ``transform`` is the neighbour indices."""

    def transform(self, X):
        self._last_query = X
        return self.kneighbors(X, return_distance=False)

    def exact_neighbors(self):
        return _exact(self._fit_X, self._last_query)


BRUTE = {"n_neighbors": K, "algorithm": "brute"}
# Notes' index (no probing) and multi-probe, on the 50k x 32 mixture.
MIXTURE_PLAIN = {"n_neighbors": K, "n_tables": 16, "n_hashes": 8, "bucket_width": 12.0,
                 "random_state": 0}
MIXTURE_PROBE = {"n_neighbors": K, "n_tables": 8, "n_hashes": 10, "bucket_width": 10.0,
                 "multi_probe": 16, "random_state": 0}
DIGITS = {"n_neighbors": K, "n_tables": 20, "n_hashes": 8, "bucket_width": 80.0,
          "random_state": 0}


def _case(estimator, skml, dataset, params, label, profiles=("quick", "full")):
    return Case(
        estimator=estimator,
        skml=f"benchmarks.cases.neighbors_lsh:{skml}",
        reference="benchmarks.cases.neighbors_lsh:SklearnBruteIndices",
        dataset=dataset,
        score="recall",
        family="neighbors",
        params=params,
        reference_params=BRUTE,
        label=label,
        profiles=profiles,
    )


CASES = [
    _case("LSHNearestNeighbors", "SkmlLSHIndices", "digits", DIGITS, "L20,k8"),
    _case("LSHNearestNeighbors", "SkmlLSHIndices", "mixture_67k_32", MIXTURE_PLAIN,
          "L16,k8"),
    _case("LSHNearestNeighbors", "SkmlLSHIndices", "mixture_67k_32", MIXTURE_PROBE,
          "L8,k10,probe16"),
    _case("LSHKNeighborsTransformer", "SkmlLSHGraphIndices", "mixture_67k_32",
          {**MIXTURE_PROBE, "mode": "connectivity"}, "L8,k10,probe16"),
]
