"""QDA's "eigen" solver, shrinkage and covariance estimators; LDA's covariance_estimator.

scikit-learn 1.9's parameters (issue 21), checked against its classes on wine.
"""

import numpy as np
import pytest
from sklearn import discriminant_analysis as sk
from sklearn.covariance import OAS, LedoitWolf, ShrunkCovariance
from sklearn.datasets import load_wine

from skml.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)

X, y = load_wine(return_X_y=True)


@pytest.mark.parametrize("params", [
    {"solver": "eigen"},
    {"solver": "eigen", "shrinkage": "auto"},
    {"solver": "eigen", "shrinkage": 0.3},
    {"solver": "eigen", "covariance_estimator": OAS()},
    {"solver": "eigen", "covariance_estimator": ShrunkCovariance(shrinkage=0.2)},
])
def test_qda_eigen_matches_scikit_learn(params):
    ours = QuadraticDiscriminantAnalysis(store_covariance=True, **params).fit(X, y)
    theirs = sk.QuadraticDiscriminantAnalysis(store_covariance=True, **params).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X),
                               atol=1e-10)
    for a, b in zip(ours.covariance_, theirs.covariance_):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12 * np.abs(b).max())


def test_qda_eigen_without_shrinkage_equals_svd():
    """The same Σ_k through an eigendecomposition instead of an SVD."""
    svd = QuadraticDiscriminantAnalysis().fit(X, y)
    eigen = QuadraticDiscriminantAnalysis(solver="eigen").fit(X, y)
    np.testing.assert_allclose(eigen.predict_log_proba(X), svd.predict_log_proba(X),
                               rtol=1e-7, atol=1e-7)


def test_qda_shrinkage_fits_a_class_with_fewer_samples_than_features():
    rng = np.random.default_rng(0)
    Xs = rng.normal(size=(30, 20))
    ys = np.repeat([0, 1], 15)
    Xs[ys == 1] += 1.0
    with pytest.raises(np.linalg.LinAlgError, match="shrinkage"):
        QuadraticDiscriminantAnalysis().fit(Xs, ys)
    clf = QuadraticDiscriminantAnalysis(solver="eigen", shrinkage="auto").fit(Xs, ys)
    assert np.all(np.isfinite(clf.predict_proba(Xs)))


def test_qda_reg_param_applies_to_the_eigen_solver():
    """Documented difference: scikit-learn's "eigen" ignores reg_param."""
    plain = QuadraticDiscriminantAnalysis(solver="eigen").fit(X, y)
    reg = QuadraticDiscriminantAnalysis(solver="eigen", reg_param=0.5).fit(X, y)
    ref = QuadraticDiscriminantAnalysis(reg_param=0.5).fit(X, y)
    assert not np.allclose(plain.predict_proba(X), reg.predict_proba(X))
    np.testing.assert_allclose(reg.predict_log_proba(X), ref.predict_log_proba(X),
                               rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("solver", ["lsqr", "eigen"])
@pytest.mark.parametrize("estimator", [OAS(), LedoitWolf()])
def test_lda_covariance_estimator_matches_scikit_learn(solver, estimator):
    ours = LinearDiscriminantAnalysis(solver=solver, covariance_estimator=estimator)
    theirs = sk.LinearDiscriminantAnalysis(solver=solver, covariance_estimator=estimator)
    ours.fit(X, y)
    theirs.fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(ours.covariance_, theirs.covariance_, rtol=1e-9)


def test_covariance_estimator_sees_the_data_in_its_units():
    """Fitted on X itself, not on the internally rescaled copy."""
    Xb = X * 1e3
    a = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=OAS()).fit(Xb, y)
    b = sk.LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=OAS()).fit(Xb, y)
    np.testing.assert_allclose(a.covariance_, b.covariance_, rtol=1e-9)


@pytest.mark.parametrize("cls, params, match", [
    (QuadraticDiscriminantAnalysis, {"shrinkage": 0.1}, "shrinkage is not supported"),
    (QuadraticDiscriminantAnalysis, {"covariance_estimator": OAS()},
     "covariance_estimator is not supported"),
    (QuadraticDiscriminantAnalysis,
     {"solver": "eigen", "shrinkage": 0.1, "covariance_estimator": OAS()}, "Only one"),
    (LinearDiscriminantAnalysis, {"covariance_estimator": OAS()},
     "covariance_estimator is not supported"),
    (LinearDiscriminantAnalysis,
     {"solver": "lsqr", "shrinkage": "auto", "covariance_estimator": OAS()}, "Only one"),
    (QuadraticDiscriminantAnalysis, {"solver": "eigen", "covariance_estimator": "oas"},
     "covariance_estimator"),
])
def test_bad_combinations_are_refused(cls, params, match):
    # Shrinkage with the "svd" solver is a NotImplementedError (scikit-learn's
    # type), the other mixes ValueErrors.
    error = NotImplementedError if match.startswith("shrinkage") else ValueError
    with pytest.raises(error, match=match):
        cls(**params).fit(X, y)


def test_estimator_without_covariance_attribute_is_refused():
    class NoCovariance:
        def fit(self, X):
            return self

        def get_params(self, deep=True):
            return {}

    with pytest.raises(ValueError, match="covariance_"):
        QuadraticDiscriminantAnalysis(solver="eigen",
                                      covariance_estimator=NoCovariance()).fit(X, y)


def test_covariance_estimator_need_not_be_clonable():
    # Any object with fit and covariance_ will do (scikit-learn's contract); a
    # copy is fitted, the user's object is left unfitted.
    class PlainOAS:
        def fit(self, X):
            self.covariance_ = OAS().fit(X).covariance_
            return self

    user = PlainOAS()
    a = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=user).fit(X, y)
    b = LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_allclose(a.covariance_, b.covariance_, rtol=1e-12)
    assert not hasattr(user, "covariance_")
    q = QuadraticDiscriminantAnalysis(solver="eigen", covariance_estimator=user)
    q.fit(X, y)
