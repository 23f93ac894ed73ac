r"""Multilayer perceptrons trained by mini-batch methods or L-BFGS (notes B §6-7).

``MLPClassifier`` (softmax / logistic output, cross-entropy) and
``MLPRegressor`` (identity output, squared error) share ``_BaseMLP``: the
parameter checks, the layer list, the initialisation and the bookkeeping of
the fitted attributes. Everything else is the network core: the layers and
the flat parameter vector (:mod:`._modules`), the losses (:mod:`._losses`)
and the one training loop (:mod:`._training`), whose mini-batch steps are
taken by an :mod:`skml.optim` optimiser and whose stopping rule is
:class:`skml.optim.PlateauStopper`; ``solver="lbfgs"`` hands the same
full-batch objective to scipy's L-BFGS-B.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MultiOutputMixin,
    RegressorMixin,
)
from sklearn.model_selection import train_test_split
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, check_random_state, column_or_1d

from skml.optim import EpochRate, InverseScaling, PlateauStopper, get_optimizer
from skml.utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from skml.utils._blas import blas_threads_for
from skml.utils._docstrings import (
    CLASSES_ATTRIBUTE,
    FITTED_FEATURE_ATTRIBUTES,
    LABELS_RETURNS,
    LOG_PROBA_RETURNS,
    PARTIAL_FIT_PARAMETERS,
    PROBA_RETURNS,
    SELF_RETURNS,
    X_SAMPLES,
    fill_doc,
    join_blocks,
)

from ._activations import ACTIVATIONS
from ._losses import OUTPUTS
from ._modules import Activation, BatchNorm, Dense, Dropout, LayerNorm, Sequential
from ._prelu import NormalDense, PReLU
from ._training import check_finite_parameters, train, train_lbfgs
from ._utils import class_index

__all__ = ["MLPClassifier", "MLPRegressor"]

SOLVERS = (
    "lbfgs", "sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adadelta", "adam",
    "adabelief",
)
from ..utils.validation import validate_data
# dtype="auto" is X's dtype (float32 or float64) in the MLPs' own fit; code
# that builds an MLP's network from float64 input itself (the adversarial
# defences) reads "auto" as float64.
_DTYPES = {"float64": np.float64, "float32": np.float32, "auto": np.float64}


# A training R² below this (squared error a million times the constant
# model's, an rms error of a thousand standard deviations of y) is a failed
# fit, never a merely under-trained one (see _check_training_fit).
# scikit-learn's API checks fit features offset by 100 (|mean| / std ~ 100),
# where both libraries end near R² -200: poor, but no error is expected there.
_USELESS_TRAINING_R2 = -1e6


def _stochastic_solver(estimator):
    """``available_if`` test of ``partial_fit``: not for the full-batch L-BFGS."""
    if estimator.solver == "lbfgs":
        raise AttributeError(
            "partial_fit is only available for the mini-batch solvers; "
            "solver='lbfgs' minimises the full-batch loss."
        )
    return True


def _init_bounds(activation, init, fan_in, fan_out):
    """Half-width of the uniform initial weights of one layer (notes B §6.13).

    "glorot" is scikit-learn's rule, sqrt(6 / (fan_in + fan_out)) (factor 2
    for the logistic); "he" is sqrt(6 / fan_in), the uniform form of He et
    al.'s variance 2 / fan_in for ReLU-like units.
    """
    if init == "auto":
        init = "he" if activation in ("relu", "leaky_relu", "prelu") else "glorot"
    if init == "he":
        return np.sqrt(6.0 / fan_in)
    factor = 2.0 if activation == "logistic" else 6.0
    return np.sqrt(factor / (fan_in + fan_out))


class _BaseMLP(BaseEstimator):
    """Shared fitting machinery; subclasses define the targets and outputs."""

    _parameter_constraints = {
        "hidden_layer_sizes": [
            "array-like", Interval(Integral, 1, None, closed="left")
        ],
        "activation": [Options((*ACTIVATIONS, "prelu"))],
        "solver": [Options(SOLVERS)],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "batch_size": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Options({"constant", "invscaling", "adaptive"})],
        "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
        "power_t": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "nesterovs_momentum": ["boolean"],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "beta_1": [Interval(Real, 0, 1, closed="left")],
        "beta_2": [Interval(Real, 0, 1, closed="left")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "n_iter_no_change": [
            Interval(Integral, 1, None, closed="left"), Options({np.inf})
        ],
        "max_fun": [Interval(Integral, 1, None, closed="left")],
        "leaky_relu_slope": [Interval(Real, 0, 1, closed="left")],
        "init": [Options({"glorot", "he", "auto", "normal"})],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "batch_norm": ["boolean"],
        "bn_momentum": [Interval(Real, 0, 1, closed="both")],
        "bn_eps": [Interval(Real, 0, None, closed="neither")],
        "layer_norm": ["boolean"],
        "dtype": [Options(set(_DTYPES))],
    }

    # ------------------------------------------------------------ entry points

    def _hidden_sizes(self):
        sizes = self.hidden_layer_sizes
        sizes = [sizes] if isinstance(sizes, Integral) else list(sizes)
        if any(
            isinstance(s, bool) or not isinstance(s, Integral) or s < 1 for s in sizes
        ):
            raise ValueError(
                f"hidden_layer_sizes must contain positive ints; got {sizes!r}."
            )
        return [int(s) for s in sizes]

    def _fit(self, X, y, sample_weight, incremental, classes=None):
        validate_params(self)
        hidden = self._hidden_sizes()
        first_call = not (incremental or self.warm_start) or not hasattr(self, "coefs_")
        dtype = self._training_dtype(first_call)
        # Sparse X (issue 20) is trained as CSR: the first layer multiplies
        # over its stored entries (Dense), batches are row slices, and X is
        # never densified.
        X, y = validate_data(
            self, X, y, reset=first_call, dtype=dtype, multi_output=self._multi_output,
            y_numeric=not self._is_clf,
            accept_sparse="csr" if self._dense_first_layer else False,
        )
        dtype = X.dtype  # "auto": float32 X gives a float32 network
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X, dtype=dtype)
        Y = self._encode_targets(y, first_call, classes, dtype, incremental)
        if self.early_stopping and incremental:
            raise ValueError("partial_fit does not support early_stopping=True.")
        if self.solver == "lbfgs" and self.dropout > 0:
            raise ValueError(
                "solver='lbfgs' needs a deterministic loss: dropout must be 0, "
                f"got dropout={self.dropout}."
            )
        if self.batch_norm and self.layer_norm:
            raise ValueError(
                "batch_norm and layer_norm normalise the same pre-activations: "
                "choose one."
            )
        if first_call:
            self._rng = check_random_state(self.random_state)
            self._initialize(X.shape[1], hidden, Y.shape[1], dtype)
        elif not hasattr(self, "_rng"):
            self._rng = check_random_state(self.random_state)
        net = self._network(dtype)
        if self.solver == "lbfgs":
            batch = X.shape[0]
        else:
            if not incremental or not hasattr(self, "_optimizer"):
                self._rate = EpochRate(self.learning_rate_init)
                self._optimizer = self._new_optimizer(self._rate)
            batch = self.batch_size
            if batch == "auto":
                batch = min(200, X.shape[0])
        # The products of one batch are small: threaded BLAS would spend more
        # waking threads than multiplying (digits: 50x slower on a busy 2-core box).
        with blas_threads_for(batch * net.n_decayed):
            if self.solver == "lbfgs":
                self._fit_lbfgs(net, X, Y, sample_weight)
            else:
                self._train(net, X, Y, sample_weight, incremental)
        check_finite_parameters(net)  # as scikit-learn: no network predicting NaN
        if not incremental:
            self._check_training_fit(net, X, Y, sample_weight)
        return self

    def _training_dtype(self, first_call):
        """The dtype (or dtypes, for validation) of the network to train.

        "auto" follows X on the first fit, as scikit-learn's network does
        (float32 X: float32 parameters, anything else float64); later calls
        keep the network's dtype.
        """
        if self.dtype != "auto":
            return _DTYPES[self.dtype]
        if not first_call:
            return self.coefs_[0].dtype
        return [np.float64, np.float32]

    def _check_training_fit(self, net, X, Y, sample_weight):
        """Refuse a trained network that is useless on its own training data."""

    def _new_optimizer(self, rate):
        name, extra = self.solver, {}
        if name == "sgd" and self.momentum > 0:
            # scikit-learn's "sgd": momentum (Nesterov's by default) unless
            # momentum=0; the same update rules as solver="nesterov"/"momentum".
            name = "nesterov" if self.nesterovs_momentum else "momentum"
        if name in ("momentum", "nesterov"):
            extra["momentum"] = self.momentum
        elif name in ("adam", "adabelief"):
            extra = {"beta1": self.beta_1, "beta2": self.beta_2, "eps": self.epsilon}
        return get_optimizer(name, learning_rate=rate, **extra)

    # ------------------------------------------------------------ the network

    def _layers(self, units):
        """Dense, [norm], activation, [dropout] per hidden layer; a dense output."""
        layers = []
        for fan_in, fan_out in zip(units[:-1], units[1:]):
            if layers:
                if self.batch_norm:
                    layers.append(BatchNorm(self.bn_momentum, self.bn_eps))
                if self.layer_norm:
                    layers.append(LayerNorm(self.bn_eps))
                layers.append(
                    PReLU(self.leaky_relu_slope) if self.activation == "prelu"
                    else Activation(self.activation, self.leaky_relu_slope))
                if self.dropout > 0:
                    layers.append(Dropout(self.dropout))
            if self.init == "normal":  # the notes' N(0, 0.01^2) (B §6.13)
                layers.append(NormalDense(fan_out, std=0.01))
                continue
            bound = _init_bounds(self.activation, self.init, fan_in, fan_out)
            layers.append(Dense(fan_out, init_bound=bound))
        return layers

    def _initialize(self, n_features, hidden, n_outputs, dtype):
        self.n_outputs_ = n_outputs
        units = [n_features, *hidden, n_outputs]
        self.n_layers_ = len(units)
        self.out_activation_ = self._out_activation(n_outputs)
        # Weights and intercepts drawn layer by layer as scikit-learn does, so
        # the same random_state gives its initial network with init="glorot".
        net = self._build_network(units, dtype, rng=self._rng)
        self.n_iter_ = 0
        self.t_ = 0
        self.loss_curve_ = []
        self._no_improvement_count = 0
        if self.early_stopping and self.solver != "lbfgs":
            self.validation_scores_ = []
            self.best_validation_score_ = -np.inf
            self.best_loss_ = None
        else:
            self.validation_scores_ = None
            self.best_validation_score_ = None
            self.best_loss_ = np.inf
        self._publish(net)
        for name in ("_optimizer", "_rate"):
            self.__dict__.pop(name, None)

    def _build_network(self, units, dtype, rng=None):
        """The network of ``units`` (input, hidden..., output sizes); a hook for
        subclasses whose layers are not a chain of dense ones (ConvNet)."""
        return Sequential(self._layers(units), (units[0],), dtype, rng=rng)

    def _network(self, dtype):
        """A network holding the fitted parameters (rebuilt, so pickling is safe)."""
        units = [self.coefs_[0].shape[0], *(W.shape[1] for W in self.coefs_)]
        return self._load_fitted(self._build_network(units, dtype))

    def _load_fitted(self, net):
        """Copy the fitted attributes into ``net``'s arrays; return ``net``."""
        for attr, views in self._views(net).items():
            # Missing when warm_start switches a normalisation on: defaults stay.
            for dst, src in zip(views, getattr(self, attr, [])):
                dst[:] = src
        return net

    def _views(self, net):
        """``{fitted attribute: the network's arrays}``, each list in layer order."""
        specs = [("coefs_", Dense, "W"), ("intercepts_", Dense, "b")]
        if self.activation == "prelu":
            specs.append(("prelu_slopes_", PReLU, "a"))
        if self.batch_norm:
            specs += [
                ("batch_norm_gamma_", BatchNorm, "gamma"),
                ("batch_norm_beta_", BatchNorm, "beta"),
                ("running_mean_", BatchNorm, "mean"),
                ("running_var_", BatchNorm, "var"),
            ]
        if self.layer_norm:
            specs += [
                ("layer_norm_gamma_", LayerNorm, "gamma"),
                ("layer_norm_beta_", LayerNorm, "beta"),
            ]
        return {
            attr: [
                params[name] if name in params else cache["state"][name]
                for layer, params, cache in zip(net.layers, net.params, net.caches)
                if isinstance(layer, kind)
            ]
            for attr, kind, name in specs
        }

    def _publish(self, net):
        """Expose the network's parameters as the fitted attributes (views)."""
        for attr, views in self._views(net).items():
            setattr(self, attr, views)

    def _loss(self):
        return OUTPUTS[self.out_activation_][0]

    # ------------------------------------------------------------ training

    def _fit_lbfgs(self, net, X, Y, sample_weight):
        """scipy's L-BFGS-B on the full-batch objective (see ``train_lbfgs``)."""
        log, result = train_lbfgs(
            net, X, Y, self._loss(), sample_weight=sample_weight,
            alpha=float(self.alpha), max_iter=self.max_iter, max_fun=self.max_fun,
            tol=self.tol, verbose=self.verbose,
        )
        self.n_iter_ = min(int(result.nit), self.max_iter)
        self.loss_ = float(result.fun)
        self.loss_curve_.extend(log.losses)
        self.best_loss_ = min(self.best_loss_, self.loss_, *log.losses)
        self._publish(net)

    def _train(self, net, X, Y, sample_weight, incremental):
        rng = self._rng
        score = None
        if self.early_stopping:
            X, Y, sample_weight, val = self._validation_split(X, Y, sample_weight)
            score = lambda: self._validation_score(net, *val)  # noqa: E731
        batch_size = min(200, X.shape[0]) if self.batch_size == "auto" else (
            self.batch_size
        )
        layer_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        if not incremental:
            self.n_iter_ = 0
        t_start = self.t_

        def epoch_hook(log):
            if self.learning_rate == "invscaling":
                self._rate.value = InverseScaling(
                    self.learning_rate_init, self.power_t
                )(t_start + log.n_samples)

        stopper = self._stopper()
        log = train(
            net, X, Y, self._loss(), self._optimizer,
            epochs=1 if incremental else self.max_iter, batch_size=batch_size,
            sample_weight=sample_weight, alpha=float(self.alpha),
            shuffle=self.shuffle, rng=rng, layer_rng=layer_rng, stopper=stopper,
            score=score, epoch_hook=epoch_hook, verbose=self.verbose,
            first_epoch=self.n_iter_ + 1, warn=not incremental,
        )
        self.n_iter_ += log.n_epochs
        self.t_ += log.n_samples
        self.loss_curve_.extend(log.losses)
        self.loss_ = log.losses[-1]
        self._no_improvement_count = stopper.n_bad_epochs
        if self.early_stopping:
            self.validation_scores_.extend(log.scores)
            self.best_validation_score_ = stopper.best
        else:
            self.best_loss_ = stopper.best
        self._publish(net)

    def _stopper(self):
        """The plateau rule with the state of the previous fits."""
        stopper = PlateauStopper(
            # scikit-learn's MLPs stop when the count *exceeds* n_iter_no_change.
            self.n_iter_no_change + 1, self.tol,
            mode="max" if self.early_stopping else "min",
            action="shrink" if self.learning_rate == "adaptive" else "stop",
            rate=self._rate, divisor=5.0, min_rate=1e-6,
        )
        best = self.best_validation_score_ if self.early_stopping else self.best_loss_
        if best is not None:  # None when early_stopping changed in a warm start
            stopper.best = best
        stopper.n_bad_epochs = self._no_improvement_count
        return stopper

    def _validation_split(self, X, Y, sample_weight):
        """Hold out ``validation_fraction`` (stratified for classifiers)."""
        stratify = None
        if self._is_clf:
            # Two classes: the (n, 1) column "is the positive class", whose
            # groups and split are those of the 0/1 column; an error names
            # its groups 'True'/'False', as scikit-learn's does.
            stratify = Y.argmax(1) if Y.shape[1] > 1 else Y > 0.5
            if getattr(self, "_multilabel", False):
                stratify = None  # label sets, not one class per row
        parts = train_test_split(
            X, Y, *([] if sample_weight is None else [sample_weight]),
            random_state=self._rng, test_size=self.validation_fraction,
            stratify=stratify,
        )
        X_train, X_val, Y_train, Y_val = parts[:4]
        sw_train, sw_val = parts[4:] if sample_weight is not None else (None, None)
        if X_val.shape[0] < 2:
            raise ValueError(
                "The validation set is too small. Increase validation_fraction "
                "or the size of the dataset."
            )
        return X_train, Y_train, sw_train, (X_val, Y_val, sw_val)

    # ------------------------------------------------------------ prediction

    def _net_and_input(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=self.coefs_[0].dtype,
                          accept_sparse=["csr", "csc"] if self._dense_first_layer
                          else False)
        return self._network(X.dtype), X

    def _outputs(self, net, X):
        """The output function applied to the network's raw output (a new array)."""
        return OUTPUTS[self.out_activation_][1](net.forward(X).copy())

    def _forward(self, X):
        net, X = self._net_and_input(X)
        # float32 networks still answer in float64, as scikit-learn's checks expect.
        return self._outputs(net, X).astype(np.float64, copy=False)

    def _input_gradient(self, X, d_output):
        """``dJ/dX`` row by row, for ``d_output(Z) = dJ/dZ`` of the raw output."""
        net, X = self._net_and_input(X)
        Z = net.forward(X).astype(np.float64)
        dZ = np.asarray(d_output(Z), dtype=net.dtype)
        return net.backward(dZ, input_grad=True).astype(np.float64)

    @property
    def _dense_first_layer(self):
        """Whether the network is this class's chain of dense layers.

        Sparse X (and a multilabel y) take that path; subclasses building
        other layers (ConvNet, NAS) keep dense input and 1-D labels.
        """
        return type(self)._build_network is _BaseMLP._build_network

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._dense_first_layer
        return tags

# Docstring blocks, placed by fill_doc; the ConvNets and the NAS reuse them.
_NETWORK_PARAMS_DOC = """
    hidden_layer_sizes : array-like of int or int, default=(100,)
        Units of each hidden layer.
    activation : {"relu", "leaky_relu", "prelu", "elu", "tanh", "logistic", \
"identity"}, default="relu"
        Hidden activation (notes B §7.2). "elu" is D1 §9.3's ELU
        (``z`` for ``z > 0``, ``e^z - 1`` otherwise); "prelu" is D3's PReLU,
        ``max(a z, z)`` with one learnable slope ``a`` per hidden unit,
        starting at ``leaky_relu_slope`` and not L2-penalised (fitted values
        in ``prelu_slopes_``); "leaky_relu" is PReLU with its slope fixed at
        ``leaky_relu_slope``.
"""

_TRAINING_PARAMS_DOC = """
    solver : {"adam", "sgd", "lbfgs", "momentum", "nesterov", "adagrad", \
"rmsprop", "adadelta", "adabelief"}, default="adam"
        The :mod:`skml.optim` optimiser taking each mini-batch step, or
        "lbfgs": scipy's L-BFGS-B on the full-batch loss over the flat
        parameter vector (no mini-batches, learning rates, shuffles or early
        stopping; no ``partial_fit``; good for small data sets). "sgd" is
        scikit-learn's: stochastic gradient descent with ``momentum``,
        Nesterov's when ``nesterovs_momentum`` (:class:`~skml.optim.Nesterov`,
        else :class:`~skml.optim.Momentum`), plain SGD when ``momentum=0``.
        "momentum" and "nesterov" are those two rules by name, the others
        the optimisers of the same names.
    alpha : float, default=1e-4
        L2 penalty on the weights (not the intercepts), added to the batch
        loss as ``alpha ||W||^2 / (2 n_batch)`` as in scikit-learn (notes B
        §0.1: the notes' λ).
    batch_size : int or "auto", default="auto"
        Mini-batch size; "auto" is ``min(200, n_samples)``.
    learning_rate : {"constant", "invscaling", "adaptive"}, default="constant"
        Schedule of the step size, for every mini-batch solver: "invscaling" sets
        ``learning_rate_init / (t_ + 1) ** power_t`` after each epoch
        (``t_`` samples seen); "adaptive" divides it by 5 whenever
        ``n_iter_no_change`` epochs bring no progress, and stops below 1e-6.
    learning_rate_init : float, default=1e-3
        Initial step size (for "adadelta", a factor on Zeiler's step: use 1).
    power_t : float, default=0.5
        Exponent of "invscaling".
    max_iter : int, default=200
        Epochs (passes over the training data); with "lbfgs", iterations.
    shuffle : bool, default=True
        Shuffle the training data before each epoch.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights, the shuffles, the validation split and the
        dropout masks.
    tol : float, default=1e-4
        Progress threshold on the training loss (or validation score); with
        "lbfgs", the bound on the projected gradient (``gtol``).
    verbose : bool or int, default=False
        Print the loss after each epoch.
    warm_start : bool, default=False
        Continue from the fitted weights in ``fit``.
    momentum : float, default=0.9
        Momentum ``rho`` of the "sgd", "momentum" and "nesterov" solvers, in
        [0, 1).
    nesterovs_momentum : bool, default=True
        Use Nesterov's momentum in "sgd" (only with ``momentum > 0``).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified for
        classifiers), stop when its score stalls and keep the best weights.
    validation_fraction : float, default=0.1
        Fraction held out for early stopping.
    beta_1, beta_2, epsilon : float, default=0.9, 0.999, 1e-8
        Moment decays and conditioning constant of "adam" and "adabelief".
    n_iter_no_change : int or np.inf, default=10
        Epochs without progress of more than ``tol`` before stopping
        (``np.inf``: never stop early).
    max_fun : int, default=15000
        Most loss evaluations of "lbfgs" (it stops at ``max_iter``
        iterations, ``max_fun`` evaluations or ``tol``, whichever first).
    leaky_relu_slope : float, default=0.1
        Slope of "leaky_relu" for negative inputs (the notes' 0.1), and the
        initial slope of "prelu".
"""

_INIT_PARAM_DOC = """
    init : {"glorot", "he", "auto", "normal"}, default="glorot"
        Initial weights, uniform: "glorot" is scikit-learn's rule (so results
        are comparable), "he" uses ``sqrt(6 / fan_in)``, "auto" picks "he"
        for ReLU-like activations and "glorot" otherwise. "normal" is the
        notes' initialisation (B §6.13, 003 "initialisation"): weights
        ``N(0, 0.01^2)``, intercepts 0; it suits small networks, while with
        more than a few layers its activations shrink layer after layer,
        which is why the notes move on to Glorot and He.
"""

_DROPOUT_PARAM_DOC = """
    dropout : float, default=0.0
        Probability of dropping a hidden unit while training (inverted
        dropout, keep probability ``q = 1 - dropout``; off at predict time).
        Must be 0 with "lbfgs", whose line search needs a deterministic loss.
"""

_NORM_PARAMS_DOC = """
    batch_norm : bool, default=False
        Batch-normalise every hidden pre-activation (learned scale and shift).
        With "lbfgs" the batch is all the samples and the running statistics
        are those of the final network.
    bn_momentum : float, default=0.1
        Weight of the new batch in the running statistics (PyTorch's).
    bn_eps : float, default=1e-5
        Added to the variance in batch norm (and in layer norm).
    layer_norm : bool, default=False
        Layer-normalise every hidden pre-activation instead (notes B §7.4):
        each row over its units, with a learned scale and shift; no batch
        statistics, so training and prediction compute the same function.
        Not together with ``batch_norm``.
"""

# MLPClassifier/MLPRegressor follow the dtype of X by default, as
# scikit-learn's (the networks built on _BaseMLP keep float64).
_MLP_PARAMS_DOC = join_blocks(
    _NETWORK_PARAMS_DOC, _TRAINING_PARAMS_DOC, _INIT_PARAM_DOC, _DROPOUT_PARAM_DOC,
    _NORM_PARAMS_DOC, """
    dtype : {"auto", "float64", "float32"}, default="auto"
        Precision of the parameters and of the training arithmetic;
        "float32" roughly halves the time of the matrix products. "auto":
        that of X on the first fit (float32 X gives float32 parameters, any
        other X float64), as scikit-learn's network; the regressor then
        predicts in it.
""")

_TRAINING_ATTRS_DOC = """
    loss_ : float
        Training loss of the last epoch (with "lbfgs", the final full-batch
        loss).
    loss_curve_ : list of float
        Training loss (mean over the epoch's batches, penalty included) per
        epoch; with "lbfgs", the full-batch loss after each iteration.
        Warm-started fits append to it.
    validation_scores_ : list of float or None
        Held-out score per epoch with ``early_stopping``, else None.
    best_loss_ : float or None
        Smallest training loss (None with ``early_stopping``).
    best_validation_score_ : float or None
        Best held-out score (None without ``early_stopping``).
    n_iter_ : int
        Epochs run by the last ``fit`` (``partial_fit`` adds one); with
        "lbfgs", its iterations.
    t_ : int
        Training samples seen by the mini-batch optimiser (0 for "lbfgs").
"""

_LAYER_ATTRS_DOC = """
    coefs_ : list of ndarray
        ``coefs_[i]`` of shape (units in layer i, units in layer i + 1).
    intercepts_ : list of ndarray
        ``intercepts_[i]`` of shape (units in layer i + 1,).
    prelu_slopes_ : list of ndarray
        The learnt PReLU slopes ``a``, one array of shape (units,) per hidden
        layer (only with ``activation="prelu"``).
    batch_norm_gamma_, batch_norm_beta_ : list of ndarray
        Batch-norm scales and shifts per hidden layer (only with
        ``batch_norm``).
    running_mean_, running_var_ : list of ndarray
        Running batch statistics used at inference (only with ``batch_norm``).
    layer_norm_gamma_, layer_norm_beta_ : list of ndarray
        Layer-norm scales and shifts per hidden layer (only with
        ``layer_norm``).
"""

_NETWORK_ATTRS_DOC = """
    n_layers_ : int
        Layers, input and output included.
    n_outputs_ : int
        Output units.
    out_activation_ : str
        Output function.
"""

_REGRESSION_FIT_PARAMETERS = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
y : array-like of shape (n_samples,) or (n_samples, n_outputs)
sample_weight : array-like of shape (n_samples,), default=None
"""

_MLP_ATTRS_DOC = join_blocks(_TRAINING_ATTRS_DOC, _LAYER_ATTRS_DOC, _NETWORK_ATTRS_DOC,
                             FITTED_FEATURE_ATTRIBUTES)

_MLP_CLASSIFIER_ATTRS_DOC = join_blocks(CLASSES_ATTRIBUTE, _MLP_ATTRS_DOC)

_NOTES_DOC = """
    Notes
    -----
    One epoch costs :math:`O(n \\sum_l h_{l-1} h_l)` for the forward and
    twice that for the backward pass; memory is the parameters plus one
    batch's activations. All parameters live in one flat vector (the layers
    are views), so an optimiser step is a dozen vectorised operations
    whatever the depth, and every buffer is reused from batch to batch.
    That vector is also what "lbfgs" optimises, with one full-batch forward
    and backward pass per loss evaluation (memory: all samples'
    activations).

    The network is skml's network core (layers over one flat vector, losses
    from the raw output, one training loop with the plateau rule of
    :class:`~skml.optim.PlateauStopper`); :meth:`input_gradient` is one
    forward and one backward pass through it down to the input.

    Departures from the printed notes (catalogue B §15): Adam is bias
    corrected, Nesterov looks ahead to ``theta - rho v``, the batch-norm
    running average weighs the new batch by ``bn_momentum`` (PyTorch), and
    tanh is the standard function. Batch statistics are weighted by the
    sample weights, so a weight-k row counts as k copies there too.

    Sparse CSR/CSC X (issue 20) is never densified: the first layer forms
    ``X W`` and its weight gradient ``X^T delta`` over the stored entries
    (:math:`O(\\mathrm{nnz} \\cdot h_1)`), and each epoch's shuffled batches
    are row slices of one reordered CSR matrix; the fit equals the dense
    fit to rounding for the same ``random_state``.
"""


@fill_doc(**{"mlp parameters": _MLP_PARAMS_DOC,
             "mlp attributes": _MLP_CLASSIFIER_ATTRS_DOC, "notes": _NOTES_DOC})
class MLPClassifier(ClassifierMixin, _BaseMLP):
    """Multilayer-perceptron classifier: softmax (or sigmoid) output, cross-entropy.

    The fully connected network of notes B §7.1 (D1 §9, D3 "neural networks"),
    trained by backpropagation on mini-batches with an :mod:`skml.optim`
    optimiser (§6), with L2 on the weights, inverted dropout (§7.3), batch
    normalisation (§7.4) and Glorot / He initialisation (§6.13). Two classes
    use one logistic output unit, more classes a softmax layer.

    Parameters
    ----------
    <mlp parameters>
    label_smoothing : float, default=0.0
        Label smoothing ``eps`` in [0, 1) (notes D1 §12.2): the cross-entropy
        is taken against ``(1 - eps) y + eps / K`` instead of the one-hot
        ``y`` (``K = 2`` for the single logistic unit of two classes), as
        PyTorch's ``CrossEntropyLoss(label_smoothing=eps)``. Not a parameter
        of scikit-learn's class.

    Attributes
    ----------
    <mlp attributes>

    See Also
    --------
    MLPRegressor : The same network with an identity output.
    sklearn.neural_network.MLPClassifier : The reference (adam, sgd, lbfgs).

    <notes>

    References
    ----------
    .. [1] X. Glorot and Y. Bengio, "Understanding the difficulty of training
       deep feedforward neural networks", AISTATS 2010.
    .. [2] S. Ioffe and C. Szegedy, "Batch normalization", ICML 2015.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.neural_network import MLPClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = MLPClassifier((20,), learning_rate_init=0.01, max_iter=300,
    ...                     random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    """

    _is_clf = True
    @property
    def _multi_output(self):
        # 2-D y is a multilabel indicator matrix (checked in _encode_targets);
        # subclasses with their own layers (ConvNet, NAS) keep 1-D labels.
        return self._dense_first_layer
    # scikit-learn's MLPClassifier names its loss in this class attribute.
    loss = "log_loss"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = self._dense_first_layer  # indicator y
        return tags
    # The default for subclasses whose own __init__ has no label_smoothing.
    label_smoothing = 0.0

    _parameter_constraints = {
        **_BaseMLP._parameter_constraints,
        "label_smoothing": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(
        self, hidden_layer_sizes=(100,), activation="relu", *, solver="adam",
        alpha=1e-4, batch_size="auto", learning_rate="constant",
        learning_rate_init=1e-3, power_t=0.5, max_iter=200, shuffle=True,
        random_state=None, tol=1e-4, verbose=False, warm_start=False,
        momentum=0.9, nesterovs_momentum=True, early_stopping=False,
        validation_fraction=0.1, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
        n_iter_no_change=10, max_fun=15000, leaky_relu_slope=0.1, init="glorot",
        dropout=0.0, batch_norm=False, bn_momentum=0.1, bn_eps=1e-5,
        layer_norm=False, dtype="auto", label_smoothing=0.0,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
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
        self.batch_norm = batch_norm
        self.bn_momentum = bn_momentum
        self.bn_eps = bn_eps
        self.layer_norm = layer_norm
        self.dtype = dtype
        self.label_smoothing = label_smoothing

    def _loss(self):
        loss = super()._loss()
        eps = self.label_smoothing
        if not eps:
            return loss
        # Targets (1 - eps) y + eps / K (notes D1 §12.2): K classes, and 2 for
        # the single logistic unit of two classes.
        k = 2 if getattr(self, "_multilabel", False) else max(2, len(self.classes_))

        def smoothed(Z, Y, sample_weight=None):
            return loss(Z, (1.0 - eps) * Y + eps / k, sample_weight)

        return smoothed

    def fit(self, X, y, sample_weight=None):
        """Train the network on ``(X, y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a multilabel indicator matrix of 0/1 (one
            logistic output unit per label, as scikit-learn; ``predict``
            then returns an indicator matrix and ``predict_proba`` each
            label's probability).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the loss.

        Returns
        -------
        self : object
        """
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(_stochastic_solver)
    @fill_doc(parameters=PARTIAL_FIT_PARAMETERS, returns=SELF_RETURNS)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over ``(X, y)``, continuing the previous fit.

        <parameters>

        <returns>
        """
        if not hasattr(self, "classes_") and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        return self._fit(X, y, sample_weight, incremental=True, classes=classes)

    def _encode_targets(self, y, first_call, classes, dtype, incremental):
        # The classes are new on the first call, and also when a network was
        # set by hand (coefs_ without classes_): as scikit-learn, whose
        # partial_fit takes the classes on the first call without classes_.
        first_call = first_call or not hasattr(self, "classes_")
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)
        if y.ndim == 2:
            return self._encode_multilabel(y, first_call, dtype)
        if first_call:
            self._multilabel = False
        elif getattr(self, "_multilabel", False):
            raise ValueError(
                "This MLPClassifier was fitted on a multilabel indicator matrix; "
                f"y must be one of {len(self.classes_)} columns, got 1-D labels."
            )
        # One class (or other classes of zero weight) is trained as scikit-learn
        # does: one logistic unit with every target 0 ("not the positive class").
        if first_call and classes is None:
            self.classes_, y_enc = encode_labels(y, min_classes=1)
        else:
            y = np.asarray(y)
            if first_call:
                self.classes_ = np.unique(np.asarray(classes))
                if len(self.classes_) < 1:
                    raise ValueError("classes must hold at least one class.")
            elif classes is not None and not np.array_equal(
                np.unique(np.asarray(classes)), self.classes_
            ):
                raise ValueError(
                    f"classes={classes!r} is not the same as on last call to "
                    f"partial_fit (the first one, which set classes_="
                    f"{self.classes_.tolist()!r})."
                )
            if not incremental and not first_call and not np.array_equal(
                np.unique(y), self.classes_
            ):
                # A warm-started fit continues the same output layer: the
                # classes of y must be those of the previous fit (scikit-learn).
                raise ValueError(
                    "warm_start can only be used where `y` has the same classes "
                    f"as in the previous call to fit. Previously got "
                    f"{self.classes_}, `y` has {np.unique(y)}"
                )
            y_enc = class_index(self.classes_, y)
        n_classes = len(self.classes_)
        if n_classes <= 2:
            return y_enc.astype(dtype)[:, None]
        Y = np.zeros((y_enc.shape[0], n_classes), dtype=dtype)
        Y[np.arange(y_enc.shape[0]), y_enc] = 1.0
        return Y

    def _encode_multilabel(self, y, first_call, dtype):
        """A multilabel indicator matrix: one logistic unit per label, as scikit-learn."""
        y_type = type_of_target(y, input_name="y")
        if y_type != "multilabel-indicator":
            raise ValueError(
                "MLPClassifier takes 1-D class labels or a multilabel indicator "
                f"matrix of 0/1 (one column per label); y of shape {y.shape} is "
                f"{y_type}, which is not supported (as in scikit-learn)."
            )
        if first_call:
            self.classes_ = np.arange(y.shape[1])
            self._multilabel = True
        elif not getattr(self, "_multilabel", False) or y.shape[1] != len(self.classes_):
            raise ValueError(
                f"y has {y.shape[1]} label columns; the network was fitted on "
                + (f"{len(self.classes_)} labels." if getattr(self, "_multilabel", False)
                   else "1-D class labels.")
            )
        return np.ascontiguousarray(y, dtype=dtype)

    def _out_activation(self, n_outputs):
        # Independent labels: a logistic unit each (multilabel), else softmax.
        if n_outputs == 1 or getattr(self, "_multilabel", False):
            return "logistic"
        return "softmax"

    def _validation_score(self, net, X, Y, sample_weight):
        if len(self.classes_) == 1:
            return 1.0  # every prediction is the one class
        P = self._outputs(net, X)
        if getattr(self, "_multilabel", False):
            # scikit-learn's score: subset accuracy (every label right)
            hit = np.all((P > 0.5) == (Y > 0.5), axis=1)
            return float(np.average(hit, weights=sample_weight))
        pred = (P[:, 0] > 0.5) if P.shape[1] == 1 else P.argmax(1)
        true = Y[:, 0] > 0.5 if Y.shape[1] == 1 else Y.argmax(1)
        return float(np.average(pred == true, weights=sample_weight))

    @fill_doc(X=X_SAMPLES, returns=PROBA_RETURNS)
    def predict_proba(self, X):
        """Class probabilities.

        <X>

        <returns>
            Rows sum to 1.
        """
        P = self._forward(X)
        if getattr(self, "_multilabel", False):
            return P  # each label's own probability
        if len(self.classes_) == 1:
            return np.ones_like(P)
        if P.shape[1] == 1:
            return np.hstack([1.0 - P, P])
        return P

    @fill_doc(X=X_SAMPLES, returns=LOG_PROBA_RETURNS)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <X>

        <returns>
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    @fill_doc(X=X_SAMPLES, returns=LABELS_RETURNS)
    def predict(self, X):
        """Most probable class.

        <X>

        <returns>
        """
        P = self._forward(X)
        if getattr(self, "_multilabel", False):
            return (P > 0.5).astype(np.int64)  # an indicator matrix
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, P.shape[0])
        index = (P[:, 0] > 0.5).astype(np.intp) if P.shape[1] == 1 else P.argmax(1)
        return self.classes_[index]

    def input_gradient(self, X, y, *, output="loss"):
        """Gradient of one output per sample with respect to that sample.

        Back-propagation through the fitted network down to the input (batch
        norm with its running statistics, no dropout): row ``i`` is the
        gradient of ``output`` at ``(X[i], y[i])`` with respect to ``X[i]``.
        The white-box attacks and :mod:`skml.inspection` use it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or a single label
            The true labels for ``output="loss"``; otherwise the class whose
            output is differentiated.
        output : {"loss", "proba", "decision"}, default="loss"
            "loss": the per-sample cross-entropy ``-log p(y | x)``;
            "proba": ``p(y | x)``; "decision": the log-odds of ``y`` (the
            logit of ``y`` for two classes, ``-logit`` for the other class;
            the unnormalised softmax score for more).

        Returns
        -------
        gradient : ndarray of shape (n_samples, n_features)
        """
        if output not in ("loss", "proba", "decision"):
            raise ValueError(
                "output must be 'loss', 'proba' or 'decision'; got "
                f"{output!r}."
            )
        def d_output(Z):
            index = self._class_index(y, Z.shape[0])
            if len(self.classes_) == 1:
                return np.zeros_like(Z)  # one class: every output is constant
            if Z.shape[1] == 1:  # two classes: one logit, for classes_[1]
                sign = np.where(index == 1, 1.0, -1.0)[:, None]
                if output == "decision":
                    return sign
                p = OUTPUTS["logistic"][1](Z)
                if output == "proba":
                    return sign * p * (1.0 - p)
                return p - (index == 1)[:, None]
            onehot = np.eye(Z.shape[1])[index]
            if output == "decision":
                return onehot
            P = OUTPUTS["softmax"][1](Z)
            if output == "loss":
                return P - onehot
            return P[np.arange(len(index)), index][:, None] * (onehot - P)

        return self._input_gradient(X, d_output)

    def _class_index(self, y, n):
        return class_index(self.classes_, y, n)


@fill_doc(**{"mlp parameters": _MLP_PARAMS_DOC, "mlp attributes": _MLP_ATTRS_DOC,
             "notes": _NOTES_DOC})
class MLPRegressor(MultiOutputMixin, RegressorMixin, _BaseMLP):
    """Multilayer-perceptron regressor: identity output, squared error.

    The fully connected network of notes B §7.1 with the loss
    :math:`\\frac{1}{2n}\\sum_i \\|p_i - y_i\\|^2` (the notes' D1 backprop
    example), trained like :class:`MLPClassifier`: mini-batches, an
    :mod:`skml.optim` optimiser, L2 on the weights, dropout and batch norm.

    Parameters
    ----------
    loss : {"squared_error", "poisson"}, default="squared_error"
        Half the squared error with an identity output, or the Poisson
        deviance ``p - y log p`` with an exponential output (y >= 0).
    <mlp parameters>

    Attributes
    ----------
    <mlp attributes>

    See Also
    --------
    MLPClassifier : The same network with a softmax / logistic output.
    sklearn.neural_network.MLPRegressor : The reference.

    <notes>
    The loss is summed over the outputs (scikit-learn reports it averaged
    over the outputs but takes the summed gradient; they agree for one).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neural_network import MLPRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (200, 2))
    >>> y = X[:, 0] ** 2 - X[:, 1]
    >>> reg = MLPRegressor(hidden_layer_sizes=(32,), learning_rate_init=0.01,
    ...                    max_iter=300, random_state=0).fit(X, y)
    >>> reg.score(X, y) > 0.95
    True
    """

    _is_clf = False
    _multi_output = True
    _parameter_constraints = {
        **_BaseMLP._parameter_constraints,
        "loss": [Options({"squared_error", "poisson"})],
    }

    def __init__(
        self, loss="squared_error", hidden_layer_sizes=(100,), activation="relu", *,
        solver="adam", alpha=1e-4, batch_size="auto", learning_rate="constant",
        learning_rate_init=1e-3, power_t=0.5, max_iter=200, shuffle=True,
        random_state=None, tol=1e-4, verbose=False, warm_start=False, momentum=0.9,
        nesterovs_momentum=True, early_stopping=False, validation_fraction=0.1,
        beta_1=0.9, beta_2=0.999, epsilon=1e-8, n_iter_no_change=10, max_fun=15000,
        leaky_relu_slope=0.1, init="glorot", dropout=0.0, batch_norm=False,
        bn_momentum=0.1, bn_eps=1e-5, layer_norm=False, dtype="auto",
    ):
        self.loss = loss
        self.hidden_layer_sizes = hidden_layer_sizes
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
        self.batch_norm = batch_norm
        self.bn_momentum = bn_momentum
        self.bn_eps = bn_eps
        self.layer_norm = layer_norm
        self.dtype = dtype

    @fill_doc(parameters=_REGRESSION_FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y, sample_weight=None):
        """Train the network on ``(X, y)``.

        <parameters>

        <returns>
        """
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(_stochastic_solver)
    @fill_doc(parameters=_REGRESSION_FIT_PARAMETERS, returns=SELF_RETURNS)
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch over ``(X, y)``, continuing the previous fit.

        <parameters>

        <returns>
        """
        return self._fit(X, y, sample_weight, incremental=True)

    def _encode_targets(self, y, first_call, classes, dtype, incremental):
        Y = np.asarray(y, dtype=dtype)
        if self.loss == "poisson" and np.any(Y < 0):
            raise ValueError("loss='poisson' requires non-negative targets y.")
        return Y.reshape(-1, 1) if Y.ndim == 1 else np.ascontiguousarray(Y)

    def _out_activation(self, n_outputs):
        return "exp" if self.loss == "poisson" else "identity"

    def _validation_score(self, net, X, Y, sample_weight):
        P = self._outputs(net, X)
        w = np.ones(len(Y)) if sample_weight is None else sample_weight
        mean = np.average(Y, axis=0, weights=w)
        ss_res = w @ (Y - P) ** 2
        ss_tot = w @ (Y - mean) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(ss_tot > 0, 1.0 - ss_res / ss_tot, 0.0)
        return float(np.mean(r2))

    def _check_training_fit(self, net, X, Y, sample_weight):
        """ValueError when training ended far worse than predicting the mean of y.

        The initial weights (of order ``1/sqrt(fan_in)``) and the step sizes
        assume inputs and targets of order 1; with features offset by 1e8
        (or scaled by 1e20) the first layer's pre-activations are of that
        order, and the optimiser stops (no improvement larger than ``tol``)
        at a network whose training R² is -5e12, silently (scikit-learn's
        too). A training R² below ``-1e6`` (squared error a million times
        that of the constant prediction; no network that learnt anything is
        there) is that failure, not an under-trained fit; the network is not
        offset- or scale-invariant, so the fix is the user's scaling.
        """
        r2 = self._validation_score(net, X, Y, sample_weight)
        if not r2 < _USELESS_TRAINING_R2:
            return
        with np.errstate(all="ignore"):
            if sp.issparse(X):
                mean = np.asarray(X.mean(axis=0)).ravel()
                spread = np.sqrt(np.maximum(
                    np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean ** 2, 0.0))
                max_abs = abs(X).max() if X.nnz else 0.0
            else:
                mean, spread, max_abs = np.mean(X, axis=0), np.std(X, axis=0), np.max(
                    np.abs(X))
            offset = np.max(np.abs(mean) / np.where(spread > 0, spread, 1.0))
            y_offset = np.max(np.abs(np.mean(Y, axis=0))
                              / np.maximum(np.std(Y, axis=0), np.finfo(float).tiny))
        raise ValueError(
            f"MLPRegressor's training failed: its squared error on the training "
            f"data is {1.0 - r2:.3g} times that of predicting the mean of y (R² "
            f"{r2:.3g}). The network's initial weights and learning rate assume "
            f"inputs and targets of order 1; here max |X| is "
            f"{float(max_abs):.3g}, the largest feature offset "
            f"|mean| / std is {float(offset):.3g} and that of y {float(y_offset):.3g}. "
            "Standardise X (e.g. StandardScaler in a Pipeline) and, for targets "
            "of large magnitude or offset, y (TransformedTargetRegressor)."
        )

    @fill_doc(X=X_SAMPLES)
    def predict(self, X):
        """Predicted targets.

        <X>

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            In the network's dtype (float32 for a float32 network, as
            scikit-learn's).
        """
        net, X = self._net_and_input(X)
        P = self._outputs(net, X)
        return P.ravel() if P.shape[1] == 1 else P

    def input_gradient(self, X, y=None, *, output="predict"):
        """Gradient of the prediction (or the loss) with respect to each sample.

        Back-propagation through the fitted network down to the input (batch
        norm with its running statistics, no dropout). The white-box attacks
        and :mod:`skml.inspection` use it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), \
default=None
            Targets, for ``output="loss"`` only.
        output : {"predict", "loss"}, default="predict"
            "predict": each predicted output; "loss": the per-sample loss
            (half the squared error, or the Poisson deviance term).

        Returns
        -------
        gradient : ndarray of shape (n_samples, n_features), or \
(n_samples, n_outputs, n_features) for the predictions of several outputs
        """
        if output not in ("predict", "loss"):
            raise ValueError(f"output must be 'predict' or 'loss'; got {output!r}.")
        if output == "loss":
            if y is None:
                raise ValueError("output='loss' needs the targets y.")

            def d_loss(Z):
                Y = np.asarray(y, dtype=np.float64).reshape(Z.shape[0], -1)
                if Y.shape[1] != Z.shape[1]:
                    raise ValueError(
                        f"y has {Y.shape[1]} outputs; the network has {Z.shape[1]}."
                    )
                # The loss's gradient is that of the mean: n times it per sample.
                return Z.shape[0] * self._loss()(Z, Y)[1]

            return self._input_gradient(X, d_loss)
        columns = []
        for j in range(self.n_outputs_):
            def d_output(Z, j=j):
                dZ = np.zeros_like(Z)
                # d g(z) / dz: 1 for the identity output, e^z for the Poisson one
                dZ[:, j] = np.exp(Z[:, j]) if self.out_activation_ == "exp" else 1.0
                return dZ

            columns.append(self._input_gradient(X, d_output))
        return columns[0] if len(columns) == 1 else np.stack(columns, axis=1)

