"""One class in y: a constant model, as scikit-learn (issue 19).

Trees, forests, bagging and AdaBoost fit when y holds one label, or when
every other label has zero sample weight (then ``classes_`` keeps those
labels and their probability is 0); gradient boosting refuses both with a
ValueError naming the classes, as scikit-learn does.
"""

import numpy as np
import pytest
from sklearn import ensemble as sken
from sklearn import tree as sktree

from skml.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from skml.tree import DecisionTreeClassifier

PAIRS = [
    (DecisionTreeClassifier(random_state=0), sktree.DecisionTreeClassifier(random_state=0)),
    (AdaBoostClassifier(n_estimators=5, random_state=0),
     sken.AdaBoostClassifier(n_estimators=5, random_state=0)),
    (BaggingClassifier(n_estimators=5, random_state=0),
     sken.BaggingClassifier(n_estimators=5, random_state=0)),
    (RandomForestClassifier(n_estimators=5, random_state=0),
     sken.RandomForestClassifier(n_estimators=5, random_state=0)),
]
IDS = [type(ours).__name__ for ours, _ in PAIRS]

rng = np.random.RandomState(0)
X = rng.normal(size=(20, 3))
X_TEST = rng.normal(size=(7, 3))


def _same_outputs(ours, ref):
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_array_equal(ours.predict(X_TEST), ref.predict(X_TEST))
    proba = ours.predict_proba(X_TEST)
    assert proba.shape == ref.predict_proba(X_TEST).shape
    np.testing.assert_allclose(proba, ref.predict_proba(X_TEST))
    if hasattr(ref, "decision_function"):
        np.testing.assert_allclose(ours.decision_function(X_TEST),
                                   ref.decision_function(X_TEST))


@pytest.mark.parametrize("ours, ref", PAIRS, ids=IDS)
@pytest.mark.parametrize("label", [3, "spam"])
def test_one_label_fits_a_constant_model(ours, ref, label):
    y = np.full(20, label)
    ours.fit(X, y)
    _same_outputs(ours, ref.fit(X, y))
    assert ours.classes_.shape == (1,)
    np.testing.assert_array_equal(ours.predict_proba(X_TEST), np.ones((7, 1)))
    np.testing.assert_array_equal(ours.predict(X_TEST), np.full(7, label))
    proba = ours.predict_log_proba(X_TEST)
    np.testing.assert_array_equal(proba, np.zeros((7, 1)))


@pytest.mark.parametrize("ours, ref", PAIRS, ids=IDS)
def test_other_labels_of_zero_weight(ours, ref):
    # The labels keep their place in classes_, with probability 0 (or, for
    # AdaBoost, the softmax of a single perfect vote), as scikit-learn.
    y = np.array(["a", "b", "c", "d"] * 5)
    w = (y == "b").astype(float)
    ours.fit(X, y, sample_weight=w)
    _same_outputs(ours, ref.fit(X, y, sample_weight=w))
    np.testing.assert_array_equal(ours.predict(X_TEST), np.full(7, "b"))


def test_adaboost_staged_outputs_with_one_label():
    # scikit-learn's staged methods divide by K - 1 = 0 here; ours stay constant.
    clf = AdaBoostClassifier(n_estimators=3).fit(X, np.zeros(20))
    for d, p in zip(clf.staged_decision_function(X_TEST), clf.staged_predict_proba(X_TEST)):
        np.testing.assert_array_equal(d, np.zeros((7, 1)))
        np.testing.assert_array_equal(p, np.ones((7, 1)))
    assert [list(s) for s in clf.staged_predict(X_TEST)] == [[0.0] * 7]


def test_forest_and_bagging_oob_with_one_label():
    y = np.full(20, 7)
    forest = RandomForestClassifier(n_estimators=40, oob_score=True, random_state=0)
    assert forest.fit(X, y).oob_score_ == 1.0
    bag = BaggingClassifier(n_estimators=40, oob_score=True, random_state=0)
    assert bag.fit(X, y).oob_score_ == 1.0


@pytest.mark.parametrize("weighted", [False, True])
def test_gradient_boosting_refuses_one_class_as_scikit_learn(weighted):
    # scikit-learn: "y contains 1 class after sample_weight trimmed classes
    # with zero weights, while a minimum of 2 classes are required."
    y = np.array([0, 1] * 10) if weighted else np.zeros(20)
    w = (y == 1).astype(float) if weighted else None
    with pytest.raises(ValueError, match="class"):
        sken.GradientBoostingClassifier(n_estimators=2).fit(X, y, sample_weight=w)
    # scikit-learn's words when weights trimmed a class, skml's otherwise.
    msg = (r"1 class after sample_weight trimmed classes with zero weights" if weighted
           else r"at least 2 classes.*only 1 class")
    with pytest.raises(ValueError, match=msg):
        GradientBoostingClassifier(n_estimators=2).fit(X, y, sample_weight=w)
