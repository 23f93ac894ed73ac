"""Batch normalisation over feature maps (BatchNorm2D) and in ConvNet layers."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from skml.neural_network import ConvNetClassifier
from skml.neural_network._conv_modules import BatchNorm2D, Conv2D, MaxPool2D
from skml.neural_network._modules import Activation, BatchNorm, Sequential

from .test_conv import _gradient_errors


def _net(layers, in_shape):
    return Sequential(layers, in_shape, rng=np.random.RandomState(0))


@pytest.mark.parametrize("layers, in_shape", [
    ([BatchNorm2D()], (3, 4, 2)),
    ([Conv2D(3, 3, padding="same"), BatchNorm2D(), Activation("tanh")], (4, 5, 2)),
    ([Conv2D(2, 2), BatchNorm2D(), Activation("relu"), MaxPool2D(2)], (5, 5, 1)),
])
def test_gradient_check(layers, in_shape):
    e_theta, e_x = _gradient_errors(layers, in_shape)
    assert e_theta < 1e-6
    assert e_x < 1e-6


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 5), h=st.integers(1, 4), w=st.integers(1, 4),
       c=st.integers(1, 3), seed=st.integers(0, 1000))
def test_each_channel_is_standardised_over_batch_and_positions(n, h, w, c, seed):
    # Training output with gamma = 1, beta = 0: per channel, mean 0 and
    # (biased) variance 1 over the n * h * w values, whatever the input.
    rng = np.random.default_rng(seed)
    X = rng.normal(3.0, 2.0, size=(n, h, w, c)) * rng.uniform(0.5, 4, size=c)
    Y = _net([BatchNorm2D(eps=0.0)], (h, w, c)).forward(X, training=True)
    flat = Y.reshape(-1, c)
    np.testing.assert_allclose(flat.mean(0), 0.0, atol=1e-10)
    np.testing.assert_allclose(flat.var(0), 1.0, rtol=1e-8)


def test_is_batch_norm_on_the_positions_as_rows_and_weights_count_as_copies():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4, 3, 2, 5))
    maps = _net([BatchNorm2D()], (3, 2, 5))
    rows = _net([BatchNorm()], (5,))
    np.testing.assert_allclose(maps.forward(X, training=True).reshape(-1, 5),
                               rows.forward(X.reshape(-1, 5), training=True))
    np.testing.assert_allclose(maps.state, rows.state)  # running statistics
    # A row of weight 2 is that row twice (batch statistics and running ones).
    weighted = _net([BatchNorm2D()], (3, 2, 5))
    copied = _net([BatchNorm2D()], (3, 2, 5))
    Yw = weighted.forward(X, training=True, sample_weight=np.array([2.0, 1, 1, 1]))
    Yc = copied.forward(np.concatenate([X[:1], X]), training=True)
    np.testing.assert_allclose(Yw, Yc[1:])
    np.testing.assert_allclose(weighted.state[:10], copied.state[:10])  # means


def _fit(layers, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return ConvNetClassifier(layers=layers, max_iter=3, random_state=0,
                                 **kw).fit(X, y)


def test_convnet_places_batch_norm_before_the_activation_and_exposes_it():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 36)), rng.integers(0, 2, 60)
    layers = [("conv", 4, 3), ("batchnorm",), ("maxpool", 2), ("dense", 8),
              ("batchnorm", 0.2)]
    model = _fit(layers, X, y)
    kinds = [type(layer).__name__ for layer in model._network(np.float64).layers]
    assert kinds == ["Conv2D", "BatchNorm2D", "Activation", "MaxPool2D", "Flatten",
                     "Dense", "BatchNorm", "Activation", "Dense"]
    assert [g.shape for g in model.batch_norm_gamma_] == [(4,), (8,)]
    assert [v.shape for v in model.running_var_] == [(4,), (8,)]
    assert len(model.coefs_) == 3  # the norms' scales are not weights
    # Inference uses the running statistics: one row alone gets the same
    # prediction as in a batch, and a pickled copy predicts the same.
    proba = model.predict_proba(X)
    np.testing.assert_allclose(model.predict_proba(X[:1]), proba[:1])
    np.testing.assert_allclose(pickle.loads(pickle.dumps(model)).predict_proba(X),
                               proba)
    # feature_maps of a normalised convolution: after its norm and activation.
    maps = model.feature_maps(X[:5])
    assert maps.shape == (5, 6, 6, 4) and (maps >= 0).all()


@pytest.mark.parametrize("spec", [("batchnorm", 0.0), ("batchnorm", 1.5),
                                  ("batchnorm", "fast"), ("batchnorm", 0.1, 2)])
def test_bad_batch_norm_spec(spec):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 16)), rng.integers(0, 2, 20)
    with pytest.raises(ValueError, match="batchnorm"):
        _fit([("conv", 2, 3), spec], X, y)
