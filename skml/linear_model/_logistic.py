"""Logistic regression: binary sigmoid and multinomial softmax (notes B §3.3-3.6).

The solvers minimise the same penalised objective (see
:mod:`skml.linear_model._logistic_loss`): L-BFGS, Newton's method (§6.11, IRLS
for the binary model; full Hessian or conjugate gradients), SAG and SAGA
(:mod:`skml.linear_model._sag_kernels`, SAGA with the L1 proximal step), batch
gradient descent and mini-batch SGD (§6.1-6.3, through :mod:`skml.optim`).
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy import linalg, optimize
from scipy.special import log_expit
from sklearn.base import BaseEstimator
from sklearn.callback import CallbackSupportMixin, with_callbacks
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..optim import SGD, InverseScaling
from ..utils._blas import blas_threads_for
from ..utils._magnitude import far_offset, magnitude_scale
from ..utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from ._base import LinearClassifierMixin
from ._logistic_loss import LogisticLoss, sigmoid, softmax
from ._sag_kernels import LOGISTIC, MULTINOMIAL, SAGConfig, SAGData, sag_rows, sag_solve
from ..utils._docstrings import (
    FITTED_FEATURE_ATTRIBUTES,
    fill_doc,
    predict_doc,
    returns_self,
    x_parameter,
)
from ..utils.validation import validate_data

__all__ = ["LogisticRegression"]

# Newton builds the full Hessian up to this many parameters. Forming it costs
# about n * p^2 flops, against 2 n p per conjugate-gradient product, and CG
# needs tens of products per step: beyond ~200 parameters CG wins.
_FULL_HESSIAN_MAX_PARAMS = 200
_SOLVERS = ("lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga",
            "newton", "gd", "sgd")
# Epochs without a loss decrease of at least ``tol`` before SGD stops, as in
# scikit-learn's SGD estimators.
_SGD_N_ITER_NO_CHANGE = 5


def _converged(grad, tol):
    return np.max(np.abs(grad)) <= tol


def _check_finite(f, solver, it):
    if not np.isfinite(f):
        raise ValueError(
            f"The {solver} solver diverged (non-finite loss at iteration {it}); "
            "use a smaller learning_rate or learning_rate='auto'."
        )


def _convergence_warning(message, stacklevel=5):
    # stacklevel 5: warn <- this <- _fit_* <- _solve <- fit <- the caller.
    warnings.warn(
        message + " Increase the number of iterations (max_iter) or scale the data.",
        ConvergenceWarning,
        stacklevel=stacklevel,
    )


def _not_converged(solver, n_iter):
    """The head of a solver's ConvergenceWarning, in scikit-learn's words.

    scikit-learn's tests match these per-solver phrases (its test_max_iter);
    the detail after the colon is skml's own.
    """
    if solver == "liblinear":
        return "Liblinear failed to converge, increase the number of iterations"
    if solver in ("sag", "saga"):
        return "The max_iter was reached which means the coef_ did not converge"
    if solver in ("newton", "newton-cholesky"):
        return f"Newton solver did not converge after {n_iter} iterations"
    return f"{solver} failed to converge after {n_iter} iteration(s)"


class _IterationHooks:
    """scikit-learn callbacks (:mod:`sklearn.callback`) around L-BFGS iterations.

    One "lbfgs-iter" subtask per iteration: it begins at the weights the
    iteration starts from and ends at those it reached (scipy reports each
    iteration's end), and the next one begins there. The subtask begun after
    the last iteration never runs and is closed as an empty task, so every
    begin hook has its end hook. ``attributes(w)`` maps solver weights to the
    estimator's ``coef_``/``intercept_`` (computed only if a callback asks for
    the fitted estimator).
    """

    def __init__(self, ctx, estimator, X, y, metadata, attributes, w0):
        self._ctx, self._estimator = ctx, estimator
        self._data = dict(X=X, y=y, metadata=metadata)
        self._attributes = attributes
        self._task = self._begin(w0)

    def _begin(self, w):
        task = self._ctx.subcontext(task_name="lbfgs-iter")
        task.call_on_fit_task_begin(
            estimator=self._estimator, **self._data,
            reconstruction_attributes=lambda: self._attributes(w),
        )
        return task

    def iteration_done(self, w):
        w = w.copy()
        self._task.call_on_fit_task_end(
            estimator=self._estimator, **self._data,
            reconstruction_attributes=lambda: self._attributes(w),
        )
        self._task = self._begin(w)

    def close(self):
        self._task.call_on_fit_task_end(estimator=self._estimator)


def _fit_lbfgs(loss, w0, max_iter, tol, verbose, hooks=None):
    def on_iteration(intermediate_result):
        if verbose:
            print(f"L-BFGS iteration: loss {intermediate_result.fun:.10g}")
        if hooks is not None:
            hooks.iteration_done(intermediate_result.x)

    result = optimize.minimize(
        loss.loss_gradient,
        w0,
        method="L-BFGS-B",
        jac=True,
        callback=on_iteration if verbose or hooks is not None else None,
        # The options of scikit-learn's lbfgs solver, so that both stop at
        # the same place: gtol on the largest gradient entry, an ftol that
        # practically never triggers, a patient line search.
        options={"maxiter": max_iter, "maxls": 50, "gtol": tol,
                 "ftol": 64 * np.finfo(float).eps},
    )
    if hooks is not None:
        hooks.close()
    n_iter = min(result.nit, max_iter)
    if result.status != 0:
        _convergence_warning(
            f"lbfgs failed to converge after {n_iter} iteration(s) "
            f"(max_iter={max_iter}, status={result.status}): {result.message}."
        )
    return result.x, n_iter


def _conjugate_gradient(hessp, b, tol, max_iter):
    """Approximately solve ``H x = b`` for positive semi-definite ``H``."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = r @ r
    for _ in range(max_iter):
        if np.sqrt(rr) <= tol:
            break
        Hp = hessp(p)
        curvature = p @ Hp
        if curvature <= 1e-16 * rr:  # a flat direction: nothing more to gain
            break
        alpha = rr / curvature
        x += alpha * p
        r -= alpha * Hp
        rr, rr_old = r @ r, rr
        p *= rr / rr_old
        p += r
    return x


def _newton_direction(loss, w, grad, method="auto"):
    """Solve ``H d = -g``; flat directions of H get no component in ``d``.

    ``method`` "cg" always uses conjugate gradients on Hessian-vector
    products (newton-cg), "cholesky" always the full Hessian
    (newton-cholesky), "auto" the first beyond 200 parameters.
    """
    use_cg = method == "cg" or (
        method == "auto" and loss.n_params > _FULL_HESSIAN_MAX_PARAMS)
    if use_cg:
        norm = np.linalg.norm(grad)
        # Inexact Newton (forcing term min(1/2, sqrt|g|)) keeps quadratic-like
        # convergence while early steps stay cheap.
        return _conjugate_gradient(
            loss.hessp(w), -grad, min(0.5, np.sqrt(norm)) * norm,
            max_iter=min(loss.n_params, 250),
        )
    H = loss.hessian(w)
    U = loss.null_directions()
    if len(U):
        # H u = 0 and g . u = 0 for these u, so adding c u u^T makes H
        # definite without changing the solution in the range of H.
        H += max(np.abs(np.diag(H)).max(), 1.0) * (U.T @ U)
    try:
        factor = linalg.cho_factor(H, check_finite=False)
        return -linalg.cho_solve(factor, grad, check_finite=False)
    except linalg.LinAlgError:  # singular: no penalty and collinear features
        return -linalg.lstsq(H, grad, check_finite=False)[0]


def _line_search(loss, w, f, grad, direction):
    """Backtracking (Armijo) step length; ``None`` if no decrease is found."""
    slope = grad @ direction
    if slope >= 0:  # not a descent direction (numerical trouble): go downhill
        direction, slope = -grad, -(grad @ grad)
    # Near the optimum f changes at the rounding level; accept that.
    slack = 16 * np.finfo(float).eps * abs(f)
    t = 1.0
    for _ in range(40):
        w_new = w + t * direction
        if loss.loss(w_new) <= f + 1e-4 * t * slope + slack:
            return w_new, t
        t *= 0.5
    return None, 0.0


def _liblinear_tolerance(loss, w0, tol, grad_norm):
    """liblinear's stopping threshold: relative to the start, class-balanced.

    liblinear stops when ``||g|| <= tol max(min(n_pos, n_neg), 1) / n ||g_0||``
    (the gradient for l2, the minimum-norm subgradient for l1). Counted over
    the samples of non-zero weight, so that a zero weight is an absent sample.
    """
    codes = loss.codes if loss.sw is None else loss.codes[loss.sw > 0]
    n_pos = int(np.count_nonzero(codes == 1))
    balance = max(min(n_pos, len(codes) - n_pos), 1) / max(len(codes), 1)
    return tol * balance * grad_norm(w0)


def _fit_newton(loss, w0, max_iter, tol, verbose, method="auto", name="newton"):
    if name == "liblinear":  # liblinear's relative criterion on ||g||_2
        threshold = _liblinear_tolerance(
            loss, w0, tol, lambda v: np.linalg.norm(loss.loss_gradient(v)[1]))

        def converged(g):
            return np.linalg.norm(g) <= threshold
    else:
        def converged(g):
            return _converged(g, tol)
    w = w0
    for it in range(max_iter + 1):
        f, grad = loss.loss_gradient(w)
        if verbose:
            print(f"Newton iteration {it}: loss {f:.10g}, "
                  f"max|grad| {np.max(np.abs(grad)):.3g}")
        if converged(grad):
            return w, it
        if it == max_iter:
            break
        w_new, t = _line_search(
            loss, w, f, grad, _newton_direction(loss, w, grad, method))
        if w_new is None:
            _convergence_warning(
                f"{_not_converged(name, it)} ({name}: the line search found no "
                "decrease before the largest gradient entry fell below tol)."
            )
            return w, it
        w = w_new
    _convergence_warning(
        f"{_not_converged(name, max_iter)} ({name}: max_iter={max_iter} reached "
        "before the largest gradient entry fell below tol)."
    )
    return w, max_iter


def _fit_prox_newton(loss, w0, max_iter, tol, verbose, l1, name="liblinear",
                     inner_sweeps=50):
    """Proximal Newton for ``f(w) + l1 ||w||_1``, every weight penalised.

    The scheme of liblinear's L1 logistic solver (newGLMNET, Yuan, Ho and Lin
    2012): at ``w`` the smooth part is replaced by its second-order model
    ``g.d + d^T H d / 2`` and the model plus the L1 term is minimised by
    cyclic coordinate descent over ``d`` (soft thresholding on the full
    Hessian), then a backtracking line search on the true objective with the
    Armijo condition on ``Delta = g.d + l1 (||w + d||_1 - ||w||_1)``.
    Deterministic, and it converges to tol where SAGA's constant step
    crawls on ill-conditioned problems (a large ``intercept_scaling``).
    Stops on liblinear's criterion: the 1-norm of the minimum-norm
    subgradient at most ``tol max(min(n_pos, n_neg), 1) / n`` times its
    value at the start.
    """
    w = w0.copy()

    def subgradient_norm(v):
        g = loss.loss_gradient(v)[1]
        at_zero = np.maximum(np.abs(g) - l1, 0.0)
        return np.abs(np.where(v != 0.0, g + l1 * np.sign(v), at_zero)).sum()

    threshold = _liblinear_tolerance(loss, w0, tol, subgradient_norm)

    def objective(v):
        return loss.loss(v) + l1 * np.abs(v).sum()

    for it in range(max_iter + 1):
        f, grad = loss.loss_gradient(w)
        F = f + l1 * np.abs(w).sum()
        at_zero = np.maximum(np.abs(grad) - l1, 0.0)
        opt = np.abs(np.where(w != 0.0, grad + l1 * np.sign(w), at_zero)).sum()
        if verbose:
            print(f"Proximal Newton iteration {it}: objective {F:.10g}, "
                  f"optimality {opt:.3g}")
        if opt <= threshold:
            return w, it
        if it == max_iter:
            break
        H = loss.hessian(w)
        diag = np.maximum(np.diag(H), 1e-12)
        d = np.zeros_like(w)
        Hd = np.zeros_like(w)
        for _ in range(inner_sweeps):
            largest = 0.0
            for j in range(len(w)):
                z = w[j] + d[j]
                u = z - (grad[j] + Hd[j]) / diag[j]
                z_new = np.sign(u) * max(abs(u) - l1 / diag[j], 0.0)
                delta = z_new - z
                if delta != 0.0:
                    d[j] += delta
                    Hd += delta * H[:, j]
                    largest = max(largest, abs(delta))
            if largest <= 1e-3 * max(np.abs(d).max(), 1e-12):
                break
        decrease = grad @ d + l1 * (np.abs(w + d).sum() - np.abs(w).sum())
        slack = 16 * np.finfo(float).eps * abs(F)
        t = 1.0
        for _ in range(40):
            if objective(w + t * d) <= F + 0.01 * t * decrease + slack:
                break
            t *= 0.5
        else:
            _convergence_warning(
                f"{_not_converged(name, it)} (proximal Newton: the line search "
                "found no decrease before the subgradient fell below tol).")
            return w, it
        w = w + t * d
    _convergence_warning(
        f"{_not_converged(name, max_iter)} (proximal Newton: max_iter={max_iter} "
        "reached before the subgradient fell below tol).")
    return w, max_iter


def _fit_sag(loss, w0, max_iter, tol, verbose, rng, saga, l1=0.0, name=None):
    """SAG or SAGA (with the L1 proximal step) through the numba kernel.

    The step is ``1/L`` for SAG and ``1/(2L + min(2 n l2, L))`` for SAGA
    (Defazio et al. 2014), with ``L`` the largest curvature of one sample's
    term, ``c a_i (||x_i||^2 + 1) + l2`` (``c`` = 1/4 sigmoid, 1/2 softmax,
    ``a_i = n s_i / S``). ``tol`` bounds the largest weight change of an
    epoch relative to the largest weight, scikit-learn's sag criterion.
    """
    X = loss.X
    n = loss.n_samples
    sw = np.ones(n) if loss.sw is None else loss.sw
    a = n * sw / loss.sw_sum
    rows, sq = sag_rows(X)
    l2 = float(np.max(loss.l2))
    L = np.max(a * (0.25 if loss.binary else 0.5) * (sq + float(loss.fit_intercept))) + l2
    step = 1.0 / L if not saga else 1.0 / (2.0 * L + min(2.0 * n * l2, L))
    coef, intercept = loss.unpack(w0.copy())
    W = np.ascontiguousarray(coef)
    b = np.zeros(loss.n_rows) if intercept is None else intercept.copy()
    # The fitted class probabilities, sample-major: one-hot or label-smoothed.
    targets = np.ascontiguousarray(loss.y.reshape(loss.n_rows, n).T)
    problem = SAGData(*rows, loss.codes.astype(np.int64), targets, a)
    config = SAGConfig(LOGISTIC if loss.binary else MULTINOMIAL, loss.fit_intercept,
                       l2, float(l1), step, int(max_iter), float(tol), bool(saga),
                       int(rng.randint(2**31 - 1)))
    n_epochs, converged = sag_solve(problem, config, W, b)
    method = "saga" if saga else "sag"
    name = name or method
    w = np.empty(loss.n_params)
    coef, intercept = loss.unpack(w)
    coef[:] = W
    if intercept is not None:
        intercept[:] = b
    if not np.all(np.isfinite(w)):
        raise ValueError(f"The {method} solver diverged (non-finite weights).")
    if verbose:
        print(f"{method}: {n_epochs} epoch(s), converged={converged}")
    if not converged:
        _convergence_warning(
            f"{_not_converged(name, n_epochs)} ({method}: max_iter={max_iter} "
            "epochs reached before the weights stopped changing, relative "
            "change > tol)."
        )
    return w, n_epochs


def _lipschitz(loss):
    """Largest curvature of the loss: ``c lambda_max([X 1]^T S [X 1] / S) + l2``.

    The softmax Hessian ``diag(p) - p p^T`` has eigenvalues at most 1/2, the
    sigmoid's ``p (1 - p)`` at most 1/4. lambda_max by 30 power iterations from
    a fixed start (deterministic whatever ``random_state``).
    """
    X, n_features = loss.X, loss.n_features
    sw = np.ones(loss.n_samples) if loss.sw is None else loss.sw
    v = np.random.RandomState(0).uniform(0.5, 1.5, loss.n_cols)
    lam = 0.0
    for _ in range(30):
        v /= np.linalg.norm(v)
        t = X @ v[:n_features]
        if loss.fit_intercept:
            t += v[-1]
        t *= sw / loss.sw_sum
        u = np.empty_like(v)
        u[:n_features] = X.T @ t
        if loss.fit_intercept:
            u[-1] = t.sum()
        lam, v = v @ u, u
    # The Rayleigh quotient approaches lambda_max from below: a small margin.
    return 1.05 * lam * (0.25 if loss.binary else 0.5) + np.max(loss.l2)


class _Standardised:
    """The objective in standardised coordinates, for the first-order solvers.

    A constant step ``1/L`` is limited by the stiffest direction: next to
    raw features of scale ``a`` (curvature ~``a^2``), the intercept
    (curvature ~1) moves ~``a^2`` times too slowly. scikit-learn's
    ``check_class_weight_classifiers`` (features ~40) caught sgd stopping at
    an intercept of -0.3 where the optimum is -12. So gd and sgd run on the
    reparametrised problem ``w_j = v_j / s_j``, ``b = c - sum_j w_j mu_j``,
    whose data are the columns ``(x_j - mu_j) / s_j`` and whose penalty is
    ``(l2 / s_j^2) v_j^2 / 2``. It is the same function of the scores, so the
    minimiser, mapped back, is the original one; only the metric of the
    gradient steps changes (a fixed diagonal preconditioner).

    ``mu_j`` is the weighted mean (centring decouples the intercept from the
    features) and ``s_j = sqrt(var_j + 4 l2)``: then every diagonal entry of
    the curvature bound ``[X 1]^T diag(s/4) [X 1] / S + l2`` equals 1/4 (a
    Jacobi preconditioner), and a constant column gets a finite scale.
    Sparse X, or no intercept to absorb the shift, is scaled without
    centring (``var`` is then the second moment), which keeps it sparse.
    """

    def __init__(self, loss):
        X, sw, nf = loss.X, loss.sw, loss.n_features
        weights = None if sw is None else sw / loss.sw_sum
        l2 = np.broadcast_to(loss.l2, (nf,))

        def average(A):  # weighted column means
            if weights is None:
                return np.asarray(A.mean(axis=0)).ravel()
            return np.asarray(A.T @ weights).ravel()

        self.n_rows, self.fit_intercept = loss.n_rows, loss.fit_intercept
        centre = loss.fit_intercept and not sp.issparse(X)
        if centre:
            self.mu = average(X)
            Xs = X - self.mu
            var = average(Xs * Xs)
        else:
            self.mu = np.zeros(nf)
            var = average(X.multiply(X) if sp.issparse(X) else X * X)
        scale = np.sqrt(var + 4.0 * l2)
        scale[scale == 0.0] = 1.0  # a zero column without penalty: leave it
        self.scale = scale
        if sp.issparse(X):
            Xs = (X @ sp.diags(1.0 / scale)).tocsr()
        elif centre:
            Xs /= scale
        else:
            Xs = X / scale
        self.loss = LogisticLoss(
            Xs, loss.codes, loss.n_classes, sw, l2 / scale**2, loss.fit_intercept,
            multinomial=not loss.binary, label_smoothing=loss.label_smoothing,
        )

    def _split(self, w):
        W = w.reshape(self.n_rows, -1)
        return (W[:, :-1], W[:, -1]) if self.fit_intercept else (W, None)

    def from_original(self, w):
        """``(W, b)`` to ``(V, c)``: ``V = W s``, ``c = b + W mu``."""
        v = w.copy()
        V, c = self._split(v)
        if c is not None:
            c += V @ self.mu
        V *= self.scale
        return v

    def to_original(self, v):
        """``(V, c)`` to ``(W, b)``: ``W = V / s``, ``b = c - W mu``."""
        w = v.copy()
        W, b = self._split(w)
        W /= self.scale
        if b is not None:
            b -= W @ self.mu
        return w

    def gradient_to_original(self, g):
        """The gradient in ``(W, b)`` from the one in ``(V, c)`` (chain rule)."""
        g = g.copy()
        G, g_b = self._split(g)
        G *= self.scale
        if g_b is not None:
            G += g_b[:, None] * self.mu
        return g


def _fit_gd(loss, w0, max_iter, tol, verbose, learning_rate):
    coords = _Standardised(loss)  # steps in standardised coordinates
    loss = coords.loss
    eta = 1.0 / _lipschitz(loss) if learning_rate == "auto" else learning_rate
    optimizer = SGD(learning_rate=eta)
    w = coords.from_original(w0)
    for it in range(max_iter + 1):
        f, grad = loss.loss_gradient(w)
        _check_finite(f, "gd", it)
        # tol applies to the gradient in the original coordinates, as for
        # the other solvers.
        grad_max = np.max(np.abs(coords.gradient_to_original(grad)))
        if verbose and (it % max(1, max_iter // 20) == 0):
            print(f"GD iteration {it}: loss {f:.10g}, max|grad| {grad_max:.3g}")
        if grad_max <= tol:
            return coords.to_original(w), it
        if it == max_iter:
            break
        optimizer.step([w], [grad])
    _convergence_warning(
        f"gd reached max_iter={max_iter} before the largest gradient entry fell "
        "below tol."
    )
    return coords.to_original(w), max_iter


def _fit_sgd(loss, w0, max_iter, tol, verbose, learning_rate, batch_size, rng):
    coords = _Standardised(loss)  # steps in standardised coordinates
    loss, w0 = coords.loss, coords.from_original(w0)
    n_samples = loss.n_samples
    batch_size = min(batch_size, n_samples)
    n_batches = -(-n_samples // batch_size)
    eta0 = 1.0 / _lipschitz(loss) if learning_rate == "auto" else learning_rate
    # The rate decays as 1/sqrt(epoch), whatever the batch size.
    decay = InverseScaling(eta0, power_t=0.5)
    optimizer = SGD(learning_rate=lambda t: decay(t // n_batches))
    w = w0.copy()
    w_avg = np.empty_like(w)
    best, n_no_change = loss.loss(w), 0
    for epoch in range(1, max_iter + 1):
        order = rng.permutation(n_samples)
        w_avg[:] = 0.0
        for start in range(0, n_samples, batch_size):
            _, grad = loss.loss_gradient(w, rows=order[start:start + batch_size])
            optimizer.step([w], [grad])
            w_avg += w
        # The epoch's average iterate (Polyak-Ruppert) cancels most of the
        # mini-batch noise that the last iterate carries.
        w_avg /= n_batches
        f = loss.loss(w_avg)
        _check_finite(f, "sgd", epoch)
        if verbose:
            print(f"SGD epoch {epoch}: loss {f:.10g}")
        if f > best - tol:
            n_no_change += 1
            if n_no_change >= _SGD_N_ITER_NO_CHANGE:
                return coords.to_original(w_avg), epoch
        else:
            n_no_change = 0
        best = min(best, f)
    _convergence_warning(
        f"sgd reached max_iter={max_iter} epochs while the loss was still "
        "decreasing."
    )
    return coords.to_original(w_avg), max_iter


def _condition(X, l2, fit_intercept):
    """The same problem in better units for data of extreme magnitude.

    ``X = s X'`` (``s = 2^e`` from ``magnitude_scale``, exact) with
    ``W = W' / s`` leaves the scores unchanged and turns the penalty
    ``(l2/2) ||W||^2`` into ``(l2 / s^2 / 2) ||W'||^2``: at X * 1e300 the
    penalty vanishes, as it does in the exact problem. If ``l2 / s^2``
    overflows (tiny X) the penalty dominates and the unscaled problem is
    solved as is. With an intercept, which is not penalised, dense columns
    far from the origin are centred, ``b = b' - W' mu``: the same minimiser.
    Returns ``X, l2, s, mu`` (``s = 1.0``, ``mu = None``: unchanged).
    """
    s = magnitude_scale(X)
    if s != 1.0:
        with np.errstate(over="ignore", under="ignore"):
            l2_s = l2 / s / s
        if np.isfinite(l2_s):
            X, l2 = X / s, l2_s
        else:
            s = 1.0
    mu = far_offset(X) if fit_intercept else None
    if mu is not None:
        X = X - mu
    return X, l2, s, mu


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class LogisticRegression(CallbackSupportMixin, LinearClassifierMixin, BaseEstimator):
    r"""Penalised logistic regression: sigmoid for two classes, softmax beyond.

    With two classes the model is ``P(y=1|x) = sigma(w.x + b)`` (notes B
    §3.3); with ``K > 2`` classes it is the multinomial (softmax) model
    ``P(y=k|x) = exp(w_k.x + b_k) / sum_l exp(w_l.x + b_l)`` (notes B §3.5),
    as scikit-learn 1.9 (no one-vs-rest option: wrap the estimator in
    ``OneVsRestClassifier`` for §3.6). The fitted weights minimise

    .. math:: C \sum_i s_i \ell_i + \tfrac{1-\rho}{2} \|W\|_F^2 + \rho \|W\|_1

    (the regularised objective of notes B §3.4, intercept not penalised;
    ``rho = l1_ratio``), with ``l_i`` the cross-entropy of sample ``i`` and
    ``s_i`` its weight.

    Parameters
    ----------
    penalty : {"l1", "l2", "elasticnet", None}, default="deprecated"
        Deprecated as in scikit-learn 1.8 (removed in 1.10): setting it warns
        (FutureWarning) and wins over ``l1_ratio``; leave it at its default
        and use ``l1_ratio`` (and ``C=np.inf`` for no penalty).
    C : float, default=1.0
        Inverse regularisation strength, > 0; ``np.inf`` for no penalty.
    l1_ratio : float in [0, 1], default=0.0
        Elastic-net mixing: the penalty is ``(1 - l1_ratio)/2 ||W||^2 +
        l1_ratio ||W||_1``. Only "saga" (and "liblinear" at 1) accept
        ``l1_ratio > 0``. ``None`` is deprecated (read as 0, FutureWarning).
    dual : bool, default=False
        Only for "liblinear" with the l2 penalty; its dual has the primal's
        optimum, which is what is solved.
    tol : float, default=1e-4
        Stop when the largest entry of the gradient of the objective divided
        by ``C * sum(s_i)`` is at most ``tol`` (lbfgs, newton, newton-cg,
        newton-cholesky, gd, liblinear with l2; scikit-learn's lbfgs
        criterion); "sag" and "saga" stop after an epoch whose largest weight
        change is at most ``tol`` times the largest weight (scikit-learn's
        sag criterion); "sgd" stops when an epoch lowers that scaled
        objective by less than ``tol`` five times in a row.
    fit_intercept : bool, default=True
        Fit the (unpenalised) intercept ``b``.
    intercept_scaling : float, default=1
        Only for "liblinear": the intercept is the weight of a constant
        feature of this value, penalised like the others (liblinear's model).
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers of the sample weights; "balanced" uses
        ``n_samples / (n_classes * np.bincount(y))`` (weighted counts).
    random_state : int, RandomState instance or None, default=None
        Draws the samples of "sag", "saga" (and "liblinear" with l1 beyond
        200 weights) and shuffles those of "sgd"; unused otherwise.
    solver : str, default="lbfgs"
        One of "lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag",
        "saga", "newton", "gd", "sgd":

        - "lbfgs": scipy's L-BFGS-B on the analytic loss and gradient.
        - "newton-cholesky": Newton's method (notes B §6.11; IRLS for two
          classes) with the full Hessian, Cholesky-factored, and a
          backtracking line search. Memory ``O((p K)^2)``.
        - "newton-cg": the same Newton steps solved inexactly by conjugate
          gradients on Hessian-vector products (no Hessian stored).
        - "newton": "newton-cholesky" up to 200 parameters, "newton-cg"
          beyond (skml's choice).
        - "sag": stochastic average gradient (Le Roux et al. 2012).
        - "saga": SAGA (Defazio et al. 2014) with a proximal L1 step: the
          only solver for ``0 < l1_ratio``.
        - "liblinear": binary only, liblinear's objective: the intercept is
          a penalised constant feature (``intercept_scaling``); solved by
          Newton (l2) or, for l1, proximal Newton with coordinate descent
          (liblinear's own scheme [4]; SAGA's proximal steps beyond 200
          weights), not by liblinear.
        - "gd": batch gradient descent with a constant step (notes B §3.3).
        - "sgd": mini-batch SGD with a ``1/sqrt(epoch)`` decaying step,
          returning the average iterate of the last epoch (Polyak-Ruppert).

        "gd" and "sgd" step in standardised coordinates (see Notes), so they
        need no feature scaling; "sag" and "saga" do not (scale the data for
        them, as for scikit-learn's). All minimise the same objective.
        "liblinear", "sag" and "saga" refuse sparse X with 64-bit indices
        (ValueError), as scikit-learn's do.
    max_iter : int, default=100
        Iterations (lbfgs, newton*, gd) or epochs (sag, saga, sgd), >= 0;
        0 runs none and keeps the initial weights (zero, or the warm start),
        as scikit-learn's.
    verbose : int, default=0
        Print the loss along the iterations when > 0.
    warm_start : bool, default=False
        Start from the previous ``coef_``/``intercept_`` instead of zero
        (not for "liblinear", as in scikit-learn).
    n_jobs : None
        Has no effect; deprecated in scikit-learn 1.8 (FutureWarning when set).
    learning_rate : "auto" or float, default="auto"
        Step size of "gd" (and initial step of "sgd"), in the standardised
        coordinates these solvers use; "auto" is ``1/L``, with ``L`` the
        largest curvature of the objective in those coordinates.
    batch_size : int, default=32
        Mini-batch size of "sgd".
    threshold : float in [0, 1] or None, default=None
        The decision threshold ``c`` of notes D3 (B §3.3, "分类边界"):
        :meth:`predict` gives ``classes_[1]`` iff ``h(x) = P(y=1|x) >= c``,
        as scikit-learn's ``FixedThresholdClassifier(threshold=c,
        response_method="predict_proba")``. ``None`` is scikit-learn's rule
        (``P(y=1|x) > 1/2``, notes D1). Binary problems only; the fit (and
        ``predict_proba``, ``decision_function``) does not depend on it.
    label_smoothing : float in [0, 1), default=0.0
        Label smoothing ``eps`` (notes B §7.6, A §14): every solver fits the
        cross-entropy to the soft targets ``(1 - eps) onehot(y) + eps / K``
        instead of the one-hot ones (``K`` = the number of classes, 2 for the
        binary model), the meaning of :class:`~skml.neural_network.MLPClassifier`'s
        ``label_smoothing`` and :func:`skml.attention.label_smoothing`. The
        loss becomes ``l_i = logsumexp(z_i) - t_i . z_i``: its gradient is
        ``(p_i - t_i) x_i`` and its Hessian is unchanged. For ``eps > 0``
        every target lies strictly inside (0, 1), so the loss grows without
        bound with any score: the weights stay finite even on separable data
        without a penalty (``C=np.inf``), and shrink as ``eps`` grows. Source:
        notes B §7.6 (D1 §12.2) and A §14. Not a scikit-learn parameter; 0
        (the default) is scikit-learn's model, the same fit bit for bit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights; one row (for ``classes_[1]``) with two classes. float32
        when X is float32 (except for "liblinear"), as scikit-learn's.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts (zeros when ``fit_intercept=False``).
    n_iter_ : ndarray of shape (1,)
        Iterations (epochs for sgd) run.
    <fitted_feature_attributes>

    See Also
    --------
    sklearn.linear_model.LogisticRegression : The reference implementation.
    skml.linear_model.SGDClassifier : Linear models fitted by plain SGD.

    Notes
    -----
    Objective as solved: ``(1/S) sum_i s_i l_i + ||W||^2 / (2 C S)`` with
    ``S = sum_i s_i``, scikit-learn's scaling, so both libraries share an
    optimum and ``tol``. Notes B §0.1: the regularised logistic objective of
    D3, ``-(1/m) sum loglik + (lambda/2m) sum theta_j^2``, is ``C = 1/lambda``.
    The binary loss uses ``log(1+e^z) = max(z,0) + log1p(e^{-|z|})`` and the
    softmax subtracts each row's maximum, so no logit overflows.

    First-order solvers and feature scale: a constant step ``1/L`` is set by
    the stiffest direction, so on raw features (breast_cancer's reach 4000)
    the intercept and the small-scale features barely move. "gd" and "sgd"
    therefore minimise the same objective over ``v_j = s_j w_j`` and
    ``c = b + sum_j w_j mu_j``, with ``mu`` the weighted feature means and
    ``s_j = sqrt(var_j + 4 / (C S))`` (weighted variances): the data become
    the centred, scaled columns ``(x_j - mu_j) / s_j`` and the penalty
    ``sum_j v_j^2 / (2 C S s_j^2)``. Every diagonal entry of the curvature
    bound is then 1/4 (a Jacobi preconditioner) and the intercept is
    decoupled from the features. This is a change of variables, not of the
    model, so the optimum (mapped back) is that of "lbfgs"; it costs one
    scaled copy of X. Sparse X, and ``fit_intercept=False``, are scaled
    without centring (``var`` is then the second moment), keeping X sparse.
    Directions that are ill-conditioned in any scaling (nearly collinear
    features, nearly separable classes) still converge slowly: use "lbfgs"
    or "newton" there.

    One evaluation of loss and gradient costs ``O(n_samples n_features K)``
    (two matrix products); a Newton step adds ``O(n_samples p^2 K^2 + (pK)^3)``
    with ``p = n_features + 1`` (or ``O(n_samples p K)`` per CG product).
    Memory is ``O(n_samples K)`` beyond the data. What makes it fast: loss
    and gradient share one pass (one exponential per score), the softmax
    scores are stored class-major so that reductions over classes are
    vectorised, and small problems run BLAS on one thread, where threads only
    add synchronisation cost.

    References
    ----------
    .. [1] J. Nocedal and S. J. Wright, "Numerical Optimization", 2nd ed.,
       Springer, 2006 (L-BFGS, ch. 7; inexact Newton-CG, ch. 7.1).
    .. [2] N. Le Roux, M. Schmidt and F. Bach, "A stochastic gradient method
       with an exponential convergence rate for finite training sets",
       NeurIPS 2012 (SAG).
    .. [3] A. Defazio, F. Bach and S. Lacoste-Julien, "SAGA: a fast
       incremental gradient method with support for non-strongly convex
       composite objectives", NeurIPS 2014.
    .. [4] G.-X. Yuan, C.-H. Ho and C.-J. Lin, "An improved GLMNET for
       L1-regularized logistic regression", JMLR 13, 2012 (liblinear's L1
       solver: proximal Newton with coordinate descent).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.linear_model import LogisticRegression
    >>> X, y = load_iris(return_X_y=True)
    >>> clf = LogisticRegression(max_iter=200).fit(X, y)
    >>> clf.predict(X[:2])
    array([0, 0])
    >>> clf.predict_proba(X[:1]).round(2)
    array([[0.98, 0.02, 0.  ]])
    """

    _parameter_constraints = {
        "penalty": [Options({"l1", "l2", "elasticnet", "deprecated"}), None],
        "C": [Interval(Real, 0, None, closed="neither")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        "dual": ["boolean"],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "solver": [Options(_SOLVERS)],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, Options({"balanced"}), None],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "learning_rate": [
            Options({"auto"}), Interval(Real, 0, None, closed="neither")
        ],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "threshold": [Interval(Real, 0, 1, closed="both"), None],
        "label_smoothing": [Interval(Real, 0, 1, closed="left")],
    }

    def __init__(
        self,
        penalty="deprecated",
        *,
        C=1.0,
        l1_ratio=0.0,
        dual=False,
        tol=1e-4,
        fit_intercept=True,
        intercept_scaling=1,
        class_weight=None,
        random_state=None,
        solver="lbfgs",
        max_iter=100,
        verbose=0,
        warm_start=False,
        n_jobs=None,
        learning_rate="auto",
        batch_size=32,
        threshold=None,
        label_smoothing=0.0,
    ):
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.threshold = threshold
        self.label_smoothing = label_smoothing

    def _penalty(self):
        """``(C, rho)``: the effective C and L1 share, as scikit-learn 1.9 reads them.

        ``penalty`` is deprecated (1.8, removed in 1.10): left at its default,
        ``l1_ratio`` picks the penalty (0: l2, 1: l1, between: elastic-net)
        and ``C=np.inf`` means none; set, it warns and wins.
        """
        C, l1_ratio = self.C, self.l1_ratio
        if self.penalty == "deprecated":
            if l1_ratio is None or l1_ratio == 0:
                penalty = "l2"
                if l1_ratio is None:
                    warnings.warn(
                        "'l1_ratio=None' was deprecated in version 1.8 and will "
                        "trigger an error in 1.10. Use 0<=l1_ratio<=1 instead.",
                        FutureWarning,
                    )
            elif l1_ratio == 1:
                penalty = "l1"
            else:
                penalty = "elasticnet"
            if np.isinf(C):
                penalty = None
        else:
            penalty = self.penalty
            warnings.warn(
                "'penalty' was deprecated in version 1.8 and will be removed in "
                "1.10. To avoid this warning, leave 'penalty' set to its default "
                "value and use 'l1_ratio' or 'C' instead. Use l1_ratio=0 instead "
                "of penalty='l2', l1_ratio=1 instead of penalty='l1', l1_ratio "
                "set to a float between 0 and 1 instead of penalty='elasticnet', "
                "and C=np.inf instead of penalty=None.",
                FutureWarning,
            )
        solver = self.solver
        if solver not in ("liblinear", "saga") and penalty not in ("l2", None):
            raise ValueError(
                f"Solver {solver} supports only 'l2' or None penalties, got "
                f"{penalty} penalty."
            )
        if solver != "liblinear" and self.dual:
            raise ValueError(
                f"Solver {solver} supports only dual=False, got dual={self.dual}")
        if penalty == "elasticnet" and solver != "saga":
            raise ValueError(
                "Only 'saga' solver supports elasticnet penalty, got "
                f"solver={solver}.")
        if solver == "liblinear" and penalty is None:
            raise ValueError(
                "C=np.inf as well as penalty=None is not supported for the "
                "liblinear solver")
        if solver == "liblinear" and self.dual and penalty == "l1":
            raise ValueError(
                "The liblinear solver's dual formulation supports only the l2 "
                "penalty, got penalty='l1' with dual=True.")
        if penalty != "elasticnet" and l1_ratio is not None and 0 < l1_ratio < 1:
            warnings.warn(
                "l1_ratio parameter is only used when penalty is 'elasticnet'. "
                f"Got (penalty={penalty})")
        if (self.penalty == "l2" and l1_ratio != 0) or (
            self.penalty == "l1" and l1_ratio != 1
        ):
            warnings.warn(
                f"Inconsistent values: penalty={self.penalty} with "
                f"l1_ratio={l1_ratio}. penalty is deprecated. Please use "
                "l1_ratio only.")
        if penalty == "elasticnet" and l1_ratio is None:
            raise ValueError("l1_ratio must be specified when penalty is elasticnet.")
        if self.penalty is None:
            if C != 1.0:
                warnings.warn(
                    "Setting penalty=None will ignore the C and l1_ratio parameters")
            return np.inf, 0.0
        if penalty is None:
            return np.inf, 0.0
        rho = {"l1": 1.0, "l2": 0.0}.get(penalty, l1_ratio)
        return C, float(rho)

    def set_callbacks(self, *callbacks):
        """Set :mod:`sklearn.callback` callbacks, called during ``fit``.

        Every solver calls the fit task's hooks; "lbfgs" also one subtask per
        iteration (with the fitted estimator of that iteration, if asked).

        Parameters
        ----------
        *callbacks : callback instances
            Objects following scikit-learn's ``FitCallback`` protocol.

        Returns
        -------
        self : LogisticRegression
            The estimator.
        """
        if self.solver != "lbfgs":
            warnings.warn(
                "Callbacks are only supported in LogisticRegression for "
                f"solver='lbfgs'. This estimator has solver={self.solver!r}: the "
                "callbacks see the fit task, not its iterations.",
                UserWarning,
            )
        return super().set_callbacks(*callbacks)

    @fill_doc(x_parameter=x_parameter(), returns_self=returns_self())
    @with_callbacks
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        <x_parameter>
        y : array-like of shape (n_samples,)
            Class labels (any type).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a weight of 2 counts as a repeated sample.

        <returns_self>
        """
        validate_params(self)
        C, rho = self._penalty()
        if self.n_jobs is not None:
            warnings.warn(
                "'n_jobs' has no effect since 1.8 and will be removed in 1.10. "
                f"You provided 'n_jobs={self.n_jobs}', please leave it unspecified.",
                FutureWarning,
            )
        # liblinear, sag and saga refuse int64-indexed sparse X, with
        # check_array's ValueError, as scikit-learn's (whose C solvers take
        # int32 indices only).
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
            accept_large_sparse=self.solver not in ("liblinear", "sag", "saga"))
        X_user = X  # what callbacks see
        # float32 X gives float32 coef_ (and intercept_), as scikit-learn's
        # solvers other than liblinear; the solvers themselves run in float64.
        out_dtype = X.dtype if self.solver != "liblinear" else np.float64
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not sp.issparse(X) and not (X.flags.c_contiguous or X.flags.f_contiguous):
            X = np.ascontiguousarray(X)  # else every product would copy it
        sw = None if sample_weight is None else check_sample_weight(sample_weight, X)
        # Classes come from y alone (as scikit-learn's): a class whose samples
        # all weigh zero, e.g. in a bootstrap, stays a class the penalised
        # model gives a small probability.
        classes, y_enc = encode_labels(y)
        if self.class_weight is not None:
            class_weight = compute_class_weight(
                self.class_weight, classes=classes, y=y, sample_weight=sw
            )
            sw = class_weight[y_enc] if sw is None else sw * class_weight[y_enc]
            if not np.any(sw > 0):
                raise ValueError("class_weight leaves every sample weight at zero.")
        n_classes = len(classes)
        if self.threshold is not None and n_classes > 2:
            raise ValueError(
                f"threshold={self.threshold} is the decision threshold of a binary "
                f"model (notes D3); y has {n_classes} classes. Use threshold=None.")
        liblinear = self.solver == "liblinear"
        if liblinear and n_classes > 2:
            raise ValueError(
                "The 'liblinear' solver does not support multiclass classification"
                " (n_classes >= 3). Either use another solver or wrap the "
                "estimator in a OneVsRestClassifier to keep applying a "
                "one-versus-rest scheme.")
        fit_intercept = self.fit_intercept and not liblinear
        if liblinear and self.fit_intercept:
            # liblinear's intercept: a constant feature intercept_scaling,
            # penalised like the others.
            column = np.full((X.shape[0], 1), float(self.intercept_scaling))
            X = (sp.hstack([X, sp.csr_matrix(column)], format="csr")
                 if sp.issparse(X) else np.hstack([X, column]))
        sw_sum = float(X.shape[0] if sw is None else sw.sum())
        l2 = 0.0 if np.isinf(C) else (1.0 - rho) / (C * sw_sum)
        l1 = 0.0 if np.isinf(C) else rho / (C * sw_sum)
        X, l2, s, mu = _condition(X, l2, fit_intercept)
        l1 = l1 / s
        loss = LogisticLoss(X, y_enc, n_classes, sw, l2, fit_intercept,
                            label_smoothing=self.label_smoothing)

        w0 = self._initial_weights(loss, classes)
        coef0, intercept0 = loss.unpack(w0)
        coef0 *= s  # to the solver's units (a no-op at s = 1, mu = None)
        if mu is not None:
            intercept0 += coef0 @ mu
        self.classes_ = classes

        def attributes(w):
            """Solver weights -> (coef_, intercept_) in the user's units."""
            coef, intercept = loss.unpack(w)
            if mu is not None:
                intercept = intercept - coef @ mu
            if s != 1.0:
                coef = coef / s
            if liblinear and self.fit_intercept:
                intercept = coef[:, -1] * self.intercept_scaling
                coef = coef[:, :-1]
            return {"coef_": coef.astype(out_dtype),
                    "intercept_": (np.zeros(loss.n_rows) if intercept is None
                                   else intercept.astype(out_dtype))}

        # scikit-learn's callback protocol: the fit task, and (lbfgs) one
        # subtask per iteration plus the empty one after the last.
        callback_ctx = self._init_callback_context(
            max_subtasks=max(self.max_iter, 1) + 1)
        metadata = None if sample_weight is None else {"sample_weight": sw}
        callback_ctx.call_on_fit_task_begin(estimator=self, X=X_user, y=y,
                                            metadata=metadata)
        hooks = None
        if self.solver == "lbfgs" and hasattr(self, "_skl_callbacks"):
            hooks = _IterationHooks(callback_ctx, self, X_user, y, metadata,
                                    attributes, w0.copy())
        with blas_threads_for(X.shape[0] * X.shape[1] * loss.n_rows):
            w, n_iter = self._solve(loss, w0, l1, hooks)

        fitted = attributes(w)
        self.coef_, self.intercept_ = fitted["coef_"], fitted["intercept_"]
        self.n_iter_ = np.array([n_iter], dtype=np.int32)
        callback_ctx.call_on_fit_task_end(estimator=self, X=X_user, y=y,
                                          metadata=metadata,
                                          reconstruction_attributes={})
        return self

    def _solve(self, loss, w0, l1, hooks=None):
        args = (loss, w0, self.max_iter, self.tol, self.verbose)
        solver = self.solver
        if self.max_iter == 0:
            # As scikit-learn 1.9: the initial weights (zero, or the warm
            # start), to inspect the model before any update.
            _, grad = loss.loss_gradient(w0)
            if not _converged(grad, self.tol):
                _convergence_warning(
                    f"{_not_converged(solver, 0)} ({solver}: max_iter=0, "
                    "no iteration run).", stacklevel=4)
            if hooks is not None:
                # The one task run: the gradient at w0 (as scikit-learn's
                # lbfgs reports one subtask even at max_iter=0).
                hooks.iteration_done(w0)
                hooks.close()
            return w0, 0
        if solver == "liblinear":
            # Same objective as liblinear's primal (and, at the optimum, its
            # l2 dual): Newton for l2; for l1 proximal Newton (liblinear's
            # scheme) up to 200 weights, SAGA's proximal steps beyond.
            if l1 > 0 and loss.n_params <= _FULL_HESSIAN_MAX_PARAMS:
                return _fit_prox_newton(*args, l1, name=solver)
            if l1 > 0:
                return _fit_sag(*args, check_random_state(self.random_state),
                                saga=True, l1=l1, name=solver)
            return _fit_newton(*args, name=solver)
        if solver == "lbfgs":
            return _fit_lbfgs(*args, hooks=hooks)
        if solver in ("newton", "newton-cg", "newton-cholesky"):
            method = {"newton": "auto", "newton-cg": "cg"}.get(solver, "cholesky")
            return _fit_newton(*args, method=method, name=solver)
        if solver in ("sag", "saga"):
            return _fit_sag(*args, check_random_state(self.random_state),
                            saga=solver == "saga", l1=l1)
        if solver == "gd":
            return _fit_gd(*args, self.learning_rate)
        return _fit_sgd(
            *args, self.learning_rate, self.batch_size,
            check_random_state(self.random_state),
        )

    def _initial_weights(self, loss, classes):
        w0 = np.zeros(loss.n_params)
        if self.solver == "liblinear":  # as scikit-learn's: no warm start
            return w0
        if not (self.warm_start and hasattr(self, "coef_")):
            return w0
        expected = (loss.n_rows, loss.n_features)
        if self.coef_.shape != expected:
            raise ValueError(
                f"warm_start: the previous coef_ has shape {self.coef_.shape}, but "
                f"this data needs {expected} ({len(classes)} classes, "
                f"{loss.n_features} features). Set warm_start=False."
            )
        coef, intercept = loss.unpack(w0)
        coef[:] = self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_
        if intercept is not None:
            intercept[:] = self.intercept_
        return w0

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """Predict class labels.

        With ``threshold=None``: ``classes_[1]`` iff ``P(y=1|x) > 1/2``
        (``w.x + b > 0``, notes D1), the arg-max beyond two classes. With
        ``threshold=c``: ``classes_[1]`` iff ``h(x) = P(y=1|x) >= c`` (notes
        D3, "分类边界").

        <predict_doc>
            Labels from ``classes_``.
        """
        if self.threshold is None:
            return super().predict(X)
        h = self.predict_proba(X)[:, 1]
        return self.classes_[(h >= self.threshold).astype(np.intp)]

    @fill_doc(
        predict_doc=predict_doc("proba : ndarray of shape (n_samples, n_classes)")
    )
    def predict_proba(self, X):
        """Class probabilities (sigmoid or softmax of the scores).

        <predict_doc>
            Columns in the order of ``classes_``; rows sum to one.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            # expit(-z) rather than 1 - expit(z): accurate when it is tiny.
            return np.column_stack([sigmoid(-scores), sigmoid(scores)])
        return softmax(scores, copy=False)

    @fill_doc(
        predict_doc=predict_doc("log_proba : ndarray of shape (n_samples, n_classes)")
    )
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`, computed without underflow.

        <predict_doc>
            Log-probabilities, columns in the order of ``classes_``.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        scores -= scores.max(axis=1, keepdims=True)
        scores -= np.log(np.exp(scores).sum(axis=1, keepdims=True))
        return scores

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
