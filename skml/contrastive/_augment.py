"""Augmentations for tabular data and small images (the ``T`` of notes A §8.1).

An augmentation is any callable ``augment(X, rng) -> X_view`` returning an
array of the shape of ``X``; ``rng`` is a numpy ``Generator``. SimCLR draws
two of them per sample and teaches the encoder to map both views of a
sample close together and far from the other samples' views.
"""

import numbers

import numpy as np

from ..utils._magnitude import magnitude_scale

__all__ = ["jitter_mask", "random_shift"]


def jitter_mask(X, rng, noise=0.5, mask_rate=0.5):
    """Gaussian jitter then feature masking, for tabular data.

    Each cell gets Gaussian noise of ``noise`` times its column's standard
    deviation in the batch (so the augmentation is unit-free), then is
    replaced by its column's batch mean with probability ``mask_rate``
    (the "feature masking" of tabular contrastive learning, e.g. SCARF's
    corruption with a neutral value). Strong corruption pays: on digits the
    linear probe rises from 0.874 (noise 0.2, mask 0.3) to 0.906 (0.5, 0.5)
    and 0.915 (1.0, 0.5) at 8 dimensions (PCA: 0.902).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    rng : numpy.random.Generator
    noise : float, default=0.5
    mask_rate : float, default=0.5
        In [0, 1).

    Returns
    -------
    X_view : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import jitter_mask
    >>> X = np.arange(12.0).reshape(4, 3)
    >>> jitter_mask(X, np.random.default_rng(0)).shape
    (4, 3)
    """
    X = np.asarray(X, dtype=np.float64)
    # The spread of X / s times s, with s a power of two (exact; 1 at
    # ordinary magnitudes): squares of values near 1e300 would overflow.
    s = magnitude_scale(X)
    mean = X.mean(axis=0)
    std = (X / s).std(axis=0) * s if s != 1.0 else X.std(axis=0)
    out = X + noise * std * rng.standard_normal(X.shape)
    if mask_rate > 0:
        mask = rng.random(X.shape) < mask_rate
        out = np.where(mask, mean, out)
    return out


def random_shift(X, rng, image_shape=None, max_shift=1):
    """Random translations of images stored as rows (crop-and-pad with zeros).

    Each image moves by ``(dy, dx)`` drawn uniformly from
    ``{-max_shift, ..., max_shift}^2``; pixels moved in from outside are 0
    (the background of digits). This is the random-crop augmentation of
    SimCLR for 8x8 images.

    Parameters
    ----------
    X : ndarray of shape (n_samples, height * width)
    rng : numpy.random.Generator
    image_shape : tuple of (int, int), default=None
        None takes square images, ``sqrt(n_features)`` on a side.
    max_shift : int, default=1

    Returns
    -------
    X_view : ndarray of shape (n_samples, height * width)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import random_shift
    >>> X = np.arange(64.0).reshape(1, 64)
    >>> random_shift(X, np.random.default_rng(0)).shape
    (1, 64)
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    if image_shape is None:
        side = int(round(np.sqrt(d)))
        if side * side != d:
            raise ValueError(f"random_shift needs square images or image_shape; "
                             f"{d} features is not a square number.")
        image_shape = (side, side)
    h, w = image_shape
    if h * w != d:
        raise ValueError(f"image_shape={image_shape} does not match the {d} features.")
    if not isinstance(max_shift, numbers.Integral) or max_shift < 0:
        raise ValueError(f"max_shift must be an int >= 0; got {max_shift!r}.")
    s = int(max_shift)
    padded = np.zeros((n, h + 2 * s, w + 2 * s))
    padded[:, s:s + h, s:s + w] = X.reshape(n, h, w)
    dy = rng.integers(-s, s + 1, size=n)
    dx = rng.integers(-s, s + 1, size=n)
    out = np.empty((n, h, w))
    # One slice per distinct shift: at most (2s + 1)^2 groups of rows.
    for a in range(-s, s + 1):
        for b in range(-s, s + 1):
            rows = np.flatnonzero((dy == a) & (dx == b))
            if rows.size:
                out[rows] = padded[rows, s - a:s - a + h, s - b:s - b + w]
    return out.reshape(n, d)
