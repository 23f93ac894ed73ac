import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.utils import check_sample_weight, encode_labels

X = np.zeros((4, 2))


def test_none_gives_unit_weights_and_scalar_broadcasts():
    np.testing.assert_array_equal(check_sample_weight(None, X), np.ones(4))
    np.testing.assert_array_equal(check_sample_weight(2.0, X), np.full(4, 2.0))


def test_returns_a_copy():
    sw = np.array([1.0, 2.0, 3.0, 4.0])
    out = check_sample_weight(sw, X)
    out[0] = 99
    assert sw[0] == 1.0


@pytest.mark.parametrize(
    "sample_weight, match",
    [
        ([0.0, 0.0, 0.0, 0.0], "weights.*zero"),
        ([1.0, -1.0, 1.0, 1.0], "Negative"),
        ([1.0, 1.0], "4 samples"),
        ([[1.0], [1.0], [1.0], [1.0]], r"1D array or scalar: sample_weight has shape \(4, 1\)"),
        ([1.0, np.nan, 1.0, 1.0], "NaN"),
        ([1.0, np.inf, 1.0, 1.0], "infinity"),
    ],
)
def test_bad_weights_raise(sample_weight, match):
    with pytest.raises(ValueError, match=match):
        check_sample_weight(sample_weight, X)


@given(st.lists(st.sampled_from(["cat", "dog", "emu"]), min_size=2, max_size=30))
def test_encode_labels_round_trips(labels):
    if len(set(labels)) < 2:
        with pytest.raises(ValueError, match="class"):
            encode_labels(labels)
        return
    classes, encoded = encode_labels(labels)
    assert list(classes) == sorted(set(labels))
    np.testing.assert_array_equal(classes[encoded], labels)


def test_zero_weight_class_does_not_count():
    with pytest.raises(ValueError, match="class"):
        encode_labels([0, 0, 1, 1], sample_weight=np.array([1.0, 1.0, 0.0, 0.0]))


def test_continuous_targets_rejected():
    with pytest.raises(ValueError, match="Unknown label type|continuous"):
        encode_labels([0.5, 1.5, 2.25])


def test_encode_labels_refuses_mixed_label_types():
    # Issue 23: every classifier answered "'<' not supported between
    # instances of 'str' and 'int'" (numpy's sort) for such a y.
    y = np.array([1, "b", "c", 1], dtype=object)
    with pytest.raises(ValueError, match="mixes string and non-string labels"):
        encode_labels(y)
    # One type in an object array is fine.
    classes, _ = encode_labels(np.array(["b", "a", "b"], dtype=object))
    assert classes.tolist() == ["a", "b"]


def test_nan_advice_names_skml_estimators_that_take_nan():
    import numpy as np
    import pytest

    from skml.linear_model import Ridge
    from skml.tree import DecisionTreeRegressor

    X = np.random.default_rng(0).normal(size=(20, 3))
    y = X[:, 0]
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN") as info:
        Ridge().fit(X, y)
    message = str(info.value)
    assert "Ridge does not accept missing values" in message
    assert "skml's DecisionTreeClassifier/Regressor" in message
    assert "HistGradientBoosting" not in message
    DecisionTreeRegressor(random_state=0).fit(X, y)  # the advice is true


def test_every_module_validates_through_skml_utils():
    # skml.utils.validation.validate_data adds skml's NaN advice; a module
    # importing scikit-learn's directly would give scikit-learn's.
    import re
    from pathlib import Path

    import skml

    root = Path(skml.__file__).parent
    direct = re.compile(r"from sklearn\.utils\.validation import[^\n]*\bvalidate_data\b"
                        r"|from sklearn\.utils\.validation import \([^)]*\bvalidate_data\b")
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "validation.py" and direct.search(p.read_text())]
    assert offenders == []


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_zero_d_array_weight_is_a_type_error_but_a_number_broadcasts(dtype):
    # A 0-d array is not a number: scikit-learn's TypeError (and its words),
    # while a Python or numpy scalar is broadcast to every sample.
    match = r"at least 1 dimension.*got scalar `array\(0\."
    with pytest.raises(TypeError, match=match) as info:
        check_sample_weight(np.array(0), X, dtype=dtype)
    assert "sample_weight" in str(info.value)
    np.testing.assert_array_equal(check_sample_weight(np.float32(3.0), X), np.full(4, 3.0))


def test_all_zero_weights_pass_only_when_allowed():
    zeros = np.zeros(4)
    with pytest.raises(ValueError, match="all the weights are zero"):
        check_sample_weight(zeros, X)
    np.testing.assert_array_equal(check_sample_weight(zeros, X, allow_all_zero=True), zeros)
    # The other checks still apply.
    with pytest.raises(ValueError, match="Negative"):
        check_sample_weight([0.0, -1.0, 0.0, 0.0], X, allow_all_zero=True)
