"""What LinearRegression, Ridge and Lasso share with scikit-learn's: the shapes
of coef_, intercept_ and predict for each form of y (issue 19), the caller's y
and weights left alone, and the refusal of bad X and y. One test each,
parametrised over the three estimators (they were written out in
test_least_squares.py, test_ridge.py and test_lasso.py: issue 26)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import linear_model as sk

from skml.linear_model import Lasso, LinearRegression, Ridge
from tests._data import regression

# (skml estimator, scikit-learn's, parameters, attributes whose shapes must agree)
ESTIMATORS = [
    (LinearRegression, sk.LinearRegression, {}, ("coef_", "intercept_")),
    (Ridge, sk.Ridge, {}, ("coef_", "intercept_")),
    (Lasso, sk.Lasso, {"alpha": 0.1}, ("coef_", "intercept_", "dual_gap_", "n_iter_")),
]
IDS = [ours.__name__ for ours, *_ in ESTIMATORS]


@pytest.mark.parametrize("ours_cls, ref_cls, params, attrs", ESTIMATORS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("y_shape", ["1d", "one column", "two columns"])
def test_shapes_of_coef_intercept_and_predict_as_scikit_learn(
        ours_cls, ref_cls, params, attrs, fit_intercept, y_shape):
    # Issue 19: a y of one column gave coef_ of shape (1, p) where
    # scikit-learn's regressors give (p,) (intercept_ (1,), 1-d predictions).
    X, y = regression(40, 13, n_targets=1 if y_shape == "1d" else 2)
    if y_shape == "one column":
        y = y[:, :1]
    ours = ours_cls(fit_intercept=fit_intercept, **params).fit(X, y)
    ref = ref_cls(fit_intercept=fit_intercept, **params).fit(X, y)
    for attr in attrs:
        assert np.shape(getattr(ours, attr)) == np.shape(getattr(ref, attr)), attr
    assert ours.predict(X).shape == ref.predict(X).shape
    assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("est_cls", [LinearRegression, Ridge, Lasso])
@pytest.mark.parametrize(
    "X, y, match",
    [
        ([[0.0, np.nan], [1.0, 2.0]], [1.0, 2.0], "NaN"),
        ([[0.0, np.inf], [1.0, 2.0]], [1.0, 2.0], "infinity"),
        ([[0.0, 1.0], [1.0, 2.0]], [1.0, np.nan], "NaN"),
        (np.empty((0, 2)), [], "0 sample"),
        (np.zeros((3, 2, 2)), [1.0, 2.0, 3.0], "dim 3"),
        ([[0.0], [1.0], [2.0]], [1.0, 2.0], "inconsistent numbers of samples"),
    ],
)
def test_bad_input(est_cls, X, y, match):
    with pytest.raises(ValueError, match=match):
        est_cls().fit(X, y)


@pytest.mark.parametrize("est_cls", [LinearRegression, Ridge, Lasso])
@pytest.mark.parametrize("copy_X", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n_targets", [1, 2])
def test_callers_y_and_weights_are_never_modified(est_cls, copy_X, fit_intercept, weighted,
                                                  n_targets):
    # copy_X=False allows centring X in place, never y (issue 19).
    X, y = regression(40, 11, n_targets=n_targets)
    w = np.random.RandomState(11).uniform(0.5, 2.0, size=y.shape[0]) if weighted else None
    y_keep, w_keep = y.copy(), None if w is None else w.copy()
    est_cls(copy_X=copy_X, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    assert_array_equal(y, y_keep)
    if weighted:
        assert_array_equal(w, w_keep)
