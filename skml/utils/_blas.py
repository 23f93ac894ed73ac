"""One BLAS thread for small problems: now part of the thread policy in
:mod:`skml.utils._parallel`, re-exported here for the modules that import it
from this place."""

from ._parallel import SINGLE_THREAD_MAX_WORK, blas_threads_for

__all__ = ["SINGLE_THREAD_MAX_WORK", "blas_threads_for"]
