"""skml.svm.LinearSVC and HardMarginSVC against scikit-learn's liblinear and libsvm."""

from benchmarks.case import Case


def _linear_svc(dataset, params=None, reference_params=None, **kw):
    params = {"random_state": 0, **(params or {})}
    return Case(
        estimator="LinearSVC",
        skml="skml.svm:LinearSVC",
        reference="sklearn.svm:LinearSVC",
        dataset=dataset,
        score="accuracy",
        family="svm",
        params=params,
        reference_params={"random_state": 0, **(reference_params or {})},
        **kw,
    )


CASES = [
    _linear_svc("breast_cancer"),
    _linear_svc("wine"),
    _linear_svc("clf_20k_20"),
    _linear_svc("clf3_20k_20"),
    # The notes' hinge loss: dual coordinate descent on both sides.
    _linear_svc("clf_20k_20", {"loss": "hinge"}, {"loss": "hinge"}, label="hinge"),
    # L1 penalty: coordinate descent on the primal on both sides (liblinear's
    # -s 5, issue 21).
    *(
        _linear_svc(dataset, {"penalty": "l1", "dual": False},
                    {"penalty": "l1", "dual": False}, label="l1")
        for dataset in ("breast_cancer", "clf_20k_20", "clf3_20k_20")
    ),
    # Pegasos (notes B §5.6) against liblinear's exact solution of the same
    # objective: slower, slightly less accurate.
    _linear_svc(
        "breast_cancer", {"loss": "hinge", "solver": "pegasos"}, {"loss": "hinge"},
        label="pegasos", profiles=("full",),
    ),
    # The breast-cancer training split is linearly separable (margin ~0.04 in
    # standardised units); libsvm with C = 1e10 approaches the hard margin.
    Case(
        estimator="HardMarginSVC",
        skml="skml.svm:HardMarginSVC",
        reference="sklearn.svm:SVC",
        dataset="breast_cancer",
        score="accuracy",
        family="svm",
        reference_params={"kernel": "linear", "C": 1e10},
    ),
    # The kernel hard margin (notes A §1.5): same SMO dual plus the Gram
    # factorisation that proves separability.
    Case(
        estimator="HardMarginSVC",
        skml="skml.svm:HardMarginSVC",
        reference="sklearn.svm:SVC",
        dataset="breast_cancer",
        score="accuracy",
        family="svm",
        params={"kernel": "rbf"},
        reference_params={"kernel": "rbf", "C": 1e10},
        label="rbf",
    ),
]
