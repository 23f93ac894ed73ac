"""t-SNE's repulsive forces by polynomial interpolation and FFT convolution.

The FIt-SNE approach (Linderman et al. 2019; openTSNE's "fft" gradient): the
repulsion ``sum_j w_ij^2 (y_i - y_j)`` and the normalisation
``Z = sum_{i != j} w_ij``, with the Cauchy kernel ``w_ij = 1/(1+|y_i-y_j|^2)``,
are sums of the smooth kernel ``K = w^2`` against a few charges per point:

* ``phi_0(y_i) = sum_j K(y_i, y_j)``,
* ``phi_c(y_i) = sum_j K(y_i, y_j) y_jc`` for each embedding dimension c,
* ``phi_last(y_i) = sum_j K(y_i, y_j) |y_j|^2``,

so that ``sum_j w_ij^2 (y_i - y_j) = y_i phi_0 - phi_{1..d}`` and (because
``w = w^2 (1 + |y_i|^2 - 2 y_i.y_j + |y_j|^2)``)
``sum_j w_ij = (1 + |y_i|^2) phi_0 - 2 y_i.phi_{1..d} + phi_last``.

The embedding's bounding square is cut into ``n_boxes`` intervals per
dimension with ``p`` equispaced Lagrange nodes in each; the charges are
spread to the nodes by the interpolation weights (numba), the node-to-node
kernel sums are one convolution with the kernel sampled on the equispaced
grid (a Toeplitz product, done by FFT after a circulant embedding), and the
potentials are interpolated back to the points (numba). Cost per iteration:
O(n p^d) for the scatter and gather plus O(M^d log M) for the FFTs, where
``M = n_boxes * p``, instead of O(n^2).
"""

import numpy as np
from scipy import fft as sp_fft

from ._tsne_kernels import (
    gather_1d,
    gather_2d,
    interpolation_weights,
    scatter_1d,
    scatter_2d,
)

# FIt-SNE's defaults: 3 nodes per interval, intervals of width 1 (the
# kernel's own scale), at least 50 intervals per dimension. Fewer nodes or
# wider intervals lose accuracy where points are dense (tests/manifold checks
# the forces against the exact ones).
N_INTERPOLATION_POINTS = 3
INTS_IN_INTERVAL = 1.0
MIN_NUM_INTERVALS = 50
# Beyond this many intervals per axis the intervals widen instead (a runaway
# embedding would otherwise ask for an unbounded grid).
MAX_NUM_INTERVALS = 500
# Cost of one direct pair (O(n^2) sums) in units of one FFT grid point's
# ``log2`` share of the transforms (both measured per charge, one thread):
# the direct sums are used for an iteration whose grid would cost more.
DIRECT_PAIR_COST = 2.0


def _smooth_sizes(limit=2000):
    """Integers 2^a 3^b 5^c 7^d up to ``limit``: interval counts whose grid
    (3 nodes each, doubled for the circulant embedding) FFTs quickly."""
    sizes = {1}
    for prime in (2, 3, 5, 7):
        grown = set()
        for s in sizes:
            while s <= limit:
                grown.add(s)
                s *= prime
        sizes = grown
    return np.array(sorted(sizes))


_SMOOTH = _smooth_sizes()


def n_intervals(span, min_intervals=MIN_NUM_INTERVALS,
                ints_in_interval=INTS_IN_INTERVAL):
    """FIt-SNE's interval count: one per ``ints_in_interval`` of span, at least
    ``min_intervals`` (at most ``MAX_NUM_INTERVALS``), rounded up to a
    7-smooth number."""
    wanted = min(max(min_intervals, int(np.ceil(span / ints_in_interval))),
                 max(MAX_NUM_INTERVALS, min_intervals))
    k = np.searchsorted(_SMOOTH, wanted)
    return int(_SMOOTH[k]) if k < _SMOOTH.size else wanted


class InterpolationGrid:
    """Buffers and one evaluation of the interpolated kernel sums.

    Built once per fit. :meth:`prepare` places the points on a grid that
    covers the current embedding; :meth:`potentials` returns the kernel sums
    of any charges at the points, and :meth:`total_cauchy` the double sum
    ``sum_ij w_ij`` (j = i included) from the same grid.

    Speed decisions (profiled on digits, where the FFTs dominate):

    * The grid is kept, with its kernel transforms, while the embedding stays
      inside it and fills at least ``1 / PAD`` of it: it is rebuilt with 10 %
      room each side, so the expanding embedding triggers a rebuild every
      few iterations only, and the intervals stay within 1.2 units wide.
    * The FFTs run in single precision: the interpolation error (1e-3 to
      1e-2 of the forces) dwarfs float32's 1e-7, and they run twice as fast.
    * Forward transforms skip the zero padding (the rows of the padded grid
      beyond ``m`` are zero) and inverse ones compute only the ``m`` rows
      kept, a quarter fewer 1-d transforms.
    """

    PAD = 1.2

    def __init__(self, n_samples, n_dims, *,
                 n_interpolation_points=N_INTERPOLATION_POINTS,
                 min_intervals=MIN_NUM_INTERVALS, ints_in_interval=INTS_IN_INTERVAL,
                 workers=1, allow_direct=True):
        if n_dims not in (1, 2):
            raise ValueError(
                f"method='fft' embeds in 1 or 2 dimensions, got n_components={n_dims}; "
                "use method='exact'."
            )
        p = n_interpolation_points
        self.p = p
        self.d = n_dims
        self.min_intervals = min_intervals
        self.ints_in_interval = ints_in_interval
        self.workers = workers
        self.nodes = (np.arange(p) + 0.5) / p
        diffs = self.nodes[:, None] - self.nodes[None, :]
        np.fill_diagonal(diffs, 1.0)
        self.denom = diffs.prod(axis=1)
        self.box = np.empty((n_samples, n_dims), dtype=np.intp)
        self.weights = np.empty((n_samples, n_dims, p))
        self._grids = {}
        self.n_boxes = None
        self.lo = self.hi = None
        self.rebuilds = 0
        self.allow_direct = allow_direct
        self.direct = False

    def direct_is_cheaper(self, n_boxes):
        """Whether the O(n^2) pairwise sums cost less than a grid of ``n_boxes``."""
        if not self.allow_direct:
            return False
        length = sp_fft.next_fast_len(2 * n_boxes * self.p - 1, real=True)
        cells = float(length) ** self.d
        n = self.box.shape[0]
        return DIRECT_PAIR_COST * n * n <= cells * np.log2(cells)

    def _needs_rebuild(self, lo, hi):
        if self.n_boxes is None or lo < self.lo or hi > self.hi:
            return True
        return (hi - lo) * self.PAD ** 2 < (self.hi - self.lo)

    def _plan(self, lo, hi):
        """``(lo, hi, span, n_boxes)`` of the grid that would cover ``[lo, hi]``."""
        center, half = (lo + hi) / 2.0, max(hi - lo, 1e-12) / 2.0
        span = 2.0 * half * (1.0 + (self.PAD - 1.0) / 2.0)
        n_boxes = n_intervals(span, self.min_intervals, self.ints_in_interval)
        return center - span / 2.0, center + span / 2.0, span, n_boxes

    def _build(self, lo, hi, span, n_boxes):
        self.lo, self.hi = lo, hi
        self.box_width = span / n_boxes
        m = n_boxes * self.p
        # A circulant of any length >= 2m - 1 holds the m x m Toeplitz
        # product; the next 5-smooth length keeps the FFT fast.
        length = sp_fft.next_fast_len(2 * m - 1, real=True)
        offsets = np.zeros(length)
        mask = np.zeros(length)
        k = np.arange(m)
        offsets[k] = k
        offsets[length - k[1:]] = k[1:]
        mask[k] = 1.0
        mask[length - k[1:]] = 1.0
        t2 = (offsets * (self.box_width / self.p)) ** 2
        if self.d == 2:
            r2 = 1.0 + t2[:, None] + t2[None, :]
            mask2 = mask[:, None] * mask[None, :]
            cauchy = (mask2 / r2).astype(np.float32)
            rfft = sp_fft.rfft2
        else:
            cauchy = (mask / (1.0 + t2)).astype(np.float32)
            rfft = sp_fft.rfft
        self.cauchy_hat = rfft(cauchy, workers=self.workers)
        self.kernel_hat = rfft(cauchy * cauchy, workers=self.workers)
        # Weights of the half spectrum in Parseval's sum: columns other than
        # 0 and the Nyquist one stand for two; 1 / length per transformed axis.
        wcol = np.full(length // 2 + 1, 2.0)
        wcol[0] = 1.0
        if length % 2 == 0:
            wcol[-1] = 1.0
        self.parseval = (wcol / float(length) ** self.d).astype(np.float32)
        self.n_boxes, self.m, self.length = n_boxes, m, length
        self.rebuilds += 1

    def prepare(self, Y):
        """Cover ``Y`` with the grid (rebuilt only when needed); place the points.

        When that grid would cost more than the direct O(n^2) sums (few
        points, or an embedding spread over many intervals), nothing is built
        and :attr:`direct` is set: the caller computes this iteration's sums
        pair by pair instead (:meth:`potentials` must not be called).
        """
        lo = float(Y.min())
        hi = float(Y.max())
        plan = self._plan(lo, hi) if self._needs_rebuild(lo, hi) else None
        self.direct = self.direct_is_cheaper(self.n_boxes if plan is None else plan[3])
        if self.direct:
            return
        if plan is not None:
            self._build(*plan)
        interpolation_weights(Y, self.lo, self.box_width, self.n_boxes, self.nodes,
                              self.denom, self.box, self.weights)

    def _grid(self, n_charges):
        shape = (n_charges,) + (self.m,) * self.d
        grid = self._grids.get(n_charges)
        if grid is None or grid.shape != shape:
            grid = np.empty(shape, dtype=np.float32)
            self._grids[n_charges] = grid
        return grid

    def potentials(self, charges, out, total_cauchy=False, cauchy_ones=None):
        """``out[i, q] = sum_j K(y_i, y_j) charges[j, q]`` (j = i included).

        ``charges[:, 0]`` must be ones for the two options. ``total_cauchy``:
        also return ``sum_ij w_ij`` (j = i included), by Parseval's identity
        on that channel's spectrum (no inverse transform). ``cauchy_ones``:
        an (n,) array that receives ``sum_j w_ij`` (j = i included), the
        unsquared kernel against the ones (one more inverse transform, but no
        cancellation, unlike the identity ``w = w^2 (1 + d^2)``).
        """
        grid = self._grid(charges.shape[1])
        m, length, w = self.m, self.length, self.workers
        total = None
        if self.d == 2:
            scatter_2d(self.box, self.weights, charges, grid)
            spec = sp_fft.rfft(grid, n=length, axis=-1, workers=w)
            spec = sp_fft.fft(spec, n=length, axis=-2, overwrite_x=True, workers=w)
            if total_cauchy:
                a = spec[0]
                power = a.real * a.real + a.imag * a.imag
                total = float(np.einsum("ij,ij,j->", power, self.cauchy_hat.real,
                                        self.parseval, dtype=np.float64))
            if cauchy_ones is not None:
                spec = np.concatenate([spec, spec[:1] * self.cauchy_hat])
                spec[:-1] *= self.kernel_hat
            else:
                spec *= self.kernel_hat
            pot = sp_fft.ifft(spec, axis=-2, overwrite_x=True, workers=w)[:, :m, :]
            pot = sp_fft.irfft(pot, n=length, axis=-1, workers=w)[:, :, :m]
            gather = gather_2d
        else:
            scatter_1d(self.box, self.weights, charges, grid)
            spec = sp_fft.rfft(grid, n=length, workers=w)
            if total_cauchy:
                a = spec[0]
                total = float(np.sum((a.real * a.real + a.imag * a.imag)
                                     * self.cauchy_hat.real * self.parseval,
                                     dtype=np.float64))
            if cauchy_ones is not None:
                spec = np.concatenate([spec, spec[:1] * self.cauchy_hat])
                spec[:-1] *= self.kernel_hat
            else:
                spec *= self.kernel_hat
            pot = sp_fft.irfft(spec, n=length, workers=w)[:, :m]
            gather = gather_1d
        if cauchy_ones is None:
            gather(self.box, self.weights, pot, out)
        else:
            both = np.empty((out.shape[0], out.shape[1] + 1))
            gather(self.box, self.weights, pot, both)
            out[:] = both[:, :-1]
            cauchy_ones[:] = both[:, -1]
        return out if total is None else (out, total)
