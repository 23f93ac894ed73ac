"""A trained network of the core, kept as its layers and flat parameters.

The core's :class:`~skml.neural_network._modules.Sequential` keeps reused
buffers in its layer caches; after pickling (or joblib's read-only memory
maps) those buffers cannot be written to. A fitted estimator therefore keeps
only the layer list and the flat ``theta``/``state`` and rebuilds the
container (no buffers yet) after unpickling.
"""

import numpy as np

from ..neural_network._modules import Sequential

__all__ = ["FrozenNetwork"]


class FrozenNetwork:
    """Prediction-mode forward passes of a trained ``Sequential``."""

    def __init__(self, net):
        self.layers = net.layers
        self.in_shape = net.shapes[0]
        self.theta = net.theta.copy()
        self.state = net.state.copy()
        self._net = None

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_net"] = None
        return state

    def _network(self):
        if self._net is None:
            net = Sequential(self.layers, self.in_shape)
            net.theta[:] = self.theta
            net.state[:] = self.state
            self._net = net
        return self._net

    @property
    def out_shape(self):
        return self._network().out_shape

    def forward(self, X, n_layers=None):
        """Output of the first ``n_layers`` layers (all by default), a new array."""
        net = self._network()
        n_layers = len(net.layers) if n_layers is None else n_layers
        X = np.asarray(X, dtype=net.dtype)
        ctx = net.ctx
        ctx["sample_weight"], ctx["rng"], ctx["update_state"] = None, None, False
        for layer, params, cache in zip(net.layers[:n_layers], net.params[:n_layers],
                                        net.caches[:n_layers]):
            X = layer.forward(X, params, cache, False)
        return np.array(X, copy=True)
