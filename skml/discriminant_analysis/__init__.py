"""Gaussian generative classifiers: shared (LDA) and per-class (QDA) covariances."""

# One import line per estimator module (kept sorted).
from ._lda import LinearDiscriminantAnalysis
from ._qda import QuadraticDiscriminantAnalysis

__all__ = ["LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
