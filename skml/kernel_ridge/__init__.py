"""Kernel methods in the representer form of notes B §5.9-5.10.

``KernelRidge`` (kernel linear regression, scikit-learn's
``sklearn.kernel_ridge.KernelRidge``) and ``KernelLogisticRegression`` both
learn ``f(x) = sum_n alpha_n k(x_n, x)`` over the training points, the model
notes D4 reaches by "redefining the model and loss function" once ``w`` is a
linear combination of the data.
"""

from ._kernel_logistic import KernelLogisticRegression
from ._kernel_ridge import KernelRidge

__all__ = ["KernelLogisticRegression", "KernelRidge"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
