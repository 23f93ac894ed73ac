"""Looking at a fitted tree: a text rendering and a matplotlib drawing.

Both walk :class:`skml.tree._tree.Tree` through :meth:`Tree.children`, so a
multiway (categorical) node shows one branch per child, labelled with the
categories it receives, and a binary node on a feature that had missing
values at fit says on which side NaN goes. A multi-output tree shows every
output's value (and, for a classifier, every output's class).
"""

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._builder_kernels import TREE_LEAF

__all__ = ["export_text", "plot_tree"]


def export_text(decision_tree, feature_names=None, class_names=None, max_depth=10,
                spacing=3, decimals=2, show_weights=False):
    """Text report of the rules of a fitted decision tree.

    The layout is scikit-learn's ``sklearn.tree.export_text``: one line per
    branch condition, ``|---`` marks and one indentation level per depth,
    then the leaf's class (or value). Two additions for what scikit-learn's
    trees cannot hold: a categorical (multiway) node prints one line per
    child, ``name in {a, b}`` (``other`` stands for the categories unseen at
    fit, which go to the node's most populated child); on a feature that had
    missing values at fit, the side NaN takes is marked ``or missing``, and
    the split "every observed value left, NaN right" prints as
    ``name is not missing`` / ``name is missing``.

    A multi-output tree prints every output's value in a leaf, as
    scikit-learn's: ``value: [v_1, ..., v_k]`` for a regressor. For a
    multi-output classifier a leaf reads ``class: [c_1, ..., c_k]``, the
    majority class of each output (and ``weights: [[...], ...]``, one list per
    output, with ``show_weights``), where scikit-learn prints the index of the
    largest first-class proportion.

    Parameters
    ----------
    decision_tree : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted skml tree.
    feature_names : array-like of str, default=None
        One name per feature; defaults to ``feature_names_in_`` when the
        tree was fitted on named columns, else ``feature_0``, ``feature_1``...
    class_names : array-like of str, default=None
        One name per class, in ``classes_`` order; defaults to ``classes_``.
        For a multi-output classifier, one such list per output.
    max_depth : int, default=10
        Deeper branches are summarised as "truncated branch of depth d".
    spacing : int, default=3
        Width of one indentation level.
    decimals : int, default=2
        Decimals of thresholds and values.
    show_weights : bool, default=False
        Also print the weighted class counts of each leaf (classifiers).

    Returns
    -------
    report : str

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.tree import DecisionTreeClassifier, export_text
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    >>> print(export_text(clf, feature_names=["sl", "sw", "pl", "pw"]))
    |--- pw <= 0.80
    |   |--- class: 0
    |--- pw >  0.80
    |   |--- class: 1
    <BLANKLINE>
    """
    check_is_fitted(decision_tree, "tree_")
    tree = decision_tree.tree_
    for name, value, low in (("max_depth", max_depth, 0), ("spacing", spacing, 1),
                             ("decimals", decimals, 0)):
        if not isinstance(value, Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    names = _feature_names(decision_tree, feature_names, "feature_{}")
    is_clf = hasattr(decision_tree, "classes_")
    if is_clf:
        class_names = _class_names(decision_tree, class_names)
    lines = []

    def numbers(values):
        return "[" + ", ".join(f"{v:.{decimals}f}" for v in values) + "]"

    def leaf(node, indent):
        if not is_clf:  # one value per output
            lines.append(f"{indent} value: {numbers(tree.value[node, :, 0])}")
            return
        values = _class_values(decision_tree, node)
        text = ""
        if show_weights:
            weights = [numbers(v * tree.weighted_n_node_samples[node]) for v in values]
            text = " weights: " + (weights[0] if len(weights) == 1
                                   else "[" + ", ".join(weights) + "]")
        labels = [names_o[int(np.argmax(v))] for names_o, v in zip(class_names, values)]
        text += " class: " + (labels[0] if len(labels) == 1
                              else "[" + ", ".join(labels) + "]")
        lines.append(indent + text)

    def recurse(node, depth):
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        if depth <= max_depth + 1:
            if tree.children_left[node] == TREE_LEAF:
                leaf(node, indent)
                return
            for child, condition in _branches(decision_tree, node, names, decimals):
                lines.append(f"{indent} {condition}")
                recurse(child, depth + 1)
        else:
            sub_depth = _subtree_depth(tree, node)
            if sub_depth == 1:
                leaf(node, indent)
            else:
                lines.append(f"{indent} truncated branch of depth {sub_depth}")

    recurse(0, 1)
    return "\n".join(lines) + "\n"


def plot_tree(decision_tree, *, max_depth=None, feature_names=None, class_names=None,
              filled=False, impurity=True, node_ids=False, proportion=False,
              rounded=False, precision=3, ax=None, fontsize=None):
    """Draw a fitted decision tree with matplotlib.

    A layered layout: each level of the tree is one row, the leaves shown
    are spread evenly over the width in left-to-right order and each
    internal node sits above the middle of its children, so no two boxes of
    a row share a horizontal slot; with ``fontsize=None`` the text is
    scaled so that the widest box fits its slot. Each box gives the split
    (with ``missing: left/right`` on a feature that had NaN at fit), the
    impurity, the number of samples, the value and, for a classifier, the
    majority class (of each output for a multi-output tree, whose value
    shows one row per output, as scikit-learn's). The branches of a
    categorical node are labelled with
    their categories; the two edges of the root of a binary tree read
    ``True`` (condition holds, left) and ``False``.

    matplotlib is an optional dependency, imported only here.

    Parameters
    ----------
    decision_tree : DecisionTreeClassifier or DecisionTreeRegressor
        A fitted skml tree.
    max_depth : int, default=None
        Levels drawn below the root; deeper children show as ``(...)``.
    feature_names : array-like of str, default=None
        One name per feature; defaults to ``feature_names_in_`` or ``x[i]``.
    class_names : array-like of str, default=None
        One name per class, in ``classes_`` order; defaults to ``classes_``.
        For a multi-output classifier, one such list per output.
    filled : bool, default=False
        Colour each box: by majority class, stronger the purer the node
        (classification), or by the size of the value (regression); a
        multi-output tree is coloured by purity (lower impurity stronger),
        as scikit-learn's.
    impurity : bool, default=True
        Show the node impurity.
    node_ids : bool, default=False
        Show each node's id.
    proportion : bool, default=False
        Show samples as a percentage and values as proportions.
    rounded : bool, default=False
        Rounded box corners.
    precision : int, default=3
        Digits of the thresholds, impurities and values.
    ax : matplotlib Axes, default=None
        Where to draw; the current axes when None.
    fontsize : float, default=None
        Text size; fitted to the layout when None.

    Returns
    -------
    annotations : list of matplotlib.text.Annotation
        One per drawn box, root first.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from skml.tree import DecisionTreeClassifier, plot_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> len(plot_tree(clf))
    5
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plot_tree requires matplotlib, an optional dependency of skml; "
            "install it with `pip install matplotlib`."
        ) from exc
    check_is_fitted(decision_tree, "tree_")
    if max_depth is not None and (not isinstance(max_depth, Integral) or max_depth < 0):
        raise ValueError(f"max_depth must be None or an integer >= 0, got {max_depth!r}.")
    if not isinstance(precision, Integral) or precision < 0:
        raise ValueError(f"precision must be an integer >= 0, got {precision!r}.")
    tree = decision_tree.tree_
    names = _feature_names(decision_tree, feature_names, "x[{}]")
    is_clf = hasattr(decision_tree, "classes_")
    if is_clf:
        class_names = _class_names(decision_tree, class_names)
    if ax is None:
        ax = plt.gca()
    ax.clear()
    ax.set_axis_off()

    # Layout: (node, depth, parent slot, edge label); "(...)" boxes have node -1.
    boxes = []
    leaf_x = []

    def place(node, depth, parent, edge):
        k = len(boxes)
        boxes.append([node, depth, parent, edge, 0.0])
        if node < 0 or tree.children_left[node] == TREE_LEAF:
            boxes[k][4] = len(leaf_x)
            leaf_x.append(k)
            return k
        branches = _branches(decision_tree, node, names, precision, short=True)
        binary = tree.category_offset[node] < 0
        xs = []
        for b, (child, condition) in enumerate(branches):
            label = condition if not binary else (
                ("True" if b == 0 else "False") if node == 0 else None)
            if max_depth is not None and depth >= max_depth:
                xs.append(boxes[place(-1, depth + 1, k, label)][4])
            else:
                xs.append(boxes[place(child, depth + 1, k, label)][4])
        boxes[k][4] = 0.5 * (xs[0] + xs[-1])
        return k

    place(0, 0, -1, None)
    n_slots = max(len(leaf_x), 1)
    n_levels = max(b[1] for b in boxes) + 1

    def xy(b):
        return ((b[4] + 0.5) / n_slots, 1.0 - (b[1] + 0.5) / n_levels)

    colors = _fill_colors(tree, is_clf) if filled else None
    size = 10.0 if fontsize is None else fontsize
    bbox = dict(boxstyle="round" if rounded else "square", fc="white", ec="black")
    annotations = []
    for b in boxes:
        node, depth, parent = b[0], b[1], b[2]
        text = "(...)" if node < 0 else _node_text(
            decision_tree, node, names, class_names, impurity, node_ids, proportion,
            precision, is_clf)
        box = dict(bbox)
        if colors is not None and node >= 0:
            box["fc"] = colors[node]
        # Deeper boxes lower, so that a parent's box hides the arrow ends.
        kwargs = dict(ha="center", va="center", fontsize=size, bbox=box,
                      zorder=100 - 10 * depth, xycoords="axes fraction")
        if parent < 0:
            annotations.append(ax.annotate(text, xy(b), **kwargs))
            continue
        ann = ax.annotate(text, xy(boxes[parent]), xytext=xy(b), textcoords="axes fraction",
                          arrowprops=dict(arrowstyle="<-"), **kwargs)
        annotations.append(ann)
        if b[3] is not None:
            (x0, y0), (x1, y1) = xy(boxes[parent]), xy(b)
            ax.text(0.5 * (x0 + x1), 0.5 * (y0 + y1), b[3], ha="center", va="center",
                    fontsize=0.8 * size, transform=ax.transAxes, zorder=200,
                    bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))

    if fontsize is None:
        renderer = ax.figure.canvas.get_renderer()
        for ann in annotations:
            ann.update_bbox_position_size(renderer=renderer)
        extents = [ann.get_bbox_patch().get_window_extent() for ann in annotations]
        ax_box = ax.get_window_extent()
        # A box may take 90 % of its slot's width, so neighbours keep a gap,
        # and 70 % of its height, so the arrows stay visible.
        scale = min(0.9 * ax_box.width / n_slots / max(e.width for e in extents),
                    0.7 * ax_box.height / n_levels / max(e.height for e in extents))
        for ann in annotations:
            ann.set_fontsize(size * scale)
        for text in ax.texts:
            if text not in annotations:
                text.set_fontsize(0.8 * size * scale)
    return annotations


# -- helpers ---------------------------------------------------------------------


def _feature_names(est, feature_names, pattern):
    n_features = est.tree_.n_features
    if feature_names is None:
        if hasattr(est, "feature_names_in_"):
            return [str(f) for f in est.feature_names_in_]
        return [pattern.format(j) for j in range(n_features)]
    feature_names = [str(f) for f in feature_names]
    if len(feature_names) != n_features:
        raise ValueError(
            f"feature_names must contain {n_features} elements, got {len(feature_names)}."
        )
    return feature_names


def _class_names(est, class_names):
    """One list of class names per output (a single list for one output)."""
    per_output = est.classes_ if est.n_outputs_ > 1 else [est.classes_]
    if class_names is None:
        return [[str(c) for c in classes] for classes in per_output]
    if est.n_outputs_ == 1:
        class_names = [class_names]
    elif len(class_names) != est.n_outputs_ or any(isinstance(c, str)
                                                   for c in class_names):
        raise ValueError(f"class_names of a tree of {est.n_outputs_} outputs must be "
                         f"{est.n_outputs_} lists of names, one per output.")
    out = []
    for names, classes in zip(class_names, per_output):
        names = [str(c) for c in names]
        if len(names) != len(classes):
            raise ValueError(
                f"class_names must contain {len(classes)} elements (the number of "
                f"classes), got {len(names)}."
            )
        out.append(names)
    return out


def _class_values(est, node):
    """The class proportions of each output at ``node`` (a list of arrays,
    each output's own classes only)."""
    n_classes = est.n_classes_ if est.n_outputs_ > 1 else [est.n_classes_]
    return [est.tree_.value[node, o, :k] for o, k in enumerate(n_classes)]


def _category_labels(est, j):
    pandas_cats = getattr(est, "_pandas_categories", None)
    if pandas_cats is not None and j in pandas_cats:
        return [str(c) for c in pandas_cats[j]]
    k = int(np.flatnonzero(est._cat_columns == j)[0])
    return [np.format_float_positional(v, trim="-") for v in est.categories_[k]]


def _branches(est, node, names, decimals, short=False):
    """``(child, condition)`` for each child of an internal node, in order."""
    tree = est.tree_
    j = tree.feature[node]
    name = names[j]
    missing = tree.feature_has_missing[j]
    off = tree.category_offset[node]
    if off < 0:
        left, right = tree.children_left[node], tree.children_right[node]
        thr = tree.threshold[node]
        if np.isinf(thr):
            return [(left, f"{name} is not missing"), (right, f"{name} is missing")]
        thr = f"{thr:.{decimals}f}"
        conds = [f"{name} <= {thr}", f"{name} >  {thr}"]
        if missing:
            conds[0 if tree.missing_go_to_left[node] else 1] += " or missing"
        return [(left, conds[0]), (right, conds[1])]
    k = tree.n_category_slots[j]
    slots = tree.category_children[off:off + k + 2]
    labels = _category_labels(est, j)
    out = []
    for child in tree.children(node):
        members = [labels[c] for c in np.flatnonzero(slots[:k] == child) if c < len(labels)]
        if missing and slots[k] == child:
            members.append("missing")
        if slots[k + 1] == child:
            members.append("other")
        listed = ", ".join(members)
        if short:
            out.append((child, "{" + listed + "}"))
        elif len(members) == 1:
            out.append((child, f"{name} = {listed}"))
        else:
            out.append((child, f"{name} in {{{listed}}}"))
    return out


def _subtree_depth(tree, node):
    """Levels of the branch at ``node`` (a leaf counts 1)."""
    best = 0
    stack = [(node, 1)]
    while stack:
        nd, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in tree.children(nd))
    return best


def _node_text(est, node, names, class_names, impurity, node_ids, proportion,
               precision, is_clf):
    tree = est.tree_
    lines = []
    if node_ids:
        lines.append(f"node #{node}")
    if tree.children_left[node] != TREE_LEAF:
        j = tree.feature[node]
        thr = tree.threshold[node]
        if tree.category_offset[node] >= 0:
            lines.append(f"{names[j]} (categorical)")
        elif np.isinf(thr):
            lines.append(f"{names[j]} is not missing")
        else:
            lines.append(f"{names[j]} <= {round(float(thr), precision)}")
            if tree.feature_has_missing[j]:
                lines.append("missing: " + ("left" if tree.missing_go_to_left[node] else "right"))
    if impurity:
        criterion = "entropy" if est.criterion == "gain_ratio" else est.criterion
        lines.append(f"{criterion} = {round(float(tree.impurity[node]), precision)}")
    if proportion:
        pct = 100.0 * tree.n_node_samples[node] / tree.n_node_samples[0]
        lines.append(f"samples = {round(pct, 1)}%")
    else:
        lines.append(f"samples = {tree.n_node_samples[node]}")
    if not is_clf:
        values = [round(float(v), precision) for v in tree.value[node, :, 0]]
        if len(values) == 1:
            lines.append(f"value = {values[0]}")
        else:  # one row per output, as scikit-learn's
            lines.append("value = [" + "\n".join(f"[{v}]" for v in values) + "]")
        return "\n".join(lines)
    rows, labels = [], []
    for names, value in zip(class_names, _class_values(est, node)):
        labels.append(names[int(np.argmax(value))])
        if not proportion:
            value = value * tree.weighted_n_node_samples[node]
        rounded = np.round(value, precision)
        if not proportion and np.allclose(rounded, np.round(rounded)):
            rows.append("[" + ", ".join(str(int(round(v))) for v in rounded) + "]")
        else:
            rows.append("[" + ", ".join(str(v) for v in rounded) + "]")
    if len(rows) == 1:
        lines.append(f"value = {rows[0]}")
        lines.append(f"class = {labels[0]}")
    else:
        lines.append("value = [" + "\n".join(rows) + "]")
        lines.append("class = [" + ", ".join(labels) + "]")
    return "\n".join(lines)


def _fill_colors(tree, is_clf):
    """Box colour of every node, blended towards white as sklearn does."""
    from matplotlib import colormaps

    values = tree.value[:, 0, :]
    if tree.value.shape[1] > 1:
        # several outputs: by purity, as scikit-learn's (lower impurity stronger)
        base = np.tile(colormaps["tab10"](1)[:3], (values.shape[0], 1))
        v = -tree.impurity
        span = v.max() - v.min()
        alpha = (v - v.min()) / span if span > 0 else np.ones_like(v)
    elif is_clf:
        palette = colormaps["tab10" if values.shape[1] <= 10 else "tab20"]
        base = np.array([palette(int(k) % palette.N)[:3] for k in values.argmax(axis=1)])
        top2 = np.sort(values, axis=1)[:, -2:] if values.shape[1] > 1 else np.c_[values * 0, values]
        second, first = top2[:, 0], top2[:, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = np.where(second < 1.0, (first - second) / (1.0 - second), 1.0)
    else:
        base = np.tile(colormaps["tab10"](1)[:3], (values.shape[0], 1))
        v = values[:, 0]
        span = v.max() - v.min()
        alpha = (v - v.min()) / span if span > 0 else np.ones_like(v)
    alpha = np.clip(alpha, 0.0, 1.0)[:, None]
    return [tuple(c) for c in alpha * base + (1.0 - alpha) * 1.0]
