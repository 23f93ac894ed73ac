"""Model inspection: input gradients and explanations (notes A §12).

``input_gradient`` differentiates any fitted estimator's output with respect
to its input (analytic for skml's differentiable models, finite differences
otherwise); the explainers attribute a prediction to the input features:
``shapley_values`` solves a cooperative game exactly, ``ShapleyExplainer``
explains a model with Shapley values (exact, permutation, Kernel SHAP,
TreeSHAP, linear); ``IntegratedGradients`` integrates input gradients along
a path; ``LimeExplainer`` fits sparse local surrogates (K-Lasso);
``plot_beeswarm`` and ``plot_waterfall`` draw explanations (matplotlib).
"""

from ._explanation import Explanation
from ._input_gradient import FD_RELATIVE_STEP, input_gradient
from ._integrated_gradients import IntegratedGradients
from ._lime import LimeExplainer
from ._plots import plot_beeswarm, plot_waterfall
from ._shapley import ShapleyExplainer, shapley_values

__all__ = [
    "FD_RELATIVE_STEP",
    "Explanation",
    "IntegratedGradients",
    "LimeExplainer",
    "ShapleyExplainer",
    "input_gradient",
    "plot_beeswarm",
    "plot_waterfall",
    "shapley_values",
]
