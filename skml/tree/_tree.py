"""Array storage of a decision tree, and the one builder every tree model uses.

The trees, and later the forests and gradient boosting, all call
:func:`grow_tree`; it validates nothing (the estimators do) and returns a
:class:`Tree`.

Storage
-------
A tree with ``node_count`` nodes is a set of parallel arrays indexed by node
id; the root is node 0. Names and meanings are scikit-learn's, so code that
walks ``DecisionTreeClassifier().tree_`` ports unchanged:

``children_left``, ``children_right`` : int arrays
    Child ids, ``-1`` (``TREE_LEAF``) for a leaf. For a binary node, samples
    with ``x[feature] <= threshold`` go left.
``feature`` : int array
    Feature tested at the node, ``-2`` (``TREE_UNDEFINED``) for a leaf.
``threshold`` : float array
    Midpoint between two consecutive distinct values; ``-2.0`` for a leaf,
    ``NaN`` for a categorical (multiway) node, ``inf`` for the split "every
    non-missing value left, missing values right".
``missing_go_to_left`` : uint8 array
    Where a NaN goes at a binary node: learnt at fit when the node saw missing
    values, otherwise towards the child with more training samples.
``impurity``, ``n_node_samples``, ``weighted_n_node_samples`` : arrays
    The node's impurity and (weighted) number of training samples.
``value`` : float array of shape (node_count, n_outputs, n_values)
    Class proportions (classification; ``n_values = max_n_classes``, an
    output with fewer classes padded with zeros) or the mean / median
    (regression; ``n_values = 1``), for each output.
``max_depth``, ``node_count``, ``n_leaves``, ``n_features``, ``n_outputs``,
``n_classes``, ``max_n_classes`` : ints (``n_classes`` an array, as sklearn)

Multiway (categorical) nodes are stored on top of this, so binary-only trees
pay one int per node and nothing else:

``category_offset`` : int array
    ``-1`` for binary nodes. For a categorical node on feature ``j`` with
    ``K = n_category_slots[j]`` categories, the ``K + 2`` entries of
    ``category_children`` from ``category_offset[node]`` give the child of
    each category code ``0..K-1``, then of a missing value (slot ``K``), then
    of a code unseen in training (slot ``K + 1``). Codes absent at the node,
    missing values when the node saw none and unseen codes all go to the
    most populated child. ``children_left``/``children_right`` of such a node
    hold its first and last child, so binary-only walkers stop gracefully;
    use :meth:`Tree.children` to list all children.
``category_children`` : int array, the pool above.
``n_category_slots`` : int array of shape (n_features,)
    Number of category codes of each feature, 0 for numeric ones.
``feature_has_missing`` : bool array of shape (n_features,)
    Whether the feature had a missing value at fit (the exporters then
    show where NaN goes).

``category_offset``, ``n_category_slots`` and ``feature_has_missing`` cost
nothing when they carry nothing (no categorical node, no categorical
feature, no missing value): the tree then keeps None and reads them as a
constant read-only array of no memory (a stride-0 view); set them by
assignment, never in place.

Growth and split search are numba kernels that release the GIL: one growth
loop (``_grower.py``) runs either split search, the exact one
(``_builder_kernels.py``, ``_splitter_kernels.py``) or the histogram one
(``_hist_kernels.py``, on features binned once by :func:`bin_features`).
Prediction (``apply``, ``decision_path``, and the forests' and boosting's
sums over their trees) walks the packed layout of :mod:`skml.tree._packed`.
"""

import math
import warnings
from collections import namedtuple
from numbers import Integral, Real

import numpy as np
from scipy import sparse

from ..utils import Interval
from ..utils._magnitude import SAFE_MAGNITUDE
from ..utils._memory import on_fresh_pages
from ..utils.validation import native_byte_order
from ._builder_kernels import build_tree, build_tree_dense, build_tree_in, tree_scratch
from ._grower import NODE, TREE_LEAF, TREE_UNDEFINED, GrowthRules, growth_store
from ._hist_kernels import build_tree_hist, hist_growth_rules
from ._multioutput_kernels import MULTIOUTPUT_CRITERIA, build_tree_multioutput
from ._packed import decision_path_packed, leaf_ids, pack_trees, record_ids
from ._splitter_kernels import ABSOLUTE_ERROR, ENTROPY, GAIN_RATIO, GINI, POISSON, SQUARED_ERROR
from ._splitter_kernels import (
    column_positions_needed,
    sparse_check,
    sparse_column_top,
    sparse_rows,
    sparse_transpose,
    split_workspace,
)

__all__ = ["CRITERIA", "MIN_SAMPLES_CONSTRAINTS", "TREE_LEAF", "TREE_UNDEFINED",
           "BinnedFeatures", "RealNotInt", "Tree", "bin_features", "grow_tree", "tree_from_grown",
           "resolve_max_features", "resolve_min_samples"]

CRITERIA = {
    "gini": GINI,
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "gain_ratio": GAIN_RATIO,
    "squared_error": SQUARED_ERROR,
    "absolute_error": ABSOLUTE_ERROR,
    "poisson": POISSON,
}


_COMPACT = ("category_offset", "n_category_slots", "feature_has_missing")


def _constant(n, value):
    """``n`` copies of ``value`` (an intp, or a bool) as a read-only array of no memory."""
    return np.broadcast_to(np.bool_(value) if isinstance(value, bool) else np.intp(value), (n,))


class Tree:
    """A fitted tree's arrays (see the module docstring for the layout)."""

    def __init__(self, arrays, *, n_features, n_classes, n_category_slots, n_outputs=1):
        (self.children_left, self.children_right, self.feature, self.threshold,
         self.missing_go_to_left, self.impurity, self.n_node_samples,
         self.weighted_n_node_samples, value, self.category_offset,
         self.category_children, self.max_depth) = arrays
        self.max_depth = int(self.max_depth)
        self.n_features = n_features
        self.n_outputs = n_outputs
        if n_outputs == 1:
            self.value = value[:, None, :]
            self.n_classes = np.array([max(n_classes, 1)], dtype=np.intp)
        else:
            # The flat value rows (output after output) as (n_outputs, width).
            self.value = value.reshape(value.shape[0], n_outputs, -1)
            self.n_classes = np.maximum(np.broadcast_to(np.asarray(n_classes, dtype=np.intp),
                                                        (n_outputs,)), 1).copy()
        self.max_n_classes = int(self.n_classes.max())
        self.n_category_slots = n_category_slots
        self.feature_has_missing = None
        self._pack = None

    def __getstate__(self):
        # The packed layout is made again when needed (_packed): a pickle
        # holds each node once.
        state = dict(self.__dict__)
        state["_pack"] = None
        return state

    def __setstate__(self, state):
        # A pickle written on a machine of the other byte order loads arrays
        # of non-native dtype, which the compiled kernels cannot type: bring
        # them to native order (same values), and rebuild the packed layout.
        state = native_byte_order(dict(state))
        state["_pack"] = None
        # Pickles written before the compact storage hold the full arrays.
        full = {name: state.pop(name) for name in _COMPACT if name in state}
        self.__dict__.update(state)
        for name, value in full.items():
            setattr(self, name, value)

    # The arrays that usually carry nothing (no categorical node, feature or
    # missing value) are stored as None then, and read as a constant array
    # that takes no memory (a read-only stride-0 view): a forest of 20 trees
    # on 100k features kept 17 MiB of zeros otherwise.
    @property
    def category_offset(self):
        off = self._category_offset
        return _constant(self.children_left.shape[0], TREE_LEAF) if off is None else off

    @category_offset.setter
    def category_offset(self, value):
        value = np.asarray(value, dtype=np.intp)
        self._category_offset = value if value.size and value.max() >= 0 else None

    @property
    def n_category_slots(self):
        slots = self._category_slots
        return _constant(self.n_features, 0) if slots is None else slots

    @n_category_slots.setter
    def n_category_slots(self, value):
        value = None if value is None else np.asarray(value, dtype=np.intp)
        self._category_slots = value if value is not None and value.any() else None

    @property
    def feature_has_missing(self):
        missing = self._has_missing
        return _constant(self.n_features, False) if missing is None else missing

    @feature_has_missing.setter
    def feature_has_missing(self, value):
        value = None if value is None else np.asarray(value, dtype=bool)
        if value is not None and value.any():
            # Read-only: trees of one ensemble may share the array (one
            # object, so that a pickle holds it once).
            if value.flags.writeable:
                value = value.view()
                value.flags.writeable = False
            self._has_missing = value
        else:
            self._has_missing = None

    @property
    def node_count(self):
        return self.children_left.shape[0]

    @property
    def capacity(self):
        return self.node_count

    @property
    def n_leaves(self):
        return int(np.count_nonzero(self.children_left == TREE_LEAF))

    @property
    def has_categorical_nodes(self):
        return self._category_offset is not None

    def children(self, node):
        """All children of ``node`` (empty for a leaf), in id order."""
        if self.children_left[node] == TREE_LEAF:
            return np.empty(0, dtype=np.intp)
        off = self.category_offset[node]
        if off < 0:
            return np.array([self.children_left[node], self.children_right[node]])
        k = self.n_category_slots[self.feature[node]]
        return np.unique(self.category_children[off:off + k + 2])

    def parents(self):
        """Parent id of every node (``-1`` for the root)."""
        parent = np.full(self.node_count, -1, dtype=np.intp)
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        binary = internal[self.category_offset[internal] < 0]
        parent[self.children_left[binary]] = binary
        parent[self.children_right[binary]] = binary
        for node in internal[self.category_offset[internal] >= 0]:
            parent[self.children(node)] = node
        return parent

    def _packed(self):
        """This tree's structure in the packed prediction layout (made once;
        :func:`skml.tree._prune._compact`, the one place that rewrites a
        tree's structure, drops it). Leaf values are left out: they are read
        from ``value``, which boosting rewrites after the growth."""
        if self._pack is None:
            self._pack = pack_trees([self], with_values=False, compact=True)
        return self._pack

    def apply(self, X):
        """Leaf id reached by each row of ``X`` (already encoded; or sparse)."""
        if not sparse.issparse(X):
            X = np.ascontiguousarray(X, dtype=np.float64)
        return leaf_ids(self._packed(), X)[:, 0]

    def decision_path(self, X):
        """CSR indicator matrix (n_samples, node_count) of visited nodes."""
        p = self._packed()
        if sparse.issparse(X):
            # Rows densified a block at a time (about 1 MiB of them).
            X = sparse.csr_matrix(X, dtype=np.float64)
            step = max(1, (1 << 17) // max(X.shape[1], 1))
            return sparse.vstack([self.decision_path(X[a:a + step].toarray())
                                  for a in range(0, X.shape[0], step)]
                                 or [sparse.csr_matrix((0, self.node_count), dtype=np.intp)],
                                 format="csr")
        X = np.ascontiguousarray(X, dtype=np.float64)
        indptr, indices = decision_path_packed(X, p.nodes, p.pool, 0)
        data = np.ones(indices.shape[0], dtype=np.intp)
        return sparse.csr_matrix((data, record_ids(p, indices, 0), indptr),
                                 shape=(X.shape[0], self.node_count))

    def predict(self, X):
        """``value`` of the leaf of each row, shape (n_samples, n_outputs, n_values)."""
        return self.value[self.apply(X)]

    def compute_feature_importances(self, normalize=True):
        """Total weighted impurity decrease brought by each feature."""
        wimp = self.weighted_n_node_samples * self.impurity
        internal = np.flatnonzero(self.children_left != TREE_LEAF)
        binary = internal[self.category_offset[internal] < 0]
        decrease = np.zeros(self.node_count)
        decrease[binary] = wimp[binary] - (wimp[self.children_left[binary]]
                                           + wimp[self.children_right[binary]])
        for node in internal[self.category_offset[internal] >= 0]:
            decrease[node] = wimp[node] - wimp[self.children(node)].sum()
        # astype: bincount of no node (a tree that is one leaf) returns int64 zeros.
        importances = np.bincount(self.feature[internal], weights=decrease[internal],
                                  minlength=self.n_features).astype(np.float64)
        importances /= self.weighted_n_node_samples[0]
        if normalize:
            total = importances.sum()
            if total > 0.0:
                importances /= total
        return importances


class BinnedFeatures:
    """Features binned once for histogram growth (see :func:`bin_features`).

    ``codes`` (uint8, Fortran order) holds each sample's bin, ``missing_bin``
    for NaN; ``edges[j, b]`` is the raw-scale upper edge of bin ``b`` of
    feature ``j`` (``x`` is in bin ``b`` iff ``edges[j, b-1] < x <=
    edges[j, b]``); ``n_bins[j]`` counts its value bins; ``has_missing[j]``
    says whether feature ``j`` has a missing value.
    """

    def __init__(self, codes, edges, n_bins, missing_bin, has_missing=None):
        self.codes = codes
        self.edges = edges
        self.n_bins = n_bins
        self.missing_bin = missing_bin
        if has_missing is None:
            has_missing = (codes == missing_bin).any(axis=0)
        self.has_missing = has_missing


def bin_features(X, max_bins=256):
    """Bin every feature once, for :func:`grow_tree`'s histogram mode.

    A feature with fewer than ``max_bins`` distinct values gets one bin per
    value, the edges being the midpoints between consecutive values (the
    thresholds the exact search would use); otherwise its edges are the
    ``max_bins - 2`` inner percentiles (midpoint method), so at most
    ``max_bins - 1`` value bins. The last code, ``max_bins - 1``, is NaN's.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    max_bins : int, default=256
        Between 3 and 256 (codes are uint8).

    Returns
    -------
    binned : BinnedFeatures
    """
    if not 3 <= int(max_bins) <= 256:
        raise ValueError(f"max_bins must be in [3, 256], got {max_bins!r}.")
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    missing_bin = int(max_bins) - 1
    edges = np.full((n_features, missing_bin), np.inf)
    n_bins = np.zeros(n_features, dtype=np.intp)
    codes = np.empty((n_samples, n_features), dtype=np.uint8, order="F")
    for j in range(n_features):
        col = X[:, j]
        nan = np.isnan(col)
        distinct = np.unique(col[~nan])
        if distinct.shape[0] <= missing_bin:
            e = 0.5 * (distinct[:-1] + distinct[1:])
            # A midpoint rounding up onto the next value would merge two bins.
            e = np.where(e == distinct[1:], distinct[:-1], e)
        else:
            e = np.unique(np.percentile(col[~nan], np.linspace(0, 100, max_bins)[1:-1],
                                        method="midpoint"))
        edges[j, :e.shape[0]] = e
        n_bins[j] = e.shape[0] + 1
        c = np.searchsorted(e, col, side="left")
        c[nan] = missing_bin
        codes[:, j] = c
    return BinnedFeatures(codes, edges, n_bins, missing_bin, np.isnan(X).any(axis=0))


class RealNotInt(Real):
    """Real numbers that are not integers: ``isinstance(1, RealNotInt)`` is False.

    A fraction parameter declared ``Interval(RealNotInt, 0, 1)`` takes 1.0
    (all the samples) but not the int 1, which the int branch must judge:
    ``min_samples_split=1`` is refused, as by scikit-learn, instead of being
    read as the fraction 100%.
    """


RealNotInt.register(float)
RealNotInt.register(np.floating)

# Declared once for the trees, the forests and gradient boosting.
MIN_SAMPLES_CONSTRAINTS = {
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="neither"),
    ],
}


def resolve_max_features(max_features, n_features):
    """Features examined per node: an int, a fraction, "sqrt", "log2" or None (all)."""
    mf = max_features
    if mf == "sqrt":
        mf = max(1, int(np.sqrt(n_features)))
    elif mf == "log2":
        mf = max(1, int(np.log2(n_features)))
    elif mf is None:
        mf = n_features
    elif isinstance(mf, Real) and not isinstance(mf, Integral):
        mf = max(1, int(mf * n_features))
    return min(int(mf), n_features)


def resolve_min_samples(min_samples_leaf, min_samples_split, n_samples):
    """``(min_leaf, min_split)`` as counts; floats are fractions of ``n_samples``
    rounded up, and a split needs room for two leaves, as scikit-learn."""
    min_leaf, min_split = min_samples_leaf, min_samples_split
    if isinstance(min_leaf, Real) and not isinstance(min_leaf, Integral):
        min_leaf = max(1, int(math.ceil(min_leaf * n_samples)))
    if isinstance(min_split, Real) and not isinstance(min_split, Integral):
        min_split = max(2, int(math.ceil(min_split * n_samples)))
    return int(min_leaf), max(int(min_split), 2 * int(min_leaf))


def tiny_column_scales(X, n_category_slots=None):
    """Power-of-two divisors for the numeric columns too small to split, or None.

    The split search treats values closer than ``FEATURE_THRESHOLD`` (1e-7,
    absolute, as scikit-learn's) as equal, so a column whose values are all
    below 2^-400 in magnitude (``X * 1e-300``) could never be split. Dividing
    it by a power of two (exact) brings its largest value into [1, 2); the
    thresholds found are multiplied back, so the tree is the one the column
    at a normal scale would give. Columns of ordinary magnitude keep scale 1,
    and when no column needs it the answer is None (no copy of X).
    """
    if sparse.issparse(X):
        X = X if X.format in ("csr", "csc") else X.tocsr()
        # (not abs(X).max(axis=0): two copies of X, the peak of a sparse fit)
        top = sparse_column_top(X.indptr, X.indices, np.asarray(X.data, dtype=np.float64),
                                X.shape[1], X.format == "csr")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            top = np.fmax(np.nanmax(X, axis=0), -np.nanmin(X, axis=0))
    tiny = (top > 0) & (top < SAFE_MAGNITUDE[0])
    if n_category_slots is not None:
        tiny &= np.asarray(n_category_slots) == 0
    if not tiny.any():
        return None
    scales = np.ones(X.shape[1])
    scales[tiny] = 2.0 ** np.floor(np.log2(top[tiny]))
    return scales


def grow_tree(X, y, sample_weight, *, criterion, n_classes=0, n_category_slots=None,
              max_features=None, splitter="best", max_depth=None,
              min_samples_split=2, min_samples_leaf=1, min_weight_leaf=0.0,
              min_impurity_decrease=0.0, max_leaf_nodes=None, seed=0, presort="auto",
              binned=None, column_scales="auto", monotonic_cst=None,
              categorical_split="multiway", gain_ratio_epsilon=None, scratch=None):
    """Grow one tree; the engine shared by trees, forests and boosting.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64, or None
        Numeric features; categorical ones hold codes ``0..K-1`` (NaN for
        missing). Fortran order is fastest (one column per split scan).
        Unused (may be None) when ``binned`` is given.
    y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        Class indices ``0..n_classes-1`` for the classification criteria,
        float targets for the regression ones. A 2-d y grows a multi-output
        tree (:mod:`skml.tree._multioutput_kernels`: numeric features,
        every criterion but gain_ratio; no histogram mode).
    sample_weight : ndarray of shape (n_samples,), float64
        Zero-weight samples are left out of the tree.
    criterion : str
        A key of :data:`CRITERIA`.
    n_classes : int or array-like of int
        Number of classes (classification only); one per output for a 2-d y.
    n_category_slots : ndarray of shape (n_features,), default=None
        Number of category codes of each feature, 0 for numeric ones.
    max_features : int, default=None
        Features examined per node (all when None).
    splitter : {"best", "random"}
        Scan all thresholds, or draw one uniformly per feature.
    max_depth, min_samples_split, min_samples_leaf, min_weight_leaf,
    min_impurity_decrease, max_leaf_nodes :
        Stopping rules as scikit-learn's (``min_weight_leaf`` is absolute).
    seed : int
        Keys each node's random stream (feature order, random thresholds),
        with the node's path from the root: the tree does not depend on the
        order in which nodes are searched (depth-first or best-first).
    presort : "auto" or bool, default="auto"
        Sort every numeric feature once and carry the orders down by stable
        partitions (:math:`O(m)` per feature and node, :math:`p n` integers
        of memory), or sort the examined features inside each node
        (:math:`O(m \\log m)`). "auto" presorts when at least half of the
        features are examined per node. The tree is the same either way.
    binned : BinnedFeatures, default=None
        Histogram mode, for boosting: the features binned once by
        :func:`bin_features` (reused across trees); each node's split search
        scans per-bin sums, and of two siblings only the smaller one's
        histogram is summed, the other is the parent's minus it. Thresholds
        are bin edges on the raw scale. ``criterion="squared_error"``,
        ``splitter="best"`` and numeric features only.
    column_scales : "auto", ndarray of shape (n_features,) or None, default="auto"
        Divisors of the columns too small to split (see
        :func:`tiny_column_scales`, which "auto" calls; an ensemble computes
        them once for all its trees); None: none.
    monotonic_cst : ndarray of shape (n_features,) of int8, default=None
        Monotonicity constraint of each feature, -1, 0 or 1, on the mean or
        median (regression) or on class 0's proportion (binary
        classification: the sign of a constraint on class 1 flipped, see
        :func:`skml.tree._classes.check_monotonic_cst`). None: none.
        Exact search only.
    categorical_split : {"multiway", "binary"}, default="multiway"
        A categorical feature's split: one child per code present at the
        node (ID3/C4.5), or CART's two groups of codes (notes B §8.7; see
        :func:`skml.tree._splitter_kernels._eval_grouping`). "binary" takes
        any criterion but "absolute_error".
    gain_ratio_epsilon : float or None, default=None
        ``criterion="gain_ratio"`` only. None: Quinlan's selection (above
        average gain, then largest gain ratio); a float: Li Hang's (largest
        gain ratio, and a leaf when it is below this epsilon).
    scratch : dict, default=None
        Where trees grown one after another on the same X, with the same
        settings but the seed (a forest's), keep the exact search's buffers:
        made at the first tree, reused by the next (see
        :func:`~skml.tree._builder_kernels.tree_scratch`). The trees are the
        same as without it. None: each tree makes its own. (The dense
        numeric search, the multi-output, grouping and Li Hang searches do
        not use it.)

    Returns
    -------
    tree : Tree
    """
    if binned is not None:
        if monotonic_cst is not None:
            raise ValueError("The histogram mode (binned=...) takes no monotonic_cst.")
        return _grow_tree_hist(binned, y, sample_weight, criterion=criterion,
                               n_category_slots=n_category_slots, max_features=max_features,
                               splitter=splitter, max_depth=max_depth,
                               min_samples_split=min_samples_split,
                               min_samples_leaf=min_samples_leaf,
                               min_weight_leaf=min_weight_leaf,
                               min_impurity_decrease=min_impurity_decrease,
                               max_leaf_nodes=max_leaf_nodes, seed=seed)
    n_features = X.shape[1]
    crit = CRITERIA[criterion]
    if np.ndim(y) == 2:
        return _grow_tree_multioutput(
            X, y, sample_weight, crit=crit, criterion=criterion, n_classes=n_classes,
            n_category_slots=n_category_slots, max_features=max_features,
            splitter=splitter, max_depth=max_depth, min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf,
            min_impurity_decrease=min_impurity_decrease, max_leaf_nodes=max_leaf_nodes,
            seed=seed, presort=presort, column_scales=column_scales)
    if n_category_slots is None:
        n_category_slots = np.zeros(n_features, dtype=np.intp)
    if isinstance(column_scales, str) and not isinstance(X, SparseViews):
        column_scales = tiny_column_scales(X, n_category_slots)
    if sparse.issparse(X) or isinstance(X, SparseViews):
        if np.any(n_category_slots):
            raise ValueError("Categorical features are not supported with sparse X.")
        views = sparse_views(X, column_scales, columns=sparse_needs_columns(
            criterion, splitter, max_features, n_features, monotonic_cst))
        csc, column_scales = views.arrays, views.column_scales
        X = _NO_DENSE_X
    else:
        if column_scales is not None:
            X = X / column_scales  # exact: powers of two
        X = np.asfortranarray(X, dtype=np.float64)
        csc = _NO_CSC
    if crit >= SQUARED_ERROR:
        y_reg = np.ascontiguousarray(y, dtype=np.float64)
        y_cls = np.zeros(1, dtype=np.intp)
        n_values = 1
    else:
        y_cls = np.ascontiguousarray(y, dtype=np.intp)
        y_reg = np.zeros(1)
        n_values = n_classes
    rules = GrowthRules(
        int(crit), int(n_values), n_features if max_features is None else int(max_features),
        splitter == "random", np.iinfo(np.intp).max if max_depth is None else int(max_depth),
        int(min_samples_split), int(min_samples_leaf), float(min_weight_leaf),
        float(min_impurity_decrease), -1 if max_leaf_nodes is None else int(max_leaf_nodes),
        int(seed), -1 if presort == "auto" else int(bool(presort)))
    mono = (_NO_MONOTONIC if monotonic_cst is None
            else np.ascontiguousarray(monotonic_cst, dtype=np.int8))
    if categorical_split not in ("multiway", "binary"):
        raise ValueError("categorical_split must be 'multiway' or 'binary', got "
                         f"{categorical_split!r}.")
    grouping = categorical_split == "binary" and bool(np.any(n_category_slots))
    if grouping and crit == ABSOLUTE_ERROR:
        raise ValueError("categorical_split='binary' takes the criteria gini, entropy, "
                         "gain_ratio, squared_error and poisson; got criterion="
                         f"{criterion!r}.")
    ratio_epsilon = -1.0
    if gain_ratio_epsilon is not None and crit == GAIN_RATIO:
        ratio_epsilon = float(gain_ratio_epsilon)
    if (csc[2].shape[0] == 0 and mono.shape[0] == 0 and not np.any(n_category_slots)
            and ratio_epsilon < 0.0):
        # Dense, numeric, unconstrained: the splitter that carries nothing else.
        grown = build_tree_dense(X, y_cls, y_reg,
                                 np.ascontiguousarray(sample_weight, dtype=np.float64), rules)
    elif grouping or ratio_epsilon >= 0.0:
        grown = build_tree(
            X, csc, y_cls, y_reg, np.ascontiguousarray(sample_weight, dtype=np.float64),
            np.asarray(n_category_slots, dtype=np.intp), mono, rules, grouping,
            ratio_epsilon)
    elif scratch is None:  # the default call, its compiled signature unchanged
        grown = build_tree(
            X, csc, y_cls, y_reg, np.ascontiguousarray(sample_weight, dtype=np.float64),
            np.asarray(n_category_slots, dtype=np.intp), mono, rules)
    else:
        w = np.ascontiguousarray(sample_weight, dtype=np.float64)
        cat_n = np.asarray(n_category_slots, dtype=np.intp)
        if "buffers" not in scratch:
            # Sized for the worst tree and written a few pages at a time: on
            # fresh pages, only those become resident (allocated by numba,
            # 8 MiB of it was resident before its first write on the sparse
            # text benchmark, 100k features and 40k rows; see on_fresh_pages).
            scratch["buffers"] = _tree_scratch_on_fresh_pages(csc, cat_n, mono, rules,
                                                              w.shape[0], w.shape[0])
        grown = build_tree_in(X, csc, y_cls, y_reg, w, cat_n, mono, rules,
                              scratch["buffers"])
    tree = tree_from_grown(grown, n_features=n_features,
                           n_classes=n_classes if crit < SQUARED_ERROR else 1,
                           n_category_slots=n_category_slots)
    return _finish_tree(tree, X, sample_weight, column_scales)


def _finish_tree(tree, X, sample_weight, column_scales):
    """Scale the thresholds of the binary splits back by ``column_scales``
    (see :func:`tiny_column_scales`) and record which features had missing
    values among the fitted rows (none for a sparse X)."""
    if column_scales is not None:
        split = (tree.children_left != TREE_LEAF) & (tree.category_offset < 0)
        tree.threshold[split] *= column_scales[tree.feature[split]]
    if X is _NO_DENSE_X:  # sparse input holds no missing values
        tree.feature_has_missing = None
        return tree
    # min propagates NaN: one pass down each column, no mask of X's size.
    has_missing = np.isnan(X.min(axis=0)) if X.shape[0] else np.zeros(X.shape[1], dtype=bool)
    if has_missing.any() and np.any(sample_weight == 0):
        # Only the columns with a missing value, on the rows the tree grew on.
        cols = np.flatnonzero(has_missing)
        has_missing[cols] = np.isnan(X[:, cols][sample_weight != 0]).any(axis=0)
    tree.feature_has_missing = has_missing
    return tree


def _growth_rules(crit, n_values, n_features, max_features, splitter, max_depth,
                  min_samples_split, min_samples_leaf, min_weight_leaf,
                  min_impurity_decrease, max_leaf_nodes, seed, presort):
    return GrowthRules(
        int(crit), int(n_values), n_features if max_features is None else int(max_features),
        splitter == "random", np.iinfo(np.intp).max if max_depth is None else int(max_depth),
        int(min_samples_split), int(min_samples_leaf), float(min_weight_leaf),
        float(min_impurity_decrease), -1 if max_leaf_nodes is None else int(max_leaf_nodes),
        int(seed), -1 if presort == "auto" else int(bool(presort)))


def _grow_tree_multioutput(X, y, sample_weight, *, crit, criterion, n_classes,
                           n_category_slots, max_features, splitter, max_depth,
                           min_samples_split, min_samples_leaf, min_weight_leaf,
                           min_impurity_decrease, max_leaf_nodes, seed, presort,
                           column_scales):
    """:func:`grow_tree` for a 2-d ``y`` (see :mod:`skml.tree._multioutput_kernels`)."""
    n_features = X.shape[1]
    if crit not in MULTIOUTPUT_CRITERIA:
        raise ValueError(f"criterion={criterion!r} supports a single output only; a "
                         "multi-output y takes 'gini', 'entropy', 'log_loss', "
                         "'squared_error', 'absolute_error' or 'poisson'.")
    if n_category_slots is not None and np.any(np.asarray(n_category_slots) > 0):
        raise ValueError("categorical_features support a single output only; a "
                         "multi-output y takes numeric features.")
    n_outputs = y.shape[1]
    if isinstance(column_scales, str) and not isinstance(X, SparseViews):
        column_scales = tiny_column_scales(X)
    if sparse.issparse(X) or isinstance(X, SparseViews):
        views = sparse_views(X, column_scales, columns=True)
        csc, column_scales = views.arrays, views.column_scales
        X = _NO_DENSE_X
    else:
        if column_scales is not None:
            X = X / column_scales
        X = np.asfortranarray(X, dtype=np.float64)
        csc = _NO_CSC
    if crit >= SQUARED_ERROR:
        # Output-major: each output's targets contiguous, as a 1-d target.
        y_reg = np.ascontiguousarray(np.asarray(y, dtype=np.float64).T)
        y_cls = np.zeros((1, 1), dtype=np.intp)
        n_classes = np.ones(n_outputs, dtype=np.intp)
        n_values = n_outputs
    else:
        n_classes = np.broadcast_to(np.asarray(n_classes, dtype=np.intp), (n_outputs,))
        width = max(int(n_classes.max()), 1)
        # Each output's class in its own slots of one flat row of counts.
        y_cls = np.ascontiguousarray(np.asarray(y, dtype=np.intp)
                                     + width * np.arange(n_outputs, dtype=np.intp))
        y_reg = np.zeros((1, 1))
        n_values = width * n_outputs
    rules = _growth_rules(crit, n_values, n_features, max_features, splitter, max_depth,
                          min_samples_split, min_samples_leaf, min_weight_leaf,
                          min_impurity_decrease, max_leaf_nodes, seed, presort)
    grown = build_tree_multioutput(X, csc, y_cls, y_reg,
                                   np.ascontiguousarray(sample_weight, dtype=np.float64),
                                   rules)
    tree = tree_from_grown(grown, n_features=n_features, n_classes=n_classes,
                           n_outputs=n_outputs)
    return _finish_tree(tree, X, sample_weight, column_scales)


def tree_from_grown(grown, *, n_features, n_classes, n_category_slots=None, n_outputs=1):
    """The :class:`Tree` of a :data:`~skml.tree._grower.Grown` (the growth
    loop's records, cut into the storage's arrays)."""
    nodes = grown.nodes
    arrays = (*(np.ascontiguousarray(nodes[name]) for name in NODE.names[:8]),
              grown.value, nodes["category_offset"], grown.pool, grown.max_depth)
    offset = arrays[9]
    if offset.size and offset.max() >= 0:  # else not kept (Tree.category_offset)
        arrays = (*arrays[:9], np.ascontiguousarray(offset), *arrays[10:])
    return Tree(arrays, n_features=n_features, n_classes=n_classes,
                n_category_slots=n_category_slots, n_outputs=n_outputs)


# build_tree's placeholders: the dense X of a sparse fit (Fortran order, the
# dense type, so one compilation serves both) and the sparse arrays of a dense one.
_NO_DENSE_X = np.zeros((2, 2), order="F")
_NO_CSC = (np.zeros(0),) + tuple(np.zeros(0, dtype=np.int32) for _ in range(6))
_NO_MONOTONIC = np.zeros(0, dtype=np.int8)

# tree_scratch with its buffers on fresh pages (a forest's thread task makes
# it once, grow_tree's scratch).
_tree_scratch_on_fresh_pages = on_fresh_pages(tree_scratch, split_workspace, sparse_rows,
                                              growth_store)

# A sparse X as the split search reads it (see sparse_views): the arrays, the
# shape and the column scales already applied to the values (or None).
SparseViews = namedtuple("SparseViews", ["arrays", "shape", "column_scales"])


def sparse_needs_columns(criterion, splitter, max_features, n_features, monotonic_cst=None,
                         multi_output=False):
    """Whether a tree grown with these settings reads a sparse X's column
    view: all but the decision tree's whole-node search do (best splitter,
    every feature searched at each node, a criterion up to squared error,
    one output, no monotonicity constraint), which reads the rows alone."""
    whole = (splitter == "best" and CRITERIA.get(criterion, POISSON) <= SQUARED_ERROR
             and (max_features is None or max_features >= n_features))
    return multi_output or monotonic_cst is not None or not whole


def sparse_views(X, column_scales=None, columns=True):
    """A sparse X as the split search reads it: a :data:`SparseViews`.

    Its ``arrays`` are ``(data, indices, indptr, col_pos, row_ptr, row_cols,
    row_pos)``: the stored values ``data`` once (float64, no stored zero, no
    entry twice), a column view (column ``j``'s entries are
    ``indptr[j]:indptr[j + 1]``, at the rows ``indices``, in increasing
    order) and a row view (row ``i``'s are ``row_ptr[i]:row_ptr[i + 1]``, at
    the columns ``row_cols``); an entry ``q`` of a view has the value
    ``data[pos[q]]`` with that view's ``col_pos`` or ``row_pos``, or
    ``data[q]`` when that is empty and the values are in that view's order
    (see ``_column_entry_value``: a CSR's column entry is found in its row).

    A CSR X as the estimators validate it (float64, no stored zero, no
    duplicate; its rows' order does not matter) is the row view: its arrays
    are read in place, and the column view takes one integer per stored
    value, its row (half of the 8 bytes of scikit-learn's float32 CSC copy;
    the values stay float64, so the thresholds are those of the dense fit).
    A CSR whose rows list their columns out of order, one of them longer
    than ``SHORT_ROW`` (128) values, keeps a second integer, each entry's
    position (``col_pos``), instead of searching its rows. Likewise a
    canonical CSC X is the column view, and the row view is made. Other
    input is copied once to such a CSR. ``columns=False`` leaves out the
    column view's entries (``indices`` and ``col_pos`` empty; ``indptr``,
    the column counts, is kept): the whole-node search of a decision tree
    does without them (:func:`sparse_needs_columns`). ``column_scales``
    divides the columns (see :func:`tiny_column_scales`), on a copy. A
    :data:`SparseViews` comes back as it is (with its column view added
    when ``columns`` asks for it; its scales already applied).
    """
    if isinstance(X, SparseViews):
        data, indices, _, _, row_ptr, row_cols, row_pos = X.arrays
        if not columns or indices.shape[0] == row_cols.shape[0]:
            return X
        # (only a CSR's views leave out the columns: row_pos is empty)
        in_order = sparse_check(row_ptr, row_cols, data, X.shape[1])[1]
        indptr, indices, col_pos = sparse_transpose(
            row_ptr, row_cols, X.shape[1], True, column_positions_needed(row_ptr, in_order))
        return X._replace(arrays=(data, indices, indptr, col_pos, row_ptr, row_cols, row_pos))
    n_rows, n_features = X.shape
    big = max(X.nnz, n_rows, n_features) >= np.iinfo(np.int32).max - 1
    index = np.int64 if big else np.int32
    fmt = X.format
    ready = X.dtype == np.float64 and column_scales is None and fmt in ("csr", "csc")
    in_order = False
    if ready:
        clean, in_order = sparse_check(X.indptr, X.indices, X.data,
                                       n_features if fmt == "csr" else n_rows)
        ready = clean and (in_order or fmt == "csr")
    if not ready:
        X = sparse.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.eliminate_zeros()
        if column_scales is not None:
            X.data /= column_scales[X.indices]  # exact: powers of two
        fmt = "csr"
        in_order = sparse_check(X.indptr, X.indices, X.data, n_features)[1]
    data = np.ascontiguousarray(X.data)
    ptr = np.ascontiguousarray(X.indptr.astype(index, copy=False))
    idx = np.ascontiguousarray(X.indices.astype(index, copy=False))
    empty = np.zeros(0, dtype=index)
    if fmt == "csr":
        indptr, indices, col_pos = sparse_transpose(
            ptr, idx, n_features, bool(columns), column_positions_needed(ptr, in_order))
        arrays = (data, indices, indptr, col_pos, ptr, idx, empty)
    else:
        row_ptr, row_cols, row_pos = sparse_transpose(ptr, idx, n_rows, True)
        arrays = (data, idx, ptr, empty, row_ptr, row_cols, row_pos)
    return SparseViews(arrays, (n_rows, n_features), column_scales)


def _grow_tree_hist(binned, y, sample_weight, *, criterion, n_category_slots, max_features,
                    splitter, max_depth, min_samples_split, min_samples_leaf,
                    min_weight_leaf, min_impurity_decrease, max_leaf_nodes, seed):
    if criterion != "squared_error" or splitter != "best":
        raise ValueError(
            "The histogram mode (binned=...) grows squared-error trees with the best "
            f"splitter only; got criterion={criterion!r}, splitter={splitter!r}."
        )
    if n_category_slots is not None and np.any(np.asarray(n_category_slots) > 0):
        raise ValueError("The histogram mode (binned=...) takes numeric features only.")
    codes = binned.codes
    n_features = codes.shape[1]
    sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    rules = hist_growth_rules(
        n_features, max_features=max_features, max_depth=max_depth,
        min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
        min_weight_leaf=min_weight_leaf, min_impurity_decrease=min_impurity_decrease,
        max_leaf_nodes=max_leaf_nodes, seed=seed)
    grown = build_tree_hist(codes, binned.edges, binned.n_bins, int(binned.missing_bin),
                            np.ascontiguousarray(y, dtype=np.float64), sample_weight, rules)
    tree = tree_from_grown(grown, n_features=n_features, n_classes=1)
    # Only the features with a missing value somewhere are scanned, and only
    # when some rows are left out (boosting calls this once per tree).
    has_missing = binned.has_missing.copy()
    left_out = sample_weight == 0
    if has_missing.any() and left_out.any():
        cols = np.flatnonzero(has_missing)
        has_missing[cols] = (codes[~left_out][:, cols] == binned.missing_bin).any(axis=0)
    tree.feature_has_missing = has_missing
    return tree


def add_empty_branch_leaves(tree, X, sample_weight):
    """ID3's empty branches as leaves of the parent's plurality class.

    Notes A §2.5 (000 "Practical Algorithms 2", AIMA's LEARN-DECISION-TREE)
    and notes B §8.4 step 6 (003 "ID3"): a branch with no training example,
    a category absent at a categorical node (including the missing value,
    when the node saw none) or unseen at fit, becomes a leaf predicting
    PLURALITY-VALUE of the parent's examples. Each categorical node with
    such a branch gets one new leaf (appended after the existing nodes)
    holding the node's own value (class proportions, whose argmax is the
    plurality class, the smallest class index on ties; a regressor's mean),
    with no training samples; its absent and unseen slots point to it
    instead of to the most populated child. Works in place on ``tree`` (its
    structure, as grown from the encoded ``X`` with ``sample_weight``);
    returns the number of leaves added.
    """
    nodes = np.flatnonzero((tree.children_left != TREE_LEAF) & (tree.category_offset >= 0))
    if nodes.size == 0:
        return 0
    rows = np.flatnonzero(sample_weight != 0)
    path = tree.decision_path(X[rows]).tocsc()
    parents, slot_sets = [], []
    for nd in nodes:
        j = tree.feature[nd]
        k = int(tree.n_category_slots[j])
        reached = rows[path.indices[path.indptr[nd]:path.indptr[nd + 1]]]
        x = X[reached, j]
        present = np.zeros(k + 2, dtype=bool)
        present[np.where(np.isnan(x), k, np.nan_to_num(x)).astype(np.intp)] = True
        parents.append(nd)
        slot_sets.append(tree.category_offset[nd] + np.flatnonzero(~present))
    n_new = len(parents)
    first = tree.node_count
    parents = np.asarray(parents, dtype=np.intp)
    new_ids = first + np.arange(n_new)

    def grow(a, fill):
        return np.concatenate([a, np.full((n_new,) + a.shape[1:], fill, dtype=a.dtype)])

    tree.children_left = grow(tree.children_left, TREE_LEAF)
    tree.children_right = grow(tree.children_right, TREE_LEAF)
    tree.feature = grow(tree.feature, TREE_UNDEFINED)
    tree.threshold = grow(tree.threshold, float(TREE_UNDEFINED))
    tree.missing_go_to_left = grow(tree.missing_go_to_left, 0)
    tree.impurity = grow(tree.impurity, 0.0)
    tree.n_node_samples = grow(tree.n_node_samples, 0)
    tree.weighted_n_node_samples = grow(tree.weighted_n_node_samples, 0.0)
    tree.category_offset = grow(tree.category_offset, TREE_LEAF)
    tree.value = np.concatenate([tree.value, tree.value[parents]])
    tree.impurity[new_ids] = tree.impurity[parents]
    for nd, new, slots in zip(parents, new_ids, slot_sets):
        tree.category_children[slots] = new
        tree.children_right[nd] = new  # the last child, as the builder's
    tree._pack = None
    return n_new
