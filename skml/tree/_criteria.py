"""Split criteria as functions (notes A §2.5-2.6, notes B §8).

The trees compute these inside their numba builder; here they are public so
a reader can reproduce the notes' worked tables: the impurity of a node
(:func:`gini_impurity`, :func:`entropy`) and the quality of a multiway split
on an attribute (:func:`weighted_gini`, :func:`information_gain`,
:func:`gain_ratio`), with optional sample weights. Entropies are in bits.
"""

import numpy as np
from sklearn.utils.validation import check_array

__all__ = ["entropy", "gain_ratio", "gini_impurity", "information_gain",
           "weighted_gini"]


def _weights(y, sample_weight):
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"y must be a non-empty 1-d array of labels; got shape "
                         f"{y.shape}.")
    if sample_weight is None:
        return y, np.ones(y.shape[0])
    w = check_array(sample_weight, ensure_2d=False, dtype=np.float64,
                    input_name="sample_weight")
    if w.shape != y.shape:
        raise ValueError(f"sample_weight has shape {w.shape}; y has {y.shape}.")
    if np.any(w < 0) or w.sum() <= 0:
        raise ValueError("sample_weight must be non-negative with a positive sum.")
    return y, w


def _proportions(y, w):
    _, codes = np.unique(y, return_inverse=True)
    totals = np.bincount(codes, weights=w)
    return totals / totals.sum()


def gini_impurity(y, sample_weight=None):
    """Gini impurity of a node, ``1 - Σ_k p_k^2`` (notes A §2.6).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels of the node's samples.
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    gini : float
        In ``[0, 1 - 1/K]`` for ``K`` classes; 0 for a pure node.

    Examples
    --------
    >>> from skml.tree import gini_impurity
    >>> float(gini_impurity(["Up"] * 4 + ["Down"] * 6))
    0.48
    """
    y, w = _weights(y, sample_weight)
    p = _proportions(y, w)
    return float(1.0 - np.dot(p, p))


def entropy(y, sample_weight=None):
    """Entropy of a node in bits, ``-Σ_k p_k log2 p_k`` (notes A §2.6).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    entropy : float

    Examples
    --------
    >>> from skml.tree import entropy
    >>> round(entropy(["Up"] * 4 + ["Down"] * 6), 4)
    0.971
    """
    y, w = _weights(y, sample_weight)
    p = _proportions(y, w)
    p = p[p > 0]
    return float(-np.dot(p, np.log2(p)))


def _split(x, y, sample_weight):
    y, w = _weights(y, sample_weight)
    x = np.asarray(x)
    if x.shape != y.shape:
        raise ValueError(f"x (one attribute) has shape {x.shape}; y has {y.shape}.")
    _, codes = np.unique(x, return_inverse=True)
    return y, w, codes


def _weighted(x, y, sample_weight, impurity):
    y, w, codes = _split(x, y, sample_weight)
    total = w.sum()
    out = 0.0
    for v in range(codes.max() + 1):
        branch = codes == v
        wv = w[branch].sum()
        if wv > 0:
            out += wv / total * impurity(y[branch], w[branch])
    return out


def weighted_gini(x, y, sample_weight=None):
    """``Gini(A) = Σ_a p(A=a) Gini(a)`` of a multiway split on ``x`` (notes A §2.6).

    ID3 with the Gini criterion splits on the attribute of least
    ``Gini(A)``; 0 when the attribute determines the class.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Values of one (categorical) attribute; one branch per value.
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    gini : float

    Examples
    --------
    >>> from skml.tree import weighted_gini
    >>> float(weighted_gini(["a", "a", "b", "b"], [0, 0, 1, 1]))
    0.0
    """
    return _weighted(x, y, sample_weight, gini_impurity)


def information_gain(x, y, sample_weight=None):
    """``IG(A) = H(Y) - Σ_a p(A=a) H(Y | A=a)`` in bits (notes A §2.6).

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Values of one attribute; one branch per value.
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    gain : float

    Examples
    --------
    >>> from skml.tree import information_gain
    >>> float(information_gain(["a", "a", "b", "b"], [0, 0, 1, 1]))
    1.0
    """
    return entropy(y, sample_weight) - _weighted(x, y, sample_weight, entropy)


def gain_ratio(x, y, sample_weight=None):
    """C4.5's gain ratio, ``IG(A) / H(A)`` (notes B §8.6).

    ``H(A)``, the split information, is the entropy of the attribute's own
    values; an attribute with a single value has gain ratio 0.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    ratio : float

    Examples
    --------
    >>> from skml.tree import gain_ratio
    >>> float(gain_ratio(["a", "a", "b", "b"], [0, 0, 1, 1]))
    1.0
    """
    split_info = entropy(x, sample_weight)
    if split_info == 0.0:
        return 0.0
    return information_gain(x, y, sample_weight) / split_info
