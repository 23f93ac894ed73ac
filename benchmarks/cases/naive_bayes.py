"""skml.naive_bayes against sklearn.naive_bayes, same hyper-parameters.

The data are standardised (benchmarks.datasets), so BernoulliNB's default
``binarize=0.0`` splits each feature at its training mean. The "proba" rows
time ``predict_proba`` and report the largest probability difference.
"""

from benchmarks.case import Case


def _pair(name, dataset, score="accuracy", params=None, **kw):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.naive_bayes:{name}",
        reference=f"sklearn.naive_bayes:{name}",
        dataset=dataset,
        score=score,
        family="naive_bayes",
        params=params,
        reference_params=params,
        **kw,
    )


CASES = [
    *(
        _pair(name, dataset)
        for name in ("GaussianNB", "BernoulliNB")
        for dataset in ("iris", "wine", "breast_cancer", "digits", "clf_20k_20")
    ),
    _pair("GaussianNB", "clf3_20k_20"),
    _pair("GaussianNB", "clf_20k_20", "log_loss", label="proba"),
    _pair("BernoulliNB", "clf_20k_20", "log_loss", label="proba"),
]
