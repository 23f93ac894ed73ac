"""Input checks shared by every skml estimator: sample weights and labels."""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length
from sklearn.utils.validation import validate_data as _sklearn_validate_data

__all__ = ["check_sample_weight", "encode_labels", "check_n_classes", "validate_data",
           "native_byte_order"]


def check_sample_weight(sample_weight, X, *, dtype=np.float64, allow_negative=False,
                        allow_all_zero=False):
    """Validate ``sample_weight`` and return it as a new 1-d float array.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), float or None
        ``None`` gives unit weights, a scalar is broadcast.
    X : array-like of shape (n_samples, n_features)
        The data the weights go with (only its length is used).
    dtype : dtype, default=np.float64
        Output dtype.
    allow_negative : bool, default=False
        Accept negative weights (no skml estimator does today).
    allow_all_zero : bool, default=False
        Accept weights that are all zero (for a caller that reports that case
        itself, e.g. SGD's early-stopping split).

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,)
        A copy: the caller's array is never modified.

    Raises
    ------
    TypeError
        If the weights are a 0-d array (a Python or numpy number is
        broadcast; ``np.array(0.5)`` is not).
    ValueError
        If the weights are not 1-d, have the wrong length, contain NaN or
        inf, are negative, or are all zero (unless ``allow_all_zero``).
    """
    n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
    if sample_weight is None:
        return np.ones(n_samples, dtype=dtype)
    if np.isscalar(sample_weight):
        sample_weight = np.full(n_samples, sample_weight, dtype=dtype)
    else:
        sample_weight = np.array(sample_weight, dtype=dtype, copy=True)
        if sample_weight.ndim == 0:
            # A 0-d array is not a number (scikit-learn broadcasts only
            # ``numbers.Number``): its TypeError, word for word.
            raise TypeError(
                "Input should have at least 1 dimension i.e. satisfy "
                f"`len(x.shape) > 0`, got scalar `{sample_weight!r}` instead. "
                "sample_weight must be a number or a 1-d array of length n_samples."
            )
    if sample_weight.ndim != 1:
        raise ValueError(
            "Sample weights must be 1D array or scalar: sample_weight has shape "
            f"{sample_weight.shape}."
        )
    if sample_weight.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight.shape == {sample_weight.shape}, expected ({n_samples},): "
            f"sample_weight has {sample_weight.shape[0]} entries but X has "
            f"{n_samples} samples."
        )
    if not np.all(np.isfinite(sample_weight)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if not allow_negative and np.any(sample_weight < 0):
        raise ValueError("Negative values in data passed to `sample_weight` "
                         "(negative sample weights are not allowed).")
    if not allow_all_zero and not np.any(sample_weight != 0):
        raise ValueError(
            "Sample weights must contain at least one non-zero number; "
            "all the weights are zero."
        )
    return sample_weight


def encode_labels(y, *, min_classes=2, sample_weight=None):
    """Map classification targets of any type to ``0..n_classes-1``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (ints, strings, bools, ...).
    min_classes : int, default=2
        Fewest distinct classes accepted.
    sample_weight : ndarray of shape (n_samples,), default=None
        When given, classes whose samples all have zero weight do not count
        towards ``min_classes`` (they cannot be learnt).

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The sorted distinct labels, to store as ``classes_``.
    y_encoded : ndarray of shape (n_samples,), dtype=intp
        Index of each label in ``classes``.

    Raises
    ------
    ValueError
        For continuous or multi-output targets, or too few classes.
    """
    y = np.asarray(y)
    if y.dtype == object:
        # Strings and numbers cannot be sorted together: say so before
        # numpy's "'<' not supported between instances of 'str' and 'int'".
        kinds = {isinstance(v, str) for v in y.ravel()}
        if len(kinds) > 1:
            raise ValueError(
                "y mixes string and non-string labels (e.g. 'a' and 1); "
                "labels must all be strings or all be numbers."
            )
    check_classification_targets(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d for this estimator, got shape {y.shape}.")
    # unique then searchsorted: the same codes as return_inverse=True with a
    # third of its temporaries (argsort, gathered copy, cumsum: ~5 n words).
    classes = np.unique(y)
    y_encoded = np.searchsorted(classes, y)
    check_n_classes(classes, min_classes, y_encoded, sample_weight)
    return classes, y_encoded.astype(np.intp, copy=False)


def check_n_classes(classes, min_classes=2, y_encoded=None, sample_weight=None):
    """Raise ``ValueError`` unless at least ``min_classes`` classes are present."""
    n_present = len(classes)
    if sample_weight is not None and y_encoded is not None:
        check_consistent_length(y_encoded, sample_weight)
        weight_per_class = np.bincount(
            y_encoded, weights=sample_weight, minlength=len(classes)
        )
        n_present = int(np.count_nonzero(weight_per_class > 0))
    if n_present < min_classes:
        raise ValueError(
            f"This solver needs samples of at least {min_classes} classes in the "
            f"data (with non-zero sample weight), but the data contain only "
            f"{n_present} class: {classes[0]!r}."
            if n_present == 1
            else f"The data contain {n_present} classes; at least {min_classes} "
            "are needed."
        )


# scikit-learn's advice for NaN in X names its HistGradientBoosting models;
# skml's own trees, forests and boosting take NaN natively.
_SKLEARN_NAN_ADVICE = "does not accept missing values encoded as NaN natively"
_SKML_NAN_ADVICE = (
    "{name} does not accept missing values encoded as NaN. skml's "
    "DecisionTreeClassifier/Regressor, RandomForestClassifier/Regressor and "
    "GradientBoostingClassifier/Regressor handle NaN natively; otherwise impute "
    "(e.g. sklearn.impute.SimpleImputer in a pipeline) or drop the rows with "
    "missing values."
)


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, with skml's advice when X holds NaN.

    Parameters and return value are those of
    :func:`sklearn.utils.validation.validate_data`.
    """
    try:
        return _sklearn_validate_data(estimator, X, y, **kwargs)
    except ValueError as exc:
        message = str(exc)
        if _SKLEARN_NAN_ADVICE not in message:
            raise
        first = message.split("\n", 1)[0]  # "Input X contains NaN."
        raise ValueError(
            f"{first}\n{_SKML_NAN_ADVICE.format(name=type(estimator).__name__)}"
        ) from exc


def native_byte_order(value):
    """``value`` with every ndarray in it (also inside tuples, lists and dicts)
    in the machine's byte order, values unchanged.

    A pickle written on a machine of the other byte order loads arrays of
    non-native dtype, which compiled (numba) kernels cannot type; estimators
    that hand stored arrays to kernels call this from ``__setstate__``.
    """
    if isinstance(value, np.ndarray):
        if value.dtype.isnative:
            return value
        return value.astype(value.dtype.newbyteorder("="))
    if isinstance(value, dict):
        return {key: native_byte_order(item) for key, item in value.items()}
    if isinstance(value, list):
        return [native_byte_order(item) for item in value]
    if isinstance(value, tuple):
        items = [native_byte_order(item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value
