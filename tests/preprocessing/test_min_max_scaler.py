"""MinMaxScaler: parity with scikit-learn and range scaling (notes B §1.3 (a))."""

import numpy as np
import pytest
from hypothesis import given
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn import preprocessing as skp

from skml.preprocessing import MinMaxScaler
from tests._parity import parity_test

from ._strategies import DATASETS, dataset, float_matrices, with_nan

TOL = dict(rtol=1e-12, atol=1e-12)
ATTRIBUTES = ("data_min_", "data_max_", "data_range_", "scale_", "min_")


@parity_test(MinMaxScaler)
@dataset
@pytest.mark.parametrize(
    "params",
    [{}, {"feature_range": (-1, 2)}, {"clip": True}, {"feature_range": (0.5, 0.75)}],
)
def test_parity_with_sklearn(name, params):
    X = DATASETS[name]
    train, test = X[::2], X[1::2]  # test rows fall outside the fitted range
    ours = MinMaxScaler(**params).fit(train)
    ref = skp.MinMaxScaler(**params).fit(train)
    for attribute in ATTRIBUTES:
        assert_allclose(getattr(ours, attribute), getattr(ref, attribute), **TOL)
    assert ours.n_samples_seen_ == ref.n_samples_seen_
    Z = ours.transform(test)
    assert_allclose(Z, ref.transform(test), **TOL)
    assert_allclose(ours.inverse_transform(Z), ref.inverse_transform(Z), **TOL)


@parity_test(MinMaxScaler)
@dataset
def test_parity_with_nan(name):
    X = with_nan(DATASETS[name])
    ours, ref = MinMaxScaler().fit(X), skp.MinMaxScaler().fit(X)
    for attribute in ATTRIBUTES:
        assert_allclose(getattr(ours, attribute), getattr(ref, attribute), **TOL)
    assert_allclose(ours.transform(X), ref.transform(X), **TOL)


@given(float_matrices())
def test_training_data_span_the_range(X):
    Z = MinMaxScaler(feature_range=(-2, 3)).fit_transform(X)
    # As in scikit-learn, a range below 10 eps counts as a constant column.
    constant = np.ptp(X, axis=0) < 10 * np.finfo(np.float64).eps
    assert_allclose(Z.min(axis=0)[~constant], -2.0, atol=1e-12)
    assert_allclose(Z.max(axis=0)[~constant], 3.0, rtol=1e-12)
    assert np.all((Z >= -2 - 1e-12) & (Z <= 3 + 1e-12))


@given(float_matrices())
def test_inverse_transform_undoes_transform(X):
    scaler = MinMaxScaler().fit(X)
    X_back = scaler.inverse_transform(scaler.transform(X))
    assert_allclose(X_back, X, rtol=1e-9, atol=1e-9)


def test_worked_example_and_clip():
    X = np.array([[1.0, -1.0], [3.0, 0.0], [5.0, 1.0]])
    scaler = MinMaxScaler().fit(X)
    assert_array_equal(scaler.transform(X), [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
    assert_array_equal(scaler.transform([[7.0, -3.0]]), [[1.5, -1.0]])
    clipped = MinMaxScaler(clip=True).fit(X)
    assert_array_equal(clipped.transform([[7.0, -3.0]]), [[1.0, 0.0]])


def test_partial_fit_on_chunks_equals_fit():
    X = with_nan(DATASETS["diabetes"])
    full = MinMaxScaler().fit(X)
    chunked = MinMaxScaler()
    for chunk in np.array_split(X, [1, 50, 51, 300]):
        chunked.partial_fit(chunk)
    for attribute in ATTRIBUTES:
        assert_array_equal(getattr(chunked, attribute), getattr(full, attribute))
    assert chunked.n_samples_seen_ == X.shape[0]


def test_constant_column_maps_to_range_minimum():
    X = np.array([[4.0, 1.0], [4.0, 2.0]])
    scaler = MinMaxScaler(feature_range=(-1, 1)).fit(X)
    assert scaler.scale_[0] == 2.0 and scaler.data_range_[0] == 0.0
    assert_array_equal(scaler.transform(X)[:, 0], -1.0)


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(DATASETS["wine"][:, :3], columns=["a", "b", "c"])
    out = MinMaxScaler().set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b", "c"]
    assert_allclose(out.to_numpy(), skp.MinMaxScaler().fit_transform(df), **TOL)


def test_float16_is_preserved_as_scikit_learn_does():
    X = DATASETS["wine"][:, :5].astype(np.float16)
    assert MinMaxScaler().fit_transform(X).dtype == np.float16


def test_float32_is_preserved():
    X = DATASETS["wine"].astype(np.float32)
    assert MinMaxScaler().fit_transform(X).dtype == np.float32


@pytest.mark.parametrize("feature_range", [(1, 1), (2, 0), (0, 1, 2), (0, np.inf)])
def test_bad_feature_range(feature_range):
    with pytest.raises(ValueError, match="feature_range"):
        MinMaxScaler(feature_range=feature_range).fit(DATASETS["wine"])


def test_bad_input_raises():
    X = DATASETS["wine"]
    with pytest.raises(TypeError, match="sparse"):
        MinMaxScaler().fit(sparse.csr_matrix(X))
    with pytest.raises(TypeError, match="sparse"):
        MinMaxScaler().fit(X).transform(sparse.csr_matrix(X))
    with pytest.raises(ValueError, match="feature_range"):
        MinMaxScaler(feature_range=[0, 1]).fit(X)
    X_inf = X.copy()
    X_inf[3, 2] = -np.inf
    with pytest.raises(ValueError, match="infinity"):
        MinMaxScaler().fit(X_inf)
