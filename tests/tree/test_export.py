"""export_text and plot_tree: the notes' 3-leaf tree, categorical and NaN nodes."""

import re
import sys

import numpy as np
import pytest
from sklearn import datasets
from sklearn import tree as sktree

from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_text, plot_tree
from tests.tree.test_tree import STOCK_X, STOCK_Y

NAMES = ["Past trend", "Open interest", "Trading volume"]

# Notes A §2.6: Past trend first, then Trading volume inside "Positive".
THREE_LEAF_TEXT = """\
|--- Past trend <= 0.50
|   |--- class: Down
|--- Past trend >  0.50
|   |--- Trading volume <= 0.50
|   |   |--- class: Down
|   |--- Trading volume >  0.50
|   |   |--- class: Up
"""

THREE_LEAF_CATEGORICAL = """\
|--- Past trend = 0
|   |--- weights: [4.00, 0.00] class: Down
|--- Past trend in {1, other}
|   |--- Trading volume = 0
|   |   |--- weights: [2.00, 0.00] class: Down
|   |--- Trading volume in {1, other}
|   |   |--- weights: [0.00, 4.00] class: Up
"""


def test_export_text_of_the_notes_tree():
    clf = DecisionTreeClassifier(random_state=0).fit(STOCK_X, STOCK_Y)
    assert export_text(clf, feature_names=NAMES) == THREE_LEAF_TEXT
    cat = DecisionTreeClassifier(categorical_features=[0, 1, 2], random_state=0)
    cat.fit(STOCK_X, STOCK_Y)
    assert export_text(cat, feature_names=NAMES, show_weights=True) == THREE_LEAF_CATEGORICAL
    assert export_text(clf, feature_names=NAMES, max_depth=0) == (
        "|--- Past trend <= 0.50\n|   |--- class: Down\n"
        "|--- Past trend >  0.50\n|   |--- truncated branch of depth 2\n")
    named = export_text(clf, feature_names=NAMES, class_names=["D", "U"])
    assert named == THREE_LEAF_TEXT.replace("Down", "D").replace("Up", "U")


@pytest.mark.parametrize("Est, load, depth", [
    (DecisionTreeClassifier, datasets.load_iris, 4),
    (DecisionTreeRegressor, datasets.load_diabetes, 3),  # deeper ones tie-break apart
])
def test_export_text_matches_sklearn_on_equal_trees(Est, load, depth):
    X, y = load(return_X_y=True)
    ours = Est(max_depth=depth, random_state=0).fit(X, y)
    ref = getattr(sktree, Est.__name__)(max_depth=depth, random_state=0).fit(X, y)
    assert ours.tree_.node_count == ref.tree_.node_count
    np.testing.assert_array_equal(ours.tree_.feature, ref.tree_.feature)
    for kw in ({}, {"max_depth": 2, "decimals": 3, "spacing": 2}, {"show_weights": True}):
        assert export_text(ours, **kw) == sktree.export_text(ref, **kw)


def test_export_text_shows_missing_direction():
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    y = (x > 0).astype(int)
    X = x[:, None].copy()
    X[(y == 1) & (rng.random(200) < 0.3), 0] = np.nan
    text = export_text(DecisionTreeClassifier(max_depth=1).fit(X, y), feature_names=["x"])
    lines = text.splitlines()
    assert lines[0].startswith("|--- x <= ") and not lines[0].endswith("or missing")
    assert lines[2].startswith("|--- x >  ") and lines[2].endswith(" or missing")
    # Missing values alone decide: "x is not missing" / "x is missing".
    X2 = np.where(y[:, None] == 1, np.nan, 0.0)
    text = export_text(DecisionTreeClassifier().fit(X2, y), feature_names=["x"])
    assert text == ("|--- x is not missing\n|   |--- class: 0\n"
                    "|--- x is missing\n|   |--- class: 1\n")


def test_export_text_bad_arguments():
    clf = DecisionTreeClassifier().fit(STOCK_X, STOCK_Y)
    with pytest.raises(ValueError, match="feature_names must contain 3"):
        export_text(clf, feature_names=["a"])
    with pytest.raises(ValueError, match="class_names must contain 2"):
        export_text(clf, class_names=["a"])
    with pytest.raises(ValueError, match="spacing"):
        export_text(clf, spacing=0)
    with pytest.raises(ValueError, match="max_depth"):
        export_text(clf, max_depth=-1)


@pytest.fixture
def pyplot():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _assert_no_overlap(annotations):
    canvas = annotations[0].figure.canvas
    canvas.draw()  # positions the boxes
    renderer = canvas.get_renderer()
    boxes = [ann.get_bbox_patch().get_window_extent(renderer) for ann in annotations]
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            assert not boxes[a].overlaps(boxes[b]), (a, b)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_plot_tree_numeric_layout(pyplot, depth):
    from matplotlib.text import Annotation

    X, y = datasets.load_breast_cancer(return_X_y=True)
    clf = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    fig, ax = pyplot.subplots(figsize=(10, 6))
    anns = plot_tree(clf, filled=True, rounded=True, node_ids=True, ax=ax)
    assert len(anns) == clf.tree_.node_count
    assert all(isinstance(a, Annotation) for a in anns)
    assert anns[0].get_text().splitlines()[:2] == ["node #0", f"x[{clf.tree_.feature[0]}] <= "
                                                   f"{round(clf.tree_.threshold[0], 3)}"]
    _assert_no_overlap(anns)


def test_plot_tree_categorical_regression_and_truncation(pyplot):
    clf = DecisionTreeClassifier(categorical_features=[0, 1, 2], random_state=0)
    clf.fit(STOCK_X, STOCK_Y)
    anns = plot_tree(clf, feature_names=NAMES, proportion=True)
    assert len(anns) == 5
    assert anns[0].get_text().splitlines() == [
        "Past trend (categorical)", "gini = 0.48", "samples = 100.0%",
        "value = [0.6, 0.4]", "class = Down"]
    edge_labels = {t.get_text() for t in anns[0].axes.texts if t not in anns}
    assert edge_labels == {"{0}", "{1, other}"}
    _assert_no_overlap(anns)
    X, y = datasets.load_diabetes(return_X_y=True)
    X = X.copy()
    X[::5, 2] = np.nan
    reg = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    anns = plot_tree(reg, max_depth=1, impurity=False, filled=True)
    texts = [a.get_text() for a in anns]
    assert len(anns) == 7 and texts.count("(...)") == 4
    assert texts[0].splitlines()[-2:] == ["samples = 442", f"value = {round(y.mean(), 3)}"]
    assert any("missing: " in t for t in texts)
    _assert_no_overlap(anns)


def test_plot_tree_without_matplotlib(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    clf = DecisionTreeClassifier().fit(STOCK_X, STOCK_Y)
    with pytest.raises(ImportError, match="plot_tree requires matplotlib"):
        plot_tree(clf)


# -- multi-output trees --------------------------------------------------------------

def _multioutput_iris():
    X, y = datasets.load_iris(return_X_y=True)
    Y_reg = np.column_stack([X[:, 0], 10 * X[:, 1], -X[:, 3]])
    Y_clf = np.column_stack([y, X[:, 0] > 5.8]).astype(int)
    return X, Y_reg, Y_clf


def _assert_same_text(ours, theirs, decimals):
    """The same text, its numbers equal up to one unit of the last printed
    digit (scikit-learn's float32 thresholds and leaf means round apart)."""
    number = r"-?\d+\.\d+"
    assert re.split(number, ours) == re.split(number, theirs)
    np.testing.assert_allclose(np.array(re.findall(number, ours), dtype=float),
                               np.array(re.findall(number, theirs), dtype=float),
                               rtol=0, atol=1.01 * 10.0 ** -decimals)


@pytest.mark.parametrize("depth", [1, 2])  # deeper ones tie-break apart
def test_export_text_multioutput_regressor_matches_sklearn(depth):
    # every output's leaf value, as scikit-learn prints it
    X, Y, _ = _multioutput_iris()
    ours = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, Y)
    ref = sktree.DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(ours.tree_.feature, ref.tree_.feature)
    for decimals in (2, 3):
        text = export_text(ours, decimals=decimals)
        _assert_same_text(text, sktree.export_text(ref, decimals=decimals), decimals)
    leaf_lines = [line for line in text.splitlines() if "value:" in line]
    assert len(leaf_lines) == ours.get_n_leaves()
    assert all(line.count(",") == 2 for line in leaf_lines)  # three outputs


def test_export_text_multioutput_classifier_shows_each_outputs_class():
    X, _, Y = _multioutput_iris()
    clf = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, Y)
    leaves = np.flatnonzero(clf.tree_.children_left < 0)
    expected = [[clf.classes_[o][np.argmax(clf.tree_.value[n, o, :k])]
                 for o, k in enumerate(clf.n_classes_)] for n in leaves]
    text = export_text(clf, show_weights=True)
    lines = [line for line in text.splitlines() if "class:" in line]
    for line, classes, node in zip(lines, expected, leaves):
        assert line.endswith(f"class: [{classes[0]}, {classes[1]}]")
        w = clf.tree_.weighted_n_node_samples[node]
        counts = [clf.tree_.value[node, o, :k] * w for o, k in enumerate(clf.n_classes_)]
        weights = "[" + ", ".join(
            "[" + ", ".join(f"{v:.2f}" for v in c) + "]" for c in counts) + "]"
        assert f"weights: {weights} " in line
    named = export_text(clf, class_names=[["setosa", "versicolor", "virginica"],
                                          ["short", "long"]])
    assert "class: [setosa, short]" in named
    with pytest.raises(ValueError, match="one per output"):
        export_text(clf, class_names=["a", "b", "c"])
    with pytest.raises(ValueError, match="must contain 2 elements"):
        export_text(clf, class_names=[["a", "b", "c"], ["x"]])


def test_plot_tree_multioutput(pyplot):
    X, Y_reg, Y_clf = _multioutput_iris()
    reg = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, Y_reg)
    ref = sktree.DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, Y_reg)
    ours = plot_tree(reg, filled=True, impurity=False)
    theirs = [a.get_text() for a in sktree.plot_tree(ref, impurity=False)
              if "samples" in a.get_text()]  # the boxes, not the True/False labels
    # the same value rows as scikit-learn's, one per output
    assert len(ours) == len(theirs) == reg.tree_.node_count
    for a, b in zip(ours, theirs):
        _assert_same_text(a.get_text(), b, 3)
    assert ours[1].get_text().count("\n[") == 2  # three outputs, one row each
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, Y_clf)
    anns = plot_tree(clf, filled=True)
    assert len(anns) == clf.tree_.node_count
    root = anns[0].get_text()
    counts = [np.round(clf.tree_.value[0, o, :k] * 150).astype(int)
              for o, k in enumerate(clf.n_classes_)]
    assert (f"value = [[{', '.join(map(str, counts[0]))}]\n"
            f"[{', '.join(map(str, counts[1]))}]]") in root
    assert "class = [" in root
    _assert_no_overlap(anns)
