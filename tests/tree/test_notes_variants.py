"""The notes' own tree variants (issue 18): ID3's empty branch, Li Hang's
C4.5 selection with its epsilon stop, CART's binary grouping of categories."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor, gain_ratio, information_gain

# Li Hang, *Statistical Learning Methods*, Table 5.1 (the loan applications;
# the notes' 003 "C4.5 generation algorithm" is his Algorithm 5.3): age
# (0 youth, 1 middle, 2 old), has a job, owns a house (0 no, 1 yes), credit
# (0 fair, 1 good, 2 excellent) -> loan granted.
LOAN_X = np.array([
    [0, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 1], [0, 1, 1, 0], [0, 0, 0, 0],
    [1, 0, 0, 0], [1, 0, 0, 1], [1, 1, 1, 1], [1, 0, 1, 2], [1, 0, 1, 2],
    [2, 0, 1, 2], [2, 0, 1, 1], [2, 1, 0, 1], [2, 1, 0, 2], [2, 0, 0, 0],
], dtype=float)
LOAN_Y = np.array(["no", "no", "yes", "yes", "no", "no", "no", "yes", "yes", "yes",
                   "yes", "yes", "yes", "yes", "no"])


# -- ID3's empty branch (notes A §2.5, notes B §8.4 step 6) ---------------------

def _empty_branch_data():
    # Feature 0 (3 categories at the root) splits first; under category 0,
    # feature 1 takes only the values 0 and 1 although 2 exists elsewhere.
    # Category 0's rows are mostly "b", but its largest child (feature 1 = 1)
    # is a pure "a" leaf: the two rules disagree on (0, 2).
    X = np.array([[0, 0]] * 3 + [[0, 1]] * 2 + [[1, 2]] * 3 + [[2, 2]] * 3
                 + [[0, 0]] * 2, dtype=float)
    y = np.array(["b"] * 3 + ["a"] * 2 + ["a"] * 3 + ["c"] * 3 + ["b"] * 2)
    return X, y


def test_empty_branch_takes_the_parent_plurality_not_the_largest_child():
    # Category 0 of feature 0: feature 1 = 0 (4 rows: 3 "a", 1 "b", not
    # split further, feature 1 being the last one and max_depth 2) and
    # feature 1 = 1 (3 rows, "b"). Node plurality: 4 "b" to 3 "a" -> "b";
    # largest child: feature 1 = 0, majority "a". Value 2 of feature 1 is
    # absent under category 0 (present under category 1).
    X = np.array([[0, 0]] * 4 + [[0, 1]] * 3 + [[1, 2]] * 3 + [[1, 0]] * 3, dtype=float)
    y = np.array(["a", "a", "a", "b"] + ["b"] * 3 + ["c"] * 3 + ["c"] * 3)
    kw = dict(categorical_features=[0, 1], random_state=0, max_depth=2)
    largest = DecisionTreeClassifier(**kw).fit(X, y)
    plural = DecisionTreeClassifier(unseen_category="plurality", **kw).fit(X, y)
    np.testing.assert_array_equal(largest.predict(X), plural.predict(X))
    assert largest.predict([[0, 2]])[0] == "a"  # the node's largest child
    assert plural.predict([[0, 2]])[0] == "b"  # the node's plurality (4 of 7)
    np.testing.assert_allclose(plural.predict_proba([[0, 2]])[0], [3 / 7, 4 / 7, 0])
    # Unseen at fit (code 5), and a missing value no node saw, too.
    assert plural.predict([[0, 5]])[0] == "b"
    assert plural.predict([[0, np.nan]])[0] == "b"
    # At the root, an unseen category of feature 0 gets the root's plurality.
    assert plural.predict([[9, 0]])[0] == "c"
    # The empty leaves hold no training sample.
    t = plural.tree_
    empty = (t.children_left == -1) & (t.n_node_samples == 0)
    assert empty.sum() == plural.get_n_leaves() - largest.get_n_leaves() > 0
    assert np.all(plural.apply(X) != np.flatnonzero(empty)[:, None])


def test_empty_branch_leaves_survive_pruning_and_export():
    from skml.tree import export_text
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 120), rng.integers(0, 3, 120)]).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 2, 120)) % 3
    clf = DecisionTreeClassifier(categorical_features=[0, 1], unseen_category="plurality",
                                 ccp_alpha=0.01, random_state=0).fit(X, y)
    assert "feature_0" in export_text(clf)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    clf.prune_on_validation(X[:60], y[:60])
    assert clf.predict(X).shape == (120,)


def test_default_unseen_rule_is_unchanged():
    X, y = _empty_branch_data()
    a = DecisionTreeClassifier(categorical_features=[0, 1], random_state=0).fit(X, y)
    b = DecisionTreeClassifier(categorical_features=[0, 1], random_state=0,
                               unseen_category="largest_child").fit(X, y)
    for name in ("children_left", "children_right", "feature", "category_children", "value"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))


# -- C4.5 in Li Hang's form (notes B §8.5 a) ------------------------------------

def test_loan_table_gains_and_gain_ratios_match_li_hang():
    # The book's numbers: g(D, A1..A4) = 0.083, 0.324, 0.420, 0.363.
    gains = [information_gain(LOAN_X[:, j], LOAN_Y) for j in range(4)]
    np.testing.assert_allclose(gains, [0.083, 0.324, 0.420, 0.363], atol=1e-3)
    ratios = [gain_ratio(LOAN_X[:, j], LOAN_Y) for j in range(4)]
    np.testing.assert_allclose(ratios, [0.0524, 0.3524, 0.4325, 0.2317], atol=1e-3)


@pytest.mark.parametrize("categorical", [None, [0, 1, 2, 3]])
def test_li_hang_c45_grows_the_books_tree_on_the_loan_table(categorical):
    clf = DecisionTreeClassifier(criterion="gain_ratio", gain_ratio_epsilon=0.0,
                                 categorical_features=categorical, random_state=0)
    clf.fit(LOAN_X, LOAN_Y)
    t = clf.tree_
    assert t.feature[0] == 2  # owns a house: gain ratio 0.433, the largest
    assert clf.get_n_leaves() == 3 and clf.score(LOAN_X, LOAN_Y) == 1.0
    assert set(t.feature[t.feature >= 0]) == {1, 2}  # then has a job


def test_li_hang_epsilon_stops_below_the_best_gain_ratio():
    kw = dict(criterion="gain_ratio", categorical_features=[0, 1, 2, 3], random_state=0)
    # The root's best ratio is 0.4325; under "no house" it is 1.0 (has a job).
    stump = DecisionTreeClassifier(gain_ratio_epsilon=0.44, **kw).fit(LOAN_X, LOAN_Y)
    assert stump.get_n_leaves() == 1
    assert np.all(stump.predict(LOAN_X) == "yes")  # the majority, 9 of 15
    full = DecisionTreeClassifier(gain_ratio_epsilon=0.43, **kw).fit(LOAN_X, LOAN_Y)
    assert full.get_n_leaves() == 3


def test_li_hang_and_quinlan_pick_different_features():
    # Feature 0 isolates four rows of class 0 (gain 0.237, split information
    # 0.722: ratio 0.328, the largest); feature 1 is balanced (gain = ratio =
    # 0.278); feature 2 is an ID (gain 1, ratio 1 / log2(20) = 0.231). The
    # mean gain is 0.505, so Quinlan's filter keeps the ID alone, while Li
    # Hang's rule takes feature 0.
    y = np.array([0] * 10 + [1] * 10)
    f0 = (np.arange(20) < 4).astype(float)
    f1 = np.isin(np.arange(20), [4, 5, *range(10, 18)]).astype(float)
    X = np.column_stack([f0, f1, np.arange(20.0)])
    gains = np.array([information_gain(X[:, j], y) for j in range(3)])
    ratios = np.array([gain_ratio(X[:, j], y) for j in range(3)])
    np.testing.assert_allclose(gains, [0.2365, 0.2781, 1.0], atol=1e-4)
    np.testing.assert_allclose(ratios, [0.3276, 0.2781, 0.2314], atol=1e-4)
    kw = dict(criterion="gain_ratio", max_depth=1, categorical_features=[0, 1, 2],
              random_state=0)
    quinlan = DecisionTreeClassifier(**kw).fit(X, y)
    li_hang = DecisionTreeClassifier(gain_ratio_epsilon=0.0, **kw).fit(X, y)
    assert li_hang.tree_.feature[0] == 0
    assert quinlan.tree_.feature[0] == 2


def test_gain_ratio_epsilon_needs_the_gain_ratio_criterion():
    with pytest.raises(ValueError, match="gain_ratio_epsilon"):
        DecisionTreeClassifier(gain_ratio_epsilon=0.1).fit(LOAN_X, LOAN_Y)
    with pytest.raises(ValueError, match="gain_ratio_epsilon"):
        DecisionTreeClassifier(criterion="gain_ratio", gain_ratio_epsilon=-1.0).fit(
            LOAN_X, LOAN_Y)


# -- CART's binary grouping of categories (notes B §8.7) ------------------------

def _brute_force_best(x, target, w, impurity):
    """Least weighted children impurity over all 2^(k-1) - 1 groupings of the
    codes present in ``x`` (NaN one more code)."""
    codes = np.where(np.isnan(x), -1, x)
    present = np.unique(codes)
    best = np.inf
    rest = present[1:]
    for r in range(len(rest) + 1):
        for subset in itertools.combinations(rest, r):
            left = np.isin(codes, (present[0],) + subset)
            if left.all():
                continue
            total = sum(w[s].sum() * impurity(target[s], w[s]) for s in (left, ~left))
            best = min(best, total / w.sum())
    return best


def _gini(y, w):
    p = np.bincount(y, weights=w, minlength=4) / w.sum()
    return 1.0 - np.sum(p ** 2)


def _entropy(y, w):
    p = np.bincount(y, weights=w, minlength=4) / w.sum()
    p = p[p > 0]
    return -np.sum(p * np.log2(p))


def _sq(y, w):
    return np.average((y - np.average(y, weights=w)) ** 2, weights=w)


def _poisson(y, w):
    mean = np.average(y, weights=w)
    if mean <= 0:
        return np.inf  # a zero-mean child is refused
    t = np.where(y > 0, y * np.log(np.where(y > 0, y, 1) / mean), 0.0) - (y - mean)
    return np.average(t, weights=w)


def _stump_children_impurity(est):
    t = est.tree_
    kids = t.children(0)
    return sum(t.weighted_n_node_samples[c] * t.impurity[c] for c in kids) / \
        t.weighted_n_node_samples[0]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 7), n_classes=st.integers(2, 4),
       criterion=st.sampled_from(["gini", "entropy"]), nan=st.booleans(),
       weighted=st.booleans())
def test_binary_grouping_classifier_matches_brute_force(seed, k, n_classes, criterion, nan,
                                                        weighted):
    rng = np.random.default_rng(seed)
    n = 40
    x = rng.integers(0, k, n).astype(float)
    if nan:
        x[rng.random(n) < 0.15] = np.nan
    y = rng.integers(0, n_classes, n)
    w = rng.uniform(0.5, 2.0, n) if weighted else np.ones(n)
    if np.unique(np.where(np.isnan(x), -1, x)).size < 2 or np.unique(y).size < 2:
        return
    stump = DecisionTreeClassifier(criterion=criterion, max_depth=1, categorical_features=[0],
                                   categorical_split="binary").fit(x[:, None], y,
                                                                   sample_weight=w)
    expected = _brute_force_best(x, y, w, _gini if criterion == "gini" else _entropy)
    assert stump.tree_.node_count == 3 and len(stump.tree_.children(0)) == 2
    assert _stump_children_impurity(stump) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 7),
       criterion=st.sampled_from(["squared_error", "poisson"]), nan=st.booleans())
def test_binary_grouping_regressor_matches_brute_force(seed, k, criterion, nan):
    rng = np.random.default_rng(seed)
    n = 40
    x = rng.integers(0, k, n).astype(float)
    if nan:
        x[rng.random(n) < 0.15] = np.nan
    mean = 2.0 + np.nan_to_num(x, nan=1.0) % 3
    y = rng.poisson(mean).astype(float) if criterion == "poisson" else rng.normal(mean, 1.0)
    w = rng.uniform(0.5, 2.0, n)
    if np.unique(np.where(np.isnan(x), -1, x)).size < 2:
        return
    expected = _brute_force_best(x, y, w, _sq if criterion == "squared_error" else _poisson)
    stump = DecisionTreeRegressor(criterion=criterion, max_depth=1, categorical_features=[0],
                                  categorical_split="binary").fit(x[:, None], y,
                                                                  sample_weight=w)
    if not np.isfinite(expected):
        assert stump.tree_.node_count == 1
        return
    assert _stump_children_impurity(stump) == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_binary_grouping_routes_every_category_and_unseen_ones():
    rng = np.random.default_rng(0)
    cat = rng.integers(0, 6, 300)
    X = np.column_stack([cat, rng.normal(size=300)]).astype(float)
    y = np.isin(cat, [1, 3, 4]).astype(int)
    clf = DecisionTreeClassifier(categorical_features=[0], categorical_split="binary",
                                 random_state=0).fit(X, y)
    # One split separates {1, 3, 4} from {0, 2, 5}: two pure leaves.
    assert clf.get_n_leaves() == 2 and clf.score(X, y) == 1.0
    assert all(len(clf.tree_.children(i)) == 2
               for i in range(clf.tree_.node_count) if clf.tree_.children_left[i] != -1)
    # An unseen category goes to the more populated child (or to an empty
    # leaf of the node's plurality with unseen_category="plurality").
    sizes = clf.tree_.n_node_samples
    assert sizes[clf.apply([[9.0, 0.0]])[0]] == sizes[1:].max()
    plural = DecisionTreeClassifier(categorical_features=[0], categorical_split="binary",
                                    unseen_category="plurality", random_state=0).fit(X, y)
    np.testing.assert_array_equal(plural.predict(X), y)
    assert plural.tree_.n_node_samples[plural.apply([[9.0, 0.0]])[0]] == 0
    # The multiway tree needs one leaf per category.
    multi = DecisionTreeClassifier(categorical_features=[0], random_state=0).fit(X, y)
    assert multi.get_n_leaves() == 6


def test_binary_grouping_beyond_the_exhaustive_cap_and_regression_depth():
    rng = np.random.default_rng(1)
    cat = rng.integers(0, 20, 600)
    X = cat[:, None].astype(float)
    y = cat % 3  # three classes, 20 categories: the heuristic order
    clf = DecisionTreeClassifier(categorical_features=[0], categorical_split="binary",
                                 random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert all(len(clf.tree_.children(i)) == 2
               for i in range(clf.tree_.node_count) if clf.tree_.children_left[i] != -1)
    reg = DecisionTreeRegressor(categorical_features=[0], categorical_split="binary",
                                random_state=0).fit(X, cat ** 2.0)
    assert reg.score(X, cat ** 2.0) == pytest.approx(1.0)


def test_binary_grouping_refuses_absolute_error():
    X = np.array([[0.0], [1.0], [2.0], [1.0]])
    with pytest.raises(ValueError, match="absolute_error"):
        DecisionTreeRegressor(criterion="absolute_error", categorical_features=[0],
                              categorical_split="binary").fit(X, [1.0, 2.0, 3.0, 2.0])
    with pytest.raises(ValueError, match="categorical_split"):
        DecisionTreeRegressor(categorical_split="pairs").fit(X, [1.0, 2.0, 3.0, 2.0])
