"""Parity (Walsh) features of Boolean inputs: the Fourier basis of {-1, 1}^n."""

from itertools import combinations

import numpy as np

__all__ = ["check_boolean", "feature_sets", "parity_features"]


def check_boolean(X):
    """``X`` as a ±1 array: {0, 1} inputs map by ``x -> (-1)^x`` (0 -> +1).

    Raises a ValueError naming the values when ``X`` is neither {0, 1} nor
    {-1, 1} valued.
    """
    values = np.unique(X)
    if np.all(np.isin(values, (0, 1))):
        return 1.0 - 2.0 * X
    if np.all(np.isin(values, (-1, 1))):
        return X.astype(float, copy=True)
    raise ValueError(
        "X must be Boolean: every entry in {0, 1} or every entry in {-1, 1}; found "
        f"values {values[:6].tolist()}{' ...' if len(values) > 6 else ''}.")


def feature_sets(n_features, degree):
    """Every subset S of ``range(n_features)`` with ``|S| <= degree``, by size."""
    return [S for k in range(min(degree, n_features) + 1)
            for S in combinations(range(n_features), k)]


def parity_features(Z, sets):
    """``Phi[i, j] = chi_{S_j}(z_i) = prod_{k in S_j} z_ik`` for ±1 rows ``Z``."""
    Phi = np.empty((Z.shape[0], len(sets)))
    for j, S in enumerate(sets):
        Phi[:, j] = np.prod(Z[:, list(S)], axis=1) if S else 1.0
    return Phi
