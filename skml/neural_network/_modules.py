r"""Layers and the sequential container: the network core (notes B §7).

Every estimator that trains a network is a :class:`Sequential` of layers, a
loss from :mod:`._losses` and the loop of :mod:`._training`.

**A layer** holds its configuration, never its numbers. With ``in_shape``
the shape of one input row (no batch axis), it answers

- ``out_shape(in_shape)``: the shape of one output row;
- ``param_shapes(in_shape)``: ``{name: shape}`` of its trained arrays, and
  ``state_shapes(in_shape)`` of arrays updated but not trained (batch-norm
  running statistics);
- ``init(params, state, rng)``: their first values (``rng`` may be None:
  then no random draws);
- ``forward(X, params, cache, training) -> Y``;
- ``backward(dY, params, grads, cache) -> dX``: writes the gradients of its
  parameters into ``grads`` and returns the gradient with respect to its
  input, so input gradients (saliency, adversarial examples) come for free.

``params`` and ``grads`` are dicts of views into the container's flat
``theta`` and ``grad``. ``cache`` is a dict the layer keeps between calls:
its buffers (allocated once, reused as row slices), what ``backward`` needs,
``cache["state"]`` (views into the flat ``state``) and ``cache["ctx"]``, the
container's per-call context shared by all layers (``sample_weight``,
``rng``, ``update_state``). ``backward`` may overwrite ``dY``; outputs are
views into buffers that the next call reuses.

**The container** owns one flat ``theta`` and one flat ``grad``: every
layer's parameters are views into them, the penalised ones (``decayed``,
the dense weights) first, so one :mod:`skml.optim` step updates the whole
network and the L2 term is one operation on ``theta[:n_decayed]``.
"""

import math

import numpy as np
import scipy.sparse as sp

from ._activations import activate, multiply_derivative

__all__ = ["Activation", "BatchNorm", "Dense", "Dropout", "LayerNorm", "Sequential",
           "clipped_backward"]


def _buffer(cache, key, shape, dtype):
    """A reused array of ``shape`` (rows may grow) stored in ``cache[key]``."""
    buf = cache.get(key)
    if buf is None or buf.shape[0] < shape[0] or buf.shape[1:] != shape[1:] or (
        buf.dtype != dtype
    ):
        buf = np.empty(shape, dtype=dtype)
        cache[key] = buf
    return buf[:shape[0]]


def init_uniform(params, rng, bound, fans):
    """``W`` then ``b`` drawn from ``U(-r, r)`` (scikit-learn's order of draws).

    ``r`` is ``bound``, or Glorot's ``sqrt(6 / fans)`` when None, ``fans`` being
    ``fan_in + fan_out``. Nothing is drawn without ``rng`` (parameters loaded).
    """
    if rng is None:
        return
    W, b = params["W"], params["b"]
    if bound is None:
        bound = math.sqrt(6.0 / fans)
    W[:] = rng.uniform(-bound, bound, W.shape)
    b[:] = rng.uniform(-bound, bound, b.shape)


class _Layer:
    """Defaults of the protocol: same shape out, no parameters, no state."""

    decayed = ()

    def out_shape(self, in_shape):
        return in_shape

    def param_shapes(self, in_shape):
        return {}

    def state_shapes(self, in_shape):
        return {}

    def init(self, params, state, rng):
        pass

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({args})"


class Dense(_Layer):
    """Fully connected layer ``Y = X W + b`` (notes B §7.1).

    ``init_bound`` is the half-width ``r`` of the uniform initial weights and
    intercepts, ``U(-r, r)``; None is Glorot's ``sqrt(6 / (fan_in + fan_out))``.
    """

    decayed = ("W",)

    def __init__(self, units, init_bound=None):
        self.units = int(units)
        self.init_bound = init_bound

    def out_shape(self, in_shape):
        return (self.units,)

    def param_shapes(self, in_shape):
        return {"W": (in_shape[0], self.units), "b": (self.units,)}

    def init(self, params, state, rng):
        init_uniform(params, rng, self.init_bound, sum(params["W"].shape))

    def forward(self, X, params, cache, training):
        Z = _buffer(cache, "Z", (X.shape[0], self.units), X.dtype)
        if sp.issparse(X):
            # Sparse CSR/CSC input (a first layer, issue 20): the product over
            # the stored entries only; X is never densified.
            Z[:] = X @ params["W"]
        else:
            np.dot(X, params["W"], out=Z)
        Z += params["b"]
        cache["X"] = X
        return Z

    def backward(self, dY, params, grads, cache):
        X = cache["X"]
        if sp.issparse(X):
            grads["W"][:] = X.T @ dY  # O(nnz * units), X not densified
        else:
            np.dot(X.T, dY, out=grads["W"])
        np.sum(dY, axis=0, out=grads["b"])
        if not cache.get("need_dX", True):
            return None  # the first layer while training: a GEMM saved
        dX = _buffer(cache, "dX", X.shape, dY.dtype)
        np.dot(dY, params["W"].T, out=dX)
        return dX


class Activation(_Layer):
    """Elementwise ``f`` of :mod:`._activations`; ``f'`` is taken from the output."""

    def __init__(self, name, slope=0.1):
        self.name = name
        self.slope = slope

    def forward(self, X, params, cache, training):
        if self.name == "identity":
            return X
        A = _buffer(cache, "A", X.shape, X.dtype)
        activate(self.name, X, self.slope, out=A)
        cache["A"] = A
        return A

    def backward(self, dY, params, grads, cache):
        if self.name == "identity":
            return dY
        A = cache["A"]
        tmp = mask = None
        if self.name != "relu":
            tmp = _buffer(cache, "tmp", A.shape, A.dtype)
        if self.name in ("relu", "leaky_relu"):
            mask = _buffer(cache, "mask", A.shape, bool)
        return multiply_derivative(self.name, A, dY, self.slope, tmp, mask)


class Dropout(_Layer):
    """Inverted dropout (notes B §7.3): keep with probability ``q = 1 - rate``.

    While training, ``Y = X m / q`` with ``m ~ Bernoulli(q)`` drawn from
    ``ctx["rng"]`` (a numpy Generator), so ``E[Y] = X``; otherwise ``Y = X``.
    """

    def __init__(self, rate):
        self.rate = float(rate)

    def forward(self, X, params, cache, training):
        if not training or self.rate == 0.0:
            cache["keep"] = None
            return X
        q = 1.0 - self.rate
        U = _buffer(cache, "U", X.shape, X.dtype)
        cache["ctx"]["rng"].random(out=U, dtype=X.dtype)
        keep = _buffer(cache, "keep_buf", X.shape, bool)
        np.less(U, q, out=keep)
        Y = _buffer(cache, "Y", X.shape, X.dtype)
        np.multiply(X, keep, out=Y)
        Y *= 1.0 / q
        cache["keep"] = keep
        return Y

    def backward(self, dY, params, grads, cache):
        keep = cache["keep"]
        if keep is None:
            return dY
        dY *= keep
        dY *= 1.0 / (1.0 - self.rate)
        return dY


def _scale_shift(xhat, invstd, params, Y):
    """In place: ``invstd`` (the variance plus eps) becomes ``1 / sqrt(.)``,
    ``xhat`` (centred) is divided by the deviation, ``Y = gamma xhat + beta``."""
    np.sqrt(invstd, out=invstd)
    np.divide(1.0, invstd, out=invstd)
    xhat *= invstd
    np.multiply(xhat, params["gamma"], out=Y)
    Y += params["beta"]


class BatchNorm(_Layer):
    r"""Batch normalisation of each feature (notes B §7.4), scale and shift learnt.

    Training: :math:`\hat x = (x - \mu_B) / \sqrt{\sigma_B^2 + \epsilon}`,
    :math:`y = \gamma \hat x + \beta`, with the batch mean and biased
    variance weighted by ``ctx["sample_weight"]`` (a row of weight k counts
    as k rows), and the running statistics updated with PyTorch's rule
    (``momentum`` weighs the new batch; the unbiased variance). Otherwise the
    running statistics replace the batch ones.
    """

    def __init__(self, momentum=0.1, eps=1e-5):
        self.momentum = momentum
        self.eps = eps

    def param_shapes(self, in_shape):
        return {"gamma": in_shape, "beta": in_shape}

    def state_shapes(self, in_shape):
        return {"mean": in_shape, "var": in_shape}

    def init(self, params, state, rng):
        params["gamma"][:] = 1.0
        params["beta"][:] = 0.0
        state["mean"][:] = 0.0
        state["var"][:] = 1.0

    def forward(self, X, params, cache, training):
        xhat = _buffer(cache, "xhat", X.shape, X.dtype)
        Y = _buffer(cache, "Y", X.shape, X.dtype)
        invstd = _buffer(cache, "invstd", X.shape[1:], X.dtype)
        if training:
            var = self._center(X, xhat, Y, cache)
        else:
            var = cache["state"]["var"]
            np.subtract(X, cache["state"]["mean"], out=xhat)
        np.add(var, self.eps, out=invstd)
        _scale_shift(xhat, invstd, params, Y)
        cache["training"], cache["xhat"] = training, xhat
        return Y

    def _center(self, X, xhat, tmp, cache):
        """``xhat = X - mu_B``; returns the batch variance, updates running ones."""
        mu = _buffer(cache, "mu", X.shape[1:], X.dtype)
        var = _buffer(cache, "var", X.shape[1:], X.dtype)
        sw = cache["ctx"]["sample_weight"]
        w, count = None, X.shape[0]
        if sw is None:
            np.mean(X, axis=0, out=mu)
        else:
            count = float(sw.sum())
            w = (sw / count).astype(X.dtype, copy=False)
            np.dot(w, X, out=mu)
        np.subtract(X, mu, out=xhat)
        np.multiply(xhat, xhat, out=tmp)
        if w is None:
            np.mean(tmp, axis=0, out=var)  # the biased variance (notes B §7.4)
        else:
            np.dot(w, tmp, out=var)
        cache["w"] = w
        update = cache["ctx"]["update_state"]
        if update is not False:
            # PyTorch semantics: momentum weighs the *new* batch, and the running
            # variance takes the unbiased batch variance. The notes (D4) print
            # the average the other way round (catalogue B §15).
            m = self.momentum if update is True else float(update)
            unbias = count / (count - 1) if count > 1 else 1.0
            state = cache["state"]
            state["mean"] *= 1.0 - m
            state["mean"] += m * mu
            state["var"] *= 1.0 - m
            state["var"] += (m * unbias) * var
        return var

    def backward(self, dY, params, grads, cache):
        xhat = cache["xhat"]
        tmp = _buffer(cache, "tmp", dY.shape, dY.dtype)
        g_gamma, g_beta = grads["gamma"], grads["beta"]
        np.multiply(dY, xhat, out=tmp)
        np.sum(tmp, axis=0, out=g_gamma)
        np.sum(dY, axis=0, out=g_beta)
        if cache["training"]:
            # dx_i = gamma / sigma (dy_i - w_i sum_j dy_j - w_i xhat_i sum_j dy_j
            # xhat_j), w_i = 1 / n or the normalised sample weights; with
            # running statistics (constants) only the first term is left.
            np.multiply(xhat, g_gamma, out=tmp)
            tmp += g_beta
            if cache["w"] is None:
                tmp *= 1.0 / dY.shape[0]
            else:
                tmp *= cache["w"][:, None]
            dY -= tmp
        dY *= params["gamma"] * cache["invstd"]
        return dY


class LayerNorm(_Layer):
    r"""Layer normalisation of each row over its features (notes B §7.4).

    :math:`\hat x_i = (x_i - \mu_i) / \sqrt{\sigma_i^2 + \epsilon}` with the
    mean and biased variance of row :math:`i`, then
    :math:`y = \gamma \hat x + \beta`. No batch statistics: training and
    prediction compute the same function, one row at a time.

    With ``last_axis=True`` each vector along the last axis is normalised on
    its own and ``gamma``, ``beta`` have that axis's length: the transformer's
    per-token layer norm over ``(n, T, d)`` (notes B §7.6, D1 §11.6). On 2-d
    input both settings compute the same function.
    """

    def __init__(self, eps=1e-5, last_axis=False):
        self.eps = eps
        self.last_axis = last_axis

    def param_shapes(self, in_shape):
        if self.last_axis:
            return {"gamma": in_shape[-1:], "beta": in_shape[-1:]}
        return {"gamma": in_shape, "beta": in_shape}

    def init(self, params, state, rng):
        params["gamma"][:] = 1.0
        params["beta"][:] = 0.0

    def forward(self, X, params, cache, training):
        n = X.shape[0]
        axis = -1 if self.last_axis else 1
        rows = X.shape[:-1] + (1,) if self.last_axis else (n, 1)
        xhat = _buffer(cache, "xhat", X.shape, X.dtype)
        Y = _buffer(cache, "Y", X.shape, X.dtype)
        mu = _buffer(cache, "mu", rows, X.dtype)
        invstd = _buffer(cache, "invstd", rows, X.dtype)
        np.mean(X, axis=axis, keepdims=True, out=mu)
        np.subtract(X, mu, out=xhat)
        np.multiply(xhat, xhat, out=Y)
        np.mean(Y, axis=axis, keepdims=True, out=invstd)
        invstd += self.eps
        _scale_shift(xhat, invstd, params, Y)
        cache["xhat"], cache["invstd_rows"] = xhat, invstd
        return Y

    def backward(self, dY, params, grads, cache):
        xhat, invstd = cache["xhat"], cache["invstd_rows"]
        axis = -1 if self.last_axis else 1
        sum_axes = tuple(range(dY.ndim - 1)) if self.last_axis else 0
        tmp = _buffer(cache, "tmp", dY.shape, dY.dtype)
        row = _buffer(cache, "row", invstd.shape, dY.dtype)
        np.multiply(dY, xhat, out=tmp)
        np.sum(tmp, axis=sum_axes, out=grads["gamma"])
        np.sum(dY, axis=sum_axes, out=grads["beta"])
        # dx = (g - mean(g) - xhat mean(g xhat)) / sigma, with g = gamma dy.
        dY *= params["gamma"]
        np.multiply(dY, xhat, out=tmp)
        np.mean(tmp, axis=axis, keepdims=True, out=row)
        np.multiply(xhat, row, out=tmp)
        np.mean(dY, axis=axis, keepdims=True, out=row)
        tmp += row
        dY -= tmp
        dY *= invstd
        return dY


class Sequential:
    """A chain of layers over one flat parameter vector.

    Parameters
    ----------
    layers : list of layer objects
        Applied in order (see the module docstring for the protocol).
    in_shape : tuple of int
        Shape of one input row, e.g. ``(n_features,)``.
    dtype : numpy dtype, default=np.float64
        Of the parameters, the buffers and the arithmetic.
    rng : numpy RandomState or Generator, default=None
        Draws the initial parameters; None leaves dense layers at zero (to be
        filled from fitted values).

    Attributes
    ----------
    theta, grad : ndarray of shape (n_params,)
        All trained parameters and their gradient; ``params[i]`` and
        ``grads[i]`` are dicts of views into them, one per layer.
    n_decayed : int
        ``theta[:n_decayed]`` holds the penalised parameters (``decayed``).
    state : ndarray
        Non-trained arrays (running statistics), viewed by the layers' caches.
    shapes : list of tuple
        Row shape before each layer, and the output's last.
    """

    def __init__(self, layers, in_shape, dtype=np.float64, rng=None):
        self.layers = list(layers)
        self.dtype = np.dtype(dtype)
        self.shapes = [tuple(in_shape)]
        for layer in self.layers:
            self.shapes.append(tuple(layer.out_shape(self.shapes[-1])))
        specs = [
            (i, name, shape, name in layer.decayed)
            for i, layer in enumerate(self.layers)
            for name, shape in layer.param_shapes(self.shapes[i]).items()
        ]
        specs.sort(key=lambda spec: not spec[3])  # stable: decayed first
        self.n_decayed = sum(math.prod(s[2]) for s in specs if s[3])
        self.theta, self.params = self._flat(specs)
        self.grad, self.grads = self._flat(specs)
        state_specs = [
            (i, name, shape, False)
            for i, layer in enumerate(self.layers)
            for name, shape in layer.state_shapes(self.shapes[i]).items()
        ]
        self.state, states = self._flat(state_specs)
        self.ctx = {"sample_weight": None, "rng": None, "update_state": True}
        self.caches = [{"ctx": self.ctx, "state": s} for s in states]
        for layer, params, state in zip(self.layers, self.params, states):
            layer.init(params, state, rng)

    def _flat(self, specs):
        flat = np.zeros(sum(math.prod(s[2]) for s in specs), dtype=self.dtype)
        views = [{} for _ in self.layers]
        offset = 0
        for i, name, shape, _ in specs:
            size = math.prod(shape)
            views[i][name] = flat[offset:offset + size].reshape(shape)
            offset += size
        return flat, views

    @property
    def out_shape(self):
        return self.shapes[-1]

    def forward(self, X, training=False, *, sample_weight=None, rng=None,
                update_state=True):
        """Output of the batch ``X`` (a view into a reused buffer).

        Parameters
        ----------
        X : ndarray of shape (n, *in_shape)
        training : bool, default=False
            Batch statistics and dropout (True), or running statistics.
        sample_weight : ndarray of shape (n,), default=None
            Weights of the rows in batch statistics.
        rng : numpy Generator, default=None
            Draws dropout masks (required for training with dropout).
        update_state : bool or float, default=True
            Whether a training pass updates running statistics; a float in
            (0, 1] weighs this batch instead of the layers' momentum (1:
            replace them by this batch's).
        """
        ctx = self.ctx
        ctx["sample_weight"], ctx["rng"], ctx["update_state"] = (
            sample_weight, rng, update_state
        )
        if sp.issparse(X):
            X = X.astype(self.dtype, copy=False)  # for a first Dense layer
        else:
            X = np.asarray(X, dtype=self.dtype)
        for layer, params, cache in zip(self.layers, self.params, self.caches):
            X = layer.forward(X, params, cache, training)
        return X

    def backward(self, dY, input_grad=False):
        """Back-propagate ``dY = dJ/d(output)`` of the last forward pass.

        Writes every parameter gradient into ``grad`` and returns ``dJ/dX``
        (None when ``input_grad`` is False and the first layer can skip it).
        ``dY`` may be overwritten.
        """
        self.caches[0]["need_dX"] = input_grad
        for i in range(len(self.layers) - 1, -1, -1):
            dY = self.layers[i].backward(dY, self.params[i], self.grads[i],
                                         self.caches[i])
        return dY


def clipped_backward(net, dY, max_norm):
    r"""Sum of the per-example gradients of the last forward pass, each clipped.

    For DP-SGD (notes B §13.5): ``dY`` holds one row per example,
    :math:`\partial \ell_i / \partial z_i` (not divided by the batch size).
    Example i's gradient :math:`g_i` is clipped to
    :math:`g_i / \max(1, \|g_i\| / C)` and the clipped sum is written into
    ``net.grad``. No per-example gradient is formed: through a dense layer,
    :math:`\|\partial\ell_i/\partial W\|^2 = \|a_i\|^2 \|\delta_i\|^2` and
    :math:`\|\partial\ell_i/\partial b\|^2 = \|\delta_i\|^2` (the "ghost
    norm"), with :math:`a_i` the layer's input row and :math:`\delta_i` its
    output gradient row, so one backward pass gives every norm and the clipped
    sums are :math:`A^\top (c \odot \Delta)` and :math:`c^\top \Delta`.

    Only :class:`Dense`, :class:`Activation` and :class:`Dropout` layers are
    supported (batch statistics mix the examples).

    Parameters
    ----------
    net : Sequential
    dY : ndarray of shape (n, n_outputs)
        May be overwritten.
    max_norm : float
        C (``inf``: no clipping).

    Returns
    -------
    norms : ndarray of shape (n,)
        The per-example gradient norms before clipping.
    """
    records = []
    for i in range(len(net.layers) - 1, -1, -1):
        layer, params, cache = net.layers[i], net.params[i], net.caches[i]
        # Every dY here is the caller's array or a fresh one from np.dot,
        # owned by this call: recorded as is, scaled in place below.
        if isinstance(layer, Dense):
            records.append((i, cache["X"], dY))
            if i > 0:
                dY = np.dot(dY, params["W"].T)
        elif isinstance(layer, (Activation, Dropout)):
            dY = layer.backward(dY, params, net.grads[i], cache)
        else:
            raise ValueError(
                f"Per-example gradients need layers whose rows do not interact; "
                f"{type(layer).__name__} is not supported."
            )
    # Ghost norms, summed over the layers: (||a_i||^2 + 1) ||delta_i||^2.
    sq = None
    for _, A, D in records:
        term = _row_sq(A, plus_one=True)
        term *= _row_sq(D)
        if sq is None:
            sq = term
        else:
            sq += term
    norms = np.sqrt(sq)
    if np.isinf(max_norm):
        scale = None
    else:
        # C / max(norm, C): 1 below C; an overflowed (inf) norm gives 0.
        scale = np.maximum(norms, max_norm)
        np.divide(max_norm, scale, out=scale)
        if not math.isfinite(float(sq.sum())):
            scale[np.isnan(scale)] = 0.0
    net.grad[:] = 0.0
    for i, A, D in records:
        grads = net.grads[i]
        if scale is None:
            c = np.ones(D.shape[0], dtype=D.dtype)
        else:
            c = scale.astype(D.dtype, copy=False)
        # Bias: c^T Delta (a GEMV, far cheaper than a column sum); weights:
        # A^T (c * Delta).
        np.dot(c, D, out=grads["b"])
        if scale is not None:
            D *= c[:, None]
        np.dot(A.T, D, out=grads["W"])
    return norms


def _row_sq(A, plus_one=False):
    """Squared row norms (plus 1 for the bias), in float64."""
    if A.dtype != np.float64:
        A = A.astype(np.float64)
    if A.shape[1] == 1:
        out = np.square(A[:, 0])
    else:
        # square then a GEMV with ones: a third of einsum's call overhead.
        out = np.dot(np.square(A), np.ones(A.shape[1]))
    if plus_one:
        out += 1.0
    return out
