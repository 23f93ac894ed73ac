"""Standardised bundled datasets shared by the logistic-regression tests
(module-scoped: loaded once per test module)."""

import pytest

from .. import _data


@pytest.fixture(scope="module")
def cancer():
    return _data.load("breast_cancer", scale=True)


@pytest.fixture(scope="module")
def wine():
    return _data.load("wine", scale=True)


@pytest.fixture(scope="module")
def iris():
    return _data.load("iris", scale=True)
