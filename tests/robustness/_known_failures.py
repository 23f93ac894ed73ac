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
_SGD_SPARSE = ("issue 21 (linear models): scikit-learn's rule, kept on purpose; "
               "no fix planned")

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
    (_SGD_SPARSE, [
        ("SGDClassifier", "sparse_X",
         "wrong: on CSR rows each intercept step is scaled by 0.01, as in "
         "scikit-learn, so the sparse fit is another model than the dense one; "
         "this instance's 5 epochs at its seed reach 0.45 accuracy (0.67 dense). "
         "Over seeds 0-149 both libraries lose alike: skml 0.648 -> 0.640, "
         "scikit-learn 0.654 -> 0.637 (sparse below dense - 0.1 at 12% vs 14% of "
         "seeds)"),
        ("Perceptron", "sparse_X",
         "wrong: the SGDClassifier row's cause (the 0.01 intercept steps on CSR "
         "rows, scikit-learn's rule): 0.45 sparse against 0.67 dense at this "
         "instance's seed"),
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
