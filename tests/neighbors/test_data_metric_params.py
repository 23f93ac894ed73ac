"""seuclidean / mahalanobis without V / VI, as scikit-learn 1.9 (issue 21).

scikit-learn's trees refuse the metric at fit; its brute force fits,
estimates the argument from the training data (``var(X, ddof=1)``,
``inv(cov(X.T))``) for the training points' own queries (``kneighbors()``
without X) and refuses other queries. ``pairwise_distances`` estimates it
for X against itself and requires it otherwise.
"""

import numpy as np
import pytest
import sklearn.neighbors as skn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_wine
from sklearn.metrics import pairwise_distances as sk_pairwise_distances

from skml.metrics.pairwise import pairwise_distances
from skml.neighbors import KNeighborsClassifier, NearestNeighbors


def _wine():
    X, y = load_wine(return_X_y=True)
    return X, y


@pytest.mark.parametrize("metric", ["seuclidean", "mahalanobis"])
def test_pairwise_distances_estimate_from_x_as_sklearn(metric):
    X, _ = _wine()
    for Y in (None, X):
        assert_allclose(pairwise_distances(X, Y, metric=metric),
                        sk_pairwise_distances(X, Y, metric=metric), rtol=1e-10)
    with pytest.raises(ValueError, match="required .* when Y is passed"):
        pairwise_distances(X, X[:5].copy(), metric=metric)


def test_mahalanobis_brute_training_queries_as_sklearn():
    X, _ = _wine()
    ours = NearestNeighbors(n_neighbors=4, algorithm="brute",
                            metric="mahalanobis").fit(X)
    ref = skn.NearestNeighbors(n_neighbors=4, algorithm="brute",
                               metric="mahalanobis").fit(X)
    d1, i1 = ours.kneighbors()
    d2, i2 = ref.kneighbors()
    assert_allclose(d1, d2, rtol=1e-9)
    assert_array_equal(i1, i2)
    g1 = ours.radius_neighbors_graph(radius=3.0, mode="distance")
    g2 = ref.radius_neighbors_graph(radius=3.0, mode="distance")
    assert (g1 != 0).nnz == (g2 != 0).nnz
    assert_allclose(g1.toarray(), g2.toarray(), rtol=1e-9)
    assert ours.effective_metric_params_ == ref.effective_metric_params_ == {}


@pytest.mark.parametrize("metric", ["seuclidean", "mahalanobis"])
def test_brute_training_queries_use_estimate(metric):
    # seuclidean: scikit-learn fails here by an internal TypeError; skml
    # answers as for mahalanobis, with the documented estimate.
    X, _ = _wine()
    param = {"seuclidean": {"V": np.var(X, axis=0, ddof=1)},
             "mahalanobis": {"VI": np.linalg.inv(np.cov(X.T))}}[metric]
    d1, i1 = NearestNeighbors(n_neighbors=3, algorithm="brute",
                              metric=metric).fit(X).kneighbors()
    d2, i2 = NearestNeighbors(n_neighbors=3, algorithm="brute", metric=metric,
                              metric_params=param).fit(X).kneighbors()
    assert_allclose(d1, d2, rtol=1e-10)
    assert_array_equal(i1, i2)


@pytest.mark.parametrize("metric", ["seuclidean", "mahalanobis"])
def test_brute_other_queries_refused_as_sklearn(metric):
    X, y = _wine()
    ours = NearestNeighbors(n_neighbors=3, algorithm="brute", metric=metric).fit(X)
    ref = skn.NearestNeighbors(n_neighbors=3, algorithm="brute", metric=metric).fit(X)
    for est in (ours, ref):  # both fit; both refuse queries of other points
        with pytest.raises((ValueError, TypeError)):
            est.kneighbors(X[:2])
    with pytest.raises(ValueError, match="required for the .* when Y is passed"):
        ours.kneighbors(X[:2])
    with pytest.raises(ValueError, match="required"):
        ours.radius_neighbors(X[:2], radius=1.0)
    clf = KNeighborsClassifier(3, algorithm="brute", metric=metric).fit(X, y)
    with pytest.raises(ValueError, match="required"):
        clf.predict(X)


@pytest.mark.parametrize("metric", ["seuclidean", "mahalanobis"])
@pytest.mark.parametrize("algorithm", ["ball_tree", "auto"])
def test_trees_refuse_at_fit_as_sklearn(metric, algorithm):
    X, _ = _wine()  # 13 features: "auto" is the ball tree
    with pytest.raises((ValueError, TypeError)):
        skn.NearestNeighbors(algorithm=algorithm, metric=metric).fit(X)
    with pytest.raises(ValueError, match="needs V"):
        NearestNeighbors(algorithm=algorithm, metric=metric).fit(X)


def test_auto_in_high_dimension_is_brute_with_estimate():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 20)  # > 15 features: "auto" is the brute force
    ours = NearestNeighbors(n_neighbors=2, metric="mahalanobis").fit(X)
    ref = skn.NearestNeighbors(n_neighbors=2, metric="mahalanobis").fit(X)
    assert ours._fit_method == ref._fit_method == "brute"
    assert_allclose(ours.kneighbors()[0], ref.kneighbors()[0], rtol=1e-9)


def test_degenerate_data_raise_at_the_query():
    X = np.random.RandomState(0).rand(10, 3)
    X[:, 1] = 2.0  # constant feature: variance 0, singular covariance
    for metric in ("seuclidean", "mahalanobis"):
        nn = NearestNeighbors(n_neighbors=2, algorithm="brute", metric=metric).fit(X)
        with pytest.raises(ValueError, match="estimated from the training data"):
            nn.kneighbors()
