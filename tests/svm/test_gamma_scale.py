"""gamma="scale" is 1 / (n_features * X.var()) over X as given, as in
scikit-learn, also when the solver centres the columns (dense rbf and
laplacian fits): columns with different means used to give a larger gamma."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import svm as sk_svm
from sklearn.datasets import load_diabetes

from skml.svm import SVC, SVR, HardMarginSVC


def _shifted_columns():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 4) * [1.0, 2.0, 0.5, 3.0] + [0.0, 5.0, -7.0, 20.0]
    return X, (X[:, 0] + 0.3 * X[:, 1] > 5.0 * 0.3).astype(int)


@pytest.mark.parametrize("Estimator", [SVC, SVR, HardMarginSVC])
def test_scale_is_over_the_data_as_given(Estimator):
    X, y = _shifted_columns()
    expected = 1.0 / (X.shape[1] * X.var())
    dense = Estimator(kernel="rbf").fit(X, y)
    sparse = Estimator(kernel="rbf").fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense._gamma, expected, rtol=1e-12)
    np.testing.assert_allclose(sparse._gamma, expected, rtol=1e-12)
    laplacian = Estimator(kernel="laplacian").fit(X, y)
    np.testing.assert_allclose(laplacian._gamma, np.sqrt(expected), rtol=1e-12)


def test_svr_rbf_scale_matches_scikit_learn_on_diabetes_shifted():
    X, y = load_diabetes(return_X_y=True)
    X = X + np.arange(X.shape[1])  # columns of different means
    ours = SVR(kernel="rbf", C=10.0, tol=1e-8).fit(X, y)
    ref = sk_svm.SVR(kernel="rbf", C=10.0, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-5, atol=1e-4)
