"""Sparse CSR/CSC input to the scalers (issue 20): as scikit-learn.

``StandardScaler(with_mean=False)`` and ``UnitNormScaler`` (scikit-learn's
``Normalizer``) scale the stored values only and give the dense result;
centring and shifting scalers refuse sparse input with scikit-learn's kind of
error (ValueError for ``with_mean=True``, TypeError for the range scalers).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from skml.preprocessing import MeanNormalizer, MinMaxScaler, StandardScaler, UnitNormScaler
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(pair=sparse_pairs(min_rows=3), weighted=st.booleans(),
       with_std=st.booleans())
def test_standard_scaler_sparse_equals_dense(pair, weighted, with_std):
    X, S = pair
    sw = None
    if weighted:
        sw = np.random.RandomState(0).uniform(0, 2, size=X.shape[0])
    dense = StandardScaler(with_mean=False, with_std=with_std).fit(X, sample_weight=sw)
    sparse = StandardScaler(with_mean=False, with_std=with_std).fit(S, sample_weight=sw)
    rtol = 1e-5 if X.dtype == np.float32 else 1e-10
    if with_std:
        assert_allclose(sparse.var_, dense.var_, rtol=rtol, atol=1e-12)
        assert_allclose(sparse.scale_, dense.scale_, rtol=rtol)
    Z = sparse.transform(S)
    assert sp.issparse(Z) and Z.dtype == S.dtype
    assert_allclose(Z.toarray(), dense.transform(X), rtol=rtol, atol=1e-6)
    assert_allclose(sparse.inverse_transform(Z).toarray(), X, rtol=rtol, atol=1e-5)


@SETTINGS
@given(pair=sparse_pairs(min_rows=3), norm=st.sampled_from(["l1", "l2", "max"]))
def test_unit_norm_scaler_sparse_equals_dense(pair, norm):
    X, S = pair
    Z = UnitNormScaler(norm=norm).fit_transform(S)
    assert sp.issparse(Z) and Z.format == "csr"
    rtol = 1e-5 if X.dtype == np.float32 else 1e-12
    assert_allclose(Z.toarray(), UnitNormScaler(norm=norm).fit_transform(X),
                    rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_centring_scalers_refuse_sparse_like_scikit_learn(fmt):
    from sklearn.preprocessing import MinMaxScaler as SkMinMax
    from sklearn.preprocessing import StandardScaler as SkStandard

    X, S = make_sparse_pair(0, 10, 3, 0.5, fmt, np.float64)
    cases = [(StandardScaler(), SkStandard(), "with_mean"),
             (MinMaxScaler(), SkMinMax(), "sparse")]
    for ours, theirs, word in cases:
        with pytest.raises((TypeError, ValueError)) as expected:
            theirs.fit(S)
        with pytest.raises(type(expected.value), match=word):
            ours.fit(S)
    # No scikit-learn counterpart: shifting by the mean densifies, refused.
    with pytest.raises(TypeError, match="sparse"):
        MeanNormalizer().fit(S)
