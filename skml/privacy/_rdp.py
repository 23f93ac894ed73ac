r"""Rényi-DP accounting of the Poisson-subsampled Gaussian mechanism (notes B §13.5).

A mechanism is :math:`(\alpha, \rho)`-RDP when the Rényi divergence of order
α between its outputs on neighbouring datasets is at most ρ. RDP composes by
addition, order by order, so ``steps`` DP-SGD steps cost ``steps`` times one.

One step of DP-SGD is the sampled Gaussian mechanism: rows enter the lot
independently with probability ``q``, the clipped sum gets
:math:`N(0, \sigma^2 C^2 I)`. Its RDP (Mironov, Talwar & Zhang, 2019) is
:math:`\log(A_\alpha)/(\alpha - 1)` with

.. math:: A_\alpha = \mathbb{E}_{z \sim \mu_0}\left[\left((1-q) + q\,
   e^{(2z - 1)/(2\sigma^2)}\right)^{\alpha}\right], \qquad \mu_0 = N(0, \sigma^2).

For an integer α the binomial expansion gives the finite sum
:math:`A_\alpha = \sum_{k=0}^{\alpha} \binom{\alpha}{k} (1-q)^{\alpha-k} q^k
e^{(k^2-k)/(2\sigma^2)}`; for a fractional α the integral is split at
:math:`z_0 = \sigma^2\ln(1/q - 1) + \tfrac12` and each half expanded in a
convergent series of terms with a generalised binomial coefficient and a
Gaussian tail (Mironov et al., §3.3). Everything is summed in log space.

Conversion to (ε, δ): the classic bound :math:`\varepsilon = \rho +
\ln(1/\delta)/(\alpha-1)` (Mironov, 2017) or the tighter
:math:`\varepsilon = \rho + \ln((\alpha-1)/\alpha) - (\ln\delta +
\ln\alpha)/(\alpha-1)` (Balle et al., 2020), used by opacus and Google's
dp-accounting, minimised over the orders.
"""

import math
import numbers

import numpy as np
from scipy.optimize import brentq
from scipy.special import binom, gammaln, log_ndtr, logsumexp

from ._validation import _check_delta, _check_epsilon

__all__ = [
    "DEFAULT_ORDERS",
    "RDPAccountant",
    "compute_rdp",
    "get_noise_multiplier",
    "rdp_to_epsilon",
]

#: Orders used unless others are given: fine steps near 1 (where small ε are
#: decided), the integers to 63 and a few large ones (where tiny δ are).
DEFAULT_ORDERS = tuple(
    [1 + x / 10 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512]
)


def _log_a_int(q, sigma, alphas):
    """log A for integer orders ``alphas`` (1-d int array): all binomial sums at once."""
    alphas = np.asarray(alphas, dtype=np.float64)
    k = np.arange(int(alphas.max()) + 1, dtype=np.float64)
    a = alphas[:, None]
    with np.errstate(invalid="ignore"):
        terms = (gammaln(a + 1) - gammaln(k + 1) - gammaln(a - k + 1)
                 + k * math.log(q) + (a - k) * math.log1p(-q)
                 + (k * k - k) / (2 * sigma ** 2))
    terms = np.where(k <= a, terms, -np.inf)
    return logsumexp(terms, axis=1)


def _log_a_frac(q, sigma, alphas, chunk=32):
    """log A for fractional orders ``alphas`` (1-d array), by the series of Mironov et al.

    Terms for every order at once, in chunks (each twice the last) until the
    truncation error is negligible.
    """
    alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    z0 = sigma ** 2 * math.log(1 / q - 1) + 0.5
    log_q, log_1q = math.log(q), math.log1p(-q)
    a = alphas[:, None]
    logs, signs = [], []
    start = 0
    while True:
        i = np.arange(start, start + chunk, dtype=np.float64)
        coef = binom(a, i)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_coef = np.log(np.abs(coef))
        j = a - i
        # log of 0.5 erfc((i - z0)/(sqrt 2 sigma)) = log Phi((z0 - i)/sigma)
        log_s0 = (log_coef + i * log_q + j * log_1q + (i * i - i) / (2 * sigma ** 2)
                  + log_ndtr((z0 - i) / sigma))
        log_s1 = (log_coef + j * log_q + i * log_1q + (j * j - j) / (2 * sigma ** 2)
                  + log_ndtr((j - z0) / sigma))
        sign = np.sign(coef)
        logs += [np.where(sign != 0, log_s0, -np.inf), np.where(sign != 0, log_s1, -np.inf)]
        signs += [sign, sign]
        start += chunk
        value, total_sign = logsumexp(np.concatenate(logs, axis=1), axis=1,
                                      b=np.concatenate(signs, axis=1), return_sign=True)
        # Past i > alpha the binomial coefficients alternate in sign, so the
        # truncation error is at most the first omitted term (bounded by the
        # last ones): stop when it is below 1e-6 of log A (relative error
        # 1e-6 on the RDP), or at 2^13 terms.
        last = np.logaddexp(log_s0[:, -1], log_s1[:, -1])
        with np.errstate(divide="ignore", invalid="ignore"):
            need = np.log(np.maximum(value, 1e-300)) + math.log(1e-6)
        if (start > alphas.max() + 1 and np.all((last < need) | ~np.isfinite(last))) or (
                start >= 1 << 13):
            break
        chunk *= 2
    # A >= 1 always: round-off where the alternating series cancels is clamped.
    return np.where(total_sign > 0, value, 0.0)


def _rdp_one_step_all(q, sigma, orders):
    """RDP of one step at every order (an array)."""
    rdp = np.zeros_like(orders)
    if q == 0:
        return rdp
    if sigma == 0:
        return np.full_like(orders, np.inf)
    finite = np.isfinite(orders)
    rdp[~finite] = np.inf
    if q == 1.0:
        rdp[finite] = orders[finite] / (2 * sigma ** 2)
        return rdp
    is_int = finite & (orders == np.round(orders))
    is_frac = finite & ~is_int
    if is_int.any():
        rdp[is_int] = _log_a_int(q, sigma, orders[is_int])
    if is_frac.any():
        rdp[is_frac] = _log_a_frac(q, sigma, orders[is_frac])
    rdp[finite] = np.maximum(rdp[finite], 0.0) / (orders[finite] - 1)
    return rdp


def _check_orders(orders):
    orders = np.atleast_1d(np.asarray(orders, dtype=np.float64))
    if orders.ndim != 1 or orders.size == 0 or np.any(np.isnan(orders)) or np.any(
        orders <= 1
    ):
        raise ValueError(f"orders must be a non-empty 1-d array of numbers > 1; got {orders!r}.")
    return orders


def _check_rate(sample_rate):
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Real) or not (
        0 <= sample_rate <= 1
    ):
        raise ValueError(f"sample_rate must be a float in [0, 1]; got {sample_rate!r}.")
    return float(sample_rate)


def _check_sigma(noise_multiplier):
    if isinstance(noise_multiplier, bool) or not isinstance(
        noise_multiplier, numbers.Real
    ) or not noise_multiplier >= 0:
        raise ValueError(
            f"noise_multiplier must be a float >= 0; got {noise_multiplier!r}.")
    return float(noise_multiplier)


def _check_steps(steps):
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"steps must be an int >= 0; got {steps!r}.")
    return int(steps)


def compute_rdp(sample_rate, noise_multiplier, steps, orders=DEFAULT_ORDERS):
    r"""RDP of ``steps`` compositions of the Poisson-subsampled Gaussian mechanism.

    Parameters
    ----------
    sample_rate : float
        Probability q in [0, 1] that a row is in a lot.
    noise_multiplier : float
        σ, the noise std in units of the clip norm (sensitivity), >= 0.
    steps : int
        Number of steps, >= 0.
    orders : array-like of float > 1, default=DEFAULT_ORDERS

    Returns
    -------
    rdp : ndarray of shape (n_orders,)
        ρ(α) of the composition (``inf`` where unbounded).

    Examples
    --------
    >>> from skml.privacy import compute_rdp
    >>> float(compute_rdp(1.0, 2.0, 1, orders=[3.0])[0])  # alpha / (2 sigma^2)
    0.375
    """
    q = _check_rate(sample_rate)
    sigma = _check_sigma(noise_multiplier)
    steps = _check_steps(steps)
    orders = _check_orders(orders)
    rdp = _rdp_one_step_all(q, sigma, orders)
    if steps == 0:
        return np.zeros_like(rdp)
    return rdp * steps


def rdp_to_epsilon(orders, rdp, delta, conversion="improved"):
    r"""Smallest ε over the orders of an (α, ρ(α))-RDP mechanism at ``delta``.

    ``conversion="improved"``: :math:`\varepsilon = \rho + \ln(1 - 1/\alpha) -
    (\ln\delta + \ln\alpha)/(\alpha - 1)` (Balle et al., 2020; opacus and
    dp-accounting), and 0 when :math:`\delta \ge \sqrt{1 - e^{-\rho}}`;
    ``"classic"``: :math:`\varepsilon = \rho + \ln(1/\delta)/(\alpha - 1)`
    (Mironov, 2017).

    Returns
    -------
    epsilon : float
    order : float
        The order that gives it.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.privacy import rdp_to_epsilon
    >>> orders = np.arange(2, 33)
    >>> eps, order = rdp_to_epsilon(orders, np.full(31, 1.1), 1e-5)
    >>> round(eps, 6), float(order)
    (1.327838, 32.0)
    """
    orders = _check_orders(orders)
    rdp = np.atleast_1d(np.asarray(rdp, dtype=np.float64))
    if rdp.shape != orders.shape:
        raise ValueError(f"rdp has shape {rdp.shape}, orders {orders.shape}; they must agree.")
    if np.any(np.isnan(rdp)) or np.any(rdp < 0):
        raise ValueError("rdp must be non-negative (no NaN).")
    delta = _check_delta(delta)
    if conversion == "improved":
        with np.errstate(invalid="ignore"):
            eps = (rdp + np.log1p(-1 / orders)
                   - (math.log(delta) + np.log(orders)) / (orders - 1))
            eps = np.where(delta ** 2 + np.expm1(-rdp) >= 0, 0.0, eps)
    elif conversion == "classic":
        eps = rdp - math.log(delta) / (orders - 1)
    else:
        raise ValueError(f"conversion must be 'improved' or 'classic'; got {conversion!r}.")
    eps = np.where(np.isnan(eps), np.inf, np.maximum(eps, 0.0))
    best = int(np.argmin(eps))
    return float(eps[best]), float(orders[best])


def get_noise_multiplier(target_epsilon, delta, sample_rate, steps,
                         orders=DEFAULT_ORDERS, conversion="improved", rtol=1e-4):
    """Smallest noise multiplier σ whose ``steps`` steps spend at most ``target_epsilon``.

    Bisection on σ (ε decreases with σ), to a relative tolerance ``rtol`` on
    σ, on the safe side: the returned σ always meets the target.

    Examples
    --------
    >>> from skml.privacy import get_noise_multiplier, compute_rdp, rdp_to_epsilon
    >>> sigma = get_noise_multiplier(1.0, 1e-5, sample_rate=0.01, steps=1000)
    >>> eps, _ = rdp_to_epsilon(range(2, 4), compute_rdp(0.01, sigma, 1000, range(2, 4)), 1e-5)
    >>> bool(eps >= 1.0)  # fewer orders than the default: a looser bound
    True
    """
    target = _check_epsilon(target_epsilon, "target_epsilon")
    q = _check_rate(sample_rate)
    steps = _check_steps(steps)
    orders = _check_orders(orders)

    seen = {}

    def eps_of(sigma):  # memoised: the bracket's ends are evaluated again by brentq
        if sigma not in seen:
            seen[sigma] = rdp_to_epsilon(orders, compute_rdp(q, sigma, steps, orders),
                                         delta, conversion)[0]
        return seen[sigma]

    if q == 0 or steps == 0:
        return 0.0
    lo, hi = 0.5, 1.0
    while eps_of(hi) > target:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            raise ValueError(
                f"target_epsilon={target_epsilon!r} cannot be reached with delta="
                f"{delta!r}: it needs a noise multiplier above 1e6.")
    while eps_of(lo) <= target:
        lo, hi = lo / 2, lo
        if lo < 1e-2:  # a tiny sigma meets the target: no need to search below it
            return hi
    # Brent's method on eps(sigma) - target (a few evaluations, each one RDP
    # curve), then a step to the safe side of the root if needed.
    sigma = brentq(lambda s: eps_of(s) - target, lo, hi, xtol=rtol * lo, rtol=rtol)
    while eps_of(sigma) > target:
        sigma *= 1 + rtol
    return sigma


class RDPAccountant:
    """Accumulate the RDP of subsampled Gaussian steps; report (ε, δ).

    Parameters
    ----------
    orders : array-like of float > 1, default=DEFAULT_ORDERS
    conversion : {"improved", "classic"}, default="improved"

    Attributes
    ----------
    history : list of (float, float, int)
        ``(noise_multiplier, sample_rate, steps)`` of each call of :meth:`step`.
    rdp : ndarray of shape (n_orders,)
        The composed RDP at each order.

    Examples
    --------
    >>> from skml.privacy import RDPAccountant
    >>> acc = RDPAccountant()
    >>> acc.step(noise_multiplier=1.1, sample_rate=256 / 60000, steps=14040)
    >>> eps = acc.get_epsilon(delta=1e-5)
    >>> bool(2.5 < eps < 3.5)
    True
    """

    def __init__(self, orders=DEFAULT_ORDERS, conversion="improved"):
        self.orders = _check_orders(orders)
        if conversion not in ("improved", "classic"):
            raise ValueError(
                f"conversion must be 'improved' or 'classic'; got {conversion!r}.")
        self.conversion = conversion
        self.history = []
        self.rdp = np.zeros_like(self.orders)

    def step(self, noise_multiplier, sample_rate, steps=1):
        """Record ``steps`` steps of the Gaussian mechanism with this σ and q."""
        self.rdp = self.rdp + compute_rdp(sample_rate, noise_multiplier, steps,
                                          self.orders)
        self.history.append((float(noise_multiplier), float(sample_rate), int(steps)))

    def get_privacy_spent(self, delta):
        """``(epsilon, best_order)`` spent so far at ``delta``."""
        return rdp_to_epsilon(self.orders, self.rdp, delta, self.conversion)

    def get_epsilon(self, delta):
        """ε spent so far at ``delta``."""
        return self.get_privacy_spent(delta)[0]
