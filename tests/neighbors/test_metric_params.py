"""metric_params of the exact neighbour estimators (issue 21): p and weights w."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk
from sklearn.datasets import load_wine

from skml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X[:, :6], y


@pytest.mark.parametrize("algorithm", ["auto", "brute", "ball_tree"])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_weighted_minkowski_equals_scikit_learn(wine, algorithm, p):
    X, y = wine
    w = np.linspace(0.2, 3.0, X.shape[1])
    params = dict(n_neighbors=5, algorithm=algorithm, p=p, metric_params={"w": w})
    ours = NearestNeighbors(**params).fit(X)
    ref = sk.NearestNeighbors(**params).fit(X)
    assert ours._fit_method == ref._fit_method  # "auto": the ball tree, as sklearn
    assert ours.effective_metric_ == ref.effective_metric_ == "minkowski"
    Q = X[:40] + 0.1
    d1, i1 = ours.kneighbors(Q)
    d2, i2 = ref.kneighbors(Q)
    assert_allclose(d1, d2, rtol=1e-10)
    assert_array_equal(i1, i2)
    D = cdist(Q, X, "minkowski", p=p, w=w)
    assert_allclose(d1, np.sort(D, axis=1)[:, :5], rtol=1e-10)
    g1 = ours.radius_neighbors_graph(Q, 1.5, mode="distance")
    g2 = ref.radius_neighbors_graph(Q, 1.5, mode="distance")
    assert_allclose(g1.toarray(), g2.toarray(), rtol=1e-10)
    for est, ref_est in [(KNeighborsClassifier, sk.KNeighborsClassifier),
                         (KNeighborsRegressor, sk.KNeighborsRegressor)]:
        kw = dict(algorithm=algorithm, p=p, metric_params={"w": w})
        assert_allclose(est(**kw).fit(X, y).predict(Q), ref_est(**kw).fit(X, y).predict(Q))


def test_p_in_metric_params_overrides_with_warning(wine):
    X, _ = wine
    with pytest.warns(SyntaxWarning, match="metric_params"):
        ours = NearestNeighbors(metric_params={"p": 1}).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sk.NearestNeighbors(metric_params={"p": 1}).fit(X)
    assert ours.effective_metric_ == ref.effective_metric_ == "manhattan"
    assert_allclose(ours.kneighbors(X[:10])[0], ref.kneighbors(X[:10])[0])


def test_metric_params_errors(wine):
    X, _ = wine
    # An argument the metric does not take: an unexpected keyword (TypeError),
    # as scikit-learn's.
    with pytest.raises(TypeError, match="takes no argument"):
        NearestNeighbors(metric_params={"V": np.ones(6)}).fit(X)
    with pytest.raises(TypeError, match="metric='minkowski'"):
        NearestNeighbors(metric="euclidean", metric_params={"w": np.ones(6)}).fit(X)
    with pytest.raises(ValueError, match="one weight per feature"):
        NearestNeighbors(metric_params={"w": np.ones(3)}).fit(X)
    with pytest.raises(ValueError, match="kd_tree"):
        NearestNeighbors(algorithm="kd_tree", metric_params={"w": np.ones(6)}).fit(X)
    with pytest.raises(ValueError, match="metric_params"):
        NearestNeighbors(metric_params="w").fit(X)
