r"""Transformer encoders for sequence classification and regression (notes B §7.6).

An encoder of D1 §11.7: token embedding (or a projection of vectors),
positions (sinusoidal, learned, or RoPE inside attention, notes A §14.2),
``n_layers`` blocks of

.. math::

   H = \operatorname{LN}(X + \operatorname{MHA}(X)), \qquad
   Y = \operatorname{LN}(H + W_2 \max(0, H W_1 + b_1) + b_2)

(post-norm, as D1 §11.6 and PyTorch's default; ``d_ff = 4 d``), a pooling
of the positions (mean, a [CLS] token, or the last position) and a dense
output. Trained by the network core's one loop (:func:`skml.neural_network.
_training.train`) with an :mod:`skml.optim` optimiser, softmax cross-entropy
(with label smoothing) or squared error.
"""

import functools
from numbers import Integral, Real

import numpy as np
from sklearn.base import (BaseEstimator, ClassifierMixin, MultiOutputMixin,
                          RegressorMixin)
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.neural_network._losses import softmax, softmax_cross_entropy, squared_loss
from skml.neural_network._modules import Activation, Dense, Dropout, LayerNorm, Sequential
from skml.neural_network._training import check_finite_parameters, train
from skml.optim import EpochRate, PlateauStopper, get_optimizer
from skml.utils import (Interval, Options, check_sample_weight, encode_labels,
                        validate_params)

from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc, join_blocks
from ..utils.validation import validate_data
from ._layers import (
    ClsToken,
    Embedding,
    LearnedPositional,
    MeanPool,
    MultiHeadAttention,
    Residual,
    SinusoidalPositional,
    TokenDense,
    TokenPool,
)

__all__ = ["TransformerClassifier", "TransformerRegressor"]

SOLVERS = ("adam", "sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adadelta",
           "adabelief")
_DTYPES = {"float64": np.float64, "float32": np.float32}
_NO_Y = object()  # y not given (predict), as opposed to fit(X, None)
_PREDICT_CHUNK = 512  # rows per forward pass in predict: bounds the (n, h, T, T) weights


def _robust_center_scale(X, axis, sample_weight=None):
    """Weighted mean and standard deviation along ``axis`` without overflow.

    Values are divided by their largest magnitude first, so inputs near
    1e300 or 1e-300 give the same standardised data as at unit scale.
    ``sample_weight`` weighs the rows (axis 0), so a row of weight k counts
    as k copies.
    """
    W = None
    if sample_weight is not None and np.sum(sample_weight) > 0:
        W = np.broadcast_to(
            np.asarray(sample_weight, dtype=np.float64).reshape(-1, *[1] * (X.ndim - 1)),
            X.shape)
    s = np.max(np.abs(X), axis=axis, keepdims=True)
    s = np.where((s > 0) & np.isfinite(s), s, 1.0)
    mu = np.average(X / s, axis=axis, weights=W, keepdims=True) * s
    D = X - mu
    s2 = np.max(np.abs(D), axis=axis, keepdims=True)
    s2 = np.where((s2 > 0) & np.isfinite(s2), s2, 1.0)
    sd = np.sqrt(np.average((D / s2) ** 2, axis=axis, weights=W, keepdims=True)) * s2
    sd = np.where(sd > 0, sd, 1.0)
    return mu, sd


class _BaseTransformer(BaseEstimator):
    """Input handling, the network and the training loop; subclasses set the head."""

    _parameter_constraints = {
        "n_layers": [Interval(Integral, 1, None, closed="left")],
        "n_heads": [Interval(Integral, 1, None, closed="left")],
        "d_model": [Interval(Integral, 1, None, closed="left")],
        "d_ff": [None, Interval(Integral, 1, None, closed="left")],
        "positional": [Options({"sinusoidal", "rope", "learned", "none"})],
        "causal": ["boolean"],
        "pooling": [Options({"mean", "cls", "last"})],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "vocab_size": [None, Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "sequence_shape": [None, "array-like"],
        "solver": [Options(set(SOLVERS))],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "batch_size": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "dtype": [Options(set(_DTYPES))],
    }

    def __init__(self, *, n_layers=2, n_heads=4, d_model=32, d_ff=None,
                 positional="sinusoidal", causal=False, pooling="mean", dropout=0.0,
                 vocab_size=None, sequence_shape=None, solver="adam", alpha=0.0,
                 batch_size="auto", learning_rate_init=1e-3, max_iter=200,
                 shuffle=True, early_stopping=False, validation_fraction=0.1,
                 n_iter_no_change=10, tol=1e-4, random_state=None, verbose=False,
                 dtype="float64"):
        self.n_layers = n_layers
        self.n_heads = n_heads
        self.d_model = d_model
        self.d_ff = d_ff
        self.positional = positional
        self.causal = causal
        self.pooling = pooling
        self.dropout = dropout
        self.vocab_size = vocab_size
        self.sequence_shape = sequence_shape
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate_init = learning_rate_init
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose
        self.dtype = dtype

    # ------------------------------------------------------------ inputs

    def _check_config(self):
        validate_params(self)
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} must be a multiple of "
                             f"n_heads={self.n_heads}.")
        if self.positional == "rope" and (self.d_model // self.n_heads) % 2:
            raise ValueError("positional='rope' rotates pairs: the head size "
                             f"d_model / n_heads = {self.d_model // self.n_heads} "
                             "must be even.")
        if self.causal and self.pooling == "cls":
            raise ValueError("pooling='cls' with causal=True: the [CLS] token comes "
                             "first and would see only itself; use pooling='last' "
                             "or 'mean'.")

    def _sequence_shape(self):
        shape = self.sequence_shape
        if shape is None:
            return None
        shape = tuple(shape)
        if not 1 <= len(shape) <= 2 or any(
                isinstance(s, bool) or not isinstance(s, Integral) or s < 1 for s in shape):
            raise ValueError(f"sequence_shape must be (T,) or (T, d) of positive ints; "
                             f"got {self.sequence_shape!r}.")
        return tuple(int(s) for s in shape)

    def _validate_X(self, X, y=None, reset=True, sample_weight=None):
        """Checked sequences: ``(n, T)`` token ids or ``(n, T, f)`` floats, plus y."""
        if not reset:
            y = _NO_Y
        kwargs = {"reset": reset, "allow_nd": True, "dtype": "numeric"}
        if y is _NO_Y:
            X = validate_data(self, X, **kwargs)
        else:
            X, y = validate_data(self, X, y, multi_output=self._multi_output,
                                 y_numeric=not self._is_clf, **kwargs)
        if X.ndim not in (2, 3):
            raise ValueError(f"X must have shape (n, T) or (n, T, d); got {X.shape}.")
        seq = self._sequence_shape()
        if seq is not None:
            if X.ndim != 2 or X.shape[1] != int(np.prod(seq)):
                raise ValueError(f"sequence_shape={seq} needs flat rows of "
                                 f"{int(np.prod(seq))} features; got X of shape {X.shape}.")
            X = X.reshape(X.shape[0], *seq)
        if reset:
            tokens = self.vocab_size is not None
            if tokens and X.ndim != 2:
                raise ValueError("vocab_size is set, so X must hold token ids of shape "
                                 f"(n, T); got {X.shape}.")
            self.input_kind_ = "tokens" if tokens else (
                "scalars" if X.ndim == 2 else "vectors")
        kind = self.input_kind_
        if kind == "tokens":
            if X.ndim != 2:
                raise ValueError("The model was fitted on token ids (n, T); got X of "
                                 f"shape {X.shape}.")
            if not np.all(np.isfinite(X)) or np.any(X != np.round(X)):
                raise ValueError("With vocab_size set, X must hold integer token ids; "
                                 "it holds non-integer or non-finite values.")
            if X.size and X.min() < 0:
                raise ValueError(f"Token ids must be >= 0; got {X.min()}.")
            if reset:
                top = int(X.max()) + 1 if X.size else 1
                if self.vocab_size != "auto" and top > self.vocab_size:
                    raise ValueError(f"X holds token id {top - 1} but vocab_size="
                                     f"{self.vocab_size}.")
                self.vocab_size_ = top if self.vocab_size == "auto" else self.vocab_size
            elif X.size and X.max() >= self.vocab_size_:
                raise ValueError(f"X holds token id {int(X.max())}, outside the "
                                 f"vocabulary 0..{self.vocab_size_ - 1} seen in fit.")
            X = X.astype(_DTYPES[self.dtype])
        else:
            X = X.astype(np.float64, copy=False)
            if kind == "scalars":
                if X.ndim != 2:
                    raise ValueError("The model was fitted on (n, T) scalar sequences; "
                                     f"got X of shape {X.shape}.")
                X = X[:, :, None]
            elif X.ndim != 3:
                raise ValueError("The model was fitted on (n, T, d) sequences; got X "
                                 f"of shape {X.shape}.")
            if reset:
                # One centre and scale per feature, shared by all positions.
                sw = None
                if sample_weight is not None:
                    sw = check_sample_weight(sample_weight, X[:, 0, :1])
                mu, sd = _robust_center_scale(X, axis=(0, 1), sample_weight=sw)
                self._x_center, self._x_scale = mu[0, 0], sd[0, 0]
                self.sequence_shape_ = X.shape[1:]
            elif X.shape[1:] != self.sequence_shape_:
                raise ValueError(f"X has sequences of shape {X.shape[1:]}; the model "
                                 f"was fitted on {self.sequence_shape_}.")
            X = ((X - self._x_center) / self._x_scale).astype(_DTYPES[self.dtype])
        if reset and kind == "tokens":
            self.sequence_shape_ = X.shape[1:]
        elif not reset and X.shape[1:] != self.sequence_shape_:
            raise ValueError(f"X has sequences of shape {X.shape[1:]}; the model was "
                             f"fitted on {self.sequence_shape_}.")
        return X, y

    # ------------------------------------------------------------ the network

    def _layers(self):
        d = self.d_model
        d_ff = self.d_ff or 4 * d
        layers = [Embedding(self.vocab_size_, d) if self.input_kind_ == "tokens"
                  else TokenDense(d)]
        if self.pooling == "cls":
            layers.append(ClsToken())
        if self.positional == "sinusoidal":
            layers.append(SinusoidalPositional())
        elif self.positional == "learned":
            layers.append(LearnedPositional())

        def drop():
            return [Dropout(self.dropout)] if self.dropout > 0 else []

        for _ in range(self.n_layers):
            layers += [
                Residual([MultiHeadAttention(self.n_heads, self.causal,
                                             self.positional == "rope"), *drop()]),
                LayerNorm(last_axis=True),
                Residual([TokenDense(d_ff), Activation("relu"), *drop(),
                          TokenDense(d), *drop()]),
                LayerNorm(last_axis=True),
            ]
        layers.append(MeanPool() if self.pooling == "mean" else
                      TokenPool(0 if self.pooling == "cls" else -1))
        layers.append(Dense(self.n_outputs_))
        return layers

    def _network(self, rng=None):
        net = Sequential(self._layers(), self.sequence_shape_, _DTYPES[self.dtype],
                         rng=rng)
        if rng is None:
            net.theta[:] = self.coef_
        return net

    # ------------------------------------------------------------ training

    def _fit(self, X, y, sample_weight):
        self._check_config()
        X, y = self._validate_X(X, y, reset=True, sample_weight=sample_weight)
        dtype = _DTYPES[self.dtype]
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, dtype=dtype)
        Y = self._encode_targets(y, sample_weight).astype(dtype)
        rng = check_random_state(self.random_state)
        net = self._network(rng)
        score = None
        if self.early_stopping:
            X, Y, sample_weight, val = self._validation_split(X, Y, sample_weight, rng)
            score = lambda: self._validation_score(net, *val)  # noqa: E731
        n = X.shape[0]
        batch = min(200, n) if self.batch_size == "auto" else self.batch_size
        rate = EpochRate(self.learning_rate_init)
        optimizer = get_optimizer(self.solver, learning_rate=rate)
        stopper = PlateauStopper(self.n_iter_no_change + 1, self.tol,
                                 mode="max" if self.early_stopping else "min")
        layer_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        log = train(net, X, Y, self._loss(), optimizer, epochs=self.max_iter,
                    batch_size=batch, sample_weight=sample_weight,
                    alpha=float(self.alpha), shuffle=self.shuffle, rng=rng,
                    layer_rng=layer_rng, stopper=stopper, score=score,
                    verbose=self.verbose)
        check_finite_parameters(net)
        self.coef_ = net.theta.copy()
        self.n_iter_ = log.n_epochs
        self.loss_curve_ = list(log.losses)
        self.loss_ = log.losses[-1]
        self.validation_scores_ = list(log.scores) if self.early_stopping else None
        return self

    def _validation_split(self, X, Y, sample_weight, rng):
        stratify = Y.argmax(1) if self._is_clf else None
        parts = train_test_split(
            X, Y, *([] if sample_weight is None else [sample_weight]),
            random_state=rng, test_size=self.validation_fraction, stratify=stratify)
        X_tr, X_val, Y_tr, Y_val = parts[:4]
        sw_tr, sw_val = parts[4:] if sample_weight is not None else (None, None)
        if X_val.shape[0] < 2:
            raise ValueError("The validation set is too small. Increase "
                             "validation_fraction or the size of the dataset.")
        return X_tr, Y_tr, sw_tr, (X_val, Y_val, sw_val)

    def _raw_output(self, X, net=None):
        """Network output for checked ``X``, in chunks of rows (float64)."""
        if net is None:
            net = self._network()
        out = np.empty((X.shape[0], self.n_outputs_))
        for start in range(0, X.shape[0], _PREDICT_CHUNK):
            out[start:start + _PREDICT_CHUNK] = net.forward(
                X[start:start + _PREDICT_CHUNK])
        return out

    def _checked(self, X):
        check_is_fitted(self)
        return self._validate_X(X, reset=False)[0]

    def attention_weights(self, X, layer=0):
        """Attention weights of one encoder block, for figures and inspection.

        Parameters
        ----------
        X : array-like of the fitted input kind
        layer : int, default=0
            Index of the encoder block.

        Returns
        -------
        A : ndarray of shape (n_samples, n_heads, T, T)
            Row ``t`` of head ``j`` holds the weights position ``t`` puts on each
            position; rows sum to 1 (with ``pooling="cls"``, T counts [CLS]).
        """
        X = self._checked(X)
        if isinstance(layer, bool) or not isinstance(layer, Integral) or not (
                0 <= layer < self.n_layers):
            raise ValueError(f"layer must be an int in [0, {self.n_layers - 1}]; "
                             f"got {layer!r}.")
        net = self._network()
        net.forward(X)
        blocks = [(lay, c) for lay, c in zip(net.layers, net.caches)
                  if isinstance(lay, Residual) and isinstance(lay.layers[0],
                                                             MultiHeadAttention)]
        res, cache = blocks[layer]
        return cache["subs"][0][0]["A"].astype(np.float64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.three_d_array = True  # (n, T, d) sequences of vectors
        return tags


# Docstring blocks of both transformers, placed by fill_doc.
_PARAMS_DOC = """
    n_layers : int, default=2
        Encoder blocks (N; the notes' base model has 6).
    n_heads : int, default=4
        Attention heads h; ``d_model`` must be a multiple.
    d_model : int, default=32
        Model width d (512 in the notes' base model).
    d_ff : int, default=None
        Hidden width of the feed-forward sublayer; None is ``4 * d_model``.
    positional : {"sinusoidal", "rope", "learned", "none"}, default="sinusoidal"
        Added sinusoidal table (D1 §11.2), RoPE on the queries and keys of
        every head (notes A §14.2), a trained vector per position, or none
        (then the model cannot see the order, except through ``causal``).
    causal : bool, default=False
        Mask future positions in every attention layer (D1 §11.4.1).
    pooling : {"mean", "cls", "last"}, default="mean"
        One vector per sequence: the mean over positions, a trained [CLS]
        token prepended to the sequence, or the last position.
    dropout : float, default=0.0
        Dropout rate after the positions, each sublayer and the ReLU.
    vocab_size : int, "auto" or None, default=None
        Set it to read 2-d ``X`` as integer token ids in ``0..vocab_size-1``
        (an embedding table is learnt); "auto" takes the largest id in
        ``fit`` + 1. None reads ``X`` as numbers (scalar tokens or vectors).
    sequence_shape : tuple, default=None
        ``(T,)`` or ``(T, d)``: reshape flat rows of ``X`` into sequences.
    solver : {"adam", "sgd", "momentum", "nesterov", "adagrad", "rmsprop", \
"adadelta", "adabelief"}, default="adam"
        The :mod:`skml.optim` optimiser of each mini-batch step.
    alpha : float, default=0.0
        L2 penalty on the weight matrices and the embedding table.
    batch_size : int or "auto", default="auto"
        Rows per step; "auto" is ``min(200, n_samples)``.
    learning_rate_init : float, default=1e-3
    max_iter : int, default=200
        Epochs.
    shuffle : bool, default=True
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` and stop when its score stops
        improving (the best epoch's parameters are kept).
    validation_fraction : float, default=0.1
    n_iter_no_change : int, default=10
    tol : float, default=1e-4
    random_state : int, RandomState instance or None, default=None
        Initial weights, shuffling, dropout masks and the validation split.
    verbose : bool, default=False
    dtype : {"float64", "float32"}, default="float64"
        Arithmetic of the network; float32 is about twice as fast.
"""

_INPUT_DOC = """
    Input ``X`` may be integer token ids of shape (n, T) with ``vocab_size``
    set (an embedding table is learnt), vectors of shape (n, T, d) (projected
    to ``d_model``; or flat rows with ``sequence_shape=(T, d)``), or rows of
    shape (n, T) read as T scalar tokens (each projected to ``d_model``), as
    any tabular data; numeric inputs are standardised per feature first.
"""

_ATTRS_DOC = join_blocks("""
    coef_ : ndarray of shape (n_params,)
        All trained parameters, flat (the network core's ``theta``).
    input_kind_ : {"tokens", "scalars", "vectors"}
    vocab_size_ : int
        Only for token input.
    sequence_shape_ : tuple
        Shape of one sequence after the input stage.
    n_outputs_ : int
    loss_ : float
    loss_curve_ : list of float
        Training loss of each epoch (the regressor's on standardised targets).
    validation_scores_ : list of float or None
    n_iter_ : int
        Epochs run.
""", FITTED_FEATURE_ATTRIBUTES)

_BLOCKS = {"input": _INPUT_DOC, "parameters": _PARAMS_DOC, "attributes": _ATTRS_DOC}


@fill_doc(**_BLOCKS)
class TransformerClassifier(ClassifierMixin, _BaseTransformer):
    r"""Transformer encoder over sequences, softmax output (notes B §7.6).

    Embedding, positions, ``n_layers`` post-norm encoder blocks (multi-head
    self-attention and a ReLU feed-forward of width ``4 d``, each with a
    residual connection and layer norm, D1 §11.3-11.7), pooling and a dense
    softmax output trained on the cross-entropy (with label smoothing,
    D1 §12.2).

    <input>

    Parameters
    ----------
    <parameters>
    label_smoothing : float, default=0.0
        eps in the targets :math:`(1-\varepsilon)\delta_{k,y} + \varepsilon/C`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    <attributes>

    See Also
    --------
    TransformerRegressor : The same encoder with a squared-error output.
    skml.neural_network.MLPClassifier : The same training loop on flat rows.

    Notes
    -----
    One block costs :math:`O(T^2 d + T d^2)` per sequence in time and
    :math:`O(h T^2)` in memory for the attention weights (D1 §12.1). Heads
    and rows share one batched ``np.matmul``; the three projections are one
    GEMM with a ``(d, 3d)`` matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import TransformerClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(0, 5, size=(60, 6))
    >>> y = (X[:, 0] > X[:, -1]).astype(int)
    >>> clf = TransformerClassifier(d_model=16, n_heads=2, vocab_size=5,
    ...                             max_iter=5, random_state=0).fit(X, y)
    >>> clf.predict(X[:3]).shape
    (3,)
    """

    _is_clf = True
    _multi_output = False
    _parameter_constraints = {
        **_BaseTransformer._parameter_constraints,
        "label_smoothing": [Interval(Real, 0, 1, closed="both")],
    }

    def __init__(self, *, n_layers=2, n_heads=4, d_model=32, d_ff=None,
                 positional="sinusoidal", causal=False, pooling="mean", dropout=0.0,
                 label_smoothing=0.0, vocab_size=None, sequence_shape=None,
                 solver="adam", alpha=0.0, batch_size="auto", learning_rate_init=1e-3,
                 max_iter=200, shuffle=True, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-4,
                 random_state=None, verbose=False, dtype="float64"):
        super().__init__(
            n_layers=n_layers, n_heads=n_heads, d_model=d_model, d_ff=d_ff,
            positional=positional, causal=causal, pooling=pooling, dropout=dropout,
            vocab_size=vocab_size, sequence_shape=sequence_shape, solver=solver,
            alpha=alpha, batch_size=batch_size, learning_rate_init=learning_rate_init,
            max_iter=max_iter, shuffle=shuffle, early_stopping=early_stopping,
            validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
            tol=tol, random_state=random_state, verbose=verbose, dtype=dtype)
        self.label_smoothing = label_smoothing

    def fit(self, X, y, sample_weight=None):
        """Train on sequences ``X`` and labels ``y``; returns self."""
        return self._fit(X, y, sample_weight)

    def _encode_targets(self, y, sample_weight):
        self.classes_, codes = encode_labels(y, sample_weight=sample_weight)
        self.n_outputs_ = len(self.classes_)
        return np.eye(self.n_outputs_)[codes]

    def _loss(self):
        return functools.partial(softmax_cross_entropy,
                                 label_smoothing=float(self.label_smoothing))

    def _validation_score(self, net, X, Y, sample_weight):
        pred = self._raw_output(X, net).argmax(1)
        hit = (pred == Y.argmax(1)).astype(float)
        return float(np.average(hit, weights=sample_weight))

    def predict_proba(self, X):
        """Class probabilities, shape (n_samples, n_classes)."""
        return softmax(self._raw_output(self._checked(X)))

    def predict_log_proba(self, X):
        """Log of :meth:`predict_proba`."""
        Z = self._raw_output(self._checked(X))
        Z -= Z.max(axis=1, keepdims=True)
        return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))

    def predict(self, X):
        """The most probable class of each sequence."""
        Z = self._raw_output(self._checked(X))
        return self.classes_[Z.argmax(1)]


@fill_doc(**_BLOCKS)
class TransformerRegressor(MultiOutputMixin, RegressorMixin, _BaseTransformer):
    r"""Transformer encoder over sequences, squared-error output (notes B §7.6).

    The encoder of :class:`TransformerClassifier` with a linear output
    trained on half the squared error; targets are standardised for
    training and mapped back in ``predict``.

    <input>

    Parameters
    ----------
    <parameters>

    Attributes
    ----------
    <attributes>

    See Also
    --------
    TransformerClassifier : The same encoder with a softmax output.

    Notes
    -----
    Cost as :class:`TransformerClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import TransformerRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(60, 5))
    >>> y = X[:, 0] - X[:, -1]
    >>> reg = TransformerRegressor(d_model=16, n_heads=2, max_iter=5,
    ...                            random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _is_clf = False
    _multi_output = True

    def fit(self, X, y, sample_weight=None):
        """Train on sequences ``X`` and targets ``y``; returns self."""
        return self._fit(X, y, sample_weight)

    def _encode_targets(self, y, sample_weight):
        y = np.asarray(y, dtype=np.float64)
        self._y_1d = y.ndim == 1
        Y = y.reshape(y.shape[0], -1)
        self.n_outputs_ = Y.shape[1]
        mu, sd = _robust_center_scale(Y, axis=0, sample_weight=sample_weight)
        self._y_center, self._y_scale = mu[0], sd[0]
        return (Y - self._y_center) / self._y_scale

    def _loss(self):
        return squared_loss

    def _validation_score(self, net, X, Y, sample_weight):
        P = self._raw_output(X, net)
        ss_res = np.average(((Y - P) ** 2).sum(1), weights=sample_weight)
        ss_tot = np.average(((Y - np.average(Y, axis=0, weights=sample_weight)) ** 2
                             ).sum(1), weights=sample_weight)
        return float(1.0 - ss_res / ss_tot) if ss_tot > 0 else 0.0

    def predict(self, X):
        """Predicted targets, shape (n_samples,) or (n_samples, n_outputs)."""
        P = self._raw_output(self._checked(X)) * self._y_scale + self._y_center
        return P[:, 0] if self._y_1d else P
