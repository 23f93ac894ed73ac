"""Manifold learning: SNE and t-SNE (notes A §9).

``TSNE`` (exact, or FFT-accelerated interpolation as FIt-SNE), the original
``SNE``, and the perplexity-calibrated affinities they share.
"""

from ._affinities import conditional_probabilities, joint_probabilities
from ._sne import SNE
from ._t_sne import TSNE

__all__ = ["SNE", "TSNE", "conditional_probabilities", "joint_probabilities"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
