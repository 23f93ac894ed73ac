"""Every skml estimator takes every ``__init__`` and ``fit`` parameter of its counterpart.

Issue 21: ``inspect.signature`` of each skml estimator's ``__init__`` and ``fit``
is a superset of its scikit-learn namesake's, so a user's existing call
never fails on a keyword. A parameter not (yet) offered must appear in
``LEFT_OUT`` with the reason; the table is exact both ways, so when
scikit-learn adds a parameter, or skml gains one, this test says so.
"""

import inspect

import pytest
from sklearn.utils import all_estimators as sklearn_estimators

from skml.utils.discovery import all_estimators

LEFT_OUT = {}

SKLEARN = dict(sklearn_estimators())
PAIRS = [(name, cls) for name, cls in all_estimators() if name in SKLEARN]
IGNORED = {"self", "args", "kwargs", "fit_params", "params"}


def _parameters(function):
    return {name for name, p in inspect.signature(function).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)} - IGNORED


@pytest.mark.parametrize("method", ["__init__", "fit"])
@pytest.mark.parametrize("name, cls", PAIRS, ids=[name for name, _ in PAIRS])
def test_signature_is_a_superset_of_the_counterpart(name, cls, method):
    theirs = getattr(SKLEARN[name], method, None)
    if theirs is None:
        pytest.skip(f"scikit-learn's {name} has no {method}")
    assert hasattr(cls, method), f"{name} lacks {method}"
    missing = _parameters(theirs) - _parameters(getattr(cls, method))
    listed = set(LEFT_OUT.get((name, method), {}))
    assert missing == listed, (
        f"{name}.{method}: missing without a reason: {sorted(missing - listed)}; "
        f"listed but present: {sorted(listed - missing)}")


def test_every_left_out_parameter_has_a_reason():
    for (name, method), entries in LEFT_OUT.items():
        assert name in SKLEARN and method in ("__init__", "fit")
        for parameter, reason in entries.items():
            assert len(reason) > 20, (name, parameter)
