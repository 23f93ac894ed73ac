"""Per-feature standardisation statistics that survive extreme magnitudes.

The contrastive encoder and the rectified flow train their networks on
``(X - mean_) / scale_``, which makes them equivariant to a per-feature
affine change of units (``X * 1e300``, ``X + 1e8`` give the same fit) and
keeps the networks' inputs near unit size. The statistics are computed on
``X`` divided by an exact power of two (:mod:`skml.utils._magnitude`), so
squares neither overflow nor underflow.
"""

import numpy as np

from ..utils._magnitude import magnitude_scale

__all__ = ["standard_scaling"]


def standard_scaling(X):
    """``(mean, scale, varies)`` per feature; a constant feature gets scale 1.

    ``varies`` is False for the constant features (spread at rounding level):
    they carry no information and the networks leave them out, so adding
    one changes nothing (not even the random initial weights of the others).
    """
    s = magnitude_scale(X)
    Xs = X / s if s != 1.0 else X
    mean = Xs.mean(axis=0)
    std = np.sqrt(np.mean((Xs - mean) ** 2, axis=0))
    # Spreads at rounding level of the mean count as constant.
    tiny = 1e3 * np.finfo(np.float64).eps * np.maximum(np.abs(mean), np.finfo(float).tiny)
    varies = std > tiny
    std = np.where(varies, std, 1.0 / s if s != 1.0 else 1.0)
    return mean * s, std * s, varies
