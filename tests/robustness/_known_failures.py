"""The robustness cases failing today: one table, with who is fixing each.

``test_robustness.py`` marks these cases ``xfail(strict=True)``: when a fix
lands, the case passes, the suite fails, and the entry must be deleted here.
Keep it honest: an entry describes what happens (as ``python -m
tests.robustness`` prints it) and names the owner. Outcomes are those of
``_cases.py``; "scikit-learn: X" is its class's outcome on the same case.
"""

_TREES = "trees/ensembles helper (issue 23)"
_NB_MLP_NCA = "naive Bayes / MLP / NCA helper (issue 23)"
_LINEAR = "scalers / linear models / KMeans / neighbours helper (issue 23)"
_KERNEL = "kernel k-means / spectral helper (issue 23)"
_SEARCH = "model_selection author (issue 15; found by issue 23's suite)"
_SPARSE = "issue 20 (sparse input wherever scikit-learn takes it)"
_METRIC = "metric learning: LMNN (no helper named; NCA's owner?)"
_NOTES_VARIANTS = "notes' variants helper (issue 18): no fix planned, by definition"

_TABLE = [
    (_TREES, [
    ]),
    (_NB_MLP_NCA, [
    ]),
    (_LINEAR, [
    ]),
    (_SEARCH, [
    ]),
    (_NOTES_VARIANTS, [
        ("DistanceToAnchors", "scale_1e-300",
         "wrong: the notes' anchors (0,..,0) and (1,..,1) are absolute, so at "
         "X * 1e-300 every row is at distance ~0 and ~sqrt(d) from them and the "
         "3-NN quality drops to chance (no scikit-learn counterpart)"),
    ]),
    (_SPARSE, [
    ]),
]

KNOWN_FAILURES = {
    (name, case): f"{what} -- {owner}"
    for owner, rows in _TABLE
    for name, case, what in rows
}


def known_failure(name, case):
    """The table's reason for ``(name, case)``, or None."""
    return KNOWN_FAILURES.get((name, case))


def by_owner():
    """``{owner: [(estimator, case, what happens)]}``, for reports."""
    return {owner: list(rows) for owner, rows in _TABLE}
