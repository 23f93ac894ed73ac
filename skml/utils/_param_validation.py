"""Declarative hyper-parameter validation.

Each estimator declares its constraints once, as a class attribute::

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "solver": [Options({"auto", "cholesky"})],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

and calls ``validate_params(self)`` at the top of ``fit``. A parameter is
valid when it satisfies at least one of its constraints; otherwise
:class:`InvalidParameterError` (both a ``ValueError`` and a ``TypeError``, as
scikit-learn's own) is raised with a message naming the parameter, the
estimator and every allowed form.

Constraint forms: ``None``; a type (``bool``, ``dict``, ``numbers.Real``);
``Interval``; ``Options``; ``HasMethods``; the builtin ``callable``; and the strings ``"boolean"``, ``"random_state"``,
``"array-like"``, ``"callable"``, ``"verbose"``.
"""

import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["InvalidParameterError", "Interval", "Options", "validate_params"]


class InvalidParameterError(ValueError, TypeError):
    """Raised when a hyper-parameter has an invalid type or value."""


@dataclass(frozen=True)
class Interval:
    """Numbers of ``type`` between ``left`` and ``right``.

    ``closed`` is one of "left", "right", "both", "neither"; ``None`` bounds
    are infinite. Booleans never count as numbers.
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def is_satisfied_by(self, value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.type):
            return False
        if isinstance(value, numbers.Real) and np.isnan(value):
            return False
        left_ok = (
            self.left is None
            or value > self.left
            or (value == self.left and self.closed in ("left", "both"))
        )
        right_ok = (
            self.right is None
            or value < self.right
            or (value == self.right and self.closed in ("right", "both"))
        )
        return left_ok and right_ok

    def __str__(self):
        kind = "an int" if self.type is numbers.Integral else "a float"
        left = "-inf" if self.left is None else self.left
        right = "inf" if self.right is None else self.right
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{kind} in the range {lb}{left}, {right}{rb}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (usually strings)."""

    options: frozenset

    def __init__(self, options):
        object.__setattr__(self, "options", frozenset(options))

    def is_satisfied_by(self, value):
        try:
            return value in self.options
        except TypeError:  # unhashable value
            return False

    def __str__(self):
        listed = ", ".join(repr(o) for o in sorted(self.options, key=str))
        # scikit-learn's wording for string options (user code matches it).
        if all(isinstance(o, str) for o in self.options):
            return f"a str among {{{listed}}}"
        return f"one of {{{listed}}}"


class HasMethods:
    """An object with all the named methods (e.g. an estimator with ``fit``)."""

    def __init__(self, methods):
        self.methods = (methods,) if isinstance(methods, str) else tuple(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self):
        listed = [repr(m) for m in self.methods]
        if len(listed) > 1:
            listed = [", ".join(listed[:-1]) + " and " + listed[-1]]
        return f"an object implementing {listed[0]}"


def _is_random_state(value):
    return value is None or isinstance(
        value, (numbers.Integral, np.random.RandomState, np.random.Generator)
    ) and not isinstance(value, bool)


def _is_array_like(value):
    # A string has a length but is never an array of values: accepting it let
    # a misspelt option (init="kmeans++") pass as an "array". Scalars (numpy
    # ones have a shape too, of ()) are not arrays either.
    if isinstance(value, (str, bytes)) or np.isscalar(value):
        return False
    if getattr(value, "ndim", None) == 0:
        return False
    return hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(
        value, "__array__"
    )


_NAMED = {
    "boolean": (lambda v: isinstance(v, (bool, np.bool_)), "a bool"),
    "random_state": (_is_random_state, "an int, a RandomState instance or None"),
    "array-like": (_is_array_like, "an array-like"),
    "callable": (callable, "a callable"),
    "verbose": (
        lambda v: isinstance(v, (numbers.Integral, bool, np.bool_)) and v >= 0,
        "a non-negative int or bool",
    ),
}


def _satisfies(value, constraint):
    if constraint is callable:
        constraint = "callable"
    if constraint is None:
        return value is None
    if isinstance(constraint, str):
        return _NAMED[constraint][0](value)
    if isinstance(constraint, type):
        if constraint is not bool and isinstance(value, (bool, np.bool_)):
            return False
        return isinstance(value, constraint)
    return constraint.is_satisfied_by(value)


def _describe(constraint):
    if constraint is callable:
        constraint = "callable"
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return _NAMED[constraint][1]
    if isinstance(constraint, type):
        names = {numbers.Real: "float", numbers.Integral: "int"}
        return f"an instance of '{names.get(constraint, constraint.__name__)}'"
    return str(constraint)


def validate_params(estimator, params=None, constraints=None):
    """Check ``estimator``'s hyper-parameters against its declared constraints.

    Parameters
    ----------
    estimator : BaseEstimator
        An estimator with a ``_parameter_constraints`` class attribute.
    params : dict, default=None
        The values to check; ``estimator.get_params(deep=False)`` by default.
    constraints : dict, default=None
        The constraints to check; ``estimator._parameter_constraints`` by
        default (a subclass of a scikit-learn class whose own
        ``_parameter_constraints`` scikit-learn validates passes its extra
        ones here).

    Raises
    ------
    InvalidParameterError
        Naming the first invalid parameter, its value and the allowed forms.
    """
    if constraints is None:
        constraints = getattr(estimator, "_parameter_constraints", {})
    if params is None:
        params = estimator.get_params(deep=False)
    name = type(estimator).__name__
    for param, allowed in constraints.items():
        if param not in params:
            continue
        value = params[param]
        if any(_satisfies(value, c) for c in allowed):
            continue
        forms = [_describe(c) for c in allowed]
        expected = forms[0] if len(forms) == 1 else (
            ", ".join(forms[:-1]) + " or " + forms[-1]
        )
        raise InvalidParameterError(
            f"The {param!r} parameter of {name} must be {expected}. "
            f"Got {value!r} instead."
        )
