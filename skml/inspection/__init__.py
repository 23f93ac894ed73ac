"""Model inspection: input gradients and explanations (notes A §12).

``input_gradient`` differentiates any fitted estimator's output with respect
to its input (analytic for skml's differentiable models, finite differences
otherwise); the explainers attribute a prediction to the input features.
"""

from ._input_gradient import FD_RELATIVE_STEP, input_gradient

__all__ = ["FD_RELATIVE_STEP", "input_gradient"]
