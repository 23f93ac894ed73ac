r"""First-order gradient optimisers (notes B §6), shared by skml's iterative estimators.

Every optimiser updates a list of parameter arrays **in place** from a list of
gradient arrays of the same shapes::

    opt = Adam(learning_rate=1e-3)
    for X_batch, y_batch in batches:
        grads = loss_gradient(params, X_batch, y_batch)
        opt.step(params, grads)          # params modified in place

``opt.t`` counts the steps taken, ``opt.reset()`` forgets all state. The
learning rate ``alpha`` is a float or a schedule ``alpha_t = schedule(t)``
(:class:`~skml.optim.Constant`, :class:`~skml.optim.InverseScaling`,
:class:`~skml.optim.StepDecay`, :class:`~skml.optim.ExponentialDecay` or any
callable), evaluated with ``t`` the number of steps already taken. State (velocities, moment estimates) is kept per parameter
array, allocated on the first step with the parameter's dtype, and updated
with ``out=`` arguments so a step allocates nothing. A step costs about a
dozen numpy calls per array, so for many small arrays the per-call overhead
dominates: keeping all parameters as views into one flat vector, and passing
that vector and its flat gradient, makes a step several times cheaper.

Update rules, with ``g`` the gradient at the current parameters ``theta``,
every operation elementwise, and state starting at zero::

    SGD        theta -= alpha g                                      (§6.1-6.2)
    Momentum   v = rho v + alpha g;  theta -= v                      (§6.7)
    Nesterov   v = rho v + alpha g;  theta -= rho v + alpha g        (§6.8)
    AdaGrad    G += g^2;  theta -= alpha g / (sqrt(G) + eps)         (§6.4)
    RMSProp    u = rho u + (1-rho) g^2;  theta -= alpha g / (sqrt(u) + eps)   (§6.5)
    AdaDelta   E_g = rho E_g + (1-rho) g^2
               d = sqrt(E_d + eps) / sqrt(E_g + eps) * g
               E_d = rho E_d + (1-rho) d^2;  theta -= alpha d        (§6.6)
    Adam       m = b1 m + (1-b1) g;  v = b2 v + (1-b2) g^2
               m_hat = m / (1 - b1^t);  v_hat = v / (1 - b2^t)   (t = 1, 2, ...)
               theta -= alpha m_hat / (sqrt(v_hat) + eps)            (§6.9)
    AdaBelief  as Adam with  s = b2 s + (1-b2) (g - m)^2  in place of v  (§6.10)

Where the implementation departs from the printed notes (catalogue B §15):

- **Nesterov.** The notes evaluate the gradient at ``theta + rho v`` while
  stepping ``theta -= v``, which looks *behind* the current point. We implement
  the intended look-ahead ``theta - rho v`` (Sutskever et al., 2013), rewritten
  for the look-ahead iterate so that the gradient is taken at the current
  parameters; this is the form of scikit-learn's MLP and of
  ``torch.optim.SGD(nesterov=True)``.
- **Adam / AdaBelief.** The notes print no bias correction and ``eps`` inside
  the square root. The default is Kingma and Ba's original (bias-corrected,
  ``eps`` outside); ``bias_correction=False, eps_inside_sqrt=True`` gives the
  notes' literal rule ``theta -= alpha m / sqrt(v + eps)``.
- **AdaGrad / RMSProp.** The notes have no ``eps``; we add a small one outside
  the root by default. With ``eps=0`` the notes' rule is exact, and a
  coordinate whose accumulator is still zero (so its gradient is zero) is left
  unchanged instead of dividing 0 by 0.
- **AdaDelta.** The notes show it only as an image; we use Zeiler (2012), with
  an extra ``learning_rate`` factor (default 1) as in ``torch.optim.Adadelta``.
"""

import inspect
import math
import numbers

import numpy as np

from ..utils._docstrings import fill_doc
from ._schedules import _check_real

__all__ = [
    "OPTIMIZERS",
    "AdaBelief",
    "AdaDelta",
    "AdaGrad",
    "Adam",
    "Momentum",
    "Nesterov",
    "RMSProp",
    "SGD",
    "get_optimizer",
]


def rate_parameter(default):
    """The Parameters heading and the ``learning_rate`` entry of an optimiser."""
    return rf"""
Parameters
----------
learning_rate : float or callable, default={default}
    Step size :math:`\alpha`, or a schedule ``t -> alpha_t``.
"""


MOMENTUM_PARAMETERS = rate_parameter("0.01") + r"""momentum : float, default=0.9
    Decay :math:`\rho` of the velocity, in [0, 1).
"""


def adam_parameters(second):
    """Adam's and AdaBelief's parameters but ``bias_correction`` and after."""
    return rate_parameter("0.001") + f"""beta1 : float, default=0.9
    Decay of the first moment, in [0, 1).
beta2 : float, default=0.999
    Decay of the {second}, in [0, 1).
eps : float, default=1e-8
    Conditioning constant, >= 0.
"""


def state_attributes(buffers):
    """The Attributes section of an optimiser whose buffers are ``buffers``."""
    return f"""
Attributes
----------
t : int
    Number of steps taken.
state : list of list of ndarray
    Per parameter array: ``[{buffers}]``.
"""


def get_optimizer(name, **kwargs):
    """Build an optimiser from its name, for estimators' ``solver=`` strings.

    Parameters
    ----------
    name : str
        One of :data:`OPTIMIZERS`: "sgd", "momentum", "nesterov", "adagrad",
        "rmsprop", "adadelta", "adam", "adabelief".
    **kwargs
        Keyword arguments of that optimiser's constructor (``learning_rate``,
        ``momentum``, ``beta1``, ...).

    Returns
    -------
    optimizer : object
        A fresh optimiser with no state.

    Raises
    ------
    ValueError
        If ``name`` is not a known optimiser.
    TypeError
        If a keyword is not a parameter of that optimiser.

    Examples
    --------
    >>> from skml.optim import get_optimizer
    >>> get_optimizer("adam", learning_rate=0.01)
    Adam(learning_rate=0.01, beta1=0.9, beta2=0.999, eps=1e-08, \
bias_correction=True, eps_inside_sqrt=False)
    """
    cls = _REGISTRY.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"Unknown optimizer {name!r}; expected one of {OPTIMIZERS}.")
    accepted = list(inspect.signature(cls).parameters)
    unknown = sorted(set(kwargs) - set(accepted))
    if unknown:
        raise TypeError(
            f"{cls.__name__} got unexpected keyword argument(s) {unknown}; "
            f"it accepts {accepted}."
        )
    return cls(**kwargs)


def _check_learning_rate(learning_rate):
    if callable(learning_rate):
        return learning_rate
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
        raise ValueError(
            "learning_rate must be a positive float or a schedule callable t -> lr; "
            f"got {learning_rate!r}."
        )
    return _check_real("learning_rate", learning_rate, low=0.0)


def _divide(num, den, out, eps):
    """``out = num / den``; with ``eps == 0`` a zero denominator gives 0."""
    if eps > 0:
        np.divide(num, den, out=out)
    else:
        # den == 0 only where every gradient so far was 0: the limit step is 0,
        # and out (aliasing den) already holds that 0 where the division is skipped.
        np.divide(num, den, out=out, where=den > 0)


class _BaseOptimizer:
    """Step counting, lazy per-array state and input checks; subclasses do the maths.

    A subclass sets ``_n_buffers`` (state arrays per parameter, scratch
    included) and implements ``_update(param, grad, buffers, lr)``, which
    runs after ``self.t`` has been incremented, so ``self.t`` is the 1-based
    index of the current step.
    """

    _n_buffers = 1

    def __init__(self, learning_rate):
        self.learning_rate = _check_learning_rate(learning_rate)
        self.reset()

    def reset(self):
        """Forget all state: the step count and the per-array buffers.

        Returns
        -------
        self : object
            The optimiser, as if newly constructed.
        """
        self.t = 0
        self.state = []
        return self

    def step(self, params, grads):
        """Take one update step, modifying ``params`` in place.

        Parameters
        ----------
        params : list of ndarray
            Floating-point, writeable parameter arrays; updated in place. A
            single ndarray is accepted too. The list must keep the same
            length and shapes from step to step (call :meth:`reset` to
            start over with different parameters).
        grads : list of ndarray
            Gradients of the objective at ``params``, same shapes.

        Returns
        -------
        params : list of ndarray
            The same (updated) arrays.
        """
        if isinstance(params, np.ndarray):
            params, grads = [params], [grads]
        if len(params) != len(grads):
            raise ValueError(
                f"Got {len(params)} parameter arrays but {len(grads)} gradient arrays."
            )
        if not self.state:
            self._allocate(params)
        elif len(self.state) != len(params):
            raise ValueError(
                f"{type(self).__name__} holds state for {len(self.state)} parameter "
                f"arrays but got {len(params)}; call reset() to change parameters."
            )
        # All shapes are checked before any array moves: no half-done step.
        for i, (param, grad, buffers) in enumerate(zip(params, grads, self.state)):
            if param.shape != buffers[0].shape or np.shape(grad) != param.shape:
                raise ValueError(
                    f"Parameter array {i} has shape {param.shape}, its gradient "
                    f"{np.shape(grad)} and the optimiser state {buffers[0].shape}; "
                    "they must agree (call reset() to change parameters)."
                )
        lr = self.learning_rate
        if callable(lr):
            lr = lr(self.t)
        self.t += 1
        for param, grad, buffers in zip(params, grads, self.state):
            self._update(param, grad, buffers, lr)
        return params

    def _allocate(self, params):
        for i, param in enumerate(params):
            if not isinstance(param, np.ndarray) or not np.issubdtype(
                param.dtype, np.floating
            ):
                raise ValueError(
                    f"Parameter array {i} must be a floating-point numpy array to be "
                    f"updated in place; got {type(param).__name__} "
                    f"{getattr(param, 'dtype', '')}."
                )
            if not param.flags.writeable:
                raise ValueError(f"Parameter array {i} is read-only.")
        self.state = [
            [np.zeros_like(param) for _ in range(self._n_buffers)] for param in params
        ]

    def __repr__(self):
        names = list(inspect.signature(type(self)).parameters)
        args = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__name__}({args})"


@fill_doc(rate_parameter=rate_parameter("0.01"))
class SGD(_BaseOptimizer):
    r"""Plain (stochastic) gradient descent, notes B §6.1-6.2.

    Each step moves against the gradient of the current (mini-)batch:

    .. math:: \theta \leftarrow \theta - \alpha_t g_t .

    <rate_parameter>

    Attributes
    ----------
    t : int
        Number of steps taken.
    state : list of list of ndarray
        One scratch buffer per parameter array (empty before the first step).

    See Also
    --------
    Momentum, Nesterov : SGD with a velocity term.

    Notes
    -----
    One pass over each array per step. For a convex :math:`L`-smooth
    objective the notes' rate :math:`O(1/k)` needs :math:`\alpha \le 1/L`.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import SGD
    >>> w = np.array([1.0, -2.0])
    >>> opt = SGD(learning_rate=0.25)
    >>> _ = opt.step([w], [2 * w])        # gradient of ||w||^2
    >>> w
    array([ 0.5, -1. ])
    """

    def __init__(self, learning_rate=0.01):
        super().__init__(learning_rate)

    def _update(self, param, grad, buffers, lr):
        (scratch,) = buffers
        np.multiply(grad, lr, out=scratch)
        param -= scratch


@fill_doc(
    momentum_parameters=MOMENTUM_PARAMETERS,
    state_attributes=state_attributes("v, scratch"),
)
class Momentum(_BaseOptimizer):
    r"""Gradient descent with heavy-ball momentum, notes B §6.7.

    The velocity :math:`v` is a decaying sum of past scaled gradients:

    .. math::

        v \leftarrow \rho v + \alpha_t g_t, \qquad \theta \leftarrow \theta - v .

    ``momentum=0`` is plain gradient descent.

    <momentum_parameters>

    <state_attributes>

    See Also
    --------
    Nesterov : The look-ahead variant.

    Notes
    -----
    With a constant rate the iterates equal ``torch.optim.SGD(lr=alpha,
    momentum=rho)`` (whose buffer is :math:`v/\alpha`) and scikit-learn's MLP
    ``SGDOptimizer(nesterov=False)`` (whose velocity is :math:`-v`).

    References
    ----------
    .. [1] B. T. Polyak, "Some methods of speeding up the convergence of
       iteration methods", USSR Comp. Math. and Math. Physics, 1964.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import Momentum
    >>> w = np.array([1.0])
    >>> opt = Momentum(learning_rate=0.1, momentum=0.5)
    >>> for _ in range(2):
    ...     _ = opt.step([w], [np.ones(1)])
    >>> w                                  # 1 - 0.1 - (0.5 * 0.1 + 0.1)
    array([0.75])
    """

    _n_buffers = 2

    def __init__(self, learning_rate=0.01, momentum=0.9):
        super().__init__(learning_rate)
        self.momentum = _check_real("momentum", momentum, 0.0, 1.0, False, True)

    def _update(self, param, grad, buffers, lr):
        velocity, scratch = buffers
        velocity *= self.momentum
        np.multiply(grad, lr, out=scratch)
        velocity += scratch
        param -= velocity


@fill_doc(
    momentum_parameters=MOMENTUM_PARAMETERS,
    state_attributes=state_attributes("v, scratch"),
)
class Nesterov(Momentum):
    r"""Nesterov's accelerated gradient (Sutskever form), notes B §6.8.

    The intended rule evaluates the gradient at the look-ahead point
    :math:`\theta - \rho v`:

    .. math::

        v \leftarrow \rho v + \alpha_t \nabla J(\theta - \rho v), \qquad
        \theta \leftarrow \theta - v .

    Estimators compute gradients at the parameters they hold, so we store the
    look-ahead point :math:`\phi = \theta - \rho v` instead. With
    :math:`g_t = \nabla J(\phi)` the rule becomes

    .. math::

        v \leftarrow \rho v + \alpha_t g_t, \qquad
        \phi \leftarrow \phi - (\rho v + \alpha_t g_t) ,

    and :math:`\phi` converges to the same minimiser as :math:`\theta`.

    <momentum_parameters>

    <state_attributes>

    See Also
    --------
    Momentum : Heavy ball, without look-ahead.

    Notes
    -----
    **Erratum.** The notes print :math:`\nabla J(\theta + \rho v)` with the
    step :math:`\theta \leftarrow \theta - v`; since :math:`v` points uphill,
    that point lies *behind* :math:`\theta`. We implement the look-ahead
    :math:`\theta - \rho v` (catalogue B §15).

    With a constant rate the iterates equal scikit-learn's MLP
    ``SGDOptimizer(nesterov=True)`` and ``torch.optim.SGD(nesterov=True)``.

    References
    ----------
    .. [1] I. Sutskever, J. Martens, G. Dahl and G. Hinton, "On the importance
       of initialization and momentum in deep learning", ICML 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import Nesterov
    >>> w = np.array([1.0])
    >>> opt = Nesterov(learning_rate=0.1, momentum=0.5)
    >>> _ = opt.step([w], [np.ones(1)])
    >>> w                                  # 1 - (0.5 * 0.1 + 0.1)
    array([0.85])
    """

    # Momentum's parameters and buffers (its __init__); only the step differs.

    def _update(self, param, grad, buffers, lr):
        velocity, scratch = buffers
        velocity *= self.momentum
        np.multiply(grad, lr, out=scratch)
        velocity += scratch
        param -= scratch
        np.multiply(velocity, self.momentum, out=scratch)
        param -= scratch


@fill_doc(
    rate_parameter=rate_parameter("0.01"),
    state_attributes=state_attributes("G, scratch"),
)
class AdaGrad(_BaseOptimizer):
    r"""AdaGrad: per-coordinate steps shrinking with the gradient history, notes B §6.4.

    Each coordinate is scaled by the root of its sum of squared gradients:

    .. math::

        G \leftarrow G + g_t^2, \qquad
        \theta \leftarrow \theta - \alpha_t \frac{g_t}{\sqrt{G} + \epsilon} .

    The notes write it as :math:`\alpha^t/\sigma^t` with
    :math:`\alpha^t = \alpha/\sqrt{t+1}` and :math:`\sigma^t` the root mean
    square of past gradients; the :math:`\sqrt{t+1}` factors cancel to the
    form above.

    <rate_parameter>
    eps : float, default=1e-10
        Added to :math:`\sqrt{G}`, >= 0. The notes have none (``eps=0``
        reproduces them exactly).

    <state_attributes>

    See Also
    --------
    RMSProp : Replaces the sum by a decaying average.

    Notes
    -----
    With ``eps=0`` the first step of every coordinate with a non-zero
    gradient has length exactly :math:`\alpha`, and the effective step
    :math:`\alpha/\sqrt{G}` never increases. Same rule as
    ``torch.optim.Adagrad`` (``eps`` outside the root).

    References
    ----------
    .. [1] J. Duchi, E. Hazan and Y. Singer, "Adaptive subgradient methods for
       online learning and stochastic optimization", JMLR 12, 2011.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import AdaGrad
    >>> w = np.array([1.0, -2.0])
    >>> opt = AdaGrad(learning_rate=0.1, eps=0.0)
    >>> _ = opt.step([w], [2 * w])
    >>> w                                  # each coordinate moves by alpha
    array([ 0.9, -1.9])
    """

    _n_buffers = 2

    def __init__(self, learning_rate=0.01, eps=1e-10):
        super().__init__(learning_rate)
        self.eps = _check_real("eps", eps, low=0.0, low_open=False)

    def _update(self, param, grad, buffers, lr):
        sum_sq, scratch = buffers
        np.multiply(grad, grad, out=scratch)
        sum_sq += scratch
        np.sqrt(sum_sq, out=scratch)
        scratch += self.eps
        _divide(grad, scratch, scratch, self.eps)
        scratch *= lr
        param -= scratch


@fill_doc(
    rate_parameter=rate_parameter("0.001"),
    state_attributes=state_attributes("u, scratch"),
)
class RMSProp(_BaseOptimizer):
    r"""RMSProp: steps scaled by a running root mean square of gradients, notes B §6.5.

    .. math::

        u \leftarrow \rho u + (1 - \rho) g_t^2, \qquad
        \theta \leftarrow \theta - \alpha_t \frac{g_t}{\sqrt{u} + \epsilon} .

    <rate_parameter>
    rho : float, default=0.9
        Decay of the running average, in [0, 1).
    eps : float, default=1e-8
        Added to :math:`\sqrt{u}`, >= 0. The notes have none (``eps=0``
        reproduces them exactly).

    <state_attributes>

    See Also
    --------
    AdaGrad : Sums instead of averaging.
    Adam : Adds momentum and bias correction.

    Notes
    -----
    The first step has length :math:`\alpha/\sqrt{1-\rho}` per coordinate
    (``eps=0``), since :math:`u_1 = (1-\rho) g_1^2`. Same rule as
    ``torch.optim.RMSprop(alpha=rho)``.

    References
    ----------
    .. [1] T. Tieleman and G. Hinton, "Lecture 6.5 - RMSProp", COURSERA:
       Neural Networks for Machine Learning, 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import RMSProp
    >>> w = np.array([1.0])
    >>> opt = RMSProp(learning_rate=0.1, rho=0.75, eps=0.0)
    >>> _ = opt.step([w], [np.array([3.0])])
    >>> w                                  # 1 - 0.1 / sqrt(1 - 0.75)
    array([0.8])
    """

    _n_buffers = 2

    def __init__(self, learning_rate=0.001, rho=0.9, eps=1e-8):
        super().__init__(learning_rate)
        self.rho = _check_real("rho", rho, 0.0, 1.0, False, True)
        self.eps = _check_real("eps", eps, low=0.0, low_open=False)

    def _update(self, param, grad, buffers, lr):
        mean_sq, scratch = buffers
        mean_sq *= self.rho
        np.multiply(grad, grad, out=scratch)
        scratch *= 1.0 - self.rho
        mean_sq += scratch
        np.sqrt(mean_sq, out=scratch)
        scratch += self.eps
        _divide(grad, scratch, scratch, self.eps)
        scratch *= lr
        param -= scratch


@fill_doc(state_attributes=state_attributes("E_g, E_d, scratch, scratch"))
class AdaDelta(_BaseOptimizer):
    r"""AdaDelta: unit-consistent steps from two running averages, notes B §6.6.

    The notes show AdaDelta only as an image; this is Zeiler's rule:

    .. math::

        E_g &\leftarrow \rho E_g + (1 - \rho) g_t^2, \\
        d &= \frac{\sqrt{E_d + \epsilon}}{\sqrt{E_g + \epsilon}}\, g_t, \\
        E_d &\leftarrow \rho E_d + (1 - \rho) d^2, \\
        \theta &\leftarrow \theta - \alpha_t d .

    Parameters
    ----------
    learning_rate : float or callable, default=1.0
        Extra factor :math:`\alpha` on the step (Zeiler's rule has none, i.e.
        1), or a schedule ``t -> alpha_t``.
    rho : float, default=0.95
        Decay of both running averages, in [0, 1).
    eps : float, default=1e-6
        Conditioning constant, > 0 (it sets the size of the first steps).

    <state_attributes>

    See Also
    --------
    RMSProp : The same gradient average, with a fixed step size.

    Notes
    -----
    Same rule as ``torch.optim.Adadelta`` (whose ``lr`` multiplies :math:`d`
    after :math:`E_d` is updated). Four arrays of state per parameter.

    AdaDelta has no convergence guarantee. On a deterministic, ill-conditioned
    problem with a constant rate, the step :math:`\mathrm{RMS}[d] /
    \mathrm{RMS}[g]` along a stiff direction feeds on its own oscillation,
    which can grow slowly instead of dying out; a decaying ``learning_rate``
    schedule (e.g. :class:`~skml.optim.ExponentialDecay`) removes it.

    References
    ----------
    .. [1] M. D. Zeiler, "ADADELTA: an adaptive learning rate method",
       arXiv:1212.5701, 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import AdaDelta
    >>> w = np.array([1.0])
    >>> opt = AdaDelta(rho=0.0, eps=0.01)
    >>> _ = opt.step([w], [np.array([3.0])])
    >>> w.round(6)                         # 1 - sqrt(0.01) / sqrt(9.01) * 3
    array([0.900056])
    """

    _n_buffers = 4

    def __init__(self, learning_rate=1.0, rho=0.95, eps=1e-6):
        super().__init__(learning_rate)
        self.rho = _check_real("rho", rho, 0.0, 1.0, False, True)
        self.eps = _check_real("eps", eps, low=0.0)

    def _update(self, param, grad, buffers, lr):
        mean_sq_grad, mean_sq_delta, delta, scratch = buffers
        mean_sq_grad *= self.rho
        np.multiply(grad, grad, out=scratch)
        scratch *= 1.0 - self.rho
        mean_sq_grad += scratch
        np.add(mean_sq_delta, self.eps, out=scratch)
        np.add(mean_sq_grad, self.eps, out=delta)
        np.divide(scratch, delta, out=delta)
        np.sqrt(delta, out=delta)
        delta *= grad
        mean_sq_delta *= self.rho
        np.multiply(delta, delta, out=scratch)
        scratch *= 1.0 - self.rho
        mean_sq_delta += scratch
        delta *= lr
        param -= delta


@fill_doc(
    adam_parameters=adam_parameters("second moment"),
    state_attributes=state_attributes("m, v, scratch"),
)
class Adam(_BaseOptimizer):
    r"""Adam: momentum on the gradient, RMSProp on its scale, notes B §6.9.

    With the step index :math:`t = 1, 2, \ldots`:

    .. math::

        m &\leftarrow \beta_1 m + (1 - \beta_1) g_t, \qquad
        v \leftarrow \beta_2 v + (1 - \beta_2) g_t^2, \\
        \hat m &= m / (1 - \beta_1^t), \qquad \hat v = v / (1 - \beta_2^t), \\
        \theta &\leftarrow \theta - \alpha_t \frac{\hat m}{\sqrt{\hat v} + \epsilon} .

    The bias correction undoes the pull of the zero initial moments towards
    zero in early steps.

    <adam_parameters>
    bias_correction : bool, default=True
        Divide the moments by :math:`1 - \beta^t`. ``False`` uses :math:`m`
        and :math:`v` directly, as printed in the notes.
    eps_inside_sqrt : bool, default=False
        Use :math:`\sqrt{\hat v + \epsilon}` instead of
        :math:`\sqrt{\hat v} + \epsilon`, as printed in the notes.

    <state_attributes>

    See Also
    --------
    AdaBelief : Scales by the spread of the gradient around :math:`m`.
    RMSProp : Adam without the first moment and bias correction.

    Notes
    -----
    **Erratum.** The notes print :math:`\theta \leftarrow \theta - \alpha
    m/\sqrt{v + \epsilon}` (no bias correction, :math:`\epsilon` inside the
    root); ``bias_correction=False, eps_inside_sqrt=True`` reproduces it. The
    default is Kingma and Ba's rule, which ``torch.optim.Adam`` also uses.
    scikit-learn's MLP folds the correction into the step size and so scales
    :math:`\epsilon` slightly differently.

    With bias correction the first step is :math:`\alpha\,\mathrm{sign}(g_1)`
    per coordinate (up to :math:`\epsilon`); without it,
    :math:`\alpha (1-\beta_1)/\sqrt{1-\beta_2}` (about :math:`3.16\alpha` for
    the defaults).

    References
    ----------
    .. [1] D. P. Kingma and J. Ba, "Adam: a method for stochastic
       optimization", ICLR 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import Adam
    >>> w = np.array([1.0, -2.0])
    >>> opt = Adam(learning_rate=0.1)
    >>> _ = opt.step([w], [2 * w])
    >>> w                                  # each coordinate moves by alpha
    array([ 0.9, -1.9])
    """

    _n_buffers = 3

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        eps=1e-8,
        bias_correction=True,
        eps_inside_sqrt=False,
    ):
        super().__init__(learning_rate)
        self.beta1 = _check_real("beta1", beta1, 0.0, 1.0, False, True)
        self.beta2 = _check_real("beta2", beta2, 0.0, 1.0, False, True)
        self.eps = _check_real("eps", eps, low=0.0, low_open=False)
        for name, value in [
            ("bias_correction", bias_correction),
            ("eps_inside_sqrt", eps_inside_sqrt),
        ]:
            if not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be a bool; got {value!r}.")
        self.bias_correction = bool(bias_correction)
        self.eps_inside_sqrt = bool(eps_inside_sqrt)

    def _second_moment_term(self, grad, first, out):
        np.multiply(grad, grad, out=out)

    def _update(self, param, grad, buffers, lr):
        first, second, scratch = buffers
        first *= self.beta1
        np.multiply(grad, 1.0 - self.beta1, out=scratch)
        first += scratch
        second *= self.beta2
        self._second_moment_term(grad, first, scratch)
        scratch *= 1.0 - self.beta2
        second += scratch

        if self.bias_correction:
            correction1 = 1.0 - self.beta1**self.t
            correction2 = 1.0 - self.beta2**self.t
        else:
            correction1 = correction2 = 1.0
        # The corrections are folded into two scalars, saving two array passes:
        # m_hat / (sqrt(v_hat) + eps) = sqrt(c2) / c1 * m / (sqrt(v) + eps sqrt(c2)),
        # m_hat / sqrt(v_hat + eps)   = sqrt(c2) / c1 * m / sqrt(v + eps c2).
        if self.eps_inside_sqrt:
            np.add(second, self.eps * correction2, out=scratch)
            np.sqrt(scratch, out=scratch)
        else:
            np.sqrt(second, out=scratch)
            scratch += self.eps * math.sqrt(correction2)
        _divide(first, scratch, scratch, self.eps)
        scratch *= lr * math.sqrt(correction2) / correction1
        param -= scratch


@fill_doc(
    adam_parameters=adam_parameters("belief term"),
    state_attributes=state_attributes("m, s, scratch"),
)
class AdaBelief(Adam):
    r"""AdaBelief: Adam scaled by the spread of g around m, notes B §6.10.

    As :class:`Adam`, with the second moment replaced by the "belief" term

    .. math:: s \leftarrow \beta_2 s + (1 - \beta_2)(g_t - m)^2 ,

    where :math:`m` is the first moment already updated with :math:`g_t`.
    When gradients agree with their running mean, :math:`s` is small and the
    step is large; when they scatter, the step shrinks.

    <adam_parameters>
    bias_correction : bool, default=True
        Divide the moments by :math:`1 - \beta^t` (the notes show none).
    eps_inside_sqrt : bool, default=False
        Use :math:`\sqrt{\hat s + \epsilon}`, as printed in the notes.

    <state_attributes>

    See Also
    --------
    Adam : Scales by the raw second moment.

    Notes
    -----
    The paper and the ``adabelief-pytorch`` package also add :math:`\epsilon`
    to :math:`s` at every step; we follow the notes and put it only in the
    denominator, so iterates differ from that package at the scale of
    :math:`\epsilon`. With constant gradients :math:`g - m` shrinks like
    :math:`\beta_1^t`, so the steps grow far beyond :math:`\alpha`.

    References
    ----------
    .. [1] J. Zhuang et al., "AdaBelief optimizer: adapting stepsizes by the
       belief in observed gradients", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.optim import AdaBelief
    >>> w = np.array([1.0])
    >>> opt = AdaBelief(learning_rate=0.1)
    >>> _ = opt.step([w], [np.array([2.0])])
    >>> w.round(6)                         # 1 - 0.1 / beta1
    array([0.888889])
    """

    def _second_moment_term(self, grad, first, out):
        np.subtract(grad, first, out=out)
        np.multiply(out, out, out=out)


_REGISTRY = {
    "sgd": SGD,
    "momentum": Momentum,
    "nesterov": Nesterov,
    "adagrad": AdaGrad,
    "rmsprop": RMSProp,
    "adadelta": AdaDelta,
    "adam": Adam,
    "adabelief": AdaBelief,
}

#: Names accepted by :func:`get_optimizer`, for estimators' parameter constraints.
OPTIMIZERS = tuple(_REGISTRY)
