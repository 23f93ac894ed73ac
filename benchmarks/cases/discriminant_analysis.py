"""skml.discriminant_analysis against sklearn.discriminant_analysis, same parameters.

QDA needs full-rank class covariances: digits has constant pixels and the
synthetic sets have redundant (linearly dependent) features, so those rows
use ``reg_param`` (scikit-learn's QDA raises the same LinAlgError without).
For the same reason the "eigen" row on synthetic data uses shrinkage.
"""

from benchmarks.case import Case


def _pair(name, dataset, score="accuracy", params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.discriminant_analysis:{name}",
        reference=f"sklearn.discriminant_analysis:{name}",
        dataset=dataset,
        score=score,
        family="discriminant_analysis",
        params=params,
        reference_params=params,
        **kw,
    )


LDA, QDA = "LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis"

CASES = [
    *(_pair(LDA, d) for d in ("iris", "wine", "breast_cancer", "digits", "clf_20k_20")),
    _pair(LDA, "clf3_20k_20"),
    _pair(LDA, "breast_cancer", params={"solver": "lsqr", "shrinkage": "auto"},
          label="lsqr_auto"),
    _pair(LDA, "clf_20k_20", params={"solver": "eigen", "shrinkage": "auto"},
          label="eigen_auto"),
    _pair(LDA, "wine", "transform_max_abs_diff", label="transform"),
    _pair(LDA, "clf_20k_20", "log_loss", label="proba"),
    _pair(QDA, "iris"),
    _pair(QDA, "wine"),
    *(
        _pair(QDA, d, params={"reg_param": 0.1}, label="reg")
        for d in ("breast_cancer", "digits", "clf_20k_20", "clf3_20k_20")
    ),
    _pair(QDA, "clf_20k_20", "log_loss", params={"reg_param": 0.1}, label="reg,proba"),
]
