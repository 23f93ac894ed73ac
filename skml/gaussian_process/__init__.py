"""Gaussian processes: regression with a marginal-likelihood fit of the kernel.

:class:`GaussianProcessRegressor` is the surrogate model of
:class:`~skml.model_selection.BayesSearchCV`; its covariance functions are in
:mod:`skml.gaussian_process.kernels`.
"""

from . import kernels
from ._gpr import GaussianProcessRegressor

__all__ = ["GaussianProcessRegressor", "kernels"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
