"""LargeMarginNearestNeighbor: classic LMNN and the notes' triplet form (A §6.2)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skml.metric_learning import LargeMarginNearestNeighbor as LMNN
from skml.metric_learning._lmnn import _target_radius, classic_loss, triplet_loss
from skml.metric_learning._lmnn_search import (
    hardest_triplets,
    impostor_pairs,
    merge_pairs,
    target_neighbors,
)
from skml.optim import check_gradient
from tests._parity import parity_test


def _classic_setup(X, y, L, k=3, margin=1.0):
    targets, valid = target_neighbors(X, y, k)
    radius = _target_radius(X @ L.T, targets, valid, margin)
    imp_a, imp_b = impostor_pairs(X @ L.T, y, radius)
    return targets, valid, imp_a, imp_b


def _full_classic_loss(L, X, y, k=3, margin=1.0, mu=0.5):
    """Weinberger and Saul's loss, literally: all targets, all other-class l."""
    targets, valid = target_neighbors(X, y, k)
    Z = X @ L.T
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    loss = 0.0
    for i in range(len(X)):
        for j in targets[i][valid[i]]:
            loss += (1 - mu) * D[i, j]
            hinge = margin + D[i, j] - D[i, y != y[i]]
            loss += mu * hinge[hinge > 0].sum()
    return loss


def _triplet_violations(Z, y, margin):
    a, p, n = hardest_triplets(Z, y)
    d_pos = np.linalg.norm(Z[a] - Z[p], axis=1)
    d_neg = np.linalg.norm(Z[a] - Z[n], axis=1)
    return int(np.sum(d_pos - d_neg + margin > 0))


@parity_test(LMNN)
@pytest.mark.parametrize(
    "load, n_samples", [(load_wine, None), (load_digits, 600)], ids=["wine", "digits"]
)
def test_knn_accuracy_at_least_euclidean(load, n_samples):
    # scikit-learn has no LMNN: the reference is its Euclidean kNN, on scaled
    # features, by 3-fold cross-validation (a single split is too noisy).
    X, y = load(return_X_y=True)
    X, y = X[:n_samples], y[:n_samples]
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    euclidean = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=3))
    learnt = make_pipeline(
        StandardScaler(),
        LMNN(n_neighbors=3, max_iter=30, random_state=0),
        KNeighborsClassifier(n_neighbors=3),
    )
    base = cross_val_score(euclidean, X, y, cv=cv).mean()
    assert cross_val_score(learnt, X, y, cv=cv).mean() >= base


def test_target_neighbors_are_the_nearest_same_class_points():
    X, y = load_iris(return_X_y=True)
    X = X + np.random.RandomState(0).normal(scale=1e-3, size=X.shape)  # no ties
    targets, valid = target_neighbors(X, y, 3)
    assert valid.all()
    for c in range(3):
        idx = np.flatnonzero(y == c)
        nn = NearestNeighbors(n_neighbors=4).fit(X[idx])
        expected = idx[nn.kneighbors(X[idx], return_distance=False)[:, 1:]]
        assert_array_equal(targets[idx], expected)


def test_small_classes_get_fewer_targets():
    X = np.arange(10, dtype=float).reshape(-1, 1)
    y = np.array([0, 0, 1, 1, 1, 1, 1, 1, 2, 2])
    targets, valid = target_neighbors(X, y, 3)
    assert targets.shape == (10, 3)
    assert_array_equal(valid.sum(axis=1), [1, 1, 3, 3, 3, 3, 3, 3, 1, 1])


def test_impostors_match_their_definition():
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(40, 3)), rng.randint(0, 3, size=40)
    targets, valid = target_neighbors(X, y, 2)
    radius = _target_radius(X, targets, valid, 1.0)
    a, b = impostor_pairs(X, y, radius)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    expected = np.nonzero((D < radius[:, None]) & (y[:, None] != y[None, :]))
    assert_array_equal(a, expected[0])
    assert_array_equal(b, expected[1])
    rng = np.random.RandomState(0)
    a_cap, _ = impostor_pairs(X, y, radius, max_impostors=5, rng=rng)
    assert a_cap.size == min(5, a.size)


def test_hardest_triplets_are_the_worst_cases():
    rng = np.random.RandomState(1)
    X, y = rng.normal(size=(30, 2)), rng.randint(0, 2, size=30)
    a, p, n = hardest_triplets(X, y)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    for i, pos, neg in zip(a, p, n):
        assert D[i, pos] == D[i, y == y[i]].max()
        assert D[i, neg] == D[i, y != y[i]].min()


def test_merge_pairs_is_a_sorted_union():
    a = (np.array([0, 2]), np.array([1, 3]))
    b = (np.array([2, 1]), np.array([3, 0]))
    merged = merge_pairs(a, b, 5)
    assert_array_equal(merged[0], [0, 1, 2])
    assert_array_equal(merged[1], [1, 0, 3])


def test_classic_loss_is_weinbergers_formula():
    X, y = load_iris(return_X_y=True)
    X, y = X[::5], y[::5]
    L = np.random.RandomState(0).normal(size=(2, 4))
    targets, valid, imp_a, imp_b = _classic_setup(X, y, L)
    loss, _ = classic_loss(L, X, targets, valid, imp_a, imp_b, 1.0, 0.5)
    assert loss == pytest.approx(_full_classic_loss(L, X, y), rel=1e-10)


@pytest.mark.parametrize("mu", [0.0, 0.5, 1.0])
def test_classic_gradient_by_finite_differences(mu):
    X, y = load_wine(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[::4], y[::4]
    L0 = np.random.RandomState(0).normal(scale=0.5, size=(3, X.shape[1]))
    targets, valid, imp_a, imp_b = _classic_setup(X, y, L0)
    Z = X @ L0.T
    d_t = ((Z[:, None] - Z[targets]) ** 2).sum(-1)
    d_i = ((Z[imp_a] - Z[imp_b]) ** 2).sum(-1)
    # Away from the hinge kinks: no (impostor, target) pair within 1e-3 of 0.
    assert np.abs(1.0 + d_t[imp_a] - d_i[:, None]).min() > 1e-3

    def fun(v):
        L = v.reshape(L0.shape)
        return classic_loss(L, X, targets, valid, imp_a, imp_b, 1.0, mu)

    err = check_gradient(lambda v: fun(v)[0], lambda v: fun(v)[1].ravel(), L0.ravel())
    assert err < 1e-6


def test_triplet_gradient_by_finite_differences():
    X, y = load_wine(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[::4], y[::4]
    L0 = np.random.RandomState(1).normal(scale=0.5, size=(4, X.shape[1]))
    a, p, n = hardest_triplets(X @ L0.T, y)
    Z = X @ L0.T
    d_pos = np.linalg.norm(Z[a] - Z[p], axis=1)
    hinge = d_pos - np.linalg.norm(Z[a] - Z[n], axis=1) + 1
    assert np.abs(hinge).min() > 1e-3 and (hinge > 0).any()

    def fun(v):
        return triplet_loss(v.reshape(L0.shape), X, a, p, n, 1.0)

    err = check_gradient(lambda v: fun(v)[0], lambda v: fun(v)[1].ravel(), L0.ravel())
    assert err < 1e-6


@given(seed=st.integers(0, 2**16), margin=st.floats(0.01, 5.0))
def test_triplet_loss_is_zero_iff_every_anchor_keeps_the_margin(seed, margin):
    rng = np.random.RandomState(seed)
    X, y = rng.normal(size=(12, 2)), rng.randint(0, 2, size=12)
    y[:2] = [0, 1]
    L = rng.normal(size=(2, 2))
    a, p, n = hardest_triplets(X @ L.T, y)
    loss, _ = triplet_loss(L, X, a, p, n, margin)
    assert loss >= 0
    assert (loss == 0) == (_triplet_violations(X @ L.T, y, margin) == 0)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"objective": "triplet"},
        {"search_every": 5},
        {"solver": "gd", "learning_rate": 1e-5, "max_iter": 20},
    ],
    ids=["classic", "triplet", "rounds", "gd"],
)
def test_fit_lowers_the_loss(params):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    lmnn = LMNN(init="identity", random_state=0, **params).fit(X, y)
    # One step of 1e-300 leaves L = I: the loss at the start.
    objective = params.get("objective", "classic")
    start = LMNN(
        objective=objective, init="identity", solver="gd", learning_rate=1e-300,
        max_iter=1,
    ).fit(X, y)
    assert lmnn.objective_ < start.objective_
    assert 1 <= lmnn.n_iter_ <= lmnn.max_iter
    assert lmnn.n_searches_ >= 1


def test_objective_at_identity_is_the_full_loss():
    X, y = load_iris(return_X_y=True)
    X, y = X[::3], y[::3]
    # A step of 1e-300 leaves L = I: objective_ is the loss at the identity.
    lmnn = LMNN(init="identity", solver="gd", learning_rate=1e-300, max_iter=1)
    lmnn.fit(X, y)
    expected = _full_classic_loss(np.eye(4), X, y)
    assert lmnn.objective_ == pytest.approx(expected, rel=1e-9)


def _ranking_violations(Z, y):
    """Triplets (i, j same class, l other class) with d_ij > d_il: scale-free."""
    D = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    other = y[:, None] != y[None, :]
    return sum(
        int(np.sum(D[i, same[i]][:, None] > D[i, other[i]][None, :]))
        for i in range(len(y))
    )


def test_triplet_objective_reduces_violations():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    lmnn = LMNN(objective="triplet", init="identity", random_state=0).fit(X, y)
    # Fewer violated hardest triplets is too strict a test (on wine every
    # anchor's farthest friend stays farther than its nearest enemy), but the
    # hinge total and the ranking errors over all triplets must fall.
    a, p, n = hardest_triplets(X, y)
    assert lmnn.objective_ < triplet_loss(np.eye(X.shape[1]), X, a, p, n, 1.0)[0]
    assert _ranking_violations(lmnn.transform(X), y) < _ranking_violations(X, y)


def test_n_components_reduces_the_dimension():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    lmnn = LMNN(n_components=2, max_iter=10, random_state=0).fit(X, y)
    assert lmnn.transform(X).shape == (len(X), 2)
    assert lmnn.get_feature_names_out().tolist() == [
        "largemarginnearestneighbor0", "largemarginnearestneighbor1"
    ]


def test_parallel_impostor_search_under_a_process_backend(monkeypatch):
    # An active process backend must not change the pairs found by the
    # blocked search (it runs in threads: skml.utils._parallel.run_in_threads).
    joblib = pytest.importorskip("joblib")
    from skml.utils import _parallel

    X, y = load_iris(return_X_y=True)
    L = np.eye(4)
    targets, valid = target_neighbors(X, y, 3)
    radius = _target_radius(X @ L.T, targets, valid, 1.0)
    serial = impostor_pairs(X, y, radius)
    monkeypatch.setattr(_parallel, "WORKING_MEMORY", 8 * 40 * len(X))  # 4 blocks
    assert len(_parallel.row_blocks(len(X), len(X))) == 4
    with joblib.parallel_backend("loky"):
        parallel = impostor_pairs(X, y, radius, n_jobs=2)
        fitted = LMNN(max_iter=3, n_jobs=2).fit(X, y).components_
    assert serial[0].size > 0
    assert_array_equal(parallel[0], serial[0])
    assert_array_equal(parallel[1], serial[1])
    assert_allclose(fitted, LMNN(max_iter=3).fit(X, y).components_)


def test_errors():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="two samples"):
        LMNN().fit(X[[0, 60]], [0, 1])
    with pytest.raises(ValueError, match="n_components"):
        LMNN(n_components=5).fit(X, y)
    with pytest.raises(ValueError, match="two classes in y"):
        LMNN().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="push_weight"):
        LMNN(push_weight=1.5).fit(X, y)


def test_deterministic_given_random_state():
    X, y = load_iris(return_X_y=True)
    first = LMNN(init="random", max_iter=10, random_state=3).fit(X, y).components_
    second = LMNN(init="random", max_iter=10, random_state=3).fit(X, y).components_
    assert_allclose(first, second)


def test_memory_layout_does_not_change_the_map():
    # Issue 23: a Fortran-ordered X (as every pandas frame gives) rounded the
    # BLAS products differently, the impostor search broke its ties another
    # way, and the map differed from the C-order fit's by 0.15.
    rng = np.random.RandomState(0)
    X, y = load_iris(return_X_y=True)
    rows = rng.permutation(len(X))[:60]
    X, y = X[rows], y[rows]
    ref = LMNN(max_iter=5, random_state=0).fit(X, y)
    for layout in (np.asfortranarray(X), X[:, ::-1][:, ::-1]):
        other = LMNN(max_iter=5, random_state=0).fit(layout, y)
        assert_allclose(other.components_, ref.components_, rtol=1e-10, atol=1e-12)
        assert_allclose(other.transform(X), ref.transform(X), rtol=1e-10, atol=1e-12)
