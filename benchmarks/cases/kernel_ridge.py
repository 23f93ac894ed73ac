"""skml.kernel_ridge against scikit-learn.

KernelRidge runs against sklearn.kernel_ridge.KernelRidge with the same
parameters (the same closed-form solve, so the predictions should agree to
rounding). KernelLogisticRegression (notes B §5.10) has no scikit-learn
class; its reference is the kernel classifier a scikit-learn user would
reach for on the same kernel, an rbf ``SVC``: the row sets the accuracy and
time of the two kernel machines side by side (a different loss: agreement
is not expected to be exact).
"""

from benchmarks.case import Case

CASES = [
    Case(estimator="KernelRidge", skml="skml.kernel_ridge:KernelRidge",
         reference="sklearn.kernel_ridge:KernelRidge", dataset=dataset, score="r2",
         family="kernel_ridge", params=params, reference_params=params, label=label)
    for dataset, params, label in (
        ("diabetes", {"alpha": 1.0, "kernel": "rbf", "gamma": 0.1}, "rbf"),
        ("diabetes", {"alpha": 0.1, "kernel": "linear"}, "linear"),
    )
] + [
    Case(estimator="KernelLogisticRegression",
         skml="skml.kernel_ridge:KernelLogisticRegression",
         reference="sklearn.svm:SVC", dataset=dataset, score="accuracy",
         family="kernel_ridge", params={"C": 1.0, "kernel": "rbf", "gamma": "scale"},
         reference_params={"C": 1.0, "kernel": "rbf", "gamma": "scale"},
         label="vs_rbf_svc")
    for dataset in ("breast_cancer", "clf_5k_20")
]
