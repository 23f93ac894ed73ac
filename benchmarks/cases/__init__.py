"""The benchmark's case registry: one module per skml family, each with ``CASES``."""

import pkgutil
from importlib import import_module


def all_cases():
    """Every registered :class:`benchmarks.case.Case`, in family order."""
    cases = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        cases.extend(import_module(f"{__name__}.{info.name}").CASES)
    return cases
