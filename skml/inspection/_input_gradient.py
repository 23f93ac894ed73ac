"""Gradients of a fitted estimator's outputs with respect to its input.

One function, :func:`input_gradient`, serves the gradient-based explainers
(integrated gradients, saliency) and the white-box adversarial attacks. It is
analytic for skml's differentiable estimators (``_analytic_gradients.py``)
and falls back to central finite differences for every other estimator,
scikit-learn's included.
"""

import numpy as np
from sklearn.base import is_classifier, is_regressor
from sklearn.utils.validation import check_array, check_is_fitted

from ..neural_network._utils import class_index
from ._analytic_gradients import analytic_gradient

_OUTPUTS = ("proba", "decision", "loss")

# Central differences have truncation error O(h^2 f''') and rounding error
# O(eps f / h); h = eps^(1/3) * max(1, |x|) balances the two (about 6e-6
# relative), giving about 10 correct digits for smooth models.
FD_RELATIVE_STEP = float(np.finfo(np.float64).eps ** (1.0 / 3.0))

# Finite differences evaluate the model on 2 d perturbed copies of each row;
# rows are batched so one model call sees at most this many float64 values.
_FD_BLOCK_VALUES = 1 << 22


def input_gradient(estimator, X, output="proba", y=None):
    """Gradient of a fitted estimator's output with respect to each input row.

    Row ``i`` of the result differentiates the output at ``X[i]`` with respect
    to ``X[i]`` (the model is applied row by row, so the Jacobian is block
    diagonal and only its diagonal blocks are returned). The gradients feed
    integrated gradients (notes A §12.3) and the white-box attacks.

    Analytic for skml's differentiable estimators: ``LinearRegression``,
    ``Ridge``, ``Lasso``, ``SGDRegressor``, ``SGDClassifier``, ``Perceptron``,
    ``LogisticRegression``, ``LinearSVC``, ``SVC``/``SVR``/``HardMarginSVC``
    with the rbf, poly, sigmoid or linear kernel (through the support vectors
    and dual coefficients), ``MLPClassifier``/``MLPRegressor`` (back-propagation
    to the input), ``LinearDiscriminantAnalysis``,
    ``QuadraticDiscriminantAnalysis`` and ``GaussianNB``. Any other fitted
    estimator (scikit-learn's, a pipeline, a tree) gets central finite
    differences with the step ``h_ij = FD_RELATIVE_STEP * max(1, |x_ij|)``
    (``FD_RELATIVE_STEP = eps^(1/3) ~ 6.1e-6``); piecewise-constant models
    such as trees get zero almost everywhere.

    Parameters
    ----------
    estimator : fitted estimator
        The model to differentiate.
    X : array-like of shape (n_samples, n_features)
        The points at which to differentiate.
    output : {"proba", "decision", "loss"}, default="proba"
        - "proba": every class probability of ``predict_proba``.
        - "decision": ``decision_function`` (for classifiers that have one),
          the prediction for regressors, or the raw network scores (logits)
          for ``MLPClassifier``.
        - "loss": each sample's training loss at its label ``y``: the log-loss
          ``-log p_y`` for probabilistic classifiers (``LogisticRegression``,
          ``MLPClassifier``, LDA/QDA, ``GaussianNB``, and any classifier with
          ``predict_proba`` under finite differences); the classifier's own loss
          for ``SGDClassifier``/``Perceptron`` (summed over the one-vs-rest
          problems); the hinge (or squared hinge) ``max(0, 1 - t f)`` for
          SVMs (summed over the one-vs-rest problems, or over the pairs
          containing ``y`` for a multi-class ``SVC``); the epsilon-insensitive
          loss for ``SVR``; half the squared error ``||f(x) - y||^2 / 2`` for
          regressors (``SGDRegressor``: its own loss; ``MLPRegressor``: its
          own loss).
    y : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        Labels (one per row, or a single label for all rows) or regression
        targets; required by ``output="loss"`` and ignored otherwise.

    Returns
    -------
    gradient : ndarray
        - "proba": shape (n_samples, n_features, n_classes);
        - "decision": shape (n_samples, n_features) when there is a single
          decision column (binary classifiers, single-output regressors),
          else (n_samples, n_features, n_columns);
        - "loss": shape (n_samples, n_features).

    Raises
    ------
    NotFittedError
        If ``estimator`` is not fitted.
    ValueError
        If ``X`` has the wrong width, ``output`` is unknown, ``output="proba"``
        is asked of a model without ``predict_proba``, ``output="loss"`` lacks
        ``y``, or a label in ``y`` is not one of ``classes_``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> from skml.inspection import input_gradient
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0]])
    >>> reg = LinearRegression().fit(X, X @ np.array([2.0, -1.0]))
    >>> input_gradient(reg, X[:1], output="decision").round(6)
    array([[ 2., -1.]])
    """
    if output not in _OUTPUTS:
        raise ValueError(
            f"output must be one of {_OUTPUTS}; got {output!r}."
        )
    if not hasattr(estimator, "fit"):
        raise TypeError(
            f"estimator must be a fitted estimator; got {type(estimator).__name__}."
        )
    check_is_fitted(estimator)
    X = check_array(X, dtype=np.float64, input_name="X")
    n_in = getattr(estimator, "n_features_in_", None)
    if n_in is not None and X.shape[1] != n_in:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was "
            f"fitted with {n_in} features."
        )
    name = type(estimator).__name__
    if output == "proba" and not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"output='proba' needs predict_proba, which {name} does not have "
            "(use output='decision' or 'loss')."
        )
    if output == "loss":
        if y is None:
            raise ValueError("output='loss' needs the labels or targets y.")
        y = _check_y(estimator, y, X.shape[0])
    grad = analytic_gradient(estimator, X, output, y)
    if grad is None:
        grad = _finite_difference_gradient(estimator, X, output, y)
    return grad


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _check_y(estimator, y, n):
    """Labels as class indices (classifiers) or targets as floats (regressors)."""
    y = np.asarray(y)
    if is_classifier(estimator) and hasattr(estimator, "classes_"):
        classes = np.asarray(estimator.classes_)
        if classes.ndim != 1:
            raise ValueError(
                "output='loss' supports single-output classifiers only."
            )
        return class_index(classes, y, n)
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 0:
        y = np.full(n, float(y))
    if y.shape[0] != n or y.ndim > 2:
        raise ValueError(
            f"y must have {n} rows, one per row of X; got shape {y.shape}."
        )
    return y


def _response(estimator, output, y):
    """``f(Z) -> (m, k)``: the function finite differences differentiate."""
    name = type(estimator).__name__
    if output == "proba":
        return lambda Z, rows: np.asarray(estimator.predict_proba(Z), dtype=np.float64)
    if output == "decision":
        if hasattr(estimator, "decision_function"):
            method = estimator.decision_function
        elif is_regressor(estimator):
            method = estimator.predict
        else:
            raise ValueError(
                f"output='decision' needs decision_function or a regressor; "
                f"{name} is neither (use output='proba')."
            )
        return lambda Z, rows: _as_2d(method(Z))
    # output == "loss"
    if is_classifier(estimator):
        if hasattr(estimator, "predict_proba"):
            def log_loss(Z, rows):
                P = np.asarray(estimator.predict_proba(Z), dtype=np.float64)
                p = P[np.arange(len(rows)), y[rows]]
                return -np.log(np.maximum(p, np.finfo(np.float64).tiny))[:, None]
            return log_loss
        if hasattr(estimator, "decision_function"):
            def hinge(Z, rows):
                D = _as_2d(estimator.decision_function(Z))
                if D.shape[1] == 1:
                    t = np.where(y[rows] == 1, 1.0, -1.0)[:, None]
                else:
                    t = -np.ones_like(D)
                    t[np.arange(len(rows)), y[rows]] = 1.0
                return np.maximum(0.0, 1.0 - t * D).sum(axis=1, keepdims=True)
            return hinge
        raise ValueError(
            f"output='loss' needs predict_proba or decision_function; {name} has "
            "neither."
        )
    if is_regressor(estimator):
        def half_squared_error(Z, rows):
            R = _as_2d(estimator.predict(Z)) - y[rows].reshape(len(rows), -1)
            return 0.5 * np.sum(R * R, axis=1, keepdims=True)
        return half_squared_error
    raise ValueError(
        f"output='loss' needs a classifier or a regressor; {name} is neither."
    )


def _as_2d(values):
    values = np.asarray(values, dtype=np.float64)
    return values[:, None] if values.ndim == 1 else values


def _finite_difference_gradient(estimator, X, output, y):
    """Central differences, 2 d model rows per input row, batched."""
    f = _response(estimator, output, y)
    n, d = X.shape
    block = max(1, _FD_BLOCK_VALUES // max(1, 2 * d * d))
    steps = FD_RELATIVE_STEP * np.maximum(1.0, np.abs(X))
    out = None
    eye = np.eye(d)
    for start in range(0, n, block):
        rows = np.arange(start, min(n, start + block))
        x, h = X[rows], steps[rows]
        # (m, 2, d, d): copy j of row i moved by +h_ij (then -h_ij) along e_j.
        sign = np.array([1.0, -1.0])[None, :, None, None]
        delta = sign * (h[:, None, :, None] * eye[None, None])
        Z = (x[:, None, None, :] + delta).reshape(-1, d)
        # the exact steps taken (x + h - x may differ from h in float64)
        taken = (x + h) - (x - h)
        F = f(Z, np.repeat(rows, 2 * d))
        k = F.shape[1]
        F = F.reshape(len(rows), 2, d, k)
        G = (F[:, 0] - F[:, 1]) / taken.reshape(len(rows), d, 1)
        if out is None:
            out = np.empty((n, d, k))
        out[rows] = G
    if output == "loss" or (output == "decision" and out.shape[2] == 1):
        return out[:, :, 0]
    return out
