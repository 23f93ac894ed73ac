r"""ProxylessNAS: architecture search through binarised paths (notes A §11.4).

A *super-network* holds, in each of ``n_blocks`` residual blocks, every
candidate operation of the search space (an inverted bottleneck
``Dense(width) -> activation -> Dense(block_width)`` for each width and
activation, and the zero operation, which skips the block). Architecture
parameters :math:`\alpha_b` (one logit per candidate and block) give path
probabilities :math:`p = \mathrm{softmax}(\alpha_b)`. Training alternates:

1. **weights**, with :math:`\alpha` fixed: sample one path per block from
   :math:`p` (binary gates :math:`g`, one-hot), and take an optimiser step
   on a training batch through the sampled paths only;
2. **architecture**, with the weights fixed: on a held-out batch, sample
   paths again, back-propagate, and estimate

   .. math::
      \frac{\partial L}{\partial \alpha_i} \approx \sum_j
      \frac{\partial L}{\partial g_j} \frac{\partial p_j}{\partial \alpha_i}
      = \sum_j \frac{\partial L}{\partial g_j}\, p_j (\delta_{ij} - p_i),

   where :math:`\partial L / \partial g_j = \langle \partial L / \partial Y,
   o_j(X) \rangle` is the gradient of the loss with respect to the gate of
   path :math:`j` (the notes write :math:`\partial g_j / \partial \alpha_i`
   for the last factor: it is :math:`\partial p_j / \partial \alpha_i`,
   erratum 15 of the catalogue).

The most probable candidate of each block is the found architecture; the
network of that architecture is then trained from scratch on all the data
(the MLP machinery, ``max_iter`` epochs).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_random_state

from skml.optim import EpochRate, get_optimizer

from ..utils import Interval, check_sample_weight, validate_params
from ..utils._docstrings import PARTIAL_FIT_PARAMETERS, SELF_RETURNS, fill_doc
from ..utils._magnitude import check_trainable_magnitude
from ..utils.validation import validate_data
from ._activations import ACTIVATIONS
from ._losses import OUTPUTS
from ._modules import Activation, Dense, Sequential
from ._multilayer_perceptron import (
    _MLP_CLASSIFIER_ATTRS_DOC,
    _BaseMLP,
    MLPClassifier,
)
from ._nas_modules import MixedBlock
from ._training import train

__all__ = ["ProxylessNASClassifier"]


def _softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def architecture_gradient(gate_gradients, probabilities):
    r"""ProxylessNAS's estimate of :math:`\partial L / \partial \alpha` for one block.

    ``sum_j dL/dg_j * dp_j/dalpha_i`` with ``dp_j/dalpha_i = p_j (delta_ij -
    p_i)``: ``p_i (dL/dg_i - sum_j p_j dL/dg_j)``. (The notes' formula reads
    ``dg_j/dalpha_i`` in place of ``dp_j/dalpha_i``: an erratum.)
    """
    g = np.asarray(gate_gradients, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    return p * (g - p @ g)


def _has_architecture(estimator):
    """partial_fit trains a fixed, given architecture."""
    return estimator.solver != "lbfgs" and estimator.architecture is not None


# The MLP parameters the search shares (one numpydoc line, too long for the source).
_MLP_SHARED_PARAMS_DOC = """
    solver, alpha, batch_size, learning_rate, learning_rate_init, power_t, \
max_iter, shuffle, random_state, tol, verbose, warm_start, momentum, \
nesterovs_momentum, early_stopping, validation_fraction, beta_1, beta_2, \
epsilon, n_iter_no_change, max_fun, leaky_relu_slope, init, dropout, dtype
        As in :class:`MLPClassifier`, for the weights of the search (a
        stochastic solver: "lbfgs" searches with Adam) and for training the
        found network (``max_iter`` epochs).
"""


@fill_doc(**{"mlp parameters": _MLP_SHARED_PARAMS_DOC,
             "mlp attributes": _MLP_CLASSIFIER_ATTRS_DOC})
class ProxylessNASClassifier(MLPClassifier):
    r"""Neural architecture search by ProxylessNAS, then the found network trained.

    The notes' ProxylessNAS (notes A §11.4, S0 §11): an over-parameterised
    network of residual blocks whose candidate operations are chosen by
    architecture parameters, trained alternately with the weights through
    binarised (sampled, one-hot) paths, so each step costs one path (see the
    module docstring for the gradient estimator, with the notes' erratum
    corrected). The found architecture is then trained from scratch with the
    training machinery of :class:`MLPClassifier`.

    Parameters
    ----------
    n_blocks : int, default=2
        Residual blocks of the network; each is ``x + op(x)`` with ``op``
        one of the candidates.
    block_width : int, default=64
        Width of the residual stream: the input is first mapped to it by a
        dense layer (the stem), and the output layer reads it.
    widths : tuple of int, default=(32, 64, 128)
        Hidden widths of the candidate operations (inverted bottlenecks
        ``Dense(width) -> activation -> Dense(block_width)``).
    activations : tuple of str, default=("relu", "tanh")
        Activations of the candidate operations; every width is tried with
        every activation.
    include_zero : bool, default=True
        Add the zero operation (skip the block), so the search can also
        choose the depth.
    architecture : list or None, default=None
        None searches. Otherwise the architecture to train, one entry per
        block: an index into ``candidates_``, or a candidate dict such as
        ``{"width": 64, "activation": "relu"}`` or ``{"op": "zero"}``
        (what a grid search over architectures sets).
    search_epochs : int, default=30
        Epochs of the alternating search over the training part.
    warmup_epochs : int, default=5
        First search epochs in which only the weights train (paths sampled
        uniformly), as ProxylessNAS warms the weights up.
    arch_learning_rate : float, default=0.01
        Adam step size of the architecture parameters.
    search_fraction : float, default=0.2
        Fraction of the data held out for the architecture steps.
    <mlp parameters>

    Attributes
    ----------
    candidates_ : list of dict
        The candidate operations of every block.
    architecture_logits_ : ndarray of shape (n_blocks, n_candidates)
        The architecture parameters :math:`\alpha` after the search.
    architecture_probabilities_ : ndarray of shape (n_blocks, n_candidates)
        :math:`\mathrm{softmax}(\alpha)` per block.
    best_architecture_ : list of dict
        The candidate chosen in each block (the most probable one).
    search_loss_curve_ : list of float
        Training loss of the super-network per search epoch.
    <mlp attributes>

    See Also
    --------
    MLPClassifier : A network of fixed dense layers.
    skml.model_selection.SuccessiveHalvingSearchCV : Search over
        hyper-parameters with a resource budget.

    Notes
    -----
    One weight step costs a forward and a backward pass through one path per
    block; one architecture step costs that plus a forward pass of every
    candidate of every block on the held-out batch (for the gate
    gradients). ``coefs_`` and ``intercepts_`` list the weights of the found
    network in layer order (stem, each kept block's two dense layers, output).

    References
    ----------
    .. [1] H. Cai, L. Zhu and S. Han, "ProxylessNAS: Direct neural
       architecture search on target task and hardware", ICLR 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.neural_network import ProxylessNASClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> nas = ProxylessNASClassifier(n_blocks=1, block_width=16, widths=(8, 16),
    ...                              search_epochs=10, max_iter=300,
    ...                              learning_rate_init=0.01, random_state=0)
    >>> nas.fit(X, y).score(X, y) > 0.9
    True
    >>> len(nas.best_architecture_)
    1
    """

    batch_norm = False
    layer_norm = False
    hidden_layer_sizes = None
    activation = "relu"

    _parameter_constraints = {
        **{k: v for k, v in _BaseMLP._parameter_constraints.items()
           if k not in ("hidden_layer_sizes", "activation", "batch_norm",
                        "bn_momentum", "bn_eps", "layer_norm")},
        "n_blocks": [Interval(Integral, 1, None, closed="left")],
        "block_width": [Interval(Integral, 1, None, closed="left")],
        "widths": ["array-like"],
        "activations": ["array-like"],
        "include_zero": ["boolean"],
        "architecture": [None, "array-like"],
        "search_epochs": [Interval(Integral, 1, None, closed="left")],
        "warmup_epochs": [Interval(Integral, 0, None, closed="left")],
        "arch_learning_rate": [Interval(Real, 0, None, closed="neither")],
        "search_fraction": [Interval(Real, 0, 1, closed="neither")],
    }

    def __init__(
        self, n_blocks=2, block_width=64, widths=(32, 64, 128),
        activations=("relu", "tanh"), include_zero=True, architecture=None, *,
        search_epochs=30, warmup_epochs=5, arch_learning_rate=0.01,
        search_fraction=0.2, solver="adam", alpha=1e-4, batch_size="auto",
        learning_rate="constant", learning_rate_init=1e-3, power_t=0.5,
        max_iter=200, shuffle=True, random_state=None, tol=1e-4, verbose=False,
        warm_start=False, momentum=0.9, nesterovs_momentum=True,
        early_stopping=False, validation_fraction=0.1, beta_1=0.9, beta_2=0.999,
        epsilon=1e-8, n_iter_no_change=10, max_fun=15000, leaky_relu_slope=0.1,
        init="auto", dropout=0.0, dtype="float64",
    ):
        self.n_blocks = n_blocks
        self.block_width = block_width
        self.widths = widths
        self.activations = activations
        self.include_zero = include_zero
        self.architecture = architecture
        self.search_epochs = search_epochs
        self.warmup_epochs = warmup_epochs
        self.arch_learning_rate = arch_learning_rate
        self.search_fraction = search_fraction
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

    # ------------------------------------------------------------ the space

    def _candidate_list(self):
        widths = list(np.atleast_1d(self.widths))
        activations = [self.activations] if isinstance(self.activations, str) \
            else list(self.activations)
        if not widths or any(isinstance(w, (bool, np.bool_))
                             or not isinstance(w, (Integral, np.integer)) or w < 1
                             for w in widths):
            raise ValueError(f"widths must be positive ints; got {self.widths!r}.")
        bad = [a for a in activations if a not in ACTIVATIONS]
        if not activations or bad:
            raise ValueError(
                f"activations must be names among {sorted(ACTIVATIONS)}; "
                f"got {self.activations!r}.")
        candidates = [{"width": int(w), "activation": a}
                      for w in widths for a in activations]
        if self.include_zero:
            candidates.append({"op": "zero"})
        return candidates

    def _chain(self, candidate):
        if candidate.get("op") == "zero":
            return []
        return [Dense(candidate["width"]),
                Activation(candidate["activation"], self.leaky_relu_slope),
                Dense(self.block_width)]

    def _fixed_architecture(self, candidates):
        """``architecture`` as candidate indices, checked."""
        arch = list(self.architecture)
        if len(arch) != self.n_blocks:
            raise ValueError(
                f"architecture has {len(arch)} entries; n_blocks={self.n_blocks} "
                "needs one per block.")
        out = []
        for entry in arch:
            if isinstance(entry, dict):
                if entry not in candidates:
                    raise ValueError(
                        f"architecture: {entry!r} is not a candidate; the "
                        f"candidates are {candidates}.")
                out.append(candidates.index(entry))
            elif isinstance(entry, (Integral, np.integer)) and not isinstance(
                    entry, (bool, np.bool_)) and 0 <= entry < len(candidates):
                out.append(int(entry))
            else:
                raise ValueError(
                    f"architecture: {entry!r} must be a candidate dict or an "
                    f"index in [0, {len(candidates)}).")
        return out

    def _supernet(self, n_features, n_outputs, candidates, dtype, rng, choice=None):
        """Stem, blocks (all candidates, or only ``choice``), output layer."""
        layers = [Dense(self.block_width)]
        for b in range(self.n_blocks):
            if choice is None:
                layers.append(MixedBlock([self._chain(c) for c in candidates]))
            elif candidates[choice[b]].get("op") != "zero":
                layers.append(MixedBlock([self._chain(candidates[choice[b]])]))
        layers.append(Dense(n_outputs))
        return Sequential(layers, (n_features,), dtype, rng=rng)

    # ------------------------------------------------------------ the search

    def _search(self, X, Y, sample_weight, dtype):
        rng = self._rng
        candidates = self.candidates_
        net = self._supernet(X.shape[1], Y.shape[1], candidates, dtype, rng)
        blocks = [layer for layer in net.layers if isinstance(layer, MixedBlock)]
        where = [net.layers.index(b) for b in blocks]
        stratify = Y.argmax(1) if Y.shape[1] > 1 else Y[:, 0]
        _, counts = np.unique(stratify, return_counts=True)
        n_val = int(round(self.search_fraction * X.shape[0]))
        sw = np.ones(X.shape[0], dtype=dtype) if sample_weight is None else (
            sample_weight)
        if n_val >= 1 and X.shape[0] - n_val >= 1:
            X_tr, X_val, Y_tr, Y_val, sw_tr, sw_val = train_test_split(
                X, Y, sw, test_size=n_val, random_state=rng,
                stratify=stratify if counts.min() >= 2 and n_val >= len(counts)
                and X.shape[0] - n_val >= len(counts) else None)
        else:  # too few samples to hold any out: search on the training data
            X_tr, X_val, Y_tr, Y_val, sw_tr, sw_val = X, X, Y, Y, sw, sw
        loss = OUTPUTS[self._out_activation(Y.shape[1])][0]
        logits = np.zeros((len(blocks), len(candidates)))
        arch_grad = np.zeros_like(logits)
        arch_opt = get_optimizer("adam", learning_rate=self.arch_learning_rate)
        rate = EpochRate(self.learning_rate_init)
        # The search takes mini-batch steps: "lbfgs" searches with Adam.
        weight_opt = get_optimizer(
            "adam", learning_rate=rate, beta1=self.beta_1, beta2=self.beta_2,
            eps=self.epsilon) if self.solver == "lbfgs" else self._new_optimizer(rate)
        batch = min(200, X_tr.shape[0]) if self.batch_size == "auto" else min(
            self.batch_size, X_tr.shape[0])
        val_batch = min(batch, X_val.shape[0])
        sampler = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        state = {"epoch": 1, "val_start": 0}

        def sample(uniform):
            probs = _softmax(logits)
            for b, block in enumerate(blocks):
                p = None if uniform else probs[b]
                block.active = int(sampler.choice(len(candidates), p=p))
            return probs

        def arch_step():
            start = state["val_start"]
            if start + val_batch > X_val.shape[0]:
                start = 0
            state["val_start"] = start + val_batch
            Xv, Yv = X_val[start:start + val_batch], Y_val[start:start + val_batch]
            swv = sw_val[start:start + val_batch]
            probs = sample(uniform=False)
            for block in blocks:
                block.save_output_grad = True
            _, d_out = loss(net.forward(Xv, True, sample_weight=swv), Yv, swv)
            net.backward(d_out)
            for b, (block, i) in enumerate(zip(blocks, where)):
                block.save_output_grad = False
                g = block.gate_gradients(net.params[i], net.caches[i])
                arch_grad[b] = architecture_gradient(g, probs[b])
            arch_opt.step(logits.ravel(), arch_grad.ravel())

        def batch_hook(Xb, Yb, swb):
            searching = state["epoch"] > self.warmup_epochs
            if searching:
                arch_step()
            sample(uniform=not searching)
            return Xb, Yb, swb

        def epoch_hook(log):
            state["epoch"] += 1

        log = train(net, X_tr, Y_tr, loss, weight_opt,
                    epochs=self.search_epochs + self.warmup_epochs,
                    batch_size=batch, sample_weight=sw_tr,
                    alpha=float(self.alpha), shuffle=True,
                    rng=rng, batch_hook=batch_hook, epoch_hook=epoch_hook,
                    verbose=self.verbose, warn=False)
        self.search_loss_curve_ = list(log.losses)
        return logits

    def fit(self, X, y, sample_weight=None):
        """Search an architecture on ``(X, y)``, then train it from scratch.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the losses of the search and of the
            final training.

        Returns
        -------
        self : object
        """
        validate_params(self)
        candidates = self._candidate_list()
        if self.architecture is not None:
            choice = self._fixed_architecture(candidates)
            self.__dict__.pop("architecture_logits_", None)
            self.__dict__.pop("search_loss_curve_", None)
            probs = np.zeros((self.n_blocks, len(candidates)))
            probs[np.arange(self.n_blocks), choice] = 1.0
        elif self.warm_start and hasattr(self, "_choice"):
            choice, probs = self._choice, self.architecture_probabilities_
        else:
            dtype = np.dtype(self.dtype)
            X_arr, y_arr = validate_data(self, X, y, dtype=dtype)
            check_trainable_magnitude(X_arr, type(self).__name__,
                                      what="initial weights and step sizes")
            self._rng = check_random_state(self.random_state)
            self.candidates_ = candidates
            Y = self._encode_targets(y_arr, True, None, dtype, False)
            sw = None if sample_weight is None else check_sample_weight(
                sample_weight, X_arr, dtype=dtype)
            logits = self._search(X_arr, Y, sw, dtype)
            self.architecture_logits_ = logits
            probs = _softmax(logits)
            choice = [int(i) for i in probs.argmax(axis=1)]
        self.candidates_ = candidates
        self.architecture_probabilities_ = probs
        self.best_architecture_ = [dict(candidates[i]) for i in choice]
        if getattr(self, "_choice", None) != choice:
            self.__dict__.pop("coefs_", None)  # a new network, not a warm start
        self._choice = choice
        return self._fit(X, y, sample_weight, incremental=False)

    @available_if(_has_architecture)
    @fill_doc(parameters=PARTIAL_FIT_PARAMETERS, returns=SELF_RETURNS)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of the found (or given) architecture over ``(X, y)``.

        Available with a stochastic solver and ``architecture`` given (to
        continue a searched network, use ``warm_start=True`` and :meth:`fit`).

        <parameters>

        <returns>
        """
        if not hasattr(self, "_choice"):
            validate_params(self)
            self.candidates_ = self._candidate_list()
            self._choice = self._fixed_architecture(self.candidates_)
            self.best_architecture_ = [dict(self.candidates_[i])
                                       for i in self._choice]
        return super().partial_fit(X, y, classes=classes,
                                   sample_weight=sample_weight)

    # ------------------------------------------------ the found network (MLP hooks)

    def _hidden_sizes(self):
        return list(self._choice)

    def _train(self, net, X, Y, sample_weight, incremental):
        check_trainable_magnitude(X, type(self).__name__,
                                  what="initial weights and step sizes")
        super()._train(net, X, Y, sample_weight, incremental)

    def _build_network(self, units, dtype, rng=None):
        return self._supernet(units[0], units[-1], self.candidates_, dtype, rng,
                              choice=self._choice)

    def _network(self, dtype):
        net = self._build_network([self.n_features_in_, self.n_outputs_], dtype)
        return self._load_fitted(net)

    def _views(self, net):
        coefs, intercepts = [], []
        for params in net.params:
            for name, value in params.items():
                (coefs if name.endswith("W") else intercepts).append(value)
        return {"coefs_": coefs, "intercepts_": intercepts}

