"""Central-difference gradient check of notes B §6.12."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import logsumexp

from skml.optim import check_gradient

rng = np.random.default_rng(0)
X = rng.standard_normal((12, 4))
Y = rng.integers(0, 3, 12)


def softmax_ce(W):
    """Mean softmax cross-entropy of a (4, 3) weight matrix: an n-d parameter."""
    Z = X @ W
    return float(np.mean(logsumexp(Z, axis=1) - Z[np.arange(12), Y]))


def softmax_ce_grad(W):
    Z = X @ W
    P = np.exp(Z - logsumexp(Z, axis=1, keepdims=True))
    P[np.arange(12), Y] -= 1
    return X.T @ P / 12


def test_accepts_a_right_gradient_on_a_matrix_parameter():
    W = rng.standard_normal((4, 3))
    assert check_gradient(softmax_ce, softmax_ce_grad, W) < 1e-7
    # a flat gradient for an n-d point is fine too
    assert check_gradient(softmax_ce, lambda W: softmax_ce_grad(W).ravel(), W) < 1e-7


def test_catches_wrong_gradients():
    W = rng.standard_normal((4, 3))
    assert check_gradient(softmax_ce, lambda W: 2 * softmax_ce_grad(W), W) > 0.3
    assert check_gradient(softmax_ce, lambda W: -softmax_ce_grad(W), W) > 1.0
    # right values in the wrong layout: transposed
    assert check_gradient(softmax_ce, lambda W: softmax_ce_grad(W).T.ravel(), W) > 0.1
    # one coordinate off by 1e-3 is still seen
    def nearly(W):
        g = softmax_ce_grad(W)
        g[1, 2] += 1e-3
        return g

    assert check_gradient(softmax_ce, nearly, W) > 1e-4


@given(st.integers(1, 6), st.integers(0, 2**16))
def test_quadratics_pass(n, seed):
    r = np.random.default_rng(seed)
    M = r.standard_normal((n, n))
    A, b, x = M @ M.T + np.eye(n), r.standard_normal(n), r.standard_normal(n)
    error = check_gradient(lambda x: 0.5 * x @ A @ x - b @ x, lambda x: A @ x - b, x)
    assert error < 1e-6


def test_x_is_not_modified_and_lists_work():
    x = np.array([0.5, -1.0])
    check_gradient(lambda x: float(np.sum(np.sin(x))), np.cos, x)
    np.testing.assert_array_equal(x, [0.5, -1.0])
    assert check_gradient(lambda x: float(np.sum(np.sin(x))), np.cos, [0.5, -1]) < 1e-8


def test_zero_gradient_everywhere_gives_zero():
    assert check_gradient(lambda x: 1.0, np.zeros_like, np.ones(3)) == 0.0


def test_bad_inputs_raise():
    f, g = (lambda x: float(x @ x)), (lambda x: 2 * x)
    with pytest.raises(ValueError, match="eps"):
        check_gradient(f, g, np.ones(2), eps=0.0)
    with pytest.raises(ValueError, match="eps"):
        check_gradient(f, g, np.ones(2), eps=True)
    with pytest.raises(ValueError, match="3 entries but x has 2"):
        check_gradient(f, lambda x: np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="scalar"):
        check_gradient(lambda x: x, g, np.ones(2))
    with pytest.raises(ValueError, match="at least one"):
        check_gradient(f, g, np.ones(0))
