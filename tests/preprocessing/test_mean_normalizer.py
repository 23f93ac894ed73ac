"""MeanNormalizer: the notes' zero-mean + range scaling (notes B §1.3 (c)).

scikit-learn has no such class; parity is against StandardScaler(with_std=False)
followed by a division by the column range computed with numpy.
"""

import numpy as np
import pytest
from hypothesis import assume, given
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn import preprocessing as skp

from skml.preprocessing import MeanNormalizer
from tests._parity import parity_test

from ._strategies import DATASETS, dataset, float_matrices, well_spread, with_nan

TOL = dict(rtol=1e-12, atol=1e-12)


@parity_test(MeanNormalizer)
@dataset
def test_parity_with_centred_standard_scaler(name):
    X = DATASETS[name]
    train, test = X[::2], X[1::2]
    expected = skp.StandardScaler(with_std=False).fit(train).transform(test) / np.ptp(
        train, axis=0
    )
    scaler = MeanNormalizer().fit(train)
    assert_allclose(scaler.transform(test), expected, **TOL)
    assert_allclose(scaler.mean_, train.mean(axis=0), **TOL)
    assert_array_equal(scaler.data_range_, np.ptp(train, axis=0))


@parity_test(MeanNormalizer)
@dataset
def test_parity_weighted_with_nan(name):
    X = with_nan(DATASETS[name])
    w = np.random.RandomState(0).uniform(0.1, 2.0, X.shape[0])
    centred = skp.StandardScaler(with_std=False).fit(X, sample_weight=w).transform(X)
    expected = centred / (np.nanmax(X, axis=0) - np.nanmin(X, axis=0))
    scaler = MeanNormalizer().fit(X, sample_weight=w)
    assert_allclose(scaler.transform(X), expected, **TOL)


def test_worked_example():
    # House sizes (m^2) and bedrooms: mean 100 / 3, ranges 100 / 4.
    X = np.array([[50.0, 1.0], [100.0, 3.0], [150.0, 5.0]])
    scaler = MeanNormalizer().fit(X)
    assert_array_equal(scaler.mean_, [100.0, 3.0])
    assert_array_equal(scaler.data_range_, [100.0, 4.0])
    assert_allclose(scaler.transform(X), [[-0.5, -0.5], [0.0, 0.0], [0.5, 0.5]])
    assert_allclose(scaler.transform([[120.0, 4.0]]), [[0.2, 0.25]])


@given(float_matrices())
def test_mean_zero_and_unit_spread(X):
    assume(well_spread(X))
    Z = MeanNormalizer().fit_transform(X)
    assert_allclose(Z.mean(axis=0), 0.0, atol=1e-9)
    assert_allclose(np.ptp(Z, axis=0), 1.0, rtol=1e-9)
    assert np.all(np.abs(Z) <= 1.0 + 1e-12)


@given(float_matrices())
def test_inverse_transform_undoes_transform(X):
    scaler = MeanNormalizer().fit(X)
    X_back = scaler.inverse_transform(scaler.transform(X))
    assert_allclose(X_back, X, rtol=1e-9, atol=1e-9)


def test_constant_column_gets_range_one():
    X = np.array([[2.0, 1.0], [2.0, 3.0]])
    scaler = MeanNormalizer().fit(X)
    assert scaler.scale_[0] == 1.0 and scaler.data_range_[0] == 0.0
    assert_array_equal(scaler.transform(X)[:, 0], 0.0)


def test_sample_weight_equals_repeated_rows():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 3))
    X[0] = 50.0  # an extreme row of zero weight must not set the range
    w = rng.randint(1, 4, size=30)
    w[0] = 0
    weighted = MeanNormalizer().fit(X, sample_weight=w)
    repeated = MeanNormalizer().fit(np.repeat(X, w, axis=0))
    assert_allclose(weighted.mean_, repeated.mean_, rtol=1e-12)
    assert_array_equal(weighted.data_range_, repeated.data_range_)
    assert weighted.n_samples_seen_ == w.sum()


@pytest.mark.parametrize("weighted", [False, True])
def test_partial_fit_on_chunks_equals_fit(weighted):
    X = with_nan(DATASETS["diabetes"])
    w = np.random.RandomState(1).uniform(0, 2, X.shape[0]) if weighted else None
    full = MeanNormalizer().fit(X, sample_weight=w)
    chunked = MeanNormalizer()
    for idx in np.array_split(np.arange(X.shape[0]), [1, 60, 61, 250]):
        chunked.partial_fit(X[idx], sample_weight=None if w is None else w[idx])
    assert_allclose(chunked.mean_, full.mean_, rtol=1e-12, atol=1e-15)
    assert_array_equal(chunked.data_range_, full.data_range_)
    assert_allclose(chunked.n_samples_seen_, full.n_samples_seen_, rtol=1e-12)


def test_nan_is_ignored_in_fit_and_kept_in_transform():
    X = np.array([[1.0, np.nan], [3.0, 2.0], [np.nan, 6.0]])
    scaler = MeanNormalizer().fit(X)
    assert_array_equal(scaler.mean_, [2.0, 4.0])
    assert_array_equal(scaler.n_samples_seen_, [2, 2])
    assert_array_equal(np.isnan(scaler.transform(X)), np.isnan(X))


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(DATASETS["wine"][:, :3], columns=["a", "b", "c"])
    out = MeanNormalizer().set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b", "c"]
    assert_allclose(out.to_numpy(), MeanNormalizer().fit_transform(df.to_numpy()))


def test_bad_input_raises():
    X = DATASETS["wine"]
    with pytest.raises(TypeError, match="sparse"):
        MeanNormalizer().fit(sparse.csr_matrix(X))
    with pytest.raises(ValueError, match="zero"):
        MeanNormalizer().fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError, match="sample_weight"):
        MeanNormalizer().fit(X, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="features"):
        MeanNormalizer().fit(X).transform(X[:, :2])
