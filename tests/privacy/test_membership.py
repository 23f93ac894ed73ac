"""Membership inference (notes B §13.6)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.preprocessing import StandardScaler

from skml.neighbors import KNeighborsClassifier
from skml.privacy import (
    DPSGDClassifier,
    LossThresholdMembershipInference,
    MembershipInferenceAttack,
    attack_advantage,
    attack_auc,
)
from skml.tree import DecisionTreeClassifier


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(4000, 10, n_informative=5, flip_y=0.2, random_state=0)
    X = StandardScaler().fit_transform(X)
    # target: trained on the first 1000 ("in"), next 1000 held out ("out");
    # the last 2000 rows are the attacker's public data.
    member = np.r_[np.ones(1000, bool), np.zeros(1000, bool)]
    return X[:2000], y[:2000], member, X[2000:], y[2000:]


def test_auc_and_advantage_match_roc_curve():
    rng = np.random.default_rng(0)
    m = rng.random(300) < 0.4
    s = np.round(rng.normal(size=300) + m, 1)  # with ties
    assert attack_auc(m, s) == pytest.approx(roc_auc_score(m, s))
    fpr, tpr, _ = roc_curve(m, s)
    assert attack_advantage(m, s) == pytest.approx(np.max(tpr - fpr))


def test_attacks_beat_chance_on_overfit_1nn(data):
    Xt, yt, member, Xp, yp = data
    target = KNeighborsClassifier(n_neighbors=1).fit(Xt[:1000], yt[:1000])
    shadow = MembershipInferenceAttack(KNeighborsClassifier(n_neighbors=1),
                                       n_shadow_models=3, random_state=0).fit(Xp, yp)
    res = shadow.evaluate(target, Xt, yt, member)
    assert res["accuracy"] > 0.6
    loss = LossThresholdMembershipInference(
        shadow_estimator=KNeighborsClassifier(n_neighbors=1), random_state=0).fit(Xp, yp)
    assert loss.evaluate(target, Xt, yt, member)["accuracy"] > 0.6


def test_shadow_attack_on_overfit_tree(data):
    Xt, yt, member, Xp, yp = data
    target = DecisionTreeClassifier(random_state=0).fit(Xt[:1000], yt[:1000])
    attack = MembershipInferenceAttack(DecisionTreeClassifier(random_state=0),
                                       n_shadow_models=2, random_state=0).fit(Xp, yp)
    assert attack.score(target, Xt, yt, member) > 0.6
    for idx_in, idx_out in attack.shadow_splits_:
        assert len(np.intersect1d(idx_in, idx_out)) == 0
    # two shadows, 2000 public rows: the shares of the shadows are disjoint too
    (a_in, a_out), (b_in, b_out) = attack.shadow_splits_
    assert len(np.intersect1d(np.r_[a_in, a_out], np.r_[b_in, b_out])) == 0


def test_no_advantage_against_a_strongly_private_target(data):
    Xt, yt, member, Xp, yp = data
    target = DPSGDClassifier(target_epsilon=0.5, epochs=5, lot_size=100,
                             random_state=0).fit(Xt[:1000], yt[:1000])
    attack = LossThresholdMembershipInference()
    res = attack.evaluate(target, Xt, yt, member)
    # Under no leakage the AUC is 0.5 +- 0.013 (se, 1000 + 1000) and the
    # advantage (a KS statistic) below 0.061 with 95% probability.
    assert abs(res["auc"] - 0.5) < 0.05
    assert res["advantage"] < 0.08


def test_bad_input(data):
    Xt, yt, member, Xp, yp = data
    with pytest.raises(ValueError, match="n_shadow_models"):
        MembershipInferenceAttack(DecisionTreeClassifier(), n_shadow_models=0).fit(Xp, yp)
    with pytest.raises(ValueError, match="lengths"):
        LossThresholdMembershipInference().predict(None, Xt, yt[:10])
    with pytest.raises(ValueError, match="not fitted"):
        MembershipInferenceAttack(DecisionTreeClassifier()).predict(None, Xt, yt)
    with pytest.raises(ValueError, match="both members"):
        attack_auc(np.ones(5, bool), np.arange(5.0))


def test_attacks_on_an_overfit_regressor():
    from sklearn.datasets import make_regression

    from skml.neighbors import KNeighborsRegressor

    X, y = make_regression(3000, 5, noise=30.0, random_state=0)
    y = y / y.std()
    member = np.r_[np.ones(500, bool), np.zeros(500, bool)]
    target = KNeighborsRegressor(n_neighbors=1).fit(X[:500], y[:500])
    loss = LossThresholdMembershipInference()
    assert loss.score(target, X[:1000], y[:1000], member) > 0.6
    shadow = MembershipInferenceAttack(KNeighborsRegressor(n_neighbors=1),
                                       n_shadow_models=2, random_state=0)
    shadow.fit(X[1000:], y[1000:])
    assert shadow.attack_models_.keys() == {None}  # no per-class models
    assert shadow.score(target, X[:1000], y[:1000], member) > 0.6


def test_loss_threshold_fit_without_shadow_uses_the_median_rule(data):
    Xt, yt, member, Xp, yp = data
    from skml.linear_model import LogisticRegression

    target = LogisticRegression().fit(Xt[:1000], yt[:1000])  # continuous losses
    attack = LossThresholdMembershipInference().fit(Xp, yp)
    assert attack.threshold_ is None
    called = attack.predict(target, Xt, yt)
    assert called.mean() == pytest.approx(0.5, abs=0.001)  # the median splits them
    assert LossThresholdMembershipInference(threshold=0.5).fit(Xp, yp).threshold_ == 0.5
