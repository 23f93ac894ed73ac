"""Stochastic Neighbour Embedding, the original (notes A §9.2)."""

from numbers import Integral, Real
from time import perf_counter

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_random_state

from ..utils import Interval, Options, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ._affinities import _check_perplexity, dense_conditional
from ._gradients import sne_exact
from ._t_sne import (
    DOC_FIT_TRANSFORM,
    METRICS,
    EmbeddingFitMixin,
    check_init_and_metric,
    check_precomputed,
    conditioned_points,
    initial_embedding,
    optimize,
)
from ..utils.validation import validate_data

__all__ = ["SNE"]


@fill_doc(**{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
class SNE(EmbeddingFitMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
          BaseEstimator):
    """Stochastic Neighbour Embedding (Hinton and Roweis's original SNE).

    The notes' SNE (notes A §9.2): the same perplexity-calibrated
    conditionals ``p_{j|i}`` as t-SNE (§9.1), but kept asymmetric, and a
    Gaussian kernel of fixed width in the embedding,
    ``q_{j|i} = exp(-|y_i - y_j|^2) / sum_{k != i} exp(-|y_i - y_k|^2)``.
    The loss is the sum of the per-point divergences
    ``C = sum_i KL(P_i || Q_i)``, minimised by gradient descent with
    momentum (and the delta-bar-delta gains of :class:`TSNE`'s optimiser),
    with the gradient

    ``dC/dy_i = 2 sum_j (p_{j|i} - q_{j|i} + p_{i|j} - q_{i|j}) (y_i - y_j)``.

    Its light-tailed kernel suffers from the crowding problem the notes
    describe: moderately distant points cannot be placed far enough apart in
    2-d, so clusters merge in the centre; :class:`TSNE`'s Student-t kernel
    relieves it.

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the embedding.
    perplexity : float, default=30.0
        Effective number of neighbours of each point (below ``n_samples``).
    learning_rate : float, default=0.1
        Step size. The gradient of a sum of n per-point divergences is of
        order 1 per point (t-SNE's joint P makes it of order 1/n, hence its
        much larger rate); 1.0 already diverges on iris.
    max_iter : int, default=1000
        Number of iterations (momentum 0.5 for the first 250, then 0.8).
    n_iter_without_progress : int, default=300
        Stop after this many iterations without a lower loss (tested every 50).
    min_grad_norm : float, default=1e-7
        Stop when the gradient norm falls below this (tested every 50).
    metric : str, default="euclidean"
        As :class:`TSNE`'s.
    init : {"pca", "random"} or ndarray of shape (n_samples, n_components), \
            default="pca"
        As :class:`TSNE`'s (PCA scaled to standard deviation 1e-4).
    verbose : int, default=0
        1: timings; 2: also the loss every 50 iterations.
    random_state : int, RandomState instance or None, default=None
        Seeds the PCA's range finder or the random init.
    n_jobs : int, default=None
        Threads of the neighbour search for non-Euclidean metrics.

    Attributes
    ----------
    embedding_ : ndarray of shape (n_samples, n_components)
        The embedding.
    kl_divergence_ : float
        The loss ``sum_i KL(P_i || Q_i)`` after the optimisation.
    n_iter_ : int
        Number of iterations run (counted from 0).
    <fitted feature attributes>

    See Also
    --------
    TSNE : The symmetric, heavy-tailed successor.

    Notes
    -----
    Exact: O(n^2) time and memory per iteration (vectorised numpy). The
    notes give no gradient or optimiser; the gradient is Hinton and Roweis's,
    the optimiser :class:`TSNE`'s without exaggeration.

    References
    ----------
    G. Hinton and S. Roweis, "Stochastic Neighbor Embedding", NIPS 15, 2002.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.manifold import SNE
    >>> X = np.random.RandomState(0).normal(size=(30, 4))
    >>> SNE(perplexity=5, max_iter=300, random_state=0).fit_transform(X).shape
    (30, 2)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "perplexity": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_iter_without_progress": [Interval(Integral, -1, None, closed="left")],
        "min_grad_norm": [Interval(Real, 0, None, closed="left")],
        "metric": [Options(METRICS)],
        "init": [Options({"pca", "random"}), np.ndarray],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, n_components=2, *, perplexity=30.0, learning_rate=0.1,
                 max_iter=1000, n_iter_without_progress=300, min_grad_norm=1e-7,
                 metric="euclidean", init="pca", verbose=0, random_state=None,
                 n_jobs=None):
        self.n_components = n_components
        self.perplexity = perplexity
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_iter_without_progress = n_iter_without_progress
        self.min_grad_norm = min_grad_norm
        self.metric = metric
        self.init = init
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        # CSR/CSC points (issue 20), as TSNE's exact method: the distances
        # come from the stored entries; sparse precomputed distances refused.
        tags.input_tags.sparse = self.metric != "precomputed"
        return tags

    @fill_doc(sections=DOC_FIT_TRANSFORM)
    def fit_transform(self, X, y=None):
        """Fit the embedding and return it.

        <sections>
        """
        validate_params(self)
        X = validate_data(self, X, dtype=np.float64, order="C", ensure_min_samples=2,
                          accept_sparse="csr")
        n = X.shape[0]
        if sp.issparse(X) and self.metric == "precomputed":
            # scikit-learn's TSNE(method="exact") refuses them the same way:
            # SNE's P needs every pairwise distance.
            raise TypeError(
                "SNE does not accept a sparse precomputed distance matrix (it needs "
                "every distance, as TSNE's exact method); pass the dense matrix."
            )
        if self.metric == "precomputed":
            check_precomputed(X, "SNE")
        _check_perplexity(self.perplexity, n)
        init = check_init_and_metric(self, X, n)
        X = conditioned_points(X, self.metric)
        rng = check_random_state(self.random_state)
        tic = perf_counter()
        P = dense_conditional(X, self.perplexity, self.metric, self.n_jobs)

        def objective(Y, exaggeration, grad, compute_error=True):
            return sne_exact(Y, P, exaggeration, grad, compute_error)

        Y = initial_embedding(init, X, self.n_components, rng)
        self.embedding_, self.kl_divergence_, self.n_iter_ = optimize(
            objective, Y, learning_rate=float(self.learning_rate),
            early_exaggeration=1.0, max_iter=self.max_iter,
            n_iter_without_progress=self.n_iter_without_progress,
            min_grad_norm=self.min_grad_norm, verbose=self.verbose, name="SNE",
        )
        if self.verbose:
            print(f"[SNE] loss after {self.n_iter_ + 1} iterations: "
                  f"{self.kl_divergence_:.6f} ({perf_counter() - tic:.3f} s).")
        self._n_features_out = self.n_components
        return self.embedding_
