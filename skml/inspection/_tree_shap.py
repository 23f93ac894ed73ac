"""Exact TreeSHAP over skml's trees, forests and gradient boosting (notes A §12.4).

:func:`tree_ensemble` reads a fitted model's trees (their ``tree_`` arrays:
the packed prediction layout of :mod:`skml.tree._packed` drops the node
covers this needs) into one set of flat arrays; :func:`tree_shap` runs the
numba kernels of :mod:`._tree_shap_kernels` on them:

* ``"tree_path_dependent"`` (Lundberg et al. 2018, Algorithm 2): the value
  of a coalition ``S`` integrates the absent features out with the trees'
  training covers (weighted sample counts), so no background is needed;
  Algorithm 2 is ``O(T L D^2)`` per row for ``T`` trees of ``L`` leaves
  and depth ``D``; its sums over subset sizes are computed here as
  integrals by a ``D/2``-node Gauss-Legendre rule (Yu et al. 2022, Linear
  TreeSHAP), ``O(T L D^2 / 2)`` with no path copies or UNWINDs.
* ``"interventional"`` (Lundberg et al. 2020): the exact Shapley values of
  ``v(S) = mean_b f(x_S, b_{not S})`` over a background, the game
  :class:`~skml.inspection.ShapleyExplainer`'s other algorithms use;
  ``O(T n_background L)`` per row at worst, far less in practice.

What is explained: the class probabilities of a tree or random-forest
classifier (the mean of the trees' leaf proportions, as ``predict_proba``;
what shap reports for scikit-learn's forests), a regressor's prediction (of
every output of a multi-output tree or forest, one column each, as shap's
``TreeExplainer``: each output's values are those of its own game), and
gradient boosting's raw score ``init_ + learning_rate * sum of trees``
(``decision_function``, one column per class for multiclass; the logistic
or softmax of it is not a sum over trees). Missing values follow each
node's missing-value direction and categorical (multiway) nodes their
category children, exactly as the models predict.
"""

import warnings

import numpy as np
from scipy.special import comb, expit
from sklearn.base import is_classifier

from ..utils._parallel import run_in_threads
from ._tree_shap_kernels import (
    CATEGORICAL,
    MISSING_LEFT,
    NODE,
    FlatTrees,
    cover_expectation,
    interventional_shap,
    interventional_shap_rescaled,
    path_dependent_shap,
    raw_predict,
)

__all__ = ["TreeEnsemble", "tree_ensemble", "tree_response_method", "tree_shap"]

FEATURE_PERTURBATIONS = ("auto", "tree_path_dependent", "interventional")


class TreeEnsemble:
    """The trees of one model as flat arrays (see ``_tree_shap_kernels``).

    ``offset`` is the model's constant (boosting's ``init_``), ``encode``
    maps user rows to what the trees split on (category codes).
    """

    def __init__(self, trees, columns, scales, n_outputs, offset, encode, n_features):
        self.n_outputs = n_outputs
        self.offset = np.asarray(offset, dtype=np.float64)
        self.encode = encode
        self.n_features = n_features
        self.columns = np.asarray(columns, dtype=np.intp)
        self.scales = np.asarray(scales, dtype=np.float64)
        self._flatten(trees)

    def _flatten(self, trees):
        sizes = np.array([t.node_count for t in trees])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
        self.roots = starts

        def shifted(a, start):
            return np.where(a >= 0, a + start, -1)

        self.left = np.concatenate([shifted(t.children_left, s)
                                    for t, s in zip(trees, starts)]).astype(np.intp)
        self.right = np.concatenate([shifted(t.children_right, s)
                                     for t, s in zip(trees, starts)]).astype(np.intp)
        self.feature = np.concatenate([np.maximum(t.feature, 0) for t in trees]).astype(np.intp)
        self.threshold = np.concatenate([t.threshold for t in trees]).astype(np.float64)
        self.missing_left = np.concatenate([t.missing_go_to_left != 0 for t in trees])
        self.cover = np.concatenate([t.weighted_n_node_samples for t in trees]).astype(
            np.float64)
        # (n_nodes, n_outputs * width): a multi-output regression tree's
        # outputs side by side, one column each (shap's layout).
        self.values = np.ascontiguousarray(
            np.concatenate([t.value.reshape(t.value.shape[0], -1) for t in trees]),
            dtype=np.float64)
        self.max_depth = int(max(t.max_depth for t in trees))
        # categorical (multiway) nodes: the code -> child pool, and the
        # distinct children of each node (CSR) for the path-dependent walk
        n = self.left.shape[0]
        cat_offset = np.full(n, -1, dtype=np.intp)
        cat_k = np.zeros(n, dtype=np.intp)
        kids_count = np.zeros(n, dtype=np.intp)
        pools, kid_lists = [], {}
        pool_base = 0
        for tree, start in zip(trees, starts):
            nodes = np.flatnonzero((tree.category_offset >= 0) & (tree.children_left >= 0))
            if nodes.size == 0:
                continue
            cat_offset[start + nodes] = tree.category_offset[nodes] + pool_base
            cat_k[start + nodes] = tree.n_category_slots[tree.feature[nodes]]
            pool = tree.category_children
            pools.append(shifted(pool, start))
            pool_base += pool.shape[0]
            for node in nodes:
                kids = tree.children(node) + start
                kid_lists[start + node] = kids
                kids_count[start + node] = kids.shape[0]
        self.cat_offset = cat_offset
        self.cat_k = cat_k
        self.pool = (np.concatenate(pools).astype(np.intp) if pools
                     else np.zeros(0, dtype=np.intp))
        self.kids_ptr = np.concatenate([[0], np.cumsum(kids_count)]).astype(np.intp)
        self.kids = np.zeros(self.kids_ptr[-1], dtype=np.intp)
        for node, kids in kid_lists.items():
            self.kids[self.kids_ptr[node]:self.kids_ptr[node + 1]] = kids
        self.max_kids = int(max(2, kids_count.max(initial=0)))
        if n >= np.iinfo(np.int32).max:
            raise ValueError(f"TreeSHAP supports up to 2^31 - 1 nodes in all; got {n}.")
        self.nodes = np.empty(n, dtype=NODE)
        self.nodes["threshold"] = self.threshold
        self.nodes["cover"] = self.cover
        self.nodes["left"] = self.left
        self.nodes["right"] = self.right
        self.nodes["feature"] = self.feature
        self.nodes["flags"] = (self.missing_left * MISSING_LEFT
                               + (cat_offset >= 0) * CATEGORICAL)
        self.flat = FlatTrees(self.nodes, self.values, self.cat_offset, self.cat_k,
                              self.pool, self.kids_ptr, self.kids, self.roots,
                              self.columns, self.scales)

    def raw(self, X):
        """The model's raw output (offset + the trees' scaled sum) of encoded rows."""
        out = np.zeros((X.shape[0], self.n_outputs)) + self.offset
        return raw_predict(X, self.flat, out)

    def cover_expectation(self):
        """The path-dependent game's value of the empty coalition, per output."""
        out = self.offset.copy()
        return cover_expectation(self.flat, self.max_depth, self.max_kids, out)


_SKLEARN_TREES = {"DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
                  "ExtraTreeRegressor"}
_SKLEARN_FORESTS = {"RandomForestClassifier", "RandomForestRegressor",
                    "ExtraTreesClassifier", "ExtraTreesRegressor"}
_SKLEARN_BOOSTING = {"GradientBoostingClassifier", "GradientBoostingRegressor"}


def _sklearn_kind(model):
    """"tree", "forest", "boosting" for scikit-learn's tree models, else None
    (by class name and module: skml imports none of scikit-learn's algorithms)."""
    cls = type(model)
    if not cls.__module__.startswith("sklearn."):
        return None
    name = cls.__name__
    if name in _SKLEARN_TREES:
        return "tree"
    if name in _SKLEARN_FORESTS:
        return "forest"
    if name in _SKLEARN_BOOSTING:
        return "boosting"
    return None


class _SklearnTree:
    """A fitted scikit-learn ``tree_`` seen through the attributes
    :class:`TreeEnsemble` reads from skml's trees (its public arrays only;
    binary numeric splits, so no categorical nodes). Classifier leaves are
    normalised to proportions, as the trees' ``predict_proba``. A
    multi-output regression tree keeps all its outputs."""

    def __init__(self, tree, classifier):
        if classifier and tree.n_outputs != 1:
            raise ValueError("TreeSHAP explains single-output scikit-learn classifiers; "
                             f"got a tree with n_outputs={tree.n_outputs}.")
        n = tree.node_count
        self.node_count = n
        self.children_left = np.asarray(tree.children_left, dtype=np.intp)
        self.children_right = np.asarray(tree.children_right, dtype=np.intp)
        self.feature = np.asarray(tree.feature, dtype=np.intp)
        self.threshold = np.asarray(tree.threshold, dtype=np.float64)
        self.missing_go_to_left = np.asarray(
            getattr(tree, "missing_go_to_left", np.zeros(n)), dtype=np.uint8)
        self.weighted_n_node_samples = np.asarray(tree.weighted_n_node_samples,
                                                  dtype=np.float64)
        value = np.asarray(tree.value, dtype=np.float64)
        if classifier:
            total = value.sum(axis=2, keepdims=True)
            value = value / np.where(total > 0, total, 1.0)
        self.value = value
        self.max_depth = int(tree.max_depth)
        self.category_offset = np.full(n, -1, dtype=np.intp)
        self.n_category_slots = np.zeros(max(1, int(self.feature.max(initial=0)) + 1),
                                          dtype=np.intp)
        self.category_children = np.zeros(0, dtype=np.intp)


def _sklearn_encode(model):
    """scikit-learn's trees compare float32 features with float64 thresholds:
    the rows are rounded to float32 as its ``predict`` does."""
    from sklearn.utils import check_array, get_tags

    allow_nan = get_tags(model).input_tags.allow_nan

    def encode(X):
        X = check_array(X, dtype=np.float32,
                        ensure_all_finite="allow-nan" if allow_nan else True)
        return np.ascontiguousarray(X, dtype=np.float64)

    return encode


def _sklearn_ensemble(model, kind):
    """The :class:`TreeEnsemble` of a fitted scikit-learn tree model (or
    ``None`` when unfitted)."""
    classifier = is_classifier(model)
    d = getattr(model, "n_features_in_", None)
    if kind == "tree":
        if not hasattr(model, "tree_"):
            return None
        tree = _SklearnTree(model.tree_, classifier)
        k = tree.value.shape[1] * tree.value.shape[2]
        return TreeEnsemble([tree], [0], [1.0], k, np.zeros(k), _sklearn_encode(model), d)
    est = getattr(model, "estimators_", None)
    if est is None or len(est) == 0:
        return None
    if kind == "forest":
        trees = [_SklearnTree(e.tree_, classifier) for e in est]
        k = trees[0].value.shape[1] * trees[0].value.shape[2]
        return TreeEnsemble(trees, [0] * len(trees), [1.0 / len(trees)] * len(trees), k,
                            np.zeros(k), _sklearn_encode(model), d)
    # boosting: raw score = init + learning_rate * sum of trees; the init must
    # be a constant (the default prior/mean, or "zero")
    init = getattr(model, "init_", None)
    if not (isinstance(init, str) and init == "zero"
            or type(init).__name__ in ("DummyClassifier", "DummyRegressor")):
        raise ValueError("TreeSHAP explains scikit-learn gradient boosting with a constant "
                         f"init (the default or 'zero'); got init={model.init!r}.")
    n_stages, K = est.shape
    trees = [_SklearnTree(e.tree_, False) for e in est.ravel()]
    ensemble = TreeEnsemble(trees, np.tile(np.arange(K), n_stages),
                            [float(model.learning_rate)] * len(trees), K, np.zeros(K),
                            _sklearn_encode(model), d)
    # the constant: the model's raw output at one row minus the trees' sum there
    x = np.zeros((1, d))
    method = model.decision_function if classifier else model.predict
    raw = np.asarray(method(x), dtype=np.float64).reshape(K)
    ensemble.offset = raw - ensemble.raw(ensemble.encode(x))[0]
    return ensemble


def tree_ensemble(model):
    """The :class:`TreeEnsemble` of a fitted tree model, else ``None``.

    Supported: skml's ``DecisionTree*``, ``ExtraTree*``, ``RandomForest*``,
    ``ExtraTrees*`` and ``GradientBoosting*`` classifiers and regressors, and
    scikit-learn's of the same names (their public ``tree_`` arrays). A
    multi-output regressor's outputs are explained side by side, one SHAP
    column block per output (the ``n_outputs`` of the ensemble, as shap's
    ``TreeExplainer``); a multi-output classifier raises ValueError.
    """
    from ..ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from ..tree import DecisionTreeClassifier, DecisionTreeRegressor

    kind = _sklearn_kind(model)
    if kind is not None:
        return _sklearn_ensemble(model, kind)

    def encode(X):
        with warnings.catch_warnings():
            # the explainer works on arrays; a model fitted on a DataFrame need not warn
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            return np.ascontiguousarray(model._validate_X_predict(X), dtype=np.float64)

    d = getattr(model, "n_features_in_", None)
    forests = (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
               ExtraTreesRegressor)
    if (isinstance(model, (DecisionTreeClassifier, *forests)) and is_classifier(model)
            and getattr(model, "n_outputs_", 1) > 1):
        raise ValueError("TreeSHAP explains single-output classifiers (predict_proba is "
                         f"a list for several outputs); this model has "
                         f"{model.n_outputs_} outputs.")
    if isinstance(model, (DecisionTreeClassifier, DecisionTreeRegressor)):
        if not hasattr(model, "tree_"):
            return None
        tree = model.tree_
        k = tree.value.shape[1] * tree.value.shape[2]
        return TreeEnsemble([tree], [0], [1.0], k, np.zeros(k), encode, d)
    if isinstance(model, forests):
        if not getattr(model, "estimators_", None):
            return None
        trees = [est.tree_ for est in model.estimators_]
        k = trees[0].value.shape[1] * trees[0].value.shape[2]
        return TreeEnsemble(trees, [0] * len(trees), [1.0 / len(trees)] * len(trees), k,
                            np.zeros(k), encode, d)
    if isinstance(model, (GradientBoostingClassifier, GradientBoostingRegressor)):
        est = getattr(model, "estimators_", None)
        if est is None or est.size == 0:
            return None
        if not isinstance(model.init_, np.ndarray):
            # An estimator as init starts each sample from its own prediction,
            # which is not a tree: SHAP values of the trees alone would not
            # add up to the model's output.
            raise ValueError("TreeSHAP explains gradient boosting with a constant init "
                             f"(the default or 'zero'); got init={model.init!r}.")
        n_stages, K = est.shape
        trees = [e.tree_ for e in est.ravel()]
        return TreeEnsemble(trees, np.tile(np.arange(K), n_stages),
                            [float(model.learning_rate)] * len(trees), K, model.init_,
                            encode, d)
    return None


def _is_boosting_classifier(model):
    from ..ensemble import GradientBoostingClassifier

    return isinstance(model, GradientBoostingClassifier) or (
        _sklearn_kind(model) == "boosting" and is_classifier(model))


def tree_response_method(model, response_method):
    """The prediction method TreeSHAP explains for ``response_method``, or
    ``None`` when the trees' sum cannot represent it."""
    if callable(response_method):
        return None
    if _is_boosting_classifier(model):
        if response_method == "predict_proba":
            return "predict_proba"  # interventional only, see ``tree_shap``
        return "decision_function" if response_method in ("auto", "decision_function") \
            else None
    if is_classifier(model):
        return "predict_proba" if response_method in ("auto", "predict_proba") else None
    return "predict" if response_method in ("auto", "predict") else None


def _coefficients(depth):
    """``coef_x[P, N] = (P-1)! N! / (P+N)!`` (P >= 1) and
    ``coef_b[P, N] = P! (N-1)! / (P+N)!`` (N >= 1), zero elsewhere."""
    P = np.arange(depth + 2)[:, None]
    N = np.arange(depth + 2)[None, :]
    total = P + N
    with np.errstate(divide="ignore", invalid="ignore"):
        cx = 1.0 / (total * comb(total - 1, N))
        cb = 1.0 / (total * comb(total - 1, P))
    cx = np.where(P >= 1, cx, 0.0)
    cb = np.where(N >= 1, cb, 0.0)
    return np.ascontiguousarray(cx), np.ascontiguousarray(cb)


def _quadrature(depth):
    """Gauss-Legendre nodes and weights on [0, 1], exact for polynomials of
    degree < ``depth`` (at least ``depth / 2`` nodes)."""
    t, w = np.polynomial.legendre.leggauss(depth // 2 + 1)
    return np.ascontiguousarray((t + 1.0) / 2.0), np.ascontiguousarray(w / 2.0)


def _probabilities(raw):
    """Binary boosting's probability of the positive class from its raw score."""
    return expit(raw)


def tree_shap(ensemble, X, background=None, n_threads=1, transform=None):
    """Exact TreeSHAP values, shape (n_rows, n_features, n_outputs).

    ``background=None``: path dependent; otherwise interventional against
    the background (both already encoded, C-contiguous float64). Rows are
    independent: ``n_threads`` threads (nogil kernels) take blocks of them.

    ``transform="probability"`` (interventional, boosting only): the values
    of the class probabilities, as shap's ``model_output="probability"``:
    for each pair of a row ``x`` and a background row ``b`` the raw-score
    values are rescaled by ``(p(x) - p(b)) / (f(x) - f(b))`` per output, so
    they sum to ``p(x) - mean_b p(b)`` (efficiency holds exactly). This is
    not the Shapley value of the probability game (the logistic of a sum is
    not a sum over trees; algorithm "exact" or "permutation" computes that
    one) but shap's per-reference linearisation. Binary models only (a
    softmax output can change where its own raw score does not, and no
    rescaling then adds up); the values are returned for both classes
    (class 0's are the negatives).
    """
    e = ensemble
    n, d = X.shape
    if transform == "probability":
        if background is None:
            raise ValueError("Probabilities of boosting are explained with a background "
                             "(feature_perturbation='interventional') only.")
        coef_x, coef_b = _coefficients(e.max_depth)
        fb = e.raw(background)
        pb = _probabilities(fb)
        out = np.zeros((n, d, e.n_outputs))

        def run(rows):
            fx = e.raw(X[rows])
            interventional_shap_rescaled(X[rows], background, e.flat, e.max_depth, coef_x,
                                         coef_b, fx, fb, _probabilities(fx), pb, out[rows])

        _run_blocks(run, n, n_threads)
        if e.n_outputs == 1:
            out = np.concatenate([-out, out], axis=2)
        return out
    out = np.zeros((n, d, e.n_outputs))
    if n == 0:
        return out
    if background is None:
        t_q, w_q = _quadrature(e.max_depth)

        def run(rows):
            path_dependent_shap(X[rows], e.flat, e.max_depth, e.max_kids, t_q, w_q,
                                out[rows])
    else:
        coef_x, coef_b = _coefficients(e.max_depth)

        def run(rows):
            interventional_shap(X[rows], background, e.flat, e.max_depth, coef_x, coef_b,
                                out[rows])
    _run_blocks(run, n, n_threads)
    return out


def _run_blocks(run, n, n_threads):
    """``run(rows)`` over ``n_threads`` consecutive blocks of ``range(n)``."""
    if n == 0:
        return
    n_threads = max(1, min(int(n_threads), n))
    step = -(-n // n_threads)
    run_in_threads(run, [slice(a, min(a + step, n)) for a in range(0, n, step)], n_threads)
