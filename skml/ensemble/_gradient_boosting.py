"""Gradient boosting of regression trees (GBDT): notes B §9.5, notes A §3.

Every round fits one least-squares regression tree per output to the
negative gradient of the loss (the pseudo-residuals), with skml's one tree
builder (:func:`skml.tree._tree.grow_tree`, exact or histogram mode), then
replaces each leaf's value by the loss's line-search or Newton value
(``skml/ensemble/_gb_losses.py``) and adds the tree, shrunk by
``learning_rate``, to the model.
"""

import hashlib
import time
import warnings
import weakref
from numbers import Integral, Real

import numba
import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import (
    check_is_fitted,
    check_random_state,
    has_fit_parameter,
)

from ..tree import DecisionTreeRegressor
from ..tree._classes import (
    PARAMETERS_X_FIT_MISSING,
    PARAMETERS_X_MISSING,
    TREE_GROWTH_CONSTRAINTS,
    categorical_mask,
    check_sparse_finite,
    encode_categories,
)
from ..tree._packed import (
    _RIGHT_SHIFT,
    PackedTrees,
    leaf_ids,
    pack_trees,
    sum_leaf_values,
)
from ..tree._prune import prune_tree
from ..tree._hist_kernels import bin_columns, grow_tree_hist, hist_growth_rules
from ..tree._tree import (
    TREE_LEAF,
    BinnedFeatures,
    grow_tree,
    resolve_max_features,
    resolve_min_samples,
    tiny_column_scales,
    tree_from_grown,
)
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES, RETURNS_LABELS,
                                 RETURNS_LOG_PROBA, RETURNS_PROBA, fill_doc)
from ..utils import (
    HasMethods,
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from ..utils.validation import check_n_classes
from ._base import MAX_INT, _MembersSequenceMixin
from ._gb_kernels import (_SQUARED, PARALLEL_MIN_ROWS, add_leaf_values, fused_round,
                          subsample_mask)
from ._gb_sparse import bin_csc, sum_leaf_values_csr
from ._gb_losses import SquaredError, make_loss
from ..utils._parallel import resolve_n_jobs
from ..utils.validation import native_byte_order, validate_data

__all__ = ["GradientBoostingClassifier", "GradientBoostingRegressor"]


class _VerboseReporter:
    """scikit-learn's progress lines: every round for verbose > 1, else
    rounds 1..10, then 20, 30, ..., then 200, 300, ..."""

    def __init__(self, verbose, do_oob, begin):
        self.verbose = verbose
        self.do_oob = do_oob
        self.begin = begin
        self.mod = 1
        self.start = time.time()
        head = (["Iter", "Train Loss"] + (["OOB Improve"] if do_oob else [])
                + ["Remaining Time"])
        print(("%10s " + "%16s " * (len(head) - 1)) % tuple(head), flush=True)

    def update(self, i, est):
        done = i - self.begin + 1
        if done % self.mod:
            return
        remaining = (est.n_estimators - i - 1) * (time.time() - self.start) / done
        rem = f"{remaining / 60:.2f}m" if remaining > 60 else f"{remaining:.2f}s"
        line = f"{i + 1:>10d} {est.train_score_[i]:>16.4f}"
        if self.do_oob:
            line += f" {est.oob_improvement_[i]:>16.4f}"
        print(f"{line} {rem:>16s}", flush=True)
        if self.verbose == 1 and done // (self.mod * 10) > 0:
            self.mod *= 10


def _grow_hist(binned, codes_T, codes_R, g, w, seed, min_weight_leaf, params, leaf_of,
               n_threads):
    """One histogram tree on the binned training rows; ``leaf_of`` receives
    each row's leaf (-1 for the rows of zero weight); the histograms are
    summed by ``n_threads`` of numba's threads (the same tree for any)."""
    n_features = codes_T.shape[0]
    # (~1 us a tree: building these once per fit and replacing the seed,
    # GrowthRules._replace, is slower)
    rules = hist_growth_rules(
        n_features, max_features=params["max_features"], max_depth=params["max_depth"],
        min_samples_split=params["min_samples_split"],
        min_samples_leaf=params["min_samples_leaf"], min_weight_leaf=min_weight_leaf,
        min_impurity_decrease=params["min_impurity_decrease"],
        max_leaf_nodes=params["max_leaf_nodes"], seed=seed)
    grown = grow_tree_hist(codes_T, codes_R, binned.edges, binned.n_bins,
                           int(binned.missing_bin), g, w, rules, leaf_of, n_threads)
    tree = tree_from_grown(grown, n_features=n_features, n_classes=1)
    has_missing = binned.has_missing
    if has_missing.any() and (w == 0).any():
        # Only the features with a missing value among the grown rows.
        has_missing = has_missing.copy()
        cols = np.flatnonzero(has_missing)
        grown = w != 0
        has_missing[cols] = (codes_T[cols][:, grown] == binned.missing_bin).any(axis=1)
    tree.feature_has_missing = has_missing  # (stored read-only, shared by the trees)
    return tree


# Binned codes kept beside the array they were computed from, for the other
# warm-start fits on that same array (see _BaseGradientBoosting._binned):
# id(X) -> (weak reference to X, key with X's digest, BinnedFeatures). The
# entry goes when X is garbage-collected; the codes are never written to.
_SHARED_BINNED = {}
# The same for the label codes of a warm-start classifier, beside the y
# object passed to ``fit`` (see _BaseGradientBoosting._encode_y):
# id(y) -> (weak reference to y, key with the labels' digest, (classes, codes)).
_SHARED_LABELS = {}
# (class, its __init__) -> its parameter names (_get_param_names).
_PARAM_NAMES = {}


def _shared_binned(X, key, store=_SHARED_BINNED):
    """The value kept in ``store`` for the object ``X`` under ``key``, or None."""
    entry = store.get(id(X))
    if entry is not None and entry[0]() is X and entry[1] == key:
        return entry[2]
    return None


def _share_binned(X, key, binned, store=_SHARED_BINNED):
    def forget(ref, i=id(X)):
        entry = store.get(i)
        if entry is not None and entry[0] is ref:
            store.pop(i, None)

    try:
        ref = weakref.ref(X, forget)
    except TypeError:  # an object without weak references: nothing is shared
        return
    store[id(X)] = (ref, key, binned)


_UNCHECKED = object()  # (a parameter value no fit has checked)


def _plain_float_X(est, X):
    """Whether ``validate_data(est, X, dtype=np.float64, ...)`` would return
    ``X`` itself with nothing to check or record but its width: a C-ordered
    float64 ndarray (no feature names, so none to record or compare) with
    rows and columns and a finite sum (no inf or NaN). scikit-learn's checks
    (~50-90 us) are a sixth of a one-tree warm-start fit on 284 rows."""
    return (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2
            and X.flags.c_contiguous and X.shape[0] > 0 and X.shape[1] > 0
            and not hasattr(est, "feature_names_in_") and np.isfinite(X.sum()))


def _validate_fit_data(est, X, y, is_classifier, reset):
    """``validate_data`` of ``fit``; plain float X with a finite numeric 1-d y
    of the same length takes the shortcut of :func:`_plain_float_X` (what
    ``validate_data`` returns for them, and the ``n_features_in_`` it sets;
    anything else, or a width that does not match, goes through it, errors
    and warnings included)."""
    if (_plain_float_X(est, X) and type(y) is np.ndarray and y.ndim == 1
            and y.dtype.kind in "iuf" and y.shape[0] == X.shape[0]
            and (y.dtype.kind != "f" or np.isfinite(y.sum()))
            and (reset or X.shape[1] == getattr(est, "n_features_in_", None))):
        if reset:
            est.n_features_in_ = X.shape[1]
        return X, y
    return validate_data(est, X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                         accept_sparse=["csr", "csc"], y_numeric=not is_classifier,
                         reset=reset)


def _take(X, rows):
    """Rows of a dense array or a sparse matrix (all of them: X itself)."""
    if rows is None or rows.shape[0] == X.shape[0] and np.array_equal(
            rows, np.arange(X.shape[0])):
        return X
    return X[rows]


class _BaseGradientBoosting(_MembersSequenceMixin, BaseEstimator):
    """The boosting loop shared by the classifier and the regressor."""

    _common_constraints = {
        "learning_rate": [Interval(Real, 0.0, None, closed="left")],
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
        "criterion": [Options({"deprecated", "friedman_mse", "squared_error"})],
        **TREE_GROWTH_CONSTRAINTS,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "warm_start": ["boolean"],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "max_bins": [Interval(Integral, 3, 256, closed="both"), None],
        "categorical_features": ["array-like", None],
        "n_jobs": [Integral, None],
    }

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's parameter names (from ``__init__``'s signature),
        found once per class and ``__init__``: ``inspect.signature`` is ~60 us
        of every ``get_params``, ``set_params`` and ``clone`` (a search's
        candidates make hundreds of them)."""
        key = (cls, cls.__init__)
        names = _PARAM_NAMES.get(key)
        if names is None:
            names = _PARAM_NAMES[key] = tuple(super()._get_param_names())
        return list(names)

    # -- fit -----------------------------------------------------------------
    @property
    def n_trees_per_iteration_(self):
        """Trees grown per boosting stage: 1, or the number of classes (K > 2)."""
        check_is_fitted(self)
        return self.estimators_.shape[1]

    def _is_fitted(self):
        return len(getattr(self, "estimators_", [])) > 0

    def _clear_state(self):
        for name in ("estimators_", "train_score_", "oob_improvement_", "oob_scores_",
                     "oob_score_", "init_", "_rng", "n_estimators_", "_packed",
                     "_columns", "_binned_cache", "_labels_cache", "_raw_cache"):
            if hasattr(self, name):
                delattr(self, name)

    def _fit(self, X, y, sample_weight, is_classifier, monitor):
        # The values of the declared parameters, read directly (``get_params``
        # inspects the signature, ~30 us), and checked when they are not the
        # very objects the last fit checked (all checks take ~25 us; together
        # a sixth of a one-tree warm-start fit on 284 rows).
        values = {name: getattr(self, name) for name in self._parameter_constraints}
        checked = getattr(self, "_checked_params", None)
        validate_params(self, values if checked is None else {
            name: value for name, value in values.items()
            if checked.get(name, _UNCHECKED) is not value})
        self._checked_params = values
        if self.criterion != "deprecated":
            # scikit-learn 1.9's deprecation, to the word: the trees split on
            # the squared error of the pseudo-residuals whatever the value.
            warnings.warn(
                "The parameter `criterion` is deprecated and will be removed in 1.11. "
                "It has no effect. Leave it to its default value to avoid this "
                "warning.", FutureWarning)
        if monitor is not None and not callable(monitor):
            raise TypeError(f"monitor must be a callable or None, got {monitor!r}.")
        if not self.warm_start:
            self._clear_state()
        resume = self._is_fitted()
        y_owner = y  # the object the shared label codes are kept beside
        X, y = _validate_fit_data(self, X, y, is_classifier, reset=not resume)
        check_sparse_finite(X)
        if sparse.issparse(X):
            # Columns for the binning / the exact split search; rows are
            # selected from CSC as well (zero weights, validation split).
            X = sparse.csc_matrix(X)
        weighted = sample_weight is not None
        sample_weight = check_sample_weight(sample_weight, X)
        if is_classifier:
            classes, y = self._encode_y(y, y_owner, sample_weight, weighted)
            n_weighted = np.count_nonzero(
                np.bincount(y, weights=sample_weight, minlength=len(classes)) > 0)
            if n_weighted < 2:
                if weighted and n_weighted < len(classes):
                    # scikit-learn's words for classes left with zero weight.
                    raise ValueError(
                        f"y contains {n_weighted} class after sample_weight trimmed "
                        "classes with zero weights, while a minimum of 2 classes "
                        "are required.")
                check_n_classes(classes, 2)
            if resume and not np.array_equal(classes, self.classes_):
                raise ValueError(
                    "warm_start=True needs the same classes as the first fit.")
            self.classes_, self.n_classes_ = classes, len(classes)
            if self.loss == "exponential" and self.n_classes_ > 2:
                raise ValueError(
                    "loss='exponential' is only suitable for a binary classification "
                    f"problem, you have n_classes={self.n_classes_}. Please use "
                    "loss='log_loss' instead."
                )
            y = y.astype(np.float64)
            self._loss = make_loss(self.loss, self.n_classes_)
        else:
            y = y.astype(np.float64)
            self._loss = make_loss(self.loss, 1, self.alpha)
        if weighted and np.any(sample_weight == 0):
            # A zero-weight row changes nothing (trees, leaf values, losses)
            # except the bin edges; dropping it makes weight 0 == removal.
            keep = sample_weight > 0
            X, y, sample_weight = X[keep], y[keep], sample_weight[keep]
        init_est = None if self.init is None or isinstance(self.init, str) else self.init
        if init_est is not None and not resume and weighted and not has_fit_parameter(
                init_est, "sample_weight"):
            raise ValueError(f"The initial estimator {type(init_est).__name__} does not "
                             "support sample weights.")
        X_init = X  # what an initial estimator sees: X before category coding
        n_features = X.shape[1]
        self.max_features_ = resolve_max_features(self.max_features, n_features)
        if not resume:
            mask = categorical_mask(self.categorical_features, n_features)
            if mask.any() and self.max_bins is not None:
                raise ValueError(
                    "categorical_features needs the exact mode (max_bins=None): the "
                    "histogram mode splits numeric features only."
                )
            if mask.any() and sparse.issparse(X):
                raise ValueError("categorical_features are not supported with sparse X; "
                                 "pass a dense X.")
            self._cat_columns = np.flatnonzero(mask)
            self.categories_ = [np.unique(X[~np.isnan(X[:, j]), j])
                                for j in self._cat_columns]
        X = self._encode_X(X)

        rows = np.arange(X.shape[0])
        if self.n_iter_no_change is not None:
            # The rows ride along: the split of (X, y, w) is the same with them.
            (X_train, X_val, y_train, y_val, w_train, w_val,
             rows_train, rows_val) = train_test_split(
                X, y, sample_weight, rows, random_state=self.random_state,
                test_size=self.validation_fraction,
                stratify=y if is_classifier else None,
            )
            if is_classifier and np.unique(y_train).shape[0] != self.n_classes_:
                raise ValueError(
                    "The training data after the early stopping split is missing some "
                    "classes. Try another random_state or validation_fraction."
                )
        else:
            X_train, y_train, w_train = X, y, sample_weight
            X_val = y_val = w_val = None
            rows_train, rows_val = rows, None

        K = self._loss.K
        if not resume:
            if init_est is not None:
                self.init_ = self._fit_init(clone(init_est), _take(X_init, rows_train),
                                            y_train, w_train if weighted else None,
                                            is_classifier)
            elif self.init == "zero":
                self.init_ = np.zeros(K)
            else:
                self.init_ = np.asarray(self._loss.init_raw(y_train, w_train, weighted),
                                        dtype=np.float64).reshape(K)
            self.estimators_ = np.empty((0, K), dtype=object)
            self.train_score_ = np.zeros(0)
            if self.subsample < 1.0:
                self.oob_improvement_ = np.zeros(0)
                self.oob_scores_ = np.zeros(0)
            self._rng = check_random_state(self.random_state)
        elif self.n_estimators < self.estimators_.shape[0]:
            raise ValueError(
                f"n_estimators={self.n_estimators} must be larger or equal to "
                f"estimators_.shape[0]={self.estimators_.shape[0]} when "
                "warm_start=True."
            )
        begin = self.estimators_.shape[0]
        if begin == self.n_estimators:
            return self
        n_threads = self._hist_threads()
        # Histogram mode bins the training rows once for all the rounds, and
        # a warm-start fit finds them binned by a previous fit on the same X
        # (see _binned); its training scores are then the previous fit's.
        X_c = (X_train.tocsr() if sparse.issparse(X_train)
               else np.ascontiguousarray(X_train))
        binned_key = None
        if self.max_bins is not None and self.warm_start:
            binned_key = self._binned_key(X_c)
        raw = self._cached_raw(binned_key, begin, X_val is None and monitor is None)
        if raw is None:
            raw = self._raw_predict_validated(
                X_train, self._init_raw(_take(X_init, rows_train)))
        raw_val = None if X_val is None else self._raw_predict_validated(
            X_val, self._init_raw(_take(X_init, rows_val)))
        n_new = self.n_estimators - begin
        self.estimators_ = np.concatenate(
            [self.estimators_, np.empty((n_new, K), dtype=object)])
        self.train_score_ = np.concatenate([self.train_score_, np.zeros(n_new)])
        if self.subsample < 1.0:
            if not hasattr(self, "oob_improvement_"):
                self.oob_improvement_ = np.zeros(begin)
                self.oob_scores_ = np.zeros(begin)
            self.oob_improvement_ = np.concatenate(
                [self.oob_improvement_, np.zeros(n_new)])
            self.oob_scores_ = np.concatenate([self.oob_scores_, np.zeros(n_new)])
        outer_threads = numba.get_num_threads() if n_threads > 1 else None
        self._raw_cache = None  # until the fit below completes
        try:
            if outer_threads is not None:
                numba.set_num_threads(n_threads)
            self._loss.n_threads = n_threads
            n_stages = self._fit_stages(X_train, X_c, binned_key, y_train, w_train, raw,
                                        X_val, y_val, w_val, raw_val, begin, monitor,
                                        n_threads)
        finally:
            self._loss.n_threads = 1
            if outer_threads is not None:
                numba.set_num_threads(outer_threads)
        self.estimators_ = self.estimators_[:n_stages]
        self.train_score_ = self.train_score_[:n_stages]
        if hasattr(self, "oob_improvement_"):
            self.oob_improvement_ = self.oob_improvement_[:n_stages]
            self.oob_scores_ = self.oob_scores_[:n_stages]
            if self.subsample < 1.0:
                self.oob_score_ = float(self.oob_scores_[-1])
        self.n_estimators_ = n_stages
        self._pack(begin)
        if binned_key is not None and X_val is None and monitor is None:
            # The training rows' raw scores after these rounds: the next
            # warm-start fit on the same X starts from them instead of walking
            # the trees again (the same sums, added in the same order). Not
            # with a monitor (it is handed the raw scores) or early stopping.
            self._raw_cache = (binned_key, self.learning_rate, n_stages, raw)
        return self

    def _cached_raw(self, binned_key, begin, allowed):
        """A copy of the raw scores the last fit left, if they are those of
        the trees now fitted (``begin`` of them) on the same training rows
        with the same learning rate; else None."""
        cache = getattr(self, "_raw_cache", None)
        if (not allowed or binned_key is None or cache is None or cache[0] != binned_key
                or cache[1] != self.learning_rate or cache[2] != begin):
            return None
        return cache[3].copy()

    def _encode_y(self, y, owner, sample_weight, weighted):
        """``encode_labels(y)``; warm-start fits reuse the last fit's classes
        and codes for unweighted labels of the same dtype, shape and bytes
        (``np.unique`` and scikit-learn's target checks cost ~0.1 ms, ~3% of
        an 8-tree continuation on 284 rows; the digest ~1 us), and so does
        the first warm-start fit of another estimator on the same ``y``
        object ``owner`` (``_SHARED_LABELS``: the candidates of a search,
        fresh clones fitting one fold's labels)."""
        key = None
        if self.warm_start and not weighted and y.dtype != object:
            digest = hashlib.blake2b(np.ascontiguousarray(y).data, digest_size=16)
            key = (y.dtype.str, y.shape, digest.digest())
            cache = getattr(self, "_labels_cache", None)
            if cache is not None and cache[0] == key:
                return cache[1], cache[2]
            shared = _shared_binned(owner, key, _SHARED_LABELS)
            if shared is not None:
                # classes_ is the estimator's own (a user may edit it).
                self._labels_cache = (key, shared[0].copy(), shared[1])
                return self._labels_cache[1], shared[1]
        classes, codes = encode_labels(y, min_classes=1, sample_weight=sample_weight)
        if key is not None:
            self._labels_cache = (key, classes, codes)
            _share_binned(owner, key, (classes.copy(), codes), _SHARED_LABELS)
        return classes, codes

    def _fit_init(self, est, X, y, sample_weight, is_classifier):
        """Fit the initial estimator ``init`` (classifiers on the codes
        ``0..K-1``, as the trees)."""
        y_init = y.astype(np.intp) if is_classifier else y
        if sample_weight is None:
            est.fit(X, y_init)
        else:
            est.fit(X, y_init, sample_weight=sample_weight)
        return est

    def _init_raw(self, X):
        """The raw scores :math:`F_0(x)` of the rows of ``X`` (as validated,
        before category coding), shape (n_samples, K): the constant, or the
        initial estimator's predictions (a classifier's probabilities through
        the loss's link, log-odds or multinomial logit)."""
        n = X.shape[0]
        if isinstance(self.init_, np.ndarray):
            return np.tile(self.init_, (n, 1))
        if not self._loss.is_classification:
            return np.asarray(self.init_.predict(X), dtype=np.float64).reshape(n, 1)
        proba = np.asarray(self.init_.predict_proba(X), dtype=np.float64)
        seen = np.asarray(getattr(self.init_, "classes_", np.arange(proba.shape[1])))
        if proba.shape[1] != self.n_classes_:
            # A class the initial estimator never saw (e.g. not in the
            # early-stopping training part) gets probability 0.
            full = np.zeros((n, self.n_classes_))
            full[:, seen.astype(np.intp)] = proba
            proba = full
        return self._loss.link(proba)

    def _hist_threads(self):
        """numba threads of the fit (see ``n_jobs``): ``n_jobs`` (None: 1 unless in
        a joblib ``parallel_config``, -1: all CPUs) capped by numba's pool
        (``NUMBA_NUM_THREADS``); 1 in exact mode."""
        if self.max_bins is None:
            return 1
        return max(1, min(resolve_n_jobs(self.n_jobs), numba.config.NUMBA_NUM_THREADS))

    def _tree_params(self, n_samples):
        min_leaf, min_split = resolve_min_samples(self.min_samples_leaf,
                                                  self.min_samples_split, n_samples)
        return dict(
            max_features=self.max_features_, max_depth=self.max_depth,
            min_samples_split=min_split, min_samples_leaf=min_leaf,
            min_impurity_decrease=self.min_impurity_decrease,
            max_leaf_nodes=self.max_leaf_nodes,
        )

    def _fit_stages(self, X, X_c, binned_key, y, w, raw, X_val, y_val, w_val, raw_val,
                    begin, monitor, n_threads):
        loss, rng, lr = self._loss, self._rng, self.learning_rate
        n_samples = X.shape[0]
        K = loss.K
        do_oob = self.subsample < 1.0
        n_inbag = max(1, int(self.subsample * n_samples))
        params = self._tree_params(n_samples)
        slots = np.zeros(X.shape[1], dtype=np.intp)
        for j, cats in zip(self._cat_columns, self.categories_):
            slots[j] = max(len(cats), 1)
        if slots.any():
            params["n_category_slots"] = slots
        # Exact mode scans Fortran columns; prediction walks C rows (X_c).
        # Histogram mode bins every feature once for all the rounds (and for
        # the next warm-start fit on the same X, see _binned).
        # Sparse X: CSC columns for the growth, CSR rows for the tree walks.
        binned = None
        X_f = column_scales = None
        if self.max_bins is None:
            X_f = X if sparse.issparse(X) else np.asfortranarray(X)
            column_scales = tiny_column_scales(X_f)  # once, not per tree
        else:
            binned = self._binned(X_c, binned_key, n_threads)
            codes_T = binned.codes.T  # feature-major view of the Fortran codes
            codes_R = np.ascontiguousarray(binned.codes)  # and sample-major
            leaf_of = np.empty(n_samples, dtype=np.intp)
        X_val_c = (None if X_val is None else X_val.tocsr() if sparse.issparse(X_val)
                   else np.ascontiguousarray(X_val))
        history = None if X_val is None else np.full(self.n_iter_no_change, np.inf)
        reporter = (_VerboseReporter(self.verbose, do_oob, begin)
                    if self.verbose else None)
        y_k = ([np.asarray(y == k, dtype=np.float64) for k in range(K)]
               if K > 1 else [y])
        w_round = w
        inbag = None
        # Without a subsample, a fused loss gives the round's training loss
        # and the next round's gradient in one pass.
        fused = loss.fuses_gradient and not do_oob
        neg_grad = None
        # One kernel call for the arithmetic of a one-tree round whose rows'
        # leaves the growth gave (fused_round), on one thread as the loss's
        # own pass would be; not with a monitor (it sees the round's locals).
        round_kind = None
        if (fused and K == 1 and binned is not None and self.ccp_alpha == 0.0
                and monitor is None and (n_threads == 1 or n_samples < PARALLEL_MIN_ROWS)):
            round_kind = loss.fused_kind
            unit = round_kind == _SQUARED or bool(np.all(w == 1.0))
        member_params = self._member_params()
        i = begin
        for i in range(begin, self.n_estimators):
            if do_oob:
                # scikit-learn's draw (one uniform per row, selection
                # sampling), then its tree seeds, from the same generator: a
                # random_state gives scikit-learn's subsamples.
                inbag = np.empty(n_samples, dtype=bool)
                subsample_mask(rng.uniform(size=n_samples), n_inbag, inbag)
                oob = ~inbag
                w_round = w * inbag
                if i == 0:
                    initial_oob_loss = loss(y[oob], raw[oob], w[oob])
            loss.begin_round(y, raw, w)
            if not fused or neg_grad is None:
                neg_grad = -loss.gradient(y, raw)
            w_leaf = w_round.sum() * self.min_weight_fraction_leaf
            for k in range(K):
                g_k = np.ascontiguousarray(neg_grad[:, k])
                seed = rng.randint(MAX_INT)
                if binned is None:
                    tree = grow_tree(X_f, g_k, w_round, criterion="squared_error",
                                     seed=seed, min_weight_leaf=w_leaf,
                                     column_scales=column_scales, **params)
                    leaf = None
                else:
                    tree = _grow_hist(binned, codes_T, codes_R, g_k, w_round, seed,
                                      w_leaf, params, leaf_of, n_threads)
                    leaf = leaf_of
                if self.ccp_alpha > 0.0:
                    prune_tree(tree, self.ccp_alpha)
                    leaf = None  # pruning merges leaves: walk the pruned tree
                if leaf is None:
                    leaf = tree.apply(X_c)
                elif do_oob:
                    # Rows out of the round's subsample were not in the growth.
                    out = leaf < 0
                    leaf = leaf.copy()
                    leaf[out] = tree.apply(X_c[out])
                if round_kind is not None:
                    # Leaf values, scores, then the round's loss and the next
                    # round's gradient, written over g_k.
                    self.train_score_[i] = fused_round(
                        round_kind, leaf, y, g_k, w, unit, tree.children_left,
                        tree.value[:, 0, 0], raw[:, 0], lr)
                    neg_grad = g_k[:, None]
                else:
                    if not isinstance(loss, SquaredError):
                        # The line search / Newton step of the actual loss
                        # replaces the least-squares leaf means (notes B §9.5).
                        values = loss.leaf_values(y_k[k], raw, g_k, leaf, w_round,
                                                  tree.node_count, k)
                        is_leaf = tree.children_left == TREE_LEAF
                        tree.value[is_leaf, 0, 0] = values[is_leaf]
                    add_leaf_values(raw[:, k], leaf,
                                    np.ascontiguousarray(tree.value[:, 0, 0]), lr)
                if raw_val is not None:
                    raw_val[:, k] += lr * tree.value[tree.apply(X_val_c), 0, 0]
                self.estimators_[i, k] = self._member(tree, seed, member_params)
            if do_oob:
                self.train_score_[i] = loss(y[inbag], raw[inbag], w[inbag])
                self.oob_scores_[i] = loss(y[oob], raw[oob], w[oob])
                previous = initial_oob_loss if i == 0 else self.oob_scores_[i - 1]
                self.oob_improvement_[i] = previous - self.oob_scores_[i]
            elif round_kind is not None:
                pass  # train_score_[i] and neg_grad came from fused_round
            elif fused:
                self.train_score_[i], neg_grad = loss.loss_and_neg_gradient(y, raw, w)
            else:
                self.train_score_[i] = loss(y, raw, w)
            if reporter is not None:
                reporter.update(i, self)
            # scikit-learn's hook: after the round, before early stopping; a
            # true return keeps rounds 0..i and stops.
            if monitor is not None and monitor(i, self, locals()):
                break
            if history is not None:
                val_loss = loss(y_val, raw_val, w_val)
                if np.any(val_loss + self.tol < history):
                    history[i % history.shape[0]] = val_loss
                else:
                    break
        return i + 1

    def _binned(self, X, key, n_threads):
        """``bin_features(X, max_bins)``, reused by a warm-start fit on the same X.

        The rule: the codes of the previous fit are reused when the array to
        bin has the same shape and ``max_bins`` and the same bytes, checked by
        a 128-bit BLAKE2b digest of all of X's float64 data (about 1 GB/s,
        ~0.2% of a fit; a sample of rows could miss an edited value). The
        codes are kept on the estimator between fits but not pickled, and
        beside the array object they were computed from (``_SHARED_BINNED``,
        for as long as that array lives), so that other warm-start estimators
        fitting the very same array with the same bytes (the candidates of a
        search, each a fresh clone on its fold's ``X``) reuse them as well:
        on 284 x 30 rows binning is ~15% of an 8-tree fit. Without
        ``warm_start`` the next fit starts afresh: X is binned without the
        digest (~1.5% of a 200k x 20 fit) and nothing is kept. ``key`` is
        :meth:`_binned_key` of X for a warm-start fit (None otherwise).
        """
        if key is None:
            return self._bin_features(X, n_threads)
        cache = getattr(self, "_binned_cache", None)
        if cache is not None and cache[0] == key:
            return cache[1]
        binned = _shared_binned(X, key)  # kept beside the array object X
        if binned is None:
            binned = self._bin_features(X, n_threads)
            _share_binned(X, key, binned)
        self._binned_cache = (key, binned)
        return binned

    def _binned_key(self, X):
        """What the codes of X depend on: shape, ``max_bins`` and a digest of
        all its values (a sparse X's as CSC)."""
        digest = hashlib.blake2b(digest_size=16)
        if sparse.issparse(X):
            X = sparse.csc_matrix(X)
            for part in (X.data, X.indices, X.indptr):
                digest.update(np.ascontiguousarray(part).data)
        else:
            digest.update(np.ascontiguousarray(X).data)
        return (X.shape, self.max_bins, sparse.issparse(X), digest.digest())

    def _bin_features(self, X, n_threads):
        # bin_features' edges and codes, 5x faster (bin_columns); the same
        # from a sparse X's stored values (bin_csc); dense columns binned
        # n_jobs at a time (the same codes).
        if sparse.issparse(X):
            return BinnedFeatures(*bin_csc(sparse.csc_matrix(X), self.max_bins))
        return BinnedFeatures(*bin_columns(X, self.max_bins, n_threads))

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_binned_cache", None)
        state.pop("_labels_cache", None)
        state.pop("_raw_cache", None)
        state.pop("_checked_params", None)
        return state

    def __setstate__(self, state):
        # (a pickle from a machine of the other byte order: see native_byte_order)
        super().__setstate__(native_byte_order(state))

    def _member_params(self):
        """What :meth:`_member` gives every tree of this fit: the trees'
        parameters but ``random_state`` (and ``categorical_features``, a copy
        per tree), and ``_from_grown``'s keywords; made once per fit."""
        params = dict(
            max_depth=self.max_depth, min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_weight_fraction_leaf=self.min_weight_fraction_leaf,
            max_features=self.max_features, max_leaf_nodes=self.max_leaf_nodes,
            min_impurity_decrease=self.min_impurity_decrease, ccp_alpha=self.ccp_alpha,
        )
        keywords = dict(
            n_features_in=self.n_features_in_, max_features=self.max_features_,
            feature_names_in=getattr(self, "feature_names_in_", None),
            categories=self.categories_, cat_columns=self._cat_columns)
        return params, keywords

    def _member(self, tree, seed, member_params):
        """A fitted :class:`~skml.tree.DecisionTreeRegressor` around ``tree``
        (``member_params``: :meth:`_member_params`)."""
        params, keywords = member_params
        params = dict(params, random_state=seed, categorical_features=(
            None if not len(self._cat_columns) else self._cat_columns.copy()))
        return DecisionTreeRegressor._from_grown(tree, params, **keywords)

    # -- prediction ----------------------------------------------------------
    def _encode_X(self, X):
        return encode_categories(X, self._cat_columns, self.categories_)

    def _check_X_predict(self, X):
        """X validated (CSR if sparse), before category coding."""
        check_is_fitted(self)
        if _plain_float_X(self, X) and X.shape[1] == self.n_features_in_:
            return X
        X = validate_data(self, X, reset=False, dtype=np.float64,
                          ensure_all_finite="allow-nan", order="C",
                          accept_sparse=["csr", "csc"])
        check_sparse_finite(X)
        if sparse.issparse(X):
            return sparse.csr_matrix(X)
        return X

    def _validate_X_predict(self, X):
        X = self._check_X_predict(X)
        return X if sparse.issparse(X) else self._encode_X(X)

    def _predict_inputs(self, X):
        """(X as the trees read it, the initial raw scores of its rows)."""
        X = self._check_X_predict(X)
        raw0 = self._init_raw(X)
        return (X if sparse.issparse(X) else self._encode_X(X)), raw0

    def _pack(self, begin=0):
        """Pack the trees for prediction; tree ``t`` adds to raw column ``t % K``.

        A warm-start fit that began at stage ``begin`` packs only its new
        trees and appends them to the last fit's packing (the records one
        packing of all the trees gives: its right-child record numbers moved
        by the old record count); with categorical splits (a shared pool of
        children) everything is packed again.
        """
        n_stages, K = self.estimators_.shape
        trees = [est.tree_ for est in self.estimators_.ravel()]
        old, n_old = getattr(self, "_packed", None), begin * K
        self._columns = np.arange(n_stages * K, dtype=np.intp) % K  # (np.tile: ~15 us)
        if (old is not None and 0 < n_old < len(trees)
                and old.roots.shape[0] == n_old and not old.pool.size):
            new = pack_trees(trees[n_old:])
            child = new.nodes["child"]
            if not new.pool.size and not (child < -1).any():  # no categorical node
                offset = old.nodes.shape[0]
                child[child >= 0] += np.int64(offset) << _RIGHT_SHIFT
                self._packed = PackedTrees(
                    np.concatenate([old.nodes, new.nodes]),
                    np.concatenate([old.values, new.values]),
                    np.concatenate([old.roots, new.roots + offset]),
                    old.pool, np.concatenate([old.node_id, new.node_id]))
                return
        self._packed = pack_trees(trees)

    def _add_trees(self, X, start, stop, raw):
        """``raw += learning_rate *`` the leaf values of trees ``start:stop``."""
        p = self._packed
        if sparse.issparse(X):
            sum_leaf_values_csr(X.data, X.indices, X.indptr, X.shape[1], p.nodes,
                                p.values, p.pool, p.roots[start:stop],
                                self._columns[start:stop], self.learning_rate, raw)
            return
        sum_leaf_values(X, p.nodes, p.values, p.pool, p.roots[start:stop],
                        self._columns[start:stop], self.learning_rate, raw)

    def _raw_predict_validated(self, X, raw0):
        """``raw0`` (the rows' initial scores, overwritten) plus the trees'."""
        X = (sparse.csr_matrix(X, dtype=np.float64) if sparse.issparse(X)
             else np.ascontiguousarray(X, dtype=np.float64))
        raw = np.array(raw0, dtype=np.float64, order="C")
        if self.estimators_.size:
            self._add_trees(X, 0, self.estimators_.size, raw)
        return raw

    def _staged_raw(self, X, raw0):
        """Yield the raw scores after each stage (the same array, updated),
        from the rows' initial scores ``raw0``."""
        X = (sparse.csr_matrix(X, dtype=np.float64) if sparse.issparse(X)
             else np.ascontiguousarray(X, dtype=np.float64))
        raw = np.array(raw0, dtype=np.float64, order="C")
        K = self.estimators_.shape[1]
        for i in range(self.estimators_.shape[0]):
            self._add_trees(X, i * K, (i + 1) * K, raw)
            yield raw

    def _raw_predict(self, X):
        return self._raw_predict_validated(*self._predict_inputs(X))

    @fill_doc(X=PARAMETERS_X_MISSING)
    def apply(self, X):
        """Leaf reached by each sample in every tree.

        <X>

        Returns
        -------
        X_leaves : ndarray of shape (n_samples, `n_estimators_`, K)
            Leaf ids; ``K`` is 1 except for the multinomial loss, and the
            regressor drops that axis (shape (n_samples, `n_estimators_`)).
        """
        X = self._validate_X_predict(X)
        leaves = leaf_ids(self._packed, X)
        return leaves.reshape(X.shape[0], *self.estimators_.shape)

    @property
    def feature_importances_(self):
        """Impurity-decrease importances averaged over the trees (normalised).

        Returns
        -------
        feature_importances_ : ndarray of shape (n_features,)
        """
        check_is_fitted(self)
        imps = [est.tree_.compute_feature_importances(normalize=False)
                for est in self.estimators_.ravel() if est.tree_.node_count > 1]
        if not imps:
            return np.zeros(self.n_features_in_)
        avg = np.mean(imps, axis=0)
        total = avg.sum()
        return avg / total if total > 0 else avg

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        return tags


_DOC_SHARED = """
    learning_rate : float, default=0.1
        Shrinkage :math:`\\nu` of every tree, :math:`F_t = F_{t-1} + \\nu
        h_t`. The notes have none (``learning_rate=1.0`` is their algorithm).
    n_estimators : int, default=100
        Number of boosting rounds.
    subsample : float, default=1.0
        Fraction of the samples (drawn without replacement each round) that
        grow the round's trees and set their leaf values; below 1.0 this is
        stochastic gradient boosting and the left-out samples give
        ``oob_scores_`` and ``oob_improvement_``.
    criterion : {"friedman_mse", "squared_error"}, default="deprecated"
        No effect, deprecated as in scikit-learn 1.9 (a FutureWarning when
        set): both values mean the trees' split rule, the squared error of
        the pseudo-residuals, and give the same splits (see Notes).
    min_samples_split : int or float, default=2
        Fewest samples (a fraction of them if float) a node needs to split.
    min_samples_leaf : int or float, default=1
        Fewest samples (or fraction) in every leaf.
    min_weight_fraction_leaf : float, default=0.0
        Fewest total sample weight in a leaf, as a fraction of the round's.
    max_depth : int or None, default=3
        Depth of every tree; None grows until another rule stops it.
    min_impurity_decrease : float, default=0.0
        Split a node only if the weighted variance decrease reaches this.
    init : estimator, "zero" or None, default=None
        The start :math:`F_0`: None is the loss's optimal constant (mean,
        median, quantile, log prior odds), "zero" starts from 0 (the notes'
        D4 presentation, :math:`g_0 = 0`). An estimator (with ``fit`` and
        ``predict``, for the classifier ``predict_proba``) is cloned, fitted
        on the training data (the classifier's on the class codes
        ``0..K-1``, with ``sample_weight`` when given: it must take it), and
        its predictions start the boosting; a classifier's probabilities
        enter through the loss's link (log odds, half log odds for
        "exponential", the centred log for the multinomial).
    random_state : int, RandomState instance or None, default=None
        Seeds the subsamples (scikit-learn's draws: the same rows for the
        same seed), each tree's feature order (ties and ``max_features``)
        and the early-stopping split.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features examined per split.
    verbose : int, default=0
        1 prints progress lines (rounds 1-10, then every 10th, every 100th,
        ...), more prints every round.
    max_leaf_nodes : int or None, default=None
        Grow every tree best-first up to this many leaves.
    warm_start : bool, default=False
        Keep the fitted trees and add rounds up to ``n_estimators`` (in
        histogram mode the binned X is reused when X is the same).
    validation_fraction : float, default=0.1
        Share of the training data set aside for early stopping (stratified
        for the classifier), used only with ``n_iter_no_change``.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by ``tol`` on any of
        the last ``n_iter_no_change`` rounds' values (scikit-learn's rule).
    tol : float, default=1e-4
        Improvement that counts for early stopping.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning of every tree before its leaf values
        are set.
    max_bins : int in [3, 256] or None, default=256
        Histogram mode: every feature is binned once into at most
        ``max_bins - 1`` quantile bins plus one for NaN, and the trees scan
        bin sums (scikit-learn's ``HistGradientBoosting`` idea); ``None``
        is the exact mode, scanning every midpoint of the sorted values like
        scikit-learn's ``GradientBoosting*``. The default is the histogram
        mode because on the 20 000 x 20 benchmark sets it fits 100 rounds
        8-13x faster than the exact mode with the same test score (see
        the ensemble benchmarks page); use ``None`` to reproduce
        scikit-learn's ``GradientBoosting*`` trees. Both modes route NaN
        to the child learnt at fit.
    categorical_features : array-like of int or bool, or None, default=None
        Features split multiway, one branch per category (the exact
        builder's ID3-style splits; exact mode only, ``max_bins=None``):
        indices or a boolean mask. Categories unseen at fit go to the
        node's most populated child.
    n_jobs : int or None, default=None
        Histogram mode: numba threads for the fit (-1: all CPUs; None: 1
        unless in a joblib ``parallel_config``; at most
        ``NUMBA_NUM_THREADS``). They share the features of each node's
        histograms and, on large data, the rows of the loss and gradient
        pass and of the large nodes' partitions, and the binning's columns. The model does not depend on it (trees,
        scores and ``train_score_`` to the bit): every sum is taken in the
        same order whatever the number of threads. No effect in exact mode.
"""

_DOC_NOTES = """
    Each round costs one tree growth plus :math:`O(n)` vector work for the
    gradient and the leaf values (the quantile losses sort the residuals by
    leaf, :math:`O(n \\log n)`). In exact mode a tree of depth :math:`d`
    costs :math:`O(p\\, n\\, d)` after one presort per tree; in histogram
    mode the features are binned once (:math:`O(p\\, n \\log n)`) and a
    tree costs :math:`O(p\\, n\\, d)` byte-code reads plus
    :math:`O(p \\cdot \\text{bins})` per node, with each pair of siblings
    summing only the smaller one's histogram. What makes it fast: the codes
    are uint8, read feature-major at the root and sample-major below it;
    with unit weights a bin's weight is its count (not summed); children
    that must be leaves get no histogram; the training scores are updated
    from the leaf each row reached during growth (no tree walk); the binary
    log loss's gradient and training loss take one ``exp`` per row. A
    ``warm_start`` fit on the same X (same shape, ``max_bins`` and bytes,
    by a BLAKE2b digest of all of X) reuses the previous fit's codes.

    Line search per leaf (notes B §9.5, Friedman's Algorithm 1 step 5): the
    squared loss needs none, because the least-squares leaf value is
    already the mean residual and the optimal multiplier of the whole tree
    is exactly 1; the absolute and quantile losses take the leaf's weighted
    median / ``alpha``-quantile of the residuals, Huber Friedman's one-step
    estimate, and the log losses one Newton step
    :math:`\\sum w\\, g / \\sum w\\, h` (times :math:`(K-1)/K` for the
    multinomial, as scikit-learn and Friedman 2001). Leaf values are stored
    unshrunk in the trees; prediction multiplies by ``learning_rate``.

    ``criterion`` is accepted and deprecated as in scikit-learn 1.9 (no
    effect, a FutureWarning when set): every tree, exact or histogram,
    splits on the weighted squared error of the pseudo-residuals (unit
    hessians; the loss enters through the leaf values only, as in
    scikit-learn), and Friedman's MSE improvement :math:`\\frac{w_L
    w_R}{w_L + w_R}(\\bar y_L - \\bar y_R)^2 = S_L^2/w_L + S_R^2/w_R -
    S^2/w` is the same weighted variance decrease, so "friedman_mse" and
    "squared_error" choose the same splits.
"""


_DOC_FIT = """
sample_weight : array-like of shape (n_samples,), default=None
    Sample weights (in the trees, the leaf values and the losses).
monitor : callable, default=None
    Called after each round ``i`` (0-based, counted over warm
    starts) as ``monitor(i, self, locals())``, as scikit-learn: the
    locals of the round loop (``raw`` the training scores, ``y``,
    ...). A true return stops the fit with rounds ``0..i`` kept
    (``n_estimators_ = i + 1``); it is asked before the early
    stopping rule.
"""

# The blocks of both classes' docstrings.
_DOC = {"shared parameters": _DOC_SHARED, "notes": _DOC_NOTES,
        "fitted_features": FITTED_FEATURE_ATTRIBUTES}


@fill_doc(**_DOC)
class GradientBoostingRegressor(RegressorMixin, _BaseGradientBoosting):
    """Gradient boosting of regression trees for regression (GBDT).

    Friedman's gradient boosting machine, notes B §9.5 (D3's GBDT with the
    standard line search; D4's :math:`g_0 = 0` with ``init="zero"``):
    :math:`F_0` is the loss's best constant, then each round fits a
    least-squares tree to the pseudo-residuals
    :math:`\\tilde y_i = -\\partial \\ell(y_i, F(x_i)) / \\partial F`,
    sets each leaf :math:`R_j` to :math:`\\gamma_j = \\arg\\min_\\gamma
    \\sum_{x_i \\in R_j} w_i \\ell(y_i, F(x_i) + \\gamma)` and adds
    :math:`\\nu \\sum_j \\gamma_j [x \\in R_j]`.

    Parameters
    ----------
    loss : {"squared_error", "absolute_error", "huber", "quantile"}, \
default="squared_error"
        The loss :math:`\\ell`: :math:`(y - F)^2`, :math:`|y - F|`, Huber
        (quadratic up to the ``alpha``-quantile of the absolute residuals,
        re-estimated each round), or the pinball loss of quantile ``alpha``.
    <shared parameters>
    alpha : float, default=0.9
        The quantile of ``loss="quantile"``, and the quantile of the
        absolute residuals that sets Huber's :math:`\\delta`.

    Attributes
    ----------
    estimators_ : ndarray of DecisionTreeRegressor of shape (`n_estimators_`, 1)
        The fitted trees (skml trees whose ``tree_`` holds the unshrunk leaf
        values; ``apply`` and ``predict`` work on each).
    n_estimators_ : int
        Number of rounds kept (fewer than ``n_estimators`` after early stopping).
    train_score_ : ndarray of shape (`n_estimators_`,)
        Training loss after each round (in-bag with ``subsample < 1``), on
        scikit-learn's scale (mean squared error for the squared loss).
    oob_scores_ : ndarray of shape (`n_estimators_`,)
        Out-of-bag loss after each round (``subsample < 1`` only).
    oob_improvement_ : ndarray of shape (`n_estimators_`,)
        Decrease of the out-of-bag loss brought by each round.
    oob_score_ : float
        The last ``oob_scores_``.
    init_ : ndarray of shape (1,) or estimator
        The constant raw prediction :math:`F_0` (0 for ``init="zero"``), or
        the fitted initial estimator when ``init`` is one.
    max_features_ : int
        Features examined per split.
    categories_ : list of ndarray
        Categories of each categorical feature (in code order).
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances averaged over the trees.
    <fitted_features>

    See Also
    --------
    GradientBoostingClassifier : The classification counterpart.
    skml.tree.DecisionTreeRegressor : The trees' builder.

    Notes
    -----
    <notes>

    References
    ----------
    Friedman, "Greedy Function Approximation: A Gradient Boosting Machine",
    Annals of Statistics 29(5), 2001.
    Friedman, "Stochastic Gradient Boosting", CSDA 38(4), 2002.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import GradientBoostingRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = GradientBoostingRegressor(n_estimators=50, random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.6)
    True
    """

    _parameter_constraints = {
        "loss": [Options({"squared_error", "absolute_error", "huber", "quantile"})],
        **_BaseGradientBoosting._common_constraints,
        "init": [Options({"zero"}), None, HasMethods(["fit", "predict"])],
        "alpha": [Interval(Real, 0.0, 1.0, closed="neither")],
    }

    def __init__(self, *, loss="squared_error", learning_rate=0.1, n_estimators=100,
                 subsample=1.0, criterion="deprecated", min_samples_split=2,
                 min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_depth=3, min_impurity_decrease=0.0,
                 init=None, random_state=None, max_features=None, alpha=0.9, verbose=0,
                 max_leaf_nodes=None, warm_start=False, validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, ccp_alpha=0.0, max_bins=256,
                 categorical_features=None, n_jobs=None):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.max_features = max_features
        self.alpha = alpha
        self.verbose = verbose
        self.max_leaf_nodes = max_leaf_nodes
        self.warm_start = warm_start
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs

    @fill_doc(X=PARAMETERS_X_FIT_MISSING, **{"weights and monitor": _DOC_FIT})
    def fit(self, X, y, sample_weight=None, monitor=None):
        """Boost ``n_estimators`` rounds of trees on (X, y).

        <X>
        y : array-like of shape (n_samples,)
            Targets.
        <weights and monitor>

        Returns
        -------
        self : GradientBoostingRegressor
        """
        return self._fit(X, y, sample_weight, is_classifier=False, monitor=monitor)

    @fill_doc(X=PARAMETERS_X_MISSING)
    def predict(self, X):
        """Predicted target :math:`F(x)`.

        <X>

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self._raw_predict(X)[:, 0]

    @fill_doc(X=PARAMETERS_X_MISSING)
    def staged_predict(self, X):
        """Predictions after each round.

        <X>

        Yields
        ------
        y_pred : ndarray of shape (n_samples,)
        """
        for raw in self._staged_raw(*self._predict_inputs(X)):
            yield raw[:, 0].copy()

    @fill_doc(X=PARAMETERS_X_MISSING)
    def apply(self, X):
        """Leaf reached by each sample in every tree.

        <X>

        Returns
        -------
        X_leaves : ndarray of shape (n_samples, `n_estimators_`)
        """
        return super().apply(X)[:, :, 0]


@fill_doc(**_DOC)
class GradientBoostingClassifier(ClassifierMixin, _BaseGradientBoosting):
    """Gradient boosting of regression trees for classification (GBDT).

    Notes B §9.5 and notes A §3: the additive raw score :math:`F(x)` is
    boosted as in :class:`GradientBoostingRegressor` on the log loss
    (probability :math:`\\sigma(F)`, one tree per round) or, for
    :math:`K > 2` classes, the multinomial log loss (softmax of :math:`K`
    scores, :math:`K` trees per round), leaves set by one Newton step; or on
    the exponential loss :math:`e^{-\\tilde y F}` of notes B §9.5 D4, with
    which gradient boosting becomes AdaBoost.

    Parameters
    ----------
    loss : {"log_loss", "exponential"}, default="log_loss"
        The loss; "exponential" is binary only.
    <shared parameters>

    Attributes
    ----------
    estimators_ : ndarray of DecisionTreeRegressor of shape (`n_estimators_`, K)
        The fitted trees, ``K = 1`` for two classes and ``n_classes_``
        otherwise (skml trees whose ``tree_`` holds the unshrunk leaf values).
    n_estimators_ : int
        Number of rounds kept (fewer than ``n_estimators`` after early stopping).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_classes_ : int
        Number of classes.
    train_score_ : ndarray of shape (`n_estimators_`,)
        Training loss after each round (in-bag with ``subsample < 1``), on
        scikit-learn's scale (twice the mean log loss for two classes, the
        mean cross-entropy for more).
    oob_scores_ : ndarray of shape (`n_estimators_`,)
        Out-of-bag loss after each round (``subsample < 1`` only).
    oob_improvement_ : ndarray of shape (`n_estimators_`,)
        Decrease of the out-of-bag loss brought by each round.
    oob_score_ : float
        The last ``oob_scores_``.
    init_ : ndarray of shape (K,) or estimator
        The constant raw scores :math:`F_0`: log prior odds, or the centred
        log priors for :math:`K > 2` (0 for ``init="zero"``); the fitted
        initial estimator when ``init`` is one.
    max_features_ : int
        Features examined per split.
    categories_ : list of ndarray
        Categories of each categorical feature (in code order).
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances averaged over the trees.
    <fitted_features>

    See Also
    --------
    GradientBoostingRegressor : The regression counterpart.
    AdaBoostClassifier : The notes' AdaBoost (exponential loss, re-weighting).

    Notes
    -----
    <notes>

    References
    ----------
    Friedman, "Greedy Function Approximation: A Gradient Boosting Machine",
    Annals of Statistics 29(5), 2001.
    Friedman, Hastie, Tibshirani, "Additive Logistic Regression: a
    Statistical View of Boosting", Annals of Statistics 28(2), 2000.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skml.ensemble import GradientBoostingClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    >>> bool(clf.score(X, y) > 0.95)
    True
    """

    _parameter_constraints = {
        "loss": [Options({"log_loss", "exponential"})],
        **_BaseGradientBoosting._common_constraints,
        "init": [Options({"zero"}), None, HasMethods(["fit", "predict_proba"])],
    }

    def __init__(self, *, loss="log_loss", learning_rate=0.1, n_estimators=100,
                 subsample=1.0, criterion="deprecated", min_samples_split=2,
                 min_samples_leaf=1,
                 min_weight_fraction_leaf=0.0, max_depth=3, min_impurity_decrease=0.0,
                 init=None, random_state=None, max_features=None, verbose=0,
                 max_leaf_nodes=None, warm_start=False, validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, ccp_alpha=0.0, max_bins=256,
                 categorical_features=None, n_jobs=None):
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_depth = max_depth
        self.min_impurity_decrease = min_impurity_decrease
        self.init = init
        self.random_state = random_state
        self.max_features = max_features
        self.verbose = verbose
        self.max_leaf_nodes = max_leaf_nodes
        self.warm_start = warm_start
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.ccp_alpha = ccp_alpha
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs

    @fill_doc(X=PARAMETERS_X_FIT_MISSING, **{"weights and monitor": _DOC_FIT})
    def fit(self, X, y, sample_weight=None, monitor=None):
        """Boost ``n_estimators`` rounds of trees on (X, y).

        <X>
        y : array-like of shape (n_samples,)
            Class labels.
        <weights and monitor>

        Returns
        -------
        self : GradientBoostingClassifier
        """
        return self._fit(X, y, sample_weight, is_classifier=True, monitor=monitor)

    @fill_doc(X=PARAMETERS_X_MISSING)
    def decision_function(self, X):
        """Raw scores :math:`F(x)`.

        <X>

        Returns
        -------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One column (raveled) for two classes: the score of ``classes_[1]``.
        """
        raw = self._raw_predict(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    @fill_doc(X=PARAMETERS_X_MISSING)
    def staged_decision_function(self, X):
        """:meth:`decision_function` after each round.

        <X>

        Yields
        ------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        for raw in self._staged_raw(*self._predict_inputs(X)):
            yield raw[:, 0].copy() if raw.shape[1] == 1 else raw.copy()

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_PROBA)
    def predict_proba(self, X):
        """Class probabilities.

        <X>

        <returns>
        """
        raw = self._raw_predict(X)  # checks fitted before _loss is read
        return self._loss.proba(raw)

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_LOG_PROBA)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <X>

        <returns>
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    @fill_doc(X=PARAMETERS_X_MISSING)
    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each round.

        <X>

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
        """
        for raw in self._staged_raw(*self._predict_inputs(X)):
            yield self._loss.proba(raw)

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_LABELS)
    def predict(self, X):
        """Most probable class.

        <X>

        <returns>
        """
        proba = self.predict_proba(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(proba, axis=1)]

    @fill_doc(X=PARAMETERS_X_MISSING)
    def staged_predict(self, X):
        """:meth:`predict` after each round.

        <X>

        Yields
        ------
        y_pred : ndarray of shape (n_samples,)
        """
        for proba in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(proba, axis=1)]
