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
    # as scikit-learn: the dropped member stays in named_estimators_ as "drop"
    assert list(vote.named_estimators_) == ["lr", "tree"]
    assert vote.named_estimators_["lr"] == "drop" and len(vote.estimators_) == 1


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


# -- Issue 20: sparse X through to the members; scikit-learn's target refusals


class _NoSparse(DecisionTreeClassifier):
    """A member that records the type of X it is given."""

    def fit(self, X, y, sample_weight=None):
        self.seen_ = type(X)
        return super().fit(X.toarray() if hasattr(X, "toarray") else X, y, sample_weight)

    def predict(self, X):
        return super().predict(X.toarray() if hasattr(X, "toarray") else X)


@parity_test(VotingClassifier, VotingRegressor)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sparse_X_reaches_the_members_as_scikit_learn(fmt):
    import scipy.sparse as sp
    from sklearn.linear_model import Ridge as SkRidge
    from sklearn.utils import get_tags

    X, y = datasets.load_iris(return_X_y=True)
    X = X * (X > np.median(X, axis=0))
    Xs = sp.csr_matrix(X).asformat(fmt)
    members = [("lr", LogisticRegression(max_iter=300)),
               ("sk", SkLogistic(C=0.1, max_iter=500))]
    for voting in ["hard", "soft"]:
        ours = VotingClassifier(members, voting=voting).fit(Xs, y)
        ref = sken.VotingClassifier(members, voting=voting).fit(Xs, y)
        dense = VotingClassifier(members, voting=voting).fit(X, y)
        np.testing.assert_array_equal(ours.predict(Xs), ref.predict(Xs))
        np.testing.assert_allclose(ours.transform(Xs), dense.transform(X), atol=1e-6)
    assert get_tags(ours).input_tags.sparse
    # The meta-estimator never densifies: a member sees the sparse matrix.
    spy = VotingClassifier([("spy", _NoSparse(max_depth=2))]).fit(Xs, y)
    assert spy.estimators_[0].seen_ is type(Xs)
    # A member refusing sparse X makes the ensemble say so, as scikit-learn.
    assert not get_tags(VotingClassifier(
        [("lr", LogisticRegression()), ("nb", GaussianNB())])).input_tags.sparse

    Xr, yr = datasets.load_diabetes(return_X_y=True)
    Xr = Xr * (Xr > 0)
    Xrs = sp.csr_matrix(Xr).asformat(fmt)
    members = [("ridge", Ridge()), ("sk", SkRidge(alpha=2.0))]
    ours = VotingRegressor(members, weights=[1, 3]).fit(Xrs, yr)
    ref = sken.VotingRegressor(members, weights=[1, 3]).fit(Xrs, yr)
    np.testing.assert_allclose(ours.predict(Xrs), ref.predict(Xrs), rtol=1e-4)
    np.testing.assert_allclose(ours.predict(Xrs), VotingRegressor(
        members, weights=[1, 3]).fit(Xr, yr).predict(Xr), rtol=1e-4)


def test_multi_output_targets_refused_as_scikit_learn():
    rng = np.random.RandomState(0)
    X, Y = rng.rand(40, 3), rng.rand(40, 2)
    with pytest.raises(ValueError, match="1d array"):
        sken.VotingRegressor([("r", Ridge())]).fit(X, Y)
    with pytest.raises(ValueError, match="1d array"):
        VotingRegressor([("r", Ridge())]).fit(X, Y)
    Ym = (Y > 0.5).astype(int)
    for cls in (sken.VotingClassifier, VotingClassifier):
        with pytest.raises(NotImplementedError, match="Multilabel and multi-output"):
            cls([("lr", LogisticRegression())]).fit(X, Ym)
        with pytest.raises(ValueError, match="Unknown label type: continuous"):
            cls([("lr", LogisticRegression())]).fit(X, Y[:, 0])


# -- Issue 18: the notes' absolute majority with a reject option (B §9.7)


class _Constant(DecisionTreeClassifier):
    """A member voting a fixed class for every row."""

    def __init__(self, label=0):
        self.label = label

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.label)


def test_absolute_majority_rejects_without_more_than_half():
    X = np.zeros((4, 1))
    y = np.array([0, 1, 2, 0])
    # 2 of 4 votes is not more than half: rejected; 3 of 4 is accepted.
    split = [("a", _Constant(0)), ("b", _Constant(0)), ("c", _Constant(1)),
             ("d", _Constant(2))]
    vote = VotingClassifier(split, voting="majority").fit(X, y)
    assert vote.predict(X).tolist() == [-1] * 4
    # plurality (scikit-learn's hard voting) answers 0 on the same votes
    assert VotingClassifier(split, voting="hard").fit(X, y).predict(X).tolist() == [0] * 4
    three = split[:2] + [("c", _Constant(0)), ("d", _Constant(2))]
    assert VotingClassifier(three, voting="majority").fit(X, y).predict(X).tolist() == [0] * 4
    # weights count: 0 gets 2 of 2 + 1 + 0.5 = 3.5 > 1.75
    weighted = VotingClassifier(split, voting="majority", weights=[1, 1, 1, 0.5])
    assert weighted.fit(X, y).predict(X).tolist() == [0] * 4
    tied = VotingClassifier(split, voting="majority", weights=[1, 1, 1.5, 0.5])
    assert tied.fit(X, y).predict(X).tolist() == [-1] * 4


def test_absolute_majority_on_iris_agrees_with_plurality_when_it_answers():
    X, y = datasets.load_iris(return_X_y=True)
    members = _members()[:3]
    plural = VotingClassifier(members, voting="hard").fit(X, y)
    majority = VotingClassifier(members, voting="majority", reject_label="none")
    pred = majority.fit(X, y).predict(X)
    # Three members: rejected exactly where all three disagree.
    votes = plural.transform(X)
    all_differ = (votes[:, 0] != votes[:, 1]) & (votes[:, 1] != votes[:, 2]) & (
        votes[:, 0] != votes[:, 2])
    np.testing.assert_array_equal(pred == "none", all_differ)
    np.testing.assert_array_equal(pred[~all_differ].astype(int), plural.predict(X)[~all_differ])
    assert pred.dtype == object
    assert not hasattr(majority, "predict_proba")


def test_reject_label_must_not_be_a_class():
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="reject_label"):
        VotingClassifier(_members()[:2], voting="majority", reject_label=1).fit(X, y)
    with pytest.raises(ValueError, match="voting"):
        VotingClassifier(_members()[:2], voting="absolute").fit(X, y)
