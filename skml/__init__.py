"""skml: classical machine-learning algorithms from scratch, as scikit-learn estimators.

Subpackages mirror scikit-learn's (``skml.linear_model``, ``skml.svm``,
``skml.tree``, ``skml.ensemble``, ``skml.neighbors``, ``skml.cluster``, ...);
``skml.optim`` holds the gradient optimisers shared by the iterative
estimators, ``skml.metrics.pairwise`` the shared kernels and distances, and
``skml.utils`` the validation and discovery helpers. Every estimator drops
into ``Pipeline`` and ``GridSearchCV``.
"""

__version__ = "0.1.0.dev0"

import importlib as _importlib
import pkgutil as _pkgutil
import sys as _sys


class _RegisterNumbaCacheLocator:
    # Registers skml.utils._numba_cache's locator (every skml kernel's cache
    # keyed on all of skml's sources) just before the first skml submodule
    # loads, so before any kernel is decorated, without importing numba here.
    done = False

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if not cls.done and name.startswith("skml.") and name not in (
                "skml.utils", "skml.utils._numba_cache"):
            cls.done = True
            _importlib.import_module("skml.utils._numba_cache")
        return None  # the regular finders find the module


_sys.meta_path.insert(0, _RegisterNumbaCacheLocator)

# The subpackages load on first use (``import skml; skml.linear_model``), as
# scikit-learn's do: importing skml stays cheap, and numba compiles nothing
# until an estimator is used.
_SUBMODULES = sorted(
    info.name for info in _pkgutil.iter_modules(__path__)
    if info.ispkg and not info.name.startswith("_")
)

__all__ = [*_SUBMODULES, "show_versions", "__version__"]


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"skml.{name}")
    if name == "show_versions":
        from skml.utils._show_versions import show_versions

        return show_versions
    raise AttributeError(f"module 'skml' has no attribute {name!r}")


def __dir__():
    return __all__
