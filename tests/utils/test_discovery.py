import pytest
from sklearn.base import ClassifierMixin, RegressorMixin

from skml.utils.discovery import all_estimators


def test_sorted_pairs_of_skml_classes():
    pairs = all_estimators()
    names = [name for name, _ in pairs]
    assert names == sorted(names)
    assert all(cls.__module__.startswith("skml.") for _, cls in pairs)


def test_type_filter():
    # Subclass checks: meta-estimators cannot be built without arguments.
    for _, cls in all_estimators(type_filter="classifier"):
        assert issubclass(cls, ClassifierMixin)
    for _, cls in all_estimators(type_filter="regressor"):
        assert issubclass(cls, RegressorMixin)
    both = all_estimators(type_filter=["classifier", "regressor"])
    assert len(both) == len(all_estimators("classifier")) + len(all_estimators("regressor"))


def test_unknown_filter_raises():
    with pytest.raises(ValueError, match="type_filter"):
        all_estimators(type_filter="forest")
