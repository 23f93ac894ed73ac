"""Shared index and query code of the exact neighbour estimators (notes A §5.1-5.3).

``NeighborsBase`` stores the training points and builds the index (nothing
for brute force, a :class:`~skml.neighbors.KDTree` or
:class:`~skml.neighbors.BallTree` otherwise);
``KNeighborsMixin`` and ``RadiusNeighborsMixin`` answer the k-nearest and
radius queries with either engine.
"""

import functools
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, MultiOutputMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from ..metrics._pairwise_helpers import (
    canonical_csr,
    dot,
    pairwise_callable,
    row_norms_sq,
    unit_rows,
)
from ..metrics.pairwise import (
    BOOLEAN_METRICS,
    DISTANCE_ALIASES,
    euclidean_distances,
    data_metric_params,
    haversine_distances,
    metric_code,
    metric_map,
    missing_data_param,
    missing_param_error,
    prepare_rows,
    prepared_distances,
)
from ..utils import Interval, Options, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES
from ..utils._magnitude import magnitude_scale
from ..utils._parallel import resolve_n_jobs, row_blocks, run_in_threads
from ._ball_tree import BALL_TREE_METRICS, BallTree
from ._kd_tree import KD_TREE_METRICS, KDTree, split_rows
from ._brute_kernels import (
    TILED_CODES,
    metric_block,
    metric_knn,
    push_tile,
    sort_heaps,
)
from ._kd_tree_kernels import (
    _NO_INDEX,
    exact_euclidean_knn,
    exact_euclidean_pairs,
    select_k_smallest,
)
from ._sparse_kernels import (
    sparse_euclidean_knn,
    sparse_exact_euclidean_knn,
    sparse_exact_euclidean_pairs,
    sparse_manhattan_block,
)
from ..utils.validation import validate_data

__all__ = [
    "KNeighborsMixin",
    "KNeighborsPredictorBase",
    "NeighborsBase",
    "RadiusNeighborsMixin",
    "neighbor_weights",
]

# metric name -> canonical name used by the brute-force engine: the vector
# distances of skml.metrics.pairwise (scikit-learn's names and aliases),
# "precomputed", and "pyfunc" (metric_params["func"] is the metric; a
# callable metric is "pyfunc" too).
METRIC_ALIASES = {**DISTANCE_ALIASES, "precomputed": "precomputed", "pyfunc": "pyfunc"}

# Metrics computed with their own code here rather than by
# skml.metrics.pairwise.prepared_distances.
_OWN_BRUTE = frozenset({"euclidean", "cosine", "haversine", "precomputed", "pyfunc"})

# Metrics whose dense brute-force k-nearest search runs in ``metric_knn``
# (tiles of training points, distances folded into heaps at once), and
# whose radius blocks ``metric_block`` fills by the same tiles.
_TILED_KNN = frozenset({"manhattan", "chebyshev", "minkowski", "canberra",
                        "braycurtis", "seuclidean", "mahalanobis", "hamming",
                        "sqeuclidean", "nan_euclidean"})

# Metrics of the magnitude rescaling (X / 2^e, distances times 2^e): those
# homogeneous of degree 1 in X.
_SCALED = frozenset({"euclidean", "manhattan", "chebyshev", "minkowski"})


# Tile of the dense Euclidean brute force: 64 queries by 2048 training points,
# a 1 MiB float64 product that stays in cache between the BLAS call that
# writes it and the heap pass that reads it.
_TILE_ROWS = 64
_TILE_COLS = 2048


# Metrics the brute force computes on CSR input (scikit-learn's sparse brute
# force takes the same ones, with their aliases).
SPARSE_METRICS = frozenset({"euclidean", "manhattan", "cosine", "precomputed"})


# Dense float32 input stays float32, as in scikit-learn 1.9 (its ``_fit_X``
# keeps the input's dtype; returned distances are float64 either way). Every
# distance is still computed in float64: the brute force upcasts one tile of
# training points at a time, the trees hold their own float64 copy (as
# scikit-learn's), and the k kept neighbours are measured again in float64.
FIT_DTYPES = [np.float64, np.float32]


def keep_float32(X, metric):
    """X, in float64 unless dense float32 data of a non-precomputed metric."""
    if X.dtype == np.float32 and (sp.issparse(X) or metric == "precomputed"):
        return X.astype(np.float64)
    return X


def _as64(X):
    """A float64 view or copy of dense X (queries, a tile)."""
    return X if X.dtype == np.float64 else X.astype(np.float64)


def _norms_sq(X):
    """Squared row norms in float64, also of float32 rows."""
    if sp.issparse(X) or X.dtype == np.float64:
        return row_norms_sq(X)
    return np.einsum("ij,ij->i", X, X, dtype=np.float64)


def _csr_parts(X):
    return X.data, X.indices, X.indptr


class _DistanceMetricObject:
    """Constraint: a ``sklearn.metrics.DistanceMetric`` instance."""

    def is_satisfied_by(self, value):
        if isinstance(value, str) or not hasattr(value, "pairwise"):
            return False  # (cheap test first: no import for the usual strings)
        from sklearn.metrics import DistanceMetric

        return isinstance(value, DistanceMetric)

    def __str__(self):
        return "a sklearn.metrics.DistanceMetric"


# The DistanceMetric objects whose metric the engines here compute. Such an
# object exposes no public parameters (p, w, V, VI are private to it), so
# only the parameter-free metrics are read off it: by the class that
# DistanceMetric.get_metric (public) builds for each name, in either dtype.
_DISTANCE_METRIC_NAMES = ("euclidean", "manhattan", "chebyshev")


@functools.lru_cache(maxsize=None)
def _distance_metric_classes():
    from sklearn.metrics import DistanceMetric

    classes = {}
    for dtype in (np.float64, np.float32):
        for name in _DISTANCE_METRIC_NAMES:
            classes[type(DistanceMetric.get_metric(name, dtype=dtype))] = name
        classes[type(DistanceMetric.get_metric("minkowski", p=3, dtype=dtype))] = None
    return classes


def metric_name(metric):
    """The metric's name (a key of ``METRIC_ALIASES``), also of a DistanceMetric.

    A ``sklearn.metrics.DistanceMetric`` object stands for its metric: the
    distances are computed here, never by the object's ``pairwise``.
    """
    if isinstance(metric, str):
        return metric
    if callable(metric):
        return "pyfunc"
    classes = _distance_metric_classes()
    kind = type(metric)
    if kind in classes and classes[kind] is not None:
        return classes[kind]
    if kind in classes:
        raise ValueError(
            f"metric={kind.__name__} object: its p and weights are not public, so "
            "they cannot be read off it; pass metric=\"minkowski\" with p (and "
            "metric_params={\"w\": w} for weights) instead."
        )
    raise ValueError(
        f"metric={kind.__name__} object: the DistanceMetric objects accepted are "
        f"those of {list(_DISTANCE_METRIC_NAMES)} (the others' metrics are not "
        f"computed here); or pass one of the metric names {sorted(METRIC_ALIASES)}."
    )


def _effective_metric(metric, p):
    """Canonical metric name and Minkowski order (scikit-learn's naming)."""
    name = METRIC_ALIASES[metric]
    if name == "minkowski":
        if p == 2:
            return "euclidean", 2.0
        if p == 1:
            return "manhattan", 1.0
        if np.isinf(p):
            return "chebyshev", np.inf
        return "minkowski", float(p)
    return name, {"euclidean": 2.0, "manhattan": 1.0, "chebyshev": np.inf}.get(name)


def training_data(X):
    """X's training points if X is a fitted neighbours estimator or tree, else X.

    As scikit-learn, ``fit`` takes a fitted :class:`NearestNeighbors` (or
    classifier, regressor), :class:`KDTree` or :class:`BallTree` (skml's or
    scikit-learn's) in place of the data: its training points are indexed again (with this estimator's
    algorithm and metric).
    """
    if isinstance(X, (KDTree, BallTree)):
        return X.data
    if not hasattr(X, "shape") and callable(getattr(X, "get_arrays", None)):
        # scikit-learn's KDTree or BallTree: its public get_arrays() starts
        # with the training data.
        return np.asarray(X.get_arrays()[0])
    if isinstance(X, NeighborsBase):
        check_is_fitted(X)
        data = X._fit_X
        scale = getattr(X, "_scale", 1.0)
        return data if scale == 1.0 else data * scale  # (scale: a power of 2)
    return X


class NeighborsBase(MultiOutputMixin, BaseEstimator):
    """Parameters, fit and the choice of engine, shared by every estimator."""

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "radius": [Interval(Real, 0, None, closed="left")],
        "algorithm": [Options({"auto", "brute", "kd_tree", "ball_tree", "lsh"})],
        "leaf_size": [Interval(Integral, 1, None, closed="left")],
        "metric": [Options(set(METRIC_ALIASES)), callable, _DistanceMetricObject()],
        "p": [Interval(Real, 0, None, closed="right")],
        "metric_params": [dict, None],
        "lsh_params": [dict, None],
        "n_jobs": [Integral, None],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        # A precomputed distance matrix is non-negative (fit checks it).
        tags.input_tags.positive_only = tags.input_tags.pairwise
        # Brute force on CSR/CSC input (a sparse precomputed matrix is a
        # neighbourhood graph: its stored entries are the only candidates).
        tags.input_tags.sparse = True
        return tags

    def _check_graph_format(self, X):
        """Refuse a precomputed sparse graph in a format that loses explicit zeros.

        A stored 0 is a neighbour at distance 0, a missing entry no neighbour;
        DOK and BSR matrices do not keep that distinction (as scikit-learn,
        TypeError).
        """
        if (self.metric == "precomputed" and sp.issparse(X)
                and X.format in ("dok", "bsr")):
            raise TypeError(
                f"A sparse precomputed distance matrix in {X.format!r} format is "
                "not supported due to its handling of explicit zeros (a stored 0 "
                "is a neighbour at distance 0); pass it in CSR, CSC, COO or LIL "
                "format."
            )

    def _finite(self):
        """``ensure_all_finite`` of the input checks: NaN is data for nan_euclidean."""
        return "allow-nan" if self.metric == "nan_euclidean" else True

    def _validate_query(self, X, reset):
        self._check_graph_format(X)
        X = validate_data(self, X, reset=reset, dtype=FIT_DTYPES, order="C",
                          accept_sparse="csr", ensure_all_finite=self._finite())
        return self._check_precomputed(keep_float32(X, self.metric))

    def _check_precomputed(self, X):
        values = X.data if sp.issparse(X) else X
        if self.metric == "precomputed" and np.any(values < 0):
            raise ValueError("Negative values in data passed to precomputed "
                             "distance matrix (metric='precomputed').")
        return X

    def _metric_arguments(self):
        """Canonical metric name, Minkowski order and the other metric arguments.

        As scikit-learn: ``metric_params["p"]`` overrides ``p`` (with its
        warning); ``metric_params["w"]`` weights the Minkowski distance,
        :math:`(\\sum_i w_i |x_i - z_i|^p)^{1/p}`; ``V``/``VI`` are the
        seuclidean and mahalanobis arguments; a callable metric (or
        ``"pyfunc"`` with ``metric_params["func"]``) receives the others as
        keyword arguments. An argument the metric does not take is a
        TypeError (an unexpected keyword, as scikit-learn's).
        """
        params = dict(getattr(self, "metric_params", None) or {})
        name = METRIC_ALIASES.get(metric_name(self.metric), "pyfunc")
        p = self.p
        if name == "pyfunc":
            func = self.metric if callable(self.metric) else params.pop("func", None)
            if not callable(func):
                raise ValueError("metric='pyfunc' needs metric_params={'func': f}, "
                                 "f(x, y, **kwargs) the distance of two rows.")
            return name, p, func, params
        if "p" in params:
            warnings.warn("Parameter p is found in metric_params. The corresponding "
                          "parameter from __init__ is ignored.", SyntaxWarning,
                          stacklevel=4)
            p = params.pop("p")
            if not (isinstance(p, Real) and p > 0):
                raise ValueError(f"metric_params['p'] must be a positive number; "
                                 f"got {p!r}.")
        if params.get("w") is None:
            params.pop("w", None)
        return name, p, None, params

    def _fit_index(self, X):
        """Store the training points and build the index (X already validated)."""
        name, p_arg, func, params = self._metric_arguments()
        self._func, self._func_kwds = func, params
        weighted = "w" in params
        metric, p = _effective_metric(name, p_arg)
        transform = signs = None
        # seuclidean without V, mahalanobis without VI (or V): see below.
        missing = missing_data_param(name, params)
        if metric not in ("precomputed", "pyfunc"):
            if weighted and name != "minkowski":
                raise TypeError(f"metric_params['w'] needs metric='minkowski' (a "
                                f"weighted Minkowski distance); got metric={name!r}.")
            # (checks the arguments: TypeError for one the metric does not take)
            # (a missing V / VI: a placeholder here, estimated after the
            # choice of engine)
            placeholder = {"V": np.ones(X.shape[1]), "VI": np.eye(X.shape[1])}
            transform, signs = metric_map(
                name, X.shape[1], p=p_arg,
                **(params if missing is None else {**params,
                                                   missing: placeholder[missing]}))
        if weighted:
            # Weighted: Minkowski under its own name, whatever p (as scikit-learn).
            metric, p = "minkowski", float(p_arg)
        self._w = params.get("w")
        self._transform, self._signs = transform, signs
        if metric == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                "metric='precomputed' expects a square distance matrix at fit, got "
                f"shape {X.shape}."
            )
        self.effective_metric_ = func if metric == "pyfunc" else metric
        self.effective_metric_params_ = dict(params)
        if metric == "minkowski":
            self.effective_metric_params_["p"] = p
        self._p = p
        self.n_samples_fit_ = X.shape[0]
        kd_ok = metric in KD_TREE_METRICS and p is not None and p >= 1
        # The ball tree takes the metrics it has a code or a linear map for
        # (weights, V, VI), and Python callables (its search then calls them,
        # as scikit-learn's), not the metrics that are not distances between
        # vectors (cosine, correlation, sqeuclidean, nan_euclidean, yule).
        tree_ok = kd_ok or metric == "pyfunc" or (
            metric in BALL_TREE_METRICS and metric not in KD_TREE_METRICS)
        kd_ok = kd_ok and not weighted
        method = self.algorithm
        order = f" (p={p_arg})" if name == "minkowski" else ""
        if sp.issparse(X):
            if metric not in SPARSE_METRICS and metric != "pyfunc":
                raise ValueError(
                    f"Metric {name!r} not valid for sparse input{order}; "
                    f"use one of {sorted(SPARSE_METRICS)} (or 'minkowski' "
                    "with p=1 or 2) or a callable, or convert X with X.toarray()."
                )
            if method in ("kd_tree", "ball_tree", "lsh"):
                index = "LSH" if method == "lsh" else "tree"
                warnings.warn(f"cannot use {index} with sparse input: using brute force")
            # No tree on sparse data (as scikit-learn's algorithm="auto").
            method = "brute"
            X = canonical_csr(X)
        if method in ("kd_tree", "ball_tree") and metric == "minkowski" and p < 1:
            # (scikit-learn's message, word for word)
            raise ValueError(
                f'algorithm="{method}" does not support 0 < p < 1 for the Minkowski '
                'metric. To resolve this problem either set p >= 1 or '
                'algorithm="brute".'
            )
        if (method == "ball_tree" and not tree_ok) or (method == "kd_tree" and not kd_ok):
            detail = " with weights w" if weighted else ""
            shown = "a callable" if metric == "pyfunc" else repr(name)
            raise ValueError(
                f"algorithm={method!r} does not support metric={shown}"
                f"{order}{detail}; use algorithm='brute' or 'auto'."
            )
        if method == "lsh" and metric not in LSH_METRICS:
            raise ValueError(
                f"algorithm='lsh' supports the metrics {sorted(LSH_METRICS)} (each "
                f"has its hash family); got metric={name!r}{order}"
                + (" with weights w" if weighted else "") + "."
            )
        if method == "auto":
            # The tree pays off in low dimension only (notes A §5.2), and not
            # when most points are neighbours anyway. scikit-learn's rule: the
            # KD-tree for its metrics, the ball tree for those it lacks
            # (weighted Minkowski, seuclidean, mahalanobis, haversine, the
            # boolean metrics, ..., a callable), brute force for the rest.
            small_k = getattr(self, "n_neighbors", None) is None or (
                self.n_neighbors < X.shape[0] // 2
            )
            method = "brute"
            if tree_ok and X.shape[1] <= 15 and small_k:
                method = "kd_tree" if kd_ok else "ball_tree"
        if metric == "minkowski" and p < 1:
            # scikit-learn's warning: the brute force is exact for any p, but
            # with 0 < p < 1 the "distance" breaks the triangle inequality.
            warnings.warn(
                "Mind that for 0 < p < 1, Minkowski metrics are not distance"
                " metrics. Continuing the execution with `algorithm='brute'`."
            )
        self._fit_method = method
        self._data_param = self._data_param_error = None
        if missing is not None:
            transform, signs = self._estimate_data_param(X, name, missing, method)
            self._transform, self._signs = transform, signs
        # At X * 1e300 squared distances overflow, at X * 1e-300 they
        # underflow: the index holds X / s (s = 2^e, exact), queries are
        # divided alike and distances multiplied back. s = 1 (no copy, same
        # results) on data of ordinary magnitude, and for the metrics not
        # homogeneous of degree 1 (ratios, angles, booleans, ...).
        self._scale = magnitude_scale(X) if metric in _SCALED else 1.0
        if self._scale != 1.0:
            X = X / self._scale
        self._fit_X = X
        self._tree = None
        if method == "lsh":
            self._lsh = _fit_lsh(self, X, metric)
        elif method == "kd_tree":
            self._tree = KDTree(X, leaf_size=self.leaf_size, metric="minkowski", p=p)
        elif method == "ball_tree" and metric == "minkowski":
            self._tree = BallTree(X, leaf_size=self.leaf_size, metric="minkowski", p=p,
                                  **params)
        elif method == "ball_tree":
            self._tree = BallTree(X, leaf_size=self.leaf_size,
                                  metric=func if metric == "pyfunc" else metric,
                                  **params)
        elif metric == "euclidean":
            self._fit_X_norm_sq = _norms_sq(X)
            if sp.issparse(X):
                # The inverted index of the k-nearest search (O(nnz) memory):
                # for each feature, the training rows that store it.
                self._fit_X_by_feature = canonical_csr(X.T.tocsr())
        elif metric == "cosine":
            # The unit rows are a derived copy anyway: float64, so the cosine
            # distances are float64-accurate for float32 input too.
            self._fit_X_unit = unit_rows(_as64(X))
        elif metric not in _OWN_BRUTE and not sp.issparse(X):
            # The rows the distance kernel compares (mapped by V, VI or w;
            # booleans for the boolean metrics): a view when nothing changes.
            self._fit_rows = prepare_rows(X, metric, transform)
        return self

    def _estimate_data_param(self, X, name, missing, method):
        """The map of seuclidean / mahalanobis with V / VI estimated from X.

        scikit-learn 1.9, whose behaviour this follows: its trees refuse
        the metric at fit; its brute force fits, estimates the argument from
        the training data (``var(X, ddof=1)``, ``inv(cov(X.T))``, as
        ``pairwise_distances`` of X to itself) for the queries of the
        training points themselves (``kneighbors()`` without X), and refuses
        other queries. (scikit-learn's seuclidean fails there too, by an
        internal TypeError; here it works as mahalanobis.) Degenerate data
        (a constant feature, a singular covariance) raise at that query, not
        at fit, as theirs.
        """
        if method != "brute":
            what = "VI (or V)" if missing == "VI" else "V"
            raise ValueError(
                f"metric={name!r} with algorithm={method!r} needs {what} in "
                "metric_params, as scikit-learn's trees; only algorithm='brute' "
                "estimates it from the training data, for kneighbors() without X."
            )
        self._data_param = missing
        try:
            return metric_map(name, X.shape[1], **data_metric_params(name, X))
        except ValueError as exc:  # (LinAlgError is one)
            self._data_param_error = exc
            return None, None

    def _boolean_warning(self, X):
        """scikit-learn's DataConversionWarning of a boolean metric on other data."""
        if (self.effective_metric_ in BOOLEAN_METRICS and self._fit_method == "brute"
                and getattr(X, "dtype", None) != bool):
            warnings.warn(f"Data was converted to boolean for metric "
                          f"{self.effective_metric_}", DataConversionWarning,
                          stacklevel=4)

    # -- brute force ---------------------------------------------------------
    def _distance_block(self, Xq, rows):
        """Distances of Xq[rows] to the training points.

        Returns the block and whether it holds squared Euclidean distances
        (they only rank: the entries kept are then measured exactly).
        """
        metric = self.effective_metric_
        block = Xq[rows]
        if not sp.issparse(block):
            block = _as64(block)
        if metric == "precomputed":
            if sp.issparse(block):
                # A neighbourhood graph: entries not stored are no neighbours.
                D = np.full(block.shape, np.inf)
                coo = block.tocoo()
                D[coo.row, coo.col] = coo.data
                return D, False
            return np.array(block, dtype=np.float64), False
        if metric == "euclidean":
            # A float32 index is upcast for the product (a transient copy;
            # the k-nearest search below does it tile by tile instead).
            D = euclidean_distances(block, _as64(self._fit_X), squared=True,
                                    Y_norm_squared=self._fit_X_norm_sq)
            return D, True
        if metric == "cosine":
            D = dot(unit_rows(block), self._fit_X_unit.T)
            np.subtract(1.0, D, out=D)
            np.clip(D, 0.0, 2.0, out=D)
            return D, False
        if metric == "haversine":
            return haversine_distances(block, self._fit_X), False
        D = np.empty((block.shape[0], self.n_samples_fit_))
        if getattr(self, "_func", None) is not None:
            # A Python callable, pair by pair (1-d rows; 1-row CSR matrices
            # of sparse data).
            pairwise_callable(block, self._fit_X, self._func, range(block.shape[0]),
                              same=False, out=D, kwds=self._func_kwds)
            return D, False
        if sp.issparse(self._fit_X):
            # manhattan (fit checked the metric): a merge per pair, exact.
            sparse_manhattan_block(*_csr_parts(block), *_csr_parts(self._fit_X), D)
            return D, False
        rows = prepare_rows(block, metric, self._transform)
        tiled = self._tiled_code()
        if tiled is not None:
            metric_block(rows, self._fit_rows, *tiled, D)  # (the same bits)
            return D, False
        prepared_distances(rows, self._fit_rows, metric, self._p, out=D,
                           signs=self._signs)
        if metric == "nan_euclidean":
            # (no coordinate present in both: NaN, ranked last)
            D[np.isnan(D)] = np.inf
        return D, False

    def _query_data(self, X):
        """Validated query points, or the training points for ``X=None``."""
        check_is_fitted(self)
        if self.effective_metric_ == "haversine" and self.n_features_in_ != 2:
            # (scikit-learn fits such data and refuses it at the query)
            raise ValueError("Haversine distance only valid in 2 dimensions "
                             f"(latitude, longitude); fitted on {self.n_features_in_} "
                             "features.")
        missing = getattr(self, "_data_param", None)
        if missing is not None:
            # (V / VI estimated from the training data: see fit)
            if X is not None:
                raise missing_param_error(self.effective_metric_, missing)
            if self._data_param_error is not None:
                raise ValueError(f"metric={self.effective_metric_!r}: the {missing} "
                                 "estimated from the training data is unusable: "
                                 f"{self._data_param_error}")
        if X is None:
            return self._fit_X, True
        self._boolean_warning(X)
        X = self._validate_query(X, reset=False)
        if self.effective_metric_ != "precomputed":
            # Queries take the format of the index (a dense query of a
            # sparse index is made CSR; a sparse query of a dense index, a
            # dense array: that index holds n_samples_fit dense rows anyway).
            if sp.issparse(self._fit_X):
                # (a sparse index is float64: so are its queries)
                X = canonical_csr(X if sp.issparse(X) else _as64(X))
            elif sp.issparse(X):
                if self._fit_method in ("kd_tree", "ball_tree"):
                    # (as scikit-learn's trees: densifying a sparse query
                    # silently could cost n_queries x n_features memory)
                    raise ValueError(
                        f"The {self._fit_method} index takes dense queries only; "
                        "got a sparse matrix. Pass X.toarray(), or fit with "
                        "algorithm='brute'."
                    )
                X = X.toarray()
        scale = getattr(self, "_scale", 1.0)
        return (X if scale == 1.0 else X / scale), False

    def _distance_unit(self):
        """Factor from the index's distances to those of the data (see fit)."""
        scale = getattr(self, "_scale", 1.0)
        return 1.0 if self.effective_metric_ == "cosine" else scale

    def _kneighbors(self, Xq, k, exclude_self):
        dist, ind = self._kneighbors_scaled(Xq, k, exclude_self)
        unit = self._distance_unit()
        if unit != 1.0:
            dist *= unit
        return dist, ind

    def _radius_csr(self, Xq, radius, exclude_self):
        """CSR pieces (indptr, indices, distances), each row by increasing index."""
        unit = self._distance_unit()
        if unit == 1.0:
            return self._radius_csr_scaled(Xq, radius, exclude_self)
        indptr, indices, dist = self._radius_csr_scaled(Xq, radius / unit, exclude_self)
        dist *= unit
        return indptr, indices, dist

    def _kneighbors_scaled(self, Xq, k, exclude_self):
        n_q = Xq.shape[0]
        if self._fit_method == "lsh":
            return self._lsh._kneighbors(_as64(Xq), k, exclude_self)
        if self.effective_metric_ == "precomputed" and sp.issparse(Xq):
            # A neighbourhood graph: the entries not stored are no neighbours.
            stored = np.diff(Xq.indptr)
            if stored.size and stored.min() < k:
                raise ValueError(
                    f"{k} neighbors per samples are required, but some samples have "
                    f"only {stored.min()} (entries not stored in a sparse "
                    "precomputed distance matrix are not neighbours)."
                )
        if self._fit_method in ("kd_tree", "ball_tree"):
            # (_transform: the ball tree's map of a weighted metric)
            return self._tree._knn(self._tree._transform(_as64(Xq)), k,
                                   exclude_self=exclude_self, n_jobs=self.n_jobs)
        if self.effective_metric_ == "euclidean":
            if sp.issparse(self._fit_X):
                return self._sparse_euclidean_knn(Xq, k, exclude_self)
            return self._dense_euclidean_knn(Xq, k, exclude_self)
        tiled = self._tiled_code()
        if tiled is not None:
            return self._dense_metric_knn(Xq, k, exclude_self, *tiled)
        dist = np.empty((n_q, k))
        ind = np.empty((n_q, k), dtype=np.int64)

        def run(rows):
            D, squared = self._distance_block(Xq, rows)
            select_k_smallest(D, k, rows.start, exclude_self, dist[rows], ind[rows])
            if not squared:
                return
            # The expansion only ranks: the k kept are measured exactly
            # (a duplicate at 0, not ~1e-8), as the KD-tree measures them.
            if sp.issparse(self._fit_X):
                sparse_exact_euclidean_knn(*_csr_parts(Xq[rows]),
                                           *_csr_parts(self._fit_X),
                                           dist[rows], ind[rows])
            else:
                exact_euclidean_knn(_as64(Xq[rows]), self._fit_X, dist[rows], ind[rows])

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        run_in_threads(run, row_blocks(n_q, self.n_samples_fit_, n_threads), n_threads)
        if self.effective_metric_ == "precomputed" and np.isinf(dist).any():
            row = int(np.nonzero(np.isinf(dist).any(axis=1))[0][0])
            raise ValueError(
                f"{k} neighbors per sample are required, but row {row} of the "
                "sparse precomputed distance matrix stores fewer (entries not "
                "stored are not neighbours)."
            )
        return dist, ind

    def _dense_euclidean_knn(self, Xq, k, exclude_self):
        """k nearest by tiles of products folded into per-row heaps.

        Each thread (a block of query rows from ``row_blocks``) walks its rows
        in tiles of ``_TILE_ROWS`` queries by ``_TILE_COLS`` training points:
        one BLAS product into a reused cache-sized buffer, folded at once
        into the heaps (``push_tile``), so the distance matrix is never
        stored. The k kept are then measured exactly.
        """
        X = self._fit_X
        n_q, n_fit = Xq.shape[0], X.shape[0]
        XT = X.T
        yy = self._fit_X_norm_sq
        dist = np.full((n_q, k), np.inf)
        ind = np.full((n_q, k), _NO_INDEX, dtype=np.int64)
        tile_cols = min(n_fit, _TILE_COLS)

        def run(rows):
            buf = np.empty(_TILE_ROWS * tile_cols)
            for r0 in range(rows.start, rows.stop, _TILE_ROWS):
                r1 = min(r0 + _TILE_ROWS, rows.stop)
                Xr = _as64(Xq[r0:r1])
                hd, hi = dist[r0:r1], ind[r0:r1]
                for c0 in range(0, n_fit, tile_cols):
                    c1 = min(c0 + tile_cols, n_fit)
                    G = buf[:(r1 - r0) * (c1 - c0)].reshape(r1 - r0, c1 - c0)
                    # A float32 index is upcast one tile at a time (as
                    # scikit-learn's float32 search): float64 products, no
                    # float64 copy of the whole training set.
                    np.dot(Xr, _as64(XT[:, c0:c1]), out=G)
                    push_tile(G, yy, c0, r0, exclude_self, hd, hi)
                sort_heaps(hd, hi)
                exact_euclidean_knn(Xr, X, hd, hi)

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        run_in_threads(run, row_blocks(n_q, n_fit, n_threads), n_threads)
        return dist, ind

    def _tiled_code(self):
        """``(code, p)`` when the tiled kernels compute the metric, else None."""
        if (self.effective_metric_ not in _TILED_KNN or sp.issparse(self._fit_X)
                or self._signs is not None or self._func is not None):
            return None
        code, p = metric_code(self.effective_metric_, self._p or 1.0)
        return (code, p) if code in TILED_CODES else None

    def _dense_metric_knn(self, Xq, k, exclude_self, code, p):
        """k nearest under the metrics of ``metric_knn`` (see ``_TILED_KNN``).

        Each thread takes a block of query rows; ``metric_knn`` measures them
        against cache-sized tiles of the training rows and keeps the k
        nearest in per-row heaps, so no distance matrix is stored. Its
        distances equal ``prepared_distances``' bit for bit.
        """
        n_q = Xq.shape[0]
        dist = np.full((n_q, k), np.inf)
        ind = np.full((n_q, k), _NO_INDEX, dtype=np.int64)

        def run(rows):
            block = prepare_rows(Xq[rows], self.effective_metric_, self._transform)
            metric_knn(block, self._fit_rows, code, p, rows.start, exclude_self,
                       dist[rows], ind[rows])

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        run_in_threads(run, row_blocks(n_q, 1, n_threads), n_threads)
        return dist, ind

    def _sparse_euclidean_knn(self, Xq, k, exclude_self):
        """k nearest of CSR queries by the inverted index of the training rows.

        Each thread takes a block of query rows (``row_blocks``) and one
        dense accumulator of n_samples_fit products; ``sparse_euclidean_knn``
        ranks, the k kept are measured exactly.
        """
        X = self._fit_X
        n_q, n_fit = Xq.shape[0], X.shape[0]
        XT = self._fit_X_by_feature
        q_parts = _csr_parts(Xq)
        dist = np.full((n_q, k), np.inf)
        ind = np.full((n_q, k), _NO_INDEX, dtype=np.int64)

        def run(rows):
            acc = np.zeros(n_fit)
            hd, hi = dist[rows], ind[rows]
            sparse_euclidean_knn(q_parts, rows.start, rows.stop, _csr_parts(XT),
                                 self._fit_X_norm_sq, exclude_self, acc, hd, hi)
            sparse_exact_euclidean_knn(*_csr_parts(Xq[rows]), *_csr_parts(X), hd, hi)

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        run_in_threads(run, row_blocks(n_q, n_fit, n_threads), n_threads)
        return dist, ind

    def _radius_csr_scaled(self, Xq, radius, exclude_self):
        if self._fit_method == "lsh":
            return self._lsh._radius_csr(_as64(Xq), radius, exclude_self)
        if self._fit_method in ("kd_tree", "ball_tree"):
            return self._tree._radius(self._tree._transform(_as64(Xq)), radius,
                                      exclude_self=exclude_self, n_jobs=self.n_jobs)

        def run(rows):
            D, squared = self._distance_block(Xq, rows)
            if exclude_self:
                local = np.arange(rows.stop - rows.start)
                D[local, local + rows.start] = np.inf
            if not squared:
                r, c = np.nonzero(D <= radius)
                return np.bincount(r, minlength=rows.stop - rows.start), c, D[r, c]
            # The expansion ||x||² − 2x·y + ||y||² is off by at most about
            # 2 (d + 2) eps (||x||² + ||y||²) (the error bound of a d-term
            # dot product): candidates within that slack of the radius are
            # measured exactly, and the exact distance decides.
            block = Xq[rows] if sp.issparse(Xq) else _as64(Xq[rows])
            slack = 2 * (block.shape[1] + 2) * np.finfo(np.float64).eps * (
                _norms_sq(block) + self._fit_X_norm_sq.max(initial=0.0))
            r, c = np.nonzero(D <= (radius * radius + slack)[:, np.newaxis])
            if sp.issparse(block):
                d = sparse_exact_euclidean_pairs(*_csr_parts(block),
                                                 *_csr_parts(self._fit_X), r, c)
            else:
                d = exact_euclidean_pairs(block, self._fit_X, r, c)
            keep = d <= radius
            r, c, d = r[keep], c[keep], d[keep]
            return np.bincount(r, minlength=rows.stop - rows.start), c, d

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        blocks = row_blocks(Xq.shape[0], self.n_samples_fit_, n_threads)
        parts = run_in_threads(run, blocks, n_threads)
        counts = np.concatenate([part[0] for part in parts])
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        indices = np.concatenate([part[1] for part in parts]).astype(np.int64)
        dist = np.concatenate([part[2] for part in parts])
        return indptr, indices, dist


# algorithm="lsh": the metrics with a hash family (notes A §5.5-5.6), and the
# LSHNearestNeighbors parameters that lsh_params may set (the metric,
# n_neighbors, radius and n_jobs come from the estimator itself).
LSH_METRICS = frozenset({"euclidean", "manhattan", "cosine"})
LSH_PARAMS = frozenset({"family", "n_tables", "n_hashes", "bucket_width",
                        "max_candidates", "multi_probe", "fallback", "random_state",
                        "c"})


def _fit_lsh(estimator, X, metric):
    """The LSH index of ``algorithm="lsh"``: an LSHNearestNeighbors fitted on X."""
    from ._lsh import LSHNearestNeighbors  # (_lsh imports this module)

    params = dict(estimator.lsh_params or {})
    unknown = set(params) - LSH_PARAMS
    if unknown:
        raise ValueError(
            f"lsh_params keys {sorted(unknown)} are not LSH parameters; use "
            f"{sorted(LSH_PARAMS)} (metric, n_neighbors, radius and n_jobs are "
            "the estimator's own)."
        )
    lsh = LSHNearestNeighbors(n_neighbors=getattr(estimator, "n_neighbors", 5),
                              radius=getattr(estimator, "radius", 1.0), metric=metric,
                              n_jobs=estimator.n_jobs, **params)
    try:
        return lsh.fit(X)
    except ValueError as exc:
        raise ValueError(f"lsh_params: {exc}") from exc


# Docstring blocks that KNeighborsClassifier and KNeighborsRegressor share,
# placed by ``fill_doc`` (the ``<name>`` lines of their docstrings): the
# class's parameters and attributes, and the sections of fit and predict.
K_NEIGHBORS_DOC = {
    "kneighbors parameters": """
algorithm : {"auto", "brute", "kd_tree", "ball_tree", "lsh"}, default="auto"
    Search engine; see :class:`NearestNeighbors`. ``"lsh"``: approximate
    neighbours from locality-sensitive hashing (notes A §5.7).
leaf_size : int, default=30
    Leaf size of the KD-tree.
p : float, default=2
    Order of the Minkowski distance, ``0 < p <= inf``.
metric : str or DistanceMetric, default="minkowski"
    "minkowski", "euclidean", "manhattan", "chebyshev", "cosine",
    "haversine", "precomputed", any other metric of scikit-learn's brute
    force or ball tree, a callable, or a ``sklearn.metrics.DistanceMetric``
    of the first three; see :class:`NearestNeighbors`.
metric_params : dict, default=None
    Extra metric arguments (``"p"``, ``"w"`` for weighted Minkowski,
    ``"V"``, ``"VI"``, a callable's keywords); see :class:`NearestNeighbors`.
lsh_params : dict, default=None
    Parameters of the LSH index of ``algorithm="lsh"`` (ignored
    otherwise); see :class:`NearestNeighbors`.
n_jobs : int, default=None
    Threads for the neighbour queries; see :class:`NearestNeighbors`.
""",
    "kneighbors attributes": """
effective_metric_ : str
    The metric used ("minkowski" with p 1, 2, inf is renamed).
effective_metric_params_ : dict
    ``{"p": p}`` for a general Minkowski metric, else empty.
""" + FITTED_FEATURE_ATTRIBUTES.lstrip("\n") + """n_samples_fit_ : int
    Number of training points.
""",
}

# The sections of their fit and predict, placed the same way.
K_NEIGHBORS_METHOD_DOC = {
    # fit's Parameters section up to y (the training points)
    "fit": """
Parameters
----------
X : array-like of shape (n_samples, n_features), or \
        (n_samples, n_samples) if metric="precomputed"
    Training points.
""",
    # predict's sections up to the description of its result
    "predict": """
Parameters
----------
X : array-like of shape (n_queries, n_features), or \
        (n_queries, n_samples_fit) if metric="precomputed", or None
    Query points; ``None``: the training points, each excluded from
    its own neighbours.

Returns
-------
y : ndarray of shape (n_queries,) or (n_queries, n_outputs)
""",
}

# Cover and Hart's paper, cited by the exact search and the classifier.
COVER_HART_REFERENCES_DOC = """
References
----------
T. Cover and P. Hart, "Nearest neighbor pattern classification", IEEE
Transactions on Information Theory 13(1), 1967.
"""


class KNeighborsPredictorBase(NeighborsBase):
    """Constructor and constraints of the k-NN classifier and regressor."""

    _parameter_constraints = {
        **NeighborsBase._parameter_constraints,
        "weights": [Options({"uniform", "distance"}), callable, None],
    }

    def __init__(self, n_neighbors=5, *, weights="uniform", algorithm="auto",
                 leaf_size=30, p=2, metric="minkowski", metric_params=None,
                 lsh_params=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.lsh_params = lsh_params
        self.n_jobs = n_jobs

    def _training_data(self, X, y, **check_y):
        """The checked training points (float32 kept where it may be) and y."""
        validate_params(self)
        X = training_data(X)
        self._check_graph_format(X)
        X, y = validate_data(self, X, y, dtype=FIT_DTYPES, order="C", multi_output=True,
                             accept_sparse="csr", ensure_all_finite=self._finite(),
                             **check_y)
        return self._check_precomputed(keep_float32(X, self.metric)), y


def neighbor_weights(dist, weights):
    """Vote weights of the neighbours at distances ``dist`` (None: uniform).

    ``"distance"`` weighs by ``1 / d``; a query with a neighbour at distance
    0 takes the mean (or vote) of its zero-distance neighbours only.
    """
    if weights in (None, "uniform"):
        return None
    if weights == "distance":
        with np.errstate(divide="ignore"):
            w = 1.0 / dist
        inf_mask = np.isinf(w)
        inf_row = np.any(inf_mask, axis=1)
        w[inf_row] = inf_mask[inf_row]
        return w
    w = np.asarray(weights(dist), dtype=np.float64)
    if w.shape != dist.shape:
        raise ValueError(f"The weights callable must return an array of shape "
                         f"{dist.shape} (that of its argument); got {w.shape}.")
    return w


def _check_graph_mode(mode):
    """The ``mode`` of the neighbour graphs (scikit-learn's message)."""
    if mode not in ("connectivity", "distance"):
        raise ValueError(
            f'Unsupported mode, must be one of "connectivity", or "distance" but '
            f'got "{mode}" instead'
        )


def _is_radius_array(radius):
    """Whether ``radius`` is an array of radii (not a number, not a string)."""
    return not isinstance(radius, (str, bytes)) and np.ndim(radius) == 1


class KNeighborsMixin:
    """``kneighbors`` and ``kneighbors_graph``."""

    def kneighbors(self, X=None, n_neighbors=None, return_distance=True):
        """The k nearest training points of each query point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or \
                (n_queries, n_samples_fit) if metric="precomputed", default=None
            Query points. ``None``: the training points, each excluded from
            its own neighbours.
        n_neighbors : int, default=None
            Number of neighbours; the constructor's ``n_neighbors`` if None.
        return_distance : bool, default=True
            Also return the distances.

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries, n_neighbors)
            Distances, increasing along each row; only when ``return_distance``.
        neigh_ind : ndarray of shape (n_queries, n_neighbors)
            Indices of the neighbours in the training data; equal distances
            are ordered by index.
        """
        Xq, exclude_self = self._query_data(X)
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, Integral):
            raise TypeError(f"n_neighbors does not take {type(k).__name__} value, "
                            "enter integer value.")
        if k <= 0:
            raise ValueError(f"Expected n_neighbors > 0. Got {k}.")
        n_fit = self.n_samples_fit_
        if k + exclude_self > n_fit:
            raise ValueError(
                f"Expected n_neighbors <= n_samples_fit, but n_neighbors = "
                f"{k + exclude_self}, n_samples_fit = {n_fit}, n_samples = "
                f"{Xq.shape[0]}" + (" (X=None excludes each point from its own "
                                    "neighbours)." if exclude_self else ".")
            )
        if not exclude_self:
            dist, ind = self._kneighbors(Xq, int(k), False)
            return (dist, ind) if return_distance else ind
        # X=None, as scikit-learn: the k + 1 nearest of each training point
        # (equal distances by index), less the point itself when it is among
        # them, else less the first (a point with more than k duplicates
        # before it is a neighbour of none of its own copies' lists first).
        dist, ind = self._kneighbors(Xq, int(k) + 1, False)
        keep = ind != np.arange(ind.shape[0])[:, np.newaxis]
        keep[keep.all(axis=1), 0] = False
        dist = dist[keep].reshape(ind.shape[0], int(k))
        ind = ind[keep].reshape(ind.shape[0], int(k))
        return (dist, ind) if return_distance else ind

    def kneighbors_graph(self, X=None, n_neighbors=None, mode="connectivity"):
        """Sparse graph of the k nearest neighbours of each query point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            As in :meth:`kneighbors`.
        n_neighbors : int, default=None
            As in :meth:`kneighbors`.
        mode : {"connectivity", "distance"}, default="connectivity"
            Entries are ones, or the distances.

        Returns
        -------
        A : scipy.sparse.csr_matrix of shape (n_queries, n_samples_fit)
        """
        _check_graph_mode(mode)
        dist, ind = self.kneighbors(X, n_neighbors, return_distance=True)
        n_q, k = ind.shape
        data = np.ones(n_q * k) if mode == "connectivity" else dist.ravel()
        indptr = np.arange(0, n_q * k + 1, k)
        return sp.csr_matrix((data, ind.ravel(), indptr),
                             shape=(n_q, self.n_samples_fit_))


class RadiusNeighborsMixin:
    """``radius_neighbors`` and ``radius_neighbors_graph``."""

    def _radius_query(self, X, radius, sort_results):
        Xq, exclude_self = self._query_data(X)
        radius = self.radius if radius is None else radius
        if _is_radius_array(radius):
            indptr, indices, dist = self._radius_csr_per_query(Xq, radius, exclude_self)
        else:
            if not isinstance(radius, Real) or isinstance(radius, bool) or not radius >= 0:
                raise ValueError("radius must be a non-negative number or an array of "
                                 f"one per query point, got {radius!r}.")
            indptr, indices, dist = self._radius_csr(Xq, float(radius), exclude_self)
        if sort_results:
            for row in range(indptr.shape[0] - 1):
                s = slice(indptr[row], indptr[row + 1])
                order = np.lexsort((indices[s], dist[s]))
                indices[s], dist[s] = indices[s][order], dist[s][order]
        return indptr, indices, dist

    def _radius_csr_per_query(self, Xq, radius, exclude_self):
        """CSR pieces of a radius per query point: one search, then a filter.

        The search runs once at the largest radius, and each query keeps the
        points within its own radius (rows stay by increasing index).
        """
        n_q = Xq.shape[0]
        r = np.asarray(radius, dtype=np.float64)
        if r.shape != (n_q,):
            raise ValueError(f"radius as an array needs one value per query point "
                             f"({n_q}); got shape {r.shape}.")
        if not np.all(r >= 0):
            raise ValueError("radius must hold non-negative numbers (no NaN).")
        indptr, indices, dist = self._radius_csr(Xq, float(r.max(initial=0.0)),
                                                 exclude_self)
        row = np.repeat(np.arange(n_q), np.diff(indptr))
        keep = dist <= r[row]
        counts = np.bincount(row[keep], minlength=n_q)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return indptr, indices[keep], dist[keep]

    def radius_neighbors(self, X=None, radius=None, return_distance=True,
                         sort_results=False):
        """The training points within ``radius`` (inclusive) of each query point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            Query points; ``None`` as in :meth:`kneighbors`.
        radius : float or array-like of shape (n_queries,), default=None
            The constructor's ``radius`` if None; an array gives each query
            point its own radius (as scikit-learn's trees).
        return_distance : bool, default=True
            Also return the distances.
        sort_results : bool, default=False
            Sort each query's neighbours by distance (then index); otherwise
            their order is unspecified.

        Returns
        -------
        neigh_dist : ndarray of shape (n_queries,) of arrays
            Distances; only when ``return_distance``.
        neigh_ind : ndarray of shape (n_queries,) of arrays
            Indices of the neighbours.
        """
        if sort_results and not return_distance:
            raise ValueError("return_distance must be True if sort_results is True.")
        indptr, indices, dist = self._radius_query(X, radius, sort_results)
        ind = split_rows(indptr, indices)
        return (split_rows(indptr, dist), ind) if return_distance else ind

    def radius_neighbors_graph(self, X=None, radius=None, mode="connectivity",
                               sort_results=False):
        """Sparse graph of the neighbours within ``radius`` of each query point.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            As in :meth:`radius_neighbors`.
        radius : float or array-like of shape (n_queries,), default=None
            As in :meth:`radius_neighbors`.
        mode : {"connectivity", "distance"}, default="connectivity"
            Entries are ones, or the distances.
        sort_results : bool, default=False
            Store each row's entries by increasing distance.

        Returns
        -------
        A : scipy.sparse.csr_matrix of shape (n_queries, n_samples_fit)
        """
        _check_graph_mode(mode)
        indptr, indices, dist = self._radius_query(X, radius, sort_results)
        data = np.ones(indices.shape[0]) if mode == "connectivity" else dist
        return sp.csr_matrix((data, indices, indptr),
                             shape=(indptr.shape[0] - 1, self.n_samples_fit_))
