r"""Convolutional networks for images given as flat rows (notes B §7.5).

``ConvNetClassifier`` and ``ConvNetRegressor`` are the MLP estimators
(:mod:`._multilayer_perceptron`: parameter checks, targets, optimisers,
training loop, early stopping, warm starts, ``input_gradient``) with another
network: the rows of ``X`` are reshaped to ``image_shape`` (channels last)
and go through the layers of ``layers`` (:mod:`._conv_modules`), then a
dense output layer.
"""

import math
from numbers import Integral

import numpy as np

from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc, join_blocks
from ..utils._magnitude import check_trainable_magnitude
from ._conv_modules import (
    AvgPool2D,
    BatchNorm2D,
    Conv2D,
    ConvTranspose2D,
    Flatten,
    GlobalAvgPool,
    LpPool2D,
    MaxPool2D,
    ResidualBlock,
)
from ._modules import Activation, BatchNorm, Dense, Dropout, Sequential
from ._multilayer_perceptron import (
    _DROPOUT_PARAM_DOC,
    _NETWORK_ATTRS_DOC,
    _TRAINING_ATTRS_DOC,
    _TRAINING_PARAMS_DOC,
    _BaseMLP,
    _init_bounds,
    MLPClassifier,
    MLPRegressor,
)

__all__ = ["ConvNetClassifier", "ConvNetRegressor"]

# LeNet-5's layout (notes B §7.5, D1 Fig. 10.3) with "same" convolutions, so
# that it also fits 8 x 8 digits; ReLU and max pooling instead of LeNet's
# sigmoid and average pooling.
LENET = (("conv", 6, 5), ("maxpool", 2), ("conv", 16, 5), ("maxpool", 2),
         ("dense", 120), ("dense", 84))

_KINDS = {
    # kind: (required arguments after the kind, optional ones)
    "conv": (2, 2), "convtranspose": (2, 2), "residual": (1, 2),
    "maxpool": (1, 1), "avgpool": (1, 1), "lppool": (1, 2),
    "globalavgpool": (0, 0), "dense": (1, 0), "batchnorm": (0, 1),
}


def _parse_layers(layers):
    """``layers`` as a list of tuples ``(kind, *args)``, checked."""
    if layers is None:
        layers = LENET
    if isinstance(layers, (str, bytes)) or not hasattr(layers, "__iter__"):
        raise ValueError(f"layers must be a list of tuples like ('conv', 16, 3); "
                         f"got {layers!r}.")
    specs = []
    for spec in layers:
        spec = (spec,) if isinstance(spec, str) else tuple(spec)
        if not spec or spec[0] not in _KINDS:
            raise ValueError(
                f"layers: unknown layer {spec!r}; the kinds are {sorted(_KINDS)}."
            )
        required, optional = _KINDS[spec[0]]
        if not required <= len(spec) - 1 <= required + optional:
            raise ValueError(
                f"layers: {spec!r} needs {required} to {required + optional} "
                f"arguments after {spec[0]!r}."
            )
        if spec[0] == "batchnorm" and len(spec) == 2 and (
                isinstance(spec[1], bool) or not isinstance(spec[1], (int, float))
                or not 0 < spec[1] <= 1):
            raise ValueError(f"layers: {spec!r} needs a momentum in (0, 1].")
        if spec[0] in ("conv", "convtranspose", "residual", "dense"):
            width = spec[1]
            if isinstance(width, bool) or not isinstance(width, Integral) or width < 1:
                raise ValueError(f"layers: {spec!r} needs a positive int width.")
        specs.append(spec)
    return specs


def _image_shape(image_shape, n_features):
    """``(h, w, c)`` of the flat rows of ``n_features`` values."""
    if image_shape is None:
        side = math.isqrt(n_features)
        return (side, side, 1) if side * side == n_features else (1, n_features, 1)
    shape = tuple(image_shape)
    if len(shape) not in (2, 3) or any(
        isinstance(v, bool) or not isinstance(v, Integral) or v < 1 for v in shape
    ):
        raise ValueError(
            f"image_shape must be (h, w) or (h, w, c) of positive ints; got "
            f"{image_shape!r}."
        )
    h, w = int(shape[0]), int(shape[1])
    if len(shape) == 3:
        c = int(shape[2])
    else:
        c = n_features // (h * w) if n_features % (h * w) == 0 else 0
    if h * w * c != n_features:
        raise ValueError(
            f"image_shape {tuple(shape)} does not fit rows of {n_features} features "
            f"(h * w * c must equal n_features)."
        )
    return (h, w, c)


class _ImageSequential(Sequential):
    """A :class:`Sequential` whose flat input rows are reshaped to images."""

    def forward(self, X, training=False, **kwargs):
        X = np.asarray(X)
        if X.ndim == 2 and len(self.shapes[0]) == 3:
            X = X.reshape(X.shape[0], *self.shapes[0])
        return super().forward(X, training, **kwargs)

    def backward(self, dY, input_grad=False):
        dX = super().backward(dY, input_grad)
        return None if dX is None else dX.reshape(dX.shape[0], -1)


class _ConvNetMixin:
    """What a ConvNet changes in the MLP base: the network, its parameters."""

    # The MLP base's normalisation switches, always off here.
    batch_norm = False
    layer_norm = False

    _parameter_constraints = {
        **{k: v for k, v in _BaseMLP._parameter_constraints.items()
           if k not in ("hidden_layer_sizes", "batch_norm", "bn_momentum", "bn_eps",
                        "layer_norm")},
        "image_shape": [None, "array-like"],
        "layers": [None, "array-like", list, tuple],
    }

    def _hidden_sizes(self):
        return _parse_layers(self.layers)

    def _check_magnitude(self, X):
        # The initial weights and step sizes are absolute: at X * 1e-300 the
        # maps vanish against the biases (a constant network), at X * 1e300
        # they overflow. Refused with the reason rather than a silent constant.
        check_trainable_magnitude(X, type(self).__name__,
                                  what="initial weights and step sizes",
                                  check_offset=False)

    def _train(self, net, X, Y, sample_weight, incremental):
        self._check_magnitude(X)
        super()._train(net, X, Y, sample_weight, incremental)

    def _fit_lbfgs(self, net, X, Y, sample_weight):
        self._check_magnitude(X)
        super()._fit_lbfgs(net, X, Y, sample_weight)

    def _bound(self, fan_in, fan_out):
        return _init_bounds(self.activation, self.init, fan_in, fan_out)

    def _make(self, kind, args, shape):
        """The layer of one ``layers`` entry, for an input of ``shape``."""
        c_in = shape[2]
        if kind in ("conv", "convtranspose", "residual"):
            filters = args[0]
            kernel = args[1] if len(args) > 1 else 3
            stride = args[2] if len(args) > 2 else 1
            a, b = Conv2D(1, kernel).kernel_size
            bound = self._bound(a * b * c_in, a * b * filters)
            if kind == "conv":
                padding = args[3] if len(args) > 3 else "same"
                return Conv2D(filters, kernel, stride, padding, bound)
            if kind == "convtranspose":
                padding = args[3] if len(args) > 3 else 0
                return ConvTranspose2D(filters, kernel, stride, padding, bound)
            return ResidualBlock(filters, kernel, stride, self.activation, "auto",
                                 bound, self.leaky_relu_slope)
        if kind == "globalavgpool":
            return GlobalAvgPool()
        size = Conv2D(1, args[0]).kernel_size
        # A window larger than the map is clipped to it (global pooling).
        size = (min(size[0], shape[0]), min(size[1], shape[1]))
        if kind == "lppool":
            return LpPool2D(size, args[1] if len(args) > 1 else 2.0)
        stride = args[1] if len(args) > 1 else None
        return (MaxPool2D if kind == "maxpool" else AvgPool2D)(size, stride)

    def _conv_layers(self, image, specs, n_outputs):
        layers, shape = [], tuple(image)
        before_activation = None  # where a batch norm of the last layer goes
        for spec in [*specs, ("output", n_outputs)]:
            kind, args = spec[0], spec[1:]
            if kind == "batchnorm":
                # Per channel on maps, per unit after a dense layer; it
                # normalises the previous layer's pre-activations (Ioffe &
                # Szegedy), so it goes before that layer's activation.
                norm = (BatchNorm2D if len(shape) == 3 else BatchNorm)(
                    momentum=float(args[0]) if args else 0.1)
                at = len(layers) if before_activation is None else before_activation
                layers.insert(at, norm)
                if before_activation is not None:
                    before_activation += 1
                continue
            before_activation = None
            try:
                if kind in ("dense", "output"):
                    if len(shape) == 3:
                        layers.append(Flatten())
                        shape = Flatten().out_shape(shape)
                    layer = Dense(args[0], init_bound=self._bound(shape[0], args[0]))
                elif len(shape) != 3:
                    raise ValueError("it needs an image input, and comes after a "
                                     "dense or global pooling layer")
                else:
                    layer = self._make(kind, args, shape)
                shape = tuple(layer.out_shape(shape))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"layers: {spec!r} does not fit its input of shape "
                                 f"{shape}: {exc}") from None
            layers.append(layer)
            if kind in ("conv", "convtranspose", "residual", "dense"):
                before_activation = len(layers)
                layers.append(Activation(self.activation, self.leaky_relu_slope))
            if kind == "dense" and self.dropout > 0:
                layers.append(Dropout(self.dropout))
        return layers

    def _build_network(self, units, dtype, rng=None):
        n_features, specs, n_outputs = units[0], units[1:-1], units[-1]
        if rng is not None:  # a new network: fix its architecture
            self.image_shape_ = _image_shape(self.image_shape, n_features)
            self._fitted_specs = list(specs)
        return _ImageSequential(
            self._conv_layers(self.image_shape_, self._fitted_specs, n_outputs),
            self.image_shape_, dtype, rng=rng,
        )

    def _network(self, dtype):
        units = [math.prod(self.image_shape_), *self._fitted_specs, self.n_outputs_]
        net = self._build_network(units, dtype)
        return self._load_fitted(net)

    def _views(self, net):
        coefs, intercepts = [], []
        norms = {"batch_norm_gamma_": [], "batch_norm_beta_": [],
                 "running_mean_": [], "running_var_": []}
        for layer, params, cache in zip(net.layers, net.params, net.caches):
            if isinstance(layer, BatchNorm):
                for attr, source, name in (
                        ("batch_norm_gamma_", params, "gamma"),
                        ("batch_norm_beta_", params, "beta"),
                        ("running_mean_", cache["state"], "mean"),
                        ("running_var_", cache["state"], "var")):
                    norms[attr].append(source[name])
                continue
            for name, value in params.items():
                (coefs if name.endswith("W") else intercepts).append(value)
        views = {"coefs_": coefs, "intercepts_": intercepts}
        if norms["running_mean_"]:
            views.update(norms)
        return views

    def feature_maps(self, X, layer=0):
        """Output of one convolution of the fitted network, after its activation.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        layer : int, default=0
            Index among the convolution-like layers (conv, transposed conv,
            residual) of ``layers``.

        Returns
        -------
        maps : ndarray of shape (n_samples, h, w, filters)
        """
        net, X = self._net_and_input(X)
        kinds = (Conv2D, ConvTranspose2D, ResidualBlock)
        positions = [i for i, lay in enumerate(net.layers) if isinstance(lay, kinds)]
        if isinstance(layer, bool) or not isinstance(layer, Integral) or not (
            -len(positions) <= layer < len(positions)
        ):
            raise ValueError(
                f"layer must be an int in [0, {len(positions)}); got {layer!r}."
            )
        # The layer, its batch norm if any, and its activation.
        stop = next(i for i in range(positions[layer] + 1, len(net.layers))
                    if isinstance(net.layers[i], Activation)) + 1
        out = X.reshape(X.shape[0], *net.shapes[0])
        for lay, params, cache in zip(net.layers[:stop], net.params, net.caches):
            out = lay.forward(out, params, cache, False)
        return np.array(out, dtype=np.float64)


# Docstring blocks of both ConvNets, placed by fill_doc.
_CONV_PARAMS_DOC = """
    image_shape : (h, w) or (h, w, c), default=None
        Shape of the image in each row of ``X`` (rows are C-order flattened
        ``(h, w, c)`` arrays, channels last; with ``(h, w)`` the channels are
        ``n_features / (h w)``). None: square single-channel images when
        ``n_features`` is a square, else ``(1, n_features, 1)``.
    layers : list of tuple, default=None
        The hidden layers, in order, each followed by ``activation`` where
        it has weights:

        - ``("conv", filters, kernel_size[, stride[, padding]])``: a 2-d
          convolution; padding "same" (output size = input size) unless
          given (an int, a pair, "valid" or "same"). ``kernel_size=1`` is the
          1 x 1 convolution.
        - ``("maxpool" | "avgpool", size[, stride])`` and ``("lppool",
          size[, p])``: pooling (windows larger than the map are clipped to
          it).
        - ``("globalavgpool",)``: the mean of each channel.
        - ``("residual", filters[, kernel_size=3[, stride=1]])``: a residual
          block ``F(x) + x`` (a 1 x 1 projection when the shapes differ).
        - ``("convtranspose", filters, kernel_size[, stride[, padding]])``.
        - ``("dense", units)``: a fully connected layer (the maps are
          flattened first), followed by dropout when ``dropout > 0``.
        - ``("batchnorm"[, momentum=0.1])``: batch normalisation of the
          previous layer's output before its activation (notes B §7.4): per
          channel over the batch and positions on maps, per unit after a
          dense layer; running statistics at inference.

        A dense output layer follows. None is a LeNet-like network:
        ``[("conv", 6, 5), ("maxpool", 2), ("conv", 16, 5), ("maxpool", 2),
        ("dense", 120), ("dense", 84)]``.
    activation : {"relu", "leaky_relu", "tanh", "logistic", "identity"}, \
default="relu"
        After every convolution, residual block and hidden dense layer.
"""


# The MLP's training parameters, without its normalisations.
_CONV_TRAINING_PARAMS_DOC = join_blocks(_TRAINING_PARAMS_DOC, """
    init : {"glorot", "he", "auto", "normal"}, default="auto"
        Initial weights, as in :class:`MLPClassifier`: "auto" picks "he" for
        ReLU-like activations and "glorot" otherwise.
""", _DROPOUT_PARAM_DOC, """
    dtype : {"float64", "float32"}, default="float64"
        Precision of the parameters and of the training arithmetic;
        "float32" roughly halves the time of the matrix products.
""")


_CONV_NOTES_DOC = """
    Notes
    -----
    A convolution is one matrix product per batch: the patches of the batch
    are copied into a reused ``(n h' w', a b c_in)`` matrix (im2col,
    :func:`im2col`) and multiplied by the ``(a b c_in, c_out)`` kernel
    matrix; images are kept channels last so that product is already the
    next layer's input. One epoch costs :math:`O(n \\sum_l h'_l w'_l a_l b_l
    c_{l-1} c_l)` for the forward pass and twice that for the backward.
    Parameters are one flat vector (the kernels and biases are views,
    ``coefs_`` and ``intercepts_``), stepped by an :mod:`skml.optim`
    optimiser, as in :class:`MLPClassifier` whose machinery this estimator
    reuses.

    ``alpha`` penalises the kernels and dense weights, not the biases.
    ``n_layers_`` counts the entries of ``layers`` plus the input and the
    output.
"""

_CONV_ATTRS_DOC = join_blocks(_TRAINING_ATTRS_DOC, """
    coefs_ : list of ndarray
        Weights in layer order: convolution kernels of shape ``(a, b, c_in,
        c_out)`` (transposed convolutions ``(c_in, a, b, c_out)``; a residual
        block contributes two or three), dense ``(n_in, n_out)``.
    intercepts_ : list of ndarray
        The biases, in the same order.
    batch_norm_gamma_, batch_norm_beta_ : list of ndarray
        Scales and shifts of each ``("batchnorm",)`` layer (per channel on
        maps, per unit after a dense layer); only with such layers.
    running_mean_, running_var_ : list of ndarray
        Their running statistics, used at inference.
    image_shape_ : tuple of int
        ``(h, w, c)`` of the input images.
""", _NETWORK_ATTRS_DOC, FITTED_FEATURE_ATTRIBUTES)

_CONV_SEE_ALSO_DOC = """
    See Also
    --------
    ConvNetClassifier, ConvNetRegressor : The network with a softmax (or
        logistic) output, or with an identity one.
    MLPClassifier, MLPRegressor : Dense layers only.
"""

_CONV_BLOCKS = {"conv parameters": _CONV_PARAMS_DOC, "see also": _CONV_SEE_ALSO_DOC,
                "training parameters": _CONV_TRAINING_PARAMS_DOC,
                "conv attributes": _CONV_ATTRS_DOC, "notes": _CONV_NOTES_DOC}


@fill_doc(**_CONV_BLOCKS)
class ConvNetClassifier(_ConvNetMixin, MLPClassifier):
    """Convolutional-network classifier on images given as flat rows.

    The convolutional network of notes B §7.5 (D1 Ch. 10): convolutions as
    cross-correlations with bias, stride and padding, max / average /
    l_p / global pooling, residual blocks ``F(x) + x`` and transposed
    convolutions, then dense layers and a softmax (or logistic) output
    trained on the cross-entropy, with the training machinery of
    :class:`MLPClassifier` (an :mod:`skml.optim` optimiser on mini-batches,
    L2, dropout on the dense layers, early stopping).

    Parameters
    ----------
    <conv parameters>
    <training parameters>
    label_smoothing : float, default=0.0
        Label smoothing ``eps`` in [0, 1) (notes B §7.6, D1 §12.2), as in
        :class:`MLPClassifier`: the cross-entropy is taken against
        ``(1 - eps) y + eps / K`` instead of the one-hot ``y``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    <conv attributes>

    <see also>

    <notes>

    References
    ----------
    .. [1] Y. LeCun, L. Bottou, Y. Bengio and P. Haffner, "Gradient-based
       learning applied to document recognition", Proc. IEEE 1998.
    .. [2] K. He, X. Zhang, S. Ren and J. Sun, "Deep residual learning for
       image recognition", CVPR 2016.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from skml.neural_network import ConvNetClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = ConvNetClassifier(image_shape=(8, 8),
    ...                         layers=[("conv", 8, 3), ("maxpool", 2)],
    ...                         learning_rate_init=0.01, batch_size=32,
    ...                         max_iter=10, random_state=0)
    >>> clf.fit(X[:500] / 16, y[:500]).score(X[500:] / 16, y[500:]) > 0.85
    True
    """

    def __init__(
        self, image_shape=None, layers=None, activation="relu", *, solver="adam",
        alpha=1e-4, batch_size="auto", learning_rate="constant",
        learning_rate_init=1e-3, power_t=0.5, max_iter=200, shuffle=True,
        random_state=None, tol=1e-4, verbose=False, warm_start=False, momentum=0.9,
        nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1,
        beta_1=0.9, beta_2=0.999, epsilon=1e-8, n_iter_no_change=10, max_fun=15000,
        leaky_relu_slope=0.1, init="auto", dropout=0.0, dtype="float64",
        label_smoothing=0.0,
    ):
        self.image_shape = image_shape
        self.layers = layers
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.power_t = power_t
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose
        self.warm_start = warm_start
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.n_iter_no_change = n_iter_no_change
        self.max_fun = max_fun
        self.leaky_relu_slope = leaky_relu_slope
        self.init = init
        self.dropout = dropout
        self.dtype = dtype
        self.label_smoothing = label_smoothing

    _parameter_constraints = {
        **_ConvNetMixin._parameter_constraints,
        "label_smoothing": MLPClassifier._parameter_constraints["label_smoothing"],
    }


@fill_doc(**_CONV_BLOCKS)
class ConvNetRegressor(_ConvNetMixin, MLPRegressor):
    """Convolutional-network regressor on images given as flat rows.

    The network of :class:`ConvNetClassifier` (notes B §7.5) with an
    identity output (an exponential one for ``loss="poisson"``) trained on
    the squared error, with the machinery of :class:`MLPRegressor`.

    Parameters
    ----------
    <conv parameters>
    loss : {"squared_error", "poisson"}, default="squared_error"
        Training loss (as :class:`MLPRegressor`).
    <training parameters>

    Attributes
    ----------
    <conv attributes>

    <see also>

    <notes>
    The loss is summed over the outputs, as in :class:`MLPRegressor`.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neural_network import ConvNetRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 16))
    >>> y = X.reshape(-1, 4, 4)[:, 1:3, 1:3].sum(axis=(1, 2))
    >>> reg = ConvNetRegressor(image_shape=(4, 4), layers=[("conv", 4, 3)],
    ...                        learning_rate_init=0.01, max_iter=100,
    ...                        random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.9
    True
    """

    _parameter_constraints = {
        **_ConvNetMixin._parameter_constraints,
        "loss": MLPRegressor._parameter_constraints["loss"],
    }

    def __init__(
        self, image_shape=None, layers=None, activation="relu", *, loss="squared_error",
        solver="adam", alpha=1e-4, batch_size="auto", learning_rate="constant",
        learning_rate_init=1e-3, power_t=0.5, max_iter=200, shuffle=True,
        random_state=None, tol=1e-4, verbose=False, warm_start=False, momentum=0.9,
        nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1,
        beta_1=0.9, beta_2=0.999, epsilon=1e-8, n_iter_no_change=10, max_fun=15000,
        leaky_relu_slope=0.1, init="auto", dropout=0.0, dtype="float64",
    ):
        self.image_shape = image_shape
        self.layers = layers
        self.activation = activation
        self.loss = loss
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.power_t = power_t
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose
        self.warm_start = warm_start
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.n_iter_no_change = n_iter_no_change
        self.max_fun = max_fun
        self.leaky_relu_slope = leaky_relu_slope
        self.init = init
        self.dropout = dropout
        self.dtype = dtype
