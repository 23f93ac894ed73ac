"""The ensembles' and trees' docstrings, filled by fill_doc, still parse and
say what the blocks say."""

import inspect
import re
import warnings

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc

import skml.ensemble
import skml.tree

_PLACEHOLDER = re.compile(r"^\s*<[A-Za-z_][A-Za-z0-9_ ]*>\s*$", re.MULTILINE)
_CLASSES = [getattr(mod, name) for mod in (skml.ensemble, skml.tree)
            for name in mod.__all__ if inspect.isclass(getattr(mod, name))]


@pytest.mark.parametrize("cls", _CLASSES, ids=lambda c: c.__name__)
def test_filled_docstrings_parse(cls):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doc = ClassDoc(cls)
        for name, method in inspect.getmembers(cls, callable):
            if not name.startswith("_") and (method.__doc__ or "").strip():
                assert not _PLACEHOLDER.search(method.__doc__), name
                FunctionDoc(method)
    assert not _PLACEHOLDER.search(cls.__doc__)
    params = {p.name for p in doc["Parameters"]}
    # every constructor parameter is documented (a shared block went missing otherwise)
    signature = set(inspect.signature(cls.__init__).parameters) - {"self"}
    documented = set().union(*(n.replace(" ", "").split(",") for n in params))
    assert signature <= documented, sorted(signature - documented)


def test_defaults_in_filled_parameters():
    doc = skml.tree.ExtraTreeRegressor.__doc__
    assert 'splitter : {"best", "random"}, default="random"' in doc
    assert "default=1.0" in doc
    doc = skml.ensemble.ExtraTreesClassifier.__doc__
    assert "bootstrap : bool, default=False" in doc
    assert 'max_features : {"sqrt", "log2"}, int, float or None, default="sqrt"' in doc
    assert "accuracy of each training sample's mean probability" in doc
