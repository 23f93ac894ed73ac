"""GaussianMixture: parity with scikit-learn and the EM properties of notes B §10.5."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import multivariate_normal
from sklearn import mixture as sk
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skml.cluster import KMeans
from skml.mixture import GaussianMixture
from tests._parity import parity_test

COVARIANCE_TYPES = ["full", "tied", "diag", "spherical"]
INIT_PARAMS = ["kmeans", "k-means++", "random", "random_from_data"]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # Small problems: on a busy machine BLAS threads only contend.
    with threadpool_limits(1):
        yield


def _blobs(seed, n_per=40, d=2, k=3, scale=4.0):
    rng = np.random.RandomState(seed)
    centres = rng.normal(scale=scale, size=(k, d))
    X = centres[np.arange(n_per * k) % k] + rng.normal(size=(n_per * k, d))
    return X


def _full_covariances(gm):
    """Every component's covariance as a (d, d) matrix, whatever the type."""
    k, d = gm.means_.shape
    c = gm.covariances_
    if gm.covariance_type == "full":
        return c
    if gm.covariance_type == "tied":
        return np.broadcast_to(c, (k, d, d))
    if gm.covariance_type == "diag":
        return np.stack([np.diag(v) for v in c])
    return np.stack([v * np.eye(d) for v in c])


def _init_params(X, k, covariance_type, seed=0):
    """A complete initialisation: sample means, equal weights, data precisions."""
    rng = np.random.RandomState(seed)
    d = X.shape[1]
    means = X[rng.choice(len(X), size=k, replace=False)]
    var = X.var(axis=0)
    precisions = {
        "full": np.broadcast_to(np.diag(1 / var), (k, d, d)).copy(),
        "tied": np.diag(1 / var),
        "diag": np.tile(1 / var, (k, 1)),
        "spherical": np.full(k, 1 / var.mean()),
    }[covariance_type]
    return {"means_init": means, "weights_init": np.full(k, 1.0 / k),
            "precisions_init": precisions}


def _assert_same_fit(ours, ref, rtol=1e-6):
    assert ours.n_iter_ == ref.n_iter_
    assert ours.converged_ == ref.converged_
    assert_allclose(ours.lower_bound_, ref.lower_bound_, rtol=rtol)
    assert_allclose(ours.lower_bounds_, ref.lower_bounds_, rtol=rtol)
    assert_allclose(ours.weights_, ref.weights_, rtol=rtol, atol=1e-12)
    assert_allclose(ours.means_, ref.means_, rtol=rtol, atol=1e-9)
    assert_allclose(ours.covariances_, ref.covariances_, rtol=rtol, atol=1e-9)
    assert_allclose(ours.precisions_, ref.precisions_, rtol=rtol, atol=1e-6)
    assert_allclose(
        ours.precisions_cholesky_, ref.precisions_cholesky_, rtol=rtol, atol=1e-8
    )


# -- parity with scikit-learn -------------------------------------------------


@parity_test(GaussianMixture)
@pytest.mark.parametrize("load", [load_iris, load_wine])
@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_parity_given_init(load, covariance_type):
    X = load().data
    kw = {"n_components": 3, "covariance_type": covariance_type,
          **_init_params(X, 3, covariance_type)}
    ours, ref = GaussianMixture(**kw).fit(X), sk.GaussianMixture(**kw).fit(X)
    _assert_same_fit(ours, ref)
    assert_allclose(ours.score_samples(X), ref.score_samples(X), rtol=1e-8)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    assert_array_equal(ours.predict(X), ref.predict(X))
    assert_allclose(ours.score(X), ref.score(X), rtol=1e-10)
    assert_allclose(ours.bic(X), ref.bic(X), rtol=1e-10)
    assert_allclose(ours.aic(X), ref.aic(X), rtol=1e-10)
    assert ours._n_parameters() == ref._n_parameters()


@parity_test(GaussianMixture)
@pytest.mark.parametrize(
    "init_params, covariance_type",
    [(i, c) for i in INIT_PARAMS for c in COVARIANCE_TYPES
     # A deliberate deviation: see test_tied_one_hot_start.
     if not (c == "tied" and i in ("k-means++", "random_from_data"))],
)
def test_parity_same_random_state(init_params, covariance_type):
    # The initialisations draw the same random numbers as scikit-learn's
    # (skml's KMeans and kmeans_plusplus included), so a seed gives the same fit.
    X = load_iris().data
    kw = {"n_components": 3, "covariance_type": covariance_type,
          "init_params": init_params, "random_state": 0}
    if init_params == "random":
        # (k-means restarts reach the same optimum with permuted labels, and
        # rounding would pick the winner.)
        kw["n_init"] = 2
    ours, ref = GaussianMixture(**kw).fit(X), sk.GaussianMixture(**kw).fit(X)
    if init_params in ("kmeans", "random"):
        _assert_same_fit(ours, ref)
        assert_array_equal(GaussianMixture(**kw).fit_predict(X),
                           sk.GaussianMixture(**kw).fit_predict(X))
    else:
        # One sample per component starts every covariance at reg_covar: the
        # first E-step divides by 1e-6, magnifying the rounding of the
        # (exactly zero) scatter, so the runs agree to ~1e-6, not to rounding.
        assert ours.n_iter_ == ref.n_iter_
        assert_allclose(ours.lower_bound_, ref.lower_bound_, rtol=1e-5)
        assert_allclose(ours.means_, ref.means_, atol=1e-3)


@pytest.mark.parametrize("init_params", ["k-means++", "random_from_data"])
@pytest.mark.parametrize("load", [load_iris, load_wine])
def test_tied_one_hot_start(load, init_params):
    # One seed sample per component: the pooled within-component scatter is
    # 0, so the tied start is reg_covar * I, as "full" and "diag" start.
    # scikit-learn's tied formula assumes the responsibilities sum to 1 per
    # sample and starts from X.T @ X / k instead, an inflated covariance from
    # which EM settles in a worse optimum on these data.
    X = load().data
    kw = {"n_components": 3, "covariance_type": "tied", "init_params": init_params}
    start = GaussianMixture(max_iter=0, random_state=0, **kw).fit(X)
    assert_allclose(start.covariances_, 1e-6 * np.eye(X.shape[1]), atol=1e-9)
    for seed in range(3):
        ours = GaussianMixture(random_state=seed, **kw).fit(X)
        ref = sk.GaussianMixture(random_state=seed, **kw).fit(X)
        assert ours.converged_
        assert ours.lower_bound_ > ref.lower_bound_


@parity_test(GaussianMixture)
def test_parity_float32_and_max_iter_zero():
    X = load_wine().data.astype(np.float32)
    kw = {"n_components": 2, "random_state": 1, "covariance_type": "diag"}
    ours, ref = GaussianMixture(**kw).fit(X), sk.GaussianMixture(**kw).fit(X)
    assert ours.means_.dtype == np.float32
    assert_allclose(ours.means_, ref.means_, rtol=1e-4)
    # max_iter=0 keeps the initialisation (k-means responsibilities).
    kw["max_iter"] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours, ref = GaussianMixture(**kw).fit(X), sk.GaussianMixture(**kw).fit(X)
    assert ours.n_iter_ == 0 and ours.lower_bound_ == -np.inf
    assert_allclose(ours.means_, ref.means_, rtol=1e-4)


def test_warm_start_continues_em():
    X = load_iris().data
    kw = {"n_components": 3, "tol": 0.0, "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warm = GaussianMixture(max_iter=4, warm_start=True, **kw).fit(X).fit(X)
        once = GaussianMixture(max_iter=8, **kw).fit(X)
        ref = sk.GaussianMixture(max_iter=4, warm_start=True, **kw).fit(X).fit(X)
    assert_allclose(warm.means_, once.means_, rtol=1e-10)
    assert_allclose(warm.covariances_, once.covariances_, rtol=1e-10)
    _assert_same_fit(warm, ref)


# -- properties of EM (notes B §10.5) ------------------------------------------


def _min_variance(gm):
    return np.linalg.eigvalsh(_full_covariances(gm)).min()


@given(
    seed=st.integers(0, 2**16),
    k=st.integers(1, 4),
    d=st.integers(1, 4),
    covariance_type=st.sampled_from(COVARIANCE_TYPES),
    init_params=st.sampled_from(["kmeans", "k-means++", "random"]),
)
def test_log_likelihood_never_decreases(seed, k, d, covariance_type, init_params):
    # The notes' EM exactly (reg_covar=0): every E-step + M-step pair raises
    # the log-likelihood. Runs where a component collapses onto a few points
    # are rejected: the likelihood is unbounded there and the covariance is
    # rounding noise.
    rng = np.random.RandomState(seed)
    n = rng.randint(15, 40) * k
    centres = rng.normal(scale=3.0, size=(k, d))
    X = centres[rng.randint(k, size=n)]
    X += rng.normal(size=(n, d)) * rng.uniform(0.3, 2.0, size=d)
    gm = GaussianMixture(k, covariance_type=covariance_type, init_params=init_params,
                         reg_covar=0.0, tol=0.0, max_iter=30, random_state=seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            gm.fit(X)
    except ValueError as exc:
        assume("ill-defined empirical covariance" not in str(exc))
        raise
    assume(_min_variance(gm) > 1e-3)
    history = gm.lower_bounds_
    assert len(history) == 30
    steps = np.diff(history)
    assert np.all(steps >= -1e-10 * (1 + np.abs(history[1:])))
    # The returned model (one more M-step) is at least as likely.
    assert gm.score(X) >= history[-1] - 1e-10 * (1 + abs(history[-1]))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
@pytest.mark.parametrize("load", [load_iris, load_wine])
def test_log_likelihood_never_decreases_with_reg_covar(load, covariance_type):
    # With the default reg_covar on real data (no collapsing component).
    X = load().data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gm = GaussianMixture(3, covariance_type=covariance_type, tol=0.0,
                             max_iter=50, random_state=0).fit(X)
    steps = np.diff(gm.lower_bounds_)
    assert np.all(steps >= -1e-10 * np.abs(gm.lower_bounds_[1:]))
    assert gm.lower_bounds_[-1] > gm.lower_bounds_[0]


@given(seed=st.integers(0, 2**16), covariance_type=st.sampled_from(COVARIANCE_TYPES))
def test_responsibilities_are_a_posterior(seed, covariance_type):
    X = _blobs(seed, n_per=15, d=3)
    gm = GaussianMixture(3, covariance_type=covariance_type, random_state=seed)
    labels = gm.fit_predict(X)
    proba = gm.predict_proba(X)
    assert np.all(proba >= 0)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_array_equal(labels, gm.predict(X))
    assert_array_equal(labels, proba.argmax(axis=1))


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_score_samples_is_the_mixture_density(covariance_type):
    X = _blobs(0, d=3)
    gm = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    density = sum(
        w * multivariate_normal(mean, cov).pdf(X)
        for w, mean, cov in zip(gm.weights_, gm.means_, _full_covariances(gm))
    )
    assert_allclose(gm.score_samples(X), np.log(density), rtol=1e-10)
    assert_allclose(gm.score(X), np.mean(np.log(density)), rtol=1e-10)
    # predict_proba is Bayes' rule on the components.
    parts = np.column_stack([
        w * multivariate_normal(mean, cov).pdf(X)
        for w, mean, cov in zip(gm.weights_, gm.means_, _full_covariances(gm))
    ])
    assert_allclose(gm.predict_proba(X), parts / density[:, None], atol=1e-12)


def test_density_integrates_to_one():
    rng = np.random.RandomState(0)
    X = np.concatenate([rng.normal(-2, 0.5, 200), rng.normal(3, 1.5, 100)])[:, None]
    gm = GaussianMixture(2, random_state=0).fit(X)
    grid = np.linspace(-15, 20, 20001)
    assert_allclose(np.trapezoid(np.exp(gm.score_samples(grid[:, None])), grid), 1.0,
                    rtol=1e-8)
    # Two dimensions, on a grid.
    gm2 = GaussianMixture(2, covariance_type="full", random_state=0).fit(_blobs(1))
    spread = 8 * np.sqrt(np.linalg.eigvalsh(gm2.covariances_).max())
    g = np.linspace(gm2.means_.min() - spread, gm2.means_.max() + spread, 801)
    xx, yy = np.meshgrid(g, g)
    p = np.exp(gm2.score_samples(np.column_stack([xx.ravel(), yy.ravel()])))
    assert_allclose(p.sum() * (g[1] - g[0]) ** 2, 1.0, rtol=1e-6)


def test_stable_when_densities_underflow():
    # Far-apart tight clusters: every density but one underflows to 0.
    X = np.concatenate([_blobs(0, d=2, k=1) * 1e-3, _blobs(1, d=2, k=1) * 1e-3 + 1e4])
    gm = GaussianMixture(2, random_state=0).fit(X)
    far = np.array([[5e3, 5e3], [-1e5, 0.0]])
    assert np.all(np.isfinite(gm.score_samples(far)))
    proba = gm.predict_proba(far)
    assert np.all(np.isfinite(proba))
    assert_allclose(proba.sum(axis=1), 1.0)


def test_spherical_small_variance_equal_weights_is_kmeans():
    # Notes B §10.5: with equal weights and spherical σ → 0 the posterior
    # becomes the hard nearest-centre assignment of k-means.
    X = _blobs(2, k=4, scale=2.0)
    km = KMeans(4, random_state=0).fit(X)
    gm = GaussianMixture(4, covariance_type="spherical", max_iter=0,
                         means_init=km.cluster_centers_, weights_init=np.full(4, 0.25),
                         precisions_init=np.full(4, 1e6)).fit(X)
    assert_array_equal(gm.predict(X), km.labels_)
    assert_allclose(gm.predict_proba(X).max(axis=1), 1.0)


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_sample_moments(covariance_type):
    X = _blobs(3, d=2)
    gm = GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X)
    Xs, ys = gm.sample(60_000)
    assert Xs.shape == (60_000, 2) and ys.shape == (60_000,)
    assert Xs.dtype == np.float64 and ys.dtype == np.int64
    assert_allclose(np.bincount(ys, minlength=3) / 60_000, gm.weights_, atol=0.01)
    for j, cov in enumerate(_full_covariances(gm)):
        part = Xs[ys == j]
        se = np.sqrt(np.diag(cov) / len(part))
        assert np.all(np.abs(part.mean(axis=0) - gm.means_[j]) < 5 * se)
        assert_allclose(np.cov(part.T), cov, rtol=0.06, atol=0.03)
    # The same random_state draws the same samples.
    assert_array_equal(gm.sample(5)[0], gm.sample(5)[0])


@pytest.mark.parametrize("covariance_type", COVARIANCE_TYPES)
def test_integer_sample_weight_is_repetition(covariance_type):
    X = _blobs(4, n_per=10, d=3)
    w = np.random.RandomState(0).randint(0, 4, size=len(X))
    kw = {"n_components": 3, "covariance_type": covariance_type, "tol": 1e-8,
          "max_iter": 200, **_init_params(X, 3, covariance_type)}
    weighted = GaussianMixture(**kw).fit(X, sample_weight=w)
    repeated = GaussianMixture(**kw).fit(np.repeat(X, w, axis=0))
    assert weighted.n_iter_ == repeated.n_iter_
    assert_allclose(weighted.means_, repeated.means_, rtol=1e-8)
    assert_allclose(weighted.covariances_, repeated.covariances_, rtol=1e-8)
    assert_allclose(weighted.lower_bounds_, repeated.lower_bounds_, rtol=1e-10)
    Xr = np.repeat(X, w, axis=0)
    assert_allclose(weighted.score(X, sample_weight=w), repeated.score(Xr), rtol=1e-10)
    unit = GaussianMixture(**kw).fit(X, sample_weight=np.ones(len(X)))
    plain = GaussianMixture(**kw).fit(X)
    assert_allclose(unit.means_, plain.means_, rtol=1e-12)


def test_n_init_keeps_the_best_lower_bound():
    X = load_iris().data
    best = GaussianMixture(4, init_params="random", n_init=4, random_state=0).fit(X)
    rng = np.random.RandomState(0)
    singles = []
    for _ in range(4):
        # Each restart continues the same random stream.
        gm = GaussianMixture(4, init_params="random", random_state=rng).fit(X)
        singles.append(gm.lower_bound_)
    assert best.lower_bound_ == pytest.approx(max(singles), rel=1e-12)


def test_convergence_warning_and_verbose(capsys):
    X = load_iris().data
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        gm = GaussianMixture(3, max_iter=2, tol=0.0, random_state=0).fit(X)
    assert not gm.converged_ and gm.n_iter_ == 2
    GaussianMixture(3, verbose=2, verbose_interval=1, random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "Initialization 0" in out and "Iteration 1\t time lapse" in out
    assert "Initialization converged. time lapse" in out
    GaussianMixture(3, verbose=1, verbose_interval=2, random_state=0).fit(X)
    out = capsys.readouterr().out
    assert "Iteration 2\n" in out and "Iteration 1\n" not in out
    assert "Initialization converged.\n" in out


# -- bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 0}, "n_components"),
        ({"covariance_type": "banded"}, "covariance_type"),
        ({"init_params": "kmedoids"}, "init_params"),
        ({"reg_covar": -1.0}, "reg_covar"),
        ({"max_iter": -1}, "max_iter"),
        ({"weights_init": [0.5, 0.6]}, "normalized"),
        ({"weights_init": [1.5, -0.5]}, r"range \[0, 1\]"),
        ({"weights_init": [1.0]}, r"'weights' should have the shape of \(2,\).*weights_init"),
        ({"means_init": np.zeros((3, 2))}, "'means' should have the shape.*means_init"),
        ({"precisions_init": np.ones((2, 3, 3))},
         "'full precision' should have the shape.*precisions_init"),
        ({"precisions_init": np.array([np.eye(2), -np.eye(2)])},
         "'full precision' should be symmetric, positive-definite"),
        ({"precisions_init": np.array([[[1.0, 2.0], [0.0, 1.0]]] * 2)},
         "symmetric, positive-definite"),
        ({"covariance_type": "tied", "precisions_init": np.ones((2, 2))},
         "symmetric, positive-definite"),
        ({"covariance_type": "diag", "precisions_init": np.array([[1, 0.0]] * 2)},
         "positive"),
        ({"covariance_type": "spherical", "precisions_init": [1.0, -2.0]},
         "'spherical precision' should be positive"),
    ],
)
def test_bad_parameters(params, match):
    X = _blobs(0, k=2)
    kw = {"n_components": 2, **params}
    with pytest.raises(ValueError, match=match):
        GaussianMixture(**kw).fit(X)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_bad_data():
    X = _blobs(0, k=2)
    with pytest.raises(ValueError, match="n_components = 5, n_samples = 4"):
        GaussianMixture(5).fit(X[:4])
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        GaussianMixture(2).fit(X_nan)
    with pytest.raises(ValueError, match="infinity"):
        GaussianMixture(2).fit(np.where(np.isnan(X_nan), np.inf, X_nan))
    with pytest.raises(ValueError, match="dim"):
        GaussianMixture(2).fit(X[:, :, None])
    with pytest.raises(ValueError, match="zero"):
        GaussianMixture(2).fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError, match="non-zero sample_weight"):
        GaussianMixture(2).fit(X, sample_weight=np.r_[1.0, np.zeros(len(X) - 1)])
    with pytest.raises(ValueError, match="ill-defined empirical covariance"):
        GaussianMixture(2, reg_covar=0.0, random_state=0).fit(np.ones((10, 2)))
    gm = GaussianMixture(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        gm.predict(X[:, :1])
    with pytest.raises(ValueError, match="n_samples"):
        gm.sample(0)
    gm.set_params(warm_start=True)
    with pytest.raises(ValueError, match="4 features.*expecting 2"):
        gm.fit(np.hstack([X, X]))
    with pytest.raises(ValueError, match="warm_start"):
        gm.set_params(n_components=3).fit(X)


def test_overflowing_covariances_refused_clearly():
    # Issue 23: X * 1e300 reached scipy's "array must not contain infs or
    # NaNs" (covariances of order 1e600); the error now names the cause.
    X = load_iris().data
    with pytest.raises(ValueError, match="too large for Gaussian covariances.*rescale X"):
        GaussianMixture(n_components=3, random_state=0).fit(X * 1e300)
    # Large but representable: the model of X, scaled.
    clean = GaussianMixture(n_components=3, random_state=0).fit(X)
    big = GaussianMixture(n_components=3, random_state=0).fit(X * 1e150)
    np.testing.assert_array_equal(big.predict(X * 1e150), clean.predict(X))
