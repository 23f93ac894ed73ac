"""LinearDiscriminantAnalysis: parity, the notes' linear boundary (B §4.2)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import expit
from sklearn import discriminant_analysis as sk
from sklearn.covariance import ledoit_wolf_shrinkage as sk_ledoit_wolf_shrinkage
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from skml.discriminant_analysis import LinearDiscriminantAnalysis as LDA
from skml.discriminant_analysis._lda import ledoit_wolf_shrinkage
from tests._parity import parity_test

LOADERS = [load_iris, load_wine, load_breast_cancer]
SOLVERS = [
    {"solver": "svd", "store_covariance": True},
    {"solver": "lsqr"},
    {"solver": "eigen"},
    {"solver": "lsqr", "shrinkage": "auto"},
    {"solver": "eigen", "shrinkage": 0.3},
]


def _two_gaussians(seed, n1=79, n2=61, p=3, shift=1.5):
    # Two classes with the same covariance (79 "Water" and 61 "Normal", D4).
    rng = np.random.RandomState(seed)
    A = rng.normal(size=(p, p)) + 2 * np.eye(p)
    X = rng.normal(size=(n1 + n2, p)) @ A.T
    y = np.r_[np.zeros(n1, int), np.ones(n2, int)]
    X[y == 1] += shift
    return X, y


@parity_test(LDA)
@pytest.mark.parametrize("load", LOADERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "params", SOLVERS, ids=lambda p: "-".join(map(str, p.values()))
)
def test_parity(load, params):
    X, y = load(return_X_y=True)
    ours = LDA(**params).fit(X, y)
    ref = sk.LinearDiscriminantAnalysis(**params).fit(X, y)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert_allclose(ours.means_, ref.means_, rtol=1e-10)
    assert_allclose(ours.priors_, ref.priors_, rtol=1e-12)
    assert_allclose(ours.covariance_, ref.covariance_, rtol=1e-8, atol=1e-10)
    scale = np.abs(ref.coef_).max()
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-8 * scale)
    if params["solver"] != "lsqr":
        assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_,
                        rtol=1e-8, atol=1e-12)
        Z, Zr = ours.transform(X), ref.transform(X)
        assert_allclose(Z, Zr, rtol=1e-6, atol=1e-8 * np.abs(Zr).max())


@parity_test(LDA)
def test_parity_priors_and_n_components():
    X, y = load_wine(return_X_y=True)
    kw = {"priors": [0.5, 0.25, 0.25], "n_components": 1}
    ours, ref = LDA(**kw).fit(X, y), sk.LinearDiscriminantAnalysis(**kw).fit(X, y)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    assert ours.transform(X).shape == (len(y), 1)
    assert_allclose(ours.transform(X), ref.transform(X), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("solver", ["svd", "lsqr", "eigen"])
def test_notes_linear_boundary_formula(solver):
    # Notes B §4.2: P(C2|x) = σ(w·x + b), w = Σ⁻¹(μ2 − μ1),
    # b = −½μ2ᵀΣ⁻¹μ2 + ½μ1ᵀΣ⁻¹μ1 + ln(N2/N1), Σ the pooled MLE covariance.
    X, y = _two_gaussians(0)
    mu1, mu2 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    n1, n2 = np.sum(y == 0), np.sum(y == 1)
    S1 = np.cov(X[y == 0].T, bias=True)
    S2 = np.cov(X[y == 1].T, bias=True)
    Sigma = (n1 * S1 + n2 * S2) / (n1 + n2)
    w = np.linalg.solve(Sigma, mu2 - mu1)
    b = -0.5 * mu2 @ np.linalg.solve(Sigma, mu2) + 0.5 * mu1 @ np.linalg.solve(
        Sigma, mu1) + np.log(n2 / n1)
    clf = LDA(solver=solver).fit(X, y)
    assert_allclose(clf.coef_[0], w, rtol=1e-8)
    assert_allclose(clf.intercept_[0], b, rtol=1e-8, atol=1e-10)
    assert_allclose(clf.predict_proba(X)[:, 1], expit(X @ w + b), rtol=1e-8)
    assert_allclose(clf.decision_function(X), X @ w + b, rtol=1e-8, atol=1e-10)


def test_notes_priors_and_shared_covariance_79_61():
    # Notes B §16 item 7: priors 79/140 and 61/140, Σ = (79/140)Σ1 + (61/140)Σ2.
    X, y = _two_gaussians(1)
    clf = LDA(solver="lsqr").fit(X, y)
    assert_allclose(clf.priors_, [79 / 140, 61 / 140])
    assert round(79 / 140, 2) == 0.56 and round(61 / 140, 2) == 0.44
    S1 = np.cov(X[y == 0].T, bias=True)
    S2 = np.cov(X[y == 1].T, bias=True)
    assert_allclose(clf.covariance_, 79 / 140 * S1 + 61 / 140 * S2, rtol=1e-12)


@given(seed=st.integers(0, 2**16), t=st.floats(-3, 3))
def test_decision_function_is_affine(seed, t):
    # The boundary is a hyperplane: the score of x + t(x' − x) is affine in t.
    X, y = _two_gaussians(seed % 50)
    clf = LDA().fit(X, y)
    x0, x1 = X[:1], X[1:2]
    d0, d1 = clf.decision_function(x0)[0], clf.decision_function(x1)[0]
    assert clf.decision_function(x0 + t * (x1 - x0))[0] == pytest.approx(
        d0 + t * (d1 - d0), rel=1e-9, abs=1e-9)


@given(seed=st.integers(0, 2**16))
def test_probabilities_sum_to_one(seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(30, 3))
    y = np.arange(30) % 3
    X += y[:, None]
    for solver in ["svd", "lsqr", "eigen"]:
        clf = LDA(solver=solver).fit(X, y)
        P = clf.predict_proba(X)
        assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
        assert_allclose(np.exp(clf.predict_log_proba(X)), P, rtol=1e-10, atol=1e-300)


def test_ledoit_wolf_shrinkage_matches_scikit_learn():
    X = np.random.RandomState(0).normal(size=(40, 6)) @ np.diag([1, 2, 3, 4, 5, 6.0])
    expected = sk_ledoit_wolf_shrinkage(X)
    assert ledoit_wolf_shrinkage(X) == pytest.approx(expected, rel=1e-10)


def test_transform_directions_and_feature_names():
    X, y = load_iris(return_X_y=True)
    clf = LDA().fit(X, y)
    Z = clf.fit_transform(X, y)
    assert Z.shape == (150, 2)
    # Whitened within-class scatter: unit pooled within-class variance.
    Zc = Z - clf.transform(clf.means_)[y]
    assert_allclose(Zc.var(axis=0), 1.0, rtol=1e-8)
    assert list(clf.get_feature_names_out()) == [
        "lineardiscriminantanalysis0", "lineardiscriminantanalysis1"]


def test_string_labels():
    X, y = _two_gaussians(2)
    labels = np.array(["normal", "water"])[y]
    clf = LDA().fit(X, labels)
    np.testing.assert_array_equal(clf.predict(X),
                                  clf.classes_[LDA().fit(X, y).predict(X)])


@pytest.mark.parametrize(
    "params, match",
    [({"solver": "svd", "shrinkage": "auto"}, "shrinkage"),
     ({"n_components": 2}, "n_components"),
     ({"priors": [0.3, 0.3, 0.4]}, "priors"),
     ({"priors": [-0.5, 1.5]}, "non-negative")],
)
def test_bad_parameters(params, match):
    X, y = _two_gaussians(3)
    error = NotImplementedError if match == "shrinkage" else ValueError
    with pytest.raises(error, match=match):
        LDA(**params).fit(X, y)


def test_one_class_and_lsqr_transform_errors():
    X, y = _two_gaussians(4)
    with pytest.raises(ValueError, match="class"):
        LDA().fit(X, np.zeros(len(y)))
    with pytest.raises(NotImplementedError, match="lsqr"):
        LDA(solver="lsqr").fit(X, y).transform(X)


def test_priors_renormalised_with_warning():
    X, y = _two_gaussians(5)
    with pytest.warns(UserWarning, match="Renormalizing"):
        clf = LDA(priors=[2.0, 2.0]).fit(X, y)
    assert_allclose(clf.priors_, [0.5, 0.5])


@pytest.mark.parametrize("solver", ["svd", "lsqr", "eigen"])
@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_scale_of_x_does_not_matter(solver, factor):
    # Issue 23: X * 1e300 overflowed the covariances and X * 1e-300 underflowed
    # them ("svd" then crashed with IndexError). The fit works on X divided by
    # a power of two, so the model is the clean one, scaled exactly.
    X, y = load_iris(return_X_y=True)
    clean = LDA(solver=solver).fit(X, y)
    scaled = LDA(solver=solver).fit(X * factor, y)
    np.testing.assert_array_equal(scaled.predict(X * factor), clean.predict(X))
    assert_allclose(scaled.predict_proba(X * factor), clean.predict_proba(X),
                    rtol=1e-6, atol=1e-12)
    assert_allclose(scaled.intercept_, clean.intercept_, rtol=1e-6, atol=1e-9)
    if solver != "lsqr":
        assert_allclose(scaled.transform(X * factor), clean.transform(X),
                        rtol=1e-6, atol=1e-9)


def test_identical_rows_give_the_priors():
    # All rows the same point: no direction discriminates, so the posteriors
    # are the priors (was an IndexError in the "svd" solver).
    X, y = load_iris(return_X_y=True)
    X = np.repeat(X[:1], len(X), axis=0)
    y = np.r_[np.zeros(30, int), np.ones(60, int), np.full(60, 2)]
    clf = LDA().fit(X, y)
    assert_allclose(clf.predict_proba(X), np.tile([0.2, 0.4, 0.4], (150, 1)))
    assert clf.transform(X).shape == (150, 0)
    assert clf.get_feature_names_out().shape == (0,)


def test_identical_rows_within_distinct_classes_refused():
    X = np.repeat([[0.0, 1.0], [2.0, 3.0]], 5, axis=0)
    with pytest.raises(ValueError, match="within-class"):
        LDA().fit(X, np.repeat([0, 1], 5))


def test_eigen_solver_singular_within_class_covariance():
    X = np.repeat([[0.0, 1.0, 2.0]], 10, axis=0)
    with pytest.raises(ValueError, match="singular.*shrinkage"):
        LDA(solver="eigen").fit(X, np.repeat([0, 1], 5))


@pytest.mark.parametrize("solver", ["svd", "lsqr", "eigen"])
def test_float32_input_gives_float32_coefficients(solver):
    X, y = _two_gaussians(3)
    clf = LDA(solver=solver).fit(X.astype(np.float32), y)
    assert clf.coef_.dtype == np.float32 and clf.intercept_.dtype == np.float32
    ref = LDA(solver=solver).fit(X.astype(np.float32).astype(np.float64), y)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-6)
    assert LDA(solver=solver).fit(X.astype(np.int64), y).coef_.dtype == np.float64
