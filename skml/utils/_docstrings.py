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

__all__ = ["fill_doc", "join_blocks", "FITTED_FEATURE_ATTRIBUTES"]

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


# Method sections of the networks and the estimators that wrap them (dup-nn:
# neural_network, adversarial, privacy, contrastive, generative, attention,
# model_selection). X_SAMPLES, UNSUPERVISED_X, SELF_RETURNS, LABELS_RETURNS,
# PROBA_RETURNS and LOG_PROBA_RETURNS repeat letter for letter the DA section
# merged into main meanwhile: keep one copy of each when merging.
CLASSES_ATTRIBUTE = """
classes_ : ndarray of shape (n_classes,)
    Class labels.
"""

X_SAMPLES = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
"""

_X_TRAINING = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data.
"""
_Y = "y : array-like of shape (n_samples,)\n"
_SAMPLE_WEIGHT = "sample_weight : array-like of shape (n_samples,), default=None\n"

FIT_PARAMETERS = _X_TRAINING + _Y + _SAMPLE_WEIGHT

PARTIAL_FIT_PARAMETERS = _X_TRAINING + _Y + """\
classes : array-like of shape (n_classes,), default=None
    Every class of the stream; required on the first call.
""" + _SAMPLE_WEIGHT

UNSUPERVISED_X = _X_TRAINING + "y : None\n    Ignored.\n"

SELF_RETURNS = """
Returns
-------
self : object
    The fitted estimator.
"""

LABELS_RETURNS = """
Returns
-------
y_pred : ndarray of shape (n_samples,)
    Labels from ``classes_``.
"""

PROBA_RETURNS = """
Returns
-------
proba : ndarray of shape (n_samples, n_classes)
    Columns in the order of ``classes_``.
"""

LOG_PROBA_RETURNS = """
Returns
-------
log_proba : ndarray of shape (n_samples, n_classes)
    Columns in the order of ``classes_``.
"""


def join_blocks(*blocks):
    """One block from several, each dedented, in order, without blank lines between."""
    return "\n".join(textwrap.dedent(block).strip("\n") for block in blocks) + "\n"
