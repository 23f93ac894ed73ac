"""Counting kernels of the naive Bayes classifiers, compiled by numba.

Bernoulli naive Bayes (notes B §4.3) needs, per class ``k`` and feature ``j``,
the weighted number of class-``k`` samples with ``x_j = 1``. On CSR input the
count visits the stored entries once and thresholds them on the fly, so a fit
allocates nothing the size of ``X`` (no binarised copy, no product of sparse
matrices): memory O(n_classes n_features) beyond the data, time O(nnz).
Prediction likewise thresholds the test entries as it reads them (dense or
CSR), so its memory is that of its (n_samples, n_classes) output.
"""

from numba import njit

__all__ = ["csr_class_counts", "csr_threshold_product", "dense_threshold_product"]


@njit(cache=True, nogil=True)
def csr_class_counts(indptr, indices, data, y, w, threshold, binarize, counts):
    """Add ``w_i [x_ij > threshold]`` (or ``w_i x_ij`` without ``binarize``) to
    ``counts[y_i, j]`` for every stored entry of the CSR rows.

    Rows are added in increasing order, so each count is summed in the same
    order as the product of the class-indicator matrix with ``X``.

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix's arrays (any numeric ``data`` dtype).
    y : ndarray of int of shape (n_samples,)
        Class index of each row.
    w : ndarray of shape (n_samples,)
        Weight of each row.
    threshold : float
        A stored value counts as a one where it exceeds ``threshold``.
    binarize : bool
        False adds the values themselves (``X`` already binary).
    counts : ndarray of shape (n_classes, n_features)
        Updated in place.
    """
    for i in range(indptr.shape[0] - 1):
        k = y[i]
        wi = w[i]
        for p in range(indptr[i], indptr[i + 1]):
            if binarize:
                if data[p] > threshold:
                    counts[k, indices[p]] += wi
            else:
                counts[k, indices[p]] += wi * data[p]


@njit(cache=True, nogil=True)
def csr_threshold_product(indptr, indices, data, threshold, W, out):
    """``out += B @ W`` for ``B = [X > threshold]`` of a CSR ``X``, without forming ``B``.

    The binarised test matrix of a Bernoulli naive Bayes prediction is never
    allocated: each stored entry above the threshold adds its feature's row of
    ``W``. Implicit zeros are below any threshold >= 0 (the caller checks).

    Parameters
    ----------
    indptr, indices, data : ndarray
        The CSR matrix's arrays (any numeric ``data`` dtype).
    threshold : float
        An entry is a one where it exceeds ``threshold``.
    W : ndarray of shape (n_features, m)
        Per-feature rows to add up.
    out : ndarray of shape (n_samples, m)
        Updated in place.
    """
    m = W.shape[1]
    for i in range(indptr.shape[0] - 1):
        for p in range(indptr[i], indptr[i + 1]):
            if data[p] > threshold:
                j = indices[p]
                for c in range(m):
                    out[i, c] += W[j, c]


@njit(cache=True, nogil=True)
def dense_threshold_product(X, threshold, W, out):
    """``out += [X > threshold] @ W`` for a dense ``X``, binarising on the fly.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Any numeric dtype, any memory order.
    threshold : float
        An entry is a one where it exceeds ``threshold``.
    W : ndarray of shape (n_features, m)
        Per-feature rows to add up (finite).
    out : ndarray of shape (n_samples, m)
        Updated in place.
    """
    n, d = X.shape
    m = W.shape[1]
    for i in range(n):
        for j in range(d):
            # Branch-free: a dense X is crossed at random, and a mispredicted
            # branch per entry cost 1.6x the time of the binarised copy's
            # product; adding 0 * W[j] leaves a sum of finite terms unchanged.
            b = 1.0 if X[i, j] > threshold else 0.0
            for c in range(m):
                out[i, c] += b * W[j, c]
