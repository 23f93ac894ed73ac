"""skml.neural_network against sklearn.neural_network at the same architecture.

Both sides run solver="adam" for a fixed number of epochs: ``tol=0`` with
``n_iter_no_change`` above ``max_iter`` means neither stops early, so the fit
times compare the same amount of work (one hidden layer of 100 ReLU units,
batches of 200, scikit-learn's Glorot initialisation on both sides).
"""

from benchmarks.case import Case


def _pair(name, dataset, score, epochs, **params):
    params = {
        "hidden_layer_sizes": (100,), "solver": "adam", "max_iter": epochs,
        "tol": 0.0, "n_iter_no_change": epochs + 1, "random_state": 0, **params,
    }
    return Case(
        estimator=name,
        skml=f"skml.neural_network:{name}",
        reference=f"sklearn.neural_network:{name}",
        dataset=dataset,
        score=score,
        family="neural_network",
        params=params,
        reference_params=params,
    )


CASES = [
    _pair("MLPClassifier", "digits", "accuracy", 100),
    _pair("MLPClassifier", "clf_20k_20", "accuracy", 20),
    _pair("MLPRegressor", "diabetes", "r2", 100, learning_rate_init=0.01),
    _pair("MLPRegressor", "reg_20k_20", "r2", 20, learning_rate_init=0.01),
]
