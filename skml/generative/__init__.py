"""Generative models: rectified flow with Reflow and Distill (notes A §13), GANs (B §7.7).

RectifiedFlow learns the velocity field of a straight-path ODE from a source
distribution to the data on the network core (or any regressor), samples by
Euler steps and maps points both ways between the two distributions. GAN
trains a generator against a discriminator on the same core;
optimal_discriminator and gan_value_at_optimum are the notes' analysis of the
game.
"""

from ._gan import GAN, gan_value_at_optimum, optimal_discriminator
from ._rectified_flow import RectifiedFlow

__all__ = ["GAN", "RectifiedFlow", "gan_value_at_optimum", "optimal_discriminator"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
