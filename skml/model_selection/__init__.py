"""Hyper-parameter search by successive halving (notes A §11).

``successive_halving_bandit`` is the notes' best-arm algorithm (A §11.2);
``SuccessiveHalvingSearchCV`` and ``HyperbandSearchCV`` search
hyper-parameters with the same schedule, continuing each survivor's training
from round to round (A §11.3). ``halving_schedule`` and
``hyperband_brackets`` compute their rounds without fitting anything.
``BayesSearchCV`` is Bayesian optimisation (A §11.1) with the Gaussian
process of :mod:`skml.gaussian_process` as its surrogate, over ``Real``,
``Integer`` and ``Categorical`` dimensions. ``bias_variance_decomposition``,
``learning_curve`` and ``diagnose_bias_variance`` are the notes' model
diagnostics (notes B §2.5, §11.3-11.4).
"""

from ._bandit import successive_halving_bandit
from ._bayes import BayesSearchCV, expected_improvement
from ._diagnostics import (
    bias_variance_decomposition,
    diagnose_bias_variance,
    learning_curve,
)
from ._harmonica import HarmonicaSearchCV
from ._search import (
    HyperbandSearchCV,
    SuccessiveHalvingSearchCV,
    halving_schedule,
    hyperband_brackets,
)
from ._space import Categorical, Integer, Real

__all__ = [
    "BayesSearchCV",
    "Categorical",
    "HarmonicaSearchCV",
    "HyperbandSearchCV",
    "Integer",
    "Real",
    "SuccessiveHalvingSearchCV",
    "bias_variance_decomposition",
    "diagnose_bias_variance",
    "halving_schedule",
    "hyperband_brackets",
    "learning_curve",
    "expected_improvement",
    "successive_halving_bandit",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
