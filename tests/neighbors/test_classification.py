"""KNeighborsClassifier: parity with scikit-learn, the notes' k-NN rule (A §5.1)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import neighbors as sk

from skml.neighbors import KNeighborsClassifier
from tests import _data
from tests._parity import parity_test

DATASETS = ["iris", "wine", "breast_cancer"]


def _split(name):
    return _data.split(name, test_size=0.3, scale=True)


@parity_test(KNeighborsClassifier)
@pytest.mark.parametrize("name", DATASETS)
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_parity_predictions_and_probabilities(name, algorithm, weights):
    X_train, X_test, y_train, y_test = _split(name)
    params = {"n_neighbors": 5, "weights": weights, "algorithm": algorithm}
    ours = KNeighborsClassifier(**params).fit(X_train, y_train)
    ref = sk.KNeighborsClassifier(**params).fit(X_train, y_train)
    assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-12)
    assert_array_equal(ours.predict(X_test), ref.predict(X_test))
    assert ours.score(X_test, y_test) == ref.score(X_test, y_test)
    assert_array_equal(ours.classes_, ref.classes_)


@parity_test(KNeighborsClassifier)
@pytest.mark.parametrize("metric", ["manhattan", "cosine", "chebyshev"])
def test_parity_other_metrics_and_query_is_train(metric):
    X_train, _, y_train, _ = _split("wine")
    ours = KNeighborsClassifier(7, metric=metric).fit(X_train, y_train)
    ref = sk.KNeighborsClassifier(7, metric=metric, algorithm="brute")
    ref.fit(X_train, y_train)
    # predict(None): each training point voted on by the others. Where the
    # 7th and 8th neighbours are at the same distance (the Chebyshev distance
    # ties often) we keep the smaller index and scikit-learn's heap either
    # one: compare the other rows, and check those are nearly all of them.
    dist = ours.kneighbors(None, n_neighbors=8)[0]
    clear = dist[:, 6] < dist[:, 7]
    assert clear.mean() > 0.9
    assert_allclose(ours.predict_proba(None)[clear], ref.predict_proba(None)[clear],
                    atol=1e-12)
    assert_array_equal(ours.predict(None)[clear], ref.predict(None)[clear])


def test_distance_weights_with_a_zero_distance():
    X = np.array([[0.0], [1.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 0, 1, 1])
    for algorithm in ("brute", "kd_tree"):
        clf = KNeighborsClassifier(3, weights="distance", algorithm=algorithm).fit(X, y)
        ref = sk.KNeighborsClassifier(3, weights="distance").fit(X, y)
        # Query 1.0 coincides with two training points of different classes:
        # only they vote, equally.
        Q = [[1.0], [0.0], [2.4]]
        assert_allclose(clf.predict_proba(Q), ref.predict_proba(Q))
        assert_allclose(clf.predict_proba([[1.0]]), [[0.5, 0.5]])
        assert_array_equal(clf.predict([[0.0]]), [0])


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_distance_weights_training_point_is_its_own_only_voter(algorithm):
    # Issue 19: brute force measured a training point at ~3e-5 from itself
    # (the expansion ||x||² − 2x·y + ||y||² far from the origin), so the
    # other neighbours kept a vote. Exact distances: its own label, alone.
    X, y = _data.load("iris")
    X = X + 1000.0
    keep = np.unique(X, axis=0, return_index=True)[1]  # no duplicate rows
    X, y = X[keep], y[keep]
    clf = KNeighborsClassifier(5, weights="distance", algorithm=algorithm).fit(X, y)
    assert_array_equal(clf.kneighbors(X)[0][:, 0], 0.0)
    assert_array_equal(clf.predict_proba(X), np.eye(3)[y])


@parity_test(KNeighborsClassifier)
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_one_class_predicts_it(weights):
    # Issue 19: a y of one class was refused; scikit-learn fits it.
    X_train, X_test, _, _ = _split("iris")
    y = np.full(len(X_train), "only")
    ours = KNeighborsClassifier(3, weights=weights).fit(X_train, y)
    ref = sk.KNeighborsClassifier(3, weights=weights).fit(X_train, y)
    assert_array_equal(ours.classes_, ref.classes_)
    assert_array_equal(ours.predict(X_test), ref.predict(X_test))
    assert_array_equal(ours.predict_proba(X_test), ref.predict_proba(X_test))


def test_callable_weights_and_all_zero_weights():
    X_train, X_test, y_train, _ = _split("iris")

    def inverse_square(dist):
        return 1.0 / (dist**2 + 1e-3)

    ours = KNeighborsClassifier(weights=inverse_square).fit(X_train, y_train)
    ref = sk.KNeighborsClassifier(weights=inverse_square).fit(X_train, y_train)
    assert_allclose(ours.predict_proba(X_test), ref.predict_proba(X_test), atol=1e-12)
    zero = KNeighborsClassifier(weights=np.zeros_like).fit(X_train, y_train)
    with pytest.raises(ValueError, match="zero weights"):
        zero.predict(X_test)


def test_one_nearest_neighbour_fits_distinct_training_points():
    # Notes A §5.1: with k = 1 every distinct training point is its own
    # nearest neighbour, so the training accuracy is 100%.
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(200, 3)), rng.randint(0, 4, 200)
    for algorithm in ("brute", "kd_tree"):
        clf = KNeighborsClassifier(1, algorithm=algorithm).fit(X, y)
        assert clf.score(X, y) == 1.0


def test_string_labels_and_multioutput():
    X_train, X_test, y_train, _ = _split("iris")
    names = np.array(["setosa", "versicolor", "virginica"])[y_train]
    clf = KNeighborsClassifier().fit(X_train, names)
    assert_array_equal(clf.classes_, ["setosa", "versicolor", "virginica"])
    assert set(clf.predict(X_test)) <= set(names)
    Y = np.column_stack([y_train, y_train % 2])
    multi = KNeighborsClassifier().fit(X_train, Y)
    ref = sk.KNeighborsClassifier().fit(X_train, Y)
    assert multi.outputs_2d_
    assert_array_equal(multi.predict(X_test), ref.predict(X_test))
    for a, b in zip(multi.predict_proba(X_test), ref.predict_proba(X_test)):
        assert_allclose(a, b)


def test_errors():
    X = np.random.RandomState(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="label type"):
        KNeighborsClassifier().fit(X, np.linspace(0.0, 1.0, 10))  # continuous
    with pytest.raises(ValueError, match="weights"):
        KNeighborsClassifier(weights="inverse").fit(X, np.arange(10) % 2)
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
        KNeighborsClassifier(11).fit(X, np.arange(10) % 2).predict(X)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_extreme_magnitude_predicts_as_the_clean_data(factor, algorithm):
    # Issue 23: at X * 1e300 (1e-300) the distances overflowed (underflowed)
    # and the votes were at chance; neighbours are scale-invariant.
    X, y = _data.load("iris")
    ref = KNeighborsClassifier(3, algorithm=algorithm, weights="distance").fit(X, y)
    clf = KNeighborsClassifier(3, algorithm=algorithm, weights="distance").fit(
        X * factor, y)
    assert_array_equal(clf.predict(X * factor), ref.predict(X))
    assert_allclose(clf.predict_proba(X * factor), ref.predict_proba(X), rtol=1e-10)
