"""Decision trees: CART, ID3 and C4.5 classifiers, least-squares/LAD regressors.

Notes B §8 (ID3 §8.4, C4.5 §8.5, bi-partition of continuous attributes §8.6,
CART §8.7-8.8, pruning §8.9) and notes A §2.5-2.6. One engine grows every
tree (:func:`skml.tree._tree.grow_tree`); the criterion picks the variant.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import Bunch, check_consistent_length
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..utils import Interval, Options, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ._prune import prune_tree, pruning_path, reduced_error_prune
from ._tree import (
    MIN_SAMPLES_CONSTRAINTS,
    add_empty_branch_leaves,
    grow_tree,
    resolve_max_features,
    resolve_min_samples,
)
from ..utils.validation import validate_data

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
           "ExtraTreeRegressor"]


def class_weight_per_sample(class_weight, classes, y_enc):
    """Weight of each sample under ``class_weight`` ("balanced" or a dict).

    "balanced" is ``n_samples / (n_classes * count(class))`` on the labels
    alone, sample weights left out, as scikit-learn's ``compute_sample_weight``.
    ``y_enc`` holds class indices into ``classes``.
    """
    n_classes = len(classes)
    if class_weight == "balanced":
        counts = np.bincount(y_enc, minlength=n_classes).astype(float)
        per_class = np.where(counts > 0,
                             len(y_enc) / (n_classes * np.maximum(counts, 1)), 0.0)
    else:
        per_class = np.ones(n_classes)
        for label, weight in class_weight.items():
            idx = np.flatnonzero(classes == label)
            if idx.size == 0:
                raise ValueError(f"class_weight has a label {label!r} not in y.")
            per_class[idx[0]] = weight
    return per_class[y_enc]


def check_target_shape(y):
    """``y`` as 1-d, or 2-d when it has several outputs (a column vector
    becomes 1-d without a warning, as scikit-learn's trees)."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        return y[:, 0]
    if y.ndim == 2 and y.shape[1] == 0:
        raise ValueError("y has 0 outputs; a target needs at least one column.")
    if y.ndim > 2:
        raise ValueError(f"y must be 1-d or 2-d (n_samples, n_outputs), got shape {y.shape}.")
    return y


def encode_multioutput_labels(y, sample_weight=None):
    """Each output's classes (a list of sorted label arrays) and the class
    indices, an int array of y's shape (n_samples, n_outputs)."""
    check_classification_targets(y)
    classes, codes = [], np.empty(y.shape, dtype=np.intp)
    for o in range(y.shape[1]):
        c, codes[:, o] = encode_labels(y[:, o], min_classes=1, sample_weight=sample_weight)
        classes.append(c)
    return classes, codes


def multioutput_class_weight(class_weight, classes, y_enc):
    """Per-sample weights of ``class_weight`` for a multi-output y: the product
    over the outputs of each output's weight ("balanced" per output, or a
    list of one dict per output), as scikit-learn's ``compute_sample_weight``."""
    n_outputs = len(classes)
    weight = np.ones(y_enc.shape[0])
    if class_weight is None:
        return weight
    if isinstance(class_weight, dict) or (not isinstance(class_weight, str)
                                          and len(class_weight) != n_outputs):
        raise ValueError("The number of elements in class_weight should match number "
                         f"of outputs: a multi-output y of {n_outputs} outputs takes "
                         f"'balanced' or a list of {n_outputs} dicts, one per output.")
    for o in range(n_outputs):
        cw = class_weight if isinstance(class_weight, str) else class_weight[o]
        weight *= class_weight_per_sample(cw, classes[o], y_enc[:, o])
    return weight


def categorical_mask(categorical_features, n_features, X_raw=None):
    """Boolean mask of the categorical columns.

    ``categorical_features``: None, feature indices, a boolean mask, or
    "from_dtype" (the pandas categorical columns of ``X_raw``).
    """
    cf = categorical_features
    if cf is None:
        return np.zeros(n_features, dtype=bool)
    if isinstance(cf, str):
        dtypes = getattr(X_raw, "dtypes", None)
        if dtypes is None:
            return np.zeros(n_features, dtype=bool)
        return np.array([_is_categorical_dtype(d) for d in dtypes], dtype=bool)
    cf = np.asarray(cf)
    if cf.dtype == bool:
        if cf.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a boolean mask must have shape "
                f"({n_features},), got {cf.shape}."
            )
        return cf.copy()
    if cf.size and (cf.dtype.kind not in "iu" or cf.min() < -n_features
                    or cf.max() >= n_features):
        raise ValueError(
            "categorical_features must hold feature indices in "
            f"[0, {n_features}), a boolean mask or 'from_dtype'; got {cf!r}."
        )
    mask = np.zeros(n_features, dtype=bool)
    mask[cf.astype(np.intp)] = True
    return mask


def encode_categories(X, cat_columns, categories):
    """Category values -> codes ``0..K-1`` (NaN stays missing, -1 unseen).

    ``categories[i]`` holds the sorted values of column ``cat_columns[i]``
    seen at fit (empty for a column that was all missing).
    """
    if not len(cat_columns):
        return X
    X = X.copy()
    for j, cats in zip(cat_columns, categories):
        col = X[:, j]
        present = ~np.isnan(col)
        if not cats.shape[0]:
            col[present] = -1.0
            continue
        pos = np.minimum(np.searchsorted(cats, col[present]), len(cats) - 1)
        col[present] = np.where(cats[pos] == col[present], pos, -1.0)
    return X


def check_sparse_finite(X):
    """Refuse NaN or infinity stored in a sparse X, as scikit-learn's trees do
    (missing values are supported for dense input only)."""
    # The sum first: finite only if every value is (NaN and infinities
    # propagate), without a mask as long as the stored values (2.3 MiB of a
    # 40k x 100k text matrix's fit); an overflowing sum falls back to it.
    if not sp.issparse(X):
        return
    with np.errstate(over="ignore", invalid="ignore"):
        total = X.data.sum()
    if not np.isfinite(total) and not np.isfinite(X.data).all():
        raise ValueError("Input X contains NaN or infinity; sparse X must be finite "
                         "(missing values are supported for dense X only).")


def check_monotonic_cst(monotonic_cst, n_features, *, n_classes=None, cat_mask=None):
    """The validated monotonicity constraints as the builder takes them.

    ``monotonic_cst``: None, or one of -1 (decreasing), 0 (none), 1
    (increasing) per feature. ``n_classes``: the classifier's number of
    classes (None for a regressor); a classifier is constrained on the
    probability of its second class, which the builder handles as the
    proportion of the first one, so the signs are flipped (as scikit-learn
    does). Returns None, or an int8 array. Raises ValueError for a wrong
    length, values other than -1/0/1, a multiclass target, or a
    constraint on a categorical feature.
    """
    if monotonic_cst is None:
        return None
    cst = np.asarray(monotonic_cst)
    if cst.ndim != 1 or cst.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {cst.shape[0] if cst.ndim else cst.shape} "
                         f"but the input data X has {n_features} features.")
    if not np.all(np.isin(cst, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, "
                         f"but got {np.unique(cst)}")
    cst = cst.astype(np.int8)
    if cat_mask is not None and np.any(cst[np.asarray(cat_mask, dtype=bool)] != 0):
        raise ValueError("monotonic_cst cannot constrain a categorical feature (a "
                         "multiway split has no order); set its entry to 0.")
    if n_classes is not None:
        if n_classes > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             "classification")
        cst = -cst
    return cst


def check_poisson_target(y, positive="positive"):
    """Poisson regression needs ``y >= 0`` and ``sum(y) > 0`` (ValueError;
    ``positive`` words the second message: scikit-learn's forests say
    "strictly positive", its trees "positive")."""
    if np.any(y < 0):
        raise ValueError("Some value(s) of y are negative which is not allowed for "
                         "Poisson regression.")
    if np.sum(y) <= 0:
        raise ValueError(f"Sum of y is not {positive} which is necessary for Poisson "
                         "regression.")


def friedman_mse_deprecated(criterion):
    """``"friedman_mse"`` -> ``"squared_error"`` with scikit-learn 1.9's
    FutureWarning (the two always chose the same splits); other values
    unchanged. Called by the regressors' ``__init__``, as scikit-learn."""
    if isinstance(criterion, str) and criterion == "friedman_mse":
        warnings.warn(
            'Value `"friedman_mse"` for `criterion` is deprecated and will be removed '
            'in 1.11. It maps to `"squared_error"` as both were always equivalent. '
            'Use `criterion="squared_error"` to remove this warning.', FutureWarning)
        return "squared_error"
    return criterion


# -- docstring blocks of the trees' methods, used by the forests and the
# boosting too (placed by ``fill_doc``) ---------------------------------------

PARAMETERS_X_MISSING = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples; NaN marks a missing value.
"""

PARAMETERS_X_FIT_MISSING = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data; NaN marks a missing value.
"""

RETURNS_PROBA_OUTPUTS = """
Returns
-------
proba : ndarray of shape (n_samples, n_classes), or a list of n_outputs such arrays
    Probabilities in the order of ``classes_``; for a multi-output y, one
    array per output, in the order of that output's ``classes_``.
"""

RETURNS_LOG_PROBA_OUTPUTS = """
Returns
-------
log_proba : ndarray of shape (n_samples, n_classes), or a list of n_outputs such arrays
    Log-probabilities (``-inf`` for a zero probability).
"""

RETURNS_Y_PRED = """
Returns
-------
y_pred : ndarray of shape (n_samples,) or (n_samples, n_outputs)
    Predicted labels (classifier) or values (regressor).
"""

_PARAMETERS_X_CHECKED = PARAMETERS_X_MISSING + """\
check_input : bool, default=True
    False skips the validation of X (the caller vouches for it).
"""


_TREE_ATTRIBUTES = """
n_outputs_ : int
    Number of outputs of y (1 for a 1-d y or a column vector).
max_features_ : int
    Number of features examined per node.
""" + FITTED_FEATURE_ATTRIBUTES.lstrip("\n") + """\
categories_ : list of ndarray
    Categories of each categorical feature (codes order).
tree_ : Tree
    The node arrays (see :mod:`skml.tree._tree`), named as scikit-learn's.
feature_importances_ : ndarray of shape (n_features,)
    Normalised total impurity decrease per feature.
"""

_CLASSIFIER_ATTRIBUTES = """
classes_ : ndarray of shape (n_classes,) or list of n_outputs ndarrays
    Class labels (of each output, for a multi-output y).
n_classes_ : int or list of int
    Number of classes (of each output).
""" + _TREE_ATTRIBUTES.lstrip("\n")

EXTRA_TREES_REFERENCE = """
References
----------
P. Geurts, D. Ernst, L. Wehenkel, "Extremely randomized trees", Machine
Learning 63, 2006.
"""


def _is_categorical_dtype(dtype):
    return str(dtype) == "category"


# The growth and pruning limits of one tree, the same wherever a tree is grown:
# the trees here, the forests and gradient boosting take them from this dict.
TREE_GROWTH_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    **MIN_SAMPLES_CONSTRAINTS,
    "min_weight_fraction_leaf": [Interval(Real, 0.0, 0.5, closed="both")],
    "max_features": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0.0, 1.0, closed="right"),
        Options({"sqrt", "log2"}),
        None,
    ],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "min_impurity_decrease": [Interval(Real, 0.0, None, closed="left")],
    "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
}


# The criteria that take a multi-output y (skml.tree._multioutput_kernels).
MULTIOUTPUT_CRITERION_NAMES = ("gini", "entropy", "log_loss", "squared_error",
                               "absolute_error", "poisson")


class ClassProportionsMixin:
    """``predict_log_proba`` and the labels of the classifiers whose
    ``predict_proba`` is one array, or one per output (a tree, a forest)."""

    @fill_doc(X=PARAMETERS_X_MISSING, returns=RETURNS_LOG_PROBA_OUTPUTS)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (``-inf`` for a zero probability).

        <X>

        <returns>
        """
        proba = self.predict_proba(X)
        with np.errstate(divide="ignore"):
            if isinstance(proba, list):
                return [np.log(p) for p in proba]
            return np.log(proba)

    def _labels(self, proba):
        """The class of largest probability (of each output)."""
        if self.n_outputs_ == 1:
            return self.classes_[np.argmax(proba, axis=1)]
        return np.column_stack([c[np.argmax(p, axis=1)]
                                for c, p in zip(self.classes_, proba)])


class _BaseDecisionTree(BaseEstimator):
    """Parameters, encoding and traversal shared by both trees."""

    _common_constraints = {
        "splitter": [Options({"best", "random"})],
        **TREE_GROWTH_CONSTRAINTS,
        "random_state": ["random_state"],
        "categorical_features": ["array-like", Options({"from_dtype"}), None],
        "categorical_split": [Options({"multiway", "binary"})],
        "monotonic_cst": ["array-like", None],
    }

    # -- categorical encoding ------------------------------------------------
    def _categorical_mask(self, X_raw, n_features):
        return categorical_mask(self.categorical_features, n_features, X_raw)

    def _pandas_codes(self, X_raw, reset):
        """Replace pandas categorical columns by float codes (NaN missing)."""
        if not (isinstance(self.categorical_features, str)
                and hasattr(X_raw, "dtypes")):
            return X_raw
        cols = [j for j, d in enumerate(X_raw.dtypes) if _is_categorical_dtype(d)]
        if not cols:
            return X_raw
        X_raw = X_raw.copy()
        if reset:
            self._pandas_categories = {
                j: list(X_raw.iloc[:, j].cat.categories) for j in cols
            }
        for j in cols:
            col = X_raw.iloc[:, j]
            cats = self._pandas_categories.get(j, [])
            lookup = {c: k for k, c in enumerate(cats)}
            codes = np.array(
                [np.nan if v != v else lookup.get(v, -1.0) for v in col.astype(object)],
                dtype=np.float64,
            )
            X_raw[X_raw.columns[j]] = codes
        return X_raw

    def _encode_X(self, X):
        return encode_categories(X, self._cat_columns, self.categories_)

    def _validate_X_predict(self, X, check_input=True):
        check_is_fitted(self)
        X = self._pandas_codes(X, reset=False)
        if check_input:
            X = validate_data(self, X, reset=False, dtype=np.float64,
                              ensure_all_finite="allow-nan", accept_sparse=["csr", "csc"])
            check_sparse_finite(X)
        else:
            # The caller vouches for X (scikit-learn's check_input=False);
            # the number of features is checked regardless, as there.
            if not sp.issparse(X):
                X = np.asarray(X, dtype=np.float64)
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[-1]} features, but "
                                 f"{type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input.")
        if sp.issparse(X):
            return X.tocsr()
        return self._encode_X(X)

    # -- fit ---------------------------------------------------------------------
    def _fit(self, X, y, sample_weight, is_classifier, check_input=True):
        validate_params(self)
        if sp.issparse(y):
            raise TypeError("Sparse data was passed for y, but dense data is required; "
                            "pass y.toarray().")
        X_raw = X
        X = self._pandas_codes(X, reset=True)
        if check_input:
            # X and y apart, then the Poisson target, then their lengths:
            # scikit-learn's order, so fit([[0, 1, 2]], [0, 0, 0]) says what is
            # wrong with y first. y gets check_X_y's own checks (finite, any
            # dtype, object -> float for a regressor).
            X, y = validate_data(
                self, X, y, validate_separately=(
                    dict(dtype=np.float64, accept_sparse=["csr", "csc"],
                         ensure_all_finite="allow-nan"),
                    dict(ensure_2d=False, dtype=None, ensure_all_finite=True)))
            if not is_classifier and y.dtype.kind == "O":
                y = y.astype(np.float64)
            check_sparse_finite(X)
        else:
            # The caller validated (X, y) already (scikit-learn's ensembles
            # pass check_input=False): only the conversions the builder needs.
            if not sp.issparse(X):
                X = np.asarray(X, dtype=np.float64)
            y = np.asarray(y)
            self.n_features_in_ = X.shape[1]
        if not is_classifier and self.criterion == "poisson":
            check_poisson_target(y)
        check_consistent_length(X, y)
        n_samples, n_features = X.shape
        if (np.ndim(y) == 2 and np.shape(y)[1] == 1
                and not self.__sklearn_tags__().target_tags.multi_output):
            # This instance's criterion is single-output: a column vector is
            # converted with scikit-learn's warning.
            warnings.warn("A column-vector y was passed when a 1d array was expected. "
                          "Please change the shape of y to (n_samples,), for example "
                          "using ravel().", DataConversionWarning, stacklevel=3)
        y = check_target_shape(y)
        multi = y.ndim == 2  # (n_samples, n_outputs >= 2)
        sample_weight = check_sample_weight(sample_weight, X)
        mask = self._categorical_mask(X_raw, n_features)
        if multi and mask.any():
            raise ValueError("categorical_features support a single output only; got a "
                             f"y of {y.shape[1]} outputs.")
        if sp.issparse(X) and mask.any():
            raise ValueError("categorical_features are not supported with sparse X; "
                             "pass a dense X.")
        self._cat_columns = np.flatnonzero(mask)
        if not mask.any() and hasattr(self, "_pandas_categories"):
            del self._pandas_categories
        self.categories_ = []
        slots = np.zeros(n_features, dtype=np.intp)
        for j in self._cat_columns:
            col = X[:, j]
            cats = np.unique(col[~np.isnan(col)])
            if isinstance(self.categorical_features, str):  # pandas codes
                cats = np.arange(len(self._pandas_categories[j]), dtype=np.float64)
            self.categories_.append(cats)
            slots[j] = max(len(cats), 1)
        X = self._encode_X(X)
        if is_classifier and multi:
            self.classes_, y_enc = encode_multioutput_labels(y, sample_weight)
            self.n_classes_ = [len(c) for c in self.classes_]
            sample_weight = sample_weight * multioutput_class_weight(
                self.class_weight, self.classes_, y_enc)
            if not np.any(sample_weight > 0):
                raise ValueError("All sample weights are zero after applying class_weight.")
            target, n_classes = y_enc, np.array(self.n_classes_)
        elif is_classifier:
            # One class fits a constant tree (a root leaf), as scikit-learn.
            self.classes_, y_enc = encode_labels(y, min_classes=1,
                                                 sample_weight=sample_weight)
            self.n_classes_ = len(self.classes_)
            sample_weight = sample_weight * self._class_weights(y_enc)
            if not np.any(sample_weight > 0):
                raise ValueError("All sample weights are zero after applying class_weight.")
            target, n_classes = y_enc, self.n_classes_
        else:
            target, n_classes = y.astype(np.float64), 0
        self.n_outputs_ = y.shape[1] if multi else 1
        # Fractions count every row, zero-weight ones included, as scikit-learn:
        # a forest or bagging member fitted on all the rows with its bootstrap
        # counts as weights resolves them against the training set's size.
        min_leaf, min_split = resolve_min_samples(self.min_samples_leaf,
                                                  self.min_samples_split, n_samples)
        self.max_features_ = resolve_max_features(self.max_features, n_features)
        if multi and self.monotonic_cst is not None:
            raise ValueError("Monotonicity constraints are not supported with multiple "
                             "outputs.")
        monotonic_cst = check_monotonic_cst(
            self.monotonic_cst, n_features, cat_mask=mask,
            n_classes=self.n_classes_ if is_classifier else None)
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        ratio_epsilon = getattr(self, "gain_ratio_epsilon", None)
        if ratio_epsilon is not None and self.criterion != "gain_ratio":
            raise ValueError("gain_ratio_epsilon applies to criterion='gain_ratio' only; "
                             f"got criterion={self.criterion!r}.")
        categorical_split = getattr(self, "categorical_split", "multiway")
        if (categorical_split == "binary" and mask.any()
                and self.criterion == "absolute_error"):
            raise ValueError("categorical_split='binary' does not support "
                             "criterion='absolute_error'; use 'squared_error' or "
                             "'poisson', or categorical_split='multiway'.")
        self.tree_ = grow_tree(
            X, target, sample_weight, criterion=self.criterion, n_classes=n_classes,
            n_category_slots=slots, max_features=self.max_features_,
            splitter=self.splitter, max_depth=self.max_depth,
            min_samples_split=min_split, min_samples_leaf=min_leaf,
            min_weight_leaf=self.min_weight_fraction_leaf * sample_weight.sum(),
            min_impurity_decrease=self.min_impurity_decrease,
            max_leaf_nodes=self.max_leaf_nodes, seed=seed, monotonic_cst=monotonic_cst,
            categorical_split=categorical_split, gain_ratio_epsilon=ratio_epsilon,
        )
        prune_tree(self.tree_, self.ccp_alpha)
        if getattr(self, "unseen_category", "largest_child") == "plurality" and mask.any():
            add_empty_branch_leaves(self.tree_, X, sample_weight)
        return self

    @classmethod
    def _from_grown(cls, tree, params, *, n_features_in, max_features,
                    feature_names_in=None, classes=None, categories=None,
                    cat_columns=None):
        """A fitted estimator around ``tree``, grown by an ensemble with ``params``.

        The ensembles (forests, gradient boosting) grow their members with
        :func:`~skml.tree._tree.grow_tree` on data they validated once; this
        sets every fitted attribute ``fit`` would have set, so each member
        predicts on its own like a tree fitted directly. ``categories`` and
        ``cat_columns`` are the categorical columns' categories and indices
        (none by default); ``classes`` the class labels of a classifier.
        """
        est = cls(**params)
        est.tree_ = tree
        est.n_features_in_ = n_features_in
        if feature_names_in is not None:
            est.feature_names_in_ = feature_names_in
        est.n_outputs_ = tree.n_outputs
        est.max_features_ = max_features
        est.categories_ = [] if categories is None else categories
        est._cat_columns = (np.empty(0, dtype=np.intp) if cat_columns is None
                            else cat_columns)
        if classes is not None:
            est.classes_ = classes
            est.n_classes_ = ([len(c) for c in classes] if isinstance(classes, list)
                              else len(classes))
        return est

    @fill_doc(X=PARAMETERS_X_FIT_MISSING)
    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the tree on (X, y).

        <X>
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (classifier) or targets (regressor); a 2-d y of
            several outputs grows a multi-output tree, its impurity the mean
            over the outputs (of the Gini, entropy or squared error).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights; integer weights equal repeated rows.
        check_input : bool, default=True
            False skips the validation of (X, y), for a caller that did it
            (scikit-learn's ensembles do so).

        Returns
        -------
        self : object
            The fitted tree.
        """
        return self._fit(X, y, sample_weight,
                         is_classifier=isinstance(self, ClassifierMixin),
                         check_input=check_input)

    # -- traversal ---------------------------------------------------------------
    @fill_doc(X=_PARAMETERS_X_CHECKED)
    def apply(self, X, check_input=True):
        """Index of the leaf each sample ends in.

        <X>

        Returns
        -------
        X_leaves : ndarray of shape (n_samples,)
        """
        X = self._validate_X_predict(X, check_input)  # NotFittedError first
        return self.tree_.apply(X)

    @fill_doc(X=_PARAMETERS_X_CHECKED)
    def decision_path(self, X, check_input=True):
        """Nodes each sample passes through, as a sparse indicator matrix.

        <X>

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
        """
        X = self._validate_X_predict(X, check_input)  # NotFittedError first
        return self.tree_.decision_path(X)

    def get_depth(self):
        """Depth of the tree (longest root-to-leaf path)."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the tree."""
        check_is_fitted(self)
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease of each feature."""
        check_is_fitted(self)
        return self.tree_.compute_feature_importances()

    @fill_doc(X=PARAMETERS_X_FIT_MISSING)
    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """Effective alphas of minimal cost-complexity pruning (notes B §8.9 C).

        Grows the full tree (``ccp_alpha=0``) with this estimator's other
        parameters and returns the weakest-link sequence.

        <X>
        y : array-like of shape (n_samples,)
            Class labels (classifier) or targets (regressor).
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, as in :meth:`fit`.

        Returns
        -------
        ccp_path : Bunch
            ``ccp_alphas`` (increasing) and ``impurities``, the total leaf
            impurity :math:`R(T_k)` of each pruned subtree.
        """
        est = clone(self).set_params(ccp_alpha=0.0)
        est.fit(X, y, sample_weight=sample_weight)
        alphas, impurities = pruning_path(est.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def prune_on_validation(self, X_val, y_val, sample_weight=None):
        """Reduced-error pruning on a validation set (notes B §8.9 B).

        Bottom-up, every internal node whose branch makes at least as many
        validation errors as the node would make as a leaf (predicting its
        training majority class or mean, unchanged) is turned into that
        leaf; ties prune, so a branch no validation sample reaches is
        collapsed. The validation error of the tree never increases. The
        error is the weighted count of misclassified samples (classifier),
        or the weighted sum of squared (``criterion="squared_error"``) or
        absolute (``"absolute_error"``) deviations (regressor).

        Parameters
        ----------
        X_val : array-like of shape (n_samples, n_features)
            Validation samples, held out from the fit.
        y_val : array-like of shape (n_samples,)
            Their targets; a label unknown to the tree counts as an error.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the validation samples.

        Returns
        -------
        self : object
            The estimator, with ``tree_`` pruned and its node ids compacted.

        Notes
        -----
        One pass over the validation samples' decision paths and one
        bottom-up pass over the nodes, :math:`O(n_{val}\\, d + |T|)`. On the
        training set itself a full-depth tree with distinct training rows is
        left unchanged: it makes no training error, and every internal node
        is impure, so as a leaf it would err.
        """
        check_is_fitted(self)
        if self.n_outputs_ > 1:
            raise ValueError("prune_on_validation supports single-output trees only; "
                             f"this tree has {self.n_outputs_} outputs.")
        X_val = self._validate_X_predict(X_val)
        y_val = np.asarray(y_val)
        if y_val.ndim != 1 or y_val.shape[0] != X_val.shape[0]:
            raise ValueError(
                f"y_val must be 1d with one entry per row of X_val ({X_val.shape[0]}); "
                f"got shape {y_val.shape}."
            )
        sample_weight = check_sample_weight(sample_weight, X_val)
        path = self.tree_.decision_path(X_val)
        rows = np.repeat(np.arange(X_val.shape[0]), np.diff(path.indptr))
        nodes = path.indices
        values = self.tree_.value[:, 0, :]
        if hasattr(self, "classes_"):
            lookup = {c: k for k, c in enumerate(self.classes_.tolist())}
            y_idx = np.array([lookup.get(v, -1) for v in y_val.tolist()], dtype=np.intp)
            err = (np.argmax(values, axis=1)[nodes] != y_idx[rows]).astype(np.float64)
        else:
            diff = values[nodes, 0] - y_val.astype(np.float64)[rows]
            err = np.abs(diff) if self.criterion == "absolute_error" else diff * diff
        leaf_error = np.bincount(nodes, weights=err * sample_weight[rows],
                                 minlength=self.tree_.node_count)
        reduced_error_prune(self.tree_, leaf_error)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.sparse = True
        # A multi-output y is grown with these criteria only (numeric features).
        tags.target_tags.multi_output = (
            getattr(self, "criterion", None) in MULTIOUTPUT_CRITERION_NAMES
            and getattr(self, "categorical_features", None) is None)
        if tags.classifier_tags is not None:
            tags.classifier_tags.multi_label = tags.target_tags.multi_output
        return tags


_DOC_SHARED = """
    splitter : {"best", "random"}, default=<splitter>
        "best" scans every midpoint of the sorted feature values; "random"
        draws one threshold uniformly per feature (extremely randomised trees).
    max_depth : int, default=None
        Depth limit; None grows until leaves are pure or too small.
    min_samples_split : int or float, default=2
        Fewest samples (a fraction of them if float) a node needs to split.
    min_samples_leaf : int or float, default=1
        Fewest samples (or fraction) in every child.
    min_weight_fraction_leaf : float, default=0.0
        Fewest total weight, as a fraction of the total, in every child.
    max_features : int, float, {"sqrt", "log2"} or None, default=<max_features>
        Features drawn (without replacement) per node, counted as
        scikit-learn counts them: every drawn feature, a constant one too
        (one value, or only missing values, in the node); past this many the
        node draws on only while all drawn so far were constant. A float is
        a fraction of the features, None means all of them.
    random_state : int, RandomState instance or None, default=None
        Seeds the feature order (which breaks ties between equally good
        splits) and the random thresholds.
    max_leaf_nodes : int, default=None
        Grow best-first, expanding the node of largest weighted impurity
        decrease, up to this many leaves.
    min_impurity_decrease : float, default=0.0
        Split only if :math:`\\frac{W_t}{W}(i(t) - \\frac{W_L}{W_t} i(L) -
        \\frac{W_R}{W_t} i(R)) \\ge` this value.
    ccp_alpha : float, default=0.0
        Minimal cost-complexity pruning strength (notes B §8.9 C). The notes'
        fixed-:math:`\\lambda` cost :math:`\\sum_t N_t H_t + \\lambda |T|`
        corresponds to ``ccp_alpha = lambda / N`` (entropy in bits).
    categorical_features : array-like of int or bool, "from_dtype" or None, \
default=None
        Categorical features: indices, a boolean mask, or "from_dtype" for
        pandas categorical columns. They are split multiway (one branch per
        category, ID3/C4.5 style) or in two groups of categories (CART),
        see ``categorical_split``; NaN is one more category when seen at
        fit. Categories unseen at fit, or absent at a node, go to the node's
        most populated child<unseen note>.
    categorical_split : {"multiway", "binary"}, default="multiway"
        How a categorical feature splits a node. "multiway": one child per
        category present at the node (ID3/C4.5, notes B §8.4-8.5).
        "binary": CART's grouping (notes B §8.7, 003 "multi-valued
        attributes"): the categories present at the node are split into
        the two groups of least weighted impurity. For two classes and for
        the regression criteria, the best grouping is one of the k - 1
        prefixes of the categories sorted by class-1 proportion (or by
        mean target), as in Breiman et al. (1984, Thm 4.5) and LightGBM /
        scikit-learn's histogram boosting, and is found exactly in
        :math:`O(k \\log k)`; for more classes all :math:`2^{k-1} - 1`
        groupings are tried up to k = 10 categories present at the node,
        and beyond that the prefixes of the order by the proportion of the
        node's most frequent class (a heuristic). The "absolute_error"
        criterion takes "multiway" only.
    monotonic_cst : array-like of int of shape (n_features,), default=None
        Monotonicity constraint of each feature: 1 increasing, 0 none, -1
        decreasing (scikit-learn's meaning); on the prediction of a
        regressor, on the probability of the second class of a binary
        classifier (multiclass is refused). A split on a constrained
        feature is kept only if its children's values are ordered so and
        lie within the node's bounds; its children are then bounded by
        the middle of their two values, and every node's value is clipped
        to its bounds, so predictions are monotone along the feature.
        Numeric features only.
"""


def _tree_parameters(splitter='"best"', max_features="None", unseen_note=""):
    """The parameters every tree shares, with one tree's defaults."""
    return (_DOC_SHARED.replace("<splitter>", splitter)
            .replace("<max_features>", max_features)
            .replace("<unseen note>", unseen_note))


@fill_doc(attributes=_CLASSIFIER_ATTRIBUTES, **{"shared parameters": _tree_parameters(
    unseen_note=" (``unseen_category`` offers ID3's parent-plurality leaf instead)")})
class DecisionTreeClassifier(ClassifierMixin, ClassProportionsMixin, _BaseDecisionTree):
    """A decision tree classifier: CART (Gini), ID3 (entropy) or C4.5 (gain ratio).

    Notes B §8.3-8.7 and notes A §2.5-2.6. Numeric features are split in two
    at the midpoint of consecutive sorted values (the bi-partition of notes B
    §8.6); categorical features (``categorical_features``) are split
    multiway. Missing values (NaN) are routed to the side that gives the
    better split, learnt at fit.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "gain_ratio"}, default="gini"
        Node impurity. "gini" is :math:`1 - \\sum_k p_k^2` (CART);
        "entropy" (= "log_loss") is :math:`-\\sum_k p_k \\log_2 p_k` and a
        split maximises the information gain (ID3); "gain_ratio" (C4.5)
        picks each feature's threshold by information gain, then among the
        features whose gain is at least the average, the one of largest
        gain / split information, where the split information of a binary
        split is :math:`-\\sum_{s \\in \\{L, R\\}} \\frac{W_s}{W}
        \\log_2\\frac{W_s}{W}` (of a multiway split, the sum over branches).
        This is Quinlan's rule; ``gain_ratio_epsilon`` selects the notes'
        other C4.5 (Li Hang's form).
    <shared parameters>
    unseen_category : {"largest_child", "plurality"}, default="largest_child"
        Where a category absent at a categorical node (or unseen at fit, or
        a missing value the node did not see) goes. "largest_child": to the
        node's most populated child. "plurality": to a leaf of its own
        predicting the node's class proportions, hence the node's plurality
        class (the smallest class index on ties), ID3's empty branch of
        notes A §2.5 (000 "Practical Algorithms 2", AIMA's
        LEARN-DECISION-TREE) and notes B §8.4 step 6 (003 "ID3"). Such
        leaves hold no training sample and count in ``get_n_leaves()``.
        The default keeps every leaf a leaf with training samples, as in
        scikit-learn's trees (and the trees of the forests and boosting,
        which use it); the two rules agree whenever the most populated
        child is a leaf of the node's plurality class.
    gain_ratio_epsilon : float or None, default=None
        ``criterion="gain_ratio"`` only. None: Quinlan's selection above.
        A float :math:`\\varepsilon \\ge 0`: Li Hang's C4.5 (notes B §8.5
        (a), 003 "C4.5 generation algorithm", *Statistical Learning
        Methods* Algorithm 5.3): the feature of largest gain ratio, with no
        above-average-gain filter, and the node is a leaf (of its majority
        class) when that largest gain ratio is below :math:`\\varepsilon`.
        Each numeric feature's threshold is still the one of largest
        information gain.
    class_weight : dict, list of dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class; "balanced"
        uses ``n_samples / (n_classes * bincount(y))``. For a multi-output
        y, "balanced" or one dict per output; a sample's weight is the
        product of its outputs' weights.

    Attributes
    ----------
    <attributes>

    See Also
    --------
    DecisionTreeRegressor : The regression counterpart.

    Notes
    -----
    Each numeric feature is sorted once at the root; a split carries every
    feature's order down to the children by stable partitions, so a node of
    :math:`m` samples costs :math:`O(p\\, m)` (gather, scan of the midpoints
    with running class counts, partition) and a balanced tree
    :math:`O(p\\, n \\log n)`, with :math:`p\\, n` extra integers of memory.
    When fewer than half of the features are examined per node
    (``max_features``), the examined features are sorted inside each node
    instead (:math:`O(m \\log m)` each); with ``splitter="random"`` none is
    sorted: each examined feature's range, random threshold and split cost
    :math:`O(m)`. The whole growth loop runs in numba, with the GIL
    released. Ties between equally good splits keep the first feature in a
    random order fixed by ``random_state``; each node draws that order from
    a random stream of its own, keyed by the seed and the node's path from
    the root, so a ``max_leaf_nodes`` that does not bind grows the same tree
    best-first as depth-first.

    Minimal cost-complexity pruning with :math:`R(t) = \\frac{W_t}{W}
    i(t)`: the notes' :math:`C(T) = \\sum_t N_t H_t(T) + \\lambda |T|` equals
    :math:`N (R(T) + \\frac{\\lambda}{N} |T|)`, so ``ccp_alpha = lambda / N``
    with ``criterion="entropy"``.

    References
    ----------
    Breiman, Friedman, Olshen, Stone, *Classification and Regression Trees*, 1984.
    Quinlan, *C4.5: Programs for Machine Learning*, 1993.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    >>> clf.get_n_leaves()
    3
    >>> round(clf.score(X, y), 2)
    0.96
    """

    _parameter_constraints = {
        "criterion": [Options({"gini", "entropy", "log_loss", "gain_ratio"})],
        **_BaseDecisionTree._common_constraints,
        "class_weight": [dict, list, Options({"balanced"}), None],
        "unseen_category": [Options({"largest_child", "plurality"})],
        "gain_ratio_epsilon": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 categorical_features=None, monotonic_cst=None,
                 categorical_split="multiway", unseen_category="largest_child",
                 gain_ratio_epsilon=None):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.categorical_split = categorical_split
        self.unseen_category = unseen_category
        self.gain_ratio_epsilon = gain_ratio_epsilon

    def _class_weights(self, y_enc):
        cw = self.class_weight
        if cw is None:
            return 1.0
        if isinstance(cw, list):
            if len(cw) != 1 or not isinstance(cw[0], dict):
                raise ValueError("class_weight as a list takes one dict per output; "
                                 f"y has 1 output, got a list of {len(cw)}.")
            cw = cw[0]
        return class_weight_per_sample(cw, self.classes_, y_enc)

    @fill_doc(X=_PARAMETERS_X_CHECKED, returns=RETURNS_PROBA_OUTPUTS)
    def predict_proba(self, X, check_input=True):
        """Class proportions of the training samples in each sample's leaf.

        <X>

        <returns>
        """
        X = self._validate_X_predict(X, check_input)
        values = self.tree_.predict(X)
        if self.n_outputs_ == 1:
            return values[:, 0, :]
        return [values[:, o, :n] for o, n in enumerate(self.n_classes_)]

    @fill_doc(X=_PARAMETERS_X_CHECKED, returns=RETURNS_Y_PRED)
    def predict(self, X, check_input=True):
        """Majority class of each sample's leaf.

        <X>

        <returns>
        """
        check_is_fitted(self)
        return self._labels(self.predict_proba(X, check_input))


@fill_doc(attributes=_TREE_ATTRIBUTES, **{"shared parameters": _tree_parameters()})
class DecisionTreeRegressor(RegressorMixin, _BaseDecisionTree):
    """A regression tree: CART least squares or least absolute deviation.

    Notes B §8.8. Each split minimises the children's summed weighted squared
    error around their means (``"squared_error"``), absolute error around
    their weighted medians (``"absolute_error"``) or half Poisson deviance
    around their means (``"poisson"``); a leaf predicts that mean or median.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "poisson"}, \
default="squared_error"
        Node impurity: the weighted variance, the weighted mean absolute
        deviation from the weighted median, or the half Poisson deviance
        :math:`\\frac{1}{W}\\sum_i w_i y_i \\ln(y_i / \\bar y)` (count
        targets; ``y >= 0`` with a positive sum, and a split leaving a child
        of zero mean is refused, its deviance being infinite).
        ``"friedman_mse"`` is taken as ``"squared_error"`` with a
        FutureWarning, as scikit-learn 1.9 (which deprecated it: Friedman's
        improvement score orders splits as the squared error does).
    <shared parameters>

    Attributes
    ----------
    <attributes>

    See Also
    --------
    DecisionTreeClassifier : The classification counterpart.

    Notes
    -----
    Squared error scans the presorted values (see
    :class:`DecisionTreeClassifier`) with running sums, :math:`O(m)` per
    feature and node. Absolute error keeps the left child's targets
    in Fenwick trees over their ranks, so each candidate's two weighted
    medians and absolute deviations cost :math:`O(\\log^2 m)`.
    ``ccp_alpha`` prunes with :math:`R(t) = \\frac{W_t}{W} i(t)`.

    References
    ----------
    Breiman, Friedman, Olshen, Stone, *Classification and Regression Trees*, 1984.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
    >>> reg.get_n_leaves()
    8
    """

    _parameter_constraints = {
        "criterion": [Options({"squared_error", "absolute_error", "poisson"})],
        **_BaseDecisionTree._common_constraints,
    }

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, categorical_features=None,
                 monotonic_cst=None, categorical_split="multiway"):
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst
        self.categorical_split = categorical_split
        # scikit-learn 1.9 maps the deprecated "friedman_mse" here, at construction.
        self.criterion = friedman_mse_deprecated(criterion)

    @fill_doc(X=_PARAMETERS_X_CHECKED, returns=RETURNS_Y_PRED)
    def predict(self, X, check_input=True):
        """Mean (or median) target of each sample's leaf.

        <X>

        <returns>
        """
        X = self._validate_X_predict(X, check_input)
        if self.n_outputs_ == 1:
            return self.tree_.predict(X)[:, 0, 0]
        return self.tree_.predict(X)[:, :, 0]


@fill_doc(attributes=_CLASSIFIER_ATTRIBUTES, references=EXTRA_TREES_REFERENCE,
          **{"shared parameters": _tree_parameters('"random"', '"sqrt"')})
class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomised tree classifier (Geurts, Ernst, Wehenkel, 2006).

    A :class:`DecisionTreeClassifier` with scikit-learn's ``ExtraTreeClassifier``
    defaults: at each node, ``max_features`` features are drawn (``"sqrt"``
    of them), one threshold is drawn uniformly between each drawn feature's
    smallest and largest value in the node (``splitter="random"``), and the
    best of these random splits is kept. Alone it is a weak, high-variance
    tree; it is meant as the member of :class:`skml.ensemble.ExtraTreesClassifier`.

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss", "gain_ratio"}, default="gini"
        Node impurity (see :class:`DecisionTreeClassifier`).
    <shared parameters>
    class_weight : dict, list of dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class (see
        :class:`DecisionTreeClassifier`).
    unseen_category, gain_ratio_epsilon
        As in :class:`DecisionTreeClassifier`.

    Attributes
    ----------
    <attributes>

    See Also
    --------
    ExtraTreeRegressor : The regression counterpart.
    skml.ensemble.ExtraTreesClassifier : A forest of these trees.

    Notes
    -----
    The random thresholds are drawn from each node's own random stream
    (keyed by ``random_state`` and the node's path), uniformly in the open
    interval between the node's smallest and largest value of the feature;
    a feature constant in the node is not split on. A node of :math:`m`
    samples costs :math:`O(k\\, m)` for :math:`k` drawn features (no sort).

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.tree import ExtraTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = ExtraTreeClassifier(random_state=0).fit(X, y)
    >>> float(clf.score(X, y))
    1.0
    """

    def __init__(self, *, criterion="gini", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 categorical_features=None, monotonic_cst=None,
                 categorical_split="multiway", unseen_category="largest_child",
                 gain_ratio_epsilon=None):
        super().__init__(
            criterion=criterion, splitter=splitter, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, random_state=random_state,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            class_weight=class_weight, ccp_alpha=ccp_alpha,
            categorical_features=categorical_features, monotonic_cst=monotonic_cst,
            categorical_split=categorical_split, unseen_category=unseen_category,
            gain_ratio_epsilon=gain_ratio_epsilon)


@fill_doc(attributes=_TREE_ATTRIBUTES, references=EXTRA_TREES_REFERENCE,
          **{"shared parameters": _tree_parameters('"random"', "1.0")})
class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomised regression tree (Geurts, Ernst, Wehenkel, 2006).

    A :class:`DecisionTreeRegressor` with scikit-learn's ``ExtraTreeRegressor``
    defaults: at each node every feature (``max_features=1.0``) gets one
    threshold drawn uniformly between its smallest and largest value in the
    node (``splitter="random"``), and the best of these random splits is
    kept. It is meant as the member of :class:`skml.ensemble.ExtraTreesRegressor`.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "poisson"}, \
default="squared_error"
        Node impurity (see :class:`DecisionTreeRegressor`).
    <shared parameters>

    Attributes
    ----------
    <attributes>

    See Also
    --------
    ExtraTreeClassifier : The classification counterpart.
    skml.ensemble.ExtraTreesRegressor : A forest of these trees.

    Notes
    -----
    As :class:`ExtraTreeClassifier`: one uniform threshold per drawn
    feature in the open interval of its values in the node.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.tree import ExtraTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> reg = ExtraTreeRegressor(max_depth=4, random_state=0).fit(X, y)
    >>> reg.get_depth()
    4
    """

    def __init__(self, *, criterion="squared_error", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, categorical_features=None,
                 monotonic_cst=None, categorical_split="multiway"):
        super().__init__(
            criterion=criterion, splitter=splitter, max_depth=max_depth,
            min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            max_features=max_features, random_state=random_state,
            max_leaf_nodes=max_leaf_nodes, min_impurity_decrease=min_impurity_decrease,
            ccp_alpha=ccp_alpha, categorical_features=categorical_features,
            monotonic_cst=monotonic_cst, categorical_split=categorical_split)

