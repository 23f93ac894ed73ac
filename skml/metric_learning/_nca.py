"""Neighbourhood components analysis (notes A §6.1).

A linear map ``L`` is learnt so that a stochastic 1-NN rule, which picks
neighbour ``j`` of ``x_i`` with probability
``p_ij = exp(-||Lx_i - Lx_j||²) / Σ_{k≠i} exp(-||Lx_i - Lx_k||²)`` (``p_ii = 0``),
classifies as many training points correctly as possible: the notes'
``L(A) = Σ_i P_i`` with ``P_i = Σ_{j: c_j = c_i} p_ij``, *maximised* (the notes
call it a loss, catalogue A §0 item 4). L-BFGS minimises ``-L(A)``.
"""

import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_random_state

from ..utils import Interval, Options, encode_labels, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ..utils._magnitude import magnitude_scale
from ._base import (
    INIT_OPTIONS,
    _LinearMetricTransformer,
    check_init,
    initial_components,
)
from ..utils.validation import validate_data

__all__ = ["NeighborhoodComponentsAnalysis", "nca_objective"]

# Rows of the n x n probability matrix held at once: about 64 MiB of float64.
# The objective and its gradient are sums over rows, so blocks of rows give
# the same numbers in O(block * n) memory instead of O(n²).
_WORKING_MEMORY_ELEMENTS = 8 * 1024 * 1024


def _class_ranges(y_sorted, n_classes):
    """``(start, stop)`` of each class in labels sorted by class."""
    counts = np.bincount(y_sorted, minlength=n_classes)
    stops = np.cumsum(counts)
    return np.column_stack([stops - counts, stops])


def nca_objective(components, X, y_sorted, ranges, *, block_rows=None):
    """The notes' ``L(A) = Σ_i P_i`` and its gradient with respect to ``A``.

    Parameters
    ----------
    components : ndarray of shape (n_components, n_features)
        The linear map ``A`` (``L`` in scikit-learn's naming).
    X : ndarray of shape (n_samples, n_features)
        Samples **sorted by class**, so that the same-class neighbours of a
        row are one contiguous column range.
    y_sorted : ndarray of shape (n_samples,)
        Class codes ``0..n_classes-1``, non-decreasing.
    ranges : ndarray of shape (n_classes, 2)
        Column range of each class (see :func:`_class_ranges`).
    block_rows : int, default=None
        Rows of ``p`` computed at once; by default about 64 MiB worth.

    Returns
    -------
    objective : float
        ``Σ_i P_i``, in ``[0, n_samples]``.
    gradient : ndarray of shape (n_components, n_features)
        The notes' ``2A Σ_i (P_i Σ_k p_ik x_ik x_ikᵀ - Σ_{j∈C_i} p_ij x_ij x_ijᵀ)``
        (``x_ij = x_i - x_j``), i.e. ``-2 Σ_ij W_ij (z_i - z_j)(x_i - x_j)ᵀ``
        with ``W_ij = p_ij (1[c_j = c_i] - P_i)`` and ``z = Ax``: the
        gradient of the maximised quantity.
    """
    n_samples = X.shape[0]
    Z = X @ components.T
    # ||z_i - z_j||² = ||z_i||² - 2 z_i·z_j + ||z_j||²: the ||z_i||² term is the
    # same along row i and cancels in the row's softmax, so the logits are
    # 2 z_i·z_j - ||z_j||² (one pass fewer over n² than full distances).
    sq_norms = np.einsum("ij,ij->i", Z, Z)
    if block_rows is None:
        block_rows = max(1, _WORKING_MEMORY_ELEMENTS // max(n_samples, 1))
    objective = 0.0
    WZ = np.empty_like(Z)  # rows of W @ Z
    WtZ = np.zeros_like(Z)  # W.T @ Z, accumulated over blocks
    col_sums = np.zeros(n_samples)  # W.sum(axis=0)
    for start in range(0, n_samples, block_rows):
        stop = min(start + block_rows, n_samples)
        P = Z[start:stop] @ Z.T
        P *= 2.0
        P -= sq_norms
        rows = np.arange(stop - start)
        P[rows, rows + start] = -np.inf  # p_ii = 0
        P -= P.max(axis=1, keepdims=True)
        np.exp(P, out=P)
        P /= P.sum(axis=1, keepdims=True)
        # P_i and W = p_ij (1[same class] - P_i), block row by class.
        y_block = y_sorted[start:stop]
        p_same = np.empty(stop - start)
        for c in np.unique(y_block):
            r0, r1 = np.searchsorted(y_block, [c, c + 1])
            c0, c1 = ranges[c]
            p_same[r0:r1] = P[r0:r1, c0:c1].sum(axis=1)
            P[r0:r1, :c0] *= -p_same[r0:r1, np.newaxis]
            P[r0:r1, c0:c1] *= 1.0 - p_same[r0:r1, np.newaxis]
            P[r0:r1, c1:] *= -p_same[r0:r1, np.newaxis]
        objective += p_same.sum()
        WZ[start:stop] = P @ Z
        WtZ += P.T @ Z[start:stop]
        col_sums += P.sum(axis=0)
    # Rows of W sum to zero (P_i - P_i Σ_j p_ij), so
    # -Σ_ij W_ij (z_i - z_j)(x_i - x_j)ᵀ = Mᵀ X with M = WZ + WᵀZ - diag(colsum) Z.
    M = WZ + WtZ - col_sums[:, np.newaxis] * Z
    return objective, 2.0 * (M.T @ X)


@fill_class_docs(SECTIONS)
class NeighborhoodComponentsAnalysis(_LinearMetricTransformer):
    """Neighbourhood components analysis: a linear map for stochastic 1-NN.

    The notes' NCA (notes A §6.1, S0 §6 and S2 "NCA algorithm") with a linear
    ``f(x) = Ax``: maximise the expected number of training points that a
    stochastic nearest-neighbour rule classifies correctly,

    ``L(A) = Σ_i Σ_{j: c_j = c_i} p_ij``,
    ``p_ij = exp(-||Ax_i - Ax_j||²) / Σ_{k≠i} exp(-||Ax_i - Ax_k||²)``, ``p_ii = 0``,

    the soft ("make hard to soft") surrogate of leave-one-out 1-NN accuracy.
    The analytic gradient is used by L-BFGS-B (scipy) on ``-L(A)``.

    Parameters
    ----------
    n_components : int, default=None
        Dimension of the learnt space (rows of ``A``); ``n_features`` by
        default.
    init : {"auto", "pca", "lda", "identity", "random"} or ndarray of shape \
            (n_components, n_features), default="auto"
        Starting map. "auto" is "lda" when ``n_components <= n_classes - 1``,
        else "pca" when ``n_components < min(n_features, n_samples)``, else
        "identity" (scikit-learn's rule). "pca" and "lda" are skml's own.
    warm_start : bool, default=False
        Start from the previous ``components_`` (then ``init`` is ignored).
    max_iter : int, default=50
        Most L-BFGS iterations.
    tol : float, default=1e-5
        L-BFGS-B's ``tol`` (relative decrease of the objective and projected
        gradient).
    callback : callable, default=None
        Called after every iteration as ``callback(components_flat, n_iter)``.
    verbose : int, default=0
        When > 0, print the progress as scikit-learn's NCA does: the init's
        time ("pca", "lda"), a table of the objective at every evaluation
        and the training time.
    random_state : int, RandomState instance or None, default=None
        Seed of the "random" init.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The learnt map ``A``.
    objective_ : float
        ``L(A)`` at the end, the expected number of correctly classified
        training points (in ``[0, n_samples]``).
    n_iter_ : int
        Number of L-BFGS iterations run.
    random_state_ : RandomState
        The generator used for the "random" init.
    <fitted_feature_attributes>

    See Also
    --------
    LargeMarginNearestNeighbor : Margin-based metric learning (LMNN).
    sklearn.neighbors.NeighborhoodComponentsAnalysis : The scikit-learn
        counterpart (same objective, maximised as ``Σ_i p_i``).

    Notes
    -----
    One evaluation costs O(n² c + n c d) time (``c = n_components``) and,
    because the rows of ``p`` are processed in blocks of about 64 MiB, O(n c +
    block) memory rather than O(n²). Sorting the samples by class once makes
    each point's same-class neighbours a contiguous column range, so the
    class mask costs nothing; the ``||Ax_i||²`` term, constant along a row,
    is dropped from the softmax logits.

    The objective is not scale-invariant (``A`` starts at a fixed map). Data
    of extreme magnitude (largest ``|x|`` beyond ``2**±400``, e.g. ``X *
    1e300``, where the squared distances overflow, or ``X * 1e-300``, where
    they vanish) is fitted as ``X / s`` for the power of two ``s`` bringing it
    near 1, and ``components_`` is the learnt map divided by ``s``.

    The gradient, in the notes' form, is
    ``∂L/∂A = 2A Σ_i (P_i Σ_k p_ik x_ik x_ikᵀ - Σ_{j∈C_i} p_ij x_ij x_ijᵀ)``
    with ``x_ij = x_i - x_j``; it is computed as ``2 Mᵀ X`` with ``M`` of shape
    (n, c) from three products, never forming the d x d outer products.

    References
    ----------
    Goldberger, J., Roweis, S., Hinton, G. and Salakhutdinov, R. (2005).
    Neighbourhood components analysis. NIPS 17, 513-520.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.metric_learning import NeighborhoodComponentsAnalysis
    >>> X, y = load_iris(return_X_y=True)
    >>> nca = NeighborhoodComponentsAnalysis(n_components=2, random_state=0)
    >>> nca.fit(X, y).transform(X).shape
    (150, 2)
    >>> bool(nca.objective_ > 140)
    True
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "init": [Options(INIT_OPTIONS), np.ndarray],
        "warm_start": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components=None,
        *,
        init="auto",
        warm_start=False,
        max_iter=50,
        tol=1e-5,
        callback=None,
        verbose=0,
        random_state=None,
    ):
        self.n_components = n_components
        self.init = init
        self.warm_start = warm_start
        self.max_iter = max_iter
        self.tol = tol
        self.callback = callback
        self.verbose = verbose
        self.random_state = random_state

    def fit(self, X, y):
        """Learn the map ``A`` by maximising the notes' ``L(A)``.

        <supervised_fit>
        """
        validate_params(self)
        X, y = validate_data(self, X, y, ensure_min_samples=2, dtype=np.float64)
        # One class is valid (scikit-learn fits it): every neighbour is then
        # of the right class, L(A) = n everywhere and the start is kept.
        classes, y_enc = encode_labels(y, min_classes=1)
        init = check_init(self, X)
        self.random_state_ = check_random_state(self.random_state)
        # exp(-||A(x_i - x_j)||²) is not scale-invariant, and at X * 1e300 the
        # squared norms overflow (NaN) while at X * 1e-300 every p_ij is
        # uniform and the gradient ~1e-300 (L-BFGS cannot leave the start).
        # Data of such magnitude is fitted as X / s (s an exact power of two
        # bringing max |x| into [0.5, 1)) and the map returned as A / s, so
        # that transform(X) is the fit's embedding; s = 1 otherwise.
        scale = magnitude_scale(X)
        if scale != 1.0:
            X = X / scale
        if self.warm_start and hasattr(self, "components_"):
            A0 = self.components_ * scale
        elif isinstance(init, np.ndarray):
            A0 = init * scale
        else:
            A0 = initial_components(
                init, X, y_enc, self.n_components, len(classes), self.random_state_,
                verbose=bool(self.verbose),
            )

        # The objective is a sum over points: sorting them by class changes
        # nothing but makes the same-class mask a set of column ranges.
        order = np.argsort(y_enc, kind="stable")
        X_sorted, y_sorted = X[order], y_enc[order]
        ranges = _class_ranges(y_sorted, len(classes))
        n_features = X.shape[1]
        t_start = time.time()
        # The progress table is scikit-learn's NCA's, line for line.
        tag = f"[{type(self).__name__}]"
        if self.verbose:
            header = f"{'Iteration':>10} {'Objective Value':>20} {'Time(s)':>10}"
            print(f"{tag}\n{tag} {header}\n{tag} {'-' * len(header)}")
        t_eval = [time.time()]

        def fun(a_flat):
            value, grad = nca_objective(
                a_flat.reshape(-1, n_features), X_sorted, y_sorted, ranges
            )
            if self.verbose:
                now = time.time()
                print(f"{tag} {self.n_iter_:>10} {value:>20.6e} {now - t_eval[0]:>10.2f}")
                t_eval[0] = now
                sys.stdout.flush()
            # L-BFGS minimises: the notes' objective is maximised.
            return -value, -grad.ravel()

        def on_iteration(a_flat):
            self.n_iter_ += 1
            if self.callback is not None:
                self.callback(a_flat / scale, self.n_iter_)

        self.n_iter_ = 0
        result = minimize(
            fun,
            np.ravel(A0),
            method="L-BFGS-B",
            jac=True,
            tol=self.tol,
            options={"maxiter": self.max_iter},
            callback=on_iteration,
        )
        self.components_ = result.x.reshape(-1, n_features) / scale
        self.objective_ = -float(result.fun)
        if self.verbose:
            print(f"{tag} Training took {time.time() - t_start:8.2f}s.")
        if self.verbose and not result.success:
            warnings.warn(
                f"[{type(self).__name__}] NCA did not converge: {result.message}",
                ConvergenceWarning,
            )
        return self
