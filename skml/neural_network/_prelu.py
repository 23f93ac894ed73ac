"""Network pieces of the notes' variants (issue 18): PReLU and the N(0, 0.01^2) dense layer.

Kept out of the shared network core (``_modules.py``); both follow its layer
protocol.
"""

import numpy as np

from ._modules import Dense, _buffer, _Layer

__all__ = ["NormalDense", "PReLU"]


class PReLU(_Layer):
    """Parametric ReLU, ``f(z) = max(a z, z)`` with a learnable ``a`` per unit.

    Notes B §7.2 (D3 "activation functions"): leaky ReLU whose negative slope
    is learnt with the weights (He et al. 2015). ``a`` starts at ``init``
    (the notes' leaky slope 0.1 in the MLP) and is not L2-penalised. For
    ``0 <= a <= 1``, ``max(a z, z)`` equals ``z`` for ``z > 0`` and ``a z``
    otherwise; the layer uses the latter form, valid for any ``a``.
    Gradients: ``df/dz = 1`` (z > 0) or ``a``; ``df/da = z`` (z <= 0) or 0.
    """

    def __init__(self, init=0.1):
        self.init_slope = float(init)

    def param_shapes(self, in_shape):
        return {"a": tuple(in_shape)}

    def init(self, params, state, rng):
        params["a"][...] = self.init_slope

    def forward(self, X, params, cache, training):
        A = _buffer(cache, "A", X.shape, X.dtype)
        np.multiply(X, params["a"], out=A)
        np.copyto(A, X, where=X > 0)
        cache["X"] = X
        return A

    def backward(self, dY, params, grads, cache):
        X = cache["X"]
        negative = X <= 0
        # dL/da = sum over the batch of dY * z where z <= 0
        np.sum(np.where(negative, dY * X, 0.0), axis=0, out=grads["a"])
        slope = np.where(negative, params["a"], 1.0)
        dY *= slope
        return dY


class NormalDense(Dense):
    """A :class:`Dense` layer initialised ``W ~ N(0, std^2)``, ``b = 0``.

    The notes' initialisation (B §6.13, D3 "initialisation": random
    Gaussian weights, mean 0, standard deviation 0.01), which "works for
    small networks" but makes the activations shrink layer after layer in
    deep ones. Zero intercepts: the weights alone break the symmetry.
    """

    def __init__(self, units, std=0.01):
        super().__init__(units)
        self.std = float(std)

    def init(self, params, state, rng):
        if rng is None:
            return
        params["W"][:] = rng.normal(0.0, self.std, params["W"].shape)
        params["b"][:] = 0.0
