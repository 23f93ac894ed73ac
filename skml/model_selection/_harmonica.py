"""Harmonica: hyper-parameter search by sparse Fourier recovery (Hazan et al. 2018)."""

from itertools import product
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..boolean import HarmonicaRegressor
from ..utils import Interval
from ..utils._docstrings import fill_doc
from ._sequential import SEARCH_DOC_BLOCKS, _SequentialSearchCV, search_scores

__all__ = ["HarmonicaSearchCV"]

# Above this many variables in the selected monomials, the minimising
# assignment is no longer enumerated exhaustively.
_MAX_ENUMERATED = 16


@fill_doc(**SEARCH_DOC_BLOCKS)
class HarmonicaSearchCV(_SequentialSearchCV):
    """Search over binary hyper-parameters by sparse recovery (notes A §2.4).

    Each hyper-parameter takes one of two values, a bit of x ∈ {-1, 1}^n.
    A stage evaluates ``n_samples`` random settings of the free bits by
    cross-validation, fits a sparse low-degree polynomial of the score with
    :class:`~skml.boolean.HarmonicaRegressor` (Lasso on the parity
    features), keeps its ``n_top`` largest monomials, and fixes the bits they
    involve to the assignment that maximises that polynomial (by enumeration).
    The next stage samples the remaining bits with those fixed. The settings
    chosen after each stage are evaluated too, and the best of everything
    evaluated is the result (``best_params_``), as in ``GridSearchCV``.

    Parameters
    ----------
    estimator : estimator object
    param_grid : dict
        ``{name: [value_a, value_b]}``: exactly two values per parameter.
    n_samples : int, default=50
        Settings evaluated per stage.
    n_stages : int, default=2
    degree : int, default=2
        Degree of the fitted polynomial.
    alpha : float, default=0.01
        Lasso weight, on scores standardised per stage.
    n_top : int, default=5
        Monomials kept per stage.
    <search parameters>

    Attributes
    ----------
    <search attributes>
    fixed_params_ : dict
        The parameters the stages fixed, in order.
    stage_supports_ : list of list of tuple of str
        The monomials (as tuples of parameter names) selected at each stage.

    Notes
    -----
    The notes cast learning a Fourier-sparse function as compressed sensing
    (A §2.4); Hazan, Klivans and Yuan (ICLR 2018) use it for hyper-parameter
    optimisation with several stages, as here. Their final step hands the
    remaining bits to a base optimiser; here the last stage's random samples
    (with everything selected fixed) serve as that search.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from skml.model_selection import HarmonicaSearchCV
    >>> from skml.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> grid = {"criterion": ["gini", "entropy"], "max_depth": [2, 6],
    ...         "min_samples_leaf": [1, 20], "splitter": ["best", "random"]}
    >>> search = HarmonicaSearchCV(DecisionTreeClassifier(random_state=0), grid,
    ...                            n_samples=8, n_stages=1, cv=3, random_state=0)
    >>> search = search.fit(X, y)
    >>> sorted(search.best_params_)
    ['criterion', 'max_depth', 'min_samples_leaf', 'splitter']
    """

    _skml_parameter_constraints = {
        "param_grid": [dict],
        "n_samples": [Interval(Integral, 2, None, closed="left")],
        "n_stages": [Interval(Integral, 1, None, closed="left")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "n_top": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, param_grid, *, n_samples=50, n_stages=2, degree=2,
                 alpha=0.01, n_top=5, scoring=None, n_jobs=None, refit=True, cv=None,
                 verbose=0, pre_dispatch="2*n_jobs", random_state=None,
                 error_score=np.nan, return_train_score=False):
        # BaseSearchCV's parameters too, as its __init__ stores them.
        self.estimator = estimator
        self.param_grid = param_grid
        self.n_samples = n_samples
        self.n_stages = n_stages
        self.degree = degree
        self.alpha = alpha
        self.n_top = n_top
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
        self._names()

    def _names(self):
        if not self.param_grid:
            raise ValueError("param_grid must name at least one parameter.")
        for name, values in self.param_grid.items():
            if not isinstance(values, (list, tuple)) or len(values) != 2:
                raise ValueError(f"param_grid[{name!r}] must list exactly two values "
                                 f"(a binary hyper-parameter); got {values!r}.")
        return list(self.param_grid)

    def _decode(self, bits):
        """Parameter dicts of ±1 rows: -1 -> the first value, +1 -> the second."""
        names = list(self.param_grid)
        return [{n: self.param_grid[n][int(b > 0)] for n, b in zip(names, row)}
                for row in bits]

    def _run_search(self, evaluate_candidates):
        names = self._names()
        rng = check_random_state(self.random_state)
        n = len(names)
        fixed = {}  # column -> ±1
        self.fixed_params_, self.stage_supports_ = {}, []
        seen, evaluated = set(), []  # evaluated: the ±1 rows, in cv_results_ order
        for stage in range(self.n_stages):
            free = [k for k in range(n) if k not in fixed]
            bits = rng.choice([-1.0, 1.0], size=(self.n_samples, n))
            for k, v in fixed.items():
                bits[:, k] = v
            rows = []
            for r in bits:  # each setting at most once, across and within stages
                if tuple(r) not in seen:
                    seen.add(tuple(r))
                    rows.append(r)
            if not rows:
                break
            results = evaluate_candidates(self._decode(rows))
            evaluated.extend(rows)
            if not free:
                break
            # Every setting evaluated so far that agrees with the fixed bits.
            all_bits, scores = np.array(evaluated), search_scores(results, self.refit)
            agree = np.ones(len(all_bits), dtype=bool)
            for k, v in fixed.items():
                agree &= all_bits[:, k] == v
            Z, s = all_bits[agree][:, free], scores[agree]
            s = (s - s.mean()) / (s.std() if s.std() > 0 else 1.0)
            model = HarmonicaRegressor(degree=self.degree, alpha=self.alpha,
                                       n_top=self.n_top).fit(Z, s)
            support = [tuple(free[j] for j in S) for S in model.support_]
            self.stage_supports_.append([tuple(names[k] for k in S) for S in support])
            involved = sorted({k for S in support for k in S})
            if not involved:
                if self.verbose > 0:
                    print(f"[HarmonicaSearchCV] stage {stage}: no monomial selected")
                continue
            assignment = self._maximise(model, free, involved)
            fixed.update(assignment)
            for k, v in assignment.items():
                self.fixed_params_[names[k]] = self.param_grid[names[k]][int(v > 0)]
            if self.verbose > 0:
                print(f"[HarmonicaSearchCV] stage {stage}: fixed "
                      f"{[names[k] for k in assignment]}", flush=True)
            # The setting the polynomial prefers, with the other bits at random.
            chosen = rng.choice([-1.0, 1.0], size=n)
            for k, v in fixed.items():
                chosen[k] = v
            if tuple(chosen) not in seen:
                seen.add(tuple(chosen))
                evaluate_candidates(self._decode([chosen]))
                evaluated.append(chosen)

    def _maximise(self, model, free, involved):
        if len(involved) > _MAX_ENUMERATED:
            raise ValueError(
                f"The selected monomials involve {len(involved)} parameters (more than "
                f"{_MAX_ENUMERATED} to enumerate); lower n_top or degree.")
        position = {k: j for j, k in enumerate(free)}
        best, best_value = None, -np.inf
        for values in product([-1.0, 1.0], repeat=len(involved)):
            z = np.ones(len(free))
            for k, v in zip(involved, values):
                z[position[k]] = v
            value = model.predict(z[None, :])[0]
            if value > best_value:
                best, best_value = dict(zip(involved, values)), value
        return best
