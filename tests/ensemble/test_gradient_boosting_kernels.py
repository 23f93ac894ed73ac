"""Gradient boosting's fast paths against their plain definitions."""

import numpy as np
import pytest
from scipy.special import expit

from skml.ensemble._gb_kernels import binomial_loss_neg_gradient, logistic_leaf_values
from skml.tree._hist_kernels import bin_columns
from skml.tree._tree import bin_features


def _columns(seed):
    rng = np.random.RandomState(seed)
    n = rng.randint(1, 2500)
    X = rng.normal(size=(n, 5)) * 10.0 ** rng.uniform(-5, 5)
    X[:, 1] = np.round(X[:, 1] * rng.randint(1, 200))  # ties
    X[:, 2] = rng.randint(0, rng.randint(1, 400), size=n)  # few or many distinct
    X[rng.rand(n) < 0.2, 3] = np.nan
    X[:, 4] = 1.5 if seed % 2 else np.nan  # constant, or all missing
    return X


@pytest.mark.parametrize("max_bins", [3, 16, 255, 256])
@pytest.mark.parametrize("seed", range(12))
def test_bin_columns_equals_bin_features(seed, max_bins):
    X = _columns(seed)
    ref = bin_features(X, max_bins)
    codes, edges, n_bins, missing_bin, has_missing = bin_columns(X, max_bins)
    assert codes.flags.f_contiguous and codes.dtype == np.uint8
    np.testing.assert_array_equal(codes, ref.codes)
    np.testing.assert_array_equal(edges, ref.edges)
    np.testing.assert_array_equal(n_bins, ref.n_bins)
    np.testing.assert_array_equal(has_missing, ref.has_missing)
    assert missing_bin == ref.missing_bin


def _deviance(y, f, w):
    return 2.0 * np.average(np.logaddexp(0.0, f) - y * f, weights=w)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 511, 512, 513, 5000])
def test_binomial_loss_and_gradient_match_the_definition(n, weighted):
    rng = np.random.RandomState(n)
    f = rng.normal(size=n) * 5.0
    f[::97] = 800.0 * np.sign(rng.normal(size=f[::97].shape))  # saturated
    y = (rng.rand(n) < 0.5).astype(np.float64)
    w = rng.rand(n) + 0.5 if weighted else np.ones(n)
    neg_grad = np.empty(n)
    value = binomial_loss_neg_gradient(y, f, w, not weighted, neg_grad)
    np.testing.assert_allclose(value, _deviance(y, f, w), rtol=1e-12)
    np.testing.assert_allclose(neg_grad, y - expit(f), rtol=0,
                               atol=1e-15)


def test_logistic_leaf_values_are_newton_steps():
    rng = np.random.RandomState(0)
    n, n_nodes = 400, 7
    leaf = rng.choice([1, 2, 4, 5], size=n)
    y = (rng.rand(n) < 0.4).astype(np.float64)
    p = rng.rand(n)
    neg_grad = y - p
    w = rng.rand(n)
    got = logistic_leaf_values(leaf, y, neg_grad, w, n_nodes, 0.5)
    for t in range(n_nodes):
        rows = leaf == t
        if not rows.any():
            assert got[t] == 0.0
            continue
        step = np.sum(w[rows] * neg_grad[rows]) / np.sum(w[rows] * p[rows] * (1 - p[rows]))
        np.testing.assert_allclose(got[t], 0.5 * step, rtol=1e-12)
    # Saturated probabilities: no curvature, no step.
    assert logistic_leaf_values(leaf, y, y - y, w, n_nodes, 1.0).tolist() == [0.0] * 7


@pytest.mark.parametrize("weighted", [False, True])
def test_squared_loss_and_residual_match_the_definition(weighted):
    from skml.ensemble._gb_kernels import squared_loss_neg_gradient

    rng = np.random.RandomState(3)
    y, f = rng.normal(size=(2, 1000)) * 3.0
    w = rng.rand(1000) if weighted else np.ones(1000)
    neg_grad = np.empty(1000)
    value = squared_loss_neg_gradient(y, f, w, neg_grad)
    np.testing.assert_allclose(value, np.average((y - f) ** 2, weights=w), rtol=1e-12)
    np.testing.assert_array_equal(neg_grad, y - f)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 511, 513, 5000])
def test_threaded_row_passes_give_the_serial_bits(n, weighted):
    from skml.ensemble._gb_kernels import (
        binomial_loss_neg_gradient_par, squared_loss_neg_gradient,
        squared_loss_neg_gradient_par)

    rng = np.random.RandomState(n)
    f = rng.normal(size=n) * 5.0
    y = (rng.rand(n) < 0.5).astype(np.float64)
    w = rng.rand(n) + 0.5 if weighted else np.ones(n)
    serial, par = np.empty(n), np.full(n, np.nan)
    a = binomial_loss_neg_gradient(y, f, w, not weighted, serial)
    b = binomial_loss_neg_gradient_par(y, f, w, not weighted, par)
    assert a == b and serial.tobytes() == par.tobytes()
    par[:] = np.nan
    a = squared_loss_neg_gradient(y, f, w, serial)
    b = squared_loss_neg_gradient_par(y, f, w, par)
    assert a == b and serial.tobytes() == par.tobytes()


@pytest.mark.parametrize("ml", [False, True])
def test_threaded_partition_is_the_stable_partition(ml):
    from skml.tree._hist_kernels import _partition_par

    rng = np.random.default_rng(4)
    n = 3001
    row = rng.integers(0, 256, n).astype(np.uint8)
    samples0 = rng.permutation(n)
    start, end, best_b, missing_bin = 17, 2900, 100, 255
    seg = samples0[start:end]
    go = (row[seg] <= best_b) | (ml & (row[seg] == missing_bin))
    expected = samples0.copy()
    expected[start:end] = np.concatenate([seg[go], seg[~go]])
    for n_chunks in (1, 2, 3, 8, 4000):
        samples = samples0.copy()
        tmp = np.empty(n, dtype=np.intp)
        nl = _partition_par(row, samples, start, end, best_b, ml, missing_bin, tmp, n_chunks)
        assert nl == go.sum()
        np.testing.assert_array_equal(samples, expected)


def test_bin_columns_in_threads_gives_the_same_codes():
    X = np.column_stack([_columns(seed)[:400] for seed in range(6) if
                         _columns(seed).shape[0] >= 400])
    one = bin_columns(X, 256)
    two = bin_columns(X, 256, n_threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
