"""The HTML repr of every public skml estimator links to its own docs page."""

import re
from pathlib import Path

import pytest
from sklearn.base import clone

from skml.utils._doc_link import DOCS_URL_ENV, doc_url
from skml.utils.discovery import all_estimators
from tests.estimator_instances import TEST_PARAMS

DOCS = Path(__file__).resolve().parents[1] / "docs"
ESTIMATORS = all_estimators()


def _public_module(cls):
    # The subpackage that exports the class: the API page is named after it.
    parts = cls.__module__.split(".")
    return ".".join(parts[:2])


def _hrefs(estimator):
    return re.findall(r'href="([^"#]*)', estimator._repr_html_())


@pytest.mark.parametrize("name, cls", ESTIMATORS, ids=[n for n, _ in ESTIMATORS])
def test_html_repr_links_own_page(name, cls, monkeypatch):
    monkeypatch.delenv(DOCS_URL_ENV, raising=False)
    page = f"api/generated/{_public_module(cls)}.{name}.html"
    # Meta-estimators need their sub-estimator: the registry's first instance.
    hrefs = _hrefs(clone(cls(**TEST_PARAMS.get(name, [{}])[0])))
    init = _public_module(cls).replace(".", "/") + "/__init__.py"
    assert page in hrefs, (
        f"{name}'s HTML repr does not link {page}; add "
        "`from skml.utils._doc_link import link_docs as _link_docs` and "
        f"`_link_docs(__name__)` at the end of {init}"
    )


def _autosummary_pages():
    """Names listed under an ``.. autosummary::`` with ``:toctree:`` in the family pages."""
    names = set()
    for page in (DOCS / "modules").glob("*.rst"):
        blocks = re.split(r"(?m)^\.\. autosummary::\s*$", page.read_text())[1:]
        for block in blocks:
            body = re.match(r"((?:[ \t]+\S.*\n|[ \t]*\n)*)", block + "\n").group(1)
            if ":toctree:" in body:
                names.update(m.group(1) for m in re.finditer(r"(?m)^[ \t]+~?([\w.]+)\s*$", body))
    return names


def test_every_linked_page_is_an_api_page():
    # The linked page is built only for a name listed under an autosummary
    # with ``:toctree: ../api/generated/`` in a family page.
    pages = _autosummary_pages()
    missing = [name for name, _ in ESTIMATORS if name not in pages]
    assert missing == []


def test_base_url_from_environment(monkeypatch):
    from skml.tree import DecisionTreeClassifier

    monkeypatch.setenv(DOCS_URL_ENV, "http://localhost:8000/")
    assert _hrefs(DecisionTreeClassifier())[0] == (
        "http://localhost:8000/api/generated/skml.tree.DecisionTreeClassifier.html")
    assert doc_url(DecisionTreeClassifier, "skml.tree").startswith("http://localhost:8000/")


def test_subclass_outside_skml_gets_no_link():
    # A user's subclass has no page in skml's docs: no link rather than a wrong one.
    from skml.tree import DecisionTreeClassifier

    class MyTree(DecisionTreeClassifier):
        pass

    assert not any("api/generated" in h for h in _hrefs(MyTree()))
