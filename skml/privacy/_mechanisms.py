r"""Noise mechanisms (notes B §13.2-13.4, §13.8), vectorised over the values.

=======================  ============================================  ==========
mechanism                noise / rule                                  guarantee
=======================  ============================================  ==========
LaplaceMechanism         :math:`x + \mathrm{Lap}(S/\varepsilon)`        ε-DP
GaussianMechanism        :math:`x + N(0, \sigma^2)`                     (ε, δ)-DP
RandomizedResponse       keep a bit with probability p, else flip it   ε = ln(p/(1-p))
ExponentialMechanism     P(r) ∝ exp(ε u(r) / (2 Δu))                   ε-DP
=======================  ============================================  ==========

Every mechanism takes a ``random_state`` (None, an int, a RandomState or a
Generator), turned into one numpy Generator at construction: a mechanism
built with an int draws the same sequence of noise on every run, and
successive calls draw fresh noise. ``randomise`` takes a scalar or an array
and draws all its noise in one call (diffprivlib draws one scalar per call).
"""

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, logsumexp

from ._validation import _check_delta, _check_epsilon, _check_positive, _rng

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "RandomizedResponse",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
]


def _as_float_array(values, name="values"):
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric; got dtype {arr.dtype}.")
    arr = arr.astype(np.float64, copy=False)
    # One reduction instead of a boolean temporary; the full check only when
    # the sum is not finite (NaN, inf, or an overflowing sum of finite values).
    if not np.isfinite(arr.sum()) and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf).")
    return arr


def _return_like(values, out):
    return float(out) if np.ndim(values) == 0 else out


def classic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    r"""Classic Gaussian calibration :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon`.

    Notes B §13.3 (Dwork & Roth, Theorem A.1): (ε, δ)-DP for ε < 1 only.

    Examples
    --------
    >>> from skml.privacy import classic_gaussian_sigma
    >>> round(classic_gaussian_sigma(0.5, 1e-5), 4)
    9.6896
    """
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def _log_phi_diff(a, b, eps):
    """``Phi(a) - e^eps Phi(b)``, from the logs of both terms (no underflow)."""
    la, lb = float(log_ndtr(a)), eps + float(log_ndtr(b))
    if la >= lb:
        return math.exp(la) * -math.expm1(lb - la)
    return -math.exp(lb) * -math.expm1(la - lb)


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0, tol=1e-12):
    r"""Smallest σ making the Gaussian mechanism (ε, δ)-DP (Balle & Wang, 2018).

    Notes B §13.3, the "analytic" calibration: the exact condition is

    .. math:: \Phi\!\left(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\right)
       - e^{\varepsilon}\,\Phi\!\left(-\frac{\Delta}{2\sigma}
       - \frac{\varepsilon\sigma}{\Delta}\right) \le \delta,

    valid for every ε > 0. Balle & Wang's Algorithm 1 solves it in the
    variable :math:`v` with :math:`\sigma = \alpha\Delta/\sqrt{2\varepsilon}`:
    with :math:`\delta_0 = \Phi(0) - e^{\varepsilon}\Phi(-\sqrt{2\varepsilon})`,
    for δ >= δ₀, :math:`B^+(v) = \Phi(\sqrt{\varepsilon v}) -
    e^\varepsilon\Phi(-\sqrt{\varepsilon(v+2)})`, :math:`v^* = \sup\{v:
    B^+(v) \le \delta\}` and :math:`\alpha = \sqrt{1+v^*/2} - \sqrt{v^*/2}`;
    otherwise :math:`B^-(u) = \Phi(-\sqrt{\varepsilon u}) -
    e^\varepsilon\Phi(-\sqrt{\varepsilon(u+2)})`, :math:`u^* = \inf\{u: B^-(u)
    \le \delta\}` and :math:`\alpha = \sqrt{1+u^*/2} + \sqrt{u^*/2}`. Both
    are monotone, solved by Brent's method on a doubling bracket.

    Examples
    --------
    >>> from skml.privacy import analytic_gaussian_sigma
    >>> round(analytic_gaussian_sigma(1.0, 1e-5), 2)
    3.73
    """
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    sensitivity = _check_positive(sensitivity, "sensitivity")
    delta0 = _log_phi_diff(0.0, -math.sqrt(2 * epsilon), epsilon)
    if delta >= delta0:
        def gap(v):  # increasing in v
            return _log_phi_diff(math.sqrt(epsilon * v), -math.sqrt(epsilon * (v + 2)),
                                 epsilon) - delta
        if gap(0.0) >= 0:
            v = 0.0
        else:
            hi = 1.0
            while gap(hi) <= 0:
                hi *= 2.0
            v = brentq(gap, 0.0, hi, xtol=tol, rtol=4 * np.finfo(float).eps)
        alpha = math.sqrt(1 + v / 2) - math.sqrt(v / 2)
    else:
        def gap(u):  # decreasing in u
            return _log_phi_diff(-math.sqrt(epsilon * u), -math.sqrt(epsilon * (u + 2)),
                                 epsilon) - delta
        hi = 1.0
        while gap(hi) > 0:
            hi *= 2.0
        u = brentq(gap, 0.0, hi, xtol=tol, rtol=4 * np.finfo(float).eps)
        alpha = math.sqrt(1 + u / 2) + math.sqrt(u / 2)
    return alpha * sensitivity / math.sqrt(2 * epsilon)


class LaplaceMechanism:
    r"""The Laplace mechanism :math:`x + \eta`, :math:`\eta \sim \mathrm{Lap}(S/\varepsilon)`.

    Notes B §13.2: noise of scale :math:`\lambda = S/\varepsilon` (density
    :math:`\propto e^{-|\eta|/\lambda}`, variance :math:`2\lambda^2`) makes a
    query of sensitivity ``S`` ε-DP. For a vector query, ``S`` is the ℓ1
    sensitivity of the whole vector.

    Parameters
    ----------
    epsilon : float
        > 0.
    sensitivity : float, default=1.0
        ℓ1 sensitivity ``S`` of the query, > 0.
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    scale : float
        λ = S / ε.
    variance : float
        2 λ².

    Examples
    --------
    >>> from skml.privacy import LaplaceMechanism
    >>> mech = LaplaceMechanism(epsilon=0.5, sensitivity=1.0, random_state=0)
    >>> mech.scale, mech.variance
    (2.0, 8.0)
    >>> mech.randomise([3.0, 4.0]).shape
    (2,)
    """

    def __init__(self, epsilon, sensitivity=1.0, random_state=None):
        self.epsilon = _check_epsilon(epsilon)
        self.sensitivity = _check_positive(sensitivity, "sensitivity")
        self.random_state = random_state
        self._rng = _rng(random_state)

    @property
    def scale(self):
        return self.sensitivity / self.epsilon

    @property
    def variance(self):
        return 2.0 * self.scale ** 2

    @property
    def delta(self):
        return 0.0

    def randomise(self, values):
        r"""``values`` plus independent Laplace noise (same shape; a float for a scalar).

        The noise is :math:`\lambda (E_1 - E_2)` with :math:`E_1, E_2` i.i.d.
        standard exponentials (their difference is Laplace(0, 1)): numpy's
        ziggurat exponential sampler makes this about twice as fast as
        ``Generator.laplace``.
        """
        arr = _as_float_array(values)
        noise = self._rng.standard_exponential(arr.shape)
        noise -= self._rng.standard_exponential(arr.shape)
        noise *= self.scale
        noise += arr
        return _return_like(values, noise)


class GaussianMechanism:
    r"""The Gaussian mechanism :math:`x + N(0, \sigma^2)`, (ε, δ)-DP.

    Notes B §13.3. ``calibration="classic"`` uses
    :math:`\sigma = \Delta_2\sqrt{2\ln(1.25/\delta)}/\varepsilon`, which the
    theorem covers for ε < 1 only (ε >= 1 raises); ``"analytic"`` uses Balle
    & Wang's exact calibration (:func:`analytic_gaussian_sigma`), the
    smallest σ for any ε > 0, always below the classic one.

    Parameters
    ----------
    epsilon : float
        > 0 (< 1 for the classic calibration).
    delta : float
        In (0, 1).
    sensitivity : float, default=1.0
        ℓ2 sensitivity Δ₂ of the query, > 0.
    calibration : {"classic", "analytic"}, default="analytic"
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    sigma : float
        The noise standard deviation.

    Examples
    --------
    >>> from skml.privacy import GaussianMechanism
    >>> classic = GaussianMechanism(0.5, 1e-5, calibration="classic")
    >>> analytic = GaussianMechanism(0.5, 1e-5, calibration="analytic")
    >>> bool(analytic.sigma < classic.sigma)
    True
    """

    def __init__(self, epsilon, delta, sensitivity=1.0, calibration="analytic",
                 random_state=None):
        self.epsilon = _check_epsilon(epsilon)
        self.delta = _check_delta(delta)
        self.sensitivity = _check_positive(sensitivity, "sensitivity")
        if calibration not in ("classic", "analytic"):
            raise ValueError(
                f"calibration must be 'classic' or 'analytic'; got {calibration!r}.")
        if calibration == "classic" and self.epsilon >= 1:
            raise ValueError(
                "The classic Gaussian calibration holds for epsilon < 1 only; got "
                f"epsilon={epsilon!r}. Use calibration='analytic'.")
        self.calibration = calibration
        self.random_state = random_state
        self._rng = _rng(random_state)
        if calibration == "classic":
            self.sigma = classic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)
        else:
            self.sigma = analytic_gaussian_sigma(self.epsilon, self.delta,
                                                 self.sensitivity)

    @property
    def variance(self):
        return self.sigma ** 2

    def randomise(self, values):
        """``values`` plus independent N(0, σ²) noise."""
        arr = _as_float_array(values)
        return _return_like(values, arr + self._rng.normal(0.0, self.sigma, arr.shape))


class RandomizedResponse:
    r"""Randomised response on bits (notes B §13.4).

    Each bit is reported truthfully with probability ``p`` and flipped
    otherwise. The likelihood ratio of a report under the two inputs is
    :math:`p/(1-p)`, so the mechanism is ε-DP with
    :math:`\varepsilon = \ln(p/(1-p))`; with :math:`p = \tfrac12 + \gamma`
    this is the notes' :math:`\ln((\tfrac12+\gamma)/(\tfrac12-\gamma))`
    (p = 3/4: ε = ln 3). Give either ``epsilon`` (then
    :math:`p = e^\varepsilon/(1+e^\varepsilon)`) or ``p`` in (1/2, 1).

    Parameters
    ----------
    epsilon : float, default=None
    p : float, default=None
        Probability of telling the truth.
    random_state : None, int, RandomState or Generator, default=None

    Examples
    --------
    >>> import math
    >>> from skml.privacy import RandomizedResponse
    >>> rr = RandomizedResponse(p=0.75)
    >>> math.isclose(rr.epsilon, math.log(3))
    True
    """

    def __init__(self, epsilon=None, p=None, random_state=None):
        if (epsilon is None) == (p is None):
            raise ValueError("Give exactly one of epsilon and p.")
        if epsilon is not None:
            self.epsilon = _check_epsilon(epsilon)
            self.p = 1.0 / (1.0 + math.exp(-self.epsilon))
        else:
            if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or (
                not 0.5 < float(p) < 1.0
            ):
                raise ValueError(
                    f"p must be a float in (0.5, 1): p = 1/2 reveals nothing and p = 1 "
                    f"is not private; got {p!r}.")
            self.p = float(p)
            self.epsilon = math.log(self.p / (1.0 - self.p))
        self.random_state = random_state
        self._rng = _rng(random_state)

    def randomise(self, bits):
        """Report each bit (0/1 or bool) truthfully with probability p."""
        arr = np.asarray(bits)
        if arr.dtype.kind not in "biuf" or not np.all(np.isin(arr, (0, 1))):
            raise ValueError("bits must contain only 0 and 1 (or booleans).")
        x = arr.astype(np.int64)
        flip = self._rng.random(x.shape) >= self.p
        out = np.where(flip, 1 - x, x)
        return int(out) if np.ndim(bits) == 0 else out

    def estimate_mean(self, reports):
        r"""Unbiased estimate of the true mean from reports: :math:`(\bar Y - (1-p))/(2p-1)`."""
        y = _as_float_array(reports, "reports")
        if y.size == 0:
            raise ValueError("reports is empty.")
        return (float(y.mean()) - (1.0 - self.p)) / (2.0 * self.p - 1.0)

    def likelihood_ratio(self):
        """``max P[report | x] / P[report | x']`` over inputs x, x' and reports: p/(1-p)."""
        return self.p / (1.0 - self.p)


class ExponentialMechanism:
    r"""Select a candidate with probability ∝ :math:`\exp(\varepsilon u / (2\Delta u))`.

    Notes B §13.8 (the standard fill-in for PrivBayes' structure step):
    ε-DP when the utility ``u`` of every candidate changes by at most
    ``sensitivity`` Δu between neighbouring datasets. Probabilities are
    computed with a log-sum-exp shift, so large utilities do not overflow.

    Parameters
    ----------
    epsilon : float
        > 0 (inf: select the argmax, ties broken at random).
    sensitivity : float, default=1.0
        Δu, > 0.
    random_state : None, int, RandomState or Generator, default=None

    Examples
    --------
    >>> from skml.privacy import ExponentialMechanism
    >>> em = ExponentialMechanism(epsilon=2.0, sensitivity=1.0, random_state=0)
    >>> em.probabilities([0.0, 1.0]).round(3)
    array([0.269, 0.731])
    """

    def __init__(self, epsilon, sensitivity=1.0, random_state=None):
        self.epsilon = _check_epsilon(epsilon, allow_inf=True)
        self.sensitivity = _check_positive(sensitivity, "sensitivity")
        self.random_state = random_state
        self._rng = _rng(random_state)

    def probabilities(self, utilities):
        """Selection probabilities of the candidates (a new array)."""
        u = _as_float_array(utilities, "utilities").ravel()
        if u.size == 0:
            raise ValueError("utilities is empty: nothing to select.")
        if np.isinf(self.epsilon):
            best = u == u.max()
            return best / best.sum()
        logits = self.epsilon * u / (2.0 * self.sensitivity)
        return np.exp(logits - logsumexp(logits))

    def select(self, utilities, size=None):
        """Index of the selected candidate (an array of ``size`` independent draws)."""
        p = self.probabilities(utilities)
        return self._rng.choice(p.size, size=size, p=p)
