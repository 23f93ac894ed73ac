"""error_score and multi-metric scoring of SuccessiveHalvingSearchCV / HyperbandSearchCV."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import FitFailedWarning
from sklearn.metrics import accuracy_score, balanced_accuracy_score

from skml.linear_model import SGDClassifier
from skml.model_selection import HyperbandSearchCV, SuccessiveHalvingSearchCV

from .test_halving_search import CurveClassifier

X_IRIS, Y_IRIS = load_iris(return_X_y=True)
QUALITIES = [0.2, 0.4, 0.6, 0.8]


class FailingCurveClassifier(CurveClassifier):
    """CurveClassifier whose fit raises for ``quality == fail_quality``.

    With ``fail_after`` set instead, only a *continued* fit raises, once it
    would pass ``fail_after`` iterations, and only on training sets of
    ``fail_rows`` rows (one split); a fresh fit succeeds.
    """

    def __init__(self, quality=0.5, max_iter=10, warm_start=False, fail_quality=None,
                 fail_after=None, fail_rows=None):
        super().__init__(quality=quality, max_iter=max_iter, warm_start=warm_start)
        self.fail_quality = fail_quality
        self.fail_after = fail_after
        self.fail_rows = fail_rows

    def fit(self, X, y):
        if self.fail_after is None:
            if self.quality == self.fail_quality:
                raise ValueError("planted failure")
        elif (self.warm_start and hasattr(self, "n_iter_total_")
              and len(X) == self.fail_rows
              and self.n_iter_total_ + self.max_iter > self.fail_after):
            raise ValueError("planted late failure")
        return super().fit(X, y)


def _search(est, **kwargs):
    params = dict(n_candidates=4, resource="max_iter", cv=3, random_state=0)
    params.update(kwargs)
    return SuccessiveHalvingSearchCV(est, {"quality": QUALITIES}, **params)


def test_failed_candidate_scores_error_score_and_is_eliminated():
    est = FailingCurveClassifier(max_iter=16, fail_quality=0.8)
    with pytest.warns(FitFailedWarning, match="planted failure"):
        search = _search(est).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    failed = np.array([p["quality"] == 0.8 for p in res["params"]])
    assert failed.sum() == 1  # only in the first round: eliminated there
    assert np.isnan(res["mean_test_score"][failed]).all()
    assert np.isnan(res["split1_test_score"][failed]).all()
    # The best of the others wins; the NaN row ranks last of its round.
    assert search.best_params_ == {"quality": 0.6}
    first = res["iter"] == 0
    assert res["rank_test_score"][failed][0] == res["rank_test_score"][first].max()


def test_numeric_error_score_is_the_failed_split_score():
    est = FailingCurveClassifier(max_iter=16, fail_quality=0.2)
    with pytest.warns(FitFailedWarning):
        search = _search(est, error_score=-1.0).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    failed = np.array([p["quality"] == 0.2 for p in res["params"]])
    np.testing.assert_array_equal(res["mean_test_score"][failed], -1.0)
    assert search.best_params_ == {"quality": 0.8}


def test_error_score_raise_raises():
    est = FailingCurveClassifier(max_iter=16, fail_quality=0.4)
    with pytest.raises(ValueError, match="planted failure"):
        _search(est, error_score="raise").fit(X_IRIS, Y_IRIS)


def test_every_fit_failing_raises_the_first_error():
    # Bad data fail every fit: the estimator's own error comes out.
    X = X_IRIS.copy()
    X[0, 0] = np.nan
    search = _search(SGDClassifier(max_iter=8, tol=None, random_state=0), n_candidates=2)
    search.set_params(param_distributions={"alpha": [1e-4, 1e-3]})
    with pytest.raises(ValueError, match="(?i)nan"):
        search.fit(X, Y_IRIS)


def test_late_failure_restarts_the_lost_model_from_zero():
    # 8 candidates, rounds at 2, 6, 12 iterations. Every continued fit on the
    # 100-row split fails in round 1: all rank -inf, the stable order keeps
    # two, and in round 2 their lost models train again from zero (a fresh
    # fit, which succeeds) while the other split's continue.
    rows = np.arange(150)
    cv = [(rows[:100], rows[100:]), (rows[60:], rows[:60])]
    log = []

    def scorer(est, X, y):
        log.append((len(X), est.n_iter_total_, est.fit_calls_))
        return est.score(X, y)

    est = FailingCurveClassifier(max_iter=12, fail_after=2, fail_rows=100)
    with pytest.warns(FitFailedWarning, match="planted late failure"):
        search = SuccessiveHalvingSearchCV(
            est, {"quality": list(np.linspace(0.1, 0.8, 8))}, n_candidates=8, factor=2,
            resource="max_iter", cv=cv, scoring=scorer, refit=False, random_state=0,
        ).fit(X_IRIS, Y_IRIS)
    assert search.n_candidates_ == [8, 4, 2]
    assert search.n_resources_ == [2, 6, 12]
    res = search.cv_results_
    assert np.isnan(res["split0_test_score"][res["iter"] == 1]).all()
    assert np.isfinite(res["split0_test_score"][res["iter"] == 2]).all()
    last = [entry for entry in log if entry[1] == 12]
    # split 0 (50 test rows): one fresh fit to 12; split 1 (60): three warm fits.
    assert sorted(last) == [(50, 12, 1), (50, 12, 1), (60, 12, 3), (60, 12, 3)]


@pytest.mark.parametrize("scoring", [
    ["accuracy", "balanced_accuracy"],
    ("balanced_accuracy", "accuracy"),
    {"accuracy": "accuracy", "balanced_accuracy": "balanced_accuracy"},
])
def test_multimetric_results_and_refit(scoring):
    search = SuccessiveHalvingSearchCV(
        SGDClassifier(max_iter=8, tol=None, random_state=0),
        {"alpha": [1e-5, 1e-4, 1e-3, 1e-2]}, n_candidates=4, resource="max_iter",
        scoring=scoring, refit="balanced_accuracy", cv=3, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    assert search.multimetric_
    assert "mean_test_score" not in res
    for name in ("accuracy", "balanced_accuracy"):
        for key in (f"mean_test_{name}", f"std_test_{name}", f"rank_test_{name}",
                    f"split0_test_{name}", f"split2_test_{name}"):
            assert len(res[key]) == sum(search.n_candidates_), key
    assert search.best_score_ == res["mean_test_balanced_accuracy"][search.best_index_]
    assert res["rank_test_balanced_accuracy"][search.best_index_] == 1
    assert set(search.scorer_) == {"accuracy", "balanced_accuracy"}
    pred = search.best_estimator_.predict(X_IRIS)
    assert search.score(X_IRIS, Y_IRIS) == pytest.approx(
        balanced_accuracy_score(Y_IRIS, pred))
    # Each split score is the metric of that split's model.
    assert np.all(res["mean_test_accuracy"] <= 1)


def _quality(est, X, y):
    return est.score(X, y)


def _minus_quality(est, X, y):
    return -est.score(X, y)


@pytest.mark.parametrize("refit, best", [("up", 0.8), ("down", 0.2)])
def test_the_refit_metric_chooses_survivors(refit, best):
    # Two metrics that rank the candidates in opposite orders: the one named
    # by refit decides who survives each round and who is best.
    search = _search(CurveClassifier(max_iter=16),
                     scoring={"up": _quality, "down": _minus_quality}, refit=refit)
    search.fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    last = res["iter"] == res["iter"].max()
    assert {p["quality"] for p, m in zip(res["params"], last) if m} == (
        {0.6, 0.8} if refit == "up" else {0.2, 0.4})
    assert search.best_params_ == {"quality": best}


def test_callable_returning_a_dict_is_multimetric():
    def both(est, X, y):
        pred = est.predict(X)
        return {"acc": accuracy_score(y, pred), "bal": balanced_accuracy_score(y, pred)}

    search = HyperbandSearchCV(
        SGDClassifier(tol=None, random_state=0), {"alpha": [1e-5, 1e-4, 1e-3]},
        max_resource=9, resource="max_iter", scoring=both, refit="acc", cv=3,
        random_state=0).fit(X_IRIS, Y_IRIS)
    assert search.multimetric_
    assert "mean_test_bal" in search.cv_results_ and "bracket" in search.cv_results_
    assert search.best_score_ == search.cv_results_["mean_test_acc"][search.best_index_]
    assert search.score(X_IRIS, Y_IRIS) == pytest.approx(
        accuracy_score(Y_IRIS, search.predict(X_IRIS)))


def test_multimetric_with_failures_fills_every_metric():
    est = FailingCurveClassifier(max_iter=16, fail_quality=0.4)
    with pytest.warns(FitFailedWarning):
        search = _search(est, scoring={"up": _quality, "down": _minus_quality},
                         refit="up").fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    failed = np.array([p["quality"] == 0.4 for p in res["params"]])
    assert np.isnan(res["mean_test_up"][failed]).all()
    assert np.isnan(res["mean_test_down"][failed]).all()


@pytest.mark.parametrize("kwargs, match", [
    ({"scoring": ["accuracy", "balanced_accuracy"], "refit": True}, "refit"),
    ({"scoring": ["accuracy", "balanced_accuracy"], "refit": False}, "refit"),
    ({"scoring": ["accuracy", "balanced_accuracy"], "refit": "f1"}, "refit"),
    ({"scoring": []}, "scoring"),
    ({"scoring": ["accuracy", "accuracy"], "refit": "accuracy"}, "scoring"),
    ({"scoring": ["accuracy", _quality], "refit": "accuracy"}, "scoring"),
    ({"error_score": "ignore"}, "error_score"),
])
def test_bad_scoring_input(kwargs, match):
    search = _search(SGDClassifier(max_iter=8, tol=None), n_candidates=2, **kwargs)
    search.set_params(param_distributions={"alpha": [1e-4, 1e-3]})
    with pytest.raises(ValueError, match=match):
        search.fit(X_IRIS, Y_IRIS)


def test_single_metric_refit_name_is_accepted_as_true():
    # As in scikit-learn, a str refit with one metric refits that metric.
    search = _search(CurveClassifier(max_iter=16), refit="score").fit(X_IRIS, Y_IRIS)
    assert not search.multimetric_
    assert hasattr(search, "best_estimator_")


def test_callable_refit_chooses_the_row_to_refit():
    # As in GridSearchCV: the callable gets cv_results_ and returns
    # best_index_. Here it prefers the lowest quality of the last round's rows
    # over the best score, so the result differs from refit=True's.
    def lowest_quality_of_last_round(results):
        last = np.flatnonzero(results["iter"] == results["iter"].max())
        qualities = [results["params"][i]["quality"] for i in last]
        return int(last[np.argmin(qualities)])

    plain = _search(CurveClassifier(max_iter=16)).fit(X_IRIS, Y_IRIS)
    search = _search(CurveClassifier(max_iter=16),
                     refit=lowest_quality_of_last_round).fit(X_IRIS, Y_IRIS)
    expected = lowest_quality_of_last_round(search.cv_results_)
    assert search.best_index_ == expected
    assert search.best_params_ == search.cv_results_["params"][expected]
    assert search.best_score_ == search.cv_results_["mean_test_score"][expected]
    assert search.best_estimator_.quality == search.best_params_["quality"]
    assert search.best_params_ != plain.best_params_  # the callable decided


@pytest.mark.parametrize("returned, error", [
    (1.5, TypeError), ("0", TypeError), (True, TypeError), (10_000, IndexError),
    (-1, IndexError)])
def test_callable_refit_bad_return(returned, error):
    search = _search(CurveClassifier(max_iter=16), refit=lambda results: returned)
    with pytest.raises(error, match="refit"):
        search.fit(X_IRIS, Y_IRIS)


def test_callable_refit_with_several_metrics_is_refused():
    search = _search(CurveClassifier(max_iter=16), refit=lambda results: 0,
                     scoring={"up": _quality, "down": _minus_quality})
    with pytest.raises(ValueError, match="callable refit"):
        search.fit(X_IRIS, Y_IRIS)
