"""Rectified flow with Reflow and Distill (notes A §13.1), on the network core."""

import warnings
from numbers import Integral

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin, clone
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
)

from ..contrastive._network import FrozenNetwork
from ..contrastive._scaling import (TRAINING_CONSTRAINTS, fit_input, hidden_layers,
                                    layer_sizes)
from ..neural_network._activations import ACTIVATIONS
from ..neural_network._losses import squared_loss
from ..neural_network._modules import Dense, Sequential
from ..neural_network._training import check_finite_parameters, train
from ..optim import Adam, PlateauStopper
from ..utils import Interval, Options
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils.validation import validate_data

__all__ = ["RectifiedFlow"]

# Rows of the coupling used for the straightness diagnostic (an average over
# paths: a thousand gives it to about 3% and bounds its cost).
_N_DIAGNOSTIC = 1000


class _Regressor:
    """Constraint: None or an object with ``fit`` and ``predict``."""

    def is_satisfied_by(self, value):
        return hasattr(value, "fit") and hasattr(value, "predict")

    def __str__(self):
        return "a regressor (an object with fit and predict)"


def _ot_pairing(X0, X1):
    """Re-pair the rows of ``X1`` to those of ``X0`` by exact OT of squared costs.

    The minibatch optimal-transport coupling of OT-CFM (torchcfm), solved by
    ``scipy.optimize.linear_sum_assignment`` (a permutation: equal weights).
    """
    cost = (np.einsum("ij,ij->i", X0, X0)[:, None] + np.einsum("ij,ij->i", X1, X1)[None, :]
            - 2.0 * (X0 @ X1.T))
    _, cols = linear_sum_assignment(cost)
    return X1[cols]


class _NetVelocity:
    """The default velocity model: the core's MLP on ``[x_t, t]``, trained."""

    def __init__(self, net):
        self.network = FrozenNetwork(net)

    def predict(self, F):
        return self.network.forward(F)


def _predict_velocity(model, Z, t):
    n, d = Z.shape
    F = np.empty((n, d + 1))
    F[:, :d] = Z
    F[:, d] = t
    return np.asarray(model.predict(F), dtype=np.float64).reshape(n, d)


def _euler(model, Z, n_steps, backward=False):
    """Euler steps of ``dZ/dt = v(Z, t)`` from t = 0 to 1 (or 1 to 0)."""
    Z = np.array(Z, dtype=np.float64, copy=True)
    dt = 1.0 / n_steps
    for k in range(n_steps):
        if backward:
            Z -= dt * _predict_velocity(model, Z, 1.0 - k * dt)
        else:
            Z += dt * _predict_velocity(model, Z, k * dt)
    return Z


def _straightness(model, Z0, n_steps):
    r""":math:`\int_0^1 E\|(Z_1 - Z_0) - v(Z_t, t)\|^2 dt` along the Euler path.

    Also returns the transport cost :math:`E\|Z_1 - Z_0\|^2` of the flow.
    """
    Z = np.array(Z0, dtype=np.float64, copy=True)
    dt = 1.0 / n_steps
    velocities = []
    for k in range(n_steps):
        v = _predict_velocity(model, Z, k * dt)
        velocities.append(v)
        Z += dt * v
    D = Z - Z0
    S = np.mean([np.mean(np.sum((D - v) ** 2, axis=1)) for v in velocities])
    return float(S), float(np.mean(np.sum(D ** 2, axis=1)))


@fill_doc(**{"fitted features": FITTED_FEATURE_ATTRIBUTES})
class RectifiedFlow(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Rectified flow: a straight-path ODE from a source to the data (notes A §13.1).

    Given draws of a coupling :math:`(X_0, X_1)` of a source :math:`\pi_0`
    and the data :math:`\pi_1`, the velocity field is fitted by least squares
    on the straight interpolant,

    .. math::

        \min_\theta\; \mathbb{E}\,\big\|(X_1 - X_0)
            - v_\theta(t X_1 + (1 - t) X_0,\, t)\big\|^2,
        \qquad t \sim U[0, 1],

    and the ODE :math:`dZ_t = v(Z_t, t)\,dt` is solved by Euler steps,
    forward from :math:`Z_0 \sim \pi_0` (``sample``, ``transform``) or
    backward from :math:`Z_1` (``inverse_transform``). **Reflow** refits the
    velocity on the deterministic pairs :math:`(Z_0, Z_1)` the flow produced,
    which straightens the paths; **Distill** fits a one-step map
    :math:`Z_1 \approx Z_0 + v(Z_0, 0)` on the last pairs.

    Beyond the notes, ``coupling="minibatch_ot"`` re-pairs each training
    batch by exact optimal transport (``scipy.optimize.linear_sum_assignment``),
    torchcfm's OT-CFM idea without POT: straighter paths without a reflow.

    The default velocity model is the network core's multilayer perceptron,
    trained by its one loop with a batch hook that draws a fresh ``t`` (and
    the OT pairing) for every batch; any regressor taking ``[x_t, t]`` and
    returning ``d`` outputs can replace it.

    Parameters
    ----------
    velocity : regressor or None, default=None
        None trains the core's MLP (``hidden_layer_sizes``, ``activation``,
        ...). Otherwise a clone is fitted on ``n_t_samples`` draws of ``t``
        per pair (features ``[x_t, t]``, target ``x_1 - x_0``; a 1-d target
        when the data has one feature).
    n_steps : int, default=100
        Euler steps of ``transform``, ``inverse_transform``, ``sample`` and
        of the reflow couplings.
    n_reflow : int, default=0
        Reflow rounds after the first flow.
    distill : bool, default=False
        Fit the one-step map on the last coupling; ``transform`` and
        ``sample`` then use it unless given ``n_steps``.
    source : {"gaussian", "uniform"}, default="gaussian"
        :math:`\pi_0` when ``fit`` gets no ``X0``: the notes' standard normal,
        or a uniform of unit variance, in standardised coordinates (below).
    coupling : {"independent", "minibatch_ot"}, default="independent"
        Of the first round: the rows of ``X0`` and ``X1`` paired as given
        (independent when ``X0`` is drawn), or re-paired by OT within each
        batch. Reflow rounds keep their deterministic pairs.
    hidden_layer_sizes : array-like of int, default=(64, 64)
        Of the default velocity network.
    activation : str, default="tanh"
        Of its hidden layers: "tanh" (a smooth one suits an ODE's vector
        field), "relu", "logistic", "leaky_relu" or "identity".
    layer_norm : bool, default=False
        Layer normalisation (notes B §7.4) before each hidden activation.
    n_t_samples : int, default=10
        Draws of ``t`` per pair: each epoch of the default network visits
        every pair ``n_t_samples`` times with fresh ``t``; a given regressor
        is fitted on that many draws per pair.
    batch_size : int, default=256
    max_iter : int, default=100
        Epochs of the default network per round.
    learning_rate_init : float, default=1e-3
        Adam's step size.
    alpha : float, default=0.0
        L2 penalty on the network's weights.
    tol : float, default=1e-4
    n_iter_no_change : int, default=10
        Stop a round when its epoch loss has not fallen by ``tol`` for that
        many epochs.
    random_state : int, RandomState instance or None, default=None
        Source draws, times, initial weights and shuffling.
    verbose : bool, default=False

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (`n_features_in_`,)
        The flow runs on ``(x - mean_) / scale_`` of the data ``X1`` (the
        same map for both ends, so straight paths stay straight); with the
        default source, :math:`\pi_0` is therefore a Gaussian with the data's
        mean and per-feature spread. A constant feature of ``X1`` is not
        modelled: ``transform`` and ``sample`` return its value there,
        ``inverse_transform`` the source's centre ``mean_``.
    velocity_ : list of regressor
        One fitted velocity model per round (``n_reflow + 1``), on
        standardised ``[x_t, t]``; the last one defines the flow.
    distilled_ : regressor or None
        The one-step model (``distill=True``).
    couplings_ : list of (ndarray, ndarray)
        The pairs ``(X0, X1)`` each round was trained on, in data units.
    straightness_ : ndarray of shape (n_reflow + 1,)
        :math:`\int_0^1 E\|(Z_1 - Z_0) - v(Z_t, t)\|^2 dt` of each round's
        flow along its Euler path (standardised units, up to 1000 source
        points): zero for straight paths.
    transport_cost_ : ndarray of shape (n_reflow + 1,)
        :math:`E\|Z_1 - Z_0\|^2` of each round's flow (standardised units).
    loss_curves_ : list of list of float
        Epoch losses of each round's network (empty lists for a given regressor).
    n_iter_ : int
        Epochs run over all rounds (one per round for a given regressor).
    <fitted features>

    See Also
    --------
    skml.mixture.GaussianMixture : The classical density model of the benchmark.

    Notes
    -----
    Training a round costs ``max_iter * n_t_samples * n`` rows through the
    network (or one fit of the regressor on ``n_t_samples * n`` rows); the
    minibatch OT coupling adds an :math:`O(B^3)` assignment per batch.
    ``transform`` costs ``n_steps`` forward passes. Euler's error is
    :math:`O(1/\text{n\_steps})` for curved paths and zero for straight ones,
    which is why reflow lets a few steps (or the distilled single step) do.

    References
    ----------
    Liu, Gong and Liu, "Flow Straight and Fast: Learning to Generate and
    Transfer Data with Rectified Flow", ICLR 2023.
    Tong et al., "Improving and generalizing flow-based generative models
    with minibatch optimal transport", TMLR 2024 (OT-CFM).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.generative import RectifiedFlow
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(300, 2) @ np.array([[1.0, 0.8], [0.0, 0.6]]) + 3.0
    >>> flow = RectifiedFlow(max_iter=20, n_steps=20, random_state=0).fit(X)
    >>> flow.sample(5).shape
    (5, 2)
    """

    _parameter_constraints = {
        "velocity": [None, _Regressor()],
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "n_reflow": [Interval(Integral, 0, None, closed="left")],
        "distill": ["boolean"],
        "source": [Options({"gaussian", "uniform"})],
        "coupling": [Options({"independent", "minibatch_ot"})],
        "hidden_layer_sizes": ["array-like"],
        "activation": [Options(set(ACTIVATIONS))],
        "layer_norm": ["boolean"],
        "n_t_samples": [Interval(Integral, 1, None, closed="left")],
        **TRAINING_CONSTRAINTS,
    }

    def __init__(self, velocity=None, *, n_steps=100, n_reflow=0, distill=False,
                 source="gaussian", coupling="independent", hidden_layer_sizes=(64, 64),
                 activation="tanh", layer_norm=False, n_t_samples=10, batch_size=256,
                 max_iter=100, learning_rate_init=1e-3, alpha=0.0, tol=1e-4,
                 n_iter_no_change=10, random_state=None, verbose=False):
        self.velocity = velocity
        self.n_steps = n_steps
        self.n_reflow = n_reflow
        self.distill = distill
        self.source = source
        self.coupling = coupling
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.layer_norm = layer_norm
        self.n_t_samples = n_t_samples
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.learning_rate_init = learning_rate_init
        self.alpha = alpha
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fit

    def fit(self, X, y=None, X0=None):
        """Learn the flow from the source to the distribution of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Draws of the target :math:`\\pi_1` (the notes' ``X1``).
        y : None
            Ignored (scikit-learn's signature: ``X0`` is a keyword so that
            ``fit(X, y)`` of generic code does not take labels for sources).
        X0 : array-like of shape (n_samples, n_features), default=None
            Source draws, row ``i`` paired with row ``i`` of ``X`` (a given
            coupling); None draws them from ``source``.

        Returns
        -------
        self : object
        """
        X1, varies = fit_input(self, X)
        hidden = layer_sizes(self.hidden_layer_sizes)
        n, d = X1.shape
        rng = check_random_state(self.random_state)
        # A constant feature of the data is not modelled (the flow's target
        # there is a point): transform and sample return it, and adding one
        # changes nothing else (not even the random draws).
        cols = self._columns = np.flatnonzero(varies)
        Y1 = self._to_std(X1)
        if X0 is None:
            Y0 = self._draw_source(n, rng)
            self._source_rows = None
        else:
            X0 = check_array(X0, dtype=np.float64, input_name="X0")
            if X0.shape[1] != d:
                raise ValueError(f"X0 has {X0.shape[1]} features but X1 has {d}: the "
                                 "source and the target must have the same width.")
            if X0.shape[0] != n:
                raise ValueError(f"X0 has {X0.shape[0]} rows but X1 has {n}: row i of "
                                 "X0 is paired with row i of X1.")
            Y0 = self._to_std(X0)
            self._source_rows = Y0
        self.velocity_, self.couplings_, self.loss_curves_ = [], [], []
        straight, cost = [], []
        diag = Y0[:_N_DIAGNOSTIC]
        previous = None
        for k in range(self.n_reflow + 1 if cols.size else 0):
            ot = k == 0 and self.coupling == "minibatch_ot"
            model, losses, previous = self._fit_velocity(Y0, Y1, hidden, rng, ot,
                                                         previous, zero_time=False)
            self.velocity_.append(model)
            self.loss_curves_.append(losses)
            self.couplings_.append((self._from_std(Y0), self._from_std(Y1)))
            s, c = _straightness(model, diag, self.n_steps)
            straight.append(s)
            cost.append(c)
            if k < self.n_reflow or self.distill:
                Y1 = _euler(model, Y0, self.n_steps)
        self.straightness_ = np.array(straight if cols.size else [0.0])
        self.n_iter_ = sum(max(len(losses), 1) for losses in self.loss_curves_)
        self.transport_cost_ = np.array(cost if cols.size else [0.0])
        self.distilled_ = None
        if self.distill and cols.size:
            self.distilled_, _, _ = self._fit_velocity(Y0, Y1, hidden, rng, False,
                                                       previous, zero_time=True)
        return self

    def _to_std(self, X):
        cols = self._columns
        return (X[:, cols] - self.mean_[cols]) / self.scale_[cols]

    def _from_std(self, Y):
        X = np.tile(self.mean_, (Y.shape[0], 1))
        cols = self._columns
        X[:, cols] = Y * self.scale_[cols] + self.mean_[cols]
        return X

    def _draw_source(self, n, rng):
        d = self._columns.size
        if self.source == "gaussian":
            return rng.standard_normal((n, d))
        return rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), (n, d))

    def _fit_velocity(self, Y0, Y1, hidden, rng, ot, previous, zero_time):
        """One round: a velocity model for the pairs ``(Y0, Y1)``.

        ``zero_time`` trains the distilled map (t = 0 only). ``previous`` is
        the last round's network, whose weights start this one (warm start).
        """
        n, d = Y0.shape
        reps = self.n_t_samples
        if self.velocity is not None:
            idx = np.tile(np.arange(n), 1 if zero_time else reps)
            A, B = Y0[idx], Y1[idx]
            if ot:
                order = rng.permutation(len(idx))
                A, B = A[order], B[order]
                for s in range(0, len(idx), self.batch_size):
                    B[s:s + self.batch_size] = _ot_pairing(A[s:s + self.batch_size],
                                                           B[s:s + self.batch_size])
            t = np.zeros((len(idx), 1)) if zero_time else rng.uniform(size=(len(idx), 1))
            F = np.hstack([t * B + (1 - t) * A, t])
            target = B - A
            model = clone(self.velocity).fit(F, target[:, 0] if d == 1 else target)
            return model, [], None

        layers = hidden_layers(hidden, self.activation, self.layer_norm)
        layers.append(Dense(d))
        net = Sequential(layers, (d + 1,), rng=rng)
        if previous is not None:
            net.theta[:] = previous.theta
        X_rep = np.tile(Y0, (reps, 1))
        Y_rep = np.tile(Y1, (reps, 1))

        def hook(A, B, sw):
            if ot:
                B = _ot_pairing(A, B)
            m = A.shape[0]
            t = np.zeros((m, 1)) if zero_time else rng.uniform(size=(m, 1))
            F = np.empty((m, d + 1))
            F[:, :d] = t * B + (1.0 - t) * A
            F[:, d:] = t
            return F, B - A, None

        stopper = PlateauStopper(self.n_iter_no_change + 1, self.tol, mode="min")
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="batch_size=", category=UserWarning)
            log = train(net, X_rep, Y_rep, squared_loss, Adam(self.learning_rate_init),
                        epochs=self.max_iter, batch_size=min(self.batch_size, len(X_rep)),
                        alpha=float(self.alpha), rng=rng, stopper=stopper,
                        batch_hook=hook, verbose=self.verbose)
        check_finite_parameters(net)
        return _NetVelocity(net), log.losses, net

    # ------------------------------------------------------------- the flow

    def _check_steps(self, n_steps):
        if n_steps is None:
            return None
        if (not isinstance(n_steps, (Integral, np.integer)) or isinstance(n_steps, bool)
                or n_steps < 1):
            raise ValueError(f"n_steps must be an int >= 1; got {n_steps!r}.")
        return int(n_steps)

    def _push(self, Y, n_steps):
        n_steps = self._check_steps(n_steps)
        if not self.velocity_:
            return Y  # no feature varies: nothing to move
        if self.distilled_ is not None and n_steps is None:
            return Y + _predict_velocity(self.distilled_, Y, 0.0)
        return _euler(self.velocity_[-1], Y, n_steps or self.n_steps)

    def transform(self, X, n_steps=None):
        """Push source points forward along the flow (t = 0 to 1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points of the source (``X0``), in data units.
        n_steps : int, default=None
            Euler steps; None uses ``n_steps`` (or the distilled one-step map
            when ``distill=True``).

        Returns
        -------
        X1 : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._from_std(self._push(self._to_std(X), n_steps))

    def inverse_transform(self, X, n_steps=None):
        """Pull target points back along the flow (t = 1 to 0, backward Euler).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points of the target (``X1``).
        n_steps : int, default=None
            Euler steps; None uses ``n_steps``.

        Returns
        -------
        X0 : ndarray of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n_steps = self._check_steps(n_steps) or self.n_steps
        Y = self._to_std(X)
        if self.velocity_:
            Y = _euler(self.velocity_[-1], Y, n_steps, backward=True)
        return self._from_std(Y)

    def sample(self, n_samples=1, n_steps=None):
        """Draw from the learnt distribution: source draws pushed forward.

        Parameters
        ----------
        n_samples : int, default=1
        n_steps : int, default=None
            As in :meth:`transform`.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            The same draws for the same ``random_state`` (as
            ``GaussianMixture.sample``). With a given ``X0``, the source
            draws are rows of ``X0`` taken with replacement.
        """
        check_is_fitted(self)
        if (not isinstance(n_samples, (Integral, np.integer)) or isinstance(n_samples, bool)
                or n_samples < 1):
            raise ValueError(f"n_samples must be an int >= 1; got {n_samples!r}.")
        rng = check_random_state(self.random_state)
        if self._source_rows is None:
            Y0 = self._draw_source(int(n_samples), rng)
        else:
            Y0 = self._source_rows[rng.randint(len(self._source_rows), size=n_samples)]
        return self._from_std(self._push(Y0, n_steps))
