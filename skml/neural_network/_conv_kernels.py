"""numba kernels of the convolution layers (notes B §7.5), where they pay.

Measured on 64 digits upsampled to 32 x 32 (one thread): col2im of a
16-channel 3 x 3 layer and max-pooling's forward / backward are 5-15 times
faster as one pass here than as ``a b`` strided numpy operations, each of
which walks the whole map. The patch copy (im2col) stays numpy (one
``copyto`` of a strided view is as fast), and the products are BLAS.

All take channels-last arrays and are ``@njit(cache=True, nogil=True)``.
"""

from numba import njit


@njit(cache=True, nogil=True)
def col2im_add(dXp, dcols, s, t):
    """``dXp[k, s i + u, t j + v, c] += dcols[k, i, j, u, v, c]`` (the adjoint of im2col)."""
    n, oh, ow, a, b, c = dcols.shape
    for k in range(n):
        for i in range(oh):
            for j in range(ow):
                for u in range(a):
                    r = s * i + u
                    for v in range(b):
                        q = t * j + v
                        for ch in range(c):
                            dXp[k, r, q, ch] += dcols[k, i, j, u, v, ch]


@njit(cache=True, nogil=True)
def max_pool_forward(X, Y, arg, a, b, s, t):
    """``Y`` = window maxima, ``arg`` = the first maximum's offset ``u b + v``."""
    n, oh, ow, c = Y.shape
    for k in range(n):
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    best = X[k, s * i, t * j, ch]
                    where = 0
                    for u in range(a):
                        for v in range(b):
                            x = X[k, s * i + u, t * j + v, ch]
                            if x > best:
                                best = x
                                where = u * b + v
                    Y[k, i, j, ch] = best
                    arg[k, i, j, ch] = where


@njit(cache=True, nogil=True)
def max_pool_backward(dY, arg, dX, b, s, t):
    """``dX`` (zeroed by the caller) gets each ``dY`` at its window's maximum."""
    n, oh, ow, c = dY.shape
    for k in range(n):
        for i in range(oh):
            for j in range(ow):
                for ch in range(c):
                    w = arg[k, i, j, ch]
                    dX[k, s * i + w // b, t * j + w % b, ch] += dY[k, i, j, ch]
