r"""Private synthetic data (notes B §13.7-13.8): noisy histograms and PrivBayes.

Both learn a distribution of categorical records with noise (the only step
that reads the data, so it carries the whole ε) and then sample from it
(post-processing, free). Noisy counts are post-processed by clipping
negatives to 0 and normalising (:func:`~skml.privacy.normalise_counts`).

**Domains.** The categories of each column are part of the output; taking
them from the data reveals which values occur (a rare category is a
record). Pass them as ``categories`` (public knowledge) to keep the
guarantee exact; otherwise they are read from the data with a
:class:`PrivacyLeakWarning`.

**PrivBayes** (Zhang et al., 2017; notes B §13.8) builds a Bayesian network
of degree k (every attribute has at most k parents) greedily: the first
attribute is drawn uniformly (no data used); then, while attributes remain,
every pair (attribute X outside the network, k-subset Π of the network) is
scored and one is chosen by the exponential mechanism with ε₁/(d-1),
ε₁ = ``epsilon_split`` · ε. The notes' score is the mutual information
I(X; Π), of sensitivity

.. math:: \Delta I = \frac{2}{n}\ln\frac{n+1}{2} + \frac{n-1}{n}\ln\frac{n+1}{n-1}

(Zhang et al., Lemma 4.1, in nats); as the notes say, a lower-sensitivity
surrogate is used by default: :math:`R(X, \Pi) = \tfrac12\|P[X, \Pi] -
P[X]P[\Pi]\|_1`, of sensitivity :math:`3/n + 2/n^2`. With ``theta``
(θ-usefulness, Zhang et al. §5) the candidate parent sets are the maximal
ones whose table has at most n·ε₂/(2dθ) cells. Then the r joint tables of
counts of (X_i, Π_i) not contained in a later attribute's table (d - k of
them at a fixed degree k) get Laplace noise of scale 2r/ε₂ (a replaced row
moves two cells of each table: bounded DP, n public, as in the paper),
ε₂ = ε - ε₁; their normalised rows are the conditionals P(X_i | Π_i), and
a contained attribute's conditional (the first k ones) is a marginal of
the containing table. With ``consistent`` the clipped, normalised noisy
tables are first made to agree on every attribute's marginal (the
inverse-variance average of that attribute's marginals over the tables,
then iterative proportional fitting of each table to them), so the noise
in a parent's marginal does not add up along the network. Records are
sampled in the network's order (ancestral sampling, vectorised over rows).
"""

import itertools
import math
import numbers
import warnings

import numpy as np

from ..utils._docstrings import fill_doc
from ._mechanisms import ExponentialMechanism
from ._tools import normalise_counts
from ._validation import _check_epsilon, _rng

__all__ = ["DPHistogramSynthesizer", "PrivBayes", "PrivacyLeakWarning"]

# Largest table materialised (cells): a joint histogram or one conditional.
_MAX_CELLS = 10_000_000


class PrivacyLeakWarning(UserWarning):
    """A quantity that should be public (a domain, a bound) was read from the data."""


def _column_values(X):
    """``(names, columns, kinds)`` of a DataFrame or a 2-d array, checked categorical."""
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        names = list(X.columns)
        cols, kinds = [], []
        for name in names:
            col = X[name]
            dtype = col.dtype
            if str(dtype) == "category":
                cols.append(np.asarray(col.astype(object)))
                kinds.append(("category", col.cat.categories))
            elif dtype.kind in "biuOUS" or str(dtype) in ("string", "boolean"):
                cols.append(np.asarray(col.astype(object) if dtype.kind not in "biu"
                                       else col))
                kinds.append(("plain", dtype))
            else:
                raise ValueError(
                    f"PrivBayes and the histogram synthesiser need categorical data: "
                    f"column {name!r} has dtype {dtype}. Bin it (public bin edges) "
                    f"into categories first.")
            if np.any(col.isna()):
                raise ValueError(f"Column {name!r} contains missing values.")
        return names, cols, kinds, "frame"
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-d (n_samples, n_attributes); got shape {arr.shape}.")
    if arr.dtype.kind not in "biuOUS":
        raise ValueError(
            "X must be categorical (integer codes, strings, booleans, or a pandas "
            f"frame of categorical columns); got dtype {arr.dtype}. Bin continuous "
            "attributes (public bin edges) into categories first.")
    names = list(range(arr.shape[1]))
    cols = [arr[:, j] for j in names]
    return names, cols, [("plain", arr.dtype)] * len(names), "array"


def _encode(est, X, fitting):
    names, cols, kinds, container = _column_values(X)
    n = len(cols[0]) if cols else 0
    if not cols or n == 0:
        raise ValueError("X must have at least one row and one column.")
    if fitting:
        cats = est.categories
        if cats is None:
            warnings.warn(
                "categories were read from the data, which reveals the values that "
                "occur; pass the public domains as categories= for an exact "
                "guarantee.", PrivacyLeakWarning, stacklevel=3)
            cats = [np.unique(c) for c in cols]
        else:
            if len(cats) != len(cols):
                raise ValueError(
                    f"categories has {len(cats)} entries for {len(cols)} columns.")
            cats = [np.unique(np.asarray(c)) for c in cats]
        est.categories_ = cats
        est.columns_, est._kinds, est._container = names, kinds, container
    codes = np.empty((n, len(cols)), dtype=np.intp)
    for j, (c, cat) in enumerate(zip(cols, est.categories_)):
        try:
            idx = np.clip(np.searchsorted(cat, c), 0, len(cat) - 1)
        except TypeError:
            raise ValueError(
                f"Column {names[j]!r} mixes types that cannot be compared.") from None
        bad = cat[idx] != c
        if np.any(bad):
            raise ValueError(
                f"Column {names[j]!r} holds values outside its categories, e.g. "
                f"{c[np.argmax(bad)]!r}.")
        codes[:, j] = idx
    return codes


def _decode(est, codes):
    cols = [cat[codes[:, j]] for j, cat in enumerate(est.categories_)]
    if est._container == "array":
        return np.column_stack(cols) if cols else np.empty((0, 0))
    import pandas as pd

    data = {}
    for name, col, (kind, info) in zip(est.columns_, cols, est._kinds):
        if kind == "category":
            data[name] = pd.Categorical(col, categories=info)
        else:
            data[name] = pd.Series(col).astype(info)
    return pd.DataFrame(data)


def _sample_rows(rng, probs, u=None):
    """One category per row from the rows of ``probs`` (inverse CDF, vectorised)."""
    if u is None:
        u = rng.random(probs.shape[0])
    cdf = np.cumsum(probs, axis=1)
    cdf[:, -1] = np.inf  # round-off: the last category takes the remainder
    return (u[:, None] >= cdf).sum(axis=1)


def _check_n_samples(n_samples):
    if isinstance(n_samples, bool) or not isinstance(n_samples, numbers.Integral) or (
        n_samples < 0
    ):
        raise ValueError(f"n_samples must be an int >= 0; got {n_samples!r}.")
    return int(n_samples)


# The synthesizers' shared parameters, placed by fill_doc.
_SHARED_PARAMS_DOC = {"categories and random state": """
    categories : list of array-like, default=None
        Public domain of each column; None reads it from the data (with a
        :class:`PrivacyLeakWarning`).
    random_state : None, int, RandomState or Generator, default=None
"""}


@fill_doc(**_SHARED_PARAMS_DOC)
class DPHistogramSynthesizer:
    r"""Synthetic categorical data from noisy histograms (notes B §13.7).

    ``mode="independent"``: one histogram per attribute, each with Laplace
    noise of scale d/ε (d histograms of sensitivity 1, basic composition);
    sampled attribute by attribute, which loses every correlation.
    ``mode="joint"``: the full contingency table with Lap(1/ε) per cell
    (sensitivity 1), exact up to noise but exponential in size (refused
    beyond 1e7 cells). Noisy counts are clipped to 0 and normalised.

    Parameters
    ----------
    epsilon : float, default=1.0
        > 0; ``inf`` adds no noise.
    mode : {"independent", "joint"}, default="independent"
    <categories and random state>

    Attributes
    ----------
    probabilities_ : list of ndarray or ndarray
        The noisy normalised marginals (independent) or joint table.
    categories_ : list of ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from skml.privacy import DPHistogramSynthesizer
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]] * 50)
    >>> syn = DPHistogramSynthesizer(epsilon=1.0, categories=[[0, 1], [0, 1]],
    ...                              random_state=0).fit(X)
    >>> syn.sample(5).shape
    (5, 2)
    """

    def __init__(self, epsilon=1.0, mode="independent", categories=None,
                 random_state=None):
        self.epsilon = epsilon
        self.mode = mode
        self.categories = categories
        self.random_state = random_state

    def fit(self, X):
        """Learn the noisy histogram(s) of the categorical records ``X``."""
        eps = _check_epsilon(self.epsilon, allow_inf=True)
        if self.mode not in ("independent", "joint"):
            raise ValueError(f"mode must be 'independent' or 'joint'; got {self.mode!r}.")
        codes = _encode(self, X, fitting=True)
        self._rng = _rng(self.random_state)
        sizes = [len(c) for c in self.categories_]
        d = len(sizes)
        if self.mode == "independent":
            scale = d / eps
            self.probabilities_ = [
                normalise_counts(self._noisy(np.bincount(codes[:, j], minlength=k), scale))
                for j, k in enumerate(sizes)
            ]
        else:
            cells = math.prod(sizes)
            if cells > _MAX_CELLS:
                raise ValueError(
                    f"The joint table has {cells} cells (more than {_MAX_CELLS}); use "
                    "mode='independent' or PrivBayes.")
            flat = np.ravel_multi_index(codes.T, sizes)
            counts = np.bincount(flat, minlength=cells).astype(float)
            self.probabilities_ = normalise_counts(self._noisy(counts, 1 / eps)).reshape(sizes)
        return self

    def _noisy(self, counts, scale):
        counts = counts.astype(float)
        if scale == 0:
            return counts
        return counts + self._rng.laplace(0.0, scale, counts.shape)

    def sample(self, n_samples=1):
        """``n_samples`` synthetic records (same container and column types as fit's X)."""
        if not hasattr(self, "probabilities_"):
            raise ValueError("This DPHistogramSynthesizer is not fitted yet; call fit.")
        n = _check_n_samples(n_samples)
        rng = self._rng
        if self.mode == "independent":
            codes = np.column_stack([
                _sample_rows(rng, np.broadcast_to(p, (n, p.size))) for p in self.probabilities_
            ]) if n else np.empty((0, len(self.probabilities_)), dtype=np.intp)
        else:
            p = self.probabilities_.ravel()
            flat = rng.choice(p.size, size=n, p=p / p.sum())
            codes = np.column_stack(np.unravel_index(flat, self.probabilities_.shape)) if n \
                else np.empty((0, self.probabilities_.ndim), dtype=np.intp)
        return _decode(self, codes)


def _mi_sensitivity(n):
    """Sensitivity of the empirical mutual information (nats), Zhang et al. Lemma 4.1."""
    if n < 2:
        return math.log(2.0)
    return (2.0 / n) * math.log((n + 1) / 2.0) + ((n - 1) / n) * math.log((n + 1) / (n - 1))


def _joint_counts(codes, sizes, child, parents):
    """Counts of (parent configuration, child value): shape (prod parent sizes, k_child)."""
    k = sizes[child]
    pc = np.zeros(codes.shape[0], dtype=np.intp)
    n_conf = 1
    for p in parents:
        pc = pc * sizes[p] + codes[:, p]
        n_conf *= sizes[p]
    flat = pc * k + codes[:, child]
    return np.bincount(flat, minlength=n_conf * k).reshape(n_conf, k).astype(float)


def _r_score(counts):
    """R(X, Pi) = 1/2 || P[X, Pi] - P[X] P[Pi] ||_1: distance from independence."""
    n = counts.sum()
    if n == 0:
        return 0.0
    p = counts / n
    return 0.5 * float(np.abs(p - p.sum(axis=1, keepdims=True) @ p.sum(axis=0,
                                                                     keepdims=True)).sum())


def _r_sensitivity(n):
    """Sensitivity of the R score, 3/n + 2/n^2 (Zhang et al., 2017, §4.3)."""
    return 3.0 / n + 2.0 / n ** 2


def _mutual_information(counts):
    n = counts.sum()
    if n == 0:
        return 0.0
    p = counts / n
    pa = p.sum(axis=1, keepdims=True)
    pb = p.sum(axis=0, keepdims=True)
    nz = p > 0
    return float(np.sum(p[nz] * np.log(p[nz] / (pa @ pb)[nz])))


def _parent_sets(child, in_net, sizes, k, cap, maximal):
    """Candidate parent sets of ``child`` among the attributes ``in_net``.

    ``maximal=False`` (fixed degree, the notes' variant): every subset of
    size ``min(k, len(in_net))`` whose table fits ``cap`` cells.
    ``maximal=True`` (theta-usefulness): the maximal subsets of size <= k
    whose table has at most ``cap`` cells (no fitting superset); one parent
    always fits (an attribute sampled independently loses its correlations
    whatever the noise, so the degree never drops below 1).
    """
    def cells(parents):
        return math.prod(sizes[p] for p in parents) * sizes[child]

    if not maximal:
        m = min(k, len(in_net))
        return [(child, par) for par in itertools.combinations(in_net, m)
                if cells(par) <= cap]
    fits = [par for m in range(min(k, len(in_net)), -1, -1)
            for par in itertools.combinations(in_net, m)
            if m <= 1 or cells(par) <= cap]
    out = []
    for par in fits:  # largest first: a subset of a kept set is not maximal
        if not any(set(par) < set(other) for _, other in out):
            out.append((child, par))
    return out


def _make_consistent(joints, network, sizes, n_iter=500):
    """Post-process the noisy joint tables to agree on every attribute's marginal.

    Each attribute's marginal is the inverse-variance average of its
    marginals in the tables that hold it (a marginal summing c cells of
    i.i.d. noise has variance proportional to c); each table is then raked
    (iterative proportional fitting) to those marginals. The conditionals
    read from the raked tables make the sampled attributes follow the
    averaged marginals, instead of letting each table's noise in its
    parents' marginal add up along the network. Post-processing: no
    privacy cost.
    """
    axes = {t: list(network[t][1]) + [network[t][0]] for t in joints}
    target = {}
    for a in range(len(sizes)):
        est, wts = [], []
        for t, J in joints.items():
            if a in axes[t]:
                ax = axes[t].index(a)
                est.append(J.sum(axis=tuple(i for i in range(J.ndim) if i != ax)))
                wts.append(sizes[a] / J.size)
        if est:
            m = np.average(est, axis=0, weights=wts)
            target[a] = m / m.sum() if m.sum() > 0 else np.full(sizes[a], 1.0 / sizes[a])
    for t, J in joints.items():
        for _ in range(n_iter):
            worst = 0.0
            for ax, a in enumerate(axes[t]):
                cur = J.sum(axis=tuple(i for i in range(J.ndim) if i != ax))
                worst = max(worst, float(np.abs(cur - target[a]).max()))
                ratio = np.divide(target[a], cur, out=np.zeros_like(cur), where=cur > 0)
                shape = [1] * J.ndim
                shape[ax] = -1
                J *= ratio.reshape(shape)
            if worst < 1e-12:
                break
        joints[t] = J
    return [target[a] for a in range(len(sizes))]


def _noisy_conditionals(codes, sizes, network, eps2, rng, consistent=False):
    """Noisy conditionals P(X_t | Pi_t) of every attribute of ``network``.

    An attribute whose variables ``{X_t} + Pi_t`` all lie in a later
    attribute's table takes its conditional from that (noisy) table's
    marginal, as the first k attributes do in Zhang et al.; every other
    attribute gets its own table of joint counts with Laplace noise of scale
    2r/eps2, r the number of such tables (a replaced row moves two cells of
    each: bounded DP, n public).
    """
    d = len(network)
    variables = [(child,) + tuple(parents) for child, parents in network]
    owner = [None] * d  # the later table a derived conditional comes from
    for t in range(d - 1, -1, -1):
        for s in range(t + 1, d):
            if owner[s] is None and set(variables[t]) <= set(variables[s]):
                owner[t] = s
                break
    own = [t for t in range(d) if owner[t] is None]
    scale = 2.0 * len(own) / eps2
    conditionals, joints = [None] * d, {}
    for t in own:
        child, parents = network[t]
        counts = _joint_counts(codes, sizes, child, parents)
        if np.isfinite(scale) and scale > 0:
            counts = counts + rng.laplace(0.0, scale, counts.shape)
        conditionals[t] = normalise_counts(counts)
        if consistent or any(o == t for o in owner):
            joint = np.maximum(counts, 0.0)
            joint = (joint / joint.sum() if joint.sum() > 0
                     else np.full_like(joint, 1.0 / joint.size))
            # axes in the order parents..., child (the counts' mixed radix)
            joints[t] = joint.reshape([sizes[p] for p in parents] + [sizes[child]])
    marginals = None
    if consistent:
        marginals = _make_consistent(joints, network, sizes)
        for t in own:
            conditionals[t] = normalise_counts(joints[t].reshape(-1, sizes[network[t][0]]))
    for t in range(d):
        if owner[t] is None:
            continue
        s = owner[t]
        axes_s = list(network[s][1]) + [network[s][0]]
        want = list(network[t][1]) + [network[t][0]]
        drop = tuple(a for a, v in enumerate(axes_s) if v not in want)
        marg = joints[s].sum(axis=drop)
        kept = [v for v in axes_s if v in want]
        marg = np.transpose(marg, [kept.index(v) for v in want])
        conditionals[t] = normalise_counts(marg.reshape(-1, sizes[network[t][0]]))
    return conditionals, marginals


@fill_doc(**_SHARED_PARAMS_DOC)
class PrivBayes:
    r"""Differentially private synthetic data by a Bayesian network (notes B §13.8).

    PrivBayes (Zhang et al., 2017), degree k >= 1: the network is chosen
    greedily with the exponential mechanism on a correlation score, the
    conditionals are noisy normalised counts, and records are sampled in
    the network's order (see the module docstring for the formulas).

    The notes' variant (B §13.8: mutual information, every attribute with
    ``degree`` parents, each table normalised on its own) is
    ``PrivBayes(score="mi", theta=None, consistent=False)``. The defaults
    add three choices of Zhang et al. and of the consistency literature,
    each a parameter: the low-sensitivity R score, θ-usefulness (parent
    sets no larger than the noise lets the counts be read) and consistent
    marginals across the noisy tables (post-processing, free). On a chain of
    8 attributes x 5000 rows at ε = 1 they take the mean two-way-marginal
    TVD from 0.065 (degree 2, fixed) to 0.042 (benchmarks/privacy_peers.py).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε, > 0; ``inf`` means no noise (the structure step takes the
        argmax, ties at random).
    degree : int, default=1
        k, the most parents an attribute may have (>= 1).
    epsilon_split : float, default=0.3
        β: the share of ε spent on the structure, in (0, 1).
    score : {"R", "mi"}, default="R"
        Score of a candidate (attribute, parents) in the structure step:
        "mi" the mutual information; "R" its low-sensitivity surrogate of
        Zhang et al., the ℓ1 distance of the joint from the product of its
        marginals (sensitivity 3/n + 2/n², about 6x below that of mutual
        information at n = 5000, so far fewer wrong edges at small ε).
    theta : float or None, default=4.0
        θ-usefulness (Zhang et al., 2017, §5): an attribute's candidate
        parent sets are the maximal sets of at most ``degree`` parents whose
        table has at most n·ε₂/(2dθ) cells (so its counts are at least θ
        times the noise), never fewer than one parent. None: exactly
        ``degree`` parents (the notes' fixed degree). Does not bind at
        ``epsilon=inf``.
    consistent : bool, default=True
        Post-process the noisy tables so they agree on each attribute's
        marginal (inverse-variance average of the tables' marginals, then
        iterative proportional fitting of each table), and read the
        conditionals from them; False normalises each noisy table alone.
    <categories and random state>

    Attributes
    ----------
    network_ : list of (column, tuple of columns)
        Each attribute with its parents, in sampling (topological) order.
    conditionals_ : list of ndarray
        ``conditionals_[i][c, v]`` = P(attribute i = v | its parents in
        configuration c), rows in mixed radix of the parents' codes.
    marginals_ : list of ndarray or None
        With ``consistent``: the agreed marginal of each attribute (that of
        the synthetic distribution); None otherwise.
    categories_ : list of ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from skml.privacy import PrivBayes
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 3, 2000)
    >>> b = np.where(rng.random(2000) < 0.9, a, rng.integers(0, 3, 2000))
    >>> X = np.column_stack([a, b])
    >>> pb = PrivBayes(epsilon=1.0, categories=[[0, 1, 2]] * 2, random_state=0).fit(X)
    >>> synth = pb.sample(2000)
    >>> bool(np.mean(synth[:, 0] == synth[:, 1]) > 0.8)
    True
    """

    def __init__(self, epsilon=1.0, degree=1, epsilon_split=0.3, score="R",
                 theta=4.0, consistent=True, categories=None, random_state=None):
        self.epsilon = epsilon
        self.degree = degree
        self.epsilon_split = epsilon_split
        self.score = score
        self.theta = theta
        self.consistent = consistent
        self.categories = categories
        self.random_state = random_state

    def fit(self, X):
        """Learn the private network and its conditionals from categorical ``X``."""
        eps = _check_epsilon(self.epsilon, allow_inf=True)
        k = self.degree
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"degree must be an int >= 1; got {k!r}.")
        beta = self.epsilon_split
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not 0 < beta < 1:
            raise ValueError(f"epsilon_split must be a float in (0, 1); got {beta!r}.")
        if self.score not in ("R", "mi"):
            raise ValueError(f"score must be 'R' or 'mi'; got {self.score!r}.")
        if not isinstance(self.consistent, (bool, np.bool_)):
            raise ValueError(f"consistent must be a bool; got {self.consistent!r}.")
        theta = self.theta
        if theta is not None and (isinstance(theta, bool) or not isinstance(
                theta, numbers.Real) or not theta > 0 or not np.isfinite(theta)):
            raise ValueError(f"theta must be None or a float > 0; got {theta!r}.")
        codes = _encode(self, X, fitting=True)
        n, d = codes.shape
        sizes = [len(c) for c in self.categories_]
        rng = _rng(self.random_state)
        self._rng = rng
        eps1, eps2 = beta * eps, (1 - beta) * eps
        score, sens = ((_r_score, _r_sensitivity(n)) if self.score == "R"
                       else (_mutual_information, _mi_sensitivity(n)))
        em = ExponentialMechanism(eps1 / max(d - 1, 1), sens, random_state=rng)
        if self.theta is None:
            cap = _MAX_CELLS
        else:
            # theta-usefulness (Zhang et al., 2017, §5): a table of c cells gets
            # noise 2d/eps2 per cell against n/c expected counts; keep n/c over
            # the noise >= theta, i.e. c <= n eps2 / (2 d theta).
            cap = min(_MAX_CELLS, n * eps2 / (2.0 * d * self.theta))
        first = int(rng.integers(d))
        network, in_net = [(first, ())], [first]
        while len(in_net) < d:
            candidates = []
            for j in range(d):
                if j not in in_net:
                    candidates += _parent_sets(j, in_net, sizes, k, cap,
                                               maximal=self.theta is not None)
            scores = [score(_joint_counts(codes, sizes, j, par))
                      for j, par in candidates]
            j, parents = candidates[int(em.select(scores))]
            network.append((j, tuple(parents)))
            in_net.append(j)
        conditionals, self.marginals_ = _noisy_conditionals(
            codes, sizes, network, eps2, rng, consistent=self.consistent)
        self._network_codes = network
        self.network_ = [(self.columns_[c], tuple(self.columns_[p] for p in par))
                         for c, par in network]
        self.conditionals_ = conditionals
        return self

    def sample(self, n_samples=1):
        """``n_samples`` synthetic records (same container and column types as fit's X)."""
        if not hasattr(self, "conditionals_"):
            raise ValueError("This PrivBayes is not fitted yet; call fit.")
        n = _check_n_samples(n_samples)
        sizes = [len(c) for c in self.categories_]
        codes = np.zeros((n, len(sizes)), dtype=np.intp)
        for (child, parents), table in zip(self._network_codes, self.conditionals_):
            pc = np.zeros(n, dtype=np.intp)
            for p in parents:
                pc = pc * sizes[p] + codes[:, p]
            codes[:, child] = _sample_rows(self._rng, table[pc]) if n else 0
        return _decode(self, codes)
