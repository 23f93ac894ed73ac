"""skml.manifold.TSNE and SNE against sklearn.manifold.TSNE.

t-SNE has no out-of-sample ``transform``, so both sides run through a thin
adapter (built lazily by this module's ``__getattr__``, so that the registry
imports nothing): ``fit`` is the estimator's own fit, timed as is, and
``transform`` returns the *training* embedding (the test split is ignored)
for the "trustworthiness" score, computed against the training points the
adapter keeps as ``fitted_X_``. The same perplexity, ``max_iter``, init
("pca") and seed go to both sides; scikit-learn runs its default Barnes-Hut
method, skml its default ("auto": FFT interpolation above 500 points), and
in the "barnes_hut" row both run Barnes-Hut (angle 0.5, 1000 iterations).

``SNE`` has no scikit-learn counterpart: its row runs against scikit-learn's
exact t-SNE on the same points (the crowding-problem comparison of notes A
§9.2: SNE's trustworthiness is expected lower, its time similar).
"""

from benchmarks.case import Case

_ADAPTED = {
    "SkmlTSNE": "skml.manifold:TSNE",
    "SkmlSNE": "skml.manifold:SNE",
    "SklearnTSNE": "sklearn.manifold:TSNE",
}


def _adapter(name):
    from benchmarks.case import load_object

    base = load_object(_ADAPTED[name])

    def fit(self, X, y=None):
        self.fitted_X_ = X
        base.fit(self, X, y)
        return self

    def transform(self, X):
        return self.embedding_

    return type(name, (base,), {"fit": fit, "transform": transform,
                                "__module__": __name__})


def __getattr__(name):
    if name in _ADAPTED:
        cls = _adapter(name)
        globals()[name] = cls
        return cls
    raise AttributeError(name)


_COMMON = {"perplexity": 30.0, "max_iter": 1000, "init": "pca", "random_state": 0}


def _tsne(dataset, params=None, reference_params=None, label="", **kw):
    return Case(
        estimator="TSNE",
        skml="benchmarks.cases.manifold:SkmlTSNE",
        reference="benchmarks.cases.manifold:SklearnTSNE",
        dataset=dataset,
        score="trustworthiness",
        family="manifold",
        params={**_COMMON, **(params or {})},
        reference_params={**_COMMON, **(reference_params or {})},
        label=label,
        **kw,
    )


# Barnes-Hut against Barnes-Hut at an equal number of iterations: neither
# side may stop early (no-progress and gradient-norm tests switched off).
_BH = {"method": "barnes_hut", "angle": 0.5, "n_iter_without_progress": 1000,
       "min_grad_norm": 0.0}

CASES = [
    _tsne("digits", label="fft"),
    _tsne("digits", _BH, _BH, label="barnes_hut"),
    _tsne("digits", {"method": "exact"}, {"method": "exact"}, label="exact",
          profiles=("full",)),
    _tsne("mixture_27k_50", label="fft", profiles=("full",)),
    Case(
        estimator="SNE",
        skml="benchmarks.cases.manifold:SkmlSNE",
        reference="benchmarks.cases.manifold:SklearnTSNE",
        dataset="iris",
        score="trustworthiness",
        family="manifold",
        params={"perplexity": 30.0, "random_state": 0},
        reference_params={**_COMMON, "method": "exact"},
        label="vs exact t-SNE",
    ),
]
