"""Contrastive learning: SimCLR / InfoNCE losses and embeddings (notes A §8, B §7.8).

The losses (NT-Xent, InfoNCE in the notes' Gaussian-kernel and the cosine
form, CLIP's symmetric loss) return their gradients; the MRF utilities of
notes A §8.3 show InfoNCE as a cross-entropy of graphs; ContrastiveEmbedding
trains an encoder by SimCLR's algorithm on the network core.
"""

from ._augment import jitter_mask, random_shift
from ._embedding import ContrastiveEmbedding
from ._losses import clip_loss, info_nce_loss, nt_xent_loss
from ._mrf import gaussian_kernel_matrix, mrf_cross_entropy, sample_unitary_outdegree_graph

__all__ = [
    "ContrastiveEmbedding",
    "clip_loss",
    "gaussian_kernel_matrix",
    "info_nce_loss",
    "jitter_mask",
    "mrf_cross_entropy",
    "nt_xent_loss",
    "random_shift",
    "sample_unitary_outdegree_graph",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
