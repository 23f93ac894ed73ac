r"""The one training loop of the network core (notes B §6-7).

:func:`train` runs mini-batch epochs over a :class:`~._modules.Sequential`
with a loss of :mod:`._losses` and an :mod:`skml.optim` optimiser:
shuffling, batches, the L2 term, early stopping through
:class:`~skml.optim.PlateauStopper`, ``verbose`` lines, the divergence check
and the ConvergenceWarning live here once. :func:`train_lbfgs` is the
full-batch alternative over the same network and loss, and
:func:`loss_gradient` the objective both minimise:

.. math::

   J(\theta) = \frac{\sum_{i \in B} s_i \ell_i}{S}
     + \frac{\alpha}{2 S} \|W\|^2, \qquad S = \sum_{i \in B} s_i,

with :math:`W` the penalised weights ``theta[:n_decayed]`` (scikit-learn's
scaling of ``alpha``).
"""

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

__all__ = ["TrainLog", "check_finite_parameters", "loss_gradient", "train",
           "train_lbfgs"]


@dataclass
class TrainLog:
    """What one call of :func:`train` or :func:`train_lbfgs` did.

    ``losses`` and ``scores`` hold one entry per epoch (per iteration for
    L-BFGS); ``n_samples`` counts the training rows seen; ``stopped`` says
    whether the plateau rule ended the run, ``diverged`` whether the loss
    became inf or NaN.
    """

    losses: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    n_samples: int = 0
    stopped: bool = False
    diverged: bool = False

    @property
    def n_epochs(self):
        return len(self.losses)


def loss_gradient(net, X, Y, loss, sample_weight=None, alpha=0.0, *, training=True,
                  rng=None, update_state=True, scratch=None):
    """Objective ``J`` of one batch; its gradient is left in ``net.grad``.

    ``scratch`` (like ``theta[:n_decayed]``) saves an allocation per call.
    """
    output = net.forward(X, training, sample_weight=sample_weight, rng=rng,
                         update_state=update_state)
    value, d_output = loss(output, Y, sample_weight)
    net.backward(d_output)
    if alpha:
        total = X.shape[0] if sample_weight is None else float(sample_weight.sum())
        w, g_w = net.theta[:net.n_decayed], net.grad[:net.n_decayed]
        if scratch is None:
            scratch = np.empty_like(w)
        np.multiply(w, alpha / total, out=scratch)
        g_w += scratch
        value += 0.5 * alpha * float(np.dot(w, w)) / total
    return value


def train(net, X, Y, loss, optimizer, *, epochs, batch_size, sample_weight=None,
          alpha=0.0, shuffle=True, rng=None, layer_rng=None, stopper=None,
          score=None, batch_hook=None, grad_hook=None, epoch_hook=None,
          verbose=False, first_epoch=1, warn=True):
    """Mini-batch training of ``net`` for up to ``epochs`` passes over ``(X, Y)``.

    Parameters
    ----------
    net : Sequential
        Trained in place.
    X, Y : ndarray
        Inputs (``net``'s dtype) and targets as the loss takes them.
    loss : callable
        ``loss(output, Y_batch, sw_batch) -> (value, d_output)``.
    optimizer : skml.optim optimiser
        One ``step(net.theta, net.grad)`` per batch.
    epochs, batch_size : int
        A batch larger than the data is clipped, with a warning.
    sample_weight : ndarray of shape (n,), default=None
    alpha : float, default=0.0
        L2 penalty on ``theta[:n_decayed]``.
    shuffle : bool, default=True
        A new order each epoch, drawn by ``rng.permutation``.
    rng : RandomState or Generator, default=None
        Shuffles (required with ``shuffle``).
    layer_rng : Generator, default=None
        Draws in the layers (dropout masks).
    stopper : PlateauStopper, default=None
        Fed the epoch's training loss, or ``score()`` when given; None trains
        all the epochs.
    score : callable, default=None
        ``score() -> float`` after each epoch (a held-out score, higher is
        better). The parameters of the best epoch are restored at the end.
    batch_hook : callable, default=None
        ``batch_hook(X_b, Y_b, sw_b) -> (X_b, Y_b, sw_b)`` rewrites a batch
        (adversarial examples, noise, augmented views).
    grad_hook : callable, default=None
        ``grad_hook(net)`` after back-propagation, before the step; may
        rewrite ``net.grad`` in place (clipping, noise).
    epoch_hook : callable, default=None
        ``epoch_hook(log)`` after each epoch's loss and score, before the
        stopping rule (e.g. to set an :class:`~skml.optim.EpochRate`).
    verbose : bool, default=False
        Print one line per epoch (and the stopping decisions).
    first_epoch : int, default=1
        Number of the first epoch in the printed lines.
    warn : bool, default=True
        ConvergenceWarning when all the epochs ran without the stopper firing.

    Returns
    -------
    log : TrainLog
    """
    if stopper is not None and stopper.mode != ("min" if score is None else "max"):
        raise ValueError(
            "The stopper must watch a loss (mode='min') without score and a score "
            f"(mode='max') with one; got mode={stopper.mode!r}."
        )
    n = X.shape[0]
    if batch_size > n:
        warnings.warn(f"batch_size={batch_size} is larger than the {n} training "
                      "samples; it is clipped.", UserWarning)
        batch_size = n
    sparse_X = sp.issparse(X)
    if sparse_X:
        X = X.tocsr()  # batches are row slices
    if shuffle:
        # Each epoch copies the data in its new order into one buffer, so
        # every batch is a contiguous slice (no fancy indexing per batch).
        # A sparse X is reordered into a new CSR matrix (O(nnz)) instead.
        Xe = None if sparse_X else np.empty_like(X)
        Ye = np.empty_like(Y)
        swe = None if sample_weight is None else np.empty_like(sample_weight)
    else:
        Xe, Ye, swe = X, Y, sample_weight
    scratch = np.empty(net.n_decayed, dtype=net.dtype) if alpha else None
    log, best = TrainLog(), None
    for epoch in range(first_epoch, first_epoch + epochs):
        if shuffle:
            order = rng.permutation(n)
            if sparse_X:
                Xe = X[order]
            else:
                np.take(X, order, axis=0, out=Xe)
            np.take(Y, order, axis=0, out=Ye)
            if swe is not None:
                np.take(sample_weight, order, out=swe)
        total = 0.0
        for start in range(0, n, batch_size):
            stop = min(start + batch_size, n)
            Xb, Yb = Xe[start:stop], Ye[start:stop]
            swb = None if swe is None else swe[start:stop]
            if batch_hook is not None:
                Xb, Yb, swb = batch_hook(Xb, Yb, swb)
            value = loss_gradient(net, Xb, Yb, loss, swb, alpha, rng=layer_rng,
                                  scratch=scratch)
            if grad_hook is not None:
                grad_hook(net)
            optimizer.step(net.theta, net.grad)
            total += value * (stop - start)
        log.n_samples += n
        log.losses.append(total / n)
        if verbose:
            print(f"Iteration {epoch}, loss = {log.losses[-1]:.8f}")
        if not np.isfinite(log.losses[-1]):
            warnings.warn("The training loss diverged (inf or NaN).", RuntimeWarning)
            log.diverged = True
            break
        if score is not None:
            log.scores.append(score())
            if verbose:
                print(f"Validation score: {log.scores[-1]:f}")
        if epoch_hook is not None:
            epoch_hook(log)
        if stopper is None:
            continue
        log.stopped = stopper.update(
            log.losses[-1] if score is None else log.scores[-1]
        )
        if score is not None and stopper.improved:
            best = net.theta.copy(), net.state.copy()
        if verbose and stopper.shrunk:
            print(f"Setting learning rate to {stopper.rate.value:f}")
        if log.stopped:
            if verbose:
                what = "Training loss" if score is None else "Validation score"
                print(f"{what} did not improve more than tol={stopper.tol} for "
                      f"{stopper.n_bad_epochs} consecutive epochs. Stopping.")
            break
    else:
        if warn:
            warnings.warn(
                f"Stochastic optimizer: maximum iterations ({epochs}) reached and "
                "the optimization hasn't converged yet.", ConvergenceWarning,
            )
    if best is not None:
        net.theta[:], net.state[:] = best
    return log


def train_lbfgs(net, X, Y, loss, *, sample_weight=None, alpha=0.0, max_iter=200,
                max_fun=15000, tol=1e-4, verbose=False):
    """Minimise the full-batch objective over ``net.theta`` with L-BFGS-B.

    The batch is all the samples (no dropout: the line search needs a
    deterministic loss). scipy works in float64, so a float32 network is
    copied in and out. Running statistics stay put during the search and
    are set to those of the final parameters at the end.

    Returns
    -------
    log : TrainLog
        ``losses`` after each iteration.
    result : scipy.optimize.OptimizeResult
    """
    theta, grad = net.theta, net.grad
    log = TrainLog()

    def objective(x):
        theta[:] = x
        value = loss_gradient(net, X, Y, loss, sample_weight, alpha,
                              update_state=False)
        return value, grad.astype(np.float64)

    def on_iteration(intermediate_result):
        log.losses.append(float(intermediate_result.fun))
        if verbose:
            print(f"Iteration {log.n_epochs}, loss = {log.losses[-1]:.8f}")

    result = minimize(
        objective, theta.astype(np.float64), method="L-BFGS-B", jac=True,
        callback=on_iteration,
        options={"maxiter": max_iter, "maxfun": max_fun, "gtol": tol},
    )
    theta[:] = result.x
    if net.state.size:
        net.forward(X, True, sample_weight=sample_weight, update_state=1.0)
    if not np.isfinite(result.fun):
        warnings.warn("The training loss diverged (inf or NaN).", RuntimeWarning)
        log.diverged = True
    elif result.status != 0:
        warnings.warn(
            f"lbfgs stopped before convergence after {min(result.nit, max_iter)} "
            f"iteration(s): {result.message} (max_iter={max_iter}, "
            f"max_fun={max_fun}).", ConvergenceWarning,
        )
    return log, result


def check_finite_parameters(net):
    """ValueError instead of a network that predicts NaN (scikit-learn's text)."""
    if not np.all(np.isfinite(net.theta)):
        raise ValueError(
            "Solver produced non-finite parameter weights. The input data may "
            "contain large values and need to be preprocessed (the loss "
            "overflowed: scale X first)."
        )
