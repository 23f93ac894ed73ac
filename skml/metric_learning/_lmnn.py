"""Large margin nearest neighbour: classic LMNN and the notes' triplet form
(notes A §6.2).

Classic (Weinberger and Saul): each point's ``k`` target neighbours (nearest
same-class points in the input space) are pulled in, and any other-class
point inside the target distance plus a unit margin (an impostor) is pushed
out by a hinge. Triplet (notes S2 "LMNN algorithm", catalogue A §0 item 5):
``max(0, ||f(x) - f(x+)|| - ||f(x) - f(x-)|| + r)`` on *non-squared* distances,
with the hardest positive and negative of each anchor.

Both are minimised over a linear map ``L`` by L-BFGS (or gradient descent).
The active set (impostor pairs or hardest triplets) is searched in the
current space at every evaluation by default (the exact, continuous loss),
or every ``search_every`` iterations and held fixed in between.
"""

import sys
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.utils.validation import check_random_state

from ..utils import Interval, Options, encode_labels, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._base import (
    INIT_OPTIONS,
    _LinearMetricTransformer,
    check_init,
    initial_components,
)
from ._lmnn_search import (
    hardest_triplets,
    impostor_pairs,
    merge_pairs,
    pair_gradient,
    pair_sq_distances,
    target_neighbors,
)
from ..utils.validation import validate_data

__all__ = ["LargeMarginNearestNeighbor", "classic_loss", "triplet_loss"]


def classic_loss(components, X, targets, valid, imp_a, imp_b, margin, push_weight):
    """Weinberger and Saul's LMNN loss on a fixed impostor set, and its gradient.

    ``ε(L) = (1 - μ) Σ_{i, j⇝i} d_ij + μ Σ_{i, j⇝i} Σ_{l ∈ I(i)} [m + d_ij - d_il]_+``

    with ``d_ij = ||L(x_i - x_j)||²``, ``j⇝i`` the target neighbours,
    ``I(i)`` the candidate impostors of ``i`` (pairs ``(imp_a, imp_b)``),
    ``μ = push_weight`` and ``m = margin``.

    Returns
    -------
    loss : float
    gradient : ndarray of shape (n_components, n_features)
        ``2 Σ_pairs w (z_a - z_b)(x_a - x_b)ᵀ`` with weight ``(1 - μ) + μ·#active``
        on a target pair and ``-μ·#active`` on an impostor pair.
    """
    n_samples, k = targets.shape
    Z = X @ components.T
    anchors = np.repeat(np.arange(n_samples), k)
    d_target = pair_sq_distances(Z, anchors, targets.ravel()).reshape(n_samples, k)
    d_target[~valid] = 0.0
    pull = np.sum(d_target)
    # Hinge of every (impostor pair, target of its anchor); invalid targets off.
    d_imp = pair_sq_distances(Z, imp_a, imp_b)
    hinge = margin + d_target[imp_a] - d_imp[:, np.newaxis]
    active = (hinge > 0) & valid[imp_a]
    push = np.sum(hinge, where=active)
    loss = (1.0 - push_weight) * pull + push_weight * push

    w_target = (1.0 - push_weight) * valid.astype(np.float64)
    for j in range(k):
        w_target[:, j] += push_weight * np.bincount(
            imp_a, weights=active[:, j], minlength=n_samples
        )
    w_imp = -push_weight * active.sum(axis=1)
    a = np.concatenate([anchors, imp_a])
    b = np.concatenate([targets.ravel(), imp_b])
    w = np.concatenate([w_target.ravel(), w_imp])
    return float(loss), 2.0 * pair_gradient(Z, X, a, b, w)


def triplet_loss(components, X, anchors, positives, negatives, margin):
    """The notes' triplet ranking loss on fixed triplets, and its gradient.

    ``Σ_i max(0, ||z_i - z_{i+}|| - ||z_i - z_{i-}|| + r)`` with ``z = Lx``
    and *non-squared* distances; ``∂||L v||/∂L = L v vᵀ / ||L v||`` (taken
    as 0 at a zero distance).
    """
    Z = X @ components.T
    d_pos = np.sqrt(pair_sq_distances(Z, anchors, positives))
    d_neg = np.sqrt(pair_sq_distances(Z, anchors, negatives))
    hinge = d_pos - d_neg + margin
    active = hinge > 0
    loss = float(np.sum(hinge, where=active))
    with np.errstate(divide="ignore"):
        w_pos = np.where(active & (d_pos > 0), 1.0 / d_pos, 0.0)
        w_neg = np.where(active & (d_neg > 0), -1.0 / d_neg, 0.0)
    a = np.concatenate([anchors, anchors])
    b = np.concatenate([positives, negatives])
    return loss, pair_gradient(Z, X, a, b, np.concatenate([w_pos, w_neg]))


def _target_radius(Z, targets, valid, margin):
    """Largest squared target distance of each point, plus the margin."""
    n_samples, k = targets.shape
    anchors = np.repeat(np.arange(n_samples), k)
    d = pair_sq_distances(Z, anchors, targets.ravel()).reshape(n_samples, k)
    d[~valid] = -np.inf
    radius = d.max(axis=1, initial=-np.inf) + margin
    # A point without targets has no hinge: no impostors either.
    radius[~valid.any(axis=1)] = -np.inf
    return radius


@fill_class_docs(SECTIONS)
class LargeMarginNearestNeighbor(_LinearMetricTransformer):
    """Large margin nearest neighbour metric learning (LMNN), two objectives.

    Notes A §6.2 (S2 "LMNN algorithm"). A linear map ``L`` is learnt so that
    ``||L(x - x')||`` suits a k-NN classifier.

    - ``objective="classic"`` (Weinberger and Saul, 2009): minimise
      ``(1 - μ) Σ_{i, j⇝i} d_ij + μ Σ_{i, j⇝i} Σ_{l: y_l ≠ y_i} [m + d_ij - d_il]_+``
      with squared distances ``d_ij = ||L(x_i - x_j)||²``, the ``k``
      target neighbours ``j⇝i`` fixed as the nearest same-class points in
      the input space, margin ``m`` (1 in the paper) and ``μ = push_weight``.
    - ``objective="triplet"`` (the notes' form, which is not Weinberger's,
      catalogue A §0 item 5): minimise
      ``Σ_i max(0, ||Lx_i - Lx_i+|| - ||Lx_i - Lx_i-|| + r)`` on *non-squared*
      distances, with the worst-case positive ``x_i+`` (farthest same-class
      point) and negative ``x_i-`` (nearest other-class point), ``r = margin``.

    The active set (impostors, or hardest triplets) is searched in the
    current space at every loss evaluation by default, so the solver sees
    the exact objective, continuous and piecewise smooth; with
    ``search_every > 1`` it is held fixed for that many iterations.

    Parameters
    ----------
    n_neighbors : int, default=3
        Target neighbours per point (classic only); fewer in a class of at
        most ``n_neighbors`` points.
    n_components : int, default=None
        Dimension of the learnt space; ``n_features`` by default.
    objective : {"classic", "triplet"}, default="classic"
        The loss, see above.
    init : {"pca", "lda", "identity", "random", "auto"} or ndarray of shape \
            (n_components, n_features), default="pca"
        Starting map (the same choices as
        :class:`NeighborhoodComponentsAnalysis`).
    margin : float, default=1.0
        The hinge margin (``m``, or the notes' ``r``).
    push_weight : float, default=0.5
        ``μ`` in [0, 1], the weight of the impostor hinge against the pull
        (classic only).
    solver : {"lbfgs", "gd"}, default="lbfgs"
        L-BFGS-B (scipy) or plain gradient descent with ``learning_rate``.
    learning_rate : float, default=1e-5
        Step of ``solver="gd"`` (the loss is a sum over points: its
        gradient grows with ``n``, hence a small step).
    max_iter : int, default=50
        Most solver iterations in total.
    tol : float, default=1e-5
        L-BFGS-B's ``tol``; with ``search_every > 1``, also stop when a round
        between two searches lowers the loss by less than ``tol`` times its
        value and the search finds the same active set.
    search_every : int, default=1
        Solver iterations between two impostor (or triplet) searches. 1
        searches at every evaluation (exact loss, one L-BFGS run). Larger
        values hold the set fixed in between (for classic LMNN the union of
        all the sets found, as in Weinberger and Saul's solver): fewer
        searches, but L-BFGS may step past impostors it does not see, and
        on standardised digits this was slower overall than the default.
    max_impostors : int, default=500_000
        Most impostor pairs kept per search (a uniform random subset above).
    verbose : int, default=0
        Print the loss after each round when > 0.
    random_state : int, RandomState instance or None, default=None
        Seed of the "random" init and of the impostor subsampling.
    n_jobs : int, default=None
        Threads for the impostor search (joblib).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The learnt map ``L``.
    objective_ : float
        The loss at ``components_`` with the active set searched there
        (impostors capped as in ``fit``).
    n_iter_ : int
        Solver iterations run.
    n_searches_ : int
        Active-set searches run.
    n_neighbors_ : int
        Target neighbours actually used (classic).
    <fitted_feature_attributes>

    See Also
    --------
    NeighborhoodComponentsAnalysis : The stochastic 1-NN objective.

    Notes
    -----
    A search costs O(n² c) time (blocks of rows, O(block · n) memory); a loss
    evaluation costs O((n k + E) k c + n c d) for ``E`` impostor pairs and
    ``c = n_components``: the gradient ``2 Σ w (z_a - z_b)(x_a - x_b)ᵀ`` is a
    scatter of ``E`` rows into an (n, c) matrix followed by one product with
    ``X``, never a d x d outer product per pair.

    scikit-learn has no LMNN; metric-learn's ``LMNN`` solves the classic
    objective by sub-gradient steps with step-size adaptation.

    References
    ----------
    Weinberger, K. Q. and Saul, L. K. (2009). Distance metric learning for
    large margin nearest neighbor classification. JMLR 10, 207-244.

    Schroff, F., Kalenichenko, D. and Philbin, J. (2015). FaceNet: a unified
    embedding for face recognition and clustering. CVPR (the triplet loss).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.metric_learning import LargeMarginNearestNeighbor
    >>> X, y = load_iris(return_X_y=True)
    >>> lmnn = LargeMarginNearestNeighbor(n_neighbors=3, random_state=0).fit(X, y)
    >>> lmnn.transform(X).shape, lmnn.n_neighbors_
    ((150, 4), 3)
    """

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "objective": [Options({"classic", "triplet"})],
        "init": [Options(INIT_OPTIONS), np.ndarray],
        "margin": [Interval(Real, 0, None, closed="neither")],
        "push_weight": [Interval(Real, 0, 1, closed="both")],
        "solver": [Options({"lbfgs", "gd"})],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "search_every": [Interval(Integral, 1, None, closed="left")],
        "max_impostors": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        n_neighbors=3,
        n_components=None,
        *,
        objective="classic",
        init="pca",
        margin=1.0,
        push_weight=0.5,
        solver="lbfgs",
        learning_rate=1e-5,
        max_iter=50,
        tol=1e-5,
        search_every=1,
        max_impostors=500_000,
        verbose=0,
        random_state=None,
        n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.objective = objective
        self.init = init
        self.margin = margin
        self.push_weight = push_weight
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.search_every = search_every
        self.max_impostors = max_impostors
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _search(self, components, X, y, targets, valid, rng):
        """The active set in the space of ``components``, as a tuple of arrays."""
        Z = X @ components.T
        if self.objective == "triplet":
            return hardest_triplets(Z, y)
        radius = _target_radius(Z, targets, valid, self.margin)
        return impostor_pairs(
            Z, y, radius, max_impostors=self.max_impostors, rng=rng, n_jobs=self.n_jobs
        )

    def _loss(self, components, X, targets, valid, active):
        if self.objective == "triplet":
            return triplet_loss(components, X, *active, self.margin)
        return classic_loss(
            components, X, targets, valid, *active, self.margin, self.push_weight
        )

    def _run_solver(self, L, fun, budget):
        """``budget`` iterations from ``L`` on a fixed active set."""
        if self.solver == "lbfgs":
            result = minimize(
                lambda a: (lambda f, g: (f, g.ravel()))(*fun(a.reshape(L.shape))),
                L.ravel(), method="L-BFGS-B", jac=True, tol=self.tol,
                options={"maxiter": budget},
            )
            return result.x.reshape(L.shape), float(result.fun), int(result.nit)
        for _ in range(budget):
            L = L - self.learning_rate * fun(L)[1]
        return L, fun(L)[0], budget

    def _fit_exact(self, L, X, targets, valid, search):
        """Search at every evaluation: L-BFGS on the exact objective.

        With every impostor (or hardest triplet) found in the current space
        the loss is a continuous, piecewise smooth function of ``L`` (a hinge
        is 0 where a pair enters or leaves the set), so one solver run needs
        no restarts.
        """
        self.n_searches_ = 0

        def fun(components):
            self.n_searches_ += 1
            return self._loss(components, X, targets, valid, search(components))

        L, loss, self.n_iter_ = self._run_solver(L, fun, self.max_iter)
        if self.verbose:
            print(f"[{type(self).__name__}] {self.n_iter_} iterations, loss {loss:.6e}")
        return L

    def _fit_rounds(self, L, X, targets, valid, search):
        """Rounds of ``search_every`` iterations on a fixed active set."""

        def fun(components):
            # ``active`` is the set of the latest search (rebound below).
            return self._loss(components, X, targets, valid, active)

        active = search(L)
        self.n_iter_, self.n_searches_ = 0, 1
        while self.n_iter_ < self.max_iter:
            budget = min(self.search_every, self.max_iter - self.n_iter_)
            start_loss = fun(L)[0]
            L, loss, nit = self._run_solver(L, fun, budget)
            self.n_iter_ += max(nit, 1)
            if self.verbose:
                print(
                    f"[{type(self).__name__}] iter {self.n_iter_:>4} loss "
                    f"{start_loss:.6e} -> {loss:.6e}, active set {active[0].size}"
                )
                sys.stdout.flush()
            new_active = search(L)
            self.n_searches_ += 1
            if self.objective == "classic":
                # Weinberger and Saul keep every impostor ever found: a pair
                # pushed out stays enforced, so the solver cannot pull it
                # back in unseen between two searches.
                new_active = merge_pairs(active, new_active, X.shape[0])
                if new_active[0].size > self.max_impostors:
                    keep = np.sort(
                        np.random.RandomState(0).choice(
                            new_active[0].size, self.max_impostors, replace=False
                        )
                    )
                    new_active = (new_active[0][keep], new_active[1][keep])
            same_set = _same_set(new_active, active)
            active = new_active
            stalled = start_loss - loss <= self.tol * max(abs(start_loss), 1e-12)
            converged = self.solver == "lbfgs" and nit < budget
            if same_set and (stalled or converged):
                break
        return L

    def fit(self, X, y):
        """Learn the map ``L``.

        <supervised_fit>
        """
        validate_params(self)
        # C order: a Fortran-ordered X (every pandas frame) changes how BLAS
        # rounds the products, and the impostor search's ties with them, so
        # the same data in another layout gave another map (issue 23).
        X, y = validate_data(
            self, X, y, ensure_min_samples=2, dtype=np.float64, order="C"
        )
        classes, y_enc = encode_labels(y, min_classes=1)
        if len(classes) < 2:
            # metric-learn's LMNN fails on one class too (scikit-learn has no
            # LMNN): with no impostors the loss is the pull term alone, whose
            # minimum is the map 0.
            raise ValueError(
                f"{type(self).__name__} needs at least two classes in y (it "
                f"pushes other-class points away); y holds one: {classes[0]!r}."
            )
        init = check_init(self, X)
        rng = check_random_state(self.random_state)
        if np.bincount(y_enc).max() < 2:
            raise ValueError(
                "LMNN needs a class with at least two samples (each class here "
                "has one): there are no same-class neighbours to pull."
            )
        L = initial_components(init, X, y_enc, self.n_components, len(classes), rng)

        if self.objective == "classic":
            targets, valid = target_neighbors(X, y_enc, self.n_neighbors)
        else:
            targets = valid = None
        self.n_neighbors_ = 0 if targets is None else targets.shape[1]

        # A fixed seed per fit: with more than max_impostors candidates the
        # subset kept depends only on the candidates, so that repeated
        # evaluations at one point agree (the line search relies on it).
        seed = rng.randint(np.iinfo(np.int32).max)

        def search(components):
            return self._search(
                components, X, y_enc, targets, valid, np.random.RandomState(seed)
            )

        if self.search_every == 1:
            L = self._fit_exact(L, X, targets, valid, search)
        else:
            L = self._fit_rounds(L, X, targets, valid, search)
        self.components_ = L
        self.objective_ = self._loss(L, X, targets, valid, search(L))[0]
        return self


def _same_set(first, second):
    return len(first) == len(second) and all(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(first, second)
    )
