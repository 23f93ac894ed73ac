"""PCA and the power method: parity with scikit-learn, notes A §4.1-4.2."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn import decomposition as sk
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skml.decomposition import PCA, power_method, svd_flip_signs
from tests._parity import parity_test

LOADERS = [load_iris, load_wine, load_digits]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # Small decompositions: on a busy machine BLAS threads only contend.
    with threadpool_limits(1, user_api="blas"):
        yield


def _data(seed, n=40, d=6):
    rng = np.random.RandomState(seed)
    # Correlated features with distinct variances: a clear spectrum.
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + rng.normal(size=d)


def _assert_same_fit(ours, ref, rtol, atol):
    assert ours.n_components_ == ref.n_components_
    # Equal entry for entry, not up to sign: the sign rule is scikit-learn's.
    # Directions of (numerically) zero variance, e.g. digits' constant
    # pixels, span a null space in which any basis is right.
    ev = ref.explained_variance_
    kept = ev > 1e-9 * ev.max(initial=0.0)
    assert_allclose(ours.components_[kept], ref.components_[kept], rtol=rtol, atol=atol)
    tiny = 1e-12 * ev.max(initial=0.0)
    assert_allclose(ours.explained_variance_, ev, rtol=rtol, atol=tiny)
    assert_allclose(
        ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=rtol,
        atol=1e-12,
    )
    assert_allclose(ours.singular_values_, ref.singular_values_, rtol=rtol,
                    atol=1e-6 * ref.singular_values_.max(initial=0.0))
    assert_allclose(ours.mean_, ref.mean_, rtol=1e-12)
    assert_allclose(ours.noise_variance_, ref.noise_variance_, rtol=1e-6, atol=1e-10)


@parity_test(PCA)
@pytest.mark.parametrize(
    "load, n_components",
    [(load_iris, None), (load_iris, "mle"), (load_wine, None), (load_wine, 2),
     (load_wine, "mle"), (load_digits, None), (load_digits, 0.9)],
)
@pytest.mark.parametrize("solver", ["full", "covariance_eigh"])
def test_parity_exact_solvers(load, n_components, solver):
    X = load().data
    kw = {"n_components": n_components, "svd_solver": solver}
    ours, ref = PCA(**kw).fit(X), sk.PCA(**kw).fit(X)
    # covariance_eigh forms X^T X: its small eigenvalues carry ~eps*λ_max error.
    atol = 1e-12 if solver == "full" else 1e-8
    k = min(ours.n_components_, 10)
    _assert_same_fit(ours, ref, rtol=1e-6, atol=atol)
    assert_allclose(ours.transform(X)[:, :k], ref.transform(X)[:, :k], atol=1e-6)
    assert_allclose(
        ours.fit_transform(X)[:, :k], ref.fit_transform(X)[:, :k], atol=1e-6
    )


@parity_test(PCA)
@pytest.mark.parametrize("load", LOADERS)
def test_parity_randomized(load):
    X = load().data
    kw = {"n_components": 3, "svd_solver": "randomized", "random_state": 0}
    ours, ref = PCA(**kw).fit(X), sk.PCA(**kw).fit(X)
    _assert_same_fit(ours, ref, rtol=1e-6, atol=1e-8)


@parity_test(PCA)
@pytest.mark.parametrize("load", LOADERS)
def test_parity_power_method(load):
    # The power method converges at rate λ_{k+1}/λ_k: the top 3 components of
    # these datasets are well separated, so 1e-10 steps give ~1e-8 vectors.
    X = load().data
    ours = PCA(n_components=3, svd_solver="power", random_state=0).fit(X)
    ref = sk.PCA(n_components=3, svd_solver="full").fit(X)
    _assert_same_fit(ours, ref, rtol=1e-6, atol=1e-7)
    assert np.all(ours.n_iter_ < 10_000)


@parity_test(PCA)
@pytest.mark.parametrize("load", LOADERS)
def test_parity_score_whiten_transform(load):
    X = load().data
    kw = {"n_components": 3, "whiten": True}
    ours, ref = PCA(**kw).fit(X), sk.PCA(**kw).fit(X)
    assert_allclose(ours.transform(X), ref.transform(X), atol=1e-8)
    assert_allclose(ours.inverse_transform(ours.transform(X)),
                    ref.inverse_transform(ref.transform(X)), atol=1e-8)
    ours, ref = PCA(n_components=3).fit(X), sk.PCA(n_components=3).fit(X)
    assert_allclose(ours.score_samples(X), ref.score_samples(X), rtol=1e-8)
    assert_allclose(ours.get_covariance(), ref.get_covariance(), atol=1e-8)


@pytest.mark.parametrize(
    "shape, n_components",
    [((200, 10), None), ((200, 10), 3), ((100, 50), None), ((520, 60), 5),
     ((520, 60), 55), ((520, 60), 0.5), ((520, 60), "mle")],
)
def test_auto_solver_follows_scikit_learn(shape, n_components):
    X = np.random.RandomState(0).normal(size=shape)
    ours = PCA(n_components=n_components, random_state=0).fit(X)
    ref = sk.PCA(n_components=n_components, random_state=0).fit(X)
    assert ours._fit_svd_solver == ref._fit_svd_solver
    assert ours.n_components_ == ref.n_components_


@given(seed=st.integers(0, 2**16), d=st.integers(2, 8))
def test_explained_variance_ratios_sum_at_most_one(seed, d):
    X = _data(seed, d=d)
    for solver in ("full", "covariance_eigh", "randomized", "power"):
        k = d if solver != "randomized" else d - 1
        pca = PCA(n_components=k, svd_solver=solver, random_state=0).fit(X)
        ratios = pca.explained_variance_ratio_
        assert np.all(ratios >= 0)
        assert ratios.sum() <= 1 + 1e-10
        assert np.all(np.diff(pca.explained_variance_) <= 1e-10 * ratios.sum())


@given(seed=st.integers(0, 2**16), whiten=st.booleans(), center=st.booleans())
def test_inverse_transform_of_all_components_reconstructs(seed, whiten, center):
    X = _data(seed)
    pca = PCA(whiten=whiten, center=center).fit(X)
    assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-8)
    # Components are orthonormal.
    assert_allclose(pca.components_ @ pca.components_.T, np.eye(X.shape[1]), atol=1e-10)


def test_rank_k_data_reconstructs_with_k_components():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(50, 2)) @ rng.normal(size=(2, 7)) + 3.0
    for solver in ("full", "covariance_eigh", "power", "randomized"):
        pca = PCA(n_components=2, svd_solver=solver, random_state=0).fit(X)
        assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-7)


def test_whiten_gives_unit_variance():
    X = load_wine().data
    Z = PCA(n_components=5, whiten=True).fit_transform(X)
    assert_allclose(np.cov(Z, rowvar=False), np.eye(5), atol=1e-10)
    Z = PCA(n_components=5, whiten=True).fit(X).transform(X)
    assert_allclose(np.cov(Z, rowvar=False), np.eye(5), atol=1e-10)


def test_uncentred_equals_svd_of_raw_X():
    # The notes' form (notes A §4.1): no centring, X X^T's eigenvectors.
    X = load_iris().data
    U, S, Vt = np.linalg.svd(X, full_matrices=False)
    Vt, _ = svd_flip_signs(Vt.copy())
    for solver in ("full", "covariance_eigh", "power"):
        pca = PCA(center=False, svd_solver=solver, random_state=0).fit(X)
        assert_allclose(pca.mean_, 0.0)
        assert_allclose(pca.components_, Vt, atol=1e-7)
        assert_allclose(pca.singular_values_, S, rtol=1e-8)
        assert_allclose(pca.transform(X), X @ Vt.T, atol=1e-7)
    ref = sk.TruncatedSVD(n_components=2, algorithm="arpack").fit(X)
    ours = PCA(n_components=2, center=False).fit(X)
    assert_allclose(np.abs(ours.components_), np.abs(ref.components_), atol=1e-8)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_reconstruction_error_identity(k):
    # Notes A §4.1:
    # (1/n) Σ ||x_i − P x_i||² = (1/n)(tr(X Xᵀ) − Σ_{j≤k} λ_j),
    # λ_j the eigenvalues of X Xᵀ (samples as columns), uncentred.
    X = load_iris().data
    pca = PCA(n_components=k, center=False).fit(X)
    residual = X - pca.inverse_transform(pca.transform(X))
    lhs = np.sum(residual**2) / len(X)
    lam = np.linalg.eigvalsh(X.T @ X)[::-1]
    assert_allclose(lhs, (np.trace(X.T @ X) - lam[:k].sum()) / len(X), rtol=1e-8)
    assert_allclose(pca.singular_values_**2, lam[:k], rtol=1e-10)


def test_variance_fraction_picks_fewest_components():
    X = load_digits().data
    for solver in ("full", "power"):
        pca = PCA(n_components=0.8, svd_solver=solver, random_state=0).fit(X)
        cum = np.cumsum(pca.explained_variance_ratio_)
        assert cum[-1] > 0.8 and cum[-2] <= 0.8


def _spd_with_gap(seed, d, gap):
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    lam = np.sort(rng.uniform(0.1, 1.0, size=d))[::-1]
    lam[0] = lam[1] * gap
    return (Q * lam) @ Q.T, lam, Q


@given(seed=st.integers(0, 2**16), d=st.integers(2, 10),
       gap=st.floats(1.5, 10.0))
def test_power_method_converges_to_top_eigenvector(seed, d, gap):
    A, lam, Q = _spd_with_gap(seed, d, gap)
    vals, vecs, n_iter = power_method(A, 1, max_iter=5000, tol=1e-12, random_state=seed)
    assert n_iter[0] < 5000
    assert_allclose(abs(vecs[:, 0] @ Q[:, 0]), 1.0, atol=1e-10)
    assert_allclose(vals[0], lam[0], rtol=1e-10)


def test_power_method_error_decays_like_eigengap_ratio():
    # Notes A §4.2: b_t ∝ Σ λ_i^t a_i v_i, so tan∠(b_t, v_1) ~ (λ2/λ1)^t.
    A = np.diag([1.0, 0.8, 0.3, 0.1])
    errors = []
    ts = np.arange(10, 60, 5)
    for t in ts:
        _, vecs, _ = power_method(A, 1, max_iter=int(t), tol=0.0, random_state=0)
        b = vecs[:, 0]
        errors.append(np.linalg.norm(b[1:]) / abs(b[0]))
    slope = np.polyfit(ts, np.log(errors), 1)[0]
    assert_allclose(slope, np.log(0.8), rtol=1e-3)


def test_power_method_deflation_matches_eigh():
    A, lam, Q = _spd_with_gap(3, 6, 2.0)
    vals, vecs, _ = power_method(A, 6, max_iter=20_000, tol=1e-13, random_state=0)
    w, V = np.linalg.eigh(A)
    assert_allclose(vals, w[::-1], rtol=1e-8)
    assert_allclose(np.abs(vecs.T @ V[:, ::-1]), np.eye(6), atol=1e-6)


def test_power_method_repeated_top_eigenvalue_stays_in_eigenspace():
    A = np.diag([2.0, 2.0, 0.5])
    vals, vecs, _ = power_method(A, 1, random_state=0)
    assert_allclose(vals[0], 2.0)
    assert abs(vecs[2, 0]) < 1e-10


def test_power_method_warns_when_not_converged():
    X = load_digits().data
    with pytest.warns(ConvergenceWarning, match="eigengap"):
        PCA(n_components=5, svd_solver="power", iterated_power=2).fit(X)


def test_sign_rule():
    Vt = np.array([[0.1, -0.9, 0.2], [0.5, 0.2, -0.1]])
    U = np.ones((4, 2))
    Vt, U = svd_flip_signs(Vt, U)
    assert_allclose(Vt[0], [-0.1, 0.9, -0.2])
    assert_allclose(Vt[1], [0.5, 0.2, -0.1])
    assert_allclose(U[:, 0], -1.0)
    assert_allclose(U[:, 1], 1.0)


def test_float32_preserved():
    X = load_iris().data.astype(np.float32)
    for solver in ("full", "covariance_eigh", "power", "randomized"):
        pca = PCA(n_components=2, svd_solver=solver, random_state=0).fit(X)
        assert pca.components_.dtype == np.float32
        assert pca.transform(X).dtype == np.float32


def test_copy_false_centres_in_place_and_results_match():
    X = load_iris().data
    X2 = X.copy()
    ours = PCA(n_components=2, copy=False).fit(X2)
    ref = PCA(n_components=2).fit(X)
    assert_allclose(ours.components_, ref.components_)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_components": 5}, "n_components=5 must be between"),
        ({"n_components": "mle", "svd_solver": "randomized"},
         "n_components='mle' cannot be a string with svd_solver='randomized'"),
        ({"n_components": 0, "svd_solver": "arpack"},
         r"n_components=0 must be between 1 and min\(n_samples, n_features\)=4"),
        ({"n_components": 4, "svd_solver": "arpack"}, "must be strictly less than min"),
        ({"n_components": 0.5, "svd_solver": "randomized"}, "variance fraction"),
        ({"n_components": 0, "svd_solver": "power"}, "between 1"),
        ({"svd_solver": "lobpcg"}, "svd_solver"),
        ({"n_components": 1.5}, "n_components"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        PCA(**params).fit(load_iris().data)


def test_bad_input():
    with pytest.raises(ValueError, match="1 sample"):
        PCA().fit([[1.0, 2.0]])
    with pytest.raises(ValueError, match="NaN"):
        PCA().fit([[1.0, np.nan], [2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PCA(n_components=1).fit([[1.0, 2.0], [2.0, 3.0]])


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_variances_beyond_float64_refused(factor):
    # Issue 23: X * 1e300 gave LAPACK's "Eigenvalues did not converge" and
    # X * 1e-300 a singular-matrix error; the variances (1e600, 1e-600)
    # cannot be stored, and the error now says so and what to do.
    X = load_iris().data
    with pytest.raises(ValueError, match="variances of X .*Rescale X"):
        PCA().fit(X * factor)


@pytest.mark.parametrize("solver", ["full", "covariance_eigh", "power", "randomized"])
@pytest.mark.parametrize("factor", [1e120, 1e-120])
def test_extreme_but_representable_scales(solver, factor):
    # Fitted on X divided by a power of two: the model of X, scaled; and
    # the precision is formed without σ⁴ (which underflowed at 1e-120).
    X = load_iris().data
    clean = PCA(n_components=2, svd_solver=solver, random_state=0).fit(X)
    big = PCA(n_components=2, svd_solver=solver, random_state=0).fit(X * factor)
    assert_allclose(big.components_, clean.components_, rtol=1e-6, atol=1e-9)
    assert_allclose(big.explained_variance_, clean.explained_variance_ * factor**2,
                    rtol=1e-6)
    assert_allclose(big.transform(X * factor), clean.transform(X) * factor, rtol=1e-6,
                    atol=1e-9 * factor)
    # log p(c x) = log p(x) - d log c
    assert_allclose(big.score_samples(X * factor),
                    clean.score_samples(X) - X.shape[1] * np.log(factor), rtol=1e-6)


@pytest.mark.parametrize("solver", ["covariance_eigh", "power"])
@pytest.mark.parametrize("offset", [1e3, 1e8])
def test_covariance_solvers_far_from_the_origin(solver, offset):
    # X + 1e8: forming XᵀX − n m mᵀ cancelled the digits of the variances;
    # the Gram matrix is now formed from centred rows when that happens.
    # "power" shares that covariance (it centred a copy of X before): at
    # X + 1e3 the subtraction loses ~5 digits of 16 and keeps the Gram form.
    X = load_iris().data
    clean = PCA(n_components=3, svd_solver=solver, random_state=0).fit(X)
    moved = PCA(n_components=3, svd_solver=solver, random_state=0).fit(X + offset)
    assert_allclose(moved.explained_variance_, clean.explained_variance_, rtol=1e-6)
    assert_allclose(moved.components_, clean.components_, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_pass_means_are_numpys(dtype):
    # fit's one-pass kernel (means and max |x|) on C-ordered X; the
    # F-ordered copy takes numpy's path: same means, same model.
    X = (_data(0, n=500, d=7) * 10).astype(dtype)
    c = PCA(svd_solver="full").fit(X)
    f = PCA(svd_solver="full").fit(np.asfortranarray(X))
    assert c.mean_.dtype == dtype
    np.testing.assert_array_equal(c.mean_, X.mean(axis=0))
    assert_allclose(f.mean_, c.mean_, rtol=10 * np.finfo(dtype).eps)
    assert_allclose(f.components_, c.components_, atol=1e-4 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("shape", [(300, 20), (20, 300)])
def test_randomized_fit_and_fit_transform_agree(shape):
    # fit skips U = Q Û (tall data); fit_transform forms it. U S equals the
    # projection X V when the range finder caught the range: rank-4 data.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(shape[0], 4)) @ rng.normal(size=(4, shape[1]))
    params = {"n_components": 4, "svd_solver": "randomized", "random_state": 0}
    a = PCA(**params).fit(X)
    b = PCA(**params)
    Z = b.fit_transform(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert_allclose(Z, a.transform(X), atol=1e-8)


def test_score_samples_of_a_singular_model_refused():
    # Issue 23: with a constant feature and every component kept the model
    # covariance is singular; score_samples raised LAPACK's "singular matrix"
    # (scikit-learn returns non-finite values). It now says why and what to do.
    X = np.column_stack([load_iris().data, np.full(150, 3.0)])
    pca = PCA().fit(X)
    with pytest.raises(ValueError, match="singular.*Keep fewer components"):
        pca.score_samples(X)
    # With a component left for the noise, the density is defined.
    assert np.all(np.isfinite(PCA(n_components=3).fit(X).score_samples(X)))


def test_power_int_seed_is_a_fresh_random_state():
    # An int seed re-seeds a per-thread generator (cheaper than a new one):
    # the same stream as a new RandomState(seed), whatever ran before.
    X = _data(1, n=200, d=8)
    params = {"n_components": 3, "svd_solver": "power"}
    ref = PCA(**params, random_state=np.random.RandomState(7)).fit(X)
    PCA(**params, random_state=3).fit(X)
    power_method(np.eye(3), 2, random_state=5)
    again = PCA(**params, random_state=7).fit(X)
    np.testing.assert_array_equal(again.components_, ref.components_)
    np.testing.assert_array_equal(again.n_iter_, ref.n_iter_)
    vals, vecs, _ = power_method(np.diag([3.0, 2.0, 1.0]), 2, random_state=4)
    vals2, vecs2, _ = power_method(np.diag([3.0, 2.0, 1.0]), 2,
                                   random_state=np.random.RandomState(4))
    np.testing.assert_array_equal(vecs, vecs2)
