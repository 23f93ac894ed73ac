r"""Transformer layers on the network core's protocol (notes B §7.6, A §14).

Each class follows the layer protocol of
:mod:`skml.neural_network._modules` (``out_shape``, ``param_shapes``,
``init``, ``forward(X, params, cache, training)``, ``backward(dY, params,
grads, cache) -> dX``), so a :class:`~skml.neural_network._modules.Sequential`
of them trains with the core's one loop over one flat ``theta``. Rows are
sequences: one input row has shape ``(T,)`` (token ids) or ``(T, d)``.

- :class:`Embedding`: token ids to vectors (D1 §11.1);
- :class:`TokenDense`: a dense layer applied to every position;
- :class:`SinusoidalPositional`, :class:`LearnedPositional`: added
  position vectors (D1 §11.2); RoPE lives inside :class:`MultiHeadAttention`
  (notes A §14.2);
- :class:`MultiHeadAttention`: learnable projections, ``h`` heads through
  batched ``np.matmul``, optional causal mask (D1 §11.3-11.4);
- :class:`Residual`: ``x + F(x)`` around a list of layers (D1 §11.7);
- :class:`ClsToken`, :class:`MeanPool`, :class:`TokenPool`: a learned
  first token, and sequence pooling to one vector.

The per-token layer norm is the core's ``LayerNorm(last_axis=True)``.
"""

import math

import numpy as np

from ..neural_network._modules import _Layer
from ._functional import sinusoidal_positional_encoding
from ._rope import rope_frequencies

__all__ = [
    "ClsToken",
    "Embedding",
    "LearnedPositional",
    "MeanPool",
    "MultiHeadAttention",
    "Residual",
    "SinusoidalPositional",
    "TokenDense",
    "TokenPool",
]


class Embedding(_Layer):
    """Token ids ``(T,)`` to vectors ``(T, d)``: row ``x_t`` of a table ``E``.

    Ids arrive as floats (the container casts its input) and must lie in
    ``0..vocab_size-1``. Initial ``E`` is standard normal, PyTorch's choice.
    The ids carry no gradient: ``backward`` returns zeros.
    """

    decayed = ("E",)

    def __init__(self, vocab_size, d):
        self.vocab_size = int(vocab_size)
        self.d = int(d)

    def out_shape(self, in_shape):
        return (*in_shape, self.d)

    def param_shapes(self, in_shape):
        return {"E": (self.vocab_size, self.d)}

    def init(self, params, state, rng):
        if rng is not None:
            params["E"][:] = rng.standard_normal(params["E"].shape)

    def forward(self, X, params, cache, training):
        ids = X.astype(np.intp)
        if ids.size and (ids.min() < 0 or ids.max() >= self.vocab_size):
            raise ValueError(f"Token ids must lie in [0, {self.vocab_size - 1}]; got "
                             f"values in [{ids.min()}, {ids.max()}].")
        cache["ids"], cache["shape"] = ids, X.shape
        return params["E"][ids]

    def backward(self, dY, params, grads, cache):
        ids = cache["ids"].ravel()
        gE = grads["E"]
        # sum of dY rows per id: one GEMM with the one-hot matrix is faster
        # than np.add.at for the small vocabularies this layer sees.
        onehot = np.zeros((self.vocab_size, ids.size), dtype=dY.dtype)
        onehot[ids, np.arange(ids.size)] = 1.0
        np.dot(onehot, dY.reshape(ids.size, self.d), out=gE)
        if not cache.get("need_dX", True):
            return None
        return np.zeros(cache["shape"], dtype=dY.dtype)


class TokenDense(_Layer):
    """``Y = X W + b`` on the last axis, at every position (shared weights).

    ``init_bound`` is the half-width of the uniform initial weights; None is
    Glorot's ``sqrt(6 / (fan_in + fan_out))``. Biases start at zero.
    """

    decayed = ("W",)

    def __init__(self, units, init_bound=None):
        self.units = int(units)
        self.init_bound = init_bound

    def out_shape(self, in_shape):
        return (*in_shape[:-1], self.units)

    def param_shapes(self, in_shape):
        return {"W": (in_shape[-1], self.units), "b": (self.units,)}

    def init(self, params, state, rng):
        if rng is None:
            return
        W = params["W"]
        bound = self.init_bound or math.sqrt(6.0 / sum(W.shape))
        W[:] = rng.uniform(-bound, bound, W.shape)
        params["b"][:] = 0.0

    def forward(self, X, params, cache, training):
        X2 = X.reshape(-1, X.shape[-1])
        Z = X2 @ params["W"]
        Z += params["b"]
        cache["X2"], cache["shape"] = X2, X.shape
        return Z.reshape(*X.shape[:-1], self.units)

    def backward(self, dY, params, grads, cache):
        X2 = cache["X2"]
        dY2 = dY.reshape(-1, self.units)
        np.dot(X2.T, dY2, out=grads["W"])
        np.sum(dY2, axis=0, out=grads["b"])
        if not cache.get("need_dX", True):
            return None
        return (dY2 @ params["W"].T).reshape(cache["shape"])


class SinusoidalPositional(_Layer):
    r"""Adds the table :math:`P_{t,2i} = \sin(t/10000^{2i/d})`, ``cos`` at ``2i+1``.

    D1 §11.2 (notes B §7.6): no parameters; the gradient passes unchanged.
    """

    def __init__(self, base=10000.0):
        self.base = base

    def forward(self, X, params, cache, training):
        T, d = X.shape[1:]
        P = cache.get("P")
        if P is None or P.shape != (T, d) or P.dtype != X.dtype:
            P = sinusoidal_positional_encoding(T, d, self.base).astype(X.dtype)
            cache["P"] = P
        return X + P

    def backward(self, dY, params, grads, cache):
        return dY


class LearnedPositional(_Layer):
    """Adds a trained vector per position, ``(T, d)``, initially N(0, 0.02²)."""

    def param_shapes(self, in_shape):
        return {"P": tuple(in_shape)}

    def init(self, params, state, rng):
        if rng is not None:
            params["P"][:] = 0.02 * rng.standard_normal(params["P"].shape)

    def forward(self, X, params, cache, training):
        return X + params["P"]

    def backward(self, dY, params, grads, cache):
        np.sum(dY, axis=0, out=grads["P"])
        return dY


def _rope_tables(cache, T, dk, base, dtype):
    key = (T, dk, base, np.dtype(dtype))
    if cache.get("rope_key") != key:
        ang = np.multiply.outer(np.arange(T, dtype=np.float64), rope_frequencies(dk, base))
        cache["rope"] = (np.cos(ang).astype(dtype), np.sin(ang).astype(dtype))
        cache["rope_key"] = key
    return cache["rope"]


def _rope_rotate(X, cos, sin, sign):
    """Interleaved RoPE on the last axis of ``X`` (..., T, dk); sign -1 inverts."""
    out = np.empty_like(X)
    a, b = X[..., 0::2], X[..., 1::2]
    s = sin if sign > 0 else -sin
    out[..., 0::2] = a * cos - b * s
    out[..., 1::2] = a * s + b * cos
    return out


class MultiHeadAttention(_Layer):
    r"""Multi-head self-attention with learnable projections (D1 §11.3-11.4).

    For ``X`` of shape ``(T, d)`` and ``h`` heads of size ``d_k = d / h``:
    :math:`[Q\ K\ V] = X W_{qkv} + b_{qkv}`, split into heads;
    :math:`A = \operatorname{softmax}(Q K^\top / \sqrt{d_k})` (future keys
    blocked when ``causal``), :math:`O = A V`, heads concatenated, and
    :math:`Y = O W_o + b_o`. With ``rope`` the queries and keys of each head
    are rotated by their positions first (notes A §14.2, interleaved pairs),
    so the scores depend on relative positions only.

    All heads and rows go through one batched ``np.matmul`` of shape
    ``(n, h, T, ·)``. The weights ``A`` of the last call are kept in
    ``cache["A"]`` (for figures).
    """

    decayed = ("Wqkv", "Wo")

    def __init__(self, n_heads, causal=False, rope=False, rope_base=10000.0):
        self.n_heads = int(n_heads)
        self.causal = bool(causal)
        self.rope = bool(rope)
        self.rope_base = rope_base

    def param_shapes(self, in_shape):
        d = in_shape[-1]
        if d % self.n_heads:
            raise ValueError(f"d_model={d} must be a multiple of n_heads={self.n_heads}.")
        if self.rope and (d // self.n_heads) % 2:
            raise ValueError(f"RoPE needs an even head size d_model / n_heads; got "
                             f"{d // self.n_heads}.")
        return {"Wqkv": (d, 3 * d), "Wo": (d, d), "bqkv": (3 * d,), "bo": (d,)}

    def init(self, params, state, rng):
        if rng is None:
            return
        d = params["Wo"].shape[0]
        bound = math.sqrt(6.0 / (2 * d))  # Glorot for each d x d block
        params["Wqkv"][:] = rng.uniform(-bound, bound, params["Wqkv"].shape)
        params["Wo"][:] = rng.uniform(-bound, bound, params["Wo"].shape)
        params["bqkv"][:] = 0.0
        params["bo"][:] = 0.0

    def forward(self, X, params, cache, training):
        n, T, d = X.shape
        h = self.n_heads
        dk = d // h
        X2 = X.reshape(n * T, d)
        QKV = X2 @ params["Wqkv"]
        QKV += params["bqkv"]
        # (n, T, 3, h, dk) -> (3, n, h, T, dk): one copy for the three
        QKV = np.ascontiguousarray(QKV.reshape(n, T, 3, h, dk).transpose(2, 0, 3, 1, 4))
        Q, K, V = QKV[0], QKV[1], QKV[2]
        if self.rope:
            cos, sin = _rope_tables(cache, T, dk, self.rope_base, X.dtype)
            Q, K = _rope_rotate(Q, cos, sin, 1), _rope_rotate(K, cos, sin, 1)
        S = np.matmul(Q, K.transpose(0, 1, 3, 2))
        S *= 1.0 / math.sqrt(dk)
        if self.causal:
            S[..., ~np.tri(T, dtype=bool)] = -np.inf
        S -= S.max(axis=-1, keepdims=True)
        np.exp(S, out=S)
        S /= S.sum(axis=-1, keepdims=True)
        A = S
        O = np.matmul(A, V)  # (n, h, T, dk)
        O2 = O.transpose(0, 2, 1, 3).reshape(n * T, d)
        Y = O2 @ params["Wo"]
        Y += params["bo"]
        cache.update(X2=X2, Q=Q, K=K, V=V, A=A, O2=O2, shape=X.shape)
        return Y.reshape(n, T, d)

    def backward(self, dY, params, grads, cache):
        n, T, d = cache["shape"]
        h = self.n_heads
        dk = d // h
        Q, K, V, A = cache["Q"], cache["K"], cache["V"], cache["A"]
        dY2 = dY.reshape(n * T, d)
        np.dot(cache["O2"].T, dY2, out=grads["Wo"])
        np.sum(dY2, axis=0, out=grads["bo"])
        dO = (dY2 @ params["Wo"].T).reshape(n, T, h, dk).transpose(0, 2, 1, 3)
        dQKV = np.empty((n, T, 3, h, dk), dtype=dY.dtype)
        dQKV[:, :, 2] = np.matmul(A.transpose(0, 1, 3, 2), dO).transpose(0, 2, 1, 3)
        dA = np.matmul(dO, V.transpose(0, 1, 3, 2))
        # softmax backward, row by row: dS = A (dA - sum(dA A))
        dA -= np.einsum("nhij,nhij->nhi", dA, A)[..., None]
        dA *= A
        dA *= 1.0 / math.sqrt(dk)
        dQ = np.matmul(dA, K)
        dK = np.matmul(dA.transpose(0, 1, 3, 2), Q)
        if self.rope:
            cos, sin = _rope_tables(cache, T, dk, self.rope_base, dY.dtype)
            dQ, dK = _rope_rotate(dQ, cos, sin, -1), _rope_rotate(dK, cos, sin, -1)
        dQKV[:, :, 0] = dQ.transpose(0, 2, 1, 3)
        dQKV[:, :, 1] = dK.transpose(0, 2, 1, 3)
        dQKV2 = dQKV.reshape(n * T, 3 * d)
        np.dot(cache["X2"].T, dQKV2, out=grads["Wqkv"])
        np.sum(dQKV2, axis=0, out=grads["bqkv"])
        if not cache.get("need_dX", True):
            return None
        return (dQKV2 @ params["Wqkv"].T).reshape(n, T, d)


class Residual(_Layer):
    """``Y = X + F(X)`` with ``F`` a chain of layers of unchanged shape (D1 §11.7).

    The inner layers' parameters are this layer's, named ``"<k>.<name>"``
    for inner layer ``k``, so they are views into the container's one
    ``theta`` like any other. At zero weights of ``F``'s last dense layer the
    block is the identity.
    """

    def __init__(self, layers):
        self.layers = list(layers)
        self.decayed = tuple(
            f"{k}.{name}" for k, layer in enumerate(self.layers) for name in layer.decayed
        )

    def _shapes(self, in_shape):
        shapes = [tuple(in_shape)]
        for layer in self.layers:
            shapes.append(tuple(layer.out_shape(shapes[-1])))
        if shapes[-1] != shapes[0]:
            raise ValueError(f"A residual branch must keep the shape {shapes[0]}; got "
                             f"{shapes[-1]}.")
        return shapes

    def _collect(self, in_shape, method):
        out = {}
        for k, (layer, shape) in enumerate(zip(self.layers, self._shapes(in_shape))):
            for name, s in getattr(layer, method)(shape).items():
                out[f"{k}.{name}"] = s
        return out

    def param_shapes(self, in_shape):
        return self._collect(in_shape, "param_shapes")

    def state_shapes(self, in_shape):
        return self._collect(in_shape, "state_shapes")

    @staticmethod
    def _split(flat, k):
        prefix = f"{k}."
        return {key[len(prefix):]: v for key, v in flat.items() if key.startswith(prefix)}

    def init(self, params, state, rng):
        for k, layer in enumerate(self.layers):
            layer.init(self._split(params, k), self._split(state, k), rng)

    def _inner(self, params, cache):
        subs = cache.get("subs")
        if subs is None:
            subs = [
                ({"ctx": cache["ctx"], "state": self._split(cache["state"], k)},
                 self._split(params, k))
                for k in range(len(self.layers))
            ]
            cache["subs"] = subs
        return subs

    def forward(self, X, params, cache, training):
        subs = self._inner(params, cache)
        Y = X
        for layer, (sub_cache, sub_params) in zip(self.layers, subs):
            Y = layer.forward(Y, sub_params, sub_cache, training)
        return X + Y

    def backward(self, dY, params, grads, cache):
        subs = self._inner(params, cache)
        skip = dY.copy()
        for k in range(len(self.layers) - 1, -1, -1):
            sub_cache, _ = subs[k]
            sub_params = self._split(params, k)
            dY = self.layers[k].backward(dY, sub_params, self._split(grads, k), sub_cache)
        skip += dY
        return skip


class ClsToken(_Layer):
    """Prepends a trained vector ``c`` (BERT's [CLS]): ``(T, d)`` to ``(T+1, d)``."""

    def out_shape(self, in_shape):
        return (in_shape[0] + 1, *in_shape[1:])

    def param_shapes(self, in_shape):
        return {"c": tuple(in_shape[1:])}

    def init(self, params, state, rng):
        if rng is not None:
            params["c"][:] = 0.02 * rng.standard_normal(params["c"].shape)

    def forward(self, X, params, cache, training):
        Y = np.empty((X.shape[0], X.shape[1] + 1, *X.shape[2:]), dtype=X.dtype)
        Y[:, 0] = params["c"]
        Y[:, 1:] = X
        return Y

    def backward(self, dY, params, grads, cache):
        np.sum(dY[:, 0], axis=0, out=grads["c"])
        return dY[:, 1:]


class MeanPool(_Layer):
    """The mean over positions: ``(T, d)`` to ``(d,)``."""

    def out_shape(self, in_shape):
        return tuple(in_shape[1:])

    def forward(self, X, params, cache, training):
        cache["shape"] = X.shape
        return X.mean(axis=1)

    def backward(self, dY, params, grads, cache):
        n, T = cache["shape"][:2]
        return np.broadcast_to((dY / T)[:, None], cache["shape"]).copy()


class TokenPool(_Layer):
    """The vector at one position (0: the CLS token; -1: the last, for causal)."""

    def __init__(self, index=0):
        self.index = int(index)

    def out_shape(self, in_shape):
        return tuple(in_shape[1:])

    def forward(self, X, params, cache, training):
        cache["shape"] = X.shape
        return X[:, self.index]

    def backward(self, dY, params, grads, cache):
        dX = np.zeros(cache["shape"], dtype=dY.dtype)
        dX[:, self.index] = dY
        return dX
