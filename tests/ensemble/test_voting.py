"""VotingClassifier / VotingRegressor: the notes' fusion rules, parity on the same members."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import ensemble as sken
from sklearn.linear_model import LogisticRegression as SkLogistic
from sklearn.model_selection import train_test_split

from skml.ensemble import VotingClassifier, VotingRegressor
from skml.linear_model import LogisticRegression, Ridge
from skml.naive_bayes import GaussianNB
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests._parity import parity_test


def _members():
    return [
        ("lr", LogisticRegression(max_iter=200)),
        ("tree", DecisionTreeClassifier(max_depth=2, random_state=0)),
        ("nb", GaussianNB()),
        ("sk", SkLogistic(C=0.01, max_iter=500)),  # a non-skml member
    ]


@parity_test(VotingClassifier)
@pytest.mark.parametrize("voting", ["hard", "soft"])
@pytest.mark.parametrize("weights", [None, [1, 2, 1, 0.5]])
def test_same_decisions_as_sklearn(voting, weights):
    X, y = datasets.load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    ours = VotingClassifier(_members(), voting=voting, weights=weights).fit(X, labels)
    ref = sken.VotingClassifier(_members(), voting=voting, weights=weights).fit(X, labels)
    assert np.array_equal(ours.predict(X), ref.predict(X))
    assert np.allclose(ours.transform(X), ref.transform(X))
    if voting == "soft":
        assert np.allclose(ours.predict_proba(X), ref.predict_proba(X))
        # Soft voting is the argmax of the weighted mean probability (notes B §9.7).
        probas = np.array([m.predict_proba(X) for m in ours.estimators_])
        mean = np.average(probas, axis=0, weights=weights)
        assert np.array_equal(ours.predict(X), ours.classes_[mean.argmax(axis=1)])
    else:
        assert not hasattr(ours, "predict_proba")


def test_hard_vote_ties_go_to_first_class():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])

    class Const(DecisionTreeClassifier):
        def __init__(self, value=0, **kw):
            super().__init__(**kw)
            self.value = value

        def predict(self, X):
            return np.full(len(X), self.value)

    vote = VotingClassifier([("a", Const(value=1)), ("b", Const(value=0))]).fit(X, y)
    assert np.all(vote.predict(X) == 0)


def test_drop_and_get_set_params():
    vote = VotingClassifier(_members()[:2])
    params = vote.get_params()
    assert params["lr"] is vote.estimators[0][1]
    assert params["tree__max_depth"] == 2
    vote.set_params(tree__max_depth=3, lr="drop")
    assert vote.estimators[1][1].max_depth == 3 and vote.estimators[0][1] == "drop"
    X, y = datasets.load_iris(return_X_y=True)
    vote.fit(X, y)
    assert list(vote.named_estimators_) == ["tree"]


def test_weights_length_checked():
    with pytest.raises(ValueError, match="weights"):
        VotingClassifier(_members()[:2], weights=[1]).fit(np.eye(4), [0, 1, 0, 1])


@parity_test(VotingRegressor)
def test_regressor_parity():
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, random_state=0)
    members = [("ridge", Ridge(alpha=0.1)), ("tree", DecisionTreeRegressor(max_depth=3))]
    ours = VotingRegressor(members, weights=[2, 1]).fit(Xtr, ytr)
    ref = sken.VotingRegressor(members, weights=[2, 1]).fit(Xtr, ytr)
    assert np.allclose(ours.predict(Xte), ref.predict(Xte))
    assert np.allclose(ours.transform(Xte), ref.transform(Xte))


def test_named_estimators_and_label_encoder_as_scikit_learn():
    import numpy as np

    from skml.ensemble import VotingClassifier
    from skml.linear_model import LogisticRegression
    from skml.tree import DecisionTreeClassifier

    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.where(X[:, 0] > 0, "yes", "no")
    members = [("lr", LogisticRegression()), ("tree", DecisionTreeClassifier())]
    vote = VotingClassifier(members)
    assert list(vote.named_estimators) == ["lr", "tree"]  # before fit too
    vote.fit(X, y)
    np.testing.assert_array_equal(vote.le_.classes_, vote.classes_)
    np.testing.assert_array_equal(vote.le_.inverse_transform([0, 1]), ["no", "yes"])
