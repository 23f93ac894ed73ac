"""Metrics: pairwise distances and kernels (``skml.metrics.pairwise``)."""

from . import pairwise
from .pairwise import euclidean_distances, pairwise_kernels

__all__ = ["euclidean_distances", "pairwise", "pairwise_kernels"]
