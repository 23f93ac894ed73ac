"""skml.attention against references for the same job.

No scikit-learn class attends over sequences (PyTorch, the peer, is studied
in ``benchmarks/attention_peers.py``), so:

- ``TransformerClassifier`` reads each digits image as 8 tokens (its rows) of
  8 pixels, against scikit-learn's ``MLPClassifier`` on the flat pixels;
- ``TransformerRegressor`` reads the 10 diabetes features as 10 scalar
  tokens, against ``Ridge``;
- ``RotaryPositionalEncoding`` (pairs of features as positions) against
  ``ComplexRope`` below, RoPE written independently with complex numbers:
  the transforms must agree to rounding.
"""

from benchmarks.case import Case


def __getattr__(name):
    if name != "ComplexRope":
        raise AttributeError(name)
    import numpy as np
    from sklearn.base import BaseEstimator, TransformerMixin

    class ComplexRope(TransformerMixin, BaseEstimator):
        """Pairs (2m, 2m+1) as a complex number times e^{i m}: RoPE with d = 2."""

        def fit(self, X, y=None):
            return self

        def transform(self, X):
            X = np.asarray(X, dtype=float)
            T = X.shape[1] // 2
            z = (X[:, 0:2 * T:2] + 1j * X[:, 1:2 * T:2]) * np.exp(1j * np.arange(T))
            out = X.copy()
            out[:, 0:2 * T:2], out[:, 1:2 * T:2] = z.real, z.imag
            return out

    ComplexRope.__module__ = __name__
    return ComplexRope


CASES = [
    Case(
        estimator="TransformerClassifier",
        skml="skml.attention:TransformerClassifier",
        reference="sklearn.neural_network:MLPClassifier",
        dataset="digits",
        score="accuracy",
        family="attention",
        params={"n_layers": 1, "d_model": 32, "n_heads": 4, "sequence_shape": (8, 8),
                "batch_size": 64, "learning_rate_init": 3e-3, "max_iter": 20,
                "random_state": 0},
        reference_params={"hidden_layer_sizes": (64,), "max_iter": 200,
                          "random_state": 0},
    ),
    Case(
        estimator="TransformerRegressor",
        skml="skml.attention:TransformerRegressor",
        reference="sklearn.linear_model:Ridge",
        dataset="diabetes",
        score="r2",
        family="attention",
        params={"n_layers": 1, "d_model": 16, "n_heads": 2, "batch_size": 32,
                "learning_rate_init": 3e-3, "max_iter": 100, "random_state": 0},
        reference_params={"alpha": 1.0},
    ),
    Case(
        estimator="RotaryPositionalEncoding",
        skml="skml.attention:RotaryPositionalEncoding",
        reference="benchmarks.cases.attention:ComplexRope",
        dataset="digits",
        score="max_abs_diff",
        family="attention",
    ),
]
