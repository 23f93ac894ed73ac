"""FGSM, BIM, PGD and multi-targeted PGD: the facts of notes A §10.1-10.2, B §12.2-12.5."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_blobs
from sklearn.preprocessing import StandardScaler

from skml.adversarial import (
    BIM,
    FGSM,
    PGD,
    MultiTargetedPGD,
    exact_linear_robust_error,
    robust_score,
)
from skml.linear_model import LogisticRegression
from skml.neural_network import MLPClassifier
from skml.svm import SVC, LinearSVC
from skml.tree import DecisionTreeClassifier


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return X, y, LogisticRegression(max_iter=1000).fit(X, y)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[:900], y[:900], X[900:1200], y[900:1200]


@pytest.fixture(scope="module")
def blobs_mlp():
    X, y = make_blobs(300, 4, centers=4, cluster_std=2.0, random_state=0)
    X = X / 5
    mlp = MLPClassifier((16,), learning_rate_init=0.01, max_iter=300, random_state=0)
    return X, y, mlp.fit(X, y)


def test_fgsm_lands_on_a_cube_vertex(cancer):
    X, y, clf = cancer
    X_adv = FGSM(clf, eps=0.1).generate(X, y)
    delta = X_adv - X
    assert np.all(np.abs(delta) <= 0.1 + 1e-12)
    # every coordinate with a non-zero gradient (all of them: w has no zero) moves by eps
    assert np.allclose(np.abs(delta), 0.1)


def test_fgsm_margin_drop_is_eps_l1_norm(cancer):
    X, y, clf = cancer
    w, b = clf.coef_[0], clf.intercept_[0]
    s = np.where(y == 1, 1.0, -1.0)
    for loss in ("margin", "ce"):
        X_adv = FGSM(clf, eps=0.07, loss=loss).generate(X, y)
        drop = s * (X @ w + b) - s * (X_adv @ w + b)
        assert np.allclose(drop, 0.07 * np.abs(w).sum())


@pytest.mark.parametrize("eps", [0.05, 0.1, 0.2])
def test_fgsm_and_pgd_reach_the_oracle_on_binary_lr(cancer, eps):
    X, y, clf = cancer
    oracle = 1 - exact_linear_robust_error(clf.coef_, clf.intercept_, X, y, eps)
    assert robust_score(clf, X, y, FGSM(clf, eps=eps)) == pytest.approx(oracle)
    pgd = PGD(clf, eps=eps, n_iter=10, step_size=eps / 4, random_state=0)  # 10 steps >= 2 eps
    assert robust_score(clf, X, y, pgd) == pytest.approx(oracle)


def test_robust_accuracy_is_non_increasing_in_eps(cancer):
    X, y, clf = cancer
    scores = [robust_score(clf, X, y, FGSM(clf, eps=e)) for e in np.linspace(0, 0.5, 8)]
    assert np.all(np.diff(scores) <= 0) and scores[0] == clf.score(X, y)


@pytest.mark.parametrize("norm", [np.inf, 2])
def test_pgd_one_step_is_fgsm(blobs_mlp, norm):
    X, y, mlp = blobs_mlp
    fgsm = FGSM(mlp, eps=0.3, norm=norm).generate(X, y)
    pgd = PGD(mlp, eps=0.3, step_size=0.3, n_iter=1, norm=norm, random_start=False)
    assert np.allclose(pgd.generate(X, y), fgsm)


@pytest.mark.parametrize("norm", [np.inf, 2])
def test_pgd_iterates_stay_in_ball_and_box(digits, norm):
    X, y, Xt, yt = digits
    clf = LogisticRegression(max_iter=300).fit(X, y)
    eps = 0.1 if norm == np.inf else 1.0
    for n_iter in range(1, 6):  # iterate t of a run = the end of the t-step run
        attack = PGD(clf, eps=eps, step_size=eps / 2, n_iter=n_iter, norm=norm,
                     clip=(0.0, 1.0), random_state=0, early_stop=False)
        X_adv = attack.generate(Xt[:50], yt[:50])
        assert X_adv.min() >= 0 and X_adv.max() <= 1
        size = (np.abs(X_adv - Xt[:50]).max(1) if norm == np.inf
                else np.linalg.norm(X_adv - Xt[:50], axis=1))
        assert np.all(size <= eps * (1 + 1e-12))


def test_bim_without_projection_moves_n_iter_steps(cancer):
    X, y, clf = cancer
    # on a linear model the gradient sign is constant: the move is exactly T * step
    X_adv = BIM(clf, step_size=0.02, n_iter=5, early_stop=False).generate(X, y)
    assert np.allclose(np.abs(X_adv - X), 0.1)
    # with eps it is PGD without a random start
    bim = BIM(clf, eps=0.05, step_size=0.02, n_iter=5).generate(X, y)
    pgd = PGD(clf, eps=0.05, step_size=0.02, n_iter=5, random_start=False).generate(X, y)
    assert np.allclose(bim, pgd) and np.abs(bim - X).max() <= 0.05 + 1e-12


@pytest.mark.parametrize("model", [LogisticRegression(max_iter=500), LinearSVC(C=0.1)])
@pytest.mark.parametrize("eps", [0.05, 0.1, 0.2])
def test_multitargeted_pgd_reaches_the_multiclass_oracle(digits, model, eps):
    X, y, Xt, yt = digits
    clf = model.fit(X, y)
    oracle = 1 - exact_linear_robust_error(clf.coef_, clf.intercept_, Xt, yt, eps,
                                           clip=(0.0, 1.0))
    attack = MultiTargetedPGD(clf, eps=eps, n_iter=10, clip=(0.0, 1.0))
    assert robust_score(clf, Xt, yt, attack) == pytest.approx(oracle)


def test_multitargeted_returns_a_successful_run(blobs_mlp):
    X, y, mlp = blobs_mlp
    eps = 0.25
    mt = MultiTargetedPGD(mlp, eps=eps, n_iter=10).generate(X, y)
    assert np.abs(mt - X).max() <= eps + 1e-12
    # success is the OR over targets: every targeted PGD that succeeds is caught
    fooled_by_some = np.zeros(len(X), bool)
    for t in range(4):
        rows = y != t
        adv = PGD(mlp, eps=eps, n_iter=10, targeted=True, random_start=False).generate(
            X[rows], y[rows], np.full(rows.sum(), t))
        fooled_by_some[np.flatnonzero(rows)] |= mlp.predict(adv) != y[rows]
    fooled = mlp.predict(mt) != y
    assert np.all(fooled[fooled_by_some])
    untargeted = PGD(mlp, eps=eps, n_iter=10, random_state=0).generate(X, y)
    assert fooled.mean() >= (mlp.predict(untargeted) != y).mean() - 0.02


def test_targeted_pgd_reaches_targets(blobs_mlp):
    X, y, mlp = blobs_mlp
    target = (y + 1) % 4
    adv = PGD(mlp, eps=1.0, n_iter=20, targeted=True, random_state=0).generate(X, y, target)
    before = (mlp.predict(X) == target).mean()
    after = (mlp.predict(adv) == target).mean()
    assert after > before + 0.3


def test_kernel_svc_multitargeted_beats_untargeted_ce(digits):
    X, y, Xt, yt = digits
    svc = SVC(C=10).fit(X[:300], y[:300])
    Xt, yt = Xt[:40], yt[:40]
    mt = robust_score(svc, Xt, yt, MultiTargetedPGD(svc, eps=0.1, clip=(0.0, 1.0)))
    ce = robust_score(svc, Xt, yt, PGD(svc, eps=0.1, loss="ce", clip=(0.0, 1.0),
                                       random_state=0))
    assert mt <= ce and mt < svc.score(Xt, yt)


def test_attack_bad_input(cancer):
    X, y, clf = cancer
    with pytest.raises(ValueError, match="eps"):
        FGSM(clf, eps=-0.1).generate(X, y)
    with pytest.raises(ValueError, match="y must have shape"):
        PGD(clf).generate(X, y[:-1])
    with pytest.raises(ValueError, match="y_target equals"):
        PGD(clf, targeted=True).generate(X, y, y)
    with pytest.raises(ValueError, match="y_target"):
        PGD(clf, targeted=True).generate(X, y)
    with pytest.raises(ValueError, match="clip"):
        PGD(clf, clip=(0.0, 1.0)).generate(X, y)
    tree = DecisionTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(TypeError, match="DecisionTreeClassifier has no analytic"):
        FGSM(tree, eps=0.1).generate(X, y)
    with pytest.raises(ValueError, match="labels not in"):
        FGSM(clf).generate(X, y + 5)


def test_svc_pair_gradients_match_the_full_ovo_gradient(digits):
    from skml.adversarial._attacks import _Scores
    from skml.inspection import input_gradient

    X, y, Xt, yt = digits
    svc = SVC(C=10).fit(X[:300], y[:300])
    scores = _Scores(svc)
    assert scores._pair_views() is not None
    rng = np.random.RandomState(0)
    yi, ti = rng.randint(0, 10, 30), rng.randint(0, 10, 30)
    ti = np.where(ti == yi, (ti + 1) % 10, ti)
    G = input_gradient(scores.ovo, Xt[:30], output="decision")  # every pair
    p = scores.pair_index[yi, ti]
    expected = np.where((yi < ti)[:, None], 1.0, -1.0) * G[np.arange(30), :, p]
    np.testing.assert_allclose(scores.margin_gradient(Xt[:30], yi, ti), expected,
                               rtol=1e-10, atol=1e-12)
