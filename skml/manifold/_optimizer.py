"""The gradient descent of SNE and t-SNE (van der Maaten's, as scikit-learn).

Momentum with per-coordinate delta-bar-delta gains; the KL divergence is
evaluated every ``n_iter_check`` iterations only (the fast method's gradient
does not need it), where the stopping rules are tested: no progress for
``n_iter_without_progress`` iterations, or a gradient norm below
``min_grad_norm``.
"""

from time import perf_counter

import numpy as np

from ._tsne_kernels import gains_update

N_ITER_CHECK = 50
MIN_GAIN = 0.01


def gradient_descent(objective, Y, state, *, it, max_iter, momentum, learning_rate,
                     exaggeration, n_iter_without_progress, min_grad_norm, verbose=0,
                     name="t-SNE", n_iter_check=N_ITER_CHECK):
    """Iterate from ``it`` to ``max_iter`` (exclusive); update Y in place.

    ``state`` holds the ``update`` and ``gains`` arrays carried across the
    stages. The stopping rules are tested every ``n_iter_check`` iterations.
    Returns ``(kl, last_iteration)``.
    """
    update, gains, grad = state["update"], state["gains"], state["grad"]
    best_error = np.inf
    best_iter = i = it
    error = np.nan
    tic = perf_counter()
    for i in range(it, max_iter):
        check = (i + 1) % n_iter_check == 0
        compute_error = check or i == max_iter - 1
        error = objective(Y, exaggeration, grad, compute_error)
        grad_norm = np.sqrt(
            gains_update(update, grad, gains, momentum, learning_rate, MIN_GAIN, Y)
        )
        if check:
            if verbose >= 2:
                toc = perf_counter()
                print(f"[{name}] Iteration {i + 1}: error = {error:.7f}, gradient "
                      f"norm = {grad_norm:.7f} ({toc - tic:.3f} s / {n_iter_check} "
                      "iterations)")
                tic = toc
            if error < best_error:
                best_error, best_iter = error, i
            elif i - best_iter > n_iter_without_progress:
                if verbose >= 2:
                    print(f"[{name}] Iteration {i + 1}: did not make any progress "
                          f"during the last {n_iter_without_progress} episodes. "
                          "Finished.")
                break
            if grad_norm <= min_grad_norm:
                if verbose >= 2:
                    print(f"[{name}] Iteration {i + 1}: gradient norm {grad_norm}. "
                          "Finished.")
                break
    return error, i


def new_state(Y):
    return {"update": np.zeros_like(Y), "gains": np.ones_like(Y),
            "grad": np.empty_like(Y)}
