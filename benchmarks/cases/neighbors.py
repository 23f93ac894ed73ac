"""skml.neighbors against sklearn.neighbors, same hyper-parameters and engine.

Classifier and regressor rows time ``fit`` (storing, or building the tree)
and ``predict`` on the test split (the neighbour search). ``NearestNeighbors``
has no predict: the adapters below expose its k-nearest distances as
``transform``, so the row times ``kneighbors`` and reports the largest
distance difference (0 up to rounding: both searches are exact). The
"clf_3d_20k" rows are the KD-tree rows of issue 6 (3-d, 15k train / 5k
queries); the 20-feature rows use brute force.
"""

from sklearn.neighbors import NearestNeighbors as _SklearnNN

from benchmarks.case import Case
from skml.neighbors import NearestNeighbors as _SkmlNN


class SkmlKNNDistances(_SkmlNN):
    """skml NearestNeighbors whose ``transform`` is the k-nearest distances."""

    def transform(self, X):
        return self.kneighbors(X)[0]


class SklearnKNNDistances(_SklearnNN):
    """scikit-learn NearestNeighbors whose ``transform`` is the k-nearest distances."""

    def transform(self, X):
        return self.kneighbors(X)[0]


def _pair(name, dataset, score, params, label="", **kw):
    return Case(
        estimator=name,
        skml=f"skml.neighbors:{name}",
        reference=f"sklearn.neighbors:{name}",
        dataset=dataset,
        score=score,
        family="neighbors",
        params=params,
        reference_params=params,
        label=label,
        **kw,
    )


def _distances(dataset, params, label):
    return Case(
        estimator="NearestNeighbors",
        skml="benchmarks.cases.neighbors:SkmlKNNDistances",
        reference="benchmarks.cases.neighbors:SklearnKNNDistances",
        dataset=dataset,
        score="max_abs_diff",
        family="neighbors",
        params=params,
        reference_params=params,
        label=label,
    )


BRUTE = {"algorithm": "brute"}
TREE = {"algorithm": "kd_tree"}

CASES = [
    *(
        _pair("KNeighborsClassifier", dataset, "accuracy", BRUTE, label="brute")
        for dataset in ("iris", "wine", "breast_cancer", "digits", "clf_20k_20")
    ),
    _pair("KNeighborsClassifier", "clf_20k_20", "log_loss",
          {**BRUTE, "weights": "distance"}, label="brute,distance,proba"),
    _pair("KNeighborsClassifier", "clf_3d_20k", "accuracy", TREE, label="kd_tree"),
    _pair("KNeighborsRegressor", "diabetes", "r2", BRUTE, label="brute"),
    _pair("KNeighborsRegressor", "reg_20k_20", "r2", BRUTE, label="brute"),
    _pair("KNeighborsRegressor", "diabetes", "r2", TREE, label="kd_tree"),
    _distances("clf_20k_20", {**BRUTE, "n_neighbors": 10}, "brute,k10"),
    _distances("clf_3d_20k", {**TREE, "n_neighbors": 10}, "kd_tree,k10"),
    _distances("clf_3d_20k", {**TREE, "n_neighbors": 10, "metric": "manhattan"},
               "kd_tree,manhattan,k10"),
]
