"""The mixed operation of ProxylessNAS (notes A §11.4) as a layer of the core.

A :class:`MixedBlock` holds ``N`` candidate paths, each a chain of core
layers mapping a row of width ``d`` to width ``d`` (or nothing: the *zero*
operation), and computes the residual ``Y = X + sum_j g_j o_j(X)`` with
binary gates ``g``: exactly one path is active (``active``), so a forward
and a backward pass cost one path, as in ProxylessNAS's binarised paths.
The gradient of the loss with respect to every gate,
``dL/dg_j = sum_rows <dL/dY, o_j(X)>``, is what the architecture step needs
(:meth:`MixedBlock.gate_gradients`).
"""

import numpy as np

from ._modules import _buffer, _Layer

__all__ = ["MixedBlock"]


class MixedBlock(_Layer):
    """Residual mixed operation ``X + o_active(X)`` over candidate chains.

    Parameters
    ----------
    candidates : list of list of layers
        Each chain maps ``(d,)`` rows to ``(d,)`` rows; an empty list is the
        zero operation (the block is then the identity).
    """

    def __init__(self, candidates):
        self.candidates = [list(chain) for chain in candidates]
        self.active = 0
        self.save_output_grad = False

    @property
    def decayed(self):
        return tuple(
            f"{j}.{k}.{name}"
            for j, chain in enumerate(self.candidates)
            for k, layer in enumerate(chain)
            for name in layer.decayed
        )

    def _shapes(self, in_shape):
        """Row shape before each layer of each chain."""
        shapes = []
        for chain in self.candidates:
            s = [tuple(in_shape)]
            for layer in chain:
                s.append(tuple(layer.out_shape(s[-1])))
            if len(s) > 1 and s[-1] != tuple(in_shape):
                raise ValueError(
                    f"A candidate path maps rows of shape {in_shape} to {s[-1]}: "
                    "the residual needs the same shape.")
            shapes.append(s)
        return shapes

    def param_shapes(self, in_shape):
        out = {}
        for j, (chain, shapes) in enumerate(zip(self.candidates,
                                                self._shapes(in_shape))):
            for k, layer in enumerate(chain):
                for name, shape in layer.param_shapes(shapes[k]).items():
                    out[f"{j}.{k}.{name}"] = shape
        return out

    @staticmethod
    def _sub(flat, j, k):
        prefix = f"{j}.{k}."
        return {name[len(prefix):]: value for name, value in flat.items()
                if name.startswith(prefix)}

    def init(self, params, state, rng):
        for j, chain in enumerate(self.candidates):
            for k, layer in enumerate(chain):
                layer.init(self._sub(params, j, k), {}, rng)

    def _caches(self, cache):
        if "sub" not in cache:
            cache["sub"] = [[{"ctx": cache["ctx"], "state": {}} for _ in chain]
                            for chain in self.candidates]
        return cache["sub"]

    def _path(self, j, X, params, cache, training):
        out = X
        for k, layer in enumerate(self.candidates[j]):
            out = layer.forward(out, self._sub(params, j, k),
                                self._caches(cache)[j][k], training)
        return out

    def forward(self, X, params, cache, training):
        cache["X"] = X
        j = self.active
        if not self.candidates[j]:
            return X
        out = self._path(j, X, params, cache, training)
        Y = _buffer(cache, "Y", X.shape, X.dtype)
        np.add(X, out, out=Y)
        return Y

    def backward(self, dY, params, grads, cache):
        if self.save_output_grad:
            cache["dY"] = np.array(dY)
        j = self.active
        for name in grads:  # inactive paths: no gradient this batch
            if not name.startswith(f"{j}."):
                grads[name][...] = 0.0
        chain = self.candidates[j]
        if not chain:
            return dY
        skip = _buffer(cache, "skip", dY.shape, dY.dtype)
        skip[...] = dY  # the layers below may overwrite dY
        d = dY
        subcaches = self._caches(cache)[j]
        for k in range(len(chain) - 1, -1, -1):
            subcaches[k]["need_dX"] = True
            d = chain[k].backward(d, self._sub(params, j, k),
                                  self._sub(grads, j, k), subcaches[k])
        skip += d
        return skip

    def gate_gradients(self, params, cache):
        """``dL/dg_j`` for every candidate, from the last forward and backward.

        Needs ``save_output_grad`` set before the backward pass. Every path
        runs forward on the block's last input (the zero operation's output
        is 0, so its gate gradient is 0).
        """
        X, dY = cache["X"], cache["dY"]
        out = np.zeros(len(self.candidates))
        for j, chain in enumerate(self.candidates):
            if chain:
                o = self._path(j, X, params, cache, True)
                out[j] = float(np.vdot(dY, o))
        return out
