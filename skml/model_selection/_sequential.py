"""What the searches that choose their next candidates from the last ones share.

:class:`BayesSearchCV` and :class:`HarmonicaSearchCV` run on scikit-learn's
``BaseSearchCV`` (cross-validation, refit, multi-metric scoring, joblib):
their ``_run_search`` calls ``evaluate_candidates`` repeatedly, each time
with candidates chosen from the scores so far.
"""

import numpy as np
from sklearn.model_selection._search import BaseSearchCV

from ..utils import validate_params

__all__ = ["search_scores"]

# Docstring blocks of the sequential searches, placed by fill_doc.
SEARCH_DOC_BLOCKS = {
    "search parameters": """
    scoring, n_jobs, refit, cv, verbose, pre_dispatch, error_score, return_train_score
        As in ``GridSearchCV``.
    random_state : int, RandomState instance or None, default=None
""",
    "search attributes": """
    cv_results_, best_estimator_, best_score_, best_params_, best_index_, scorer_,
    n_splits_, refit_time_, multimetric_
        As in ``GridSearchCV``.
""",
}


def search_scores(results, refit):
    """The mean CV scores a search optimises, failed fits at the worst one seen.

    ``results`` is ``evaluate_candidates``' return; with several metrics the
    one named by ``refit`` (else the first) is used.
    """
    if "mean_test_score" in results:
        key = "mean_test_score"
    elif isinstance(refit, str):
        key = f"mean_test_{refit}"
    else:
        key = sorted(k for k in results if k.startswith("mean_test_"))[0]
    scores = np.asarray(results[key], dtype=float)
    finite = np.isfinite(scores)
    if not finite.any():
        return np.zeros_like(scores)
    return np.where(finite, scores, scores[finite].min())


class _SequentialSearchCV(BaseSearchCV):
    """``BaseSearchCV`` plus skml's validation of the parameters a subclass adds."""

    # scikit-learn validates BaseSearchCV's own _parameter_constraints in fit;
    # skml's validator checks the ones a subclass adds, declared here.
    _skml_parameter_constraints = {}

    def _check_search_space(self):
        """Raise a clear error for a bad space before any fit (subclasses)."""

    def fit(self, X, y=None, **params):
        """Run the search (see ``GridSearchCV.fit``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs), default=None
        **params : dict
            Passed to the estimator's ``fit`` (and the CV splitter's ``split``).

        Returns
        -------
        self : object
        """
        validate_params(self, constraints=self._skml_parameter_constraints)
        self._check_search_space()
        if y is None and self.estimator.__sklearn_tags__().target_tags.required:
            raise ValueError(f"{type(self.estimator).__name__} requires y to be passed, "
                             "but the target y is None.")
        return super().fit(X, y, **params)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # scikit-learn's search copies most of the estimator's tags; the
        # target tags too, so a multi-output estimator's search is one.
        tags.target_tags = self.estimator.__sklearn_tags__().target_tags
        return tags
