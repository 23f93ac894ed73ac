"""Shared test data: bundled datasets loaded once, standard splits, small makers.

Every function here is deterministic: the same arguments give the same arrays,
bit for bit, so a test that switches from its own copy of a helper to one of
these keeps testing the same numbers.

- ``load(name, scale=False)``: a bundled scikit-learn dataset as ``(X, y)``,
  read from disk once per session and handed out as fresh copies (tests may
  write into them), standardised if asked.
- ``split(name, ...)``: the standard train/test split used by the parity tests
  (``train_test_split`` with ``random_state=0``), optionally standardised on
  the training part.
- ``blobs``, ``classification``, ``regression``: small synthetic sets with a
  fixed seed, for tests that do not need a real dataset.
- ``random_labels``: noise features, labels and sample weights, for checks of
  derivatives and solvers that need no signal.
"""
from functools import lru_cache

import numpy as np
from sklearn import datasets
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

NAMES = ("iris", "wine", "breast_cancer", "digits", "diabetes")


@lru_cache(maxsize=None)
def _cached(name):
    if name not in NAMES:
        raise ValueError(f"unknown dataset {name!r}; expected one of {NAMES}")
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    # The cached arrays are never handed out; make an accidental write loud.
    X.flags.writeable = False
    y.flags.writeable = False
    return X, y


def load(name, *, scale=False):
    """``(X, y)`` of the bundled dataset ``name`` (e.g. "iris"), as fresh copies.

    ``scale=True`` standardises every feature over the whole set.
    """
    X, y = _cached(name)
    X = StandardScaler().fit_transform(X) if scale else X.copy()
    return X, y.copy()


def split(name, *, test_size=0.25, stratify=True, scale=False, random_state=0):
    """``X_train, X_test, y_train, y_test`` of a bundled dataset.

    ``stratify`` keeps the class proportions (classification sets only);
    ``scale`` standardises both parts with the training part's mean and scale.
    """
    X, y = load(name)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, random_state=random_state,
        stratify=y if stratify else None,
    )
    if scale:
        scaler = StandardScaler().fit(X_tr)
        X_tr, X_te = scaler.transform(X_tr), scaler.transform(X_te)
    return X_tr, X_te, y_tr, y_te


def blobs(n, seed, *, n_features=10, centers=6, cluster_std=3.0, scale=True):
    """``make_blobs`` with a fixed seed, standardised unless ``scale=False``."""
    X, y = datasets.make_blobs(n, n_features=n_features, centers=centers,
                               cluster_std=cluster_std, random_state=seed)
    return (StandardScaler().fit_transform(X) if scale else X), y


def classification(n=100, seed=0, *, n_features=5, n_classes=2, **kw):
    """A small ``make_classification`` set with a fixed seed (all features informative)."""
    kw.setdefault("n_informative", n_features)
    kw.setdefault("n_redundant", 0)
    return datasets.make_classification(n, n_features, n_classes=n_classes,
                                        random_state=seed, **kw)


def regression(n=50, seed=0, *, n_features=4, noise=1.0, **kw):
    """A small ``make_regression`` set with a fixed seed."""
    return datasets.make_regression(n, n_features, noise=noise, random_state=seed, **kw)


def random_labels(n_classes, seed=0, *, n_samples=40, n_features=5):
    """``(X, y, sample_weight)``: standard normal features, labels drawn
    independently of them (every class present: the first ``n_classes`` rows
    take one each) and weights uniform in [0.2, 2)."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    y = rng.randint(n_classes, size=n_samples)
    y[:n_classes] = np.arange(n_classes)
    return X, y, rng.uniform(0.2, 2.0, size=n_samples)
