"""Closed-form input gradients of skml's differentiable estimators.

Every function takes a validated float64 ``X`` of shape (n, d) and returns
the layout :func:`skml.inspection.input_gradient` documents, or ``None`` when
the estimator (or this configuration of it, e.g. a callable SVM kernel) has
no closed form here, in which case the caller falls back to finite
differences. Stacked gradients are (n, d, k): features before outputs.
"""

import numpy as np
from scipy.special import expit


def analytic_gradient(estimator, X, output, y):
    """The closed-form gradient, or ``None`` when there is none."""
    from ..discriminant_analysis import (
        LinearDiscriminantAnalysis,
        QuadraticDiscriminantAnalysis,
    )
    from ..linear_model import (
        Lasso,
        LinearRegression,
        LogisticRegression,
        Perceptron,
        Ridge,
        SGDClassifier,
        SGDRegressor,
    )
    from ..naive_bayes import GaussianNB
    from ..neural_network import MLPClassifier, MLPRegressor
    from ..svm import SVC, SVR, HardMarginSVC, LinearSVC

    # exact types: a subclass may override the prediction methods
    kind = type(estimator)
    if kind in (LinearRegression, Ridge, Lasso, SGDRegressor):
        return _linear_regressor(estimator, X, output, y)
    if kind in (LogisticRegression, LinearDiscriminantAnalysis):
        return _softmax_linear(estimator, X, output, y)
    if kind in (SGDClassifier, Perceptron, LinearSVC):
        return _margin_linear(estimator, X, output, y)
    if kind in (SVC, SVR, HardMarginSVC):
        return _kernel_svm(estimator, X, output, y)
    if kind is MLPClassifier:
        return _mlp_classifier(estimator, X, output, y)
    if kind is MLPRegressor:
        return _mlp_regressor(estimator, X, output, y)
    if kind is QuadraticDiscriminantAnalysis:
        return _softmax_scores(estimator, X, output, y, _qda_score_gradients(estimator, X),
                               decision=True)
    if kind is GaussianNB:
        if output == "decision":
            return None  # no decision_function: the caller raises
        return _softmax_scores(estimator, X, output, y, _gnb_score_gradients(estimator, X),
                               decision=False)
    return None


# --------------------------------------------------------------------------
# Shared pieces
# --------------------------------------------------------------------------


def _stack(G):
    """(n, d, 1) -> (n, d); (n, d, k) unchanged."""
    return G[:, :, 0] if G.shape[2] == 1 else G


def _constant(W, n):
    """Gradient rows of a linear map ``x @ W.T``: W (k, d) -> (n, d, k)."""
    return np.broadcast_to(W.T[None], (n,) + W.T.shape).copy()


def _softmax_proba_and_loss(P, G, output, y):
    """d softmax(s)/dx and d(-log softmax(s)_y)/dx from ds/dx.

    ``P`` (n, K) the probabilities, ``G`` (n, d, K) the score gradients:
    ``dP_k = P_k (G_k - sum_j P_j G_j)`` and ``d(-log P_y) = sum_j P_j G_j - G_y``.
    """
    mean = np.einsum("ndk,nk->nd", G, P)
    if output == "proba":
        return P[:, None, :] * (G - mean[:, :, None])
    return mean - G[np.arange(G.shape[0]), :, y]


def _margin_loss_slope(loss, m, epsilon=0.1):
    """``dL/dm`` of a classification loss of the margin ``m = t f``."""
    if loss == "hinge":
        return np.where(m < 1.0, -1.0, 0.0)
    if loss == "perceptron":
        return np.where(m < 0.0, -1.0, 0.0)
    if loss == "squared_hinge":
        return -2.0 * np.maximum(0.0, 1.0 - m)
    if loss == "log_loss":
        return -expit(-m)
    if loss == "modified_huber":
        return np.where(m < -1.0, -4.0, -2.0 * np.maximum(0.0, 1.0 - m))
    raise ValueError(f"unknown classification loss {loss!r}")


def _residual_loss_slope(loss, r, epsilon):
    """``dL/dr`` of a regression loss of the residual ``r = f - y``."""
    if loss == "squared_error":
        return r
    if loss == "huber":
        return np.clip(r, -epsilon, epsilon)
    if loss == "epsilon_insensitive":
        return np.where(np.abs(r) > epsilon, np.sign(r), 0.0)
    if loss == "squared_epsilon_insensitive":
        return 2.0 * np.sign(r) * np.maximum(0.0, np.abs(r) - epsilon)
    raise ValueError(f"unknown regression loss {loss!r}")


_REGRESSION_LOSSES = ("squared_error", "huber", "epsilon_insensitive",
                      "squared_epsilon_insensitive")


def _ovr_signs(y, n_columns):
    """One-vs-rest targets t in {-1, +1}: (n, 1) for one column, else (n, K)."""
    if n_columns == 1:
        return np.where(y == 1, 1.0, -1.0)[:, None]
    t = -np.ones((len(y), n_columns))
    t[np.arange(len(y)), y] = 1.0
    return t


# --------------------------------------------------------------------------
# Linear models
# --------------------------------------------------------------------------


def _linear_regressor(est, X, output, y):
    W = np.atleast_2d(np.asarray(est.coef_, dtype=np.float64))  # (k, d)
    if output == "proba":
        return None  # unreachable: regressors have no predict_proba
    if output == "decision":
        return _stack(_constant(W, X.shape[0]))
    F = np.asarray(est.predict(X), dtype=np.float64).reshape(X.shape[0], -1)
    R = F - y.reshape(X.shape[0], -1)
    loss = getattr(est, "loss", "squared_error")
    slope = _residual_loss_slope(loss, R, getattr(est, "epsilon", 0.1))
    return slope @ W


def _softmax_linear(est, X, output, y):
    """LogisticRegression and LDA: scores X W^T + b, sigmoid/softmax proba."""
    W = np.asarray(est.coef_, dtype=np.float64)
    n = X.shape[0]
    if output == "decision":
        return _stack(_constant(W, n))
    if W.shape[0] == 1:  # binary: softmax of the scores (0, z)
        W = np.vstack([np.zeros_like(W), W])
    P = np.asarray(est.predict_proba(X), dtype=np.float64)
    return _softmax_proba_and_loss(P, _constant(W, n), output, y)


def _margin_linear(est, X, output, y):
    """SGDClassifier, Perceptron, LinearSVC: one-vs-rest linear scores."""
    from ..linear_model import Perceptron

    W = np.asarray(est.coef_, dtype=np.float64)  # (K', d)
    n = X.shape[0]
    if output == "decision":
        return _stack(_constant(W, n))
    Z = np.asarray(est.decision_function(X), dtype=np.float64).reshape(n, -1)
    loss = "perceptron" if isinstance(est, Perceptron) else est.loss
    if output == "proba":
        # SGDClassifier only (predict_proba exists): q_k = g(z_k), normalised
        # over the one-vs-rest columns when there are more than one.
        if loss == "log_loss":
            q = expit(Z)
            dq = q * (1.0 - q)
        else:  # modified_huber
            q = (np.clip(Z, -1.0, 1.0) + 1.0) / 2.0
            dq = np.where(np.abs(Z) < 1.0, 0.5, 0.0)
        Gq = dq[:, None, :] * W.T[None]  # (n, d, K')
        if W.shape[0] == 1:
            return np.concatenate([-Gq, Gq], axis=2)
        total = q.sum(axis=1)
        zero = total == 0  # predict_proba answers uniform there: gradient 0
        safe = np.where(zero, 1.0, total)
        G = Gq / safe[:, None, None] - (q / safe[:, None] ** 2)[:, None, :] * Gq.sum(
            axis=2, keepdims=True
        )
        G[zero] = 0.0
        return G
    t = _ovr_signs(y, W.shape[0])
    if loss in _REGRESSION_LOSSES:
        slope = _residual_loss_slope(loss, Z - t, est.epsilon)
    else:
        slope = t * _margin_loss_slope(loss, t * Z)
    return slope @ W


# --------------------------------------------------------------------------
# Kernel SVMs
# --------------------------------------------------------------------------


def _svm_decision_gradient(est, X):
    """d/dx of the raw decision columns ``k(x, SV) @ W + b``: (n, d, P).

    Uses the fitted decision weights of :class:`skml.svm._base._BaseSVM`
    (``_W``, ``_b``, the solver's coordinates ``(x - shift) / unit``), so the
    gradient is that of exactly the function ``decision_function`` evaluates.
    """
    if est._W_primal is not None:  # linear kernel, in X's own coordinates
        return _constant(np.asarray(est._W_primal).T, X.shape[0])
    W = est._W  # (n_sv, P)
    n, d = X.shape
    G = np.zeros((n, d, W.shape[1]))
    if W.shape[0] == 0:
        return G
    kernel, gamma, coef0 = est.kernel, est._gamma_solver, est.coef0
    Xs, S = est._to_solver(X), est._sv_solver
    unit = getattr(est, "_unit", 1.0)
    if kernel == "rbf":
        sq = (np.einsum("ij,ij->i", Xs, Xs)[:, None] - 2.0 * Xs @ S.T
              + np.einsum("ij,ij->i", S, S)[None, :])
        K = np.exp(-gamma * np.maximum(sq, 0.0))
        # d/dx exp(-g |x - s|^2) = -2 g k(x, s) (x - s)
        for p in range(W.shape[1]):
            Kw = K * W[:, p]
            G[:, :, p] = -2.0 * gamma * (Xs * Kw.sum(axis=1)[:, None] - Kw @ S)
    elif kernel == "poly":
        if est.degree == 0:
            return G
        B = gamma * (Xs @ S.T) + coef0
        D = est.degree * gamma * B ** (est.degree - 1)
        for p in range(W.shape[1]):
            G[:, :, p] = (D * W[:, p]) @ S
    elif kernel == "sigmoid":
        T = np.tanh(gamma * (Xs @ S.T) + coef0)
        D = gamma * (1.0 - T * T)
        for p in range(W.shape[1]):
            G[:, :, p] = (D * W[:, p]) @ S
    else:  # linear kernel kept in the dual (not expected), solver coordinates
        G[:] = (S.T @ W)[None]
    return G / unit


def _kernel_svm(est, X, output, y):
    from ..svm import SVR

    if callable(est.kernel) or est.kernel == "precomputed":
        return None  # finite differences
    n = X.shape[0]
    G = _svm_decision_gradient(est, X)  # (n, d, P)
    if isinstance(est, SVR):
        if output == "decision":
            return G[:, :, 0]
        r = np.asarray(est.predict(X), dtype=np.float64) - y.reshape(n)
        slope = _residual_loss_slope("epsilon_insensitive", r, est.epsilon)
        return slope[:, None] * G[:, :, 0]
    n_classes = len(est.classes_)
    dec = None
    if n_classes > 2 or output == "loss":
        dec = est._decision_values(est._validate_test_data(X))
    if n_classes == 2:
        if output == "decision":
            return G[:, :, 0]
        t = np.where(y == 1, 1.0, -1.0)
        return (t * _margin_loss_slope("hinge", t * dec[:, 0]))[:, None] * G[:, :, 0]
    pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
    if output == "loss":
        # hinge on every pair containing the label; positive decision = first class
        out = np.zeros(X.shape)
        for p, (a, b) in enumerate(pairs):
            t = np.where(y == a, 1.0, np.where(y == b, -1.0, 0.0))
            slope = t * _margin_loss_slope("hinge", t * dec[:, p])
            out += slope[:, None] * G[:, :, p]
        return out
    if getattr(est, "decision_function_shape", "ovr") == "ovo":
        return G
    # "ovr": votes (locally constant) + c / (3 (|c| + 1)) with c the summed
    # pairwise confidences, c_a += dec_p, c_b -= dec_p.
    C = np.zeros((n, n_classes))
    GC = np.zeros((n, X.shape[1], n_classes))
    for p, (a, b) in enumerate(pairs):
        C[:, a] += dec[:, p]
        C[:, b] -= dec[:, p]
        GC[:, :, a] += G[:, :, p]
        GC[:, :, b] -= G[:, :, p]
    return GC / (3.0 * (np.abs(C) + 1.0) ** 2)[:, None, :]


# --------------------------------------------------------------------------
# Networks
# --------------------------------------------------------------------------


def _mlp_classifier(est, X, output, y):
    classes = est.classes_
    if not (isinstance(classes, np.ndarray) and classes.ndim == 1):
        return None  # multi-label networks: finite differences
    if output == "loss":
        return est.input_gradient(X, classes[y], output="loss")
    if output == "decision":
        n_logits = est.coefs_[-1].shape[1]
        if n_logits == 1:
            return est.input_gradient(X, classes[1], output="decision")
        return np.stack([est.input_gradient(X, c, output="decision") for c in classes],
                        axis=2)
    if len(classes) == 1:
        return np.zeros(X.shape + (1,))
    return np.stack([est.input_gradient(X, c, output="proba") for c in classes], axis=2)


def _mlp_regressor(est, X, output, y):
    if output == "loss":
        return est.input_gradient(X, y, output="loss")
    G = est.input_gradient(X, output="predict")  # (n, d) or (n, k, d)
    return G if G.ndim == 2 else np.transpose(G, (0, 2, 1))


# --------------------------------------------------------------------------
# Generative classifiers: log joints with closed-form gradients
# --------------------------------------------------------------------------


def _softmax_scores(est, X, output, y, G, decision):
    """Posteriors are the softmax of per-class log joints with gradients G."""
    if output == "decision":
        # QDA's decision_function: the log joints, or their difference for two
        return G[:, :, 1] - G[:, :, 0] if G.shape[2] == 2 else G
    P = np.asarray(est.predict_proba(X), dtype=np.float64)
    return _softmax_proba_and_loss(P, G, output, y)


def _qda_score_gradients(est, X):
    """d/dx of -(x - mu_k)^T Sigma_k^-1 (x - mu_k) / 2 for each class: (n, d, K)."""
    u = getattr(est, "_unit", 1.0)
    means = getattr(est, "_means_unit", est.means_)
    scalings = getattr(est, "_scalings_unit", est.scalings_)
    Xu = X / u
    G = np.empty(X.shape + (len(est.classes_),))
    for k, (R, S) in enumerate(zip(est.rotations_, scalings)):
        A = R / np.sqrt(S)
        G[:, :, k] = -((Xu - means[k]) @ A) @ A.T / u
    return G


def _gnb_score_gradients(est, X):
    """d/dx of sum_j -(x_j - theta_kj)^2 / (2 var_kj): -(x - theta_k) / var_k."""
    theta, var = est.theta_, est.var_
    return -(X[:, :, None] - theta.T[None]) / var.T[None]
