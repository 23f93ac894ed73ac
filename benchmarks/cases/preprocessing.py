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

# The notes' explicit feature maps (B §1.5): no scikit-learn class gives the
# same columns, so the references are the formulas (numpy broadcasting,
# scikit-learn's pairwise distances); the anchors are 8 fixed points.
_ANCHORS = [[(-1.0) ** (i + j) * (1 + (i * j) % 3) for j in range(20)] for i in range(8)]
CASES += [
    Case(estimator="QuadraticFeatureMap", skml="skml.preprocessing:QuadraticFeatureMap",
         reference="benchmarks.references:QuadraticFeatureMapReference", dataset=dataset,
         score="transform_max_abs_diff", family="preprocessing",
         params={"coef0": 1.0}, reference_params={"coef0": 1.0})
    for dataset in ("diabetes", "reg_20k_20")
] + [
    Case(estimator="DistanceToAnchors", skml="skml.preprocessing:DistanceToAnchors",
         reference="benchmarks.references:DistanceToAnchorsReference",
         dataset="reg_20k_20", score="transform_max_abs_diff", family="preprocessing",
         params={"anchors": _ANCHORS}, reference_params={"anchors": _ANCHORS})
]
