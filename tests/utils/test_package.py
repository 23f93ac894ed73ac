"""The package itself: lazy subpackages and show_versions."""

import subprocess
import sys

import skml


def test_subpackages_load_on_first_attribute_access():
    # A fresh interpreter: the test session has imported everything already.
    code = ("import sys, skml; assert 'skml.linear_model' not in sys.modules; "
            "skml.linear_model.Ridge; assert 'skml.linear_model' in sys.modules; "
            "print(set(dir(skml)) >= {'tree', 'svm', 'show_versions'})")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "True"


def test_unknown_attribute_is_an_attribute_error():
    try:
        skml.no_such_subpackage
    except AttributeError as exc:
        assert "no_such_subpackage" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_show_versions_names_skml_and_its_dependencies(capsys):
    skml.show_versions()
    out = capsys.readouterr().out
    for name in ("skml", "numpy", "scipy", "scikit-learn", "numba", "python"):
        assert f"{name}:" in out
    assert skml.__version__ in out
