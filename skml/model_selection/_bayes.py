"""Bayesian optimisation of hyper-parameters with a Gaussian-process surrogate."""

from numbers import Integral, Real

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_random_state

from ..gaussian_process import GaussianProcessRegressor
from ..gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
from ..utils import Interval, Options
from ..utils._docstrings import fill_doc
from ._sequential import SEARCH_DOC_BLOCKS, _SequentialSearchCV, search_scores
from ._space import Space

__all__ = ["BayesSearchCV", "expected_improvement"]


def expected_improvement(mean, std, best, xi=0.0):
    """``E[max(f - best - xi, 0)]`` for ``f ~ N(mean, std²)`` (maximisation).

    Parameters
    ----------
    mean, std : ndarray of shape (n,)
        The surrogate's posterior at the candidates.
    best : float
        The best score observed so far.
    xi : float, default=0.0
        Margin that favours exploration.

    Returns
    -------
    ei : ndarray of shape (n,)
    """
    gain = mean - best - xi
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(std > 0, gain / std, 0.0)
    return np.where(std > 0, gain * norm.cdf(z) + std * norm.pdf(z), np.maximum(gain, 0))


def _acquisition(name, mean, std, best, xi, kappa):
    if name == "ei":
        return expected_improvement(mean, std, best, xi)
    if name == "pi":
        with np.errstate(divide="ignore", invalid="ignore"):
            return norm.cdf(np.where(std > 0, (mean - best - xi) / std, -np.inf))
    return mean + kappa * std  # "ucb"


def _around(points, scales, rng, n_each=40):
    """Gaussian perturbations of ``points`` at each scale, clipped to the cube."""
    out = [np.clip(np.repeat(points, n_each, axis=0)
                   + rng.normal(scale=scale, size=(len(points) * n_each, points.shape[1])),
                   0.0, 1.0) for scale in scales]
    return np.vstack(out)


@fill_doc(**SEARCH_DOC_BLOCKS)
class BayesSearchCV(_SequentialSearchCV):
    """Hyper-parameter search by Bayesian optimisation (GP surrogate, notes A §11.1).

    After ``n_initial_points`` random configurations, each step fits a
    Gaussian process (:class:`~skml.gaussian_process.GaussianProcessRegressor`,
    constant x Matérn 5/2 with one length scale per coordinate, plus noise,
    hyper-parameters by marginal likelihood) to the cross-validated scores
    seen so far, on the search space mapped to the unit cube (integers
    rounded, log-uniform dimensions in log, categoricals one-hot), and
    evaluates the configurations that maximise the acquisition: expected
    improvement (``"ei"``), probability of improvement (``"pi"``) or the
    upper confidence bound ``mean + kappa * std`` (``"ucb"``). The
    acquisition is maximised over ``n_candidates`` random points of the cube
    plus Gaussian perturbations of the best configurations seen. A batch of
    ``n_points`` proposals per step (so ``n_jobs`` workers have work) is
    chosen by the *kriging believer* rule: each proposal's score is taken to
    be the surrogate's mean there before the next is chosen. Every
    configuration is evaluated at most once.

    The search is a scikit-learn ``BaseSearchCV``: ``cv_results_`` holds one
    row per evaluated configuration, in order; ``best_params_``,
    ``best_score_``, ``best_estimator_``, ``refit``, multi-metric ``scoring``
    and ``n_jobs`` behave as in ``GridSearchCV`` (the candidates x splits of a
    step go through ``joblib.Parallel``, so ``parallel_backend("dask")`` works).

    Parameters
    ----------
    estimator : estimator object
    search_spaces : dict
        ``{name: dimension}``; a dimension is :class:`Real`, :class:`Integer`,
        :class:`Categorical`, a list (categorical) or a tuple
        ``(low, high[, "log-uniform"])`` (integer when both ends are ints).
    n_iter : int, default=50
        Configurations evaluated in all (fewer if a discrete space runs out).
    n_initial_points : int, default=10
        Random configurations before the surrogate is used.
    acquisition : {"ei", "pi", "ucb"}, default="ei"
    xi : float, default=0.0
        Improvement margin of ``"ei"`` and ``"pi"``, in units of the score's
        standard deviation over the evaluations so far. A positive margin
        explores more but stops EI from refining near the best point (on
        Branin 0.01 left a median regret of 0.015 after 50 evaluations where
        0 reaches 4e-6, 3 seeds; ``benchmarks/search_peers.py``).
    kappa : float, default=1.96
        Exploration weight of ``"ucb"``.
    n_points : int, default=1
        Proposals per step, evaluated in parallel.
    n_candidates : int, default=2000
        Random points at which the acquisition is evaluated per proposal.
    <search parameters>

    Attributes
    ----------
    <search attributes>
    surrogate_ : GaussianProcessRegressor
        The last surrogate fitted (on the unit-cube coordinates).

    See Also
    --------
    SuccessiveHalvingSearchCV, HyperbandSearchCV : budget-based searches.

    Notes
    -----
    The notes (A §11.1) name Bayesian optimisation and leave it to the slides;
    this is the standard GP-EI loop (Jones et al. 1998; Snoek et al. 2012),
    with the kriging-believer batch of Ginsbourger et al. (2010). Failed fits
    (``error_score=np.nan``) enter the surrogate at the worst score seen.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.linear_model import Ridge
    >>> from skml.model_selection import BayesSearchCV, Real
    >>> X, y = load_diabetes(return_X_y=True)
    >>> search = BayesSearchCV(Ridge(), {"alpha": Real(1e-4, 1e2, "log-uniform")},
    ...                        n_iter=12, n_initial_points=4, cv=3, random_state=0)
    >>> search = search.fit(X, y)
    >>> len(search.cv_results_["params"])
    12
    """

    _skml_parameter_constraints = {
        "search_spaces": [dict],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "n_initial_points": [Interval(Integral, 1, None, closed="left")],
        "acquisition": [Options({"ei", "pi", "ucb"})],
        "xi": [Interval(Real, 0, None, closed="left")],
        "kappa": [Interval(Real, 0, None, closed="left")],
        "n_points": [Interval(Integral, 1, None, closed="left")],
        "n_candidates": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, search_spaces, *, n_iter=50, n_initial_points=10,
                 acquisition="ei", xi=0.0, kappa=1.96, n_points=1, n_candidates=2000,
                 scoring=None, n_jobs=None, refit=True, cv=None, verbose=0,
                 pre_dispatch="2*n_jobs", random_state=None, error_score=np.nan,
                 return_train_score=False):
        # BaseSearchCV's parameters too, as its __init__ stores them.
        self.estimator = estimator
        self.search_spaces = search_spaces
        self.n_iter = n_iter
        self.n_initial_points = n_initial_points
        self.acquisition = acquisition
        self.xi = xi
        self.kappa = kappa
        self.n_points = n_points
        self.n_candidates = n_candidates
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.cv = cv
        self.verbose = verbose
        self.pre_dispatch = pre_dispatch
        self.random_state = random_state
        self.error_score = error_score
        self.return_train_score = return_train_score

    def _check_search_space(self):
        Space(self.search_spaces)

    # -- the loop ---------------------------------------------------------------------
    def _run_search(self, evaluate_candidates):
        def evaluate(candidates):
            return search_scores(evaluate_candidates(candidates), self.refit)

        self._optimise(Space(self.search_spaces), evaluate,
                       check_random_state(self.random_state))

    def _optimise(self, space, evaluate, rng):
        """The optimisation loop, apart from cross-validation.

        ``evaluate(list of parameter dicts)`` returns the scores (to
        maximise) of *every* configuration evaluated so far, in order, as
        ``evaluate_candidates`` does; ``benchmarks/search_peers.py`` drives
        the same loop on test functions (Branin, Hartmann-6).
        """
        self._last_kernel = None  # each search starts from the default kernel
        seen = []  # unit-cube rows of the configurations evaluated or proposed
        n_initial = min(self.n_initial_points, self.n_iter)
        first = self._distinct(space, space.snap(space.sample_unit(n_initial * 20, rng)),
                               seen, n_initial)
        if not first:
            return
        scores = evaluate(space.decode(np.array(first)))
        seen.extend(first)
        while len(seen) < self.n_iter:
            batch = min(self.n_points, self.n_iter - len(seen))
            proposals = self._propose(space, np.array(seen), scores, batch, rng)
            if not proposals:
                break  # a discrete space with nothing left to try
            if self.verbose > 0:
                print(f"[BayesSearchCV] {len(seen)} evaluated, best "
                      f"{np.nanmax(scores):.5g}; proposing {len(proposals)}", flush=True)
            scores = evaluate(space.decode(np.array(proposals)))
            seen.extend(proposals)

    @staticmethod
    def _distinct(space, rows, seen, limit, order=None):
        """Up to ``limit`` rows (in ``order``) not yet seen, nor repeated."""
        taken = {tuple(np.round(r, 12)) for r in seen}
        out = []
        for i in (range(len(rows)) if order is None else order):
            key = tuple(np.round(rows[i], 12))
            if key not in taken:
                taken.add(key)
                out.append(rows[i])
                if len(out) == limit:
                    break
        return out

    def _surrogate(self, n_dims, n_seen, rng):
        # The kernel's hyper-parameters move little from one step to the next:
        # start from the last step's and restart at random only every fifth
        # step (a third of the likelihood evaluations of two starts a step).
        last = self._last_kernel
        if last is not None:
            kernel, restarts = last, int(n_seen % 5 == 0)
        else:
            kernel = (ConstantKernel(1.0, (1e-3, 1e3))
                      * Matern(np.full(n_dims, 0.3), (1e-3, 1e2), nu=2.5)
                      + WhiteKernel(1e-4, (1e-8, 1e-1)))
            restarts = 1
        return GaussianProcessRegressor(kernel, normalize_y=True,
                                        n_restarts_optimizer=restarts,
                                        random_state=rng.randint(2 ** 31 - 1))

    def _propose(self, space, X_seen, scores, batch, rng):
        gp = self._surrogate(space.n_dims, len(X_seen), rng).fit(X_seen, scores)
        self._last_kernel = gp.kernel_
        self.surrogate_ = gp
        spread = np.std(scores) if np.std(scores) > 0 else 1.0
        X_obs, y_obs = X_seen, scores
        proposals = []
        for _ in range(batch):
            best = np.max(y_obs)
            top = X_obs[np.argsort(y_obs)[::-1][:5]]
            candidates = space.snap(np.vstack([space.sample_unit(self.n_candidates, rng),
                                               _around(top, (0.05, 0.01), rng)]))
            mean, std = gp.predict(candidates, return_std=True)
            value = _acquisition(self.acquisition, mean, std, best, self.xi * spread,
                                 self.kappa)
            # Refine: perturb the acquisition's best points at finer scales, so
            # the maximiser is found to ~1e-3 of the cube, not to the random
            # points' spacing.
            best_points = candidates[np.argsort(-value)[:5]]
            fine = space.snap(_around(best_points, (0.01, 0.002), rng))
            mean, std = gp.predict(fine, return_std=True)
            candidates = np.vstack([candidates, fine])
            value = np.concatenate([value, _acquisition(
                self.acquisition, mean, std, best, self.xi * spread, self.kappa)])
            pick = self._distinct(space, candidates, [*X_seen, *proposals], 1,
                                  order=np.argsort(-value, kind="stable"))
            if not pick:
                break
            proposals.append(pick[0])
            # Kriging believer: pretend the proposal scored the surrogate's mean,
            # keep the kernel, and condition again before the next proposal.
            X_obs = np.vstack([X_obs, pick[0]])
            y_obs = np.append(y_obs, gp.predict(pick[0][None, :])[0])
            gp = GaussianProcessRegressor(gp.kernel_, normalize_y=True,
                                          optimizer=None).fit(X_obs, y_obs)
        return proposals
