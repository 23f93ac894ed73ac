"""Hyper-parameter search by successive halving (notes A §11).

``successive_halving_bandit`` is the notes' best-arm algorithm (A §11.2);
``SuccessiveHalvingSearchCV`` and ``HyperbandSearchCV`` search
hyper-parameters with the same schedule, continuing each survivor's training
from round to round (A §11.3). ``halving_schedule`` and
``hyperband_brackets`` compute their rounds without fitting anything.
"""

from ._bandit import successive_halving_bandit
from ._search import (
    HyperbandSearchCV,
    SuccessiveHalvingSearchCV,
    halving_schedule,
    hyperband_brackets,
)

__all__ = [
    "HyperbandSearchCV",
    "SuccessiveHalvingSearchCV",
    "halving_schedule",
    "hyperband_brackets",
    "successive_halving_bandit",
]
