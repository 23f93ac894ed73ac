"""fill_class_docs: shared blocks placed in a class and its methods at once."""

import pytest

from skml.utils._docstrings import SECTIONS, fill_class_docs


def test_class_and_methods_take_the_blocks_they_name():
    @fill_class_docs(SECTIONS, own="a : int\n    The a.\n")
    class A:
        """Doc.

        Attributes
        ----------
        <fitted_feature_attributes>
        """

        def predict(self, X):
            """Predict.

            <X_samples>

            <own>
            """

        @staticmethod
        def helper():
            """No placeholder."""

    assert "n_features_in_ : int" in A.__doc__
    assert "\n            X : array-like" in A.predict.__doc__
    assert "\n            a : int\n                The a." in A.predict.__doc__
    assert A.helper.__doc__ == "No placeholder."


def test_unknown_names_and_unplaced_keyword_blocks_are_refused():
    class B:
        def f(self):
            """Doc.

            <X_sample>
            """

    message = r"B\.f: no shared docstring block named <X_sample>"
    with pytest.raises(ValueError, match=message):
        fill_class_docs(SECTIONS)(B)

    class C:
        """Doc."""

    # A library block may go unused; a keyword block must be placed.
    assert fill_class_docs(SECTIONS)(C) is C
    with pytest.raises(ValueError, match=r"not placed: \['own'\]"):
        fill_class_docs(own="x")(C)
