"""Marks a test as the parity test of an estimator against scikit-learn.

``@parity_test(Ridge)`` records the estimator name so that the meta-test can
check every public estimator has one. Parity tests compare an skml estimator
with its scikit-learn counterpart on a bundled real dataset.
"""

import pytest

PARITY_TESTED = set()


def parity_test(*estimators):
    def mark(func):
        PARITY_TESTED.update(
            e if isinstance(e, str) else e.__name__ for e in estimators
        )
        return pytest.mark.parity(func)

    return mark
