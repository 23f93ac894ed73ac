"""skml.preprocessing scalers against their references: identical transforms.

MeanNormalizer has no scikit-learn class; its reference is the plain numpy
formula in ``benchmarks.references``.
"""

from benchmarks.case import Case

REFERENCES = {
    "StandardScaler": "sklearn.preprocessing:StandardScaler",
    "MinMaxScaler": "sklearn.preprocessing:MinMaxScaler",
    "UnitNormScaler": "sklearn.preprocessing:Normalizer",
    "MeanNormalizer": "benchmarks.references:MeanNormalizerReference",
}


def _pair(name, dataset, params=None, reference_params=None, label=""):
    params = params or {}
    return Case(
        estimator=name,
        skml=f"skml.preprocessing:{name}",
        reference=REFERENCES[name],
        dataset=dataset,
        score="transform_max_abs_diff",
        family="preprocessing",
        params=params,
        reference_params=params if reference_params is None else reference_params,
        label=label,
    )


CASES = [
    _pair(name, dataset)
    for name in REFERENCES
    for dataset in ("diabetes", "reg_20k_20")
]
