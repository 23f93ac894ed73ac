"""The shared test data (tests/_data.py) and the seed fixture (tests/conftest.py)."""
import numpy as np
import pytest
from numpy.testing import assert_array_equal
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import train_test_split

from tests import _data
from tests.conftest import _seeds


def test_load_is_the_bundled_dataset_and_a_fresh_copy():
    X, y = _data.load("wine")
    X_ref, y_ref = load_wine(return_X_y=True)
    assert_array_equal(X, X_ref)
    assert_array_equal(y, y_ref)
    X[0, 0] = -1.0                      # writing into one copy ...
    assert _data.load("wine")[0][0, 0] == X_ref[0, 0]   # ... leaves the cache alone


def test_load_names_the_unknown_dataset():
    with pytest.raises(ValueError, match="'irs'"):
        _data.load("irs")


@pytest.mark.parametrize("stratify", [True, False])
def test_split_is_train_test_split_with_seed_0(stratify):
    X, y = load_iris(return_X_y=True)
    ref = train_test_split(X, y, test_size=0.3, random_state=0,
                           stratify=y if stratify else None)
    for ours, theirs in zip(_data.split("iris", test_size=0.3, stratify=stratify), ref):
        assert_array_equal(ours, theirs)


def test_split_scales_with_the_training_part():
    X_tr, X_te, _, _ = _data.split("iris", scale=True)
    np.testing.assert_allclose(X_tr.mean(axis=0), 0.0, atol=1e-12)
    assert np.abs(X_te.mean(axis=0)).max() > 1e-6


def test_makers_are_deterministic():
    for make in (lambda: _data.blobs(50, 3), _data.classification, _data.regression):
        (X1, y1), (X2, y2) = make(), make()
        assert_array_equal(X1, X2)
        assert_array_equal(y1, y2)


@pytest.mark.parametrize("value,expected", [
    ("42", [42]), (" 7 ", [7]), ("0-3", [0, 1, 2, 3]), ("1,5,9", [1, 5, 9]),
    ("0-1,8", [0, 1, 8]), ("all", list(range(100))),
])
def test_seed_setting_is_parsed(value, expected):
    assert _seeds(value) == expected


@pytest.mark.parametrize("value", ["", "x", "3-", "-2", "5-1"])
def test_bad_seed_setting_is_refused_with_its_name(value):
    with pytest.raises(ValueError, match="SKML_TESTS_GLOBAL_RANDOM_SEED"):
        _seeds(value)


def test_global_random_seed_is_an_int(global_random_seed):
    assert isinstance(global_random_seed, int) and global_random_seed >= 0


def test_dataset_fixture_is_the_dataset(iris_data):
    assert_array_equal(iris_data[0], load_iris().data)


def test_load_scaled_is_standardised_over_the_whole_set():
    X, _ = _data.load("iris", scale=True)
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1.0, rtol=1e-12)
