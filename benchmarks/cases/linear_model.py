"""skml.linear_model against sklearn.linear_model, same hyper-parameters."""

from benchmarks.case import Case


def _pair(name, dataset, score, params=None, reference_params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.linear_model:{name}",
        reference=f"sklearn.linear_model:{name}",
        dataset=dataset,
        score=score,
        family="linear_model",
        params=params,
        reference_params=params if reference_params is None else reference_params,
        **kw,
    )


CASES = [
    _pair("LinearRegression", "diabetes", "r2"),
    _pair("LinearRegression", "reg_20k_20", "r2"),
    _pair("Ridge", "diabetes", "r2", {"alpha": 1.0}),
    _pair("Ridge", "reg_20k_20", "r2", {"alpha": 1.0}),
    # Each of scikit-learn's Ridge solvers against the same solver (issue 21).
    *[_pair("Ridge", "reg_20k_20", "r2",
            {"alpha": 1.0, "solver": solver, "positive": solver == "lbfgs",
             "random_state": 0}, label=solver + ("-positive" if solver == "lbfgs"
                                                 else ""), profiles=("full",))
      for solver in ("svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga",
                     "lbfgs")],
    _pair("Lasso", "diabetes", "r2", {"alpha": 0.1}),
    _pair("Lasso", "reg_20k_20", "r2", {"alpha": 1.0}),
    _pair("Perceptron", "breast_cancer", "accuracy", {"random_state": 0}),
    _pair("Perceptron", "clf_20k_20", "accuracy", {"random_state": 0}),
    _pair("LogisticRegression", "breast_cancer", "accuracy", {"C": 1.0}),
    _pair("LogisticRegression", "wine", "accuracy", {"C": 1.0}),
    _pair("LogisticRegression", "clf_20k_20", "accuracy", {"C": 1.0}),
    _pair("LogisticRegression", "clf3_20k_20", "accuracy", {"C": 1.0}),
    # scikit-learn's solvers, each against the same solver (issue 21): the
    # log-loss agreement shows the shared optimum, the time ratio the solver.
    *[_pair("LogisticRegression", data, "log_loss",
            {"solver": solver, "random_state": 0, **extra}, label=label,
            profiles=("full",))
      for data in ("clf_20k_20", "clf3_20k_20")
      for solver, extra, label in [
          ("newton-cg", {}, "newton-cg"),
          ("newton-cholesky", {}, "newton-cholesky"),
          ("sag", {}, "sag"),
          ("saga", {}, "saga"),
          ("saga", {"l1_ratio": 1.0}, "saga-l1"),
          ("saga", {"l1_ratio": 0.5}, "saga-elasticnet"),
      ]],
    *[_pair("LogisticRegression", "clf_20k_20", "log_loss",
            {"solver": "liblinear", "l1_ratio": r, "random_state": 0},
            label=f"liblinear-{pen}", profiles=("full",))
      for r, pen in [(0.0, "l2"), (1.0, "l1")]],
    _pair("SGDClassifier", "breast_cancer", "accuracy", {"random_state": 0}),
    _pair("SGDClassifier", "clf_20k_20", "accuracy", {"random_state": 0}),
    _pair("SGDRegressor", "diabetes", "r2", {"random_state": 0}),
    _pair("SGDRegressor", "reg_20k_20", "r2", {"random_state": 0}),
]
