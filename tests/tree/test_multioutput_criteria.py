"""Multi-output targets with criterion="absolute_error" and "poisson" (issue 20):
the impurity of a node is the mean over the outputs of each output's mean absolute
deviation from its weighted median, or half Poisson deviance, as scikit-learn's."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import ensemble as sk_ensemble
from sklearn import tree as sk_tree
from sklearn.datasets import load_iris, load_linnerud

from skml.ensemble import RandomForestRegressor
from skml.tree import DecisionTreeRegressor

CRITERIA = ["absolute_error", "poisson"]


# That k identical outputs grow the single-output tree bit for bit, for these two
# criteria as for the others, is checked by the property test of test_multioutput.py.


@pytest.mark.parametrize("criterion", CRITERIA)
@pytest.mark.parametrize("k", [3, 5])
def test_k_copies_predict_as_single_output(criterion, k):
    X, _ = load_iris(return_X_y=True)
    y = X[:, 0] * 2.0 - X[:, 3]
    Xs = sp.csr_matrix(np.where(X > 3.0, X, 0.0))
    for data in (X, Xs):
        reg = DecisionTreeRegressor(criterion=criterion, max_depth=4, random_state=0)
        single = reg.fit(data, y).predict(data)
        multi = reg.fit(data, np.tile(y[:, None], k)).predict(data)
        assert multi.shape == (150, k)
        np.testing.assert_allclose(multi, np.tile(single[:, None], k), rtol=1e-12)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_parity_with_scikit_learn_on_linnerud(criterion):
    X, Y = load_linnerud(return_X_y=True)
    for kw in (dict(), dict(max_depth=3), dict(min_samples_leaf=3),
               dict(max_leaf_nodes=5)):
        ours = DecisionTreeRegressor(criterion=criterion, random_state=0, **kw).fit(X, Y)
        ref = sk_tree.DecisionTreeRegressor(criterion=criterion, random_state=0,
                                            **kw).fit(X, Y)
        assert ours.tree_.node_count == ref.tree_.node_count
        # The fit's objective, the leaves' summed weighted mean impurity, is
        # the same (measured equal to round-off; 1e-9 relative).
        objective = []
        for t in (ours.tree_, ref.tree_):
            leaf = t.children_left == -1
            objective.append(np.sum(t.weighted_n_node_samples[leaf] * t.impurity[leaf]))
        np.testing.assert_allclose(*objective, rtol=1e-9, atol=1e-12)
        # The same splits and leaf values (1e-9 relative for round-off), but
        # where equally good splits (same objective) partition the rows
        # differently: the feature orders differ. Measured on linnerud: one
        # such tie, absolute_error at max_depth=3 (objective 92.33 both, three
        # rows predicted up to 2.0 apart).
        if not (criterion == "absolute_error" and kw == dict(max_depth=3)):
            np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-9)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_forest_parity_with_scikit_learn_on_linnerud(criterion):
    # Bootstraps differ (each library draws its own): compare the fit, the
    # training R^2 of 100 trees. Measured: absolute_error 0.86 (skml) and
    # 0.87 (scikit-learn), poisson 0.89 and 0.89; 0.05 apart at most.
    X, Y = load_linnerud(return_X_y=True)
    ours = RandomForestRegressor(n_estimators=100, criterion=criterion,
                                 random_state=0).fit(X, Y)
    ref = sk_ensemble.RandomForestRegressor(n_estimators=100, criterion=criterion,
                                            random_state=0).fit(X, Y)
    assert ours.predict(X).shape == (20, 3)
    assert abs(ours.score(X, Y) - ref.score(X, Y)) < 0.05
    # Without bootstrap and with every feature, each tree is the full tree.
    full = RandomForestRegressor(n_estimators=3, criterion=criterion, bootstrap=False,
                                 random_state=0).fit(X, Y)
    tree = DecisionTreeRegressor(criterion=criterion, random_state=0).fit(X, Y)
    np.testing.assert_allclose(full.predict(X), tree.predict(X), rtol=1e-12)


def test_poisson_refuses_children_of_zero_mean_in_any_output():
    # The second output is 0 for x < 10: no leaf may hold only those rows
    # (their deviance is infinite), while the first output alone would split there.
    x = np.arange(20.0)[:, None]
    Y = np.c_[np.where(x[:, 0] < 5, 1.0, 8.0), np.where(x[:, 0] < 10, 0.0, 3.0)]
    single = DecisionTreeRegressor(criterion="poisson").fit(x, Y[:, 0])
    assert single.predict([[0.0]])[0] == 1.0
    tree = DecisionTreeRegressor(criterion="poisson").fit(x, Y)
    ref = sk_tree.DecisionTreeRegressor(criterion="poisson").fit(x, Y)
    leaves = tree.tree_.children_left == -1
    assert np.all(tree.tree_.value[leaves] > 0.0)
    np.testing.assert_allclose(tree.predict(x), ref.predict(x), rtol=1e-12)


def test_missing_and_sparse_values():
    rng = np.random.default_rng(1)
    X = rng.random((120, 5)) * (rng.random((120, 5)) < 0.4)
    Y = np.c_[X[:, 0] * 3.0, X[:, 1] + 2 * X[:, 2]]
    for criterion in CRITERIA:
        dense = DecisionTreeRegressor(criterion=criterion, max_depth=4,
                                      random_state=0).fit(X, Y)
        sparse = DecisionTreeRegressor(criterion=criterion, max_depth=4,
                                       random_state=0).fit(sp.csr_matrix(X), Y)
        np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X),
                                   rtol=1e-12)
        Xm = X.copy()
        Xm[rng.random(X.shape) < 0.1] = np.nan
        ours = DecisionTreeRegressor(criterion=criterion, max_depth=4,
                                     random_state=0).fit(Xm, Y)
        ref = sk_tree.DecisionTreeRegressor(criterion=criterion, max_depth=4,
                                            random_state=0).fit(Xm, Y)
        # Missing values routed as scikit-learn's (measured equal; 1e-9
        # relative for round-off).
        np.testing.assert_allclose(ours.predict(Xm), ref.predict(Xm), rtol=1e-9)


def test_tags_and_poisson_target_checks():
    X, Y = load_linnerud(return_X_y=True)
    for criterion in CRITERIA:
        for est in (DecisionTreeRegressor(criterion=criterion),
                    RandomForestRegressor(criterion=criterion)):
            assert est.__sklearn_tags__().target_tags.multi_output
    Yn = Y.copy()
    Yn[0, 1] = -1.0
    with pytest.raises(ValueError, match="negative"):
        DecisionTreeRegressor(criterion="poisson").fit(X, Yn)
    with pytest.raises(ValueError, match="Sum of y is not"):
        RandomForestRegressor(criterion="poisson", n_estimators=2).fit(X, 0 * Y)


def test_random_thresholds_keep_the_monotonic_bounds():
    # A constrained feature with the random splitter: the node's value bounds,
    # not the feature's range, decide which splits are kept. The random draw
    # overwrote the bounds with the feature's smallest and largest value, so
    # that y = 100 x on x in [0, 1] refused every split (one leaf, R^2 0 on
    # seed 0). scikit-learn's mean R^2 over these 20 seeds: 0.72 (its range
    # 0.08-0.99: one random threshold per node, and a child's split must keep
    # its values on its side of the parent's middle value).
    rng = np.random.default_rng(0)
    x = rng.random((300, 1))
    y = 100.0 * x[:, 0]
    scores = []
    for seed in range(20):
        tree = DecisionTreeRegressor(splitter="random", monotonic_cst=[1], max_depth=6,
                                     random_state=seed).fit(x, y)
        scores.append(tree.score(x, y))
        pred = tree.predict(np.linspace(0, 1, 200)[:, None])
        assert np.all(np.diff(pred) >= 0)
    assert np.mean(scores) > 0.5
