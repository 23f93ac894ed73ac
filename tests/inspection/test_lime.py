"""LIME with the notes' K-Lasso (A §12.2)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification

from skml.inspection import LimeExplainer
from skml.linear_model import LogisticRegression


def _sparse_linear(d=12, support=(1, 4, 7), seed=0):
    a = np.zeros(d)
    a[list(support)] = np.random.default_rng(seed).uniform(1.0, 3.0, len(support)) * [1, -1, 1]
    return a, (lambda Z: Z @ a + 0.5)


@pytest.mark.parametrize("K", [3, 5])
def test_recovers_a_sparse_linear_function_exactly(K):
    d = 12
    a, f = _sparse_linear(d)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, d))
    b = rng.normal(size=(1, d))  # one background row: f is exactly linear in z'
    ex = LimeExplainer(n_features_explained=K, n_samples=400, random_state=0).explain(
        f, X, background=b)
    expected = a * (X - b)  # the coefficient of z'_j is a_j (x_j - b_j)
    np.testing.assert_allclose(ex.coef_, expected, atol=1e-8)
    np.testing.assert_allclose(ex.intercept_, np.repeat(f(b), 6), atol=1e-8)
    assert np.all(ex.selected_features_.sum(1) <= K)
    if K == 3:
        assert np.all(ex.selected_features_ == (a != 0))
    np.testing.assert_allclose(ex.score_, 1.0, atol=1e-10)


def test_at_most_K_features_and_seeded_determinism():
    X, y = make_classification(n_samples=200, n_features=15, n_informative=8,
                               random_state=0)
    clf = LogisticRegression().fit(X, y)
    lime = LimeExplainer(n_features_explained=4, n_samples=800, random_state=7)
    e1 = lime.explain(clf, X[:5], background=X[:50])
    e2 = lime.explain(clf, X[:5], background=X[:50])
    np.testing.assert_array_equal(e1.coef_, e2.coef_)
    assert e1.coef_.shape == (5, 15, 2)
    nonzero = (e1.coef_ != 0).sum(axis=1)
    assert np.all(nonzero <= 4) and np.all(nonzero >= 1)
    # the two probabilities sum to one: their surrogates are opposite
    np.testing.assert_allclose(e1.coef_[:, :, 0], -e1.coef_[:, :, 1], atol=1e-8)
    assert np.all((e1.score_ > 0) & (e1.score_ <= 1))
    e3 = LimeExplainer(n_features_explained=4, n_samples=800, random_state=8).explain(
        clf, X[:5], background=X[:50])
    assert not np.array_equal(e1.coef_, e3.coef_)


def test_batched_rows_equal_one_row_at_a_time():
    X, y = make_classification(n_samples=100, n_features=6, random_state=1)
    clf = LogisticRegression().fit(X, y)
    lime = LimeExplainer(n_features_explained=3, n_samples=300, random_state=0,
                         response_method="decision_function")
    batch = lime.explain(clf, X[:4], background=X[50:])
    assert batch.coef_.shape == (4, 6)
    for i in range(4):
        one = lime.explain(clf, X[i], background=X[50:])
        np.testing.assert_allclose(one.coef_[0], batch.coef_[i], atol=1e-12)


def test_kernel_weights():
    lime = LimeExplainer(n_samples=200, random_state=0)
    masks, rows, w = lime.sample(8, 5)
    assert np.all((w > 0) & (w <= 1)) and w[0] == 1.0 and masks[0].all()
    np.testing.assert_allclose(w, np.exp(-(~masks).sum(1) / (0.75**2 * 8)))
    assert masks[1:].sum(1).max() <= 7  # at least one feature switched off


def test_feature_selection_none_is_weighted_least_squares():
    rng = np.random.default_rng(0)
    f = lambda Z: np.tanh(Z).sum(1) + Z[:, 0] * Z[:, 1]  # noqa: E731
    X, B = rng.normal(size=(2, 4)), rng.normal(size=(10, 4))
    ex = LimeExplainer(n_samples=300, feature_selection="none", random_state=0).explain(
        f, X, background=B)
    lime = LimeExplainer(n_samples=300, random_state=0)
    masks, rows, w = lime.sample(4, 10)
    for i in range(2):
        y = f(np.where(masks, X[i], B[rows]))
        A = np.c_[np.ones(len(w)), masks] * np.sqrt(w)[:, None]
        sol = np.linalg.lstsq(A, y * np.sqrt(w), rcond=None)[0]
        np.testing.assert_allclose(ex.coef_[i], sol[1:], atol=1e-10)
        np.testing.assert_allclose(ex.intercept_[i], sol[0], atol=1e-10)


def test_bad_input():
    f = lambda Z: Z.sum(1)  # noqa: E731
    with pytest.raises(ValueError, match="n_features_explained"):
        LimeExplainer(n_features_explained=0).explain(f, np.ones((1, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="X has 2 features"):
        LimeExplainer().explain(f, np.ones((1, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="feature_selection"):
        LimeExplainer(feature_selection="forward").explain(f, np.ones((1, 3)), np.ones((2, 3)))
    with pytest.raises(Exception, match="not fitted"):
        LimeExplainer().explain(LogisticRegression(), np.ones((1, 3)), np.ones((2, 3)))
