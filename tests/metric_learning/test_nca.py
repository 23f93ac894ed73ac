"""NeighborhoodComponentsAnalysis: parity, the notes' objective (A §6.1), gradient."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import softmax
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neighbors import NeighborhoodComponentsAnalysis as SkNCA

from skml.metric_learning import NeighborhoodComponentsAnalysis as NCA
from skml.metric_learning._nca import _class_ranges, nca_objective
from skml.optim import check_gradient
from tests import _data
from tests._parity import parity_test


def _sorted_objective(A, X, y):
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    return nca_objective(A, Xs, ys, _class_ranges(ys, ys.max() + 1))


def _naive_objective(A, X, y):
    """The notes' formulas literally: p_ij, P_i, L(A) = Σ P_i."""
    Z = X @ A.T
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    p = softmax(-D, axis=1)
    return p, (p * (y[:, None] == y[None, :])).sum(axis=1)


@parity_test(NCA)
@pytest.mark.parametrize("name", ["iris", "wine"])
def test_objective_and_gradient_equal_sklearn(name):
    X, y = _data.load(name, scale=True)
    A = np.random.RandomState(0).normal(scale=0.3, size=(3, X.shape[1]))
    ref = SkNCA()
    ref.n_iter_ = 1  # its loss function prints a header on the first call
    ref_loss, ref_grad = ref._loss_grad_lbfgs(A.ravel(), X, y[:, None] == y[None, :])
    value, grad = _sorted_objective(A, X, y)
    assert value == pytest.approx(ref_loss, rel=1e-12)
    atol = 1e-12 * np.abs(ref_grad).max()
    assert_allclose(grad.ravel(), ref_grad, rtol=1e-9, atol=atol)


@parity_test(NCA)
@pytest.mark.parametrize("name", ["iris", "wine"])
@pytest.mark.parametrize("init", ["auto", "pca", "lda", "identity"])
def test_fit_parity_with_sklearn(name, init):
    X, y = _data.load(name, scale=True)
    n_components = 2
    ours = NCA(n_components=n_components, init=init, random_state=0).fit(X, y)
    ref = SkNCA(n_components=n_components, init=init, random_state=0).fit(X, y)
    # Same start, same objective and gradient, same L-BFGS-B: the same map
    # up to rounding (the row order of the samples differs inside the sums).
    assert_allclose(ours.components_, ref.components_, rtol=1e-4, atol=1e-6)
    knn = KNeighborsClassifier(n_neighbors=3)
    ours_acc = knn.fit(ours.transform(X), y).score(ours.transform(X), y)
    ref_acc = knn.fit(ref.transform(X), y).score(ref.transform(X), y)
    assert abs(ours_acc - ref_acc) <= 0.02


def test_objective_matches_the_notes_formula():
    X, y = _data.load("iris", scale=True)
    A = np.random.RandomState(1).normal(size=(2, 4))
    p, P = _naive_objective(A, X, y)
    assert_allclose(p.sum(axis=1), 1.0)  # each row of p sums to 1
    assert np.all(np.diag(p) == 0)  # p_ii = 0
    value, _ = _sorted_objective(A, X, y)
    assert value == pytest.approx(P.sum(), rel=1e-12)
    assert 0 <= value <= X.shape[0]


@pytest.mark.parametrize("n_components", [1, 3])
def test_gradient_by_finite_differences(n_components):
    X, y = _data.load("wine", scale=True)
    X, y = X[::3], y[::3]
    A0 = np.random.RandomState(2).normal(scale=0.5, size=(n_components, X.shape[1]))

    def fun(a):
        return _sorted_objective(a.reshape(A0.shape), X, y)[0]

    def grad(a):
        return _sorted_objective(a.reshape(A0.shape), X, y)[1].ravel()

    assert check_gradient(fun, grad, A0.ravel()) < 1e-6


def test_blocks_give_the_same_numbers():
    X, y = _data.load("wine", scale=True)
    A = np.random.RandomState(3).normal(size=(4, X.shape[1]))
    order = np.argsort(y, kind="stable")
    args = (A, X[order], y[order], _class_ranges(y[order], 3))
    full = nca_objective(*args)
    for block_rows in (1, 7, 50):
        value, grad = nca_objective(*args, block_rows=block_rows)
        assert value == pytest.approx(full[0], rel=1e-12)
        assert_allclose(grad, full[1], rtol=1e-10, atol=1e-12)


def test_fit_increases_the_objective():
    X, y = _data.load("wine", scale=True)
    nca = NCA(n_components=2, init="random", random_state=0, max_iter=30).fit(X, y)
    A0 = np.random.RandomState(0).standard_normal(size=(2, X.shape[1]))
    assert nca.objective_ > _sorted_objective(A0, X, y)[0]
    assert nca.objective_ == pytest.approx(
        _sorted_objective(nca.components_, X, y)[0], rel=1e-10
    )
    assert 1 <= nca.n_iter_ <= 30


def test_informative_dimension_gets_the_largest_weight():
    # One informative feature among noise (catalogue A §6.1 test).
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1], 60)
    X = rng.normal(size=(120, 6))
    X[:, 2] += 3.0 * y
    nca = NCA(init="identity", random_state=0).fit(X, y)
    weights = np.linalg.norm(nca.components_, axis=0)
    assert np.argmax(weights) == 2


@given(seed=st.integers(0, 2**16), perm_seed=st.integers(0, 2**16))
def test_objective_is_invariant_to_sample_order(seed, perm_seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(20, 3))
    y = rng.randint(0, 3, size=20)
    A = rng.normal(size=(2, 3))
    perm = np.random.RandomState(perm_seed).permutation(20)
    a, ga = _sorted_objective(A, X, y)
    b, gb = _sorted_objective(A, X[perm], y[perm])
    assert a == pytest.approx(b, rel=1e-10, abs=1e-12)
    assert_allclose(ga, gb, rtol=1e-8, atol=1e-10)


@given(seed=st.integers(0, 2**16), angle=st.floats(0, 2 * np.pi))
def test_objective_is_invariant_to_rotating_the_map(seed, angle):
    # p_ij depends on distances only: A and QA (Q orthogonal) score the same.
    rng = np.random.RandomState(seed)
    X, y = rng.normal(size=(15, 4)), rng.randint(0, 2, size=15)
    A = rng.normal(size=(2, 4))
    Q = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    assert _sorted_objective(Q @ A, X, y)[0] == pytest.approx(
        _sorted_objective(A, X, y)[0], rel=1e-9, abs=1e-12
    )


def test_warm_start_continues_from_the_previous_map():
    X, y = _data.load("wine", scale=True)
    nca = NCA(
        n_components=2, init="random", max_iter=3, warm_start=True, random_state=0
    )
    first = nca.fit(X, y).objective_
    second = nca.fit(X, y).objective_
    assert second >= first
    cold = NCA(n_components=2, init="random", max_iter=3, random_state=0).fit(X, y)
    assert cold.objective_ == pytest.approx(first)


def test_callback_sees_every_iteration():
    X, y = _data.load("iris", scale=True)
    seen = []
    nca = NCA(callback=lambda a, it: seen.append((a.shape, it)), max_iter=5).fit(X, y)
    assert [it for _, it in seen] == list(range(1, nca.n_iter_ + 1))
    assert seen[0][0] == (nca.components_.size,)


def test_array_init_and_its_errors():
    X, y = _data.load("iris", scale=True)
    init = np.eye(2, 4)
    nca = NCA(init=init, max_iter=1).fit(X, y)
    assert nca.components_.shape == (2, 4)
    # scikit-learn's messages, word for word (its own tests match them).
    with pytest.raises(ValueError, match=r"input dimensionality \(3\) of the given linear"):
        NCA(init=np.eye(2, 3)).fit(X, y)
    with pytest.raises(ValueError, match=r"output dimensionality \(5\) of the given linear"):
        NCA(init=np.eye(5, 4)).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        NCA(n_components=3, init=init).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        NCA(n_components=5).fit(X, y)


@pytest.mark.parametrize("init", ["pca", "lda", "identity"])
def test_verbose_prints_scikit_learns_progress_table(init, capsys):
    X, y = _data.load("iris", scale=True)
    nca = NCA(init=init, verbose=1, max_iter=4).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    if init != "identity":
        assert lines.pop(0).startswith("Finding ")
    tag = "[NeighborhoodComponentsAnalysis]"
    assert lines[0] == tag
    assert lines[1].split() == [tag, "Iteration", "Objective", "Value", "Time(s)"]
    rows = [line.split() for line in lines[3:-1]]
    assert len(rows) >= nca.n_iter_
    # the last evaluation's objective is the fit's (L-BFGS ends on an evaluated point)
    assert any(np.isclose(float(r[2]), nca.objective_) for r in rows)
    assert lines[-1].startswith(f"{tag} Training took")


@pytest.mark.parametrize("init", ["auto", "pca", "identity"])
@pytest.mark.parametrize("n_components", [None, 2])
def test_one_class_fits_as_in_scikit_learn(init, n_components):
    # Every neighbour is of the right class: the objective is n at any map,
    # its gradient 0, and scikit-learn keeps the initial map.
    X, _ = _data.load("iris", scale=True)
    y = np.full(len(X), "only")
    ours = NCA(n_components=n_components, init=init).fit(X, y)
    ref = SkNCA(n_components=n_components, init=init).fit(X, y)
    assert_allclose(ours.components_, ref.components_, atol=1e-8)
    assert_allclose(ours.transform(X), ref.transform(X), atol=1e-7)
    assert ours.objective_ == pytest.approx(len(X))


def test_lda_init_needs_two_classes_as_in_scikit_learn():
    X, _ = _data.load("iris", scale=True)
    y = np.zeros(len(X))
    with pytest.raises(ValueError):
        SkNCA(init="lda").fit(X, y)
    with pytest.raises(ValueError, match="lda.*class"):
        NCA(init="lda").fit(X, y)


def test_string_labels_and_pandas_output():
    pd = pytest.importorskip("pandas")
    X, y = _data.load("iris", scale=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    nca = NCA(n_components=2, random_state=0).set_output(transform="pandas")
    out = nca.fit(X, labels).transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == [
        "neighborhoodcomponentsanalysis0", "neighborhoodcomponentsanalysis1"
    ]


@pytest.mark.parametrize("exponent", [1000, -1000])
def test_extreme_magnitudes_are_fitted_near_unit_scale(exponent):
    # Issue 23: at X * 1e300 the squared distances overflowed (NaN) and at
    # X * 1e-300 the gradient vanished (3-NN accuracy 0.53 / 0.60). Such data
    # is fitted as X / 2^e with max |x| in [0.5, 1): exactly the fit of that
    # data, with the map returned in the user's units.
    X, y = _data.load("iris")
    c = 2.0**exponent
    e = np.frexp(np.max(np.abs(X)))[1]
    near_one = NCA(max_iter=5, random_state=0).fit(X * 2.0**-e, y)
    extreme = NCA(max_iter=5, random_state=0).fit(X * c, y)
    Z = extreme.transform(X * c)
    assert_allclose(Z, near_one.transform(X * 2.0**-e), rtol=1e-12)
    assert_allclose(extreme.components_ * c, near_one.components_ * 2.0**-e, rtol=1e-12)
    knn = KNeighborsClassifier(3).fit(Z, y)
    assert np.mean(knn.predict(Z) == y) > 0.9
    # Warm start and an array init are in the user's units too.
    warm = NCA(max_iter=1, warm_start=True, random_state=0).fit(X * c, y)
    start, first = warm.components_.copy(), warm.objective_
    warm.fit(X * c, y)
    cold = NCA(init=start, max_iter=1).fit(X * c, y)
    assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-12)
    assert warm.objective_ >= first


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_extreme_magnitudes_keep_the_quality(scale):
    X, y = _data.load("iris")
    Z = NCA(max_iter=5, random_state=0).fit(X * scale, y).transform(X * scale)
    assert np.all(np.isfinite(Z))
    assert np.mean(KNeighborsClassifier(3).fit(Z, y).predict(Z) == y) > 0.9
