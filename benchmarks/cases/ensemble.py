"""skml.ensemble against sklearn.ensemble, the same member configuration on both sides.

AdaBoost uses each library's own depth-1 tree (the default of both), bagging
each library's own full-depth tree. Voting and stacking members are built by
the factories below (skml members vs scikit-learn members), since a Case's
parameters must stay JSON-friendly.
"""

from benchmarks.case import Case

FULL = ("full",)


def _members(lib, task):
    if lib == "skml":
        from skml import linear_model, naive_bayes, tree
    else:
        from sklearn import linear_model, naive_bayes, tree
    if task == "classification":
        return [
            ("lr", linear_model.LogisticRegression(max_iter=200)),
            ("tree", tree.DecisionTreeClassifier(max_depth=5, random_state=0)),
            ("nb", naive_bayes.GaussianNB()),
        ]
    return [
        ("ridge", linear_model.Ridge(alpha=1.0)),
        ("tree", tree.DecisionTreeRegressor(max_depth=5, random_state=0)),
    ]


def _build(kind, lib, **params):
    from importlib import import_module

    module = import_module("skml.ensemble" if lib == "skml" else "sklearn.ensemble")
    task = "classification" if kind.endswith("Classifier") else "regression"
    extra = {}
    if kind.startswith("Stacking") and lib == "sklearn":
        # Same final estimator as skml's default on both sides.
        from sklearn import linear_model

        extra["final_estimator"] = (linear_model.LogisticRegression()
                                    if task == "classification" else linear_model.Ridge())
    return getattr(module, kind)(_members(lib, task), **extra, **params)


def skml_voting_classifier(**params):
    return _build("VotingClassifier", "skml", **params)


def sklearn_voting_classifier(**params):
    return _build("VotingClassifier", "sklearn", **params)


def skml_voting_regressor(**params):
    return _build("VotingRegressor", "skml", **params)


def sklearn_voting_regressor(**params):
    return _build("VotingRegressor", "sklearn", **params)


def skml_stacking_classifier(**params):
    return _build("StackingClassifier", "skml", **params)


def sklearn_stacking_classifier(**params):
    return _build("StackingClassifier", "sklearn", **params)


def skml_stacking_regressor(**params):
    return _build("StackingRegressor", "skml", **params)


def sklearn_stacking_regressor(**params):
    return _build("StackingRegressor", "sklearn", **params)


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


def _factory_pair(name, factory, dataset, score, params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"benchmarks.cases.ensemble:skml_{factory}",
        reference=f"benchmarks.cases.ensemble:sklearn_{factory}",
        dataset=dataset,
        score=score,
        family="ensemble",
        params=params,
        reference_params=params,
        **kw,
    )


STUMPS_50 = {"n_estimators": 50}

CASES = [
    _pair("AdaBoostClassifier", "breast_cancer", "accuracy", STUMPS_50),
    _pair("AdaBoostClassifier", "clf_20k_20", "accuracy", STUMPS_50),
    # issue 12's second size (the stumps presorted once per fit, not per round)
    _pair("AdaBoostClassifier", "clf_100k_20", "accuracy", STUMPS_50, profiles=FULL),
    _pair("BaggingClassifier", "breast_cancer", "accuracy", {"oob_score": True}),
    _pair("BaggingClassifier", "clf_20k_20", "accuracy"),
    _pair("BaggingClassifier", "clf_20k_20", "accuracy", {"n_jobs": 2}, label="n_jobs=2"),
    _pair("BaggingRegressor", "diabetes", "r2", {"oob_score": True}),
    _pair("BaggingRegressor", "reg_20k_20", "r2", profiles=FULL),
    _factory_pair("VotingClassifier", "voting_classifier", "breast_cancer", "accuracy",
                  {"voting": "soft"}),
    _factory_pair("VotingClassifier", "voting_classifier", "clf_20k_20", "accuracy"),
    _factory_pair("VotingRegressor", "voting_regressor", "diabetes", "r2"),
    _factory_pair("StackingClassifier", "stacking_classifier", "breast_cancer", "accuracy"),
    _factory_pair("StackingClassifier", "stacking_classifier", "clf_20k_20", "accuracy",
                  profiles=FULL),
    _factory_pair("StackingRegressor", "stacking_regressor", "diabetes", "r2"),
]
