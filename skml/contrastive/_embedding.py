"""SimCLR embeddings of unlabelled vectors (notes A §8.1), on the network core."""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..neural_network._activations import ACTIVATIONS
from ..neural_network._modules import Activation, Dense, Sequential
from ..neural_network._training import check_finite_parameters, train
from ..optim import Adam, PlateauStopper
from ..utils import Interval, Options
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES, SELF_RETURNS,
                                 X_SAMPLES, UNSUPERVISED_X, fill_doc)
from ._augment import jitter_mask, random_shift
from ._losses import _nt_xent
from ._network import FrozenNetwork
from ._scaling import TRAINING_CONSTRAINTS, fit_input, hidden_layers, layer_sizes
from ..utils.validation import validate_data

__all__ = ["ContrastiveEmbedding"]

_AUGMENTS = {"jitter_mask": jitter_mask, "random_shift": random_shift}


@fill_doc(**{"fitted features": FITTED_FEATURE_ATTRIBUTES})
class ContrastiveEmbedding(ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                           BaseEstimator):
    r"""Encoder trained by SimCLR's contrastive algorithm (notes A §8.1).

    Each mini-batch of ``N`` rows is augmented twice by ``augment``; the
    ``2N`` views go through the encoder :math:`f` (a multilayer perceptron
    ending in a linear layer of ``n_components`` units) and the projection
    head :math:`g` (Dense, ReLU, Dense of ``projection_dim`` units), and the
    NT-Xent loss of the projections (:func:`nt_xent_loss`, cosine similarity
    over temperature, the positive in the denominator, self excluded) is
    minimised by Adam. ``transform`` returns the encoder's output :math:`f(x)`,
    never the head's (the notes: "return f and discard g").

    The network is the core's :class:`~skml.neural_network` ``Sequential``
    and the loop its ``train``: the two views are built by a batch hook, the
    loss returns the gradient with respect to both views' projections.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the embedding (the encoder's output).
    projection_dim : int, default=32
        Width of the projection head's output, where the loss is computed.
    hidden_layer_sizes : array-like of int, default=(64,)
        Hidden widths of the encoder.
    activation : str, default="relu"
        Of the encoder's hidden layers: "relu", "tanh", "logistic",
        "leaky_relu" or "identity".
    augment : {"jitter_mask", "random_shift"} or callable, default="jitter_mask"
        ``augment(X_batch, rng) -> X_view`` of the same shape, applied to the
        raw rows (``rng`` a numpy Generator): :func:`jitter_mask` (Gaussian
        jitter plus feature masking) for tabular data, :func:`random_shift`
        (one-pixel translations) for small square images such as digits, or
        any callable.
    temperature : float, default=0.5
        :math:`\tau > 0` of NT-Xent.
    batch_size : int, default=256
        Rows per batch (``2 batch_size`` views); clipped to the data.
    max_iter : int, default=100
        Epochs.
    learning_rate_init : float, default=1e-3
        Adam's step size.
    alpha : float, default=1e-4
        L2 penalty on the dense weights.
    layer_norm : bool, default=False
        Layer normalisation (notes B §7.4) before each hidden activation.
    standardize : {"feature", "global"}, default="feature"
        The network's input is ``(X - mean_) / scale_``: ``"feature"``
        divides each feature by its own standard deviation (features in
        different units); ``"global"`` divides all of them by one number, the
        root mean square of their standard deviations, which keeps their
        relative spreads, as PCA does (pixels of images: on digits at 16
        dimensions the probe rose from 0.944 to 0.948 with a 256-unit encoder,
        0.969 with 512 units; benchmarks/generative.py).
    tol : float, default=1e-4
        Stop when the epoch loss has not fallen by ``tol`` for
        ``n_iter_no_change`` epochs.
    n_iter_no_change : int, default=10
    random_state : int, RandomState instance or None, default=None
        Initial weights, shuffling and augmentations.
    verbose : bool, default=False

    Attributes
    ----------
    mean_, scale_ : ndarray of shape (`n_features_in_`,)
        The network sees ``(X - mean_) / scale_`` (after augmenting raw rows),
        without the constant features (no information, left out);
        ``scale_`` is one value for all the varying features with
        ``standardize="global"``.
    network_ : FrozenNetwork
        The trained network of the core (its layers and flat ``theta``): the
        encoder's layers, then the projection head's.
    loss_curve_ : list of float
        NT-Xent per epoch.
    n_iter_ : int
        Epochs run.
    <fitted features>

    See Also
    --------
    nt_xent_loss : The loss.
    skml.decomposition.PCA : The linear baseline of the benchmark.

    Notes
    -----
    One epoch costs :math:`O(n\,(d h + h k + k p + p^2))` for the network
    and :math:`O(n\,B\,p)` for the loss (the :math:`2B \times 2B` similarity
    matrix of each batch of :math:`B` rows). The standardisation makes the
    fit invariant to a per-feature change of units. NT-Xent is computed in
    float64.

    References
    ----------
    Chen, Kornblith, Norouzi and Hinton, "A Simple Framework for Contrastive
    Learning of Visual Representations", ICML 2020.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.contrastive import ContrastiveEmbedding
    >>> X, _ = load_iris(return_X_y=True)
    >>> emb = ContrastiveEmbedding(n_components=2, max_iter=5, random_state=0)
    >>> emb.fit_transform(X).shape
    (150, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "projection_dim": [Interval(Integral, 1, None, closed="left")],
        "hidden_layer_sizes": ["array-like"],
        "activation": [Options(set(ACTIVATIONS))],
        "augment": [Options(set(_AUGMENTS)), callable],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "layer_norm": ["boolean"],
        "standardize": [Options({"feature", "global"})],
        **TRAINING_CONSTRAINTS,
    }

    def __init__(self, n_components=2, *, projection_dim=32, hidden_layer_sizes=(64,),
                 activation="relu", augment="jitter_mask", temperature=0.5,
                 batch_size=256, max_iter=100, learning_rate_init=1e-3, alpha=1e-4,
                 layer_norm=False, standardize="feature", tol=1e-4, n_iter_no_change=10,
                 random_state=None, verbose=False):
        self.n_components = n_components
        self.projection_dim = projection_dim
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.augment = augment
        self.temperature = temperature
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.learning_rate_init = learning_rate_init
        self.alpha = alpha
        self.layer_norm = layer_norm
        self.standardize = standardize
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    @fill_doc(parameters=UNSUPERVISED_X, returns=SELF_RETURNS)
    def fit(self, X, y=None):
        """Train the encoder and the projection head on unlabelled ``X``.

        <parameters>

        <returns>
        """
        X, varies = fit_input(self, X)
        hidden = layer_sizes(self.hidden_layer_sizes)
        n = X.shape[0]
        rs = check_random_state(self.random_state)
        if self.standardize == "global" and varies.any():
            # One scale for all the (varying) features: their relative spreads
            # are kept, as PCA keeps them.
            # (The root mean square of the spreads, divided by the largest
            # first, so that X * 1e300 does not overflow.)
            top = self.scale_[varies].max()
            rms = top * np.sqrt(np.mean((self.scale_[varies] / top) ** 2))
            self.scale_ = np.where(varies, rms, self.scale_)
        # Augmentations see whole raw rows (an image needs all its pixels).
        cols = self._columns = np.flatnonzero(varies)
        layers = hidden_layers(hidden, self.activation, self.layer_norm)
        layers.append(Dense(self.n_components))
        self._n_encoder_layers = len(layers)
        layers += [Dense(self.projection_dim), Activation("relu"),
                   Dense(self.projection_dim)]
        net = Sequential(layers, (cols.size,), rng=rs)
        augment = (_AUGMENTS[self.augment] if isinstance(self.augment, str)
                   else self.augment)
        aug_rng = np.random.default_rng(rs.randint(np.iinfo(np.int32).max))
        mean, scale = self.mean_[cols], self.scale_[cols]

        def two_views(Xb, Yb, swb):
            views = []
            for _ in range(2):
                V = np.asarray(augment(Xb.copy(), aug_rng), dtype=np.float64)
                if V.shape != Xb.shape:
                    raise ValueError(
                        f"augment must return an array of the batch's shape "
                        f"{Xb.shape}; got {V.shape}.")
                views.append((V[:, cols] - mean) / scale)
            return np.vstack(views), Yb, swb

        tau = float(self.temperature)

        def loss(output, Yb, swb):
            half = output.shape[0] // 2
            value, d_a, d_b = _nt_xent(output[:half], output[half:], tau)
            return value, np.vstack([d_a, d_b])

        stopper = PlateauStopper(self.n_iter_no_change + 1, self.tol, mode="min")
        with warnings.catch_warnings():
            # A batch larger than the data is simply the whole data here.
            warnings.filterwarnings("ignore", message="batch_size=", category=UserWarning)
            log = train(net, X, np.zeros((n, 1)), loss, Adam(self.learning_rate_init),
                        epochs=self.max_iter, batch_size=min(self.batch_size, n),
                        alpha=float(self.alpha), rng=rs, stopper=stopper,
                        batch_hook=two_views, verbose=self.verbose)
        check_finite_parameters(net)
        self.network_ = FrozenNetwork(net)
        self.loss_curve_ = log.losses
        self.n_iter_ = log.n_epochs
        self._n_features_out = self.n_components
        return self

    @fill_doc(X=X_SAMPLES)
    def transform(self, X):
        """The encoder's output ``f(x)`` (not the projection head's).

        <X>

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        cols = self._columns
        return self.network_.forward((X[:, cols] - self.mean_[cols]) / self.scale_[cols],
                                     self._n_encoder_layers)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags
