"""Docstring text that several estimators share, written once.

A docstring names a shared block by a line holding only ``<name>``; the
:func:`fill_doc` decorator replaces that line with the block, indented as the
placeholder is. numpydoc, ``help()`` and the API pages see the filled text.
Unknown or unused names raise at import, so a typo cannot reach the docs.

Blocks used across families live here; a family's own blocks live in its
modules (e.g. the tree parameters shared by the trees, forests and boosting).
"""

import re
import textwrap

__all__ = [
    "fill_doc",
    "FITTED_FEATURE_ATTRIBUTES",
    "predict_doc",
    "returns_self",
    "x_parameter",
]

_PLACEHOLDER = re.compile(r"^([ \t]*)<([A-Za-z_][A-Za-z0-9_ ]*)>[ \t]*$", re.MULTILINE)

FITTED_FEATURE_ATTRIBUTES = """
n_features_in_ : int
    Number of features seen during ``fit``.
feature_names_in_ : ndarray of shape (`n_features_in_`,)
    Names of features seen during ``fit``, when ``X`` has string column names.
"""


def fill_doc(**blocks):
    """Decorator: replace each ``<name>`` line of the docstring with ``blocks[name]``.

    Parameters
    ----------
    **blocks : str
        Text of each block, written at zero indentation (a leading and a
        trailing newline are ignored). Names with spaces are passed through a
        dict: ``fill_doc(**{"shared parameters": TEXT})``.

    Returns
    -------
    decorator : callable
        Sets ``obj.__doc__`` to the filled text and returns ``obj``.

    Raises
    ------
    ValueError
        If the docstring names a block not given, or a given block is not
        named by the docstring.
    """

    def decorate(obj):
        obj.__doc__ = fill_text(obj.__doc__, blocks, getattr(obj, "__qualname__", obj))
        return obj

    return decorate


def fill_text(doc, blocks, owner="docstring"):
    """Return ``doc`` with its ``<name>`` lines replaced (see :func:`fill_doc`)."""
    used = set()

    def substitute(match):
        indent, name = match.groups()
        if name not in blocks:
            raise ValueError(f"{owner}: no shared docstring block named <{name}>")
        used.add(name)
        text = textwrap.dedent(blocks[name].strip("\n"))
        return textwrap.indent(text, indent, lambda line: line.strip() != "")

    filled = _PLACEHOLDER.sub(substitute, doc or "")
    unused = sorted(set(blocks) - used)
    if unused:
        raise ValueError(f"{owner}: shared docstring blocks not placed: {unused}")
    return filled


# linear_model and svm: the sections of a method's docstring, by arguments.
def x_parameter(x_doc="Training data.", x_type="{array-like, sparse matrix}"):
    """The Parameters heading and its ``X`` entry (the method's others follow)."""
    return f"Parameters\n----------\nX : {x_type} of shape (n_samples, n_features)\n    {x_doc}\n"


def returns_self(doc="The fitted estimator."):
    """The Returns section of a method that returns ``self``."""
    return f"Returns\n-------\nself : object\n    {doc}\n"


def predict_doc(returns, x_type="{array-like, sparse matrix}", x_doc="Samples."):
    """The Parameters (``X`` only) and Returns sections of a prediction method.

    ``returns`` is the name and type line of what the method returns; the
    method's docstring gives its description, indented, under the
    ``<predict_doc>`` line.
    """
    return f"{x_parameter(x_doc, x_type)}\nReturns\n-------\n{returns}\n"
