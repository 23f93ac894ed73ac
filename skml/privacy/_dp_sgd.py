r"""DP-SGD: differentially private stochastic gradient descent (notes B §13.5).

Each step (Abadi et al., 2016; the notes' four steps):

1. **Poisson lot**: every row joins independently with probability
   :math:`q = L/n` (``rng.random(n) < q``), so lot sizes are Binomial(n, q);
2. **per-example gradients, clipped**: :math:`\bar g_i = g_i / \max(1,
   \|g_i\|/C)`, computed for the whole lot at once through the network core
   (:func:`skml.neural_network._modules.clipped_backward`: the closed form
   :math:`\|g_i\|^2 = (\|x_i\|^2 + 1)\|r_i\|^2` for linear, logistic and
   softmax models, the per-layer "ghost norms" for the MLP) -- no Python
   loop over examples;
3. **noise**: :math:`\tilde g = (\sum_{i \in \text{lot}} \bar g_i + N(0,
   \sigma^2 C^2 I)) / L`, with L the *expected* lot size (a random
   denominator would leak the lot size);
4. **step** with an :mod:`skml.optim` optimiser (plain SGD by default).

With ``average`` the weights returned are the mean of the last iterates
(Polyak-Ruppert averaging, or tail averaging of a fraction of the steps)
rather than the last one: a function of the noisy iterates alone, so
post-processing that costs no privacy, and a mean that cancels much of the
noise the last iterate carries.

The privacy spent by ``n_steps`` such steps is given by the Rényi-DP
accountant of the subsampled Gaussian mechanism (:mod:`._rdp`); with
``target_epsilon`` the smallest noise multiplier meeting it is found by
bisection before training. The L2 penalty acts on the parameters only, so
it costs no privacy; neither does anything computed after training.
"""

import math
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..neural_network._losses import OUTPUTS
from ..neural_network._modules import Activation, Dense, Sequential, clipped_backward
from ..optim import OPTIMIZERS, get_optimizer
from ..utils._magnitude import check_trainable_magnitude
from ..utils._param_validation import Interval, Options, validate_params
from ..utils.validation import encode_labels
from ._dp_kernels import IDENTITY, LOGISTIC, SOFTMAX, linear_clipped_sum
from ._rdp import DEFAULT_ORDERS, compute_rdp, get_noise_multiplier, rdp_to_epsilon
from ._validation import _rng
from ..utils.validation import validate_data

__all__ = ["DPSGDClassifier", "DPSGDRegressor"]


def _poisson_lot(rng, n, q):
    """Indices of a Poisson-sampled lot: each row independently with probability q.

    The gaps between consecutive included rows are i.i.d. Geometric(q), so the
    lot is the cumulative sum of geometric draws below n: the same
    distribution as ``rng.random(n) < q``, in O(qn) instead of O(n).
    """
    return next(_poisson_lots(rng, n, q, 1))


def _poisson_lots(rng, n, q, n_lots, chunk=64):
    """Yield ``n_lots`` independent Poisson lots (sorted index arrays).

    The geometric gaps of up to ``chunk`` lots are drawn and summed in one
    call each (one row per lot), so a step pays no random-number call of its
    own; each lot is a view of its row. A gap is ``floor(E / lambda) + 1``
    with E standard exponential and ``lambda = -log(1 - q)``: exactly
    Geometric(q), since ``P(floor(E / lambda) >= k) = exp(-k lambda) = (1 -
    q)^k``, and numpy's ziggurat exponentials cost a fraction of its
    geometric draws. A row whose gaps do not reach ``n`` (rare: 6 standard
    deviations of margin) is extended by more gaps.
    """
    if q >= 1.0:
        full = np.arange(n)
        for _ in range(n_lots):
            yield full
        return
    expected = n * q
    size = int(expected + 6.0 * math.sqrt(expected) + 16)
    inv_lambda = -1.0 / math.log1p(-q)
    done = 0
    while done < n_lots:
        m = min(chunk, n_lots - done)
        gaps = rng.standard_exponential(size=(m, size))
        gaps *= inv_lambda
        np.floor(gaps, out=gaps)
        pos = np.cumsum(gaps, axis=1)
        pos += np.arange(size)  # the +1 of every gap, and -1 for 0-based
        ends = np.count_nonzero(pos < n, axis=1)
        np.minimum(pos, n, out=pos)  # integers (exact below 2^53), then cast
        pos = pos.astype(np.intp)
        for r in range(m):
            row = pos[r]
            if ends[r] == size:  # rare: not enough gaps drawn yet
                while row[-1] < n:
                    more = np.cumsum(rng.geometric(q, size=size)) + row[-1]
                    row = np.concatenate([row, more])
                yield row[: np.searchsorted(row, n)]
            else:
                yield row[: ends[r]]
        done += m


_KERNEL_KIND = {"identity": IDENTITY, "logistic": LOGISTIC, "softmax": SOFTMAX}


class _BaseDPSGD(BaseEstimator):
    _parameter_constraints = {
        "model": [Options({"linear", "mlp"})],
        "hidden_layer_sizes": [tuple, list, Interval(numbers.Integral, 1, None)],
        "activation": [Options({"relu", "tanh", "logistic", "identity"})],
        "target_epsilon": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "noise_multiplier": [Interval(numbers.Real, 0, None, closed="left"), None],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "clip_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "lot_size": [Interval(numbers.Integral, 1, None)],
        "sampling_rate": [Interval(numbers.Real, 0, 1, closed="right"), None],
        "epochs": [Interval(numbers.Real, 0, None, closed="neither")],
        "optimizer": [Options(set(OPTIMIZERS))],
        "learning_rate": [Interval(numbers.Real, 0, None, closed="neither")],
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "average": ["boolean", Interval(numbers.Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
    }

    def __init__(self, model="linear", *, hidden_layer_sizes=(32,), activation="relu",
                 target_epsilon=None, noise_multiplier=None, delta=1e-5,
                 clip_norm=1.0, lot_size=64, sampling_rate=None, epochs=10,
                 optimizer="sgd", learning_rate=0.1, alpha=1e-4, average=False,
                 random_state=None):
        self.model = model
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.target_epsilon = target_epsilon
        self.noise_multiplier = noise_multiplier
        self.delta = delta
        self.clip_norm = clip_norm
        self.lot_size = lot_size
        self.sampling_rate = sampling_rate
        self.epochs = epochs
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.average = average
        self.random_state = random_state

    # ------------------------------------------------------------- set-up

    def _check_privacy_params(self, n):
        if self.target_epsilon is not None and self.noise_multiplier is not None:
            raise ValueError(
                "Give target_epsilon (the noise multiplier is then chosen) or "
                "noise_multiplier, not both.")
        if self.sampling_rate is not None:
            q = float(self.sampling_rate)
        else:
            q = min(1.0, self.lot_size / n)
        n_steps = max(1, math.ceil(self.epochs / q))
        if self.target_epsilon is not None:
            if np.isinf(self.clip_norm):
                raise ValueError(
                    "clip_norm=inf bounds no sensitivity: a target_epsilon needs a "
                    "finite clip_norm.")
            sigma = get_noise_multiplier(self.target_epsilon, self.delta, q, n_steps)
        else:
            sigma = 1.0 if self.noise_multiplier is None else float(self.noise_multiplier)
        if sigma > 0 and np.isinf(self.clip_norm):
            raise ValueError(
                "clip_norm=inf with noise_multiplier > 0 would add infinite noise; "
                "use a finite clip_norm (or noise_multiplier=0, not private).")
        return q, sigma, n_steps

    def _n_averaged(self, n_steps):
        """How many final iterates ``average`` averages (0: the last iterate alone)."""
        if self.average is False or self.average is np.False_:
            return 0
        frac = 1.0 if self.average is True or self.average is np.True_ else float(
            self.average)
        return max(1, math.ceil(frac * n_steps))

    def _layers(self, n_outputs):
        if self.model == "linear":
            return [Dense(n_outputs)]
        sizes = self.hidden_layer_sizes
        sizes = [sizes] if isinstance(sizes, numbers.Integral) else list(sizes)
        if not sizes or any(
            isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 1
            for s in sizes
        ):
            raise ValueError(
                f"hidden_layer_sizes must be positive ints; got {self.hidden_layer_sizes!r}.")
        layers = []
        for s in sizes:
            layers += [Dense(int(s)), Activation(self.activation)]
        return layers + [Dense(n_outputs)]

    # ------------------------------------------------------------- training

    def _check_magnitude(self, X):
        """ValueError for features that fixed steps and an absolute clip norm cannot fit.

        At X * 1e300 every per-example gradient is clipped and the steps are
        negligible against x; at X * 1e-300 the weight gradients vanish; at
        X + 1e8 fixed steps cannot cancel the offset. Rescaling or centring X
        from the data would spend privacy, so such data are refused (like
        NaN: a check of the input, outside the guarantee of a fit that
        returns) and the user standardises with public or private statistics.
        """
        check_trainable_magnitude(
            X, "DP-SGD", what="fixed steps and absolute clip_norm",
            advice="Scale the features first (with public bounds, or statistics "
                   "computed privately).")

    def _train(self, X, Y, out_activation):
        self._check_magnitude(X)
        X = np.ascontiguousarray(X)
        n, d = X.shape
        q, sigma, n_steps = self._check_privacy_params(n)
        rng = _rng(self.random_state)
        init_rng = rng if self.model == "mlp" else None  # linear: start at zero
        net = Sequential(self._layers(Y.shape[1]), (d,), rng=init_rng)
        # Canonical links: every loss's per-example gradient in z is g(z) - y.
        out_fn = OUTPUTS[out_activation][1]
        opt = get_optimizer(self.optimizer, learning_rate=self.learning_rate)
        expected_lot = q * n
        C = float(self.clip_norm)
        grad = np.empty_like(net.grad)
        w, n_dec = net.theta, net.n_decayed
        alpha = float(self.alpha)
        decay = np.empty(n_dec, dtype=grad.dtype) if alpha else None
        inv_lot = 1.0 / expected_lot
        noise_std = sigma * C
        net_grad = net.grad
        if self.model == "linear":
            # One fused numba pass per lot (forward, residual, closed-form
            # norm, clipped sums) into the net's gradient views.
            kind = _KERNEL_KIND[out_activation]
            lin_p, lin_g = net.params[0], net.grads[0]
            norms = np.empty(n)
        # Iterate averaging reads only the iterates (post-processing: no
        # privacy cost): the running mean of theta_t over t >= avg_start.
        avg_start = n_steps - self._n_averaged(n_steps)
        theta_avg = np.zeros_like(net.theta) if avg_start < n_steps else None
        for t, idx in enumerate(_poisson_lots(rng, n, q, n_steps)):
            # grad = (clipped sum + N(0, (sigma C)^2 I)) / L + alpha w
            if noise_std > 0:
                rng.standard_normal(out=grad)
                grad *= noise_std
            else:
                grad.fill(0.0)
            if idx.size:
                if self.model == "linear":
                    linear_clipped_sum(X, idx, lin_p["W"], lin_p["b"], Y, kind, C,
                                       lin_g["W"], lin_g["b"], norms)
                else:
                    d_out = out_fn(net.forward(X[idx], training=True, rng=rng))
                    d_out -= Y[idx]
                    clipped_backward(net, d_out, C)
                grad += net_grad
            grad *= inv_lot
            if alpha:
                np.multiply(w[:n_dec], alpha, out=decay)
                grad[:n_dec] += decay
            opt.step(net.theta, grad)
            if t >= avg_start:
                theta_avg += (net.theta - theta_avg) / (t - avg_start + 1)
        if theta_avg is not None:
            net.theta[...] = theta_avg
        if not np.all(np.isfinite(net.theta)):
            raise ValueError(
                "DP-SGD diverged (non-finite parameters); lower learning_rate or "
                "clip_norm, or standardise X.")
        self._net = net
        self.coefs_ = [p["W"].copy() for p in net.params if "W" in p]
        self.intercepts_ = [p["b"].copy() for p in net.params if "b" in p]
        self.sampling_rate_ = q
        self.noise_multiplier_ = sigma
        self.n_steps_ = n_steps
        self.delta_ = float(self.delta)
        self.out_activation_ = out_activation
        if sigma == 0:
            self.epsilon_ = np.inf
        else:
            rdp = compute_rdp(q, sigma, n_steps, DEFAULT_ORDERS)
            self.epsilon_ = rdp_to_epsilon(DEFAULT_ORDERS, rdp, self.delta)[0]
        return self

    def _raw(self, X):
        check_is_fitted(self, "coefs_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._net.forward(X).astype(np.float64, copy=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.non_deterministic = False
        return tags


_DOC_PARAMS = """
    Parameters
    ----------
    model : {"linear", "mlp"}, default="linear"
        "linear": {linear_kind}; per-example gradient norms in closed form.
        "mlp": a multilayer perceptron of the network core, per-example norms
        by batched back-propagation (ghost norms).
    hidden_layer_sizes : tuple of int, default=(32,)
        For ``model="mlp"``.
    activation : {"relu", "tanh", "logistic", "identity"}, default="relu"
        For ``model="mlp"``.
    target_epsilon : float, default=None
        If given, the smallest noise multiplier whose training spends at most
        this ε (at ``delta``) is chosen; ``noise_multiplier`` must then be None.
    noise_multiplier : float, default=None
        σ: the noise std is σ·C. None means 1.0 (unless ``target_epsilon``);
        0 trains without privacy (``epsilon_ = inf``).
    delta : float, default=1e-5
        δ of the reported (ε, δ) guarantee, in (0, 1); keep it below 1/n.
    clip_norm : float, default=1.0
        C, the ℓ2 bound of each per-example gradient (inf: no clipping, only
        with ``noise_multiplier=0``).
    lot_size : int, default=64
        Expected lot size L; the sampling rate is q = min(1, L/n).
    sampling_rate : float, default=None
        q in (0, 1], overriding ``lot_size``.
    epochs : float, default=10
        Passes over the data: ``n_steps_ = ceil(epochs / q)``.
    optimizer : str, default="sgd"
        An optimiser of :mod:`skml.optim` (:data:`~skml.optim.OPTIMIZERS`).
    learning_rate : float, default=0.1
    alpha : float, default=1e-4
        L2 penalty on the weights (no privacy cost: it does not read data).
    average : bool or float in (0, 1], default=False
        Iterate averaging. False returns the last iterate; True the mean of
        all ``n_steps_`` iterates (Polyak-Ruppert); a float a the mean of the
        last ``ceil(a * n_steps_)`` (tail averaging; 0.5 is a common choice).
        Post-processing of the noisy iterates: ``epsilon_`` is unchanged. It
        removes much of the noise around the fixed point; it does not remove
        the bias of clipping (a finite ``clip_norm`` changes the fixed point).
    random_state : None, int, RandomState or Generator, default=None
        Lots, noise and initial weights.

    Attributes
    ----------
    epsilon_ : float
        ε spent (RDP accountant, at ``delta_``); inf without noise.
    delta_ : float
    noise_multiplier_ : float
        σ used.
    sampling_rate_ : float
        q used.
    n_steps_ : int
        Steps taken: :func:`~skml.privacy.compute_rdp` with
        ``(sampling_rate_, noise_multiplier_, n_steps_)`` re-checks the spend.
    coefs_, intercepts_ : list of ndarray
        Weights and intercepts of each dense layer.
    n_features_in_ : int
"""


class DPSGDClassifier(ClassifierMixin, _BaseDPSGD):
    __doc__ = r"""Classifier trained by DP-SGD, (ε, δ)-differentially private (notes B §13.5).

    Logistic regression (two classes), softmax regression (more) or an MLP,
    trained by Poisson-sampled lots, per-example gradient clipping and
    Gaussian noise; the RDP accountant reports ``epsilon_``. Standardise X
    (and keep the scaler's statistics public or private) so one ``clip_norm``
    fits every feature.
""" + _DOC_PARAMS.replace("{linear_kind}", "logistic regression (2 classes) or softmax "
                          "regression") + r"""
    classes_ : ndarray of shape (n_classes,)

    See Also
    --------
    DPSGDRegressor, RDPAccountant

    Notes
    -----
    Time per step O(L · n_params); memory O(L · widest layer). Per-example
    gradients are never formed: their norms come from
    :math:`\|a_i\|^2\|\delta_i\|^2` per dense layer.

    References
    ----------
    Abadi et al., "Deep Learning with Differential Privacy", CCS 2016.
    Mironov, Talwar & Zhang, "Rényi Differential Privacy of the Sampled
    Gaussian Mechanism", 2019.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skml.privacy import DPSGDClassifier
    >>> X, y = make_classification(2000, 5, random_state=0)
    >>> clf = DPSGDClassifier(target_epsilon=1.0, epochs=5, random_state=0).fit(X, y)
    >>> bool(clf.epsilon_ <= 1.0), bool(clf.score(X, y) > 0.8)
    (True, True)
    """

    def fit(self, X, y):
        """Train on ``(X, y)`` with DP-SGD; returns ``self``."""
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_enc = encode_labels(y, min_classes=1)
        k = len(self.classes_)
        if k <= 2:
            Y = (y_enc == 1).astype(np.float64)[:, None]
            out = "logistic"
        else:
            Y = np.zeros((len(y_enc), k))
            Y[np.arange(len(y_enc)), y_enc] = 1.0
            out = "softmax"
        return self._train(X, Y, out)

    def decision_function(self, X):
        """Raw scores: the logit (two classes) or the logits per class."""
        Z = self._raw(X)
        return Z[:, 0] if Z.shape[1] == 1 else Z

    def predict_proba(self, X):
        """Class probabilities."""
        Z = self._raw(X)
        P = OUTPUTS[self.out_activation_][1](Z)
        if Z.shape[1] == 1:
            P = np.hstack([1.0 - P, P])
            if len(self.classes_) == 1:
                P = np.ones((Z.shape[0], 1))
        return P

    def predict_log_proba(self, X):
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Most probable class."""
        P = self.predict_proba(X)
        return self.classes_[np.argmax(P, axis=1)]


class DPSGDRegressor(RegressorMixin, _BaseDPSGD):
    __doc__ = r"""Regressor trained by DP-SGD, (ε, δ)-differentially private (notes B §13.5).

    Least squares (half squared error) for a linear model or an MLP, trained
    by Poisson-sampled lots, per-example clipping and Gaussian noise; the RDP
    accountant reports ``epsilon_``. Standardise X and y: the clip norm bounds
    the residual times the feature norm.
""" + _DOC_PARAMS.replace("{linear_kind}", "linear least squares") + r"""
    See Also
    --------
    DPSGDClassifier, RDPAccountant

    Examples
    --------
    >>> import numpy as np
    >>> from skml.privacy import DPSGDRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(3000, 3))
    >>> y = X @ [0.5, -0.3, 0.2] + 0.1 * rng.normal(size=3000)
    >>> reg = DPSGDRegressor(target_epsilon=2.0, epochs=5, random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.8)
    True
    """

    def fit(self, X, y):
        """Train on ``(X, y)`` with DP-SGD; returns ``self``."""
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True,
                             multi_output=True)
        self._y_1d = y.ndim == 1
        Y = y.reshape(len(y), -1).astype(np.float64)
        return self._train(X, Y, "identity")

    def predict(self, X):
        """Predicted targets."""
        Z = self._raw(X)
        return Z[:, 0] if self._y_1d else Z

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
