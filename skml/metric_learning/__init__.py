"""Metric learning: linear maps under which nearest neighbours classify well.

Neighbourhood components analysis (the notes' stochastic 1-NN objective) and
large margin nearest neighbour (Weinberger and Saul's classic objective and
the notes' triplet ranking form), notes A §6.
"""

# One import line per estimator module (kept sorted).
from ._lmnn import LargeMarginNearestNeighbor
from ._nca import NeighborhoodComponentsAnalysis

__all__ = ["LargeMarginNearestNeighbor", "NeighborhoodComponentsAnalysis"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
