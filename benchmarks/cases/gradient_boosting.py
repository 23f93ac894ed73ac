"""skml.ensemble's gradient boosting against scikit-learn's two implementations.

100 rounds of depth-3 trees, learning rate 0.1, on both sides. skml's default
is its histogram mode (``max_bins=256``); the "exact" rows run
``max_bins=None``, the same exact split search as scikit-learn's
``GradientBoosting*``. The "vs_hist" rows compare with
``HistGradientBoosting*`` at comparable settings (``max_iter=100``,
``max_depth=3``, no early stopping), skml given HistGradientBoosting's
``min_samples_leaf=20`` so that both grow the same trees (same depth, leaf
size, 255 value bins, rounds and learning rate). LightGBM at the same
settings: ``benchmarks/gb_peers.py``.
"""

from benchmarks.case import Case

FULL = ("full",)
ROUNDS = {"n_estimators": 100, "max_depth": 3, "random_state": 0}
HIST_ROUNDS = {"max_iter": 100, "max_depth": 3, "early_stopping": False,
               "random_state": 0}


def _case(kind, dataset, score, params=None, *, hist=False, label="", skml_only=None,
          **kw):
    name = f"GradientBoosting{kind}"
    ref = f"HistGradientBoosting{kind}" if hist else name
    return Case(
        estimator=name,
        skml=f"skml.ensemble:{name}",
        reference=f"sklearn.ensemble:{ref}",
        dataset=dataset,
        score=score,
        family="ensemble",
        params={**ROUNDS, **(params or {}), **(skml_only or {})},
        reference_params=dict(HIST_ROUNDS) if hist else {**ROUNDS, **(params or {})},
        label=label,
        **kw,
    )


EXACT = {"max_bins": None}
# HistGradientBoosting's default leaf size, for the "vs_hist" rows.
HIST_LEAF = {"min_samples_leaf": 20}

CASES = [
    _case("Classifier", "clf_20k_20", "accuracy"),
    _case("Classifier", "clf_20k_20", "accuracy", hist=True, label="vs_hist",
          skml_only=HIST_LEAF),
    _case("Classifier", "clf_20k_20", "accuracy", skml_only=EXACT, label="exact"),
    _case("Classifier", "breast_cancer", "accuracy"),
    _case("Classifier", "iris", "accuracy"),
    _case("Classifier", "wine", "accuracy", skml_only=EXACT, label="exact"),
    _case("Classifier", "clf3_20k_20", "accuracy", profiles=FULL),
    _case("Classifier", "clf3_20k_20", "accuracy", hist=True, label="vs_hist",
          skml_only=HIST_LEAF, profiles=FULL),
    _case("Classifier", "clf_300k_20", "accuracy", hist=True, label="vs_hist",
          skml_only=HIST_LEAF, profiles=FULL),
    _case("Regressor", "reg_20k_20", "r2"),
    _case("Regressor", "reg_20k_20", "r2", hist=True, label="vs_hist",
          skml_only=HIST_LEAF),
    _case("Regressor", "reg_300k_20", "r2", hist=True, label="vs_hist",
          skml_only=HIST_LEAF, profiles=FULL),
    _case("Regressor", "reg_20k_20", "r2", skml_only=EXACT, label="exact",
          profiles=FULL),
    _case("Regressor", "diabetes", "r2"),
    _case("Regressor", "diabetes", "r2", {"loss": "huber"}, label="huber"),
]
