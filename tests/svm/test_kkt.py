"""kkt_violations: the KKT conditions of the soft-margin dual (notes B §5.2, §5.5; D1 §6.3)."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.preprocessing import StandardScaler

from skml.svm import SVC, kkt_violations


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("tol", [1e-2, 1e-4, 1e-6])
@pytest.mark.parametrize("params", [
    {"kernel": "rbf"}, {"kernel": "linear", "C": 0.1},
    {"kernel": "poly", "degree": 2, "class_weight": "balanced"},
])
def test_fitted_svc_meets_kkt_to_its_tolerance(cancer, tol, params):
    X, y = cancer
    sw = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    svc = SVC(tol=tol, **params).fit(X, y, sample_weight=sw)
    v = kkt_violations(svc, X, y, sample_weight=sw)
    assert v["box"] == 0.0
    assert v["equality"] < 1e-8 * max(1.0, np.abs(svc.dual_coef_).sum())
    # SMO stops when max - min of the gradient is <= tol: every margin
    # condition then holds to tol (plus rounding: the decision values are
    # recomputed, ~2e-7 measured at tol=1e-6)
    assert v["margin"] <= tol + 1e-6
    assert v["margin_per_sample"].shape == (len(y),)


def test_a_moved_intercept_is_reported(cancer):
    X, y = cancer
    svc = SVC(tol=1e-6).fit(X, y)
    svc._b = svc._b + 0.05  # a model that is not the optimum any more
    assert kkt_violations(svc, X, y)["margin"] > 0.04


def test_multiclass_and_wrong_data_are_refused(cancer):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="two-class"):
        kkt_violations(SVC().fit(X, y), X, y)
    Xc, yc = cancer
    svc = SVC().fit(Xc, yc)
    with pytest.raises(ValueError, match="training samples"):
        kkt_violations(svc, Xc[:10], yc[:10])
