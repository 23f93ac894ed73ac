"""skml.decomposition.PCA against sklearn.decomposition.PCA, same parameters.

The transforms are compared entry for entry (the sign convention is the
same). "power" has no scikit-learn solver: its rows run scikit-learn's exact
"full" (or "covariance_eigh" on tall data, its "auto" choice) for reference.
"""

from benchmarks.case import Case


def _pair(dataset, params, reference_params=None, label="", **kw):
    return Case(
        estimator="PCA",
        skml="skml.decomposition:PCA",
        reference="sklearn.decomposition:PCA",
        dataset=dataset,
        score="transform_max_abs_diff",
        family="decomposition",
        params=params,
        reference_params=params if reference_params is None else reference_params,
        label=label,
        **kw,
    )


def _randomized(k):
    return {"n_components": k, "svd_solver": "randomized", "random_state": 0}


CASES = [
    _pair("digits", {"svd_solver": "full"}, label="full"),
    _pair("digits", _randomized(10), label="randomized"),
    _pair("digits", {"n_components": 10, "svd_solver": "power", "random_state": 0},
          {"n_components": 10, "svd_solver": "full"}, label="power"),
    _pair("clf_20k_20", {}, label="auto"),
    _pair("clf_20k_20", {"svd_solver": "full"}, label="full"),
    _pair("clf_20k_20", _randomized(5), label="randomized"),
    _pair("clf_20k_20", {"n_components": 5, "svd_solver": "power", "random_state": 0},
          {"n_components": 5}, label="power"),
    _pair("clf_20k_100", {"n_components": 10}, label="auto"),
    _pair("clf_20k_100", _randomized(10), label="randomized"),
]
