"""The result object every explainer returns."""

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Explanation:
    """Feature attributions for a batch of rows, in one fixed array layout.

    Attributes
    ----------
    values : ndarray of shape (n_samples, n_features) or \
(n_samples, n_features, n_outputs)
        One attribution per row and feature (and output, when the explained
        function has several: never a list).
    base_values : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        What the attributions are measured from: the expected model output
        over the background (Shapley), the output at the baseline
        (integrated gradients), the surrogate's intercept (LIME).
    data : ndarray of shape (n_samples, n_features)
        The explained rows.
    feature_names : list of str
        One name per feature.
    output_names : list of str or None
        One name per output (class labels for probabilities), when known.
    convergence_delta : ndarray or None
        Integrated gradients: ``sum_i IG_i - (F(x) - F(x'))``, the
        completeness gap of the quadrature.
    standard_errors : ndarray or None
        Sampled Shapley values (``algorithm="permutation"``): the standard
        error of each value, the same shape as ``values``.
    score : ndarray or None
        LIME: the local surrogate's weighted R² on the perturbation sample,
        one per row (and output).
    selected_features : ndarray or None
        LIME: boolean mask of shape ``values.shape`` of the features the
        K-Lasso kept.
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    feature_names: list
    output_names: list = None
    convergence_delta: np.ndarray = None
    standard_errors: np.ndarray = None
    score: np.ndarray = None
    selected_features: np.ndarray = None
    extra: dict = field(default_factory=dict)

    # LIME's vocabulary (notes A §12.2): the surrogate g(z') = intercept + coef . z'
    @property
    def coef_(self):
        """The surrogate's coefficients (LIME); the same array as ``values``."""
        return self.values

    @property
    def intercept_(self):
        """The surrogate's intercept (LIME); the same array as ``base_values``."""
        return self.base_values

    @property
    def score_(self):
        """Weighted R² of the surrogate (LIME); alias of ``score``."""
        return self.score

    @property
    def selected_features_(self):
        """Features kept by the K-Lasso (LIME); alias of ``selected_features``."""
        return self.selected_features

    def __len__(self):
        return self.values.shape[0]

    def __getitem__(self, index):
        """The explanation of the rows ``index`` (an int keeps the row axis)."""
        rows = np.atleast_1d(np.arange(len(self))[index])

        def take(a):
            return None if a is None else np.asarray(a)[rows]

        return Explanation(
            values=take(self.values), base_values=take(self.base_values),
            data=take(self.data), feature_names=self.feature_names,
            output_names=self.output_names,
            convergence_delta=take(self.convergence_delta),
            standard_errors=take(self.standard_errors), score=take(self.score),
            selected_features=take(self.selected_features), extra=dict(self.extra),
        )
