"""The perceptron (notes B §3.1-3.2): mistake-driven updates, one-vs-rest."""

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from skml.utils import Interval, Options, check_sample_weight, encode_labels

from ._stochastic_gradient import _BaseSGD, _BaseSGDClassifier
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc, predict_doc
from ..utils.validation import validate_data

__all__ = ["Perceptron"]


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class Perceptron(_BaseSGDClassifier):
    """Rosenblatt's perceptron, one-vs-rest for more than two classes.

    The notes' algorithm (notes B §3.1, D1 Algorithm 1): with labels
    ``y in {-1, +1}`` and ``w = 0, b = 0`` at the start, visit the samples in
    turn and, on a mistake ``y (<x, w> + b) <= 0`` (a score of exactly 0 is a
    mistake), update ``w <- w + eta0 y x`` and ``b <- b + eta0 y``. This is
    SGD on the loss ``max(0, -y p)`` with a constant step ``eta0``, and it runs
    on the same compiled kernel as :class:`SGDClassifier`. On separable data
    with margin ``gamma`` and ``||(x, 1)|| <= R`` it makes at most
    ``(R / gamma)^2`` updates (Block-Novikoff); on non-separable data it
    cycles. More than two classes: one perceptron per class against the
    rest, predicting the argmax of the scores (notes B §3.2, "OvA"), or with
    ``multi_class="ovo"`` one "balanced" perceptron per pair of classes,
    trained on those two classes only, predicting the class with the most
    pairwise wins (notes B §3.2 "OvO", ``argmax_k sum_{l != k}
    1[<x, w_kl> > 0]``, the catalogue's reading of D1's garbled formula).
    The stopping rules of notes B §3.1 (D1 §2.3) are all here: a maximum
    number of epochs (``max_iter``), a maximum runtime (``max_time``), an
    epoch without mistakes (``tol="no_mistakes"``), the training loss that
    stops changing (``tol``) and the validation error that stops decreasing
    (``early_stopping``).

    Parameters
    ----------
    penalty : {"l2", "l1", "elasticnet"} or None, default=None
        Optional regulariser (not part of the notes' algorithm).
    alpha : float, default=1e-4
        Strength of the penalty.
    l1_ratio : float, default=0.15
        Elastic-net mixing.
    fit_intercept : bool, default=True
        Learn ``b`` (the notes' padding with a constant 1 feature, with the
        intercept left unpenalised).
    max_iter : int, default=1000
        Maximum number of epochs.
    tol : float, "no_mistakes" or None, default=1e-3
        Stop when the epoch's average loss has not improved by ``tol`` for
        ``n_iter_no_change`` epochs (scikit-learn's rule). "no_mistakes" stops
        after the first epoch without a mistake (notes D1 §2.3: the data are
        then separated and no later epoch would change ``w``). None runs
        ``max_iter`` epochs.
    shuffle : bool, default=True
        Visit the samples in a new random order each epoch (else cyclically).
    verbose : int, default=0
        Print one line per epoch.
    eta0 : float, default=1.0
        Step size; without a penalty it only scales the solution.
    n_jobs : int, default=None
        Threads for the one-vs-rest problems.
    random_state : int, RandomState instance or None, default=0
        Seeds the shuffling and the validation split.
    early_stopping : bool, default=False
        Stop on the accuracy of a held-out ``validation_fraction``.
    validation_fraction : float, default=0.1
        Size of the held-out set.
    n_iter_no_change : int, default=5
        Epochs without improvement before stopping.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes (they scale the update).
    warm_start : bool, default=False
        Start ``fit`` from the previous solution.
    max_time : float or None, default=None
        Maximum runtime of ``fit`` in seconds (notes D1 §2.3's "maximum
        runtime"), checked after every epoch (a fit can overrun it by one
        epoch); a ``ConvergenceWarning`` tells when it cut the fit short.
        None: no limit. Not with ``early_stopping``.
    multi_class : {"ovr", "ovo"}, default="ovr"
        More than two classes: one perceptron per class against the rest
        (scikit-learn's), or one per pair of classes with pairwise voting
        (notes B §3.2). With "ovo", ``coef_`` has one row per pair
        ``(k, l)``, ``k < l``, in that order (positive scores mean ``k``),
        and ``decision_function`` returns per class its number of pairwise
        wins plus its summed pairwise confidences squashed into
        ``(-1/3, 1/3)`` (ties in votes go to the more confident class, never
        against a vote count); ``partial_fit`` runs one epoch of every pair
        on its rows of the batch.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights (``multi_class="ovo"``: shape (n_pairs, n_features)).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts (``multi_class="ovo"``: shape (n_pairs,)).
    n_iter_ : int
        Epochs run (the largest over the one-vs-rest problems).
    t_ : float
        Number of sample visits plus one.
    n_updates_ : ndarray of shape (1,) or (n_classes,)
        Total number of updates (mistakes) of each binary perceptron, over
        all epochs (and all ``partial_fit`` calls).
    converged_ : bool
        True when the last epoch made no mistake in any binary problem: the
        training data are then separated (100% training accuracy).
    <fitted_feature_attributes>

    See Also
    --------
    SGDClassifier : Other losses, penalties and schedules on the same engine.
    sklearn.linear_model.Perceptron : The reference implementation.

    Notes
    -----
    One epoch costs O(n_samples n_features) time and O(n_features) memory
    per class. ``Perceptron()`` equals ``SGDClassifier(loss="perceptron",
    learning_rate="constant", eta0=1, penalty=None)``; with
    ``shuffle=False`` it makes exactly scikit-learn's updates.

    A ``ConvergenceWarning`` is raised when ``max_iter`` epochs run out while
    ``tol`` is set (as scikit-learn), and also with ``tol=None`` when the last
    epoch still made mistakes (the notes' stopping rule: an epoch without
    mistakes).

    References
    ----------
    F. Rosenblatt, "The perceptron: a probabilistic model for information
    storage and organization in the brain", Psychological Review, 1958.
    A. B. J. Novikoff, "On convergence proofs on perceptrons", 1962.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import Perceptron
    >>> X = np.array([[0.0, 0.0], [1.0, 0.2], [0.1, 1.0], [1.0, 1.0]])
    >>> y = np.array([0, 1, 1, 1])
    >>> clf = Perceptron(tol=None, max_iter=20).fit(X, y)
    >>> clf.predict(X), bool(clf.converged_)
    (array([0, 1, 1, 1]), True)
    """

    _parameter_constraints = {
        **_BaseSGD._parameter_constraints,
        "tol": [Interval(Real, None, None, closed="neither"),
                Options({"no_mistakes"}), None],
        "n_jobs": [Integral, None],
        "class_weight": [Options({"balanced"}), dict, None],
        "max_time": [Interval(Real, 0, None, closed="neither"), None],
        "multi_class": [Options({"ovr", "ovo"})],
    }

    def __init__(
        self,
        *,
        penalty=None,
        alpha=0.0001,
        l1_ratio=0.15,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        shuffle=True,
        verbose=0,
        eta0=1.0,
        n_jobs=None,
        random_state=0,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        class_weight=None,
        warm_start=False,
        max_time=None,
        multi_class="ovr",
    ):
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.eta0 = eta0
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.max_time = max_time
        self.multi_class = multi_class

    def _epoch_stops(self):
        """True when epochs run one by one (the notes' stopping rules)."""
        return self.tol == "no_mistakes" or self.max_time is not None

    def _check_params(self, for_partial_fit=False):
        settings = super()._check_params(for_partial_fit)
        if self._epoch_stops() and self.early_stopping:
            raise ValueError(
                "tol='no_mistakes' and max_time stop on the training epochs; they "
                "do not combine with early_stopping=True."
            )
        return settings

    def _kernel_config(self, max_iter, score_code, sparse=False):
        if self.tol != "no_mistakes":
            return super()._kernel_config(max_iter, score_code, sparse)
        tol = self.tol
        try:
            self.tol = None  # the kernel's loss-plateau rule stays off
            return super()._kernel_config(max_iter, score_code, sparse)
        finally:
            self.tol = tol

    def _train_one(self, X, y, sample_weight, val_mask, w, intercept, avg_w,
                   avg_intercept, seed, cfg, optimizer=None, positive=-1):
        if not self._epoch_stops():
            return super()._train_one(X, y, sample_weight, val_mask, w, intercept,
                                      avg_w, avg_intercept, seed, cfg, optimizer,
                                      positive)
        # One epoch per kernel call, so the stopping rules are checked in
        # between; each epoch gets its own shuffling seed.
        one = cfg._replace(max_iter=1, tol=-np.inf)
        n_iter, n_updates, last = 0, 0, 0
        for epoch in range(cfg.max_iter):
            intercept, avg_intercept, _, n_upd, last = super()._train_one(
                X, y, sample_weight, val_mask, w, intercept, avg_w, avg_intercept,
                (int(seed) + 7919 * epoch) % 2**31, one, optimizer, positive,
            )
            n_iter += 1
            n_updates += n_upd
            if self.tol == "no_mistakes" and last == 0:
                break
            if time.monotonic() >= self._deadline:
                self._timed_out = True
                break
        return intercept, avg_intercept, n_iter, n_updates, last

    def _settings(self):
        return {
            "loss": "perceptron",
            "learning_rate": "constant",
            "eta0": self.eta0,
            "power_t": 0.5,
            "epsilon": 0.1,
            "average": 0,
            "optimizer": "sgd",
            "batch_size": 1,
        }

    def _fit_epochs(self, X, y_enc, sample_weight, max_iter, reset_updates):
        self._timed_out = False
        if not hasattr(self, "_deadline") or reset_updates:
            self._deadline = (np.inf if self.max_time is None
                              else time.monotonic() + self.max_time)
        super()._fit_epochs(X, y_enc, sample_weight, max_iter, reset_updates)
        self.n_updates_ = self._n_updates.copy()
        self.converged_ = bool(np.all(self._last_epoch_updates == 0))

    def _warn_if_not_converged(self):
        if getattr(self, "_timed_out", False) and not self.converged_:
            warnings.warn(
                f"max_time={self.max_time} s ran out after {self.n_iter_} epochs, "
                "before an epoch without mistakes.",
                ConvergenceWarning,
            )
            return
        ran_out = self.n_iter_ == self.max_iter
        if ran_out and (self.tol not in (None, "no_mistakes") or not self.converged_):
            warnings.warn(
                "Maximum number of iteration reached before convergence "
                f"(converged_={self.converged_}). Consider increasing max_iter to "
                "improve the fit; on data that are not linearly separable the "
                "perceptron never converges.",
                ConvergenceWarning,
            )

    # -- one-vs-one (notes B §3.2) -------------------------------------------

    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the perceptron(s).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels.
        coef_init : ndarray, default=None
            Initial weights (one-vs-rest only).
        intercept_init : ndarray, default=None
            Initial intercepts (one-vs-rest only).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights.

        Returns
        -------
        self : Perceptron
        """
        self._ovo = False
        if self.multi_class != "ovo":
            return super().fit(X, y, coef_init, intercept_init, sample_weight)
        self._check_params()
        X_in, y_in, sample_weight_in = X, y, sample_weight
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             order="C")
        sample_weight = check_sample_weight(sample_weight, X)
        classes, y_enc = encode_labels(y, sample_weight=sample_weight)
        if len(classes) == 2:  # one perceptron: the one-vs-rest fit
            return super().fit(X_in, y_in, coef_init, intercept_init, sample_weight_in)
        if coef_init is not None or intercept_init is not None:
            raise ValueError("coef_init and intercept_init are one-vs-rest only; "
                             "multi_class='ovo' starts every pair from zero.")
        start = time.monotonic()
        self.classes_ = classes
        self._pair_models = {}
        for a, b in self._pairs():
            params = {}
            if self.max_time is not None:
                params["max_time"] = max(self.max_time - (time.monotonic() - start), 1e-9)
            self._pair_step(X, y_enc, sample_weight, a, b, "fit", params)
        self._collect_pairs(X.shape[0])
        if not self.converged_:
            warnings.warn(
                "Some pairwise perceptrons ended on an epoch with mistakes "
                f"(converged_={self.converged_}); on classes that are not linearly "
                "separable the perceptron never converges.",
                ConvergenceWarning,
            )
        return self

    def _pairs(self):
        n_classes = len(self.classes_)
        return [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]

    def _pair_step(self, X, y_enc, sample_weight, a, b, method, params):
        """``fit`` or ``partial_fit`` the perceptron of the pair ``(a, b)``.

        It sees the rows of classes ``a`` and ``b`` only, with label 1 for
        ``a``, so that a positive score means ``a``.
        """
        rows = (y_enc == a) | (y_enc == b)
        if not rows.any():
            return
        model = self._pair_models.get((a, b))
        if model is None or method == "fit":
            params = {"multi_class": "ovr", "warm_start": False, **params}
            if isinstance(self.class_weight, dict):
                cw = self.class_weight
                params["class_weight"] = {
                    label: cw[self.classes_[c]] for label, c in ((1, a), (0, b))
                    if self.classes_[c] in cw}
            model = clone(self).set_params(**params)
            self._pair_models[(a, b)] = model
        labels = (y_enc[rows] == a).astype(np.int64)
        with warnings.catch_warnings():
            # the pairs' convergence is reported once, for the whole model
            warnings.simplefilter("ignore", ConvergenceWarning)
            if method == "fit":
                model.fit(X[rows], labels, sample_weight=sample_weight[rows])
            else:
                model.partial_fit(X[rows], labels, classes=np.array([0, 1]),
                                  sample_weight=sample_weight[rows])

    def _collect_pairs(self, n_samples):
        """``coef_``, ``intercept_`` and counters from the pairwise models."""
        coefs, intercepts, n_iter, n_updates, converged = [], [], 0, [], True
        for pair in self._pairs():
            model = self._pair_models.get(pair)
            if model is None:  # no row of either class seen yet
                coefs.append(np.zeros(self.n_features_in_))
                intercepts.append(0.0)
                n_updates.append(0)
                converged = False
                continue
            coefs.append(model.coef_[0])
            intercepts.append(model.intercept_[0])
            n_iter = max(n_iter, model.n_iter_)
            n_updates.append(int(model.n_updates_[0]))
            converged &= model.converged_
        self.coef_ = np.array(coefs)
        self.intercept_ = np.array(intercepts)
        self.n_iter_ = int(n_iter)
        self.n_updates_ = np.array(n_updates, dtype=np.int64)
        self.converged_ = bool(converged)
        self.t_ = float(n_iter * n_samples + 1)
        self._ovo = True

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch on the given samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All the classes; required at the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : Perceptron
        """
        first = not hasattr(self, "classes_")
        ovo = self.multi_class == "ovo" and (
            (first and classes is not None and len(np.unique(classes)) > 2)
            or getattr(self, "_ovo", False))
        if not ovo:
            self._ovo = False
            return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        self._check_params(for_partial_fit=True)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             order="C", reset=first)
        sample_weight = check_sample_weight(sample_weight, X)
        if first:
            self.classes_ = np.unique(classes)
            self._pair_models = {}
        elif classes is not None and not np.array_equal(np.unique(classes),
                                                        self.classes_):
            raise ValueError(
                f"classes={classes!r} differs from the classes of the first "
                f"partial_fit call, {self.classes_!r}."
            )
        unknown = ~np.isin(y, self.classes_)
        if unknown.any():
            raise ValueError(
                f"y holds labels {np.unique(y[unknown])!r} that are not in classes "
                f"{self.classes_!r}."
            )
        y_enc = np.searchsorted(self.classes_, y)
        for a, b in self._pairs():
            self._pair_step(X, y_enc, sample_weight, a, b, "partial_fit", {})
        self._collect_pairs(X.shape[0])
        return self

    @fill_doc(
        predict_doc=predict_doc("scores : ndarray of shape (n_samples,) or (n_samples, n_classes)")
    )
    def decision_function(self, X):
        """Scores: ``<x, w> + b`` per class (or, "ovo", votes plus confidences).

        <predict_doc>
        """
        if not getattr(self, "_ovo", False):
            return super().decision_function(X)
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        pair_scores = np.asarray(X @ self.coef_.T) + self.intercept_
        n_classes = len(self.classes_)
        votes = np.zeros((X.shape[0], n_classes))
        confidence = np.zeros((X.shape[0], n_classes))
        k = 0
        for a in range(n_classes):
            for b in range(a + 1, n_classes):
                wins_a = pair_scores[:, k] > 0  # a score of 0 is a mistake: b
                votes[wins_a, a] += 1
                votes[~wins_a, b] += 1
                confidence[:, a] += pair_scores[:, k]
                confidence[:, b] -= pair_scores[:, k]
                k += 1
        return votes + confidence / (3 * (np.abs(confidence) + 1))

    @fill_doc(predict_doc=predict_doc("y_pred : ndarray of shape (n_samples,)"))
    def predict(self, X):
        """Class labels (argmax of ``decision_function``).

        <predict_doc>
        """
        if not getattr(self, "_ovo", False):
            return super().predict(X)
        return self.classes_[np.argmax(self.decision_function(X), axis=1)]
