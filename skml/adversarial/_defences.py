r"""Adversarial training and TRADES as meta-estimators (notes B §12.6-12.7).

Both train skml's :class:`~skml.neural_network.MLPClassifier` (a
:class:`~skml.linear_model.LogisticRegression` is trained as the network with
no hidden layer, which is the same model) by mini-batches through the one
training loop of the network core, :func:`skml.neural_network._training.train`:
its ``batch_hook`` replaces each batch by adversarial rows crafted on the
*current* parameters, and the loss is the network's own (adversarial
training) or the TRADES objective. The inner maximisation is the projected
loop of :mod:`._attacks`, with the input gradient from the network's
back-propagation (``Sequential.backward(..., input_grad=True)``).

Adversarial training (Madry et al., B §12.6):

.. math::

   \min_\theta \; \mathbb{E}_{(x, y)} \max_{\|x' - x\|_p \le \varepsilon}
     L(f_\theta(x'), y).

TRADES (Zhang et al., B §12.7, the multi-class KL form with
:math:`\beta = 1/\lambda`):

.. math::

   \min_\theta \; \mathbb{E}\Bigl[ L(f_\theta(x), y) + \beta
     \max_{\|x' - x\|_p \le \varepsilon}
     \mathrm{KL}\bigl(p_\theta(x) \,\|\, p_\theta(x')\bigr) \Bigr].
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.linear_model import LogisticRegression
from skml.neural_network import MLPClassifier
from skml.neural_network._multilayer_perceptron import _DTYPES
from skml.neural_network._training import check_finite_parameters, train
from skml.optim import EpochRate, InverseScaling
from skml.utils import Interval, Options, check_sample_weight, validate_params
from skml.utils._blas import blas_threads_for
from skml.utils._docstrings import (
    FIT_PARAMETERS,
    LABELS_RETURNS,
    PROBA_RETURNS,
    SELF_RETURNS,
    X_SAMPLES,
    fill_doc,
)

from ._attacks import _pgd_loop, _project, _random_start, _Scores
from ._oracle import _check_clip
from ..utils._magnitude import check_trainable_magnitude
from ..utils.validation import validate_data

__all__ = ["AdversarialTrainingClassifier", "TRADESClassifier", "trades_binary_loss",
           "trades_loss"]


def _log_softmax(Z):
    """Row-wise log-softmax; one column ``z`` means the logits ``[0, z]``."""
    if Z.shape[1] == 1:
        Z = np.hstack([np.zeros_like(Z), Z])
    shifted = Z - Z.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _kl_and_gradients(Z1, Z2):
    """``KL(softmax(Z1) || softmax(Z2))`` per row and its gradients in Z1, Z2."""
    L1, L2 = _log_softmax(Z1), _log_softmax(Z2)
    P1, P2 = np.exp(L1), np.exp(L2)
    R = L1 - L2
    kl = np.einsum("ij,ij->i", P1, R)
    d1 = P1 * (R - kl[:, None])  # J_softmax(Z1) (log P1 - log P2 + 1)
    d2 = P2 - P1
    if Z1.shape[1] == 1:  # only the second logit of [0, z] is a parameter
        d1, d2 = d1[:, 1:], d2[:, 1:]
    return kl, d1, d2


def trades_loss(base_loss, beta):
    """The TRADES objective on a batch stacked as ``[x; x']`` (B §12.7).

    Returns ``loss(Z, Y, sample_weight) -> (value, dZ)`` for the network core:
    the first half of ``Z`` holds the outputs on the clean rows, the second
    on the adversarial ones; ``value`` is the weighted mean of
    ``L(z, y) + beta KL(p(z) || p(z'))``. The rows' weights are the first
    half of ``sample_weight`` (the second half, zeros, only keeps the
    adversarial rows out of batch statistics and of the L2 scaling).
    """
    def loss(Z, Y, sample_weight=None):
        m = Z.shape[0] // 2
        Z1, Z2 = Z[:m], Z[m:]
        sw = None if sample_weight is None else sample_weight[:m]
        if sw is not None and np.all(sw == 1):
            sw = None  # the hook's stand-in for "no weights": the unweighted mean
        value, d1 = base_loss(Z1, Y[:m], sw)
        dZ = np.zeros_like(Z)
        dZ[:m] = d1
        if beta:
            kl, g1, g2 = _kl_and_gradients(Z1, Z2)
            w = (np.full(m, 1.0 / m) if sw is None else sw / float(sw.sum()))
            value += beta * float(w @ kl)
            dZ[:m] += (beta * w)[:, None] * g1
            dZ[m:] = (beta * w)[:, None] * g2
        return value, dZ
    return loss


# phi(m) and phi'(m) of the classification-calibrated surrogates (B §12.7).
def _phi(name, m):
    if name == "logistic":
        return np.logaddexp(0.0, -m), -0.5 * (1.0 - np.tanh(0.5 * m))  # -sigmoid(-m)
    if name == "hinge":
        return np.maximum(0.0, 1.0 - m), np.where(m < 1.0, -1.0, 0.0)
    e = np.exp(-np.minimum(m, 700.0))  # exponential
    return e, -e


def trades_binary_loss(surrogate, beta):
    """The notes' binary TRADES objective on a batch stacked as ``[x; x']``.

    ``phi(y f(x)) + beta phi(f(x) f(x'))`` (B §12.7 with ``beta = 1/lambda``,
    ``y`` in {-1, +1}, ``f`` the network's one output); returns
    ``loss(Z, Y, sample_weight) -> (value, dZ)`` like :func:`trades_loss`.
    """
    def loss(Z, Y, sample_weight=None):
        m = Z.shape[0] // 2
        z1, z2 = Z[:m, 0].astype(np.float64), Z[m:, 0].astype(np.float64)
        s = 2.0 * Y[:m, 0] - 1.0
        sw = None if sample_weight is None else sample_weight[:m]
        w = (np.full(m, 1.0 / m) if sw is None or np.all(sw == 1)
             else sw / float(sw.sum()))
        nat, d_nat = _phi(surrogate, s * z1)
        rob, d_rob = _phi(surrogate, z1 * z2)
        value = float(w @ nat) + beta * float(w @ rob)
        dZ = np.zeros_like(Z)
        dZ[:m, 0] = w * (s * d_nat + beta * z2 * d_rob)
        dZ[m:, 0] = w * beta * z1 * d_rob
        return value, dZ
    return loss


# --------------------------------------------------------------------------
# The network behind the estimator, trained by the core's loop
# --------------------------------------------------------------------------


def _as_network_estimator(estimator):
    """A fresh MLPClassifier equal to ``estimator`` as a model."""
    if type(estimator) is MLPClassifier:
        mlp = clone(estimator)
        if mlp.solver == "lbfgs":
            raise ValueError("The defences train by mini-batches: the MLPClassifier's "
                             "solver must not be 'lbfgs' (use 'adam' or 'sgd').")
        if mlp.early_stopping:
            raise ValueError("early_stopping=True is not supported by the defences "
                             "(the held-out score would be the clean one).")
        return mlp
    if type(estimator) is LogisticRegression:
        if not estimator.fit_intercept or estimator.class_weight is not None:
            raise ValueError("A LogisticRegression is trained as a network with no "
                             "hidden layer: fit_intercept must be True and "
                             "class_weight None.")
        # C sum(loss) + ||w||^2 / 2 has the minimiser of mean(loss) + ||w||^2 / (2 C n):
        # the network's alpha = 1 / C.
        return MLPClassifier(
            hidden_layer_sizes=(), alpha=1.0 / estimator.C, solver="adam",
            learning_rate_init=0.01, max_iter=max(estimator.max_iter, 200),
            tol=estimator.tol, random_state=estimator.random_state,
        )
    raise TypeError(
        f"The defences train an skml MLPClassifier or LogisticRegression; got "
        f"{type(estimator).__name__}."
    )


def _fit_network(mlp, X, y, sample_weight, make_hook, make_loss):
    """``mlp.fit`` through the core's ``train`` with a batch hook and a loss.

    The same steps, random draws and bookkeeping as ``MLPClassifier.fit``
    (so a hook that returns the batch unchanged gives the same network);
    ``make_hook(net, loss)`` and ``make_loss(base_loss)`` see the network.
    """
    validate_params(mlp)
    dtype = _DTYPES[mlp.dtype]
    X, y = validate_data(mlp, X, y, dtype=dtype)
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, X, dtype=dtype)
    Y = mlp._encode_targets(y, True, None, dtype, False)
    mlp._rng = rng = check_random_state(mlp.random_state)
    mlp._initialize(X.shape[1], mlp._hidden_sizes(), Y.shape[1], dtype)
    net = mlp._network(dtype)
    mlp._rate = EpochRate(mlp.learning_rate_init)
    mlp._optimizer = mlp._new_optimizer(mlp._rate)
    batch_size = min(200, X.shape[0]) if mlp.batch_size == "auto" else mlp.batch_size
    layer_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))

    def epoch_hook(log):
        if mlp.learning_rate == "invscaling":
            mlp._rate.value = InverseScaling(mlp.learning_rate_init,
                                             mlp.power_t)(log.n_samples)

    base_loss = mlp._loss()
    stopper = mlp._stopper()
    with blas_threads_for(min(batch_size, X.shape[0]) * net.n_decayed):
        log = train(
            net, X, Y, make_loss(base_loss), mlp._optimizer, epochs=mlp.max_iter,
            batch_size=batch_size, sample_weight=sample_weight, alpha=float(mlp.alpha),
            shuffle=mlp.shuffle, rng=rng, layer_rng=layer_rng, stopper=stopper,
            batch_hook=make_hook(net, base_loss), epoch_hook=epoch_hook,
            verbose=mlp.verbose,
        )
    mlp.n_iter_ = log.n_epochs
    mlp.t_ = log.n_samples
    mlp.loss_curve_ = list(log.losses)
    mlp.loss_ = log.losses[-1]
    mlp._no_improvement_count = stopper.n_bad_epochs
    mlp.best_loss_ = stopper.best
    mlp._publish(net)
    check_finite_parameters(net)
    return mlp


def _loss_ascent(net, loss, Y):
    """``ascent(X_rows, rows)``: d loss / d x of the network, labels ``Y[rows]``."""
    def ascent(Xa, rows):
        Z = net.forward(Xa, False)
        _, dZ = loss(Z, Y[rows], None)
        return net.backward(dZ, input_grad=True).astype(np.float64)
    return ascent


class _BaseDefence(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Shared parameters, checks and prediction of the two defences."""

    _differentiable_inner = True  # the attacks differentiate estimator_

    _parameter_constraints = {
        "estimator": [object, None],
        "eps": [Interval(Real, 0, None, closed="left")],
        "step_size": [Interval(Real, 0, None, closed="neither"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "norm": [Options({np.inf, 2, "inf"})],
        "clip": [tuple, list, None],
        "random_state": ["random_state"],
    }

    def _inner(self):
        if self.estimator is None:
            return MLPClassifier((32,), learning_rate_init=0.01, max_iter=100)
        return self.estimator

    def _prepare(self, X, y):
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        # The network's fixed steps and the absolute eps cannot follow X * 1e300,
        # X * 1e-300 or X + 1e8: refused, not a model at chance.
        check_trainable_magnitude(X, type(self).__name__,
                                  what="fixed step sizes and absolute eps")
        self._norm = np.inf if self.norm in (np.inf, "inf") else 2
        self._clip = _check_clip(self.clip)
        self._attack_rng = check_random_state(self.random_state)
        mlp = _as_network_estimator(self._inner())
        clip = self._clip
        if clip is not None and (X.min() < clip[0] or X.max() > clip[1]):
            raise ValueError("X has values outside clip; the training rows must lie "
                             "in the box.")
        return X, y, mlp

    def _checked(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    def _inner_step(self, n_iter):
        if self.step_size is not None:
            return float(self.step_size)
        return 2.5 * float(self.eps) / n_iter

    def _finish(self, mlp):
        self.estimator_ = mlp
        self.classes_ = mlp.classes_
        return self

    @fill_doc(X=X_SAMPLES, returns=LABELS_RETURNS)
    def predict(self, X):
        """Class labels of the adversarially trained network.

        <X>

        <returns>
        """
        X = self._checked(X)  # NotFittedError before estimator_ is read
        return self.estimator_.predict(X)

    @fill_doc(X=X_SAMPLES, returns=PROBA_RETURNS)
    def predict_proba(self, X):
        """Class probabilities of the adversarially trained network.

        <X>

        <returns>
        """
        X = self._checked(X)  # NotFittedError before estimator_ is read
        return self.estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags


# The defences' shared docstring block, placed by fill_doc.
_SHARED_PARAMS = """
    eps : float, default=0.1
        Radius of the training ball.
    step_size : float, default=None
        Step of the inner attack; ``2.5 * eps / n_iter`` when None.
    n_iter : int, default=7
        Steps of the inner attack.
    norm : {np.inf, 2}, default=np.inf
    clip : (float, float), default=None
        Box the adversarial rows stay in (the training rows must lie in it).
    random_state : int, RandomState or None, default=None
        Seeds the inner attack's random starts (the network's own draws
        follow its ``random_state``).
"""


@fill_doc(**{"shared parameters": _SHARED_PARAMS})
class AdversarialTrainingClassifier(_BaseDefence):
    r"""Adversarial training of a network: FGSM-AT or PGD-AT (notes B §12.6).

    Each mini-batch of the network's training is replaced, for a fraction
    ``ratio`` of its rows, by adversarial rows crafted on the current
    parameters (the inner maximisation of Madry et al.'s saddle-point
    objective), then one optimiser step is taken on the network's own loss.
    ``attack="fgsm"``: one sign step of size ``eps`` from ``x``;
    ``attack="pgd"``: ``n_iter`` projected steps from a random point of the
    ball; ``attack="ensemble"`` (ensemble adversarial training, Tramèr et
    al.): each batch's rows are crafted by FGSM on one model drawn uniformly
    from ``static_models`` (fixed, pre-trained) and the current network.

    Parameters
    ----------
    estimator : MLPClassifier or LogisticRegression, default=None
        The model to train (cloned); its optimiser, epochs, batch size, L2 and
        stopping rule are used. A ``LogisticRegression`` is trained as the
        network with no hidden layer (``alpha = 1/C``, adam, learning rate
        0.01, ``max(max_iter, 200)`` epochs). None: ``MLPClassifier((32,),
        learning_rate_init=0.01, max_iter=100)``.
    attack : {"pgd", "fgsm", "ensemble"}, default="pgd"
    ratio : float, default=1.0
        Fraction of each batch replaced by adversarial rows (0: standard
        training).
    static_models : list of fitted classifiers, default=None
        The fixed models of ``attack="ensemble"`` (with an analytic input
        gradient, fitted on the same classes); required by it.
    <shared parameters>

    Attributes
    ----------
    estimator_ : MLPClassifier
        The trained network (attack it with :class:`PGD` etc.; the attacks
        also accept this meta-estimator).
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    See Also
    --------
    TRADESClassifier : The accuracy/robustness trade-off objective.

    Notes
    -----
    Cost: ``(n_iter + 1)`` forward-backward passes per batch for PGD-AT, 2 for
    FGSM-AT. FGSM-AT is cheap but may learn to mask its own one-step attack
    (B §12.6); PGD-AT is the robust choice.

    References
    ----------
    .. [1] A. Madry et al., "Towards deep learning models resistant to
       adversarial attacks", ICLR 2018.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from skml.adversarial import AdversarialTrainingClassifier
    >>> from skml.neural_network import MLPClassifier
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> mlp = MLPClassifier((16,), learning_rate_init=0.01, max_iter=50,
    ...                     random_state=0)
    >>> clf = AdversarialTrainingClassifier(mlp, eps=0.1, n_iter=3,
    ...                                     random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True
    """

    _parameter_constraints = {
        **_BaseDefence._parameter_constraints,
        "attack": [Options({"pgd", "fgsm", "ensemble"})],
        "ratio": [Interval(Real, 0, 1, closed="both")],
        "static_models": [list, tuple, None],
    }

    def __init__(self, estimator=None, *, attack="pgd", eps=0.1, step_size=None,
                 n_iter=7, norm=np.inf, ratio=1.0, static_models=None, clip=None,
                 random_state=None):
        self.estimator = estimator
        self.attack = attack
        self.eps = eps
        self.step_size = step_size
        self.n_iter = n_iter
        self.norm = norm
        self.ratio = ratio
        self.static_models = static_models
        self.clip = clip
        self.random_state = random_state

    @fill_doc(parameters=FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y, sample_weight=None):
        """Train the network on adversarial mini-batches.

        In each mini-batch of ``m`` rows the first ``round(ratio * m)`` are
        replaced by the attack's rows, crafted on the current parameters.

        <parameters>

        <returns>
        """
        X, y, mlp = self._prepare(X, y)
        eps, norm, clip, rng = float(self.eps), self._norm, self._clip, self._attack_rng
        fgsm = self.attack in ("fgsm", "ensemble")
        n_iter = 1 if fgsm else self.n_iter
        step = eps if fgsm else self._inner_step(n_iter)
        ratio = float(self.ratio)
        static = []
        if self.attack == "ensemble":
            if not self.static_models:
                raise ValueError("attack='ensemble' needs static_models, a non-empty "
                                 "list of fitted classifiers.")
            classes = np.unique(y)
            for model in self.static_models:
                if not np.array_equal(np.asarray(getattr(model, "classes_", [])),
                                      classes):
                    raise ValueError("every static model must be fitted on the "
                                     f"classes of y {classes.tolist()!r}.")
                static.append(_Scores(model))  # TypeError without a gradient

        def make_hook(net, loss):
            def hook(Xb, Yb, swb):
                m = int(round(ratio * Xb.shape[0]))
                if m == 0 or eps == 0:
                    return Xb, Yb, swb
                X0 = Xb[:m].astype(np.float64)
                j = rng.randint(len(static) + 1) if static else len(static)
                if j < len(static):  # FGSM on a fixed model: its margin loss
                    Ym = Yb[:m]
                    y_idx = (Ym[:, 0] > 0.5).astype(np.intp) if Ym.shape[1] == 1 else (
                        Ym.argmax(axis=1))
                    scores = static[j]

                    def ascent(Xa, rows):
                        t = np.argmin(scores.margins(Xa, y_idx[rows]), axis=1)
                        return -scores.margin_gradient(Xa, y_idx[rows], t)
                else:
                    ascent = _loss_ascent(net, loss, Yb[:m])
                start = X0 if fgsm else _random_start(X0, eps, norm, clip, rng)
                adv = _pgd_loop(ascent, X0, start, eps, step, n_iter, norm, clip)
                Xb = Xb.copy()
                Xb[:m] = adv
                return Xb, Yb, swb
            return hook

        return self._finish(_fit_network(mlp, X, y, sample_weight, make_hook,
                                         lambda base: base))


@fill_doc(**{"shared parameters": _SHARED_PARAMS})
class TRADESClassifier(_BaseDefence):
    r"""TRADES: natural loss plus beta times the worst-case KL (B §12.7).

    Minimises :math:`L(f(x), y) + \beta \max_{x' \in B(x, \varepsilon)}
    \mathrm{KL}(p(x) \| p(x'))` (Zhang et al.'s multi-class form, the
    notes' :math:`\beta = 1/\lambda`). The inner maximum is ``n_iter``
    projected steps on the KL, started at ``x + 0.001 N(0, I)`` (as the
    TRADES code); the clean and adversarial rows then go through the network
    as one stacked batch and the gradient of the objective flows through both
    outputs. ``beta=0`` is standard training (the same network as the
    estimator's own ``fit``).

    Parameters
    ----------
    estimator : MLPClassifier or LogisticRegression, default=None
        As in :class:`AdversarialTrainingClassifier`.
    beta : float, default=6.0
        Weight of the robustness (smoothness) term.
    surrogate : {"kl", "logistic", "hinge", "exponential"}, default="kl"
        "kl": the multi-class form above (the network's own loss plus the
        KL). The others: the notes' binary form (two classes only)
        :math:`\phi(y f(x)) + \beta \max_{x'} \phi(f(x) f(x'))` with
        :math:`\phi(m) = \log(1 + e^{-m})`, :math:`\max(0, 1 - m)` or
        :math:`e^{-m}`, :math:`f` the network's logit and :math:`y = \pm 1`.
        Its robustness term also rewards a large margin of either sign, so a
        large ``beta`` can favour a one-class network (on the tests' task:
        robust accuracy 0.95 at ``beta=1``, a constant classifier at 6).
    <shared parameters>

    Attributes
    ----------
    estimator_ : MLPClassifier
        The trained network.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    See Also
    --------
    AdversarialTrainingClassifier : Madry et al.'s min-max training.

    Notes
    -----
    The stacked batch carries zero sample weights on its adversarial half,
    so batch statistics (batch norm) and the L2 scaling are those of the
    clean rows, as in standard training.

    References
    ----------
    .. [1] H. Zhang et al., "Theoretically principled trade-off between
       robustness and accuracy", ICML 2019.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from skml.adversarial import PGD, TRADESClassifier, robust_score
    >>> from skml.neural_network import MLPClassifier
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> mlp = MLPClassifier((16,), learning_rate_init=0.01, max_iter=50,
    ...                     random_state=0)
    >>> clf = TRADESClassifier(mlp, beta=1.0, eps=0.1, n_iter=3,
    ...                        random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.8
    True

    Its accuracy on PGD's rows (``eps=0.1``):

    >>> robust_score(clf, X, y, PGD(clf, eps=0.1, random_state=0)) > 0.7
    True
    """

    _parameter_constraints = {
        **_BaseDefence._parameter_constraints,
        "beta": [Interval(Real, 0, None, closed="left")],
        "surrogate": [Options({"kl", "logistic", "hinge", "exponential"})],
    }

    def __init__(self, estimator=None, *, beta=6.0, surrogate="kl", eps=0.1,
                 step_size=None, n_iter=7, norm=np.inf, clip=None, random_state=None):
        self.estimator = estimator
        self.beta = beta
        self.surrogate = surrogate
        self.eps = eps
        self.step_size = step_size
        self.n_iter = n_iter
        self.norm = norm
        self.clip = clip
        self.random_state = random_state

    @fill_doc(parameters=FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y, sample_weight=None):
        """Train the network on the TRADES objective.

        <parameters>

        <returns>
        """
        X, y, mlp = self._prepare(X, y)
        eps, norm, clip, rng = float(self.eps), self._norm, self._clip, self._attack_rng
        step, n_iter = self._inner_step(self.n_iter), self.n_iter
        beta = float(self.beta)
        surrogate = self.surrogate
        if surrogate != "kl" and len(np.unique(y)) != 2:
            raise ValueError(f"surrogate={surrogate!r} is the binary form of TRADES: y "
                             f"must have two classes, not {len(np.unique(y))}; use "
                             "surrogate='kl'.")

        def robust_gradient(Z0, Z):
            """d/dZ' of the robustness term, Z0 = f(x) fixed."""
            if surrogate == "kl":
                return _kl_and_gradients(Z0, Z)[2]
            return Z0 * _phi(surrogate, Z0 * Z)[1]

        def make_hook(net, loss):
            def hook(Xb, Yb, swb):
                X0 = Xb.astype(np.float64)
                if beta and eps > 0:
                    Z0 = net.forward(X0, False).astype(np.float64)

                    def ascent(Xa, rows):  # d/dx' KL(p(x) || p(x')), p(x) fixed
                        Z = net.forward(Xa, False).astype(np.float64)
                        d2 = robust_gradient(Z0[rows], Z)
                        return net.backward(d2.astype(net.dtype),
                                            input_grad=True).astype(np.float64)

                    start = X0 + 0.001 * rng.standard_normal(X0.shape)
                    start = _project(start, X0, eps, norm, clip)
                    adv = _pgd_loop(ascent, X0, start, eps, step, n_iter, norm, clip)
                else:
                    adv = X0
                sw = np.ones(Xb.shape[0], dtype=Xb.dtype) if swb is None else swb
                return (np.vstack([Xb, adv.astype(Xb.dtype)]), np.vstack([Yb, Yb]),
                        np.concatenate([sw, np.zeros_like(sw)]))
            return hook

        def make_loss(base):
            if surrogate == "kl":
                return trades_loss(base, beta)
            return trades_binary_loss(surrogate, beta)

        return self._finish(_fit_network(mlp, X, y, sample_weight, make_hook,
                                         make_loss))
