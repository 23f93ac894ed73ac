"""Careless and extreme input for every public estimator (issue 23).

One test per (estimator, case): the case must end in a clear error or an
answer its oracle accepts, and scikit-learn's class of the same name must
not do better on it (see ``_cases.py`` for the cases, oracles and rules).
Cases failing today are listed once, with who fixes them, in
``_known_failures.py``; they run as ``xfail(strict=True)``, so a fix that
lands makes the suite fail until its entry is removed.

The cases run in a child process (``_runner.py``), one estimator at a time
and on first use, so that ``-k Ridge`` runs only Ridge's cases; the pickle
round trip is loaded in one fresh process for all selected estimators.
"""

import pytest

from . import _cases as C
from ._known_failures import KNOWN_FAILURES, known_failure
from ._runner import Runner

NAMES = sorted(C.skml_estimators())
CASES = [(name, case) for name in NAMES for case in C.case_ids(name)]


class _Results:
    """Records computed on first request, per estimator (pickles in one batch)."""

    def __init__(self, runner, session):
        self.runner = runner
        self.session = session
        self.records = {}
        self.pickles = None

    def get(self, name, case):
        if case == "pickle_fresh_process":
            if self.pickles is None:
                self.pickles = self.runner.run_pickles(self._pickle_names())
            return self.pickles[name]
        if name not in self.records:
            self.records[name] = {r["case"]: r for r in self.runner.run_estimator(name)}
        return self.records[name][case]

    def _pickle_names(self):
        """The estimators whose pickle case was selected in this session."""
        selected = set()
        for item in self.session.items:
            callspec = getattr(item, "callspec", None)
            if callspec is not None and callspec.params.get("case") == "pickle_fresh_process":
                selected.add(callspec.params["name"])
        return sorted(selected) or NAMES


@pytest.fixture(scope="module")
def results(request):
    runner = Runner()
    yield _Results(runner, request.session)
    runner.close()


def _id(value):
    return str(value).replace(" ", "")


@pytest.mark.parametrize("name, case", CASES, ids=[f"{n}-{_id(c)}" for n, c in CASES])
def test_case(name, case, results, request):
    reason = known_failure(name, case)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    record = results.get(name, case)
    summary = (
        f"{name} / {case}: {record['outcome']} ({record['detail']}); scikit-learn: "
        f"{record['sklearn']} ({record['sklearn_detail']})"
    )
    assert record["outcome"] in ("clear", "accepted"), summary
    assert record["versus_sklearn"] != "worse", "scikit-learn does better. " + summary


def test_known_failures_name_existing_cases():
    # A stale entry (renamed case, removed estimator) would hide nothing and
    # mislead the reader of the table.
    existing = set(CASES)
    stale = [key for key in KNOWN_FAILURES if key not in existing]
    assert not stale, f"entries of _known_failures.py that match no case: {stale}"


def test_every_estimator_meets_every_case_class():
    # Each estimator is put through each class of case that applies to it
    # (labels only for classifiers, weights only if fit takes them, ...).
    for name in NAMES:
        groups = {c.group for c in C.cases_for(C.skml_subject(name))}
        expected = {"NaN/inf", "shapes", "containers", "magnitudes", "sparse",
                    "dimensions", "protocol", "pickle", "side effects"}
        assert expected <= groups, (name, expected - groups)
