"""Gaussian generative classifiers: shared (LDA) and per-class (QDA) covariances."""

# One import line per estimator module (kept sorted).
from ._lda import LinearDiscriminantAnalysis
from ._qda import QuadraticDiscriminantAnalysis

__all__ = ["LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis"]
