"""Successive halving and Hyperband searches that continue training (notes A §11.3).

Each survivor of a round keeps its fitted model and trains *further* in the
next round (``warm_start`` or ``partial_fit``), so the resource a search
spends is the sum of the increments, never more than ``budget``.
"""

import math
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    clone,
    is_classifier,
)
from sklearn.exceptions import ConvergenceWarning, FitFailedWarning
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterSampler, check_cv
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import _num_samples, check_is_fitted, indexable

from ..utils import Interval, Options, encode_labels, validate_params

__all__ = ["HyperbandSearchCV", "SuccessiveHalvingSearchCV"]

# Parameters whose value is the *total* size of the model after a warm fit
# (an ensemble grows to n_estimators members). Any other iteration resource
# (max_iter, n_iter, epochs) counts the work of one fit call: a warm fit with
# max_iter=k runs k more epochs, as scikit-learn's MLP and SGD do.
_CUMULATIVE_PARAMS = frozenset({"n_estimators"})


def halving_schedule(n_candidates, factor=2, budget=None, max_resource=None,
                     min_resource=1):
    """The rounds of successive halving with continued training.

    The notes' schedule (A §11.3): ``L = ceil(log_factor n)`` rounds; round
    ``r`` trains each of its ``|S_r|`` candidates ``floor(B' / |S_r|)`` more
    units, ``B'`` the per-round budget, and keeps the best
    ``ceil(|S_r| / factor)``. With ``max_resource`` the per-round budget is the
    smallest that brings the last round's survivors to exactly
    ``max_resource`` units; without it, ``B' = floor(budget / L)``. When the
    first round would train its candidates fewer than ``min_resource`` units,
    the last rounds are dropped (as scikit-learn's halving does with
    ``min_resources``) until it does not: the last round then keeps several
    candidates, all trained to the end, and the best of them wins.

    Parameters
    ----------
    n_candidates : int
        Candidates in the first round.
    factor : int, default=2
        Each round keeps ``ceil(|S_r| / factor)`` candidates.
    budget : int, default=None
        Cap on the total units trained (summed over candidates). ``None``
        (only with ``max_resource``) means whatever reaching it costs.
    max_resource : int, default=None
        Units a last-round survivor has been trained when the search ends.
    min_resource : int, default=1
        The least units of the first round: a round too short to rank the
        candidates (an MLP after one epoch, a boosting after one tree) only
        adds selection noise.

    Returns
    -------
    sizes : list of int
        Candidates evaluated in each round.
    resources : list of int
        Cumulative units of each round's candidates (strictly increasing).
    total : int
        Units trained in all: ``sum(sizes[r] * (resources[r] - resources[r-1]))``.

    Examples
    --------
    >>> from skml.model_selection import halving_schedule
    >>> halving_schedule(8, budget=96)
    ([8, 4, 2], [4, 12, 28], 96)
    >>> halving_schedule(8, max_resource=100)
    ([8, 4, 2], [14, 43, 100], 342)
    >>> halving_schedule(8, max_resource=100, min_resource=20)
    ([8, 4], [33, 100], 532)
    """
    n, f, r_min = int(n_candidates), int(factor), int(min_resource)
    if r_min < 1:
        raise ValueError(f"min_resource must be >= 1; got {min_resource!r}.")
    if max_resource is not None and r_min > int(max_resource):
        raise ValueError(
            f"min_resource={r_min} exceeds max_resource={int(max_resource)}.")
    sizes = [n]
    while sizes[-1] > 1:
        sizes.append(math.ceil(sizes[-1] / f))
    sizes = sizes[:-1] or [1]
    while True:
        out = _schedule(sizes, n, budget, max_resource)
        if out[1][0] >= r_min or len(sizes) == 1:
            break
        sizes = sizes[:-1]  # one round fewer: a longer first round
    if out[1][0] < r_min:
        raise ValueError(
            f"min_resource={r_min} cannot be met: budget={budget} trains each of "
            f"the {n} candidates {out[1][0]} units in one round."
        )
    return out


def _schedule(sizes, n, budget, max_resource):
    """``halving_schedule`` for the given candidates per round."""
    n_rounds = len(sizes)

    def cumulative(per_round):
        return np.cumsum([per_round // s for s in sizes]).tolist()

    if max_resource is None:
        if budget is None:
            raise ValueError("budget is required when max_resource is None.")
        per_round = budget // n_rounds
        if per_round // n < 1:
            raise ValueError(
                f"budget={budget} is too small for one round: {n} candidates over "
                f"{n_rounds} rounds need budget >= {n * n_rounds}."
            )
        resources = cumulative(per_round)
    else:
        R = int(max_resource)
        lo, hi = n, max(n, R * n)
        if cumulative(lo)[-1] > R and n_rounds > 1 and cumulative(lo)[-2] >= R:
            raise ValueError(
                f"max_resource={R} is too small for {n} candidates: one unit per "
                f"candidate and round already needs {cumulative(lo)[-2] + 1}. "
                "Lower n_candidates or raise max_resource."
            )
        while lo < hi:  # the smallest per-round budget that reaches R
            mid = (lo + hi) // 2
            if cumulative(mid)[-1] >= R:
                hi = mid
            else:
                lo = mid + 1
        resources = cumulative(lo)
        resources[-1] = R
        if n_rounds == 1 and R < 1:
            raise ValueError(f"max_resource must be >= 1; got {R}.")
    increments = np.diff([0, *resources])
    total = int(np.dot(sizes, increments))
    if budget is not None and total > budget:
        raise ValueError(
            f"budget={budget} is too small: {n} candidates brought to "
            f"max_resource={resources[-1]} in {n_rounds} rounds need budget >= {total}."
        )
    return sizes, [int(r) for r in resources], total


def hyperband_brackets(max_resource, eta=3, min_resource=1):
    """The brackets of Hyperband (Li et al., 2018).

    ``s_max = floor(log_eta(R / r_min))``; bracket ``s`` starts
    ``n = ceil((s_max + 1) eta^s / (s + 1))`` candidates at
    ``R eta^-s`` units and runs ``s + 1`` rounds of successive halving with
    factor ``eta``, the last at ``R``.

    Returns
    -------
    brackets : list of (sizes, resources)
        For ``s = s_max, ..., 0``: candidates per round and their cumulative
        resource.

    Examples
    --------
    >>> from skml.model_selection import hyperband_brackets
    >>> hyperband_brackets(27, eta=3)[0]
    ([27, 9, 3, 1], [1, 3, 9, 27])
    """
    R, eta, r_min = int(max_resource), int(eta), int(min_resource)
    s_max = 0
    while r_min * eta ** (s_max + 1) <= R:
        s_max += 1
    brackets = []
    for s in range(s_max, -1, -1):
        n = math.ceil((s_max + 1) * eta**s / (s + 1))
        sizes, resources = [], []
        for i in range(s + 1):
            sizes.append(n if i == 0 else max(1, sizes[-1] // eta))
            r = R if i == s else max(r_min, round(R * float(eta) ** (i - s)))
            resources.append(max(r, resources[-1] + 1) if resources else r)
        brackets.append((sizes, resources))
    return brackets


def _take(data, rows):
    if data is None:
        return None
    if hasattr(data, "iloc"):
        return data.iloc[rows]
    return data[rows]


def _take_params(fit_params, rows, n_samples):
    return {
        k: _take(v, rows) if hasattr(v, "__len__") and len(v) == n_samples
        and not isinstance(v, str) else v
        for k, v in fit_params.items()
    }


class _Split:
    """One CV split's data, cut once for every task of the search.

    ``X_tr``/``y_tr``/``fit_tr`` are the training rows in the split's row
    order (so ``resource="n_samples"`` takes a prefix, a view), ``X_te``/
    ``y_te`` the test rows.
    """

    def __init__(self, X, y, train, test, order, fit_params):
        n_total = X.shape[0]
        self.X_tr, self.y_tr = _take(X, order), _take(y, order)
        self.fit_tr = _take_params(fit_params, order, n_total)
        self.n_train = len(order)
        self.X_te, self.y_te = _take(X, test), _take(y, test)

    @classmethod
    def whole(cls, X, y, fit_params):
        """Every row, uncut (no copy): the data of the refit."""
        data = cls.__new__(cls)
        data.X_tr, data.y_tr, data.fit_tr = X, y, fit_params
        data.n_train = _num_samples(X)
        data.X_te = data.y_te = None
        return data


class _Resource:
    """The resource a search hands out, and the parameters that continue it.

    Worked out once per search, not once per fit: ``get_params`` of a
    large estimator is a noticeable share of a small fit's cost. In a
    pipeline, ``"clf__max_iter"`` is continued by ``"clf__warm_start"``.
    """

    def __init__(self, name, estimator):
        self.name = name
        owner, _, leaf = name.rpartition("__")
        self.nested = bool(owner)
        self.warm_key = f"{owner}__warm_start" if owner else "warm_start"
        self.cumulative = leaf in _CUMULATIVE_PARAMS
        self.rows = name == "n_samples"
        self._warm = not self.rows and self.warm_key in estimator.get_params()

    def has_warm(self, estimator):
        if self.rows:
            return False
        if self.nested:
            # A candidate may swap a pipeline's step: ask the model itself.
            return self.warm_key in estimator.get_params()
        return self._warm

    def set(self, estimator, values):
        """``estimator.set_params(**values)``; a plain attribute is set directly
        (the names were checked when the search started)."""
        if self.nested:
            return estimator.set_params(**values)
        for key, value in values.items():
            setattr(estimator, key, value)
        return estimator


class _Accuracy:
    """``ClassifierMixin.score`` of a 1-d target, without the checks of
    ``accuracy_score`` on every call (the labels are the search's own)."""

    def __call__(self, estimator, X, y):
        y = np.asarray(y)
        if y.ndim != 1 or type(estimator).score is not ClassifierMixin.score:
            return estimator.score(X, y)
        return float(np.mean(estimator.predict(X) == y))


def _with_params(estimator, values):
    """``estimator.set_params(**values)``: what scikit-learn's does for names
    without ``"__"`` (checked against ``get_params`` when the search started)
    is ``setattr``, here without its ``get_params(deep=True)`` (~30 us, a
    tenth of a one-tree boosting fit on 284 rows). An estimator with its own
    ``set_params`` (a pipeline replaces a step by its name) is asked."""
    if (type(estimator).set_params is not BaseEstimator.set_params
            or any("__" in name for name in values)):
        return estimator.set_params(**values)
    for name, value in values.items():
        setattr(estimator, name, value)
    return estimator


def _score_dict(scorer, estimator, X, y):
    """The scorer's value(s) as ``{name: float}`` (``"score"`` for one metric)."""
    value = scorer(estimator, X, y)
    if isinstance(value, dict):
        return {name: float(v) for name, v in value.items()}
    return {"score": float(value)}


def _train_more(estimator, params, split, start, stop, resource, scorer, classes,
                error_score):
    """Train one candidate on one split from ``start`` to ``stop`` units; score it.

    ``estimator`` is the model of the previous round (``None`` in the first,
    or after a failed fit, when training starts from ``start = 0``): its
    training continues where it can. Returns the model (a worker may have a
    copy of it, so nothing is written in place; ``None`` when the fit or the
    scoring failed), the scores (``None`` on failure), the fit and score
    times, whether training continued, and the exception of a failure
    (re-raised at once when ``error_score="raise"``).
    """
    fresh = estimator is None
    t0 = time.perf_counter()
    fit_time = 0.0
    try:
        if fresh:
            estimator = _with_params(clone(params["__base__"]), params["values"])
        estimator, continued = _fit_increment(estimator, fresh, split, start, stop,
                                              resource, classes)
        fit_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        scores = _score_dict(scorer, estimator, split.X_te, split.y_te)
    except Exception as exc:  # noqa: BLE001 - error_score decides what a failure is
        if isinstance(error_score, str) and error_score == "raise":
            raise
        if not fit_time:
            fit_time = time.perf_counter() - t0
        return None, None, fit_time, 0.0, False, exc
    score_time = time.perf_counter() - t0
    return estimator, scores, fit_time, score_time, continued, None


def _fit_increment(estimator, fresh, split, start, stop, resource, classes):
    with warnings.catch_warnings():
        # Short rounds stop iterative solvers on purpose.
        warnings.simplefilter("ignore", ConvergenceWarning)
        part = {"classes": classes} if classes is not None else {}
        n = split.n_train
        if resource.rows:
            # A model that learns incrementally is fed the new rows of the
            # round; any other is refitted on all the rows so far.
            if hasattr(estimator, "partial_fit"):
                new = slice(start, stop)
                estimator.partial_fit(
                    _take(split.X_tr, new), _take(split.y_tr, new), **part,
                    **_take_params(split.fit_tr, new, n))
                return estimator, not fresh
            seen = slice(0, stop)
            estimator = clone(estimator) if not fresh else estimator
            estimator.fit(_take(split.X_tr, seen), _take(split.y_tr, seen),
                          **_take_params(split.fit_tr, seen, n))
            return estimator, False
        X_tr, y_tr, fp = split.X_tr, split.y_tr, split.fit_tr
        if resource.has_warm(estimator):
            step = stop if resource.cumulative else stop - start
            resource.set(estimator, {resource.warm_key: True, resource.name: step})
            estimator.fit(X_tr, y_tr, **fp)
            return estimator, not fresh
        if hasattr(estimator, "partial_fit"):
            for _ in range(stop - start):
                estimator.partial_fit(X_tr, y_tr, **part, **fp)
            return estimator, not fresh
        estimator = clone(estimator).set_params(**{resource.name: stop})
        estimator.fit(X_tr, y_tr, **fp)
        return estimator, False


def _estimator_has(attr):
    def check(self):
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, attr)
        return hasattr(self.estimator, attr)

    return check


def _delegate(method, doc):
    """``method(X)`` of ``best_estimator_``, available when the estimator has it."""

    def delegated(self, X):
        self._check_refit(method)
        return getattr(self.best_estimator_, method)(X)

    delegated.__name__ = method
    delegated.__qualname__ = f"_HalvingSearch.{method}"
    delegated.__doc__ = doc
    return available_if(_estimator_has(method))(delegated)


class _HalvingSearch(MetaEstimatorMixin, BaseEstimator):
    """What successive halving and Hyperband share: rounds, bookkeeping, refit."""

    _common_constraints = {
        "scoring": [str, callable, list, tuple, set, dict, None],
        "refit": ["boolean", str, callable],
        "error_score": [Options({"raise"}), Real],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "max_resource": [Interval(Integral, 1, None, closed="left"), Options({"auto"})],
    }

    # --- helpers -----------------------------------------------------------------
    def fit(self, X, y=None, *, groups=None, **fit_params):
        """Run the rounds (those of every bracket) and refit the best setting.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), default=None
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group-aware ``cv``.
        **fit_params : dict
            Passed to the estimator's ``fit``/``partial_fit`` (per-sample
            arrays are cut to the rows of each split).

        Returns
        -------
        self : object
        """
        validate_params(self)
        self._check_search_space()
        self._check_resource()
        self._check_labels(y)
        rng = check_random_state(self.random_state)
        brackets = self._brackets(X, y, groups, rng)
        return self._run(X, y, groups, fit_params, brackets, rng)

    def _n_train(self, X, y, groups):
        """Rows of the smallest training split."""
        X_, y_, g_ = indexable(X, y, groups)
        cv = check_cv(self.cv, y_, classifier=is_classifier(self.estimator))
        return min(len(train) for train, _ in cv.split(X_, y_, g_))

    def _check_labels(self, y):
        """Refuse a classifier's labels that mix types before the folds sort them.

        The stratified split sorts y first: mixed labels (1 and "b") failed
        there with numpy's "'<' not supported" (issue 23); the project's
        label encoding names the problem. Only 1-d targets: the estimator
        judges a multi-output y.
        """
        if y is None or not is_classifier(self.estimator):
            return
        y = np.asarray(y)
        if y.ndim == 1:
            encode_labels(y, min_classes=1)

    def _check_search_space(self):
        space = self.param_distributions
        spaces = space if isinstance(space, list) else [space]
        if not spaces or not all(isinstance(s, dict) for s in spaces):
            raise ValueError(
                "param_distributions must be a dict or a non-empty list of dicts; "
                f"got {space!r}."
            )
        if all(len(s) == 0 for s in spaces):
            raise ValueError("param_distributions is empty: there is nothing to search.")
        valid = self.estimator.get_params()
        for s in spaces:
            for name, values in s.items():
                if name not in valid:
                    raise ValueError(
                        f"param_distributions names {name!r}, which is not a parameter "
                        f"of {type(self.estimator).__name__}."
                    )
                if not hasattr(values, "rvs") and (
                    isinstance(values, str) or not hasattr(values, "__len__")
                    or len(values) == 0
                ):
                    raise ValueError(
                        f"param_distributions[{name!r}] must be a non-empty list or a "
                        f"distribution with rvs; got {values!r}."
                    )
        return space

    def _check_resource(self):
        resource = self.resource
        if not isinstance(resource, str):
            raise ValueError(f"resource must be a str; got {resource!r}.")
        if resource == "n_samples":
            return
        params = self.estimator.get_params()
        if resource not in params:
            raise ValueError(
                f"resource={resource!r} is not a parameter of "
                f"{type(self.estimator).__name__}; use 'n_samples' or one of its "
                "iteration parameters (max_iter, n_estimators, ...)."
            )
        for s in (self.param_distributions if isinstance(self.param_distributions, list)
                  else [self.param_distributions]):
            if resource in s:
                raise ValueError(
                    f"resource={resource!r} is also in param_distributions; the search "
                    "sets it itself."
                )

    def _max_resource(self, n_train):
        if self.max_resource is None:
            # Uncapped: the notes' schedule, B' = floor(budget / L) (rows can
            # never exceed the training split, so they stay capped).
            return n_train if self.resource == "n_samples" else None
        if self.max_resource != "auto":
            if self.resource == "n_samples" and self.max_resource > n_train:
                raise ValueError(
                    f"max_resource={self.max_resource} exceeds the {n_train} rows of the "
                    "smallest training split."
                )
            return int(self.max_resource)
        if self.resource == "n_samples":
            return n_train
        value = self.estimator.get_params()[self.resource]
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
            raise ValueError(
                f"max_resource='auto' reads {self.resource}={value!r} from the estimator, "
                "which is not a positive int; give max_resource."
            )
        return int(value)

    def _sample(self, n, rng):
        sampler = ParameterSampler(
            self.param_distributions, n, random_state=rng.randint(np.iinfo(np.int32).max))
        with warnings.catch_warnings():
            # A grid smaller than n: fewer candidates, said in n_candidates_.
            warnings.simplefilter("ignore", UserWarning)
            return list(sampler)

    def _run(self, X, y, groups, fit_params, brackets, rng):
        """Run each bracket (candidate params, sizes, cumulative resources)."""
        for stale in ("best_estimator_", "refit_time_"):
            # A refit=False fit after a refit=True one must not keep the old model.
            if hasattr(self, stale):
                delattr(self, stale)
        X, y, groups = indexable(X, y, groups)
        if isinstance(X, list):
            X = np.asarray(X)
        if isinstance(y, list):
            y = np.asarray(y)
        cv = check_cv(self.cv, y, classifier=is_classifier(self.estimator))
        splits = list(cv.split(X, y, groups))
        n_splits = len(splits)
        task_scorer, scorers, names = self._scorers()
        plan = _Resource(self.resource, self.estimator)
        fast_scorer = (_Accuracy() if self.scoring is None and is_classifier(self.estimator)
                       else task_scorer)
        classes = np.unique(y) if is_classifier(self.estimator) and y is not None else None
        seed = rng.randint(np.iinfo(np.int32).max)
        # One row order per split, so rows of each round extend the last one's;
        # the data of each split are cut once, not once per task.
        rows_resource = self.resource == "n_samples"
        split_data = [
            _Split(X, y, train, test,
                   np.random.default_rng([seed, k]).permutation(train) if rows_resource
                   else train, fit_params)
            for k, (train, test) in enumerate(splits)]
        parallel = Parallel(n_jobs=self.n_jobs)
        records, cand_offset, spent, failures = [], 0, 0, []
        for b, (cands, sizes, resources) in enumerate(brackets):
            models = {i: [None] * n_splits for i in range(len(cands))}
            alive = list(range(len(cands)))[: sizes[0]]
            prev = 0
            for r, stop in enumerate(resources):
                # A model lost to a failed fit starts again from nothing.
                tasks = [
                    delayed(_train_more)(
                        models[i][k], {"__base__": self.estimator, "values": cands[i]},
                        split_data[k], prev if models[i][k] is not None else 0, stop,
                        plan, fast_scorer, classes, self.error_score)
                    for i in alive for k in range(n_splits)
                ]
                out = parallel(tasks)
                errors = [o[5] for o in out if o[5] is not None]
                if len(errors) == len(out):
                    # Nothing to compare: the first error says why.
                    raise errors[0]
                if names is None:
                    names = sorted(next(o[1] for o in out if o[1] is not None))
                    self._check_refit_metric(names)
                failures += [f"{type(e).__name__}: {e}" for e in errors]
                means = np.empty(len(alive))
                for j, i in enumerate(alive):
                    chosen = []
                    for k in range(n_splits):
                        model, scores, fit_t, score_t, continued, error = out[
                            j * n_splits + k]
                        if scores is None:
                            scores = dict.fromkeys(names, float(self.error_score))
                        models[i][k] = model
                        chosen.append(scores[self._refit_metric])
                        records.append((b, r, cand_offset + i, cands[i], stop, k,
                                        scores, fit_t, score_t, continued))
                        if k == 0:
                            # A continued model trained the increment; a fresh
                            # or refitted one trained everything so far again.
                            spent += (stop - prev) if r == 0 or continued else stop
                    chosen = np.asarray(chosen, dtype=float)
                    means[j] = -np.inf if np.isnan(chosen).any() else chosen.mean()
                if self.verbose:
                    print(f"[{type(self).__name__}] bracket {b} round {r}: "
                          f"{len(alive)} candidates at {stop} {self.resource}, "
                          f"best mean score {means.max():.4f}")
                n_keep = sizes[r + 1] if r + 1 < len(sizes) else 1
                order = np.argsort(-means, kind="stable")
                keep = sorted(alive[j] for j in order[:n_keep])
                for i in set(alive) - set(keep):
                    models[i] = None  # free the models of the eliminated
                alive, prev = keep, stop
            cand_offset += len(cands)
        if failures:
            warnings.warn(
                f"{len(failures)} of the search's fits failed and were scored "
                f"error_score={self.error_score!r}. The first error: {failures[0]}",
                FitFailedWarning)
        self._build_results(records, n_splits, names, bracket_column=len(brackets) > 1
                            or isinstance(self, HyperbandSearchCV))
        self.n_splits_ = n_splits
        self.resource_spent_ = int(spent)
        self.scorer_ = scorers if scorers is not None else task_scorer
        if callable(self.refit):
            self._choose_with_callable()
        if self.refit:
            t0 = time.perf_counter()
            self.best_estimator_ = self._refit_best(X, y, fit_params, classes, plan)
            self.refit_time_ = time.perf_counter() - t0
        return self

    def _refit_schedule(self):
        """The cumulative resources the best row's candidate was trained through.

        Its rows up to ``best_index_``'s round, in order; a row whose training
        did not continue the previous one (a refit, or a restart after a failed
        fit) starts the schedule again.
        """
        res = self.cv_results_
        best = self.best_index_
        rows = np.flatnonzero((res["candidate"] == res["candidate"][best])
                              & (res["iter"] <= res["iter"][best]))
        rows = rows[np.argsort(res["iter"][rows], kind="stable")]
        schedule = []
        for j in rows:
            if not res["continued"][j]:
                schedule = []
            schedule.append(int(res["n_resources"][j]))
        return schedule

    def _refit_best(self, X, y, fit_params, classes, plan):
        """Refit the best setting on all the data, trained the way it was scored.

        With an iteration resource the model is trained through the same
        cumulative resources as its cross-validated models (the same
        ``warm_start``/``partial_fit`` increments), not in one fit to the
        last one: a continued fit is not the same model as a fit from
        scratch (an MLP's warm fit restarts its optimiser and its shuffling,
        for one), and the score that chose it is the continued model's.
        """
        best = self.cv_results_["params"][self.best_index_]
        est = clone(self.estimator).set_params(**best)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.resource == "n_samples":
                return est.fit(X, y, **fit_params)
            data, prev = _Split.whole(X, y, fit_params), 0
            schedule = self._refit_schedule()
            for stop in schedule:
                est, _ = _fit_increment(est, prev == 0, data, prev, stop, plan, classes)
                prev = stop
        # What the model totals, and the user's warm_start, not the last increment.
        restore = {self.resource: schedule[-1]}
        if plan.has_warm(est):
            restore[plan.warm_key] = self.estimator.get_params()[plan.warm_key]
        return est.set_params(**restore)

    def _scorers(self):
        """The scorer the tasks call, the named scorers and the metric names.

        One metric (a name, a callable or ``None``) is ``"score"``; a list,
        tuple, set or dict of them is scored at once (predictions shared).
        A callable that returns a dict is multi-metric too: its names are
        known after the first round (``names`` is then ``None``).
        """
        scoring = self.scoring
        self._refit_metric = "score"
        self.multimetric_ = False
        if isinstance(scoring, (list, tuple, set, dict)):
            if len(scoring) == 0:
                raise ValueError(
                    "scoring is an empty collection: give at least one metric.")
            if isinstance(scoring, dict):
                named = dict(scoring)
            else:
                if not all(isinstance(m, str) for m in scoring):
                    raise ValueError(
                        "scoring given as a list, tuple or set must hold metric names "
                        f"(str); got {scoring!r}. Use a dict for callables.")
                if len(set(scoring)) != len(scoring):
                    raise ValueError(f"scoring names a metric twice: {scoring!r}.")
                named = {m: m for m in scoring}
            scorers = {name: check_scoring(self.estimator, scoring=m)
                       for name, m in named.items()}
            names = sorted(scorers)
            self._check_refit_metric(names)
            return check_scoring(self.estimator, scoring=scorers), scorers, names
        return check_scoring(self.estimator, scoring=scoring), None, None

    def _choose_with_callable(self):
        """``best_index_`` from ``refit(cv_results_)``, as ``GridSearchCV`` does.

        The rounds' survivors were chosen by the score; the callable picks
        the candidate to refit among every row of ``cv_results_`` (it may
        prefer, say, the simplest model within one standard error).
        """
        index = self.refit(self.cv_results_)
        n_rows = len(self.cv_results_["params"])
        if not isinstance(index, (Integral, np.integer)) or isinstance(index, bool):
            raise TypeError(
                f"refit is a callable, so it must return an integer index into "
                f"cv_results_; it returned {index!r} of type {type(index).__name__}.")
        if not 0 <= index < n_rows:
            raise IndexError(
                f"refit returned best_index_={index}, outside cv_results_'s "
                f"{n_rows} rows.")
        self.best_index_ = int(index)
        self.best_params_ = self.cv_results_["params"][self.best_index_]
        self.best_score_ = float(
            self.cv_results_[f"mean_test_{self._refit_metric}"][self.best_index_])

    def _check_refit_metric(self, names):
        if names == ["score"] and not isinstance(self.scoring, (list, tuple, set, dict)):
            return  # one metric, from a name, a callable or None
        self.multimetric_ = True
        if callable(self.refit):
            raise ValueError(
                f"With several metrics {names}, refit must name the one that chooses "
                "the survivors of each round; a callable refit works with one metric "
                "only (the halving needs a metric for its rounds).")
        if not (isinstance(self.refit, str) and self.refit in names):
            raise ValueError(
                f"With several metrics {names}, refit must name the one that chooses "
                f"the survivors of each round and the best candidate; got "
                f"refit={self.refit!r}.")
        self._refit_metric = self.refit

    def _build_results(self, records, n_splits, names, bracket_column):
        rows = {}
        for b, r, c, params, stop, k, scores, fit_t, score_t, continued in records:
            row = rows.setdefault((b, r, c), {
                "bracket": b, "iter": r, "candidate": c, "params": params,
                "n_resources": stop, "scores": [None] * n_splits, "fit": [], "st": [],
                "continued": continued})
            row["scores"][k] = scores
            row["fit"].append(fit_t)
            row["st"].append(score_t)
        rows = list(rows.values())
        n_rows = len(rows)
        results = {}
        param_names = sorted({name for row in rows for name in row["params"]})
        for name in param_names:
            col = np.ma.MaskedArray(np.empty(n_rows, dtype=object), mask=True)
            for j, row in enumerate(rows):
                if name in row["params"]:
                    col[j] = row["params"][name]
            results[f"param_{name}"] = col
        results["params"] = [row["params"] for row in rows]
        resources = np.array([row["n_resources"] for row in rows])
        means = {}
        for metric in names:
            scores = np.array([[split[metric] for split in row["scores"]] for row in rows],
                              dtype=float)
            for k in range(n_splits):
                results[f"split{k}_test_{metric}"] = scores[:, k]
            mean = scores.mean(axis=1)
            results[f"mean_test_{metric}"] = mean
            results[f"std_test_{metric}"] = scores.std(axis=1)
            # Rank as scikit-learn's halving searches do: a row trained further
            # ranks above any row trained less, then by score (NaN last).
            safe = np.where(np.isnan(mean), -np.inf, mean)
            order = np.lexsort((-safe, -resources))
            rank = np.empty(n_rows, dtype=np.int32)
            rank[order] = np.arange(1, n_rows + 1)
            results[f"rank_test_{metric}"] = rank
            means[metric] = (mean, order)
        for key, name in (("fit", "fit_time"), ("st", "score_time")):
            times = np.array([row[key] for row in rows])
            results[f"mean_{name}"] = times.mean(axis=1)
            results[f"std_{name}"] = times.std(axis=1)
        results["iter"] = np.array([row["iter"] for row in rows])
        results["n_resources"] = resources
        results["candidate"] = np.array([row["candidate"] for row in rows])
        results["continued"] = np.array([row["continued"] for row in rows])
        if bracket_column:
            results["bracket"] = np.array([row["bracket"] for row in rows])
        self.cv_results_ = results
        mean, order = means[self._refit_metric]
        self.best_index_ = int(order[0])
        self.best_params_ = results["params"][self.best_index_]
        self.best_score_ = float(mean[self.best_index_])
        self.n_resources_ = sorted({int(v) for v in results["n_resources"]})
        counts = {}
        for row in rows:
            counts[(row["bracket"], row["iter"])] = counts.get(
                (row["bracket"], row["iter"]), 0) + 1
        self.n_candidates_ = [counts[key] for key in sorted(counts)]
        self.n_iterations_ = int(results["iter"].max()) + 1

    # --- delegation ----------------------------------------------------------
    def _check_refit(self, method):
        check_is_fitted(self)
        if not self.refit:
            raise AttributeError(
                f"{method} is not available with refit=False: there is no "
                "best_estimator_; refit the best_params_ yourself.")

    @property
    def classes_(self):
        self._check_refit("classes_")
        return self.best_estimator_.classes_

    def _refit_attribute(self, name):
        check_is_fitted(self)
        if not self.refit:
            raise AttributeError(f"{name} needs refit=True.")
        return getattr(self.best_estimator_, name)

    n_features_in_ = property(lambda self: self._refit_attribute("n_features_in_"))
    feature_names_in_ = property(
        lambda self: self._refit_attribute("feature_names_in_"))

    predict = _delegate("predict", "Predict with ``best_estimator_``.")
    predict_proba = _delegate(
        "predict_proba", "Class probabilities of ``best_estimator_``.")
    predict_log_proba = _delegate(
        "predict_log_proba", "Log class probabilities of ``best_estimator_``.")
    decision_function = _delegate(
        "decision_function", "Decision function of ``best_estimator_``.")
    transform = _delegate("transform", "Transform with ``best_estimator_``.")

    @available_if(_estimator_has("score"))
    def score(self, X, y=None):
        """The search's ``scoring`` of ``best_estimator_`` on ``(X, y)``."""
        self._check_refit("score")
        if isinstance(self.scorer_, dict):
            return self.scorer_[self._refit_metric](self.best_estimator_, X, y)
        value = self.scorer_(self.best_estimator_, X, y)
        return value[self._refit_metric] if isinstance(value, dict) else value

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = self.estimator.__sklearn_tags__()
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = sub.classifier_tags
        tags.regressor_tags = sub.regressor_tags
        tags.target_tags = sub.target_tags
        tags.input_tags.pairwise = sub.input_tags.pairwise
        tags.input_tags.sparse = sub.input_tags.sparse
        tags.input_tags.allow_nan = sub.input_tags.allow_nan
        return tags


class SuccessiveHalvingSearchCV(_HalvingSearch):
    """Successive halving over sampled hyper-parameters, with training that continues.

    The notes' Algorithm 2 (A §11.3): ``n_candidates`` settings are drawn from
    ``param_distributions``; in each of ``L = ceil(log_factor n)`` rounds the
    candidates still in play are trained *further*, by an equal share of the
    round's budget, scored by cross-validation at the resource they have
    reached, and the best ``ceil(|S_r| / factor)`` go on. A survivor keeps its
    fitted models: ``warm_start`` (``max_iter`` more epochs, or an ensemble
    grown to ``n_estimators``) or ``partial_fit`` continue them, so the total
    resource trained is the sum of the rounds' increments and never exceeds
    ``budget``. The last round's candidates reach ``max_resource``.

    Parameters
    ----------
    estimator : estimator object
        The model to tune, cloned for each candidate and split.
    param_distributions : dict or list of dicts
        Parameter names mapped to lists (sampled uniformly) or to
        distributions with ``rvs``, as for ``RandomizedSearchCV``. When every
        value is a list, candidates are drawn without replacement.
    n_candidates : int, default=16
        Settings drawn for the first round (fewer when a grid is smaller).
    budget : int, default=None
        Cap on the resource units trained per split, summed over candidates
        and rounds. ``None`` spends what bringing the last round to
        ``max_resource`` costs; an int smaller than that raises a
        ``ValueError`` saying the least budget that works.
    resource : str, default="n_samples"
        What a round hands out: ``"n_samples"`` (training rows; a model with
        ``partial_fit`` is fed the new rows of each round, any other model is
        refitted on all rows so far) or an integer parameter of the estimator
        (``"max_iter"``, ``"n_estimators"``, ...), continued by ``warm_start``
        or ``partial_fit`` (one call per unit), refitted when the estimator has
        neither. In a pipeline, ``"clf__max_iter"`` is continued through
        ``"clf__warm_start"`` (the other steps are refitted on the same rows).
    max_resource : int, "auto" or None, default="auto"
        The resource of the last round's candidates: ``"auto"`` is the rows of
        the smallest training split, or the estimator's own value of the
        ``resource`` parameter (``max_iter=200`` gives 200 epochs). ``None``
        (with an int ``budget``) is the notes' schedule as it stands: each
        round gets ``floor(budget / L)`` and the last round reaches whatever
        that buys.
    factor : int, default=2
        Each round keeps ``ceil(|S_r| / factor)`` candidates (the notes' 2).
    min_resource : int, default=1
        The least resource of the first round. When ``n_candidates`` would
        start below it, the schedule runs fewer rounds (the last ones are
        dropped) and its last round keeps several candidates, all trained to
        ``max_resource``: a round of one epoch or one tree ranks candidates
        by their first steps, not by where they end.
    scoring : str, callable, list, tuple, set, dict or None, default=None
        A scorer name or callable; ``None`` uses the estimator's ``score``.
        Several metrics (a list/tuple/set of names, a dict of names to
        scorers, or a callable returning a dict) are all recorded in
        ``cv_results_`` (``mean_test_<name>``, ...); the one named by
        ``refit`` chooses each round's survivors and the best candidate.
    cv : int, cross-validation generator or iterable, default=5
        As in ``GridSearchCV``; stratified folds for a classifier.
    refit : bool, str or callable, default=True
        Refit the best setting on all the data with the resource it reached.
        With several metrics it must be a metric's name (the halving needs
        one to choose survivors), and ``refit=False`` is refused. A callable
        (one metric only) receives ``cv_results_`` after the last round and
        returns ``best_index_``, the row to refit, as in ``GridSearchCV``
        (scikit-learn's halving searches ignore a callable here and refit the
        best of the last round); ``best_score_`` is that row's mean score.
    n_jobs : int, default=None
        Jobs for the ``joblib.Parallel`` call of each round (one task per
        candidate and split; results are returned, nothing is shared, so
        ``joblib.parallel_backend("dask")`` runs the rounds on a cluster).
    random_state : int, RandomState instance or None, default=None
        Seeds the sampling of candidates and the row orders of ``n_samples``.
    verbose : int, default=0
        Print one line per round when positive.
    error_score : "raise" or float, default=np.nan
        The score of a fit (or scoring) that raises: ``"raise"`` raises at
        once; a number stands for the candidate's score on that split, and a
        ``FitFailedWarning`` counts the failures after the search. A
        candidate with a failed split scores ``-inf`` for the halving if the
        number is ``nan`` and is eliminated; if it survives (every one
        failed somewhere) its lost models train again from zero. When every
        fit of a round fails, the first error is raised (bad data fails
        that way, with the estimator's own message).

    Attributes
    ----------
    cv_results_ : dict of arrays
        One row per candidate and round: ``params``, ``param_<name>``,
        ``split<k>_test_score``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score`` (rows trained further rank first), fit and score
        times, ``iter`` (the round), ``n_resources`` (the cumulative resource
        the row was scored at), ``candidate`` (its index) and ``continued``
        (whether the row's training continued the previous round's model).
    best_index_ : int
        The rank-1 row: the best of the last round.
    best_params_ : dict
    best_score_ : float
        Its mean cross-validated score at the last round's resource.
    best_estimator_ : estimator
        Refitted on all the data (``refit=True``), trained through the same
        rounds as its cross-validated models (the same ``warm_start`` or
        ``partial_fit`` increments), so it is the model the score chose; its
        ``resource`` parameter is then set to the total reached and its
        ``warm_start`` back to the estimator's.
    n_resources_ : list of int
        The cumulative resource of each round.
    n_candidates_ : list of int
        Candidates evaluated in each round.
    n_iterations_ : int
        Rounds run.
    resource_spent_ : int
        Resource units trained per split: ``sum_r |S_r| (n_r - n_{r-1})``
        when training continues (a refitted row counts its whole ``n_r``).
    schedule_total_ : int
        The schedule's total, ``sum_r |S_r| (n_r - n_{r-1})``, known before
        the search runs; ``resource_spent_`` equals it when every round
        continues.
    scorer_ : callable or dict
        The scorer, or with several metrics a dict of them by name.
    multimetric_ : bool
        Whether several metrics were scored.
    n_splits_ : int
    refit_time_ : float

    See Also
    --------
    HyperbandSearchCV : several halving brackets with different trade-offs.
    successive_halving_bandit : the best-arm version of the same schedule.

    Notes
    -----
    The schedule (``halving_schedule``): round ``r`` adds
    ``floor(B' / |S_r|)`` units to each of its candidates, so each round spends
    at most ``B'`` and the survivors' resource roughly doubles (factor 2).
    With ``max_resource``, ``B'`` is the smallest per-round budget that brings
    the last round to it. For ``n`` not a power of ``factor`` the survivors are
    ``ceil(|S_r| / factor)``; ties keep the earlier candidate.

    Unlike scikit-learn's ``HalvingRandomSearchCV``, which refits each
    candidate from scratch with a larger resource, training here continues:
    the search costs ``O(L)`` full trainings' worth of resource rather than
    ``O(L)`` times more.

    References
    ----------
    K. Jamieson, A. Talwalkar, "Non-stochastic best arm identification and
    hyperparameter optimization", AISTATS 2016.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.linear_model import SGDClassifier
    >>> from skml.model_selection import SuccessiveHalvingSearchCV
    >>> X, y = load_iris(return_X_y=True)
    >>> search = SuccessiveHalvingSearchCV(
    ...     SGDClassifier(max_iter=16, tol=None, random_state=0),
    ...     {"alpha": [1e-5, 1e-4, 1e-3, 1e-2]}, n_candidates=4,
    ...     resource="max_iter", cv=3, random_state=0).fit(X, y)
    >>> search.n_candidates_, search.n_resources_
    ([4, 2], [5, 16])
    """

    _parameter_constraints = {
        **_HalvingSearch._common_constraints,
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "max_resource": [Interval(Integral, 1, None, closed="left"), Options({"auto"}),
                         None],
        "budget": [Interval(Integral, 1, None, closed="left"), None],
        "factor": [Interval(Integral, 2, None, closed="left")],
        "min_resource": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator, param_distributions, n_candidates=16, budget=None, *,
                 resource="n_samples", max_resource="auto", factor=2, min_resource=1,
                 scoring=None, cv=5, refit=True, n_jobs=None, random_state=None,
                 verbose=0, error_score=np.nan):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.n_candidates = n_candidates
        self.budget = budget
        self.resource = resource
        self.max_resource = max_resource
        self.factor = factor
        self.min_resource = min_resource
        self.scoring = scoring
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.error_score = error_score

    def _brackets(self, X, y, groups, rng):
        """The one bracket: ``[(candidates, sizes, resources)]``."""
        cands = self._sample(self.n_candidates, rng)
        n_train = self._n_train(X, y, groups)
        sizes, resources, total = halving_schedule(
            len(cands), self.factor, self.budget, self._max_resource(n_train),
            self.min_resource)
        self.schedule_total_ = total
        return [(cands, sizes, resources)]


class HyperbandSearchCV(_HalvingSearch):
    """Hyperband: brackets of successive halving with continued training.

    Li et al.'s Hyperband runs ``s_max + 1`` brackets,
    ``s_max = floor(log_eta(max_resource / min_resource))``. Bracket ``s``
    draws ``n = ceil((s_max + 1) eta^s / (s + 1))`` settings, starts them at
    ``max_resource * eta^-s`` and runs ``s + 1`` rounds of successive halving
    (keep the best ``floor(|S_r| / eta)``), its last round at
    ``max_resource``. The brackets trade many cheap starts (``s = s_max``)
    against few fully trained ones (``s = 0``, plain random search). As in
    :class:`SuccessiveHalvingSearchCV` a survivor's training continues.

    Parameters
    ----------
    estimator : estimator object
    param_distributions : dict or list of dicts
    max_resource : int or "auto", default="auto"
        ``R``, the resource of each bracket's last round (``"auto"``: the rows
        of the smallest training split, or the estimator's value of the
        ``resource`` parameter).
    eta : int, default=3
        Each round keeps ``1/eta`` of its candidates.
    min_resource : int, default=1
        The smallest first-round resource.
    resource, scoring, cv, refit, n_jobs, random_state, verbose, error_score
        As in :class:`SuccessiveHalvingSearchCV`.

    Attributes
    ----------
    cv_results_ : dict of arrays
        As in :class:`SuccessiveHalvingSearchCV`, plus ``bracket``.
    best_index_, best_params_, best_score_, best_estimator_ :
        The best last-round row over all brackets; the refit trains it through
        the rounds of its bracket, as in :class:`SuccessiveHalvingSearchCV`.
    brackets_ : list of (sizes, resources)
        Each bracket's candidates and cumulative resource per round.
    resource_spent_ : int
        Resource units trained per split over all brackets.
    n_resources_, n_candidates_, n_iterations_, scorer_, multimetric_, n_splits_,
    refit_time_

    See Also
    --------
    SuccessiveHalvingSearchCV : one bracket with a fixed budget.

    Notes
    -----
    Without continued training Hyperband spends ``(s_max + 1)^2 R`` units at
    most; continuing, each bracket spends about ``(s + 1)`` rounds of ``n R
    eta^-s`` less the work already done by its survivors.

    References
    ----------
    L. Li, K. Jamieson, G. DeSalvo, A. Rostamizadeh, A. Talwalkar,
    "Hyperband: a novel bandit-based approach to hyperparameter
    optimization", JMLR 18, 2018.

    Examples
    --------
    >>> from scipy.stats import loguniform
    >>> from sklearn.datasets import load_iris
    >>> from skml.linear_model import SGDClassifier
    >>> from skml.model_selection import HyperbandSearchCV
    >>> X, y = load_iris(return_X_y=True)
    >>> search = HyperbandSearchCV(
    ...     SGDClassifier(tol=None, random_state=0), {"alpha": loguniform(1e-5, 1e-2)},
    ...     max_resource=9, resource="max_iter", cv=3, random_state=0).fit(X, y)
    >>> [sizes for sizes, _ in search.brackets_]
    [[9, 3, 1], [5, 1], [3]]
    """

    _parameter_constraints = {
        **_HalvingSearch._common_constraints,
        "eta": [Interval(Integral, 2, None, closed="left")],
        "min_resource": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, estimator, param_distributions, max_resource="auto", eta=3, *,
                 min_resource=1, resource="n_samples", scoring=None, cv=5, refit=True,
                 n_jobs=None, random_state=None, verbose=0, error_score=np.nan):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.max_resource = max_resource
        self.eta = eta
        self.min_resource = min_resource
        self.resource = resource
        self.scoring = scoring
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose
        self.error_score = error_score

    def _brackets(self, X, y, groups, rng):
        """Li et al.'s brackets, as ``(candidates, sizes, resources)``."""
        n_train = self._n_train(X, y, groups)
        R = self._max_resource(n_train)
        if self.min_resource > R:
            raise ValueError(
                f"min_resource={self.min_resource} exceeds max_resource={R}.")
        brackets = []
        for sizes, resources in hyperband_brackets(R, self.eta, self.min_resource):
            cands = self._sample(sizes[0], rng)
            # A grid smaller than the bracket: halve by eta from what there is.
            shrunk = [max(1, len(cands) // self.eta**i) for i in range(len(sizes))]
            brackets.append((cands, shrunk, resources))
        self.brackets_ = [(s, r) for _, s, r in brackets]
        return brackets
