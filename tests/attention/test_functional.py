"""Worked numbers and properties of the attention functions (notes B §7.6, A §14)."""

import numpy as np
import pytest

from skml.attention import (
    RotaryPositionalEncoding,
    apply_rope,
    causal_mask,
    label_smoothing,
    rope_frequencies,
    rope_matrix,
    scaled_dot_product_attention,
    sinusoidal_positional_encoding,
    softmax,
)


def _qkv(seed=0, shape=(2, 3), T=5, d=4):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(*shape, T, d)) for _ in range(3))


# ---------------------------------------------------------------- attention

def test_attention_matches_formula():
    Q, K, V = _qkv()
    out, A = scaled_dot_product_attention(Q, K, V, return_weights=True)
    S = Q @ np.swapaxes(K, -1, -2) / 2.0  # sqrt(d) = 2
    E = np.exp(S)
    ref = E / E.sum(-1, keepdims=True)
    np.testing.assert_allclose(A, ref, rtol=1e-12)
    np.testing.assert_allclose(out, ref @ V, rtol=1e-12)


def test_rows_sum_to_one_and_outputs_in_convex_hull():
    Q, K, V = _qkv(1)
    out, A = scaled_dot_product_attention(Q, K, V, return_weights=True)
    np.testing.assert_allclose(A.sum(-1), 1.0, rtol=1e-12)
    assert np.all(A >= 0)
    assert np.all(out <= V.max(-2, keepdims=True) + 1e-12)
    assert np.all(out >= V.min(-2, keepdims=True) - 1e-12)


def test_large_logits_do_not_overflow():
    Q, K, V = _qkv(2)
    out, A = scaled_dot_product_attention(1e4 * Q, 1e4 * K, V, return_weights=True)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(A))
    np.testing.assert_allclose(A.sum(-1), 1.0)


def test_causal_mask_zeroes_future_weights():
    Q, K, V = _qkv(3, T=6)
    out, A = scaled_dot_product_attention(Q, K, V, mask=causal_mask(6),
                                          return_weights=True)
    future = ~causal_mask(6)
    assert np.all(A[..., future] == 0.0)
    np.testing.assert_allclose(A.sum(-1), 1.0)
    # position 0 sees only itself: o_0 = v_0
    np.testing.assert_allclose(out[..., 0, :], V[..., 0, :])
    # the output at t does not change when later values change
    V2 = V.copy()
    V2[..., 4:, :] += 100.0
    out2 = scaled_dot_product_attention(Q, K, V2, mask=causal_mask(6))
    np.testing.assert_allclose(out2[..., :4, :], out[..., :4, :])


def test_additive_mask_equals_boolean_mask():
    Q, K, V = _qkv(4)
    mask = np.random.default_rng(0).random((5, 5)) < 0.7
    np.fill_diagonal(mask, True)
    additive = np.where(mask, 0.0, -np.inf)
    a = scaled_dot_product_attention(Q, K, V, mask=mask)
    b = scaled_dot_product_attention(Q, K, V, mask=additive)
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_fully_masked_row_gives_zeros_not_nan():
    Q, K, V = _qkv(5)
    mask = np.ones((5, 5), dtype=bool)
    mask[2] = False
    out, A = scaled_dot_product_attention(Q, K, V, mask=mask, return_weights=True)
    assert np.all(np.isfinite(out))
    assert np.all(A[..., 2, :] == 0) and np.all(out[..., 2, :] == 0)


def test_key_value_permutation_invariance_and_single_key():
    Q, K, V = _qkv(6)
    perm = np.array([3, 0, 4, 1, 2])
    a = scaled_dot_product_attention(Q, K, V)
    b = scaled_dot_product_attention(Q, K[..., perm, :], V[..., perm, :])
    np.testing.assert_allclose(a, b, rtol=1e-12)
    out = scaled_dot_product_attention(Q, K[..., :1, :], V[..., :1, :])
    np.testing.assert_allclose(out, np.broadcast_to(V[..., :1, :], out.shape))


def test_attention_errors():
    Q, K, V = _qkv()
    with pytest.raises(ValueError, match="last dimension"):
        scaled_dot_product_attention(Q, K[..., :3], V)
    with pytest.raises(ValueError, match="keys"):
        scaled_dot_product_attention(Q, K, V[..., :4, :])
    with pytest.raises(ValueError, match="broadcast"):
        scaled_dot_product_attention(Q, K, V, mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(ValueError, match="2 dimensions"):
        scaled_dot_product_attention(np.ones(3), K, V)
    with pytest.raises(TypeError, match="mask"):
        scaled_dot_product_attention(Q, K, V, mask=np.full((5, 5), "a"))


def test_softmax_all_minus_inf_slice():
    P = softmax(np.array([[0.0, -np.inf], [-np.inf, -np.inf]]))
    np.testing.assert_array_equal(P, [[1.0, 0.0], [0.0, 0.0]])


# ---------------------------------------------------------------- positions

def test_sinusoidal_worked_numbers():
    P = sinusoidal_positional_encoding(4, 512)
    assert P[1, 0] == pytest.approx(np.sin(1.0), abs=1e-15)   # 0.8415
    assert P[1, 1] == pytest.approx(np.cos(1.0), abs=1e-15)   # 0.5403
    np.testing.assert_allclose(P[0, 0::2], 0.0)
    np.testing.assert_allclose(P[0, 1::2], 1.0)
    t, i, d = 3, 5, 512
    assert P[t, 2 * i] == pytest.approx(np.sin(t / 10000 ** (2 * i / d)))
    assert P[t, 2 * i + 1] == pytest.approx(np.cos(t / 10000 ** (2 * i / d)))


def test_sinusoidal_odd_d_and_errors():
    P = sinusoidal_positional_encoding(3, 5)
    assert P.shape == (3, 5)
    assert P[2, 4] == pytest.approx(np.sin(2 / 10000 ** (4 / 5)))
    with pytest.raises(ValueError, match="T must be"):
        sinusoidal_positional_encoding(0, 4)
    with pytest.raises(TypeError, match="d must be an int"):
        sinusoidal_positional_encoding(3, 4.0)


def test_rope_frequencies_worked_numbers():
    np.testing.assert_allclose(rope_frequencies(8), [1.0, 0.1, 0.01, 0.001], rtol=1e-12)
    with pytest.raises(ValueError, match="even"):
        rope_frequencies(7)
    with pytest.raises(ValueError, match="base"):
        rope_frequencies(8, base=0.5)


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_matrix_properties(interleaved):
    d = 8
    R = {m: rope_matrix(m, d, interleaved=interleaved) for m in (0, 2, 5, 3)}
    np.testing.assert_allclose(R[0], np.eye(d), atol=1e-15)
    np.testing.assert_allclose(R[5] @ R[5].T, np.eye(d), atol=1e-12)  # orthogonal
    np.testing.assert_allclose(R[2].T @ R[5], R[3], atol=1e-12)      # R_m^T R_n = R_{n-m}


@pytest.mark.parametrize("interleaved", [True, False])
def test_apply_rope_equals_matrix_and_scores_depend_on_offset(interleaved):
    rng = np.random.default_rng(0)
    d = 8
    X = rng.normal(size=(6, d))
    pos = np.array([0.0, 1.0, 2.0, 7.0, 11.0, 3.0])
    Z = apply_rope(X, pos, interleaved=interleaved)
    for m in range(6):
        np.testing.assert_allclose(Z[m], rope_matrix(pos[m], d, interleaved=interleaved)
                                   @ X[m], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), np.linalg.norm(X, axis=1))
    # (R_m q)^T (R_n k) depends only on m - n: shifting every position changes nothing
    q, k = rng.normal(size=(2, 1, d))
    def score(m, n):
        return float(apply_rope(q, [m], interleaved=interleaved)[0]
                     @ apply_rope(k, [n], interleaved=interleaved)[0])
    assert score(5, 2) == pytest.approx(score(105, 102), abs=1e-9)
    assert score(5, 2) == pytest.approx(score(3, 0), abs=1e-9)
    assert score(5, 2) == pytest.approx(float(q[0] @ rope_matrix(-3, d, interleaved=
                                                                 interleaved) @ k[0]))
    assert score(5, 2) != pytest.approx(score(2, 5), abs=1e-6)


def test_half_split_is_a_permutation_of_interleaved():
    rng = np.random.default_rng(1)
    d = 8
    X = rng.normal(size=(2, 5, d))
    perm = np.r_[0:d:2, 1:d:2]  # interleaved pair (2i, 2i+1) -> (i, i + d/2)
    Zi = apply_rope(X, interleaved=True)
    Zh = apply_rope(X[..., perm], interleaved=False)
    np.testing.assert_allclose(Zh, Zi[..., perm], atol=1e-12)


def test_apply_rope_errors():
    with pytest.raises(ValueError, match="even"):
        apply_rope(np.ones((3, 5)))
    with pytest.raises(ValueError, match="positions"):
        apply_rope(np.ones((3, 4)), positions=[0, 1])


def test_rotary_positional_encoding_transformer():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5, 13))  # 3 positions of d = 4, one feature left over
    enc = RotaryPositionalEncoding(d=4)
    Z = enc.transform(X)  # stateless: works unfitted
    np.testing.assert_allclose(Z[:, :12].reshape(5, 3, 4),
                               apply_rope(X[:, :12].reshape(5, 3, 4)))
    np.testing.assert_array_equal(Z[:, 12], X[:, 12])
    # rows are samples: a row's output does not depend on the others
    np.testing.assert_allclose(enc.transform(X[::-1]), Z[::-1])
    Z2 = enc.fit(X).transform(X, positions=np.arange(3) + 3.0)
    np.testing.assert_allclose(Z2[:, :12].reshape(5, 3, 4),
                               apply_rope(X[:, :12].reshape(5, 3, 4), np.arange(3) + 3.0))
    Zh = RotaryPositionalEncoding(d=4, interleaved=False).fit_transform(X[:, :8])
    np.testing.assert_allclose(Zh.reshape(5, 2, 4),
                               apply_rope(X[:, :8].reshape(5, 2, 4), interleaved=False))
    # default d = 2: pair m rotated by the angle m (the notes' 2-D case)
    Z1 = RotaryPositionalEncoding().fit_transform(np.tile([1.0, 0.0], (1, 3)))
    np.testing.assert_allclose(Z1[0], [1, 0, np.cos(1), np.sin(1), np.cos(2), np.sin(2)])
    with pytest.raises(ValueError, match="base"):
        RotaryPositionalEncoding(base=-1.0).fit(X)
    with pytest.raises(ValueError, match="even"):
        RotaryPositionalEncoding(d=3).fit(X)


# ---------------------------------------------------------------- label smoothing

def test_label_smoothing_worked_numbers():
    Y = label_smoothing([0, 2, 1], 0.1, 4)
    np.testing.assert_allclose(Y.sum(1), 1.0)
    assert Y[0, 0] == pytest.approx(1 - 0.1 + 0.1 / 4)
    assert Y[0, 1] == pytest.approx(0.1 / 4)
    np.testing.assert_array_equal(label_smoothing([1], 0.0, 3), [[0.0, 1.0, 0.0]])


def test_label_smoothing_errors():
    with pytest.raises(ValueError, match="class indices"):
        label_smoothing([0, 3], 0.1, 3)
    with pytest.raises(ValueError, match="eps"):
        label_smoothing([0], 1.5, 3)
    with pytest.raises(ValueError, match="integer"):
        label_smoothing([0.5], 0.1, 3)
