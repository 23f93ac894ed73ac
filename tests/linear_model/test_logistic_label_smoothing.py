"""LogisticRegression(label_smoothing=eps): notes B §7.6 (D1 §12.2), A §14.

The targets are ``t = (1 - eps) onehot(y) + eps / K`` (``K = 2`` for the
binary model), in the loss, its gradient and every solver.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import log_softmax
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skml.attention import label_smoothing as smooth_targets
from skml.linear_model import LogisticRegression
from skml.linear_model._logistic_loss import LogisticLoss
from skml.neural_network import MLPClassifier
from skml.optim import check_gradient

from .. import _data

SOLVERS = ["lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga",
           "newton", "gd", "sgd"]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1, user_api="blas"):
        yield


def _informative_problem(n_classes, seed=0, n_samples=120, n_features=4):
    """Labels from a softmax model: smoothing changes its fit visibly."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_samples, n_features))
    B = 2.0 * rng.normal(size=(n_features, n_classes))
    y = np.argmax(X @ B + rng.gumbel(size=(n_samples, n_classes)), axis=1)
    return X, y, rng.uniform(0.2, 2.0, size=n_samples)


def _weights(clf, liblinear=False):
    """The flat parameter vector of a fitted model, rows ``[W_k b_k]``."""
    if liblinear:  # the intercept is the weight of a constant feature 1
        return np.concatenate([clf.coef_[0], clf.intercept_])
    return np.hstack([clf.coef_, clf.intercept_[:, None]]).ravel()


def _smoothed_gradient(clf, X, y, sw, eps, C, liblinear=False):
    n_classes = len(clf.classes_)
    l2 = 0.0 if np.isinf(C) else 1.0 / (C * sw.sum())
    if liblinear:
        X = np.hstack([X, np.ones((len(X), 1))])
    loss = LogisticLoss(X, y, n_classes, sw, l2, not liblinear, label_smoothing=eps)
    return loss.loss_gradient(_weights(clf, liblinear))[1]


# --- the loss ---------------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.6])
def test_loss_is_cross_entropy_against_smoothed_targets(n_classes, eps):
    # The objective, computed directly from the soft targets of
    # skml.attention.label_smoothing (the softmax form also for two classes:
    # the binary model is its w = w_1 - w_0 reparametrisation).
    X, y, sw = _data.random_labels(n_classes, 1, n_features=4)
    rng = np.random.RandomState(2)
    loss = LogisticLoss(X, y, n_classes, sw, 0.0, True, label_smoothing=eps)
    w = rng.normal(size=loss.n_params)
    coef, intercept = loss.unpack(w)
    T = smooth_targets(y, eps, n_classes)
    if loss.binary:
        Z = np.column_stack([np.zeros(len(y)), X @ coef[0] + intercept[0]])
    else:
        Z = X @ coef.T + intercept
    expected = -np.sum(sw * np.sum(T * log_softmax(Z, axis=1), axis=1)) / sw.sum()
    assert loss.loss(w) == pytest.approx(expected, rel=1e-12)
    assert loss.loss_gradient(w)[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_smoothed_gradient_matches_finite_differences(n_classes, sparse):
    X, y, sw = _data.random_labels(n_classes, 3, n_features=4)
    if sparse:
        X[np.abs(X) < 0.5] = 0.0
        X = sp.csr_matrix(X)
    loss = LogisticLoss(X, y, n_classes, sw, 0.3, True, label_smoothing=0.25)
    w = np.random.RandomState(4).normal(size=loss.n_params)
    err = check_gradient(loss.loss, lambda v: loss.loss_gradient(v)[1], w)
    assert err < 1e-7
    # The mini-batch estimate over a partition averages to the full gradient.
    batches = np.array_split(np.random.RandomState(5).permutation(len(y)), 4)
    mean = np.mean([loss.loss_gradient(w, rows=b)[1] for b in batches], axis=0)
    np.testing.assert_allclose(mean, loss.loss_gradient(w)[1], rtol=1e-10, atol=1e-14)


# --- every solver fits the smoothed objective --------------------------------------


def test_zero_smoothing_is_the_default_fit():
    X, y, sw = _data.random_labels(3, 6, n_features=4)
    for solver in ["lbfgs", "newton-cholesky", "saga"]:
        kw = dict(solver=solver, random_state=0, max_iter=30)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            a = LogisticRegression(**kw).fit(X, y, sample_weight=sw)
            b = LogisticRegression(label_smoothing=0.0, **kw)
            b.fit(X, y, sample_weight=sw)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        np.testing.assert_array_equal(a.intercept_, b.intercept_)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_every_solver_reaches_the_smoothed_optimum(solver, n_classes, sparse):
    # KKT: the gradient of the smoothed objective vanishes at the fit.
    if solver == "liblinear" and n_classes > 2:
        pytest.skip("liblinear is binary only")
    X, y, sw = _informative_problem(n_classes, seed=7)
    eps, C = 0.2, 1.0
    clf = LogisticRegression(
        C=C, solver=solver, label_smoothing=eps, tol=1e-9, max_iter=3000,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # gd's slow tail
        clf.fit(sp.csr_matrix(X) if sparse else X, y, sample_weight=sw)
    liblinear = solver == "liblinear"
    if solver == "sgd":
        # sgd stops on the loss with a decaying step, short of tol=1e-9: it
        # must be near the smoothed optimum, far from the plain one
        # (measured: 0.02-0.04 against 0.13-0.19 in probability).
        reference = LogisticRegression(C=C, solver="newton-cholesky", tol=1e-12)
        smoothed = reference.set_params(label_smoothing=eps).fit(X, y, sample_weight=sw)
        proba = smoothed.predict_proba(X)
        plain = reference.set_params(label_smoothing=0.0).fit(X, y, sample_weight=sw)
        gap = np.abs(plain.predict_proba(X) - proba).max()
        assert np.abs(clf.predict_proba(X) - proba).max() < gap / 2
        return
    g = _smoothed_gradient(clf, X, y, sw, eps, C, liblinear=liblinear)
    # measured max|g|: <= 1e-5 for gd (its slow tail), <= 4e-9 for the others
    bound = 1e-4 if solver == "gd" else 1e-6
    assert np.abs(g).max() < bound
    # The plain (eps = 0) objective is not at its optimum there.
    g0 = _smoothed_gradient(clf, X, y, sw, 0.0, C, liblinear=liblinear)
    assert np.abs(g0).max() > 100 * bound


@given(
    seed=st.integers(0, 10_000),
    n_classes=st.integers(2, 4),
    eps=st.floats(0.0, 0.95),
    C=st.sampled_from([0.1, 1.0, 100.0, np.inf]),
    solver=st.sampled_from(["newton-cholesky", "lbfgs"]),
)
def test_kkt_at_the_fit_for_all_inputs(seed, n_classes, eps, C, solver):
    X, y, sw = _data.random_labels(n_classes, seed, n_samples=30, n_features=3)
    if np.isinf(C) and eps == 0.0:
        C = 1.0  # separable draws have no finite unpenalised optimum
    clf = LogisticRegression(C=C, solver=solver, label_smoothing=eps,
                             tol=1e-10, max_iter=500)
    with warnings.catch_warnings():
        # lbfgs may stop at rounding level just above tol=1e-10.
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y, sample_weight=sw)
    g = _smoothed_gradient(clf, X, y, sw, eps, C)
    assert np.abs(g).max() < 1e-6
    # The intercept's equation: the weighted mean predicted probability of
    # each class is the weighted mean smoothed target.
    T = smooth_targets(y, eps, n_classes)
    np.testing.assert_allclose(
        np.average(clf.predict_proba(X), weights=sw, axis=0),
        np.average(T, weights=sw, axis=0), atol=1e-5,
    )


@pytest.mark.parametrize("solver", ["newton-cholesky", "lbfgs", "sag"])
def test_integer_weights_are_repeated_samples(solver):
    X, y, _ = _data.random_labels(3, 8, n_samples=50, n_features=4)
    counts = np.random.RandomState(9).randint(0, 4, size=len(y))
    counts[:3] = 1  # keep every class
    kw = dict(solver=solver, label_smoothing=0.3, tol=1e-10, max_iter=5000,
              random_state=0)
    weighted = LogisticRegression(**kw).fit(X, y, sample_weight=counts)
    repeated = LogisticRegression(**kw).fit(
        np.repeat(X, counts, axis=0), np.repeat(y, counts))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X),
                               atol=1e-6)


# --- separable data ---------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_separable_data_gives_finite_weights_shrinking_with_eps(n_classes):
    # Without a penalty the plain loss has no minimiser on separable data;
    # the smoothed targets lie inside (0, 1), so the loss grows with any
    # score and the optimum is finite, smaller for larger eps.
    rng = np.random.RandomState(10)
    if n_classes > 2:
        centres = 4.0 * np.eye(n_classes, 2)
    else:
        centres = np.array([[3.0, 0.0], [-3.0, 0.0]])
    y = np.repeat(np.arange(n_classes), 20)
    X = centres[y] + rng.uniform(-1, 1, size=(len(y), 2))
    norms = []
    for eps in [0.01, 0.05, 0.1, 0.2, 0.4]:
        clf = LogisticRegression(C=np.inf, label_smoothing=eps,
                                 solver="newton-cholesky", tol=1e-10, max_iter=200)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            clf.fit(X, y)
        assert np.all(np.isfinite(clf.coef_))
        g = _smoothed_gradient(clf, X, y, np.ones(len(y)), eps, np.inf)
        assert np.abs(g).max() < 1e-8
        norms.append(np.linalg.norm(clf.coef_))
        assert clf.score(X, y) == 1.0
    assert np.all(np.diff(norms) < 0), norms


# --- an MLP with no hidden layer is the same model ----------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
def test_equals_mlp_without_hidden_layer(n_classes):
    # MLPClassifier(hidden_layer_sizes=()) is a logistic / softmax regression
    # with penalty alpha/(2 S) ||W||^2: alpha = 1/C gives the same objective.
    X, y, sw = _data.random_labels(n_classes, 11, n_samples=150, n_features=4)
    eps, C = 0.2, 1.0
    lr = LogisticRegression(C=C, label_smoothing=eps, solver="newton-cholesky",
                            tol=1e-10).fit(X, y, sample_weight=sw)
    mlp = MLPClassifier(hidden_layer_sizes=(), alpha=1.0 / C, solver="lbfgs",
                        label_smoothing=eps, tol=1e-12, max_iter=5000,
                        random_state=0).fit(X, y, sample_weight=sw)
    # measured differences ~5e-5 (the MLP's lbfgs stopping point)
    np.testing.assert_allclose(mlp.predict_proba(X), lr.predict_proba(X), atol=5e-4)
    np.testing.assert_allclose(mlp.coefs_[0].T, lr.coef_, atol=5e-3)
    # The plain model differs by more than that.
    plain = LogisticRegression(C=C, solver="newton-cholesky")
    plain.fit(X, y, sample_weight=sw)
    assert np.abs(plain.predict_proba(X) - lr.predict_proba(X)).max() > 5e-3


@pytest.mark.parametrize("eps", [-0.1, 1.0, 1.5])
def test_invalid_label_smoothing_names_the_parameter(eps):
    X, y, _ = _data.random_labels(2, n_features=4)
    with pytest.raises(ValueError, match="label_smoothing"):
        LogisticRegression(label_smoothing=eps).fit(X, y)
