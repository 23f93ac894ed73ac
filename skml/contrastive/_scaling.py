"""Per-feature standardisation statistics that survive extreme magnitudes.

(With what the contrastive encoder, the rectified flow and the GAN share: the
first steps of ``fit``, :func:`fit_input` and :func:`layer_sizes`, and the
hidden layers, :func:`hidden_layers`.)

The contrastive encoder and the rectified flow train their networks on
``(X - mean_) / scale_``, which makes them equivariant to a per-feature
affine change of units (``X * 1e300``, ``X + 1e8`` give the same fit) and
keeps the networks' inputs near unit size. The statistics are computed on
``X`` divided by an exact power of two (:mod:`skml.utils._magnitude`), so
squares neither overflow nor underflow.
"""

from numbers import Integral, Real

import numpy as np

from ..neural_network._modules import Activation, Dense, LayerNorm
from ..utils import Interval, validate_params
from ..utils._magnitude import magnitude_scale
from ..utils.validation import validate_data

__all__ = ["TRAINING_CONSTRAINTS", "fit_input", "hidden_layers", "layer_sizes",
           "standard_scaling"]

# The training parameters of the encoder and the flow, checked alike.
TRAINING_CONSTRAINTS = {
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
    "alpha": [Interval(Real, 0, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


def fit_input(estimator, X):
    """``fit``'s first steps: the parameters checked, ``X`` validated (float64)
    and its statistics set as ``estimator.mean_`` and ``scale_``
    (:func:`standard_scaling`). Returns ``X`` and the mask of varying features."""
    validate_params(estimator)
    X = validate_data(estimator, X, dtype=np.float64)
    estimator.mean_, estimator.scale_, varies = standard_scaling(X)
    return X, varies


def hidden_layers(sizes, activation, layer_norm):
    """Dense layers of ``sizes`` units, each (layer-normalised and) activated."""
    layers = []
    for h in sizes:
        layers.append(Dense(h))
        if layer_norm:
            layers.append(LayerNorm())
        layers.append(Activation(activation))
    return layers


def layer_sizes(value, name="hidden_layer_sizes"):
    """The hidden widths ``value`` as a list of ints (ValueError naming ``name``)."""
    sizes = np.asarray(value).reshape(-1)
    if sizes.size and (sizes.dtype.kind not in "iu" or np.any(sizes < 1)):
        raise ValueError(f"{name} must hold positive ints; got {value!r}.")
    return [int(h) for h in sizes]


def standard_scaling(X):
    """``(mean, scale, varies)`` per feature; a constant feature gets scale 1.

    ``varies`` is False for the constant features (spread at rounding level):
    they carry no information and the networks leave them out, so adding
    one changes nothing (not even the random initial weights of the others).
    """
    s = magnitude_scale(X)
    Xs = X / s if s != 1.0 else X
    mean = Xs.mean(axis=0)
    std = np.sqrt(np.mean((Xs - mean) ** 2, axis=0))
    # Spreads at rounding level of the mean count as constant.
    tiny = 1e3 * np.finfo(np.float64).eps * np.maximum(np.abs(mean), np.finfo(float).tiny)
    varies = std > tiny
    std = np.where(varies, std, 1.0 / s if s != 1.0 else 1.0)
    return mean * s, std * s, varies
