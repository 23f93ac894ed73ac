"""Ensemble behaviour that scikit-learn's users (and its tests) rely on.

Sequence access to the members, the ``estimator`` of a forest, the errors
and warnings in scikit-learn's words, the voting log lines, and
GradientBoosting's ``init`` as an estimator (issue 21).
"""

import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification, make_regression
from sklearn.dummy import DummyClassifier, DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline

from skml.ensemble import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor

X, y = make_classification(n_samples=60, n_features=5, random_state=0)
Xr, yr = make_regression(n_samples=60, n_features=5, random_state=0)


# -- members as a sequence ----------------------------------------------------
def _ids(member_or_row):
    return [id(m) for m in np.asarray(member_or_row, dtype=object).ravel()]


@pytest.mark.parametrize("ensemble", [
    RandomForestClassifier(n_estimators=4, random_state=0),
    BaggingClassifier(n_estimators=4, random_state=0),
    AdaBoostClassifier(n_estimators=4, random_state=0),
    GradientBoostingClassifier(n_estimators=4, random_state=0),
])
def test_len_getitem_iter_are_the_members(ensemble):
    assert bool(ensemble)  # not taken for false before fit
    with pytest.raises(AttributeError):
        len(ensemble)
    ensemble.fit(X, y)
    assert len(ensemble) == len(ensemble.estimators_) > 0
    # (GradientBoosting's members are rows of a 2-d object array: compare items.)
    assert _ids(ensemble[0]) == _ids(ensemble.estimators_[0])
    assert [_ids(m) for m in ensemble] == [_ids(m) for m in ensemble.estimators_]
    assert bool(ensemble)


@pytest.mark.parametrize("Forest, Tree", [(RandomForestClassifier, DecisionTreeClassifier),
                                          (RandomForestRegressor, DecisionTreeRegressor)])
def test_forest_estimator_is_the_unfitted_tree_kind(Forest, Tree):
    forest = Forest(n_estimators=2, max_depth=2)
    assert type(forest.estimator) is Tree
    assert forest.estimator.splitter == "best"
    assert "estimator" not in forest.get_params()  # not a parameter


# -- errors and warnings in scikit-learn's words ------------------------------
@pytest.mark.parametrize("Forest", [RandomForestClassifier, RandomForestRegressor])
def test_forest_bootstrap_messages(Forest):
    with pytest.raises(ValueError, match="Out of bag estimation only available if "
                                         "bootstrap=True"):
        Forest(oob_score=True, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match=re.escape(
            "`max_sample` cannot be set if `bootstrap=False`. Either switch to "
            "`bootstrap=True` or set `max_sample=None`.")):
        Forest(bootstrap=False, max_samples=0.5).fit(X, y)


def test_bagging_messages_and_warnings():
    with pytest.raises(ValueError, match="Out of bag estimation only available"):
        BaggingClassifier(oob_score=True, bootstrap=False).fit(X, y)
    with pytest.warns(UserWarning, match="When fitting BaggingClassifier with "
                                         "sample_weight it is recommended to use "
                                         "bootstrap=True"):
        BaggingClassifier(n_estimators=2, bootstrap=False, max_samples=0.5,
                          random_state=0).fit(X, y, sample_weight=np.ones(len(y)))
    bag = BaggingClassifier(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="Warm-start fitting without increasing "
                                         "n_estimators does not"):
        bag.fit(X, y)
    with pytest.warns(UserWarning, match=r"max_samples=1.0 when the total sum of "
                                         r"sample weights is 0.5 results in a low "
                                         r"number \(1\) of bootstrap samples"):
        BaggingClassifier(n_estimators=2, max_samples=1.0).fit(
            X, y, sample_weight=np.full(len(y), 0.5 / len(y)))
    w = np.ones(len(y))
    w[-1] = 2
    with pytest.raises(ValueError, match=re.escape(
            "Effective max_samples=61 must be <= n_samples=60 to be able to sample "
            "without replacement")):
        with pytest.warns(UserWarning, match="recommended to use bootstrap=True"):
            BaggingClassifier(bootstrap=False, max_samples=1.0).fit(X, y, sample_weight=w)
    with pytest.warns(UserWarning, match="Some inputs do not have OOB scores. This "
                                         "probably means too few estimators"):
        BaggingRegressor(n_estimators=1, oob_score=True, random_state=0).fit(Xr, yr)


def test_adaboost_messages():
    with pytest.raises(ValueError, match=re.escape("sample_weight.shape == (1,), "
                                                   "expected (60,)")):
        AdaBoostClassifier().fit(X, y, sample_weight=np.asarray([1.0]))
    w = np.ones(len(y))
    w[-1] = -1
    with pytest.raises(ValueError, match="Negative values in data passed to "
                                         "`sample_weight`"):
        AdaBoostClassifier().fit(X, y, sample_weight=w)

    class NoWeights(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            return self

    with pytest.raises(ValueError, match="NoWeights doesn't support sample_weight"):
        AdaBoostClassifier(NoWeights()).fit(X, y)
    # A first learner at chance level: a constant X cannot be separated.
    with pytest.raises(ValueError, match="worse than random"):
        AdaBoostClassifier(DecisionTreeClassifier(max_depth=1)).fit(
            np.ones((8, 2)), [0, 1, 2, 3] * 2)


def test_adaboost_passes_nd_X_to_a_member_that_takes_it():
    rng = np.random.RandomState(0)
    X3 = rng.randn(30, 3, 3)
    yc = np.array([0, 1, 1] * 10)  # a majority class: better than chance
    boost = AdaBoostClassifier(DummyClassifier(strategy="most_frequent")).fit(X3, yc)
    assert boost.predict(X3).shape == (30,)
    assert boost.predict_proba(X3).shape == (30, 2)
    with pytest.raises(ValueError):  # the default stump wants 2-d X
        AdaBoostClassifier().fit(X3, yc)


@pytest.mark.parametrize("Ensemble, data, member", [
    (VotingClassifier, (X, y), LogisticRegression()),
    (StackingClassifier, (X, y), LogisticRegression()),
    (VotingRegressor, (Xr, yr), LinearRegression()),
    (StackingRegressor, (Xr, yr), LinearRegression()),
])
def test_heterogeneous_name_checks(Ensemble, data, member):
    with pytest.raises(ValueError, match=re.escape(
            "Estimator names must not contain __: got ['lr__']")):
        Ensemble([("lr__", member)]).fit(*data)
    with pytest.raises(ValueError, match=re.escape(
            "Names provided are not unique: ['lr', 'lr']")):
        Ensemble([("lr", member), ("lr", member)]).fit(*data)
    with pytest.raises(ValueError, match="Estimator names conflict with constructor "
                                         "arguments"):
        Ensemble([("estimators", member)]).fit(*data)


@pytest.mark.parametrize("Ensemble, data, member, kind", [
    (VotingClassifier, (X, y), LinearRegression(), "classifier"),
    (VotingRegressor, (Xr, yr), LogisticRegression(), "regressor"),
    (StackingRegressor, (Xr, yr), LogisticRegression(), "regressor"),
])
def test_members_of_the_wrong_kind_are_refused(Ensemble, data, member, kind):
    with pytest.raises(ValueError, match=f"should be a {kind}"):
        Ensemble([("m", member)]).fit(*data)


def test_stacking_classifier_takes_a_regressor_member():
    # Regressors on ordinal labels are allowed, as in scikit-learn.
    StackingClassifier([("lin", LinearRegression())], cv=3).fit(X, y)


@pytest.mark.parametrize("Voting, data, members", [
    (VotingClassifier, (X, y), [("lr", LogisticRegression()),
                                ("rf", RandomForestClassifier(n_estimators=3))]),
    (VotingRegressor, (Xr, yr), [("lr", LinearRegression()),
                                 ("rf", RandomForestRegressor(n_estimators=3))]),
])
def test_voting_verbose_lines(Voting, data, members, capsys):
    Voting(members, verbose=True).fit(*data)
    out = capsys.readouterr().out
    assert re.match(r"\[Voting\] \.+ \(1 of 2\) Processing lr, total= +\d+\.\ds\n"
                    r"\[Voting\] \.+ \(2 of 2\) Processing rf, total= +\d+\.\ds\n$", out)
    assert all(len(line) == 70 for line in out.splitlines())
    Voting(members).fit(*data)
    assert capsys.readouterr().out == ""


def test_voting_soft_unflattened_has_no_feature_names():
    vote = VotingClassifier([("lr", LogisticRegression()),
                             ("tree", DecisionTreeClassifier(random_state=0))],
                            voting="soft", flatten_transform=False).fit(X, y)
    assert vote.transform(X).ndim == 3
    with pytest.raises(ValueError, match="get_feature_names_out is not supported when "
                                         "`voting='soft'` and `flatten_transform=False`"):
        vote.get_feature_names_out()


@pytest.mark.parametrize("Stacking, data, Member", [
    (StackingClassifier, (X, y), LogisticRegression),
    (StackingRegressor, (Xr, yr), LinearRegression),
])
def test_stacking_member_whose_fit_returns_none(Stacking, data, Member):
    class ReturnsNone(Member):
        def fit(self, X, y):
            super().fit(X, y)
            del self.n_features_in_

    stack = Stacking([("m", ReturnsNone())], cv=3)
    with pytest.raises(AttributeError, match=f"{Stacking.__name__} object has no "
                                             "attribute n_features_in_"):
        stack.n_features_in_
    stack.fit(*data)  # the fitted member is kept, not fit's None
    assert isinstance(stack.estimators_[0], ReturnsNone)
    assert stack.predict(data[0]).shape == (len(data[1]),)
    with pytest.raises(AttributeError, match="n_features_in_"):
        stack.n_features_in_


def test_bagging_regressor_multi_output():
    Y = np.column_stack([yr, -2 * yr, yr ** 2 / 100])
    bag = BaggingRegressor(n_estimators=20, oob_score=True, random_state=0).fit(Xr, Y)
    assert bag.predict(Xr).shape == (60, 3)
    assert bag.oob_prediction_.shape == (60, 3)
    single = [BaggingRegressor(n_estimators=20, random_state=0).fit(Xr, Y[:, k])
              for k in range(3)]
    # Each output's trees are grown on the same draws: outputs 0 and 1 are
    # the same target up to a scale, so the multi-output trees equal the
    # single-output ones there.
    np.testing.assert_allclose(bag.predict(Xr)[:, 0] * -2, bag.predict(Xr)[:, 1])
    assert 0.0 < bag.oob_score_ < 1.0
    assert single[0].predict(Xr).shape == (60,)
    with pytest.warns(Warning, match="column-vector y"):
        out = BaggingRegressor(n_estimators=2, random_state=0).fit(Xr, yr[:, None])
    assert out.predict(Xr).shape == (60,)


# -- GradientBoosting ---------------------------------------------------------
@pytest.mark.parametrize("loss, n_classes", [("log_loss", 2), ("log_loss", 3),
                                             ("exponential", 2)])
def test_gb_prior_init_estimator_is_the_default_start(loss, n_classes):
    Xc, yc = make_classification(n_samples=80, n_classes=n_classes, n_informative=4,
                                 random_state=0)
    plain = GradientBoostingClassifier(loss=loss, n_estimators=10, random_state=0)
    prior = GradientBoostingClassifier(loss=loss, n_estimators=10, random_state=0,
                                       init=DummyClassifier(strategy="prior"))
    np.testing.assert_allclose(prior.fit(Xc, yc).predict_proba(Xc),
                               plain.fit(Xc, yc).predict_proba(Xc), atol=1e-12)
    assert isinstance(prior.init_, DummyClassifier)


def test_gb_regressor_init_estimator():
    plain = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(Xr, yr)
    mean = GradientBoostingRegressor(n_estimators=10, random_state=0,
                                     init=DummyRegressor()).fit(Xr, yr)
    np.testing.assert_allclose(mean.predict(Xr), plain.predict(Xr), atol=1e-9)
    # A linear start on a linear target: the trees only fit what is left.
    lin = GradientBoostingRegressor(n_estimators=10, random_state=0,
                                    init=LinearRegression()).fit(Xr, yr)
    assert lin.score(Xr, yr) > plain.score(Xr, yr)
    staged = list(lin.staged_predict(Xr))
    np.testing.assert_allclose(staged[-1], lin.predict(Xr))
    np.testing.assert_allclose(staged[0] - lin.init_.predict(Xr),
                               0.1 * lin.estimators_[0, 0].predict(Xr), atol=1e-9)


def test_gb_init_estimator_and_sample_weight():
    w = np.random.RandomState(0).rand(60)
    GradientBoostingRegressor(n_estimators=3, init=DummyRegressor()).fit(Xr, yr, w)
    pipe = make_pipeline(LinearRegression())
    GradientBoostingRegressor(n_estimators=3, init=pipe).fit(Xr, yr)
    with pytest.raises(ValueError, match="The initial estimator Pipeline does not "
                                         "support sample weights"):
        GradientBoostingRegressor(n_estimators=3, init=pipe).fit(Xr, yr, w)


def test_gb_messages():
    with pytest.raises(ValueError, match=re.escape(
            "The 'init' parameter of GradientBoostingClassifier must be a str among "
            "{'zero'}, None or an object implementing 'fit' and 'predict_proba'.")):
        GradientBoostingClassifier(init=LinearRegression()).fit(X, y)
    X3, y3 = make_classification(n_samples=60, n_classes=3, n_informative=3,
                                 random_state=0)
    with pytest.raises(ValueError, match="loss='exponential' is only suitable for a "
                                         "binary classification"):
        GradientBoostingClassifier(loss="exponential").fit(X3, y3)
