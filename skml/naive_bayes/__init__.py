"""Naive Bayes: Gaussian and Bernoulli class conditionals with independent features."""

# One import line per estimator module (kept sorted).
from ._bernoulli import BernoulliNB
from ._gaussian import GaussianNB

__all__ = ["BernoulliNB", "GaussianNB"]
