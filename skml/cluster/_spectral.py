"""Spectral clustering (notes A §7.3-7.4): k-means on Laplacian eigenvectors.

Build a similarity graph ``W``, take the eigenvectors of the ``k`` smallest
eigenvalues of its Laplacian (the relaxation of RatioCut, or of the
normalised cut for the normalised Laplacians), and run k-means on the rows
of that ``n × k`` matrix.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, lobpcg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_random_state

from ..decomposition._pca import svd_flip_signs
from ..metrics.pairwise import PAIRWISE_KERNEL_FUNCTIONS, pairwise_kernels
from ..neighbors import NearestNeighbors
from ..utils import Interval, Options, validate_params
from ..utils._docstrings import (
    CLUSTER_LABELS_RETURNS,
    FITTED_FEATURE_ATTRIBUTES,
    SELF_RETURNS,
    Y_IGNORED,
    fill_doc,
)
from ._graph import _check_adjacency, _laplacian
from ._kernel_memory import (
    check_dense_fits,
    check_kernel_values,
    nystroem_features,
    nystroem_landmarks,
    nystroem_normaliser,
)
from ._kmeans import KMeans
from ..utils.validation import validate_data

__all__ = ["SpectralClustering"]

_GRAPH_AFFINITIES = {
    "nearest_neighbors", "precomputed", "precomputed_nearest_neighbors"
}
# Below this many nodes a full dense eigendecomposition costs less than
# starting ARPACK (and never fails to converge).
_DENSE_MAX_NODES = 500
# Nyström landmarks when n_landmarks=None (at most n_samples). Measured at
# 10k x 20 (benchmarks/kernel_memory.py: overlapping blobs and padded
# circles, 3 seeds): ARI >= 0.997 against the exact partition with 500
# landmarks (>= 0.979 with 100), for about 8 MiB per thousand samples.
_DEFAULT_LANDMARKS = 500


def _null_basis(W, weight, connected):
    """Orthonormal basis of the Laplacian's null space, one vector per component.

    The null vectors are known: the indicator of each connected component
    times ``weight`` (1 for ``L``, ``D^{1/2} 1`` for ``L_sym``), largest
    component first. ``connected`` short-cuts the graph search for a dense
    graph without zero weights.
    """
    n = W.shape[0]
    if connected:
        comp = np.zeros(n, dtype=np.int64)
    else:
        _, comp = connected_components(W, directed=False)
        # Relabel by decreasing size (ties by first node) for a fixed order.
        sizes = np.bincount(comp)
        order = np.lexsort((np.arange(sizes.size), -sizes))
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        comp = rank[comp]
    Q = np.zeros((n, comp.max() + 1))
    Q[np.arange(n), comp] = weight
    Q /= np.linalg.norm(Q, axis=0)
    return Q


def _nystroem_laplacian(Phi, kind):
    """Laplacian of the Nyström graph ``W̃ = Φ Φ^T`` as a ``LinearOperator``.

    As :func:`skml.cluster._graph._laplacian` does for a matrix: the
    diagonal of ``W̃`` (self-loops) is ignored, so the degrees are
    ``d_i = Σ_{j≠i} W̃_ij = (Φ Φ^T 1)_i − ||Φ_i||²``, and a product with
    ``L`` costs O(n m) (two products with ``Φ``) instead of O(n²). A node
    whose degree is not positive up to rounding (far from every landmark,
    or with negative approximate weights) is isolated, as a zero-degree
    node of an exact graph: its row of ``Φ`` is zeroed (in place) and the
    degrees recomputed until all the others are positive, so ``1`` (``L``)
    or ``D^{1/2} 1`` (``L_sym``) stays an exact null vector. Returns
    ``(L, d, isolated)``.
    """
    n = Phi.shape[0]
    isolated = np.zeros(n, dtype=bool)
    while True:
        sq = np.einsum("ij,ij->i", Phi, Phi)
        d = Phi @ Phi.sum(axis=0) - sq
        # The rounding error of d is about eps · n · max ||Φ_i||².
        floor = 64.0 * np.finfo(np.float64).eps * n * float(sq.max(initial=0.0))
        new = ~isolated & (d <= floor)
        if not new.any():
            break
        isolated |= new
        Phi[new] = 0.0
    d[isolated] = 0.0
    if kind == "unnormalized":
        scale, ones = None, d
    else:
        scale = np.where(isolated, 0.0, 1.0 / np.sqrt(np.where(isolated, 1.0, d)))
        ones = np.where(isolated, 0.0, 1.0)
    sq_scaled = sq if scale is None else sq * scale**2

    def matmat(V):
        one_d = V.ndim == 1
        V = V[:, np.newaxis] if one_d else V
        U = V if scale is None else V * scale[:, np.newaxis]
        WU = Phi @ (Phi.T @ U)
        if scale is not None:
            WU *= scale[:, np.newaxis]
        out = (ones + sq_scaled)[:, np.newaxis] * V - WU
        return out[:, 0] if one_d else out

    L = LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat,
                       dtype=np.float64)
    return L, d, isolated


def _resolve_solver(solver, n, k):
    """The eigensolver that runs for ``eigen_solver=solver`` on n nodes."""
    if solver == "auto":
        solver = "dense" if n <= _DENSE_MAX_NODES or 5 * k >= n else "arpack"
    if solver == "lobpcg" and n < 5 * k + 1:
        solver = "dense"  # lobpcg is unreliable with few nodes per vector
    if solver == "arpack" and k >= n - 1:
        solver = "dense"  # ARPACK needs k < n - 1
    return solver


def _smallest_eigenpairs(L, k, solver, Q, shift, v0, rng, tol):
    """The ``k`` smallest eigenpairs of the symmetric PSD matrix ``L``.

    The iterative solvers are given the null space ``Q`` (one known vector
    per connected component) and look for the remaining ``k − c`` pairs only:
    Lanczos has trouble resolving a repeated eigenvalue, and 0 is repeated
    whenever the graph is disconnected. ``"arpack"`` runs Lanczos for the
    smallest algebraic eigenvalues (``which="SA"``) of ``L + shift Q Q^T``,
    which moves the known null vectors to the top of the spectrum, with only
    products ``L v`` (no factorisation). ``"lobpcg"`` iterates in the
    complement of ``Q`` (its ``Y`` constraint). ``"dense"`` is LAPACK's
    ``eigh`` restricted to the first ``k`` eigenvalues. ``L`` may be a
    ``LinearOperator`` (the Nyström Laplacian), formed densely only for
    ``"dense"``.
    """
    n = L.shape[0]
    solver = _resolve_solver(solver, n, k)
    c = Q.shape[1]
    if solver != "dense" and c >= k:
        w, V = np.zeros(k), Q[:, :k]
    elif solver == "arpack":
        op = LinearOperator(
            L.shape, dtype=np.float64,
            matvec=lambda v: L @ v + shift * (Q @ (Q.T @ v)),
        )
        try:
            w, V = eigsh(op, k=k - c, which="SA", v0=v0,
                         tol=0.0 if tol == "auto" else tol)
        except ArpackNoConvergence:
            warnings.warn(
                "ARPACK did not converge; falling back to eigen_solver='lobpcg'.",
                RuntimeWarning,
            )
            solver = "lobpcg"
    if solver == "lobpcg" and c < k:
        X0 = rng.standard_normal((n, k - c + 1))
        w, V = lobpcg(L, X0, Y=Q, tol=None if tol == "auto" else tol,
                      largest=False, maxiter=2000)
    if solver == "dense":
        if isinstance(L, LinearOperator):
            L = L.matmat(np.eye(n))
        L = L.toarray() if sp.issparse(L) else L
        w, V = scipy.linalg.eigh(L, subset_by_index=[0, k - 1], check_finite=False)
    elif c < k:
        order = np.argsort(w)[: k - c]
        w = np.concatenate([np.zeros(c), w[order]])
        V = np.hstack([Q, V[:, order]])
    order = np.argsort(w, kind="stable")[:k]
    w, V = w[order], V[:, order]
    # Deterministic signs: the largest entry of each vector is positive
    # (in place on V's transpose; V is a fresh array here).
    svd_flip_signs(V.T)
    return w, V


def _discretize(U, rng, max_iter=30, tol=1e-10):
    """Yu and Shi's discretisation of a spectral embedding (``assign_labels="discretize"``).

    "Multiclass spectral clustering" (ICCV 2003): scale the rows of ``U`` to
    unit length (``X̃``), then look for the partition matrix ``X`` (one 1 per
    row) and the rotation ``R`` (``k × k`` orthogonal) closest to each other,
    ``min ||X − X̃ R||_F``, by alternating the two exact half-steps:
    ``X`` = the row-wise argmax of ``X̃ R``; ``R = Ṽ Uᵀ`` from the SVD
    ``Xᵀ X̃ = U Ω Ṽᵀ``. The objective ``tr Ω`` never decreases; the
    loop stops when it changes by less than ``tol`` (relative) or after
    ``max_iter`` rounds. ``R`` starts from ``k`` rows of ``X̃`` as
    orthogonal as possible: a random row, then each time the row least
    aligned with those already taken (the paper's initialisation).
    """
    n, k = U.shape
    norms = np.linalg.norm(U, axis=1)
    Xt = U / np.where(norms > 0, norms, 1.0)[:, np.newaxis]
    if k == 1:
        return np.zeros(n, dtype=np.int32)
    R = np.empty((k, k))
    R[:, 0] = Xt[rng.randint(n)]
    alignment = np.zeros(n)
    for j in range(1, k):
        alignment += np.abs(Xt @ R[:, j - 1])
        R[:, j] = Xt[np.argmin(alignment)]
    previous = -np.inf
    for _ in range(max_iter):
        labels = np.argmax(Xt @ R, axis=1)
        # Xᵀ X̃: the sum of the unit rows of each cluster.
        M = np.zeros((k, k))
        np.add.at(M, labels, Xt)
        left, omega, right_t = np.linalg.svd(M)
        objective = float(omega.sum())
        if objective - previous <= tol * max(objective, 1.0):
            break
        previous = objective
        R = right_t.T @ left.T
    return np.argmax(Xt @ R, axis=1).astype(np.int32)


def _cluster_qr(V):
    """Damle, Minden and Ying's CPQR assignment (``assign_labels="cluster_qr"``).

    "Simple, direct and efficient multi-way spectral clustering" (Information
    and Inference 8(1), 2019), Algorithm 1: the column-pivoted QR of
    ``Vᵀ`` picks ``k`` rows of the eigenvector matrix ``V`` (``n × k``,
    orthonormal columns) that are as linearly independent as possible, one
    per cluster; the orthogonal polar factor ``Q = A Bᵀ`` of those rows
    (``V_Cᵀ = A Σ Bᵀ``) rotates them onto the coordinate axes, and each
    sample joins the axis of its largest ``|(V Q)_ij|``. Deterministic (no
    random state) and O(n k²).
    """
    k = V.shape[1]
    _, _, pivots = scipy.linalg.qr(V.T, mode="economic", pivoting=True,
                                   check_finite=False)
    left, _, right_t = np.linalg.svd(V[pivots[:k]].T)
    return np.argmax(np.abs(V @ (left @ right_t)), axis=1).astype(np.int32)


def _symmetrized(W):
    """``W``, or ``(W + Wᵀ) / 2`` with a warning when ``W`` is not symmetric.

    A directed graph (e.g. a k-nearest-neighbour connectivity, where ``j``
    among ``i``'s neighbours does not make ``i`` one of ``j``'s) has no
    symmetric Laplacian; averaging with the transpose keeps every edge, at
    half weight where it was one-way (as scikit-learn does). The tolerance
    is relative to the largest weight: kernels computed blockwise are
    symmetric only up to rounding.
    """
    values = W.data if sp.issparse(W) else W
    scale = float(values.max()) if values.size else 0.0
    diff = abs(W - W.T)
    diff = (float(diff.max()) if diff.nnz else 0.0) if sp.issparse(diff) \
        else float(diff.max(initial=0.0))
    if diff <= 1e-10 * max(scale, 1.0):
        return W
    warnings.warn(
        f"The affinity matrix is not symmetric (max |W - W.T| = {diff:.3g}, a "
        "directed graph); it is replaced by (W + W.T) / 2.",
        UserWarning,
    )
    W = 0.5 * (W + W.T)
    return W.tocsr() if sp.issparse(W) else W


@fill_doc(**{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
class SpectralClustering(ClusterMixin, BaseEstimator):
    """Spectral clustering: k-means on the eigenvectors of a graph Laplacian.

    The notes' algorithm (notes A §7.4, S0 §7 "Spectral Clustering
    Algorithm"): build the similarity graph ``W`` (notes A §7.3), compute its
    Laplacian, take the eigenvectors of the ``k`` **smallest** eigenvalues as
    the columns of ``U`` (S2's "top k ... close to 0" means smallest,
    catalogue A §0 item 8), and run k-means on the rows of ``U``.
    ``laplacian="unnormalized"`` is the notes' ``L = D − W``, the relaxation
    of RatioCut; ``"rw"`` (Shi and Malik, the eigenvectors of
    ``L_rw = D^{-1} L``, what scikit-learn computes) relaxes the normalised
    cut; ``"sym"`` (Ng, Jordan and Weiss) uses the eigenvectors of
    ``L_sym = D^{-1/2} L D^{-1/2}`` with rows scaled to unit length.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k``.
    affinity : str or callable, default="rbf"
        How ``W`` is built. A kernel name of
        :func:`skml.metrics.pairwise.pairwise_kernels` (``"rbf"``,
        ``"laplacian"``, ``"chi2"``, ``"cosine"``, ...; the kernel must be
        non-negative on the data),
        ``"nearest_neighbors"`` (``W = (C + C^T) / 2`` with ``C`` the
        connectivity of each sample's ``n_neighbors`` nearest samples, itself
        included), ``"precomputed"`` (X is ``W``, dense or sparse),
        ``"precomputed_nearest_neighbors"`` (X is a dense distance matrix;
        ``W`` is its kNN connectivity, symmetrised), or a callable
        ``affinity(x, z, **kernel_params)``.
    gamma : float, default=1.0
        Kernel coefficient of ``"rbf"``, ``"laplacian"``, ``"poly"`` and
        ``"sigmoid"``. The notes' ``exp(−d²/σ²)`` is ``gamma = 1/σ²``. It is
        absolute: ``fit`` refuses an affinity that overflowed, or an exact rbf
        or laplacian one that is 0 between all distinct samples, with a
        ``ValueError`` that says so.
    n_neighbors : int, default=10
        Neighbours per sample for the nearest-neighbour graphs (at most
        ``n_samples``).
    laplacian : {"rw", "sym", "unnormalized"}, default="rw"
        Which Laplacian's eigenvectors are clustered (see above).
    eigen_solver : {"auto", "arpack", "lobpcg", "dense"}, default="auto"
        ``"arpack"``: Lanczos (``scipy.sparse.linalg.eigsh``,
        ``which="SA"``). ``"lobpcg"``: ``scipy.sparse.linalg.lobpcg``.
        ``"dense"``: LAPACK ``eigh``. ``"auto"``: dense up to 500 nodes (or
        when ``n_components`` is a fifth of them), else ARPACK.
    n_components : int, default=None
        Number of eigenvectors; ``None`` means ``n_clusters``.
    eigen_tol : float or "auto", default="auto"
        Eigensolver tolerance; ``"auto"`` is 0 (machine precision) for ARPACK
        and lobpcg's own default.
    assign_labels : {"kmeans", "discretize", "cluster_qr"}, default="kmeans"
        How the embedding's rows become labels. "kmeans": k-means
        (:class:`KMeans`, k-means++ seeding, ``n_init`` restarts).
        "discretize": Yu and Shi's discretisation (the partition matrix
        nearest to a rotation of the row-normalised embedding, by
        alternating SVDs; random start row from ``random_state``).
        "cluster_qr": Damle, Minden and Ying's column-pivoted QR of the
        eigenvectors (deterministic, no iterations). The last two use the
        first ``n_clusters`` eigenvectors, one cluster per vector, so they
        need ``n_components >= n_clusters``.
    n_init : int, default=10
        k-means restarts.
    random_state : int, RandomState instance or None, default=None
        Seeds the eigensolver's start vector and k-means.
    degree : float, default=3
        Degree of the ``"poly"`` kernel.
    coef0 : float, default=1
        Constant of the ``"poly"`` and ``"sigmoid"`` kernels.
    kernel_params : dict, default=None
        Further kernel parameters (e.g. of a callable affinity).
    n_jobs : int, default=None
        Threads of the kernel matrix and of the neighbour search.
    verbose : bool, default=False
        Print the label assignment method (and k-means progress).
    approximation : {"exact", "nystroem"}, default="exact"
        For a kernel affinity. "exact": the ``n × n`` matrix ``W`` (refused
        with a ``ValueError`` before allocation when it cannot fit in the
        available memory). "nystroem": the Nyström graph
        ``W̃ = C A^+ C^T = Φ Φ^T`` of ``m = n_landmarks`` landmark samples
        ``L`` drawn uniformly (``C = W(X, L)``, ``A = W(L, L)``), never
        formed: the Laplacian is applied through ``Φ`` (O(n m) memory and
        time per product; Fowlkes et al., 2004). Not with the graph
        affinities (``"nearest_neighbors"`` is already sparse).
    n_landmarks : int, default=None
        Number ``m`` of landmarks of "nystroem"; ``None`` means
        ``min(500, n_samples)``. With ``m = n_samples`` and a positive
        definite kernel, ``W̃ = W``. Ignored by "exact".

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample.
    affinity_matrix_ : {ndarray, scipy.sparse.csr_matrix} of shape \
            (n_samples, n_samples)
        The graph ``W`` (its diagonal is ignored by the Laplacian). Not set
        with ``approximation="nystroem"``, which never forms it.
    landmark_indices_ : ndarray of shape (n_landmarks,)
        Samples used as Nyström landmarks (only with
        ``approximation="nystroem"``).
    embedding_ : ndarray of shape (n_samples, n_components)
        The rows clustered by k-means (``U``, scaled as the chosen Laplacian
        requires).
    eigenvalues_ : ndarray of shape (n_components,)
        The smallest eigenvalues, increasing, of ``L`` (unnormalised) or of
        ``L_sym`` (which ``L_rw`` shares).
    <fitted feature attributes>

    See Also
    --------
    graph_laplacian : The three Laplacians.
    KMeans : The last step.
    sklearn.cluster.SpectralClustering : The scikit-learn counterpart.

    Notes
    -----
    Default Laplacian: ``"rw"``, not the notes' unnormalised one, for three
    reasons. (1) von Luxburg's tutorial recommends it: the normalised cut
    balances cluster *volumes*, and unnormalised spectral clustering can be
    inconsistent (its eigenvectors may localise on low-degree points when the
    degrees vary; von Luxburg, Belkin and Bousquet, 2008). (2) It is what
    scikit-learn computes, so the defaults agree (same labels on iris from the
    same seed). (3) Its spectrum lies in [0, 2] whatever the weights, so
    Lanczos converges fast; ``L = D − W`` has a spread up to ``2 max D_ii``.
    ``laplacian="unnormalized"`` is the notes' algorithm.

    Cost: O(n² d) time and O(n²) memory (``W`` and its Laplacian: two
    ``n × n`` matrices, 26.8 GiB each at 60 000 samples) for a dense kernel
    graph (O(n k log n) with the KD-tree for ``"nearest_neighbors"``), then
    Lanczos at O(nnz(W)) per product, and k-means on ``n × k``. With
    ``approximation="nystroem"``: O(n m d + m³) time and O(n m) memory for
    ``Φ``, Lanczos at O(n m) per product, the same k-means; its agreement
    with the exact partition is measured in ``benchmarks/kernel_memory.py``
    (``benchmarks/results/kernel_memory.md``). ARPACK works on ``L`` itself (``which="SA"``)
    instead of scikit-learn's shift-invert mode, which needs an LU
    factorisation of the Laplacian (O(n³) when the graph is dense). The
    null space is known (one indicator vector per connected component,
    found in O(nnz)), so the iterative solvers look only for the other
    eigenvectors (Lanczos alone can miss a copy of the repeated eigenvalue 0
    of a disconnected graph). The start vector ``v0`` is drawn
    ``uniform(−1, 1)`` from ``random_state`` whatever the solver, so k-means
    gets the same seeds with every solver (and the same as scikit-learn's).

    References
    ----------
    U. von Luxburg, "A tutorial on spectral clustering", Statistics and
    Computing 17(4), 2007.
    J. Shi and J. Malik, "Normalized cuts and image segmentation", IEEE
    TPAMI 22(8), 2000.
    A. Ng, M. Jordan and Y. Weiss, "On spectral clustering: analysis and an
    algorithm", NIPS 2001.
    C. Fowlkes, S. Belongie, F. Chung and J. Malik, "Spectral grouping using
    the Nyström method", IEEE TPAMI 26(2), 2004.
    S. X. Yu and J. Shi, "Multiclass spectral clustering", ICCV 2003.
    A. Damle, V. Minden and L. Ying, "Simple, direct and efficient multi-way
    spectral clustering", Information and Inference 8(1), 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import SpectralClustering
    >>> X = np.array([[1, 1], [2, 1], [1, 0], [4, 7], [3, 5], [3, 6]])
    >>> sc = SpectralClustering(n_clusters=2, random_state=0).fit(X)
    >>> sc.labels_
    array([0, 0, 0, 1, 1, 1], dtype=int32)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "affinity": [
            Options(set(PAIRWISE_KERNEL_FUNCTIONS) | _GRAPH_AFFINITIES), callable
        ],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "laplacian": [Options({"unnormalized", "sym", "rw"})],
        "eigen_solver": [Options({"auto", "arpack", "lobpcg", "dense"})],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "eigen_tol": [Interval(Real, 0, None, closed="left"), Options({"auto"})],
        "assign_labels": [Options({"kmeans", "discretize", "cluster_qr"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "kernel_params": [dict, None],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "approximation": [Options({"exact", "nystroem"})],
        "n_landmarks": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        affinity="rbf",
        gamma=1.0,
        n_neighbors=10,
        laplacian="rw",
        eigen_solver="auto",
        n_components=None,
        eigen_tol="auto",
        assign_labels="kmeans",
        n_init=10,
        random_state=None,
        degree=3,
        coef0=1,
        kernel_params=None,
        n_jobs=None,
        verbose=False,
        approximation="exact",
        n_landmarks=None,
    ):
        self.n_clusters = n_clusters
        self.affinity = affinity
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.laplacian = laplacian
        self.eigen_solver = eigen_solver
        self.n_components = n_components
        self.eigen_tol = eigen_tol
        self.assign_labels = assign_labels
        self.n_init = n_init
        self.random_state = random_state
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.approximation = approximation
        self.n_landmarks = n_landmarks

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.affinity in (
            "precomputed", "precomputed_nearest_neighbors"
        )
        return tags

    def _knn_graph(self, X, metric):
        if sp.issparse(X):
            if metric == "precomputed":
                # A neighbourhood graph: only its stored distances are
                # candidates (a missing entry is no edge, not distance 0); a
                # row storing fewer than n_neighbors is refused by the search.
                X = X.tocsr()
            else:
                # skml's neighbour search on features is dense-only.
                X = X.toarray()
        k = min(self.n_neighbors, X.shape[0])
        nn = NearestNeighbors(n_neighbors=k, metric=metric, n_jobs=self.n_jobs).fit(X)
        # X passed explicitly: each sample counts itself among its neighbours,
        # as scikit-learn's kneighbors_graph(include_self=True).
        C = nn.kneighbors_graph(X, mode="connectivity")
        return (0.5 * (C + C.T)).tocsr()

    def _kernel(self, X, Y=None):
        affinity = self.affinity
        params = dict(self.kernel_params or {})
        if not callable(affinity):
            params.update(gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        return pairwise_kernels(X, Y, metric=affinity,
                                filter_params=not callable(affinity),
                                n_jobs=self.n_jobs, **params)

    def _check_fits(self, n, k, copies):
        """Refuse, before allocating, the dense matrices that cannot fit."""
        if _resolve_solver(self.eigen_solver, n, k) == "dense":
            copies += 1  # LAPACK's eigh works on a copy
        check_dense_fits(
            n, copies, "SpectralClustering", "affinity matrix",
            "Use approximation='nystroem' with n_landmarks=m (the Laplacian "
            "applied through n_samples x m Nystroem features), or "
            "affinity='nearest_neighbors' (a sparse graph, O(n_samples x "
            "n_neighbors) memory), or fit on a subsample.",
        )

    def _affinity(self, X, k):
        affinity = self.affinity
        n = X.shape[0]
        if affinity == "nearest_neighbors":
            return self._knn_graph(X, "euclidean"), False
        if affinity == "precomputed_nearest_neighbors":
            return self._knn_graph(X, "precomputed"), False
        if affinity == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "affinity='precomputed' expects X to be a square affinity matrix; "
                    f"got shape {X.shape}."
                )
            if not sp.issparse(X):
                self._check_fits(n, k, 1)  # the Laplacian
            return X, True
        # W and its Laplacian; a callable's W is also checked for symmetry
        # (|W - W^T|: two more n x n temporaries, before the Laplacian).
        self._check_fits(n, k, 3 if callable(affinity) else 2)
        W = self._kernel(X)
        self._check_kernel_values(W, X)
        return W, callable(affinity)

    def _check_kernel_values(self, W, X, square=True):
        """Say that the kernel overflowed, not that "the input affinity" has NaN.

        The rbf affinity at the fixed ``gamma=1.0`` overflows at ``X * 1e300``
        although the user's X is finite (NaN, or, where the distances are
        computed scale-safely, exactly 0 between every two distinct samples:
        a graph of isolated nodes); both are refused with what to do (the
        latter only on the exact matrix, whose diagonal is known). A
        matrix that is merely constant (at ``X * 1e-300`` every weight is 1)
        is a valid complete graph, clustered as scikit-learn does.
        """
        exp_kernel = self.affinity in ("rbf", "laplacian")
        param = (f"affinity={self.affinity!r}" if not exp_kernel
                 else f"gamma={self.gamma:.3g}")
        check_kernel_values(W, X, "SpectralClustering", "affinity matrix", param,
                            constant=False, isolated=exp_kernel and square)

    def _nystroem_embedding(self, X, k, rng):
        """Laplacian eigenvectors of the Nyström graph ``Φ Φ^T``."""
        if not (callable(self.affinity) or self.affinity in PAIRWISE_KERNEL_FUNCTIONS):
            raise ValueError(
                "approximation='nystroem' approximates a kernel affinity (e.g. "
                f"'rbf'); affinity={self.affinity!r} is not one. The nearest-"
                "neighbour graphs are sparse already."
            )
        n = X.shape[0]
        m = min(n, _DEFAULT_LANDMARKS if self.n_landmarks is None
                else self.n_landmarks)
        if m < k:
            raise ValueError(f"n_landmarks={m} should be >= n_components={k}.")
        idx = nystroem_landmarks(n, m, np.ones(n), rng)
        self.landmark_indices_ = idx
        if sp.issparse(X):
            X = X.tocsr()  # rows by index
        X_landmarks = X[idx]

        def to_landmarks(rows):
            C = np.asarray(self._kernel(X[rows], X_landmarks), dtype=np.float64)
            self._check_kernel_values(C, X, square=False)
            if C.size and C.min() < 0:
                raise ValueError(
                    f"The affinity matrix has negative weights (min {C.min():.3g}); "
                    "a graph Laplacian needs non-negative weights W_ij >= 0."
                )
            return C

        normaliser = nystroem_normaliser(to_landmarks(idx))
        Phi = nystroem_features(to_landmarks, n, normaliser, m)
        v0 = rng.uniform(-1, 1, n)
        kind = "unnormalized" if self.laplacian == "unnormalized" else "sym"
        if _resolve_solver(self.eigen_solver, n, k) == "dense":
            self._check_fits(n, k, 1)  # the Laplacian, formed densely
        L, d, isolated = _nystroem_laplacian(Phi, kind)
        # The null space: one vector on the connected nodes (a dense graph),
        # one per isolated node.
        comp = np.zeros(n, dtype=np.int64)
        lone = np.flatnonzero(isolated)
        comp[lone] = np.arange(lone.size) + (1 if lone.size < n else 0)
        if kind == "unnormalized":
            weight, shift = np.ones(n), 2.0 * d.max() + 1.0
        else:
            weight, shift = np.sqrt(np.where(isolated, 1.0, d)), 3.0
        Q = np.zeros((n, comp.max() + 1))
        Q[np.arange(n), comp] = weight
        Q /= np.linalg.norm(Q, axis=0)
        w, U = _smallest_eigenpairs(L, k, self.eigen_solver, Q, shift, v0, rng,
                                    self.eigen_tol)
        return w, U, np.where(d == 0, 1.0, d)

    def _exact_embedding(self, X, k, rng):
        """Laplacian eigenvectors of the graph ``W`` itself."""
        n = X.shape[0]
        W, check_symmetric = self._affinity(X, k)
        W = _check_adjacency(W, check_symmetric=False, name="affinity")
        if check_symmetric:
            W = _symmetrized(W)
        self.affinity_matrix_ = W

        # scikit-learn's draw: the same k-means seeds whatever the solver.
        v0 = rng.uniform(-1, 1, n)
        kind = "unnormalized" if self.laplacian == "unnormalized" else "sym"
        L, d = _laplacian(W, kind)
        root_d = np.sqrt(np.where(d == 0, 1.0, d))
        # A dense graph without a zero weight is connected: no graph search.
        connected = not sp.issparse(W) and W.min() > 0
        if kind == "unnormalized":
            Q = _null_basis(W, np.ones(n), connected)
            shift = 2.0 * d.max() + 1.0  # above the spectrum (Gershgorin)
        else:
            Q = _null_basis(W, root_d, connected)
            shift = 3.0  # the spectrum of L_sym lies in [0, 2]
        if Q.shape[1] > 1:
            warnings.warn(
                f"The affinity graph is not fully connected ({Q.shape[1]} connected "
                "components): the first eigenvectors are the components' "
                "indicators, so the clusters follow the components; the spectral "
                "embedding may not separate samples within a component as expected.",
                UserWarning,
            )
        w, U = _smallest_eigenpairs(
            L, k, self.eigen_solver, Q, shift, v0, rng, self.eigen_tol
        )
        return w, U, root_d

    @fill_doc(y=Y_IGNORED, returns=SELF_RETURNS)
    def fit(self, X, y=None):
        """Cluster X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples)
            Samples, or the affinity matrix (``affinity="precomputed"``), or
            distances (``affinity="precomputed_nearest_neighbors"``).
        <y>

        <returns>
        """
        validate_params(self)
        X = validate_data(self, X, accept_sparse=["csr", "csc", "coo"],
                          dtype=np.float64, ensure_min_samples=2)
        n = X.shape[0]
        if n < self.n_clusters:
            raise ValueError(
                f"n_samples={n} should be >= n_clusters={self.n_clusters}."
            )
        k = self.n_clusters if self.n_components is None else self.n_components
        if k > n:
            raise ValueError(f"n_components={k} must be <= n_samples={n}.")
        if k < self.n_clusters and self.assign_labels != "kmeans":
            raise ValueError(
                f"assign_labels={self.assign_labels!r} makes one cluster per "
                f"eigenvector: n_components={k} must be >= n_clusters="
                f"{self.n_clusters} (or use assign_labels='kmeans')."
            )
        rng = check_random_state(self.random_state)
        for name in ("affinity_matrix_", "landmark_indices_"):
            self.__dict__.pop(name, None)  # from an earlier fit
        if self.approximation == "nystroem":
            w, U, d = self._nystroem_embedding(X, k, rng)
            root_d = np.sqrt(d)
        else:
            w, U, root_d = self._exact_embedding(X, k, rng)
        if self.assign_labels == "cluster_qr":
            # The orthonormal eigenvectors, before the Laplacian's row scaling
            # (the pivoted QR compares rows by their norms).
            V = U.copy()
        if self.laplacian == "rw":
            # L_sym v = λ v  <=>  L_rw (D^{-1/2} v) = λ (D^{-1/2} v).
            U /= root_d[:, np.newaxis]
        elif self.laplacian == "sym":
            norms = np.linalg.norm(U, axis=1)
            U /= np.where(norms > 0, norms, 1.0)[:, np.newaxis]
        self.eigenvalues_ = w
        self.embedding_ = U
        if self.verbose:
            print(f"Computing label assignment using {self.assign_labels}")
        if self.assign_labels == "kmeans":
            self.labels_ = KMeans(self.n_clusters, n_init=self.n_init,
                                  random_state=rng, verbose=self.verbose).fit(U).labels_
        elif self.assign_labels == "discretize":
            # One cluster per column: the first n_clusters eigenvectors.
            self.labels_ = _discretize(U[:, :self.n_clusters], rng)
        else:
            self.labels_ = _cluster_qr(V[:, :self.n_clusters])
        return self

    @fill_doc(y=Y_IGNORED, returns=CLUSTER_LABELS_RETURNS)
    def fit_predict(self, X, y=None):
        """Cluster X and return the labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) or \
                (n_samples, n_samples)
            As in :meth:`fit`.
        <y>

        <returns>
        """
        return self.fit(X).labels_
