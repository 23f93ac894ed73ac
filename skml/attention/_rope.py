r"""Rotary position embedding, RoPE (notes A §14.2).

A vector at position :math:`m` is rotated block by block,
:math:`f(x, m) = R^d_{\Theta, m} x`, with 2x2 rotations by :math:`m \theta_i`,
:math:`\theta_i = b^{-2(i-1)/d}`, :math:`i = 1..d/2` (:math:`b = 10000`). As
rotations compose, :math:`(R_m q)^\top (R_n k) = q^\top R_{n-m} k`: attention
scores of rotated queries and keys depend on the positions only through
:math:`m - n`.

Two pairings of the coordinates are in use: the notes' **interleaved** pairs
``(2i, 2i+1)`` (RoFormer, ``rotary-embedding-torch``) and the **half-split**
pairs ``(i, i + d/2)`` of GPT-NeoX / Llama (``rotate_half``); they differ by a
fixed permutation of the coordinates.
"""

import numbers
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import check_array

from skml.utils import Interval, validate_params

from ..utils.validation import validate_data
from ._functional import _check_base, _check_int

__all__ = ["RotaryPositionalEncoding", "apply_rope", "rope_frequencies", "rope_matrix"]


def rope_frequencies(d, base=10000.0):
    r"""The RoPE angles per unit of position, :math:`\theta_i = b^{-2i/d}`.

    Notes A §14.2 (with :math:`i` from 0): for ``d = 8``, (1, 0.1, 0.01, 0.001).

    Parameters
    ----------
    d : int
        Even dimension.
    base : float, default=10000.0

    Returns
    -------
    theta : ndarray of shape (d // 2,)

    Examples
    --------
    >>> from skml.attention import rope_frequencies
    >>> rope_frequencies(4)
    array([1.  , 0.01])
    """
    d = _check_int("d", d, 2)
    if d % 2:
        raise ValueError(f"RoPE rotates pairs of coordinates: d must be even; got d={d}.")
    base = _check_base(base)
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)


def _angles(T, d, positions, base):
    theta = rope_frequencies(d, base)
    if positions is None:
        positions = np.arange(T, dtype=np.float64)
    else:
        positions = np.asarray(positions)
        if not np.issubdtype(positions.dtype, np.number) or np.iscomplexobj(positions):
            raise TypeError(f"positions must be numbers; got dtype {positions.dtype}.")
        positions = positions.astype(np.float64)
        if positions.ndim != 1 or positions.shape[0] != T:
            raise ValueError(f"positions must have shape ({T},), one per row of X; "
                             f"got {positions.shape}.")
        if not np.all(np.isfinite(positions)):
            raise ValueError("positions must be finite.")
    return np.multiply.outer(positions, theta)  # (T, d/2)


def _rotate(X, cos, sin, interleaved):
    """Rotate the pairs of the last axis of ``X`` by angles with ``cos``, ``sin``."""
    out = np.empty_like(X)
    if interleaved:
        a, b = X[..., 0::2], X[..., 1::2]
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
    else:
        h = X.shape[-1] // 2
        a, b = X[..., :h], X[..., h:]
        out[..., :h] = a * cos - b * sin
        out[..., h:] = a * sin + b * cos
    return out


def apply_rope(X, positions=None, base=10000.0, interleaved=True):
    r"""Rotate each row of ``X`` by the RoPE rotation of its position.

    Notes A §14.2: row :math:`m` becomes :math:`R^d_{\Theta,m} x_m`.

    Parameters
    ----------
    X : array-like of shape (..., T, d)
        ``d`` even; the second-last axis indexes the positions.
    positions : array-like of shape (T,), default=None
        Position of each row; None is 0..T-1.
    base : float, default=10000.0
    interleaved : bool, default=True
        Pair coordinates ``(2i, 2i+1)`` as the notes (True), or ``(i, i+d/2)``
        as GPT-NeoX / Llama's ``rotate_half`` (False).

    Returns
    -------
    X_rot : ndarray of the shape of ``X``

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import apply_rope
    >>> apply_rope(np.array([[1.0, 0.0], [1.0, 0.0]])).round(4)  # angles 0 and 1
    array([[1.    , 0.    ],
           [0.5403, 0.8415]])
    """
    X = np.asarray(X)
    if X.ndim < 2:
        raise ValueError(f"X must have shape (..., T, d); got {X.shape}.")
    if not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X):
        raise TypeError(f"X must hold real numbers; got dtype {X.dtype}.")
    X = X.astype(np.result_type(X, np.float32), copy=False)
    ang = _angles(X.shape[-2], X.shape[-1], positions, base)
    cos, sin = np.cos(ang).astype(X.dtype), np.sin(ang).astype(X.dtype)
    return _rotate(X, cos, sin, bool(interleaved))


def rope_matrix(m, d, base=10000.0, interleaved=True):
    r"""The ``(d, d)`` block rotation :math:`R^d_{\Theta,m}` of position ``m``.

    ``apply_rope`` of a row at position ``m`` equals ``rope_matrix(m, d) @ x``;
    :math:`R_m^\top R_n = R_{n-m}` and :math:`R_0 = I` (notes A §14.2).

    Parameters
    ----------
    m : float
        Position.
    d : int
        Even dimension.
    base : float, default=10000.0
    interleaved : bool, default=True

    Returns
    -------
    R : ndarray of shape (d, d)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import rope_matrix
    >>> np.allclose(rope_matrix(0, 4), np.eye(4))
    True
    >>> np.allclose(rope_matrix(2, 4).T @ rope_matrix(5, 4), rope_matrix(3, 4))
    True
    """
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, numbers.Real):
        raise TypeError(f"m must be a number; got {m!r}.")
    ang = float(m) * rope_frequencies(d, base)
    c, s = np.cos(ang), np.sin(ang)
    i = np.arange(d // 2)
    a, b = (2 * i, 2 * i + 1) if interleaved else (i, i + d // 2)
    R = np.zeros((d, d))
    R[a, a], R[a, b], R[b, a], R[b, b] = c, -s, s, c
    return R


class RotaryPositionalEncoding(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    r"""Stateless RoPE transformer over flattened sequences (notes A §14.2).

    Each row of ``X`` holds one sequence written position by position:
    ``T = n_features // d`` vectors of size ``d``. ``transform`` rotates the
    vector at position :math:`m` (or ``positions[m]``) by
    :math:`R^d_{\Theta,m}`, like :func:`apply_rope` on the reshaped row.
    Nothing is learnt: ``fit`` only checks the input, and ``transform`` works
    unfitted (as ``FunctionTransformer``). With the default ``d = 2`` each
    pair of features is one position, rotated by the angle :math:`m` (the
    notes' 2-D case, :math:`\theta = 1`).

    Rows are samples, never positions, so the output of a row does not
    depend on the other rows (cross-validation and pipelines may reorder
    them).

    Parameters
    ----------
    d : int, default=2
        Even size of the vector at each position.
    base : float, default=10000.0
        :math:`b` in :math:`\theta_i = b^{-2i/d}`.
    interleaved : bool, default=True
        Pairs ``(2i, 2i+1)`` (the notes) or ``(i, i+d/2)`` (half-split) within
        each position's vector.

    Attributes
    ----------
    n_features_in_ : int
        Set by ``fit``.

    See Also
    --------
    apply_rope : The same rotation on arrays of shape (..., T, d).

    Notes
    -----
    When ``d`` does not divide ``n_features``, the last ``n_features % d``
    features are passed through unrotated. Time :math:`O(n \cdot
    n_{features})`.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import RotaryPositionalEncoding
    >>> X = np.ones((2, 8))
    >>> Z = RotaryPositionalEncoding(d=4).fit_transform(X)
    >>> np.allclose(np.linalg.norm(Z, axis=1), np.linalg.norm(X, axis=1))
    True
    """

    _parameter_constraints = {
        "d": [Interval(Integral, 2, None, closed="left")],
        "base": [numbers.Real],
        "interleaved": ["boolean"],
    }

    def __init__(self, d=2, base=10000.0, interleaved=True):
        self.d = d
        self.base = base
        self.interleaved = interleaved

    def _check_params(self):
        validate_params(self)
        if self.d % 2:
            raise ValueError(f"RoPE rotates pairs of coordinates: d must be even; "
                             f"got d={self.d}.")
        _check_base(self.base)

    def fit(self, X, y=None):
        """Check ``X`` and record ``n_features_in_``; returns self."""
        self._check_params()
        validate_data(self, X, reset=True, dtype=[np.float64, np.float32])
        return self

    def transform(self, X, positions=None):
        """Rotate the vector at position ``m`` of every row by ``R_m``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        positions : array-like of shape (n_features // d,), default=None
            Position of each vector of a row; None is 0..T-1.

        Returns
        -------
        X_rot : ndarray of shape (n_samples, n_features)
        """
        self._check_params()
        if hasattr(self, "n_features_in_"):
            X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        else:  # stateless: unfitted, only the input is checked
            X = check_array(X, dtype=[np.float64, np.float32])
        d = self.d
        T = X.shape[1] // d
        out = X.copy()
        if T:
            ang = _angles(T, d, positions, self.base)
            cos, sin = np.cos(ang).astype(X.dtype), np.sin(ang).astype(X.dtype)
            seq = X[:, :T * d].reshape(X.shape[0], T, d)
            out[:, :T * d] = _rotate(seq, cos, sin, self.interleaved).reshape(
                X.shape[0], T * d)
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        tags.input_tags.sparse = False
        return tags
