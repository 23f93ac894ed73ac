"""Data shared by the scaler tests: bundled datasets and hypothesis strategies."""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import load_diabetes, load_wine


def _raw(loader):
    # Raw (unscaled) features: the scalers must see the real column offsets
    # and spreads, not the benchmark's pre-standardised copy.
    return loader(return_X_y=True)[0].astype(np.float64)


DATASETS = {"wine": _raw(load_wine), "diabetes": _raw(load_diabetes)}

dataset = pytest.mark.parametrize("name", sorted(DATASETS))


def with_nan(X, fraction=0.1, seed=0):
    """A copy of X with a fraction of its entries set to NaN (never a whole column)."""
    rng = np.random.RandomState(seed)
    X = X.copy()
    mask = rng.uniform(size=X.shape) < fraction
    mask[0] = False
    X[mask] = np.nan
    return X


def float_matrices(min_rows=2, max_rows=25, max_cols=4, bound=1e3):
    """Finite float64 matrices with moderate values (constant columns possible)."""
    shapes = st.tuples(
        st.integers(min_rows, max_rows), st.integers(1, max_cols)
    )
    elements = st.floats(
        -bound, bound, allow_nan=False, allow_infinity=False, allow_subnormal=False
    )
    return shapes.flatmap(lambda s: arrays(np.float64, s, elements=elements))


def well_spread(X):
    """True if every column's spread is far above rounding error."""
    spread = np.ptp(X, axis=0)
    return bool(np.all(spread > 1e-3 * (1.0 + np.abs(X).max(axis=0))))
