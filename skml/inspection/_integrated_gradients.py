"""Integrated gradients (notes A §12.3)."""

from numbers import Integral

import numpy as np
from sklearn.base import is_classifier

from ._explanation import Explanation
from ._input_gradient import input_gradient
from ._response import check_rows, feature_names_for

_METHODS = ("riemann_midpoint", "riemann_left", "riemann_right", "trapezoid",
            "gausslegendre")

# Path points per model call: the gradients of a block are one input_gradient
# call on (rows x steps) points.
_BLOCK_POINTS = 50_000


def path_nodes(n_steps, method):
    """Quadrature nodes ``alpha`` in [0, 1] and weights for ``int_0^1 g``."""
    if method == "riemann_midpoint":
        return (np.arange(n_steps) + 0.5) / n_steps, np.full(n_steps, 1.0 / n_steps)
    if method == "riemann_left":
        return np.arange(n_steps) / n_steps, np.full(n_steps, 1.0 / n_steps)
    if method == "riemann_right":
        return np.arange(1, n_steps + 1) / n_steps, np.full(n_steps, 1.0 / n_steps)
    if method == "trapezoid":
        if n_steps < 2:
            raise ValueError("method='trapezoid' needs n_steps >= 2.")
        alpha = np.linspace(0.0, 1.0, n_steps)
        w = np.full(n_steps, 1.0 / (n_steps - 1))
        w[[0, -1]] *= 0.5
        return alpha, w
    # Gauss-Legendre on [-1, 1], mapped to [0, 1]: exact for polynomials of
    # degree 2 n_steps - 1 along the path.
    t, w = np.polynomial.legendre.leggauss(n_steps)
    return (t + 1.0) / 2.0, w / 2.0


class IntegratedGradients:
    """Integrated-gradients attributions (notes A §12.3).

    ``IG_i(x) = (x_i - x'_i) int_0^1 dF(x' + a (x - x'))/dx_i da`` for a
    baseline ``x'``, by a quadrature along the straight path. Completeness:
    ``sum_i IG_i(x) = F(x) - F(x')`` up to the quadrature error, reported as
    ``convergence_delta``. The gradients come from :func:`input_gradient`:
    analytic for skml's differentiable models, central finite differences
    for any other.

    Parameters
    ----------
    model : fitted estimator
        A classifier with ``predict_proba`` (``F`` is a class probability) or
        a regressor (``F`` is its prediction).
    baseline : None, "mean" or array-like of shape (n_features,) or \
(n_samples, n_features), default=None
        ``x'``: zeros (the notes' default) when None; an array of one row for
        all, or one row per explained row. "mean" is not accepted here (the
        explainer sees no data); pass ``X_train.mean(axis=0)``.
    n_steps : int, default=50
        Quadrature points.
    method : {"riemann_midpoint", "riemann_left", "riemann_right", \
"trapezoid", "gausslegendre"}, default="gausslegendre"
        The quadrature. Exact for linear ``F`` with every rule (constant
        gradient); for quadratic ``F`` (linear gradient along the path) the
        midpoint, trapezoid and Gauss-Legendre rules are exact and the left
        and right sums are not; for smooth ``F`` the midpoint and trapezoid
        errors are ``O(1/n_steps^2)`` and Gauss-Legendre's decays faster.
    feature_names : list of str, default=None

    Notes
    -----
    The ``n_samples x n_steps`` path points are differentiated in blocks of
    50 000 points, one gradient call per block (one back-propagation for an
    MLP), so memory stays bounded however many rows are explained.

    References
    ----------
    Sundararajan, Taly and Yan, "Axiomatic Attribution for Deep Networks",
    ICML 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> from skml.inspection import IntegratedGradients
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0]])
    >>> reg = LinearRegression().fit(X, X @ np.array([2.0, -1.0]))
    >>> IntegratedGradients(reg, n_steps=1).explain([[1.0, 1.0]]).values.round(6)
    array([[ 2., -1.]])
    """

    def __init__(self, model, baseline=None, n_steps=50, method="gausslegendre", *,
                 feature_names=None):
        if method not in _METHODS:
            raise ValueError(f"method must be one of {_METHODS}; got {method!r}.")
        if not (isinstance(n_steps, Integral) and not isinstance(n_steps, bool)
                and n_steps >= 1):
            raise ValueError(f"n_steps must be a positive integer; got {n_steps!r}.")
        if isinstance(baseline, str):
            raise ValueError(
                f"baseline must be None or an array; got {baseline!r} (for the mean, "
                "pass X_train.mean(axis=0))."
            )
        self.model = model
        self.baseline = baseline
        self.n_steps = n_steps
        self.method = method
        self.feature_names = feature_names

    def explain(self, X, target=None):
        """Integrated gradients of each row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        target : label, array-like of labels or None, default=None
            Classifiers: the class whose probability is explained, one for
            all rows or one per row; None explains each row's predicted
            class. Ignored for regressors.

        Returns
        -------
        explanation : Explanation
            ``values`` (n_samples, n_features) (or (n_samples, n_features,
            n_outputs) for a multi-output regressor), ``base_values`` =
            ``F(x')``, ``convergence_delta`` = ``sum_i IG_i - (F(x) - F(x'))``.
        """
        model = self.model
        n_in = getattr(model, "n_features_in_", None)
        X_in = X
        X = check_rows(X, n_in, "X")
        n, d = X.shape
        classifier = is_classifier(model)
        if classifier and not hasattr(model, "predict_proba"):
            raise ValueError(
                f"{type(model).__name__} has no predict_proba: integrated gradients "
                "explain a class probability."
            )
        if self.baseline is None:
            base = np.zeros((n, d))
        else:
            base = np.asarray(self.baseline, dtype=np.float64)
            if base.ndim == 1 and base.shape == (d,):
                base = np.broadcast_to(base, (n, d))
            if base.shape != (n, d):
                raise ValueError(
                    f"baseline must have shape ({d},) or ({n}, {d}); got {base.shape}."
                )
        if classifier:
            F_x = model.predict_proba(X)
            classes = model.classes_
            if target is None:
                column = np.argmax(F_x, axis=1)
            else:
                t = np.asarray(target)
                t = np.full(n, t[()], dtype=t.dtype) if t.ndim == 0 else t
                column = np.searchsorted(classes, t)
                column = np.minimum(column, len(classes) - 1)
                if t.shape != (n,) or np.any(classes[column] != t):
                    raise ValueError(
                        f"target must be one label of classes_ or {n} of them."
                    )
            output = "proba"
        else:
            F_x = np.asarray(model.predict(X), dtype=np.float64)
            output = "decision"
        alpha, weight = path_nodes(self.n_steps, self.method)
        m = len(alpha)
        avg = None
        rows_per_block = max(1, _BLOCK_POINTS // m)
        for start in range(0, n, rows_per_block):
            r = np.arange(start, min(n, start + rows_per_block))
            diff = X[r] - base[r]
            points = base[r][:, None, :] + alpha[None, :, None] * diff[:, None, :]
            G = input_gradient(model, points.reshape(-1, d), output=output)
            G = G.reshape((len(r), m, d) + G.shape[2:])
            if classifier:
                G = G[np.arange(len(r)), :, :, column[r]]  # (rows, m, d)
            block = np.tensordot(weight, G, axes=(0, 1))  # (rows, d[, k])
            if avg is None:
                avg = np.empty((n,) + block.shape[1:])
            avg[r] = block
        diff = X - base
        values = avg * (diff if avg.ndim == 2 else diff[:, :, None])
        if classifier:
            F_base = model.predict_proba(np.ascontiguousarray(base))
            rows = np.arange(n)
            f_x, f_b = F_x[rows, column], F_base[rows, column]
        else:
            f_x = F_x
            f_b = np.asarray(model.predict(np.ascontiguousarray(base)), dtype=np.float64)
        delta = values.sum(axis=1) - (f_x - f_b)
        names = feature_names_for(X_in, None, d, self.feature_names)
        return Explanation(values=values, base_values=f_b, data=X, feature_names=names,
                           convergence_delta=delta,
                           output_names=None,
                           extra={"target": column if classifier else None})
