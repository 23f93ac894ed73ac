"""High-dimensional affinities of SNE and t-SNE (notes A §9.1).

``p_{j|i} = exp(-beta_i d_ij) / sum_{k != i} exp(-beta_i d_ik)`` with the
precision ``beta_i = 1 / (2 sigma_i^2)`` set by bisection so that the row's
perplexity ``2^{H(P_i)}`` equals the user's; ``d_ij`` is the squared
Euclidean distance (or the plain distance for other metrics, as
scikit-learn). The joint ``p_ij = (p_{j|i} + p_{i|j}) / (2n)`` is symmetric
and sums to 1.
"""

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from scipy.spatial.distance import pdist, squareform

from ..metrics.pairwise import euclidean_distances
from ..neighbors import NearestNeighbors
from ._tsne_kernels import binary_search_perplexity

PERPLEXITY_TOL = 1e-5
PERPLEXITY_MAX_ITER = 100


def _check_perplexity(perplexity, n_samples):
    if isinstance(perplexity, bool) or not isinstance(perplexity, Real) or not (
        perplexity > 0
    ):
        raise ValueError(f"perplexity must be a positive float, got {perplexity!r}.")
    if perplexity >= n_samples:
        raise ValueError(
            f"perplexity ({perplexity}) must be less than n_samples ({n_samples})."
        )


# Metrics the neighbour search computes itself; the others of scikit-learn's
# list (and callables) go through scipy's pdist on dense points.
NEIGHBOUR_METRICS = {"euclidean", "manhattan", "chebyshev", "cosine", "minkowski",
                     "l1", "l2", "cityblock"}
SCIPY_METRICS = {"braycurtis", "canberra", "correlation", "dice", "hamming",
                 "jaccard", "mahalanobis", "matching", "rogerstanimoto", "russellrao",
                 "seuclidean", "sokalsneath", "sqeuclidean", "yule"}
# Further names scikit-learn's TSNE accepts, computed here: "haversine" (2
# features: latitude, longitude in radians), "nan_euclidean" (the Euclidean
# distance: TSNE takes no NaN) and "wminkowski" (scipy's minkowski with w).
OWN_METRICS = {"haversine", "nan_euclidean", "wminkowski"}
ALL_METRICS = NEIGHBOUR_METRICS | SCIPY_METRICS | OWN_METRICS


def check_metric_params(metric, metric_params):
    """``metric_params`` as a dict of keywords the metric understands."""
    params = dict(metric_params or {})
    if metric == "mahalanobis":
        # scipy would estimate the covariance from X itself; scikit-learn
        # asks for it, and so do we (a silent default would hide a choice).
        if "V" not in params and "VI" not in params:
            raise ValueError(
                "Must provide either V or VI for Mahalanobis distance: "
                "metric_params={'V': covariance} or {'VI': its inverse}."
            )
        if "V" in params:
            if "VI" in params:
                raise ValueError("metric_params: give V or VI for the Mahalanobis "
                                 "distance, not both.")
            # transposed as scipy stores its own inverse (V is symmetric)
            params["VI"] = np.linalg.inv(
                np.asarray(params.pop("V"), dtype=np.float64)).T.copy()
        return params
    if not params or callable(metric) or metric in SCIPY_METRICS:
        return params  # checked by the metric itself when called
    allowed = {"minkowski": {"p"}, "wminkowski": {"p", "w"}}.get(metric, set())
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ValueError(
            f"metric_params {unknown} are not parameters of metric={metric!r}"
            + (f" (it takes {sorted(allowed)})." if allowed else " (it takes none).")
        )
    if "p" in params and not (isinstance(params["p"], Real) and params["p"] >= 1):
        raise ValueError(f"metric_params['p'] must be a number >= 1, got "
                         f"{params['p']!r}.")
    return params


def _haversine(X):
    if X.shape[1] != 2:
        raise ValueError(f"metric='haversine' takes 2 features (latitude, longitude "
                         f"in radians), got {X.shape[1]}.")
    lat, lon = X[:, 0], X[:, 1]
    a = (np.sin((lat[:, None] - lat[None, :]) / 2.0) ** 2
         + np.cos(lat)[:, None] * np.cos(lat)[None, :]
         * np.sin((lon[:, None] - lon[None, :]) / 2.0) ** 2)
    return 2.0 * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def _full_distances(X, metric, params):
    """(n, n) distances of the metrics outside the neighbour search's list."""
    if sparse.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if metric == "haversine":
        return _haversine(X)
    if metric == "nan_euclidean":
        return squareform(pdist(X, "euclidean"))
    if metric == "wminkowski":
        return squareform(pdist(X, "minkowski", **params))
    if callable(metric):
        def func(u, v):
            return metric(u, v, **params)
        D = squareform(pdist(X, func))
    else:
        D = squareform(pdist(X, metric, **params))
    if np.any(D < 0):
        raise ValueError("All distances should be positive (non-negative), the "
                         f"metric given is not correct: {metric!r} returned a "
                         "negative distance.")
    return D


def _dense_distances(X, metric, n_jobs=None, metric_params=None):
    """Full (n, n) distances, squared for the Euclidean metric."""
    params = check_metric_params(metric, metric_params)
    if isinstance(metric, str) and metric == "precomputed":
        return np.asarray(X, dtype=np.float64)
    if callable(metric) or metric not in NEIGHBOUR_METRICS:
        return _full_distances(X, metric, params)
    if metric == "euclidean":
        D = euclidean_distances(X, squared=True)
        np.maximum(D, 0.0, out=D)
        return D
    n = X.shape[0]
    nn = NearestNeighbors(n_neighbors=n - 1, metric=metric, algorithm="brute",
                          n_jobs=n_jobs, **params).fit(X)
    dist, ind = nn.kneighbors()
    D = np.zeros((n, n))
    D[np.arange(n)[:, None], ind] = dist
    return D


def _off_diagonal(D):
    n = D.shape[0]
    return D[~np.eye(n, dtype=bool)].reshape(n, n - 1)


def _dense_search(D, perplexity, tol, max_iter):
    """Dense (n, n) conditional P (zero diagonal) and the precisions."""
    Pod, beta = _search(_off_diagonal(D), perplexity, tol, max_iter)
    n = D.shape[0]
    P = np.zeros((n, n))
    P[~np.eye(n, dtype=bool)] = Pod.ravel()
    return P, beta


def _search(sqdist, perplexity, tol, max_iter):
    sqdist = np.ascontiguousarray(sqdist, dtype=np.float64)
    P = np.empty_like(sqdist)
    beta = np.empty(sqdist.shape[0])
    binary_search_perplexity(sqdist, float(perplexity), float(tol), int(max_iter),
                             P, beta)
    return P, beta


def conditional_probabilities(X, perplexity=30.0, *, metric="euclidean",
                              tol=PERPLEXITY_TOL, max_iter=PERPLEXITY_MAX_ITER):
    """Conditional probabilities ``p_{j|i}`` calibrated to a perplexity (notes A §9.1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) \
            if metric="precomputed"
        Points, or their pairwise distances.
    perplexity : float, default=30.0
        Target perplexity ``2^{H(P_i)}`` of every row, below ``n_samples``.
    metric : str, default="euclidean"
        "euclidean" (the kernel uses squared distances), "precomputed", or a
        metric of :class:`skml.neighbors.NearestNeighbors` (used unsquared).
    tol : float, default=1e-5
        Tolerance on the row entropy (nats).
    max_iter : int, default=100
        Bisection steps per row.

    Returns
    -------
    P_cond : ndarray of shape (n_samples, n_samples)
        ``P_cond[i, j] = p_{j|i}``; rows sum to 1, zero diagonal.
    sigmas : ndarray of shape (n_samples,)
        Gaussian widths ``sigma_i = sqrt(1 / (2 beta_i))`` (in the units of
        the distance used by the kernel).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.manifold import conditional_probabilities
    >>> X = np.random.RandomState(0).normal(size=(20, 3))
    >>> P, sigmas = conditional_probabilities(X, perplexity=5.0)
    >>> np.allclose(P.sum(axis=1), 1.0)
    True
    """
    X = np.asarray(X, dtype=np.float64)
    _check_perplexity(perplexity, X.shape[0])
    if not (isinstance(max_iter, Integral) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive int, got {max_iter!r}.")
    P, beta = _dense_search(_dense_distances(X, metric), perplexity, tol, max_iter)
    return P, np.sqrt(1.0 / (2.0 * beta))


def joint_probabilities(P_cond):
    """Symmetrise conditional probabilities: ``p_ij = (p_{j|i} + p_{i|j}) / (2n)``.

    Parameters
    ----------
    P_cond : ndarray or sparse matrix of shape (n_samples, n_samples)
        Rows of conditional probabilities (each summing to 1).

    Returns
    -------
    P : ndarray or CSR matrix of shape (n_samples, n_samples)
        Symmetric, sums to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.manifold import joint_probabilities
    >>> P = joint_probabilities(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> P
    array([[0. , 0.5],
           [0.5, 0. ]])
    """
    n = P_cond.shape[0]
    if sparse.issparse(P_cond):
        P = (P_cond + P_cond.T).tocsr()
        P.sum_duplicates()
        P.data /= 2.0 * n
        return P
    P_cond = np.asarray(P_cond, dtype=np.float64)
    return (P_cond + P_cond.T) / (2.0 * n)


def _report(verbose, name, beta):
    if verbose:
        n = beta.shape[0]
        print(f"[{name}] Computed conditional probabilities for sample {n} / {n}")
        print(f"[{name}] Mean sigma: {np.mean(np.sqrt(1.0 / (2.0 * beta))):.6f}")


def dense_conditional(X, perplexity, metric, n_jobs=None, metric_params=None,
                      verbose=0, name="t-SNE"):
    """Dense ``p_{j|i}`` (exact methods)."""
    if verbose:
        print(f"[{name}] Computing pairwise distances: every point's "
              f"{X.shape[0] - 1} nearest neighbors...")
    D = _dense_distances(X, metric, n_jobs, metric_params)
    P, beta = _dense_search(D, perplexity, PERPLEXITY_TOL, PERPLEXITY_MAX_ITER)
    _report(verbose, name, beta)
    return P


def sparse_joint(X, perplexity, metric, n_jobs=None, metric_params=None, verbose=0,
                 name="t-SNE"):
    """Joint P on the ``3 * perplexity`` nearest neighbours (CSR, symmetric).

    As van der Maaten's Barnes-Hut t-SNE and FIt-SNE: beyond three standard
    deviations' worth of neighbours the Gaussian weights are negligible.
    """
    n = X.shape[0]
    k = min(n - 1, int(3.0 * perplexity + 1))
    if verbose:
        print(f"[{name}] Computing {k} nearest neighbors...")
    params = check_metric_params(metric, metric_params)
    if callable(metric) or (metric != "precomputed" and metric not in NEIGHBOUR_METRICS):
        # Every distance, then each row's k nearest (as for a dense
        # precomputed matrix below).
        X = _full_distances(X, metric, params)
        metric = "precomputed"
    if metric == "precomputed" and sparse.issparse(X):
        # A neighbourhood graph: each row's k nearest stored distances (as
        # given, like the dense precomputed matrix); a row storing fewer
        # than k raises, as scikit-learn.
        X = X.tocsr()
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        others = np.bincount(rows[X.indices != rows], minlength=n)
        if others.min() < k:
            # Counted as scikit-learn words it: each sample is its own
            # neighbour (distance 0, stored or not), plus its stored others.
            raise ValueError(
                f"{k + 1} neighbors per samples are required, but some samples "
                f"have only {others.min() + 1} (the sample itself and the "
                f"distances stored in its row): t-SNE uses each sample's k = {k} "
                "nearest others (min(n_samples - 1, 3 * perplexity + 1)); store "
                "more neighbours per row or lower the perplexity."
            )
        # The graph's stored others, queried as such: kneighbors() without X
        # would, as scikit-learn's, drop each row's nearest stored neighbour
        # when the graph does not store the row's own zero distance.
        keep = X.indices != rows
        others_graph = sparse.csr_matrix(
            (X.data[keep], X.indices[keep], np.concatenate(([0], np.cumsum(others)))),
            shape=X.shape)
        nn = NearestNeighbors(n_neighbors=k, metric="precomputed").fit(others_graph)
        dist, ind = nn.kneighbors(others_graph)
    elif metric == "precomputed":
        D = np.asarray(X, dtype=np.float64).copy()
        np.fill_diagonal(D, np.inf)
        ind = np.argpartition(D, k - 1, axis=1)[:, :k]
        dist = np.take_along_axis(D, ind, axis=1)
    else:
        nn = NearestNeighbors(n_neighbors=k, metric=metric, n_jobs=n_jobs,
                              **params).fit(X)
        dist, ind = nn.kneighbors()
        if metric == "euclidean":
            dist **= 2
    Pc, beta = _search(dist, perplexity, PERPLEXITY_TOL, PERPLEXITY_MAX_ITER)
    _report(verbose, name, beta)
    P_cond = sparse.csr_matrix(
        (Pc.ravel(), ind.ravel(), np.arange(0, n * k + 1, k)), shape=(n, n)
    )
    return joint_probabilities(P_cond)
