"""Random forests: bagged CART trees, random features at each node (notes B §9.3),
and extremely randomised trees (random thresholds too, Geurts et al. 2006).

Every tree is grown by the shared builder :func:`skml.tree._tree.grow_tree`
on the whole, once-validated ``X``; the bootstrap sample enters as integer
sample weights (how many times each row was drawn), so no tree copies data.
The growth kernels release the GIL, so the trees are grown on threads.
"""

import textwrap
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from joblib import effective_n_jobs
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ..tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from ..tree._classes import (
    EXTRA_TREES_REFERENCE,
    ClassProportionsMixin,
    MULTIOUTPUT_CRITERION_NAMES,
    PARAMETERS_X_FIT_MISSING,
    PARAMETERS_X_MISSING,
    RETURNS_PROBA_OUTPUTS,
    RETURNS_Y_PRED,
    TREE_GROWTH_CONSTRAINTS,
    check_monotonic_cst,
    check_poisson_target,
    check_sparse_finite,
    class_weight_per_sample,
    encode_multioutput_labels,
    friedman_mse_deprecated,
    multioutput_class_weight,
)
from ..tree._packed import apply_packed_csr, leaf_ids, sum_leaf_values
from ..tree._prune import prune_tree
from ..tree._tree import (
    grow_tree,
    resolve_max_features,
    resolve_min_samples,
    sparse_needs_columns,
    sparse_views,
    tiny_column_scales,
)
from ..utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ._base import (
    MAX_INT,
    _MembersSequenceMixin,
    log_progress,
    member_seeds,
    sum_over_members,
)
from ..utils.validation import native_byte_order, validate_data

__all__ = ["ExtraTreesClassifier", "ExtraTreesRegressor", "RandomForestClassifier",
           "RandomForestRegressor"]

# Below this many rows, prediction threads cost more than they save.
_MIN_ROWS_PARALLEL = 1000


def _sample_indices(seed, n_samples, n_draws, draw_p):
    """The bootstrap rows of one tree, from its seed alone.

    The draws are scikit-learn's (``RandomState(seed).randint`` or, with
    weights, ``choice`` with probabilities ``draw_p``), so with the same
    ``random_state`` the trees see the same bootstrap samples as there.
    """
    rng = np.random.RandomState(seed)
    if draw_p is None:
        return rng.randint(0, n_samples, n_draws)
    return rng.choice(n_samples, n_draws, replace=True, p=draw_p)


class _BootstrapPlan(NamedTuple):
    """What every tree of one fit is grown from, besides X and its seed."""

    y: np.ndarray  # encoded classes, or the float targets ((n, n_outputs) if several)
    n_classes: int | np.ndarray  # 0 for regression; one per output if several
    n_samples: int
    bootstrap: bool
    n_draws: int | None  # rows per bootstrap sample (None without bootstrap)
    draw_p: np.ndarray | None  # drawing probabilities (None: uniform)
    weight: np.ndarray  # sample times class weights (ones if neither)
    balanced_subsample: bool
    max_features: int
    column_scales: np.ndarray | None  # of the columns too small to split (or None)
    monotonic_cst: np.ndarray | None = None  # as grow_tree takes it (or None)

    def indices(self, seed):
        """The bootstrap rows of the tree with this seed."""
        return _sample_indices(seed, self.n_samples, self.n_draws, self.draw_p)


def _tree_weight(seed, plan):
    """Sample weights of one tree: bootstrap counts, or the fit weights."""
    if not plan.bootstrap:
        return plan.weight
    idx = plan.indices(seed)
    counts = np.bincount(idx, minlength=plan.n_samples).astype(np.float64)
    if plan.balanced_subsample:
        # "balanced" computed on the bootstrap sample (with its repeats);
        # a class absent from it gets weight 0, as in scikit-learn.
        y_enc = plan.y if plan.y.ndim == 2 else plan.y[:, None]
        for o, n_classes in enumerate(np.atleast_1d(plan.n_classes)):
            per_class = np.bincount(y_enc[idx, o], minlength=n_classes).astype(np.float64)
            present = per_class > 0
            per_class[present] = len(idx) / (present.sum() * per_class[present])
            counts *= per_class[y_enc[:, o]]
    return counts


def _grow_chunk(seeds, X, plan, params, first, n_trees, verbose):
    """Grow the trees of ``seeds`` (trees ``first``, ``first + 1``, ... of
    ``n_trees``) one after another in the same buffers (:func:`_grow`'s
    ``scratch``): one task of the forest's fit."""
    scratch = {}
    return [_grow(seed, X, plan, params, first + k, n_trees, verbose, scratch)
            for k, seed in enumerate(seeds)]


def _grow(seed, X, plan, params, index, n_trees, verbose, scratch=None):
    """Grow tree ``index`` exactly as ``DecisionTree*(random_state=seed)`` (or
    ``ExtraTree*``: ``params["splitter"]``) would on (X, y) with the tree's
    weights; ``scratch``: see :func:`~skml.tree._tree.grow_tree`."""
    if verbose > 1:
        print(f"building tree {index + 1} of {n_trees}", flush=True)
    weight = _tree_weight(seed, plan)
    # Fractions of the training set's n_samples, as scikit-learn (and as the
    # tree fitted on all the rows with the bootstrap counts as weights), not
    # of the fewer distinct rows in the bag.
    min_leaf, min_split = resolve_min_samples(params["min_samples_leaf"],
                                              params["min_samples_split"],
                                              plan.n_samples)
    # The seed a DecisionTree* with random_state=seed passes to grow_tree.
    grow_seed = np.random.RandomState(seed).randint(MAX_INT)
    tree = grow_tree(
        X, plan.y, weight, criterion=params["criterion"], n_classes=plan.n_classes,
        max_features=plan.max_features, max_depth=params["max_depth"],
        min_samples_split=min_split, min_samples_leaf=min_leaf,
        min_weight_leaf=params["min_weight_fraction_leaf"] * weight.sum(),
        min_impurity_decrease=params["min_impurity_decrease"],
        max_leaf_nodes=params["max_leaf_nodes"], seed=grow_seed,
        splitter=params["splitter"],
        column_scales=plan.column_scales, monotonic_cst=plan.monotonic_cst,
        scratch=scratch,
    )
    # Packed here, each tree as soon as it is grown (see _pack_members).
    return _pack_member(prune_tree(tree, params["ccp_alpha"]))


def _pack_member(tree):
    """Make ``tree``'s packed prediction layout (once); returns the tree.

    The layout holds every node's threshold, in node order for a tree
    without categorical nodes grown depth-first: the tree then reads them
    there (a strided view, as scikit-learn's ``tree_.threshold`` is of its
    node records) instead of keeping a copy.
    """
    packed = tree._packed()
    if (packed.node_id is None and not tree.has_categorical_nodes
            and tree.threshold.base is not packed.nodes):  # (not a view of it yet)
        thresholds = packed.nodes["threshold"]
        if np.array_equal(thresholds, tree.threshold):
            tree.threshold = thresholds
    return tree


def _oob_sum(tree, seed, X, plan):
    """Leaf values of ``tree`` on the rows out of its bag (else 0), and a last
    column counting those rows."""
    n = X.shape[0]
    out = np.zeros((n, tree.value.shape[1] * tree.value.shape[2] + 1))
    drawn = np.zeros(n, dtype=bool)
    drawn[plan.indices(seed)] = True
    oob = np.flatnonzero(~drawn)
    if oob.size:
        out[oob, :-1] = tree.value[tree.apply(X[oob])].reshape(oob.size, -1)
        out[oob, -1] = 1.0
    return out


def _record_values(tree, packed):
    """The leaf values of ``tree`` by record of its own packed layout
    (``packed``, with no values): ``tree.value`` itself, flat, when the
    records are in node order (``packed.node_id`` None), else reordered."""
    values = tree.value.reshape(tree.node_count, -1)
    return values if packed.node_id is None else values[packed.node_id]

class _BaseForest(_MembersSequenceMixin, BaseEstimator):
    """Fitting, traversal and aggregation shared by all the forests."""

    def __getstate__(self):
        # (pickles written before held one packed layout of all the members)
        state = dict(super().__getstate__())  # (object's is self.__dict__ itself)
        state.pop("_packed", None)
        return state

    def __setstate__(self, state):
        # (a pickle from a machine of the other byte order: see native_byte_order)
        state = dict(state)
        state.pop("_packed", None)  # pickles written before: one layout of all
        super().__setstate__(native_byte_order(state))
        if getattr(self, "estimators_", None):
            self._pack_members()

    def _pack_members(self):
        """Make each member's packed prediction layout (``Tree._packed``).

        Each tree has its own, made once, and prediction walks them one by
        one: a packing of all the trees end to end (one layout, the leaf
        values re-laid beside it) was a second copy of the forest's values
        at the end of its fit, its peak memory. A tree grown depth-first
        has its records in node order, so its leaf values are read from
        ``tree_.value`` itself (:func:`_record_values`) and ``tree_.threshold``
        is a view of the layout's thresholds. The features'
        arrays of missing values are shared with the tree before when equal
        (see :class:`~skml.tree._tree.Tree`).
        """
        trees = [est.tree_ for est in self.estimators_]
        for prev, tree in zip(trees, trees[1:]):
            a, b = prev.feature_has_missing, tree.feature_has_missing
            if a is not b and not (a.strides == (0,) or b.strides == (0,)) \
                    and np.array_equal(a, b):
                tree.feature_has_missing = a
        for tree in trees:
            _pack_member(tree)

    _common_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        **TREE_GROWTH_CONSTRAINTS,
        "bootstrap": ["boolean"],
        "oob_score": ["boolean", callable],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "max_samples": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0.0, None, closed="neither"),
        ],
        "monotonic_cst": ["array-like", None],
    }
    # The members' split search: "random" for the extremely randomised trees.
    _splitter = "best"
    _tree_param_names = ("criterion", "max_depth", "min_samples_split",
                         "min_samples_leaf", "min_weight_fraction_leaf", "max_features",
                         "max_leaf_nodes", "min_impurity_decrease", "ccp_alpha",
                         "monotonic_cst")

    # -- fit ---------------------------------------------------------------------
    @property
    def estimator(self):
        """The kind of tree the forest grows, unfitted and with its defaults
        (scikit-learn's ``estimator`` attribute of a forest; not a parameter).
        """
        return self._tree_class()

    @property
    def estimator_(self):
        """The unfitted template tree: the tree class with the forest's tree settings.

        Each member is this tree with its own ``random_state`` (scikit-learn's
        ``estimator_``).
        """
        check_is_fitted(self)
        tree_params = self._tree_class().get_params()
        return self._tree_class(**{k: getattr(self, k) for k in tree_params
                                   if hasattr(self, k) and k not in (
                                       "random_state", "class_weight")})

    @fill_doc(X=PARAMETERS_X_FIT_MISSING)
    def fit(self, X, y, sample_weight=None):
        """Grow the forest on (X, y).

        <X>
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (any hashable labels) or targets; several outputs
            grow multi-output trees.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights: bootstrap drawing probabilities, or the trees'
            weights when ``bootstrap=False``.

        Returns
        -------
        self : object
            The fitted forest.
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        validate_params(self)
        is_clf = self._is_classifier
        if sparse.issparse(y):
            raise ValueError("sparse multilabel-indicator for y is not supported; pass "
                             "y.toarray().")
        # Fortran order once: each split scan reads one column.
        X, y = validate_data(self, X, y, dtype=np.float64, order="F",
                             accept_sparse=["csr", "csc"],
                             ensure_all_finite="allow-nan", y_numeric=not is_clf,
                             multi_output=True)
        check_sparse_finite(X)
        n_samples, n_features = X.shape
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected. "
                          "Please change the shape of y to (n_samples,), for example "
                          "using ravel().", DataConversionWarning, stacklevel=3)
            y = y[:, 0]
        if y.ndim > 2 or (y.ndim == 2 and y.shape[1] == 0):
            raise ValueError(f"y must be 1-d or 2-d (n_samples, n_outputs), got shape "
                             f"{y.shape}.")
        multi = y.ndim == 2
        if self.oob_score and is_clf and multi:
            y_type = type_of_target(y)
            if y_type not in ("binary", "multiclass", "multilabel-indicator"):
                raise ValueError("The type of target cannot be used to compute OOB "
                                 f"estimates. Got {y_type!r} while only binary, "
                                 "multiclass and multilabel-indicator targets are "
                                 "supported.")
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        if not self.bootstrap and self.max_samples is not None:
            # scikit-learn's words (its parameter is max_samples, its message
            # says max_sample), which user code may match.
            raise ValueError(
                "`max_sample` cannot be set if `bootstrap=False`. Either switch to "
                "`bootstrap=True` or set `max_sample=None`. (max_samples sizes the "
                "bootstrap samples.)"
            )
        if not self.bootstrap and self.oob_score:
            raise ValueError("Out of bag estimation only available if bootstrap=True "
                             "(oob_score needs the trees' left-out samples).")

        if is_clf and multi:
            self.classes_, y_fit = encode_multioutput_labels(y, sample_weight)
            self.n_classes_ = [len(c) for c in self.classes_]
            class_weight = self._expanded_class_weight(y_fit)
            n_classes = np.array(self.n_classes_)
        elif is_clf:
            self.classes_, y_fit = encode_labels(y, min_classes=1,
                                                 sample_weight=sample_weight)
            self.n_classes_ = len(self.classes_)
            class_weight = self._expanded_class_weight(y_fit)
            n_classes = self.n_classes_
        else:
            y_fit, class_weight, n_classes = y.astype(np.float64), None, 0
            if self.criterion == "poisson":
                check_poisson_target(y_fit, "strictly positive")
        self.n_outputs_ = y.shape[1] if multi else 1
        if multi and self.monotonic_cst is not None:
            raise ValueError("Monotonicity constraints are not supported with multiple "
                             "outputs.")
        monotonic_cst = check_monotonic_cst(self.monotonic_cst, n_features,
                                            n_classes=n_classes if is_clf else None)

        # scikit-learn's semantics: with a bootstrap, the weights (times the
        # class weights) are the probabilities of drawing each row, and each
        # tree is weighted by the draw counts alone; without one they weight
        # the trees directly.
        weight = sample_weight
        if class_weight is not None:
            weight = class_weight if weight is None else weight * class_weight
            if not np.any(weight > 0):
                raise ValueError(
                    "All sample weights are zero after applying class_weight."
                )
        n_draws = None
        draw_p = None
        if self.bootstrap:
            if weight is not None:
                draw_p = weight / np.sum(weight)
            n_draws = self._resolve_n_draws(n_samples, weight)
        plan = _BootstrapPlan(
            y=y_fit, n_classes=n_classes, n_samples=n_samples,
            bootstrap=self.bootstrap, n_draws=n_draws, draw_p=draw_p,
            weight=np.ones(n_samples) if weight is None else weight,
            balanced_subsample=(self.bootstrap and is_clf
                                and self.class_weight == "balanced_subsample"),
            max_features=resolve_max_features(self.max_features, n_features),
            column_scales=tiny_column_scales(X),
            monotonic_cst=monotonic_cst,
        )
        X_grow = X
        if sparse.issparse(X):
            # The arrays the split search reads (a CSR X's own, and a column
            # view unless every tree searches the whole nodes from the rows),
            # made once and shared by all trees (scaled: each tree scales
            # its thresholds back).
            X_grow = sparse_views(X, plan.column_scales, columns=sparse_needs_columns(
                self.criterion, self._splitter, plan.max_features, n_features,
                plan.monotonic_cst, multi))
        self.max_features_ = plan.max_features
        self._n_samples_fit = n_samples
        self._n_draws, self._draw_p = n_draws, draw_p

        if not (self.warm_start and hasattr(self, "estimators_")):
            self.estimators_, self._seeds = [], []
        n_done = len(self.estimators_)
        n_more = self.n_estimators - n_done
        if n_more < 0:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be at least the "
                f"{n_done} trees already fitted when warm_start=True."
            )
        if n_more == 0:
            warnings.warn("Warm-start fitting without increasing n_estimators does not "
                          "fit new trees.")
        else:
            # All seeds are drawn up front, in tree order: the forest does not
            # depend on n_jobs, and a warm start equals one fit of all trees.
            seeds = member_seeds(self.random_state, n_done, self.n_estimators)
            params = {name: getattr(self, name) for name in self._tree_param_names}
            params["splitter"] = self._splitter
            log_progress(self.verbose, type(self).__name__,
                         f"growing {len(seeds)} trees with n_jobs={self.n_jobs}")
            # One task per job, each growing its share of the trees in the
            # same buffers (a tree's are made once per task, not per tree).
            n_tasks = min(len(seeds), effective_n_jobs(self.n_jobs))
            bounds = np.linspace(0, len(seeds), n_tasks + 1).astype(int)
            parts = Parallel(n_jobs=self.n_jobs, prefer="threads",
                             verbose=max(self.verbose - 1, 0))(
                delayed(_grow_chunk)(seeds[a:b], X_grow, plan, params, a, len(seeds),
                                     self.verbose)
                for a, b in zip(bounds[:-1], bounds[1:])
            )
            trees = [tree for part in parts for tree in part]
            names = getattr(self, "feature_names_in_", None)
            classes = self.classes_ if self._is_classifier else None
            for seed, tree in zip(seeds, trees):
                self.estimators_.append(self._tree_class._from_grown(
                    tree, dict(params, random_state=seed),
                    n_features_in=self.n_features_in_, max_features=self.max_features_,
                    feature_names_in=names, classes=classes))
            self._seeds.extend(seeds)
            self._pack_members()

        if self.oob_score and (n_more > 0 or not hasattr(self, "oob_score_")):
            self._set_oob_score(X, y, plan)
        elif not self.oob_score:
            for name in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
                if hasattr(self, name):
                    delattr(self, name)
        return self

    def _resolve_n_draws(self, n_samples, weight):
        ms = self.max_samples
        if ms is None:
            return n_samples
        if isinstance(ms, Integral):
            return int(ms)
        total = n_samples if weight is None else float(np.sum(weight))
        return max(int(ms * total), 1)

    def _set_oob_score(self, X, y, plan):
        X = X.tocsr() if sparse.issparse(X) else np.ascontiguousarray(X)
        total = sum_over_members(
            lambda t: _oob_sum(self.estimators_[t].tree_, self._seeds[t], X, plan),
            list(range(len(self.estimators_))), self.n_jobs,
        )
        sums, counts = total[:, :-1], total[:, -1]
        if np.any(counts == 0):
            warnings.warn("Some inputs do not have OOB scores. This probably means too "
                          "few trees were used to compute any reliable OOB estimates.",
                          UserWarning)
        oob = sums / np.maximum(counts, 1)[:, None]
        if self.n_outputs_ > 1:
            oob = oob.reshape(oob.shape[0], self.n_outputs_, -1)
        self._store_oob(oob, y)

    # -- traversal ---------------------------------------------------------------
    def _validate_X_predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C",
                          accept_sparse=["csr", "csc"], ensure_all_finite="allow-nan")
        check_sparse_finite(X)
        return X.tocsr() if sparse.issparse(X) else X

    def _mean_leaf_values(self, X):
        """Mean over the trees of each row's leaf value."""
        X = self._validate_X_predict(X)
        trees = [est.tree_ for est in self.estimators_]
        column = np.zeros(1, dtype=np.intp)

        def tree_values(t):
            packed = trees[t]._packed()
            values = _record_values(trees[t], packed)
            if sparse.issparse(X):
                leaves = apply_packed_csr(X.data, X.indices, X.indptr, X.shape[1],
                                          packed.nodes, packed.pool, packed.roots)
                return values[leaves[:, 0]]
            out = np.zeros((X.shape[0], values.shape[1]))
            return sum_leaf_values(X, packed.nodes, values, packed.pool, packed.roots,
                                   column, 1.0, out)

        # Fixed chunks of trees per thread task, summed in order: the same
        # floating-point sums for any n_jobs.
        n_jobs = self.n_jobs if X.shape[0] >= _MIN_ROWS_PARALLEL else 1
        n_trees = len(trees)
        total = sum_over_members(tree_values, list(range(n_trees)), n_jobs)
        total /= n_trees
        if self.n_outputs_ > 1:  # the flat values as (n_outputs, width)
            return total.reshape(total.shape[0], self.n_outputs_, -1)
        return total

    @fill_doc(X=PARAMETERS_X_MISSING)
    def apply(self, X):
        """Leaf index of each sample in each tree.

        <X>

        Returns
        -------
        X_leaves : ndarray of shape (n_samples, n_estimators)
            ``X_leaves[i, t]`` is the leaf of tree ``t`` reached by sample ``i``.
        """
        X = self._validate_X_predict(X)
        leaves = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(leaf_ids)(est.tree_._packed(), X) for est in self.estimators_
        )
        return np.hstack(leaves)

    @fill_doc(X=PARAMETERS_X_MISSING)
    def decision_path(self, X):
        """Nodes each sample passes through in every tree.

        <X>

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Indicator of the visited nodes, the trees' nodes side by side.
        n_nodes_ptr : ndarray of shape (n_estimators + 1,)
            Columns ``n_nodes_ptr[t]:n_nodes_ptr[t + 1]`` are tree ``t``'s.
        """
        X = self._validate_X_predict(X)
        paths = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(est.tree_.decision_path)(X) for est in self.estimators_
        )
        n_nodes_ptr = np.cumsum([0] + [p.shape[1] for p in paths])
        return sparse.hstack(paths).tocsr(), n_nodes_ptr

    @property
    def feature_importances_(self):
        """Mean of the trees' normalised impurity decreases, renormalised.

        Trees reduced to their root are left out; if all are, the
        importances are all zero.
        """
        check_is_fitted(self)
        per_tree = [est.tree_.compute_feature_importances() for est in self.estimators_
                    if est.tree_.node_count > 1]
        if not per_tree:
            return np.zeros(self.n_features_in_)
        mean = np.mean(per_tree, axis=0)
        return mean / mean.sum()

    @property
    def estimators_samples_(self):
        """Rows drawn for each tree (with repeats), regenerated from its seed.

        int32 indices, as scikit-learn's forests return them.
        """
        check_is_fitted(self)
        if not self.bootstrap:
            return [np.arange(self._n_samples_fit, dtype=np.int32)
                    for _ in self.estimators_]
        return [_sample_indices(s, self._n_samples_fit, self._n_draws,
                                self._draw_p).astype(np.int32, copy=False)
                for s in self._seeds]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = self.criterion in MULTIOUTPUT_CRITERION_NAMES
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_label = tags.target_tags.multi_output
        return tags


# The forests' docstring blocks: each forest's parameters, with its defaults,
# and the attributes the four share.
_DOC_CRITERION = {
    True: """
criterion : {"gini", "entropy", "log_loss"}, default="gini"
    Node impurity of the trees.
""",
    False: """
criterion : {"squared_error", "absolute_error", "poisson"}, \
default="squared_error"
    Node impurity of the trees (see :class:`skml.tree.DecisionTreeRegressor`;
    "poisson" needs ``y >= 0`` with a positive sum). ``"friedman_mse"``
    is taken as ``"squared_error"`` with a FutureWarning, as
    scikit-learn 1.9.
""",
}

_DOC_CLASS_WEIGHT = """
class_weight : dict, list of dict, "balanced", "balanced_subsample" or None, \
default=None
    Weights multiplying the sample weights of each class. "balanced"
    uses ``n_samples / (n_classes * bincount(y))`` on the whole data,
    "balanced_subsample" the same on each tree's bootstrap sample (the
    whole data without a bootstrap). For a multi-output y, one dict per
    output (or a "balanced" option); a sample's weight is the product of
    its outputs' weights.
"""

_DOC_TREE_PARAMS = """
    max_depth : int, default=None
        Depth limit of each tree; None grows until the leaves are pure or
        too small.
    min_samples_split : int or float, default=2
        Fewest distinct samples a node needs to split; a float is a fraction
        of the training set's ``n_samples`` (as scikit-learn), not of the
        fewer distinct rows in a tree's bootstrap sample.
    min_samples_leaf : int or float, default=1
        Fewest distinct samples in every child; a float is a fraction of
        ``n_samples``.
    min_weight_fraction_leaf : float, default=0.0
        Fewest total weight, as a fraction of the tree's total, in every child.
    max_features : {"sqrt", "log2"}, int, float or None, default=<mf>
        Features drawn (without replacement) at each node: the extra
        randomness of the forest (notes B §9.3). As in scikit-learn every
        drawn feature counts, a constant one too (one value, or only missing
        values, in the node); past this many the node draws on only while
        all drawn so far were constant. A float is a fraction of the
        features, None means all of them.
    max_leaf_nodes : int, default=None
        Grow each tree best-first up to this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only if the weighted impurity decrease reaches this value.
    bootstrap : bool, default=<bs>
        Grow each tree on a bootstrap sample (else on the whole data).
    oob_score : bool or callable, default=False
        Compute the out-of-bag score ``oob_score_``: <oob>. A callable
        ``score(y_true, y_pred)`` replaces that metric.
    n_jobs : int, default=None
        Threads growing the trees and predicting; the results do not depend
        on it. None means 1 unless in a joblib ``parallel_config``.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap samples and the feature draws (and random
        thresholds) of every tree.
    verbose : int, default=0
        Progress messages (1: one line per fit; 2: one per tree).
    warm_start : bool, default=False
        Keep the trees already grown and add trees up to ``n_estimators``.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of each tree.
    max_samples : int or float, default=None
        Size of each bootstrap sample: ``n_samples`` if None, a count if int,
        a fraction of ``n_samples`` (of the total sample weight when
        ``sample_weight`` is given) if float.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonicity constraint of each feature (1 increasing, 0 none, -1
        decreasing) imposed on every tree, hence on the forest's mean: see
        :class:`skml.tree.DecisionTreeClassifier`. Binary classification
        and regression only.
"""


_OOB = {
    True: ("the accuracy of each training sample's mean probability over the trees it "
           "was out of bag for"),
    False: ("the :math:`R^2` of each training sample's mean prediction over the trees "
            "it was out of bag for"),
}


def _forest_doc(classifier, bootstrap, reference):
    """The ``fill_doc`` blocks of a forest: its parameters (with its
    defaults) and the attributes the forests share."""
    tree_params = (_DOC_TREE_PARAMS.lstrip("\n")
                   .replace("<mf>", '"sqrt"' if classifier else "1.0")
                   .replace("<oob>", _OOB[classifier]).replace("<bs>", str(bootstrap)))
    parameters = ("n_estimators : int, default=100\n    Number of trees.\n"
                  + _DOC_CRITERION[classifier].lstrip("\n")
                  + textwrap.dedent(tree_params)
                  + (_DOC_CLASS_WEIGHT.lstrip("\n") if classifier else ""))
    attributes = ("estimators_samples_ : list of ndarray\n"
                  "    Rows drawn for each tree (with repeats; all of them without a "
                  "bootstrap).\n"
                  + (_DOC_CLASSES if classifier else "") + _DOC_TREES
                  + (_DOC_OOB_CLASSIFIER if classifier else _DOC_OOB_REGRESSOR)
                  + FITTED_FEATURE_ATTRIBUTES.lstrip("\n"))
    return {"parameters": parameters, "attributes": attributes, "references": reference}


_DOC_CLASSES = """\
classes_ : ndarray of shape (n_classes,) or list of n_outputs ndarrays
    Class labels (of each output, for a multi-output y).
n_classes_ : int or list of int
    Number of classes (of each output).
"""

_DOC_TREES = """\
n_outputs_ : int
    Number of outputs of y.
max_features_ : int
    Features drawn per node.
feature_importances_ : ndarray of shape (n_features,)
    Mean over the trees of their normalised impurity decreases.
"""

_DOC_OOB_CLASSIFIER = """\
oob_score_ : float
    Out-of-bag accuracy (``bootstrap=True`` and ``oob_score`` only).
oob_decision_function_ : ndarray of shape (n_samples, n_classes) or \
(n_samples, max_n_classes, n_outputs)
    Mean class probabilities of each training sample over the trees it
    was out of bag for (zeros if it never was). For a multi-output y,
    ``oob_score_`` is the subset accuracy (every output right); as
    scikit-learn, it is refused for outputs of more than two classes.
"""

_DOC_OOB_REGRESSOR = """\
oob_score_ : float
    Out-of-bag :math:`R^2` (``bootstrap=True`` and ``oob_score`` only).
oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
    Mean prediction of each training sample over the trees it was out of
    bag for (0 if it never was).
"""

_RANDOM_FORESTS_REFERENCE = """
References
----------
L. Breiman, "Random forests", Machine Learning 45, 2001.
"""


class _ForestClassifier(ClassifierMixin, ClassProportionsMixin, _BaseForest):
    """Class encoding, class weights, out-of-bag accuracy and the soft vote of
    the classification forests. ``__init__`` holds the random forest's
    parameters and defaults (:class:`ExtraTreesClassifier` changes
    ``bootstrap``'s)."""

    _is_classifier = True
    _parameter_constraints = {
        "criterion": [Options({"gini", "entropy", "log_loss"})],
        **_BaseForest._common_constraints,
        "class_weight": [dict, list, Options({"balanced", "balanced_subsample"}), None],
    }

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                 verbose=0, warm_start=False, class_weight=None, ccp_alpha=0.0,
                 max_samples=None, monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.max_samples = max_samples
        self.monotonic_cst = monotonic_cst

    def _expanded_class_weight(self, y_enc):
        cw = self.class_weight
        if cw is None or (cw == "balanced_subsample" and self.bootstrap):
            return None
        if y_enc.ndim == 2:
            return multioutput_class_weight(
                "balanced" if cw == "balanced_subsample" else cw, self.classes_, y_enc)
        if isinstance(cw, list):
            if len(cw) != 1 or not isinstance(cw[0], dict):
                raise ValueError("class_weight as a list takes one dict per output; "
                                 f"y has 1 output, got a list of {len(cw)}.")
            cw = cw[0]
        # "balanced_subsample" without a bootstrap is "balanced" on all the data.
        return class_weight_per_sample("balanced" if isinstance(cw, str) else cw,
                                       self.classes_, y_enc)

    def _store_oob(self, oob, y):
        if self.n_outputs_ > 1:
            # (n_samples, max_n_classes, n_outputs), as scikit-learn's.
            self.oob_decision_function_ = np.transpose(oob, (0, 2, 1))
            y_pred = np.column_stack([c[np.argmax(oob[:, o, :len(c)], axis=1)]
                                      for o, c in enumerate(self.classes_)])
            if callable(self.oob_score):
                self.oob_score_ = self.oob_score(y, y_pred)
            else:  # subset accuracy: every output right
                self.oob_score_ = float(np.mean(np.all(y_pred == y, axis=1)))
            return
        self.oob_decision_function_ = oob
        y_pred = self.classes_[np.argmax(oob, axis=1)]
        if callable(self.oob_score):
            self.oob_score_ = self.oob_score(y, y_pred)
        else:
            self.oob_score_ = float(np.mean(y_pred == y))

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_PROBA_OUTPUTS)
    def predict_proba(self, X):
        """Mean over the trees of the class proportions in each sample's leaf.

        <X>

        <returns>
        """
        values = self._mean_leaf_values(X)
        if self.n_outputs_ == 1:
            return values
        return [values[:, o, :n] for o, n in enumerate(self.n_classes_)]

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_Y_PRED)
    def predict(self, X):
        """The class of largest mean probability.

        <X>

        <returns>
        """
        check_is_fitted(self)
        return self._labels(self.predict_proba(X))

class _ForestRegressor(RegressorMixin, _BaseForest):
    """Out-of-bag R^2 and the mean prediction of the regression forests.
    ``__init__`` holds the random forest's parameters and defaults
    (:class:`ExtraTreesRegressor` changes ``bootstrap``'s)."""

    _is_classifier = False
    _parameter_constraints = {
        "criterion": [Options({"squared_error", "absolute_error", "poisson"})],
        **_BaseForest._common_constraints,
    }

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=True, oob_score=False, n_jobs=None, random_state=None,
                 verbose=0, warm_start=False, ccp_alpha=0.0, max_samples=None,
                 monotonic_cst=None):
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.warm_start = warm_start
        self.ccp_alpha = ccp_alpha
        self.max_samples = max_samples
        self.monotonic_cst = monotonic_cst
        # scikit-learn 1.9 maps the deprecated "friedman_mse" here, at construction.
        self.criterion = friedman_mse_deprecated(criterion)

    def _store_oob(self, oob, y):
        if self.n_outputs_ > 1:
            self.oob_prediction_ = oob[:, :, 0]
            if callable(self.oob_score):
                self.oob_score_ = self.oob_score(y, self.oob_prediction_)
            else:  # R^2 of each output, averaged (scikit-learn's r2_score default)
                y = np.asarray(y, dtype=np.float64)
                resid = ((y - self.oob_prediction_) ** 2).sum(axis=0)
                total = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
                self.oob_score_ = float(np.mean(1.0 - resid / total))
            return
        self.oob_prediction_ = oob[:, 0]
        if callable(self.oob_score):
            self.oob_score_ = self.oob_score(y, self.oob_prediction_)
        else:
            resid = y - self.oob_prediction_
            total = y - y.mean()
            self.oob_score_ = float(1.0 - resid @ resid / (total @ total))

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_Y_PRED)
    def predict(self, X):
        """Mean over the trees of each sample's leaf value.

        <X>

        <returns>
        """
        values = self._mean_leaf_values(X)
        return values[:, 0] if self.n_outputs_ == 1 else values[:, :, 0]

@fill_doc(**_forest_doc(True, bootstrap=True, reference=_RANDOM_FORESTS_REFERENCE))
class RandomForestClassifier(_ForestClassifier):
    """A random forest classifier: bagged CART trees voting by mean probability.

    Notes B §9.3 (and the bagging and out-of-bag error of §9.2): each tree
    is a full-depth CART tree grown on a bootstrap sample, and at every node
    only ``max_features`` randomly drawn features are searched for the
    split, which decorrelates the trees. The forest predicts the class of
    largest mean class probability over the trees (scikit-learn's soft
    vote). Missing values (NaN) are routed at each node as by
    :class:`skml.tree.DecisionTreeClassifier`.

    Parameters
    ----------
    <parameters>

    Attributes
    ----------
    estimators_ : list of DecisionTreeClassifier
        The fitted trees; tree ``t`` is exactly
        ``DecisionTreeClassifier(random_state=estimators_[t].random_state)``
        fitted with the bootstrap counts as sample weights.
    <attributes>

    See Also
    --------
    RandomForestRegressor : The regression forest.
    BaggingClassifier : Bagging of any estimator, without per-node feature draws.
    skml.tree.DecisionTreeClassifier : The tree grown here.

    Notes
    -----
    Growing: :math:`T` trees, each :math:`O(k\\, n \\log^2 n)` for
    :math:`k` = ``max_features`` (the :math:`k` examined features are sorted
    in each node; with at least half of the features examined they are
    presorted once per tree instead). ``X`` is validated and put in Fortran
    order once; the bootstrap is passed as integer weights, so a tree costs
    no copy of ``X``. The trees grow on ``n_jobs`` threads, inside numba
    kernels that release the GIL. For prediction the trees' nodes are
    packed after fit into one 16-byte record per node (the traversal is
    memory-bound), and fixed chunks of trees are summed on the threads by a
    numba kernel, then added in order.

    With ``sample_weight``, as in scikit-learn 1.9, the bootstrap draws rows
    with probabilities proportional to the weights (times the class
    weights), and each tree is weighted by its draw counts alone; integer
    weights then behave as repeated rows in distribution.

    Each tree's seed is drawn from ``random_state`` before any tree grows,
    and its bootstrap is ``RandomState(seed).randint(0, n, n_draws)``:
    scikit-learn's draws, so the two libraries' forests see the same
    bootstrap samples for the same ``random_state`` (their trees differ in
    the feature draws).

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.ensemble import RandomForestClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = RandomForestClassifier(n_estimators=30, oob_score=True, random_state=0)
    >>> clf = clf.fit(X, y)
    >>> bool(clf.oob_score_ > 0.9)
    True
    >>> clf.predict(X[:2])
    array([0, 0])
    """

    _tree_class = DecisionTreeClassifier


@fill_doc(**_forest_doc(False, bootstrap=True, reference=_RANDOM_FORESTS_REFERENCE))
class RandomForestRegressor(_ForestRegressor):
    """A random forest regressor: bagged regression trees, averaged.

    Notes B §9.3 (with §9.2 and the regression trees of §8.8): each tree is
    a full-depth least-squares (or least-absolute-deviation) tree grown on a
    bootstrap sample with ``max_features`` features drawn at each node; the
    forest predicts the mean of the trees' predictions.

    Parameters
    ----------
    <parameters>

    Attributes
    ----------
    estimators_ : list of DecisionTreeRegressor
        The fitted trees; tree ``t`` is exactly
        ``DecisionTreeRegressor(random_state=estimators_[t].random_state)``
        fitted with the bootstrap counts as sample weights.
    <attributes>

    See Also
    --------
    RandomForestClassifier : The classification forest.
    BaggingRegressor : Bagging of any estimator.
    skml.tree.DecisionTreeRegressor : The tree grown here.

    Notes
    -----
    Same growth, threading and seeding as :class:`RandomForestClassifier`.
    With the default ``max_features=1.0`` every feature is examined at each
    node, so each tree presorts the features once and carries the orders
    down by stable partitions, :math:`O(p\\, n \\log n)` per tree. The notes'
    :math:`d/3` features per node for regression is ``max_features=1/3``.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import RandomForestRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = RandomForestRegressor(n_estimators=20, oob_score=True, random_state=0)
    >>> reg = reg.fit(X, y)
    >>> bool(0.3 < reg.oob_score_ < 0.6)
    True
    """

    _tree_class = DecisionTreeRegressor


@fill_doc(**_forest_doc(True, bootstrap=False, reference=EXTRA_TREES_REFERENCE))
class ExtraTreesClassifier(_ForestClassifier):
    """Extremely randomised trees for classification (Geurts et al., 2006).

    The forest of :class:`RandomForestClassifier`, grown with
    :class:`skml.tree.ExtraTreeClassifier` members: at every node,
    ``max_features`` features are drawn and each gets one threshold drawn
    uniformly between its smallest and largest value in the node; the best
    of these random splits is kept. By default every tree sees the whole
    training set (``bootstrap=False``): the randomness of the thresholds
    alone decorrelates the trees. The forest predicts the class of largest
    mean probability over the trees.

    Parameters
    ----------
    <parameters>

    Attributes
    ----------
    estimators_ : list of ExtraTreeClassifier
        The fitted trees; tree ``t`` is exactly
        ``ExtraTreeClassifier(random_state=estimators_[t].random_state)``
        fitted with the forest's sample weights (the bootstrap counts when
        ``bootstrap=True``).
    <attributes>

    See Also
    --------
    ExtraTreesRegressor : The regression forest.
    RandomForestClassifier : Bootstrap samples and best thresholds.
    skml.tree.ExtraTreeClassifier : The tree grown here.

    Notes
    -----
    Growth, threading, seeding and prediction are the random forest's
    (:class:`RandomForestClassifier`); only the split search differs. A
    node of :math:`m` samples costs :math:`O(k\\, m)` for :math:`k` =
    ``max_features``: one pass over each drawn feature for its range, one
    for the impurity of its random split, no sort.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.ensemble import ExtraTreesClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ExtraTreesClassifier(n_estimators=30, random_state=0).fit(X, y)
    >>> clf.predict(X[:2])
    array([0, 0])
    """

    _tree_class = ExtraTreeClassifier
    _splitter = "random"

    def __init__(self, n_estimators=100, *, criterion="gini", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=False, oob_score=False, n_jobs=None, random_state=None,
                 verbose=0, warm_start=False, class_weight=None, ccp_alpha=0.0,
                 max_samples=None, monotonic_cst=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes,
            min_impurity_decrease=min_impurity_decrease, bootstrap=bootstrap,
            oob_score=oob_score, n_jobs=n_jobs, random_state=random_state,
            verbose=verbose, warm_start=warm_start, class_weight=class_weight,
            ccp_alpha=ccp_alpha, max_samples=max_samples, monotonic_cst=monotonic_cst)


@fill_doc(**_forest_doc(False, bootstrap=False, reference=EXTRA_TREES_REFERENCE))
class ExtraTreesRegressor(_ForestRegressor):
    """Extremely randomised trees for regression (Geurts et al., 2006).

    The forest of :class:`RandomForestRegressor`, grown with
    :class:`skml.tree.ExtraTreeRegressor` members: at every node each of the
    ``max_features`` drawn features (all of them by default) gets one
    threshold drawn uniformly between its smallest and largest value in the
    node, and the best of these random splits is kept. By default every
    tree sees the whole training set (``bootstrap=False``). The forest
    predicts the mean of the trees' predictions.

    Parameters
    ----------
    <parameters>

    Attributes
    ----------
    estimators_ : list of ExtraTreeRegressor
        The fitted trees; tree ``t`` is exactly
        ``ExtraTreeRegressor(random_state=estimators_[t].random_state)``
        fitted with the forest's sample weights (the bootstrap counts when
        ``bootstrap=True``).
    <attributes>

    See Also
    --------
    ExtraTreesClassifier : The classification forest.
    RandomForestRegressor : Bootstrap samples and best thresholds.
    skml.tree.ExtraTreeRegressor : The tree grown here.

    Notes
    -----
    As :class:`ExtraTreesClassifier`: the random forest's machinery with
    random thresholds, :math:`O(k\\, m)` per node of :math:`m` samples.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import ExtraTreesRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = ExtraTreesRegressor(n_estimators=20, random_state=0).fit(X, y)
    >>> reg.predict(X[:3]).shape
    (3,)
    """

    _tree_class = ExtraTreeRegressor
    _splitter = "random"

    def __init__(self, n_estimators=100, *, criterion="squared_error", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 bootstrap=False, oob_score=False, n_jobs=None, random_state=None,
                 verbose=0, warm_start=False, ccp_alpha=0.0, max_samples=None,
                 monotonic_cst=None):
        super().__init__(
            n_estimators=n_estimators, criterion=criterion, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, max_leaf_nodes=max_leaf_nodes,
            min_impurity_decrease=min_impurity_decrease, bootstrap=bootstrap,
            oob_score=oob_score, n_jobs=n_jobs, random_state=random_state,
            verbose=verbose, warm_start=warm_start, ccp_alpha=ccp_alpha,
            max_samples=max_samples, monotonic_cst=monotonic_cst)
