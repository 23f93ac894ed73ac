"""``algorithm="lsh"`` in the k-NN estimators: the LSH index of notes A §5.7."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

from skml.neighbors import (
    KNeighborsClassifier,
    KNeighborsRegressor,
    LSHNearestNeighbors,
    NearestNeighbors,
)
from tests._data import load, split

# Digits (pixels 0-16): the 10th neighbour is at distance ~23, where one hash
# of width w = 80 collides with probability ~0.8 (as in test_lsh.py).
DIGITS_LSH = {"n_hashes": 8, "bucket_width": 80.0, "fallback": "raise"}
# k = 0 hashes: one bucket holding every point, the index examines them all.
ALL_POINTS = {"n_tables": 1, "n_hashes": 0}


def _recall(exact, approx):
    return np.mean((exact[:, :, None] == approx[:, None, :]).any(axis=2))


def test_enough_tables_give_high_recall_on_digits():
    # Measured over random_state 0-9 with L = 40: recall 0.981-0.988 while
    # examining at most 34% of the points; with L = 1 about 0.6-0.7.
    X_tr, X_te, y_tr, _ = split("digits")
    exact = KNeighborsClassifier(n_neighbors=10, algorithm="brute").fit(X_tr, y_tr)
    truth = exact.kneighbors(X_te)[1]
    recalls = []
    for L in (1, 40):
        params = dict(DIGITS_LSH, n_tables=L, random_state=0,
                      fallback="brute" if L == 1 else "raise")
        est = KNeighborsClassifier(n_neighbors=10, algorithm="lsh",
                                   lsh_params=params).fit(X_tr, y_tr)
        recalls.append(_recall(truth, est.kneighbors(X_te)[1]))
    assert recalls[1] >= 0.9 > recalls[0]
    # ... from a fraction of the points (not the brute-force fallback).
    counts = est._lsh.candidate_counts(X_te, 10)
    assert counts.mean() < 0.5 * X_tr.shape[0]


def test_lsh_distances_are_exact():
    X_tr, X_te, y_tr, _ = split("digits")
    est = NearestNeighbors(n_neighbors=5, algorithm="lsh",
                           lsh_params=dict(DIGITS_LSH, n_tables=20, random_state=0))
    dist, ind = est.fit(X_tr).kneighbors(X_te)
    assert_allclose(dist, np.linalg.norm(X_te[:, None] - X_tr[ind], axis=2),
                    rtol=1e-12, atol=1e-12)
    exact = NearestNeighbors(n_neighbors=5, algorithm="brute").fit(X_tr)
    assert np.all(dist >= exact.kneighbors(X_te)[0] - 1e-9)


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classifier_examining_all_points_equals_brute_force(metric, weights):
    X_tr, X_te, y_tr, _ = split("wine", scale=True)
    kw = dict(n_neighbors=7, metric=metric, weights=weights)
    lsh = KNeighborsClassifier(algorithm="lsh", lsh_params=ALL_POINTS, **kw)
    brute = KNeighborsClassifier(algorithm="brute", **kw)
    lsh.fit(X_tr, y_tr)
    brute.fit(X_tr, y_tr)
    assert_array_equal(lsh.predict(X_te), brute.predict(X_te))
    assert_allclose(lsh.predict_proba(X_te), brute.predict_proba(X_te), atol=1e-12)
    assert_array_equal(lsh.kneighbors()[1], brute.kneighbors()[1])  # X=None


@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_regressor_examining_all_points_equals_brute_force(metric):
    X_tr, X_te, y_tr, _ = split("diabetes", stratify=False)
    lsh = KNeighborsRegressor(algorithm="lsh", metric=metric, lsh_params=ALL_POINTS)
    brute = KNeighborsRegressor(algorithm="brute", metric=metric)
    assert_allclose(lsh.fit(X_tr, y_tr).predict(X_te),
                    brute.fit(X_tr, y_tr).predict(X_te), rtol=1e-12)
    d1, i1 = lsh.kneighbors()
    d2, i2 = brute.kneighbors()
    assert_array_equal(i1, i2)
    assert_allclose(d1, d2, rtol=1e-9, atol=1e-12)


def test_nearest_neighbors_examining_all_points_equals_brute_force():
    X, _ = load("wine", scale=True)
    lsh = NearestNeighbors(n_neighbors=6, radius=3.0, algorithm="lsh",
                           lsh_params=ALL_POINTS).fit(X)
    brute = NearestNeighbors(n_neighbors=6, radius=3.0, algorithm="brute").fit(X)
    for Q in (None, X[::7] + 0.05):
        d1, i1 = lsh.kneighbors(Q)
        d2, i2 = brute.kneighbors(Q)
        assert_array_equal(i1, i2)
        assert_allclose(d1, d2, rtol=1e-9, atol=1e-12)
        g1 = lsh.radius_neighbors_graph(Q, mode="distance", sort_results=True)
        g2 = brute.radius_neighbors_graph(Q, mode="distance", sort_results=True)
        assert_array_equal(g1.indptr, g2.indptr)
        assert_array_equal(g1.indices, g2.indices)
        assert_allclose(g1.data, g2.data, rtol=1e-9, atol=1e-12)


def test_tied_distances_examining_all_points_equal_brute_force():
    # Iris has duplicated rows and many tied distances: which of two tied
    # points is k-th may differ, the distances may not.
    X, _ = load("iris")
    lsh = NearestNeighbors(n_neighbors=6, algorithm="lsh", lsh_params=ALL_POINTS)
    brute = NearestNeighbors(n_neighbors=6, algorithm="brute")
    assert_allclose(lsh.fit(X).kneighbors()[0], brute.fit(X).kneighbors()[0],
                    rtol=1e-9, atol=1e-12)


def test_the_index_takes_the_estimators_settings():
    X, y = load("iris")
    est = KNeighborsClassifier(n_neighbors=4, algorithm="lsh", metric="manhattan",
                               n_jobs=2, lsh_params={"n_tables": 3, "random_state": 1})
    lsh = est.fit(X, y)._lsh
    assert isinstance(lsh, LSHNearestNeighbors)
    assert (lsh.n_neighbors, lsh.n_jobs, lsh.n_tables_) == (4, 2, 3)
    assert lsh.family_ == "pstable_cauchy" and lsh.effective_metric_ == "manhattan"
    # Fixed random_state: the same index, the same answer.
    again = KNeighborsClassifier(n_neighbors=4, algorithm="lsh", metric="manhattan",
                                 lsh_params={"n_tables": 3, "random_state": 1})
    assert_array_equal(again.fit(X, y).kneighbors(X)[1], est.kneighbors(X)[1])
    # lsh_params is ignored by the exact engines.
    exact = KNeighborsClassifier(algorithm="kd_tree", lsh_params={"n_tables": 3})
    assert not hasattr(exact.fit(X, y), "_lsh")


@pytest.mark.parametrize("kwargs, match", [
    ({"lsh_params": {"n_table": 4}}, r"lsh_params keys \['n_table'\]"),
    ({"lsh_params": {"metric": "cosine"}}, r"lsh_params keys \['metric'\]"),
    ({"lsh_params": {"n_tables": 0}}, "lsh_params: .*'n_tables'"),
    ({"lsh_params": {"bucket_width": -1.0}}, "lsh_params: .*'bucket_width'"),
    ({"lsh_params": {"family": "hyperplane"}}, "lsh_params: .*family='hyperplane'"),
    ({"lsh_params": [("n_tables", 4)]}, "lsh_params"),
    ({"metric": "chebyshev"}, "algorithm='lsh' supports the metrics"),
    ({"p": 3}, "algorithm='lsh' supports the metrics"),
    ({"metric": "precomputed"}, "algorithm='lsh' supports the metrics"),
    ({"metric_params": {"w": [1.0] * 4}}, "algorithm='lsh' supports .* weights"),
])
def test_bad_parameters_are_clear_errors(kwargs, match):
    X, y = load("iris")
    if kwargs.get("metric") == "precomputed":
        X = np.linalg.norm(X[:, None] - X, axis=2)
    est = KNeighborsClassifier(algorithm="lsh", **kwargs)
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


def test_sparse_input_uses_brute_force_with_a_warning():
    X, y = load("iris")
    est = KNeighborsClassifier(algorithm="lsh")
    with pytest.warns(UserWarning, match="cannot use LSH with sparse input"):
        est.fit(sp.csr_matrix(X), y)
    assert est._fit_method == "brute"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_array_equal(est.predict(X),
                           KNeighborsClassifier(algorithm="brute").fit(X, y).predict(X))
