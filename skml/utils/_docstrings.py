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
    "join_blocks",
    "CLUSTER_LABELS_RETURNS",
    "FITTED_FEATURE_ATTRIBUTES",
    "SELF_RETURNS",
    "Y_IGNORED",
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
        # A descriptor such as available_if hands out its wrapped function,
        # whose own docstring is the one help() and numpydoc read.
        wrapped = getattr(obj, "fn", None)
        if callable(wrapped):
            wrapped.__doc__ = obj.__doc__
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


def fill_class_docs(*libraries, **blocks):
    """Class decorator: :func:`fill_doc` for a class and its own methods at once.

    The class docstring and the docstring of each method defined in the class
    body (functions, static and class methods) take the blocks they name, so
    one decorator serves a class whose methods share sections (the
    ``Parameters`` of ``predict``, ``predict_proba``, ...).

    Parameters
    ----------
    *libraries : dict of str to str
        Blocks the docstrings may name (e.g. :data:`SECTIONS`); a library
        block need not be placed.
    **blocks : str
        As for :func:`fill_doc`: each must be placed.

    Returns
    -------
    decorator : callable
        Fills the docstrings in place and returns the class.

    Raises
    ------
    ValueError
        If a docstring names a block not given, or a keyword block is named
        by no docstring of the class.
    """
    available = {}
    for library in libraries:
        available.update(library)
    available.update(blocks)

    def decorate(cls):
        used = set()
        owners = [(cls, cls.__qualname__)] if cls.__doc__ else []
        for name, attr in vars(cls).items():
            # staticmethod/classmethod wrap __func__, available_if wraps fn
            func = getattr(attr, "__func__", getattr(attr, "fn", attr))
            if callable(func) and not isinstance(func, type) and func.__doc__:
                owners.append((func, f"{cls.__qualname__}.{name}"))
        for obj, owner in owners:
            names = {m.group(2) for m in _PLACEHOLDER.finditer(obj.__doc__ or "")}
            given = {name: available[name] for name in names if name in available}
            obj.__doc__ = fill_text(obj.__doc__, given, owner)
            used |= set(given)
        unused = sorted(set(blocks) - used)
        if unused:
            raise ValueError(
                f"{cls.__qualname__}: shared docstring blocks not placed: {unused}"
            )
        return cls

    return decorate


# Method sections shared by the DA families (discriminant_analysis, naive_bayes,
# metric_learning, kernel_ridge, decomposition, preprocessing, mixture, boolean).
X_SAMPLES = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
"""

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

_X_TRAINING = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data.
"""
_Y = "y : array-like of shape (n_samples,)\n"
_SAMPLE_WEIGHT = "sample_weight : array-like of shape (n_samples,), default=None\n"

SUPERVISED_FIT = _X_TRAINING + _Y + "    Class labels (any type).\n" + SELF_RETURNS

UNSUPERVISED_X = _X_TRAINING + "y : None\n    Ignored.\n"

UNSUPERVISED_FIT = UNSUPERVISED_X + SELF_RETURNS

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

SECTIONS = {
    "fitted_feature_attributes": FITTED_FEATURE_ATTRIBUTES,
    "X_samples": X_SAMPLES,
    "supervised_fit": SUPERVISED_FIT,
    "unsupervised_X": UNSUPERVISED_X,
    "unsupervised_fit": UNSUPERVISED_FIT,
    "self_returns": SELF_RETURNS,
    "labels_returns": LABELS_RETURNS,
    "proba_returns": PROBA_RETURNS,
    "log_proba_returns": LOG_PROBA_RETURNS,
}


# -- ensemble and tree family (dup-ens): sections of the methods' docstrings,
# each placed whole by a ``<name>`` line (a method names the blocks it uses).

PARAMETERS_X_SAMPLES = X_SAMPLES

PARAMETERS_X_TRAINING = _X_TRAINING

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

RETURNS_PROBA = PROBA_RETURNS

RETURNS_LOG_PROBA = LOG_PROBA_RETURNS


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


CLUSTER_LABELS_RETURNS = """
Returns
-------
labels : ndarray of shape (n_samples,)
    Cluster of each training sample, ``labels_``.
"""


# -- networks and the estimators that wrap them (dup-nn: neural_network,
# adversarial, privacy, contrastive, generative, attention, model_selection).
CLASSES_ATTRIBUTE = """
classes_ : ndarray of shape (n_classes,)
    Class labels.
"""

FIT_PARAMETERS = _X_TRAINING + _Y + _SAMPLE_WEIGHT

PARTIAL_FIT_PARAMETERS = _X_TRAINING + _Y + """\
classes : array-like of shape (n_classes,), default=None
    Every class of the stream; required on the first call.
""" + _SAMPLE_WEIGHT


def join_blocks(*blocks):
    """One block from several, each dedented, in order, without blank lines between."""
    return "\n".join(textwrap.dedent(block).strip("\n") for block in blocks) + "\n"
