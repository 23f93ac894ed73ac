"""Gradient checks and properties of the transformer layers (notes B §7.6, A §14.2)."""

import numpy as np
import pytest

from skml.attention import apply_rope, causal_mask, scaled_dot_product_attention
from skml.attention._layers import (
    ClsToken,
    Embedding,
    LearnedPositional,
    MeanPool,
    MultiHeadAttention,
    Residual,
    SinusoidalPositional,
    TokenDense,
    TokenPool,
)
from skml.neural_network._modules import Activation, Dense, Dropout, LayerNorm, Sequential
from skml.optim import check_gradient

_TOL = 1e-6  # a correct gradient gives ~1e-9 here; a wrong one order 1


def _net(layers, in_shape, seed=0):
    net = Sequential(layers, in_shape, rng=np.random.RandomState(seed))
    # away from the initial zeros (biases), so every term of the gradient counts
    net.theta[:] += 0.1 * np.random.default_rng(seed).normal(size=net.theta.size)
    return net


def _check(net, X, input_grad=True):
    """Relative errors of the parameter and input gradients of sum(R * net(X))."""
    R = np.random.default_rng(1).normal(size=net.forward(X, True).shape)

    def f(theta):
        net.theta[:] = theta
        return float((net.forward(X, True) * R).sum())

    def g(theta):
        net.theta[:] = theta
        net.forward(X, True)
        net.backward(R.copy())
        return net.grad.copy()

    errors = [check_gradient(f, g, net.theta.copy())] if net.theta.size else []
    if input_grad:
        def fx(x):
            return float((net.forward(x.reshape(X.shape), True) * R).sum())

        def gx(x):
            net.forward(x.reshape(X.shape), True)
            return net.backward(R.copy(), input_grad=True).copy()

        errors.append(check_gradient(fx, gx, X.ravel()))
    return errors


X3 = np.random.default_rng(0).normal(size=(3, 5, 8))

LAYERS = {
    "attention": [MultiHeadAttention(2)],
    "attention_causal": [MultiHeadAttention(4, causal=True)],
    "attention_rope": [MultiHeadAttention(2, rope=True)],
    "attention_rope_causal": [MultiHeadAttention(2, causal=True, rope=True)],
    "token_dense": [TokenDense(6)],
    "feed_forward": [Residual([TokenDense(32), Activation("relu"), TokenDense(8)])],
    "attention_block": [Residual([MultiHeadAttention(2)]), LayerNorm(last_axis=True)],
    "layer_norm_last_axis": [LayerNorm(last_axis=True)],
    "sinusoidal": [SinusoidalPositional(), TokenDense(3)],
    "learned_positions": [LearnedPositional()],
    "cls_token": [ClsToken(), TokenDense(2)],
    "mean_pool": [MeanPool(), Dense(3)],
    "token_pool_first": [TokenPool(0), Dense(3)],
    "token_pool_last": [TokenPool(-1), Dense(3)],
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_gradients(name):
    net = _net(LAYERS[name], (5, 8))
    for err in _check(net, X3.copy()):
        assert err < _TOL, (name, err)


def test_embedding_gradient_and_lookup():
    X = np.random.default_rng(2).integers(0, 7, size=(4, 5)).astype(float)
    X[0, :2] = 3  # a repeated id accumulates its gradient
    net = _net([Embedding(7, 8), MultiHeadAttention(2), MeanPool(), Dense(3)], (5,))
    (err,) = _check(net, X, input_grad=False)
    assert err < _TOL
    emb = Sequential([Embedding(7, 4)], (5,), rng=np.random.RandomState(0))
    np.testing.assert_array_equal(emb.forward(X), emb.params[0]["E"][X.astype(int)])
    with pytest.raises(ValueError, match="Token ids"):
        emb.forward(np.full((1, 5), 7.0))


def test_whole_encoder_gradient():
    layers = [TokenDense(8), SinusoidalPositional(),
              Residual([MultiHeadAttention(2, causal=True), Dropout(0.0)]),
              LayerNorm(last_axis=True),
              Residual([TokenDense(32), Activation("relu"), TokenDense(8)]),
              LayerNorm(last_axis=True), MeanPool(), Dense(2)]
    net = _net(layers, (5, 3))
    X = np.random.default_rng(3).normal(size=(4, 5, 3))
    for err in _check(net, X):
        assert err < _TOL


def test_layer_norm_last_axis_matches_formula_and_2d_default():
    net = _net([LayerNorm(last_axis=True)], (5, 8))
    Y = net.forward(X3)
    mu, var = X3.mean(-1, keepdims=True), X3.var(-1, keepdims=True)
    p = net.params[0]
    np.testing.assert_allclose(Y, (X3 - mu) / np.sqrt(var + 1e-5) * p["gamma"] + p["beta"],
                               rtol=1e-12)
    X2 = X3[:, 0]
    a = Sequential([LayerNorm()], (8,))
    b = Sequential([LayerNorm(last_axis=True)], (8,))
    np.testing.assert_allclose(a.forward(X2), b.forward(X2))


def test_attention_layer_equals_function_of_its_projections():
    net = _net([MultiHeadAttention(2, causal=True)], (5, 8))
    p = net.params[0]
    Y = net.forward(X3)
    QKV = X3 @ p["Wqkv"] + p["bqkv"]
    heads = [
        scaled_dot_product_attention(QKV[..., 4 * j:4 * j + 4],
                                     QKV[..., 8 + 4 * j:8 + 4 * j + 4],
                                     QKV[..., 16 + 4 * j:16 + 4 * j + 4],
                                     mask=causal_mask(5))
        for j in range(2)
    ]
    np.testing.assert_allclose(Y, np.concatenate(heads, -1) @ p["Wo"] + p["bo"],
                               rtol=1e-10, atol=1e-12)
    A = net.caches[0]["A"]
    np.testing.assert_allclose(A.sum(-1), 1.0)
    assert np.all(A[..., ~causal_mask(5)] == 0)


def test_rope_attention_scores_depend_on_relative_positions():
    """Shifting a sequence's content keeps the rotated scores of equal offsets."""
    net = _net([MultiHeadAttention(1, rope=True)], (6, 4))
    p = net.params[0]
    x = np.random.default_rng(4).normal(size=(1, 6, 4))
    x[0, 3:] = x[0, :3]  # positions 3..5 repeat 0..2
    net.forward(x)
    A_scores = np.log(net.caches[0]["A"][0, 0])  # scores up to a per-row constant
    S = A_scores - A_scores[:, :1]
    # query 3 on keys 3..5 sees what query 0 saw on keys 0..2 (same m - n)
    np.testing.assert_allclose(S[3, 4:6] - S[3, 3], S[0, 1:3] - S[0, 0], atol=1e-10)
    Q = x @ p["Wqkv"][:, :4] + p["bqkv"][:4]
    K = x @ p["Wqkv"][:, 4:8] + p["bqkv"][4:8]
    Sref = apply_rope(Q) @ np.swapaxes(apply_rope(K), -1, -2) / 2.0
    np.testing.assert_allclose(S, (Sref - Sref[..., :1])[0], atol=1e-10)


def test_residual_is_identity_at_zero_weights():
    net = _net([Residual([TokenDense(16), Activation("relu"), TokenDense(8)])], (5, 8))
    net.theta[:] = 0.0
    np.testing.assert_array_equal(net.forward(X3), X3)


def test_residual_rejects_shape_change():
    with pytest.raises(ValueError, match="residual"):
        Sequential([Residual([TokenDense(3)])], (5, 8))


def test_attention_head_errors():
    with pytest.raises(ValueError, match="multiple of n_heads"):
        Sequential([MultiHeadAttention(3)], (5, 8))
    with pytest.raises(ValueError, match="even head size"):
        Sequential([MultiHeadAttention(4, rope=True)], (5, 4))
