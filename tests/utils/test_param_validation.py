import numbers

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from skml.utils import InvalidParameterError, Interval, Options, validate_params


class _Toy(BaseEstimator):
    _parameter_constraints = {
        "alpha": [Interval(numbers.Real, 0, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "solver": [Options({"auto", "cholesky"})],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "callback": [callable, None],
    }

    def __init__(self, alpha=1.0, max_iter=None, solver="auto", shuffle=True,
                 random_state=None, callback=None):
        self.alpha = alpha
        self.max_iter = max_iter
        self.solver = solver
        self.shuffle = shuffle
        self.random_state = random_state
        self.callback = callback


def test_defaults_are_valid():
    validate_params(_Toy())


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"alpha": -1.0}, "'alpha' parameter of _Toy must be a float in the range [0, inf)"),
        ({"alpha": "big"}, "Got 'big' instead"),
        ({"alpha": True}, "'alpha'"),
        ({"max_iter": 0}, "an int in the range [1, inf) or None"),
        ({"max_iter": 2.5}, "'max_iter'"),
        ({"solver": "svd"}, "a str among {'auto', 'cholesky'}"),
        ({"shuffle": 1}, "must be a bool"),
        ({"random_state": "seed"}, "RandomState"),
        ({"callback": 3}, "a callable or None"),
        ({"alpha": float("nan")}, "'alpha'"),
    ],
)
def test_invalid_values_name_parameter_and_allowed_forms(params, fragment):
    with pytest.raises(InvalidParameterError) as excinfo:
        validate_params(_Toy(**params))
    assert fragment in str(excinfo.value)
    # Usable as either exception type, as scikit-learn's own error is.
    assert isinstance(excinfo.value, ValueError)
    assert isinstance(excinfo.value, TypeError)


@given(st.floats(allow_nan=False), st.sampled_from(["left", "right", "both", "neither"]))
def test_interval_matches_its_definition(x, closed):
    interval = Interval(numbers.Real, -1.0, 1.0, closed=closed)
    inside = -1.0 < x < 1.0
    if x == -1.0:
        inside = closed in ("left", "both")
    if x == 1.0:
        inside = closed in ("right", "both")
    assert interval.is_satisfied_by(x) == inside


def test_numpy_scalars_and_random_states_accepted():
    validate_params(_Toy(alpha=np.float32(0.5), max_iter=np.int64(3),
                         random_state=np.random.RandomState(0)))


class _WithInit(BaseEstimator):
    _parameter_constraints = {
        "init": [Options({"k-means++", "random"}), "array-like"],
        "weights": [None, "array-like"],
    }

    def __init__(self, init="k-means++", weights=None):
        self.init = init
        self.weights = weights


@pytest.mark.parametrize("value", ["kmeans++", "", b"random", np.str_("kmeans++")])
def test_array_like_refuses_strings(value):
    # A misspelt option used to pass as an "array-like" (it has a length)
    # and KernelKMeans(init="kmeans++") silently ran another initialisation.
    with pytest.raises(InvalidParameterError, match="'init' parameter"):
        validate_params(_WithInit(init=value))


@pytest.mark.parametrize("value", [3, 2.5, np.float64(1.0), np.array(2.0)])
def test_array_like_refuses_scalars(value):
    with pytest.raises(InvalidParameterError, match="'weights' parameter"):
        validate_params(_WithInit(weights=value))


@pytest.mark.parametrize("value", [[1.0, 2.0], (1, 2), np.ones((2, 3)), np.array([1])])
def test_array_like_accepts_arrays(value):
    validate_params(_WithInit(init=value, weights=value))


def test_kernel_kmeans_refuses_misspelt_init():
    from skml.cluster import KernelKMeans

    X = np.random.RandomState(0).rand(20, 2)
    with pytest.raises(InvalidParameterError, match="'init' parameter of KernelKMeans"):
        KernelKMeans(n_clusters=2, init="kmeans++").fit(X)
