"""Shapley values: the exact game solver and the model explainer (notes A §12.4)."""

from numbers import Integral

import numpy as np
from scipy.special import comb

from ..utils._parallel import resolve_n_jobs
from ._explanation import Explanation
from ._response import Response, check_rows, feature_names_for
from ._tree_shap import (
    FEATURE_PERTURBATIONS,
    _is_boosting_classifier,
    tree_ensemble,
    tree_response_method,
    tree_shap,
)

MAX_EXACT_PLAYERS = 20

# Model rows per call when the explainers evaluate coalitions: large enough
# that the per-call overhead of a scikit-learn predict (tens of microseconds
# to a millisecond) vanishes, small enough that a block of synthetic rows of
# 100 features stays near 80 MB.
DEFAULT_BATCH_ROWS = 100_000

_ALGORITHMS = ("auto", "exact", "permutation", "kernel", "tree", "linear")

# Linear models whose decision_function (classifiers) or predict (regressors)
# is x . coef_ + intercept_, in skml and scikit-learn.
_LINEAR_MODELS = {
    "LinearRegression", "Ridge", "RidgeCV", "Lasso", "LassoCV", "ElasticNet",
    "ElasticNetCV", "Lars", "LassoLars", "LassoLarsIC", "BayesianRidge",
    "ARDRegression", "HuberRegressor", "QuantileRegressor", "TheilSenRegressor",
    "OrthogonalMatchingPursuit", "SGDRegressor", "SGDClassifier", "Perceptron",
    "PassiveAggressiveClassifier", "PassiveAggressiveRegressor",
    "LogisticRegression", "LogisticRegressionCV", "RidgeClassifier",
    "RidgeClassifierCV", "LinearSVC", "LinearSVR", "LinearDiscriminantAnalysis",
}


def shapley_values(value_fn, n_players, *, vectorized=False):
    """Exact Shapley values of a cooperative game (notes A §12.4).

    ``phi_i = sum_{S subset of [n] without i} |S|! (n - |S| - 1)! / n!
    (v(S + {i}) - v(S))``, computed from the ``2^n`` coalition values in
    ``O(2^n n)`` operations. Efficiency holds as
    ``sum_i phi_i = v([n]) - v(empty)`` (the notes' ``= v([n])`` assumes
    ``v(empty) = 0``; erratum A.14).

    Parameters
    ----------
    value_fn : callable
        ``value_fn(mask)`` with ``mask`` a boolean array of length
        ``n_players`` (True for the members of the coalition) returns the
        coalition's value: a number or an array (every value the same shape).
        With ``vectorized=True`` it receives all ``2^n`` masks at once, as a
        boolean array of shape (2^n, n_players), and returns their values
        along the first axis.
    n_players : int
        Number of players, at most 20 (``2^20`` coalitions).
    vectorized : bool, default=False
        Pass every coalition in one call.

    Returns
    -------
    phi : ndarray of shape (n_players,) or (n_players,) + value_shape
        The Shapley value of each player.

    Notes
    -----
    Coalition ``S`` is the integer whose bit ``i`` is set when player ``i``
    belongs to it; for each player the pairs ``(S, S + {i})`` are the
    integers without bit ``i`` and the same with it, so the sum above is one
    indexed difference weighted by ``w(|S|) = 1 / (n C(n - 1, |S|))``.
    Memory: the ``2^n`` values and an index array of ``2^(n-1)`` integers.

    Examples
    --------
    The glove game: player 0 holds a left glove, players 1 and 2 right
    gloves, and a coalition is worth 1 when it holds a pair.

    >>> from skml.inspection import shapley_values
    >>> glove = lambda s: float(s[0] and (s[1] or s[2]))
    >>> phi = shapley_values(glove, 3)
    >>> [round(float(p), 6) for p in phi]
    [0.666667, 0.166667, 0.166667]
    """
    if not callable(value_fn):
        raise TypeError(f"value_fn must be callable; got {type(value_fn).__name__}.")
    if not isinstance(n_players, Integral) or isinstance(n_players, bool) or n_players < 1:
        raise ValueError(f"n_players must be a positive integer; got {n_players!r}.")
    n_players = int(n_players)
    if n_players > MAX_EXACT_PLAYERS:
        raise ValueError(
            f"exact Shapley values enumerate 2^n_players coalitions; n_players="
            f"{n_players} exceeds the limit of {MAX_EXACT_PLAYERS}. Use "
            "ShapleyExplainer(algorithm='permutation' or 'kernel') instead."
        )
    masks = all_coalitions(n_players)
    if vectorized:
        values = np.asarray(value_fn(masks), dtype=np.float64)
        if values.shape[:1] != (len(masks),):
            raise ValueError(
                f"value_fn returned shape {values.shape} for {len(masks)} coalitions."
            )
    else:
        values = np.asarray([value_fn(m) for m in masks], dtype=np.float64)
    return exact_from_values(values, n_players)


def all_coalitions(n):
    """Every coalition of ``n`` players as a (2^n, n) boolean array (bit i = player i)."""
    codes = np.arange(1 << n, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n)) & 1).astype(bool)


def exact_from_values(values, n):
    """Shapley values from the values of all ``2^n`` coalitions (axis 0)."""
    codes = np.arange(1 << n, dtype=np.int64)
    sizes = np.zeros(1 << n, dtype=np.int64)
    for i in range(n):
        sizes += (codes >> i) & 1
    # w(s) = s! (n - s - 1)! / n! = 1 / (n C(n - 1, s))
    weight = 1.0 / (n * comb(n - 1, np.arange(n), exact=False))
    phi = np.empty((n,) + values.shape[1:])
    for i in range(n):
        without = codes[(codes >> i) & 1 == 0]
        diff = values[without | (1 << i)] - values[without]
        phi[i] = np.tensordot(weight[sizes[without]], diff, axes=(0, 0))
    return phi


# --------------------------------------------------------------------------
# Coalition values of a model over a background (interventional)
# --------------------------------------------------------------------------


def coalition_values(f, X, masks, background, batch_rows=DEFAULT_BATCH_ROWS):
    """``V[r, c] = mean_b f(where(masks[c], X[r], b))``: (n_rows, n_masks, k).

    All (row, coalition) pairs are flattened and evaluated in blocks of at
    most ``batch_rows`` model rows, one model call per block.
    """
    n, d = X.shape
    c, m = masks.shape[0], background.shape[0]
    pairs_per_call = max(1, batch_rows // m)
    out = None
    total = n * c
    for start in range(0, total, pairs_per_call):
        p = np.arange(start, min(total, start + pairs_per_call))
        r, s = np.divmod(p, c)
        Z = np.where(masks[s][:, None, :], X[r][:, None, :], background[None])
        F = f(Z.reshape(-1, d))
        F = F.reshape(len(p), m, -1).mean(axis=1)
        if out is None:
            out = np.empty((total, F.shape[1]))
        out[p] = F
    return out.reshape(n, c, -1)


# --------------------------------------------------------------------------
# Kernel SHAP coalitions
# --------------------------------------------------------------------------


def kernel_coalitions(d, budget, rng):
    """Coalitions and Shapley-kernel weights for Kernel SHAP.

    Subset sizes are enumerated completely from the extremes inwards (sizes
    ``s`` and ``d - s`` together) while the budget covers them; the rest of
    the budget is sampled in complementary pairs, the size drawn with the
    kernel's remaining mass ``(d - 1) / (s (d - s))`` and the members
    uniformly, each draw weighted ``remaining mass / draws``. Duplicate draws
    are merged (their weights add). Returns ``masks`` (c, d) bool and
    ``weights`` (c,), without the empty and the full coalition.
    """
    sizes = np.arange(1, d)
    mass = (d - 1) / (sizes * (d - sizes))  # kernel mass of each size
    masks, weights = [], []
    left = budget
    enumerated = np.zeros(d, dtype=bool)
    for s in range(1, d // 2 + 1):
        partner = d - s
        count = comb(d, s, exact=True) * (1 if partner == s else 2)
        if count > left:
            break
        for size in {s, partner}:
            subsets = _subsets_of_size(d, size)
            masks.append(subsets)
            weights.append(np.full(len(subsets), mass[size - 1] / comb(d, size)))
            enumerated[size] = True
        left -= count
    rest = [s for s in range(1, d) if not enumerated[s]]
    if rest and left >= 2:
        p = mass[np.array(rest) - 1]
        remaining_mass = p.sum()
        n_pairs = left // 2
        drawn_sizes = rng.choice(rest, size=n_pairs, p=p / p.sum())
        keys = rng.random((n_pairs, d))
        # the `size` smallest keys of a row are a uniform subset of that size
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
        chosen = ranks < drawn_sizes[:, None]
        drawn = np.vstack([chosen, ~chosen])
        w = np.full(len(drawn), remaining_mass / len(drawn))
        unique, inverse = np.unique(drawn, axis=0, return_inverse=True)
        masks.append(unique)
        weights.append(np.bincount(inverse.ravel(), weights=w, minlength=len(unique)))
    if not masks:
        return np.zeros((0, d), dtype=bool), np.zeros(0)
    return np.vstack(masks), np.concatenate(weights)


def _subsets_of_size(d, size):
    from itertools import combinations

    rows = list(combinations(range(d), size))
    out = np.zeros((len(rows), d), dtype=bool)
    out[np.repeat(np.arange(len(rows)), size), np.asarray(rows, dtype=np.int64).ravel()] = True
    return out


def kernel_solve(masks, weights, V, v0, v1):
    """Weighted least squares with the efficiency constraint exact.

    ``min sum_c w_c (V_c - v0 - z_c . phi)^2`` subject to
    ``sum_i phi_i = v1 - v0``, by the Lagrange (KKT) system
    ``[[Z^T W Z, 1], [1^T, 0]] [phi; lam] = [Z^T W (V - v0); v1 - v0]``,
    solved once for every row and output (the masks are shared).
    ``V`` (n, c, k), ``v0`` (k,), ``v1`` (n, k) -> phi (n, d, k).
    """
    n, c, k = V.shape
    d = masks.shape[1]
    Z = masks.astype(np.float64)
    A = np.zeros((d + 1, d + 1))
    A[:d, :d] = (Z * weights[:, None]).T @ Z
    A[:d, d] = A[d, :d] = 1.0
    rhs = np.empty((d + 1, n * k))
    rhs[:d] = np.einsum("cd,c,nck->dnk", Z, weights, V - v0).reshape(d, n * k)
    rhs[d] = (v1 - v0).reshape(n * k)
    # lstsq (an SVD of a (d+1)-square matrix, negligible next to the model
    # calls): with a budget too small to span every direction the system is
    # singular, and the minimum-norm solution is the one to report.
    sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
    return sol[:d].reshape(d, n, k).transpose(1, 0, 2)


# --------------------------------------------------------------------------
# The explainer
# --------------------------------------------------------------------------


class ShapleyExplainer:
    """Shapley-value attributions of a model's predictions (notes A §12.4).

    The value of a coalition ``S`` of features for a row ``x`` is the
    interventional expectation over the background ``B``:
    ``v_x(S) = mean_{b in B} f(x_S, b_{not S})``, and the attributions are
    the Shapley values of that game: ``sum_i phi_i(x) = f(x) - mean_b f(b)``
    (efficiency) for every algorithm, exactly.

    Parameters
    ----------
    model : fitted estimator or callable
        The model (any scikit-learn-compatible estimator, skml's or not) or a
        prediction function ``f(X) -> (n,)`` or ``(n, n_outputs)``.
    background : array-like of shape (n_background, n_features), default=None
        Rows the absent features are drawn from. The cost of every
        algorithm but "linear" and path-dependent "tree" is proportional to
        its size: a few dozen to a hundred rows (a sample or k-means centres
        of the training set) are usual. Required except for "tree" (None:
        path-dependent TreeSHAP).
    algorithm : {"auto", "exact", "permutation", "kernel", "tree", "linear"}, \
default="auto"
        - "exact": all ``2^d`` coalitions (``d <= 20``), the values of every
          coalition for a block of rows in one model call; exact.
        - "permutation": antithetic permutation sampling: each sampled
          feature order is walked forwards and backwards, and ``phi_i`` is
          the mean marginal contribution of feature ``i``. Unbiased; exact
          with one pair of permutations when the model has at most pairwise
          interactions. ``standard_errors`` of the explanation estimate the
          sampling error (one standard deviation of the mean over the pairs).
        - "kernel": Kernel SHAP: the Shapley values as the weighted
          least-squares fit of the coalition values with the Shapley kernel
          ``(d - 1) / (C(d, |S|) |S| (d - |S|))``, sizes enumerated from the
          extremes inwards while the budget lasts, the rest sampled in
          complementary pairs, and efficiency imposed exactly (a Lagrange
          multiplier). Every feature gets a value (no silent L1 feature
          selection). Exact when the budget covers all ``2^d - 2`` coalitions
          and for additive models; otherwise its error shrinks as
          ``O(1/sqrt(n_samples))``.
        - "tree": exact TreeSHAP in numba over the trees of skml's
          ``DecisionTree*``, ``ExtraTree*``, ``RandomForest*``,
          ``ExtraTrees*`` and ``GradientBoosting*``, and of scikit-learn's
          same five families (classifiers single-output, regressors single-
          or multi-output: values ``(n, d, n_outputs)``; read from their
          public ``tree_`` arrays; rows
          rounded to float32 as scikit-learn's trees compare them) (see
          ``feature_perturbation``): a tree or forest classifier's
          probabilities, a regressor's prediction, boosting's raw
          ``decision_function`` (``init_`` is in the base value). Binary
          boosting's ``predict_proba`` (``response_method="predict_proba"``,
          with a background) as shap's ``model_output="probability"``: each
          background row's raw-score values rescaled by
          ``(p(x) - p(b)) / (f(x) - f(b))``; efficient, but not the Shapley
          values of the probability game (those: "exact", "permutation").
        - "linear": the closed form ``phi_i = w_i (x_i - mean(B_i))`` for a
          linear model's decision function or prediction (exact for the
          interventional game: features enter additively).
        - "auto": "tree" for those tree models (when the explained output is
          the one above); "linear" for a known linear model explained through
          ``decision_function``/``predict``; "exact" when ``d <= 12``;
          otherwise "kernel".
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"} or callable, default="auto"
        What is explained: "auto" is ``predict_proba`` when the model has
        it, else a classifier's ``decision_function``, else ``predict``
        (with "tree", gradient boosting's ``decision_function``).
    feature_perturbation : {"auto", "tree_path_dependent", "interventional"}, \
default="auto"
        The game of algorithm "tree" (as shap's ``TreeExplainer``; "auto":
        interventional when a background is given, else path dependent).
        "interventional" is the game above, exact (Lundberg et al. 2020);
        "tree_path_dependent" (Lundberg et al. 2018, Algorithm 2) integrates
        the absent features out with the trees' training covers, needs no
        background, and its base value is the cover-weighted mean output.
    n_samples : int or "auto", default="auto"
        Coalitions evaluated per row by "permutation" and "kernel" (each
        costs ``n_background`` model rows). "auto": ``2 d + 2048`` (shap's
        Kernel default, so comparisons are at equal model evaluations).
    feature_names : list of str, default=None
        Names for the explanation; default: the background's DataFrame
        columns, the model's ``feature_names_in_``, or ``x0, x1, ...``.
    batch_rows : int, default=100_000
        Most model rows per call.
    n_jobs : int, default=None
        Threads over the explained rows for algorithm "tree" (rows are
        independent, so the values do not depend on it; the others call the
        model, whose own ``n_jobs`` applies). ``None`` means 1 unless in a
        :obj:`joblib.parallel_backend` context, ``-1`` all processors.
    random_state : int, RandomState instance or None, default=None
        Seeds the sampled algorithms. The generator is created with the
        explainer; successive :meth:`explain` calls continue its stream, so
        a new explainer with the same seed repeats the same explanations.

    Attributes
    ----------
    background_ : ndarray of shape (n_background, n_features)
    expected_value_ : ndarray of shape (n_outputs,)
        ``mean_b f(b)``, the base value of every explanation.

    Notes
    -----
    Model rows per explained row: exact ``2^d n_bg``; permutation
    ``(2 + n_permutations (d - 1)) n_bg``; kernel ``n_samples n_bg``; linear
    and tree none (tree: ``O(T L D^2)`` path dependent, at most
    ``O(T L n_bg)`` interventional, for ``T`` trees of ``L`` leaves and
    depth ``D``). The masks are drawn once per call of :meth:`explain` and shared
    by all its rows, so Kernel SHAP solves one ``(d + 1)``-square system for
    every row and output, and rows are batched into few model calls.

    References
    ----------
    Lundberg and Lee, "A Unified Approach to Interpreting Model
    Predictions", NeurIPS 2017. Lundberg, Erion and Lee, "Consistent
    Individualized Feature Attribution for Tree Ensembles", 2018; Lundberg
    et al., "From local explanations to global understanding with
    explainable AI for trees", Nature Machine Intelligence 2020 (TreeSHAP).
    Štrumbelj and Kononenko, "Explaining prediction models and individual
    predictions with feature contributions", KAIS 2014 (permutation sampling).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> from skml.inspection import ShapleyExplainer
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(50, 3))
    >>> reg = LinearRegression().fit(X, X @ [1.0, 2.0, 0.0])
    >>> ex = ShapleyExplainer(reg, X[:20], algorithm="exact").explain(X[:2])
    >>> ex.values.shape
    (2, 3)
    >>> bool(np.allclose(ex.values.sum(1), reg.predict(X[:2]) - ex.base_values))
    True

    TreeSHAP of a forest, path dependent (no background needed):

    >>> from skml.ensemble import RandomForestRegressor
    >>> rf = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0)
    >>> rf = rf.fit(X, X @ [1.0, 2.0, 0.0])
    >>> ex = ShapleyExplainer(rf).explain(X[:2])
    >>> bool(np.allclose(ex.values.sum(1) + ex.base_values, rf.predict(X[:2])))
    True
    """

    def __init__(self, model, background=None, algorithm="auto", *,
                 response_method="auto", feature_perturbation="auto", n_samples="auto",
                 feature_names=None, batch_rows=DEFAULT_BATCH_ROWS, random_state=None,
                 n_jobs=None):
        if algorithm not in _ALGORITHMS:
            raise ValueError(f"algorithm must be one of {_ALGORITHMS}; got {algorithm!r}.")
        if feature_perturbation not in FEATURE_PERTURBATIONS:
            raise ValueError(
                f"feature_perturbation must be one of {FEATURE_PERTURBATIONS}; got "
                f"{feature_perturbation!r}."
            )
        if not (n_samples == "auto" or (isinstance(n_samples, Integral)
                                        and not isinstance(n_samples, bool)
                                        and n_samples >= 2)):
            raise ValueError(f"n_samples must be 'auto' or an integer >= 2; got {n_samples!r}.")
        if not (isinstance(batch_rows, Integral) and batch_rows >= 1):
            raise ValueError(f"batch_rows must be a positive integer; got {batch_rows!r}.")
        self.model = model
        self.algorithm = algorithm
        self.response_method = response_method
        self.n_samples = n_samples
        self.batch_rows = batch_rows
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.feature_perturbation = feature_perturbation
        self._trees = None
        if algorithm in ("auto", "tree"):
            self._trees = self._tree_setup(model, background, algorithm, response_method,
                                           feature_perturbation)
        if self._trees is not None:
            response_method = tree_response_method(model, response_method)
        self._f = Response(model, response_method)
        if self._trees is not None and background is None:
            d = self._trees.n_features
            self.background_ = None
        else:
            if background is None:
                raise ValueError(
                    f"algorithm={algorithm!r} needs a background (only algorithm='tree' "
                    "with feature_perturbation='tree_path_dependent' works without)."
                )
            self.background_ = check_rows(background, None, "background", self._f,
                                          allow_nan=self._trees is not None)
            d = self.background_.shape[1]
        self.feature_names = feature_names_for(background, self._f, d, feature_names)
        self.algorithm_ = "tree" if self._trees is not None else self._choose_algorithm(d)
        if self.algorithm_ == "exact" and d > MAX_EXACT_PLAYERS:
            raise ValueError(
                f"algorithm='exact' enumerates 2^d coalitions; d={d} features exceed "
                f"the limit of {MAX_EXACT_PLAYERS}. Use 'permutation' or 'kernel'."
            )
        if self.algorithm_ == "tree":
            self._tree_background = (None if self.feature_perturbation_ != "interventional"
                                     else self._trees.encode(self.background_))
        if self.algorithm_ == "tree" and self.feature_perturbation_ != "interventional":
            self.expected_value_ = self._trees.cover_expectation()
        else:
            self.expected_value_ = self._f(self.background_).mean(axis=0)
        self._rng = np.random.default_rng(
            random_state if not isinstance(random_state, np.random.RandomState)
            else random_state.randint(np.iinfo(np.int32).max))

    def _tree_setup(self, model, background, algorithm, response_method,
                    feature_perturbation):
        """The model's trees when algorithm "tree" applies (else None; an
        error when it was asked for and cannot)."""
        try:
            trees = tree_ensemble(model) if hasattr(model, "fit") else None
        except ValueError:  # a tree model TreeSHAP cannot represent (multi-output, ...)
            if algorithm == "tree":
                raise
            trees = None
        method = tree_response_method(model, response_method) if trees else None
        if algorithm == "tree" and (trees is None or method is None):
            if trees is None and hasattr(model, "fit"):
                Response(model, response_method)  # unfitted: check_is_fitted's error
            raise ValueError(
                "algorithm='tree' explains a fitted DecisionTree*, ExtraTree*, RandomForest*, "
                "ExtraTrees* or GradientBoosting* model of skml's or scikit-learn's through "
                "predict_proba (tree and forest classifiers; boosting classifiers with a "
                "background), decision_function (boosting classifiers) or predict "
                f"(regressors); got {type(model).__name__} with response_method="
                f"{response_method!r}."
            )
        if method is None:
            return None
        fp = feature_perturbation
        if fp == "auto":
            fp = "tree_path_dependent" if background is None else "interventional"
        if fp == "interventional" and background is None:
            raise ValueError("feature_perturbation='interventional' needs a background.")
        proba = method == "predict_proba" and _is_boosting_classifier(model)
        if proba and trees.n_outputs > 1:
            # a softmax output can change where its own raw score does not: no
            # rescaling of that score's values adds up to it
            if algorithm == "auto":
                return None
            raise ValueError(
                "algorithm='tree' explains the probabilities of binary gradient boosting "
                f"only (as shap); this model has {trees.n_outputs} classes. Use "
                "algorithm='exact', 'permutation' or 'kernel', or response_method="
                "'decision_function'."
            )
        if proba and fp != "interventional":
            if algorithm == "auto":
                return None
            raise ValueError(
                "algorithm='tree' explains gradient boosting's predict_proba with "
                "feature_perturbation='interventional' and a background only (as shap's "
                "model_output='probability'); the path-dependent game explains its "
                "decision_function."
            )
        self._tree_transform = "probability" if proba else None
        if algorithm == "auto" and fp == "tree_path_dependent" and background is not None:
            return None  # a background given: "auto" explains its game
        self.feature_perturbation_ = fp
        return trees

    def _choose_algorithm(self, d):
        linear = self._linear_coef() is not None
        if self.algorithm == "linear":
            if not linear:
                raise ValueError(
                    "algorithm='linear' needs a linear model explained through its "
                    "decision_function (classifiers) or predict (regressors); got "
                    f"{type(self.model).__name__} with {self._f.name}."
                )
            return "linear"
        if self.algorithm != "auto":
            return self.algorithm
        if linear:
            return "linear"
        return "exact" if d <= 12 else "kernel"

    def _linear_coef(self):
        """(k, d) weights when the explained function is linear, else None."""
        model = self.model
        if type(model).__name__ not in _LINEAR_MODELS or not hasattr(model, "coef_"):
            return None
        if self._f.name not in ("decision_function", "predict"):
            return None
        if self._f.name == "predict" and hasattr(model, "classes_"):
            return None  # a classifier's predict is a label, not x . w
        return np.atleast_2d(np.asarray(model.coef_, dtype=np.float64))

    def explain(self, X):
        """Shapley values of the model's output for each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows to explain.

        Returns
        -------
        explanation : Explanation
            ``values`` of shape (n_samples, n_features) for one output, else
            (n_samples, n_features, n_outputs); ``base_values`` the expected
            output over the background; ``standard_errors`` for
            "permutation".
        """
        B = self.background_
        X = check_rows(X, len(self.feature_names), "X", allow_nan=self.algorithm_ == "tree")
        n, d = X.shape
        v0 = self.expected_value_
        extra = {}
        se = None
        if self.algorithm_ == "tree":
            phi = tree_shap(self._trees, self._trees.encode(X), self._tree_background,
                            n_threads=resolve_n_jobs(self.n_jobs),
                            transform=self._tree_transform)
            if self._f.single is None:  # one output: the response's shape decides
                self._f(X[:1])
        elif self.algorithm_ == "linear":
            W = self._linear_coef()
            phi = (X - B.mean(axis=0))[:, :, None] * W.T[None]
        else:
            fx = self._f(X)
            if self.algorithm_ == "exact":
                phi = self._exact(X)
            elif self.algorithm_ == "permutation":
                phi, se = self._permutation(X, fx)
            else:
                phi = self._kernel(X, fx)
        k = phi.shape[2]
        base = np.broadcast_to(v0, (n, k)).copy()
        if self._f.single:
            phi, base = phi[:, :, 0], base[:, 0]
            se = None if se is None else se[:, :, 0]
        return Explanation(values=phi, base_values=base, data=X,
                           feature_names=list(self.feature_names),
                           output_names=self._f.output_names, standard_errors=se,
                           extra=extra)

    def transform(self, X):
        """The Shapley values as an array (``explain(X).values``)."""
        return self.explain(X).values

    # -- algorithms --------------------------------------------------------

    def _budget(self, d):
        return 2 * d + 2048 if self.n_samples == "auto" else int(self.n_samples)

    def _exact(self, X):
        d = X.shape[1]
        masks = all_coalitions(d)
        V = coalition_values(self._f, X, masks, self.background_, self.batch_rows)
        # axis 0 must index the coalitions
        phi = exact_from_values(np.moveaxis(V, 1, 0), d)  # (d, n, k)
        return np.moveaxis(phi, 0, 1)

    def _permutation(self, X, fx):
        n, d = X.shape
        v0 = self.expected_value_
        if d == 1:
            phi = (fx - v0)[:, None, :]
            return phi, np.zeros_like(phi)
        n_pairs = max(1, self._budget(d) // (2 * (d - 1)))
        orders = np.array([self._rng.permutation(d) for _ in range(n_pairs)])
        orders = np.concatenate([orders, orders[:, ::-1]])  # antithetic
        P = len(orders)
        # masks[p, j]: the first j + 1 features of order p (j < d - 1)
        position = np.argsort(orders, axis=1)  # position of each feature
        masks = position[:, None, :] <= np.arange(d - 1)[None, :, None]
        V = coalition_values(self._f, X, masks.reshape(-1, d), self.background_,
                             self.batch_rows).reshape(n, P, d - 1, -1)
        chain = np.concatenate([np.broadcast_to(v0, (n, P, 1, len(v0))), V,
                                np.broadcast_to(fx[:, None, None, :], (n, P, 1, fx.shape[1]))],
                               axis=2)
        steps = np.diff(chain, axis=2)  # (n, P, d, k): contribution of orders[p, j]
        contrib = np.empty_like(steps)
        contrib[:, np.arange(P)[:, None], orders] = steps
        pair_means = 0.5 * (contrib[:, :n_pairs] + contrib[:, n_pairs:])
        phi = pair_means.mean(axis=1)
        if n_pairs > 1:
            se = pair_means.std(axis=1, ddof=1) / np.sqrt(n_pairs)
        else:
            se = np.full_like(phi, np.nan)
        return phi, se

    def _kernel(self, X, fx):
        d = X.shape[1]
        v0 = self.expected_value_
        if d == 1:
            return (fx - v0)[:, None, :]
        masks, weights = kernel_coalitions(d, self._budget(d), self._rng)
        V = coalition_values(self._f, X, masks, self.background_, self.batch_rows)
        return kernel_solve(masks, weights, V, v0, fx)
