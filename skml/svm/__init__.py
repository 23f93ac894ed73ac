"""Support vector machines: SVC and SVR by SMO, LinearSVC, the notes' hard-margin SVM."""

# One import line per estimator module (kept sorted).
from ._classes import SVC, SVR
from ._hard_margin import HardMarginSVC
from ._linear_svc import LinearSVC

__all__ = ["HardMarginSVC", "LinearSVC", "SVC", "SVR"]
