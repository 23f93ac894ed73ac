"""skml's numba cache locator: an edit to any skml file invalidates every kernel's cache.

Each test copies the package to a temporary directory and runs fresh processes
on the copy, calling one small kernel (``skml.utils._kernels.dot``) and
reading its dispatcher's cache statistics: nothing here depends on timing.
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

import skml
from skml.utils._numba_cache import SkmlCacheLocator, package_digest

CALL_DOT = """
import json, numpy as np
from skml.utils._kernels import dot
from skml.utils._numba_cache import SkmlCacheLocator
assert dot(np.ones(3), np.ones(3)) == 3.0
print(json.dumps({
    "hits": sum(dot.stats.cache_hits.values()),
    "misses": sum(dot.stats.cache_misses.values()),
    "skml_locator": isinstance(dot._cache._impl.locator, SkmlCacheLocator),
    "cache_path": dot._cache.cache_path,
}))
"""


@pytest.fixture
def package_copy(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(os.path.dirname(skml.__file__), root / "skml",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def call_dot(root, **env):
    env = {k: v for k, v in dict(os.environ, **env).items() if v is not None}
    env["PYTHONPATH"] = str(root)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    out = subprocess.run([sys.executable, "-c", CALL_DOT], capture_output=True, text=True,
                         env=env, cwd=root, check=True).stdout
    return json.loads(out.splitlines()[-1])


def edit_another_file(root):
    # Not dot's file, nor a file dot's module imports: any skml source counts.
    with open(root / "skml" / "tree" / "_grower.py", "a") as f:
        f.write("EDITED = 1\n")


def edit_prose(root):
    # A docstring and a comment: no compiled code changes.
    path = root / "skml" / "tree" / "_grower.py"
    source = path.read_text()
    path.write_text(source.replace('"""', '"""An edited docstring. ', 1) + "# a comment\n")


def test_cache_is_reused_until_any_skml_file_changes(package_copy, tmp_path):
    cache_dir = str(tmp_path / "numba_cache")
    first = call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)
    assert first["skml_locator"]
    assert first["cache_path"].startswith(cache_dir)
    assert (first["hits"], first["misses"]) == (0, 1)
    assert call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)["hits"] == 1

    edit_another_file(package_copy)
    after_edit = call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)
    assert (after_edit["hits"], after_edit["misses"]) == (0, 1)
    assert call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)["hits"] == 1


def test_docstring_and_comment_edits_keep_the_cache(package_copy, tmp_path):
    cache_dir = str(tmp_path / "numba_cache")
    assert call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)["misses"] == 1
    edit_prose(package_copy)
    after_edit = call_dot(package_copy, NUMBA_CACHE_DIR=cache_dir)
    assert (after_edit["hits"], after_edit["misses"]) == (1, 0)


@pytest.mark.parametrize("where", ["in_tree", "user_wide"])
def test_numbas_fallback_directories_are_kept(package_copy, tmp_path, where):
    # Without NUMBA_CACHE_DIR numba caches beside the file; where it cannot write
    # there (a read-only install; here __pycache__ is made a plain file) it falls
    # back to the user-wide cache directory. The locator keeps both.
    user_cache = tmp_path / "user_cache"
    if where == "user_wide":
        (package_copy / "skml" / "utils" / "__pycache__").write_text("")
    env = {"NUMBA_CACHE_DIR": None, "XDG_CACHE_HOME": str(user_cache)}
    first = call_dot(package_copy, **env)
    expected = (package_copy / "skml" / "utils" / "__pycache__" if where == "in_tree"
                else user_cache / "numba")
    assert first["skml_locator"]
    assert first["cache_path"].startswith(str(expected))
    assert os.listdir(first["cache_path"])
    assert call_dot(package_copy, **env)["hits"] == 1
    edit_another_file(package_copy)
    assert call_dot(package_copy, **env)["hits"] == 0


def test_every_cached_skml_kernel_uses_the_locator():
    # The locator must be registered before any kernel module is imported: a
    # kernel decorated earlier would keep numba's per-file stamp.
    from skml.utils.discovery import all_estimators

    all_estimators()  # imports every public module
    dispatchers = [
        obj for name, module in list(sys.modules.items()) if name.startswith("skml.")
        for obj in list(vars(module).values())
        if getattr(getattr(obj, "_cache", None), "_impl", None) is not None
    ]
    assert len(dispatchers) > 50
    unguarded = [d.py_func.__qualname__ for d in dispatchers
                 if not isinstance(d._cache._impl.locator, SkmlCacheLocator)]
    assert unguarded == []


def test_package_digest_is_a_stable_hex_string():
    assert package_digest() == package_digest()
    assert len(package_digest()) == 64
    assert int(package_digest(), 16) >= 0


def test_the_locator_answers_for_the_inner_one():
    # numba's "Cannot cache" warning reads the locator's _py_file; without it a
    # kernel that cannot be cached crashed with an AttributeError.
    from numba.core import caching

    from skml.utils import _kernels

    inner = caching.InTreeCacheLocator.from_function(_kernels.dot.py_func, _kernels.__file__)
    locator = SkmlCacheLocator(inner)
    assert locator._py_file == inner._py_file
    with pytest.raises(AttributeError):
        locator.no_such_attribute
