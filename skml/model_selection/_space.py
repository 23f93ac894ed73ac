"""Search-space dimensions for :class:`BayesSearchCV`, mapped to the unit cube.

The Gaussian-process surrogate works on ``[0, 1]^D``: a real or integer
dimension takes one coordinate (uniform, or uniform in ``log`` for
``prior="log-uniform"``), a categorical one a one-hot block. ``decode``
inverts the map (rounding integers, taking the largest one-hot entry).
"""

from numbers import Integral, Real

import numpy as np

__all__ = ["Categorical", "Integer", "Real", "Space"]


class _Bounded:
    _kind = None

    def __init__(self, low, high, prior="uniform"):
        if prior not in ("uniform", "log-uniform"):
            raise ValueError(f"prior must be 'uniform' or 'log-uniform'; got {prior!r}.")
        if not (isinstance(low, self._kind) and isinstance(high, self._kind)) or isinstance(
                low, bool) or isinstance(high, bool):
            raise TypeError(f"{type(self).__name__} bounds must be numbers of the "
                            f"dimension's kind; got low={low!r}, high={high!r}.")
        if not low < high:
            raise ValueError(f"{type(self).__name__} needs low < high; got "
                             f"low={low!r}, high={high!r}.")
        if prior == "log-uniform" and low <= 0:
            raise ValueError(f"A log-uniform dimension needs low > 0; got low={low!r}.")
        self.low, self.high, self.prior = low, high, prior

    width = 1

    def _scaled(self, values):
        values = np.asarray(values, dtype=float)
        if self.prior == "log-uniform":
            return np.log(values), np.log(self.low), np.log(self.high)
        return values, float(self.low), float(self.high)

    def encode(self, values):
        v, lo, hi = self._scaled(values)
        return ((v - lo) / (hi - lo))[:, None]

    def _unit_to_value(self, u):
        lo, hi = (np.log(self.low), np.log(self.high)) if self.prior == "log-uniform" else (
            float(self.low), float(self.high))
        v = lo + np.clip(u, 0.0, 1.0) * (hi - lo)
        return np.exp(v) if self.prior == "log-uniform" else v

    def __repr__(self):
        return f"{type(self).__name__}({self.low!r}, {self.high!r}, prior={self.prior!r})"


class Real(_Bounded):
    """A real hyper-parameter in ``[low, high]``, uniform or log-uniform.

    Parameters
    ----------
    low, high : float
    prior : {"uniform", "log-uniform"}, default="uniform"
    """

    _kind = (Real,)

    def decode(self, unit):
        return [float(v) for v in np.clip(self._unit_to_value(unit[:, 0]), self.low,
                                           self.high)]


class Integer(_Bounded):
    """An integer hyper-parameter in ``[low, high]`` (both included).

    Parameters
    ----------
    low, high : int
    prior : {"uniform", "log-uniform"}, default="uniform"
    """

    _kind = (Integral,)

    def decode(self, unit):
        values = np.rint(self._unit_to_value(unit[:, 0]))
        return [int(v) for v in np.clip(values, self.low, self.high)]


class Categorical:
    """A categorical hyper-parameter: one of ``categories`` (one-hot for the GP).

    Parameters
    ----------
    categories : sequence
    """

    def __init__(self, categories):
        categories = list(categories)
        if not categories:
            raise ValueError("A categorical dimension needs at least one category.")
        self.categories = categories

    @property
    def width(self):
        return len(self.categories)

    def _index(self, value):
        for i, c in enumerate(self.categories):
            if c is value or (type(c) is type(value) and c == value):
                return i
        raise ValueError(f"{value!r} is not one of {self.categories!r}.")

    def encode(self, values):
        out = np.zeros((len(values), self.width))
        out[np.arange(len(values)), [self._index(v) for v in values]] = 1.0
        return out

    def decode(self, unit):
        return [self.categories[i] for i in np.argmax(unit, axis=1)]

    def __repr__(self):
        return f"Categorical({self.categories!r})"


def _as_dimension(name, spec):
    if isinstance(spec, (Real, Integer, Categorical)):
        return spec
    if isinstance(spec, list):
        return Categorical(spec)
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        low, high, *prior = spec
        prior = prior[0] if prior else "uniform"
        if all(isinstance(v, Integral) and not isinstance(v, bool) for v in (low, high)):
            return Integer(low, high, prior)
        return Real(float(low), float(high), prior)
    raise TypeError(
        f"search_spaces[{name!r}] must be Real(...), Integer(...), Categorical(...), a "
        f"list of choices or a (low, high[, prior]) tuple; got {spec!r}.")


class Space:
    """Named dimensions and their map to and from the unit cube.

    Parameters
    ----------
    spec : dict
        ``{parameter name: dimension}``, a dimension given as in
        :class:`BayesSearchCV`'s ``search_spaces``.
    """

    def __init__(self, spec):
        if not isinstance(spec, dict) or not spec:
            raise ValueError("search_spaces must be a non-empty dict of parameter name "
                             f"to dimension; got {spec!r}.")
        self.names = list(spec)
        self.dimensions = [_as_dimension(n, spec[n]) for n in self.names]
        self.n_dims = sum(d.width for d in self.dimensions)

    def sample_unit(self, n, rng):
        """``n`` uniform points of the cube (categoricals as random one-hots)."""
        blocks = []
        for d in self.dimensions:
            if isinstance(d, Categorical):
                block = np.zeros((n, d.width))
                block[np.arange(n), rng.randint(d.width, size=n)] = 1.0
            else:
                block = rng.uniform(size=(n, 1))
            blocks.append(block)
        return np.hstack(blocks)

    def decode(self, unit):
        """Parameter dicts of the cube's points."""
        columns, start = {}, 0
        for name, d in zip(self.names, self.dimensions):
            columns[name] = d.decode(unit[:, start:start + d.width])
            start += d.width
        return [{n: columns[n][i] for n in self.names} for i in range(unit.shape[0])]

    def encode(self, params):
        """Cube coordinates of parameter dicts (their values snapped to the grid)."""
        return np.hstack([d.encode([p[n] for p in params])
                          for n, d in zip(self.names, self.dimensions)])

    def snap(self, unit):
        """The cube point of each point's decoded parameters (integers rounded)."""
        return self.encode(self.decode(unit))
