"""scikit-learn's API checks over every public skml estimator.

The estimators come from ``skml.utils.discovery.all_estimators()``: adding an
estimator to a public module is enough to put it under these checks. Test
instances and the (few, justified) expected failures are in
``tests/estimator_instances.py``.
"""

import warnings

import pytest
from sklearn.base import TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    check_get_feature_names_out_error,
    check_global_output_transform_pandas,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

from skml.utils.discovery import all_estimators

from .estimator_instances import expected_failed_checks, make_instances

ESTIMATORS = make_instances(all_estimators())
TRANSFORMERS = [e for e in ESTIMATORS if isinstance(e, TransformerMixin)]


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=expected_failed_checks, xfail_strict=True
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        # Test instances run few iterations on purpose.
        warnings.simplefilter("ignore", ConvergenceWarning)
        check(estimator)


def _id(estimator):
    return repr(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=_id)
def test_dataframe_column_names(estimator):
    pytest.importorskip("pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        # A fit on named columns must not warn about names at predict time.
        warnings.filterwarnings("error", message=".*was fitted without feature names")
        check_dataframe_column_names_consistency(type(estimator).__name__, estimator)


TRANSFORMER_CHECKS = [
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    check_get_feature_names_out_error,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_global_output_transform_pandas,
]


@pytest.mark.parametrize("check", TRANSFORMER_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("estimator", TRANSFORMERS, ids=_id)
def test_transformer_output(estimator, check):
    pytest.importorskip("pandas")
    with warnings.catch_warnings():
        # The set_output checks themselves mix fits and transforms with and
        # without column names (scikit-learn's own scalers warn the same).
        warnings.filterwarnings("ignore", message=".*feature names", category=UserWarning)
        check(type(estimator).__name__, estimator)
