"""ProxylessNASClassifier against scikit-learn's MLPClassifier on digits.

There is no scikit-learn (or installed) counterpart of architecture search:
the reference is the dense network a user would otherwise train, one hidden
layer as wide as the searched network's residual stream, for as many epochs
as the search and the final training together. The fit-time ratio is the
price of the search; the accuracy columns show what it buys. The search
against a grid over the same architectures at equal compute is in
``python -m benchmarks.nas`` (``results/nas.md``).
"""

from benchmarks.case import Case

_EPOCHS = 60
_SEARCH = 20

CASES = [
    Case(
        estimator="ProxylessNASClassifier",
        skml="skml.neural_network:ProxylessNASClassifier",
        reference="sklearn.neural_network:MLPClassifier",
        dataset="digits",
        score="accuracy",
        family="neural_network",
        params={"n_blocks": 2, "block_width": 64, "search_epochs": _SEARCH,
                "warmup_epochs": 5, "max_iter": _EPOCHS, "tol": 0.0,
                "n_iter_no_change": _EPOCHS + 1, "random_state": 0},
        reference_params={"hidden_layer_sizes": (64,),
                          "max_iter": _EPOCHS + _SEARCH + 5, "tol": 0.0,
                          "n_iter_no_change": _EPOCHS + _SEARCH + 6,
                          "random_state": 0},
        label="search + train vs one dense layer",
    ),
]
