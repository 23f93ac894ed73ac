"""Per-sample scaling to unit norm (l1, l2 or max)."""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from ..utils import Options, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils.validation import validate_data
from ._scaling_stats import SCALER_DOCS, validate_transform_input

__all__ = ["UnitNormScaler"]


def _small_norm(dtype):
    # Below this norm some squares may have lost precision to underflow.
    info = np.finfo(dtype)
    return np.sqrt(info.tiny / info.eps)


def _dense_row_norms(X, norm):
    if norm == "l1":
        return np.abs(X).sum(axis=1)
    if norm == "max":
        return np.abs(X).max(axis=1)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    # Squares of very small (large) entries underflow (overflow): redo those
    # few rows on values divided by their largest magnitude.
    redo = (norms < _small_norm(X.dtype)) | np.isinf(norms)
    if redo.any():
        rows = X[redo]
        peak = np.abs(rows).max(axis=1)
        peak[peak == 0] = 1.0
        rows = rows / peak[:, np.newaxis]
        norms[redo] = peak * np.sqrt(np.einsum("ij,ij->i", rows, rows))
    return norms


def _sparse_row_norms(X, norm, rows):
    # X is CSR; ``rows`` is the row of each stored value.
    values = np.abs(X.data)
    peak = np.zeros(X.shape[0], dtype=X.dtype)
    np.maximum.at(peak, rows, values)
    if norm == "max":
        return peak
    if norm == "l1":
        return np.bincount(rows, values, minlength=X.shape[0])
    # Dividing by the row's peak first keeps the squares in range.
    safe_peak = np.where(peak == 0, 1.0, peak)
    ratio = values / safe_peak[rows]
    return safe_peak * np.sqrt(np.bincount(rows, ratio * ratio, minlength=X.shape[0]))


@fill_class_docs(SECTIONS, SCALER_DOCS)
class UnitNormScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Rescale each sample (row) to unit norm.

    Unlike the column scalers of notes B §1.3, this works on samples:
    ``x / ||x||`` with the l1, l2 or max norm, as
    :class:`sklearn.preprocessing.Normalizer` does; with ``norm="l2"`` the
    inner product of two scaled samples is their cosine similarity. It is
    stateless: ``fit`` only validates its input, and all-zero rows are left
    at zero. There is no ``inverse_transform``, since the norms are not kept.

    Parameters
    ----------
    norm : {"l1", "l2", "max"}, default="l2"
        The norm each non-zero sample is scaled to 1 in.
    copy : bool, default=True
        If False, scale in place where the input is already a float ndarray
        or CSR matrix.

    Attributes
    ----------
    <fitted_feature_attributes>

    See Also
    --------
    StandardScaler : Per-feature zero mean and unit variance.
    sklearn.preprocessing.Normalizer : The scikit-learn counterpart.

    Notes
    -----
    One pass for the row norms and one for the division, O(n_samples) extra
    memory. Sparse CSR input stays sparse: only the stored values are
    divided. The l2 norm of a row with tiny or huge entries, whose squares
    would underflow or overflow, is recomputed on the row divided by its
    largest magnitude. A row is left unchanged only if it is all zero
    (scikit-learn also leaves rows with norm below ``10 * eps`` unchanged).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import UnitNormScaler
    >>> X = np.array([[3.0, 4.0], [1.0, -1.0], [0.0, 0.0]])
    >>> UnitNormScaler(norm="l1").fit_transform(X)
    array([[ 0.42857143,  0.57142857],
           [ 0.5       , -0.5       ],
           [ 0.        ,  0.        ]])
    """

    _parameter_constraints = {
        "norm": [Options({"l1", "l2", "max"})],
        "copy": ["boolean"],
    }

    def __init__(self, norm="l2", *, copy=True):
        self.norm = norm
        self.copy = copy

    def fit(self, X, y=None):
        """Only validate the parameters and the input.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data; only its shape and feature names are recorded.
        y : None
            Ignored.

        Returns
        -------
        self : UnitNormScaler
            The transformer.
        """
        validate_params(self)
        validate_data(self, X, accept_sparse="csr")
        return self

    def transform(self, X, copy=None):
        """Scale each non-zero row of X to unit norm.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data to scale, row by row; other sparse formats become CSR.
        <copy_parameter>

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            The scaled data.
        """
        validate_params(self)  # stateless: transform may come without fit
        copy = self.copy if copy is None else copy
        is_sparse = sparse.issparse(X)
        X = validate_transform_input(self, X, copy, accept_sparse="csr",
                                     allow_nan=False)
        if is_sparse:
            rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
            norms = _sparse_row_norms(X, self.norm, rows)
            norms[norms == 0] = 1.0
            X.data /= norms[rows]
            return X
        norms = _dense_row_norms(X, self.norm)
        norms[norms == 0] = 1.0
        return np.divide(X, norms[:, np.newaxis], out=None if copy else X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = False
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
