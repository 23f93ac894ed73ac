"""The penalised logistic loss and its derivatives (notes B §3.3-3.5, §6.11).

Objective, for ``K`` classes, weights ``s_i`` and ``S = sum_i s_i``::

    f(W, b) = (1/S) sum_i s_i l_i(W x_i + b) + (l2/2) ||W||_F^2

with ``l_i(z) = log(1 + e^z) - y_i z`` (binary, one row ``W``) or
``l_i(z) = logsumexp(z) - z_{y_i}`` (multinomial, ``K`` rows). With label
smoothing ``eps`` (notes B §7.6, A §14) the targets are the soft
``t_i = (1 - eps) onehot(y_i) + eps / K`` (``K = 2`` for the binary model):
``l_i(z) = log(1 + e^z) - t_i z`` or ``logsumexp(z) - t_i . z``. Only the
residual ``p - t`` changes; the Hessian does not depend on the targets. The intercept
``b`` is not penalised. With ``l2 = 1/(C S)`` this is scikit-learn's
objective ``C sum_i s_i l_i + ||W||^2/2`` divided by ``C S``: same optimum,
and gradients on the same scale, so the same ``tol`` means the same thing.

Parameters are one flat vector: row ``k`` holds ``W[k]`` then ``b[k]``.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

__all__ = ["LogisticLoss", "softmax", "sigmoid"]


def sigmoid(z):
    """Logistic function ``1 / (1 + exp(-z))``, accurate in both tails."""
    return expit(z)


def softmax(Z, copy=True):
    """Row-wise softmax ``exp(z_k) / sum_l exp(z_l)``, shifted by the row max.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_classes) or (n_classes,)
        Logits.
    copy : bool, default=True
        If False and ``Z`` is a float64 array, it is overwritten with the
        result.

    Returns
    -------
    P : ndarray of the same shape
        Probabilities; each row sums to one.
    """
    Z = np.array(Z, dtype=float) if copy else np.asarray(Z, dtype=float)
    Z -= Z.max(axis=-1, keepdims=True)
    np.exp(Z, out=Z)
    Z /= Z.sum(axis=-1, keepdims=True)
    return Z


def _binary_pointwise(z, y, swy, sw):
    """Summed weighted log-loss and residual ``s (p - y)`` from raw scores ``z``.

    ``log(1 + e^z) = max(z, 0) + log1p(e^{-|z|})`` never overflows; the
    probability uses ``(1 + tanh(z/2)) / 2``, one vectorised transcendental
    instead of a branch (absolute error ~1e-16, enough for a gradient).
    """
    e = np.abs(z)
    np.negative(e, out=e)
    np.exp(e, out=e)
    np.log1p(e, out=e)
    e += np.maximum(z, 0.0)  # e is now log(1 + exp(z))
    if sw is None:
        loss = e.sum() - z @ y
    else:
        loss = e @ sw - z @ swy
    p = np.multiply(z, 0.5, out=z)
    np.tanh(p, out=p)
    p += 1.0
    p *= 0.5
    if sw is not None:
        p *= sw
    p -= swy
    return loss, p


def _multinomial_pointwise(Z, y_flat, swY, sw, eps=0.0):
    """Summed weighted softmax cross-entropy, residual ``s (P - Y)`` and ``P``.

    Works on the transposed scores ``Z`` of shape (n_classes, n_samples),
    overwritten with the probabilities: reductions over the few classes are
    then elementwise operations on long rows, far faster than ``axis=1``
    reductions over rows of length ``n_classes``. The loss of a sample is
    ``log sum_k e^{z_k - m} - (z_y - m)`` with ``m`` its max score, so nothing
    overflows. ``y_flat`` indexes ``z_y`` in ``Z.ravel()``. With label
    smoothing ``eps`` the target term is ``(1 - eps) z_y + (eps / K) sum_k z_k``
    (``swY`` then holds the weighted soft targets).
    """
    Z -= Z.max(axis=0)
    zy = np.take(Z, y_flat)
    if eps:
        zy *= 1.0 - eps
        zy += (eps / Z.shape[0]) * Z.sum(axis=0)
    np.exp(Z, out=Z)
    norm = Z.sum(axis=0)
    Z /= norm
    log_norm = np.log(norm)
    log_norm -= zy
    loss = log_norm.sum() if sw is None else log_norm @ sw
    R = Z * sw if sw is not None else Z.copy()
    R -= swY
    return loss, R, Z


def _gram(X, d, fit_intercept, sqrt_ok=False):
    """``[X 1]^T diag(d) [X 1]``, the Hessian block of one pair of classes."""
    n_features = X.shape[1]
    size = n_features + int(fit_intercept)
    G = np.empty((size, size))
    if sp.issparse(X):
        XtDX = X.T @ X.multiply(d[:, None]).tocsr()
        G[:n_features, :n_features] = XtDX.toarray()
    elif sqrt_ok:
        # A^T A with A = sqrt(d) X lets BLAS use the symmetric rank-k update.
        A = X * np.sqrt(d)[:, None]
        G[:n_features, :n_features] = A.T @ A
    else:
        G[:n_features, :n_features] = X.T @ (X * d[:, None])
    if fit_intercept:
        Xtd = X.T @ d
        G[:n_features, -1] = Xtd
        G[-1, :n_features] = Xtd
        G[-1, -1] = d.sum()
    return G


def _rows_times_X(A, X):
    """``A @ X`` for dense ``A`` of shape (k, n_samples), X dense or sparse."""
    if sp.issparse(X):
        return np.asarray(X.T @ A.T).T
    return A @ X


def _X_times_rows(X, A):
    """``A @ X.T``, shape (k, n_samples), for X dense or sparse."""
    if sp.issparse(X):
        return np.ascontiguousarray(np.asarray(X @ A.T).T)
    return A @ X.T


class LogisticLoss:
    """Penalised mean logistic (binary) or softmax (multinomial) loss.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,) of int
        Class codes ``0..n_classes-1``.
    n_classes : int
        2 gives the binary model (one row of weights), more the softmax.
    sample_weight : ndarray of shape (n_samples,) or None
        ``None`` means unit weights (and skips the multiplications).
    l2 : float or ndarray of shape (n_features,)
        Penalty strength ``1 / (C * sum(sample_weight))``; 0 for no penalty.
        An array gives each feature (column of ``W``) its own strength: the
        penalty is then ``(1/2) sum_kj l2_j W_kj^2``, the form the standard
        penalty takes after the columns of ``X`` are rescaled.
    fit_intercept : bool
    multinomial : bool, default=False
        Use ``n_classes`` softmax rows even for two classes (the binary model
        is the same with ``w = w_1 - w_0``; used by the tests).
    label_smoothing : float in [0, 1), default=0.0
        ``eps``: the targets are ``(1 - eps) onehot(y) + eps / n_classes``
        (notes B §7.6, A §14); 0 gives the plain cross-entropy.
    """

    def __init__(
        self, X, y, n_classes, sample_weight=None, l2=0.0, fit_intercept=True,
        multinomial=False, label_smoothing=0.0,
    ):
        self.X = X
        self.n_samples, self.n_features = X.shape
        self.n_classes = n_classes
        self.binary = n_classes == 2 and not multinomial
        self.n_rows = 1 if self.binary else n_classes
        self.n_cols = self.n_features + int(fit_intercept)
        self.n_params = self.n_rows * self.n_cols
        self.fit_intercept = fit_intercept
        self.l2 = l2 if np.ndim(l2) == 0 else np.asarray(l2, dtype=float)
        self._penalised = bool(np.any(self.l2 != 0.0))
        self.sw = sample_weight
        self.sw_sum = float(
            self.n_samples if sample_weight is None else sample_weight.sum()
        )
        self.codes = y
        eps = self.label_smoothing = float(label_smoothing)
        if self.binary:
            self.y = (y == 1).astype(float)
            if eps:
                self.y *= 1.0 - eps
                self.y += eps / 2.0
            self.swy = self.y if sample_weight is None else self.y * sample_weight
        else:
            # One-hot targets stored class-major, like the scores (see
            # _multinomial_pointwise).
            self.y = np.zeros((n_classes, self.n_samples))
            self.y[y, np.arange(self.n_samples)] = 1.0
            if eps:
                self.y *= 1.0 - eps
                self.y += eps / n_classes
            self.swy = self.y if sample_weight is None else self.y * sample_weight
            self.y_flat = y * self.n_samples + np.arange(self.n_samples)
        self._last = None  # (w, probabilities) of the last full gradient

    def unpack(self, w):
        """Views ``(coef of shape (n_rows, n_features), intercept or None)``."""
        W = w.reshape(self.n_rows, self.n_cols)
        if self.fit_intercept:
            return W[:, :-1], W[:, -1]
        return W, None

    def raw(self, w, X=None):
        """Scores: shape (n_samples,) for binary, (n_classes, n_samples) else."""
        X = self.X if X is None else X
        coef, intercept = self.unpack(w)
        if self.binary:
            z = X @ coef[0]
            if intercept is not None:
                z += intercept[0]
            return z
        Z = _X_times_rows(X, coef)
        if intercept is not None:
            Z += intercept[:, None]
        return Z

    def _penalty(self, w):
        if not self._penalised:
            return 0.0
        coef, _ = self.unpack(w)
        if np.ndim(self.l2) == 0:
            return 0.5 * self.l2 * float(np.vdot(coef, coef))
        return 0.5 * float(np.sum(self.l2 * coef * coef))

    def loss(self, w):
        """Objective value only (for line searches)."""
        z = self.raw(w)
        if self.binary:
            loss, _ = _binary_pointwise(z, self.y, self.swy, self.sw)
        else:
            loss, _, _ = _multinomial_pointwise(
                z, self.y_flat, self.swy, self.sw, self.label_smoothing)
        return loss / self.sw_sum + self._penalty(w)

    def loss_gradient(self, w, rows=None):
        """Objective and its gradient at ``w`` in one pass over the data.

        With ``rows`` (an index array) the data term uses only those samples,
        scaled by ``n_samples / len(rows)``: an unbiased mini-batch estimate.
        """
        if rows is None:
            X, y, swy, sw = self.X, self.y, self.swy, self.sw
            y_flat = None if self.binary else self.y_flat
            scale = 1.0 / self.sw_sum
        else:
            X, y, swy = self.X[rows], self.y[..., rows], self.swy[..., rows]
            sw = None if self.sw is None else self.sw[rows]
            if not self.binary:
                y_flat = self.codes[rows] * len(rows) + np.arange(len(rows))
            scale = self.n_samples / (len(rows) * self.sw_sum)
        z = self.raw(w, X)
        grad = np.empty(self.n_params)
        G = grad.reshape(self.n_rows, self.n_cols)
        if self.binary:
            loss, r = _binary_pointwise(z, y, swy, sw)
            G[0, : self.n_features] = X.T @ r
            if self.fit_intercept:
                G[0, -1] = r.sum()
        else:
            loss, R, P = _multinomial_pointwise(
                z, y_flat, swy, sw, self.label_smoothing)
            G[:, : self.n_features] = _rows_times_X(R, X)
            if self.fit_intercept:
                G[:, -1] = R.sum(axis=1)
            if rows is None:
                self._last = (w.copy(), P)
        grad *= scale
        loss *= scale
        if self._penalised:
            # The penalty's gradient gives its value in one more product
            # (this runs once per mini-batch of sgd: numpy calls count).
            coef, _ = self.unpack(w)
            l2_coef = self.l2 * coef
            G[:, : self.n_features] += l2_coef
            loss += 0.5 * float(np.vdot(coef, l2_coef))
        return loss, grad

    def _probabilities(self, w):
        """sigmoid scores (binary) or class-major softmax probabilities."""
        if self.binary:
            return sigmoid(self.raw(w))
        if self._last is not None and np.array_equal(self._last[0], w):
            return self._last[1]
        return softmax(self.raw(w).T).T

    def hessian(self, w):
        """The full Hessian, shape (n_params, n_params).

        Binary: ``[X 1]^T diag(s p (1-p)) [X 1] / S + l2 I`` (IRLS).
        Multinomial: block ``(k, l)`` is ``[X 1]^T diag(s (p_k d_kl - p_k p_l))
        [X 1] / S``, plus ``l2 I`` on the coefficients.
        """
        P = self._probabilities(w)
        sw = np.ones(self.n_samples) if self.sw is None else self.sw
        sw = sw / self.sw_sum
        p, K = self.n_cols, self.n_rows
        if self.binary:
            H = _gram(self.X, sw * P * (1.0 - P), self.fit_intercept, sqrt_ok=True)
        else:
            H = np.empty((K, p, K, p))
            for k in range(K):
                for l in range(k, K):
                    d = -P[k] * P[l]
                    if k == l:
                        d += P[k]
                    d *= sw
                    H[k, :, l, :] = _gram(self.X, d, self.fit_intercept, sqrt_ok=k == l)
                    if l != k:
                        H[l, :, k, :] = H[k, :, l, :].T
            H = H.reshape(K * p, K * p)
        if self._penalised:
            diag = np.zeros((K, p))
            diag[:, : self.n_features] = self.l2
            H[np.diag_indices_from(H)] += diag.ravel()
        return H

    def hessp(self, w):
        """A function ``v -> H(w) v`` (Hessian-vector product, two data passes)."""
        P = self._probabilities(w)
        sw = np.ones(self.n_samples) if self.sw is None else self.sw
        scale = sw / self.sw_sum
        X, K, nf = self.X, self.n_rows, self.n_features
        h = scale * P * (1.0 - P) if self.binary else None

        def product(v):
            out = np.empty(self.n_params)
            O = out.reshape(K, self.n_cols)
            V_coef, v_int = self.unpack(v)
            if self.binary:
                t = X @ V_coef[0]
                if v_int is not None:
                    t += v_int[0]
                t *= h
                O[0, :nf] = X.T @ t
                if v_int is not None:
                    O[0, -1] = t.sum()
            else:
                T = _X_times_rows(X, V_coef)
                if v_int is not None:
                    T += v_int[:, None]
                T *= P
                T -= P * T.sum(axis=0)
                T *= scale
                O[:, :nf] = _rows_times_X(T, X)
                if v_int is not None:
                    O[:, -1] = T.sum(axis=1)
            if self._penalised:
                O[:, :nf] += self.l2 * V_coef
            return out

        return product

    def null_directions(self):
        """Unit vectors the multinomial objective is flat along.

        Adding a constant to one column of every class row changes no
        probability; that direction is flat unless the penalty acts on it,
        i.e. always for the intercept, and for every feature column whose
        ``l2`` is 0. Returns an array of shape (n_directions, n_params),
        possibly empty.
        """
        if self.binary:
            return np.empty((0, self.n_params))
        l2 = np.broadcast_to(self.l2, (self.n_features,))
        cols = list(np.flatnonzero(l2 == 0.0))
        if self.fit_intercept:
            cols.append(self.n_cols - 1)
        U = np.zeros((len(cols), self.n_rows, self.n_cols))
        for i, j in enumerate(cols):
            U[i, :, j] = 1.0 / np.sqrt(self.n_rows)
        return U.reshape(len(cols), self.n_params)
