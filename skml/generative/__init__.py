"""Generative models: rectified flow with Reflow and Distill (notes A §13).

RectifiedFlow learns the velocity field of a straight-path ODE from a source
distribution to the data on the network core (or any regressor), samples by
Euler steps and maps points both ways between the two distributions.
"""

from ._rectified_flow import RectifiedFlow

__all__ = ["RectifiedFlow"]
