"""Inputs of the exact neighbour estimators that scikit-learn accepts (issue 21).

DistanceMetric objects as ``metric``, a radius per query point, a fitted
index in place of X, and the errors scikit-learn raises (and its tests
match) for inputs the engines cannot take.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import neighbors as sk
from sklearn.metrics import DistanceMetric

from skml.neighbors import (
    BallTree,
    KDTree,
    KNeighborsClassifier,
    KNeighborsRegressor,
    NearestNeighbors,
)

ALGORITHMS = ["auto", "brute", "kd_tree", "ball_tree"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    X = rng.rand(60, 4)
    y = rng.randint(3, size=60)
    Q = rng.rand(7, 4)
    return X, y, Q


# -- metric=DistanceMetric ---------------------------------------------------
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("name", ["euclidean", "manhattan", "chebyshev"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_distance_metric_object_is_its_named_metric(data, algorithm, name, dtype):
    X, _, Q = data
    X, Q = X.astype(dtype), Q.astype(dtype)
    dm = DistanceMetric.get_metric(name, dtype=dtype)
    ours = NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric=dm).fit(X)
    named = NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric=name).fit(X)
    dist, ind = ours.kneighbors(Q)
    dist_n, ind_n = named.kneighbors(Q)
    assert_array_equal(ind, ind_n)
    assert_allclose(dist, dist_n)
    assert ours.effective_metric_ == name
    # and the distances are that metric's (scikit-learn's object agrees)
    assert_allclose(dist, np.take_along_axis(
        dm.pairwise(Q.astype(np.float64), X.astype(np.float64)), ind, axis=1),
        rtol=1e-6)


@pytest.mark.parametrize("Estimator", [KNeighborsClassifier, KNeighborsRegressor])
def test_distance_metric_object_in_predictors(data, Estimator):
    X, y, Q = data
    dm = DistanceMetric.get_metric("manhattan")
    ours = Estimator(n_neighbors=3, metric=dm).fit(X, y).predict(Q)
    # (scikit-learn's classifier fails on such an object: its name instead)
    ref = getattr(sk, Estimator.__name__)(n_neighbors=3, metric="manhattan").fit(
        X, y).predict(Q)
    assert_allclose(ours, ref)


@pytest.mark.parametrize("kwargs, match", [
    (dict(metric="minkowski", p=3), 'metric="minkowski" with p'),
    (dict(metric="seuclidean", V=np.ones(4)), "DistanceMetric objects accepted"),
    (dict(metric="haversine"), "DistanceMetric objects accepted"),
])
def test_distance_metric_object_without_public_parameters_is_refused(data, kwargs,
                                                                     match):
    X = data[0]
    with pytest.raises(ValueError, match=match):
        NearestNeighbors(metric=DistanceMetric.get_metric(**kwargs)).fit(X)


def test_other_metric_objects_are_still_refused(data):
    from skml.utils import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="DistanceMetric"):
        NearestNeighbors(metric=object()).fit(data[0])


# -- errors scikit-learn raises ---------------------------------------------
@pytest.mark.parametrize("algorithm", ["kd_tree", "ball_tree"])
@pytest.mark.parametrize("Estimator", [NearestNeighbors, KNeighborsRegressor])
def test_tree_with_p_below_one_names_the_fix(data, algorithm, Estimator):
    X, y, _ = data
    msg = (f'algorithm="{algorithm}" does not support 0 < p < 1 for the Minkowski '
           'metric. To resolve this problem either set p >= 1 or algorithm="brute".')
    with pytest.raises(ValueError, match=msg):
        Estimator(algorithm=algorithm, p=0.5).fit(X, y)


@pytest.mark.parametrize("algorithm", ["kd_tree", "ball_tree"])
def test_tree_refuses_sparse_queries(data, algorithm):
    X, y, Q = data
    model = KNeighborsClassifier(n_neighbors=1, algorithm=algorithm).fit(X, y)
    with pytest.raises(ValueError, match="dense queries only"):
        model.predict(sp.csr_matrix(Q))


def test_brute_still_takes_sparse_queries_of_a_dense_index(data):
    X, y, Q = data
    model = KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X, y)
    assert_array_equal(model.predict(sp.csr_matrix(Q)), model.predict(Q))


@pytest.mark.parametrize("fmt", ["dok", "bsr"])
def test_precomputed_graph_format_losing_explicit_zeros_is_refused(data, fmt):
    X, y, _ = data
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    with pytest.raises(TypeError, match="handling of explicit zeros"):
        KNeighborsRegressor(metric="precomputed").fit(sp.csr_matrix(D).asformat(fmt), y)
    model = NearestNeighbors(n_neighbors=2, metric="precomputed").fit(D)
    with pytest.raises(TypeError, match="handling of explicit zeros"):
        model.kneighbors(sp.csr_matrix(D[:3]).asformat(fmt))
    # COO and CSC keep them
    model.kneighbors(sp.coo_matrix(D[:3]))


def test_graph_mode_message_quotes_the_mode(data):
    model = NearestNeighbors().fit(data[0])
    msg = 'but got "blah" instead'
    with pytest.raises(ValueError, match=msg):
        model.kneighbors_graph(mode="blah")
    with pytest.raises(ValueError, match=msg):
        model.radius_neighbors_graph(mode="blah")


# -- a radius per query point ------------------------------------------------
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_radius_array_is_one_radius_per_query(data, algorithm):
    X, _, Q = data
    radius = np.linspace(0.0, 0.6, len(Q))
    model = NearestNeighbors(algorithm=algorithm).fit(X)
    dist, ind = model.radius_neighbors(Q, radius=radius, sort_results=True)
    for q in range(len(Q)):
        d, i = model.radius_neighbors(Q[q:q + 1], radius=radius[q], sort_results=True)
        assert_array_equal(ind[q], i[0])
        assert_allclose(dist[q], d[0])
    graph = model.radius_neighbors_graph(Q, radius=list(radius), mode="distance")
    assert_array_equal(np.diff(graph.indptr), [len(i) for i in ind])
    # the training points, each without itself
    r_train = np.full(len(X), 0.3)
    ind_none = model.radius_neighbors(radius=r_train, return_distance=False)
    ind_scalar = model.radius_neighbors(radius=0.3, return_distance=False)
    for a, b in zip(ind_none, ind_scalar):
        assert_array_equal(np.sort(a), np.sort(b))


def test_radius_array_is_checked(data):
    X, _, Q = data
    model = NearestNeighbors().fit(X)
    with pytest.raises(ValueError, match="one value per query point"):
        model.radius_neighbors(Q, radius=np.ones(len(Q) + 1))
    with pytest.raises(ValueError, match="non-negative"):
        model.radius_neighbors(Q, radius=np.full(len(Q), -1.0))


# -- a fitted index in place of X --------------------------------------------
@pytest.mark.parametrize("Estimator", [NearestNeighbors, KNeighborsClassifier,
                                       KNeighborsRegressor])
def test_fit_on_a_fitted_index(data, Estimator):
    X, y, Q = data
    expected = NearestNeighbors(n_neighbors=2).fit(X).kneighbors(Q)
    big = X * 1e300  # the index holds X / 2^e: its data must come back as X
    sources = [NearestNeighbors().fit(X), KNeighborsRegressor().fit(X, y), KDTree(X),
               BallTree(X), sk.KDTree(X), sk.BallTree(X)]
    for source in sources:
        dist, ind = Estimator(n_neighbors=2).fit(source, y).kneighbors(Q)
        assert_array_equal(ind, expected[1])
        assert_allclose(dist, expected[0])
    model = Estimator(n_neighbors=2).fit(NearestNeighbors().fit(big), y)
    assert_allclose(model.kneighbors(Q * 1e300)[0], expected[0] * 1e300)


# -- metric="haversine" ------------------------------------------------------
@pytest.fixture(scope="module")
def lat_lon():
    rng = np.random.RandomState(1)
    X = np.c_[rng.uniform(-1.5, 1.5, 150), rng.uniform(-3, 3, 150)]
    Q = np.c_[rng.uniform(-1.5, 1.5, 12), rng.uniform(-3, 3, 12)]
    return X, Q


@pytest.mark.parametrize("algorithm", ["auto", "brute", "ball_tree"])
def test_haversine_equals_scikit_learn(lat_lon, algorithm):
    X, Q = lat_lon
    ours = NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric="haversine")
    ref = sk.NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric="haversine")
    ours.fit(X)
    ref.fit(X)
    assert ours._fit_method == ref._fit_method  # "auto": the ball tree
    dist, ind = ours.kneighbors(Q)
    dist_r, ind_r = ref.kneighbors(Q)
    assert_array_equal(ind, ind_r)
    assert_allclose(dist, dist_r, atol=1e-12)
    got = ours.radius_neighbors(Q, radius=0.4, sort_results=True)
    want = ref.radius_neighbors(Q, radius=0.4, sort_results=True)
    for a, b in zip(got[1], want[1]):
        assert_array_equal(a, b)


def test_haversine_distances_are_great_circle_arcs():
    from skml.metrics.pairwise import haversine_distances

    # the equator's quarter and the pole from the equator: pi / 2; antipodes: pi
    d = haversine_distances([[0.0, 0.0]], [[0.0, np.pi / 2], [np.pi / 2, 1.0],
                                           [0.0, np.pi]])
    assert_allclose(d, [[np.pi / 2, np.pi / 2, np.pi]])
    with pytest.raises(ValueError, match="only valid in 2 dimensions"):
        haversine_distances(np.zeros((2, 3)))


def test_haversine_errors(lat_lon):
    X, _ = lat_lon
    y = np.arange(len(X)) % 2
    with pytest.raises(ValueError, match="Metric 'haversine' not valid for sparse"):
        KNeighborsClassifier(metric="haversine", algorithm="ball_tree").fit(
            sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="does not support metric='haversine'"):
        NearestNeighbors(metric="haversine", algorithm="kd_tree").fit(X)
    # as scikit-learn: the brute force fits 3 features, the query refuses them
    X3 = np.c_[X, X[:, :1]]
    model = KNeighborsRegressor(metric="haversine", algorithm="brute").fit(X3, y)
    with pytest.raises(ValueError, match="only valid in 2 dimensions"):
        model.predict(X3)
