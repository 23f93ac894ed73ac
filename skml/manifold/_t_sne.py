"""t-distributed Stochastic Neighbour Embedding (notes A §9.3)."""

import os
from numbers import Integral, Real
from time import perf_counter

import numpy as np
from scipy import sparse
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_random_state

from ..decomposition import PCA
from ..utils import Interval, Options, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, SELF_RETURNS, fill_doc
from ._affinities import (
    ALL_METRICS,
    _check_perplexity,
    check_metric_params,
    dense_conditional,
    joint_probabilities,
    sparse_joint,
)
from ._gradients import BarnesHutObjective, ExactObjective, FFTObjective
from ._interpolation import InterpolationGrid
from ._optimizer import N_ITER_CHECK, gradient_descent, new_state
from ..utils.validation import validate_data

__all__ = ["TSNE"]

METRICS = ALL_METRICS | {"precomputed"}
# Early exaggeration lasts 250 iterations, as scikit-learn and van der Maaten.
EXPLORATION_MAX_ITER = 250
# method="auto": below this many points the exact O(n^2) gradient is as fast
# as the grid (whose FFTs cost the same whatever n) and has no interpolation
# error.
AUTO_EXACT_MAX_SAMPLES = 500
# ints_in_interval="auto": from this many points on, FIt-SNE's grid (the FFTs'
# cost, independent of n, is then a small share of an iteration).
AUTO_FINE_GRID_MIN_SAMPLES = 10_000


def check_init_and_metric(est, X, n_samples):
    """Validate ``init`` against the data (shared by TSNE and SNE)."""
    init = est.init
    if isinstance(init, str):
        if init == "pca" and est.metric == "precomputed":
            raise ValueError('The parameter init="pca" cannot be used with '
                             'metric="precomputed".')
        return init
    init = np.asarray(init, dtype=np.float64)
    if init.shape != (n_samples, est.n_components):
        raise ValueError(
            f"init array must have shape (n_samples, n_components) = "
            f"({n_samples}, {est.n_components}), got {init.shape}."
        )
    if not np.all(np.isfinite(init)):
        raise ValueError("init array contains NaN or infinity.")
    return init


def conditioned_points(X, metric):
    """``X`` as the affinities and the PCA start should see it (shared with SNE).

    Euclidean affinities depend on ``X`` only through the distances, and the
    perplexity calibration absorbs their scale: centring and dividing by a
    power of two changes nothing but rounding. That is done where the
    raw values would fail, for points far from the origin (``X + 1e8``:
    ``|x|² + |z|² − 2 x·z`` cancels every digit of the distances) and for
    extreme magnitudes (``X * 1e300`` overflows them, ``X * 1e-300``
    underflows them to zero); other data and metrics are left as given.
    """
    if metric != "euclidean":
        return X
    if sparse.issparse(X):
        # Centring would densify X: only extreme magnitudes are rescaled
        # (by a power of two, exact), as the distances need.
        peak = float(np.max(np.abs(X.data), initial=0.0))
        if peak > 2.0**100 or 0.0 < peak < 2.0**-100:
            X = X / np.ldexp(1.0, np.frexp(peak)[1])
        return X
    mean = X.mean(axis=0)
    with np.errstate(over="ignore"):
        spread = float(np.max(np.maximum(X.max(axis=0) - mean, mean - X.min(axis=0))))
    if not np.isfinite(spread):
        raise ValueError(
            "X's values span more than float64 can represent once centred; "
            "rescale X, e.g. with StandardScaler."
        )
    far = float(np.max(np.abs(mean))) > 1e3 * spread
    extreme = spread > 2.0**100 or 0.0 < spread < 2.0**-100
    if not (far or extreme):
        return X
    X = X - mean
    if spread > 0.0:
        X /= np.ldexp(1.0, np.frexp(spread)[1])
    return X


def check_precomputed(X, name):
    if X.shape[0] != X.shape[1]:
        raise ValueError(f"With metric='precomputed', X should be a square distance "
                         f"matrix, got shape {X.shape}.")
    if np.any((X.data if sparse.issparse(X) else X) < 0):
        raise ValueError(f"{name}.fit(): with metric='precomputed', X should contain "
                         "non-negative distances (all distances should be positive "
                         "or zero; the precomputed distances given as X are not).")


def _stores_every_distance(X):
    """Whether the CSR matrix ``X`` stores every off-diagonal entry."""
    X = X.tocsr()
    X.sum_duplicates()
    n = X.shape[0]
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    return int(np.count_nonzero(X.indices != rows)) == n * (n - 1)


def _threads(n_jobs):
    """Threads for ``n_jobs`` (``-1``: all cores, ``-2``: all but one, ...)."""
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return max(1, n_jobs)


def initial_embedding(init, X, n_components, random_state):
    """PCA scaled to std 1e-4 on the first axis, or N(0, 1e-4^2), or a copy."""
    if isinstance(init, np.ndarray):
        return np.array(init, dtype=np.float64, order="C")
    if init == "pca":
        # An ndarray whatever the global set_output configuration.
        # Sparse X: ARPACK on the implicitly centred data (scikit-learn's
        # TSNE lets its PCA choose, which is ARPACK for sparse X too).
        solver = "arpack" if sparse.issparse(X) else "randomized"
        pca = PCA(n_components=n_components, svd_solver=solver,
                  random_state=random_state).set_output(transform="default")
        Y = np.asarray(pca.fit_transform(X), dtype=np.float64)
        std = np.std(Y[:, 0])
        # Scaled so the first stage starts where a random init would (tiny
        # distances, all q_ij alike), as scikit-learn and openTSNE do.
        return np.ascontiguousarray(Y / (std if std > 0 else 1.0) * 1e-4)
    return 1e-4 * random_state.standard_normal(size=(X.shape[0], n_components))


# The Parameters section of SNE's and TSNE's ``fit`` and ``fit_transform``.
_DOC_FIT_PARAMETERS = """
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features), or \
        (n_samples, n_samples) if metric="precomputed"
    Points, or their pairwise distances.
y : Ignored
    Not used, present for API consistency.
"""

# The whole of ``fit_transform``'s sections.
DOC_FIT_TRANSFORM = _DOC_FIT_PARAMETERS + """
Returns
-------
X_new : ndarray of shape (n_samples, n_components)
    The embedding.
"""


class EmbeddingFitMixin:
    """``fit`` by ``fit_transform``: SNE and TSNE learn only the embedding."""

    @fill_doc(parameters=_DOC_FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y=None):
        """Fit the embedding of X (see :meth:`fit_transform`).

        <parameters>

        <returns>
        """
        self.fit_transform(X)
        return self


@fill_doc(**{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
class TSNE(EmbeddingFitMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
           BaseEstimator):
    """t-distributed Stochastic Neighbour Embedding.

    The notes' t-SNE (notes A §9.3): Gaussian affinities ``p_{j|i}``
    calibrated to a perplexity by bisection per point (§9.1), symmetrised into
    ``p_ij = (p_{j|i} + p_{i|j}) / (2n)``, a Student-t (Cauchy) kernel
    ``w_ij = (1 + |y_i - y_j|^2)^{-1}`` in the embedding, and the embedding
    found by minimising ``KL(P || Q)`` with van der Maaten's gradient descent
    (early exaggeration, momentum, delta-bar-delta gains). ``Q`` is
    normalised jointly, ``q_ij = w_ij / sum_{k != l} w_kl`` (notes S2, the
    standard algorithm) or, as in the notes' S0 slides, by symmetrising the
    per-point conditionals ``q_ij = (q_{j|i} + q_{i|j}) / (2n)``.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the embedding (``method="fft"`` needs 1 or 2).
    perplexity : float, default=30.0
        The effective number of neighbours of each point: the bisection makes
        ``2^{H(P_i)}`` equal to it. Must be below ``n_samples``.
    early_exaggeration : float, default=12.0
        Factor on P in the attractive forces during the first 250 iterations.
    learning_rate : float or "auto", default="auto"
        Step size. "auto": ``max(n_samples / early_exaggeration / 4, 50)``
        (Belkina et al. 2019, scikit-learn's rule).
    max_iter : int, default=1000
        Iterations in all, the 250 exaggerated ones included (at least 250).
    n_iter_without_progress : int, default=300
        Stop after this many iterations without a lower KL (tested every 50
        iterations, after the exaggeration stage).
    min_grad_norm : float, default=1e-7
        Stop when the gradient norm falls below this (tested every 50).
    metric : str or callable, default="euclidean"
        Distance between points: "euclidean" (whose square enters the
        Gaussian kernel), "manhattan", "chebyshev", "cosine", "minkowski" and
        their aliases (by :class:`skml.neighbors.NearestNeighbors`), the
        other names of scikit-learn's list ("braycurtis", "canberra",
        "correlation", "seuclidean", "sqeuclidean", "hamming", "jaccard", ...,
        by :func:`scipy.spatial.distance.pdist`; "haversine"), a callable
        ``metric(u, v, **metric_params)`` on two rows, all used unsquared as
        scikit-learn, or "precomputed" (X is a distance matrix, used as is).
        Metrics beyond the neighbour search's list compute all n^2 distances.
    metric_params : dict, default=None
        Keyword arguments of the metric, e.g. ``{"p": 3}`` for "minkowski"
        (scipy's keywords for its metrics, e.g. ``{"V": ...}`` for
        "seuclidean"; those of the callable). "mahalanobis" needs ``V`` (the
        covariance) or ``VI`` (its inverse).
    init : {"pca", "random"} or ndarray of shape (n_samples, n_components), \
            default="pca"
        "pca": the principal components (:class:`skml.decomposition.PCA`)
        scaled to standard deviation 1e-4; "random": N(0, 1e-4^2).
    method : {"auto", "fft", "barnes_hut", "exact"}, default="auto"
        "exact": dense P and the O(n^2) gradient (vectorised numpy).
        "barnes_hut": P on the ``3 * perplexity`` nearest neighbours and the
        repulsive forces summed over a quad-tree (oct-tree for 3 components,
        binary tree for 1), with cells taken whole by the ``angle`` criterion
        (van der Maaten 2014; scikit-learn's default method; 1 to 3
        components).
        "fft": P on the ``3 * perplexity`` nearest neighbours (sparse) and the
        repulsive forces by interpolation on an equispaced grid and FFT
        convolution (FIt-SNE; 1 or 2 components). "auto": "fft" for 1-2
        components and more than 500 points, "exact" otherwise; for a sparse
        precomputed neighbourhood graph (whose missing distances the exact
        method cannot use: it refuses one with a ``TypeError``), "fft" for
        1-2 components and "barnes_hut" for 3, unless the graph stores every
        off-diagonal distance (then it is the full matrix, treated as a
        dense one).
    angle : float, default=0.5
        ``method="barnes_hut"``: the Barnes-Hut ``theta``. A cell of width
        ``r`` whose centre of mass lies at distance ``D`` from a point counts
        as one body when ``r / D < angle``. 0 gives the exact forces; larger
        is faster and less accurate (above 0.8 the error grows quickly).
    n_interpolation_points : int, default=3
        ``method="fft"``: Lagrange nodes per interval and axis (FIt-SNE's 3:
        quadratic interpolation).
    ints_in_interval : float or "auto", default="auto"
        ``method="fft"``: width of an interval in embedding units (the
        Cauchy kernel's scale is 1). "auto": FIt-SNE's 1 from 10 000 points
        on, 1.5 below, where the FFTs (whose cost does not depend on n)
        dominate: half the FFT work for the same trustworthiness on digits,
        at a higher final KL divergence (see Notes).
    min_num_intervals : int or "auto", default="auto"
        ``method="fft"``: least number of intervals per axis. "auto":
        FIt-SNE's 50 from 10 000 points on, 20 below (the early, compact
        embedding is still resolved to 1/20 of its span).
    q_normalization : {"joint", "symmetrized_conditional"}, default="joint"
        How Q is normalised (errata A §0.10): "joint" (notes S2, standard) or
        "symmetrized_conditional", ``q_ij = (q_{j|i} + q_{i|j}) / (2n)``
        with ``q_{j|i} = w_ij / sum_{k != i} w_ik`` (notes S0).
    verbose : int, default=0
        1: the neighbour search, the mean Gaussian width ``sigma`` and the
        timings of the stages; 2: also the KL every 50 iterations.
    random_state : int, RandomState instance or None, default=None
        Seeds the PCA's range finder or the random init.
    n_jobs : int, default=None
        Threads of the neighbour search and the FFTs (``-1``: all cores).

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The embedding: float32 for ``method="exact"`` or ``"barnes_hut"``
        (scikit-learn's methods, whose embedding is float32 for any X); for
        "auto" and "fft" float32 for float32 X, else float64. It is computed
        in float64 either way.
    kl_divergence_ : float
        KL divergence ``KL(P || Q)`` of the returned embedding (exact for
        method="exact"; through the approximate Z of the other methods,
        within 1 % on digits).
    n_iter_ : int
        Number of iterations run (counted from 0, as scikit-learn).
    learning_rate_ : float
        The learning rate used.
    method_ : str
        The gradient method used ("exact", "fft" or "barnes_hut").
    <fitted feature attributes>

    See Also
    --------
    SNE : The original, asymmetric SNE with a Gaussian embedding kernel.
    skml.decomposition.PCA : The linear embedding used as initialisation.

    Notes
    -----
    "exact" costs O(n^2) time and memory per iteration. "fft" costs O(n k)
    per iteration for the attraction (k = 3 x perplexity neighbours, numba)
    plus O(n p^2 + M^2 log M) for the repulsion, with ``p`` interpolation
    nodes per interval and ``M = p x intervals`` grid points per axis (the
    intervals cover the embedding's bounding square); the affinities cost
    one k-nearest-neighbour search (:class:`skml.neighbors.NearestNeighbors`)
    and O(n k) bisection steps. The FFTs run in single precision, and Z is
    read off the spectrum by Parseval's identity. Below 10 000 points the
    default grid (intervals of 1.5 units, at least 20) takes half the FFT
    work of FIt-SNE's (1 unit, at least 50). A coarser grid costs the depth
    of the optimum reached, not the neighbourhoods: on digits (perplexity 30,
    1000 iterations, one thread) the exact KL divergence of the embedding is
    0.807 with the default grid, 0.757 with FIt-SNE's, 0.688 with intervals
    of 0.5 unit (``ints_in_interval=0.5``, about 4x the time) and 0.711 for
    scikit-learn's Barnes-Hut, all at trustworthiness 0.995. Where the KL
    value itself matters, choose the finer grid (or ``method="exact"``). From
    10 000 points on it is FIt-SNE's grid.
    ``tests/manifold`` checks the forces and Z against the exact ones.
    The grid's cost does not shrink with n: at every iteration whose grid
    (the FFTs' ``L^d log L^d``, ``L`` the padded nodes per axis) would cost
    more than the O(n^2) pairwise sums (``2 n^2`` in the same units, measured
    on one thread), those sums are used instead, which is the exact gradient
    on the same sparse P. That is every iteration below about 300 points in
    2-d, where the FFT method is then as exact as Barnes-Hut with
    ``angle=0``, and any iteration in which a few points spread over
    hundreds of units (the grid of at most 500 intervals per axis would be
    a 3000 x 3000 FFT, with intervals too wide to interpolate the kernel: 10
    points took minutes and ran away to 1e16). openTSNE, similarly, leaves
    fewer than 10 000 points to Barnes-Hut by default.

    "barnes_hut" costs O(n k) for the attraction and O(n log n) per
    iteration for the tree (rebuilt at every iteration, flat in depth-first
    order with skip links, so a point's walk is one loop) and the walks,
    whose length grows as ``angle`` shrinks; ``angle=0`` reproduces the exact
    gradient (a test checks it).

    Differences from scikit-learn: the default is the FFT method, not
    Barnes-Hut (``method="barnes_hut"`` gives scikit-learn's; ``angle`` is
    used by it only); the Student-t has one degree of freedom in every
    dimension (scikit-learn uses ``n_components - 1``, the same for 2-d); the
    affinities and the Barnes-Hut sums are computed in float64 (scikit-learn's
    in float32).

    References
    ----------
    L. van der Maaten and G. Hinton, "Visualizing data using t-SNE", JMLR 9, 2008.
    L. van der Maaten, "Accelerating t-SNE using tree-based algorithms",
    JMLR 15, 2014.
    G. Linderman, M. Rachh, J. Hoskins, S. Steinerberger and Y. Kluger,
    "Fast interpolation-based t-SNE for improved visualization of single-cell
    RNA-seq data", Nature Methods 16, 2019.
    P. Poličar, M. Stražar and B. Zupan, "openTSNE: a modular Python library
    for t-SNE dimensionality reduction and embedding", JSS 109, 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.manifold import TSNE
    >>> X = np.random.RandomState(0).normal(size=(40, 5))
    >>> Y = TSNE(perplexity=5, method="exact", random_state=0).fit_transform(X)
    >>> Y.shape
    (40, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "perplexity": [Interval(Real, 0, None, closed="neither")],
        "early_exaggeration": [Interval(Real, 1, None, closed="left")],
        "learning_rate": [Options({"auto"}), Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 250, None, closed="left")],
        "n_iter_without_progress": [Interval(Integral, -1, None, closed="left")],
        "min_grad_norm": [Interval(Real, 0, None, closed="left")],
        "metric": [Options(METRICS), callable],
        "metric_params": [dict, None],
        "init": [Options({"pca", "random"}), np.ndarray],
        "method": [Options({"auto", "fft", "exact", "barnes_hut"})],
        "angle": [Interval(Real, 0, 1, closed="both")],
        "n_interpolation_points": [Interval(Integral, 1, None, closed="left")],
        "ints_in_interval": [Options({"auto"}),
                             Interval(Real, 0, None, closed="neither")],
        "min_num_intervals": [Options({"auto"}),
                              Interval(Integral, 1, None, closed="left")],
        "q_normalization": [Options({"joint", "symmetrized_conditional"})],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, n_components=2, *, perplexity=30.0, early_exaggeration=12.0,
                 learning_rate="auto", max_iter=1000, n_iter_without_progress=300,
                 min_grad_norm=1e-7, metric="euclidean", metric_params=None, init="pca",
                 method="auto", angle=0.5, n_interpolation_points=3, ints_in_interval="auto",
                 min_num_intervals="auto",
                 q_normalization="joint", verbose=0, random_state=None, n_jobs=None):
        self.n_components = n_components
        self.perplexity = perplexity
        self.early_exaggeration = early_exaggeration
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.metric = metric
        self.metric_params = metric_params
        self.init = init
        self.method = method
        self.angle = angle
        self.n_interpolation_points = n_interpolation_points
        self.ints_in_interval = ints_in_interval
        self.min_num_intervals = min_num_intervals
        self.q_normalization = q_normalization
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    # Length of the early-exaggeration stage and the interval between two
    # tests of the stopping rules (class constants, as scikit-learn's
    # estimator has them; an instance may set its own).
    _EXPLORATION_MAX_ITER = EXPLORATION_MAX_ITER
    _N_ITER_CHECK = N_ITER_CHECK

    def _embedding_dtype(self, X_dtype):
        # scikit-learn's methods give scikit-learn's float32 embedding (its
        # Cython gradients are single precision) whatever X; "auto" and "fft"
        # keep the precision of X. The computation is float64 either way.
        if self.method in ("exact", "barnes_hut"):
            return np.dtype(np.float32)
        return np.dtype(X_dtype)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        # CSR/CSC points (brute-force neighbours), or a sparse precomputed
        # neighbourhood graph with method="fft" (as scikit-learn's BH).
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = (
            ["float32"] if self.method in ("exact", "barnes_hut")
            else ["float64", "float32"])
        return tags

    def _resolve_method(self, n_samples, neighbour_graph=False):
        if self.method == "barnes_hut" and self.n_components > 3:
            raise ValueError(
                f"'n_components' should be inferior to 4 for the barnes_hut "
                f"algorithm: it embeds in at most 3 dimensions (its tree has "
                f"2^n_components children per cell), got n_components="
                f"{self.n_components}; use method='exact'."
            )
        if self.method == "barnes_hut" and self.q_normalization != "joint":
            raise ValueError(
                "method='barnes_hut' implements q_normalization='joint' only; use "
                "method='fft' or 'exact' for 'symmetrized_conditional'."
            )
        if self.method == "fft" and self.n_components > 2:
            raise ValueError(
                f"method='fft' embeds in 1 or 2 dimensions, got n_components="
                f"{self.n_components}; use method='exact' (or 'auto')."
            )
        if self.method != "auto":
            return self.method
        if neighbour_graph:
            # A sparse precomputed neighbourhood graph has no distances for
            # the exact method: the neighbour methods use its stored ones.
            return "fft" if self.n_components <= 2 else "barnes_hut"
        small = n_samples <= AUTO_EXACT_MAX_SAMPLES or self.n_components > 2
        return "exact" if small else "fft"

    @fill_doc(sections=DOC_FIT_TRANSFORM)
    def fit_transform(self, X, y=None):
        """Fit the embedding and return it.

        <sections>
        """
        validate_params(self)
        X = validate_data(self, X, dtype=[np.float64, np.float32], order="C",
                          ensure_min_samples=2, accept_sparse="csr")
        out_dtype = self._embedding_dtype(X.dtype)
        X = X.astype(np.float64, copy=False)
        n = X.shape[0]
        init = check_init_and_metric(self, X, n)
        if self.metric == "precomputed":
            check_precomputed(X, "TSNE")
        _check_perplexity(self.perplexity, n)
        check_metric_params(self.metric, self.metric_params)
        X = conditioned_points(X, self.metric)
        graph = sparse.issparse(X) and self.metric == "precomputed"
        if graph and self.method == "auto" and _stores_every_distance(X):
            # Every off-diagonal distance stored: the full distance matrix
            # (the diagonal is ignored), treated as the dense one is.
            X, graph = X.toarray(), False
        method = self._resolve_method(n, graph)
        if sparse.issparse(X) and self.metric == "precomputed" and method == "exact":
            # scikit-learn's refusal: the exact method needs every distance
            raise TypeError(
                'TSNE with method="exact" does not accept sparse precomputed '
                'distance matrix. Use method="fft" (the neighbour graph\'s stored '
                "distances) or provide the dense distance matrix."
            )
        rng = check_random_state(self.random_state)
        workers = self.n_jobs if self.n_jobs is not None else 1
        if self.learning_rate == "auto":
            self.learning_rate_ = max(n / self.early_exaggeration / 4.0, 50.0)
        else:
            self.learning_rate_ = float(self.learning_rate)

        tic = perf_counter()
        conditional = self.q_normalization == "symmetrized_conditional"
        if method == "exact":
            P = joint_probabilities(dense_conditional(
                X, self.perplexity, self.metric, self.n_jobs, self.metric_params,
                verbose=self.verbose))
            objective = ExactObjective(P, conditional)
        elif method == "barnes_hut":
            P = sparse_joint(X, self.perplexity, self.metric, self.n_jobs,
                             self.metric_params, verbose=self.verbose)
            objective = BarnesHutObjective(P, self.angle, workers=_threads(workers))
        else:
            P = sparse_joint(X, self.perplexity, self.metric, self.n_jobs,
                             self.metric_params, verbose=self.verbose)
            large = n >= AUTO_FINE_GRID_MIN_SAMPLES
            ints = self.ints_in_interval
            if ints == "auto":
                ints = 1.0 if large else 1.5
            min_ints = self.min_num_intervals
            if min_ints == "auto":
                min_ints = 50 if large else 20
            grid = InterpolationGrid(
                n, self.n_components,
                n_interpolation_points=self.n_interpolation_points,
                min_intervals=min_ints, ints_in_interval=ints, workers=workers,
            )
            objective = FFTObjective(P, grid, conditional)
        if self.verbose:
            print(f"[t-SNE] Computed the affinities of {n} points ({method}) in "
                  f"{perf_counter() - tic:.3f} s.")

        Y = initial_embedding(init, X, self.n_components, rng)
        self.embedding_, self.kl_divergence_, self.n_iter_ = optimize(
            objective, Y, learning_rate=self.learning_rate_,
            early_exaggeration=self.early_exaggeration, max_iter=self.max_iter,
            n_iter_without_progress=self.n_iter_without_progress,
            min_grad_norm=self.min_grad_norm, verbose=self.verbose, name="t-SNE",
            exploration_iter=self._EXPLORATION_MAX_ITER,
            n_iter_check=self._N_ITER_CHECK, out_dtype=out_dtype,
        )
        self.method_ = method
        if self.verbose:
            # The checks above print the KL before their step; this is the
            # KL of the embedding returned, kl_divergence_.
            print(f"[t-SNE] Iteration {self.n_iter_ + 1} (end): error = "
                  f"{self.kl_divergence_:.7f}, the KL divergence of the returned "
                  f"embedding ({perf_counter() - tic:.3f} s in all).")
        self._n_features_out = self.n_components
        return self.embedding_


def optimize(objective, Y, *, learning_rate, early_exaggeration, max_iter,
             n_iter_without_progress, min_grad_norm, verbose, name,
             momentum=(0.5, 0.8), exploration_iter=EXPLORATION_MAX_ITER,
             n_iter_check=N_ITER_CHECK, out_dtype=np.float64):
    """The two stages: exaggerated P with momentum 0.5, then P with 0.8.

    The first stage lasts ``exploration_iter`` iterations (none for 0); the
    stopping rules are tested every ``n_iter_check`` iterations. The
    embedding is returned as ``out_dtype``, and the KL is that of the
    returned (rounded) embedding.
    """
    state = new_state(Y)
    common = dict(learning_rate=learning_rate, min_grad_norm=min_grad_norm,
                  verbose=verbose, name=name, n_iter_check=n_iter_check)
    stage1 = min(exploration_iter, max_iter)
    it = -1
    if stage1 > 0:
        kl, it = gradient_descent(objective, Y, state, it=0, max_iter=stage1,
                                  momentum=momentum[0], exaggeration=early_exaggeration,
                                  n_iter_without_progress=exploration_iter, **common)
        if verbose:
            print(f"[{name}] KL divergence after {it + 1} iterations with early "
                  f"exaggeration: {kl:.6f}")
    if max_iter > stage1:
        kl, it = gradient_descent(objective, Y, state, it=it + 1, max_iter=max_iter,
                                  momentum=momentum[1], exaggeration=1.0,
                                  n_iter_without_progress=n_iter_without_progress,
                                  **common)
    # The last KL evaluated was that of the embedding before the last step
    # (and the exaggerated one if max_iter == 250): one more evaluation gives
    # the KL of the embedding returned (scikit-learn reports the former).
    Y = Y.astype(out_dtype, copy=False)
    kl = objective(Y.astype(np.float64), 1.0, np.empty(Y.shape), True)
    return Y, float(kl), int(it)
