"""Kernel k-means (notes B §10.4): Lloyd's algorithm in a kernel's feature space.

The centre of cluster ``j`` is the implicit weighted mean
``μ_j = Σ_{i∈C_j} w_i φ(x_i) / S_j`` (``S_j = Σ_{i∈C_j} w_i``), never formed:
every distance comes from the kernel trick,

    ||φ(x) − μ_j||² = k(x, x) − 2 Σ_{i∈C_j} w_i k(x, x_i) / S_j
                      + Σ_{i,i'∈C_j} w_i w_i' k(x_i, x_i') / S_j².

A centre is a column ``z_j`` of coefficients on the training points
(``μ_j = Σ_i Z_ij φ(x_i)``), so ``<φ(x_i), μ_j> = (K Z)_ij`` and
``||μ_j||² = z_j^T K z_j``: one product ``K Z`` per iteration.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
    validate_data,
)

from ..metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from ..utils import Interval, Options, check_sample_weight, validate_params
from ._kmeans import greedy_kmeans_plusplus

__all__ = ["KernelKMeans"]

_INITS = ("k-means++", "random")


def _kmeanspp_feature_space(K, diag, n_clusters, sample_weight, rng):
    """Greedy k-means++ on ``||φ(x_i) − φ(x_j)||² = K_ii + K_jj − 2 K_ij``.

    The same draws as :func:`skml.cluster.kmeans_plusplus` (first seed ``∝
    w``, then the best of ``2 + ⌊ln k⌋`` candidates drawn ``∝ w D²``), so a
    linear kernel gives the same seeds as k-means++ on X.
    """
    def squared_distances_to(rows):
        return np.maximum(diag[np.newaxis, :] + diag[rows][:, np.newaxis] - 2.0 * K[rows],
                          0.0)

    return greedy_kmeans_plusplus(squared_distances_to, K.shape[0], n_clusters,
                                  sample_weight, rng)


def _centres_of(labels, sample_weight, n_clusters):
    """Coefficients ``Z`` (n × k) of the weighted means of the clusters."""
    n = labels.shape[0]
    S = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    Z = np.zeros((n, n_clusters))
    rows = np.arange(n)
    Z[rows, labels] = sample_weight / np.where(S > 0, S, 1.0)[labels]
    return Z, S


def _relocate_empty(labels, dist_own, sample_weight, n_clusters):
    """Give each cluster without weight a far sample (scikit-learn's rule).

    The samples farthest from their own centre move, one per empty cluster,
    taken only from clusters that keep another weighted sample. Moving a
    sample into a singleton cluster can only lower the objective.
    """
    S = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
    empty = np.flatnonzero(S <= 0)
    if empty.size == 0:
        return labels
    labels = labels.copy()
    positive = sample_weight > 0
    counts = np.bincount(labels[positive], minlength=n_clusters)
    far = np.argsort(-np.where(positive, dist_own, -np.inf), kind="stable")
    pos = 0
    for j in empty:
        while pos < far.shape[0]:
            i = far[pos]
            pos += 1
            if positive[i] and counts[labels[i]] > 1:
                counts[labels[i]] -= 1
                counts[j] += 1
                labels[i] = j
                break
    return labels


def _assign(diag, A, b, sample_weight):
    """Nearest centre of each sample, and ``Σ w ||φ(x) − μ_label||²``."""
    dist = diag[:, np.newaxis] - 2.0 * A + b[np.newaxis, :]
    labels = np.argmin(dist, axis=1).astype(np.int32)
    own = dist[np.arange(dist.shape[0]), labels]
    return labels, own, float(own @ sample_weight)


def _cluster_sums(K, labels, sample_weight, n_clusters, P=None, old_labels=None):
    """``P = K M`` with ``M_ij = w_i 1[label(i) = j]``: the unnormalised centres.

    From a previous ``P``, only the samples that changed cluster are
    applied (``P += K[moved]^T ΔM``, O(n · moved · k)); late Lloyd
    iterations move few samples, so they cost far less than the full
    product (O(n² k)).
    """
    n = labels.shape[0]
    if P is not None:
        moved = np.flatnonzero(labels != old_labels)
        if moved.size <= n // 4:
            delta = np.zeros((moved.size, n_clusters))
            rows = np.arange(moved.size)
            delta[rows, old_labels[moved]] -= sample_weight[moved]
            delta[rows, labels[moved]] += sample_weight[moved]
            # K is symmetric: rows of K (contiguous) instead of its columns.
            return P + (delta.T @ K[moved]).T
    M = np.zeros((n, n_clusters))
    M[np.arange(n), labels] = sample_weight
    return K @ M


def _kernel_kmeans_single(K, diag, A, b, sample_weight, n_clusters, max_iter,
                          tol, verbose):
    """One Lloyd run in feature space from the centres given by ``(A, b)``.

    ``A = <φ(x_i), μ_j>`` and ``b = ||μ_j||²``. Stops when an assignment
    changes no label, or when the squared centre shifts
    ``Σ_j ||μ_j^new − μ_j^old||²`` (from the same products) sum to at most
    ``tol``; then one more assignment makes the labels match the centres.
    Returns the labels, the inertia, the labels whose means are the final
    centres, ``||μ_j||²``, the iterations and the objective history.
    """
    n = K.shape[0]
    rows = np.arange(n)
    labels, history, strict = None, [], False
    P = centre_labels = None
    for it in range(1, max_iter + 1):
        new, own, objective = _assign(diag, A, b, sample_weight)
        history.append(objective)
        if verbose:
            print(f"Iteration {it - 1}, inertia {objective}.")
        if labels is not None and np.array_equal(new, labels):
            strict = True
            break
        labels = _relocate_empty(new, own, sample_weight, n_clusters)
        P = _cluster_sums(K, labels, sample_weight, n_clusters, P, centre_labels)
        centre_labels = labels
        S = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
        A_new = P / S
        own_w = sample_weight * A_new[rows, labels]
        b_new = np.bincount(labels, weights=own_w, minlength=n_clusters) / S
        # <μ_new, μ_old> = Σ_{i ∈ C_new} w_i <φ(x_i), μ_old> / S_new.
        cross = np.bincount(labels, weights=sample_weight * A[rows, labels],
                            minlength=n_clusters) / S
        shift = float(np.sum(b_new - 2.0 * cross + b))
        A, b = A_new, b_new
        if shift <= tol:
            if verbose:
                print(f"Converged at iteration {it - 1}: center shift {shift} "
                      f"within tolerance {tol}.")
            break
    if not strict:
        labels, own, _ = _assign(diag, A, b, sample_weight)
    inertia = float(own @ sample_weight)
    return labels, inertia, centre_labels, b, it, np.asarray(history)


class KernelKMeans(ClusterMixin, BaseEstimator):
    """Kernel k-means: Lloyd's algorithm with distances through a kernel.

    The notes' kernel k-means (notes B §10.4, D3 "Kernel K-means"): the
    k-means of notes A §7.2 run on ``φ(x)`` for the feature map ``φ`` of a
    kernel ``k(x, z) = <φ(x), φ(z)>``, with every distance to a centre
    computed by the kernel trick,
    ``||φ(x) − μ_j||² = k(x,x) − (2/|C_j|) Σ_{i∈C_j} k(x, x_i)
    + (1/|C_j|²) Σ_{i,i'∈C_j} k(x_i, x_i')`` (weighted means with
    ``sample_weight``). Non-convex clusters such as concentric circles become
    separable with an rbf kernel; a linear kernel gives plain k-means.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k``.
    kernel : str or callable, default="rbf"
        ``"rbf"``, ``"linear"``, ``"poly"``/``"polynomial"``, ``"sigmoid"``,
        ``"laplacian"`` (:mod:`skml.metrics.pairwise`), ``"precomputed"`` (X
        is the Gram matrix at fit, and ``K(X_new, X_train)`` at predict), or
        a callable ``kernel(x, z, **kernel_params)`` on two rows.
    gamma : float, default=None
        Coefficient of the rbf, laplacian, poly and sigmoid kernels; ``None``
        means ``1 / n_features``.
    degree : float, default=3
        Degree of the poly kernel.
    coef0 : float, default=1
        Constant of the poly and sigmoid kernels.
    kernel_params : dict, default=None
        Further kernel parameters (e.g. of a callable).
    init : {"k-means++", "random"} or array-like, default="k-means++"
        "k-means++": greedy k-means++ with feature-space distances
        ``K_ii + K_jj − 2 K_ij``. "random": ``k`` distinct samples drawn
        ``∝ w`` (the notes' choice). An array of shape ``(n_samples,)``:
        initial labels in ``[0, n_clusters)``. An array of shape
        ``(n_clusters, n_features)``: initial centres ``φ(c_j)`` in input
        space (not with ``kernel="precomputed"``).
    n_init : "auto" or int, default="auto"
        Runs from different seeds; the lowest inertia wins. "auto": 1 for
        "k-means++" and arrays, 10 for "random".
    max_iter : int, default=300
        Maximum iterations per run.
    tol : float, default=1e-4
        Convergence when the squared feature-space centre shifts sum to at
        most ``tol`` times the total feature-space variance of the data,
        ``Σ w_i K_ii / Σ w − w^T K w / (Σ w)²``.
    verbose : int, default=0
        Print the objective at each iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    n_jobs : int, default=None
        Threads of the kernel matrix.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample.
    inertia_ : float
        ``Σ_i w_i ||φ(x_i) − μ_{label(i)}||²``, the feature-space
        within-cluster sum of squares.
    n_iter_ : int
        Iterations of the best run.
    inertia_history_ : ndarray of shape (`n_iter_`,)
        The objective after each assignment step of the best run;
        non-increasing for a positive semi-definite kernel.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, if they are all strings.

    See Also
    --------
    KMeans : The same algorithm on X itself.
    SpectralClustering : Another answer to non-convex clusters.

    Notes
    -----
    The Gram matrix costs O(n² d) time and O(n²) memory. A centre is stored
    as a column of coefficients ``Z`` on the training points, so one
    iteration is a product ``K Z`` (O(n² k), BLAS) followed by an argmin;
    ``||μ_j||² = z_j^T K z_j`` and the centre shift come from the same
    product. ``predict`` keeps the training data and evaluates
    ``K(X_new, X_train) Z`` (``k(x, x)`` does not change the argmin).
    Empty clusters take the sample farthest from its centre (as
    :class:`KMeans`); ties go to the lowest index. With ``kernel="linear"``
    and the same initial centres or labels the partition equals k-means's.
    The objective cannot increase when the kernel is positive
    semi-definite (Mercer); the sigmoid kernel is not, in general.

    The notes' objective is the mean ``J / m``; ``inertia_`` is the sum.

    References
    ----------
    I. Dhillon, Y. Guan and B. Kulis, "Kernel k-means, spectral clustering
    and normalized cuts", KDD 2004.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from skml.cluster import KernelKMeans
    >>> X, y = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    >>> km = KernelKMeans(2, gamma=5.0, n_init=5, random_state=0).fit(X)
    >>> from sklearn.metrics import adjusted_rand_score
    >>> float(adjusted_rand_score(y, km.labels_))
    1.0
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "kernel": [Options(set(PAIRWISE_KERNEL_FUNCTIONS) | {"precomputed"}), callable],
        "gamma": [Interval(Real, 0, None, closed="left"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "init": [Options(set(_INITS)), "array-like"],
        "n_init": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def _kernel(self, X, Y=None):
        if self.kernel == "precomputed":
            return X
        params = dict(self.kernel_params or {})
        if not callable(self.kernel):
            params.update(gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        return pairwise_kernels(
            X, Y, metric=self.kernel, filter_params=not callable(self.kernel),
            n_jobs=self.n_jobs, **params,
        )

    def _initial_centres(self, X, K, diag, init, sample_weight, rng):
        """``(A, b)``: ``<φ(x_i), μ_j>`` and ``||μ_j||²`` of the initial centres."""
        k = self.n_clusters
        if isinstance(init, str):
            if init == "k-means++":
                seeds = _kmeanspp_feature_space(K, diag, k, sample_weight, rng)
            else:
                seeds = rng.choice(K.shape[0], size=k, replace=False,
                                   p=sample_weight / sample_weight.sum())
            return K[:, seeds].copy(), diag[seeds].copy()
        if init.ndim == 1:  # initial labels
            Z, _ = _centres_of(init, sample_weight, k)
            A = K @ Z
            return A, np.einsum("ij,ij->j", Z, A)
        return self._kernel(X, init), np.diag(self._kernel(init))

    def _check_init(self, X, init):
        n = X.shape[0]
        init = np.asarray(init)
        if init.ndim == 1:
            if init.shape[0] != n:
                raise ValueError(
                    f"init as labels must have shape (n_samples,) = ({n},); got "
                    f"{init.shape}."
                )
            if not np.issubdtype(init.dtype, np.integer) or (
                init.size and (init.min() < 0 or init.max() >= self.n_clusters)
            ):
                raise ValueError(
                    "init as labels must be integers in [0, n_clusters) = "
                    f"[0, {self.n_clusters})."
                )
            return init.astype(np.int32)
        if self.kernel == "precomputed":
            raise ValueError(
                "With kernel='precomputed', init must be a string or initial labels "
                "of shape (n_samples,); centres in input space are not available."
            )
        init = check_array(init, dtype=np.float64, input_name="init")
        if init.shape != (self.n_clusters, X.shape[1]):
            raise ValueError(
                f"The shape of the initial centers {init.shape} does not match "
                f"(n_clusters, n_features) = ({self.n_clusters}, {X.shape[1]})."
            )
        return init

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X in the kernel's feature space.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples)
            Training data, or the Gram matrix if ``kernel="precomputed"``.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the means and of the objective (an integer weight acts
            as that many copies of the sample).

        Returns
        -------
        self : KernelKMeans
            Fitted estimator.
        """
        validate_params(self)
        precomputed = self.kernel == "precomputed"
        X = validate_data(self, X, accept_sparse=False if precomputed else "csr",
                          dtype=np.float64)
        n = X.shape[0]
        if precomputed and X.shape[1] != n:
            raise ValueError(
                "kernel='precomputed' expects a square Gram matrix at fit; got "
                f"shape {X.shape}."
            )
        if n < self.n_clusters:
            raise ValueError(
                f"n_samples={n} should be >= n_clusters={self.n_clusters}."
            )
        sample_weight = check_sample_weight(sample_weight, X)
        if np.count_nonzero(sample_weight) < self.n_clusters:
            raise ValueError(
                f"Only {np.count_nonzero(sample_weight)} samples have a non-zero "
                f"weight; at least n_clusters={self.n_clusters} are needed."
            )
        init = self.init
        init_is_array = not isinstance(init, str)
        if init_is_array:
            init = self._check_init(X, init)
        if self.n_init == "auto":
            n_init = 1 if init_is_array or init == "k-means++" else 10
        else:
            n_init = self.n_init
        if init_is_array and n_init != 1:
            warnings.warn(
                "Explicit initial labels or centres passed: performing only one init "
                f"in KernelKMeans instead of n_init={n_init}.",
                RuntimeWarning,
            )
            n_init = 1
        rng = check_random_state(self.random_state)

        K = np.asarray(self._kernel(X), dtype=np.float64)
        diag = np.diag(K).copy()
        tol = 0.0
        if self.tol > 0:  # one more pass over K, skipped when tol=0
            W = sample_weight.sum()
            variance = float(diag @ sample_weight / W
                             - sample_weight @ K @ sample_weight / W**2)
            tol = max(variance, 0.0) * self.tol

        best = None
        for _ in range(n_init):
            A, b = self._initial_centres(X, K, diag, init, sample_weight, rng)
            run = _kernel_kmeans_single(K, diag, A, b, sample_weight,
                                        self.n_clusters, self.max_iter, tol,
                                        self.verbose)
            if best is None or run[1] < best[1]:
                best = run
        labels, inertia, centre_labels, b, n_iter, history = best
        Z, _ = _centres_of(centre_labels, sample_weight, self.n_clusters)
        distinct = np.unique(labels).shape[0]
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than "
                f"n_clusters ({self.n_clusters}). Possibly due to duplicate points "
                "in X.",
                ConvergenceWarning,
            )
        self.labels_ = labels
        self.inertia_ = inertia
        self.n_iter_ = n_iter
        self.inertia_history_ = history
        self._X_fit = None if precomputed else X
        self._Z = Z
        self._centre_sq_norms = b
        return self

    def predict(self, X):
        """Index of the nearest feature-space centre of each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_queries, n_features) or \
                (n_queries, n_samples_fit)
            New data, or ``K(X_new, X_train)`` if ``kernel="precomputed"``.

        Returns
        -------
        labels : ndarray of shape (n_queries,)
            Cluster of each sample.
        """
        check_is_fitted(self)
        precomputed = self.kernel == "precomputed"
        X = validate_data(self, X, reset=False,
                          accept_sparse=False if precomputed else "csr",
                          dtype=np.float64)
        K = X if precomputed else self._kernel(X, self._X_fit)
        scores = -2.0 * (np.asarray(K) @ self._Z) + self._centre_sq_norms
        return np.argmin(scores, axis=1).astype(np.int32)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return the training labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples)
            Training data, or the Gram matrix if ``kernel="precomputed"``.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            ``labels_``.
        """
        return self.fit(X, sample_weight=sample_weight).labels_
