"""Mixture models: Gaussian mixtures fitted by EM (notes B §10.2, §10.5)."""

# One import line per estimator module (kept sorted).
from ._gaussian_mixture import GaussianMixture

__all__ = ["GaussianMixture"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
