"""skml random forests and extra trees against sklearn.ensemble's, the same
parameters on both sides.

The 20k x 20 rows grow 100 full-depth trees on two threads (``n_jobs=2``) on
each side, the issue's speed targets; the bundled sets check accuracy and the
out-of-bag estimate at the default single thread.
"""

from benchmarks.case import Case

FULL = ("full",)


def _pair(name, dataset, score, params=None, **kw):
    params = {"random_state": 0, **(params or {})}
    return Case(
        estimator=name,
        skml=f"skml.ensemble:{name}",
        reference=f"sklearn.ensemble:{name}",
        dataset=dataset,
        score=score,
        family="ensemble",
        params=params,
        reference_params=params,
        **kw,
    )


TWO_THREADS = {"n_estimators": 100, "n_jobs": 2}

CASES = [
    _pair("RandomForestClassifier", "breast_cancer", "accuracy", {"oob_score": True}),
    _pair("RandomForestClassifier", "digits", "accuracy"),
    _pair("RandomForestClassifier", "clf_20k_20", "accuracy", TWO_THREADS,
          label="n_jobs=2"),
    _pair("RandomForestClassifier", "clf_20k_20", "accuracy", {"n_estimators": 100},
          label="n_jobs=1", profiles=FULL),
    _pair("RandomForestRegressor", "diabetes", "r2", {"oob_score": True}),
    _pair("RandomForestRegressor", "reg_20k_20", "r2", TWO_THREADS, label="n_jobs=2"),
    # Extremely randomised trees (no bootstrap by default; oob with one).
    _pair("ExtraTreesClassifier", "breast_cancer", "accuracy"),
    _pair("ExtraTreesClassifier", "digits", "accuracy"),
    _pair("ExtraTreesClassifier", "clf_20k_20", "accuracy", TWO_THREADS,
          label="n_jobs=2"),
    _pair("ExtraTreesRegressor", "diabetes", "r2", {"bootstrap": True, "oob_score": True}),
    _pair("ExtraTreesRegressor", "reg_20k_20", "r2", TWO_THREADS, label="n_jobs=2"),
]
