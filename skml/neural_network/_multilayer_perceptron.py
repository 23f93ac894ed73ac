r"""Multilayer perceptrons trained by mini-batch methods or L-BFGS (notes B §6-7).

``MLPClassifier`` (softmax / logistic output, cross-entropy) and
``MLPRegressor`` (identity output, squared error) share ``_BaseMLP``: the
parameter checks, the initialisation, the epoch loop with early stopping and
the learning-rate schedules. The network itself (flat parameters, buffers,
forward and backward passes) is :class:`skml.neural_network._layers.Network`;
each mini-batch step is taken by an :mod:`skml.optim` optimiser, and
``solver="lbfgs"`` hands the full-batch loss and gradient over the flat
parameter vector to scipy's L-BFGS-B.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MultiOutputMixin,
    RegressorMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from skml.optim import InverseScaling, get_optimizer
from skml.utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from skml.utils._blas import blas_threads_for

from ._activations import ACTIVATIONS
from ._layers import Network, forward_eval

__all__ = ["MLPClassifier", "MLPRegressor"]

SOLVERS = (
    "lbfgs", "sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adadelta", "adam",
    "adabelief",
)
_DTYPES = {"float64": np.float64, "float32": np.float32}


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
        init = "he" if activation in ("relu", "leaky_relu") else "glorot"
    if init == "he":
        return np.sqrt(6.0 / fan_in)
    factor = 2.0 if activation == "logistic" else 6.0
    return np.sqrt(factor / (fan_in + fan_out))


class _EpochRate:
    """Learning rate read by the optimiser, changed by the fit between epochs.

    scikit-learn updates "invscaling" once per epoch from the number of
    samples seen and divides "adaptive" by 5 on plateaus; both need a rate
    that the epoch loop can set, which a step-indexed schedule cannot give.
    """

    def __init__(self, value):
        self.value = value

    def __call__(self, t):
        return self.value


class _BaseMLP(BaseEstimator):
    """Shared fitting machinery; subclasses define the targets and outputs."""

    _parameter_constraints = {
        "hidden_layer_sizes": [
            "array-like", Interval(Integral, 1, None, closed="left")
        ],
        "activation": [Options(ACTIVATIONS)],
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
        "init": [Options({"glorot", "he", "auto"})],
        "dropout": [Interval(Real, 0, 1, closed="left")],
        "batch_norm": ["boolean"],
        "bn_momentum": [Interval(Real, 0, 1, closed="both")],
        "bn_eps": [Interval(Real, 0, None, closed="neither")],
        "dtype": [Options(set(_DTYPES))],
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
        dtype="float64",
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
        self.dtype = dtype

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
        dtype = _DTYPES[self.dtype]
        X, y = validate_data(
            self, X, y, reset=first_call, dtype=dtype, multi_output=self._multi_output,
            y_numeric=not self._is_clf,
        )
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
                self._rate = _EpochRate(self.learning_rate_init)
                self._optimizer = self._new_optimizer(self._rate)
            batch = self.batch_size
            if batch == "auto":
                batch = min(200, X.shape[0])
        # The products of one batch are small: threaded BLAS would spend more
        # waking threads than multiplying (digits: 50x slower on a busy 2-core box).
        work = batch * sum(a * b for a, b in zip(net.layer_units, net.layer_units[1:]))
        with blas_threads_for(work):
            if self.solver == "lbfgs":
                self._fit_lbfgs(net, X, Y, sample_weight)
            else:
                self._train(net, X, Y, sample_weight, incremental)
        if not np.all(np.isfinite(net.theta)):
            # As scikit-learn: an error, not a network that predicts NaN.
            raise ValueError(
                "The solver produced non-finite parameter weights (the loss "
                "overflowed); the input data may hold very large values: "
                "scale them first."
            )
        return self

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

    def _initialize(self, n_features, hidden, n_outputs, dtype):
        self.n_outputs_ = n_outputs
        units = [n_features, *hidden, n_outputs]
        self.n_layers_ = len(units)
        self.out_activation_ = self._out_activation(n_outputs)
        net = Network(
            units, self.activation, self.out_activation_, self.leaky_relu_slope,
            self.batch_norm, self.bn_momentum, self.bn_eps, dtype,
        )
        # Weights and intercepts drawn layer by layer as scikit-learn does, so
        # the same random_state gives its initial network with init="glorot".
        for W, b in zip(net.coefs, net.intercepts):
            bound = _init_bounds(self.activation, self.init, *W.shape)
            W[:] = self._rng.uniform(-bound, bound, W.shape)
            b[:] = self._rng.uniform(-bound, bound, b.shape)
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

    def _network(self, dtype):
        """A network holding the fitted parameters (rebuilt, so pickling is safe)."""
        units = [self.coefs_[0].shape[0], *(W.shape[1] for W in self.coefs_)]
        net = Network(
            units, self.activation, self.out_activation_, self.leaky_relu_slope,
            self.batch_norm, self.bn_momentum, self.bn_eps, dtype,
        )
        for dst, src in zip(
            net.coefs + net.intercepts + net.gammas + net.betas + net.running_mean
            + net.running_var,
            self.coefs_ + self.intercepts_ + self._bn_lists(),
        ):
            dst[:] = src
        return net

    def _bn_lists(self):
        if not self.batch_norm or not hasattr(self, "batch_norm_gamma_"):
            return []
        return (
            self.batch_norm_gamma_ + self.batch_norm_beta_
            + self.running_mean_ + self.running_var_
        )

    def _publish(self, net):
        """Expose the network's parameters as the fitted attributes (views)."""
        self.coefs_ = net.coefs
        self.intercepts_ = net.intercepts
        if self.batch_norm:
            self.batch_norm_gamma_ = net.gammas
            self.batch_norm_beta_ = net.betas
            self.running_mean_ = net.running_mean
            self.running_var_ = net.running_var

    # ------------------------------------------------------------ full batch

    def _fit_lbfgs(self, net, X, Y, sample_weight):
        """Minimise the full-batch loss over the flat parameters with L-BFGS-B.

        The objective is the mini-batch one on one batch of all the samples
        (weighted mean loss plus ``alpha ||W||^2 / (2 sum w)``); scipy works
        in float64, so a float32 network is copied in and out. Batch norm
        then normalises with the statistics of all the samples, a
        deterministic function of the parameters; the running statistics
        are left alone during the search and set to those of the final
        parameters at the end.
        """
        net.allocate(X.shape[0])
        theta, grad, alpha = net.theta, net.grad, float(self.alpha)

        def loss_grad(x):
            theta[:] = x
            net.forward(X, True, 1.0, None, sample_weight)
            loss = net.backward(Y, sample_weight, alpha)
            return loss, grad.astype(np.float64)

        losses = []

        def on_iteration(intermediate_result):
            losses.append(float(intermediate_result.fun))
            if self.verbose:
                print(f"Iteration {len(losses)}, loss = {losses[-1]:.8f}")

        net._update_running = False
        try:
            result = minimize(
                loss_grad, theta.astype(np.float64), method="L-BFGS-B", jac=True,
                callback=on_iteration,
                options={"maxiter": self.max_iter, "maxfun": self.max_fun,
                         "gtol": self.tol},
            )
        finally:
            net._update_running = True
        theta[:] = result.x
        if self.batch_norm:
            bn_momentum, net.bn_momentum = net.bn_momentum, 1.0
            try:
                net.forward(X, True, 1.0, None, sample_weight)
            finally:
                net.bn_momentum = bn_momentum
        self.n_iter_ = min(int(result.nit), self.max_iter)
        self.loss_ = float(result.fun)
        self.loss_curve_.extend(losses)
        self.best_loss_ = min(self.best_loss_, self.loss_, *losses)
        self._publish(net)
        if not np.isfinite(self.loss_):
            warnings.warn("The training loss diverged (inf or NaN).", RuntimeWarning)
        elif result.status != 0:
            warnings.warn(
                f"lbfgs stopped before convergence after {self.n_iter_} "
                f"iteration(s): {result.message} (max_iter={self.max_iter}, "
                f"max_fun={self.max_fun}).",
                ConvergenceWarning,
            )

    # ------------------------------------------------------------- the epochs

    def _train(self, net, X, Y, sample_weight, incremental):
        rng = self._rng
        if self.early_stopping:
            stratify = Y.argmax(1) if self._is_clf and Y.shape[1] > 1 else (
                Y[:, 0] if self._is_clf else None
            )
            parts = train_test_split(
                X, Y, *([] if sample_weight is None else [sample_weight]),
                random_state=rng, test_size=self.validation_fraction, stratify=stratify,
            )
            X_train, X_val, Y_train, Y_val = parts[:4]
            sw_train, sw_val = parts[4:] if sample_weight is not None else (None, None)
            if X_val.shape[0] < 2:
                raise ValueError(
                    "The validation set is too small. Increase validation_fraction "
                    "or the size of the dataset."
                )
        else:
            X_train, Y_train, sw_train = X, Y, sample_weight
            X_val = Y_val = sw_val = None
        n = X_train.shape[0]
        batch_size = min(200, n) if self.batch_size == "auto" else self.batch_size
        if batch_size > n:
            warnings.warn(
                f"batch_size={batch_size} is larger than the {n} training samples; "
                "it is clipped.", UserWarning,
            )
            batch_size = n
        keep = 1.0 - self.dropout
        net.allocate(batch_size, dropout=keep < 1.0)
        drop_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        if self.shuffle:
            # Each epoch copies X in the new order into one buffer, so every
            # batch is a contiguous slice (no fancy indexing per batch).
            Xe, Ye = np.empty_like(X_train), np.empty_like(Y_train)
            swe = None if sw_train is None else np.empty_like(sw_train)
        else:
            Xe, Ye, swe = X_train, Y_train, sw_train
        opt, alpha = self._optimizer, float(self.alpha)
        theta, grad = net.theta, net.grad
        best_theta = None
        epochs = 1 if incremental else self.max_iter
        if not incremental:
            self.n_iter_ = 0
        for _ in range(epochs):
            if self.shuffle:
                order = rng.permutation(n)
                np.take(X_train, order, axis=0, out=Xe)
                np.take(Y_train, order, axis=0, out=Ye)
                if swe is not None:
                    np.take(sw_train, order, out=swe)
            total = 0.0
            for start in range(0, n, batch_size):
                stop = min(start + batch_size, n)
                sw_batch = None if swe is None else swe[start:stop]
                net.forward(Xe[start:stop], True, keep, drop_rng, sw_batch)
                batch_loss = net.backward(Ye[start:stop], sw_batch, alpha, keep)
                opt.step(theta, grad)
                total += batch_loss * (stop - start)
            self.n_iter_ += 1
            self.t_ += n
            loss = total / n
            self.loss_ = loss
            self.loss_curve_.append(loss)
            if self.verbose:
                print(f"Iteration {self.n_iter_}, loss = {loss:.8f}")
            if not np.isfinite(loss):
                warnings.warn(
                    "The training loss diverged (inf or NaN).", RuntimeWarning
                )
                break
            if self._update_no_improvement(loss, X_val, Y_val, sw_val, net):
                best_theta = self._best_state(net)
            if self.learning_rate == "invscaling":
                self._rate.value = InverseScaling(
                    self.learning_rate_init, self.power_t
                )(self.t_)
            if self._no_improvement_count > self.n_iter_no_change:
                if self.learning_rate == "adaptive" and self._rate.value > 1e-6:
                    self._rate.value /= 5.0
                    self._no_improvement_count = 0
                    if self.verbose:
                        print(f"Setting learning rate to {self._rate.value:f}")
                else:
                    if self.verbose:
                        what = ("Validation score" if self.early_stopping
                                else "Training loss")
                        print(f"{what} did not improve more than tol={self.tol} for "
                              f"{self.n_iter_no_change} consecutive epochs. Stopping.")
                    break
            if not incremental and self.n_iter_ == self.max_iter:
                warnings.warn(
                    f"Stochastic optimizer: maximum iterations ({self.max_iter}) "
                    "reached and the optimization hasn't converged yet.",
                    ConvergenceWarning,
                )
        if self.early_stopping and best_theta is not None:
            self._restore_state(net, best_theta)
        self._publish(net)

    def _best_state(self, net):
        return [net.theta.copy(), [r.copy() for r in net.running_mean],
                [r.copy() for r in net.running_var]]

    def _restore_state(self, net, state):
        net.theta[:] = state[0]
        for dst, src in zip(net.running_mean + net.running_var, state[1] + state[2]):
            dst[:] = src

    def _update_no_improvement(self, loss, X_val, Y_val, sw_val, net):
        """Count epochs without progress (scikit-learn's rule); True on a new best."""
        if self.early_stopping:
            score = self._validation_score(net, X_val, Y_val, sw_val)
            self.validation_scores_.append(score)
            if self.verbose:
                print(f"Validation score: {score:f}")
            if score < self.best_validation_score_ + self.tol:
                self._no_improvement_count += 1
            else:
                self._no_improvement_count = 0
            if score > self.best_validation_score_:
                self.best_validation_score_ = score
                return True
            return False
        if loss > self.best_loss_ - self.tol:
            self._no_improvement_count += 1
        else:
            self._no_improvement_count = 0
        self.best_loss_ = min(self.best_loss_, loss)
        return False

    # ------------------------------------------------------------ prediction

    def _forward(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=self.coefs_[0].dtype)
        bn = None
        if self.batch_norm:
            bn = (self.batch_norm_gamma_, self.batch_norm_beta_, self.running_mean_,
                  self.running_var_, self.bn_eps)
        P = forward_eval(X, self.coefs_, self.intercepts_, self.activation,
                         self.out_activation_, self.leaky_relu_slope, bn)
        # float32 networks still answer in float64, as scikit-learn's checks expect.
        return P.astype(np.float64, copy=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


_PARAMS_DOC = """
    Parameters
    ----------
    hidden_layer_sizes : array-like of int or int, default=(100,)
        Units of each hidden layer.
    activation : {"relu", "leaky_relu", "tanh", "logistic", "identity"}, \
default="relu"
        Hidden activation (notes B §7.2).
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
        Slope of "leaky_relu" for negative inputs (the notes' 0.1).
    init : {"glorot", "he", "auto"}, default="glorot"
        Initial weights, uniform: "glorot" is scikit-learn's rule (so results
        are comparable), "he" uses ``sqrt(6 / fan_in)``, "auto" picks "he"
        for ReLU-like activations and "glorot" otherwise.
    dropout : float, default=0.0
        Probability of dropping a hidden unit while training (inverted
        dropout, keep probability ``q = 1 - dropout``; off at predict time).
        Must be 0 with "lbfgs", whose line search needs a deterministic loss.
    batch_norm : bool, default=False
        Batch-normalise every hidden pre-activation (learned scale and shift).
        With "lbfgs" the batch is all the samples and the running statistics
        are those of the final network.
    bn_momentum : float, default=0.1
        Weight of the new batch in the running statistics (PyTorch's).
    bn_eps : float, default=1e-5
        Added to the variance in batch norm.
    dtype : {"float64", "float32"}, default="float64"
        Precision of the parameters and of the training arithmetic;
        "float32" roughly halves the time of the matrix products.
"""

_ATTRS_DOC = """
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
    coefs_ : list of ndarray
        ``coefs_[i]`` of shape (units in layer i, units in layer i + 1).
    intercepts_ : list of ndarray
        ``intercepts_[i]`` of shape (units in layer i + 1,).
    batch_norm_gamma_, batch_norm_beta_ : list of ndarray
        Batch-norm scales and shifts per hidden layer (only with
        ``batch_norm``).
    running_mean_, running_var_ : list of ndarray
        Running batch statistics used at inference (only with ``batch_norm``).
    n_layers_ : int
        Layers, input and output included.
    n_outputs_ : int
        Output units.
    out_activation_ : str
        Output function.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit (string column names only).
"""

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

    Departures from the printed notes (catalogue B §15): Adam is bias
    corrected, Nesterov looks ahead to ``theta - rho v``, the batch-norm
    running average weighs the new batch by ``bn_momentum`` (PyTorch), and
    tanh is the standard function. Batch statistics are weighted by the
    sample weights, so a weight-k row counts as k copies there too.
"""


class MLPClassifier(ClassifierMixin, _BaseMLP):
    __doc__ = (
        """Multilayer-perceptron classifier: softmax (or sigmoid) output, cross-entropy.

    The fully connected network of notes B §7.1 (D1 §9, D3 "neural networks"),
    trained by backpropagation on mini-batches with an :mod:`skml.optim`
    optimiser (§6), with L2 on the weights, inverted dropout (§7.3), batch
    normalisation (§7.4) and Glorot / He initialisation (§6.13). Two classes
    use one logistic output unit, more classes a softmax layer.
"""
        + _PARAMS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels."""
        + _ATTRS_DOC
        + """
    See Also
    --------
    MLPRegressor : The same network with an identity output.
    sklearn.neural_network.MLPClassifier : The reference (adam, sgd, lbfgs).
"""
        + _NOTES_DOC
        + """
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
    )

    _is_clf = True
    _multi_output = False

    def fit(self, X, y, sample_weight=None):
        """Train the network on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the loss.

        Returns
        -------
        self : object
        """
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(_stochastic_solver)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch over ``(X, y)``, continuing the previous fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        if not hasattr(self, "coefs_") and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        return self._fit(X, y, sample_weight, incremental=True, classes=classes)

    def _encode_targets(self, y, first_call, classes, dtype, incremental):
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
                    f"classes={classes!r} is not the same as on the first call to "
                    f"partial_fit, {self.classes_.tolist()!r}."
                )
            if not incremental and not first_call and not np.array_equal(
                np.unique(y), self.classes_
            ):
                # A warm-started fit continues the same output layer: the
                # classes of y must be those of the previous fit (scikit-learn).
                raise ValueError(
                    "warm_start needs y with the same classes as the previous "
                    f"fit, {self.classes_.tolist()!r}; y has "
                    f"{np.unique(y).tolist()!r}."
                )
            y_enc = np.searchsorted(self.classes_, y)
            y_enc = np.minimum(y_enc, len(self.classes_) - 1)
            if np.any(self.classes_[y_enc] != y):
                raise ValueError(
                    f"y holds labels not in classes_ {self.classes_.tolist()!r}."
                )
        n_classes = len(self.classes_)
        if n_classes <= 2:
            return y_enc.astype(dtype)[:, None]
        Y = np.zeros((y_enc.shape[0], n_classes), dtype=dtype)
        Y[np.arange(y_enc.shape[0]), y_enc] = 1.0
        return Y

    def _out_activation(self, n_outputs):
        return "logistic" if n_outputs == 1 else "softmax"

    def _validation_score(self, net, X, Y, sample_weight):
        if len(self.classes_) == 1:
            return 1.0  # every prediction is the one class
        P = net.forward(X, training=False)
        pred = (P[:, 0] > 0.5) if P.shape[1] == 1 else P.argmax(1)
        true = Y[:, 0] > 0.5 if Y.shape[1] == 1 else Y.argmax(1)
        return float(np.average(pred == true, weights=sample_weight))

    def predict_proba(self, X):
        """Class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Rows sum to 1; columns follow ``classes_``.
        """
        P = self._forward(X)
        if len(self.classes_) == 1:
            return np.ones_like(P)
        if P.shape[1] == 1:
            return np.hstack([1.0 - P, P])
        return P

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        P = self._forward(X)
        if len(self.classes_) == 1:
            return np.repeat(self.classes_, P.shape[0])
        index = (P[:, 0] > 0.5).astype(np.intp) if P.shape[1] == 1 else P.argmax(1)
        return self.classes_[index]


class MLPRegressor(MultiOutputMixin, RegressorMixin, _BaseMLP):
    __doc__ = (
        """Multilayer-perceptron regressor: identity output, squared error.

    The fully connected network of notes B §7.1 with the loss
    :math:`\\frac{1}{2n}\\sum_i \\|p_i - y_i\\|^2` (the notes' D1 backprop
    example), trained like :class:`MLPClassifier`: mini-batches, an
    :mod:`skml.optim` optimiser, L2 on the weights, dropout and batch norm.
"""
        + _PARAMS_DOC.replace(
            "    Parameters\n    ----------\n",
            "    Parameters\n    ----------\n"
            "    loss : {\"squared_error\", \"poisson\"}, default=\"squared_error\"\n"
            "        Half the squared error with an identity output, or the Poisson\n"
            "        deviance ``p - y log p`` with an exponential output (y >= 0).\n",
        )
        + """
    Attributes
    ----------"""
        + _ATTRS_DOC
        + """
    See Also
    --------
    MLPClassifier : The same network with a softmax / logistic output.
    sklearn.neural_network.MLPRegressor : The reference.
"""
        + _NOTES_DOC
        + """    The loss is summed over the outputs (scikit-learn reports it averaged
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
    )

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
        random_state=None, tol=1e-4, verbose=False, warm_start=False,
        momentum=0.9, nesterovs_momentum=True, early_stopping=False,
        validation_fraction=0.1, beta_1=0.9, beta_2=0.999, epsilon=1e-8,
        n_iter_no_change=10, max_fun=15000, leaky_relu_slope=0.1, init="glorot",
        dropout=0.0, batch_norm=False, bn_momentum=0.1, bn_eps=1e-5,
        dtype="float64",
    ):
        super().__init__(
            hidden_layer_sizes, activation, solver=solver, alpha=alpha,
            batch_size=batch_size, learning_rate=learning_rate,
            learning_rate_init=learning_rate_init, power_t=power_t,
            max_iter=max_iter, shuffle=shuffle, random_state=random_state, tol=tol,
            verbose=verbose, warm_start=warm_start, momentum=momentum,
            nesterovs_momentum=nesterovs_momentum, early_stopping=early_stopping,
            validation_fraction=validation_fraction,
            beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
            n_iter_no_change=n_iter_no_change, max_fun=max_fun,
            leaky_relu_slope=leaky_relu_slope,
            init=init, dropout=dropout, batch_norm=batch_norm,
            bn_momentum=bn_momentum, bn_eps=bn_eps, dtype=dtype,
        )
        self.loss = loss

    def fit(self, X, y, sample_weight=None):
        """Train the network on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(_stochastic_solver)
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch over ``(X, y)``, continuing the previous fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
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
        P = net.forward(X, training=False)
        w = np.ones(len(Y)) if sample_weight is None else sample_weight
        mean = np.average(Y, axis=0, weights=w)
        ss_res = w @ (Y - P) ** 2
        ss_tot = w @ (Y - mean) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(ss_tot > 0, 1.0 - ss_res / ss_tot, 0.0)
        return float(np.mean(r2))

    def predict(self, X):
        """Predicted targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        """
        P = self._forward(X)
        return P.ravel() if P.shape[1] == 1 else P
