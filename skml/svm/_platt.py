"""Probabilities for SVC: Platt's sigmoid on cross-validated decision values.

What ``SVC(probability=True)`` computes (libsvm's method, which scikit-learn
1.9 deprecates in favour of ``CalibratedClassifierCV``):

1. For each binary sub-problem, decision values of the training samples
   from a 5-fold cross-validation (each fold predicted by an SVM fitted on
   the four others), so that the sigmoid is not fitted on the over-confident
   values of samples the model was trained on.
2. Platt's sigmoid ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` fitted to those
   values by maximum likelihood with Platt's smoothed targets
   ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, by Newton's method with a
   backtracking line search (Lin, Lin and Weng, 2007).
3. For more than two classes, the pairwise probabilities ``r_ij`` coupled
   into one distribution by Wu, Lin and Weng's (2004) second method:
   ``min_p Σ_i Σ_{j≠i} (r_ji p_i − r_ij p_j)²`` subject to ``Σ p = 1``,
   solved exactly as a linear system per sample.

References
----------
Platt, J. (2000). Probabilistic outputs for support vector machines and
comparisons to regularized likelihood methods.
Lin, H.-T., Lin, C.-J. and Weng, R. C. (2007). A note on Platt's
probabilistic outputs for support vector machines. Machine Learning 68.
Wu, T.-F., Lin, C.-J. and Weng, R. C. (2004). Probability estimates for
multi-class classification by pairwise coupling. JMLR 5.
"""

import numpy as np
from scipy.special import expit

__all__ = []

# Probabilities are kept inside [eps, 1 - eps] before coupling (libsvm's
# bound), so that no pairwise ratio is exactly 0 or 1.
_MIN_PROBA = 1e-7


def _sigmoid_loss(f, t, A, B):
    """Negative log-likelihood of targets ``t`` under ``1 / (1 + exp(A f + B))``."""
    z = A * f + B
    # -t log p - (1 - t) log(1 - p) with p = expit(-z), i.e.
    # t log(1 + e^z) + (1 - t) log(1 + e^-z) = t z + log(1 + e^-z)
    return float(np.sum(t * z + np.logaddexp(0.0, -z)))


def fit_sigmoid(decision, positive, max_iter=100, min_step=1e-10, ridge=1e-12):
    """Platt's ``(A, B)`` for decision values ``decision`` and boolean labels.

    Parameters
    ----------
    decision : ndarray of shape (n_samples,)
        Cross-validated decision values.
    positive : ndarray of bool of shape (n_samples,)
        True for the class whose probability the sigmoid gives.

    Returns
    -------
    A, B : float
        ``P(positive | f) = 1 / (1 + exp(A f + B))``.
    """
    f = np.asarray(decision, dtype=np.float64)
    n_pos = int(np.count_nonzero(positive))
    n_neg = f.size - n_pos
    t = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    A, B = 0.0, float(np.log((n_neg + 1.0) / (n_pos + 1.0)))
    loss = _sigmoid_loss(f, t, A, B)
    for _ in range(max_iter):
        p = expit(-(A * f + B))
        d1 = t - p  # dF/dz_i
        g = np.array([f @ d1, d1.sum()])
        if np.all(np.abs(g) < 1e-5):
            break
        w = p * (1.0 - p)
        H = np.array([[f @ (f * w) + ridge, f @ w], [f @ w, w.sum() + ridge]])
        step_dir = -np.linalg.solve(H, g)
        slope = g @ step_dir
        step = 1.0
        while step >= min_step:
            A_new, B_new = A + step * step_dir[0], B + step * step_dir[1]
            new_loss = _sigmoid_loss(f, t, A_new, B_new)
            if new_loss < loss + 1e-4 * step * slope:
                A, B, loss = A_new, B_new, new_loss
                break
            step /= 2.0
        else:
            break  # no decrease along Newton's direction: at the optimum
    return A, B


def predict_sigmoid(decision, A, B):
    """``1 / (1 + exp(A f + B))``, kept inside ``[1e-7, 1 - 1e-7]``."""
    return np.clip(expit(-(A * np.asarray(decision) + B)), _MIN_PROBA, 1.0 - _MIN_PROBA)


def couple_pairwise(r):
    """Class probabilities from pairwise ones (Wu, Lin and Weng's method 2).

    Parameters
    ----------
    r : ndarray of shape (n_samples, n_classes, n_classes)
        ``r[:, i, j]`` estimates ``P(y = i | y in {i, j}, x)``; ``r_ij + r_ji = 1``.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
    """
    n, k, _ = r.shape
    off = ~np.eye(k, dtype=bool)
    # Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt r_tj: the quadratic form of the
    # method's objective; the optimum solves [Q 1; 1ᵀ 0] [p; b] = [0; 1].
    Q = -np.swapaxes(r, 1, 2) * r
    Q[:, ~off] = 0.0
    diag = np.sum(np.where(off, r, 0.0) ** 2, axis=1)
    Q[:, np.arange(k), np.arange(k)] = diag
    system = np.zeros((n, k + 1, k + 1))
    system[:, :k, :k] = Q
    system[:, :k, k] = 1.0
    system[:, k, :k] = 1.0
    rhs = np.zeros((n, k + 1))
    rhs[:, k] = 1.0
    p = np.linalg.solve(system, rhs[..., None])[..., 0][:, :k]
    # The exact optimum is non-negative (Wu et al., Theorem 2); clip rounding.
    p = np.clip(p, 0.0, None)
    return p / p.sum(axis=1, keepdims=True)


def cross_val_decision(decide, y_pos, rng, n_folds=5):
    """Decision values of every sample from an SVM fitted without its fold.

    ``decide(train, test)`` fits the binary SVM on the rows ``train`` and
    returns its decision values on ``test``, positive meaning ``y_pos``
    True. A fold whose training part holds one class only predicts ±1, as
    libsvm does.
    """
    n = len(y_pos)
    order = rng.permutation(n)
    decision = np.empty(n)
    for fold in range(n_folds):
        test = order[fold * n // n_folds:(fold + 1) * n // n_folds]
        if test.size == 0:
            continue
        train = np.setdiff1d(order, test, assume_unique=True)
        labels = y_pos[train]
        if labels.all() or not labels.any():
            decision[test] = 1.0 if labels.all() else -1.0
            continue
        decision[test] = decide(train, test)
    return decision
