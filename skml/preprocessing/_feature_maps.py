"""Explicit feature maps of the notes (B §1.5): the quadratic map and the XOR transform."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils.validation import validate_data

__all__ = ["DistanceToAnchors", "QuadraticFeatureMap"]

_NAMES_OUT = """
Parameters
----------
input_features : array-like of str, default=None
    Checked against the names seen in ``fit``; None means
    ``feature_names_in_``, or ``x0``, ``x1``, ... without them.

Returns
-------
names : ndarray of str
    The names of the output columns.
"""


def _input_names(estimator, input_features):
    """The input feature names, checked against those seen in ``fit``."""
    seen = getattr(estimator, "feature_names_in_", None)
    if input_features is None:
        if seen is not None:
            return list(seen)
        return [f"x{k}" for k in range(estimator.n_features_in_)]
    names = list(np.asarray(input_features, dtype=object))
    if len(names) != estimator.n_features_in_:
        raise ValueError(
            f"input_features should have length equal to the number of features "
            f"seen in fit ({estimator.n_features_in_}); got {len(names)}."
        )
    if seen is not None and not np.array_equal(np.asarray(names, dtype=object), seen):
        raise ValueError("input_features is not equal to feature_names_in_.")
    return names


@fill_class_docs(SECTIONS, names_out=_NAMES_OUT)
class QuadraticFeatureMap(TransformerMixin, BaseEstimator):
    """The explicit feature map of the quadratic kernel, ``<phi(x), phi(z)> = (<x, z> + c)^2``.

    Notes B §1.5 (and §5.8): notes D1 Ch. 7 writes a quadratic classifier
    ``f(x) = <x, Qx> + sqrt(2) <x, p> + b`` as a linear one on

        phi(x) = [vec(x x'); sqrt(2) x; 1],     <phi(x), phi(z)> = (<x, z> + 1)^2,

    notes D3 the general ``(<x, z> + c)^2`` with ``phi(x) = [vec(x x');
    sqrt(2c) x; c]``, and notes D4 the homogeneous 2-D map
    ``phi(x) = (x1^2, sqrt(2) x1 x2, x2^2)``, ``<phi(x), phi(z)> = (x . z)^2``.
    ``coef0`` is ``c`` (1: D1, 0: D4's homogeneous map, whose linear and
    constant parts vanish and are left out); ``compact=True`` keeps each
    product ``x_i x_j`` once (``i <= j``, the off-diagonal ones times
    ``sqrt(2)``, D4's form), ``d(d+1)/2`` columns instead of ``d^2`` with the
    same inner products. A linear model on ``phi(X)`` is a quadratic model on
    ``X``; :class:`sklearn.preprocessing.PolynomialFeatures` spans the same
    space without the ``sqrt(2)`` factors, so its inner products are not the
    kernel's.

    Parameters
    ----------
    coef0 : float, default=1.0
        The kernel's constant ``c >= 0``.
    compact : bool, default=False
        Keep each product ``x_i x_j`` once, scaled by ``sqrt(2)`` off the
        diagonal, instead of the full ``vec(x x')``.

    Attributes
    ----------
    <fitted_feature_attributes>
    n_output_features_ : int
        Number of output columns.

    See Also
    --------
    skml.metrics.pairwise.polynomial_kernel : The kernel itself, with
        ``degree=2``, ``gamma=1`` and ``coef0=c``.

    Notes
    -----
    ``transform`` costs O(n d^2) time and memory, against O(n^2 d) for the
    kernel matrix: the map pays when ``d`` is small against ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import QuadraticFeatureMap
    >>> x, z = np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]])
    >>> phi = QuadraticFeatureMap().fit(x)
    >>> (phi.transform(x) @ phi.transform(z).T).item()  # (<x, z> + 1)^2 = (1 + 1)^2
    4.0
    """

    _parameter_constraints = {
        "coef0": [Interval(Real, 0, None, closed="left")],
        "compact": ["boolean"],
    }

    def __init__(self, coef0=1.0, *, compact=False):
        self.coef0 = coef0
        self.compact = compact

    def fit(self, X, y=None):
        """Record the number of features.

        <unsupervised_fit>
        """
        validate_params(self)
        X = validate_data(self, X, dtype=(np.float64, np.float32))
        d = X.shape[1]
        n_quad = d * (d + 1) // 2 if self.compact else d * d
        self.n_output_features_ = n_quad + (d + 1 if self.coef0 > 0 else 0)
        return self

    def transform(self, X):
        """``phi(X)``, one row per sample.

        <X_samples>

        Returns
        -------
        X_phi : ndarray of shape (n_samples, ``n_output_features_``)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=(np.float64, np.float32), reset=False)
        n, d = X.shape
        with np.errstate(over="ignore", under="ignore"):
            outer = X[:, :, None] * X[:, None, :]
        # The map of X is not representable when a product x_i x_j leaves
        # the floating-point range: refuse rather than return inf or 0.
        if not np.all(np.isfinite(outer)):
            raise ValueError(
                "X's values are too large for the quadratic map: products "
                "x_i x_j overflow; rescale X, e.g. with StandardScaler."
            )
        nonzero = X != 0
        if np.any((outer == 0) & nonzero[:, :, None] & nonzero[:, None, :]):
            raise ValueError(
                "X's values are too small for the quadratic map: products "
                "x_i x_j of non-zero values underflow to 0; rescale X, e.g. "
                "with StandardScaler."
            )
        if self.compact:
            i, j = np.triu_indices(d)
            quad = outer[:, i, j] * np.where(i == j, 1.0, np.sqrt(2.0)).astype(X.dtype)
        else:
            quad = outer.reshape(n, d * d)
        if self.coef0 == 0:
            return quad
        c = X.dtype.type(self.coef0)
        return np.hstack([quad, np.sqrt(2 * c) * X, np.full((n, 1), c, dtype=X.dtype)])

    def get_feature_names_out(self, input_features=None):
        """Names ``x0*x1``, ``sqrt2c*x0``, ``c`` of the output columns.

        <names_out>
        """
        check_is_fitted(self)
        f = _input_names(self, input_features)
        d = len(f)
        if self.compact:
            names = [f"{f[i]}*{f[j]}" for i, j in zip(*np.triu_indices(d))]
        else:
            names = [f"{f[i]}*{f[j]}" for i in range(d) for j in range(d)]
        if self.coef0 > 0:
            names += [f"sqrt2c*{name}" for name in f] + ["c"]
        return np.asarray(names, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


@fill_class_docs(SECTIONS, names_out=_NAMES_OUT)
class DistanceToAnchors(TransformerMixin, BaseEstimator):
    """Distances to fixed anchor points: the notes' hand-made XOR transform.

    Notes B §1.5 (notes D4 Logistic Regression, "Feature Transformation"):
    XOR is not linearly separable in ``x``, but it is in

        x' = (||x - (0, 0)||, ||x - (1, 1)||),

    which sends (0,0) to (0, sqrt 2), (1,1) to (sqrt 2, 0) and both (0,1) and
    (1,0) to (1, 1), so a linear classifier (logistic regression) separates
    the classes. Column ``k`` of the output is ``||x - anchors[k]||_p``.

    Parameters
    ----------
    anchors : array-like of shape (n_anchors, n_features), default=None
        The anchor points; None is the notes' two anchors, the all-zeros and
        the all-ones point.
    p : float, default=2
        Order of the Minkowski norm (``p >= 1``; 2 is the notes' Euclidean).

    Attributes
    ----------
    anchors_ : ndarray of shape (n_anchors, n_features)
        The anchors used.
    <fitted_feature_attributes>

    Notes
    -----
    ``transform`` costs O(n m d) for ``m`` anchors.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.preprocessing import DistanceToAnchors
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> DistanceToAnchors().fit_transform(X).round(4)
    array([[0.    , 1.4142],
           [1.4142, 0.    ],
           [1.    , 1.    ],
           [1.    , 1.    ]])
    """

    _parameter_constraints = {
        "anchors": ["array-like", None],
        "p": [Interval(Real, 1, None, closed="left")],
    }

    def __init__(self, anchors=None, *, p=2):
        self.anchors = anchors
        self.p = p

    def fit(self, X, y=None):
        """Check the anchors against X's width.

        <unsupervised_fit>
        """
        validate_params(self)
        X = validate_data(self, X, dtype=np.float64)
        d = X.shape[1]
        if self.anchors is None:
            anchors = np.vstack([np.zeros(d), np.ones(d)])
        else:
            anchors = np.asarray(self.anchors, dtype=np.float64)
            if anchors.ndim != 2 or anchors.shape[1] != d or anchors.shape[0] == 0:
                raise ValueError(
                    f"anchors must be a non-empty 2-d array with {d} columns (X's "
                    f"features); got shape {anchors.shape}."
                )
            if not np.all(np.isfinite(anchors)):
                raise ValueError("anchors must be finite.")
        self.anchors_ = anchors
        return self

    def transform(self, X):
        """``||x - anchors_[k]||_p`` for every sample and anchor.

        <X_samples>

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_anchors)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        diff = np.abs(X[:, None, :] - self.anchors_[None, :, :])
        # divide by the largest difference before the power: no overflow or
        # underflow for data of any magnitude
        peak = diff.max(axis=2, keepdims=True)
        safe = np.where(peak > 0, peak, 1.0)
        with np.errstate(over="ignore"):
            return peak[:, :, 0] * np.sum((diff / safe) ** self.p, axis=2) ** (1.0 / self.p)

    def get_feature_names_out(self, input_features=None):
        """Names ``anchor0``, ``anchor1``, ... of the output columns.

        <names_out>
        """
        check_is_fitted(self)
        _input_names(self, input_features)
        return np.asarray([f"anchor{k}" for k in range(len(self.anchors_))], dtype=object)
