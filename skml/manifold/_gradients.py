"""KL objectives and gradients of t-SNE and SNE (notes A §9.2-9.3).

Each objective fills ``grad`` (shape of Y) and returns the KL divergence
(when asked; NaN otherwise, so the fast method skips the O(nnz) log terms on
most iterations). ``exaggeration`` multiplies P in the attractive term only,
as scikit-learn and van der Maaten's early exaggeration do.

t-SNE, joint normalisation (notes S2, the standard algorithm), with
``w_ij = 1 / (1 + |y_i - y_j|^2)``, ``Z = sum_{k != l} w_kl``,
``q_ij = w_ij / Z``::

    dC/dy_i = 4 sum_j (p_ij - q_ij) w_ij (y_i - y_j)

t-SNE, symmetrised conditional normalisation (notes S0),
``q_ij = (q_{j|i} + q_{i|j}) / (2n)`` with ``q_{j|i} = w_ij / Z_i``,
``Z_i = sum_{k != i} w_ik``: with ``s_ij = 1/Z_i + 1/Z_j``,
``a_k = sum_j p_kj / s_kj`` and ``b_k = a_k / Z_k^2``::

    dC/dy_i = 4 sum_j p_ij w_ij (y_i - y_j) - 4 sum_j (b_i + b_j) w_ij^2 (y_i - y_j)

SNE (notes S0/S2 §9.2), Gaussian ``q_{j|i} ∝ exp(-|y_i - y_j|^2)``::

    dC/dy_i = 2 sum_j (p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}) (y_i - y_j)
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._barnes_hut_kernels import build_tree, repulsive_forces
from ._tsne_kernels import attractive_forces, conditional_weights, direct_repulsion

MACHINE_EPSILON = np.finfo(np.float64).eps


def _sqdist(Y):
    sq = np.einsum("ij,ij->i", Y, Y)
    D = -2.0 * (Y @ Y.T)
    D += sq[:, None]
    D += sq[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def _laplacian_product(A, Y):
    """``sum_j A_ij (y_i - y_j)`` for every i."""
    return A.sum(axis=1)[:, None] * Y - A @ Y


def _kl(P, Q):
    mask = P > 0
    q = np.maximum(Q[mask], MACHINE_EPSILON)
    return float(np.sum(P[mask] * np.log(P[mask] / q)))


class ExactObjective:
    """Dense t-SNE objective (method="exact"); ``P`` is the (n, n) joint matrix.

    The n x n work arrays are allocated once: a fresh n x n temporary per
    iteration costs more in page faults than the arithmetic on it.
    """

    def __init__(self, P, conditional=False):
        self.P = P
        self.conditional = conditional
        n = P.shape[0]
        self.W = np.empty((n, n))
        self.Q = np.empty((n, n))
        self.M = np.empty((n, n))

    def __call__(self, Y, exaggeration, grad, compute_error=True):
        P, W, Q, M = self.P, self.W, self.Q, self.M
        n = Y.shape[0]
        sq = np.einsum("ij,ij->i", Y, Y)
        np.matmul(Y, Y.T, out=W)
        W *= -2.0
        W += sq[:, None]
        W += sq[None, :]
        np.maximum(W, 0.0, out=W)
        W += 1.0
        np.divide(1.0, W, out=W)
        np.fill_diagonal(W, 0.0)
        if not self.conditional:
            # One n x n product: sum_j (a p_ij - q_ij) w_ij (y_i - y_j).
            np.multiply(W, 1.0 / W.sum(), out=Q)
            np.multiply(P, exaggeration, out=M)
            M -= Q
            M *= W
            grad[:] = 4.0 * _laplacian_product(M, Y)
        else:
            np.multiply(P, W, out=M)
            attr = _laplacian_product(M, Y)
            Zi = W.sum(axis=1)
            S = 1.0 / Zi[:, None] + 1.0 / Zi[None, :]
            np.multiply(W, S, out=Q)
            Q /= 2.0 * n
            b = (P / S).sum(axis=1) / Zi**2
            np.add(b[:, None], b[None, :], out=M)
            M *= W
            M *= W
            grad[:] = 4.0 * (exaggeration * attr - _laplacian_product(M, Y))
        if not compute_error:
            return np.nan
        return _kl(exaggeration * P, Q)


def tsne_exact(Y, P, exaggeration, grad, compute_error=True, conditional=False):
    """One evaluation of :class:`ExactObjective` (for tests and one-off use)."""
    return ExactObjective(P, conditional)(Y, exaggeration, grad, compute_error)


class FFTObjective:
    """t-SNE objective with sparse P and interpolated repulsion (method="fft").

    On the iterations where the grid would cost more than the O(n^2) sums
    (``grid.direct`` after ``grid.prepare``: few points, or an embedding
    spread over many intervals), the repulsion and Z are summed pair by pair
    instead, which is the exact gradient.
    """

    def __init__(self, P, grid, conditional=False):
        self.indptr = P.indptr.astype(np.int64)
        self.indices = P.indices.astype(np.int64)
        self.pval = P.data.astype(np.float64)
        self.plogp = float(np.sum(
            self.pval * np.log(np.maximum(self.pval, MACHINE_EPSILON))))
        self.grid = grid
        self.conditional = conditional
        n, d = grid.box.shape
        # Charges 1 and y; Z comes from the same grid (Parseval's identity for
        # the joint form, the unsquared kernel against the ones per point for
        # the conditional one).
        self.charges = np.empty((n, d + 1))
        self.charges[:, 0] = 1.0
        self.phi = np.empty((n, d + 1))
        self.Zi = np.empty(n)
        self.attr = np.empty((n, d))
        self.rep = np.empty((n, d))
        if conditional:
            self.charges2 = np.empty((n, d + 1))
            self.psi = np.empty((n, d + 1))
            self.a = np.empty(n)
        self.ones = np.ones(n)
        self.rep_b = np.empty((n, d))
        self.z_scratch = np.empty(n)

    def __call__(self, Y, exaggeration, grad, compute_error=True):
        n, d = Y.shape
        ch, phi, rep = self.charges, self.phi, self.rep
        # Centred coordinates: the forces and Z are translation invariant,
        # and small charges keep the float32 FFTs accurate.
        Yc = ch[:, 1:d + 1]
        np.subtract(Y, Y.mean(axis=0), out=Yc)
        self.grid.prepare(Y)
        direct = self.grid.direct
        Zi = self.Zi
        if direct:
            direct_repulsion(Y, self.ones, rep, Zi)  # sum_j w_ij^2 (y_i - y_j)
            if not self.conditional:
                Z = max(float(np.sum(Zi)), MACHINE_EPSILON)
            else:
                np.maximum(Zi, MACHINE_EPSILON, out=Zi)
        else:
            if not self.conditional:
                _, total = self.grid.potentials(ch, phi, total_cauchy=True)
                Z = max(total - n, MACHINE_EPSILON)  # the j = i terms are 1
            else:
                self.grid.potentials(ch, phi, cauchy_ones=Zi)
                Zi -= 1.0  # the j = i term
                np.maximum(Zi, MACHINE_EPSILON, out=Zi)
            np.multiply(Yc, phi[:, :1], out=rep)
            rep -= phi[:, 1:d + 1]  # sum_j w_ij^2 (y_i - y_j)
        logw = attractive_forces(Y, self.indptr, self.indices, self.pval, compute_error,
                                 self.attr)
        np.multiply(self.attr, 4.0 * exaggeration, out=grad)
        if not self.conditional:
            rep *= 4.0 / Z
            grad -= rep
            log_norm = np.log(Z)
        else:
            plogs = conditional_weights(self.indptr, self.indices, self.pval, Zi,
                                        self.a)
            b = self.a / Zi**2
            rep *= b[:, None]
            if direct:  # sum_j b_j w_ij^2 (y_i - y_j)
                direct_repulsion(Y, b, self.rep_b, self.z_scratch)
                rep += self.rep_b
            else:
                ch2 = self.charges2
                ch2[:, 0] = b
                np.multiply(Yc, b[:, None], out=ch2[:, 1:])
                self.grid.potentials(ch2, self.psi)
                rep += Yc * self.psi[:, :1] - self.psi[:, 1:]
            rep *= 4.0
            grad -= rep
            # -sum p log s_ij + log(2n), with sum p = 1
            log_norm = -plogs + np.log(2.0 * n)
        if not compute_error:
            return np.nan
        # KL(aP || Q) = a (sum p log p + log a + sum p log(1 + d^2) + log-normaliser)
        a = exaggeration
        return a * (self.plogp + np.log(a) + logw + log_norm)


def sne_exact(Y, P, exaggeration, grad, compute_error=True):
    """Dense SNE objective; ``P`` holds the conditional ``p_{j|i}`` (rows sum to 1)."""
    D = _sqdist(Y)
    np.fill_diagonal(D, np.inf)
    D -= D.min(axis=1, keepdims=True)  # row-wise shift: softmax is unchanged
    Q = np.exp(-D)
    Q /= Q.sum(axis=1, keepdims=True)
    Pe = exaggeration * P
    M = Pe - Q
    grad[:] = 2.0 * _laplacian_product(M + M.T, Y)
    if not compute_error:
        return np.nan
    return _kl(Pe, Q)


class BarnesHutObjective:
    """t-SNE objective with sparse P and Barnes-Hut repulsion (method="barnes_hut").

    The attraction over the stored ``p_ij`` is exact (the kernel of the FFT
    method); the repulsion ``sum_j w_ij^2 (y_i - y_j)`` and
    ``Z = sum_{i != j} w_ij`` are summed over a 2^d-ary tree rebuilt at every
    iteration, with cells of width ``r`` at distance ``D`` taken whole when
    ``r < angle * D`` (:mod:`._barnes_hut_kernels`). ``angle = 0`` gives the
    exact sums. Joint normalisation only (notes S2).
    """

    def __init__(self, P, angle, workers=1, leaf_size=1):
        self.indptr = P.indptr.astype(np.int64)
        self.indices = P.indices.astype(np.int64)
        self.pval = P.data.astype(np.float64)
        self.plogp = float(np.sum(
            self.pval * np.log(np.maximum(self.pval, MACHINE_EPSILON))))
        self.theta2 = float(angle) ** 2
        self.workers = max(1, int(workers))
        self.leaf_size = int(leaf_size)
        self.attr = None
        self.rep = None

    def repulsion(self, Y):
        """``(rep, Z)``: the approximate repulsive sums and normaliser."""
        n = Y.shape[0]
        if self.rep is None or self.rep.shape != Y.shape:
            self.rep = np.empty_like(Y)
            self.attr = np.empty_like(Y)
            self.z_rows = np.empty(n)
        tree = build_tree(Y, self.leaf_size)
        if self.workers == 1:
            repulsive_forces(tree, self.theta2, 0, n, self.rep, self.z_rows)
        else:
            # The kernel releases the GIL: contiguous runs of points (in tree
            # order, so each thread walks nearby cells) in threads.
            bounds = np.linspace(0, n, self.workers + 1).astype(np.int64)
            with ThreadPoolExecutor(self.workers) as pool:
                list(pool.map(
                    lambda k: repulsive_forces(tree, self.theta2, bounds[k],
                                               bounds[k + 1], self.rep, self.z_rows),
                    range(self.workers)))
        return self.rep, float(np.sum(self.z_rows))

    def __call__(self, Y, exaggeration, grad, compute_error=True):
        rep, total = self.repulsion(Y)
        Z = max(total, MACHINE_EPSILON)
        logw = attractive_forces(Y, self.indptr, self.indices, self.pval, compute_error,
                                 self.attr)
        np.multiply(self.attr, 4.0 * exaggeration, out=grad)
        grad -= rep * (4.0 / Z)
        if not compute_error:
            return np.nan
        a = exaggeration
        return a * (self.plogp + np.log(a) + logw + np.log(Z))
