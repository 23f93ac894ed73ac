"""How a benchmark row is scored, and how the two sides' outputs are compared.

A :class:`Score` names the method whose output is timed as "predict" (``predict``,
``predict_proba`` or ``transform``), the function scoring that output on the test
split, and the kind of agreement measured between the two sides' outputs. Add a
score by adding an entry to :data:`SCORES`.
"""

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from sklearn import metrics


def _dense(output):
    """A 2-d or 1-d float/label ndarray from whatever a method returned."""
    if hasattr(output, "toarray"):  # scipy.sparse
        output = output.toarray()
    return np.asarray(output)


def agreement(kind, out_skml, out_ref, y_test):
    """How closely the two sides' outputs agree.

    ``"equal"``: fraction of equal predictions (classifiers, 1.0 is perfect);
    ``"diff_over_std"``: max |difference| / std(y_test) (regressors, 0.0 is perfect);
    ``"max_abs_diff"``: max |difference| of transforms or probabilities (0.0 is
    perfect; NaN when the shapes differ); ``"same_partition"``: adjusted Rand
    index between the two labelings (clusterers, 1.0 is perfect).
    """
    a, b = _dense(out_skml), _dense(out_ref)
    if kind == "equal":
        return float(np.mean(a == b))
    if kind == "same_partition":
        return float(metrics.adjusted_rand_score(a, b))
    if a.shape != b.shape:
        return float("nan")
    diff = float(np.max(np.abs(a.astype(float) - b.astype(float)), initial=0.0))
    if kind == "diff_over_std":
        scale = float(np.std(y_test))
        return diff / scale if scale > 0 else diff
    if kind == "max_abs_diff":
        return diff
    raise ValueError(f"unknown agreement kind {kind!r}")


@dataclass(frozen=True)
class Score:
    """One score of the benchmark.

    Attributes
    ----------
    method : str
        Method called on the test split after fit, and timed as "predict".
    func : callable or None
        ``func(y_test, output, estimator) -> float``. None means the score *is*
        the agreement between the sides (reported on the skml side only).
    agreement : str
        Kind passed to :func:`agreement`.
    greater_is_better : bool
        Direction, for the report's "score gap" check.
    """

    method: str
    func: Optional[Callable]
    agreement: str
    greater_is_better: bool = True


def _on_labels(metric, sign=1.0):
    """A score function ``(y, output, estimator) -> float`` from a metric."""
    return lambda y, out, est: sign * metric(y, out)


def _log_loss(y, proba, est):
    return metrics.log_loss(y, proba, labels=est.classes_)


_TRANSFORM_DIFF = Score("transform", None, "max_abs_diff", greater_is_better=False)


def _recall(y, ind, est):
    """Recall of neighbour indices (rows of ``ind``) against the exact ones,
    which the estimator (an adapter of benchmarks/cases) gives for its last
    query through ``exact_neighbors()``."""
    exact = est.exact_neighbors()
    return float(np.mean((exact[:, :, None] == ind[:, None, :]).any(axis=2)))


def _trustworthiness(y, embedding, est):
    """Trustworthiness (5 neighbours) of the training embedding, which an
    embedding adapter of benchmarks/cases returns from ``transform``, against
    the training points it keeps as ``fitted_X_``; on 5000 seeded rows at most
    (the metric holds an n x n distance matrix)."""
    X = est.fitted_X_
    if X.shape[0] > 5000:
        rows = np.random.RandomState(0).choice(X.shape[0], 5000, replace=False)
        X, embedding = X[rows], np.asarray(embedding)[rows]
    from sklearn.manifold import trustworthiness

    return float(trustworthiness(X, embedding, n_neighbors=5))


SCORES = {
    "accuracy": Score("predict", _on_labels(metrics.accuracy_score), "equal"),
    "r2": Score("predict", _on_labels(metrics.r2_score), "diff_over_std"),
    "neg_mse": Score(
        "predict", _on_labels(metrics.mean_squared_error, -1.0), "diff_over_std"
    ),
    "log_loss": Score(
        "predict_proba", _log_loss, "max_abs_diff", greater_is_better=False
    ),
    "adjusted_rand": Score(
        "predict", _on_labels(metrics.adjusted_rand_score), "same_partition"
    ),
    # Density models: mean log-likelihood of the test split (score_samples).
    "mean_log_likelihood": Score(
        "score_samples", lambda y, out, est: float(np.mean(out)), "max_abs_diff"
    ),
    "transform_max_abs_diff": _TRANSFORM_DIFF,
    "max_abs_diff": _TRANSFORM_DIFF,
    "recall": Score("transform", _recall, "equal"),
    # Embeddings (t-SNE): the two sides' embeddings agree only up to rotation,
    # so their max difference is informative only as a sanity figure.
    "trustworthiness": Score("transform", _trustworthiness, "max_abs_diff"),
    # Transductive clusterers (no predict): refit on the test split.
    "adjusted_rand_fit_predict": Score(
        "fit_predict", _on_labels(metrics.adjusted_rand_score), "same_partition"
    ),
}


def get_score(name):
    try:
        return SCORES[name]
    except KeyError:
        raise ValueError(f"unknown score {name!r}; known: {sorted(SCORES)}") from None
