"""Datasets of the benchmark: bundled real sets and seeded synthetic ones.

Each loader returns ``(X_train, X_test, y_train, y_test)``, features
standardised on the training split so that iterative solvers of both sides
see the same well-scaled problem. Synthetic sets are generated with a fixed
seed, so every run and both sides see the same numbers.
"""

from functools import lru_cache

import numpy as np
from sklearn import datasets as skdatasets
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler


def _split(X, y, stratify, seed=0):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.25, random_state=seed, stratify=y if stratify else None
    )
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def _bundled(loader, classification):
    X, y = loader(return_X_y=True)
    return _split(X.astype(np.float64), y, classification)


def _classification(n_samples, n_features, n_classes=2, seed=0):
    X, y = skdatasets.make_classification(
        n_samples=n_samples, n_features=n_features, n_informative=n_features // 2,
        n_redundant=n_features // 4, n_classes=n_classes, flip_y=0.05,
        class_sep=1.0, random_state=seed,
    )
    return _split(X, y, True)


def _regression(n_samples, n_features, seed=0):
    X, y = skdatasets.make_regression(
        n_samples=n_samples, n_features=n_features, n_informative=n_features // 2,
        noise=10.0, random_state=seed,
    )
    return _split(X, y, False)


def _mixture(n_samples, n_features, n_clusters=200, n_intrinsic=8, seed=0):
    """Gaussian mixture of flat clusters: each cluster spans a random
    ``n_intrinsic``-dimensional subspace, plus a little isotropic noise (data
    of low intrinsic dimension, as real embeddings; isotropic noise is the
    worst case of LSH). Labels are the clusters."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_clusters, size=n_samples)
    X = 0.1 * rng.standard_normal((n_samples, n_features))
    centres = rng.standard_normal((n_clusters, n_features))
    for c in range(n_clusters):
        rows = np.flatnonzero(y == c)
        basis = rng.standard_normal((n_intrinsic, n_features)) / np.sqrt(n_intrinsic)
        X[rows] += centres[c] + rng.standard_normal((rows.size, n_intrinsic)) @ basis
    return _split(X, y, True)


# name -> (loader, task). Sizes in the names count all samples before the split.
DATASETS = {
    "iris": (lambda: _bundled(skdatasets.load_iris, True), "classification"),
    "wine": (lambda: _bundled(skdatasets.load_wine, True), "classification"),
    "breast_cancer": (
        lambda: _bundled(skdatasets.load_breast_cancer, True), "classification"
    ),
    "digits": (lambda: _bundled(skdatasets.load_digits, True), "classification"),
    "diabetes": (lambda: _bundled(skdatasets.load_diabetes, False), "regression"),
    "clf_20k_20": (lambda: _classification(20_000, 20), "classification"),
    "clf_5k_20": (lambda: _classification(5_000, 20), "classification"),
    "clf3_20k_20": (lambda: _classification(20_000, 20, n_classes=3), "classification"),
    "reg_20k_20": (lambda: _regression(20_000, 20), "regression"),
    # Low-dimensional data for the KD-tree rows (make_classification needs
    # n_informative = 3 for two classes of two clusters in 3-d).
    "clf_3d_20k": (
        lambda: _split(*skdatasets.make_classification(
            n_samples=20_000, n_features=3, n_informative=3, n_redundant=0,
            flip_y=0.05, random_state=0), True),
        "classification",
    ),
    "clf_20k_100": (lambda: _classification(20_000, 100), "classification"),
    # 50k training points / 16.7k queries for the LSH rows.
    "mixture_67k_32": (lambda: _mixture(66_668, 32), "classification"),
    # 20k training points of 20 flat clusters in 50-d, for the t-SNE rows.
    "mixture_27k_50": (lambda: _mixture(26_667, 50, n_clusters=20), "classification"),
    # Six overlapping Gaussian blobs in 10-d, for the spectral clustering rows.
    "blobs_4k_10": (
        lambda: _split(*skdatasets.make_blobs(
            n_samples=4_000, n_features=10, centers=6, cluster_std=2.0,
            random_state=0), True),
        "classification",
    ),
}
# Scaling series for the full profile: the same generator at growing sizes.
SCALING_SIZES = (10_000, 30_000, 100_000, 300_000)
for _n in SCALING_SIZES:
    DATASETS[f"clf_{_n // 1000}k_20"] = (
        lambda n=_n: _classification(n, 20), "classification"
    )
    DATASETS[f"reg_{_n // 1000}k_20"] = (lambda n=_n: _regression(n, 20), "regression")


@lru_cache(maxsize=8)
def load(name):
    """Return ``(X_train, X_test, y_train, y_test)`` for a dataset name."""
    try:
        loader, _ = DATASETS[name]
    except KeyError:
        raise ValueError(f"unknown dataset {name!r}; known: {sorted(DATASETS)}")
    return loader()
