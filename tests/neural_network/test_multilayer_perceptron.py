"""MLPClassifier / MLPRegressor: parity, backprop, notes B §7 properties."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import expit
from sklearn import neural_network as sk
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import mean_poisson_deviance
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skml.neural_network import MLPClassifier, MLPRegressor
from skml.neural_network._activations import ACTIVATIONS, activate, multiply_derivative
from skml.neural_network._losses import OUTPUTS
from skml.neural_network._multilayer_perceptron import SOLVERS
from skml.neural_network._training import loss_gradient
from skml.optim import check_gradient
from tests import _data
from tests._parity import parity_test
from tests._sparse_hypothesis import sparse_pairs

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

XOR_X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
XOR_Y = np.array([0, 1, 1, 0])


def _split(name, stratify):
    return _data.split(name, stratify=stratify, scale=True)


# ------------------------------------------------------------------ parity


@parity_test(MLPClassifier)
def test_parity_digits_accuracy():
    X_tr, X_te, y_tr, y_te = _split("digits", True)
    params = dict(hidden_layer_sizes=(50,), solver="adam", max_iter=30, random_state=0)
    ours = MLPClassifier(**params).fit(X_tr, y_tr)
    with threadpool_limits(1):  # threaded BLAS on tiny products is very slow
        ref = sk.MLPClassifier(**params).fit(X_tr, y_tr)
    assert ours.n_iter_ == ref.n_iter_
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.02
    # Same initial weights and the same (bias-corrected) Adam: the training
    # losses agree closely, not just the accuracy.
    assert_allclose(ours.loss_curve_, ref.loss_curve_, rtol=0.05)


@parity_test(MLPRegressor)
def test_parity_diabetes_r2():
    X_tr, X_te, y_tr, y_te = _split("diabetes", False)
    params = dict(
        hidden_layer_sizes=(20,), learning_rate_init=0.02, alpha=1.0, max_iter=150,
        random_state=0,
    )
    ours = MLPRegressor(**params).fit(X_tr, y_tr)
    ref = sk.MLPRegressor(**params).fit(X_tr, y_tr)
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.05


def test_same_initial_weights_as_sklearn():
    X, y = XOR_X, XOR_Y
    params = dict(hidden_layer_sizes=(5,), alpha=0.0, random_state=3, shuffle=False)
    ours = MLPClassifier(**params).partial_fit(X, y, classes=[0, 1])
    ref = sk.MLPClassifier(**params).partial_fit(X, y, classes=[0, 1])
    assert ours.loss_curve_[0] == pytest.approx(ref.loss_curve_[0], rel=1e-12)
    # One Adam step from the same start: identical up to where epsilon enters
    # (scikit-learn adds it to the uncorrected root, ~3% of a 1e-6 gradient).
    for a, b in zip(ours.coefs_ + ours.intercepts_, ref.coefs_ + ref.intercepts_):
        assert_allclose(a, b, atol=1e-7)


@parity_test(MLPClassifier)
@pytest.mark.parametrize("seed", [0, 1])
def test_lbfgs_parity_breast_cancer(seed):
    X_tr, X_te, y_tr, y_te = _split("breast_cancer", True)
    params = dict(hidden_layer_sizes=(20,), solver="lbfgs", max_iter=200,
                  random_state=seed)
    ours = MLPClassifier(**params).fit(X_tr, y_tr)
    ref = sk.MLPClassifier(**params).fit(X_tr, y_tr)
    # Same start, same loss and gradient, same L-BFGS-B: measured identical
    # accuracies and losses (to 1e-9) here; the margins allow the line
    # searches to part after rounding differences on another machine.
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.03
    assert ours.score(X_tr, y_tr) >= ref.score(X_tr, y_tr) - 0.01
    assert ours.loss_ <= 10 * ref.loss_ + 1e-3


@parity_test(MLPRegressor)
def test_lbfgs_parity_diabetes():
    X_tr, X_te, y_tr, y_te = _split("diabetes", False)
    params = dict(hidden_layer_sizes=(10,), solver="lbfgs", alpha=1.0, max_iter=100,
                  random_state=0)
    ours = MLPRegressor(**params).fit(X_tr, y_tr)
    ref = sk.MLPRegressor(**params).fit(X_tr, y_tr)
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.03


def test_lbfgs_iterations_and_loss_curve():
    # scikit-learn's meanings: n_iter_ L-BFGS iterations (at most max_iter),
    # loss_ the final full-batch loss; loss_curve_ holds the loss after each
    # iteration, so it has n_iter_ entries and ends at loss_.
    X, y = _data.load("iris")
    X = StandardScaler().fit_transform(X)
    clf = MLPClassifier((10,), solver="lbfgs", max_iter=500, random_state=0).fit(X, y)
    assert 0 < clf.n_iter_ < 500
    assert len(clf.loss_curve_) == clf.n_iter_
    assert clf.loss_curve_[-1] == pytest.approx(clf.loss_)
    assert clf.best_loss_ == pytest.approx(min(clf.loss_curve_))
    assert np.all(np.diff(clf.loss_curve_) <= 1e-12)  # line searches decrease it
    assert clf.t_ == 0 and clf.validation_scores_ is None


def test_lbfgs_warns_at_max_iter_and_max_fun():
    X, y = _data.load("iris")
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        clf = MLPClassifier((10,), solver="lbfgs", max_iter=3, random_state=0).fit(X, y)
    assert clf.n_iter_ == 3 == len(clf.loss_curve_)
    with pytest.warns(ConvergenceWarning, match="max_fun=4"):
        clf = MLPClassifier((10,), solver="lbfgs", max_fun=4, random_state=0).fit(X, y)
    assert clf.n_iter_ < 4


def test_lbfgs_has_no_partial_fit_as_in_scikit_learn():
    assert not hasattr(sk.MLPClassifier(solver="lbfgs"), "partial_fit")
    for Estimator in (MLPClassifier, MLPRegressor):
        assert not hasattr(Estimator(solver="lbfgs"), "partial_fit")
        assert hasattr(Estimator(solver="sgd"), "partial_fit")
        with pytest.raises(AttributeError, match="partial_fit"):
            Estimator(solver="lbfgs").partial_fit(XOR_X, XOR_Y)


def test_lbfgs_weights_warm_start_and_float32():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    params = dict(hidden_layer_sizes=(5,), solver="lbfgs", max_iter=30, random_state=0)
    w = np.r_[np.ones(40), np.zeros(20)]
    a = MLPClassifier(**params).fit(X, y, sample_weight=w)
    b = MLPClassifier(**params).fit(X[:40], y[:40])
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-8)
    warm = MLPClassifier(warm_start=True, **params).fit(X, y)
    first = warm.loss_
    warm.fit(X, y)
    assert warm.loss_ <= first
    assert len(warm.loss_curve_) > warm.n_iter_  # the curve continues
    c32 = MLPClassifier(dtype="float32", **params).fit(X, y)
    assert c32.coefs_[0].dtype == np.float32
    assert c32.score(X, y) >= 0.9


def test_lbfgs_batch_norm_running_statistics_are_the_full_batch_ones():
    X, y = _data.load("iris")
    clf = MLPClassifier((6,), solver="lbfgs", batch_norm=True, max_iter=50,
                        random_state=0).fit(X, y)
    Z = X @ clf.coefs_[0] + clf.intercepts_[0]
    assert_allclose(clf.running_mean_[0], Z.mean(axis=0), rtol=1e-10)
    assert_allclose(clf.running_var_[0], Z.var(axis=0, ddof=1), rtol=1e-10)
    assert clf.score(X, y) > 0.95


# ---------------------------------------------------------------- backprop


# Each layer's and each loss's gradient is checked in test_modules.py and
# test_losses.py, whole networks (every activation x output x normalisation,
# the notes' computational graph) in test_training.py. Here: the network an
# estimator builds, with its penalty and its sample weights.


@pytest.mark.parametrize("norm", [None, "batch_norm", "layer_norm"])
@pytest.mark.parametrize("Estimator, y", [
    (MLPClassifier, np.arange(12) % 3),
    (MLPClassifier, np.arange(12) % 2),
    (MLPRegressor, np.linspace(0, 1, 24).reshape(12, 2)),
])
def test_estimator_objective_matches_finite_differences(Estimator, y, norm):
    rng = np.random.RandomState(0)
    X, sw = rng.normal(size=(12, 4)), rng.uniform(0.5, 2.0, 12)
    est = Estimator(hidden_layer_sizes=(5, 3), activation="tanh", max_iter=2,
                    random_state=0, **({norm: True} if norm else {})).fit(X, y)
    net = est._network(np.float64)
    Y = est._encode_targets(y, False, None, np.float64, False)
    loss = OUTPUTS[est.out_activation_][0]

    def objective(theta):
        net.theta[:] = theta
        return loss_gradient(net, X, Y, loss, sw, alpha=0.3, update_state=False)

    def gradient(theta):
        objective(theta)
        return net.grad.copy()

    assert check_gradient(objective, gradient, net.theta.copy()) < 1e-6


# ------------------------------------------------------------- activations


def test_activation_identities():
    t = np.linspace(-5, 5, 101)
    tanh = activate("tanh", t.copy())
    assert_allclose(tanh, 2 * expit(2 * t) - 1, atol=1e-12)  # not D1's 1 - 2 sgm(2t)
    assert activate("leaky_relu", np.array([-10.0]), slope=0.1)[0] == -1.0
    s = expit(t)
    assert_allclose(multiply_derivative("logistic", s, np.ones_like(t)), s * (1 - s))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_derivatives_finite_differences(name):
    t = np.array([-2.3, -0.7, 0.4, 1.9])  # away from the kink at 0
    h = 1e-6
    numeric = (activate(name, t + h, 0.1) - activate(name, t - h, 0.1)) / (2 * h)
    analytic = multiply_derivative(name, activate(name, t.copy(), 0.1), np.ones(4), 0.1)
    assert_allclose(analytic, numeric, rtol=1e-6)


# -------------------------------------------------------------------- XOR


def test_xor_network_of_the_notes():
    # Notes B §7.1 / §16 item 4: U = [[1, 1], [1, 1]], c = (0, -1),
    # w = (2, -4), b = -1 with ReLU maps XOR to (-1, +1, +1, -1).
    reg = MLPRegressor(hidden_layer_sizes=(2,), max_iter=1)
    reg.fit(XOR_X, [0.0, 1.0, 1.0, 0.0])
    reg.coefs_[0][:] = [[1.0, 1.0], [1.0, 1.0]]
    reg.intercepts_[0][:] = [0.0, -1.0]
    reg.coefs_[1][:] = [[2.0], [-4.0]]
    reg.intercepts_[1][:] = [-1.0]
    assert_array_equal(reg.predict(XOR_X), [-1.0, 1.0, 1.0, -1.0])
    hidden = np.maximum(XOR_X @ reg.coefs_[0] + reg.intercepts_[0], 0)
    assert_array_equal(hidden, [[0, 0], [1, 0], [1, 0], [2, 1]])


def test_relu_network_learns_xor():
    clf = MLPClassifier(
        (8,), learning_rate_init=0.05, max_iter=400, tol=0, random_state=0
    ).fit(XOR_X, XOR_Y)
    assert_array_equal(clf.predict(XOR_X), XOR_Y)
    assert clf.loss_curve_[-1] < 0.05


# ------------------------------------------------------- dropout and BN


def test_dropout_is_off_at_predict_time():
    X, y = XOR_X.repeat(10, axis=0), np.tile(XOR_Y, 10)
    clf = MLPClassifier((16,), dropout=0.5, max_iter=5, random_state=0).fit(X, y)
    assert_array_equal(clf.predict_proba(X), clf.predict_proba(X))


def test_batch_norm_uses_running_statistics_in_eval():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    clf = MLPClassifier((6,), batch_norm=True, max_iter=10, random_state=0).fit(X, y)
    W, b = clf.coefs_[0], clf.intercepts_[0]
    z = (X[:1] @ W + b - clf.running_mean_[0]) / np.sqrt(clf.running_var_[0] + 1e-5)
    h = np.maximum(clf.batch_norm_gamma_[0] * z + clf.batch_norm_beta_[0], 0)
    p = expit(h @ clf.coefs_[1] + clf.intercepts_[1])
    # A single sample (batch size 1) works at inference and uses running stats.
    assert_allclose(clf.predict_proba(X[:1])[:, 1], p.ravel())
    assert_allclose(clf.predict_proba(X)[:1], clf.predict_proba(X[:1]))
    assert not np.allclose(clf.running_var_[0], 1.0)


def test_weighted_batch_norm_equals_repeated_rows():
    rng = np.random.RandomState(0)
    X, y = rng.normal(size=(30, 3)), rng.randint(0, 2, 30)
    w = rng.randint(0, 4, 30)
    w[:2] = 1
    params = dict(hidden_layer_sizes=(5,), batch_norm=True, max_iter=5, random_state=0)
    a = MLPClassifier(**params).fit(X, y, sample_weight=w)
    b = MLPClassifier(**params).fit(X.repeat(w, axis=0), y.repeat(w))
    assert_allclose(a.running_var_[0], b.running_var_[0], rtol=1e-10)
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9)


def test_layer_norm_option():
    # Notes B §7.4: each hidden pre-activation row normalised over its units.
    X, y = _data.load("digits")
    X, y = X[:500] / 16, y[:500]
    clf = MLPClassifier((32,), layer_norm=True, max_iter=30, learning_rate_init=0.01,
                        random_state=0).fit(X[:400], y[:400])
    # Measured 0.90-0.91 over seeds 0-2 (0.87-0.89 without layer norm).
    assert clf.score(X[400:], y[400:]) > 0.85
    gamma, beta = clf.layer_norm_gamma_[0], clf.layer_norm_beta_[0]
    assert gamma.shape == beta.shape == (32,) and not np.allclose(gamma, 1.0)
    z = X[:1] @ clf.coefs_[0] + clf.intercepts_[0]
    h = np.maximum(gamma * (z - z.mean()) / np.sqrt(z.var() + 1e-5) + beta, 0)
    logits = h @ clf.coefs_[1] + clf.intercepts_[1]
    assert_allclose(clf.predict_proba(X[:1]), np.exp(logits) / np.exp(logits).sum())
    with pytest.raises(ValueError, match="choose one"):
        MLPClassifier(batch_norm=True, layer_norm=True).fit(X, y)


# --------------------------------------------------------- training API


def test_pickle_round_trip_keeps_training():
    import pickle

    X, y = XOR_X.repeat(5, axis=0), np.tile(XOR_Y, 5)
    params = dict(hidden_layer_sizes=(4,), shuffle=False, random_state=0)
    a = MLPClassifier(**params).partial_fit(X, y, classes=[0, 1])
    b = pickle.loads(pickle.dumps(a))
    assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    a.partial_fit(X, y)
    b.partial_fit(X, y)
    # The unpickled copy still trains its published weights (they are views).
    assert_array_equal(a.coefs_[0], b.coefs_[0])
    assert a.t_ == b.t_ == 2 * len(X)


def test_same_random_state_same_result():
    X, y = _data.load("digits")
    X, y = X[:300] / 16, y[:300]
    params = dict(hidden_layer_sizes=(10,), max_iter=3, dropout=0.2, random_state=7)
    a = MLPClassifier(**params).fit(X, y)
    b = MLPClassifier(**params).fit(X, y)
    c = MLPClassifier(**{**params, "random_state": 8}).fit(X, y)
    for u, v in zip(a.coefs_, b.coefs_):
        assert_array_equal(u, v)
    assert not np.allclose(a.coefs_[0], c.coefs_[0])


@pytest.mark.parametrize("solver", SOLVERS)
def test_every_solver_decreases_the_loss(solver):
    X, y = _data.load("digits")
    X, y = X[:300] / 16, y[:300]
    lr = {"adadelta": 1.0, "sgd": 0.05, "momentum": 0.05, "nesterov": 0.05}.get(
        solver, 0.01
    )
    clf = MLPClassifier((16,), solver=solver, learning_rate_init=lr, max_iter=15,
                        random_state=0).fit(X, y)
    assert clf.loss_curve_[-1] < 0.7 * clf.loss_curve_[0]


@pytest.mark.parametrize("momentum, nesterov", [
    (0.9, True), (0.9, False), (0.5, True), (0.0, True),
])
def test_sgd_solver_takes_scikit_learns_steps(momentum, nesterov):
    # solver="sgd" means scikit-learn's SGD: Nesterov momentum 0.9 by default.
    # Same initial weights, same batches, same rule: the same parameters.
    X, y = load_digits(n_class=3, return_X_y=True)
    X = X[:120] / 16
    params = dict(hidden_layer_sizes=(6,), solver="sgd", momentum=momentum,
                  nesterovs_momentum=nesterov, learning_rate_init=0.05,
                  batch_size=30, shuffle=False, random_state=0)
    ours, ref = MLPClassifier(**params), sk.MLPClassifier(**params)
    for _ in range(3):
        ours.partial_fit(X, y[:120], classes=[0, 1, 2])
        ref.partial_fit(X, y[:120], classes=[0, 1, 2])
    for a, b in zip(ours.coefs_ + ours.intercepts_, ref.coefs_ + ref.intercepts_):
        assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert_allclose(ours.loss_curve_, ref.loss_curve_, rtol=1e-9)


def test_sgd_solver_trains_digits_as_scikit_learn():
    # The reported symptom: plain SGD under the name "sgd" reached 0.15
    # training accuracy where scikit-learn's momentum SGD reaches 0.87.
    X, y = _data.load("digits")
    X = X / 16
    params = dict(hidden_layer_sizes=(32,), solver="sgd", max_iter=40, random_state=0)
    ours = MLPClassifier(**params).fit(X, y).score(X, y)
    with threadpool_limits(1):
        ref = sk.MLPClassifier(**params).fit(X, y).score(X, y)
    # Measured 0.619 and 0.618 (plain SGD: 0.196); over seeds 0-4 the two
    # differ by at most 0.002 (summation order), the margin is 15 times that.
    assert abs(ours - ref) <= 0.03
    assert ours > 0.5


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_partial_fit_and_warm_start_continue_training(momentum):
    X, y = XOR_X.repeat(5, axis=0), np.tile(XOR_Y, 5)
    params = dict(hidden_layer_sizes=(4,), solver="sgd", momentum=momentum,
                  shuffle=False, random_state=0)
    full = MLPClassifier(max_iter=5, **params).fit(X, y)
    partial = MLPClassifier(**params)
    for _ in range(5):
        partial.partial_fit(X, y, classes=[0, 1])
    warm = MLPClassifier(max_iter=2, warm_start=True, **params).fit(X, y)
    warm.set_params(max_iter=3).fit(X, y)
    # partial_fit keeps the optimiser's velocity; a warm-started fit starts a
    # new optimiser (as scikit-learn), so it continues exactly only without
    # momentum.
    for ref in (partial, warm) if momentum == 0 else (partial,):
        for u, v in zip(full.coefs_ + full.intercepts_, ref.coefs_ + ref.intercepts_):
            assert_allclose(u, v, rtol=1e-12)
    assert partial.t_ == warm.t_ == full.t_ == 5 * len(X)
    assert len(warm.loss_curve_) == 5


def test_partial_fit_needs_classes_first():
    with pytest.raises(ValueError, match="classes"):
        MLPClassifier().partial_fit(XOR_X, XOR_Y)


def test_partial_fit_rejects_other_classes_later():
    # scikit-learn's rule: classes, if passed again, must be the first ones.
    clf = MLPClassifier(solver="sgd").partial_fit(XOR_X, XOR_Y, classes=[0, 1])
    clf.partial_fit(XOR_X, XOR_Y, classes=[1, 0])
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(XOR_X, XOR_Y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="classes"):
        clf.partial_fit(XOR_X, XOR_Y + 1)


def test_warm_start_needs_the_classes_of_the_previous_fit():
    X, y = _data.load("iris")
    clf = MLPClassifier((4,), solver="lbfgs", warm_start=True, max_iter=5,
                        random_state=0).fit(X, y)
    clf.fit(X, y)
    for other in (y % 2, y + 1):  # fewer classes; other labels
        # scikit-learn's text
        msg = ("warm_start can only be used where `y` has the same classes as in "
               f"the previous call to fit. Previously got [0 1 2], `y` has "
               f"{np.unique(other)}")
        with pytest.raises(ValueError, match=re.escape(msg)):
            clf.fit(X, other)
        with pytest.raises(ValueError, match="same classes"):
            sk.MLPClassifier((4,), solver="lbfgs", warm_start=True,
                             max_iter=5).fit(X, y).fit(X, other)


@pytest.mark.parametrize("solver", ["adam", "sgd"])
def test_non_finite_weights_raise_a_value_error(solver):
    # scikit-learn raises ValueError instead of returning a NaN network.
    # (L-BFGS stops at the first NaN loss with finite weights, in both.)
    rng = np.random.RandomState(0)
    X = np.finfo(np.float64).max * rng.uniform(size=(10, 2))
    y = rng.standard_normal(10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow
        with pytest.raises(ValueError, match="Solver produced non-finite parameter "
                                             "weights. The input data may contain "
                                             "large values"):
            MLPRegressor(solver=solver).fit(X, y)


@pytest.mark.parametrize("solver", ["adam", "sgd"])
def test_a_failed_fit_raises_instead_of_answering(solver):
    # Issue 23: with features offset by 1e8 the optimiser stopped at a
    # network of training R² -5e12 (scikit-learn's too) and said nothing. A
    # training error 100 times the constant prediction's is refused, with
    # what to do; the same data standardised trains well.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -0.5, 0.3]) + 0.1 * rng.normal(size=60)
    params = dict(hidden_layer_sizes=(16,), learning_rate_init=0.01, max_iter=50,
                  solver=solver, random_state=0)
    assert MLPRegressor(**params).fit(X, y).score(X, y) > 0.8
    with pytest.raises(ValueError, match=r"training failed.*offset.*Standardise X"):
        MLPRegressor(**params).fit(X + 1e8, y)
    # partial_fit is one epoch of many: never judged.
    MLPRegressor(hidden_layer_sizes=(16,), random_state=0).partial_fit(X + 1e8, y)


def test_n_iter_no_change_may_be_infinite():
    with pytest.warns(ConvergenceWarning):
        clf = MLPClassifier((3,), tol=1e3, n_iter_no_change=np.inf, max_iter=7,
                            random_state=0).fit(XOR_X, XOR_Y)
    assert clf.n_iter_ == 7


def test_early_stopping_keeps_the_best_validation_weights():
    X, y = _data.load("digits")
    X, y = X[:400] / 16, y[:400]
    clf = MLPClassifier((16,), early_stopping=True, n_iter_no_change=3, max_iter=200,
                        learning_rate_init=0.05, random_state=0).fit(X, y)
    assert len(clf.validation_scores_) == clf.n_iter_ < 200
    assert clf.best_validation_score_ == max(clf.validation_scores_)
    assert clf.best_loss_ is None


def test_learning_rate_schedules():
    X, y = XOR_X.repeat(5, axis=0), np.tile(XOR_Y, 5)
    inv = MLPClassifier((4,), solver="sgd", learning_rate="invscaling", power_t=0.5,
                        learning_rate_init=0.1, max_iter=3, random_state=0).fit(X, y)
    assert inv._rate.value == pytest.approx(0.1 / (inv.t_ + 1) ** 0.5)
    ada = MLPClassifier((4,), solver="sgd", learning_rate="adaptive", tol=10.0,
                        n_iter_no_change=1, learning_rate_init=0.1, max_iter=6,
                        random_state=0).fit(X, y)
    # No epoch after the first improves by tol=10; with scikit-learn's rule
    # (count > n_iter_no_change) the rate drops after epochs 3 and 5.
    assert ada._rate.value == pytest.approx(0.1 / 5**2)


def test_sample_weight_zero_equals_removal():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    w = np.r_[np.ones(30), np.zeros(10)]
    params = dict(hidden_layer_sizes=(5,), shuffle=False, max_iter=10, random_state=0)
    a = MLPClassifier(**params).fit(X, y, sample_weight=w)
    b = MLPClassifier(**params).fit(X[:30], y[:30])
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10)


def test_one_class_is_learnt_as_in_scikit_learn():
    # scikit-learn trains one logistic unit towards "not the class" and
    # predicts the class; our predict_proba is (n, 1) of ones, consistent
    # with classes_ (scikit-learn's has two columns for one class).
    X, _ = _data.load("digits")
    X = X[:150] / 16
    y = np.full(150, 3)
    params = dict(hidden_layer_sizes=(8,), max_iter=20, random_state=0)
    ours = MLPClassifier(**params).fit(X, y)
    ref = sk.MLPClassifier(**params).fit(X, y)
    assert_array_equal(ours.classes_, [3])
    assert_array_equal(ours.predict(X), ref.predict(X))
    assert_allclose(ours.predict_proba(X), np.ones((150, 1)))
    assert_allclose(ours.predict_log_proba(X), np.zeros((150, 1)))
    assert ours.n_outputs_ == ref.n_outputs_ == 1
    assert_allclose(ours.loss_curve_, ref.loss_curve_, rtol=0.05)
    inc = MLPClassifier(**params).partial_fit(X, y, classes=[3])
    assert_array_equal(inc.predict(X), y)
    stop_params = dict(early_stopping=True, n_iter_no_change=2, **params)
    stop = MLPClassifier(**stop_params).fit(X, y)
    ref_stop = sk.MLPClassifier(**stop_params).fit(X, y)
    assert stop.validation_scores_ == ref_stop.validation_scores_ == [1.0] * 4


def test_classes_of_zero_weight_are_kept_as_in_scikit_learn():
    X, y = load_digits(n_class=2, return_X_y=True)
    X = X / 16
    sw = np.where(y == 1, 0.0, 1.0)
    params = dict(hidden_layer_sizes=(8,), max_iter=30, random_state=0)
    ours = MLPClassifier(**params).fit(X, y, sample_weight=sw)
    ref = sk.MLPClassifier(**params).fit(X, y, sample_weight=sw)
    assert_array_equal(ours.classes_, [0, 1])
    assert_array_equal(ours.predict(X), ref.predict(X))
    assert_array_equal(ours.predict(X), np.zeros(len(y)))


def test_binary_and_multiclass_outputs():
    X, y = _data.load("digits")
    X = X[:200] / 16
    multi = MLPClassifier((8,), max_iter=3, random_state=0).fit(X, y[:200])
    assert multi.out_activation_ == "softmax" and multi.n_outputs_ == 10
    binary = MLPClassifier((8,), max_iter=3, random_state=0).fit(X, y[:200] > 4)
    assert binary.out_activation_ == "logistic" and binary.n_outputs_ == 1
    for clf in (multi, binary):
        assert_allclose(clf.predict_proba(X).sum(1), 1.0)
        assert clf.n_layers_ == 3


def test_float32_training():
    X, y = _data.load("digits")
    X, y = X[:400] / 16, y[:400]
    c32 = MLPClassifier((16,), dtype="float32", max_iter=20, random_state=0).fit(X, y)
    c64 = MLPClassifier((16,), max_iter=20, random_state=0).fit(X, y)
    assert c32.coefs_[0].dtype == np.float32
    assert c32.predict_proba(X).dtype == np.float64
    assert_allclose(c32.loss_curve_, c64.loss_curve_, rtol=1e-3)


def test_poisson_regression_matches_sklearn():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    y = rng.poisson(np.exp(0.5 * X[:, 0]))
    params = dict(loss="poisson", hidden_layer_sizes=(10,), max_iter=30,
                  learning_rate_init=0.01, random_state=0)
    ours = MLPRegressor(**params).fit(X, y)
    ref = sk.MLPRegressor(**params).fit(X, y)
    assert ours.out_activation_ == ref.out_activation_ == "exp"
    assert mean_poisson_deviance(y, ours.predict(X)) == pytest.approx(
        mean_poisson_deviance(y, ref.predict(X)), rel=0.02
    )
    with pytest.raises(ValueError, match="non-negative"):
        MLPRegressor(loss="poisson").fit(X, -np.abs(y) - 1)


def test_multioutput_regression():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(100, 3))
    Y = np.c_[X[:, 0], -X[:, 1]]
    reg = MLPRegressor(hidden_layer_sizes=(16,), learning_rate_init=0.01,
                       max_iter=200, random_state=0)
    reg.fit(X, Y)
    assert reg.predict(X).shape == (100, 2) and reg.n_outputs_ == 2
    assert reg.score(X, Y) > 0.9


def test_verbose_prints_each_epoch(capsys):
    reg = MLPRegressor(hidden_layer_sizes=(3,), max_iter=3, verbose=True,
                       random_state=0)
    reg.fit(XOR_X, XOR_Y)
    out = capsys.readouterr().out
    assert out.count("Iteration") == 3 and "loss = " in out


@pytest.mark.parametrize(
    "params, match",
    [
        ({"activation": "softplus"}, "activation"),
        ({"hidden_layer_sizes": (4, 0)}, "hidden_layer_sizes"),
        ({"solver": "newton"}, "solver"),
        ({"max_fun": 0}, "max_fun"),
        ({"nesterovs_momentum": "yes"}, "nesterovs_momentum"),
        ({"solver": "lbfgs", "dropout": 0.5}, "dropout"),
        ({"dropout": 1.0}, "dropout"),
        ({"leaky_relu_slope": 1.5}, "leaky_relu_slope"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        MLPClassifier(**params).fit(XOR_X, XOR_Y)


def test_convergence_warning_at_max_iter():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning):
            MLPClassifier((3,), max_iter=2, random_state=0).fit(XOR_X, XOR_Y)


# ------------------------------------------------------------- properties


@given(seed=st.integers(0, 2**31 - 1), width=st.integers(1, 6))
@settings(max_examples=20)
def test_hidden_unit_permutation_leaves_predictions_unchanged(seed, width):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(20, 3))
    y = rng.randint(0, 3, 20)
    y[:3] = [0, 1, 2]
    clf = MLPClassifier((width,), max_iter=2, random_state=seed).fit(X, y)
    before = clf.predict_proba(X)
    assert_allclose(before.sum(1), 1.0)
    perm = rng.permutation(width)
    clf.coefs_[0][:] = clf.coefs_[0][:, perm].copy()
    clf.intercepts_[0][:] = clf.intercepts_[0][perm].copy()
    clf.coefs_[1][:] = clf.coefs_[1][perm].copy()
    assert_allclose(clf.predict_proba(X), before, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("activation, init, bound", [
    ("relu", "he", np.sqrt(6 / 50)),
    ("relu", "auto", np.sqrt(6 / 50)),
    ("tanh", "auto", np.sqrt(6 / 80)),
    ("logistic", "glorot", np.sqrt(2 / 80)),
])
def test_initialisation_bounds(activation, init, bound):
    X = np.random.RandomState(0).normal(size=(10, 50))
    y = np.arange(10) % 2
    clf = MLPRegressor(hidden_layer_sizes=(30,), activation=activation, init=init,
                       max_iter=1, learning_rate_init=1e-12, random_state=0).fit(X, y)
    W = clf.coefs_[0]
    assert np.abs(W).max() <= bound
    assert np.abs(W).max() > 0.95 * bound  # the whole interval is used


@pytest.mark.parametrize("Estimator, y", [
    (MLPClassifier, np.arange(200) % 2),
    (MLPRegressor, np.linspace(0, 1, 200)),
])
def test_early_stopping_with_weights_binary_and_regression(Estimator, y):
    X = np.random.RandomState(0).normal(size=(200, 4)) + y[:, None]
    est = Estimator(hidden_layer_sizes=(8,), early_stopping=True,
                    learning_rate_init=0.02, max_iter=100, random_state=0)
    est.fit(X, y, sample_weight=np.full(200, 2.0))
    assert len(est.validation_scores_) == est.n_iter_
    assert est.best_validation_score_ > 0.3


# -- Issue 20: sparse CSR/CSC input, never densified


@given(pair=sparse_pairs(min_rows=8, max_rows=40),
       solver=st.sampled_from(["adam", "sgd", "lbfgs"]),
       weighted=st.booleans(), seed=st.integers(0, 100))
@settings(max_examples=15, deadline=None)
def test_sparse_fit_equals_dense_fit(pair, solver, weighted, seed):
    X, S = pair
    rng = np.random.RandomState(seed)
    score = X @ rng.normal(size=X.shape[1])
    y = (score > np.median(score)).astype(int)
    y[:2] = [0, 1]
    sw = rng.uniform(0.5, 2.0, len(y)) if weighted else None
    # float64 networks for either input dtype: the property is about the
    # format; with dtype="auto" a float32 X trains a float32 network, whose
    # sparse and dense products round apart and lbfgs amplifies that.
    params = dict(hidden_layer_sizes=(5,), solver=solver, max_iter=15, random_state=seed,
                  batch_size=7, dtype="float64")
    for cls, target in [(MLPClassifier, y), (MLPRegressor, np.c_[score, y])]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            dense = cls(**params).fit(X, target, sample_weight=sw)
            sparse = cls(**params).fit(S, target, sample_weight=sw)
        tol = 1e-3 if X.dtype == np.float32 else 1e-9
        for a, b in zip(dense.coefs_ + dense.intercepts_, sparse.coefs_ + sparse.intercepts_):
            assert_allclose(a, b, rtol=tol, atol=tol)
        assert_allclose(dense.loss_curve_, sparse.loss_curve_, rtol=tol, atol=tol)
        # predictions from either format of either matrix
        assert_allclose(sparse.predict(S.tocsc()), dense.predict(X), rtol=tol, atol=tol)


def test_sparse_input_is_never_densified(monkeypatch):
    import scipy.sparse as sp

    X = sp.random(300, 2000, density=0.01, format="csr", random_state=0)
    y = np.asarray(X.sum(axis=1)).ravel() > np.median(np.asarray(X.sum(axis=1)))
    calls = []
    for cls in (sp.csr_matrix, sp.csc_matrix):
        original = cls.toarray
        monkeypatch.setattr(cls, "toarray", lambda self, *a, _o=original, **k: (
            calls.append(self.shape), _o(self, *a, **k))[1])
    clf = MLPClassifier((4,), max_iter=3, random_state=0, early_stopping=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    clf.predict_proba(X.tocsc())
    assert calls == []


@parity_test(MLPClassifier, MLPRegressor)
def test_sparse_parity_with_sklearn_digits():
    import scipy.sparse as sp

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    S = sp.csr_matrix(X)
    ours = MLPClassifier((20,), max_iter=40, random_state=0).fit(S, y)
    theirs = sk.MLPClassifier((20,), max_iter=40, random_state=0).fit(S, y)
    # same initial network and the same data: accuracies agree
    assert abs(ours.score(S, y) - theirs.score(S, y)) < 0.03
    reg = MLPRegressor(hidden_layer_sizes=(20,), max_iter=40, random_state=0).fit(S, X[:, 20:22])
    ref = sk.MLPRegressor(hidden_layer_sizes=(20,), max_iter=40, random_state=0).fit(S, X[:, 20:22])
    assert abs(reg.score(S, X[:, 20:22]) - ref.score(S, X[:, 20:22])) < 0.05


# -- Issue 20: multilabel y for MLPClassifier, as scikit-learn


@parity_test(MLPClassifier)
@pytest.mark.parametrize("solver", ["lbfgs", "adam"])
def test_multilabel_as_scikit_learn(solver):
    import scipy.sparse as sp
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(300, n_classes=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = MLPClassifier((10,), solver=solver, max_iter=100, random_state=0).fit(X, Y)
        theirs = sk.MLPClassifier((10,), solver=solver, max_iter=100, random_state=0).fit(X, Y)
        sparse = MLPClassifier((10,), solver=solver, max_iter=100, random_state=0).fit(
            sp.csr_matrix(X), Y)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert ours.out_activation_ == theirs.out_activation_ == "logistic"
    P = ours.predict_proba(X)
    assert P.shape == (300, 3)
    # one logistic unit per label: probabilities need not sum to one
    assert_array_equal(ours.predict(X), (P > 0.5).astype(int))
    assert ours.predict(X).shape == theirs.predict(X).shape
    # same initial network, same loss: the same model up to the solver's path
    assert_allclose(P, theirs.predict_proba(X), atol=0.1 if solver == "adam" else 1e-3)
    assert abs(ours.score(X, Y) - theirs.score(X, Y)) <= 0.02
    assert_allclose(sparse.predict_proba(X), P, atol=1e-8)


def test_multilabel_early_stopping_and_refusals():
    from sklearn.datasets import make_multilabel_classification

    X, Y = make_multilabel_classification(120, n_classes=3, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = MLPClassifier((6,), max_iter=5, early_stopping=True, random_state=0).fit(X, Y)
    # subset accuracy on the held-out rows, in [0, 1]
    assert all(0.0 <= s <= 1.0 for s in clf.validation_scores_)
    with pytest.raises(ValueError, match="multiclass-multioutput"):
        MLPClassifier().fit(X, np.c_[Y[:, 0], 2 * Y[:, 1]])
    with pytest.raises(ValueError, match="label columns"):
        clf.partial_fit(X, Y[:, :2])


@pytest.mark.parametrize("Estimator", [MLPClassifier, MLPRegressor])
@pytest.mark.parametrize("solver", ["adam", "lbfgs"])
def test_default_dtype_follows_X_as_scikit_learn(Estimator, solver):
    X, y = _data.load("iris")
    kw = dict(hidden_layer_sizes=(5,), solver=solver, max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for X_dtype, net_dtype in ((np.float32, np.float32), (np.float64, np.float64),
                                   (np.int64, np.float64)):
            est = Estimator(**kw).fit(X.astype(X_dtype), y)
            assert all(c.dtype == net_dtype for c in est.coefs_ + est.intercepts_)
            pred = est.predict(X.astype(X_dtype))
            if Estimator is MLPRegressor:
                assert pred.dtype == net_dtype
        # a warm start or partial_fit keeps the network's dtype
        est = Estimator(warm_start=True, **kw).fit(X.astype(np.float32), y)
        est.fit(X, y)
        assert est.coefs_[0].dtype == np.float32
        if solver == "adam":
            est = Estimator(**kw)
            extra = {"classes": np.unique(y)} if Estimator is MLPClassifier else {}
            est.partial_fit(X.astype(np.float32), y, **extra).partial_fit(X, y)
            assert est.coefs_[0].dtype == np.float32
        # an explicit dtype wins over X's
        est = Estimator(dtype="float64", **kw).fit(X.astype(np.float32), y)
        assert est.coefs_[0].dtype == np.float64


def test_float32_auto_matches_explicit_float32():
    X, y = _data.load("iris")
    kw = dict(hidden_layer_sizes=(5,), max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = MLPClassifier(**kw).fit(X.astype(np.float32), y)
        b = MLPClassifier(dtype="float32", **kw).fit(X, y)
    for ca, cb in zip(a.coefs_, b.coefs_):
        assert_array_equal(ca, cb)


def test_early_stopping_split_too_small_named_as_scikit_learn():
    # two classes: the stratified split groups "is the positive class"
    with pytest.raises(ValueError, match=r"The least populated classes in y have only "
                                         r"1 member.*Classes with too few members "
                                         r"are: \['True'\]"):
        MLPClassifier(early_stopping=True).fit([[1, 2], [2, 3], [3, 4], [4, 5]],
                                               [0, 0, 0, 1])


def test_partial_fit_on_a_hand_set_network_takes_the_classes():
    # A network whose weights (and training state) were set by hand has no
    # classes_ yet: partial_fit takes them from `classes`, as scikit-learn
    # (test_fit), and steps from the hand-set weights exactly as a fitted
    # network given the same weights.
    rng = np.random.RandomState(0)
    X = rng.randn(20, 3)
    y = (X[:, 0] > 0).astype(int)
    params = dict(solver="sgd", momentum=0, learning_rate_init=0.1, hidden_layer_sizes=2,
                  activation="logistic", max_iter=1, random_state=1, batch_size=20)
    W = [np.array([[0.1, 0.2], [0.3, 0.1], [0.5, 0.0]]), np.array([[0.1], [0.2]])]
    b = [np.array([0.1, 0.1]), np.array([1.0])]
    hand = MLPClassifier(**params)
    hand.coefs_ = [w.copy() for w in W]
    hand.intercepts_ = [v.copy() for v in b]
    hand.n_features_in_, hand.n_layers_, hand.n_outputs_ = 3, 3, 1
    hand.out_activation_, hand.t_, hand.n_iter_ = "logistic", 0, 0
    hand.loss_curve_, hand.best_loss_, hand._no_improvement_count = [], np.inf, 0
    with pytest.raises(ValueError, match="classes must be passed"):
        hand.partial_fit(X, y)
    hand.partial_fit(X, y, classes=[1, 0])
    assert_array_equal(hand.classes_, [0, 1])
    assert set(hand.predict(X)) <= {0, 1}
    ref = MLPClassifier(**params).partial_fit(X, y, classes=[0, 1])
    ref.coefs_ = [w.copy() for w in W]
    ref.intercepts_ = [v.copy() for v in b]
    ref.partial_fit(X, y)
    for ours, theirs in zip(hand.coefs_ + hand.intercepts_, ref.coefs_ + ref.intercepts_):
        assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)
