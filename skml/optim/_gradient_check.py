"""Finite-difference gradient check (notes B §6.12)."""

import numbers

import numpy as np

__all__ = ["check_gradient"]


def check_gradient(fun, grad, x, eps=1e-6):
    r"""Relative error between an analytic gradient and central differences.

    Each coordinate of the gradient is approximated by the central difference
    of notes B §6.12,

    .. math:: \frac{\partial f}{\partial x_i} \approx
              \frac{f(x + \epsilon e_i) - f(x - \epsilon e_i)}{2 \epsilon},

    and the result is compared with ``grad(x)`` as
    :math:`\|g_{num} - g\|_2 / \max(\|g_{num}\|_2, \|g\|_2)` (0 when both
    vanish).

    Parameters
    ----------
    fun : callable
        ``fun(x) -> float``, the objective. Called with an array of the shape
        of ``x``.
    grad : callable
        ``grad(x) -> ndarray``, its claimed gradient, with as many entries as
        ``x``.
    x : array-like
        The point, of any shape (flat or n-d). Not modified.
    eps : float, default=1e-6
        Finite-difference step, > 0.

    Returns
    -------
    relative_error : float
        About 1e-8 or less for a correct gradient of a smooth, well-scaled
        function; of order 1 for a wrong one.

    See Also
    --------
    scipy.optimize.check_grad : Absolute error, with forward differences.

    Notes
    -----
    Costs ``2 * x.size`` calls to ``fun``. The truncation error is
    :math:`O(\epsilon^2)`, against :math:`O(\epsilon)` for forward
    differences. Near a stationary point both gradients are tiny and the
    relative error is dominated by rounding; check away from optima.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import check_gradient
    >>> fun = lambda w: float(np.sum(w ** 3))
    >>> check_gradient(fun, lambda w: 3 * w ** 2, np.array([1.0, 2.0])) < 1e-8
    True
    >>> check_gradient(fun, lambda w: 2 * w ** 2, np.array([1.0, 2.0])) > 0.1
    True
    """
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not eps > 0:
        raise ValueError(f"eps must be a positive float; got {eps!r}.")
    x = np.array(x, dtype=np.float64)  # a copy: the caller's x is never perturbed
    if x.size == 0:
        raise ValueError("x must have at least one entry.")
    analytic = np.asarray(grad(x.copy()), dtype=np.float64)
    if analytic.size != x.size:
        raise ValueError(
            f"grad(x) has {analytic.size} entries but x has {x.size} (shape {x.shape})."
        )
    analytic = analytic.ravel()

    numeric = np.empty(x.size)
    flat = x.reshape(-1)  # a view: perturbing flat perturbs x
    for i in range(x.size):
        original = flat[i]
        flat[i] = original + eps
        f_plus = _scalar(fun(x))
        flat[i] = original - eps
        f_minus = _scalar(fun(x))
        flat[i] = original
        numeric[i] = (f_plus - f_minus) / (2.0 * eps)

    scale = max(np.linalg.norm(numeric), np.linalg.norm(analytic))
    if scale == 0.0:
        return 0.0
    return float(np.linalg.norm(numeric - analytic) / scale)


def _scalar(value):
    value = np.asarray(value, dtype=np.float64)
    if value.size != 1:
        raise ValueError(f"fun(x) must return a scalar; got shape {value.shape}.")
    return float(value.reshape(()))
