"""Validation, label encoding and discovery helpers shared by skml estimators."""

from ._param_validation import (
    HasMethods,
    InvalidParameterError,
    Interval,
    Options,
    validate_params,
)
from .validation import check_n_classes, check_sample_weight, encode_labels

__all__ = [
    "HasMethods",
    "InvalidParameterError",
    "Interval",
    "Options",
    "check_n_classes",
    "check_sample_weight",
    "encode_labels",
    "validate_params",
]
