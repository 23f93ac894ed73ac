"""Attention, positional encodings and transformers (notes B §7.6, notes A §14).

Functions: :func:`scaled_dot_product_attention`, :func:`causal_mask`,
:func:`softmax`, :func:`sinusoidal_positional_encoding`, RoPE
(:func:`rope_frequencies`, :func:`apply_rope`, :func:`rope_matrix`) and
:func:`label_smoothing`; the stateless :class:`RotaryPositionalEncoding`
transformer; and the sequence models :class:`TransformerClassifier` and
:class:`TransformerRegressor`, built from the layers of ``_layers`` on the
network core of :mod:`skml.neural_network`.
"""

from ._functional import (
    causal_mask,
    label_smoothing,
    scaled_dot_product_attention,
    sinusoidal_positional_encoding,
    softmax,
)
from ._rope import RotaryPositionalEncoding, apply_rope, rope_frequencies, rope_matrix
from ._transformer import TransformerClassifier, TransformerRegressor

__all__ = [
    "RotaryPositionalEncoding",
    "TransformerClassifier",
    "TransformerRegressor",
    "apply_rope",
    "causal_mask",
    "label_smoothing",
    "rope_frequencies",
    "rope_matrix",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
    "softmax",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
