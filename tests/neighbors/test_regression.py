"""KNeighborsRegressor: parity with scikit-learn (notes A §5.1)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import neighbors as sk

from skml.neighbors import KNeighborsRegressor
from tests import _data
from tests._parity import parity_test


def _split():
    return _data.split("diabetes", test_size=0.3, stratify=False)


@parity_test(KNeighborsRegressor)
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("p", [1, 2])
def test_parity_diabetes(algorithm, weights, p):
    X_train, X_test, y_train, y_test = _split()
    ours = KNeighborsRegressor(7, weights=weights, algorithm=algorithm, p=p)
    ref = sk.KNeighborsRegressor(7, weights=weights, algorithm=algorithm, p=p)
    ours.fit(X_train, y_train)
    ref.fit(X_train, y_train)
    assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-12)
    assert_allclose(ours.predict(None), ref.predict(None), rtol=1e-12)
    assert_allclose(ours.score(X_test, y_test), ref.score(X_test, y_test), rtol=1e-12)


def test_multioutput_and_column_target():
    X_train, X_test, y_train, _ = _split()
    Y = np.column_stack([y_train, np.log(y_train)])
    ours = KNeighborsRegressor(weights="distance").fit(X_train, Y)
    ref = sk.KNeighborsRegressor(weights="distance").fit(X_train, Y)
    assert_allclose(ours.predict(X_test), ref.predict(X_test), rtol=1e-12)
    column = KNeighborsRegressor().fit(X_train, y_train[:, None])
    assert column.predict(X_test).shape == (len(X_test), 1)


def test_distance_weights_with_a_zero_distance():
    X = np.array([[0.0], [1.0], [1.0], [3.0]])
    y = np.array([0.0, 2.0, 4.0, 10.0])
    for algorithm in ("brute", "kd_tree"):
        reg = KNeighborsRegressor(3, weights="distance", algorithm=algorithm).fit(X, y)
        # The two training points at distance 0 alone: their mean.
        assert_allclose(reg.predict([[1.0]]), [3.0])
        ref = sk.KNeighborsRegressor(3, weights="distance").fit(X, y)
        assert_allclose(reg.predict([[0.2], [2.0]]), ref.predict([[0.2], [2.0]]))


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_distance_weights_reproduce_training_targets(algorithm):
    # Issue 19: exact distances, so a training point is at distance 0 from
    # itself and alone gives the prediction (brute force gave ~1e-8).
    X_train, _, y_train, _ = _split()
    X_train = X_train + 100.0
    reg = KNeighborsRegressor(5, weights="distance", algorithm=algorithm)
    reg.fit(X_train, y_train)
    assert_array_equal(reg.kneighbors(X_train)[0][:, 0], 0.0)
    assert_array_equal(reg.predict(X_train), y_train)


def test_uniform_mean_of_neighbours():
    X = np.arange(10.0)[:, None]
    y = X.ravel() ** 2
    reg = KNeighborsRegressor(3).fit(X, y)
    assert_allclose(reg.predict([[4.1]]), [(9 + 16 + 25) / 3])


def test_errors():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError):
        KNeighborsRegressor().fit(X, np.array(["a"] * 10))
    with pytest.raises(ValueError, match="p"):
        KNeighborsRegressor(p=0).fit(X, np.ones(10))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_extreme_magnitude_predicts_as_the_clean_data(factor, algorithm):
    # Issue 23: distances overflowed / underflowed at X * 1e300 / 1e-300.
    X, y = _data.load("diabetes")
    ref = KNeighborsRegressor(5, algorithm=algorithm, weights="distance").fit(X, y)
    reg = KNeighborsRegressor(5, algorithm=algorithm, weights="distance").fit(
        X * factor, y)
    assert_allclose(reg.predict(X[:50] * factor), ref.predict(X[:50]), rtol=1e-10)
