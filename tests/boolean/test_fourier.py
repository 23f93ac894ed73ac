import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import Lasso as SkLasso
from sklearn.linear_model import LinearRegression
from sklearn.preprocessing import PolynomialFeatures

from skml.boolean import HarmonicaRegressor, LowDegreeFourierRegressor
from tests._parity import parity_test

CUBE3 = np.array(list(itertools.product([0, 1], repeat=3)))
SORT3 = np.array([float(a >= b >= c or a <= b <= c) for a, b, c in CUBE3])


def _coefficients(model):
    return {S: c for S, c in zip(model.feature_sets_, model.coef_) if abs(c) > 1e-12}


def test_sort3_truth_table_and_exact_coefficients():
    # The notes (A §2.1): 1 everywhere except (0,1,0) and (1,0,1); exhaustive
    # sampling gives f = 3/4 + 1/4 (chi_12 - chi_13 + chi_23).
    assert {tuple(x) for x, v in zip(CUBE3, SORT3) if v == 0} == {(0, 1, 0), (1, 0, 1)}
    lmn = LowDegreeFourierRegressor(degree=3).fit(CUBE3, SORT3)
    coef = _coefficients(lmn)
    assert coef == pytest.approx({(): 0.75, (0, 1): 0.25, (0, 2): -0.25, (1, 2): 0.25})
    # Parseval: the squared coefficients sum to E[f^2] = 3/4.
    assert sum(c ** 2 for c in coef.values()) == pytest.approx(0.75)
    np.testing.assert_allclose(lmn.predict(CUBE3), SORT3, atol=1e-12)
    # The same function on {-1, 1} inputs (0 -> +1).
    same = LowDegreeFourierRegressor(degree=3).fit(1 - 2 * CUBE3, SORT3)
    np.testing.assert_allclose(same.coef_, lmn.coef_)


def test_lmn_is_unbiased_and_its_error_shrinks_like_one_over_root_m():
    rng = np.random.default_rng(0)
    errors = {}
    for m in (200, 3200):
        runs = []
        for _ in range(60):
            X = rng.integers(0, 2, size=(m, 3))
            y = np.array([float(a >= b >= c or a <= b <= c) for a, b, c in X])
            runs.append(LowDegreeFourierRegressor(degree=2).fit(X, y).coef_)
        runs = np.array(runs)
        exact = LowDegreeFourierRegressor(degree=2).fit(CUBE3, SORT3).coef_
        # Mean over 60 runs within 4 standard errors of the exact value.
        se = runs.std(axis=0) / np.sqrt(len(runs))
        assert np.all(np.abs(runs.mean(axis=0) - exact) <= 4 * se + 1e-12)
        errors[m] = np.sqrt(((runs - exact) ** 2).mean())
    # 16x the samples: the RMS error shrinks by about 4 (allow 2.5-6.5).
    assert 2.5 < errors[200] / errors[3200] < 6.5


@parity_test(LowDegreeFourierRegressor, HarmonicaRegressor)
def test_parity_with_scikit_learn_on_the_same_parity_design():
    # On the whole cube the parity columns are orthogonal, so LMN's averages
    # equal least squares on PolynomialFeatures(interaction_only) of +-1 inputs.
    cube = np.array(list(itertools.product([0, 1], repeat=5)))
    rng = np.random.default_rng(1)
    y = rng.normal(size=len(cube))
    lmn = LowDegreeFourierRegressor(degree=2).fit(cube, y)
    poly = PolynomialFeatures(degree=2, interaction_only=True)
    Phi = poly.fit_transform(1 - 2 * cube)
    ls = LinearRegression(fit_intercept=False).fit(Phi, y)
    order = {tuple(np.flatnonzero(p)): j for j, p in enumerate(poly.powers_)}
    np.testing.assert_allclose(lmn.coef_, ls.coef_[[order[S] for S in lmn.feature_sets_]],
                               atol=1e-12)
    # Harmonica's Lasso is scikit-learn's Lasso on the same design.
    X = rng.integers(0, 2, size=(120, 8))
    Z = 1 - 2 * X
    y = 1.5 * Z[:, 1] * Z[:, 4] - Z[:, 6] + 0.1 * rng.normal(size=120)
    ours = HarmonicaRegressor(degree=2, alpha=0.02).fit(X, y)
    Phi = PolynomialFeatures(degree=2, interaction_only=True, include_bias=False)
    design = Phi.fit_transform(Z)
    theirs = SkLasso(alpha=0.02, tol=1e-10, max_iter=100_000).fit(design, y)
    order = {tuple(np.flatnonzero(p)): j for j, p in enumerate(Phi.powers_)}
    np.testing.assert_allclose(
        ours.coef_[1:], theirs.coef_[[order[S] for S in ours.feature_sets_[1:]]],
        atol=1e-5)
    assert ours.coef_[0] == pytest.approx(theirs.intercept_, abs=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_harmonica_recovers_a_planted_sparse_polynomial(seed):
    # k = 3 monomials of degree <= 2 over n = 20 variables, no noise, from
    # m = 150 samples (~ k d log n x 8): the support and the values, exactly.
    rng = np.random.default_rng(seed)
    n, k = 20, 3
    sets = [tuple(sorted(rng.choice(n, size=rng.integers(1, 3), replace=False)))
            for _ in range(k)]
    sets = list(dict.fromkeys(sets))
    values = rng.choice([-1, 1], size=len(sets)) * rng.uniform(1.0, 2.0, size=len(sets))
    X = rng.integers(0, 2, size=(150, n))
    Z = 1 - 2 * X
    y = 0.3 + sum(v * np.prod(Z[:, list(S)], axis=1) for S, v in zip(sets, values))
    model = HarmonicaRegressor(degree=2, alpha=0.02, n_top=len(sets)).fit(X, y)
    assert sorted(model.support_) == sorted(sets)
    coef = _coefficients(model)
    for S, v in zip(sets, values):
        assert coef[S] == pytest.approx(v, abs=1e-8)
    assert coef[()] == pytest.approx(0.3, abs=1e-8)


def test_harmonica_recovers_sort3():
    model = HarmonicaRegressor(degree=2, alpha=1e-3, n_top=3).fit(CUBE3, SORT3)
    assert sorted(model.support_) == [(0, 1), (0, 2), (1, 2)]
    np.testing.assert_allclose(model.predict(CUBE3), SORT3, atol=1e-10)


def test_clear_errors():
    with pytest.raises(ValueError, match="must be Boolean"):
        LowDegreeFourierRegressor().fit([[0, 2], [1, 0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="lower the degree"):
        LowDegreeFourierRegressor(degree=6).fit(
            np.random.default_rng(0).integers(0, 2, size=(40, 60)), np.zeros(40))
    model = HarmonicaRegressor(degree=2).fit(CUBE3, SORT3)
    with pytest.raises(ValueError, match="must be Boolean"):
        model.predict([[0.5, 0, 1]])


def test_constant_features_are_left_out_of_the_sets():
    X = np.column_stack([CUBE3, np.ones(8, dtype=int)])
    lmn = LowDegreeFourierRegressor(degree=3).fit(X, SORT3)
    assert all(3 not in S for S in lmn.feature_sets_)
    np.testing.assert_allclose(lmn.predict(X), SORT3, atol=1e-12)
    flat = HarmonicaRegressor(degree=2).fit(np.ones((5, 3)), np.arange(5.0))
    np.testing.assert_allclose(flat.predict(np.ones((2, 3))), [2.0, 2.0])
