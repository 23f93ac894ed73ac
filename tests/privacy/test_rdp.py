"""The RDP accountant of the subsampled Gaussian mechanism (notes B §13.5)."""

import math

import numpy as np
import pytest
from scipy.integrate import quad

from skml.privacy import (
    DEFAULT_ORDERS,
    RDPAccountant,
    compute_rdp,
    get_noise_multiplier,
    rdp_to_epsilon,
)


def _rdp_by_integration(q, sigma, alpha):
    """log A_alpha / (alpha - 1), A_alpha integrated numerically (independent of the series)."""
    def f(z):
        log_mu0 = -z * z / (2 * sigma ** 2) - math.log(math.sqrt(2 * math.pi) * sigma)
        log_ratio = np.logaddexp(math.log1p(-q),
                                 math.log(q) + (2 * z - 1) / (2 * sigma ** 2))
        return math.exp(log_mu0 + alpha * log_ratio)
    lim = 20 * sigma + 2 * alpha
    value, _ = quad(f, -lim, lim, epsabs=0, epsrel=1e-13, limit=500, points=[0.0])
    return math.log(value) / (alpha - 1)


def test_integer_orders_match_dp_accounting_published_values():
    # google/differential-privacy, dp_accounting rdp_privacy_accountant_test.py
    # (q = 0.01, sigma = 2.5, 50 steps) at the integer orders 5, 50, 100.
    rdp = compute_rdp(0.01, 2.5, 50, orders=[5, 50, 100])
    assert np.allclose(rdp, [2.18075656e-03, 2.38460375e-02, 1.67416308e02], rtol=1e-6)


@pytest.mark.parametrize("q, sigma, alpha", [
    (0.01, 2.5, 1.5), (0.01, 2.5, 2.5), (0.01, 2.5, 3.7), (0.1, 1.0, 1.3),
    (0.05, 0.8, 6.5), (0.5, 2.0, 10.25), (0.001, 1.1, 20.5),
])
def test_fractional_orders_match_numerical_integration(q, sigma, alpha):
    rdp = compute_rdp(q, sigma, 1, orders=[alpha])[0]
    # the series stops when its truncation error is below 1e-6 of log A
    assert rdp == pytest.approx(_rdp_by_integration(q, sigma, alpha), rel=2e-6)


def test_fractional_orders_below_dp_accounting_upper_bound():
    # dp_accounting sums the absolute values of the alternating series at
    # fractional orders (an upper bound): its published 6.70579741e-04 and
    # 1.08548710e-03 lie above the exact values, by < 4% and < 0.01%.
    rdp = compute_rdp(0.01, 2.5, 50, orders=[1.5, 2.5])
    assert np.all(rdp <= [6.70579741e-04, 1.08548710e-03])
    assert rdp[0] == pytest.approx(6.70579741e-04, rel=0.04)
    assert rdp[1] == pytest.approx(1.08548710e-03, rel=1e-4)


def test_series_at_integer_order_equals_binomial_sum():
    from skml.privacy._rdp import _log_a_frac, _log_a_int
    for q, sigma, alpha in [(0.01, 2.5, 5), (0.2, 1.0, 12), (0.003, 0.7, 30)]:
        assert _log_a_frac(q, sigma, [float(alpha)])[0] == pytest.approx(
            _log_a_int(q, sigma, [alpha])[0], rel=1e-8)


def test_special_cases():
    orders = [1.5, 2.0, 7.0]
    assert np.allclose(compute_rdp(1.0, 2.0, 3, orders), 3 * np.array(orders) / 8)
    assert np.all(compute_rdp(0.0, 1.0, 10, orders) == 0)
    assert np.all(np.isinf(compute_rdp(0.5, 0.0, 1, orders)))
    assert np.all(compute_rdp(0.5, 1.0, 0, orders) == 0)


def test_conversion_pure_dp_published_value():
    # dp_accounting: constant RDP 1.1 at orders 2..32, delta 1e-5.
    eps, order = rdp_to_epsilon(range(2, 33), [1.1] * 31, 1e-5)
    assert eps == pytest.approx(1.32783806176, rel=1e-9)
    assert order == 32


def test_conversion_gaussian_near_exact():
    # dp_accounting: sigma = 4.530877117 (q = 1) is (1, 1e-6)-DP by RDP conversion.
    orders = np.arange(1001, 100000) * 0.001
    eps, _ = rdp_to_epsilon(orders, compute_rdp(1.0, 4.530877117, 1, orders), 1e-6)
    assert eps == pytest.approx(1.0, abs=1e-6)


def test_abadi_moments_accountant_number():
    # Abadi et al. (2016), §3.1: q = 0.01, sigma = 4, T = 10000, delta = 1e-5
    # gives epsilon ~ 1.26 with the moments accountant (integer orders <= 32,
    # the classic tail bound); the improved conversion is tighter.
    classic, _ = rdp_to_epsilon(range(2, 33), compute_rdp(0.01, 4, 10000, range(2, 33)),
                                1e-5, conversion="classic")
    assert classic == pytest.approx(1.26, abs=0.01)
    improved = RDPAccountant()
    improved.step(4.0, 0.01, 10000)
    assert improved.get_epsilon(1e-5) < classic


def test_monotonicity():
    base = dict(sample_rate=0.01, noise_multiplier=1.0, steps=1000)

    def eps(**kw):
        p = {**base, **kw}
        return rdp_to_epsilon(DEFAULT_ORDERS, compute_rdp(**p), 1e-5)[0]

    e0 = eps()
    assert eps(noise_multiplier=1.5) < e0 < eps(noise_multiplier=0.8)
    assert eps(sample_rate=0.005) < e0 < eps(sample_rate=0.02)
    assert eps(steps=500) < e0 < eps(steps=2000)
    rdp = compute_rdp(0.01, 1.0, 1, DEFAULT_ORDERS)
    assert np.all(np.diff(rdp) >= -1e-15)  # RDP grows with the order
    # epsilon falls as delta grows
    acc = RDPAccountant()
    acc.step(1.0, 0.01, 1000)
    assert acc.get_epsilon(1e-3) < acc.get_epsilon(1e-5) < acc.get_epsilon(1e-8)


def test_accountant_composes_by_addition():
    a = RDPAccountant()
    a.step(1.0, 0.01, 300)
    a.step(1.0, 0.01, 700)
    b = RDPAccountant()
    b.step(1.0, 0.01, 1000)
    assert np.allclose(a.rdp, b.rdp)
    assert a.get_epsilon(1e-5) == pytest.approx(b.get_epsilon(1e-5))
    assert len(a.history) == 2


def test_noise_multiplier_meets_target():
    sigma = get_noise_multiplier(2.0, 1e-5, 0.01, 2000)
    acc = RDPAccountant()
    acc.step(sigma, 0.01, 2000)
    eps = acc.get_epsilon(1e-5)
    assert eps <= 2.0
    assert eps > 2.0 * 0.995  # and is not much noisier than needed
    acc2 = RDPAccountant()
    acc2.step(sigma * 0.99, 0.01, 2000)
    assert acc2.get_epsilon(1e-5) > 2.0


def test_bad_input():
    with pytest.raises(ValueError, match="sample_rate"):
        compute_rdp(1.5, 1.0, 1)
    with pytest.raises(ValueError, match="noise_multiplier"):
        compute_rdp(0.1, -1.0, 1)
    with pytest.raises(ValueError, match="orders"):
        compute_rdp(0.1, 1.0, 1, orders=[0.5])
    with pytest.raises(ValueError, match="delta"):
        rdp_to_epsilon([2.0], [0.1], 0.0)
    with pytest.raises(ValueError, match="target_epsilon"):
        get_noise_multiplier(0.0, 1e-5, 0.01, 10)
