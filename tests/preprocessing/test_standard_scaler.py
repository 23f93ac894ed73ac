"""StandardScaler: parity with scikit-learn and the z-score (notes B §1.3 (b), (d))."""

import numpy as np
import pytest
from hypothesis import assume, given
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn import preprocessing as skp

from skml.preprocessing import StandardScaler
from tests._parity import parity_test

from ._strategies import DATASETS, dataset, float_matrices, well_spread, with_nan

TOL = dict(rtol=1e-12, atol=1e-12)


def _assert_same_fit(ours, ref):
    for name in ("mean_", "var_", "scale_"):
        a, b = getattr(ours, name), getattr(ref, name)
        if b is None:
            assert a is None, name
        else:
            assert_allclose(a, b, **TOL, err_msg=name)
    assert_allclose(ours.n_samples_seen_, ref.n_samples_seen_, rtol=1e-12)
    assert np.ndim(ours.n_samples_seen_) == np.ndim(ref.n_samples_seen_)


@parity_test(StandardScaler)
@dataset
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"with_std": False},
        {"with_mean": False},
        {"with_mean": False, "with_std": False},
    ],
)
def test_parity_with_sklearn(name, params):
    X = DATASETS[name]
    ours = StandardScaler(**params).fit(X)
    ref = skp.StandardScaler(**params).fit(X)
    _assert_same_fit(ours, ref)
    Z = ours.transform(X)
    assert_allclose(Z, ref.transform(X), **TOL)
    assert_allclose(ours.inverse_transform(Z), ref.inverse_transform(Z), **TOL)


@parity_test(StandardScaler)
@dataset
def test_parity_weighted_and_nan(name):
    X = with_nan(DATASETS[name])
    w = np.random.RandomState(1).uniform(0.1, 3.0, size=X.shape[0])
    ours = StandardScaler().fit(X, sample_weight=w)
    ref = skp.StandardScaler().fit(X, sample_weight=w)
    _assert_same_fit(ours, ref)
    assert_allclose(ours.transform(X), ref.transform(X), **TOL)
    assert np.array_equal(np.isnan(ours.transform(X)), np.isnan(X))


@parity_test(StandardScaler)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("weighted", [False, True])
def test_parity_sparse(fmt, weighted):
    X = with_nan(DATASETS["wine"], 0.05)
    X[np.random.RandomState(2).uniform(size=X.shape) < 0.5] = 0.0
    Xs = sparse.csr_matrix(X).asformat(fmt)
    w = np.random.RandomState(3).uniform(0.1, 3.0, X.shape[0]) if weighted else None
    ours = StandardScaler(with_mean=False).fit(Xs, sample_weight=w)
    ref = skp.StandardScaler(with_mean=False).fit(Xs, sample_weight=w)
    _assert_same_fit(ours, ref)
    # Dense and sparse input give the same statistics.
    dense = StandardScaler(with_mean=False).fit(X, sample_weight=w)
    assert_allclose(ours.var_, dense.var_, rtol=1e-12)
    Z = ours.transform(Xs)
    assert sparse.issparse(Z) and Z.format == "csr"
    assert_allclose(Z.toarray(), ref.transform(Xs).toarray(), **TOL)
    assert_allclose(ours.inverse_transform(Z).toarray(), Xs.toarray(), **TOL)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("weighted", [False, True])
def test_sparse_without_stored_entries(fmt, weighted):
    # No stored value at all: the column sums of nothing were int64 (issue 19).
    Xs = sparse.csr_matrix((3, 2)).asformat(fmt)
    w = np.array([0.5, 1.0, 2.0]) if weighted else None
    ours = StandardScaler(with_mean=False).fit(Xs, sample_weight=w)
    ref = skp.StandardScaler(with_mean=False).fit(Xs, sample_weight=w)
    _assert_same_fit(ours, ref)
    assert ours.transform(Xs).nnz == 0


# scikit-learn's dense weighted variance of a constant column can be -7e-47.
@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_weighted_constant_columns_are_not_scaled(fmt, dtype):
    # Issue 19: the weight of the implicit zeros, taken as sum(w) minus the
    # stored weight, kept a rounding error that made a constant column look
    # variable (scale_ 1.2e-6, values 100 scaled to 8e7).
    rng = np.random.RandomState(0)
    n = 100
    w = rng.uniform(size=n) * 2
    w[::7] = 0.0
    X = np.empty((n, 4), dtype=dtype)
    X[:, 0] = 100.0
    X[:, 1] = 1.0
    X[:, 2] = rng.normal(size=n) * (rng.uniform(size=n) < 0.5)
    X[:, 3] = np.where(w == 0, 0.0, 7.0)  # constant where the weight is positive
    Xs = sparse.csr_matrix(X).asformat(fmt)
    ours = StandardScaler(with_mean=False).fit(Xs, sample_weight=w)
    dense = StandardScaler(with_mean=False).fit(X, sample_weight=w)
    ref = skp.StandardScaler(with_mean=False).fit(X, sample_weight=w)
    assert_array_equal(ours.scale_[[0, 1, 3]], 1.0)
    assert_allclose(ours.scale_, dense.scale_, rtol=1e-6)
    assert_allclose(ours.scale_, ref.scale_, rtol=1e-6)
    assert_allclose(ours.var_, dense.var_, rtol=1e-6, atol=1e-30)
    assert_allclose(ours.transform(Xs).toarray(), dense.transform(X), rtol=1e-6)


@given(float_matrices())
def test_zscore_has_mean_zero_and_std_one(X):
    assume(well_spread(X))
    Z = StandardScaler().fit_transform(X)
    assert_allclose(Z.mean(axis=0), 0.0, atol=1e-9)
    assert_allclose(Z.std(axis=0), 1.0, rtol=1e-9)


@given(float_matrices())
def test_inverse_transform_undoes_transform(X):
    for params in ({}, {"with_std": False}, {"with_mean": False}):
        scaler = StandardScaler(**params).fit(X)
        X_back = scaler.inverse_transform(scaler.transform(X))
        assert_allclose(X_back, X, rtol=1e-9, atol=1e-9)


def test_zero_mean_variant_and_constant_column():
    X = np.array([[1.0, 7.0], [2.0, 7.0], [6.0, 7.0]])
    scaler = StandardScaler(with_std=False).fit(X)
    assert_array_equal(scaler.transform(X), X - [3.0, 7.0])
    scaler = StandardScaler().fit(X)
    assert scaler.scale_[1] == 1.0 and scaler.var_[1] == 0.0
    assert_array_equal(scaler.transform(X)[:, 1], 0.0)


def test_sample_weight_equals_repeated_rows():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 4)) * [1, 10, 100, 0.1]
    w = rng.randint(0, 4, size=30)
    weighted = StandardScaler().fit(X, sample_weight=w)
    repeated = StandardScaler().fit(np.repeat(X, w, axis=0))
    assert_allclose(weighted.mean_, repeated.mean_, rtol=1e-12)
    assert_allclose(weighted.var_, repeated.var_, rtol=1e-12)
    assert weighted.n_samples_seen_ == w.sum()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("nan", [False, True])
def test_partial_fit_on_chunks_equals_fit(weighted, nan):
    X = DATASETS["diabetes"]
    X = with_nan(X) if nan else X
    w = np.random.RandomState(4).uniform(0, 2, X.shape[0]) if weighted else None
    full = StandardScaler().fit(X, sample_weight=w)
    chunked = StandardScaler()
    for idx in np.array_split(np.arange(X.shape[0]), [1, 40, 41, 200]):
        chunked.partial_fit(X[idx], sample_weight=None if w is None else w[idx])
    assert_allclose(chunked.mean_, full.mean_, rtol=1e-12, atol=1e-15)
    assert_allclose(chunked.var_, full.var_, rtol=1e-12)
    assert_allclose(chunked.n_samples_seen_, full.n_samples_seen_, rtol=1e-12)


def test_partial_fit_is_stable_with_a_large_offset():
    # The naive E[x^2] - E[x]^2 loses every digit here; the pairwise update
    # keeps the variance of the small fluctuations.
    rng = np.random.RandomState(0)
    X = 1e9 + rng.normal(size=(10_000, 2))
    scaler = StandardScaler()
    for chunk in np.array_split(X, 37):
        scaler.partial_fit(chunk)
    assert_allclose(scaler.var_, np.var(X - 1e9, axis=0), rtol=1e-6)


def test_column_of_all_nan_chunk_keeps_previous_statistics():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    scaler = StandardScaler().partial_fit(X)
    scaler.partial_fit(np.array([[np.nan, 6.0]]))
    assert_allclose(scaler.mean_, [2.0, 4.0])
    assert_allclose(scaler.var_, [1.0, 8.0 / 3.0])
    assert_array_equal(scaler.n_samples_seen_, [2, 3])


def test_feature_scaling_speeds_up_gradient_descent():
    # Notes D4 "Tip 4": scaling makes the loss contours round, so gradient
    # descent needs far fewer steps on the same least-squares problem.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(200, 2)) * [1.0, 10.0]
    y = X @ [2.0, -0.1] + 3.0

    def gd_steps(features):
        A = np.column_stack([features, np.ones(len(features))])
        step = 1.0 / np.linalg.eigvalsh(A.T @ A / len(A)).max()
        theta = np.zeros(3)
        for it in range(1, 20_000):
            grad = A.T @ (A @ theta - y) / len(A)
            if np.linalg.norm(grad) < 1e-6:
                return it
            theta -= step * grad
        return it

    assert 20 * gd_steps(StandardScaler().fit_transform(X)) < gd_steps(X)


def test_float32_is_preserved():
    X = DATASETS["wine"].astype(np.float32)
    Z = StandardScaler().fit_transform(X)
    assert Z.dtype == np.float32
    assert_allclose(Z, skp.StandardScaler().fit_transform(X), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("sample_weight", [None, "ones"])
def test_float16_is_preserved_as_scikit_learn_does(sample_weight):
    # scikit-learn keeps float16 (its FLOAT_DTYPES); skml used to return float64.
    X = np.random.RandomState(0).randn(10, 3).astype(np.float16)
    weights = None if sample_weight is None else np.ones(len(X))
    scaler = StandardScaler().fit(X, sample_weight=weights)
    Z = scaler.transform(X)
    assert Z.dtype == np.float16
    assert scaler.mean_.dtype == scaler.scale_.dtype == np.float64
    expected = skp.StandardScaler().fit(X, sample_weight=weights).transform(X)
    assert_allclose(Z.astype(np.float64), expected.astype(np.float64), atol=2e-3)
    assert scaler.inverse_transform(Z).dtype == np.float16


def test_copy_false_scales_in_place():
    X = DATASETS["wine"].copy()
    scaler = StandardScaler(copy=False).fit(X)
    Z = scaler.transform(X)
    assert Z is X
    X2 = DATASETS["wine"].copy()
    assert scaler.transform(X2, copy=True) is not X2
    assert_array_equal(X2, DATASETS["wine"])


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(DATASETS["wine"][:, :3], columns=["a", "b", "c"])
    out = StandardScaler().set_output(transform="pandas").fit_transform(df)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["a", "b", "c"]
    assert_allclose(out.to_numpy(), skp.StandardScaler().fit_transform(df), **TOL)


def test_bad_input_raises():
    X = DATASETS["wine"]
    with pytest.raises(ValueError, match="sparse"):
        StandardScaler().fit(sparse.csr_matrix(X))
    scaler = StandardScaler(with_mean=False).fit(X)
    with pytest.raises(ValueError, match="sparse"):
        StandardScaler().fit(X).transform(sparse.csr_matrix(X))
    X_inf = X.copy()
    X_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        StandardScaler().fit(X_inf)
    with pytest.raises(ValueError, match="zero"):
        StandardScaler().fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError, match="features"):
        scaler.transform(X[:, :3])
    with pytest.raises(ValueError, match="with_std"):
        StandardScaler(with_std="yes").fit(X)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("with_mean", [True, False])
def test_extreme_magnitude_gives_the_same_z_scores(factor, with_mean):
    # Issue 23: at X * 1e300 the squared deviations overflowed and transform
    # returned NaN (scikit-learn's too). The z-scores do not depend on the
    # unit: computed on X / 2^e and mapped back, they match the clean ones.
    X = np.random.RandomState(0).normal(size=(50, 3)) * [1.0, 5.0, 0.1] + 2.0
    ref = StandardScaler(with_mean=with_mean).fit_transform(X)
    scaler = StandardScaler(with_mean=with_mean).fit(X * factor)
    assert_allclose(scaler.transform(X * factor), ref, atol=1e-13)
    assert_allclose(scaler.scale_ / factor, np.std(X, axis=0), rtol=1e-12)
    assert_allclose(scaler.inverse_transform(ref) / factor, X, rtol=1e-12)
    # partial_fit in two batches agrees with one fit.
    parts = StandardScaler(with_mean=with_mean).partial_fit(X[:20] * factor)
    parts.partial_fit(X[20:] * factor)
    assert_allclose(parts.transform(X * factor), ref, atol=1e-13)


class _Recorder:
    """A callback of scikit-learn 1.9's protocol (sklearn.callback.FitCallback)
    that lists the hooks it sees."""

    def __init__(self):
        self.calls = []

    def setup(self, estimator, context):
        self.calls.append(("setup", None))

    def teardown(self, estimator, context):
        self.calls.append(("teardown", None))

    def on_fit_task_begin(self, estimator, context, *, X=None, y=None, metadata=None,
                          fitted_estimator=None):
        self.calls.append(("begin", None))

    def on_fit_task_end(self, estimator, context, *, X=None, y=None, metadata=None,
                        fitted_estimator=None):
        self.calls.append(("end", fitted_estimator))


@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_callbacks_see_one_fit_task(method):
    X = np.random.default_rng(0).random((10, 2))
    rec = _Recorder()
    scaler = StandardScaler().set_callbacks(rec)
    getattr(scaler, method)(X)
    assert [name for name, _ in rec.calls] == ["setup", "begin", "end", "teardown"]
    fitted = rec.calls[2][1]
    np.testing.assert_allclose(fitted.transform(X), scaler.transform(X))
    # a fit failing after the setup still tears the callbacks down
    rec.calls.clear()
    with pytest.raises(ValueError, match="sample_weight"):
        StandardScaler().set_callbacks(rec).fit(X, sample_weight=np.ones(3))
    assert [name for name, _ in rec.calls] == ["setup", "begin", "teardown"]


class _Propagated(_Recorder):
    """An auto-propagated callback (as scikit-learn's ProgressBar): a
    meta-estimator hands it to its sub-estimators."""

    max_propagation_depth = None

    def on_fit_task_begin(self, estimator, context, **kw):
        self.calls.append(("begin", type(estimator).__name__))


def test_a_scikit_learn_pipeline_propagates_its_callbacks_to_the_scaler():
    import warnings

    from sklearn.pipeline import make_pipeline

    X = np.random.default_rng(0).random((20, 3))
    rec = _Propagated()
    pipe = make_pipeline(StandardScaler()).set_callbacks(rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "does not support callbacks" was a warning
        pipe.fit(X)
    assert ("begin", "StandardScaler") in rec.calls
