"""Covariance functions for :class:`~skml.gaussian_process.GaussianProcessRegressor`.

A kernel is a small object: it is called as ``kernel(X, Y=None,
eval_gradient=False)`` and returns the covariance matrix, and with
``eval_gradient=True`` also its gradient with respect to ``theta``, the
natural logarithms of the kernel's free hyper-parameters (the marginal
likelihood is optimised in log space, where the positive scales are
unconstrained). Kernels combine with ``+`` and ``*`` (a number stands for a
:class:`ConstantKernel`); the hyper-parameters of a combination are those of
its left operand followed by those of its right one, as in scikit-learn, so
the two libraries' ``theta`` vectors line up.

Each hyper-parameter has bounds ``(low, high)`` in its own units, or
``"fixed"`` to keep it out of the optimisation.
"""

import copy
import inspect
from collections import namedtuple
from numbers import Real

import numpy as np

__all__ = ["ConstantKernel", "Hyperparameter", "Kernel", "Matern", "Product", "RBF",
           "Sum", "WhiteKernel"]

Hyperparameter = namedtuple("Hyperparameter", ["name", "bounds", "n_elements", "fixed"])
Hyperparameter.__doc__ = """A kernel hyper-parameter: its name, bounds, length, and whether fixed."""


def _check_bounds(name, bounds, n_elements):
    if isinstance(bounds, str):
        if bounds != "fixed":
            raise ValueError(f"{name}_bounds must be a (low, high) pair or 'fixed'; "
                             f"got {bounds!r}.")
        return bounds
    bounds = np.asarray(bounds, dtype=float)
    if bounds.shape not in ((2,), (n_elements, 2)):
        raise ValueError(f"{name}_bounds must be a (low, high) pair or one pair per "
                         f"element; got shape {bounds.shape}.")
    if not np.all(np.isfinite(bounds)) or np.any(bounds <= 0) or np.any(
            bounds[..., 0] > bounds[..., 1]):
        raise ValueError(f"{name}_bounds must be finite, positive and low <= high; "
                         f"got {bounds.tolist()}.")
    return bounds


class Kernel:
    """Base class: hyper-parameter bookkeeping, ``theta``, combination operators."""

    # -- parameters (get_params/set_params so that clone and grid search work) --
    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p for p in signature.parameters if p != "self"]

    def get_params(self, deep=True):
        params = {name: getattr(self, name) for name in self._param_names()}
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Kernel):
                    params.update({f"{name}__{k}": v
                                   for k, v in value.get_params().items()})
        return params

    def set_params(self, **params):
        for key, value in params.items():
            head, _, rest = key.partition("__")
            if rest:
                getattr(self, head).set_params(**{rest: value})
            elif head in self._param_names():
                setattr(self, head, value)
            else:
                raise ValueError(f"Invalid parameter {head!r} for kernel {self!r}.")
        return self

    def clone_with_theta(self, theta):
        """A copy of this kernel with the log hyper-parameters ``theta``."""
        kernel = copy.deepcopy(self)
        kernel.theta = theta
        return kernel

    # -- hyper-parameters --------------------------------------------------------
    @property
    def hyperparameters(self):
        """The list of :class:`Hyperparameter` of this kernel, in ``theta`` order."""
        return []

    @property
    def n_dims(self):
        """Length of ``theta``: the number of free log hyper-parameters."""
        return self.theta.shape[0]

    @property
    def theta(self):
        """Natural logarithms of the free hyper-parameters, flattened."""
        values = [np.atleast_1d(np.asarray(getattr(self, h.name), dtype=float))
                  for h in self.hyperparameters if not h.fixed]
        return np.log(np.concatenate(values)) if values else np.empty(0)

    @theta.setter
    def theta(self, theta):
        theta = np.asarray(theta, dtype=float)
        start = 0
        for h in self.hyperparameters:
            if h.fixed:
                continue
            value = np.exp(theta[start:start + h.n_elements])
            setattr(self, h.name, value if np.ndim(getattr(self, h.name)) else value[0])
            start += h.n_elements
        if start != theta.shape[0]:
            raise ValueError(f"theta has {theta.shape[0]} entries, the kernel {start}.")

    @property
    def bounds(self):
        """Log bounds of ``theta``: an array of shape (n_dims, 2)."""
        rows = []
        for h in self.hyperparameters:
            if h.fixed:
                continue
            b = np.asarray(getattr(self, f"{h.name}_bounds"), dtype=float)
            rows.append(np.broadcast_to(b, (h.n_elements, 2)))
        return np.log(np.vstack(rows)) if rows else np.empty((0, 2))

    def _hyperparameter(self, name, n_elements=1):
        bounds = _check_bounds(name, getattr(self, f"{name}_bounds"), n_elements)
        return Hyperparameter(name, bounds, n_elements, isinstance(bounds, str))

    # -- combination ---------------------------------------------------------------
    def __add__(self, other):
        return Sum(self, other if isinstance(other, Kernel) else ConstantKernel(other))

    def __radd__(self, other):
        return Sum(other if isinstance(other, Kernel) else ConstantKernel(other), self)

    def __mul__(self, other):
        return Product(self, other if isinstance(other, Kernel) else ConstantKernel(other))

    def __rmul__(self, other):
        return Product(other if isinstance(other, Kernel) else ConstantKernel(other), self)

    def __eq__(self, other):
        if type(self) is not type(other):
            return False
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        return all(np.array_equal(np.asarray(mine[k], dtype=object),
                                  np.asarray(theirs[k], dtype=object)) for k in mine)

    __hash__ = None

    def __repr__(self):
        values = ", ".join(
            f"{h.name}={np.round(getattr(self, h.name), 3)!r}".replace("\n", "")
            for h in self.hyperparameters)
        return f"{type(self).__name__}({values})"

    def diag(self, X):
        """The diagonal of ``kernel(X)``, without forming the matrix."""
        return np.diag(self(X))

    # -- shared checks -------------------------------------------------------------
    @staticmethod
    def _pair(X, Y, eval_gradient):
        X = np.atleast_2d(X)
        if Y is not None and eval_gradient:
            raise ValueError("The gradient can only be evaluated when Y is None.")
        return X, X if Y is None else np.atleast_2d(Y)


class ConstantKernel(Kernel):
    """A constant covariance: ``k(x, y) = constant_value``.

    Multiplied with another kernel, it is the signal variance (amplitude²).

    Parameters
    ----------
    constant_value : float, default=1.0
    constant_value_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
    """

    def __init__(self, constant_value=1.0, constant_value_bounds=(1e-5, 1e5)):
        self.constant_value = constant_value
        self.constant_value_bounds = constant_value_bounds

    @property
    def hyperparameters(self):
        return [self._hyperparameter("constant_value")]

    def __call__(self, X, Y=None, eval_gradient=False):
        X, Y = self._pair(X, Y, eval_gradient)
        K = np.full((X.shape[0], Y.shape[0]), float(self.constant_value))
        if not eval_gradient:
            return K
        grad = K[:, :, None] if self.n_dims else np.empty((*K.shape, 0))
        return K, grad

    def diag(self, X):
        return np.full(np.atleast_2d(X).shape[0], float(self.constant_value))


class WhiteKernel(Kernel):
    """Independent noise: ``k(x, y) = noise_level`` if x and y are the same sample.

    ``kernel(X)`` is ``noise_level * I``; ``kernel(X, Y)`` is zero (noise does
    not correlate a training point with a new one).

    Parameters
    ----------
    noise_level : float, default=1.0
    noise_level_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
    """

    def __init__(self, noise_level=1.0, noise_level_bounds=(1e-5, 1e5)):
        self.noise_level = noise_level
        self.noise_level_bounds = noise_level_bounds

    @property
    def hyperparameters(self):
        return [self._hyperparameter("noise_level")]

    def __call__(self, X, Y=None, eval_gradient=False):
        X, Y2 = self._pair(X, Y, eval_gradient)
        if Y is not None:
            return np.zeros((X.shape[0], Y2.shape[0]))
        K = float(self.noise_level) * np.eye(X.shape[0])
        if not eval_gradient:
            return K
        grad = K[:, :, None] if self.n_dims else np.empty((*K.shape, 0))
        return K, grad

    def diag(self, X):
        return np.full(np.atleast_2d(X).shape[0], float(self.noise_level))


class _Stationary(Kernel):
    """Shared part of RBF and Matern: a (possibly per-feature) length scale."""

    @property
    def anisotropic(self):
        return np.ndim(self.length_scale) > 0 and np.size(self.length_scale) > 1

    @property
    def hyperparameters(self):
        return [self._hyperparameter("length_scale", int(np.size(self.length_scale)))]

    def _scaled_squares(self, X, Y):
        """Per-feature squared differences over length scale²: (nx, ny, d or 1)."""
        length = np.asarray(self.length_scale, dtype=float)
        if np.any(length <= 0):
            raise ValueError(f"length_scale must be positive; got {self.length_scale}.")
        if self.anisotropic and length.shape[0] != X.shape[1]:
            raise ValueError(f"length_scale has {length.shape[0]} entries but X has "
                             f"{X.shape[1]} features.")
        # Stationary kernels depend on differences only: centring on X's mean
        # keeps the expansion below exact to the data's own digits when the
        # features carry a large offset (X + 1e8).
        centre = X.mean(axis=0)
        Xs, Ys = (X - centre) / length, (Y - centre) / length
        if not self.anisotropic and max(np.abs(Xs).max(initial=0.0),
                                        np.abs(Ys).max(initial=0.0)) < 1e100:
            # One squared distance per pair, by the expansion (one GEMM).
            sq = (np.sum(Xs ** 2, 1)[:, None] + np.sum(Ys ** 2, 1)[None, :]
                  - 2 * Xs @ Ys.T)
            if Y is X:
                np.fill_diagonal(sq, 0.0)
            return np.maximum(sq, 0.0)[:, :, None]
        # Per-feature differences: exact, and at huge magnitudes the squares
        # overflow to inf, the true limit (the kernel is 0 there).
        with np.errstate(over="ignore"):
            parts = (Xs[:, None, :] - Ys[None, :, :]) ** 2
        return parts if self.anisotropic else parts.sum(axis=2, keepdims=True)

    def _gradient_parts(self, parts, factor):
        """d K / d log(length): ``factor * (scaled squares)``, per length entry."""
        if self.n_dims == 0:
            return np.empty((*factor.shape, 0))
        return factor[:, :, None] * parts


class RBF(_Stationary):
    """Squared-exponential kernel: ``k(x, y) = exp(-||(x - y) / l||² / 2)``.

    Parameters
    ----------
    length_scale : float or array of shape (n_features,), default=1.0
        One length scale, or one per feature (automatic relevance determination).
    length_scale_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
    """

    def __init__(self, length_scale=1.0, length_scale_bounds=(1e-5, 1e5)):
        self.length_scale = length_scale
        self.length_scale_bounds = length_scale_bounds

    def __call__(self, X, Y=None, eval_gradient=False):
        X, Y2 = self._pair(X, Y, eval_gradient)
        parts = self._scaled_squares(X, X if Y is None else Y2)
        K = np.exp(-0.5 * parts.sum(axis=2))
        if not eval_gradient:
            return K
        return K, self._gradient_parts(parts, K)

    def diag(self, X):
        return np.ones(np.atleast_2d(X).shape[0])


class Matern(_Stationary):
    """Matérn kernel with smoothness ``nu`` in {0.5, 1.5, 2.5, inf}.

    With ``r = ||(x - y) / l||``: ``nu=0.5`` gives ``exp(-r)``, ``1.5`` gives
    ``(1 + √3 r) exp(-√3 r)``, ``2.5`` gives ``(1 + √5 r + 5r²/3) exp(-√5 r)``,
    ``inf`` the RBF. Other values of ``nu`` (which need Bessel functions) are
    refused.

    Parameters
    ----------
    length_scale : float or array of shape (n_features,), default=1.0
    length_scale_bounds : (float, float) or "fixed", default=(1e-5, 1e5)
    nu : {0.5, 1.5, 2.5, inf}, default=1.5
    """

    def __init__(self, length_scale=1.0, length_scale_bounds=(1e-5, 1e5), nu=1.5):
        self.length_scale = length_scale
        self.length_scale_bounds = length_scale_bounds
        self.nu = nu

    def __call__(self, X, Y=None, eval_gradient=False):
        if not (isinstance(self.nu, Real) and self.nu in (0.5, 1.5, 2.5, np.inf)):
            raise ValueError(f"nu must be one of 0.5, 1.5, 2.5 or inf; got {self.nu!r}.")
        if self.nu == np.inf:
            return RBF(self.length_scale, self.length_scale_bounds)(X, Y, eval_gradient)
        X, Y2 = self._pair(X, Y, eval_gradient)
        parts = self._scaled_squares(X, X if Y is None else Y2)
        r = np.sqrt(parts.sum(axis=2))
        if self.nu == 0.5:
            K = np.exp(-r)
            # dK/dr = -K and dr/dlog(l_k) = -parts_k / r (0 where r = 0).
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(r > 0, K / r, 0.0)
        elif self.nu == 1.5:
            s = np.sqrt(3.0) * r
            K = (1.0 + s) * np.exp(-s)
            factor = 3.0 * np.exp(-s)
        else:
            s = np.sqrt(5.0) * r
            K = (1.0 + s + s ** 2 / 3.0) * np.exp(-s)
            factor = 5.0 / 3.0 * (1.0 + s) * np.exp(-s)
        if not eval_gradient:
            return K
        return K, self._gradient_parts(parts, factor)

    def diag(self, X):
        return np.ones(np.atleast_2d(X).shape[0])


class _Combination(Kernel):
    def __init__(self, k1, k2):
        self.k1 = k1
        self.k2 = k2

    @property
    def hyperparameters(self):
        return ([h._replace(name=f"k1__{h.name}") for h in self.k1.hyperparameters]
                + [h._replace(name=f"k2__{h.name}") for h in self.k2.hyperparameters])

    @property
    def theta(self):
        return np.concatenate([self.k1.theta, self.k2.theta])

    @theta.setter
    def theta(self, theta):
        n1 = self.k1.n_dims
        self.k1.theta = theta[:n1]
        self.k2.theta = theta[n1:]

    @property
    def bounds(self):
        return np.vstack([self.k1.bounds, self.k2.bounds])

    def __repr__(self):
        return f"{self.k1!r} {self._symbol} {self.k2!r}"


class Sum(_Combination):
    """``k1 + k2``; ``theta`` is ``k1``'s then ``k2``'s."""

    _symbol = "+"

    def __call__(self, X, Y=None, eval_gradient=False):
        if not eval_gradient:
            return self.k1(X, Y) + self.k2(X, Y)
        K1, G1 = self.k1(X, Y, eval_gradient=True)
        K2, G2 = self.k2(X, Y, eval_gradient=True)
        return K1 + K2, np.concatenate([G1, G2], axis=2)

    def diag(self, X):
        return self.k1.diag(X) + self.k2.diag(X)


class Product(_Combination):
    """``k1 * k2`` (element-wise); ``theta`` is ``k1``'s then ``k2``'s."""

    _symbol = "*"

    def __call__(self, X, Y=None, eval_gradient=False):
        if not eval_gradient:
            return self.k1(X, Y) * self.k2(X, Y)
        K1, G1 = self.k1(X, Y, eval_gradient=True)
        K2, G2 = self.k2(X, Y, eval_gradient=True)
        return K1 * K2, np.concatenate([G1 * K2[:, :, None], K1[:, :, None] * G2], axis=2)

    def diag(self, X):
        return self.k1.diag(X) * self.k2.diag(X)
