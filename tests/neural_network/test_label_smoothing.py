"""MLPClassifier(label_smoothing=eps): the cross-entropy against smoothed targets
(notes D1 §12.2, issue 25)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.preprocessing import StandardScaler

from skml.neural_network import MLPClassifier
from skml.neural_network._losses import logistic_loss, softmax_cross_entropy


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def test_zero_smoothing_is_the_plain_classifier(iris):
    X, y = iris
    a = MLPClassifier((8,), max_iter=30, random_state=0).fit(X, y)
    b = MLPClassifier((8,), max_iter=30, random_state=0, label_smoothing=0.0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_training_loss_is_the_cross_entropy_of_smoothed_targets(iris, n_classes):
    X, y = iris
    keep = y < n_classes
    X, y = X[keep], y[keep]
    clf = MLPClassifier((8,), max_iter=5, random_state=0, label_smoothing=0.2).fit(X, y)
    Z = np.random.RandomState(0).normal(size=(len(y), 1 if n_classes == 2 else 3))
    Y = np.eye(n_classes)[y] if n_classes > 2 else y[:, None].astype(float)
    value, grad = clf._loss()(Z, Y)
    base = softmax_cross_entropy if n_classes > 2 else logistic_loss
    ref_value, ref_grad = base(Z, 0.8 * Y + 0.2 / 2 if n_classes == 2 else
                               0.8 * Y + 0.2 / 3)
    assert value == pytest.approx(ref_value, rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12)


def test_smoothing_caps_the_confidence(iris):
    """The smoothed cross-entropy is minimised at p = (1 - eps) y + eps / K, so
    a long fit's top probability stays near 1 - eps + eps / K (0.8 here)."""
    X, y = iris
    params = dict(hidden_layer_sizes=(32,), max_iter=600, learning_rate_init=0.01,
                  tol=0.0, n_iter_no_change=1000, random_state=0)
    sharp = MLPClassifier(**params).fit(X, y).predict_proba(X).max(axis=1)
    smooth = MLPClassifier(**params, label_smoothing=0.3).fit(X, y)
    top = smooth.predict_proba(X).max(axis=1)
    assert np.median(sharp) > 0.99
    assert np.median(top) == pytest.approx(0.8, abs=0.05)
    assert top.max() < 0.9
    assert smooth.score(X, y) > 0.9


def test_binary_smoothing_and_bad_values():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    clf = MLPClassifier((8,), max_iter=200, label_smoothing=0.2, random_state=0,
                        learning_rate_init=0.01, tol=0.0, n_iter_no_change=1000)
    top = clf.fit(X, y).predict_proba(X).max(axis=1)
    # the optimum is 1 - 0.2 + 0.2 / 2 = 0.9 for a confidently classified row
    assert np.median(top) == pytest.approx(0.9, abs=0.05)
    assert top.max() < 0.99 and clf.score(X, y) > 0.95
    for bad in (1.0, -0.1, "0.1"):
        with pytest.raises(ValueError, match="label_smoothing"):
            MLPClassifier(label_smoothing=bad).fit(X, y)
