"""skml.svm.SVC / SVR (SMO) against sklearn.svm.SVC / SVR (libsvm), same parameters.

The quick profile keeps to the bundled sets and 5k x 20; the 10k and 20k rows
(and, through the 20k row, the scaling series) run in the full profile only.
"""

from benchmarks.case import Case


def _pair(name, dataset, score, params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.svm:{name}",
        reference=f"sklearn.svm:{name}",
        dataset=dataset,
        score=score,
        family="svm",
        params=params,
        reference_params=params,
        **kw,
    )


FULL = ("full",)

CASES = [
    _pair("SVC", "breast_cancer", "accuracy", {"kernel": "rbf"}),
    _pair("SVC", "breast_cancer", "accuracy", {"kernel": "linear"}, label="linear"),
    _pair("SVC", "wine", "accuracy", {"kernel": "poly", "degree": 2}, label="poly"),
    _pair("SVC", "digits", "accuracy", {"kernel": "rbf"}),
    _pair("SVC", "clf_5k_20", "accuracy", {"kernel": "rbf"}),
    _pair("SVC", "clf_10k_20", "accuracy", {"kernel": "rbf"}, profiles=FULL),
    _pair("SVC", "clf_20k_20", "accuracy", {"kernel": "rbf"}, profiles=FULL),
    _pair("SVC", "clf3_20k_20", "accuracy", {"kernel": "rbf"}, profiles=FULL),
    _pair("SVR", "diabetes", "r2", {"kernel": "rbf", "C": 100.0, "epsilon": 5.0}),
    _pair("SVR", "reg_10k_20", "r2", {"kernel": "rbf", "C": 10.0}, profiles=FULL),
    _pair("SVR", "reg_20k_20", "r2", {"kernel": "rbf", "C": 10.0}, profiles=FULL),
]
