"""skml.tree decision trees against sklearn.tree's, same parameters.

Full-depth trees (the default) on the 20k x 20 sets in the quick profile; the
200k sets (full profile) check the n log^2 n growth.
"""

from benchmarks.case import Case


def _pair(name, dataset, score, params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.tree:{name}",
        reference=f"sklearn.tree:{name}",
        dataset=dataset,
        score=score,
        family="tree",
        params={"random_state": 0, **params},
        reference_params={"random_state": 0, **params},
        **kw,
    )


FULL = ("full",)

CASES = [
    _pair("DecisionTreeClassifier", "breast_cancer", "accuracy"),
    _pair("DecisionTreeClassifier", "digits", "accuracy"),
    _pair("DecisionTreeClassifier", "clf_20k_20", "accuracy"),
    _pair("DecisionTreeClassifier", "clf_20k_20", "accuracy", {"criterion": "entropy"},
          label="entropy"),
    _pair("DecisionTreeClassifier", "clf3_20k_20", "accuracy", profiles=FULL),
    _pair("DecisionTreeClassifier", "clf_300k_20", "accuracy", profiles=FULL),
    _pair("DecisionTreeRegressor", "diabetes", "r2", {"max_depth": 4}),
    _pair("DecisionTreeRegressor", "reg_20k_20", "r2"),
    _pair("DecisionTreeRegressor", "reg_300k_20", "r2", profiles=FULL),
    # Extremely randomised trees: one random threshold per drawn feature.
    _pair("ExtraTreeClassifier", "digits", "accuracy"),
    _pair("ExtraTreeClassifier", "clf_20k_20", "accuracy"),
    _pair("ExtraTreeRegressor", "diabetes", "r2", {"min_samples_leaf": 5}),
    _pair("ExtraTreeRegressor", "reg_20k_20", "r2"),
]
