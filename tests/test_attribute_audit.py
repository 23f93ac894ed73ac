"""Audit: the public fitted attributes and methods of each scikit-learn counterpart.

Every skml estimator with a scikit-learn class of the same name is fitted beside
it on the same small data; every public name the counterpart has after ``fit``
and skml's lacks must appear in ``LEFT_OUT`` with the reason (issue 24). Names
that are constructor parameters of the counterpart are not audited here: those
are issue 21's (every parameter), listed by ``python -m benchmarks.sklearn_tests``.
The table is exact both ways: when skml gains a name, its entry must go.
"""

import inspect
import warnings

import pytest
from sklearn.base import is_classifier
from sklearn.datasets import load_diabetes, load_iris
from sklearn.utils import all_estimators as sklearn_estimators

from skml.utils.discovery import all_estimators

from .estimator_instances import make_instances

_PROBABILITY = (
    "Platt-scaling parameters of SVC(probability=True), which scikit-learn 1.9 "
    "deprecates; issue 21 follows that deprecation rather than adding the option")
# (StandardScaler's set_callbacks, scikit-learn 1.9's callback API, was listed
# here until f6cb097 added it.)
LEFT_OUT = {}

SKLEARN = dict(sklearn_estimators())
PAIRS = [(name, cls) for name, cls in all_estimators() if name in SKLEARN]


def _public(estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated properties warn on access
        return {a for a in dir(estimator) if not a.startswith("_")}


def _user_facing(cls, name):
    """A fitted attribute (trailing underscore), a method or a property.

    Plain instance attributes without the underscore are constructor state
    (scikit-learn's base classes also store settings their subclass does not
    take, e.g. ``DecisionTreeRegressor.class_weight``): issue 21's business.
    """
    member = inspect.getattr_static(cls, name, None)
    return name.endswith("_") or callable(member) or isinstance(member, property)


def _counterpart(name, ours):
    accepted = inspect.signature(SKLEARN[name]).parameters
    shared = {k: v for k, v in ours.get_params(deep=False).items()
              if k in accepted and k in ("estimators", "estimator", "perplexity",
                                         "max_iter", "n_components")}
    return SKLEARN[name](**shared)


@pytest.mark.parametrize("name, cls", PAIRS, ids=[name for name, _ in PAIRS])
def test_fitted_attributes_match_the_counterpart(name, cls):
    ours = make_instances([(name, cls)])[0]
    theirs = _counterpart(name, ours)
    X, y = load_iris(return_X_y=True) if is_classifier(theirs) else load_diabetes(
        return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours.fit(X, y)
        theirs.fit(X, y)
    params = set(theirs.get_params(deep=False))
    missing = {a for a in _public(theirs) - _public(ours)
               if a not in params and _user_facing(type(theirs), a)}
    assert missing == set(LEFT_OUT.get(name, {})), (
        f"{name}: missing without a reason: {sorted(missing - set(LEFT_OUT.get(name, {})))}"
        f"; listed but present: {sorted(set(LEFT_OUT.get(name, {})) - missing)}")


def test_every_left_out_name_has_a_reason():
    for name, entries in LEFT_OUT.items():
        assert name in SKLEARN
        for attribute, reason in entries.items():
            assert len(reason) > 20, (name, attribute)
