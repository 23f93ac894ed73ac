"""The shared numba kernels of skml.utils._kernels."""

import numpy as np
import pytest

from skml.cluster import _kmeans_kernels
from skml.linear_model import _lasso_kernels
from skml.utils._kernels import dot


@pytest.mark.parametrize("n", [0, 1, 3, 17, 64, 1001])
def test_dot_matches_numpy(n):
    rng = np.random.RandomState(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    expected = float(np.dot(a, b))
    # Reassociated sum: equal to numpy up to rounding of n terms.
    bound = 4 * n * np.finfo(float).eps * float(np.abs(a) @ np.abs(b))
    assert abs(dot(a, b) - expected) <= bound
    assert dot(a, b) == dot(a, b)


def test_dot_of_strided_views():
    A = np.arange(24.0).reshape(4, 6)
    # Rows, columns (strided) and reversed views: no copy needed by callers.
    assert dot(A[1], A[2]) == float(A[1] @ A[2])
    assert dot(A[:, 1], A[:, 3]) == float(A[:, 1] @ A[:, 3])
    assert dot(A[0, ::-1], A[0]) == float(A[0, ::-1] @ A[0])


def test_dot_is_shared_by_the_kernels():
    # One definition (issue 26): k-means and the lasso use the same kernel.
    assert _kmeans_kernels.dot is dot
    assert _lasso_kernels.dot is dot
    assert not hasattr(_kmeans_kernels, "_dot")
    assert not hasattr(_lasso_kernels, "_dot")
