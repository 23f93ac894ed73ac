"""numba kernels of SNE and t-SNE: the perplexity search, the sparse attractive
forces, and the scatter to / gather from the interpolation grid of the FFT
method (notes A §9).

All kernels are sequential loops over points that numpy cannot vectorise
without (n, k, p) temporaries; they write into arrays the caller owns, so the
optimiser allocates nothing per iteration.
"""

import numpy as np
from numba import njit

_EPS = np.finfo(np.float64).eps


@njit(cache=True, nogil=True)
def binary_search_perplexity(sqdist, desired_perplexity, tol, max_iter, P, beta):
    """Row-wise bisection on the precision ``beta_i = 1 / (2 sigma_i^2)``.

    ``sqdist[i]`` holds point i's distances to its candidates (itself
    excluded); row i of ``P`` receives ``p_{j|i}``, which sums to 1 and has
    entropy ``log(perplexity)`` (nats, as scikit-learn; the notes' base-2
    entropy against ``log2(perplexity)`` is the same condition) within ``tol``.
    """
    n, k = sqdist.shape
    desired_entropy = np.log(desired_perplexity)
    for i in range(n):
        lo = -np.inf
        hi = np.inf
        b = 1.0
        for _ in range(max_iter):
            # Shift by the nearest distance: exp underflows otherwise for
            # far-apart data and large beta (the row's scale cancels in P).
            dmin = np.inf
            for j in range(k):
                if sqdist[i, j] < dmin:
                    dmin = sqdist[i, j]
            s = 0.0
            for j in range(k):
                v = np.exp(-(sqdist[i, j] - dmin) * b)
                P[i, j] = v
                s += v
            if s == 0.0:
                s = _EPS
            sdp = 0.0
            for j in range(k):
                P[i, j] /= s
                sdp += (sqdist[i, j] - dmin) * P[i, j]
            entropy = np.log(s) + b * sdp
            diff = entropy - desired_entropy
            if np.abs(diff) <= tol:
                break
            if diff > 0.0:  # too flat: sharpen
                lo = b
                b = b * 2.0 if hi == np.inf else (b + hi) / 2.0
            else:
                hi = b
                b = b / 2.0 if lo == -np.inf else (b + lo) / 2.0
        beta[i] = b


@njit(cache=True, nogil=True)
def attractive_forces(Y, indptr, indices, pval, compute_error, out):
    """``out_i = sum_j p_ij w_ij (y_i - y_j)``, ``w_ij = 1/(1+|y_i-y_j|^2)``.

    With ``compute_error``, returns ``sum_ij p_ij log(1 + |y_i - y_j|^2)``,
    the part of the KL divergence over the attractive pairs (0.0 otherwise:
    the logarithm costs more than the rest of the loop).
    """
    n, d = Y.shape
    logsum = 0.0
    if d == 2 and not compute_error:
        # The common case, with the sums in registers: twice as fast.
        for i in range(n):
            y0 = Y[i, 0]
            y1 = Y[i, 1]
            f0 = 0.0
            f1 = 0.0
            for ptr in range(indptr[i], indptr[i + 1]):
                j = indices[ptr]
                d0 = y0 - Y[j, 0]
                d1 = y1 - Y[j, 1]
                pw = pval[ptr] / (1.0 + d0 * d0 + d1 * d1)
                f0 += pw * d0
                f1 += pw * d1
            out[i, 0] = f0
            out[i, 1] = f1
        return 0.0
    for i in range(n):
        for c in range(d):
            out[i, c] = 0.0
        for ptr in range(indptr[i], indptr[i + 1]):
            j = indices[ptr]
            dist = 0.0
            for c in range(d):
                diff = Y[i, c] - Y[j, c]
                dist += diff * diff
            w = 1.0 / (1.0 + dist)
            pw = pval[ptr] * w
            for c in range(d):
                out[i, c] += pw * (Y[i, c] - Y[j, c])
            if compute_error:
                logsum += pval[ptr] * np.log1p(dist)
    return logsum


@njit(cache=True, nogil=True)
def interpolation_weights(Y, coord_min, box_width, n_boxes, nodes, denom, box, weights):
    """Each point's box per dimension and its Lagrange weights on that box's nodes.

    ``nodes`` are the ``p`` equispaced interpolation nodes of the unit box,
    ``denom[k] = prod_{m != k} (t_k - t_m)``; ``weights[i, c, k]`` is
    ``L_k`` at point i's relative position in its box along dimension c.
    """
    n, d = Y.shape
    p = nodes.shape[0]
    for i in range(n):
        for c in range(d):
            rel = (Y[i, c] - coord_min) / box_width
            b = int(rel)
            if b >= n_boxes:  # the maximum lies on the last box's right edge
                b = n_boxes - 1
            if b < 0:
                b = 0
            box[i, c] = b
            x = rel - b
            for k in range(p):
                num = 1.0
                for m in range(p):
                    if m != k:
                        num *= x - nodes[m]
                weights[i, c, k] = num / denom[k]


@njit(cache=True, nogil=True)
def scatter_2d(box, weights, charges, grid):
    """Spread each point's charges onto its box's p x p nodes (``grid`` zeroed here)."""
    n, n_charges = charges.shape
    p = weights.shape[2]
    grid[:] = 0.0
    for i in range(n):
        r0 = box[i, 0] * p
        c0 = box[i, 1] * p
        for a in range(p):
            wa = weights[i, 0, a]
            for b in range(p):
                wab = wa * weights[i, 1, b]
                for q in range(n_charges):
                    grid[q, r0 + a, c0 + b] += wab * charges[i, q]


@njit(cache=True, nogil=True)
def gather_2d(box, weights, potentials, out):
    """Interpolate the node potentials back to each point."""
    n, n_charges = out.shape
    p = weights.shape[2]
    for i in range(n):
        r0 = box[i, 0] * p
        c0 = box[i, 1] * p
        for q in range(n_charges):
            out[i, q] = 0.0
        for a in range(p):
            wa = weights[i, 0, a]
            for b in range(p):
                wab = wa * weights[i, 1, b]
                for q in range(n_charges):
                    out[i, q] += wab * potentials[q, r0 + a, c0 + b]


@njit(cache=True, nogil=True)
def scatter_1d(box, weights, charges, grid):
    n, n_charges = charges.shape
    p = weights.shape[2]
    grid[:] = 0.0
    for i in range(n):
        r0 = box[i, 0] * p
        for a in range(p):
            for q in range(n_charges):
                grid[q, r0 + a] += weights[i, 0, a] * charges[i, q]


@njit(cache=True, nogil=True)
def gather_1d(box, weights, potentials, out):
    n, n_charges = out.shape
    p = weights.shape[2]
    for i in range(n):
        r0 = box[i, 0] * p
        for q in range(n_charges):
            s = 0.0
            for a in range(p):
                s += weights[i, 0, a] * potentials[q, r0 + a]
            out[i, q] = s


@njit(cache=True, nogil=True)
def gains_update(update, grad, gains, momentum, learning_rate, min_gain, Y):
    """One step of gradient descent with momentum and delta-bar-delta gains.

    As van der Maaten's and scikit-learn's optimiser: a coordinate's gain
    grows by 0.2 while the gradient keeps pushing against the last update's
    direction, and shrinks by 0.8 when it agrees. Returns the squared norm
    of the gain-scaled gradient (scikit-learn's convergence test).
    """
    n, d = Y.shape
    gnorm = 0.0
    for i in range(n):
        for c in range(d):
            g = grad[i, c]
            if update[i, c] * g < 0.0:
                gains[i, c] += 0.2
            else:
                gains[i, c] *= 0.8
            if gains[i, c] < min_gain:
                gains[i, c] = min_gain
            g *= gains[i, c]
            gnorm += g * g
            update[i, c] = momentum * update[i, c] - learning_rate * g
            Y[i, c] += update[i, c]
    return gnorm


@njit(cache=True, nogil=True)
def conditional_weights(indptr, indices, pval, Zi, a):
    """For the symmetrised-conditional Q: ``a_i = sum_j p_ij / s_ij`` with
    ``s_ij = 1/Z_i + 1/Z_j``; returns ``sum_ij p_ij log s_ij``."""
    n = Zi.shape[0]
    plogs = 0.0
    for i in range(n):
        acc = 0.0
        for ptr in range(indptr[i], indptr[i + 1]):
            s = 1.0 / Zi[i] + 1.0 / Zi[indices[ptr]]
            acc += pval[ptr] / s
            plogs += pval[ptr] * np.log(s)
        a[i] = acc
    return plogs



@njit(cache=True, nogil=True)
def direct_repulsion(Y, b, rep, zrow):
    """The repulsive sums pair by pair: O(n^2) time, O(1) extra memory.

    ``rep_i = sum_{j != i} b_j w_ij^2 (y_i - y_j)`` and
    ``zrow_i = sum_{j != i} w_ij``, with ``w_ij = 1/(1+|y_i-y_j|^2)``. Each
    pair is visited once and credited to both points (the kernel is
    symmetric); the differences are taken directly, so the sums keep their
    relative accuracy however far the points are spread.
    """
    n, d = Y.shape
    rep[:] = 0.0
    zrow[:] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d2 = 0.0
            for c in range(d):
                t = Y[i, c] - Y[j, c]
                d2 += t * t
            w = 1.0 / (1.0 + d2)
            k = w * w
            zrow[i] += w
            zrow[j] += w
            ki = k * b[j]
            kj = k * b[i]
            for c in range(d):
                t = Y[i, c] - Y[j, c]
                rep[i, c] += ki * t
                rep[j, c] -= kj * t
