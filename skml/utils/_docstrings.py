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

__all__ = ["fill_doc", "FITTED_FEATURE_ATTRIBUTES"]

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


# -- ensemble and tree family (dup-ens): sections of the methods' docstrings,
# each placed whole by a ``<name>`` line (a method names the blocks it uses).

PARAMETERS_X_SAMPLES = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
"""

PARAMETERS_X_TRAINING = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data.
"""

PARAMETERS_IGNORED_INPUT_FEATURES = """
Parameters
----------
input_features : array-like of str, default=None
    Ignored.
"""

RETURNS_LABELS = """
Returns
-------
y : ndarray of shape (n_samples,)
    Predicted labels.
"""

RETURNS_PROBA = """
Returns
-------
proba : ndarray of shape (n_samples, n_classes)
    Probabilities in the order of ``classes_``.
"""

RETURNS_LOG_PROBA = """
Returns
-------
log_proba : ndarray of shape (n_samples, n_classes)
    Log-probabilities.
"""
