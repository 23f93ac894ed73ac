"""``skml.show_versions()``: what to paste into a bug report."""

import platform
import sys
from importlib.metadata import PackageNotFoundError, version

# skml's runtime dependencies, then the optional ones it can use.
DEPENDENCIES = ("numpy", "scipy", "scikit-learn", "joblib", "threadpoolctl", "numba",
                "pandas", "matplotlib")


def _versions():
    found = {}
    for name in DEPENDENCIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def show_versions():
    """Print skml's version, the Python and platform, the dependencies and BLAS.

    Examples
    --------
    >>> import skml
    >>> skml.show_versions()  # doctest: +SKIP
    """
    import skml

    lines = ["System:",
             f"       python: {sys.version.split()[0]} ({sys.executable})",
             f"      machine: {platform.platform()}",
             "", "Python dependencies:",
             f"         skml: {skml.__version__}"]
    lines += [f"{name:>13}: {ver}" for name, ver in _versions().items()]
    try:
        from threadpoolctl import threadpool_info

        pools = threadpool_info()
    except Exception:  # threadpoolctl is a dependency, but never fail a bug report
        pools = []
    if pools:
        lines += ["", "Threadpools (BLAS / OpenMP):"]
        lines += [f"    {p.get('internal_api')} {p.get('version')}: "
                  f"{p.get('num_threads')} threads ({p.get('filepath')})" for p in pools]
    print("\n".join(lines))
