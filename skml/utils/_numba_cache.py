"""A numba cache locator that keys every skml kernel on all of skml's sources.

numba stamps a function's on-disk cache with the source of the one file that
defines it, not with the kernels it calls or inlines from other files, nor the
constants it freezes from them. A cache compiled before an edit to such a file
is reused and runs the old code (seen: wrong distances in the ball tree, a
segfault in the histogram trees after a change to ``tree/_grower.py``).

:class:`SkmlCacheLocator` wraps the locator numba would choose for a file of
the skml package (NUMBA_CACHE_DIR, the ``__pycache__`` beside the file, or the
user-wide fallback of a read-only install: same directory, same file names)
and adds a digest of every ``.py`` file of the package to the source stamp.
Any edit to the code of any skml file thus invalidates every skml cache entry,
and the first call recompiles; when nothing changed the cache is hit as before.
The digest reads the files without their triple-quoted strings and whole-line
comments: an edit to a docstring or a comment changes no compiled code, so it
keeps the caches (a kernel never reads a triple-quoted string).
``skml/__init__.py`` registers it before the first skml submodule loads.
numba's own ``NUMBA_CACHE_LOCATOR_CLASSES`` variable, when set, replaces the
list of locators and so bypasses this one.
"""

import functools
import hashlib
import os
import re

from numba.core import caching

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

# Triple-quoted strings (docstrings) and lines holding only a comment.
_PROSE = re.compile(rb'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|^[ \t]*#[^\n]*\n', re.MULTILINE)


@functools.cache
def package_digest():
    """SHA-256 of the paths and code of every ``.py`` file of skml.

    Docstrings and whole-line comments are left out (see the module's
    docstring). Computed once per process (a few tens of ms).
    """
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(PACKAGE_DIR):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(f for f in filenames if f.endswith(".py")):
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                source = _PROSE.sub(b"", f.read())
            relpath = os.path.relpath(path, PACKAGE_DIR).encode()
            digest.update(b"%d:%s:%d:" % (len(relpath), relpath, len(source)))
            digest.update(source)
    return digest.hexdigest()


class SkmlCacheLocator(caching._CacheLocator):
    """numba's locator for the file, with :func:`package_digest` in the stamp."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        # What numba reads of a locator beyond the methods below (e.g. the
        # ``_py_file`` it names in its "Cannot cache" warning) is the inner one's.
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_disambiguator(self):
        return self._inner.get_disambiguator()

    def get_source_stamp(self):
        return self._inner.get_source_stamp(), package_digest()

    @classmethod
    def from_function(cls, py_func, py_file):
        path = os.path.realpath(py_file)
        if not path.startswith(PACKAGE_DIR + os.sep):
            return None  # not skml's: numba's own locators decide
        for locator_class in caching.CacheImpl._locator_classes:
            if locator_class is not cls:
                inner = locator_class.from_function(py_func, py_file)
                if inner is not None:
                    return cls(inner)
        return None


def register():
    """Put :class:`SkmlCacheLocator` first in numba's locators (idempotent)."""
    locators = caching.CacheImpl._locator_classes
    if SkmlCacheLocator not in locators:
        locators.insert(0, SkmlCacheLocator)


register()
