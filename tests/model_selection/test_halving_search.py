"""SuccessiveHalvingSearchCV and HyperbandSearchCV: the notes' properties (A §11.3)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_digits, load_iris
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.model_selection import (
    HalvingRandomSearchCV,
    RandomizedSearchCV,
    train_test_split,
)

from skml.linear_model import Ridge, SGDClassifier
from skml.model_selection import (
    HyperbandSearchCV,
    SuccessiveHalvingSearchCV,
    halving_schedule,
    hyperband_brackets,
)
from skml.neural_network import MLPClassifier

from .._parity import parity_test


class CurveClassifier(ClassifierMixin, BaseEstimator):
    """A fake learner whose accuracy after k iterations is quality * (1 - e^{-k/4}).

    Its curves never cross; ``n_iter_total_`` counts every iteration trained
    since the model was created, so a refit from scratch is visible.
    """

    def __init__(self, quality=0.5, max_iter=10, warm_start=False):
        self.quality = quality
        self.max_iter = max_iter
        self.warm_start = warm_start

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_features_in_ = np.asarray(X).shape[1]
        if self.warm_start and hasattr(self, "n_iter_total_"):
            self.n_iter_total_ += self.max_iter
            self.fit_calls_ += 1
        else:
            self.n_iter_total_ = self.max_iter
            self.fit_calls_ = 1
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])

    def score(self, X, y):
        return self.quality * (1 - math.exp(-self.n_iter_total_ / 4))


class PartialCurveClassifier(CurveClassifier):
    """The same learner without warm_start: one partial_fit call is one iteration."""

    def __init__(self, quality=0.5, max_iter=10):
        self.quality = quality
        self.max_iter = max_iter

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_iter_total_ = self.max_iter
        return self

    def partial_fit(self, X, y, classes=None):
        if not hasattr(self, "n_iter_total_"):
            self.classes_ = classes
            self.n_iter_total_ = 0
        self.n_iter_total_ += 1
        return self


X_IRIS, Y_IRIS = load_iris(return_X_y=True)


def _recording_scorer(log):
    def scorer(est, X, y):
        log.append((est.quality, est.n_iter_total_, getattr(est, "fit_calls_", None)))
        return est.score(X, y)

    return scorer


# --- the schedule ----------------------------------------------------------------

@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 70), factor=st.integers(2, 4), extra=st.integers(0, 3000))
def test_schedule_halves_and_keeps_the_budget(n, factor, extra):
    n_rounds = max(1, math.ceil(math.log(n, factor) - 1e-12)) if n > 1 else 1
    budget = n * n_rounds + extra
    sizes, resources, total = halving_schedule(n, factor, budget=budget)
    assert len(sizes) == n_rounds
    assert all(b == math.ceil(a / factor) for a, b in zip(sizes, sizes[1:]))
    assert math.ceil(sizes[-1] / factor) == 1
    assert all(b > a for a, b in zip(resources, resources[1:]))
    assert total == sum(s * d for s, d in zip(sizes, np.diff([0, *resources])))
    assert total <= budget


@pytest.mark.parametrize("j", [1, 2, 3, 4, 6])
def test_schedule_power_of_two(j):
    n = 2**j
    sizes, resources, total = halving_schedule(n, budget=j * n * 8)
    assert len(sizes) == j == math.log2(n)
    assert sizes == [n // 2**r for r in range(j)]
    increments = np.diff([0, *resources])
    # B' is the same each round and |S_r| halves: the increment per survivor doubles.
    assert all(b == 2 * a for a, b in zip(increments, increments[1:]))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), R=st.integers(10, 5000))
def test_schedule_reaches_max_resource(n, R):
    try:
        sizes, resources, total = halving_schedule(n, max_resource=R)
    except ValueError as exc:
        assert "max_resource" in str(exc)
        return
    assert resources[-1] == R
    with pytest.raises(ValueError, match="budget"):
        halving_schedule(n, budget=total - 1, max_resource=R)
    assert halving_schedule(n, budget=total, max_resource=R)[1] == resources


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 70), R=st.integers(1, 400), r_min=st.integers(1, 80))
def test_schedule_min_resource_drops_rounds_not_resource(n, R, r_min):
    try:
        plain = halving_schedule(n, max_resource=R)
    except ValueError:
        return
    try:
        sizes, resources, total = halving_schedule(n, max_resource=R, min_resource=r_min)
    except ValueError as exc:
        assert "min_resource" in str(exc) and r_min > R
        return
    assert resources[0] >= r_min and resources[-1] == R
    # The first rounds of the plain schedule, fewer of them: its halving,
    # its max_resource, and the last round keeps every candidate it has.
    assert sizes == plain[0][: len(sizes)]
    assert len(sizes) == 1 or halving_schedule(
        n, max_resource=R, min_resource=resources[0] + 1)[0] != sizes
    if r_min <= plain[1][0]:
        assert (sizes, resources, total) == plain


def test_hyperband_brackets_match_li_et_al_table():
    # Li et al. (2018), Table 1: R = 81, eta = 3.
    brackets = hyperband_brackets(81, eta=3)
    assert [b[0] for b in brackets] == [
        [81, 27, 9, 3, 1], [34, 11, 3, 1], [15, 5, 1], [8, 2], [5]]
    assert [b[1] for b in brackets] == [
        [1, 3, 9, 27, 81], [3, 9, 27, 81], [9, 27, 81], [27, 81], [81]]


# --- the search --------------------------------------------------------------------

@pytest.mark.parametrize("n", [4, 5, 8])
def test_training_continues_and_best_curve_wins(n):
    log = []
    qualities = list(np.linspace(0.2, 0.9, n))
    search = SuccessiveHalvingSearchCV(
        CurveClassifier(max_iter=32), {"quality": qualities}, n_candidates=n,
        resource="max_iter", scoring=_recording_scorer(log), cv=2, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    assert search.n_iterations_ == math.ceil(math.log2(n))
    assert search.n_resources_[-1] == 32
    # Each scored model has been trained exactly the cumulative resource of
    # its round, in one warm fit call per round: training continued.
    by_iter = dict(zip(res["iter"], res["n_resources"]))
    for quality, n_iter_total, fit_calls in log:
        assert n_iter_total in search.n_resources_
        assert fit_calls == search.n_resources_.index(n_iter_total) + 1
    assert res["continued"][res["iter"] > 0].all()
    assert not res["continued"][res["iter"] == 0].any()
    assert set(by_iter.values()) == set(search.n_resources_)
    # Curves never cross: the best quality is found.
    assert search.best_params_["quality"] == max(qualities)
    assert search.resource_spent_ == search.schedule_total_
    # The refit trains the winner through the same rounds as its CV models.
    best = search.best_estimator_
    assert (best.n_iter_total_, best.fit_calls_) == (32, search.n_iterations_)
    assert best.max_iter == 32 and best.warm_start is False


def test_min_resource_keeps_several_candidates_to_the_end():
    log = []
    qualities = list(np.linspace(0.2, 0.9, 8))
    search = SuccessiveHalvingSearchCV(
        CurveClassifier(max_iter=32), {"quality": qualities}, n_candidates=8,
        resource="max_iter", min_resource=8, scoring=_recording_scorer(log), cv=2,
        random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    # Unconstrained the first round would be 4 iterations ([8, 4, 2] at
    # [4, 12, 32]); with min_resource=8 one round goes, and the last round
    # brings 4 candidates to the full 32.
    assert search.n_candidates_ == [8, 4]
    assert search.n_resources_[0] >= 8 and search.n_resources_[-1] == 32
    assert min(t for _, t, _ in log) >= 8
    assert search.best_params_["quality"] == max(qualities)
    assert search.best_index_ == int(np.argmin(search.cv_results_["rank_test_score"]))


def test_partial_fit_continues():
    log = []
    search = SuccessiveHalvingSearchCV(
        PartialCurveClassifier(max_iter=20), {"quality": [0.3, 0.5, 0.7, 0.6]},
        n_candidates=4, resource="max_iter", scoring=_recording_scorer(log), cv=2,
        random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    assert sorted({t for _, t, _ in log}) == search.n_resources_
    assert search.best_params_["quality"] == 0.7
    assert search.best_estimator_.n_iter_total_ == 20  # one partial_fit per unit


def test_mlp_epochs_grow_across_rounds():
    X, y = load_digits(return_X_y=True)
    X = X[:400] / 16
    y = y[:400]
    epochs = []

    def scorer(est, X, y):
        epochs.append((est.alpha, len(est.loss_curve_)))
        return est.score(X, y)

    search = SuccessiveHalvingSearchCV(
        MLPClassifier((16,), max_iter=24, n_iter_no_change=1000, random_state=0),
        {"alpha": [1e-4, 1e-3, 1e-2, 1e-1]}, n_candidates=4, resource="max_iter",
        scoring=scorer, cv=2, random_state=0,
    ).fit(X, y)
    first, last = search.n_resources_[0], search.n_resources_[-1]
    best = search.best_params_["alpha"]
    seen = [n for a, n in epochs if a == best]
    # The loss curve of the winner's model holds every epoch of every round:
    # it reached the full 24, though its last fit ran only 24 - first epochs.
    assert seen == [first, first, last, last]
    assert last - search.n_resources_[-2] < last
    # The refit is the model the score chose: warm fits of the same rounds on
    # all the data (a warm MLP fit restarts its optimiser, so one 24-epoch fit
    # from scratch is another model).
    manual = MLPClassifier((16,), max_iter=first, n_iter_no_change=1000, random_state=0,
                           warm_start=True, alpha=best).fit(X, y)
    manual.set_params(max_iter=last - first).fit(X, y)
    refit = search.best_estimator_
    assert len(refit.loss_curve_) == last
    for a, b in zip(refit.coefs_, manual.coefs_):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    assert refit.max_iter == 24 and refit.warm_start is False


def test_rows_resource_reaches_every_row():
    search = SuccessiveHalvingSearchCV(
        Ridge(), {"alpha": [0.01, 0.1, 1.0, 10.0, 100.0]}, n_candidates=5, cv=3,
        random_state=0,
    ).fit(X_IRIS, Y_IRIS.astype(float))
    n_train = len(X_IRIS) - len(X_IRIS) // 3
    assert search.n_resources_[-1] == n_train
    assert search.n_candidates_ == [5, 3, 2]
    assert not search.cv_results_["continued"].any()  # Ridge has no partial_fit
    # Refits from scratch: each round trains all the rows again.
    assert search.resource_spent_ == sum(
        c * n for c, n in zip(search.n_candidates_, search.n_resources_))
    assert search.resource_spent_ > search.schedule_total_


def test_rows_resource_with_partial_fit_feeds_new_rows():
    search = SuccessiveHalvingSearchCV(
        SGDClassifier(random_state=0), {"alpha": [1e-5, 1e-4, 1e-3, 1e-2]},
        n_candidates=4, cv=3, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    assert search.cv_results_["continued"][search.cv_results_["iter"] > 0].all()
    assert search.n_resources_[-1] == 100


def test_budget_is_respected_and_uncapped_schedule():
    search = SuccessiveHalvingSearchCV(
        CurveClassifier(), {"quality": list(np.linspace(0.1, 0.8, 8))}, n_candidates=8,
        budget=96, resource="max_iter", max_resource=None, cv=2,
    )
    search.fit(X_IRIS, Y_IRIS)
    # The notes' schedule as it stands: B' = 96 / 3 = 32, so 4, 8, 16 more.
    assert search.n_resources_ == [4, 12, 28]
    assert search.resource_spent_ == 96
    search.set_params(max_resource=20).fit(X_IRIS, Y_IRIS)
    assert search.resource_spent_ <= 96
    assert search.n_resources_[-1] == 20
    with pytest.raises(ValueError, match="budget"):
        search.set_params(budget=None, max_resource=None).fit(X_IRIS, Y_IRIS)


def test_cv_results_shape_and_ranks():
    search = SuccessiveHalvingSearchCV(
        CurveClassifier(max_iter=16), {"quality": list(np.linspace(0.1, 0.8, 6))},
        n_candidates=6, resource="max_iter", cv=3, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    n_rows = sum(search.n_candidates_)
    for key in ("params", "param_quality", "mean_test_score", "std_test_score",
                "rank_test_score", "split0_test_score", "split2_test_score",
                "mean_fit_time", "std_score_time", "iter", "n_resources"):
        assert len(res[key]) == n_rows, key
    assert search.n_candidates_ == [6, 3, 2]
    assert res["rank_test_score"][search.best_index_] == 1
    last = res["iter"] == res["iter"].max()
    assert search.best_score_ == res["mean_test_score"][last].max()
    assert sorted(res["rank_test_score"]) == list(range(1, n_rows + 1))


def test_delegation_and_refit_false():
    X, y = X_IRIS, Y_IRIS
    search = SuccessiveHalvingSearchCV(
        SGDClassifier(max_iter=8, tol=None, random_state=0), {"alpha": [1e-4, 1e-2]},
        n_candidates=2, resource="max_iter", cv=3, random_state=0).fit(X, y)
    assert search.predict(X).shape == (150,)
    assert search.decision_function(X).shape == (150, 3)
    assert 0 <= search.score(X, y) <= 1
    np.testing.assert_array_equal(search.classes_, [0, 1, 2])
    no_refit = search.set_params(refit=False).fit(X, y)
    assert not hasattr(no_refit, "best_estimator_")
    with pytest.raises(AttributeError, match="refit=False"):
        no_refit.predict(X)
    assert "alpha" in no_refit.best_params_


def test_same_seed_same_search():
    def run():
        return SuccessiveHalvingSearchCV(
            SGDClassifier(random_state=0), {"alpha": loguniform(1e-6, 1e-1)},
            n_candidates=4, cv=3, random_state=7).fit(X_IRIS, Y_IRIS)

    a, b = run(), run()
    assert a.cv_results_["params"] == b.cv_results_["params"]
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"],
                                  b.cv_results_["mean_test_score"])


def test_hyperband_brackets_end_at_max_resource():
    log = []
    search = HyperbandSearchCV(
        CurveClassifier(max_iter=27), {"quality": loguniform(0.1, 1.0)},
        resource="max_iter", scoring=_recording_scorer(log), cv=2, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    assert search.brackets_ == hyperband_brackets(27, 3)
    for b in range(len(search.brackets_)):
        rows = res["bracket"] == b
        assert res["n_resources"][rows & (res["iter"] == res["iter"][rows].max())].min() == 27
    assert {t for _, t, _ in log} <= {1, 3, 9, 27}
    best_quality = max(p["quality"] for p, r in zip(res["params"], res["n_resources"])
                       if r == 27)
    assert search.best_params_["quality"] == best_quality
    # The refit goes through the winner's own bracket: one warm fit per round.
    rounds = res["iter"][res["candidate"] == res["candidate"][search.best_index_]]
    best = search.best_estimator_
    assert (best.n_iter_total_, best.fit_calls_) == (27, len(rounds))


# --- bad input -----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"param_distributions": {}}, "param_distributions"),
    ({"param_distributions": []}, "param_distributions"),
    ({"param_distributions": {"alpha": []}}, "param_distributions"),
    ({"param_distributions": {"nope": [1, 2]}}, "nope"),
    ({"budget": 3}, "budget"),
    ({"resource": "n_estimators"}, "resource"),
    ({"resource": "alpha"}, "resource"),
    ({"factor": 1}, "factor"),
    ({"n_candidates": 0}, "n_candidates"),
    ({"min_resource": 0}, "min_resource"),
    ({"min_resource": 21}, "min_resource"),
])
def test_bad_input(kwargs, match):
    params = {"param_distributions": {"alpha": [1e-4, 1e-3, 1e-2, 1e-1]},
              "n_candidates": 4, "resource": "max_iter", **kwargs}
    search = SuccessiveHalvingSearchCV(SGDClassifier(max_iter=20), cv=2, **params)
    with pytest.raises(ValueError, match=match):
        search.fit(X_IRIS, Y_IRIS)


@pytest.mark.parametrize("kwargs, match", [
    ({"eta": 1}, "eta"),
    ({"param_distributions": {}}, "param_distributions"),
    ({"resource": "n_estimators"}, "resource"),
    ({"min_resource": 50}, "min_resource"),
])
def test_hyperband_bad_input(kwargs, match):
    params = {"param_distributions": {"alpha": [1e-4, 1e-3]}, "resource": "max_iter",
              **kwargs}
    search = HyperbandSearchCV(SGDClassifier(max_iter=20), cv=2, **params)
    with pytest.raises(ValueError, match=match):
        search.fit(X_IRIS, Y_IRIS)


@pytest.mark.parametrize("Search, params", [
    (SuccessiveHalvingSearchCV, {"n_candidates": 2}),
    (HyperbandSearchCV, {"resource": "max_iter"}),
])
def test_mixed_label_types_are_named(Search, params):
    # Issue 23: labels mixing numbers and strings reached the stratified
    # split, which sorts them: numpy's "'<' not supported".
    y = np.array([1, "b", "c"], dtype=object)[Y_IRIS]
    search = Search(SGDClassifier(max_iter=20), {"alpha": [1e-4, 1e-3]}, cv=2,
                    random_state=0, **params)
    with pytest.raises(ValueError, match="mixes string and non-string labels"):
        search.fit(X_IRIS, y)
    # Strings alone are labels like any other.
    names = np.array(["a", "b", "c"])[Y_IRIS]
    assert set(search.fit(X_IRIS, names).predict(X_IRIS)) <= set(names)


# --- parity ---------------------------------------------------------------------------

@parity_test(SuccessiveHalvingSearchCV, HyperbandSearchCV)
def test_held_out_score_against_sklearn_searches():
    # skml's MLP on digits, tuned by each search with the same space; the best
    # model's held-out accuracy (540 digits) is compared. Measured with seeds
    # 0-3 (split, MLP and searches): ours minus the better reference was
    # +0.002, -0.002, -0.002, +0.007; the margin 0.02 is ten times that.
    X, y = load_digits(return_X_y=True)
    X = X / 16
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0,
                                              stratify=y)
    base = MLPClassifier((32,), max_iter=40, random_state=0)
    space = {"alpha": loguniform(1e-5, 1e-1), "learning_rate_init": loguniform(1e-4, 1e-1)}
    common = {"cv": 3, "random_state": 0}
    ours = SuccessiveHalvingSearchCV(base, space, n_candidates=8, resource="max_iter",
                                     **common).fit(X_tr, y_tr)
    band = HyperbandSearchCV(base, space, max_resource=40, resource="max_iter",
                             **common).fit(X_tr, y_tr)
    halving = HalvingRandomSearchCV(base, space, n_candidates=8, factor=2,
                                    resource="max_iter", max_resources=40,
                                    min_resources=5, **common).fit(X_tr, y_tr)
    rand = RandomizedSearchCV(base, space, n_iter=8, **common).fit(X_tr, y_tr)
    scores = {name: s.score(X_te, y_te) for name, s in
              [("sh", ours), ("hb", band), ("halving", halving), ("random", rand)]}
    best_ref = max(scores["halving"], scores["random"])
    assert scores["sh"] >= best_ref - 0.02, scores
    assert scores["hb"] >= best_ref - 0.02, scores
    # Continued training spends less than the reference's refits from scratch.
    assert ours.resource_spent_ < sum(
        halving.n_candidates_[i] * halving.n_resources_[i]
        for i in range(halving.n_iterations_))


def test_hyperband_small_grid_halves_from_what_there_is():
    # A 4-point grid cannot fill the first bracket's 27 candidates: its
    # rounds halve (by eta = 3) from the 4 there are, and still end at R.
    search = HyperbandSearchCV(
        CurveClassifier(max_iter=27), {"quality": [0.2, 0.4, 0.6, 0.8]},
        resource="max_iter", cv=2, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    res = search.cv_results_
    first = res["bracket"] == 0
    assert [int(np.sum(first & (res["iter"] == r))) for r in range(4)] == [4, 1, 1, 1]
    assert search.best_params_["quality"] == 0.8


@settings(max_examples=60, deadline=None)
@given(R=st.integers(1, 2000), eta=st.integers(2, 5), r_min=st.integers(1, 10))
def test_hyperband_bracket_properties(R, eta, r_min):
    if r_min > R:
        return
    brackets = hyperband_brackets(R, eta, r_min)
    s_max = len(brackets) - 1
    assert r_min * eta**s_max <= R < r_min * eta ** (s_max + 1)
    for s, (sizes, resources) in zip(range(s_max, -1, -1), brackets):
        assert len(sizes) == len(resources) == s + 1
        assert resources[-1] == R and resources[0] >= r_min
        assert all(b > a for a, b in zip(resources, resources[1:]))
        assert sizes[0] == math.ceil((s_max + 1) * eta**s / (s + 1))
        assert all(b == max(1, a // eta) for a, b in zip(sizes, sizes[1:]))


def test_processes_give_the_same_search():
    def run(n_jobs):
        return SuccessiveHalvingSearchCV(
            SGDClassifier(max_iter=8, tol=None, random_state=0),
            {"alpha": [1e-5, 1e-4, 1e-3, 1e-2]}, n_candidates=4, resource="max_iter",
            cv=3, n_jobs=n_jobs, random_state=0).fit(X_IRIS, Y_IRIS)

    one, two = run(None), run(2)
    assert one.best_params_ == two.best_params_
    np.testing.assert_array_equal(one.cv_results_["mean_test_score"],
                                  two.cv_results_["mean_test_score"])
    assert two.cv_results_["continued"][two.cv_results_["iter"] == 1].all()


def test_verbose_prints_each_round(capsys):
    SuccessiveHalvingSearchCV(
        CurveClassifier(max_iter=8), {"quality": [0.1, 0.2, 0.3, 0.4]}, n_candidates=4,
        resource="max_iter", cv=2, verbose=1).fit(X_IRIS, Y_IRIS)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and "round 0: 4 candidates" in lines[0]


def test_pipeline_step_continues_through_its_warm_start():
    from sklearn.pipeline import Pipeline

    from skml.preprocessing import StandardScaler

    log = []

    def scorer(pipe, X, y):
        est = pipe[-1]
        log.append((est.n_iter_total_, est.fit_calls_))
        return est.score(X, y)

    search = SuccessiveHalvingSearchCV(
        Pipeline([("scale", StandardScaler()), ("clf", CurveClassifier(max_iter=16))]),
        {"clf__quality": [0.2, 0.4, 0.6, 0.8]}, n_candidates=4,
        resource="clf__max_iter", scoring=scorer, cv=2, random_state=0,
    ).fit(X_IRIS, Y_IRIS)
    assert search.cv_results_["continued"][search.cv_results_["iter"] > 0].all()
    assert sorted(set(log)) == [(n, k + 1) for k, n in enumerate(search.n_resources_)]
    assert search.best_estimator_[-1].max_iter == 16


def test_candidate_parameters_set_as_set_params_sets_them():
    from sklearn.pipeline import Pipeline

    from skml.model_selection._search import _with_params
    from skml.preprocessing import StandardScaler

    est = _with_params(CurveClassifier(), {"quality": 0.3, "max_iter": 5})
    assert est.get_params() == CurveClassifier(quality=0.3, max_iter=5).get_params()
    # A pipeline's own set_params replaces a step named by its name.
    step = CurveClassifier(quality=0.9)
    pipe = _with_params(Pipeline([("scale", StandardScaler()), ("clf", CurveClassifier())]),
                        {"clf": step, "scale__with_mean": False})
    assert pipe.steps[1][1] is step and pipe[0].with_mean is False
