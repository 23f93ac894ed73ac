"""Adversarial robustness: attacks, robust metrics, defences, certification.

Notes A §10 and B §12: white-box evasion attacks (FGSM, BIM, PGD,
multi-targeted PGD), the exact robust error of linear models, adversarial
training and TRADES, randomised smoothing with its certified radii, and the
non-robust-features dataset.
"""

# One import line per module (kept sorted).
from ._attacks import BIM, FGSM, PGD, MultiTargetedPGD, robust_score
from ._datasets import make_nonrobust_dataset
from ._defences import AdversarialTrainingClassifier, TRADESClassifier
from ._oracle import exact_linear_robust_error
from ._smoothing import SmoothedClassifier, greedy_filling_radius

__all__ = [
    "AdversarialTrainingClassifier",
    "BIM",
    "FGSM",
    "PGD",
    "MultiTargetedPGD",
    "SmoothedClassifier",
    "TRADESClassifier",
    "exact_linear_robust_error",
    "greedy_filling_radius",
    "make_nonrobust_dataset",
    "robust_score",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
