r"""White-box evasion attacks: FGSM, BIM, PGD, multi-targeted PGD (notes B §12.2-12.5).

An attack is a configured object (not an estimator) holding a fitted
classifier; ``generate(X, y=None, y_target=None)`` returns the adversarial
rows, all rows at once. Every step is

.. math::

   x^{t+1} = \Pi_{B_p(x, \varepsilon) \cap \mathrm{box}}
             \bigl(x^t + \gamma \, s(\nabla_x L(x^t))\bigr),

with :math:`s = \mathrm{sign}` for the :math:`\ell_\infty` ball (the
maximiser of the linearised loss, B §12.2) and :math:`s(g) = g / \|g\|_2` for
:math:`\ell_2`. FGSM is one step with :math:`\gamma = \varepsilon` from
:math:`x`; BIM repeats it (B §12.3; without a ball when ``eps=None``, as D1
writes it); PGD starts at a random point of the ball and projects (B §12.4);
multi-targeted PGD runs one targeted PGD towards each other class and keeps
the best (B §12.5).

Input gradients come from :func:`skml.inspection.input_gradient` (analytic
for skml's differentiable classifiers). The attacked loss ``L`` is, by
default, the *margin* :math:`\max_{t \ne y} s_t(x) - s_y(x)` of the class
scores (decision function, logits, or the one-vs-one pair decisions of a
multi-class ``SVC``): unlike the hinge it does not vanish outside the
margin, and on a linear model its gradient has a constant sign, so FGSM
and PGD reach the Hölder oracle of B §12.1. ``loss="ce"`` attacks the
estimator's own training loss (``input_gradient(output="loss")``).
"""

import copy
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_array, check_is_fitted, check_random_state

from skml.utils import Interval, Options, validate_params
from skml.utils._docstrings import fill_doc

from ._oracle import _check_clip

__all__ = ["BIM", "FGSM", "PGD", "MultiTargetedPGD", "robust_score"]


def robust_score(estimator, X, y, attack):
    """Accuracy of ``estimator`` on the rows ``attack`` crafted from ``(X, y)``.

    Parameters
    ----------
    estimator : fitted classifier
        The model scored (``attack`` may hold another one: a transfer attack).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        True labels; the attack is untargeted against them.
    attack : FGSM, BIM, PGD or MultiTargetedPGD
        Any object with ``generate(X, y)``.

    Returns
    -------
    score : float
        Robust accuracy, the fraction of rows still classified correctly.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> from skml.adversarial import FGSM, robust_score
    >>> from skml.linear_model import LogisticRegression
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = LogisticRegression().fit(X, y)
    >>> robust_score(clf, X, y, FGSM(clf, eps=0.1)) < clf.score(X, y)
    True
    """
    if not hasattr(attack, "generate"):
        raise TypeError("attack must have a generate method; got "
                        f"{type(attack).__name__}.")
    y = np.asarray(y)
    X_adv = attack.generate(X, y)
    return float(np.mean(np.asarray(estimator.predict(X_adv)) == y))


# --------------------------------------------------------------------------
# The differentiable view of a fitted classifier
# --------------------------------------------------------------------------


# skml classifiers whose decision function is affine in x (constant gradient).
_LINEAR_SCORES = {"LogisticRegression", "LinearSVC", "SGDClassifier", "Perceptron",
                  "LinearDiscriminantAnalysis"}


class _Scores:
    """Class-score margins of a fitted classifier and their input gradients.

    ``margins(X, y)`` is (n, k): ``score_y - score_t`` (``+inf`` at ``t = y``),
    negative where ``t`` beats ``y``; ``margin_gradient(X, y, t)`` is its
    gradient for one ``t`` per row. Class scores are the decision function
    (``[0, f]`` for two classes), the logits of an MLP (through its
    log-probabilities, equal up to a per-row constant), or, for a multi-class
    ``SVC``, the one-vs-one pair decisions.
    """

    def __init__(self, estimator):
        from skml.inspection import input_gradient
        from skml.inspection._analytic_gradients import analytic_gradient

        if getattr(type(estimator), "_differentiable_inner", False):
            check_is_fitted(estimator)
            estimator = estimator.estimator_  # a defence: attack its network
        name = type(estimator).__name__
        if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
            raise TypeError(f"estimator must be a fitted classifier; got {name}.")
        check_is_fitted(estimator)
        if not hasattr(estimator, "classes_"):
            raise TypeError(f"estimator must be a classifier with classes_; {name} "
                            "has none.")
        self.estimator = estimator
        self.classes = np.asarray(estimator.classes_)
        self.k = len(self.classes)
        if self.k < 2:
            raise ValueError(f"{name} was fitted on one class: nothing to attack.")
        self._grad = input_gradient
        self.ovo = None
        if self.k > 2 and hasattr(estimator, "decision_function_shape") and hasattr(
                estimator, "_decision_values"):
            # Multi-class SVC: one-vs-one voting is piecewise constant; attack
            # the pair decisions (a shallow copy answers in the "ovo" shape).
            self.ovo = copy.copy(estimator)
            self.ovo.decision_function_shape = "ovo"
            pairs = [(a, b) for a in range(self.k) for b in range(a + 1, self.k)]
            self.pair_index = np.full((self.k, self.k), -1)
            for p, (a, b) in enumerate(pairs):
                self.pair_index[a, b] = self.pair_index[b, a] = p
        n_in = getattr(estimator, "n_features_in_", None)
        probe = np.zeros((1, n_in if n_in is not None else 1))
        # Linear class scores have the same input gradient everywhere: ask
        # input_gradient once (at the origin) instead of at every step.
        self._constant = None
        if self.ovo is None and type(estimator).__name__ in _LINEAR_SCORES and (
                type(estimator).__module__.startswith("skml.")):
            G = self._grad(estimator, probe, output="decision")[0]
            # (d,) for two classes, else the (k, d) matrix of class gradients
            self._constant = G if G.ndim == 1 else np.ascontiguousarray(G.T)
        try:
            G = analytic_gradient(self.ovo or estimator, probe, "decision", None)
            ok = G is not None
        except Exception:  # noqa: BLE001 - the probe must not hide the real check
            ok = False
        if not ok:
            raise TypeError(
                f"{name} has no analytic input gradient, which white-box attacks "
                "need (skml's linear models, SVMs, discriminant analysis and MLPs "
                "have one); use a decision-based attack for this model."
            )

    def index(self, labels, name="y", n=None):
        labels = np.asarray(labels)
        if n is not None and labels.shape != (n,):
            raise ValueError(f"{name} must have shape ({n},), one label per row of X; "
                             f"got {labels.shape}.")
        idx = np.minimum(np.searchsorted(self.classes, labels), self.k - 1)
        if np.any(self.classes[idx] != labels):
            raise ValueError(f"{name} holds labels not in the estimator's classes_ "
                             f"{self.classes.tolist()!r}.")
        return idx

    def predict_index(self, X):
        return self.index(self.estimator.predict(X), "the predictions")

    def _scores(self, X):
        est = self.estimator
        if hasattr(est, "decision_function"):
            D = np.asarray(est.decision_function(X), dtype=np.float64)
            if D.ndim == 1:
                return np.column_stack([np.zeros_like(D), D])
            return D
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(np.asarray(est.predict_proba(X), dtype=np.float64),
                                     np.finfo(np.float64).tiny))

    def margins(self, X, y):
        n = X.shape[0]
        rows = np.arange(n)
        if self.ovo is not None:
            D = np.asarray(self.ovo.decision_function(X), dtype=np.float64)
            P = self.pair_index[y]  # (n, k): pair of (y, t)
            M = D[rows[:, None], np.maximum(P, 0)]
            M = np.where(y[:, None] < np.arange(self.k)[None, :], M, -M)
        else:
            S = self._scores(X)
            M = S[rows, y][:, None] - S
        M[rows, y] = np.inf
        return M

    def margin_gradient(self, X, y, t):
        """Gradient of ``score_y - score_t`` per row: (n, d)."""
        n = X.shape[0]
        rows = np.arange(n)
        if self.ovo is not None:
            p = self.pair_index[y, t]
            views = self._pair_views()
            if views is None:
                G = self._grad(self.ovo, X, output="decision")  # (n, d, n_pairs)
                g = G[rows, :, p]
            else:  # only the pair each row needs: n_pairs times less work
                g = np.empty(X.shape)
                for q in np.unique(p):
                    on = np.flatnonzero(p == q)
                    g[on] = self._grad(views[q], X[on], output="decision")
            return np.where((y < t)[:, None], g, -g)
        if self._constant is not None:  # linear scores: one gradient for every x
            G = self._constant
            if G.ndim == 1:
                return np.where((y == 1)[:, None], G, -G)
            return G[y] - G[t]  # rows of the (k, d) gradient matrix
        G = self._grad(self.estimator, X, output="decision")
        if G.ndim == 2:  # two classes: the score of classes_[1] minus classes_[0]
            return np.where((y == 1)[:, None], G, -G)
        return G[rows, :, y] - G[rows, :, t]

    def _pair_views(self):
        """One two-class view of a kernel SVC per pair, or None.

        The view keeps the support vectors and only pair ``q``'s dual
        coefficients (``_W[:, q]``) and classes, so ``input_gradient`` of its
        decision is pair ``q``'s gradient, computed for the rows that need
        it only (a row needs one of the n_classes (n_classes - 1) / 2 pairs).
        """
        if getattr(self, "_views", False) is not False:
            return self._views
        est, self._views = self.estimator, None
        W = getattr(est, "_W", None)
        n_pairs = self.k * (self.k - 1) // 2
        if (getattr(est, "_W_primal", 0) is None and isinstance(W, np.ndarray)
                and W.ndim == 2 and W.shape[1] == n_pairs):
            pairs = [(a, b) for a in range(self.k) for b in range(a + 1, self.k)]
            views = []
            for q, (a, b) in enumerate(pairs):
                view = copy.copy(est)
                view._W = W[:, [q]]
                view.classes_ = est.classes_[[a, b]]
                views.append(view)
            self._views = views
        return self._views

    def loss_gradient(self, X, y):
        return self._grad(self.estimator, X, output="loss", y=self.classes[y])


# --------------------------------------------------------------------------
# The projected-step loop shared by every attack and by the defences
# --------------------------------------------------------------------------


def _direction(g, norm):
    """The steepest-ascent unit step for gradient rows ``g``."""
    if norm == np.inf:
        return np.sign(g)
    length = np.sqrt(np.einsum("ij,ij->i", g, g))
    length[length == 0] = 1.0
    return g / length[:, None]


def _project(X_adv, X, eps, norm, clip):
    """Into the ball ``B_norm(X, eps)`` (skipped when eps is None), then the box.

    For l_inf both are boxes and clipping in turn is the exact projection onto
    their intersection; for l2 the box clip only moves coordinates towards
    ``X`` (which lies in the box), so the point stays in the ball.
    """
    if eps is not None:
        delta = X_adv - X
        if norm == np.inf:
            np.clip(delta, -eps, eps, out=delta)
        else:
            length = np.sqrt(np.einsum("ij,ij->i", delta, delta))
            delta *= np.minimum(1.0, eps / np.maximum(length, 1e-300))[:, None]
        X_adv = X + delta
    if clip is not None:
        X_adv = np.clip(X_adv, clip[0], clip[1])
    return X_adv


def _random_start(X, eps, norm, clip, rng):
    if norm == np.inf:
        start = X + rng.uniform(-eps, eps, size=X.shape)
    else:
        Z = rng.standard_normal(X.shape)
        length = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        length[length == 0] = 1.0
        radius = eps * rng.random_sample(X.shape[0]) ** (1.0 / X.shape[1])
        Z *= (radius / length)[:, None]
        start = X + Z
    return _project(start, X, eps, norm, clip)


def _pgd_loop(ascent, X, start, eps, step_size, n_iter, norm, clip, done=None):
    """``n_iter`` projected steps from ``start``; rows stop once ``done``.

    ``ascent(X_rows, rows)`` returns the gradient to climb for those rows;
    ``done(X_rows, rows)`` (checked after each step) freezes successful rows,
    so a later step cannot undo a success and no time is spent on them.
    """
    X_adv = np.array(start, dtype=np.float64, copy=True)
    n = X.shape[0]
    lower = upper = None
    if norm == np.inf and eps is not None:
        # The ball and the box are both boxes: their intersection is one box,
        # and the projection one clip (computed once, not per step).
        lower, upper = X - eps, X + eps
        if clip is not None:
            np.maximum(lower, clip[0], out=lower)
            np.minimum(upper, clip[1], out=upper)
    active = np.arange(n)
    for _ in range(n_iter):
        every = active.size == n  # no gather/scatter while no row has stopped
        Xa = X_adv if every else X_adv[active]
        Xa += step_size * _direction(ascent(Xa, active), norm)
        if lower is not None:
            np.clip(Xa, lower if every else lower[active],
                    upper if every else upper[active], out=Xa)
        else:
            Xa = _project(Xa, X if every else X[active], eps, norm, clip)
        if every:
            X_adv[...] = Xa
        else:
            X_adv[active] = Xa
        if done is not None:
            active = active[~done(Xa, active)]
            if active.size == 0:
                break
    return X_adv


# --------------------------------------------------------------------------
# The attacks
# --------------------------------------------------------------------------


def _norm_constraint():
    return [Options({np.inf, 2, "inf"})]


class _Attack:
    """Shared checks and the loss of the gradient-based attacks."""

    _parameter_constraints = {
        "eps": [Interval(Real, 0, None, closed="left")],
        "step_size": [Interval(Real, 0, None, closed="neither"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
        "norm": _norm_constraint(),
        "clip": [tuple, list, None],
        "loss": [Options({"margin", "ce"})],
        "targeted": ["boolean"],
        "random_start": ["boolean"],
        "random_state": ["random_state"],
        "early_stop": ["boolean"],
    }

    def get_params(self):
        return {k: getattr(self, k) for k in self._param_names}

    def __repr__(self):
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._param_names
                         if k != "estimator")
        return f"{type(self).__name__}({type(self.estimator).__name__}, {args})"

    def _setup(self, X, y, y_target):
        validate_params(self, self.get_params())
        self._norm = np.inf if self.norm in (np.inf, "inf") else 2
        self._clip = _check_clip(self.clip)
        scores = _Scores(self.estimator)
        X = check_array(X, dtype=np.float64)
        n_in = getattr(self.estimator, "n_features_in_", None)
        if n_in is not None and X.shape[1] != n_in:
            raise ValueError(f"X has {X.shape[1]} features, but the attacked "
                             f"{type(self.estimator).__name__} was fitted with {n_in}.")
        lo_hi = self._clip
        if lo_hi is not None and (X.min() < lo_hi[0] or X.max() > lo_hi[1]):
            raise ValueError(f"X has values outside clip={self.clip!r}; the clean rows "
                             "must lie in the box.")
        n = X.shape[0]
        y_idx = (scores.predict_index(X) if y is None
                 else scores.index(y, "y", n))
        t_idx = None
        if getattr(self, "targeted", False):
            if y_target is None:
                raise ValueError(f"{type(self).__name__}(targeted=True).generate needs "
                                 "y_target.")
            t_idx = scores.index(y_target, "y_target", n)
            if y is not None and np.any(t_idx == y_idx):
                raise ValueError("y_target equals the true label y on "
                                 f"{int(np.sum(t_idx == y_idx))} row(s); a target must "
                                 "be another class.")
        elif y_target is not None:
            raise ValueError("y_target is given but targeted=False; set targeted=True.")
        return scores, X, y_idx, t_idx

    def _ascent(self, scores, y_idx, t_idx):
        """The gradient to climb for rows ``rows`` at points ``Xa``."""
        if self.loss == "ce":
            if t_idx is None:
                return lambda Xa, rows: scores.loss_gradient(Xa, y_idx[rows])
            return lambda Xa, rows: -scores.loss_gradient(Xa, t_idx[rows])
        if t_idx is None:
            def ascent(Xa, rows):
                y = y_idx[rows]
                t = np.argmin(scores.margins(Xa, y), axis=1)  # the runner-up class
                return -scores.margin_gradient(Xa, y, t)
            return ascent
        # Targeted: raise score_target - max_{s != target} score_s
        # (Carlini-Wagner's targeted margin).
        def ascent(Xa, rows):
            t = t_idx[rows]
            s = np.argmin(scores.margins(Xa, t), axis=1)  # the class beating t most
            return scores.margin_gradient(Xa, t, s)
        return ascent

    def _done(self, scores, y_idx, t_idx):
        if not self.early_stop:
            return None
        if t_idx is None:
            return lambda Xa, rows: scores.predict_index(Xa) != y_idx[rows]
        return lambda Xa, rows: scores.predict_index(Xa) == t_idx[rows]


# Docstring blocks of the attacks, placed by fill_doc.
_COMMON_PARAMS = """
    norm : {np.inf, 2}, default=np.inf
        The ball's norm: sign steps for ``np.inf``, normalised-gradient steps
        for 2.
    clip : (float, float), default=None
        A box (e.g. ``(0, 1)`` for pixels) every point stays in; the clean
        rows must lie in it.
    loss : {"margin", "ce"}, default="margin"
        The margin of the class scores (see the module notes; the
        one-vs-one pair decisions for a multi-class ``SVC``), or the
        estimator's own loss as :func:`skml.inspection.input_gradient` gives
        it (cross-entropy for probabilistic models, hinge for SVMs).
    targeted : bool, default=False
"""

_GENERATE_X_DOC = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
y : array-like of shape (n_samples,), default=None
    True labels; the estimator's predictions when None (no label leaking).
"""

_GENERATE_RETURNS_DOC = """
Returns
-------
X_adv : ndarray of shape (n_samples, n_features)
"""


@fill_doc(**{"common parameters": _COMMON_PARAMS})
class FGSM(_Attack):
    r"""Fast gradient sign method (notes A §10.1, B §12.2).

    :math:`x_{adv} = \Pi_{box}(x + \varepsilon\, \mathrm{sign}(\nabla_x L))`,
    the exact maximiser of the linearised loss over the
    :math:`\ell_\infty` ball (Hölder: :math:`\langle \delta, g \rangle \le
    \varepsilon \|g\|_1`); every coordinate with a non-zero gradient moves
    by exactly ``eps`` (a vertex of the cube). With ``norm=2`` the step is
    :math:`\varepsilon\, g / \|g\|_2`. Targeted: a step up the margin
    towards ``y_target``.

    Parameters
    ----------
    estimator : fitted classifier
        With an analytic input gradient (skml's linear models, SVMs,
        discriminant analysis, MLPs), else ``generate`` raises TypeError.
    eps : float, default=0.1
        Radius of the ball, >= 0.
    <common parameters>

    See Also
    --------
    PGD : The iterated, projected version.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.adversarial import FGSM
    >>> from skml.linear_model import LogisticRegression
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> clf = LogisticRegression().fit(X, [0, 1, 0, 1])
    >>> X_adv = FGSM(clf, eps=0.25).generate(X, [0, 1, 0, 1])
    >>> np.abs(X_adv - X).max(axis=1).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """

    _param_names = ("estimator", "eps", "norm", "clip", "loss", "targeted")

    def __init__(self, estimator, *, eps=0.1, norm=np.inf, clip=None, loss="margin",
                 targeted=False):
        self.estimator = estimator
        self.eps = eps
        self.norm = norm
        self.clip = clip
        self.loss = loss
        self.targeted = targeted

    @fill_doc(parameters=_GENERATE_X_DOC, returns=_GENERATE_RETURNS_DOC)
    def generate(self, X, y=None, y_target=None):
        """Adversarial rows.

        <parameters>
        y_target : array-like of shape (n_samples,), default=None
            The classes to reach (``targeted=True`` only); none may equal ``y``.

        <returns>
        """
        scores, X, y_idx, t_idx = self._setup(X, y, y_target)
        return _pgd_loop(self._ascent(scores, y_idx, t_idx), X, X, float(self.eps),
                         float(self.eps), 1, self._norm, self._clip)


@fill_doc(**{"common parameters": _COMMON_PARAMS})
class PGD(_Attack):
    r"""Projected gradient descent attack (notes A §10.2, B §12.4).

    From a uniform random point of the ball (``random_start``), ``n_iter``
    steps of size ``step_size`` along the sign (:math:`\ell_\infty`) or the
    normalised gradient (:math:`\ell_2`) of the loss, each followed by the
    projection onto the ball and the ``clip`` box (Madry et al.). Targeted
    (``targeted=True``): ascent of the margin
    :math:`s_{target} - \max_{s \ne target} s_s`. With ``n_iter=1``,
    ``step_size=eps`` and no
    random start it is :class:`FGSM`.

    Parameters
    ----------
    estimator : fitted classifier
        With an analytic input gradient.
    eps : float, default=0.1
        Radius of the ball, >= 0.
    step_size : float, default=None
        ``2.5 * eps / n_iter`` when None (Madry et al.'s choice).
    n_iter : int, default=10
    <common parameters>
    random_start : bool, default=True
        Start at a uniform point of the ball (in the box).
    early_stop : bool, default=True
        Freeze a row once it is misclassified (reaches its target), so a
        later step cannot undo the success.
    random_state : int, RandomState or None, default=None
        Draws the random start; a fresh generator per ``generate`` call.

    See Also
    --------
    MultiTargetedPGD : One targeted run per other class.

    Notes
    -----
    Each step costs one input gradient of all the active rows (one batched
    call) and, with ``early_stop``, one prediction.
    """

    _param_names = ("estimator", "eps", "step_size", "n_iter", "norm", "clip", "loss",
                    "targeted", "random_start", "early_stop", "random_state")

    def __init__(self, estimator, *, eps=0.1, step_size=None, n_iter=10, norm=np.inf,
                 clip=None, loss="margin", targeted=False, random_start=True,
                 early_stop=True, random_state=None):
        self.estimator = estimator
        self.eps = eps
        self.step_size = step_size
        self.n_iter = n_iter
        self.norm = norm
        self.clip = clip
        self.loss = loss
        self.targeted = targeted
        self.random_start = random_start
        self.early_stop = early_stop
        self.random_state = random_state

    def _step(self, eps):
        if self.step_size is None:
            return 2.5 * eps / self.n_iter
        return float(self.step_size)

    def generate(self, X, y=None, y_target=None):
        """Adversarial rows (see :meth:`FGSM.generate`)."""
        scores, X, y_idx, t_idx = self._setup(X, y, y_target)
        eps = float(self.eps)
        start = X
        if self.random_start and eps > 0:
            start = _random_start(X, eps, self._norm, self._clip,
                                  check_random_state(self.random_state))
        return _pgd_loop(self._ascent(scores, y_idx, t_idx), X, start, eps,
                         self._step(eps), self.n_iter, self._norm, self._clip,
                         self._done(scores, y_idx, t_idx))


@fill_doc(**{"common parameters": _COMMON_PARAMS})
class BIM(PGD):
    r"""Basic iterative method (notes B §12.3).

    ``n_iter`` sign steps of size ``step_size`` from ``x`` (no random start).
    With ``eps=None`` there is no projection, as D1 §15.2.2 writes it (the
    total move is at most ``n_iter * step_size`` per coordinate); with an
    ``eps`` every step is projected onto the ball (Kurakin et al., ART), which
    is :class:`PGD` with ``random_start=False``.

    Parameters
    ----------
    estimator : fitted classifier
    eps : float or None, default=None
        Radius of the ball; None: no projection.
    step_size : float, default=None
        ``eps / n_iter`` when None (required when ``eps`` is None).
    n_iter : int, default=10
    <common parameters>
    early_stop : bool, default=True
    """

    _parameter_constraints = {
        **_Attack._parameter_constraints,
        "eps": [Interval(Real, 0, None, closed="left"), None],
    }
    _param_names = ("estimator", "eps", "step_size", "n_iter", "norm", "clip", "loss",
                    "targeted", "early_stop")

    def __init__(self, estimator, *, eps=None, step_size=None, n_iter=10, norm=np.inf,
                 clip=None, loss="margin", targeted=False, early_stop=True):
        self.estimator = estimator
        self.eps = eps
        self.step_size = step_size
        self.n_iter = n_iter
        self.norm = norm
        self.clip = clip
        self.loss = loss
        self.targeted = targeted
        self.early_stop = early_stop

    def generate(self, X, y=None, y_target=None):
        """Adversarial rows (see :meth:`FGSM.generate`)."""
        if self.eps is None and self.step_size is None:
            raise ValueError("BIM without eps (no projection) needs a step_size.")
        scores, X, y_idx, t_idx = self._setup(X, y, y_target)
        eps = None if self.eps is None else float(self.eps)
        step = (eps / self.n_iter if self.step_size is None
                else float(self.step_size))
        return _pgd_loop(self._ascent(scores, y_idx, t_idx), X, X, eps, step,
                         self.n_iter, self._norm, self._clip,
                         self._done(scores, y_idx, t_idx))


class MultiTargetedPGD(PGD):
    r"""Multi-targeted PGD: one targeted PGD per other class (notes B §12.5).

    For a row of class :math:`y`, runs a targeted PGD that closes the
    pairwise margin :math:`s_y - s_t` for every :math:`t \ne y`
    (``n_classes - 1`` runs, all rows and targets in one batch); a run stops
    once the row is misclassified. **Returned point**: among the
    ``n_classes - 1`` end points, a misclassified one if any, and among
    those (or among all when none succeeds) the one with the smallest true-
    class margin :math:`\min_{t \ne y} (s_y - s_t)` (ties: the lowest
    target index). The attack succeeds iff any run succeeds. On a linear
    model each run's gradient sign is constant, so with ``step_size *
    n_iter >= eps`` (``>= 2 eps`` from a random start) the runs reach the
    coordinate-wise worst case and the robust accuracy equals the exact
    oracle (:func:`exact_linear_robust_error`, ``clip`` included).

    Parameters
    ----------
    estimator : fitted classifier
    eps : float, default=0.1
    step_size : float, default=None
        ``2.5 * eps / n_iter`` when None.
    n_iter : int, default=10
    norm : {np.inf, 2}, default=np.inf
    clip : (float, float), default=None
    random_start : bool, default=False
    early_stop : bool, default=True
    random_state : int, RandomState or None, default=None

    See Also
    --------
    exact_linear_robust_error : The oracle it reaches on linear models.
    """

    _param_names = ("estimator", "eps", "step_size", "n_iter", "norm", "clip",
                    "random_start", "early_stop", "random_state")

    def __init__(self, estimator, *, eps=0.1, step_size=None, n_iter=10, norm=np.inf,
                 clip=None, random_start=False, early_stop=True, random_state=None):
        self.estimator = estimator
        self.eps = eps
        self.step_size = step_size
        self.n_iter = n_iter
        self.norm = norm
        self.clip = clip
        self.random_start = random_start
        self.early_stop = early_stop
        self.random_state = random_state
        self.loss = "margin"
        self.targeted = False

    @fill_doc(parameters=_GENERATE_X_DOC, returns=_GENERATE_RETURNS_DOC)
    def generate(self, X, y=None, y_target=None):
        """Adversarial rows (untargeted; see the class notes for the rule).

        <parameters>
        y_target : None
            Not supported (the attack tries every target).

        <returns>
        """
        if y_target is not None:
            raise ValueError("MultiTargetedPGD tries every other class; y_target is "
                             "not supported (use PGD(targeted=True)).")
        scores, X, y_idx, _ = self._setup(X, y, None)
        n, k = X.shape[0], scores.k
        # Row i's runs are rows i*(k-1) .. i*(k-1)+k-2, targets = the others.
        others = np.array([np.delete(np.arange(k), c) for c in range(k)])  # (k, k-1)
        t_rep = others[y_idx].ravel()
        y_rep = np.repeat(y_idx, k - 1)
        X_rep = np.repeat(X, k - 1, axis=0)
        eps = float(self.eps)
        start = X_rep
        if self.random_start and eps > 0:
            start = _random_start(X_rep, eps, self._norm, self._clip,
                                  check_random_state(self.random_state))

        def ascent(Xa, rows):
            return -scores.margin_gradient(Xa, y_rep[rows], t_rep[rows])

        done = None
        if self.early_stop:
            def done(Xa, rows):
                return scores.predict_index(Xa) != y_rep[rows]
        X_all = _pgd_loop(ascent, X_rep, start, eps, self._step(eps), self.n_iter,
                          self._norm, self._clip, done)
        fooled = (scores.predict_index(X_all) != y_rep).reshape(n, k - 1)
        margin = scores.margins(X_all, y_rep).min(axis=1).reshape(n, k - 1)
        best = _argbest(fooled, margin)
        return X_all.reshape(n, k - 1, -1)[np.arange(n), best]


def _argbest(fooled, margin):
    """Per row: a fooled column if any, then the smallest margin, then the first."""
    big = np.where(fooled, margin, np.inf)
    any_fooled = fooled.any(axis=1)
    return np.where(any_fooled, np.argmin(big, axis=1), np.argmin(margin, axis=1))
