"""skml.metric_learning: each learnt map scored by the 3-NN accuracy it gives.

A metric learner is a transformer whose output has no reference to be equal
to (L-BFGS paths differ in rounding, and LMNN has no scikit-learn peer), so
both sides of a row are ``make_pipeline(learner, KNeighborsClassifier(3))``
built by the factories below; the timed fit is the learner's (plus a kNN
fit, negligible) and the score is the test accuracy.

- NCA: against scikit-learn's ``NeighborhoodComponentsAnalysis`` with the
  same parameters (same objective, same init, same L-BFGS-B).
- LMNN: scikit-learn has none. metric-learn 0.7.0 (the latest) installs but
  fails on scikit-learn 1.9 (it passes the removed ``force_all_finite`` to
  ``check_X_y``), so the reference is scikit-learn's NCA: a timing yardstick
  for a metric learner of the same cost class (O(n²) per evaluation), and an
  accuracy to compare with, not the same algorithm. Measured ad hoc with
  metric-learn 0.7.0 patched for ``ensure_all_finite`` (1 BLAS thread, same
  splits, n_neighbors=3): wine 0.13 s vs 1.85 s, digits 3.2 s vs 56 s, 3-NN
  accuracy 1.000 vs 1.000 and 0.982 vs 0.980.
"""

from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from benchmarks.case import Case, load_object

_HERE = "benchmarks.cases.metric_learning"


def _with_knn(path, **params):
    learner = load_object(path)(**params)
    return make_pipeline(learner, KNeighborsClassifier(n_neighbors=3))


def skml_nca_knn(**params):
    """skml's NCA followed by a 3-NN classifier."""
    return _with_knn("skml.metric_learning:NeighborhoodComponentsAnalysis", **params)


def skml_lmnn_knn(**params):
    """skml's LMNN followed by a 3-NN classifier."""
    return _with_knn("skml.metric_learning:LargeMarginNearestNeighbor", **params)


def sklearn_nca_knn(**params):
    """scikit-learn's NCA followed by a 3-NN classifier."""
    return _with_knn("sklearn.neighbors:NeighborhoodComponentsAnalysis", **params)


NCA, LMNN = "NeighborhoodComponentsAnalysis", "LargeMarginNearestNeighbor"


def _nca(dataset, params=None, **kw):
    params = {"random_state": 0, **(params or {})}
    return Case(
        estimator=NCA,
        skml=f"{_HERE}:skml_nca_knn",
        reference=f"{_HERE}:sklearn_nca_knn",
        dataset=dataset,
        score="accuracy",
        family="metric_learning",
        params=params,
        reference_params=params,
        **kw,
    )


def _lmnn(dataset, params=None, **kw):
    return Case(
        estimator=LMNN,
        skml=f"{_HERE}:skml_lmnn_knn",
        reference=f"{_HERE}:sklearn_nca_knn",
        dataset=dataset,
        score="accuracy",
        family="metric_learning",
        params={"random_state": 0, **(params or {})},
        reference_params={"random_state": 0},
        **kw,
    )


CASES = [
    _nca("iris"),
    _nca("wine"),
    _nca("digits"),
    _nca("digits", params={"n_components": 16}, label="16d"),
    _nca("clf_5k_20", profiles=("full",)),
    _lmnn("wine"),
    _lmnn("digits"),
    _lmnn("wine", params={"objective": "triplet"}, label="triplet"),
    _lmnn("digits", params={"objective": "triplet"}, label="triplet"),
    _lmnn("clf_5k_20", profiles=("full",)),
]
