"""Link each skml estimator's HTML repr to its page in skml's docs.

scikit-learn's HTML repr (``_repr_html_``, what a notebook shows) draws a "?"
that links the estimator to its documentation page and, on the parameters
table, to each parameter's description. For a class outside scikit-learn it
shows neither, unless the class sets ``_doc_link_module``,
``_doc_link_template`` and ``_doc_link_url_param_generator``. Each skml
subpackage calls :func:`link_docs` at the end of its ``__init__``, which sets
the three on every public estimator the subpackage exports.

The link is the estimator's API page as the docs build names it,
``<base>api/generated/<subpackage>.<Class>.html`` (e.g.
``api/generated/skml.tree.DecisionTreeClassifier.html``). skml's docs are
built locally (``python3 dev.py docs``) rather than served from one fixed
site, so the base is read from the environment variable ``SKML_DOCS_URL`` each
time a repr is drawn: set it to wherever the built docs are served, ending in
``/`` (``http://localhost:8000/`` after
``python -m http.server -d docs/_build/html``, or a ``file:///`` URL of
``docs/_build/html/``). Unset, the link is relative to the docs root, which is
right inside the built docs themselves (the docs build sets the variable for
the gallery pages, one folder down).
"""

import os

DOCS_URL_ENV = "SKML_DOCS_URL"
API_PAGE = "api/generated/{module}.{name}.html"

__all__ = ["DOCS_URL_ENV", "doc_url", "link_docs"]


def doc_url(estimator_class, module):
    """URL of the docs page of ``estimator_class``, exported by ``module``.

    Parameters
    ----------
    estimator_class : type
        A public skml estimator class.
    module : str
        The public module that exports it (``"skml.tree"``).

    Returns
    -------
    url : str
        ``$SKML_DOCS_URL`` (empty when unset) followed by
        ``api/generated/<module>.<Class>.html``.

    Examples
    --------
    >>> from skml.tree import DecisionTreeClassifier
    >>> from skml.utils._doc_link import doc_url
    >>> url = doc_url(DecisionTreeClassifier, "skml.tree")
    >>> url.endswith("api/generated/skml.tree.DecisionTreeClassifier.html")
    True
    """
    base = os.environ.get(DOCS_URL_ENV, "")
    return base + API_PAGE.format(module=module, name=estimator_class.__name__)


def _url_params(estimator):
    # Bound as ``_doc_link_url_param_generator``: scikit-learn formats
    # ``_doc_link_template`` ("{url}") with what this returns. Only a class
    # that link_docs registered has a page; a subclass elsewhere (a user's)
    # gets no link, as scikit-learn does for classes outside its own package.
    cls = type(estimator)
    module = cls.__dict__.get("_skml_doc_module")
    return {"url": doc_url(cls, module) if module else ""}


def link_docs(module_name):
    """Give the public estimators of ``module_name`` a docs link in their HTML repr.

    Called once at the end of each subpackage's ``__init__`` as
    ``link_docs(__name__)``: every class in the module's ``__all__`` that
    defines ``get_params`` (an estimator) and comes from skml gets
    scikit-learn's three ``_doc_link_*`` class attributes.

    Parameters
    ----------
    module_name : str
        The subpackage, already in ``sys.modules`` (``__name__`` of its
        ``__init__``).

    Returns
    -------
    linked : list of str
        Names of the classes linked.
    """
    import sys

    module = sys.modules[module_name]
    linked = []
    for name in getattr(module, "__all__", ()):
        cls = getattr(module, name, None)
        if not (isinstance(cls, type) and hasattr(cls, "get_params")
                and cls.__module__.startswith("skml.")):
            continue
        cls._skml_doc_module = module_name
        cls._doc_link_module = "skml"
        cls._doc_link_template = "{url}"
        cls._doc_link_url_param_generator = _url_params
        linked.append(name)
    return linked
