"""Notes A §1.3's worked numbers for the hinge loss: hinge(1, 0, -1) = (0, 1, 2)."""

import numpy as np
from sklearn.metrics import hinge_loss

from skml.svm._linear_svc import linear_svc_objective

X = np.array([[1.0], [0.0], [-1.0]])  # with w = 1, b = 0, y = +1: margins 1, 0, -1
Y = np.ones(3)


def _per_point(loss):
    """Each point's loss, read off the objective ½‖w‖² + C Σ s_i ℓ_i with one-hot s."""
    return np.array([
        linear_svc_objective([1.0], 0.0, X, Y, C=1.0, loss=loss,
                             sample_weight=np.eye(3)[i]) - 0.5
        for i in range(3)
    ])


def test_hinge_of_margins_one_zero_minus_one():
    np.testing.assert_allclose(_per_point("hinge"), [0.0, 1.0, 2.0])


def test_squared_hinge_of_the_same_margins():
    np.testing.assert_allclose(_per_point("squared_hinge"), [0.0, 1.0, 4.0])


def test_mean_hinge_equals_scikit_learn_metric():
    """L_S^hinge = (1/m) Σ hinge(y_i f(x_i)), sklearn.metrics.hinge_loss's quantity."""
    assert np.isclose(_per_point("hinge").mean(), hinge_loss(Y, X.ravel()))
