"""Support vector machines: SVC and SVR by SMO, LinearSVC, the notes' hard-margin SVM."""

# One import line per estimator module (kept sorted).
from ._classes import SVC, SVR, kkt_violations
from ._hard_margin import HardMarginSVC
from ._linear_svc import LinearSVC

__all__ = ["HardMarginSVC", "LinearSVC", "SVC", "SVR", "kkt_violations"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
