"""Mechanisms, the budget accountant and the DP statistics (notes B §13.1-13.4)."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import bisect
from scipy.stats import norm

from skml.privacy import (
    BudgetAccountant,
    BudgetExceededError,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    clip,
    clip_norm,
    count_sensitivity,
    dp_count,
    dp_histogram,
    dp_mean,
    dp_sum,
    group_privacy,
    normalise_counts,
    subsample_and_aggregate,
    sum_sensitivity,
)

# ---------------------------------------------------------------------------
# BudgetAccountant (B §13.1)


def test_budget_composition_and_remaining():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    for _ in range(10):
        acc.spend(0.1, 1e-6)  # ten spends of 0.1 reach 1.0 up to rounding
    eps, delta = acc.total()
    assert eps == pytest.approx(1.0)
    assert delta == pytest.approx(1e-5)
    assert acc.remaining()[0] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(BudgetExceededError, match="epsilon"):
        acc.spend(0.01)
    assert len(acc) == 10  # the refused spend is not recorded


def test_budget_delta_exceeded_and_post_processing_free():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    with pytest.raises(BudgetExceededError, match="delta"):
        acc.spend(0.1, 1e-5)
    mech = LaplaceMechanism(0.5, random_state=0)
    acc.spend(mech.epsilon)
    noisy = mech.randomise(np.arange(5.0))
    _ = np.round(noisy).clip(0)  # post-processing spends nothing
    assert acc.total() == (0.5, 0.0)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan")])
def test_budget_bad_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        BudgetAccountant(epsilon=bad)


@pytest.mark.parametrize("bad", [-1e-3, 1.0, 2.0])
def test_budget_bad_delta(bad):
    with pytest.raises(ValueError, match="delta"):
        BudgetAccountant(epsilon=1.0, delta=bad)


def test_group_privacy():
    assert group_privacy(0.5, 3) == (1.5, 0.0)
    eps, delta = group_privacy(0.1, 2, 1e-6)
    assert eps == pytest.approx(0.2)
    assert delta == pytest.approx(2 * math.exp(0.1) * 1e-6)


# ---------------------------------------------------------------------------
# Laplace (B §13.2)


def test_laplace_moments_and_ks():
    mech = LaplaceMechanism(epsilon=0.5, sensitivity=2.0, random_state=0)
    noise = mech.randomise(np.zeros(100_000))
    lam = 2.0 / 0.5
    assert mech.variance == 2 * lam ** 2
    assert abs(noise.mean()) < 0.05 * lam  # se = sqrt(2) lam / 316 = 0.0045 lam
    assert noise.var() == pytest.approx(2 * lam ** 2, rel=0.03)
    assert stats.kstest(noise, stats.laplace(scale=lam).cdf).pvalue > 0.01


def test_laplace_scalar_and_reproducible():
    a = LaplaceMechanism(1.0, random_state=3).randomise(3.0)
    b = LaplaceMechanism(1.0, random_state=3).randomise(3.0)
    assert isinstance(a, float) and a == b
    mech = LaplaceMechanism(1.0, random_state=3)
    assert mech.randomise(3.0) != mech.randomise(3.0)  # fresh noise per call


def test_laplace_empirical_dp_ratio_on_neighbouring_counts():
    # Counts 3 and 4 (one row added): on every bin with enough mass the
    # frequency ratio stays below e^eps up to sampling error.
    eps, n = 1.0, 400_000
    a = LaplaceMechanism(eps, random_state=1).randomise(np.full(n, 3.0))
    b = LaplaceMechanism(eps, random_state=2).randomise(np.full(n, 4.0))
    edges = np.linspace(-2, 9, 23)
    ha, _ = np.histogram(a, edges)
    hb, _ = np.histogram(b, edges)
    mask = (ha > 2000) & (hb > 2000)
    ratio = np.maximum(ha[mask] / hb[mask], hb[mask] / ha[mask])
    assert mask.sum() > 10
    # relative se of a ratio of two counts >= 2000: ~sqrt(2/2000) = 3%; 4 se margin
    assert ratio.max() <= math.exp(eps) * 1.13
    # and the bound is reached far from the counts (the ratio is tight)
    assert ratio.max() >= math.exp(eps) * 0.87


@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_laplace_bad_input(bad):
    with pytest.raises(ValueError, match="epsilon"):
        LaplaceMechanism(bad)
    with pytest.raises(ValueError, match="sensitivity"):
        LaplaceMechanism(1.0, sensitivity=bad)
    with pytest.raises(ValueError, match="finite"):
        LaplaceMechanism(1.0).randomise([1.0, np.nan])


# ---------------------------------------------------------------------------
# Gaussian (B §13.3)


def _sigma_by_bisection(eps, delta, sens=1.0):
    """The exact (eps, delta) condition of the Gaussian mechanism, bisected on sigma."""
    def excess(sigma):
        a = sens / (2 * sigma)
        b = eps * sigma / sens
        return norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b) - delta
    return bisect(excess, 1e-3, 1e4, xtol=1e-12, maxiter=500)


@pytest.mark.parametrize("eps, delta, sens", [
    (0.1, 1e-5, 1.0), (0.5, 1e-5, 2.0), (1.0, 1e-5, 1.0), (1.0, 1e-6, 1.0),
    (3.0, 1e-3, 0.5), (8.0, 1e-5, 1.0), (0.01, 0.1, 1.0), (5.0, 0.3, 1.0),
])
def test_analytic_sigma_matches_exact_condition(eps, delta, sens):
    sigma = analytic_gaussian_sigma(eps, delta, sens)
    assert sigma == pytest.approx(_sigma_by_bisection(eps, delta, sens), rel=1e-6)


def test_analytic_below_classic_and_classic_formula():
    for eps in (0.1, 0.5, 0.9):
        classic = classic_gaussian_sigma(eps, 1e-5, 2.0)
        assert classic == pytest.approx(2.0 * math.sqrt(2 * math.log(1.25e5)) / eps)
        assert analytic_gaussian_sigma(eps, 1e-5, 2.0) < classic


def test_gaussian_noise_std():
    mech = GaussianMechanism(0.5, 1e-5, sensitivity=1.0, calibration="classic",
                             random_state=0)
    noise = mech.randomise(np.zeros(50_000))
    assert noise.std() == pytest.approx(mech.sigma, rel=0.02)


def test_gaussian_bad_input():
    with pytest.raises(ValueError, match="epsilon < 1"):
        GaussianMechanism(1.5, 1e-5, calibration="classic")
    with pytest.raises(ValueError, match="delta"):
        GaussianMechanism(1.0, 0.0)
    with pytest.raises(ValueError, match="delta"):
        GaussianMechanism(1.0, 1.0)
    with pytest.raises(ValueError, match="calibration"):
        GaussianMechanism(1.0, 1e-5, calibration="tight")
    with pytest.raises(ValueError, match="sensitivity"):
        GaussianMechanism(1.0, 1e-5, sensitivity=0)


# ---------------------------------------------------------------------------
# Randomised response (B §13.4)


def test_rr_p_three_quarters_gives_ln3():
    rr = RandomizedResponse(p=0.75)
    assert rr.epsilon == pytest.approx(math.log(3))
    assert rr.likelihood_ratio() == pytest.approx(math.exp(rr.epsilon))
    assert RandomizedResponse(epsilon=math.log(3)).p == pytest.approx(0.75)


def test_rr_empirical_likelihood_ratio_and_unbiased_mean():
    rr = RandomizedResponse(p=0.75, random_state=0)
    n = 200_000
    r1 = rr.randomise(np.ones(n, dtype=int))
    r0 = rr.randomise(np.zeros(n, dtype=int))
    # P[report 1 | x=1] / P[report 1 | x=0] = 0.75 / 0.25 = e^eps
    assert r1.mean() / r0.mean() == pytest.approx(3.0, rel=0.03)
    x = (np.random.default_rng(1).random(n) < 0.3).astype(int)
    est = rr.estimate_mean(rr.randomise(x))
    # se of the estimator: sqrt(p(1-p)/n)/(2p-1) ~ 0.002
    assert est == pytest.approx(x.mean(), abs=0.01)


def test_rr_bad_input():
    with pytest.raises(ValueError, match="exactly one"):
        RandomizedResponse()
    with pytest.raises(ValueError, match="p must be"):
        RandomizedResponse(p=0.5)
    with pytest.raises(ValueError, match="0 and 1"):
        RandomizedResponse(p=0.75).randomise([0, 2])


# ---------------------------------------------------------------------------
# Exponential mechanism (B §13.8)


def test_exponential_mechanism_frequencies_chi_square():
    u = np.array([0.0, 1.0, 2.0, 4.0])
    em = ExponentialMechanism(epsilon=1.0, sensitivity=1.0, random_state=0)
    p = np.exp(u / 2) / np.exp(u / 2).sum()
    assert np.allclose(em.probabilities(u), p)
    draws = em.select(u, size=20_000)
    counts = np.bincount(draws, minlength=4)
    assert stats.chisquare(counts, 20_000 * p).pvalue > 0.001


def test_exponential_mechanism_no_overflow_and_inf():
    em = ExponentialMechanism(epsilon=10.0, sensitivity=1e-3)
    assert np.isfinite(em.probabilities([1e3, 2e3])).all()
    em_inf = ExponentialMechanism(epsilon=np.inf, random_state=0)
    assert set(em_inf.select([1, 3, 3, 0], size=50)) <= {1, 2}


# ---------------------------------------------------------------------------
# DP statistics (B §13.2)


def test_sensitivities():
    assert count_sensitivity() == 1 and count_sensitivity(bounded=True) == 1
    assert count_sensitivity(bounded=True, histogram=True) == 2
    assert sum_sensitivity(-1, 3) == 3 and sum_sensitivity(-1, 3, bounded=True) == 4


def test_dp_count_sum_mean_unbiased_scale():
    x = np.random.default_rng(0).uniform(0, 1, 1000)
    counts = [dp_count(x > 0.5, 1.0, random_state=s) for s in range(400)]
    true = np.count_nonzero(x > 0.5)
    assert np.mean(counts) == pytest.approx(true, abs=0.3)  # se 1.41/20 = 0.07
    assert np.var(counts) == pytest.approx(2.0, rel=0.25)
    sums = [dp_sum(x, 0.5, (0, 1), random_state=s) for s in range(400)]
    assert np.var(sums) == pytest.approx(2 * (1 / 0.5) ** 2, rel=0.25)
    means = [dp_mean(x, 1.0, (0, 1), random_state=s) for s in range(200)]
    assert np.mean(means) == pytest.approx(x.mean(), abs=0.01)
    bmeans = [dp_mean(x, 1.0, (0, 1), bounded=True, random_state=s) for s in range(400)]
    assert np.var(bmeans) == pytest.approx(2 * (1 / 1000) ** 2, rel=0.25)


def test_clip_and_clip_norm():
    assert np.array_equal(clip([-2, 0.5, 3], 0, 1), [0, 0.5, 1])
    X = np.random.default_rng(0).normal(size=(50, 4)) * 5
    Xc = clip_norm(X, 1.0)
    norms = np.linalg.norm(Xc, axis=1)
    assert np.all(norms <= 1.0 + 1e-12)
    small = np.linalg.norm(X, axis=1) <= 1
    assert np.allclose(Xc[small], X[small])
    with pytest.raises(ValueError, match="bounds"):
        clip([1.0], 2, 1)


def test_dp_histogram_and_notes_example():
    counts, edges = dp_histogram([0.1, 0.2, 0.7], 1.0, bins=2, range=(0, 1),
                                 random_state=0)
    assert counts.shape == (2,) and edges.shape == (3,)
    with pytest.raises(ValueError, match="range"):
        dp_histogram([0.1], 1.0, bins=2)
    # notes B §13.7: Y=3, N=3, noise (+1.5, -1.5) -> (0.75, 0.25)
    assert np.allclose(normalise_counts(np.array([3, 3]) + [1.5, -1.5]), [0.75, 0.25])
    assert np.allclose(normalise_counts([-1.0, -2.0]), [0.5, 0.5])


def test_subsample_and_aggregate():
    X = np.random.default_rng(0).normal(0.3, 1.0, size=5000)
    ests = [subsample_and_aggregate(np.median, X, 100, 1.0, (-1, 1), random_state=s)
            for s in range(50)]
    assert np.mean(ests) == pytest.approx(0.3, abs=0.05)
    # noise scale (b - a) / n_blocks / eps = 0.02: variance 2 * 0.02^2 plus sampling
    assert np.std(ests) < 0.1
    with pytest.raises(ValueError, match="n_blocks"):
        subsample_and_aggregate(np.median, X[:5], 10, 1.0, (0, 1))


def test_tools_spend_on_an_accountant():
    x = np.random.default_rng(0).uniform(0, 1, 100)
    acc = BudgetAccountant(epsilon=1.0)
    dp_count(x > 0.5, 0.25, random_state=0, accountant=acc)
    dp_sum(x, 0.25, (0, 1), random_state=0, accountant=acc)
    dp_mean(x, 0.25, (0, 1), random_state=0, accountant=acc)  # one spend for both halves
    dp_histogram(x, 0.2, bins=4, range=(0, 1), random_state=0, accountant=acc)
    assert acc.total()[0] == pytest.approx(0.95)
    with pytest.raises(BudgetExceededError):
        subsample_and_aggregate(np.mean, x, 10, 0.1, (0, 1), accountant=acc)
    assert len(acc) == 4  # the refused query released and recorded nothing
    with pytest.raises(TypeError, match="accountant"):
        dp_count(x, 1.0, accountant=1.0)
