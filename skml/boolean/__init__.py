"""Learning Boolean functions in the Fourier basis (notes A §2.3-2.4).

:class:`LowDegreeFourierRegressor` is the Linial–Mansour–Nisan algorithm
(every low-degree coefficient estimated by a sample mean);
:class:`HarmonicaRegressor` recovers a sparse low-degree expansion by Lasso
(compressed sensing). Inputs are rows of {0, 1}^n or {-1, 1}^n.
"""

from ._fourier import HarmonicaRegressor, LowDegreeFourierRegressor
from ._parity import feature_sets, parity_features

__all__ = ["HarmonicaRegressor", "LowDegreeFourierRegressor", "feature_sets",
           "parity_features"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
