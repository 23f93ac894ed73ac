"""The contrastive losses and MRF utilities: the notes' facts (A §8.1-8.4), gradients."""

import numpy as np
import pytest

from skml.contrastive import (
    clip_loss,
    gaussian_kernel_matrix,
    info_nce_loss,
    mrf_cross_entropy,
    nt_xent_loss,
    sample_unitary_outdegree_graph,
)
from skml.optim import check_gradient

N, D = 5, 3


def _pair(seed=0, n=N, d=D):
    rng = np.random.RandomState(seed)
    return rng.randn(n, d), rng.randn(n, d)


def _reference_nt_xent(Z_a, Z_b, tau):
    """The notes' interleaved form: views 2k-1, 2k; l(i, j) summed over positives."""
    n = len(Z_a)
    Z = np.empty((2 * n, Z_a.shape[1]))
    Z[0::2], Z[1::2] = Z_a, Z_b
    U = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    s = U @ U.T

    def ell(i, j):
        den = sum(np.exp(s[i, k] / tau) for k in range(2 * n) if k != i)
        return -np.log(np.exp(s[i, j] / tau) / den)

    return sum(ell(2 * k, 2 * k + 1) + ell(2 * k + 1, 2 * k) for k in range(n)) / (2 * n)


def _reference_info_nce(Q, P, tau, similarity):
    total = 0.0
    for i in range(len(Q)):
        if similarity == "gaussian":
            f = [-np.sum((Q[i] - p) ** 2) / (2 * tau) for p in P]
        else:
            f = [Q[i] @ p / np.linalg.norm(Q[i]) / np.linalg.norm(p) / tau for p in P]
        total += -np.log(np.exp(f[i]) / np.sum(np.exp(f)))
    return total


LOSSES = [
    ("nt_xent", lambda A, B, t: nt_xent_loss(A, B, t)),
    ("info_nce_gaussian_sum", lambda A, B, t: info_nce_loss(A, B, t)),
    ("info_nce_gaussian_mean", lambda A, B, t: info_nce_loss(A, B, t, reduction="mean")),
    ("info_nce_cosine_sum", lambda A, B, t: info_nce_loss(A, B, t, similarity="cosine")),
    ("info_nce_cosine_mean",
     lambda A, B, t: info_nce_loss(A, B, t, similarity="cosine", reduction="mean")),
    ("clip", lambda A, B, t: clip_loss(A, B, t)),
]


@pytest.mark.parametrize("name, loss", LOSSES, ids=[n for n, _ in LOSSES])
@pytest.mark.parametrize("tau", [0.1, 0.5, 2.0])
def test_gradient_matches_finite_differences(name, loss, tau):
    A, B = _pair(1)
    x = np.concatenate([A.ravel(), B.ravel()])

    def split(x):
        return x[:N * D].reshape(N, D), x[N * D:].reshape(N, D)

    def fun(x):
        return loss(*split(x), tau)[0]

    def grad(x):
        _, gA, gB = loss(*split(x), tau)
        return np.concatenate([gA.ravel(), gB.ravel()])

    assert check_gradient(fun, grad, x) < 1e-6


def test_nt_xent_matches_the_notes_interleaved_formula():
    A, B = _pair(2)
    for tau in (0.2, 1.0):
        assert nt_xent_loss(A, B, tau)[0] == pytest.approx(
            _reference_nt_xent(A, B, tau), rel=1e-12)


@pytest.mark.parametrize("n", [1, 3, 8])
def test_nt_xent_is_log_2n_minus_1_when_all_similarities_are_equal(n):
    Z = np.tile([[1.0, -2.0, 0.5]], (n, 1))
    if n == 1:
        # One sample: the only candidate is the positive, log(1) = 0.
        assert nt_xent_loss(Z, Z)[0] == pytest.approx(0.0, abs=1e-15)
    else:
        assert nt_xent_loss(Z, 3 * Z, 0.3)[0] == pytest.approx(np.log(2 * n - 1), rel=1e-12)


def test_nt_xent_scale_invariant_symmetric_and_non_negative():
    A, B = _pair(3)
    value = nt_xent_loss(A, B, 0.5)[0]
    scales = np.array([0.1, 3.0, 7.0, 0.5, 100.0])[:, None]
    assert nt_xent_loss(A * scales, B * 2.5, 0.5)[0] == pytest.approx(value, rel=1e-12)
    swapped, gB, gA = nt_xent_loss(B, A, 0.5)
    _, gA2, gB2 = nt_xent_loss(A, B, 0.5)
    assert swapped == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(gA, gA2, atol=1e-14)
    np.testing.assert_allclose(gB, gB2, atol=1e-14)
    assert value >= 0


def test_nt_xent_falls_when_positives_match_and_negatives_are_orthogonal():
    rng = np.random.RandomState(0)
    E = np.eye(4)
    random_loss = nt_xent_loss(rng.randn(4, 4), rng.randn(4, 4), 0.5)[0]
    aligned = nt_xent_loss(E, E, 0.5)[0]
    assert aligned < random_loss
    # Orthogonal negatives at tau: l = -log(e^{1/t} / (e^{1/t} + 2(n-1)))
    assert aligned == pytest.approx(np.log1p(2 * 3 * np.exp(-1 / 0.5)), rel=1e-12)


@pytest.mark.parametrize("similarity", ["gaussian", "cosine"])
def test_info_nce_matches_the_written_formula(similarity):
    Q, P = _pair(4)
    for tau in (0.3, 1.0):
        assert info_nce_loss(Q, P, tau, similarity)[0] == pytest.approx(
            _reference_info_nce(Q, P, tau, similarity), rel=1e-12)
        assert info_nce_loss(Q, P, tau, similarity, "mean")[0] == pytest.approx(
            _reference_info_nce(Q, P, tau, similarity) / N, rel=1e-12)


def test_info_nce_is_log_n_for_equal_distances_and_falls_to_zero():
    # Candidates on a circle around each query: all distances equal.
    n = 6
    angles = 2 * np.pi * np.arange(n) / n
    P = np.c_[np.cos(angles), np.sin(angles)]
    Q = np.zeros((n, 2))
    assert info_nce_loss(Q, P, 0.7)[0] == pytest.approx(n * np.log(n), rel=1e-12)
    assert info_nce_loss(Q, P, 0.7, reduction="mean")[0] == pytest.approx(np.log(n))
    # Positives at distance 0, negatives far apart: the loss tends to 0.
    Q = np.eye(n)
    values = [info_nce_loss(s * Q, s * Q, 1.0)[0] for s in (0.5, 2.0, 8.0)]
    assert values[0] > values[1] > values[2] >= 0
    assert values[2] < 1e-12


def test_clip_loss_symmetric_and_log_n_for_equal_similarities():
    A, B = _pair(5)
    value, gA, gB = clip_loss(A, B, 0.1)
    value2, gB2, gA2 = clip_loss(B, A, 0.1)
    assert value2 == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(gA, gA2, atol=1e-13)
    assert clip_loss(np.ones((4, 3)), np.ones((4, 3)), 0.07)[0] == pytest.approx(np.log(4))


def test_mrf_cross_entropy_equals_info_nce_for_one_hot_pi():
    Q, P = _pair(6, n=7)
    for tau in (0.2, 1.5):
        H = mrf_cross_entropy(np.eye(7), Q, tau, Y=P)
        assert H == pytest.approx(info_nce_loss(Q, P, tau)[0], rel=1e-13)


def test_mrf_cross_entropy_general_pi_and_monte_carlo():
    rng = np.random.RandomState(0)
    Z = rng.randn(5, 2)
    pi = rng.uniform(0, 1, (5, 5)) * (rng.uniform(size=(5, 5)) < 0.7)
    pi[:, 0] += 0.1
    K = gaussian_kernel_matrix(Z, 0.8)
    Q = K / K.sum(axis=1, keepdims=True)
    exact = -np.sum(pi / pi.sum(axis=1, keepdims=True) * np.log(Q))
    H = mrf_cross_entropy(pi, Z, 0.8)
    assert H == pytest.approx(exact, rel=1e-12)
    W = sample_unitary_outdegree_graph(pi, 20000, random_state=0)
    draws = -np.einsum("sij,ij->s", W, np.log(Q))
    # Monte Carlo standard error is draws.std() / sqrt(20000) ~ 0.01; 5 of them.
    assert abs(draws.mean() - H) < 5 * draws.std() / np.sqrt(len(draws))


def test_sampled_rows_have_exactly_one_edge_and_the_right_frequencies():
    pi = np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0], [1.0, 1.0, 2.0]])
    W = sample_unitary_outdegree_graph(pi, 40000, random_state=1)
    assert W.shape == (40000, 3, 3)
    assert np.all(W.sum(axis=2) == 1)
    assert not np.any(W[:, pi == 0])
    freq = W.mean(axis=0)
    np.testing.assert_allclose(freq, pi / pi.sum(axis=1, keepdims=True), atol=0.01)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, np.inf, "a"])
def test_bad_temperature_is_refused(bad):
    A, B = _pair()
    for f in (nt_xent_loss, info_nce_loss, clip_loss):
        with pytest.raises(ValueError, match="temperature"):
            f(A, B, bad)


def test_bad_shapes_and_options_are_refused():
    A, B = _pair()
    with pytest.raises(ValueError, match="same shape"):
        nt_xent_loss(A, B[:3])
    with pytest.raises(ValueError, match="2-d"):
        info_nce_loss(A.ravel(), B.ravel())
    with pytest.raises(ValueError, match="NaN"):
        clip_loss(np.full_like(A, np.nan), B)
    with pytest.raises(ValueError, match="similarity"):
        info_nce_loss(A, B, similarity="dot")
    with pytest.raises(ValueError, match="reduction"):
        info_nce_loss(A, B, reduction="none")
    with pytest.raises(ValueError, match="pi"):
        mrf_cross_entropy(-np.eye(N), A)
    with pytest.raises(ValueError, match="pi"):
        sample_unitary_outdegree_graph(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="n_samples"):
        sample_unitary_outdegree_graph(np.ones((2, 2)), 0)
