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
    "CLUSTER_LABELS_RETURNS",
    "FITTED_FEATURE_ATTRIBUTES",
    "SELF_RETURNS",
    "Y_IGNORED",
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


# -- cluster, neighbors, manifold (dup-clu): the unused ``y`` of ``fit`` and
# ``fit_predict``, the Returns section of a ``fit`` (self; the same name and
# text as the DA families' block) and of a clusterer's ``fit_predict``.
Y_IGNORED = """
y : Ignored
    Not used, present for API consistency.
"""

SELF_RETURNS = """
Returns
-------
self : object
    The fitted estimator.
"""

CLUSTER_LABELS_RETURNS = """
Returns
-------
labels : ndarray of shape (n_samples,)
    Cluster of each training sample, ``labels_``.
"""
