"""Gaussian densities and the EM steps of a Gaussian mixture (notes B §10.2, §10.5).

Every covariance is carried by the Cholesky factor of its precision,
``U`` with ``Σ⁻¹ = U Uᵀ`` (``precisions_cholesky_``, scikit-learn's
convention), so that

    log N(x | μ, Σ) = −½ (d log 2π + ‖(x − μ)ᵀ U‖²) + Σ_j log U_jj,

the log-determinant coming from the factor's diagonal. Shapes of ``U`` per
``covariance_type``: "full" ``(k, d, d)``, "tied" ``(d, d)``, "diag"
``(k, d)``, "spherical" ``(k,)`` (the last two hold ``1/σ``).

All functions take data already shifted by a fixed offset (the estimator
subtracts the training mean): a Gaussian mixture is translation invariant,
and the shift keeps the expanded squares of the "diag", "spherical" and
"tied" formulas accurate.
"""

import math

import numpy as np
from scipy.linalg import solve_triangular

from ..utils._blas import SINGLE_THREAD_MAX_WORK

# Rows per block of the "full" and "tied" E-step: a block's (rows, k, d)
# work array stays near 1 MB (in cache), and its product X_block [U_1 … U_k]
# (2**17 d multiply-adds) is small enough for one BLAS thread. Measured on
# 15 000 x 20 with k = 8: whole-array 10.2 ms, 512-4096-row blocks 5.0-6.9 ms,
# scikit-learn 14.7 ms.
_BLOCK_ELEMENTS = 2**17

ILL_DEFINED_COVARIANCE = (
    "Fitting the mixture model failed because some components have "
    "ill-defined empirical covariance (for instance caused by singleton "
    "or collapsed samples). Try to decrease the number of components, "
    "increase reg_covar, or scale the input data."
)


def _rows_per_block(width):
    return max(1, _BLOCK_ELEMENTS // max(1, width))


def _m_step_rows(n_features):
    # Rows per weighted d x d product of the "full" M-step: one BLAS call
    # stays within what one thread does best (skml.utils._blas).
    return max(1, SINGLE_THREAD_MAX_WORK // (n_features * n_features))


def largest_blas_call(n_samples, n_features, n_components, covariance_type):
    """Multiply-adds of the largest single matrix product of one EM iteration.

    The "full" and "tied" products are cut into blocks of rows, so for
    moderate ``n`` every call is small; the caller gives BLAS one thread
    then (on a busy machine many-threaded small products mostly wait for
    each other: a 15 000 x 20, k = 8 fit took 33-66 s with two BLAS threads
    against 1.4-1.8 s with one).
    """
    kd = n_components * n_features
    work = n_samples * kd  # resp.T @ X, and the "diag"/"spherical" E-step
    if covariance_type in ("full", "tied"):
        work = max(work, min(n_samples, _rows_per_block(kd)) * n_features * kd)
    if covariance_type == "full":
        work = max(work, min(n_samples, _m_step_rows(n_features)) * n_features**2)
    return work


def log_det_cholesky(prec_chol, covariance_type, n_features):
    """``log |U|`` per component (half the log-determinant of the precision)."""
    if covariance_type == "full":
        return np.log(np.diagonal(prec_chol, axis1=1, axis2=2)).sum(axis=1)
    if covariance_type == "tied":
        return np.log(np.diagonal(prec_chol)).sum()
    if covariance_type == "diag":
        return np.log(prec_chol).sum(axis=1)
    return n_features * np.log(prec_chol)


def estimate_log_gaussian_prob(X, means, prec_chol, covariance_type):
    """``log N(x_i | μ_k, Σ_k)`` for every sample and component.

    "full": one matrix product ``X [U_1 … U_k]`` per block of rows for all
    components at once, minus ``μ_k U_k``, squared and summed per component.
    "tied": ``X U`` once per block, then the k differences. "diag" and
    "spherical": three matrix products of the expanded square.

    Returns
    -------
    log_prob : ndarray of shape (n_samples, n_components)
    """
    n_samples, n_features = X.shape
    n_components = means.shape[0]
    dtype = X.dtype
    log_det = log_det_cholesky(prec_chol, covariance_type, n_features)
    if covariance_type in ("full", "tied"):
        maha = np.empty((n_samples, n_components), dtype=dtype)
        if covariance_type == "full":
            # (d, k*d): block k of the columns is U_k.
            stacked = np.ascontiguousarray(
                prec_chol.transpose(1, 0, 2).reshape(n_features, -1)
            )
            shift = np.einsum("kd,kde->ke", means, prec_chol).reshape(-1)
        else:
            stacked = prec_chol
            shift = means @ prec_chol
        step = _rows_per_block(n_components * n_features)
        for start in range(0, n_samples, step):
            Y = X[start:start + step] @ stacked
            if covariance_type == "full":
                Y -= shift
                Y = Y.reshape(-1, n_components, n_features)
            else:
                Y = Y[:, np.newaxis, :] - shift
            maha[start:start + step] = np.einsum("ikd,ikd->ik", Y, Y)
    elif covariance_type == "diag":
        precisions = prec_chol**2
        maha = (X * X) @ precisions.T
        maha -= 2.0 * (X @ (means * precisions).T)
        maha += (means**2 * precisions).sum(axis=1)
    else:
        precisions = prec_chol**2
        maha = np.einsum("ij,ij->i", X, X)[:, np.newaxis] * precisions
        maha -= 2.0 * (X @ means.T) * precisions
        maha += (means**2).sum(axis=1) * precisions
    maha += n_features * math.log(2 * math.pi)
    maha *= -0.5
    maha += log_det
    return maha


def log_prob_and_resp(weighted_log_prob, with_resp=True):
    """Log-sum-exp over the components, and the responsibilities.

    One ``exp`` pass: with ``m_i = max_k a_ik``,
    ``log p(x_i) = m_i + log Σ_k exp(a_ik − m_i)`` and
    ``r_ik = exp(a_ik − m_i) / Σ_k exp(a_ik − m_i)``.
    ``weighted_log_prob`` is overwritten (by the responsibilities).

    Returns
    -------
    log_prob_norm : ndarray of shape (n_samples,)
    resp : ndarray of shape (n_samples, n_components), or None if not ``with_resp``
    """
    a = weighted_log_prob
    m = a.max(axis=1, keepdims=True)
    # A row of -inf (every component impossible) would give nan: shift by 0.
    m[~np.isfinite(m)] = 0.0
    a -= m
    with np.errstate(under="ignore"):
        np.exp(a, out=a)
    s = a.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_prob_norm = (np.log(s) + m).ravel()
        if not with_resp:
            return log_prob_norm, None
        a /= s
    return log_prob_norm, a


def estimate_gaussian_parameters(X, resp, reg_covar, covariance_type, moments):
    """The M-step: ``N_k``, means and covariances from responsibilities.

    ``N_k = Σ_i r_ik`` (plus ``10 eps``, as scikit-learn, so that an empty
    component does not divide by zero), ``μ_k = Σ_i r_ik x_i / N_k`` and the
    covariance type's ``Σ_k`` plus ``reg_covar`` on the diagonal. ``resp``
    already carries the sample weights. ``moments`` holds what does not
    change between iterations: ``X * X`` ("diag", "spherical") or
    ``Σ_i w_i x_i x_iᵀ`` ("tied"; None computes it from ``resp``).
    """
    nk = resp.sum(axis=0) + 10 * np.finfo(resp.dtype).eps
    means = (resp.T @ X) / nk[:, np.newaxis]
    n_components, n_features = means.shape
    if covariance_type == "full":
        covariances = np.zeros((n_components, n_features, n_features), dtype=X.dtype)
        step = _m_step_rows(n_features)
        for k in range(n_components):
            for start in range(0, X.shape[0], step):
                diff = X[start:start + step] - means[k]
                covariances[k] += (diff * resp[start:start + step, k:k + 1]).T @ diff
            covariances[k] /= nk[k]
            covariances[k].flat[:: n_features + 1] += reg_covar
    elif covariance_type == "tied":
        # The pooled within-component scatter
        # Σ = (Σ_i s_i x_i x_iᵀ − Σ_k N_k μ_k μ_kᵀ) / Σ_k N_k, s_i = Σ_k r_ik.
        # In EM s_i = w_i and the first term is ``moments``; one-hot seeds
        # ("k-means++", "random_from_data") leave most s_i = 0, and
        # scikit-learn's X.T @ X there gives a different, inflated start.
        if moments is None:
            moments = X.T @ (X * resp.sum(axis=1)[:, np.newaxis])
        covariances = moments - (nk * means.T) @ means
        covariances /= nk.sum()
        covariances.flat[:: n_features + 1] += reg_covar
    else:
        covariances = (resp.T @ moments) / nk[:, np.newaxis]
        covariances -= means**2
        # A negative value can only be rounding (a component collapsed on
        # one value of a feature): clip it to the exact 0.
        np.maximum(covariances, 0.0, out=covariances)
        covariances += reg_covar
        if covariance_type == "spherical":
            covariances = covariances.mean(axis=1)
    return nk, means, covariances


def precision_cholesky(covariances, covariance_type):
    """``U`` from the covariances: ``Σ = L Lᵀ`` gives ``U = L⁻ᵀ``."""
    if covariance_type in ("full", "tied"):
        try:
            L = np.linalg.cholesky(covariances)
        except np.linalg.LinAlgError:
            raise ValueError(ILL_DEFINED_COVARIANCE) from None
        eye = np.eye(L.shape[-1], dtype=covariances.dtype)
        if covariance_type == "tied":
            return solve_triangular(L, eye, lower=True).T
        return np.stack(
            [solve_triangular(Lk, eye, lower=True).T for Lk in L]
        ).astype(covariances.dtype, copy=False)
    if np.any(covariances <= 0.0):
        raise ValueError(ILL_DEFINED_COVARIANCE)
    return 1.0 / np.sqrt(covariances)


def precision_cholesky_from_precisions(precisions, covariance_type):
    """Upper-triangular ``U`` with ``P = U Uᵀ``: flip, Cholesky, flip back."""
    if covariance_type in ("full", "tied"):
        flipped = precisions[..., ::-1, ::-1]
        return np.linalg.cholesky(flipped)[..., ::-1, ::-1].copy()
    return np.sqrt(precisions)


def precisions_from_cholesky(prec_chol, covariance_type):
    """``P = U Uᵀ``."""
    if covariance_type == "full":
        return prec_chol @ prec_chol.transpose(0, 2, 1)
    if covariance_type == "tied":
        return prec_chol @ prec_chol.T
    return prec_chol**2


def covariances_from_cholesky(prec_chol, covariance_type):
    """``Σ = U⁻ᵀ U⁻¹`` (used when the fit starts from ``precisions_init``)."""
    if covariance_type in ("full", "tied"):
        eye = np.eye(prec_chol.shape[-1], dtype=prec_chol.dtype)
        if covariance_type == "tied":
            inv = solve_triangular(prec_chol, eye, lower=False)
            return inv.T @ inv
        out = np.empty_like(prec_chol)
        for k, Uk in enumerate(prec_chol):
            inv = solve_triangular(Uk, eye, lower=False)
            out[k] = inv.T @ inv
        return out
    return 1.0 / prec_chol**2


def n_parameters(covariance_type, n_components, n_features):
    """Free parameters: weights (k − 1), means (k d) and covariances."""
    cov_params = {
        "full": n_components * n_features * (n_features + 1) / 2.0,
        "tied": n_features * (n_features + 1) / 2.0,
        "diag": n_components * n_features,
        "spherical": n_components,
    }[covariance_type]
    return int(cov_params + n_features * n_components + n_components - 1)
