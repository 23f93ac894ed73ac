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
        ([[1.0], [1.0], [1.0], [1.0]], "1-d"),
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
