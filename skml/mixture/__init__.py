"""Mixture models: Gaussian mixtures fitted by EM (notes B §10.2, §10.5)."""

# One import line per estimator module (kept sorted).
from ._gaussian_mixture import GaussianMixture

__all__ = ["GaussianMixture"]
