r"""Generative adversarial networks (notes B §7.7), on the network core.

The optimal discriminator and the value of the game at it are functions of
two densities; :class:`GAN` trains a generator and a discriminator of the
core (:class:`~skml.neural_network._modules.Sequential`, the core's
``logistic_loss`` and ``loss_gradient``, :mod:`skml.optim`'s Adam) by
alternating updates.
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import xlogy
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..contrastive._network import FrozenNetwork
from ..contrastive._scaling import fit_input, layer_sizes
from ..neural_network._activations import ACTIVATIONS
from ..neural_network._losses import logistic_loss
from ..neural_network._modules import Activation, Dense, Sequential
from ..neural_network._training import check_finite_parameters, loss_gradient
from ..optim import Adam
from ..utils import Interval, Options
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils.validation import validate_data

__all__ = ["GAN", "gan_value_at_optimum", "optimal_discriminator"]


def _check_densities(p_data, p_g):
    p_data = np.asarray(p_data, dtype=np.float64)
    p_g = np.asarray(p_g, dtype=np.float64)
    if p_data.shape != p_g.shape:
        raise ValueError(f"p_data and p_g must have the same shape (values at the same "
                         f"points); got {p_data.shape} and {p_g.shape}.")
    for p, name in ((p_data, "p_data"), (p_g, "p_g")):
        if p.size == 0:
            raise ValueError(f"{name} is empty.")
        if not np.all(np.isfinite(p)):
            raise ValueError(f"{name} contains NaN or infinity.")
        if np.any(p < 0):
            raise ValueError(f"{name} must be non-negative (a density or "
                             "probabilities).")
    return p_data, p_g


def optimal_discriminator(p_data, p_g):
    r"""The discriminator that maximises :math:`V(G, D)` for a fixed generator.

    .. math:: D^*(x) = \frac{p_{data}(x)}{p_{data}(x) + p_g(x)}

    (notes B §7.7). Where both densities are zero, :math:`D^*` does not
    enter the value of the game; 1/2 is returned there.

    Parameters
    ----------
    p_data, p_g : array-like of the same shape
        Non-negative values of the data density and the generator's density
        at the same points.

    Returns
    -------
    D : ndarray of that shape
        Values in [0, 1].

    Examples
    --------
    >>> from skml.generative import optimal_discriminator
    >>> optimal_discriminator([0.75, 0.5, 0.0], [0.25, 0.5, 1.0]).tolist()
    [0.75, 0.5, 0.0]
    """
    p_data, p_g = _check_densities(p_data, p_g)
    total = p_data + p_g
    return np.where(total > 0, p_data / np.where(total > 0, total, 1.0), 0.5)


def gan_value_at_optimum(p_data, p_g, dx=None):
    r"""The value of the game at the optimal discriminator, :math:`V(G, D^*)`.

    .. math::

        V(G, D^*) = \mathbb E_{p_{data}} \log D^*(x)
                  + \mathbb E_{p_g} \log(1 - D^*(x))
                  = -\log 4 + 2\,\mathrm{JSD}(p_{data} \,\|\, p_g)

    (notes B §7.7), computed from the first form (with :math:`0 \log 0 = 0`):
    its minimum over generators, :math:`-\log 4 \approx -1.386294`, is
    reached exactly at :math:`p_g = p_{data}`.

    Parameters
    ----------
    p_data, p_g : array-like of the same shape
        Probability mass functions on the same points (each summing to 1),
        or, with ``dx``, density values on a grid.
    dx : float or array-like, default=None
        Cell volumes of the grid (the quadrature weights of the expectations);
        None for probability mass functions.

    Returns
    -------
    value : float

    Examples
    --------
    >>> from skml.generative import gan_value_at_optimum
    >>> round(gan_value_at_optimum([0.5, 0.5], [0.5, 0.5]), 6)
    -1.386294
    >>> round(gan_value_at_optimum([1.0, 0.0], [0.0, 1.0]), 6)  # disjoint: JSD = log 2
    0.0
    """
    p_data, p_g = _check_densities(p_data, p_g)
    if dx is None:
        for p, name in ((p_data, "p_data"), (p_g, "p_g")):
            if not np.isclose(p.sum(), 1.0, rtol=1e-6, atol=0.0):
                raise ValueError(
                    f"{name} sums to {p.sum():.6g}, not 1: pass probability mass "
                    "functions, or densities on a grid with its cell volumes dx.")
        w = 1.0
    else:
        w = np.asarray(dx, dtype=np.float64)
        if not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError("dx must hold finite cell volumes > 0.")
        w = np.broadcast_to(w, p_data.shape)
    total = p_data + p_g
    # log D* = log p_data - log(p_data + p_g), and log(1 - D*) likewise; xlogy
    # gives 0 log 0 = 0 outside each support.
    value = (xlogy(p_data, p_data) + xlogy(p_g, p_g) - xlogy(total, total)) * w
    return float(np.sum(value))


def _mlp(hidden, out, activation, in_dim, rng):
    layers = []
    for h in hidden:
        layers += [Dense(h), Activation(activation, slope=0.2)]
    layers.append(Dense(out))
    return Sequential(layers, (in_dim,), rng=rng)


def _generator_step_gradient(G, D, Z, minimax, alpha=0.0):
    r"""The generator's loss on the latent batch ``Z``; its gradient left in ``G.grad``.

    ``minimax``: :math:`\mathbb E \log(1 - D(G(z))) = -\mathbb E\,
    \mathrm{softplus}(a)` with :math:`a` the discriminator's logit, minus the
    core's logistic loss against label 0; otherwise the non-saturating
    :math:`-\mathbb E \log D(G(z))`, the logistic loss against label 1. The
    gradient is carried back through ``D`` (whose own gradient, also
    written, is discarded) into ``G``; plus the core's L2 term
    :math:`\alpha \|W\|^2 / (2m)` on ``G``'s weights.
    """
    m = Z.shape[0]
    logits = D.forward(G.forward(Z, True), True)
    if minimax:
        value, d_logits = logistic_loss(logits, np.zeros((m, 1)))
        value, d_logits = -value, -d_logits
    else:
        value, d_logits = logistic_loss(logits, np.ones((m, 1)))
    G.backward(D.backward(d_logits, input_grad=True))
    if alpha:
        w = G.theta[:G.n_decayed]
        G.grad[:G.n_decayed] += (alpha / m) * w
        value += 0.5 * alpha * float(w @ w) / m
    return value


@fill_doc(**{"fitted features": FITTED_FEATURE_ATTRIBUTES})
class GAN(BaseEstimator):
    r"""Generative adversarial network: generator against discriminator (notes B §7.7).

    The generator :math:`G` maps latent draws :math:`z \sim N(0, I)` to data
    points; the discriminator :math:`D` returns the probability that a point
    is data. They play the game

    .. math::

        \min_G \max_D\; V(G, D) = \mathbb E_{x \sim p_{data}} \log D(x)
            + \mathbb E_{z \sim N(0, I)} \log\big(1 - D(G(z))\big),

    trained by alternating mini-batch steps: ``discriminator_steps`` (the
    notes' :math:`k`) ascent steps of :math:`D` on a real batch and as many
    generated points (the notes' "min of the 1/2-weighted log loss"), then
    one descent step of :math:`G` on a fresh latent batch, its gradient passed
    back through :math:`D` to :math:`G`'s parameters. ``generator_loss``
    chooses :math:`G`'s objective: the notes' ``"minimax"``
    :math:`\mathbb E \log(1 - D(G(z)))`, whose gradient vanishes while
    :math:`D` rejects the fakes, or Goodfellow et al.'s ``"non_saturating"``
    :math:`-\mathbb E \log D(G(z))`, which has the same fixed point.

    For a fixed :math:`G` the best discriminator is
    :math:`D^* = p_{data} / (p_{data} + p_g)` and
    :math:`V(G, D^*) = -\log 4 + 2\,\mathrm{JSD}(p_{data} \| p_g)`
    (:func:`optimal_discriminator`, :func:`gan_value_at_optimum`), so
    ``value_curve_`` tends to :math:`-\log 4` as :math:`D` stops telling the
    samples apart.

    Both networks are multilayer perceptrons of the network core (dense
    layers, ``activation`` hidden layers, a linear output: :math:`G`'s output
    is a point, :math:`D`'s a logit fed to the core's logistic loss), updated
    by :mod:`skml.optim`'s Adam; the alternating loop is written once here.

    Parameters
    ----------
    latent_dim : int, default=None
        Dimension of :math:`z`; None takes the number of (non-constant)
        features of the data.
    generator_layer_sizes : array-like of int, default=(64, 64)
        Hidden widths of :math:`G`.
    discriminator_layer_sizes : array-like of int, default=(64, 64)
        Hidden widths of :math:`D`.
    activation : str, default="leaky_relu"
        Of both networks' hidden layers (leaky ReLU with slope 0.2, "relu",
        "tanh", "logistic" or "identity").
    generator_loss : {"non_saturating", "minimax"}, default="non_saturating"
        :math:`G`'s objective, above.
    discriminator_steps : int, default=1
        Discriminator steps :math:`k` per generator step.
    batch_size : int, default=64
        Real rows per discriminator step (as many generated ones), and latent
        draws per generator step; clipped to the data.
    max_iter : int, default=200
        Epochs: passes of the discriminator over the data (an epoch has
        ``ceil(n / batch_size)`` discriminator steps). There is no stopping
        rule: the losses of a game do not settle to a minimum.
    learning_rate_init : float, default=1e-3
        Adam's step size, for both networks.
    beta_1 : float, default=0.5
        Adam's first-moment decay (0.5, as DCGAN, damps the oscillation of
        the game).
    alpha : float, default=0.0
        L2 penalty on both networks' dense weights.
    averaging : float, default=0.99
        Decay :math:`\beta` of the exponential moving average of the
        generator's weights over its steps (debiased as Adam's moments); the
        fitted generator is the average (Yazici et al. 2019), which damps the
        oscillation of the game. 0 keeps the last iterate. On moons (500
        points, 100 epochs, three seeds) the energy distance of the samples to
        held-out data fell from 0.008-0.023 to 0.005-0.010.
    random_state : int, RandomState instance or None, default=None
        Initial weights, shuffling, latent draws and ``sample``.
    verbose : bool, default=False
        One line per epoch.

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (`n_features_in_`,)
        The networks see ``(X - mean_) / scale_``; constant features are not
        modelled (``sample`` returns their value).
    latent_dim_ : int
    generator_, discriminator_ : FrozenNetwork
        The trained networks of the core (layers and flat parameters);
        None when no feature varies.
    discriminator_loss_curve_ : list of float
        Per epoch, the mean discriminator loss (the 1/2-weighted log loss
        over real and generated rows) before each of its steps.
    generator_loss_curve_ : list of float
        Per epoch, the mean generator loss (``generator_loss``'s objective).
    value_curve_ : list of float
        Per epoch, the mean batch estimate of :math:`V(G, D)`, equal to
        ``-2 * discriminator_loss_curve_``; :math:`-\log 4 \approx -1.386` when
        :math:`D` cannot tell data from samples.
    n_iter_ : int
        Epochs run.
    <fitted features>

    See Also
    --------
    RectifiedFlow : A generative model trained by regression, without a game.
    skml.mixture.GaussianMixture : The classical density model of the benchmark.

    Notes
    -----
    One epoch costs ``(1 + 1 / discriminator_steps)`` forward and backward
    passes of both networks per data row. A GAN may collapse onto some modes
    or oscillate; the benchmark (``benchmarks/generative.py``) measures its
    samples against held-out data beside the rectified flow and a Gaussian
    mixture.

    References
    ----------
    Goodfellow et al., "Generative Adversarial Nets", NeurIPS 2014.
    Yazici et al., "The Unusual Effectiveness of Averaging in GAN Training",
    ICLR 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.generative import GAN
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 2) + 3.0
    >>> gan = GAN(max_iter=5, random_state=0).fit(X)
    >>> gan.sample(4).shape
    (4, 2)
    """

    _parameter_constraints = {
        "latent_dim": [None, Interval(Integral, 1, None, closed="left")],
        "generator_layer_sizes": ["array-like"],
        "discriminator_layer_sizes": ["array-like"],
        "activation": [Options(set(ACTIVATIONS))],
        "generator_loss": [Options({"non_saturating", "minimax"})],
        "discriminator_steps": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate_init": [Interval(Real, 0, None, closed="neither")],
        "beta_1": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "averaging": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, latent_dim=None, *, generator_layer_sizes=(64, 64),
                 discriminator_layer_sizes=(64, 64), activation="leaky_relu",
                 generator_loss="non_saturating", discriminator_steps=1, batch_size=64,
                 max_iter=200, learning_rate_init=1e-3, beta_1=0.5, alpha=0.0,
                 averaging=0.99, random_state=None, verbose=False):
        self.latent_dim = latent_dim
        self.generator_layer_sizes = generator_layer_sizes
        self.discriminator_layer_sizes = discriminator_layer_sizes
        self.activation = activation
        self.generator_loss = generator_loss
        self.discriminator_steps = discriminator_steps
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.learning_rate_init = learning_rate_init
        self.beta_1 = beta_1
        self.alpha = alpha
        self.averaging = averaging
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Train the generator and the discriminator on ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Draws of the data distribution.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        X, varies = fit_input(self, X)
        g_hidden = layer_sizes(self.generator_layer_sizes, "generator_layer_sizes")
        d_hidden = layer_sizes(self.discriminator_layer_sizes,
                               "discriminator_layer_sizes")
        n = X.shape[0]
        rng = check_random_state(self.random_state)
        cols = self._columns = np.flatnonzero(varies)
        d = cols.size
        self.latent_dim_ = (int(self.latent_dim) if self.latent_dim is not None
                            else max(d, 1))
        self.discriminator_loss_curve_, self.generator_loss_curve_ = [], []
        self.value_curve_ = []
        self.generator_ = self.discriminator_ = None
        self.n_iter_ = 0
        if d == 0:
            return self  # the data is one point: sample returns it
        Y = (X[:, cols] - self.mean_[cols]) / self.scale_[cols]
        G = _mlp(g_hidden, d, self.activation, self.latent_dim_, rng)
        D = _mlp(d_hidden, 1, self.activation, d, rng)
        average = self._train(G, D, Y, rng)
        if average is not None:
            G.theta[:] = average
        check_finite_parameters(G)
        check_finite_parameters(D)
        self.generator_, self.discriminator_ = FrozenNetwork(G), FrozenNetwork(D)
        return self

    def _train(self, G, D, Y, rng):
        """The alternating loop: ``k`` discriminator steps, then one generator step."""
        n, d = Y.shape
        m = min(int(self.batch_size), n)
        k = int(self.discriminator_steps)
        alpha = float(self.alpha)
        opt_g = Adam(self.learning_rate_init, beta1=self.beta_1)
        opt_d = Adam(self.learning_rate_init, beta1=self.beta_1)
        latent = self.latent_dim_
        minimax = self.generator_loss == "minimax"
        # Real rows then generated ones; labels 1 then 0 (fixed for full batches).
        Xd = np.empty((2 * m, d))
        labels = np.zeros((2 * m, 1))
        beta = float(self.averaging)
        # Exponential moving average of G's weights over its steps, debiased
        # as Adam's moments (the weight of the initial point is removed).
        average = np.zeros_like(G.theta) if beta else None
        g_steps = 0
        step = 0
        for epoch in range(1, int(self.max_iter) + 1):
            order = rng.permutation(n)
            d_losses, g_losses = [], []
            for start in range(0, n, m):
                rows = order[start:start + m]
                b = rows.size
                # Discriminator: the 1/2-weighted log loss of b real and b
                # generated rows (the notes' D1), i.e. -V(G, D) / 2.
                Z = rng.standard_normal((b, latent))
                Xb = Xd[:2 * b]
                Xb[:b] = Y[rows]
                Xb[b:] = G.forward(Z)
                lab = labels[:2 * b]
                lab[:b], lab[b:] = 1.0, 0.0
                d_losses.append(loss_gradient(D, Xb, lab, logistic_loss, alpha=alpha))
                opt_d.step(D.theta, D.grad)
                step += 1
                if step % k:
                    continue
                # Generator: its loss on D's logits, the gradient carried back
                # through D (D's own gradient is discarded) into G.
                Z = rng.standard_normal((m, latent))
                g_losses.append(_generator_step_gradient(G, D, Z, minimax, alpha))
                opt_g.step(G.theta, G.grad)
                g_steps += 1
                if average is not None:
                    average *= beta
                    average += (1.0 - beta) * G.theta
            self.discriminator_loss_curve_.append(float(np.mean(d_losses)))
            self.value_curve_.append(-2.0 * self.discriminator_loss_curve_[-1])
            self.generator_loss_curve_.append(float(np.mean(g_losses)) if g_losses
                                              else float("nan"))
            self.n_iter_ = epoch
            if self.verbose:
                print(f"Iteration {epoch}, discriminator loss = "
                      f"{self.discriminator_loss_curve_[-1]:.8f}, generator loss = "
                      f"{self.generator_loss_curve_[-1]:.8f}")
            if not (np.isfinite(self.discriminator_loss_curve_[-1])
                    and np.isfinite(G.theta).all()):
                break  # diverged: check_finite_parameters raises in fit
        if average is None or g_steps == 0:
            return None
        return average / (1.0 - beta ** g_steps)

    def _std(self, X):
        cols = self._columns
        return (X[:, cols] - self.mean_[cols]) / self.scale_[cols]

    def sample(self, n_samples=1):
        """Draw from the generator: :math:`G(z)` for :math:`z \\sim N(0, I)`.

        Parameters
        ----------
        n_samples : int, default=1

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            In data units. The same draws for the same ``random_state`` (as
            ``GaussianMixture.sample``).
        """
        check_is_fitted(self)
        if (not isinstance(n_samples, (Integral, np.integer))
                or isinstance(n_samples, bool) or n_samples < 1):
            raise ValueError(f"n_samples must be an int >= 1; got {n_samples!r}.")
        rng = check_random_state(self.random_state)
        out = np.tile(self.mean_, (int(n_samples), 1))
        if self.generator_ is not None:
            Z = rng.standard_normal((int(n_samples), self.latent_dim_))
            cols = self._columns
            out[:, cols] = (self.generator_.forward(Z) * self.scale_[cols]
                            + self.mean_[cols])
        return out

    def score_samples(self, X):
        r"""The discriminator's logit :math:`\log(D(x) / (1 - D(x)))`.

        At the optimal discriminator it is :math:`\log(p_{data}(x) / p_g(x))`:
        positive where the data is denser than the generator's samples. Zero
        everywhere when no feature of the training data varies.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        logit : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.discriminator_ is None:
            return np.zeros(X.shape[0])
        return self.discriminator_.forward(self._std(X))[:, 0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags
