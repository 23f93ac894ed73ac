"""Range scaling to [0, 1] (or any interval): notes B §1.3 variant (a)."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from ..utils import validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._scaling_stats import SCALER_DOCS, FLOAT_DTYPES, check_dense, float_nan_tags
from ._scaling_stats import nan_min_max, safe_divisor, shift_scale
from ._scaling_stats import validate_transform_input
from ..utils.validation import validate_data

__all__ = ["MinMaxScaler"]


@fill_class_docs(SECTIONS, SCALER_DOCS)
class MinMaxScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale each feature to a given range, by default [0, 1].

    The "range normalisation" of notes B §1.3 (a) (course notes D3
    "特征尺度归一化"): ``x' = (x - min) / (max - min)``, then mapped
    affinely onto ``feature_range = (a, b)`` as ``x' (b - a) + a``. It is
    applied as ``X * scale_ + min_``.

    Parameters
    ----------
    feature_range : tuple (min, max), default=(0, 1)
        Desired range of the transformed training data; ``min < max``.
    copy : bool, default=True
        If False, transform in place where the input is already a float
        ndarray.
    clip : bool, default=False
        Clip transformed values of new data to ``feature_range``.

    Attributes
    ----------
    data_min_ : ndarray of shape (n_features,)
        Per-feature minimum seen in the data, ignoring NaN.
    data_max_ : ndarray of shape (n_features,)
        Per-feature maximum seen in the data, ignoring NaN.
    data_range_ : ndarray of shape (n_features,)
        ``data_max_ - data_min_``.
    scale_ : ndarray of shape (n_features,)
        Per-feature factor ``(b - a) / data_range_`` (range 1 for constant
        features).
    min_ : ndarray of shape (n_features,)
        Per-feature offset ``a - data_min_ * scale_``.
    n_samples_seen_ : int
        Number of rows seen (rows with NaN included).
    <fitted_feature_attributes>

    See Also
    --------
    StandardScaler : Zero mean and unit variance.
    MeanNormalizer : Centre and divide by the range.
    sklearn.preprocessing.MinMaxScaler : The scikit-learn counterpart.

    Notes
    -----
    ``fit`` is one pass (column minima and maxima, NaN skipped by
    ``fmin``/``fmax``), ``transform`` one multiply-add per entry; O(n_features)
    extra memory. ``partial_fit`` keeps running minima and maxima, so any
    chunking gives exactly the result of one ``fit``. As in scikit-learn, a
    feature whose range is below ``10 * eps`` (absolute) counts as constant
    and is only shifted to ``a``. Sparse input is refused: shifting by the
    minimum destroys sparsity.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import MinMaxScaler
    >>> X = np.array([[-1.0, 2.0], [-0.5, 6.0], [0.0, 10.0], [1.0, 18.0]])
    >>> MinMaxScaler().fit_transform(X)
    array([[0.  , 0.  ],
           [0.25, 0.25],
           [0.5 , 0.5 ],
           [1.  , 1.  ]])
    """

    _parameter_constraints = {
        "feature_range": [tuple],
        "copy": ["boolean"],
        "clip": ["boolean"],
    }

    def __init__(self, feature_range=(0, 1), *, copy=True, clip=False):
        self.feature_range = feature_range
        self.copy = copy
        self.clip = clip

    def fit(self, X, y=None):
        """Compute the per-feature minimum and maximum.

        <dense_fit_X>

        <scaler_returns>
        """
        validate_params(self)
        for name in ("data_min_", "data_max_", "n_samples_seen_"):
            self.__dict__.pop(name, None)
        return self._partial_fit(X)

    def partial_fit(self, X, y=None):
        """Update the per-feature minimum and maximum with one more batch.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            A batch of training data; NaN entries are ignored.
        y : None
            Ignored.

        <scaler_returns>
        """
        validate_params(self)
        return self._partial_fit(X)

    def _partial_fit(self, X):
        low, high = self._checked_range()
        check_dense(X, type(self).__name__)
        first_call = not hasattr(self, "n_samples_seen_")
        X = validate_data(
            self, X, dtype=FLOAT_DTYPES, ensure_all_finite="allow-nan", reset=first_call
        )
        data_min, data_max = nan_min_max(X)
        if first_call:
            self.n_samples_seen_ = X.shape[0]
        else:
            data_min = np.fmin(self.data_min_, data_min)
            data_max = np.fmax(self.data_max_, data_max)
            self.n_samples_seen_ += X.shape[0]
        self.data_min_ = data_min
        self.data_max_ = data_max
        self.data_range_ = data_max - data_min
        self.scale_ = (high - low) / safe_divisor(self.data_range_)
        self.min_ = low - data_min * self.scale_
        return self

    def _checked_range(self):
        feature_range = self.feature_range
        if (
            len(feature_range) != 2
            or not all(isinstance(v, Real) for v in feature_range)
            or not np.all(np.isfinite(feature_range))
            or feature_range[0] >= feature_range[1]
        ):
            raise ValueError(
                "feature_range must be a tuple (min, max) of two finite numbers "
                f"with min < max; got {feature_range!r}."
            )
        return float(feature_range[0]), float(feature_range[1])

    def transform(self, X):
        """Scale X to ``feature_range``: ``X * scale_ + min_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to scale; NaN entries stay NaN.

        Returns
        -------
        X_tr : ndarray of shape (n_samples, n_features)
            The scaled data.
        """
        X = validate_transform_input(self, X, self.copy)
        X = shift_scale(X, None, self.scale_, copy=self.copy, multiply=True)
        np.add(X, self.min_.astype(X.dtype), out=X)
        if self.clip:
            np.clip(X, *self.feature_range, out=X)
        return X

    def inverse_transform(self, X):
        """Undo the scaling: ``(X - min_) / scale_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Scaled data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Data on the original scale.
        """
        X = validate_transform_input(self, X, self.copy)
        return shift_scale(X, self.min_, self.scale_, copy=self.copy)

    def __sklearn_tags__(self):
        return float_nan_tags(super().__sklearn_tags__())
