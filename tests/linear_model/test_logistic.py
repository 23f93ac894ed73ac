"""LogisticRegression: sklearn parity, derivatives, notes B §3.3-3.6 and §6.11."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.special import logit
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from threadpoolctl import threadpool_limits

from skml.linear_model import LogisticRegression
from skml.linear_model import _logistic
from skml.linear_model._logistic import _fit_newton, _Standardised
from skml.linear_model._logistic_loss import LogisticLoss, softmax
from skml.optim import check_gradient

from .. import _data
from .._parity import parity_test


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # Small products: BLAS threads only add contention on a shared machine.
    with threadpool_limits(1, user_api="blas"):
        yield


# --- derivatives ----------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_gradient_matches_finite_differences(
    n_classes, fit_intercept, weighted, sparse
):
    X, y, sw = _data.random_labels(n_classes)
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    loss = LogisticLoss(X, y, n_classes, sw if weighted else None, 0.3, fit_intercept)
    w = np.random.RandomState(1).normal(size=loss.n_params)
    err = check_gradient(loss.loss, lambda v: loss.loss_gradient(v)[1], w)
    assert err < 1e-7
    # Loss and gradient of the fused pass agree with the loss-only path.
    assert loss.loss_gradient(w)[0] == pytest.approx(loss.loss(w), rel=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_hessian_matches_finite_differences_of_gradient(n_classes, fit_intercept):
    X, y, sw = _data.random_labels(n_classes, seed=2)
    loss = LogisticLoss(X, y, n_classes, sw, 0.1, fit_intercept)
    rng = np.random.RandomState(3)
    w = rng.normal(size=loss.n_params)
    loss.loss_gradient(w)
    H, hessp = loss.hessian(w), loss.hessp(w)
    np.testing.assert_allclose(H, H.T, atol=1e-14)
    for _ in range(3):
        v, eps = rng.normal(size=loss.n_params), 1e-6
        fd = (loss.loss_gradient(w + eps * v)[1] - loss.loss_gradient(w - eps * v)[1])
        np.testing.assert_allclose(hessp(v), fd / (2 * eps), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(H @ v, hessp(v), rtol=1e-10, atol=1e-12)


def test_minibatch_gradient_is_unbiased():
    X, y, sw = _data.random_labels(3, n_samples=12)
    loss = LogisticLoss(X, y, 3, sw, 0.2, True)
    w = np.random.RandomState(0).normal(size=loss.n_params)
    # The average over the batches of a partition is the full gradient.
    batches = np.array_split(np.random.RandomState(1).permutation(12), 4)
    mean = np.mean([loss.loss_gradient(w, rows=b)[1] for b in batches], axis=0)
    np.testing.assert_allclose(mean, loss.loss_gradient(w)[1], rtol=1e-12)


def test_loss_is_stable_for_huge_scores():
    X = np.array([[1.0], [-1.0], [1.0]])
    for n_classes, y in [(2, np.array([0, 1, 1])), (3, np.array([0, 1, 2]))]:
        loss = LogisticLoss(X, y, n_classes, None, 0.0, False)
        f, g = loss.loss_gradient(1e3 * np.arange(loss.n_params, dtype=float))
        assert np.isfinite(f) and np.all(np.isfinite(g))


# --- parity with scikit-learn -------------------------------------------------------


@parity_test(LogisticRegression)
@pytest.mark.parametrize("dataset", ["cancer", "wine", "iris"])
@pytest.mark.parametrize("C", [0.1, 1.0])
def test_parity_lbfgs_default_settings(dataset, C, request):
    # Same objective, same L-BFGS-B options: the same iterates as scikit-learn.
    X, y = request.getfixturevalue(dataset)
    ours = LogisticRegression(C=C).fit(X, y)
    ref = SkLogisticRegression(C=C).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    assert ours.n_iter_.shape == (1,)
    assert abs(int(ours.n_iter_[0]) - int(ref.n_iter_[0])) <= 1


@parity_test(LogisticRegression)
@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
@pytest.mark.parametrize(
    "dataset, C",
    # Without penalty only iris: the other two are separable (no finite optimum).
    [("cancer", 0.05), ("cancer", 1.0), ("wine", 0.05), ("wine", 1.0),
     ("iris", 0.05), ("iris", 1.0), ("iris", np.inf)],
)
def test_parity_converged(dataset, solver, C, request):
    X, y = request.getfixturevalue(dataset)
    ours = LogisticRegression(C=C, solver=solver, tol=1e-8, max_iter=1000).fit(X, y)
    ref = SkLogisticRegression(C=C, tol=1e-8, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-3)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), abs=1e-9)


@parity_test(LogisticRegression)
@pytest.mark.parametrize("dataset", ["cancer", "wine"])
@pytest.mark.parametrize("solver", ["gd", "sgd"])
def test_parity_first_order_solvers_accuracy(dataset, solver, request):
    X, y = request.getfixturevalue(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = LogisticRegression(solver=solver, max_iter=500, random_state=0).fit(X, y)
    ref = SkLogisticRegression().fit(X, y)
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.02
    # Far from converged on ill-conditioned data, but already close in proba.
    assert np.mean(np.abs(ours.predict_proba(X) - ref.predict_proba(X))) < 0.02


def test_fit_intercept_false_and_weights_parity(wine):
    X, y = wine
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y))
    for solver in ["lbfgs", "newton"]:
        ours = LogisticRegression(fit_intercept=False, solver=solver, tol=1e-8).fit(
            X, y, sample_weight=sw
        )
        ref = SkLogisticRegression(fit_intercept=False, tol=1e-8)
        ref.fit(X, y, sample_weight=sw)
        np.testing.assert_allclose(
            ours.predict_proba(X), ref.predict_proba(X), atol=1e-5
        )
        assert np.all(ours.intercept_ == 0)


def test_newton_conjugate_gradient_path_matches_full_hessian(wine, monkeypatch):
    X, y = wine
    full = LogisticRegression(solver="newton", tol=1e-9).fit(X, y)
    monkeypatch.setattr(_logistic, "_FULL_HESSIAN_MAX_PARAMS", 0)
    cg = LogisticRegression(solver="newton", tol=1e-9).fit(X, y)
    np.testing.assert_allclose(cg.predict_proba(X), full.predict_proba(X), atol=1e-7)
    assert cg.n_iter_[0] <= 15


def test_sparse_input_equals_dense(wine):
    X, y = wine
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.3, 0.0, X))
    for solver in ["lbfgs", "newton"]:
        dense = LogisticRegression(solver=solver, tol=1e-8).fit(Xs.toarray(), y)
        sparse = LogisticRegression(solver=solver, tol=1e-8).fit(Xs, y)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-7)
        np.testing.assert_allclose(
            sparse.predict_proba(Xs), dense.predict_proba(Xs), atol=1e-9
        )


# --- predictions ------------------------------------------------------------------


@pytest.mark.parametrize("dataset", ["cancer", "wine"])
def test_prediction_methods_are_consistent(dataset, request):
    X, y = request.getfixturevalue(dataset)
    clf = LogisticRegression().fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), proba, rtol=1e-10)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])
    scores = clf.decision_function(X)
    if len(clf.classes_) == 2:
        assert scores.shape == (len(y),) and clf.coef_.shape == (1, X.shape[1])
        np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(-scores)), rtol=1e-12)
    else:
        assert scores.shape == (len(y), 3) and clf.coef_.shape == (3, X.shape[1])


def test_log_proba_does_not_underflow():
    clf = LogisticRegression().fit([[-1.0], [1.0], [0.9]], [0, 1, 1])
    clf.coef_, clf.intercept_ = np.array([[1000.0]]), np.array([0.0])
    log_proba = clf.predict_log_proba([[-1.0], [1.0]])
    np.testing.assert_allclose(log_proba, [[0.0, -1000.0], [-1000.0, 0.0]], atol=1e-12)


def test_softmax_worked_example():
    # Notes B §3.5 (D4): logits (3, 1, -3) give about 0.88, 0.12, 0.
    np.testing.assert_allclose(
        softmax(np.array([3.0, 1.0, -3.0])), [0.8789, 0.1189, 0.0022], atol=5e-5
    )


@given(st.lists(st.floats(-50, 50), min_size=2, max_size=6), st.floats(-1e3, 1e3))
def test_softmax_sums_to_one_and_ignores_shifts(z, shift):
    z = np.array(z)
    p = softmax(z)
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(softmax(z + shift), p, rtol=1e-9, atol=1e-300)


def test_two_class_softmax_is_binary_logistic():
    # Notes B §3.5: softmax over two classes is the sigmoid of w = w_1 - w_0.
    # With the penalty on both rows, the optimum has w_0 = -w_1, so the
    # softmax problem at C equals the binary one at 2C.
    X, y, sw = _data.random_labels(2, seed=4, n_samples=60)
    C = 0.7
    binary = LogisticRegression(C=2 * C, solver="newton", tol=1e-10)
    binary.fit(X, y, sample_weight=sw)
    loss = LogisticLoss(X, y, 2, sw, 1.0 / (C * sw.sum()), True, multinomial=True)
    w, _ = _fit_newton(loss, np.zeros(loss.n_params), 50, 1e-10, 0)
    coef, intercept = loss.unpack(w)
    np.testing.assert_allclose(coef[1] - coef[0], binary.coef_[0], rtol=1e-7)
    np.testing.assert_allclose(
        intercept[1] - intercept[0], binary.intercept_[0], rtol=1e-7
    )


# --- properties from the notes -------------------------------------------------------


@given(st.integers(0, 10_000))
def test_weight_norm_does_not_increase_with_regularisation(seed):
    # Notes B §3.4: ||theta_{1:}|| is non-increasing in lambda = 1/C.
    X, y, _ = _data.random_labels(2, seed=seed, n_samples=25, n_features=3)
    norms = [
        np.linalg.norm(
            LogisticRegression(C=C, solver="newton", tol=1e-10).fit(X, y).coef_
        )
        for C in [10.0, 1.0, 0.3, 0.1, 0.01]
    ]
    assert np.all(np.diff(norms) <= 1e-8)


@pytest.mark.parametrize("weighted", [False, True])
def test_strong_penalty_gives_prior_log_odds(cancer, weighted):
    # Notes B §3.4: as lambda -> inf, theta_{1:} -> 0 and theta_0 -> logit(mean y).
    X, y = cancer
    sw = np.random.RandomState(0).uniform(0.5, 2, len(y)) if weighted else None
    clf = LogisticRegression(C=1e-9, solver="newton", tol=1e-12)
    clf.fit(X, y, sample_weight=sw)
    assert np.abs(clf.coef_).max() < 1e-6
    prior_log_odds = logit(np.average(y, weights=sw))
    assert clf.intercept_[0] == pytest.approx(prior_log_odds, abs=1e-5)


def test_newton_converges_quadratically(cancer):
    # Notes B §6.11: near the optimum the number of correct digits doubles.
    X, y = cancer
    best = LogisticRegression(solver="newton", tol=1e-12, max_iter=50).fit(X, y)
    assert best.n_iter_[0] <= 10
    errors = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for k in range(1, best.n_iter_[0]):
            clf = LogisticRegression(solver="newton", tol=0.0, max_iter=k).fit(X, y)
            errors.append(np.abs(clf.coef_ - best.coef_).max())
    errors = np.array(errors)
    tail = errors[(errors < 1e-2) & (errors > 1e-10)]
    assert len(tail) >= 2
    # e_{k+1} <= c e_k^2 with a modest constant once in the quadratic regime.
    assert np.all(tail[1:] <= 10 * tail[:-1] ** 2)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sparse", [False, True])
def test_standardised_coordinates_are_a_change_of_variables(
    n_classes, fit_intercept, sparse
):
    # gd/sgd minimise f~(v) = f(T^-1 v): same values, chain-rule gradients,
    # hence the same minimiser once mapped back.
    X, y, sw = _data.random_labels(n_classes, seed=5)
    X = X * [1e3, 1.0, 1e-2, 40.0, 5.0] + [4e3, 0.0, 1.0, -20.0, 0.0]
    X[:, 1] = 7.0  # a constant column
    if sparse:
        X[np.abs(X) < 1.0] = 0.0
        X = sp.csr_matrix(X)
    loss = LogisticLoss(X, y, n_classes, sw, 0.05, fit_intercept)
    coords = _Standardised(loss)
    v = np.random.RandomState(6).normal(size=loss.n_params)
    w = coords.to_original(v)
    np.testing.assert_allclose(coords.from_original(w), v, rtol=1e-12, atol=1e-12)
    f_t, g_t = coords.loss.loss_gradient(v)
    f, g = loss.loss_gradient(w)
    assert f_t == pytest.approx(f, rel=1e-10)
    np.testing.assert_allclose(coords.gradient_to_original(g_t), g, rtol=1e-8,
                               atol=1e-10)
    # The Jacobi scaling: every diagonal entry of the curvature bound is 1/4.
    X_t = coords.loss.X.toarray() if sparse else coords.loss.X
    diag = 0.25 * (sw @ X_t**2) / sw.sum() + coords.loss.l2
    np.testing.assert_allclose(diag, 0.25, rtol=1e-10)


@pytest.mark.parametrize("solver", ["gd", "sgd"])
@pytest.mark.parametrize("class_weight", [None, {0: 1000.0, 1: 1e-4}])
def test_first_order_solvers_reach_lbfgs_optimum_on_unscaled_data(
    solver, class_weight
):
    # Raw breast_cancer features from 0.1 to 2500 (six columns that are not
    # collinear: the full set is ill-conditioned in any scaling, cond ~1e5).
    # Without the standardised coordinates, gd and sgd stop 0.15-0.65 away
    # in probability. lbfgs agrees with newton to < 1e-6 here, so the
    # tolerance measures the first-order solver: gd converges linearly
    # (3e-4 observed after 2000 steps); sgd's step decays only as
    # 1/sqrt(epoch), and after 200 epochs the epoch average still carries
    # mini-batch noise (max 0.023-0.043, mean 0.002-0.004 over seeds 0-4).
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, [1, 3, 4, 8, 9, 13]]
    ref = LogisticRegression(tol=1e-8, max_iter=1000, class_weight=class_weight)
    ref.fit(X, y)
    if solver == "gd":
        params, max_err, mean_err = {"max_iter": 2000, "tol": 1e-6}, 1e-3, 1e-3
    else:
        params, max_err, mean_err = {"max_iter": 200, "tol": 1e-7}, 0.06, 0.006
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(
            solver=solver, class_weight=class_weight, random_state=0, **params
        ).fit(X, y)
    err = np.abs(clf.predict_proba(X) - ref.predict_proba(X))
    assert err.max() < max_err and err.mean() < mean_err
    assert clf.score(X, y) == pytest.approx(ref.score(X, y), abs=0.01)


def test_newton_needs_fewer_iterations_than_gradient_descent(wine):
    X, y = wine
    newton = LogisticRegression(solver="newton", tol=1e-5).fit(X, y)
    gd = LogisticRegression(solver="gd", tol=1e-5, max_iter=20_000).fit(X, y)
    assert newton.n_iter_[0] <= 10 < gd.n_iter_[0]
    np.testing.assert_allclose(gd.predict_proba(X), newton.predict_proba(X), atol=1e-3)


# --- labels, weights, warm start, errors ---------------------------------------------


def test_string_labels(wine):
    X, y = wine
    names = np.array(["barolo", "grignolino", "barbera"])[y]
    clf = LogisticRegression().fit(X, names)
    ref = LogisticRegression().fit(X, y)
    assert list(clf.classes_) == sorted(set(names))
    assert set(clf.predict(X)) <= set(names)
    order = np.argsort(["barolo", "grignolino", "barbera"])
    np.testing.assert_allclose(
        clf.predict_proba(X), ref.predict_proba(X)[:, order], atol=1e-8
    )


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_class_weight_equals_sample_weight(wine, solver):
    X, y = wine
    counts = np.bincount(y)
    balanced = LogisticRegression(class_weight="balanced", solver=solver, tol=1e-9)
    balanced.fit(X, y)
    explicit = LogisticRegression(solver=solver, tol=1e-9).fit(
        X, y, sample_weight=(len(y) / (3 * counts))[y]
    )
    np.testing.assert_allclose(balanced.coef_, explicit.coef_, atol=1e-7)
    as_dict = LogisticRegression(class_weight={0: 2.0, 1: 1.0, 2: 0.5}, solver=solver,
                                 tol=1e-9).fit(X, y)
    as_sw = LogisticRegression(solver=solver, tol=1e-9).fit(
        X, y, sample_weight=np.array([2.0, 1.0, 0.5])[y]
    )
    np.testing.assert_allclose(as_dict.coef_, as_sw.coef_, atol=1e-7)
    ref = SkLogisticRegression(class_weight="balanced", tol=1e-9).fit(X, y)
    np.testing.assert_allclose(
        balanced.predict_proba(X), ref.predict_proba(X), atol=1e-5
    )


def test_zero_weight_equals_removing_samples(cancer):
    X, y = cancer
    sw = np.ones(len(y))
    sw[::3] = 0.0
    weighted = LogisticRegression(solver="newton", tol=1e-10)
    weighted.fit(X, y, sample_weight=sw)
    removed = LogisticRegression(solver="newton", tol=1e-10).fit(X[sw > 0], y[sw > 0])
    np.testing.assert_allclose(weighted.coef_, removed.coef_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd"])
def test_warm_start_starts_from_previous_solution(wine, solver):
    X, y = wine
    clf = LogisticRegression(solver=solver, warm_start=True, max_iter=5000).fit(X, y)
    first = clf.coef_.copy()
    clf.fit(X, y)
    assert clf.n_iter_[0] <= 2
    np.testing.assert_allclose(clf.coef_, first, atol=1e-3)
    with pytest.raises(ValueError, match="warm_start"):
        clf.fit(X, y % 2)


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd"])
def test_convergence_warning_at_max_iter(cancer, solver):
    X, y = cancer
    with pytest.warns(ConvergenceWarning):
        clf = LogisticRegression(solver=solver, max_iter=1, tol=1e-12, random_state=0)
        clf.fit(X, y)
    assert clf.n_iter_[0] == 1


@pytest.mark.parametrize("solver", ["lbfgs", "newton", "gd", "sgd"])
def test_verbose_prints_progress(wine, solver, capsys):
    X, y = wine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(solver=solver, verbose=1, max_iter=3, random_state=0)
        clf.fit(X, y)
    assert "loss" in capsys.readouterr().out


@pytest.mark.parametrize("solver", ["gd", "sgd"])
def test_divergent_learning_rate_raises(wine, solver):
    X, y = wine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the overflow itself
        with pytest.raises(ValueError, match="learning_rate"):
            LogisticRegression(solver=solver, learning_rate=1e300).fit(X, y)


def test_sgd_is_reproducible_with_random_state(wine):
    X, y = wine
    a = LogisticRegression(solver="sgd", random_state=3, max_iter=5)
    b = LogisticRegression(solver="sgd", random_state=3, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        np.testing.assert_array_equal(a.fit(X, y).coef_, b.fit(X, y).coef_)


def test_one_class_raises(wine):
    X, _ = wine
    with pytest.raises(ValueError, match="class"):
        LogisticRegression().fit(X, np.zeros(len(X)))


@pytest.mark.parametrize(
    "params",
    [{"C": 0.0}, {"C": -1.0}, {"solver": "liblinear"}, {"max_iter": -1}, {"tol": -1.0},
     {"learning_rate": 0.0}, {"batch_size": 0}, {"class_weight": "auto"}],
)
def test_invalid_parameters(wine, params):
    X, y = wine
    name = next(iter(params))
    with pytest.raises(ValueError, match=name):
        LogisticRegression(**params).fit(X, y)


def _overlapping_blobs(seed=0, n=200):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 3, n)
    X = rng.normal(size=(n, 3)) + 1.5 * np.eye(3)[y]
    return X, y


def test_huge_magnitude_drops_the_penalty_as_the_exact_problem_does():
    # Issue 23: at X * 1e300 the scores overflowed (accuracy at chance). In
    # the units of X / s the penalty is (1 / (C s²)) ‖W'‖² / 2 ~ 0: the
    # exact answer is the unpenalised fit (non-separable data: it exists).
    X, y = _overlapping_blobs()
    free = LogisticRegression(C=np.inf, tol=1e-10, max_iter=500).fit(X, y)
    huge = LogisticRegression(C=1.0, tol=1e-10, max_iter=500).fit(X * 1e300, y)
    assert_allclose(huge.coef_ * 1e300, free.coef_, rtol=1e-5)
    assert_allclose(huge.intercept_, free.intercept_, rtol=1e-5, atol=1e-6)
    assert_allclose(huge.predict_proba(X * 1e300), free.predict_proba(X), atol=1e-7)


@pytest.mark.parametrize("solver", ["lbfgs", "newton"])
def test_offset_is_absorbed_by_the_unpenalised_intercept(solver):
    # Issue 23: X + 1e8 left L-BFGS at chance accuracy. The intercept is not
    # penalised, so the model is offset-invariant: same coef_, shifted b.
    X, y = _overlapping_blobs(1)
    ref = LogisticRegression(solver=solver, tol=1e-10, max_iter=200).fit(X, y)
    off = LogisticRegression(solver=solver, tol=1e-10, max_iter=200).fit(X + 1e8, y)
    # X + 1e8 stores X to ~1.5e-8: the fits agree to that.
    assert_allclose(off.coef_, ref.coef_, rtol=1e-5)
    assert_allclose(off.predict_proba(X + 1e8), ref.predict_proba(X), atol=1e-6)


# -- scikit-learn 1.9 callbacks (sklearn.callback, issue 21) -----------------


class _Recorder:
    """A FitCallback recording its hooks (and the fitted estimators)."""

    def __init__(self):
        self.calls = []

    def setup(self, estimator, context):
        self.calls.append(("setup", None, None))

    def on_fit_task_begin(self, estimator, context, *, fitted_estimator=None):
        self.calls.append(("begin", context.task_name, fitted_estimator))

    def on_fit_task_end(self, estimator, context, *, fitted_estimator=None):
        self.calls.append(("end", context.task_name, fitted_estimator))

    def teardown(self, estimator, context):
        self.calls.append(("teardown", None, None))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_lbfgs_callbacks_see_each_iteration(n_classes):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_features=4, n_informative=4, n_redundant=0,
                               n_classes=n_classes, random_state=0)
    cb = _Recorder()
    lr = LogisticRegression(solver="lbfgs").set_callbacks(cb).fit(X, y)
    n_iter = lr.n_iter_[0]
    names = [c[0] for c in cb.calls]
    assert names[0] == "setup" and names[-1] == "teardown"
    # The fit task, one task per iteration and the empty one after the last.
    assert names.count("begin") == names.count("end") == n_iter + 2
    ends = [c[2] for c in cb.calls if c[0] == "end" and c[1] == "lbfgs-iter"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for i in (0, n_iter // 2, n_iter - 1):
            ref = LogisticRegression(solver="lbfgs", max_iter=i + 1).fit(X, y)
            np.testing.assert_allclose(ends[i].coef_, ref.coef_)
            np.testing.assert_allclose(ends[i].intercept_, ref.intercept_)
    np.testing.assert_allclose(ends[n_iter - 1].coef_, lr.coef_)


def test_callbacks_with_other_solvers_warn():
    with pytest.warns(UserWarning, match="only supported in LogisticRegression for "
                      "solver='lbfgs'"):
        LogisticRegression(solver="newton-cg").set_callbacks(_Recorder())


@pytest.mark.parametrize("solver", ["lbfgs", "liblinear", "newton-cholesky", "sag"])
def test_class_with_zero_total_weight_stays_a_class(solver):
    # A bootstrap (bagging's counts) can leave a class without weight; as in
    # scikit-learn the class is kept and the penalised model rates it unlikely.
    X = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 1.0], [2.0, 1.0]])
    y = np.array([1, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = LogisticRegression(solver=solver, random_state=0).fit(
            X, y, sample_weight=[2.0, 0.0, 1.0, 1.0])
    np.testing.assert_array_equal(clf.classes_, [0, 1])
    assert np.all(clf.predict_proba(X)[:, 1] > 0.5)
