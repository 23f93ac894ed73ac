"""The perceptron (notes B §3.1-3.2): mistake-driven updates, one-vs-rest."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skml.utils import Options

from ._stochastic_gradient import _BaseSGD, _BaseSGDClassifier

__all__ = ["Perceptron"]


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
    rest, predicting the argmax of the scores (notes B §3.2).

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
    tol : float or None, default=1e-3
        Stop when the epoch's average loss has not improved by ``tol`` for
        ``n_iter_no_change`` epochs (scikit-learn's rule). None runs
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

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
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
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names, when ``X`` has string column names.

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
        "n_jobs": [Integral, None],
        "class_weight": [Options({"balanced"}), dict, None],
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
        super()._fit_epochs(X, y_enc, sample_weight, max_iter, reset_updates)
        self.n_updates_ = self._n_updates.copy()
        self.converged_ = bool(np.all(self._last_epoch_updates == 0))

    def _warn_if_not_converged(self):
        ran_out = self.n_iter_ == self.max_iter
        if ran_out and (self.tol is not None or not self.converged_):
            warnings.warn(
                "Maximum number of iteration reached before convergence "
                f"(converged_={self.converged_}). Consider increasing max_iter to "
                "improve the fit; on data that are not linearly separable the "
                "perceptron never converges.",
                ConvergenceWarning,
            )
