"""Kernel k-means (notes B §10.4): Lloyd's algorithm in a kernel's feature space.

The centre of cluster ``j`` is the implicit weighted mean
``μ_j = Σ_{i∈C_j} w_i φ(x_i) / S_j`` (``S_j = Σ_{i∈C_j} w_i``), never formed:
every distance comes from the kernel trick,

    ||φ(x) − μ_j||² = k(x, x) − 2 Σ_{i∈C_j} w_i k(x, x_i) / S_j
                      + Σ_{i,i'∈C_j} w_i w_i' k(x_i, x_i') / S_j².

A centre is a column ``z_j`` of coefficients on the training points
(``μ_j = Σ_i Z_ij φ(x_i)``), so ``<φ(x_i), μ_j> = (K Z)_ij`` and
``||μ_j||² = z_j^T K z_j``: one product ``K Z`` per iteration.

The Gram matrix ``K`` is either held whole (``_DenseGram``) or recomputed
in blocks of rows at every pass (``_BlockGram``, ``O(n · block)`` memory);
both give the same iterations. ``approximation="nystroem"`` replaces ``K``
by ``Φ Φ^T`` for explicit Nyström features ``Φ`` (``_kernel_memory``), and
kernel k-means on ``Φ Φ^T`` is plain k-means on the rows of ``Φ``.
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
)

from ..metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils._docstrings import (
    CLUSTER_LABELS_RETURNS,
    FITTED_FEATURE_ATTRIBUTES,
    fill_doc,
)
from ._kernel_memory import (
    check_dense_fits,
    check_kernel_values,
    dense_fits,
    nystroem_features,
    nystroem_landmarks,
    nystroem_normaliser,
    row_blocks,
    rows_per_block,
)
from ._kmeans import KMeans, greedy_kmeans_plusplus
from ..utils.validation import validate_data

__all__ = ["KernelKMeans"]

_INITS = ("k-means++", "random")
# Nyström landmarks when n_landmarks=None (at most n_samples). Measured at
# 10k x 20 (benchmarks/kernel_memory.py: overlapping blobs and padded
# circles, 3 seeds): ARI >= 0.998 against the exact partition with 500
# landmarks (>= 0.988 with 100), for about 8 MiB per thousand samples.
_DEFAULT_LANDMARKS = 500
# Runs for n_init="auto" with a string init: one k-means++ start falls in a
# poor local minimum of the feature-space objective far more often than in
# input space (2 of 5 seeds on two concentric circles).
_AUTO_N_INIT = 10
# Rows of K(X[:m], X) computed before the fit to see whether the kernel is
# usable at the data's magnitude (one aligned block: O(m n) of n² values).
_PROBE_ROWS = 64


class _DenseGram:
    """The whole Gram matrix ``K``, computed once (``O(n²)`` memory)."""

    # Update K M from the moved samples' rows while at most this share of the
    # samples moved; beyond it one BLAS product over K costs less.
    incremental_fraction = 0.25

    def __init__(self, K):
        self.K = K
        self.n = K.shape[0]
        self.diag = np.diag(K).copy()
        self.wKw = None  # w^T K w, from the first full product

    def rows(self, idx):
        """``K[idx]``, shape ``(len(idx), n)``."""
        return self.K[idx]

    def product(self, M):
        """``K M``."""
        return self.K @ M

    def rows_t_product(self, idx, delta):
        """``K[idx]^T delta`` (``= K[:, idx] delta``, K being symmetric)."""
        # Rows of K (contiguous) instead of its columns.
        return (delta.T @ self.K[idx]).T


class _BlockGram:
    """``K`` recomputed a block of rows at a time (``O(n · block)`` memory).

    Each pass evaluates ``K(X[rows], X)`` for one block and drops it. The
    entries ``k(x_i, x_i)`` of a block are set from ``diag`` (computed once
    from the blocks ``K(X[b], X[b])``), so that, for instance, the rbf
    kernel's diagonal is exactly 1 as in the whole matrix.
    """

    # A kernel row costs the same whether it serves a full product or an
    # update, so updating is cheaper whenever fewer than n samples moved; a
    # full pass now and then (more than half moved) resets the rounding
    # that the updates accumulate.
    incremental_fraction = 0.5

    def __init__(self, kernel, X, block):
        self.kernel = kernel
        self.X = X
        self.n = X.shape[0]
        self.block = block
        self.wKw = None
        self.diag = np.empty(self.n)
        for rows in row_blocks(self.n, block):
            self.diag[rows] = np.diag(kernel(X[rows]))

    def rows(self, idx):
        idx = np.asarray(idx)
        K = np.asarray(self.kernel(self.X[idx], self.X), dtype=np.float64)
        K[np.arange(idx.shape[0]), idx] = self.diag[idx]
        return K

    def product(self, M):
        out = np.empty((self.n, M.shape[1]))
        for rows in row_blocks(self.n, self.block):
            out[rows] = self.rows(np.arange(rows.start, rows.stop)) @ M
        return out

    def rows_t_product(self, idx, delta):
        out = np.zeros((self.n, delta.shape[1]))
        for part in row_blocks(idx.shape[0], self.block):
            out += (delta[part].T @ self.rows(idx[part])).T
        return out


def _kmeanspp_feature_space(gram, n_clusters, sample_weight, rng):
    """Greedy k-means++ on ``||φ(x_i) − φ(x_j)||² = K_ii + K_jj − 2 K_ij``.

    The same draws as :func:`skml.cluster.kmeans_plusplus` (first seed ``∝
    w``, then the best of ``2 + ⌊ln k⌋`` candidates drawn ``∝ w D²``), so a
    linear kernel gives the same seeds as k-means++ on X.
    """
    diag = gram.diag

    def squared_distances_to(rows):
        return np.maximum(diag[np.newaxis, :] + diag[rows][:, np.newaxis]
                          - 2.0 * gram.rows(rows), 0.0)

    return greedy_kmeans_plusplus(squared_distances_to, gram.n, n_clusters,
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


def _cluster_sums(gram, labels, sample_weight, n_clusters, P=None, old_labels=None):
    """``P = K M`` with ``M_ij = w_i 1[label(i) = j]``: the unnormalised centres.

    From a previous ``P``, only the samples that changed cluster are
    applied (``P += K[moved]^T ΔM``, O(n · moved · k), plus the kernel rows
    of the moved samples when ``K`` is recomputed in blocks); late Lloyd
    iterations move few samples, so they cost far less than the full
    product (O(n² k), and O(n² d) to recompute a blocked kernel); the share
    of moved samples up to which this pays is ``gram.incremental_fraction``.
    The first
    full product also gives ``w^T K w = w^T P 1`` (``M 1 = w``) for the
    tolerance, without another pass over ``K``.
    """
    n = labels.shape[0]
    if P is not None:
        moved = np.flatnonzero(labels != old_labels)
        if moved.size <= gram.incremental_fraction * n:
            delta = np.zeros((moved.size, n_clusters))
            rows = np.arange(moved.size)
            delta[rows, old_labels[moved]] -= sample_weight[moved]
            delta[rows, labels[moved]] += sample_weight[moved]
            return P + gram.rows_t_product(moved, delta)
    M = np.zeros((n, n_clusters))
    M[np.arange(n), labels] = sample_weight
    P = gram.product(M)
    if gram.wKw is None:
        gram.wKw = float(sample_weight @ P.sum(axis=1))
    return P


def _first_steps(gram, starts, sample_weight, n_clusters):
    """The first assignment and update of several runs, with one pass over K.

    Each run's first update needs a full product ``K M_r``; the products of
    all runs are taken together, ``K [M_1 … M_R]``, so that a kernel
    recomputed in blocks is evaluated once for all the ``n_init`` runs
    instead of once per run. Returns, per run, what
    :func:`_kernel_kmeans_single` computes in its first iteration.
    """
    n = gram.n
    k = n_clusters
    firsts, M = [], np.zeros((n, k * len(starts)))
    for r, (A, b) in enumerate(starts):
        new, own, objective = _assign(gram.diag, A, b, sample_weight)
        labels = _relocate_empty(new, own, sample_weight, k)
        M[np.arange(n), r * k + labels] = sample_weight
        firsts.append([objective, labels])
    P = gram.product(M)
    if gram.wKw is None:
        gram.wKw = float(sample_weight @ P[:, :k].sum(axis=1))
    for r, first in enumerate(firsts):
        first.append(P[:, r * k:(r + 1) * k].copy())
    return firsts


def _kernel_kmeans_single(gram, A, b, sample_weight, n_clusters, max_iter,
                          tol, verbose, first=None):
    """One Lloyd run in feature space from the centres given by ``(A, b)``.

    ``A = <φ(x_i), μ_j>`` and ``b = ||μ_j||²``. Stops when an assignment
    changes no label, or when the squared centre shifts
    ``Σ_j ||μ_j^new − μ_j^old||²`` (from the same products) sum to at most
    ``tol`` times the feature-space variance
    ``Σ w_i K_ii / Σ w − w^T K w / (Σ w)²``; then one more assignment makes
    the labels match the centres. ``first``: the first iteration's
    objective, labels and ``P`` from :func:`_first_steps`. Returns the
    labels, the inertia, the labels whose means are the final centres,
    ``||μ_j||²``, the iterations and the objective history.
    """
    diag = gram.diag
    n = gram.n
    rows = np.arange(n)
    labels, history, strict = None, [], False
    P = centre_labels = None
    tol_abs = None
    for it in range(1, max_iter + 1):
        if it == 1 and first is not None:
            objective, labels, P = first
            history.append(objective)
            if verbose:
                print(f"Iteration {it - 1}, inertia {objective}.")
        else:
            new, own, objective = _assign(diag, A, b, sample_weight)
            history.append(objective)
            if verbose:
                print(f"Iteration {it - 1}, inertia {objective}.")
            if labels is not None and np.array_equal(new, labels):
                strict = True
                break
            labels = _relocate_empty(new, own, sample_weight, n_clusters)
            P = _cluster_sums(gram, labels, sample_weight, n_clusters, P,
                              centre_labels)
        centre_labels = labels
        if tol_abs is None:
            W = sample_weight.sum()
            variance = float(diag @ sample_weight) / W - gram.wKw / W**2
            tol_abs = max(variance, 0.0) * tol
        S = np.bincount(labels, weights=sample_weight, minlength=n_clusters)
        A_new = P / S
        own_w = sample_weight * A_new[rows, labels]
        b_new = np.bincount(labels, weights=own_w, minlength=n_clusters) / S
        # <μ_new, μ_old> = Σ_{i ∈ C_new} w_i <φ(x_i), μ_old> / S_new.
        cross = np.bincount(labels, weights=sample_weight * A[rows, labels],
                            minlength=n_clusters) / S
        shift = float(np.sum(b_new - 2.0 * cross + b))
        A, b = A_new, b_new
        if shift <= tol_abs:
            if verbose:
                print(f"Converged at iteration {it - 1}: center shift {shift} "
                      f"within tolerance {tol_abs}.")
            break
    if not strict:
        labels, own, _ = _assign(diag, A, b, sample_weight)
    inertia = float(own @ sample_weight)
    return labels, inertia, centre_labels, b, it, np.asarray(history)


# The Parameters section of KernelKMeans.fit and fit_predict.
_DOC_FIT_PARAMETERS = """
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
        (n_samples, n_samples)
    Training data, or the Gram matrix if ``kernel="precomputed"``.
y : Ignored
    Not used, present for API consistency.
sample_weight : array-like of shape (n_samples,), default=None
    Weights of the means and of the objective (an integer weight acts
    as that many copies of the sample).
"""


@fill_doc(**{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
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
    Beyond the notes, for data whose ``n × n`` Gram matrix does not fit in
    memory: the exact algorithm with the kernel recomputed in row blocks
    (``block_size``), and the Nyström approximation
    (``approximation="nystroem"``).

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k``.
    kernel : str or callable, default="rbf"
        ``"rbf"``, ``"linear"``, ``"poly"``/``"polynomial"``, ``"sigmoid"``,
        ``"laplacian"``, ``"chi2"``, ``"additive_chi2"``, ``"cosine"``
        (:mod:`skml.metrics.pairwise`), ``"precomputed"`` (X
        is the Gram matrix at fit, and ``K(X_new, X_train)`` at predict), or
        a callable ``kernel(x, z, **kernel_params)`` on two rows.
    gamma : float, default=None
        Coefficient of the rbf, laplacian, poly and sigmoid kernels; ``None``
        means ``1 / n_features``. It is absolute, so it should match the
        data's scale (about 1 / a typical squared distance): ``fit`` refuses
        an rbf or laplacian kernel that is 1 for every pair or 0 between all
        distinct samples, and any kernel that overflowed, with a
        ``ValueError`` that says so.
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
        Runs from different seeds; the lowest inertia wins. "auto": 10 for
        "k-means++" and "random", 1 for arrays. (Unlike :class:`KMeans`,
        whose "auto" is one k-means++ run: in feature space one k-means++
        start often stops in a poor local minimum, e.g. 2 seeds in 5 on
        two concentric circles.)
    max_iter : int, default=300
        Maximum iterations per run.
    tol : float, default=1e-4
        Convergence when the squared feature-space centre shifts sum to at
        most ``tol`` times the total feature-space variance of the data,
        ``Σ w_i K_ii / Σ w − w^T K w / (Σ w)²``.
    verbose : int, default=0
        Print the objective at each iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and the Nyström landmarks.
    n_jobs : int, default=None
        Threads of the kernel matrix.
    approximation : {"exact", "nystroem"}, default="exact"
        "exact": the kernel itself (see ``block_size`` for how its matrix is
        held). "nystroem": kernel k-means with the Nyström kernel
        ``K̃ = C A^+ C^T`` of ``m = n_landmarks`` landmark samples ``L``
        drawn uniformly (``C = K(X, L)``, ``A = K(L, L)``), which is
        k-means (:class:`KMeans`) on the rows of the explicit features
        ``Φ = C A^{+1/2}``: ``O(n m)`` memory instead of ``O(n²)``.
    n_landmarks : int, default=None
        Number ``m`` of landmarks of "nystroem"; ``None`` means
        ``min(500, n_samples)``. With ``m = n_samples`` and a positive
        definite kernel, ``K̃ = K``. Ignored by "exact".
    block_size : int, "auto" or None, default=None
        How "exact" holds the Gram matrix. ``None``: whole, computed once
        (``8 n²`` bytes; refused with a ``ValueError`` before allocation
        when that does not fit in the available memory). An int: never
        whole; every pass recomputes ``K`` in blocks of ``block_size`` rows
        (``O(n · block_size)`` memory, same labels as whole). "auto": whole
        when it fits in memory, else blocks of about 128 MiB. Ignored by
        "nystroem" and with ``kernel="precomputed"``.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample.
    inertia_ : float
        ``Σ_i w_i ||φ(x_i) − μ_{label(i)}||²``, the feature-space
        within-cluster sum of squares (of the Nyström features ``Φ`` with
        ``approximation="nystroem"``).
    n_iter_ : int
        Iterations of the best run.
    inertia_history_ : ndarray of shape (`n_iter_`,)
        The objective after each assignment step of the best run;
        non-increasing for a positive semi-definite kernel.
    landmark_indices_ : ndarray of shape (n_landmarks,)
        Training rows used as Nyström landmarks (only with
        ``approximation="nystroem"``).
    <fitted feature attributes>

    See Also
    --------
    KMeans : The same algorithm on X itself.
    SpectralClustering : Another answer to non-convex clusters.

    Notes
    -----
    Exact, whole Gram matrix: O(n² d) time and O(n²) memory for ``K``. A
    centre is stored as a column of coefficients ``Z`` on the training
    points, so one iteration is a product ``K Z`` (O(n² k), BLAS) followed
    by an argmin; ``||μ_j||² = z_j^T K z_j`` and the centre shift come from
    the same product. Once at most a quarter of the samples change cluster,
    ``K Z`` is updated from the kernel rows of those samples only
    (O(n · moved · k)).

    Exact, in blocks: O(n · block_size + n k) memory. A full product
    recomputes the kernel (O(n² (d + k)) time, the first iteration of each
    run); the later iterations evaluate only the moved samples' rows
    (O(n · moved · (d + k))), and k-means++ ``(2 + ln k) k`` rows. Each of
    the ``n_init`` runs makes at least one full pass: lower ``n_init`` for
    very large n.

    Nyström: O(n m d + m³) time and O(n m) memory for ``Φ``, then Lloyd at
    O(n k m) per iteration (:class:`KMeans`, Hamerly's bounds), and
    ``predict`` costs O(m (d + r)) per sample instead of O(n d). The
    partition is that of the approximate kernel; its agreement with the
    exact one is measured in ``benchmarks/kernel_memory.py`` (see
    ``benchmarks/results/kernel_memory.md``).

    ``predict`` keeps the training data (the landmarks only, for Nyström)
    and evaluates ``K(X_new, X_train) Z`` in blocks of rows (``k(x, x)``
    does not change the argmin). Empty clusters take the sample farthest
    from its centre (as :class:`KMeans`); ties go to the lowest index. With
    ``kernel="linear"`` and the same initial centres or labels the
    partition equals k-means's. The objective cannot increase when the
    kernel is positive semi-definite (Mercer); the sigmoid kernel is not,
    in general (Nyström keeps only its positive part).

    The notes' objective is the mean ``J / m``; ``inertia_`` is the sum.

    References
    ----------
    I. Dhillon, Y. Guan and B. Kulis, "Kernel k-means, spectral clustering
    and normalized cuts", KDD 2004.
    C. Williams and M. Seeger, "Using the Nyström method to speed up kernel
    machines", NIPS 2001.
    R. Chitta, R. Jin, T. Havens and A. Jain, "Approximate kernel k-means:
    solution to large scale kernel clustering", KDD 2011.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> from skml.cluster import KernelKMeans
    >>> X, y = make_circles(200, factor=0.3, noise=0.05, random_state=0)
    >>> km = KernelKMeans(2, gamma=5.0, random_state=0).fit(X)
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
        "approximation": [Options({"exact", "nystroem"})],
        "n_landmarks": [Interval(Integral, 1, None, closed="left"), None],
        "block_size": [Interval(Integral, 1, None, closed="left"), Options({"auto"}),
                       None],
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
        approximation="exact",
        n_landmarks=None,
        block_size=None,
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
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.block_size = block_size

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

    def _gram(self, X):
        """The exact Gram matrix, whole or in blocks, after the size check."""
        n = X.shape[0]
        if self.kernel == "precomputed":
            return _DenseGram(X)
        block = self.block_size
        if block == "auto":
            block = None if dense_fits(n, n)[0] else rows_per_block(n)
        if block is not None:
            return _BlockGram(self._kernel, X, block)
        check_dense_fits(
            n, 1, "KernelKMeans", "kernel matrix",
            "Set block_size='auto' (or a number of rows) for the exact algorithm "
            "with the kernel recomputed in blocks of rows (O(n_samples x "
            "block_size) memory, one kernel evaluation per pass), or "
            "approximation='nystroem' with n_landmarks=m (O(n_samples x m) "
            "memory), or fit on a subsample.",
        )
        K = np.asarray(self._kernel(X), dtype=np.float64)
        # Constant values: the probe has looked for them.
        check_kernel_values(K, X, "KernelKMeans", "kernel matrix", self._scale_param(X),
                            constant=False, isolated=False)
        return _DenseGram(K)

    def _scale_param(self, X):
        if self.kernel in ("linear", "precomputed") or callable(self.kernel):
            return f"kernel={self.kernel!r}"
        gamma = self.gamma if self.gamma is not None else 1.0 / X.shape[1]
        return f"gamma={gamma:.3g}"

    def _check_kernel_scale(self, X):
        """Refuse a kernel that overflowed or is constant at X's magnitude.

        The rbf kernel at a fixed ``gamma`` (``1 / n_features`` by default)
        is not scale-invariant: at ``X * 1e300`` its values overflow (NaN) or
        are 0 off the diagonal, at ``X * 1e-300`` they are all 1, and Lloyd's
        iterations on such a matrix give an arbitrary partition (ARI 0.00).
        ``K(X[:64], X)`` shows it before the fit.
        """
        if self.kernel == "precomputed":
            return
        probe = np.asarray(self._kernel(X[:_PROBE_ROWS], X), dtype=np.float64)
        exp_kernel = self.kernel in ("rbf", "laplacian")
        check_kernel_values(probe, X, "KernelKMeans", "kernel matrix",
                            self._scale_param(X), constant=exp_kernel,
                            isolated=exp_kernel)

    def _initial_centres(self, X, gram, init, sample_weight, rng):
        """``(A, b)``: ``<φ(x_i), μ_j>`` and ``||μ_j||²`` of the initial centres."""
        k = self.n_clusters
        if isinstance(init, str):
            if init == "k-means++":
                seeds = _kmeanspp_feature_space(gram, k, sample_weight, rng)
            else:
                seeds = rng.choice(gram.n, size=k, replace=False,
                                   p=sample_weight / sample_weight.sum())
            return gram.rows(seeds).T.copy(), gram.diag[seeds].copy()
        if init.ndim == 1:  # initial labels
            Z, _ = _centres_of(init, sample_weight, k)
            A = gram.product(Z)
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

    def _fit_exact(self, X, sample_weight, init, n_init, rng):
        gram = self._gram(X)
        # All the seeds first (Lloyd draws no random numbers, so these are the
        # seeds of the runs one after the other), then one pass for all the
        # first updates.
        starts = [self._initial_centres(X, gram, init, sample_weight, rng)
                  for _ in range(n_init)]
        firsts = (_first_steps(gram, starts, sample_weight, self.n_clusters)
                  if n_init > 1 else [None])
        best = None
        for (A, b), first in zip(starts, firsts):
            run = _kernel_kmeans_single(gram, A, b, sample_weight,
                                        self.n_clusters, self.max_iter, self.tol,
                                        self.verbose, first)
            if best is None or run[1] < best[1]:
                best = run
        labels, inertia, centre_labels, b, n_iter, history = best
        Z, _ = _centres_of(centre_labels, sample_weight, self.n_clusters)
        self._X_fit = None if self.kernel == "precomputed" else X
        self._Z = Z
        self._centre_sq_norms = b
        self._block = gram.block if isinstance(gram, _BlockGram) else None
        return labels, inertia, n_iter, history

    def _nystroem_map(self, X, rows=slice(None)):
        """``K(X[rows], L)``: kernel values to the landmarks."""
        if self.kernel == "precomputed":
            return np.asarray(X[rows][:, self.landmark_indices_], dtype=np.float64)
        return np.asarray(self._kernel(X[rows], self._landmarks), dtype=np.float64)

    def _fit_nystroem(self, X, sample_weight, init, n_init, rng):
        n = X.shape[0]
        m = min(n, _DEFAULT_LANDMARKS if self.n_landmarks is None
                else self.n_landmarks)
        if m < self.n_clusters:
            raise ValueError(
                f"n_landmarks={m} should be >= n_clusters={self.n_clusters}."
            )
        idx = nystroem_landmarks(n, m, sample_weight, rng)
        self.landmark_indices_ = idx
        self._landmarks = None if self.kernel == "precomputed" else X[idx]
        self._normaliser = nystroem_normaliser(self._nystroem_map(X, idx))
        Phi = nystroem_features(lambda rows: self._nystroem_map(X, rows), n,
                                self._normaliser, idx.shape[0])
        if not isinstance(init, str):
            if init.ndim == 1:  # labels: their weighted means in Φ
                Z, _ = _centres_of(init, sample_weight, self.n_clusters)
                init = Z.T @ Phi
            else:
                init = self._kernel(init, self._landmarks) @ self._normaliser
        # KMeans's tolerance is relative to the mean variance per feature;
        # ours to the total variance.
        km = KMeans(self.n_clusters, init=init, n_init=n_init,
                    max_iter=self.max_iter, tol=self.tol * Phi.shape[1],
                    verbose=self.verbose, random_state=rng, copy_x=False)
        with warnings.catch_warnings():
            # The fewer-distinct-clusters warning is raised once, below.
            warnings.simplefilter("ignore", ConvergenceWarning)
            km.fit(Phi, sample_weight=sample_weight)
        self._kmeans = km
        return km.labels_, km.inertia_, km.n_iter_, km.inertia_history_

    @fill_doc(parameters=_DOC_FIT_PARAMETERS)
    def fit(self, X, y=None, sample_weight=None):
        """Cluster X in the kernel's feature space.

        <parameters>

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
            n_init = 1 if init_is_array else _AUTO_N_INIT
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
        for name in ("landmark_indices_",):
            self.__dict__.pop(name, None)  # from an earlier fit

        self._check_kernel_scale(X)
        if self.approximation == "nystroem":
            run = self._fit_nystroem(X, sample_weight, init, n_init, rng)
        else:
            run = self._fit_exact(X, sample_weight, init, n_init, rng)
        labels, inertia, n_iter, history = run
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
        if hasattr(self, "landmark_indices_"):
            Phi = nystroem_features(lambda rows: self._nystroem_map(X, rows),
                                    X.shape[0], self._normaliser,
                                    self.landmark_indices_.shape[0])
            return self._kmeans.predict(Phi)
        if precomputed:
            scores = -2.0 * (X @ self._Z) + self._centre_sq_norms
            return np.argmin(scores, axis=1).astype(np.int32)
        # K(X_new, X_train) in blocks of rows: never n_queries x n_samples_fit.
        labels = np.empty(X.shape[0], dtype=np.int32)
        n_fit = self._X_fit.shape[0]
        for rows in row_blocks(X.shape[0], rows_per_block(n_fit, self._block)):
            K = np.asarray(self._kernel(X[rows], self._X_fit))
            scores = -2.0 * (K @ self._Z) + self._centre_sq_norms
            labels[rows] = np.argmin(scores, axis=1)
        return labels

    @fill_doc(parameters=_DOC_FIT_PARAMETERS, returns=CLUSTER_LABELS_RETURNS)
    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return the training labels.

        <parameters>

        <returns>
        """
        return self.fit(X, sample_weight=sample_weight).labels_
