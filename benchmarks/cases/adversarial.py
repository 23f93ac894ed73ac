"""skml.adversarial's meta-estimators against the scikit-learn models they wrap.

The reference is the undefended model (scikit-learn's MLPClassifier, or its
LogisticRegression for the smoothed classifier), so the score ratio is the
clean-accuracy cost of the defence and the time ratio its overhead (the inner
attack's forward-backward passes, the noise draws). Robust accuracy against
attacks, and the comparison with ART, are in benchmarks/adversarial_peers.py.
"""

from benchmarks.case import Case

_MLP = {"hidden_layer_sizes": (32,), "learning_rate_init": 0.01, "max_iter": 50,
        "random_state": 0}


def skml_adversarial_training(**params):
    from skml.adversarial import AdversarialTrainingClassifier
    from skml.neural_network import MLPClassifier

    return AdversarialTrainingClassifier(MLPClassifier(**_MLP), **params)


def skml_trades(**params):
    from skml.adversarial import TRADESClassifier
    from skml.neural_network import MLPClassifier

    return TRADESClassifier(MLPClassifier(**_MLP), **params)


def skml_smoothed(**params):
    from skml.adversarial import SmoothedClassifier
    from skml.linear_model import LogisticRegression

    return SmoothedClassifier(LogisticRegression(max_iter=1000), **params)


def sklearn_mlp(**params):
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier(**_MLP, **params)


def _case(name, factory, reference, params, label=""):
    return Case(
        estimator=name,
        skml=f"benchmarks.cases.adversarial:{factory}",
        reference=reference,
        dataset="breast_cancer",
        score="accuracy",
        family="adversarial",
        params=params,
        label=label,
    )


CASES = [
    _case("AdversarialTrainingClassifier", "skml_adversarial_training",
          "benchmarks.cases.adversarial:sklearn_mlp",
          {"attack": "pgd", "eps": 0.1, "n_iter": 5, "random_state": 0}, "pgd"),
    _case("AdversarialTrainingClassifier", "skml_adversarial_training",
          "benchmarks.cases.adversarial:sklearn_mlp",
          {"attack": "fgsm", "eps": 0.1, "random_state": 0}, "fgsm"),
    _case("TRADESClassifier", "skml_trades", "benchmarks.cases.adversarial:sklearn_mlp",
          {"beta": 6.0, "eps": 0.1, "n_iter": 5, "random_state": 0}),
    _case("SmoothedClassifier", "skml_smoothed", "sklearn.linear_model:LogisticRegression",
          {"sigma": 0.1, "n_samples": 100, "abstain": False, "random_state": 0}),
]
