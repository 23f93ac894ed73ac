"""Gradient optimisers, schedules, the plateau rule, a gradient check (notes B §6).

Shared by skml's iterative estimators (logistic regression, the SGD models, the
MLP). These are small objects, not estimators: an estimator takes a string
``solver``/``optimizer`` parameter (one of :data:`OPTIMIZERS`) and builds the
optimiser in ``fit`` with :func:`get_optimizer`.
"""

from ._gradient_check import check_gradient
from ._gradient_noise import GradientNoise
from ._optimizers import (
    OPTIMIZERS,
    SGD,
    AdaBelief,
    AdaDelta,
    AdaGrad,
    Adam,
    Momentum,
    Nesterov,
    RMSProp,
    get_optimizer,
)
from ._plateau import EpochRate, PlateauStopper
from ._schedules import (
    Constant,
    ExponentialDecay,
    InverseScaling,
    InverseTimeDecay,
    StepDecay,
)

__all__ = [
    "OPTIMIZERS",
    "SGD",
    "AdaBelief",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "Constant",
    "EpochRate",
    "ExponentialDecay",
    "GradientNoise",
    "InverseScaling",
    "InverseTimeDecay",
    "Momentum",
    "Nesterov",
    "PlateauStopper",
    "RMSProp",
    "StepDecay",
    "check_gradient",
    "get_optimizer",
]
