r"""Convolution, pooling and residual layers of the network core (notes B §7.5).

The layers follow the protocol of :mod:`._modules` (``out_shape``,
``param_shapes``, ``init``, ``forward``, ``backward``) and live in a
:class:`~._modules.Sequential` over one flat parameter vector like the dense
ones.

**Convolution is cross-correlation** (no kernel flip, notes B §7.5):

.. math::

   Y[i, j, f] = b_f + \sum_{u < a} \sum_{v < b} \sum_{c} W[u, v, c, f]\,
   X_{pad}[s i + u, t j + v, c],

with an output of :math:`\lfloor 1 + (m + 2p - a)/s \rfloor \times
\lfloor 1 + (n + 2q - b)/t \rfloor` positions and :math:`a\,b\,c_{in}\,c_{out}`
weights.

**Layout: channels last**, one image row ``(h, w, c)`` per sample, batches
``(n, h, w, c)``. With it, the patch matrix of im2col has one row per output
position and one column per ``(u, v, c)``, so the convolution is *one* GEMM
``cols (n h' w', a b c_in) @ W (a b c_in, c_out)`` whose result *is* the
``(n, h', w', c_out)`` output, already contiguous: no transpose before the
next layer, and the flattened map is what :class:`~._modules.Dense` takes.
The backward pass is two more GEMMs on the same contiguous operands,
``cols.T @ dY`` (weights) and ``dY @ W.T`` (patch gradients), then col2im.
Each patch row copies ``a`` runs of ``b c`` contiguous numbers (the ``(v,
c)`` axes are adjacent in memory). Channels first would make the GEMM's
output ``(c_out, n h' w')`` and need a transpose per layer; it is also the
order scikit-learn users' flat rows are *not* in (a flattened ``(h, w, c)``
image is channels last).

All buffers (padded input, patch matrix, outputs, gradients) are allocated
once per layer and reused as row slices, as in :mod:`._modules`.
"""

import math
from numbers import Integral

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._activations import ACTIVATIONS
from ._conv_kernels import col2im_add, max_pool_backward, max_pool_forward
from ._modules import Activation, BatchNorm, _buffer, _Layer, init_uniform

__all__ = [
    "AvgPool2D", "BatchNorm2D", "Conv2D", "ConvTranspose2D", "Flatten", "GlobalAvgPool", "LpPool2D",
    "MaxPool2D", "ResidualBlock", "conv2d_as_matrix", "conv2d_output_shape",
    "im2col",
]


# ---------------------------------------------------------------- utilities


def _pair(value, name):
    """``value`` as a pair of positive ints (an int is used for both axes)."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        value = (value, value)
    try:
        pair = tuple(value)
    except TypeError:
        pair = ()
    if len(pair) != 2 or any(
        isinstance(v, bool) or not isinstance(v, Integral) or v < 1 for v in pair
    ):
        raise ValueError(f"{name} must be a positive int or a pair of them; got {value!r}.")
    return int(pair[0]), int(pair[1])


def _padding(in_hw, kernel, stride, padding):
    """``((top, bottom), (left, right))`` zeros added around an ``in_hw`` image.

    ``padding`` is "valid" (none), "same" (output size = input size, notes B
    §7.5: total ``(m - 1) s + a - m`` on an axis, the odd one at the bottom /
    right), an int, ``(p, q)`` (rows, columns, both sides) or ``((top,
    bottom), (left, right))``.
    """
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0), (0, 0)
        if padding == "same":
            pads = []
            for m, a, s in zip(in_hw, kernel, stride):
                total = max((m - 1) * s + a - m, 0)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise ValueError(
            f"padding must be 'valid', 'same', an int or pairs of ints; got {padding!r}."
        )
    if isinstance(padding, Integral) and not isinstance(padding, bool):
        padding = (padding, padding)
    try:
        parts = tuple(padding)
    except TypeError:
        parts = ()
    pads = []
    for part in parts:
        if isinstance(part, Integral) and not isinstance(part, bool):
            part = (part, part)
        try:
            part = tuple(part)
        except TypeError:
            part = ()
        if len(part) != 2 or any(
            isinstance(v, bool) or not isinstance(v, Integral) or v < 0 for v in part
        ):
            pads = None
            break
        pads.append((int(part[0]), int(part[1])))
    if not pads or len(pads) != 2:
        raise ValueError(
            "padding must be 'valid', 'same', a non-negative int, (p, q) or "
            f"((top, bottom), (left, right)); got {padding!r}."
        )
    return tuple(pads)


def _out_hw(in_hw, kernel, stride, pads):
    out = []
    for m, a, s, (lo, hi) in zip(in_hw, kernel, stride, pads):
        size = (m + lo + hi - a) // s + 1
        if m + lo + hi < a:
            raise ValueError(
                f"The kernel {tuple(kernel)} is larger than the padded input "
                f"{tuple(m + lo + hi for m, (lo, hi) in zip(in_hw, pads))}."
            )
        out.append(size)
    return tuple(out)


def conv2d_output_shape(in_shape, kernel_size, stride=1, padding=0):
    r"""Spatial output size of a 2-d convolution or pooling (notes B §7.5).

    .. math:: \left\lfloor 1 + \frac{m + 2p - a}{s} \right\rfloor \times
              \left\lfloor 1 + \frac{n + 2q - b}{t} \right\rfloor

    Parameters
    ----------
    in_shape : tuple of int
        ``(m, n)`` or ``(m, n, c)``; only the first two are used.
    kernel_size : int or (int, int)
        ``(a, b)``.
    stride : int or (int, int), default=1
        ``(s, t)``.
    padding : int, pair, pair of pairs, "valid" or "same", default=0
        Zeros on both sides of each axis (an int, or ``(p, q)``), on each
        side separately (``((top, bottom), (left, right))``), none
        ("valid"), or "same": the least total padding
        ``(m - 1) s + a - m`` that makes the output size equal the input
        size, split with the odd one at the bottom / right.

    Returns
    -------
    out_shape : (int, int)

    Notes
    -----
    The notes' symmetric same padding :math:`p = \lceil (m(s-1) + a - s)/2
    \rceil` overshoots by one output row when that total is odd and
    :math:`s = 1` (an even kernel: :math:`a = 2` gives :math:`p = 1` and an
    output of :math:`m + 1`); "same" here pads asymmetrically instead.

    Examples
    --------
    >>> from skml.neural_network import conv2d_output_shape
    >>> conv2d_output_shape((32, 32), 5, stride=1, padding=0)
    (28, 28)
    >>> conv2d_output_shape((7, 7), 3, stride=2, padding=1)
    (4, 4)
    >>> conv2d_output_shape((8, 8), 2, padding="same")
    (8, 8)
    """
    in_hw = tuple(int(v) for v in tuple(in_shape)[:2])
    if len(in_hw) != 2 or min(in_hw) < 1:
        raise ValueError(f"in_shape must be (m, n) or (m, n, c) of positive ints; "
                         f"got {in_shape!r}.")
    kernel = _pair(kernel_size, "kernel_size")
    stride = _pair(stride, "stride")
    return _out_hw(in_hw, kernel, stride, _padding(in_hw, kernel, stride, padding))


def _windows(Xp, kernel, stride, out_hw):
    """Read-only view ``(n, h', w', a, b, c)`` of the patches of ``Xp``."""
    sn, sh, sw, sc = Xp.strides
    n, c = Xp.shape[0], Xp.shape[3]
    return as_strided(
        Xp, (n, out_hw[0], out_hw[1], kernel[0], kernel[1], c),
        (sn, sh * stride[0], sw * stride[1], sh, sw, sc), writeable=False,
    )


def _col2im_add(dXp, dcols6, kernel, stride, out_hw):
    """``dXp[patch of (i, j)] += dcols6[:, i, j]``: the adjoint of the patches."""
    # One numba pass: a b strided numpy additions over the whole map were
    # 10x slower (see _conv_kernels).
    col2im_add(dXp, dcols6, stride[0], stride[1])


def im2col(X, kernel_size, stride=1, padding=0):
    """The patch matrix of a batch of images (notes B §7.5).

    Row ``(k, i, j)`` holds the patch of image ``k`` under output position
    ``(i, j)``, in the order ``(u, v, c)`` (kernel row, kernel column,
    channel), so a convolution with weights ``W`` of shape ``(a, b, c_in,
    c_out)`` is ``im2col(X, ...) @ W.reshape(-1, c_out)``.

    Parameters
    ----------
    X : array-like of shape (n, m, n_cols, c) or (m, n_cols)
        Images, channels last; a 2-d array is one single-channel image.
    kernel_size : int or (int, int)
    stride : int or (int, int), default=1
    padding : int, pair, "valid" or "same", default=0
        As in :func:`conv2d_output_shape`.

    Returns
    -------
    cols : ndarray of shape (n * h_out * w_out, a * b * c)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neural_network import im2col
    >>> im2col(np.arange(9.0).reshape(3, 3), 2)
    array([[0., 1., 3., 4.],
           [1., 2., 4., 5.],
           [3., 4., 6., 7.],
           [4., 5., 7., 8.]])
    """
    X = np.asarray(X)
    if X.ndim == 2:
        X = X[None, :, :, None]
    if X.ndim != 4:
        raise ValueError(
            f"X must be (n, h, w, c) images or one (h, w) image; got shape {X.shape}."
        )
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    kernel = _pair(kernel_size, "kernel_size")
    stride = _pair(stride, "stride")
    pads = _padding(X.shape[1:3], kernel, stride, padding)
    out_hw = _out_hw(X.shape[1:3], kernel, stride, pads)
    Xp = np.pad(X, ((0, 0), pads[0], pads[1], (0, 0)))
    windows = _windows(Xp, kernel, stride, out_hw)
    return windows.reshape(-1, kernel[0] * kernel[1] * X.shape[3])


def conv2d_as_matrix(W, in_shape, stride=1, padding=0):
    r"""The convolution as a (sparse, weight-sharing) matrix (notes B §7.5).

    Returns ``M`` such that ``M @ X.ravel()`` equals the cross-correlation of
    the image ``X`` of shape ``in_shape`` with ``W``, raveled: a
    fully connected layer whose ``h' w' c_out x m n c_in`` entries are all
    zero or copies of the ``a b c_in c_out`` kernel weights. For a 2 x 2
    kernel on a 3 x 3 image, ``M`` is the notes' 4 x 9 "circulant" matrix with
    4 shared weights where a dense layer has 36.

    Parameters
    ----------
    W : array-like of shape (a, b) or (a, b, c_in, c_out)
    in_shape : (m, n) or (m, n, c_in)
    stride, padding : as in :func:`conv2d_output_shape`
        Padded pixels are zeros: their columns are left out.

    Returns
    -------
    M : ndarray of shape (h' * w' * c_out, m * n * c_in)
        Rows in the order ``(i, j, f)``, columns ``(row, column, channel)``
        (channels last, C order).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neural_network import conv2d_as_matrix
    >>> M = conv2d_as_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]), (3, 3))
    >>> M.shape
    (4, 9)
    >>> M[0]
    array([1., 2., 0., 3., 4., 0., 0., 0., 0.])
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim == 2:
        W = W[:, :, None, None]
    if W.ndim != 4:
        raise ValueError(f"W must be (a, b) or (a, b, c_in, c_out); got shape {W.shape}.")
    in_shape = tuple(int(v) for v in in_shape)
    if len(in_shape) == 2:
        in_shape = (*in_shape, 1)
    a, b, c_in, c_out = W.shape
    if len(in_shape) != 3 or in_shape[2] != c_in:
        raise ValueError(
            f"in_shape {in_shape} does not match W's {c_in} input channel(s)."
        )
    stride = _pair(stride, "stride")
    pads = _padding(in_shape[:2], (a, b), stride, padding)
    oh, ow = _out_hw(in_shape[:2], (a, b), stride, pads)
    m, n = in_shape[:2]
    M = np.zeros((oh, ow, c_out, m, n, c_in))
    for i in range(oh):
        for j in range(ow):
            for u in range(a):
                r = i * stride[0] + u - pads[0][0]
                if not 0 <= r < m:
                    continue
                for v in range(b):
                    col = j * stride[1] + v - pads[1][0]
                    if 0 <= col < n:
                        M[i, j, :, r, col, :] = W[u, v].T
    return M.reshape(oh * ow * c_out, m * n * c_in)


def _check_image(in_shape, layer):
    if len(in_shape) != 3:
        raise ValueError(
            f"{type(layer).__name__} takes (h, w, c) images; its input rows have "
            f"shape {tuple(in_shape)}."
        )


def _zeros_buffer(cache, key, shape, dtype):
    """Like ``_buffer`` but zero-filled when (re)allocated."""
    buf = cache.get(key)
    if buf is None or buf.shape[0] < shape[0] or buf.shape[1:] != tuple(shape[1:]) or (
        buf.dtype != dtype
    ):
        buf = np.zeros(shape, dtype=dtype)
        cache[key] = buf
    return buf[:shape[0]]


def _pad_into(X, pads, cache, key):
    """``X`` with its zero border, in a reused buffer (``X`` itself if none)."""
    (top, bottom), (left, right) = pads
    if top == bottom == left == right == 0:
        return X
    n, h, w, c = X.shape
    Xp = _zeros_buffer(cache, key, (n, h + top + bottom, w + left + right, c), X.dtype)
    Xp[:, top:top + h, left:left + w, :] = X  # the border stays zero
    return Xp


# ---------------------------------------------------------------- layers


class Conv2D(_Layer):
    r"""2-d convolution (cross-correlation) with bias, stride and padding.

    Notes B §7.5: multi-channel inputs, ``W`` of shape ``(a, b, c_in,
    c_out)`` (:math:`a b c_{in} c_{out}` weights), one bias per output
    channel. A ``kernel_size`` of 1 is the notes' 1 x 1 convolution (a dense
    layer applied at every pixel, changing the depth only); it skips the
    patch copy.

    Parameters
    ----------
    filters : int
        Output channels ``c_out``.
    kernel_size : int or (int, int)
    stride : int or (int, int), default=1
    padding : int, pair, "valid" or "same", default=0
        As in :func:`conv2d_output_shape`.
    init_bound : float, default=None
        Half-width of the uniform initial weights and biases; None is
        Glorot's ``sqrt(6 / (fan_in + fan_out))`` with ``fan = a b c``.
    """

    decayed = ("W",)

    def __init__(self, filters, kernel_size, stride=1, padding=0, init_bound=None):
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride = _pair(stride, "stride")
        self.padding = padding
        self.init_bound = init_bound
        if self.filters < 1:
            raise ValueError(f"filters must be a positive int; got {filters!r}.")

    def _geometry(self, in_shape):
        _check_image(in_shape, self)
        pads = _padding(in_shape[:2], self.kernel_size, self.stride, self.padding)
        return pads, _out_hw(in_shape[:2], self.kernel_size, self.stride, pads)

    def out_shape(self, in_shape):
        return (*self._geometry(in_shape)[1], self.filters)

    def param_shapes(self, in_shape):
        _check_image(in_shape, self)
        return {"W": (*self.kernel_size, in_shape[2], self.filters),
                "b": (self.filters,)}

    def init(self, params, state, rng):
        a, k, c_in, c_out = params["W"].shape
        init_uniform(params, rng, self.init_bound, a * k * (c_in + c_out))

    def _pointwise(self, pads):
        return self.kernel_size == (1, 1) and self.stride == (1, 1) and pads == (
            (0, 0), (0, 0))

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        geometry = cache.get("geometry")
        if geometry is None or geometry[0] != X.shape[1:]:
            geometry = cache["geometry"] = (X.shape[1:], *self._geometry(X.shape[1:]))
        pads, (oh, ow) = geometry[1:]
        K = self.kernel_size[0] * self.kernel_size[1] * c
        if self._pointwise(pads):
            cols = X.reshape(n * h * w, c)
        else:
            Xp = _pad_into(X, pads, cache, "Xp")
            cols = _buffer(cache, "cols", (n * oh * ow, K), X.dtype)
            np.copyto(cols.reshape(n, oh, ow, *self.kernel_size, c),
                      _windows(Xp, self.kernel_size, self.stride, (oh, ow)))
        Y = _buffer(cache, "Y", (n * oh * ow, self.filters), X.dtype)
        np.dot(cols, params["W"].reshape(K, self.filters), out=Y)
        Y += params["b"]
        cache["cols"], cache["in_shape"] = cols, X.shape
        return Y.reshape(n, oh, ow, self.filters)

    def backward(self, dY, params, grads, cache):
        cols, (n, h, w, c) = cache["cols"], cache["in_shape"]
        pads, (oh, ow) = cache["geometry"][1:]
        K = cols.shape[1]
        dY2 = dY.reshape(-1, self.filters)
        np.dot(cols.T, dY2, out=grads["W"].reshape(K, self.filters))
        np.sum(dY2, axis=0, out=grads["b"])
        if not cache.get("need_dX", True):
            return None
        W2 = params["W"].reshape(K, self.filters)
        if self._pointwise(pads):
            dX = _buffer(cache, "dX", (n * h * w, c), dY.dtype)
            np.dot(dY2, W2.T, out=dX)
            return dX.reshape(n, h, w, c)
        dcols = _buffer(cache, "dcols", cols.shape, dY.dtype)
        np.dot(dY2, W2.T, out=dcols)
        (top, bottom), (left, right) = pads
        dXp = _buffer(cache, "dXp", (n, h + top + bottom, w + left + right, c), dY.dtype)
        dXp.fill(0.0)
        _col2im_add(dXp, dcols.reshape(n, oh, ow, *self.kernel_size, c),
                    self.kernel_size, self.stride, (oh, ow))
        return dXp[:, top:top + h, left:left + w, :]


class ConvTranspose2D(_Layer):
    r"""Transposed convolution ("deconvolution", notes B §7.5, D1 §13.1).

    Each input entry scales the whole kernel, the scaled kernels are placed
    ``stride`` apart and overlaps are summed; then ``padding`` rows and
    columns are cropped from each side. The output has
    :math:`(m - 1) s + a - 2 p` rows (likewise columns): this is the adjoint
    (transpose) of :class:`Conv2D` with the same kernel, stride and
    padding, hence the name. ``W`` has shape ``(c_in, a, b, c_out)``.

    Parameters
    ----------
    filters : int
        Output channels.
    kernel_size : int or (int, int)
    stride : int or (int, int), default=1
    padding : int or (int, int), default=0
        Cropped from both sides of each axis.
    init_bound : float, default=None
        As in :class:`Conv2D`.
    """

    decayed = ("W",)

    def __init__(self, filters, kernel_size, stride=1, padding=0, init_bound=None):
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.stride = _pair(stride, "stride")
        p = padding
        if isinstance(p, Integral) and not isinstance(p, bool):
            p = (p, p)
        try:
            p = tuple(int(v) for v in p if not isinstance(v, bool) and v >= 0)
        except TypeError:
            p = ()
        if len(p) != 2:
            raise ValueError(
                f"padding must be a non-negative int or a pair of them; got {padding!r}."
            )
        self.padding = p
        self.init_bound = init_bound

    def _full_hw(self, in_hw):
        return tuple((m - 1) * s + a for m, s, a in zip(in_hw, self.stride,
                                                          self.kernel_size))

    def out_shape(self, in_shape):
        _check_image(in_shape, self)
        out = [f - 2 * p for f, p in zip(self._full_hw(in_shape[:2]), self.padding)]
        if min(out) < 1:
            raise ValueError(f"padding {self.padding} crops the whole output.")
        return (*out, self.filters)

    def param_shapes(self, in_shape):
        _check_image(in_shape, self)
        return {"W": (in_shape[2], *self.kernel_size, self.filters),
                "b": (self.filters,)}

    def init(self, params, state, rng):
        c_in, a, k, c_out = params["W"].shape
        init_uniform(params, rng, self.init_bound, a * k * (c_in + c_out))

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        (a, k), f = self.kernel_size, self.filters
        H, Wd = self._full_hw((h, w))
        ph, pw = self.padding
        X2 = X.reshape(n * h * w, c)
        cols = _buffer(cache, "cols", (n * h * w, a * k * f), X.dtype)
        np.dot(X2, params["W"].reshape(c, a * k * f), out=cols)
        full = _buffer(cache, "full", (n, H, Wd, f), X.dtype)
        full.fill(0.0)
        _col2im_add(full, cols.reshape(n, h, w, a, k, f), self.kernel_size,
                    self.stride, (h, w))
        Y = _buffer(cache, "Y", (n, H - 2 * ph, Wd - 2 * pw, f), X.dtype)
        np.add(full[:, ph:H - ph, pw:Wd - pw, :], params["b"], out=Y)
        cache["X2"], cache["in_shape"] = X2, X.shape
        return Y

    def backward(self, dY, params, grads, cache):
        X2, (n, h, w, c) = cache["X2"], cache["in_shape"]
        (a, k), f = self.kernel_size, self.filters
        ph, pw = self.padding
        np.sum(dY, axis=(0, 1, 2), out=grads["b"])
        # The gradient of the full map: dY with the cropped border as zeros.
        dfull = _pad_into(dY, ((ph, ph), (pw, pw)), cache, "dfull")
        dcols = _buffer(cache, "dcols", (n * h * w, a * k * f), dY.dtype)
        np.copyto(dcols.reshape(n, h, w, a, k, f),
                  _windows(dfull, self.kernel_size, self.stride, (h, w)))
        np.dot(X2.T, dcols, out=grads["W"].reshape(c, a * k * f))
        if not cache.get("need_dX", True):
            return None
        dX = _buffer(cache, "dX", (n * h * w, c), dY.dtype)
        np.dot(dcols, params["W"].reshape(c, a * k * f).T, out=dX)
        return dX.reshape(n, h, w, c)


class _Pool2D(_Layer):
    """Per-channel pooling over windows, no parameters, no padding (notes B §7.5)."""

    def __init__(self, pool_size=2, stride=None):
        self.pool_size = _pair(pool_size, "pool_size")
        self.stride = self.pool_size if stride is None else _pair(stride, "stride")

    def out_shape(self, in_shape):
        _check_image(in_shape, self)
        return (*_out_hw(in_shape[:2], self.pool_size, self.stride, ((0, 0), (0, 0))),
                in_shape[2])

    def _slices(self, out_hw):
        (a, b), (s, t), (oh, ow) = self.pool_size, self.stride, out_hw
        for u in range(a):
            for v in range(b):
                yield (slice(None), slice(u, u + s * (oh - 1) + 1, s),
                       slice(v, v + t * (ow - 1) + 1, t), slice(None))

    def _grad_buffer(self, cache, shape, dtype):
        dX = _buffer(cache, "dX", shape, dtype)
        dX.fill(0.0)
        return dX


class MaxPool2D(_Pool2D):
    """Max pooling (notes B §7.5); ``stride`` defaults to ``pool_size``.

    The gradient goes to the first maximum of each window (row-major order).
    ``MaxPool2D(pool_size=(h, w))`` on an ``(h, w, c)`` map is global max
    pooling.
    """

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        oh, ow = self.out_shape(X.shape[1:])[:2]
        Y = _buffer(cache, "Y", (n, oh, ow, c), X.dtype)
        arg = _buffer(cache, "arg", (n, oh, ow, c), np.int32)
        # One numba pass over the windows, recording each maximum's offset.
        max_pool_forward(np.ascontiguousarray(X), Y, arg, *self.pool_size, *self.stride)
        cache["in_shape"], cache["arg_out"] = X.shape, arg
        return Y

    def backward(self, dY, params, grads, cache):
        dX = self._grad_buffer(cache, cache["in_shape"], dY.dtype)
        max_pool_backward(np.ascontiguousarray(dY), cache["arg_out"], dX,
                          self.pool_size[1], *self.stride)
        return dX


class AvgPool2D(_Pool2D):
    """Average pooling (notes B §7.5); ``stride`` defaults to ``pool_size``."""

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        oh, ow = self.out_shape(X.shape[1:])[:2]
        Y = _buffer(cache, "Y", (n, oh, ow, c), X.dtype)
        Y.fill(0.0)
        for sl in self._slices((oh, ow)):
            Y += X[sl]
        Y *= 1.0 / (self.pool_size[0] * self.pool_size[1])
        cache["in_shape"] = X.shape
        return Y

    def backward(self, dY, params, grads, cache):
        dX = self._grad_buffer(cache, cache["in_shape"], dY.dtype)
        dY *= 1.0 / (self.pool_size[0] * self.pool_size[1])
        for sl in self._slices(dY.shape[1:3]):
            dX[sl] += dY
        return dX


class LpPool2D(_Pool2D):
    r"""Averaged :math:`\ell_p` pooling (notes B §7.5).

    :math:`y = \left(\frac{1}{K} \sum_{k \in \text{window}} |x_k|^p
    \right)^{1/p}` with :math:`K = a b`: ``p = 1`` is average pooling of
    ``|x|``, ``p -> inf`` max pooling of ``|x|``. PyTorch's ``LPPool2d``
    omits the :math:`1/K` (its output is :math:`K^{1/p}` times this one).
    A window of zeros gets the gradient 0.

    Parameters
    ----------
    pool_size : int or (int, int), default=2
    p : float, default=2.0
        ``p >= 1``.
    stride : int or (int, int), default=None
        ``pool_size`` when None.
    """

    def __init__(self, pool_size=2, p=2.0, stride=None):
        super().__init__(pool_size, stride)
        if not p >= 1.0 or not np.isfinite(p):
            raise ValueError(f"p must be a finite number >= 1; got {p!r}.")
        self.p = float(p)

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        oh, ow = self.out_shape(X.shape[1:])[:2]
        A = _buffer(cache, "A", X.shape, X.dtype)  # |x|^p
        np.abs(X, out=A)
        A **= self.p
        Y = _buffer(cache, "Y", (n, oh, ow, c), X.dtype)
        Y.fill(0.0)
        for sl in self._slices((oh, ow)):
            Y += A[sl]
        Y *= 1.0 / (self.pool_size[0] * self.pool_size[1])
        Y **= 1.0 / self.p
        cache["X"], cache["Yout"] = X, Y
        return Y

    def backward(self, dY, params, grads, cache):
        X, Y = cache["X"], cache["Yout"]
        # dy/dx_k = |x_k|^(p-1) sign(x_k) / (K y^(p-1))
        scale = _buffer(cache, "scale", Y.shape, Y.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.power(Y, self.p - 1.0, out=scale)
            np.divide(dY, scale, out=scale)
        scale[~np.isfinite(scale)] = 0.0
        scale *= 1.0 / (self.pool_size[0] * self.pool_size[1])
        G = _buffer(cache, "G", X.shape, X.dtype)  # |x|^(p-1) sign(x)
        np.abs(X, out=G)
        G **= self.p - 1.0
        G *= np.sign(X)
        dX = self._grad_buffer(cache, X.shape, dY.dtype)
        tmp = _buffer(cache, "tmp", Y.shape, X.dtype)
        for sl in self._slices(Y.shape[1:3]):
            np.multiply(scale, G[sl], out=tmp)
            dX[sl] += tmp
        return dX


class BatchNorm2D(BatchNorm):
    r"""Batch normalisation of feature maps: one mean and variance per channel.

    Notes B §7.4's batch normalisation on ``(n, h, w, c)`` maps, as in
    convolutional networks (Ioffe & Szegedy §3.2): the statistics of channel
    :math:`c` are taken over the batch *and* the positions (``n h w``
    values), and one :math:`\gamma_c, \beta_c` pair is learnt per channel,
    so the normalisation is the same at every position, as the convolution
    is. It is :class:`~._modules.BatchNorm` on the maps reshaped to ``(n h w,
    c)``, a row's sample weight repeated over its positions; the running
    variance's unbiasing count is ``n h w``.
    """

    def param_shapes(self, in_shape):
        return {"gamma": (in_shape[-1],), "beta": (in_shape[-1],)}

    def state_shapes(self, in_shape):
        return {"mean": (in_shape[-1],), "var": (in_shape[-1],)}

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        ctx = cache["ctx"]
        weights = ctx["sample_weight"]
        if weights is not None:
            # The shared context stays untouched: a per-position copy for this
            # layer only, restored before returning.
            ctx["sample_weight"] = np.repeat(weights, h * w)
        try:
            Y = super().forward(X.reshape(n * h * w, c), params, cache, training)
        finally:
            ctx["sample_weight"] = weights
        return Y.reshape(n, h, w, c)

    def backward(self, dY, params, grads, cache):
        shape = dY.shape
        return super().backward(dY.reshape(-1, shape[-1]), params, grads,
                                cache).reshape(shape)


class GlobalAvgPool(_Layer):
    """Average over all positions (notes B §7.5: pool size = input size).

    ``(h, w, c)`` maps become ``(c,)`` rows, ready for a dense layer.
    """

    def out_shape(self, in_shape):
        _check_image(in_shape, self)
        return (in_shape[2],)

    def forward(self, X, params, cache, training):
        n, h, w, c = X.shape
        Y = _buffer(cache, "Y", (n, c), X.dtype)
        np.sum(X.reshape(n, h * w, c), axis=1, out=Y)
        Y *= 1.0 / (h * w)
        cache["in_shape"] = X.shape
        return Y

    def backward(self, dY, params, grads, cache):
        n, h, w, c = cache["in_shape"]
        dX = _buffer(cache, "dX", (n, h, w, c), dY.dtype)
        np.copyto(dX, (dY * (1.0 / (h * w)))[:, None, None, :])
        return dX


class Flatten(_Layer):
    """``(h, w, c)`` rows to ``(h w c,)`` rows (a view), C order."""

    def out_shape(self, in_shape):
        return (math.prod(in_shape),)

    def forward(self, X, params, cache, training):
        cache["in_shape"] = X.shape
        return X.reshape(X.shape[0], -1)

    def backward(self, dY, params, grads, cache):
        return dY.reshape(cache["in_shape"])


class ResidualBlock(_Layer):
    r"""Residual block ``F(x) + shortcut(x)`` (notes B §7.5, ResNet).

    ``F`` is conv (``kernel_size``, ``stride``) - activation - conv
    (``kernel_size``, stride 1), both padded by ``(a - 1) / 2`` (odd
    kernels), so ``F(x)`` has the input's size divided by the stride. The
    shortcut is the identity when the shapes agree, else a 1 x 1
    convolution with the stride (the notes' "add a linear layer if
    dimensions mismatch"). With all of ``F``'s weights and biases zero the
    block is the identity (or the projection). No activation after the sum:
    add an :class:`~._modules.Activation` layer for ResNet's
    ``relu(F(x) + x)``.

    Parameters
    ----------
    filters : int
    kernel_size : int or (int, int), default=3
        Odd.
    stride : int or (int, int), default=1
    activation : str, default="relu"
        Inside ``F``.
    projection : {"auto", True}, default="auto"
        "auto": a 1 x 1 convolution only when the shapes differ; True: always.
    init_bound : float, default=None
        Of both convolutions (None: Glorot's).
    """

    def __init__(self, filters, kernel_size=3, stride=1, activation="relu",
                 projection="auto", init_bound=None, slope=0.1):
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        if any(a % 2 == 0 for a in self.kernel_size):
            raise ValueError(
                f"ResidualBlock needs an odd kernel_size; got {kernel_size!r}."
            )
        self.stride = _pair(stride, "stride")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}.")
        self.activation = activation
        if projection not in ("auto", True):
            raise ValueError(f"projection must be 'auto' or True; got {projection!r}.")
        self.projection = projection
        self.init_bound = init_bound
        self.slope = slope
        pad = tuple((a - 1) // 2 for a in self.kernel_size)
        self.conv1 = Conv2D(filters, self.kernel_size, self.stride, pad, init_bound)
        self.act = Activation(activation, slope)
        self.conv2 = Conv2D(filters, self.kernel_size, 1, pad, init_bound)
        self.proj = Conv2D(filters, 1, self.stride, 0, init_bound)

    def __repr__(self):
        return (f"ResidualBlock(filters={self.filters}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, activation={self.activation!r})")

    def _has_proj(self, in_shape):
        return self.projection is True or self.stride != (1, 1) or (
            in_shape[2] != self.filters)

    def _parts(self, in_shape):
        _check_image(in_shape, self)
        mid = self.conv1.out_shape(in_shape)
        parts = [("conv1", self.conv1, in_shape), ("conv2", self.conv2, mid)]
        if self._has_proj(in_shape):
            parts.append(("proj", self.proj, in_shape))
        return parts

    @property
    def decayed(self):
        return ("conv1.W", "conv2.W", "proj.W")

    def out_shape(self, in_shape):
        return self.conv1.out_shape(in_shape)

    def param_shapes(self, in_shape):
        return {f"{key}.{name}": shape
                for key, layer, shape_in in self._parts(in_shape)
                for name, shape in layer.param_shapes(shape_in).items()}

    @staticmethod
    def _sub(params, key):
        prefix = key + "."
        return {name[len(prefix):]: value for name, value in params.items()
                if name.startswith(prefix)}

    def init(self, params, state, rng):
        for key in ("conv1", "conv2", "proj"):
            sub = self._sub(params, key)
            if sub:
                getattr(self, key).init(sub, {}, rng)

    def _caches(self, cache):
        if "sub" not in cache:
            cache["sub"] = {key: {"ctx": cache["ctx"], "state": {}}
                            for key in ("conv1", "act", "conv2", "proj")}
        return cache["sub"]

    def forward(self, X, params, cache, training):
        sub = self._caches(cache)
        Z = self.conv1.forward(X, self._sub(params, "conv1"), sub["conv1"], training)
        A = self.act.forward(Z, {}, sub["act"], training)
        F = self.conv2.forward(A, self._sub(params, "conv2"), sub["conv2"], training)
        has_proj = "proj.W" in params
        S = self.proj.forward(X, self._sub(params, "proj"), sub["proj"], training) if (
            has_proj) else X
        Y = _buffer(cache, "Y", F.shape, X.dtype)
        np.add(F, S, out=Y)
        cache["has_proj"] = has_proj
        return Y

    def backward(self, dY, params, grads, cache):
        sub = cache["sub"]
        dA = self.conv2.backward(dY, self._sub(params, "conv2"),
                                 self._sub(grads, "conv2"), sub["conv2"])
        dZ = self.act.backward(dA, {}, {}, sub["act"])
        dX1 = self.conv1.backward(dZ, self._sub(params, "conv1"),
                                  self._sub(grads, "conv1"), sub["conv1"])
        if cache["has_proj"]:
            dS = self.proj.backward(dY, self._sub(params, "proj"),
                                    self._sub(grads, "proj"), sub["proj"])
        else:
            dS = dY
        dX = _buffer(cache, "dX", dX1.shape, dY.dtype)
        np.add(dX1, dS, out=dX)
        return dX
