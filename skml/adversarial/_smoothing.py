r"""Randomised smoothing and its certified radii (notes A §10.4-10.6).

The smoothed classifier of a base classifier :math:`f` is

.. math::

   g(x) = \arg\max_c \; P_{x' \sim p(\cdot - x)}\,[f(x') = c],

with :math:`p` a Gaussian :math:`N(0, \sigma^2 I)` or the uniform
distribution on the :math:`\ell_2` ball of radius :math:`R`. If the top class
has probability at least :math:`p_A` (and the runner-up at most
:math:`p_B`), no :math:`\delta` shorter than the *greedy-filling radius*
changes :math:`g(x + \delta)`: the worst base classifier puts the runner-up
class where the likelihood ratio :math:`p(x' - x - \delta) / p(x' - x)` is
largest (Neyman-Pearson, A §10.6). For the Gaussian the level sets are
half-spaces and the radius is
:math:`\tfrac{\sigma}{2}(\Phi^{-1}(p_A) - \Phi^{-1}(p_B))`
(:math:`\sigma \Phi^{-1}(p_A)` when :math:`p_B = 1 - p_A`). For the uniform
ball (A §10.5) the ratio is infinite on :math:`B(x+\delta) \setminus B(x)`,
so the certificate holds while
:math:`\mathrm{vol}(B(x) \setminus B(x + \delta)) / \mathrm{vol}(B) <
(p_A - p_B)/2`, with

.. math::

   \frac{\mathrm{vol}(B(x) \cap B(x+\delta))}{\mathrm{vol}(B)}
     = I_{1 - (t / 2R)^2}\!\left(\tfrac{d+1}{2}, \tfrac12\right),
     \qquad t = \|\delta\|_2,

solved in closed form with the inverse regularised incomplete beta
function.
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import betaincinv
from scipy.stats import beta as beta_dist
from scipy.stats import binom, norm
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.utils import Interval, Options, validate_params
from skml.utils._docstrings import (FIT_PARAMETERS, LABELS_RETURNS, PROBA_RETURNS,
                                    SELF_RETURNS, X_SAMPLES, fill_doc)
from ..utils._magnitude import check_trainable_magnitude
from ..utils.validation import validate_data

__all__ = ["SmoothedClassifier", "greedy_filling_radius"]


def greedy_filling_radius(p_a, noise="gaussian", *, sigma=1.0, n_features=None,
                          p_b=None):
    r"""Certified :math:`\ell_2` radius of a smoothed classifier (A §10.5-10.6).

    Parameters
    ----------
    p_a : float or array-like
        (A lower bound of) the probability of the top class under the noise.
    noise : {"gaussian", "uniform_ball"}, default="gaussian"
    sigma : float, default=1.0
        Standard deviation of the Gaussian, or radius ``R`` of the ball.
    n_features : int, default=None
        Dimension ``d`` (required for ``"uniform_ball"``).
    p_b : float or array-like, default=None
        (An upper bound of) the runner-up's probability; ``1 - p_a`` by
        default (the binary case of the notes).

    Returns
    -------
    radius : float or ndarray
        0 where ``p_a <= p_b``; ``inf`` for the Gaussian at ``p_a = 1``.

    Examples
    --------
    >>> from skml.adversarial import greedy_filling_radius
    >>> round(float(greedy_filling_radius(0.8, "gaussian", sigma=1.0)), 4)
    0.8416
    >>> round(float(greedy_filling_radius(0.8, "uniform_ball", n_features=2)), 4)
    0.4758
    """
    if noise not in ("gaussian", "uniform_ball"):
        raise ValueError(f"noise must be 'gaussian' or 'uniform_ball'; got {noise!r}.")
    if isinstance(sigma, bool) or not isinstance(sigma, Real) or not sigma > 0:
        raise ValueError(f"sigma must be a positive number; got {sigma!r}.")
    p_a = np.asarray(p_a, dtype=np.float64)
    p_b = 1.0 - p_a if p_b is None else np.asarray(p_b, dtype=np.float64)
    for name, p in (("p_a", p_a), ("p_b", p_b)):
        if np.any(~((p >= 0) & (p <= 1))):
            raise ValueError(f"{name} must lie in [0, 1].")
    if np.any(p_a + p_b > 1 + 1e-12):
        raise ValueError("p_a + p_b must not exceed 1.")
    if noise == "gaussian":
        with np.errstate(divide="ignore", invalid="ignore"):
            radius = 0.5 * sigma * (norm.ppf(p_a) - norm.ppf(p_b))
    else:
        if (isinstance(n_features, bool) or not isinstance(n_features, Integral)
                or n_features < 1):
            raise ValueError("n_features must be a positive int for "
                             f"noise='uniform_ball'; got {n_features!r}.")
        v = 0.5 * (p_a - p_b)  # the lens fraction vol(B(x) \ B(x + delta)) at the flip
        z = betaincinv((n_features + 1) / 2.0, 0.5, np.clip(1.0 - v, 0.0, 1.0))
        radius = 2.0 * sigma * np.sqrt(np.clip(1.0 - z, 0.0, None))
    radius = np.where(p_a > p_b, radius, 0.0)
    return radius[()] if radius.ndim == 0 else radius


def _sample_noise(rng, shape, noise, sigma):
    """``shape = (m, d)`` draws of the noise (Gaussian or uniform in the ball)."""
    Z = rng.standard_normal(shape)
    if noise == "gaussian":
        Z *= sigma
        return Z
    # Uniform in the l2 ball: a uniform direction times R U^(1/d).
    d = shape[1]
    lengths = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    lengths[lengths == 0] = 1.0
    Z *= (sigma * rng.random_sample(shape[0]) ** (1.0 / d) / lengths)[:, None]
    return Z


class SmoothedClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    r"""Randomised-smoothing classifier with Cohen et al.'s certificate (A §10.4).

    Wraps any classifier :math:`f` and predicts the class it outputs most often
    under random noise around the input (A §10.4), by Monte Carlo. ``predict``
    abstains as Cohen et al.'s PREDICT when a two-sided binomial test cannot
    tell the top two classes apart at level ``alpha``; ``certify`` is their
    CERTIFY: ``n0`` draws choose the class, ``n_samples`` fresh draws give a
    one-sided Clopper-Pearson lower bound :math:`\underline{p_A}` and the
    radius is :func:`greedy_filling_radius` of it (``sigma *
    Phi^{-1}(p_A)`` for the Gaussian, A §10.6; the ball formula of A §10.5).

    Parameters
    ----------
    estimator : classifier
        The base classifier, fitted in :meth:`fit`.
    noise : {"gaussian", "uniform_ball"}, default="gaussian"
    sigma : float, default=0.25
        Standard deviation of the Gaussian, or radius of the ball.
    n_samples : int, default=1000
        Noise draws per row in ``predict``, ``predict_proba`` and ``certify``.
    n0 : int, default=100
        Draws that choose the class in ``certify``.
    alpha : float, default=0.001
        Level of the abstention test and of the certificate (it holds with
        probability at least ``1 - alpha``).
    train_noise : bool, default=False
        Fit the base classifier on one noisy copy of ``X`` (noise of the same
        law) instead of ``X``.
    batch_size : int, default=10000
        Noisy points predicted per call of the base classifier.
    abstain : bool, default=True
        Whether ``predict`` abstains (Cohen et al.); False returns the top
        class of the counts everywhere (``argmax`` of ``predict_proba``).
    abstain_label : label or "auto", default="auto"
        Returned by ``predict`` and ``certify`` when they abstain; "auto" is
        -1 (or ``min(classes_) - 1`` if -1 is a class) for numeric classes
        and the string "abstain" otherwise.
    random_state : int, RandomState or None, default=None
        Seeds the noise; every call draws from a fresh generator made from it,
        so an int gives repeatable answers.

    Attributes
    ----------
    estimator_ : classifier
        The fitted base classifier.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    See Also
    --------
    greedy_filling_radius : The radius for given probabilities.

    Notes
    -----
    The noise draws are shared by all rows (common random numbers, so the
    answers are independent of the row order); all rows times all draws are
    predicted in blocks of ``batch_size`` noisy points and counted with one
    ``np.bincount`` per block (no loop over rows); the Clopper-Pearson bound
    is ``scipy.stats.beta.ppf``. Time
    O(n_rows * n_samples * cost of one base prediction).

    References
    ----------
    .. [1] J. Cohen, E. Rosenfeld and J. Z. Kolter, "Certified adversarial
       robustness via randomized smoothing", ICML 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.adversarial import SmoothedClassifier
    >>> from skml.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = SmoothedClassifier(LogisticRegression(), sigma=0.1, n_samples=200,
    ...                          random_state=0).fit(X, y)
    >>> labels, radii = clf.certify(X[:3])
    >>> labels.tolist()
    [0, 0, 0]
    >>> bool((radii > 0).all())
    True
    """

    _parameter_constraints = {
        "estimator": [object],
        "noise": [Options({"gaussian", "uniform_ball"})],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n0": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "train_noise": ["boolean"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "abstain": ["boolean"],
        "abstain_label": [object],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, *, noise="gaussian", sigma=0.25, n_samples=1000,
                 n0=100, alpha=0.001, train_noise=False, batch_size=10000,
                 abstain=True, abstain_label="auto", random_state=None):
        self.estimator = estimator
        self.noise = noise
        self.sigma = sigma
        self.n_samples = n_samples
        self.n0 = n0
        self.alpha = alpha
        self.train_noise = train_noise
        self.batch_size = batch_size
        self.abstain = abstain
        self.abstain_label = abstain_label
        self.random_state = random_state

    @fill_doc(parameters=FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y, sample_weight=None):
        """Fit the base classifier (on noisy ``X`` with ``train_noise``).

        <parameters>
            Passed to the base classifier's ``fit``.

        <returns>
        """
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        # sigma is absolute: against X * 1e-300 the noise is all there is.
        check_trainable_magnitude(X, type(self).__name__, what="absolute noise scale sigma",
                                  advice="Scale the features first (and choose sigma "
                                         "in those units).", check_offset=False)
        if self.train_noise:
            rng = check_random_state(self.random_state)
            X = X + _sample_noise(rng, X.shape, self.noise, self.sigma)
        est = clone(self.estimator)
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = est.fit(X, y, **fit_params)
        self.classes_ = np.asarray(self.estimator_.classes_)
        return self

    def _abstain(self):
        if not (isinstance(self.abstain_label, str) and self.abstain_label == "auto"):
            if self.abstain_label in set(self.classes_.tolist()):
                raise ValueError(f"abstain_label={self.abstain_label!r} is one of the "
                                 "classes; choose a value outside classes_.")
            return self.abstain_label
        if np.issubdtype(self.classes_.dtype, np.number):
            return -1 if -1 not in self.classes_ else self.classes_.min() - 1
        return "abstain"

    def _labels(self, index, abstained):
        """Class labels of ``index``, ``abstain_label`` where ``abstained``."""
        a = self._abstain()
        dtype = self.classes_.dtype
        if isinstance(a, str) or not np.issubdtype(dtype, np.number):
            out = self.classes_.astype(object)[index]
        else:
            out_dtype = np.result_type(dtype, np.asarray(a).dtype)
            out = self.classes_[index].astype(out_dtype)
        out[abstained] = a
        return out

    def _counts(self, X, n, rng):
        """(n_rows, n_classes) counts of the base predictions under ``n`` draws.

        The ``n`` noise vectors are drawn once and shared by every row (common
        random numbers): each row still sees ``n`` independent draws, and the
        answers do not depend on the order or the number of rows.
        """
        k = len(self.classes_)
        noise = _sample_noise(rng, (n, X.shape[1]), self.noise, self.sigma)
        counts = np.zeros((X.shape[0], k), dtype=np.int64)
        rows_per_block = max(1, self.batch_size // n)
        draws_per_block = min(n, self.batch_size)
        for r0 in range(0, X.shape[0], rows_per_block):
            Xb = X[r0:r0 + rows_per_block]
            nb = Xb.shape[0]
            for s0 in range(0, n, draws_per_block):
                Nb = noise[s0:s0 + draws_per_block]
                m = Nb.shape[0]
                noisy = (Xb[:, None, :] + Nb[None, :, :]).reshape(nb * m, -1)
                pred = self.estimator_.predict(noisy)
                index = np.searchsorted(self.classes_, pred)
                offset = np.repeat(np.arange(nb) * k, m)
                counts[r0:r0 + nb] += np.bincount(
                    offset + index, minlength=nb * k).reshape(nb, k)
        return counts

    def _check_X(self, X):
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64)

    @fill_doc(X=X_SAMPLES, returns=PROBA_RETURNS)
    def predict_proba(self, X):
        """Frequencies of the base classifier's classes under the noise.

        <X>

        <returns>
            Monte Carlo estimates (``n_samples`` draws); rows sum to 1.
        """
        X = self._check_X(X)
        rng = check_random_state(self.random_state)
        return self._counts(X, self.n_samples, rng) / float(self.n_samples)

    @fill_doc(X=X_SAMPLES, returns=LABELS_RETURNS)
    def predict(self, X):
        """The smoothed prediction, or ``abstain_label`` (Cohen et al.'s PREDICT).

        Abstains when the two-sided binomial test of the top two counts
        against 1/2 has p-value above ``alpha``.

        <X>

        <returns>
        """
        X = self._check_X(X)
        rng = check_random_state(self.random_state)
        counts = self._counts(X, self.n_samples, rng)
        order = np.argsort(-counts, axis=1, kind="stable")
        rows = np.arange(X.shape[0])
        top = order[:, 0]
        n_a = counts[rows, top]
        n_b = counts[rows, order[:, 1]] if counts.shape[1] > 1 else np.zeros_like(n_a)
        # Two-sided test at 1/2, n_a >= n_b: p = min(1, 2 P[Bin(n_a + n_b) >= n_a]).
        p_value = np.minimum(1.0, 2.0 * binom.sf(n_a - 1, n_a + n_b, 0.5))
        if not self.abstain:
            return self.classes_[top]
        return self._labels(top, p_value > self.alpha)

    @fill_doc(X=X_SAMPLES)
    def certify(self, X):
        """Certified labels and :math:`\\ell_2` radii (Cohen et al.'s CERTIFY).

        <X>

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            The chosen class, ``abstain_label`` where the lower bound on its
            probability is below 1/2.
        radii : ndarray of shape (n_samples,)
            The certified radius (0 where abstaining); the certificate holds
            with probability at least ``1 - alpha``.
        """
        X = self._check_X(X)
        rng = check_random_state(self.random_state)
        guess = self._counts(X, self.n0, rng).argmax(axis=1)
        counts = self._counts(X, self.n_samples, rng)
        n_a = counts[np.arange(X.shape[0]), guess]
        n = self.n_samples
        # One-sided Clopper-Pearson lower bound at level 1 - alpha.
        p_lower = np.where(n_a > 0, beta_dist.ppf(self.alpha, np.maximum(n_a, 1),
                                                  n - n_a + 1), 0.0)
        abstained = p_lower < 0.5
        radii = greedy_filling_radius(
            np.clip(p_lower, 0.0, 1.0), self.noise, sigma=float(self.sigma),
            n_features=X.shape[1])
        radii = np.where(abstained, 0.0, radii)
        return self._labels(guess, abstained), radii

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.non_deterministic = False
        return tags
