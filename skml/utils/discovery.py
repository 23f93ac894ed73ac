"""Find skml's public estimators, as ``sklearn.utils.discovery`` does for sklearn."""

import inspect
import pkgutil
from importlib import import_module
from operator import itemgetter
from pathlib import Path

from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    RegressorMixin,
    TransformerMixin,
)

__all__ = ["all_estimators"]

_TYPE_FILTERS = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "transformer": TransformerMixin,
    "cluster": ClusterMixin,
}


def all_estimators(type_filter=None):
    """Return skml's public estimators as sorted ``(name, class)`` pairs.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "cluster", "transformer"} \
            or list of those, default=None
        Keep only estimators of these kinds; ``None`` keeps all.

    Returns
    -------
    estimators : list of (str, type)
        Public (not underscore-prefixed, not abstract) ``BaseEstimator``
        subclasses defined in skml, sorted by name.

    Examples
    --------
    >>> from skml.utils.discovery import all_estimators
    >>> names = [name for name, _ in all_estimators(type_filter="regressor")]
    >>> "Ridge" in names
    True
    """
    import skml

    root = Path(skml.__file__).parent
    found = set()
    for module_info in pkgutil.walk_packages([str(root)], prefix="skml."):
        parts = module_info.name.split(".")
        if any(p.startswith("_") for p in parts) or "tests" in parts:
            continue
        module = import_module(module_info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseEstimator)
                and cls.__module__.startswith("skml.")
                and not name.startswith("_")
                and not inspect.isabstract(cls)
            ):
                found.add((name, cls))

    if type_filter is not None:
        filters = [type_filter] if isinstance(type_filter, str) else list(type_filter)
        unknown = set(filters) - set(_TYPE_FILTERS)
        if unknown:
            raise ValueError(
                f"type_filter must be None or some of {sorted(_TYPE_FILTERS)}; "
                f"got {sorted(unknown)}."
            )
        found = {
            (n, c) for n, c in found if any(issubclass(c, _TYPE_FILTERS[f]) for f in filters)
        }
    return sorted(found, key=itemgetter(0))
