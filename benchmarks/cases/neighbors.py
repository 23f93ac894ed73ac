"""skml.neighbors against sklearn.neighbors, same hyper-parameters and engine.

Classifier and regressor rows time ``fit`` (storing, or building the tree)
and ``predict`` on the test split (the neighbour search). ``NearestNeighbors``
has no predict: the adapters below expose its k-nearest distances as
``transform``, so the row times ``kneighbors`` and reports the largest
distance difference (0 up to rounding: both searches are exact). The
"clf_3d_20k" rows are the KD-tree rows of issue 6 (3-d, 15k train / 5k
queries); the 20-feature rows use brute force.

The "brute,<metric>" rows are the non-Euclidean brute force (tiled kernel),
"ball_tree,callable" a Python metric searched by the ball tree. The tree
rows (``BallTree``, ``KDTree``) time building the tree as "fit" and
one method on the test split as "predict": ``query`` (k = 10 distances) or
``kernel_density`` (scikit-learn's default tolerances, rtol = 1e-8).
"""

import numpy as np
from sklearn import neighbors as _sk
from sklearn.base import BaseEstimator
from sklearn.neighbors import NearestNeighbors as _SklearnNN

from benchmarks.case import Case
from skml import neighbors as _skml
from skml.neighbors import NearestNeighbors as _SkmlNN


class SkmlKNNDistances(_SkmlNN):
    """skml NearestNeighbors whose ``transform`` is the k-nearest distances."""

    def transform(self, X):
        return self.kneighbors(X)[0]


class SklearnKNNDistances(_SklearnNN):
    """scikit-learn NearestNeighbors whose ``transform`` is the k-nearest distances."""

    def transform(self, X):
        return self.kneighbors(X)[0]


class _TreeAdapter(BaseEstimator):
    """A tree as an estimator: fit builds it, transform runs ``method``."""

    _module = None

    def __init__(self, tree="BallTree", method="query", leaf_size=40, k=10, h=1.0,
                 kernel="gaussian"):
        self.tree = tree
        self.method = method
        self.leaf_size = leaf_size
        self.k = k
        self.h = h
        self.kernel = kernel

    def fit(self, X, y=None):
        self.tree_ = getattr(self._module, self.tree)(X, leaf_size=self.leaf_size)
        return self

    def transform(self, X):
        if self.method == "query":
            return self.tree_.query(X, k=self.k)[0]
        return self.tree_.kernel_density(X, self.h, kernel=self.kernel)


class SkmlTree(_TreeAdapter):
    """skml's BallTree / KDTree behind the estimator interface."""

    _module = _skml


class SklearnTree(_TreeAdapter):
    """scikit-learn's BallTree / KDTree behind the estimator interface."""

    _module = _sk


def _tree(dataset, params, label):
    return Case(
        estimator=params["tree"],
        skml="benchmarks.cases.neighbors:SkmlTree",
        reference="benchmarks.cases.neighbors:SklearnTree",
        dataset=dataset,
        score="max_abs_diff",
        family="neighbors",
        params=params,
        reference_params=params,
        label=label,
    )


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


def l1_distance(a, b):
    """A Python metric (the Manhattan distance) for the callable-metric rows."""
    return np.abs(a - b).sum()


BRUTE = {"algorithm": "brute"}
TREE = {"algorithm": "kd_tree"}
BALL = {"algorithm": "ball_tree"}

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
    # The other vector metrics' brute force (issue 21): tiles of training
    # rows folded into heaps, against scikit-learn's pairwise reduction.
    *(
        _distances("clf_20k_20", {**BRUTE, "n_neighbors": 10, "metric": metric},
                   f"brute,{metric},k10")
        for metric in ("braycurtis", "canberra", "manhattan")
    ),
    # A Python callable metric in the ball tree (issue 21): both searches
    # call it once per node bound and per point scanned.
    _distances("wine", {**BALL, "n_neighbors": 10, "metric": l1_distance},
               "ball_tree,callable,k10"),
    _distances("clf_3d_20k", {**TREE, "n_neighbors": 10}, "kd_tree,k10"),
    _distances("clf_3d_20k", {**TREE, "n_neighbors": 10, "metric": "manhattan"},
               "kd_tree,manhattan,k10"),
    _pair("KNeighborsClassifier", "clf_3d_20k", "accuracy", BALL, label="ball_tree"),
    _distances("digits", {**BALL, "n_neighbors": 10}, "ball_tree,k10"),
    _tree("clf_3d_20k", {"tree": "BallTree"}, "query,k10"),
    _tree("digits", {"tree": "BallTree"}, "query,k10"),
    *(
        _tree(dataset, {"tree": tree, "method": "kernel_density", "h": h,
                        "kernel": kernel}, f"kernel_density,{kernel},h{h}")
        for tree in ("BallTree", "KDTree")
        for dataset, h in (("clf_3d_20k", 0.5), ("digits", 5.0))
        for kernel in ("gaussian", "epanechnikov")
    ),
]
