"""skml.model_selection against scikit-learn's searches, at an equal training budget.

Every side tunes the *same* skml estimator over the same space, so the rows
compare search strategies: the score is the refitted best model's held-out
accuracy, the fit time the whole search's wall time. "Budget" is the resource
trained per CV split (epochs of the MLP, trees of the boosting), summed over
candidates and rounds:

* ``vs_halving``: scikit-learn's ``HalvingRandomSearchCV`` with the same
  candidates, ``factor=2`` and last round at the same ``max_resources``; it
  refits each survivor from scratch, so it spends more than our search.
* ``vs_random``: ``RandomizedSearchCV`` with as many fully trained candidates
  as our schedule's budget buys (``ceil(total / max_resource)``).

Factories, not parameters, build the searches: a Case's parameters must stay
JSON-friendly and the spaces hold scipy distributions.
"""

import math

from benchmarks.case import Case

N_CANDIDATES = 16
MLP_EPOCHS = 60
GB_TREES = 64


def _mlp():
    from skml.neural_network import MLPClassifier

    return MLPClassifier((32,), max_iter=MLP_EPOCHS, random_state=0)


def _mlp_space():
    from scipy.stats import loguniform

    return {"alpha": loguniform(1e-5, 1e-1), "learning_rate_init": loguniform(1e-4, 1e-1)}


def _gb():
    from skml.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(n_estimators=GB_TREES, random_state=0)


def _gb_space():
    from scipy.stats import loguniform

    return {"learning_rate": loguniform(1e-2, 1.0), "max_depth": [1, 2, 3, 4, 5]}


_SETUPS = {
    "mlp": (_mlp, _mlp_space, "max_iter", MLP_EPOCHS),
    "gb": (_gb, _gb_space, "n_estimators", GB_TREES),
}


def _sh(setup):
    from skml.model_selection import SuccessiveHalvingSearchCV

    make, space, resource, _ = _SETUPS[setup]
    return SuccessiveHalvingSearchCV(make(), space(), n_candidates=N_CANDIDATES,
                                     resource=resource, cv=3, random_state=0)


def _schedule_total(setup):
    from skml.model_selection import halving_schedule

    return halving_schedule(N_CANDIDATES, 2, max_resource=_SETUPS[setup][3])[2]


def skml_sh_mlp():
    return _sh("mlp")


def skml_sh_gb():
    return _sh("gb")


def skml_hyperband_mlp():
    from skml.model_selection import HyperbandSearchCV

    return HyperbandSearchCV(_mlp(), _mlp_space(), max_resource=MLP_EPOCHS, eta=3,
                             resource="max_iter", cv=3, random_state=0)


def _halving(setup):
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingRandomSearchCV

    make, space, resource, R = _SETUPS[setup]
    n_rounds = math.ceil(math.log2(N_CANDIDATES))
    return HalvingRandomSearchCV(
        make(), space(), n_candidates=N_CANDIDATES, factor=2, resource=resource,
        max_resources=R, min_resources=max(1, R // 2 ** (n_rounds - 1)), cv=3,
        random_state=0)


def _random(setup):
    from sklearn.model_selection import RandomizedSearchCV

    make, space, _, R = _SETUPS[setup]
    return RandomizedSearchCV(make(), space(), n_iter=math.ceil(_schedule_total(setup) / R),
                              cv=3, random_state=0)


def sklearn_halving_mlp():
    return _halving("mlp")


def sklearn_halving_gb():
    return _halving("gb")


def sklearn_random_mlp():
    return _random("mlp")


def sklearn_random_gb():
    return _random("gb")


BAYES_FITS = 20


def skml_bayes_gb():
    from skml.model_selection import BayesSearchCV, Integer, Real

    return BayesSearchCV(_gb(), {"learning_rate": Real(1e-2, 1.0, "log-uniform"),
                                 "max_depth": Integer(1, 5)},
                         n_iter=BAYES_FITS, n_initial_points=6, cv=3, random_state=0)


def sklearn_random_gb_equal_fits():
    from scipy.stats import loguniform
    from sklearn.model_selection import RandomizedSearchCV

    return RandomizedSearchCV(_gb(), {"learning_rate": loguniform(1e-2, 1.0),
                                      "max_depth": [1, 2, 3, 4, 5]},
                              n_iter=BAYES_FITS, cv=3, random_state=0)


_BINARY_TREE_GRID = {"criterion": ["gini", "entropy"], "max_depth": [2, 8],
                     "min_samples_leaf": [1, 20], "splitter": ["best", "random"],
                     "max_features": [None, "sqrt"], "class_weight": [None, "balanced"]}


def skml_harmonica_tree():
    from skml.model_selection import HarmonicaSearchCV
    from skml.tree import DecisionTreeClassifier

    return HarmonicaSearchCV(DecisionTreeClassifier(random_state=0), _BINARY_TREE_GRID,
                             n_samples=12, n_stages=2, n_top=3, cv=3, random_state=0)


def sklearn_random_tree_equal_fits():
    from sklearn.model_selection import RandomizedSearchCV

    from skml.tree import DecisionTreeClassifier

    # Harmonica evaluates 12 + 1 settings per stage.
    return RandomizedSearchCV(DecisionTreeClassifier(random_state=0), _BINARY_TREE_GRID,
                              n_iter=26, cv=3, random_state=0)


def _case(name, ours, reference, dataset, label):
    return Case(
        estimator=name,
        skml=f"benchmarks.cases.model_selection:{ours}",
        reference=f"benchmarks.cases.model_selection:{reference}",
        dataset=dataset,
        score="accuracy",
        family="model_selection",
        label=label,
    )


CASES = [
    _case("SuccessiveHalvingSearchCV", "skml_sh_mlp", "sklearn_halving_mlp", "digits",
          "mlp,vs_halving"),
    _case("SuccessiveHalvingSearchCV", "skml_sh_mlp", "sklearn_random_mlp", "digits",
          "mlp,vs_random"),
    _case("SuccessiveHalvingSearchCV", "skml_sh_gb", "sklearn_halving_gb", "breast_cancer",
          "gb,vs_halving"),
    _case("SuccessiveHalvingSearchCV", "skml_sh_gb", "sklearn_random_gb", "breast_cancer",
          "gb,vs_random"),
    _case("HyperbandSearchCV", "skml_hyperband_mlp", "sklearn_halving_mlp", "digits",
          "mlp,vs_halving"),
    _case("HyperbandSearchCV", "skml_hyperband_mlp", "sklearn_random_mlp", "digits",
          "mlp,vs_random"),
    # Bayesian optimisation against random search at the same number of
    # configurations (20 x 3-fold fits of a 64-tree boosting on each side).
    _case("BayesSearchCV", "skml_bayes_gb", "sklearn_random_gb_equal_fits",
          "breast_cancer", "gb,vs_random_equal_fits"),
    _case("HarmonicaSearchCV", "skml_harmonica_tree", "sklearn_random_tree_equal_fits",
          "breast_cancer", "tree,vs_random_equal_fits"),
]
