"""UnitNormScaler: parity with sklearn's Normalizer and unit-norm rows."""

import numpy as np
import pytest
from hypothesis import given
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn import preprocessing as skp

from skml.preprocessing import UnitNormScaler
from tests._parity import parity_test

from ._strategies import DATASETS, dataset, float_matrices

TOL = dict(rtol=1e-12, atol=1e-12)
NORMS = {
    "l1": lambda Z: np.abs(Z).sum(axis=1),
    "l2": lambda Z: np.linalg.norm(Z, axis=1),
    "max": lambda Z: np.abs(Z).max(axis=1),
}
norms = pytest.mark.parametrize("norm", sorted(NORMS))


@parity_test(UnitNormScaler)
@dataset
@norms
def test_parity_with_sklearn_normalizer(name, norm):
    X = DATASETS[name]
    assert_allclose(
        UnitNormScaler(norm=norm).fit_transform(X),
        skp.Normalizer(norm=norm).fit_transform(X),
        **TOL,
    )


@parity_test(UnitNormScaler)
@norms
@pytest.mark.parametrize(
    "container", [sparse.csr_matrix, sparse.csr_array, sparse.csc_matrix]
)
def test_parity_sparse(norm, container):
    X = DATASETS["diabetes"].copy()
    X[np.random.RandomState(0).uniform(size=X.shape) < 0.6] = 0.0
    X[5] = 0.0
    Xs = container(X)
    Z = UnitNormScaler(norm=norm).fit_transform(Xs)
    assert sparse.issparse(Z) and Z.format == "csr"
    ref = skp.Normalizer(norm=norm).fit_transform(Xs)
    assert_allclose(Z.toarray(), ref.toarray(), **TOL)
    assert_allclose(Z.toarray(), UnitNormScaler(norm=norm).transform(X), **TOL)
    assert_array_equal(Xs.toarray(), X)  # the input is not modified


@norms
@given(X=float_matrices(min_rows=1))
def test_rows_have_unit_norm_and_zero_rows_stay_zero(X, norm):
    X = X.copy()
    X[0] = 0.0
    Z = UnitNormScaler(norm=norm).fit_transform(X)
    row_norms = NORMS[norm](Z)
    nonzero = np.any(X != 0, axis=1)
    assert_allclose(row_norms[nonzero], 1.0, rtol=1e-12)
    assert_array_equal(Z[~nonzero], 0.0)
    # Scaling is per row: a positive multiple of a row maps to the same row.
    Z_scaled = UnitNormScaler(norm=norm).transform(3.5 * X)
    assert_allclose(Z_scaled, Z, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("container", [np.asarray, sparse.csr_matrix])
def test_l2_survives_under_and_overflow_of_squares(container):
    # The squares of these entries underflow to 0 or overflow to inf.
    X = np.array([[3e-200, 4e-200], [3e200, -4e200], [1.0, 0.0]])
    Z = UnitNormScaler().fit_transform(container(X))
    Z = Z.toarray() if sparse.issparse(Z) else Z
    assert_allclose(Z, [[0.6, 0.8], [0.6, -0.8], [1.0, 0.0]], rtol=1e-15)


def test_stateless_and_not_invertible():
    X = np.array([[3.0, 4.0], [0.0, 0.0]])
    # requires_fit=False: transform works on an unfitted instance.
    assert_allclose(UnitNormScaler().transform(X), [[0.6, 0.8], [0.0, 0.0]])
    assert not hasattr(UnitNormScaler(), "inverse_transform")


def test_copy_false_scales_in_place():
    X = np.array([[3.0, 4.0], [1.0, 0.0]])
    Z = UnitNormScaler(copy=False).fit(X).transform(X)
    assert Z is X and X[0, 0] == 0.6


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(DATASETS["wine"][:, :3], columns=["a", "b", "c"])
    out = UnitNormScaler().set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b", "c"]
    assert_allclose(out.to_numpy(), skp.Normalizer().fit_transform(df), **TOL)


def test_bad_input_raises():
    X = DATASETS["wine"].copy()
    with pytest.raises(ValueError, match="norm"):
        UnitNormScaler(norm="l3").fit(X)
    with pytest.raises(ValueError, match="norm"):
        UnitNormScaler(norm="l3").transform(X)
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        UnitNormScaler().fit(X)
