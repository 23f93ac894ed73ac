"""Matrix decompositions: principal component analysis (notes A §4).

``PCA`` with a full SVD, the covariance eigendecomposition, the notes' power
method with deflation, or a randomized range finder; ``power_method`` is the
notes' eigen-solver on its own.
"""

from ._pca import PCA, power_method, svd_flip_signs

__all__ = ["PCA", "power_method", "svd_flip_signs"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
