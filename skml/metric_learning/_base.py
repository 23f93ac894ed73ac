"""Pieces shared by the linear metric learners: the initial map and the
validation of ``n_components`` / ``init`` / ``warm_start``.

Both NCA and LMNN learn a linear map ``L`` (``components_``, shape
``(n_components, n_features)``) and measure distances as ``||L(x - x')||``;
they start from the same choices of ``L``.
"""

import sys
import time

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..discriminant_analysis import LinearDiscriminantAnalysis
from ..utils._components import ComponentsFeaturesOutMixin
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils.validation import validate_data

__all__ = ["check_init", "initial_components", "pca_components"]

INIT_OPTIONS = {"auto", "pca", "lda", "identity", "random"}


def pca_components(X, n_components):
    """Leading principal directions of ``X`` (rows), numpy only.

    Signs follow scikit-learn's ``svd_flip(u_based_decision=False)``: the
    largest-magnitude entry of each row is positive. Any fixed convention
    would do (the learners' objectives are invariant to flipping a row of
    ``L``); this one makes the start, hence the result, equal scikit-learn's.
    """
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    Vt = Vt[:n_components]
    signs = np.sign(Vt[np.arange(Vt.shape[0]), np.argmax(np.abs(Vt), axis=1)])
    signs[signs == 0] = 1.0
    components = Vt * signs[:, np.newaxis]
    if components.shape[0] < n_components:  # fewer samples than components
        components = _complete(components, n_components, X.shape[1])
    return components


def _complete(components, n_components, n_features):
    """Add rows of the identity orthogonal to ``components`` (rank-deficient starts)."""
    extra = np.eye(n_features)
    if components.shape[0]:
        extra -= components.T @ np.linalg.pinv(components.T)
    norms = np.linalg.norm(extra, axis=1)
    order = np.argsort(-norms, kind="stable")[: n_components - components.shape[0]]
    rows = extra[order] / np.where(norms[order] > 0, norms[order], 1.0)[:, np.newaxis]
    return np.vstack([components, rows])


def check_init(estimator, X):
    """Validate ``n_components``, an array ``init`` and a warm start against ``X``."""
    n_features = X.shape[1]
    n_components = estimator.n_components
    if n_components is not None and n_components > n_features:
        raise ValueError(
            "The preferred dimensionality of the projected space `n_components` "
            f"({n_components}) cannot be greater than the given data "
            f"dimensionality ({n_features})!"
        )
    init = estimator.init
    if isinstance(init, np.ndarray):
        init = check_array(init, dtype=np.float64)
        if init.shape[1] != n_features:
            raise ValueError(
                f"The input dimensionality ({init.shape[1]}) of the given linear "
                "transformation `init` must match the dimensionality of the given "
                f"inputs `X` ({n_features})."
            )
        if init.shape[0] > init.shape[1]:
            raise ValueError(
                f"The output dimensionality ({init.shape[0]}) of the given linear "
                "transformation `init` cannot be greater than its input "
                f"dimensionality ({init.shape[1]})."
            )
        if n_components is not None and n_components != init.shape[0]:
            raise ValueError(
                "The preferred dimensionality of the projected space `n_components` "
                f"({n_components}) does not match the output dimensionality of the "
                f"given linear transformation `init` ({init.shape[0]})!"
            )
    if getattr(estimator, "warm_start", False) and hasattr(estimator, "components_"):
        if estimator.components_.shape[1] != n_features:
            raise ValueError(
                f"The new inputs dimensionality ({n_features}) does not match the "
                "input dimensionality of the previously learned transformation "
                f"({estimator.components_.shape[1]})."
            )
    return init


def initial_components(init, X, y, n_components, n_classes, rng, verbose=False):
    """The starting map ``L`` (n_components, n_features) for a string or array init.

    "auto" follows scikit-learn's NCA rule: "lda" when the output fits in the
    ``n_classes - 1`` discriminant directions, else "pca" when it reduces
    the dimension, else "identity". ``verbose``: print what the "pca" and
    "lda" inits compute and their time, in scikit-learn's NCA words.
    """
    if isinstance(init, np.ndarray):
        return init.copy()
    n_samples, n_features = X.shape
    if n_components is None:
        n_components = n_features
    if init == "auto":
        if n_components <= min(n_features, n_classes - 1):
            init = "lda"
        elif n_components < min(n_features, n_samples):
            init = "pca"
        else:
            init = "identity"
    if init == "identity":
        return np.eye(n_components, n_features)
    if init == "random":
        return rng.standard_normal(size=(n_components, n_features))
    if init in ("pca", "lda") and verbose:
        start = time.time()
        print("Finding principal components... " if init == "pca"
              else "Finding most discriminative components... ", end="")
        components = initial_components(init, X, y, n_components, n_classes, rng)
        print(f"done in {time.time() - start:5.2f}s")
        sys.stdout.flush()
        return components
    if init == "pca":
        return pca_components(X, n_components)
    if n_classes < 2:
        raise ValueError(
            "init='lda' needs at least two classes in y (the discriminant "
            "directions separate class means); use init='pca' or 'identity'."
        )
    # "lda": the Fisher directions of skml's own LDA (same solver, "svd", as
    # scikit-learn's NCA uses), padded when the centroids span fewer.
    lda = LinearDiscriminantAnalysis(n_components=min(n_components, n_classes - 1))
    components = lda.fit(X, y).scalings_.T[:n_components]
    if components.shape[0] < n_components:
        components = _complete(components, n_components, n_features)
    return components


@fill_class_docs(SECTIONS)
class _LinearMetricTransformer(ComponentsFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """The learnt linear map ``x -> L x`` that NCA and LMNN share.

    Subclasses set ``components_`` (``L``, shape (n_components, n_features))
    in ``fit``; supervised, so ``y`` is required.
    """

    def transform(self, X):
        """Apply the learnt map: ``X Lᵀ``.

        <X_samples>

        Returns
        -------
        X_embedded : ndarray of shape (n_samples, n_components)
            The samples in the learnt space.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.components_.T

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
