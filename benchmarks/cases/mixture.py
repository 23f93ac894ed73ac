"""skml.mixture.GaussianMixture against sklearn.mixture.GaussianMixture.

Most rows give both sides the same complete initialisation: seeded
standard-normal means (the features are standardised), equal weights and
identity precisions, as nested lists so the report's JSON can hold them.
With all three given neither side runs k-means, so the rows time EM alone,
and the two runs are the same EM iterations: the lower bounds agree to
rounding and "agreement" (max |score_samples| difference on the test split)
is ~1e-12. One row per dataset size uses ``init_params="kmeans"`` with the
same ``random_state`` on both sides instead: it times the whole fit, each
side's own k-means included (skml's KMeans draws the same seeds as
scikit-learn's, so the runs agree too).
"""

import numpy as np

from benchmarks.case import Case

N_FEATURES = {"iris": 4, "wine": 13}


def _n_features(dataset):
    return N_FEATURES.get(dataset) or int(dataset.rsplit("_", 1)[1])


def same_init(k, dataset, covariance_type):
    """Complete initial parameters, identical for both sides."""
    d = _n_features(dataset)
    means = np.random.RandomState(k).standard_normal((k, d)).round(6)
    precisions = {
        "full": np.broadcast_to(np.eye(d), (k, d, d)),
        "tied": np.eye(d),
        "diag": np.ones((k, d)),
        "spherical": np.ones(k),
    }[covariance_type]
    return {
        "n_components": k,
        "covariance_type": covariance_type,
        "means_init": means.tolist(),
        "weights_init": [1.0 / k] * k,
        "precisions_init": precisions.tolist(),
    }


def _pair(dataset, params, label="", **kw):
    return Case(
        estimator="GaussianMixture",
        skml="skml.mixture:GaussianMixture",
        reference="sklearn.mixture:GaussianMixture",
        dataset=dataset,
        score="mean_log_likelihood",
        family="mixture",
        params=params,
        reference_params=params,
        label=label,
        **kw,
    )


def _kmeans_init(k, covariance_type="full"):
    return {"n_components": k, "covariance_type": covariance_type, "random_state": 0}


CASES = [
    _pair("iris", same_init(3, "iris", "full"), label="k3,full"),
    _pair("wine", same_init(3, "wine", "full"), label="k3,full"),
    _pair("wine", _kmeans_init(3), label="k3,full,kmeans"),
    *[
        _pair("clf_20k_20", same_init(8, "clf_20k_20", ct), label=f"k8,{ct}")
        for ct in ("full", "tied", "diag", "spherical")
    ],
    _pair("clf_20k_20", _kmeans_init(8), label="k8,full,kmeans"),
    _pair("clf_100k_20", same_init(10, "clf_100k_20", "full"), label="k10,full",
          profiles=("full",)),
]
