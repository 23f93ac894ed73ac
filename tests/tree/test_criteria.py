"""The split criteria as functions, on the notes' literal stock table (notes A §2.5-2.6)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.tree import (
    DecisionTreeClassifier,
    entropy,
    gain_ratio,
    gini_impurity,
    information_gain,
    weighted_gini,
)

# The seed's table, row for row (S0 §2 "Practical Algorithms 2").
STOCK = [
    ("Positive", "Low", "High", "Up"), ("Negative", "High", "Low", "Down"),
    ("Positive", "Low", "High", "Up"), ("Positive", "High", "High", "Up"),
    ("Negative", "Low", "High", "Down"), ("Positive", "Low", "Low", "Down"),
    ("Negative", "High", "High", "Down"), ("Negative", "Low", "High", "Down"),
    ("Positive", "Low", "Low", "Down"), ("Positive", "High", "High", "Up"),
]
TABLE = np.array(STOCK, dtype=object)
X, Y = TABLE[:, :3], TABLE[:, 3]


def test_root_impurities_and_attribute_scores_of_the_notes():
    assert gini_impurity(Y) == pytest.approx(0.48, abs=1e-12)
    assert entropy(Y) == pytest.approx(0.9710, abs=1e-4)
    ginis = [weighted_gini(X[:, j], Y) for j in range(3)]
    gains = [information_gain(X[:, j], Y) for j in range(3)]
    assert ginis == pytest.approx([0.2667, 0.4667, 0.3429], abs=1e-4)
    assert gains == pytest.approx([0.4200, 0.0200, 0.2813], abs=1e-4)
    assert np.argmin(ginis) == np.argmax(gains) == 0  # Past trend at the root


def test_within_positive_trend_trading_volume_is_chosen():
    positive = X[:, 0] == "Positive"
    x_oi, x_tv, y = X[positive, 1], X[positive, 2], Y[positive]
    assert weighted_gini(x_tv, y) == 0.0
    assert information_gain(x_tv, y) == pytest.approx(0.9183, abs=1e-4)
    assert weighted_gini(x_oi, y) == pytest.approx(0.3333, abs=1e-4)
    assert information_gain(x_oi, y) == pytest.approx(0.2516, abs=1e-4)
    assert np.all(Y[~positive] == "Down")  # the Negative branch is pure


def test_the_tree_on_the_literal_rows_is_the_notes_tree():
    codes = (X == np.array(["Positive", "High", "High"])).astype(float)
    clf = DecisionTreeClassifier(criterion="gini", random_state=0).fit(codes, Y)
    assert clf.get_n_leaves() == 3 and clf.score(codes, Y) == 1.0
    assert set(clf.tree_.feature[clf.tree_.feature >= 0]) == {0, 2}


labels = st.lists(st.integers(0, 4), min_size=1, max_size=40)


@given(y=labels)
def test_gini_and_entropy_bounds(y):
    k = len(set(y))
    assert -1e-12 <= gini_impurity(y) <= 1 - 1 / k + 1e-12
    assert -1e-12 <= entropy(y) <= np.log2(k) + 1e-12
    if k == 1:
        assert gini_impurity(y) == 0.0 and entropy(y) == 0.0


@given(y=labels, seed=st.integers(0, 1000))
def test_split_scores_bounds_and_weights_as_repeats(y, seed):
    y = np.array(y)
    x = np.random.RandomState(seed).randint(0, 3, size=y.size)
    assert -1e-12 <= information_gain(x, y) <= entropy(y) + 1e-12
    assert weighted_gini(x, y) <= gini_impurity(y) + 1e-12
    assert -1e-12 <= gain_ratio(x, y) <= 1 + 1e-12
    # an attribute equal to the label separates perfectly
    assert weighted_gini(y, y) == 0.0
    assert information_gain(y, y) == pytest.approx(entropy(y), abs=1e-12)
    # integer weights are repeated rows
    w = np.random.RandomState(seed + 1).randint(1, 4, size=y.size)
    xr, yr = np.repeat(x, w), np.repeat(y, w)
    assert information_gain(x, y, w) == pytest.approx(information_gain(xr, yr),
                                                      abs=1e-12)
    assert weighted_gini(x, y, w) == pytest.approx(weighted_gini(xr, yr), abs=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: gini_impurity([]), "non-empty"),
    (lambda: entropy([0, 1], sample_weight=[1.0]), "shape"),
    (lambda: entropy([0, 1], sample_weight=[-1.0, 2.0]), "non-negative"),
    (lambda: information_gain([0, 1, 2], [0, 1]), "shape"),
])
def test_bad_input_is_refused_clearly(call, match):
    with pytest.raises(ValueError, match=match):
        call()
