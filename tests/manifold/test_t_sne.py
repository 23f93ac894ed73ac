"""t-SNE (notes A §9.1, §9.3): affinities, gradients, the FFT method, parity."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import sparse
from scipy.spatial.distance import squareform
from sklearn.datasets import load_digits, make_blobs
from sklearn.manifold import TSNE as SkTSNE
from sklearn.manifold import trustworthiness
from threadpoolctl import threadpool_limits

from skml.manifold import TSNE, conditional_probabilities, joint_probabilities
from skml.manifold._affinities import dense_conditional, sparse_joint
from skml.manifold._gradients import FFTObjective, tsne_exact
from skml.manifold._interpolation import InterpolationGrid
from skml.optim import check_gradient
from tests._parity import parity_test


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # One thread for BLAS and OpenMP (scikit-learn's Barnes-Hut oversubscribes
    # a busy machine otherwise).
    with threadpool_limits(1):
        yield


def _points(seed, n=60, d=5):
    return np.random.RandomState(seed).normal(size=(n, d))


def _entropy_bits(P):
    P = np.where(P > 0, P, 1.0)  # 0 log 0 = 0
    return -(np.where(P < 1, P, 0) * np.log2(P)).sum(axis=1)


# --- affinities (notes A §9.1) -----------------------------------------------

@given(seed=st.integers(0, 1000), perplexity=st.floats(2.0, 40.0))
def test_perplexity_search_hits_the_target_for_every_point(seed, perplexity):
    P, sigmas = conditional_probabilities(_points(seed), perplexity=perplexity)
    perp = 2.0 ** _entropy_bits(P)
    # tol=1e-5 nats on the entropy: the perplexity is within 1e-5 relative.
    assert_allclose(perp, perplexity, rtol=2e-5)
    assert_allclose(P.sum(axis=1), 1.0)
    assert np.all(np.diag(P) == 0.0)
    assert np.all(sigmas > 0)


def test_sigma_grows_with_perplexity_and_is_small_in_dense_regions():
    rng = np.random.RandomState(0)
    X = np.vstack([0.1 * rng.normal(size=(30, 2)), 5.0 * rng.normal(size=(30, 2))])
    s5 = conditional_probabilities(X, perplexity=5.0)[1]
    s15 = conditional_probabilities(X, perplexity=15.0)[1]
    assert np.all(s15 > s5)
    assert np.median(s5[:30]) < np.median(s5[30:])


def test_joint_probabilities_symmetric_and_sum_to_one():
    P = joint_probabilities(conditional_probabilities(_points(1), perplexity=10.0)[0])
    assert_allclose(P, P.T)
    assert_allclose(P.sum(), 1.0)
    assert np.all(np.diag(P) == 0.0)


def test_sparse_joint_on_neighbours_symmetric_sums_to_one_and_close_to_dense():
    X = _points(2, n=200)
    P = sparse_joint(X, 10.0, "euclidean")
    assert sparse.issparse(P)
    assert abs(P - P.T).max() < 1e-15
    assert_allclose(P.sum(), 1.0)
    dense = joint_probabilities(conditional_probabilities(X, perplexity=10.0)[0])
    # 3 x perplexity neighbours hold nearly all the mass.
    assert np.abs(P.toarray() - dense).sum() < 0.05


def test_affinities_match_scikit_learn():
    from sklearn.manifold._t_sne import _joint_probabilities  # the reference only

    X = _points(3)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    ref = squareform(_joint_probabilities(D, 10.0, 0))
    ours = joint_probabilities(conditional_probabilities(X, perplexity=10.0)[0])
    assert_allclose(ours, ref, atol=1e-7)


# --- gradients (notes A §9.3) ------------------------------------------------

@pytest.mark.parametrize("conditional", [False, True], ids=["joint", "sym_conditional"])
@pytest.mark.parametrize("exaggeration", [1.0])
def test_exact_gradient_matches_finite_differences(conditional, exaggeration):
    X = _points(4, n=25)
    P = joint_probabilities(conditional_probabilities(X, perplexity=5.0)[0])
    Y0 = np.random.RandomState(5).normal(size=(25, 2))
    buf = np.empty_like(Y0)

    def fun(y):
        return tsne_exact(y.reshape(Y0.shape), P, exaggeration, buf, True, conditional)

    def grad(y):
        g = np.empty_like(Y0)
        tsne_exact(y.reshape(Y0.shape), P, exaggeration, g, True, conditional)
        return g.ravel()

    assert check_gradient(fun, grad, Y0.ravel()) < 1e-6


def test_kl_of_exact_objective_is_nonnegative_and_zero_at_match():
    X = _points(6, n=20)
    P = joint_probabilities(conditional_probabilities(X, perplexity=5.0)[0])
    Y = np.random.RandomState(0).normal(size=(20, 2))
    assert tsne_exact(Y, P, 1.0, np.empty_like(Y)) >= 0.0


@pytest.mark.parametrize("conditional", [False, True], ids=["joint", "sym_conditional"])
def test_fft_forces_and_z_close_to_exact(conditional):
    X = _points(7, n=300, d=10)
    P = sparse_joint(X, 20.0, "euclidean")
    # A spread-out embedding, as after the exaggeration stage.
    Y = 5.0 * np.random.RandomState(8).normal(size=(300, 2))
    g_exact = np.empty_like(Y)
    kl_exact = tsne_exact(Y, P.toarray(), 1.0, g_exact, True, conditional)
    # FIt-SNE's grid (intervals of width 1, 3 nodes) and a finer one.
    for p, ints, tol in ((3, 1.0, 2e-2), (5, 0.5, 1e-3)):
        grid = InterpolationGrid(300, 2, n_interpolation_points=p,
                                 ints_in_interval=ints, allow_direct=False)
        g_fft = np.empty_like(Y)
        kl_fft = FFTObjective(P, grid, conditional)(Y, 1.0, g_fft, True)
        assert np.linalg.norm(g_fft - g_exact) / np.linalg.norm(g_exact) < tol
        assert abs(kl_fft - kl_exact) < tol * kl_exact


def test_fft_normalisation_and_repulsion_close_to_exact():
    Y = 4.0 * np.random.RandomState(9).normal(size=(400, 2))
    D = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    W = 1.0 / (1.0 + D)
    np.fill_diagonal(W, 0.0)
    Z = W.sum()
    rep = (W**2).sum(1)[:, None] * Y - (W**2) @ Y
    grid = InterpolationGrid(400, 2, n_interpolation_points=3, ints_in_interval=1.0,
                             allow_direct=False)
    grid.prepare(Y)
    ch = np.column_stack([np.ones(400), Y])
    phi, total = grid.potentials(ch, np.empty_like(ch), total_cauchy=True)
    assert abs((total - 400) / Z - 1.0) < 1e-3
    rep_fft = Y * phi[:, :1] - phi[:, 1:]
    assert np.linalg.norm(rep_fft - rep) / np.linalg.norm(rep) < 2e-2


def test_fft_one_dimensional_matches_exact():
    X = _points(10, n=200)
    P = sparse_joint(X, 10.0, "euclidean")
    Y = 3.0 * np.random.RandomState(11).normal(size=(200, 1))
    g_exact = np.empty_like(Y)
    tsne_exact(Y, P.toarray(), 1.0, g_exact)
    g_fft = np.empty_like(Y)
    grid = InterpolationGrid(200, 1, ints_in_interval=1.0, allow_direct=False)
    FFTObjective(P, grid)(Y, 1.0, g_fft)
    assert np.linalg.norm(g_fft - g_exact) / np.linalg.norm(g_exact) < 2e-2


def _tsne_grid(n, d):
    # The grid TSNE(method="fft") builds below 10 000 points.
    return InterpolationGrid(n, d, min_intervals=20, ints_in_interval=1.5)


# Issue 12: on a few points the embedding spreads over hundreds of units and
# the grid grew to its cap (a ~3000 x 3000 FFT per iteration, interpolated
# over intervals many units wide: 10 points ran away to 1e16 in 116 s).
# Where the direct O(n^2) sums are cheaper, the FFT method uses them, so its
# gradient is the exact one at any spread.
@pytest.mark.parametrize("conditional", [False, True], ids=["joint", "sym_conditional"])
@pytest.mark.parametrize("n, d", [(10, 2), (20, 2), (30, 2), (10, 1)])
def test_fft_gradient_on_few_points_is_the_exact_one(n, d, conditional):
    X = _points(13, n=n)
    P = sparse_joint(X, n / 4.0, "euclidean")
    grid = _tsne_grid(n, d)
    objective = FFTObjective(P, grid, conditional)
    for spread in (1e-4, 1.0, 30.0, 1e3):
        Y = spread * np.random.RandomState(14).normal(size=(n, d))
        for exaggeration in (12.0, 1.0):
            g_exact = np.empty_like(Y)
            kl_exact = tsne_exact(Y, P.toarray(), exaggeration, g_exact, True,
                                  conditional)
            g_fft = np.empty_like(Y)
            kl_fft = objective(Y, exaggeration, g_fft, True)
            # Measured: 4e-14 of the largest component, 5e-15 on the KL.
            assert_allclose(g_fft, g_exact, rtol=1e-10,
                            atol=1e-10 * np.abs(g_exact).max())
            assert_allclose(kl_fft, kl_exact, rtol=1e-10)
            assert grid.direct


def test_fft_grid_kept_where_it_is_cheaper():
    # The direct sums replace the grid only where they cost less: not for
    # a few thousand points on a compact embedding.
    n = 2000
    X = _points(15, n=n)
    P = sparse_joint(X, 30.0, "euclidean")
    grid = _tsne_grid(n, 2)
    Y = 10.0 * np.random.RandomState(16).normal(size=(n, 2))
    FFTObjective(P, grid)(Y, 1.0, np.empty_like(Y))
    assert not grid.direct and grid.rebuilds == 1


@pytest.mark.parametrize("n", [10, 20, 30])
def test_fft_on_few_points_stays_bounded_like_exact(n):
    # The common checks' instance (perplexity 2, 250 iterations) on a few
    # points: a finite embedding that spreads as far as the exact method's,
    # and the reported KL is the KL of that embedding under the same P.
    X = _points(n, n=n, d=3)
    params = dict(perplexity=2, max_iter=250, random_state=0)
    fft = TSNE(method="fft", **params).fit(X)
    exact = TSNE(method="exact", **params).fit(X)
    assert np.all(np.isfinite(fft.embedding_))
    assert np.ptp(fft.embedding_) < 10.0 * np.ptp(exact.embedding_)
    P = sparse_joint(X, 2.0, "euclidean")
    kl = tsne_exact(fft.embedding_, P.toarray(), 1.0, np.empty_like(fft.embedding_))
    assert_allclose(fft.kl_divergence_, kl, rtol=1e-9)


# --- the estimator -----------------------------------------------------------

@pytest.mark.parametrize("method", ["exact", "fft"])
def test_kl_decreases_with_more_iterations(method):
    X, _ = make_blobs(300, n_features=8, centers=4, random_state=0)
    kls = [TSNE(method=method, max_iter=it, random_state=0).fit(X).kl_divergence_
           for it in (300, 500, 800)]
    assert kls[0] >= kls[1] >= kls[2] >= 0.0


# Not the symmetrised conditional Q with "fft": on blobs this far apart its
# early exaggeration runs away (points between the collapsed clusters have a
# tiny Z_i, hence a large repulsion), and the grid grows with the embedding.
@pytest.mark.parametrize("method, q_normalization", [
    ("exact", "joint"), ("fft", "joint"), ("exact", "symmetrized_conditional")])
def test_separated_blobs_stay_separated(method, q_normalization):
    X, y = make_blobs(240, n_features=10, centers=3, cluster_std=0.5, random_state=1)
    E = TSNE(method=method, q_normalization=q_normalization, perplexity=20,
             max_iter=400, random_state=0).fit_transform(X)
    # 1-NN of each point in the embedding carries its label.
    D = ((E[:, None] - E[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    assert np.mean(y[D.argmin(axis=1)] == y) > 0.99


def test_attributes_and_auto_learning_rate():
    X = _points(12, n=100)
    est = TSNE(perplexity=10, max_iter=250, random_state=0, early_exaggeration=4.0)
    E = est.fit_transform(X)
    assert E is est.embedding_ and E.shape == (100, 2)
    assert est.learning_rate_ == 50.0  # max(100 / 4 / 4, 50)
    assert est.n_features_in_ == 5 and est.method_ == "exact"
    assert est.n_iter_ == 249 and est.kl_divergence_ >= 0.0
    X = _points(12, n=1000)
    est = TSNE(max_iter=250, early_exaggeration=4.0, random_state=0).fit(X)
    assert est.learning_rate_ == 1000 / 4 / 4
    assert TSNE(max_iter=250, random_state=0).fit(X).method_ == "fft"


def test_precomputed_squared_distances_equal_euclidean():
    from skml.manifold._affinities import dense_conditional

    X = _points(13, n=50)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    assert_allclose(dense_conditional(X, 8.0, "euclidean"),
                    dense_conditional(D, 8.0, "precomputed"), atol=1e-12)
    assert_allclose(sparse_joint(X, 8.0, "euclidean").toarray(),
                    sparse_joint(D, 8.0, "precomputed").toarray(), atol=1e-12)
    E = TSNE(perplexity=8, init="random", metric="precomputed",
             random_state=0).fit_transform(D)
    assert trustworthiness(X, E, n_neighbors=5) > 0.9


def test_symmetrized_conditional_fft_embeds_digits():
    X, _ = load_digits(return_X_y=True)
    X = X[:300] / 16.0
    E = TSNE(method="fft", q_normalization="symmetrized_conditional",
             random_state=0).fit_transform(X)
    assert trustworthiness(X, E, n_neighbors=5) > 0.98


def test_deterministic_with_random_state_and_other_metric_and_dims():
    X = _points(14, n=80)
    a = TSNE(method="fft", init="random", random_state=3, max_iter=300).fit_transform(X)
    b = TSNE(method="fft", init="random", random_state=3, max_iter=300).fit_transform(X)
    assert_allclose(a, b)
    E = TSNE(metric="manhattan", perplexity=10, max_iter=250,
             random_state=0).fit_transform(X)
    assert np.all(np.isfinite(E))
    E = TSNE(n_components=1, method="fft", max_iter=250).fit_transform(X)
    assert E.shape == (80, 1)
    assert TSNE(n_components=3, max_iter=250).fit_transform(X).shape == (80, 3)


@pytest.mark.parametrize("params, X, match", [
    ({"perplexity": 30}, np.ones((20, 3)), r"perplexity \(30\) must be less than n_samples \(20\)"),
    ({"metric": "precomputed"}, np.abs(_points(0, 40, 40)), 'init="pca" cannot'),
    ({"metric": "precomputed", "init": "random"}, np.abs(_points(0, 40, 3)),
     "square distance matrix"),
    ({"metric": "precomputed", "init": "random"}, -np.ones((40, 40)), "non-negative"),
    ({"method": "fft", "n_components": 3}, _points(0, 40), "1 or 2 dimensions"),
    ({"init": np.zeros((5, 2)), "perplexity": 5}, _points(0, 40), "init array"),
    ({"perplexity": 0}, _points(0, 40), "perplexity"),
    ({"method": "barnes_hut", "n_components": 4}, _points(0, 40),
     "'n_components' should be inferior to 4"),
    ({"method": "barnes_hut", "angle": 1.5}, _points(0, 40), "angle"),
    ({"method": "tree"}, _points(0, 40), "method"),
    ({"q_normalization": "conditional"}, _points(0, 40), "q_normalization"),
    ({"max_iter": 100}, _points(0, 40), "max_iter"),
])
def test_bad_parameters_raise(params, X, match):
    with pytest.raises(ValueError, match=match):
        TSNE(**params).fit(X)


def test_bad_input_raises():
    X = _points(0, 40)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TSNE(perplexity=5).fit(X)
    # sparse points are taken (tests/manifold/test_sparse.py); a sparse
    # precomputed matrix with the exact method is not, as in scikit-learn
    with pytest.raises(TypeError, match="[Ss]parse"):
        TSNE(perplexity=5, method="exact", metric="precomputed", init="random").fit(
            sparse.csr_matrix(np.ones((40, 40))))
    with pytest.raises(ValueError, match="1 sample"):
        TSNE(perplexity=0.5).fit(np.ones((1, 3)))


@parity_test(TSNE)
@pytest.mark.parametrize("method, n", [("fft", 500), ("exact", 200)])
def test_parity_with_scikit_learn_on_digits(method, n):
    X, _ = load_digits(return_X_y=True)
    X = X[:n] / 16.0
    ours = TSNE(method=method, random_state=0).fit(X)
    ref_method = "barnes_hut" if method == "fft" else "exact"
    ref = SkTSNE(method=ref_method, random_state=0).fit(X)
    t_ours = trustworthiness(X, ours.embedding_, n_neighbors=5)
    t_ref = trustworthiness(X, ref.embedding_, n_neighbors=5)
    assert t_ours >= t_ref - 0.01
    assert 0.67 < ours.kl_divergence_ / ref.kl_divergence_ < 1.5


@pytest.mark.parametrize("method", ["exact", "fft"])
@pytest.mark.parametrize("transform", [lambda X: X * 1e300, lambda X: X * 1e-300,
                                       lambda X: X + 1e8],
                         ids=["1e300", "1e-300", "offset"])
def test_embedding_does_not_depend_on_units_or_offset(method, transform):
    # Issue 23: X * 1e300 overflowed the distances (NaN embedding), X * 1e-300
    # underflowed them to zero and X + 1e8 cancelled their digits (3-NN
    # accuracy of the embedding 0.30 against 0.88). The affinities now see
    # centred points divided by a power of two, which the perplexity absorbs.
    from sklearn.datasets import load_iris

    X = load_iris().data
    from skml.manifold._affinities import conditional_probabilities as cond
    from skml.manifold._t_sne import conditioned_points

    assert_allclose(cond(conditioned_points(transform(X), "euclidean"), 10.0)[0],
                    cond(X, 10.0)[0], atol=1e-5)
    params = dict(perplexity=10, max_iter=250, method=method, random_state=0)
    clean = trustworthiness(X, TSNE(**params).fit_transform(X), n_neighbors=5)
    E = TSNE(**params).fit_transform(transform(X))
    assert np.all(np.isfinite(E))
    # The runs differ by rounding only; measured spread of trustworthiness
    # over such perturbations is about 0.02.
    assert trustworthiness(X, E, n_neighbors=5) >= clean - 0.05


# Issue 12: kl_divergence_ is the KL of the returned embedding: exactly for
# method="exact"; for the approximate methods through their own Z (measured
# on these blobs: fft +0.4 %, barnes_hut -0.65 %; on digits +0.8 %, -0.8 %).
@pytest.mark.parametrize("method, rtol", [("exact", 1e-9), ("fft", 2e-2),
                                          ("barnes_hut", 2e-2)])
def test_reported_kl_is_the_kl_of_the_embedding(method, rtol):
    n = 150 if method == "exact" else 600
    X, _ = make_blobs(n, n_features=10, centers=5, random_state=0)
    est = TSNE(method=method, max_iter=500, random_state=0).fit(X)
    if method == "exact":
        P = joint_probabilities(conditional_probabilities(X, 30.0)[0])
    else:
        P = sparse_joint(X, 30.0, "euclidean").toarray()
    Y = est.embedding_.astype(np.float64)  # float32 for exact and barnes_hut
    kl = tsne_exact(Y, np.asarray(P), 1.0, np.empty_like(Y))
    assert_allclose(est.kl_divergence_, kl, rtol=rtol)


# --- scikit-learn's behaviour (issue 21) ---------------------------------------


@pytest.mark.parametrize("method", ["exact", "barnes_hut", "fft", "auto"])
def test_embedding_dtype(method):
    # scikit-learn's methods give its float32 embedding for any X; "fft" and
    # "auto" keep the precision of X
    X = _points(0, n=30, d=3)
    kw = dict(perplexity=5, method=method, init="random", random_state=0,
              max_iter=250)
    Y64 = TSNE(**kw).fit_transform(X)
    est = TSNE(**kw).fit(X.astype(np.float32))
    sklearn_method = method in ("exact", "barnes_hut")
    assert Y64.dtype == (np.float32 if sklearn_method else np.float64)
    assert est.embedding_.dtype == np.float32
    assert isinstance(est.kl_divergence_, float)


def test_float32_embedding_reports_its_own_kl():
    # the KL is that of the returned, rounded embedding
    X = _points(3, n=40, d=3)
    est = TSNE(perplexity=5, method="exact", init="random", random_state=0,
               max_iter=300).fit(X)
    assert est.embedding_.dtype == np.float32
    P = joint_probabilities(conditional_probabilities(X, 5.0)[0])
    Y = est.embedding_.astype(np.float64)
    kl = tsne_exact(Y, np.asarray(P), 1.0, np.empty_like(Y))
    assert_allclose(est.kl_divergence_, kl, rtol=1e-9)


@pytest.mark.parametrize("method", ["exact", "barnes_hut", "fft"])
def test_check_interval_and_exploration_length_are_instance_settings(method, capsys):
    # scikit-learn's TSNE keeps both as class constants an instance may
    # override: checks at every iteration, no exaggeration stage
    est = TSNE(n_iter_without_progress=-1, verbose=2, learning_rate=1e8,
               random_state=0, method=method, max_iter=351, init="random",
               perplexity=5)
    est._N_ITER_CHECK = 1
    est._EXPLORATION_MAX_ITER = 0
    est.fit(_points(0, n=40, d=4))
    out = capsys.readouterr().out
    assert "early exaggeration" not in out
    assert "Iteration 1: error = " in out  # checked at the first iteration
    assert ("did not make any progress during the last -1 episodes. Finished."
            in out)
    assert est.n_iter_ < 350


def test_auto_method_takes_a_sparse_precomputed_graph():
    X = _points(1, n=40, d=4)
    from sklearn.neighbors import NearestNeighbors as SkNN
    G = SkNN(n_neighbors=20).fit(X).kneighbors_graph(X, mode="distance")
    kw = dict(metric="precomputed", init="random", random_state=0, perplexity=5,
              max_iter=250)
    assert TSNE(**kw).fit(G).method_ == "fft"
    assert TSNE(n_components=3, **kw).fit(G).method_ == "barnes_hut"
    # too few stored distances: each sample counts itself and its stored others
    G3 = SkNN(n_neighbors=3).fit(X).kneighbors_graph(X, mode="distance")
    with pytest.raises(ValueError, match="17 neighbors per samples are required, "
                                         "but some samples have only 3"):
        TSNE(**kw).fit(G3)
    with pytest.raises(TypeError, match="sparse"):
        TSNE(method="exact", **kw).fit(G)
    # a graph storing every distance is the full matrix: auto treats it as
    # the dense one (exact below 500 points; the diagonal is ignored)
    full = SkNN(n_neighbors=40).fit(X).kneighbors_graph(X, mode="distance")
    est = TSNE(**kw).fit(full)
    assert est.method_ == "exact"
    D = full.toarray()
    np.fill_diagonal(D, 0.0)
    assert_allclose(est.embedding_, TSNE(**kw).fit_transform(D), atol=1e-8)


def test_init_pca_with_precomputed_is_named_before_the_shape():
    with pytest.raises(ValueError, match='init="pca" cannot be used with '
                                         'metric="precomputed"'):
        TSNE(metric="precomputed", init="pca", perplexity=1).fit(
            np.array([[0.0], [1.0]]))


def test_mahalanobis_needs_its_covariance():
    from scipy.spatial.distance import pdist
    X = _points(2, n=40, d=3)
    kw = dict(perplexity=5, init="random", random_state=0, max_iter=250,
              method="exact")
    with pytest.raises(ValueError, match="Must provide either V or VI"):
        TSNE(metric="mahalanobis", **kw).fit(X)
    V = np.cov(X.T) + np.diag([1.0, 2.0, 3.0])  # not the data's covariance
    D = squareform(pdist(X, "mahalanobis", VI=np.linalg.inv(V)))
    # the affinities (a 40-point t-SNE amplifies last-bit differences)
    ref = dense_conditional(D, 5, "precomputed")
    for params in ({"V": V}, {"VI": np.linalg.inv(V)}):
        assert_allclose(dense_conditional(X, 5, "mahalanobis", metric_params=params),
                        ref, atol=1e-12)


@pytest.mark.parametrize("method", ["exact", "barnes_hut"])
def test_verbose_reports_neighbours_and_sigma(method, capsys):
    TSNE(verbose=2, perplexity=4, method=method, max_iter=300).fit(_points(0, n=20))
    out = capsys.readouterr().out
    for text in ("nearest neighbors...", "Computed conditional probabilities",
                 "Mean sigma", "early exaggeration"):
        assert text in out


def test_no_progress_is_reported(capsys):
    # a KL that never improves: stopped at the second check
    from skml.manifold._optimizer import gradient_descent, new_state

    def flat(Y, exaggeration, grad, compute_error):
        grad[:] = 1.0
        return 1.0

    Y = np.zeros((5, 2))
    _, it = gradient_descent(flat, Y, new_state(Y), it=0, max_iter=500, momentum=0.5,
                             learning_rate=1.0, exaggeration=1.0,
                             n_iter_without_progress=-1, min_grad_norm=0.0,
                             verbose=2)
    assert it == 99
    assert ("Iteration 100: did not make any progress during the last -1 episodes. "
            "Finished." in capsys.readouterr().out)


def test_cosine_metric_is_scikit_learns_cosine_distance():
    # metric="cosine" gives exactly the embedding of the precomputed float64
    # cosine distances (scikit-learn's test compares with float32 distances,
    # whose rounding a 50-point t-SNE amplifies)
    from sklearn.metrics.pairwise import cosine_distances
    X = _points(0, n=50, d=3)
    for method in ("exact", "barnes_hut"):
        kw = dict(method=method, random_state=0, max_iter=300, init="random")
        assert_allclose(TSNE(metric="cosine", **kw).fit_transform(X),
                        TSNE(metric="precomputed", **kw).fit_transform(
                            cosine_distances(X)), atol=1e-8)


@pytest.mark.parametrize("metric", ["cosine", "manhattan", "minkowski", "sqeuclidean"])
def test_metric_equals_precomputed_on_the_same_distances(metric):
    # metric=m gives bit for bit the embedding of metric="precomputed" on the
    # same distances: the full matrix (exact, Barnes-Hut) and a kNN graph
    # (Barnes-Hut, scikit-learn's test_neighbors_pipeline::test_tsne). The
    # scikit-learn tests hand over distances computed elsewhere (its float32
    # cosine_distances: 1.8e-7 off; its KNeighborsTransformer: 1.3e-15 off),
    # and t-SNE's early exaggeration amplifies any such change: scikit-learn's
    # own embedding moves by 42 (of a 76 spread) when that kNN graph's
    # distances are scaled by 1 + 1e-6.
    from skml.metrics.pairwise import pairwise_distances
    from skml.neighbors import NearestNeighbors
    X = _points(0, n=40, d=3).astype(np.float32)
    D = pairwise_distances(X.astype(np.float64), metric=metric)
    G = NearestNeighbors(n_neighbors=16, metric=metric).fit(
        X.astype(np.float64)).kneighbors_graph(mode="distance")
    for method, given in [("exact", D), ("barnes_hut", D), ("barnes_hut", G)]:
        kw = dict(method=method, random_state=0, max_iter=250, init="random",
                  perplexity=5)
        np.testing.assert_array_equal(
            TSNE(metric=metric, **kw).fit_transform(X),
            TSNE(metric="precomputed", **kw).fit_transform(given))


def test_verbose_ends_with_the_reported_kl(capsys):
    est = TSNE(n_iter_without_progress=2, verbose=2, random_state=0,
               method="exact", max_iter=500, perplexity=10).fit(_points(0, n=50, d=2))
    last = [line for line in capsys.readouterr().out.splitlines()
            if "Iteration" in line and "error = " in line][-1]
    value = float(last.partition("error = ")[2].partition(",")[0])
    assert value == pytest.approx(est.kl_divergence_, abs=1e-7)
