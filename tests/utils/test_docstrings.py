"""fill_doc: shared docstring blocks placed once, typos refused at import."""

import inspect
import re

import pytest

from skml.utils._docstrings import fill_doc
from skml.utils.discovery import all_estimators


def test_block_takes_the_placeholders_indentation():
    @fill_doc(params="a : int\n    The a.\n")
    def f():
        """Doc.

        Parameters
        ----------
        <params>
        b : int
        """

    assert "\n        a : int\n            The a.\n        b : int" in f.__doc__


def test_unknown_and_unused_blocks_are_refused():
    with pytest.raises(ValueError, match="no shared docstring block named <parms>"):
        fill_doc()(type("A", (), {"__doc__": "Doc.\n\n    <parms>\n"}))
    with pytest.raises(ValueError, match=r"not placed: \['params'\]"):
        fill_doc(params="a : int")(type("A", (), {"__doc__": "Doc."}))


def test_no_public_estimator_keeps_a_placeholder():
    placeholder = re.compile(r"^\s*<[A-Za-z_][A-Za-z0-9_ ]*>\s*$", re.MULTILINE)
    left = [name for name, cls in all_estimators() if placeholder.search(cls.__doc__ or "")]
    left += [f"{name}.{method}" for name, cls in all_estimators()
             for method, func in inspect.getmembers(cls, inspect.isfunction)
             if placeholder.search(func.__doc__ or "")]
    assert left == []


def test_a_method_under_available_if_is_filled():
    from sklearn.utils._available_if import available_if

    class A:
        @fill_doc(params="a : int")
        @available_if(lambda self: True)
        def f(self):
            """Doc.

            <params>
            """

    assert "<params>" not in A.f.__doc__ and "a : int" in A().f.__doc__
