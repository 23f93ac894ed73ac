"""skml.boolean against scikit-learn on the same parity features.

The features of diabetes (standardised) become bits ``x > 0``; both sides
then work on the parity (Walsh) features of degree <= 2 of those bits, which
scikit-learn builds as ``PolynomialFeatures(interaction_only=True)`` of the
±1 encoding. Harmonica and scikit-learn's Lasso solve the same convex
problem; LMN's sample averages are set beside least squares on the same
columns (the catalogue's counterpart: equal on the whole cube, not on data).
"""

from benchmarks.case import Case


def _parity_pipeline(final):
    import numpy as np
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, PolynomialFeatures

    def signs(X):
        return 1.0 - 2.0 * (np.asarray(X) > 0)

    return make_pipeline(FunctionTransformer(signs),
                         PolynomialFeatures(degree=2, interaction_only=True,
                                            include_bias=False), final)


def sklearn_least_squares():
    from sklearn.linear_model import LinearRegression

    return _parity_pipeline(LinearRegression())


def sklearn_lasso():
    from sklearn.linear_model import Lasso

    return _parity_pipeline(Lasso(alpha=0.5, tol=1e-8, max_iter=10_000))


CASES = [
    Case(estimator="LowDegreeFourierRegressor", skml="skml.boolean:LowDegreeFourierRegressor",
         reference="benchmarks.cases.boolean:sklearn_least_squares", dataset="diabetes",
         score="r2", family="boolean", params={"degree": 2, "binarize": 0.0}),
    Case(estimator="HarmonicaRegressor", skml="skml.boolean:HarmonicaRegressor",
         reference="benchmarks.cases.boolean:sklearn_lasso", dataset="diabetes",
         score="r2", family="boolean",
         params={"degree": 2, "alpha": 0.5, "binarize": 0.0, "tol": 1e-8}),
]
