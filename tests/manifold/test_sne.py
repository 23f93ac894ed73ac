"""SNE (notes A §9.2): gradient, loss, and the crowding problem against t-SNE."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.datasets import load_digits, load_iris
from sklearn.manifold import TSNE as SkTSNE
from sklearn.manifold import trustworthiness
from threadpoolctl import threadpool_limits

from skml.manifold import SNE, TSNE, conditional_probabilities
from skml.manifold._gradients import sne_exact
from skml.optim import check_gradient
from tests._parity import parity_test


@pytest.fixture(autouse=True)
def _one_thread():
    with threadpool_limits(1):
        yield


def _points(seed, n=30, d=4):
    return np.random.RandomState(seed).normal(size=(n, d))


def test_gradient_matches_finite_differences():
    P, _ = conditional_probabilities(_points(0), perplexity=5.0)
    Y0 = np.random.RandomState(1).normal(size=(30, 2))
    buf = np.empty_like(Y0)

    def fun(y):
        return sne_exact(y.reshape(Y0.shape), P, 1.0, buf)

    def grad(y):
        g = np.empty_like(Y0)
        sne_exact(y.reshape(Y0.shape), P, 1.0, g)
        return g.ravel()

    assert check_gradient(fun, grad, Y0.ravel()) < 1e-6


def test_loss_is_the_sum_of_row_divergences():
    P, _ = conditional_probabilities(_points(2), perplexity=5.0)
    Y = np.random.RandomState(3).normal(size=(30, 2))
    D = ((Y[:, None] - Y[None]) ** 2).sum(-1)
    Q = np.exp(-D)
    np.fill_diagonal(Q, 0.0)
    Q /= Q.sum(axis=1, keepdims=True)
    mask = P > 0
    expected = np.sum(P[mask] * np.log(P[mask] / Q[mask]))
    assert_allclose(sne_exact(Y, P, 1.0, np.empty_like(Y)), expected)
    assert expected >= 0.0


def test_loss_decreases_with_more_iterations():
    X = _points(4, n=60)
    kls = [SNE(perplexity=10, max_iter=it, random_state=0).fit(X).kl_divergence_
           for it in (100, 300, 600)]
    # Converged by 300 iterations: the later KLs may differ in the last bits.
    slack = 1e-12 * kls[0]
    assert kls[0] >= kls[1] - slack >= kls[2] - 2 * slack >= -2 * slack


def test_attributes_and_errors():
    X = _points(5, n=40)
    est = SNE(perplexity=5, max_iter=100, random_state=0)
    E = est.fit_transform(X)
    assert E is est.embedding_ and E.shape == (40, 2) and est.n_iter_ == 99
    assert est.n_features_in_ == 4
    with pytest.raises(ValueError,
                       match=r"perplexity \(50\) must be less than n_samples \(40\)"):
        SNE(perplexity=50).fit(X)
    with pytest.raises(ValueError, match="learning_rate"):
        SNE(learning_rate=-1.0).fit(X)
    with pytest.raises(ValueError, match='init="pca" cannot'):
        SNE(metric="precomputed").fit(np.abs(_points(0, 40, 40)))


def _separation(E, y):
    """Mean distance between class centroids over the mean within-class spread."""
    centres = np.array([E[y == c].mean(axis=0) for c in np.unique(y)])
    between = np.mean(np.linalg.norm(centres[:, None] - centres[None], axis=-1)[
        ~np.eye(len(centres), dtype=bool)])
    within = np.mean([np.linalg.norm(E[y == c] - E[y == c].mean(axis=0), axis=1).mean()
                      for c in np.unique(y)])
    return between / within


def test_crowding_sne_separates_digit_classes_less_than_t_sne():
    # Notes A §9.2-9.3: the Gaussian kernel crowds moderately distant points
    # together; t-SNE's heavy tails pull the classes apart.
    # Noise (issue 19): t-SNE's optimisation is chaotic, so its separation
    # moves with the seed and with rounding (another CPU, thread count, or a
    # 1e-9 perturbation of X); SNE's stayed at 5.12. Over 30 seeds and 8
    # perturbed inputs the ratio t-SNE/SNE was 1.40-1.62 (mean 1.55, sd
    # 0.06); a fresh clone elsewhere saw 1.44 against the old bound of 1.5.
    # The bound 1.2 keeps the property (SNE crowds the classes clearly more)
    # with a margin of 0.2 below the worst run, about 6 sd below the mean.
    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16.0, y[:300]
    sne = SNE(random_state=0).fit_transform(X)
    tsne = TSNE(method="exact", random_state=0).fit_transform(X)
    assert _separation(tsne, y) > 1.2 * _separation(sne, y)


@parity_test(SNE)
def test_parity_against_scikit_learn_exact_t_sne_on_iris():
    # No scikit-learn SNE: the counterpart is its exact t-SNE, which SNE
    # should approach in trustworthiness on a small, low-dimensional set.
    X, _ = load_iris(return_X_y=True)
    ours = SNE(random_state=0).fit_transform(X)
    ref = SkTSNE(method="exact", random_state=0).fit_transform(X)
    t_ours = trustworthiness(X, ours, n_neighbors=5)
    t_ref = trustworthiness(X, ref, n_neighbors=5)
    assert t_ours >= t_ref - 0.03


@pytest.mark.parametrize("factor, offset", [(1e300, 0.0), (1e-300, 0.0), (1.0, 1e8)])
def test_embedding_does_not_depend_on_units_or_offset(factor, offset):
    # Issue 23 (as for TSNE): the affinities see centred, rescaled points.
    from sklearn.datasets import load_iris
    from sklearn.manifold import trustworthiness

    X = load_iris().data
    params = dict(perplexity=10, max_iter=100, random_state=0)
    clean = trustworthiness(X, SNE(**params).fit_transform(X), n_neighbors=5)
    E = SNE(**params).fit_transform(X * factor + offset)
    assert np.all(np.isfinite(E))
    assert trustworthiness(X, E, n_neighbors=5) >= clean - 0.05


# -- Issue 20: sparse CSR/CSC points, as TSNE's exact method takes them


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("init", ["pca", "random"])
def test_sne_sparse_points_equal_dense(fmt, init):
    import scipy.sparse as sp

    X, _ = load_iris(return_X_y=True)
    X = X * (X > np.median(X, axis=0))
    dense = SNE(max_iter=300, init=init, random_state=0).fit(X)
    sparse = SNE(max_iter=300, init=init, random_state=0).fit(sp.csr_matrix(X).asformat(fmt))
    assert_allclose(sparse.embedding_, dense.embedding_, atol=1e-8)
    assert_allclose(sparse.kl_divergence_, dense.kl_divergence_, rtol=1e-8)


def test_sne_sparse_precomputed_refused_as_exact_tsne():
    import scipy.sparse as sp

    D = sp.csr_matrix(np.ones((6, 6)) - np.eye(6))
    with pytest.raises(TypeError, match="sparse precomputed"):
        SkTSNE(metric="precomputed", method="exact", init="random", perplexity=2).fit(D)
    with pytest.raises(TypeError, match="sparse precomputed"):
        SNE(metric="precomputed", init="random", perplexity=2).fit(D)
