"""Every numba kernel takes at most 12 positional arguments (issue 26).

Arrays that belong together travel as one tuple (the flat arrays of a tree,
a CSR matrix as ``(data, indices, indptr)``, a workspace), so a kernel's
signature stays readable. numba passes a tuple's members like separate
arguments: the grouping costs nothing at run time.
"""

import importlib
import pkgutil

from numba.core.dispatcher import Dispatcher

import skml

MAX_POSITIONAL = 12


def _kernel_modules():
    names = [info.name for info in pkgutil.walk_packages(skml.__path__, "skml.")
             if info.name.rsplit(".", 1)[-1].endswith("_kernels")]
    return [importlib.import_module(name) for name in sorted(names)]


def _dispatchers(module):
    """The numba dispatchers a module defines (not those it imports)."""
    for name, obj in vars(module).items():
        if isinstance(obj, Dispatcher) and obj.py_func.__module__ == module.__name__:
            yield name, obj


def test_the_kernel_modules_and_their_kernels_are_found():
    # guards the test below against passing by finding nothing
    modules = _kernel_modules()
    assert {"skml.neighbors._lsh_kernels", "skml.inspection._tree_shap_kernels",
            "skml.linear_model._lasso_kernels"} <= {m.__name__ for m in modules}
    found = {f"{m.__name__}.{name}" for m in modules for name, _ in _dispatchers(m)}
    assert {"skml.neighbors._lsh_kernels.query_buckets",
            "skml.inspection._tree_shap_kernels._path_tree"} <= found


def test_no_kernel_takes_more_than_12_positional_arguments():
    too_long = []
    for module in _kernel_modules():
        for name, dispatcher in _dispatchers(module):
            n_args = dispatcher.py_func.__code__.co_argcount
            if n_args > MAX_POSITIONAL:
                too_long.append(f"{module.__name__}.{name} ({n_args})")
    assert not too_long, (
        f"kernels with more than {MAX_POSITIONAL} positional arguments (group the "
        f"arrays that belong together into a tuple): {', '.join(too_long)}")
