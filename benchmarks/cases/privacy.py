"""skml.privacy's DP-SGD models against scikit-learn's non-private SGD models.

The reference is the same model without privacy (SGDClassifier with the log
loss, SGDRegressor), so the score ratio is the accuracy cost of (ε = 1 or 8,
δ = 1e-5)-DP and the time ratio DP-SGD's overhead (clipping per example and
the noise). The data are standardised (benchmarks.datasets). Peer DP
libraries (dp-accounting, opacus, diffprivlib) are compared separately in
benchmarks/privacy_peers.py.
"""

from benchmarks.case import Case


def _case(name, ref, dataset, score, params, ref_params, label=""):
    return Case(
        estimator=name,
        skml=f"skml.privacy:{name}",
        reference=f"sklearn.linear_model:{ref}",
        dataset=dataset,
        score=score,
        family="privacy",
        params=params,
        reference_params=ref_params,
        label=label,
    )


_DP = {"epochs": 5, "lot_size": 256, "learning_rate": 0.5, "random_state": 0}
# breast_cancer has 426 training rows: a lot of 256 would leave 9 steps, too
# few to move from zero weights (every seed and every ε then gave the same
# 0.916, the noise-free model's too); lots of 64 over 20 epochs (134 steps)
# are the setting of benchmarks/privacy_peers.py.
_DP_SMALL = {**_DP, "epochs": 20, "lot_size": 64}
_SGD = {"max_iter": 5, "tol": None, "random_state": 0}

CASES = [
    _case("DPSGDClassifier", "SGDClassifier", dataset, "accuracy",
          {**(_DP_SMALL if dataset == "breast_cancer" else _DP), "target_epsilon": eps},
          {**_SGD, "loss": "log_loss"}, f"eps={eps}")
    for dataset in ("breast_cancer", "clf_20k_20")
    for eps in (1.0, 8.0)
] + [
    _case("DPSGDRegressor", "SGDRegressor", "reg_20k_20", "r2",
          # y is not standardised (std 141): the clip norm is in its units.
          {**_DP, "learning_rate": 0.05, "clip_norm": 100.0, "target_epsilon": 8.0},
          _SGD, "eps=8.0"),
]
