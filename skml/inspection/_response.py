"""Turning a fitted estimator (or a function) into ``f(Z) -> (m, k)``."""

import warnings

import numpy as np
from sklearn.base import is_classifier
from sklearn.utils.validation import check_array, check_is_fitted

_METHODS = ("auto", "predict_proba", "decision_function", "predict")


class Response:
    """The explained function: a model's prediction method as a 2-d array.

    ``f(Z)`` returns shape (m, k); ``single`` says the method returned a 1-d
    array (one output), so explanations squeeze the output axis.
    """

    def __init__(self, model, response_method="auto"):
        self.model = model
        if response_method not in _METHODS and not callable(response_method):
            raise ValueError(
                f"response_method must be one of {_METHODS} or a callable; got "
                f"{response_method!r}."
            )
        if hasattr(model, "fit"):
            check_is_fitted(model)
            if callable(response_method):
                self.method, self.name = response_method, getattr(
                    response_method, "__name__", "callable")
            else:
                self.name = _choose_method(model, response_method)
                self.method = getattr(model, self.name)
            self.n_features_in = getattr(model, "n_features_in_", None)
            self.feature_names_in = getattr(model, "feature_names_in_", None)
            self.output_names = (
                [str(c) for c in model.classes_]
                if self.name == "predict_proba" and hasattr(model, "classes_") else None
            )
        elif callable(model):
            self.method, self.name = model, getattr(model, "__name__", "callable")
            self.n_features_in = None
            self.feature_names_in = None
            self.output_names = None
        else:
            raise TypeError(
                "model must be a fitted estimator or a prediction function; got "
                f"{type(model).__name__}."
            )
        self.single = None
        self.n_calls = 0
        self.n_rows = 0

    def __call__(self, Z):
        with warnings.catch_warnings():
            # skml works on arrays; a model fitted on a DataFrame need not warn
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            out = np.asarray(self.method(Z), dtype=np.float64)
        self.n_calls += 1
        self.n_rows += Z.shape[0]
        if out.ndim not in (1, 2) or out.shape[0] != Z.shape[0]:
            raise ValueError(
                f"the model's {self.name} returned shape {out.shape} for {Z.shape[0]} "
                "rows; expected (n,) or (n, n_outputs)."
            )
        if self.single is None:
            self.single = out.ndim == 1
        return out[:, None] if out.ndim == 1 else out

    def squeeze(self, values):
        """Drop the trailing output axis of a single-output result."""
        return values[..., 0] if self.single else values


def _choose_method(model, response_method):
    name = type(model).__name__
    if response_method == "auto":
        if hasattr(model, "predict_proba"):
            return "predict_proba"
        if is_classifier(model) and hasattr(model, "decision_function"):
            return "decision_function"
        if hasattr(model, "predict"):
            return "predict"
        raise ValueError(f"{name} has no predict_proba, decision_function or predict.")
    if not hasattr(model, response_method):
        raise ValueError(
            f"response_method={response_method!r} but {name} has no "
            f"{response_method} (probabilities need predict_proba)."
        )
    return response_method


def check_rows(X, n_features, what, response=None, allow_nan=False):
    """``X`` as a float64 2-d array of the expected width (None: any)."""
    X = check_array(X, dtype=np.float64, input_name=what,
                    ensure_all_finite="allow-nan" if allow_nan else True)
    expected = n_features
    if expected is None and response is not None:
        expected = response.n_features_in
    if expected is not None and X.shape[1] != expected:
        raise ValueError(
            f"{what} has {X.shape[1]} features, but {expected} are expected"
            + (" (the model's n_features_in_)." if n_features is None else
               " (the background's width).")
        )
    return X


def feature_names_for(data, response, n_features, feature_names=None):
    """User names, else a DataFrame's columns, else the model's, else x0, x1, ..."""
    if feature_names is not None:
        names = [str(f) for f in feature_names]
        if len(names) != n_features:
            raise ValueError(
                f"feature_names has {len(names)} names for {n_features} features."
            )
        return names
    columns = getattr(data, "columns", None)
    if columns is not None:
        return [str(c) for c in columns]
    if response is not None and response.feature_names_in is not None:
        return [str(c) for c in response.feature_names_in]
    return [f"x{j}" for j in range(n_features)]
