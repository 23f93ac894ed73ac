"""Naive Bayes: Gaussian and Bernoulli class conditionals with independent features."""

# One import line per estimator module (kept sorted).
from ._bernoulli import BernoulliNB
from ._gaussian import GaussianNB

__all__ = ["BernoulliNB", "GaussianNB"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
