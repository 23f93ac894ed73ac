"""Zero-mean, unit-variance scaling (z-score): notes B §1.3 variants (b) and (d)."""

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.callback import CallbackSupportMixin, with_callbacks
from ..utils import check_sample_weight, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils._magnitude import magnitude_scale, max_abs
from ._scaling_stats import SCALER_DOCS, FLOAT_DTYPES, collapse_count, column_mean_var
from ._scaling_stats import float_nan_tags, merge_mean_var, near_constant, safe_divisor
from ._scaling_stats import shift_scale, sparse_scale_columns, validate_transform_input

__all__ = ["StandardScaler"]

_SPARSE_CENTERING = (
    "Cannot center sparse matrices: pass `with_mean=False` instead "
    "(centering would make every implicit zero non-zero)."
)
from ..utils.validation import validate_data


@fill_class_docs(SECTIONS, SCALER_DOCS)
class StandardScaler(CallbackSupportMixin, OneToOneFeatureMixin, TransformerMixin,
                     BaseEstimator):
    """Standardise features by removing the mean and scaling to unit variance.

    Each feature is mapped to ``z = (x - mu) / sigma``, the "zero-mean
    unit-variance" scaling of notes B §1.3 (d) (course notes D3
    "特征尺度归一化", D4 "Tip 4: Feature Scaling"). ``with_std=False`` gives
    the notes' plain zero-mean variant (b), ``x - mu``. ``sigma`` is the
    population standard deviation (``ddof=0``), so the scaled training data
    have mean 0 and variance 1.

    Parameters
    ----------
    copy : bool, default=True
        If False, transform in place where the input is already a float
        ndarray or CSR matrix.
    with_mean : bool, default=True
        Centre the data. Must be False for sparse input.
    with_std : bool, default=True
        Divide by the standard deviation.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,) or None
        Weighted mean of each feature, ignoring NaN. None when both
        ``with_mean`` and ``with_std`` are False (and for sparse input with
        ``with_std=False``).
    var_ : ndarray of shape (n_features,) or None
        Weighted population variance of each feature; None if
        ``with_std=False``. A variance beyond float64 (features of order
        1e300) is inf, one below it (order 1e-300) is 0: ``scale_`` is
        computed on rescaled data and stays right.
    scale_ : ndarray of shape (n_features,) or None
        The divisor ``sqrt(var_)``, with 1 for (near) constant features; None
        if ``with_std=False``.
    <samples_seen_attribute>
    <fitted_feature_attributes>

    See Also
    --------
    MinMaxScaler : Scale each feature to a given range.
    MeanNormalizer : Centre and divide by the range.
    sklearn.preprocessing.StandardScaler : The scikit-learn counterpart.

    Notes
    -----
    ``fit`` takes two passes over the data and O(n_features) memory beyond
    one float64 working copy: the mean, then the corrected two-pass variance
    ``sum w (x - mu)**2 - (sum w (x - mu))**2 / sum w``, whose correction
    term cancels the rounding error of the mean. ``partial_fit`` merges the
    statistics of each batch with the pairwise update of Chan, Golub and
    LeVeque, so any chunking gives the statistics of one ``fit`` up to
    rounding. NaN entries are ignored by the statistics and kept by
    ``transform``. Features whose variance is below the rounding error of a
    constant column get ``scale_ = 1``. ``set_callbacks`` takes scikit-learn
    1.9's fit callbacks (``sklearn.callback``): one fit task per ``fit`` or
    ``partial_fit``, and a scikit-learn meta-estimator's auto-propagated
    callbacks (such as ``ProgressBar``) reach the scaler.

    References
    ----------
    T. F. Chan, G. H. Golub and R. J. LeVeque, "Algorithms for computing the
    sample variance: analysis and recommendations", The American
    Statistician 37(3), 242-247, 1983.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import StandardScaler
    >>> X = np.array([[0.0, 10.0], [2.0, 10.0], [4.0, 10.0]])
    >>> scaler = StandardScaler().fit(X)
    >>> scaler.mean_
    array([ 2., 10.])
    >>> scaler.transform(X).round(4)
    array([[-1.2247,  0.    ],
           [ 0.    ,  0.    ],
           [ 1.2247,  0.    ]])
    """

    _parameter_constraints = {
        "copy": ["boolean"],
        "with_mean": ["boolean"],
        "with_std": ["boolean"],
    }

    def __init__(self, *, copy=True, with_mean=True, with_std=True):
        self.copy = copy
        self.with_mean = with_mean
        self.with_std = with_std

    @with_callbacks
    def fit(self, X, y=None, sample_weight=None):
        """Compute the mean and standard deviation of each feature.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; NaN entries are ignored.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the mean and variance.

        <scaler_returns>
        """
        validate_params(self)
        for name in ("mean_", "var_", "scale_", "n_samples_seen_", "_var_units"):
            self.__dict__.pop(name, None)
        return self._partial_fit(X, y, sample_weight)

    @with_callbacks
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the mean and standard deviation with one more batch.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            A batch of training data; NaN entries are ignored.
        <partial_fit_rest>
        """
        validate_params(self)
        return self._partial_fit(X, y, sample_weight)

    def _partial_fit(self, X, y, sample_weight):
        first_call = not hasattr(self, "n_samples_seen_")
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=FLOAT_DTYPES,
            ensure_all_finite="allow-nan",
            reset=first_call,
        )
        if sparse.issparse(X) and self.with_mean:
            raise ValueError(_SPARSE_CENTERING)
        # scikit-learn 1.9's callbacks (set_callbacks): one task, no iterations.
        callback_ctx = self._init_callback_context()
        metadata = {"sample_weight": sample_weight}
        callback_ctx.call_on_fit_task_begin(estimator=self, X=X, y=y, metadata=metadata)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)

        # The mean is needed for the variance even when not centring.
        track_mean = self.with_mean or self.with_std
        # At X * 1e300 the squared deviations overflow although the standard
        # deviation (~1e300) is representable: the statistics are computed on
        # X / c (c = 2^e, exact) and mapped back. c = 1 on ordinary data.
        c = 1.0
        if self.with_std:
            c = magnitude_scale(X) if first_call else magnitude_scale(
                magnitude=max(max_abs(X), max_abs(self.mean_), max_abs(self.scale_)))
        Xc = X if c == 1.0 else X / c
        count, mean, m2 = column_mean_var(Xc, sample_weight, with_var=self.with_std)
        if not first_call:
            last_count = np.broadcast_to(self.n_samples_seen_, count.shape)
            last_m2 = None if m2 is None else self._var_in(c) * last_count
            last_mean = self.mean_ if track_mean else mean
            if c != 1.0 and track_mean:
                last_mean = last_mean / c
            count, mean, m2 = merge_mean_var(
                last_count, last_mean, last_m2, count, mean, m2
            )

        self.n_samples_seen_ = collapse_count(count)
        if not track_mean or (sparse.issparse(X) and not self.with_std):
            self.mean_ = None
        else:
            self.mean_ = mean if c == 1.0 else mean * c
        if self.with_std:
            with np.errstate(divide="ignore", invalid="ignore"):
                var = m2 / count
            constant = near_constant(var, mean, count)
            if c == 1.0:
                self.var_ = var
                self.scale_ = safe_divisor(np.sqrt(var), constant)
            else:
                # var_ may overflow to inf (a variance of 1e600 is not a
                # float64); scale_ = sqrt(var) c is finite and divides.
                with np.errstate(over="ignore", under="ignore"):
                    self.var_ = var * c * c
                self.scale_ = safe_divisor(np.sqrt(var) * c, constant)
            self._var_units = (var, c)  # for partial_fit
        else:
            self.var_ = None
            self.scale_ = None
        callback_ctx.call_on_fit_task_end(estimator=self, X=X, y=y, metadata=metadata,
                                          reconstruction_attributes={})
        return self

    def _var_in(self, c):
        """The fitted variance in the units of X / c (``var_`` may have
        overflowed; the variance in the units of the last fit has not)."""
        var, c_last = getattr(self, "_var_units", (self.var_, 1.0))
        if c_last == c:
            return var
        ratio = c_last / c  # a power of two: exact
        with np.errstate(over="ignore", under="ignore"):
            return var * ratio * ratio

    def transform(self, X, copy=None):
        """Standardise X with the fitted mean and standard deviation.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Data to scale; NaN entries stay NaN.
        <copy_parameter>

        Returns
        -------
        X_tr : {ndarray, sparse matrix} of shape (n_samples, n_features)
            The scaled data.
        """
        return self._apply(X, copy, inverse=False)

    def inverse_transform(self, X, copy=None):
        """Map standardised data back to the original scale: ``z * sigma + mu``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Scaled data.
        <copy_parameter>

        Returns
        -------
        X_original : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Data on the original scale.
        """
        return self._apply(X, copy, inverse=True)

    def _apply(self, X, copy, inverse):
        copy = self.copy if copy is None else copy
        is_sparse = sparse.issparse(X)
        X = validate_transform_input(self, X, copy, accept_sparse="csr")
        if is_sparse:
            if self.with_mean:
                raise ValueError(_SPARSE_CENTERING)
            if self.scale_ is None:
                return X
            return sparse_scale_columns(
                X, self.scale_ if inverse else 1.0 / self.scale_
            )
        mean = self.mean_ if self.with_mean else None
        if inverse:
            X = shift_scale(X, None, self.scale_, copy=copy, multiply=True)
            return X if mean is None else np.add(X, mean.astype(X.dtype), out=X)
        return shift_scale(X, mean, self.scale_, copy=copy)

    def __sklearn_tags__(self):
        tags = float_nan_tags(super().__sklearn_tags__())
        tags.input_tags.sparse = not self.with_mean
        return tags
