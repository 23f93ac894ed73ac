"""Adversarial training, TRADES and the non-robust dataset (notes A §10.3, B §12.6-12.7)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import check_grad
from sklearn.exceptions import ConvergenceWarning

from skml.adversarial import (
    PGD,
    AdversarialTrainingClassifier,
    TRADESClassifier,
    make_nonrobust_dataset,
    robust_score,
)
from skml.adversarial._defences import (
    _kl_and_gradients,
    trades_binary_loss,
    trades_loss,
)
from skml.linear_model import LogisticRegression
from skml.neural_network import MLPClassifier
from skml.neural_network._losses import softmax_cross_entropy
from skml.tree import DecisionTreeClassifier

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def robust_plus_weak(n, seed, n_weak=30):
    """One large-margin feature and many weak, small-margin ones (A §10.3)."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, 2, n)
    s = 2 * y - 1
    robust = s[:, None] * 1.0 + 0.3 * rng.randn(n, 1)
    weak = s[:, None] * 0.2 + rng.randn(n, n_weak)
    return np.hstack([robust, weak]), y


@pytest.fixture(scope="module")
def task():
    X, y = robust_plus_weak(600, 0)
    Xt, yt = robust_plus_weak(600, 1)
    return X, y, Xt, yt


def _mlp():
    return MLPClassifier((32,), learning_rate_init=0.01, max_iter=60, random_state=0)


@pytest.mark.parametrize("make", [
    lambda: AdversarialTrainingClassifier(_mlp(), eps=0.3, random_state=0),
    lambda: AdversarialTrainingClassifier(_mlp(), attack="fgsm", eps=0.3),
    lambda: TRADESClassifier(_mlp(), beta=6.0, eps=0.3, random_state=0),
    lambda: AdversarialTrainingClassifier(LogisticRegression(), eps=0.3, random_state=0),
    # the binary form collapses to one class for beta >= 6 here (measured:
    # robust accuracy 0.95 at beta=1, a constant 0.52 at beta=6)
    lambda: TRADESClassifier(_mlp(), beta=1.0, surrogate="logistic", eps=0.3,
                             random_state=0),
    lambda: AdversarialTrainingClassifier(
        _mlp(), attack="ensemble", eps=0.3, random_state=0,
        static_models=[LogisticRegression(max_iter=1000).fit(*robust_plus_weak(600, 0))]),
])
def test_defences_raise_pgd_robust_accuracy_at_the_training_eps(task, make):
    X, y, Xt, yt = task
    defended = make()
    standard = clone_inner(defended).fit(X, y)
    defended.fit(X, y)
    attack = lambda est: PGD(est, eps=0.3, n_iter=20, random_state=0)  # noqa: E731
    before = robust_score(standard, Xt, yt, attack(standard))
    after = robust_score(defended, Xt, yt, attack(defended))
    # measured: MLP 0.58 -> 0.97-0.99, LogisticRegression 0.88 -> 0.99
    assert after >= before + 0.08
    assert defended.score(Xt, yt) >= 0.95


def clone_inner(defence):
    from sklearn.base import clone
    return clone(defence.estimator)


def test_no_attack_is_standard_training(task):
    # ratio=0 and beta=0 train exactly the estimator's own network
    X, y, _, _ = task
    base = _mlp().fit(X, y)
    at = AdversarialTrainingClassifier(_mlp(), ratio=0.0).fit(X, y)
    tr = TRADESClassifier(_mlp(), beta=0.0).fit(X, y)
    for clf in (at, tr):
        for W, W0 in zip(clf.estimator_.coefs_, base.coefs_):
            np.testing.assert_allclose(W, W0, rtol=1e-12, atol=1e-14)
        assert clf.estimator_.n_iter_ == base.n_iter_
    np.testing.assert_array_equal(at.predict(X), base.predict(X))


def test_logistic_regression_becomes_a_network_without_hidden_layer(task):
    X, y, Xt, yt = task
    clf = AdversarialTrainingClassifier(LogisticRegression(C=10.0), ratio=0.0).fit(X, y)
    assert len(clf.estimator_.coefs_) == 1 and clf.estimator_.alpha == pytest.approx(0.1)
    lr = LogisticRegression(C=10.0, max_iter=1000).fit(X, y)
    assert np.mean(clf.predict(Xt) == lr.predict(Xt)) > 0.97


@pytest.mark.parametrize("k", [1, 4])
def test_kl_gradients(k):
    rng = np.random.RandomState(k)
    Z1, Z2 = rng.randn(3, k), rng.randn(3, k)

    def f1(z):
        return _kl_and_gradients(z.reshape(3, k), Z2)[0].sum()

    def g1(z):
        return _kl_and_gradients(z.reshape(3, k), Z2)[1].ravel()

    def f2(z):
        return _kl_and_gradients(Z1, z.reshape(3, k))[0].sum()

    def g2(z):
        return _kl_and_gradients(Z1, z.reshape(3, k))[2].ravel()

    assert check_grad(f1, g1, Z1.ravel()) < 1e-6
    assert check_grad(f2, g2, Z2.ravel()) < 1e-6
    kl = _kl_and_gradients(Z1, Z2)[0]
    assert np.all(kl >= 0) and np.allclose(_kl_and_gradients(Z1, Z1)[0], 0)


def test_trades_objective_at_least_the_natural_loss():
    rng = np.random.RandomState(0)
    Z = rng.randn(8, 3)
    Y = np.eye(3)[rng.randint(0, 3, 4)]
    natural, _ = softmax_cross_entropy(Z[:4], Y)
    value, dZ = trades_loss(softmax_cross_entropy, 2.0)(Z, np.vstack([Y, Y]))
    assert value >= natural
    # the gradient of the stacked objective, checked numerically
    def f(z):
        return trades_loss(softmax_cross_entropy, 2.0)(z.reshape(8, 3), np.vstack([Y, Y]))[0]

    def g(z):
        return trades_loss(softmax_cross_entropy, 2.0)(z.reshape(8, 3), np.vstack([Y, Y]))[1].ravel()
    assert check_grad(f, g, Z.ravel()) < 1e-6


def test_attacks_accept_a_fitted_defence(task):
    X, y, Xt, yt = task
    clf = AdversarialTrainingClassifier(_mlp(), attack="fgsm", eps=0.1).fit(X, y)
    a = PGD(clf, eps=0.1, random_state=0).generate(Xt[:20], yt[:20])
    b = PGD(clf.estimator_, eps=0.1, random_state=0).generate(Xt[:20], yt[:20])
    np.testing.assert_array_equal(a, b)


def test_defence_bad_input(task):
    X, y, _, _ = task
    with pytest.raises(TypeError, match="DecisionTreeClassifier"):
        AdversarialTrainingClassifier(DecisionTreeClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="lbfgs"):
        TRADESClassifier(MLPClassifier(solver="lbfgs")).fit(X, y)
    with pytest.raises(ValueError, match="eps"):
        AdversarialTrainingClassifier(_mlp(), eps=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="clip"):
        AdversarialTrainingClassifier(_mlp(), clip=(0.0, 1.0)).fit(X, y)
    with pytest.raises(ValueError, match="static_models"):
        AdversarialTrainingClassifier(_mlp(), attack="ensemble").fit(X, y)
    tree = DecisionTreeClassifier().fit(X, y)
    with pytest.raises(TypeError, match="DecisionTreeClassifier has no analytic"):
        AdversarialTrainingClassifier(_mlp(), attack="ensemble",
                                      static_models=[tree]).fit(X, y)


def test_best_response_cycling_toy():
    # B §12.6 limitation: on a symmetric 1-D problem (x = +-1, labels +-1,
    # hinge-free linear loss -y w x, |w| <= 1) with eps > 1, the attacker's
    # best response to w moves every x across zero (delta = -y eps sign(w)),
    # and the defender's best response to those points flips w's sign.
    x, y, eps = np.array([-1.0, 1.0]), np.array([-1.0, 1.0]), 1.5
    w, signs = 1.0, []
    for _ in range(4):
        delta = -y * eps * np.sign(w)          # argmax_delta of -y w (x + delta)
        w = np.sign(np.sum(y * (x + delta)))  # argmin_{|w|<=1} of -y w (x + delta)
        signs.append(w)
    assert signs == [-1.0, 1.0, -1.0, 1.0]


def test_nonrobust_dataset(task):
    X, y, Xt, yt = task
    clf = LogisticRegression(max_iter=1000).fit(X, y)
    X_new, y_new = make_nonrobust_dataset(clf, X, y, 0.2, random_state=0)
    assert np.all(y_new != y) and np.abs(X_new - X).max() <= 0.2 + 1e-12
    # "random" targets are uniform over the classes (the labels say nothing of y)
    X_new, y_new = make_nonrobust_dataset(clf, X, y, 1.0, target="random", random_state=7)
    assert abs(np.mean(y_new == y) - 0.5) < 0.1
    assert np.abs(X_new - X).max() <= 1.0 + 1e-12
    # the targeted attack reaches its targets where the budget allows
    assert np.mean(clf.predict(X_new) == y_new) > 0.9
    with pytest.raises(ValueError, match="target"):
        make_nonrobust_dataset(clf, X, y, 0.2, target="all")


@pytest.mark.parametrize("surrogate", ["logistic", "hinge", "exponential"])
def test_binary_trades_loss_gradient(surrogate):
    rng = np.random.RandomState(0)
    Z = rng.randn(10, 1)
    Y = np.vstack([rng.randint(0, 2, (5, 1))] * 2).astype(float)
    loss = trades_binary_loss(surrogate, 1.5)

    def f(z):
        return loss(z.reshape(10, 1), Y)[0]

    def g(z):
        return loss(z.reshape(10, 1), Y)[1].ravel()
    assert check_grad(f, g, Z.ravel() + 0.05) < 1e-5  # off the hinge's kink


def test_binary_trades_with_beta_zero_is_logistic_training(task):
    X, y, _, _ = task
    base = _mlp().fit(X, y)
    tr = TRADESClassifier(_mlp(), beta=0.0, surrogate="logistic").fit(X, y)
    for W, W0 in zip(tr.estimator_.coefs_, base.coefs_):
        np.testing.assert_allclose(W, W0, rtol=1e-7, atol=1e-10)
    with pytest.raises(ValueError, match="two classes"):
        TRADESClassifier(_mlp(), surrogate="hinge").fit(X, y % 2 + (X[:, 1] > 1))


def test_defences_refuse_data_their_fixed_steps_cannot_fit():
    # Absolute step sizes, eps and sigma cannot follow X * 1e300, X * 1e-300
    # or X + 1e8: a clear error instead of a model at chance (issue 23).
    from sklearn.datasets import load_iris

    from skml.adversarial import AdversarialTrainingClassifier, SmoothedClassifier
    from skml.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    defence = AdversarialTrainingClassifier(LogisticRegression(), eps=0.1)
    for bad, match in [(X * 1e300, "magnitude"), (X * 1e-300, "magnitude"),
                       (X + 1e8, "far from the origin")]:
        with pytest.raises(ValueError, match=match):
            defence.fit(bad, y)
    with pytest.raises(ValueError, match="absolute noise scale sigma"):
        SmoothedClassifier(LogisticRegression(), sigma=0.25).fit(X * 1e-300, y)
