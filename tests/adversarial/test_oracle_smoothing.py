"""Exact linear oracle, greedy-filling radii and SmoothedClassifier (A §10.4-10.6, B §12.1)."""

import numpy as np
import pytest
from scipy.special import betainc
from scipy.stats import norm
from sklearn.datasets import load_iris, make_classification

from skml.adversarial import (
    SmoothedClassifier,
    exact_linear_robust_error,
    greedy_filling_radius,
)
from skml.linear_model import LogisticRegression


# ------------------------------------------------------------------ oracle


def _brute_force_linf(W, b, x, y, eps, clip=None):
    """Robustly correct? by enumerating the cube's vertices (small d)."""
    d = x.shape[0]
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T
    pts = x + eps * signs
    if clip is not None:
        pts = np.clip(pts, *clip)
    S = pts @ W.T + b
    if W.shape[0] == 1:
        s = 1.0 if y == 1 else -1.0
        return bool(np.all(s * S[:, 0] > 0))
    others = [t for t in range(W.shape[0]) if t != y]
    return bool(np.all(S[:, [y]] - S[:, others] > 0))


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("clip", [None, (-1.0, 1.0)])
def test_oracle_matches_vertex_enumeration(k, clip):
    rng = np.random.RandomState(k)
    W, b = rng.randn(k, 4), rng.randn(k) * 0.3
    X = rng.uniform(-1, 1, (60, 4))
    y = rng.randint(0, 2 if k == 1 else k, 60)
    err, mask = exact_linear_robust_error(W, b, X, y, 0.2, clip=clip, return_mask=True)
    # margins are linear: the minimum over the cube is at a vertex
    expected = [_brute_force_linf(W, b, x, t, 0.2, clip) for x, t in zip(X, y)]
    assert mask.tolist() == expected
    assert err == pytest.approx(1 - np.mean(expected))


def test_oracle_binary_formula_and_norms():
    rng = np.random.RandomState(0)
    w, b = rng.randn(5), 0.1
    X = rng.randn(200, 5)
    y = rng.randint(0, 2, 200)
    m = np.where(y == 1, 1, -1) * (X @ w + b)
    for norm_, q in ((np.inf, np.abs(w).sum()), (2, np.linalg.norm(w)),
                     (1, np.abs(w).max())):
        err = exact_linear_robust_error(w, b, X, y, 0.3, norm=norm_)
        assert err == pytest.approx(np.mean(~(m > 0.3 * q)))
    # -1/+1 labels give the same answer; eps = 0 is the natural error
    assert exact_linear_robust_error(w, b, X, 2 * y - 1, 0.3) == \
        exact_linear_robust_error(w, b, X, y, 0.3)
    assert exact_linear_robust_error(w, b, X, y, 0.0) == pytest.approx(np.mean(m <= 0))


def test_oracle_bad_input():
    X, y = np.zeros((3, 2)), np.array([0, 1, 1])
    with pytest.raises(ValueError, match="eps"):
        exact_linear_robust_error([1, 1], 0, X, y, -0.1)
    with pytest.raises(ValueError, match="y must have shape"):
        exact_linear_robust_error([1, 1], 0, X, y[:2], 0.1)
    with pytest.raises(ValueError, match="coef"):
        exact_linear_robust_error([1, 1, 1], 0, X, y, 0.1)
    with pytest.raises(ValueError, match="norm"):
        exact_linear_robust_error([1, 1], 0, X, y, 0.1, norm=3)
    with pytest.raises(ValueError, match="class indices"):
        exact_linear_robust_error(np.ones((3, 2)), np.zeros(3), X, [0, 1, 5], 0.1)


# ------------------------------------------------------------------ radii


@pytest.mark.parametrize("d, expected", [(1, 0.6), (2, 0.4758), (3, 0.4056),
                                         (10, 0.2368), (100, 0.0768)])
def test_uniform_ball_radii_of_the_notes(d, expected):
    r = greedy_filling_radius(0.8, "uniform_ball", sigma=1.0, n_features=d)
    assert r == pytest.approx(expected, abs=6e-5)
    # at that distance the lens outside the shifted ball holds p_A - 1/2
    lens = 1.0 - betainc((d + 1) / 2, 0.5, 1.0 - (r / 2) ** 2)
    assert lens == pytest.approx(0.3, abs=1e-9)


def test_uniform_ball_lens_by_monte_carlo():
    # the closed form for vol(S1 \ S2) checked by sampling the d=3 ball
    rng = np.random.RandomState(0)
    d, r = 3, greedy_filling_radius(0.8, "uniform_ball", n_features=3)
    Z = rng.standard_normal((200_000, d))
    Z *= (rng.random_sample(len(Z)) ** (1 / d) / np.linalg.norm(Z, axis=1))[:, None]
    outside = np.linalg.norm(Z - np.r_[r, 0, 0], axis=1) > 1
    assert outside.mean() == pytest.approx(0.3, abs=0.005)


def test_gaussian_radius_and_properties():
    assert greedy_filling_radius(0.8, "gaussian", sigma=1.0) == pytest.approx(0.8416, abs=5e-5)
    assert greedy_filling_radius(0.8, sigma=2.5) == pytest.approx(2.5 * norm.ppf(0.8))
    assert greedy_filling_radius(0.5) == 0.0
    assert greedy_filling_radius(0.3) == 0.0
    assert greedy_filling_radius(0.7, p_b=0.1) == pytest.approx(
        0.5 * (norm.ppf(0.7) - norm.ppf(0.1)))
    p = np.linspace(0.5, 0.99, 20)
    for noise in ("gaussian", "uniform_ball"):
        r = greedy_filling_radius(p, noise, n_features=5)
        assert np.all(np.diff(r) > 0) and r[0] == 0.0
    assert np.all(greedy_filling_radius(p, "uniform_ball", n_features=1) <= 2.0)


def test_gaussian_radius_is_where_a_linear_classifier_flips():
    # f(x') = 1[w.x' <= t] with P_x(c1) = p_A flips g exactly at ||delta|| = R along w
    sigma, p_a = 0.7, 0.8
    R = greedy_filling_radius(p_a, sigma=sigma)
    t = sigma * norm.ppf(p_a)  # w = e1, x = 0: P[sigma z <= t] = p_A
    p_at = norm.cdf((t - R) / sigma)  # class-1 probability at x + R e1
    assert p_at == pytest.approx(0.5)


def test_radius_bad_input():
    with pytest.raises(ValueError, match="n_features"):
        greedy_filling_radius(0.8, "uniform_ball")
    with pytest.raises(ValueError, match="noise"):
        greedy_filling_radius(0.8, "laplace")
    with pytest.raises(ValueError, match="p_a"):
        greedy_filling_radius(1.2)


# ------------------------------------------------------------------ smoothing


class _Constant:
    """A fitted 'classifier' that always answers classes_[0]."""

    classes_ = np.array([3, 7])

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), 3)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def test_smoothed_constant_classifier():
    X = np.random.RandomState(0).randn(5, 3)
    clf = SmoothedClassifier(_Constant(), n_samples=100, n0=10, random_state=0).fit(X, [3] * 5)
    labels, radii = clf.certify(X)
    assert labels.tolist() == [3] * 5
    # all n draws agree: the lower bound is alpha^(1/n) and the radius sigma Phi^-1 of it
    assert np.allclose(radii, 0.25 * norm.ppf(0.001 ** (1 / 100)))
    assert clf.predict(X).tolist() == [3] * 5
    assert np.allclose(clf.predict_proba(X), [[1, 0]] * 5)


@pytest.mark.parametrize("noise", ["gaussian", "uniform_ball"])
def test_smoothed_classifier_on_iris(noise):
    X, y = load_iris(return_X_y=True)
    clf = SmoothedClassifier(LogisticRegression(max_iter=1000), noise=noise, sigma=0.3, n_samples=300,
                             random_state=0).fit(X, y)
    P = clf.predict_proba(X)
    assert np.allclose(P.sum(1), 1)
    pred = clf.predict(X)
    assert np.array_equal(pred, clf.predict(X))  # deterministic under random_state
    answered = pred != -1
    assert answered.mean() > 0.8 and np.mean(pred[answered] == y[answered]) > 0.9
    labels, radii = clf.certify(X)
    assert np.all(radii[labels == -1] == 0) and np.all(radii[labels != -1] > 0)
    # no certificate beyond what the counts allow: radius <= that of p_A = 1
    top = greedy_filling_radius(0.001 ** (1 / 300), noise, sigma=0.3, n_features=4)
    assert radii.max() <= top + 1e-12


def test_smoothed_certificate_holds_empirically():
    # a certified row keeps its smoothed label under a perturbation inside the radius
    X, y = make_classification(200, 4, n_informative=3, n_redundant=0, random_state=0)
    clf = SmoothedClassifier(LogisticRegression(), sigma=0.5, n_samples=2000,
                             random_state=1).fit(X, y)
    labels, radii = clf.certify(X[:40])
    ok = labels != -1
    w = clf.estimator_.coef_[0]
    # the worst direction for a linear base classifier is along -+w
    direction = np.where(labels[ok] == 1, -1.0, 1.0)[:, None] * w / np.linalg.norm(w)
    X_moved = X[:40][ok] + 0.95 * radii[ok][:, None] * direction
    P = clf.predict_proba(X_moved)
    assert np.all(P[np.arange(ok.sum()), labels[ok]] > 0.5)


def test_smoothed_abstain_label():
    X, y = load_iris(return_X_y=True)
    clf = SmoothedClassifier(LogisticRegression(max_iter=1000), abstain_label=1, n_samples=20).fit(X, y)
    with pytest.raises(ValueError, match="abstain_label"):
        clf.predict(X)
    y_str = np.array(["a", "b", "c"])[y]
    clf = SmoothedClassifier(LogisticRegression(max_iter=1000), sigma=3.0, n_samples=20,
                             random_state=0).fit(X, y_str)
    assert set(clf.predict(X)) <= {"a", "b", "c", "abstain"}
