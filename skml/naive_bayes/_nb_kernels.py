"""Counting kernels of the naive Bayes classifiers, compiled by numba.

Bernoulli naive Bayes (notes B §4.3) needs, per class ``k`` and feature ``j``,
the weighted number of class-``k`` samples with ``x_j = 1``. On CSR input the
count visits the stored entries once and thresholds them on the fly, so a fit
allocates nothing the size of ``X`` (no binarised copy, no product of sparse
matrices): memory O(n_classes n_features) beyond the data, time O(nnz).
"""

from numba import njit

__all__ = ["csr_class_counts"]


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
