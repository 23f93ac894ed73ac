"""Gradient noise (notes B §6.2; D3 "Additional strategies for optimizing SGD").

The notes list "add noise to each gradient update" among the strategies
that help SGD. :class:`GradientNoise` wraps any optimiser of
:mod:`skml.optim` and adds Gaussian noise to the gradients before its step,
with the annealed variance of Neelakantan et al. (2015),
``sigma_t^2 = eta / (1 + t) ** gamma``: large early (exploration, leaving
saddle points and flat regions), vanishing later (the optimiser converges).
"""

import math

import numpy as np
from sklearn.utils.validation import check_random_state

from ._schedules import _check_real

__all__ = ["GradientNoise"]


class GradientNoise:
    """Add annealed Gaussian noise to the gradients of a wrapped optimiser.

    Parameters
    ----------
    optimizer : skml.optim optimiser
        Takes the steps (``step(params, grads)``), on the noisy gradients.
    eta : float, default=0.01
        Noise variance at the first step, >= 0 (0: no noise, the wrapped
        optimiser's own steps).
    gamma : float, default=0.55
        Decay exponent of the variance, >= 0 (Neelakantan et al. use 0.55).
    random_state : int, RandomState instance or None, default=None
        Draws the noise.

    Attributes
    ----------
    t : int
        Steps taken (the wrapped optimiser's count).

    Notes
    -----
    At step ``t`` (0-based, the steps already taken) each gradient
    coordinate receives an independent ``N(0, eta / (1 + t) ** gamma)``
    draw. The gradient arrays passed to :meth:`step` are not modified.

    References
    ----------
    .. [1] A. Neelakantan et al., "Adding gradient noise improves learning for
       very deep networks", arXiv:1511.06807, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import SGD, GradientNoise
    >>> opt = GradientNoise(SGD(learning_rate=0.1), eta=0.0)
    >>> theta = np.array([1.0])
    >>> opt.step(theta, np.array([2.0]))[0]
    array([0.8])
    """

    def __init__(self, optimizer, eta=0.01, gamma=0.55, random_state=None):
        if not callable(getattr(optimizer, "step", None)):
            raise ValueError(
                "optimizer must be an skml.optim optimiser (an object with a step "
                f"method); got {optimizer!r}.")
        self.optimizer = optimizer
        self.eta = _check_real("eta", eta, low=0.0, low_open=False)
        self.gamma = _check_real("gamma", gamma, low=0.0, low_open=False)
        self.random_state = random_state
        self._rng = check_random_state(random_state)

    @property
    def t(self):
        return self.optimizer.t

    def noise_std(self, t=None):
        """Standard deviation of the noise at step ``t`` (default: the next)."""
        t = self.t if t is None else t
        return math.sqrt(self.eta / (1.0 + t) ** self.gamma)

    def step(self, params, grads):
        """The wrapped optimiser's step on ``grads`` plus the step's noise.

        Parameters
        ----------
        params : ndarray or list of ndarray
            Updated in place.
        grads : ndarray or list of ndarray
            Gradients of the same shapes (left unchanged).

        Returns
        -------
        params : list of ndarray
        """
        single = isinstance(grads, np.ndarray)
        grad_list = [grads] if single else list(grads)
        std = self.noise_std()
        if std > 0.0:
            grad_list = [
                np.asarray(g) + std * self._rng.standard_normal(np.shape(g)).astype(
                    np.asarray(g).dtype, copy=False)
                for g in grad_list
            ]
        return self.optimizer.step(params, grad_list[0] if single else grad_list)

    def reset(self):
        """Reset the wrapped optimiser and restart the noise stream."""
        self.optimizer.reset()
        self._rng = check_random_state(self.random_state)
        return self

    def __repr__(self):
        return (f"GradientNoise(optimizer={self.optimizer!r}, eta={self.eta!r}, "
                f"gamma={self.gamma!r}, random_state={self.random_state!r})")
