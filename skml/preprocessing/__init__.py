"""Feature scaling: the four scalings of the course notes (B §1.3).

``StandardScaler`` (z-score, and zero-mean with ``with_std=False``),
``MinMaxScaler`` (range), ``MeanNormalizer`` (zero-mean + range) and the
per-sample ``UnitNormScaler``.
"""

from ._feature_maps import DistanceToAnchors, QuadraticFeatureMap
from ._mean_normalizer import MeanNormalizer
from ._min_max_scaler import MinMaxScaler
from ._standard_scaler import StandardScaler
from ._unit_norm_scaler import UnitNormScaler

__all__ = [
    "DistanceToAnchors", "MeanNormalizer", "MinMaxScaler", "QuadraticFeatureMap",
    "StandardScaler", "UnitNormScaler",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
