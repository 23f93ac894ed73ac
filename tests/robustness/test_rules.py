"""The outcome rules of the robustness suite, on made-up results."""

import numpy as np
import pytest

from . import _cases as C

NAN_CASE = next(c for c in C.BASE_CASES if c.id == "nan_fit")
HUGE = {"id": "scale_1e300", "group": "magnitudes", "expect": "answer",
        "oracle": "quality", "estimator": "SVC"}
TINY_RIDGE = dict(HUGE, id="scale_1e-300", estimator="Ridge")


@pytest.mark.parametrize("exc, clarity", [
    (ValueError("Input X contains NaN."), "clear"),
    (ValueError("X has a problem"), "unclear"),  # does not name NaN
    (TypeError("'<' not supported between instances of 'str' and 'int'"), "unclear"),
    (ValueError("operands could not be broadcast together with shapes (3,) (4,)"),
     "unclear"),
    (np.linalg.LinAlgError("Singular matrix"), "unclear"),
    (IndexError("index 0 is out of bounds for axis 0 with size 0"), "crash"),
    (ZeroDivisionError("float division by zero"), "crash"),
    (RuntimeError("NaN found"), "crash"),
])
def test_error_clarity(exc, clarity):
    assert C.raw_error(NAN_CASE, exc)["clarity"] == clarity


def test_numpy_exception_types_are_internal():
    try:
        np.add(np.array(["a"]), np.array([1.0]))
    except TypeError as exc:  # numpy's UFuncTypeError names no user problem
        assert C.raw_error(NAN_CASE, exc)["clarity"] == "unclear"


def _answer(q, clean, finite=True):
    return {"status": "answer", "finite": finite, "quality": q, "ref_quality": clean,
            "clean_quality": clean, "kind": "classifier"}


def test_quality_against_the_clean_run():
    assert C.classify(HUGE, _answer(0.95, 0.98)) == "accepted"
    assert C.classify(HUGE, _answer(0.33, 0.98)) == "wrong"
    assert C.classify(HUGE, _answer(0.98, 0.98, finite=False)) == "wrong"


def test_other_library_excuses_only_where_the_model_changes():
    # Both at chance on an invariant model: both wrong, neither excuses.
    assert C.classify(HUGE, _answer(0.33, 0.98), _answer(0.33, 0.98)) == "wrong"
    # Ridge's absolute penalty dominates at X * 1e-300: scikit-learn's loss
    # alike makes the answer right.
    assert C.classify(TINY_RIDGE, _answer(0.33, 0.98), _answer(0.33, 0.97)) == "accepted"
    # Not if the other answer is itself worse than the trivial one.
    assert C.classify(TINY_RIDGE, _answer(-5.0, 0.98), _answer(-5.0, 0.97)) == "wrong"


def test_ranking_against_scikit_learn():
    meta = {"expect": "answer"}
    assert C.compare(meta, "clear", "accepted") == "worse"   # refuses valid input
    assert C.compare(meta, "accepted", "unclear") == "better"
    assert C.compare({"expect": "error"}, "clear", "wrong") == "better"
    assert C.compare({"expect": "either"}, "clear", "accepted") == "same"
    assert C.compare(meta, "clear", "n/a") == "n/a"


def test_invalid_input_taken_silently_is_wrong():
    meta = {"id": "sw_nan", "group": "sample_weight", "expect": "error",
            "oracle": "error", "estimator": "Ridge"}
    assert C.classify(meta, {"status": "answer", "finite": True}) == "wrong"


def test_invalid_values_come_from_the_constraints():
    from numbers import Integral, Real

    from skml.utils import Interval, Options

    values = C.invalid_values([Interval(Integral, 1, None, closed="left"), None])
    assert values == ["__invalid__", 0, 1.5]
    values = C.invalid_values([Interval(Real, 0, 1, closed="both")])
    assert values[:3] == ["__invalid__", -0.5, 1.5]
    assert np.isnan(values[3])
    assert C.invalid_values([Options({"a", "b"}), "array-like"]) == ["__invalid__"]
