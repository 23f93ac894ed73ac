"""The outside check's pieces that need no child pytest: the failure classifier and
the import rewriting of ``benchmarks/sklearn_tests`` (the check itself runs by hand)."""

import ast

import pytest

from benchmarks.sklearn_tests import MODULES
from benchmarks.sklearn_tests.classify import (
    DIFFERENT,
    MISSING,
    PRIVATE,
    TIMEOUT,
    WRONG,
    classify,
)

TEST_SOURCE = '''\
def test_something(est):
    with pytest.raises(ValueError, match="max_depth"):
        est.fit(X, y)
    assert est.score(X, y) > 0.9
'''


def record(exc_type, msg, line="est.fit(X, y)", mro=None, frames=(), lineno=None,
           source=None):
    test_frame = {"kind": "test", "file": "sklearn/x/tests/test_x.py",
                  "line": lineno or 10, "func": "test_something", "code": line}
    return {"exc_type": exc_type, "exc_msg": msg,
            "exc_mro": mro or [exc_type, "Exception", "BaseException", "object"],
            "frames": [test_frame, *frames], "test_source": source,
            "test_source_line": 1 if source else None}


SKML_RAISE = {"kind": "skml", "file": "skml/tree/_classes.py", "line": 5,
              "func": "fit", "code": "raise ValueError(msg)"}
NUMPY_FRAME = {"kind": "numpy", "file": "numpy/_core/fromnumeric.py", "line": 5,
               "func": "take", "code": "return a.take(i)"}


@pytest.mark.parametrize("rec, expected, fragment", [
    (record("AttributeError",
            "'DecisionTreeClassifier' object has no attribute 'tree_'"),
     PRIVATE, "tree_"),
    (record("AssertionError", "assert 3 == 4", line="assert clf._n_support[0] == 3"),
     PRIVATE, "_n_support"),
    (record("TypeError", "SVC.__init__() got an unexpected keyword argument "
                         "'probability'"), MISSING, "SVC.__init__(probability="),
    (record("ValueError", "Invalid parameter 'dual' for estimator LinearSVC(). "
                          "Valid parameters are: ['C']."), MISSING, "dual"),
    (record("AttributeError", "'Ridge' object has no attribute 'n_iter_'"),
     MISSING, "Ridge.n_iter_"),
    (record("TypeError", "Sparse data was passed for X, but dense data is required.",
            frames=[SKML_RAISE]), MISSING, "sparse"),
    (record("ValueError", "The 'criterion' parameter of DecisionTreeRegressor must "
                          "be a str among {'squared_error'}. Got 'poisson' instead.",
            frames=[SKML_RAISE]), MISSING, "criterion='poisson'"),
    (record("ValueError", "y should be a 1d array, got an array of shape (6, 2)",
            frames=[SKML_RAISE]), MISSING, "multi-output"),
    (record("Failed", "DID NOT RAISE ValueError",
            line='with pytest.raises(ValueError, match="max_depth"):'),
     DIFFERENT, "no exception"),
    (record("Failed", "DID NOT WARN. No warnings of type (ConvergenceWarning,) were "
                      "emitted."), DIFFERENT, "warning"),
    (record("AssertionError", "Regex pattern did not match.\n Expected regex: 'a'\n "
                              "Actual message: 'b'"), DIFFERENT, "got 'b'"),
    # Another exception type out of a pytest.raises block, found through the AST.
    (record("TypeError", "bad type", lineno=3, source=TEST_SOURCE,
            frames=[SKML_RAISE]), DIFFERENT, "pytest.raises(ValueError"),
    (record("ConvergenceWarning", "did not converge",
            mro=["ConvergenceWarning", "UserWarning", "Warning", "Exception"]),
     DIFFERENT, "warning raised as error"),
    (record("AssertionError", "\nNot equal to tolerance rtol=1e-07, atol=0\n\n"
                              "Mismatched elements: 2 / 4 (50%)",
            line="assert_allclose(a, b)"), WRONG, "Mismatched elements: 2 / 4"),
    (record("IndexError", "index 3 is out of bounds for axis 0 with size 3",
            frames=[NUMPY_FRAME]), WRONG, "crash: IndexError"),
    # The same refusal is a crash when numpy, not skml, raised it.
    (record("ValueError", "operands could not be broadcast together",
            frames=[{**SKML_RAISE, "code": "return a + b"}, NUMPY_FRAME]),
     WRONG, "crash: ValueError"),
    (record("SkmlTestTimeout", "test ran longer than 300 s"), TIMEOUT, "300 s"),
    # A test that picks n_neighbors or radius by sklearn's private mixin.
    (record("ValueError", "Expected n_neighbors <= n_samples_fit, but n_neighbors = 500",
            source="def test_x(Cls):\n    k = n if issubclass(Cls, KNeighborsMixin) "
                   "else radius\n    Cls(k).fit(X, y)\n", frames=[SKML_RAISE]),
     PRIVATE, "KNeighborsMixin"),
    (record("TypeError", "object of type 'RandomForestClassifier' has no len()"),
     MISSING, "not a sequence"),
    # An assertion on the exception caught by ``pytest.raises(...) as exc_info``.
    (record("AssertionError", "assert False", lineno=4,
            line="assert isinstance(exc_info.value.__cause__, AttributeError)",
            source=TEST_SOURCE.replace('"max_depth"):', '"max_depth") as exc_info:')),
     DIFFERENT, "details of the exception"),
])
def test_classify(rec, expected, fragment):
    cls, reason = classify(rec)
    assert cls == expected, reason
    assert fragment in reason
    assert "\n" not in reason


def test_a_deliberate_skml_refusal_outside_raises_is_a_missing_feature():
    cls, reason = classify(record("ValueError", "This solver needs samples of at "
                                  "least 2 classes", frames=[SKML_RAISE]))
    assert (cls, reason.split(":")[0]) == (MISSING, "one class refused")
    cls, _ = classify(record("ValueError", "weights must be positive",
                             frames=[SKML_RAISE]))
    assert cls == MISSING


def test_imports_are_rebound_through_the_substitute_hook():
    from benchmarks.sklearn_tests._plugin import _Substituter

    source = ("import numpy as np\n"
              "from sklearn import svm, datasets\n"
              "from sklearn.tree import DecisionTreeClassifier as DTC\n"
              "from ..base import clone\n"
              "import sklearn.linear_model\n")
    tree = ast.fix_missing_locations(_Substituter().visit(ast.parse(source)))
    rebound = [node.targets[0].id for node in tree.body if isinstance(node, ast.Assign)]
    assert rebound == ["svm", "datasets", "DTC", "clone", "sklearn"]


def test_mapping_names_only_skml_estimators():
    from skml.utils.discovery import all_estimators

    names = {name for name, _ in all_estimators()}
    listed = {c for entries in MODULES.values() for _, classes in entries
              for c in classes}
    assert listed <= names, listed - names
