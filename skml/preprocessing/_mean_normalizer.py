"""Zero-mean plus range scaling: notes B §1.3 variant (c)."""

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from ..utils import check_sample_weight, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._scaling_stats import SCALER_DOCS, FLOAT_DTYPES, check_dense, collapse_count
from ._scaling_stats import column_mean_var, float_nan_tags, merge_mean_var, nan_min_max
from ._scaling_stats import safe_divisor, shift_scale, validate_transform_input
from ..utils.validation import validate_data

__all__ = ["MeanNormalizer"]


@fill_class_docs(SECTIONS, SCALER_DOCS)
class MeanNormalizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Centre each feature and divide it by its range: ``(x - mu) / (max - min)``.

    The "zero-mean + range normalisation" of notes B §1.3 (c) (course notes
    D3 "特征尺度归一化"): features end up with mean 0 and a spread of exactly
    1 (values within ``[-1, 1]``), the classic "mean normalisation" of
    gradient-descent courses. scikit-learn has no class for it; it equals
    ``StandardScaler(with_std=False)`` followed by a division by the range.

    Parameters
    ----------
    copy : bool, default=True
        If False, transform in place where the input is already a float
        ndarray.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        Weighted mean of each feature, ignoring NaN.
    data_min_ : ndarray of shape (n_features,)
        Per-feature minimum, ignoring NaN and zero-weight samples.
    data_max_ : ndarray of shape (n_features,)
        Per-feature maximum, ignoring NaN and zero-weight samples.
    data_range_ : ndarray of shape (n_features,)
        ``data_max_ - data_min_``.
    scale_ : ndarray of shape (n_features,)
        The divisor: ``data_range_`` with 1 for constant features.
    <samples_seen_attribute>
    <fitted_feature_attributes>

    See Also
    --------
    StandardScaler : Divide by the standard deviation instead of the range.
    MinMaxScaler : Shift by the minimum instead of the mean.

    Notes
    -----
    ``fit`` is two cheap passes (column sums, column minima and maxima);
    ``transform`` is one subtract and one divide per entry; O(n_features)
    extra memory. Sample weights enter the mean; the range is that of the
    samples of positive weight, so weighting by integer counts equals
    repeating rows. ``partial_fit`` merges batch means by their counts and
    keeps running minima and maxima. Sparse input is refused, since
    centring destroys sparsity.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import MeanNormalizer
    >>> X = np.array([[1.0, 5.0], [2.0, 5.0], [6.0, 5.0]])
    >>> scaler = MeanNormalizer().fit(X)
    >>> scaler.mean_, scaler.data_range_
    (array([3., 5.]), array([5., 0.]))
    >>> scaler.transform(X)
    array([[-0.4,  0. ],
           [-0.2,  0. ],
           [ 0.6,  0. ]])
    """

    _parameter_constraints = {"copy": ["boolean"]}

    def __init__(self, *, copy=True):
        self.copy = copy

    def fit(self, X, y=None, sample_weight=None):
        """Compute the mean and range of each feature.

        <dense_fit_X>
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples in the mean.

        <scaler_returns>
        """
        validate_params(self)
        for name in ("mean_", "data_min_", "data_max_", "n_samples_seen_"):
            self.__dict__.pop(name, None)
        return self._partial_fit(X, sample_weight)

    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the mean and range with one more batch.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            A batch of training data; NaN entries are ignored.
        <partial_fit_rest>
        """
        validate_params(self)
        return self._partial_fit(X, sample_weight)

    def _partial_fit(self, X, sample_weight):
        check_dense(X, type(self).__name__)
        first_call = not hasattr(self, "n_samples_seen_")
        X = validate_data(
            self, X, dtype=FLOAT_DTYPES, ensure_all_finite="allow-nan", reset=first_call
        )
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        count, mean, _ = column_mean_var(X, sample_weight, with_var=False)
        data_min, data_max = nan_min_max(X, sample_weight)
        if not first_call:
            last_count = np.broadcast_to(self.n_samples_seen_, count.shape)
            count, mean, _ = merge_mean_var(
                last_count, self.mean_, None, count, mean, None
            )
            data_min = np.fmin(self.data_min_, data_min)
            data_max = np.fmax(self.data_max_, data_max)
        self.n_samples_seen_ = collapse_count(count)
        self.mean_ = mean
        self.data_min_ = data_min
        self.data_max_ = data_max
        self.data_range_ = data_max - data_min
        self.scale_ = safe_divisor(self.data_range_)
        return self

    def transform(self, X, copy=None):
        """Centre and range-scale X: ``(X - mean_) / scale_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to scale; NaN entries stay NaN.
        <copy_parameter>

        Returns
        -------
        X_tr : ndarray of shape (n_samples, n_features)
            The scaled data.
        """
        copy = self.copy if copy is None else copy
        X = validate_transform_input(self, X, copy)
        return shift_scale(X, self.mean_, self.scale_, copy=copy)

    def inverse_transform(self, X, copy=None):
        """Undo the scaling: ``X * scale_ + mean_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Scaled data.
        <copy_parameter>

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Data on the original scale.
        """
        copy = self.copy if copy is None else copy
        X = validate_transform_input(self, X, copy)
        X = shift_scale(X, None, self.scale_, copy=copy, multiply=True)
        return np.add(X, self.mean_.astype(X.dtype), out=X)

    def __sklearn_tags__(self):
        return float_nan_tags(super().__sklearn_tags__())
