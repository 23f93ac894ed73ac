"""skml.generative and skml.contrastive against their classical scikit-learn baselines.

Neither estimator has a scikit-learn counterpart (their peers, torchcfm and
lightly, need PyTorch; ``benchmarks/generative.py`` is the fuller study), so
each row runs against the classical method for the same job, through thin
adapters built lazily by this module's ``__getattr__`` (the registry imports
nothing):

- ``RectifiedFlow`` against ``sklearn.mixture.GaussianMixture`` (5 full
  components) as density models of iris: the flow's "log-likelihood" of the
  test split is that of a Gaussian kernel density estimate (Scott's
  bandwidth) of 2000 of its samples; the mixture's is its own density. A
  sample-quality figure, not a likelihood the flow computes.
- ``GAN`` against the same mixture, scored the same way (a kernel density
  estimate of 2000 of its samples).
- ``ContrastiveEmbedding`` against ``sklearn.decomposition.PCA`` at the same
  dimension (16) on digits, scored by the accuracy of a logistic-regression
  probe fitted on the embedded training split (the linear evaluation
  protocol of SimCLR).
"""

from benchmarks.case import Case

_ADAPTED = {
    "FlowDensity": "skml.generative:RectifiedFlow",
    "GANDensity": "skml.generative:GAN",
    "ContrastiveProbe": "skml.contrastive:ContrastiveEmbedding",
    "PCAProbe": "sklearn.decomposition:PCA",
}


def _flow_density(base):
    import numpy as np
    from scipy.special import logsumexp

    def fit(self, X, y=None):
        base.fit(self, X)
        S = self.sample(2000)
        n, d = S.shape
        # Scott's rule per feature.
        self.bandwidth_ = S.std(axis=0) * n ** (-1.0 / (d + 4))
        self.kde_points_ = S
        return self

    def score_samples(self, X):
        Z = (np.asarray(X)[:, None, :] - self.kde_points_[None]) / self.bandwidth_
        log_k = -0.5 * np.sum(Z ** 2, axis=2) - np.sum(np.log(self.bandwidth_)) - (
            0.5 * Z.shape[2] * np.log(2 * np.pi))
        return logsumexp(log_k, axis=1) - np.log(self.kde_points_.shape[0])

    return {"fit": fit, "score_samples": score_samples}


def _probe(base):
    def fit(self, X, y):
        from sklearn.linear_model import LogisticRegression

        Z = base.fit(self, X).transform(X)
        self.probe_ = LogisticRegression(max_iter=3000).fit(Z, y)
        self.classes_ = self.probe_.classes_
        return self

    def predict(self, X):
        return self.probe_.predict(self.transform(X))

    return {"fit": fit, "predict": predict}


def __getattr__(name):
    if name not in _ADAPTED:
        raise AttributeError(name)
    from benchmarks.case import load_object

    base = load_object(_ADAPTED[name])
    density = name in ("FlowDensity", "GANDensity")
    methods = _flow_density(base) if density else _probe(base)
    return type(name, (base,), {**methods, "__module__": __name__})


CASES = [
    Case(
        estimator="RectifiedFlow",
        skml="benchmarks.cases.generative:FlowDensity",
        reference="sklearn.mixture:GaussianMixture",
        dataset="iris",
        score="mean_log_likelihood",
        family="generative",
        params={"n_steps": 50, "max_iter": 100, "random_state": 0},
        reference_params={"n_components": 5, "random_state": 0},
    ),
    Case(
        estimator="GAN",
        skml="benchmarks.cases.generative:GANDensity",
        reference="sklearn.mixture:GaussianMixture",
        dataset="iris",
        score="mean_log_likelihood",
        family="generative",
        params={"max_iter": 300, "random_state": 0},
        reference_params={"n_components": 5, "random_state": 0},
    ),
    Case(
        estimator="ContrastiveEmbedding",
        skml="benchmarks.cases.generative:ContrastiveProbe",
        reference="benchmarks.cases.generative:PCAProbe",
        dataset="digits",
        score="accuracy",
        family="contrastive",
        params={"n_components": 16, "hidden_layer_sizes": (256,), "temperature": 0.2,
                "max_iter": 100, "random_state": 0},
        reference_params={"n_components": 16, "random_state": 0},
    ),
]
