"""Linear classifiers and regressors trained by stochastic gradient descent.

Notes B §5.6 (SVM by sub-gradient), §6.2 (stochastic and mini-batch gradient
descent) and §6.3 (step-size schedules). Two training paths share one
estimator API:

- ``optimizer="sgd"`` (default): classic per-sample SGD (Bottou's, as
  scikit-learn's), whole epochs in one numba call
  (:func:`skml.linear_model._sgd_kernels.plain_sgd`), with the ``w = wscale v``
  trick for the L2 penalty and the cumulative truncated-gradient L1 penalty.
- any other name of :data:`skml.optim.OPTIMIZERS` ("momentum", "adam", ...):
  mini-batches of ``batch_size`` in numpy, each step taken by that
  :mod:`skml.optim` optimiser under the chosen schedule.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.optim import (
    OPTIMIZERS,
    Constant,
    EpochRate,
    InverseScaling,
    PlateauStopper,
    get_optimizer,
)
from skml.utils import (
    Interval,
    Options,
    check_sample_weight,
    encode_labels,
    validate_params,
)
from skml.utils._magnitude import (
    SAFE_MAGNITUDE,
    check_trainable_magnitude,
    far_offset,
    max_abs,
)

from . import _sgd_kernels as K
from ._base import (
    LinearClassifierMixin,
    LinearRegressorMixin,
    SparseCoefMixin,
    class_weights_from_dict,
)

__all__ = ["SGDClassifier", "SGDRegressor"]

# SGDRegressor's fit has diverged when its training predictions exceed the
# largest |y| this many times (a sound fit stays within a few times).
_DIVERGED = 1e6

LOSSES = {
    "hinge": K.HINGE,
    "perceptron": K.PERCEPTRON,
    "squared_hinge": K.SQUARED_HINGE,
    "log_loss": K.LOG_LOSS,
    "modified_huber": K.MODIFIED_HUBER,
    "squared_error": K.SQUARED_ERROR,
    "huber": K.HUBER,
    "epsilon_insensitive": K.EPSILON_INSENSITIVE,
    "squared_epsilon_insensitive": K.SQUARED_EPSILON_INSENSITIVE,
}
REGRESSION_LOSSES = (
    "squared_error", "huber", "epsilon_insensitive", "squared_epsilon_insensitive"
)
from ..utils._docstrings import (
    FITTED_FEATURE_ATTRIBUTES,
    fill_doc,
    predict_doc,
    returns_self,
    x_parameter,
)
from ..utils.validation import validate_data
PENALTIES = {None: K.NO_PENALTY, "l1": K.L1, "l2": K.L2, "elasticnet": K.ELASTICNET}
LEARNING_RATES = {
    "constant": K.CONSTANT,
    "optimal": K.OPTIMAL,
    "invscaling": K.INVSCALING,
    "adaptive": K.ADAPTIVE,
}
# On sparse input the plain path scales each intercept step by this factor,
# as scikit-learn does: the intercept is updated at every sample while a
# sparse feature's weight moves only at the samples that store it, so an
# unscaled intercept would take most of the early signal.
SPARSE_INTERCEPT_DECAY = 0.01
# The attributes holding an SGD fit's weights (see _BaseSGD._init_state).
_STATE_NAMES = ("_coef", "_intercept", "_standard_coef", "_standard_intercept",
                "_average_coef", "_average_intercept")
# Seeds are drawn below 2**31 - 1 as scikit-learn does (a C long on Windows).
MAX_INT = np.iinfo(np.int32).max
# scikit-learn's words for an early-stopping split whose validation rows all
# have zero weight (its tests match them).
VALIDATION_WEIGHTS_ZERO = (
    "The sample weights for validation set are all zero, consider using a "
    "different random state."
)


# --------------------------------------------------------------------------
# Mini-batch path (optimizer != "sgd")
# --------------------------------------------------------------------------

def _loss_and_derivative(code, y, p, epsilon):
    """Vectorised loss values and derivatives dL/dp, as in the numba kernel."""
    z = y * p
    if code == K.HINGE or code == K.PERCEPTRON:
        margin = 1.0 if code == K.HINGE else 0.0
        active = z <= margin
        return np.where(active, margin - z, 0.0), np.where(active, -y, 0.0)
    if code == K.SQUARED_HINGE:
        r = np.maximum(1.0 - z, 0.0)
        return r * r, -2.0 * y * r
    if code == K.LOG_LOSS:
        return np.logaddexp(0.0, -z), -y / (1.0 + np.exp(np.clip(z, -700.0, 700.0)))
    if code == K.MODIFIED_HUBER:
        loss = np.where(z >= 1.0, 0.0, np.where(z >= -1.0, (1.0 - z) ** 2, -4.0 * z))
        grad = np.where(
            z >= 1.0, 0.0, np.where(z >= -1.0, -2.0 * (1.0 - z) * y, -4.0 * y)
        )
        return loss, grad
    r = p - y
    a = np.abs(r)
    if code == K.SQUARED_ERROR:
        return 0.5 * r * r, r
    if code == K.HUBER:
        small = a <= epsilon
        loss = np.where(small, 0.5 * r * r, epsilon * (a - 0.5 * epsilon))
        return loss, np.where(small, r, epsilon * np.sign(r))
    excess = np.maximum(a - epsilon, 0.0)
    if code == K.EPSILON_INSENSITIVE:
        return excess, np.sign(r) * (excess > 0)
    return excess * excess, 2.0 * np.sign(r) * excess


def _make_schedule(settings):
    """The learning-rate schedule of the mini-batch path (``t`` counts steps).

    "optimal" becomes the constant ``eta0``: Bottou's ``1/(alpha t)`` rule is
    tuned for per-sample plain SGD, and its large first steps would undo the
    per-coordinate scaling of the adaptive optimisers. "adaptive" is an
    :class:`~skml.optim.EpochRate` that the plateau rule divides by 5.
    """
    rate, eta0 = settings["learning_rate"], settings["eta0"]
    if rate == "invscaling":
        return InverseScaling(eta0, power_t=settings["power_t"])
    if rate == "adaptive":
        return EpochRate(eta0)
    return Constant(eta0)


def _plateau_stopper(cfg, rate):
    """The epoch rule of an SGD fit: shrink an adaptive rate, else stop, on plateaus.

    The training objective (or, with early stopping, the validation score)
    must improve by ``tol`` within ``n_iter_no_change`` epochs; an
    :class:`~skml.optim.EpochRate` (``learning_rate="adaptive"``) is then
    divided by 5 until it reaches 1e-6. ``tol=-inf`` (``tol=None``) never
    fires.
    """
    adaptive = isinstance(rate, EpochRate)
    return PlateauStopper(
        cfg.n_iter_no_change,
        None if cfg.tol == -np.inf else cfg.tol,
        mode="max" if cfg.early_stopping else "min",
        action="shrink" if adaptive else "stop",
        rate=rate if adaptive else None,
        divisor=5.0,
        min_rate=1e-6,
    )


def _minibatch_sgd(
    X, y, sample_weight, train_idx, w, intercept, opt, seed, cfg, validation,
    batch_size,
):
    """Mini-batch training with an :mod:`skml.optim` optimiser; mirrors ``plain_sgd``.

    Each step uses the gradient of
    ``(1/|B|) sum_{i in B} s_i L(y_i, p_i) + alpha R(w)``; the L1 part of
    ``R`` enters as the sub-gradient ``l1_ratio sign(w)`` (no exact zeros).
    ``w`` is updated in place; returns like ``plain_sgd`` (no averaging).
    ``cfg`` is the kernel's :data:`~skml.linear_model._sgd_kernels.SGDConfig`
    (its averaging and verbosity fields are not used here).
    """
    loss_code, epsilon, penalty_code = cfg.loss, cfg.epsilon, cfg.penalty
    alpha, l1_ratio, fit_intercept = cfg.alpha, cfg.l1_ratio, cfg.fit_intercept
    tol, early_stopping = cfg.tol, cfg.early_stopping
    if penalty_code == K.L2:
        l1_ratio = 0.0
    elif penalty_code == K.L1:
        l1_ratio = 1.0
    n_features = w.shape[0]
    # One parameter array (weights then intercept): one optimiser call a step.
    theta = np.append(w, intercept)
    grad = np.zeros_like(theta)
    rng = np.random.RandomState(seed)
    X_train, y_train, sw_train = X[train_idx], y[train_idx], sample_weight[train_idx]
    n_train = train_idx.shape[0]
    need_objective = not early_stopping and tol > -np.inf
    l2_weight, l1_weight = alpha * (1.0 - l1_ratio), alpha * l1_ratio
    stopper = _plateau_stopper(cfg, opt.learning_rate)
    status = 0
    epoch = 0
    for epoch in range(cfg.max_iter):
        if cfg.shuffle:
            # A contiguous copy in the epoch's order: batches are then slices.
            order = rng.permutation(n_train)
            Xe, ye, swe = X_train[order], y_train[order], sw_train[order]
        else:
            Xe, ye, swe = X_train, y_train, sw_train
        objective_sum = 0.0
        for start in range(0, n_train, batch_size):
            stop = start + batch_size
            Xb = Xe[start:stop]
            nb = Xb.shape[0]
            coef = theta[:n_features]
            loss, dloss = _loss_and_derivative(
                loss_code, ye[start:stop], Xb @ coef + theta[-1], epsilon
            )
            g = dloss * swe[start:stop]
            g /= nb
            if sp.issparse(Xb):
                grad[:n_features] = Xb.T @ g
            else:
                np.dot(g, Xb, out=grad[:n_features])
            grad[-1] = g.sum() if fit_intercept else 0.0
            if need_objective:
                objective_sum += loss.sum()
            if penalty_code != K.NO_PENALTY:
                grad[:n_features] += l2_weight * coef
                if l1_weight:
                    grad[:n_features] += l1_weight * np.sign(coef)
                if need_objective:
                    objective_sum += nb * (
                        0.5 * l2_weight * (coef @ coef) + l1_weight * np.abs(coef).sum()
                    )
            opt.step([theta], [grad])
        if not np.all(np.isfinite(theta)):
            status = 1
            break
        if early_stopping:
            value = K._validation_score(
                K.as_rows(validation.X), validation.y, validation.sample_weight,
                theta[:n_features].copy(), 1.0, theta[-1], cfg.score,
            )
        else:
            value = objective_sum / max(n_train, 1)
        if stopper.update(value):
            break
    w[:] = theta[:n_features]
    # Updates are not counted per sample on this path (only the Perceptron,
    # which always runs the kernel, reports them).
    return float(theta[-1]), epoch + 1, 0, 0, status


# --------------------------------------------------------------------------
# Shared base
# --------------------------------------------------------------------------


class _BaseSGD(BaseEstimator):
    """Parameter checks, the validation split and one weight vector's training.

    Subclasses describe their effective settings in ``_settings()`` (the
    Perceptron fixes the loss and the schedule) and own the labels/targets.
    """

    # The losses the estimator accepts (listed by ``loss_functions``).
    _loss_names = tuple(LOSSES)

    _parameter_constraints = {
        "penalty": [Options({"l2", "l1", "elasticnet"}), None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "warm_start": ["boolean"],
    }
    _sgd_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "learning_rate": [Options(set(LEARNING_RATES))],
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
        # Negative values are deprecated (a FutureWarning, as scikit-learn 1.9).
        "power_t": [Interval(Real, None, None, closed="neither")],
        "average": [Interval(Integral, 0, None, closed="neither"), "boolean"],
        "optimizer": [Options(set(OPTIMIZERS))],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
    }

    def _settings(self):
        return {
            "loss": self.loss,
            "learning_rate": self.learning_rate,
            "eta0": self.eta0,
            "power_t": self.power_t,
            "epsilon": self.epsilon,
            "average": int(self.average),
            "optimizer": self.optimizer,
            "batch_size": self.batch_size,
        }

    def _check_params(self, for_partial_fit=False):
        """Validate the parameters; returns the effective settings (``_settings()``)."""
        validate_params(self)
        s = self._settings()
        if self.early_stopping and for_partial_fit:
            raise ValueError("early_stopping should be False with partial_fit.")
        if s["learning_rate"] == "optimal" and self.alpha == 0:
            raise ValueError(
                "alpha must be > 0 since learning_rate is 'optimal'; alpha is used "
                "to compute the optimal learning rate."
            )
        if s["power_t"] < 0:
            warnings.warn(
                "Negative values for `power_t` are deprecated in version 1.8 and "
                "will raise an error in 1.10. Use values in the range [0.0, inf) "
                "instead.",
                FutureWarning,
            )
        if self.penalty == "elasticnet" and self.l1_ratio is None:
            raise ValueError("l1_ratio must be set when penalty is 'elasticnet'.")
        if s["average"] and s["optimizer"] != "sgd":
            raise ValueError(
                f"average={self.average!r} is only supported with optimizer='sgd', "
                f"got optimizer={s['optimizer']!r}."
            )
        return s

    def _validation_mask(self, y, sample_weight, stratify):
        """Boolean mask of the early-stopping validation rows (all False without)."""
        n_samples = y.shape[0]
        mask = np.zeros(n_samples, dtype=bool)
        if not self.early_stopping:
            return mask
        splitter = StratifiedShuffleSplit if stratify else ShuffleSplit
        cv = splitter(
            test_size=self.validation_fraction, random_state=self.random_state
        )
        try:
            idx_train, idx_val = next(cv.split(np.zeros((n_samples, 1)), y))
        except ValueError as exc:
            raise ValueError(
                f"Splitting {n_samples} samples into a train set and a validation "
                f"set with validation_fraction={self.validation_fraction!r} failed "
                f"({exc}). "
                "Increase the number of samples, change validation_fraction, or "
                "disable early_stopping."
            ) from exc
        if idx_train.shape[0] == 0 or idx_val.shape[0] == 0:
            raise ValueError(
                f"Splitting {n_samples} samples with validation_fraction="
                f"{self.validation_fraction!r} led to an empty set; increase the "
                "number of samples, change validation_fraction, or disable "
                "early_stopping."
            )
        if not np.any(sample_weight[idx_val] > 0):
            raise ValueError(VALIDATION_WEIGHTS_ZERO)
        mask[idx_val] = True
        return mask

    def _kernel_config(self, max_iter, score_code, sparse=False):
        """The fit's fixed settings as the kernel's ``SGDConfig`` (built once a fit).

        ``sparse``: the rows are CSR, so the intercept steps are scaled by
        :data:`SPARSE_INTERCEPT_DECAY` (plain SGD path only).
        """
        s = self._fit_settings
        return K.SGDConfig(
            loss=LOSSES[s["loss"]],
            epsilon=float(s["epsilon"]),
            penalty=PENALTIES[self.penalty],
            alpha=float(self.alpha),
            # l1_ratio=None is allowed unless penalty="elasticnet" (then unused).
            l1_ratio=0.0 if self.l1_ratio is None else float(self.l1_ratio),
            learning_rate=LEARNING_RATES[s["learning_rate"]],
            eta0=float(s["eta0"]),
            power_t=float(s["power_t"]),
            fit_intercept=bool(self.fit_intercept),
            intercept_decay=SPARSE_INTERCEPT_DECAY if sparse else 1.0,
            average=int(s["average"]),
            max_iter=int(max_iter),
            tol=-np.inf if self.tol is None else float(self.tol),
            n_iter_no_change=int(self.n_iter_no_change),
            shuffle=bool(self.shuffle),
            early_stopping=bool(self.early_stopping),
            score=int(score_code),
            verbose=int(self.verbose),
        )

    def _train_one(
        self, X, y, sample_weight, val_mask, w, intercept, avg_w, avg_intercept,
        seed, cfg, optimizer=None, positive=-1,
    ):
        """Train one weight vector ``w`` in place; returns the kernel's summary.

        ``y`` holds float targets, or (plain SGD path only) integer class
        codes that the kernel reads as +1 for ``positive``, -1 otherwise.
        """
        codes = y.dtype.kind != "f"
        # The epoch order, shuffled in place by the kernel: int32 below 2**31
        # rows (half the memory of intp; the same permutations).
        n_samples = val_mask.shape[0]
        index_dtype = np.int32 if n_samples < 2**31 else np.int64
        if val_mask.any():
            train_idx = np.flatnonzero(~val_mask).astype(index_dtype)
        else:
            train_idx = np.arange(n_samples, dtype=index_dtype)
        X_val = X[val_mask]
        if self._fit_settings["optimizer"] == "sgd":
            X_val = K.as_rows(X_val)
        y_val = y[val_mask]
        if codes:
            y_val = np.where(y_val == positive, 1.0, -1.0)
        validation = K.Validation(X_val, y_val, sample_weight[val_mask])
        if self._fit_settings["optimizer"] != "sgd":
            intercept, n_iter, n_upd, last, status = _minibatch_sgd(
                X, y, sample_weight, train_idx, w, intercept, optimizer, seed, cfg,
                validation, self._fit_settings["batch_size"],
            )
        else:
            intercept, avg_intercept, n_iter, t_end, n_upd, last, status = (
                K.plain_sgd(
                    K.as_rows(X), K.OneVsRest(y, int(positive)) if codes else y,
                    sample_weight, train_idx, w, float(intercept), avg_w,
                    float(avg_intercept), float(self.t_), int(seed), cfg, validation,
                )
            )
        if status:
            raise ValueError(
                f"Floating-point under-/overflow occurred at epoch #{n_iter}. "
                "Scaling input data with StandardScaler or MinMaxScaler might help."
            )
        return intercept, avg_intercept, n_iter, n_upd, last

    def _check_magnitude(self, X):
        """ValueError for data whose magnitude fixed step sizes cannot fit.

        Each update moves the weights by about ``eta * x``: at X * 1e300 the
        weights reach 1e300 and the scores overflow, at X * 1e-300 they never
        move. Unlike a closed-form fit the result is not scale-equivariant,
        so the data are refused rather than rescaled behind the user's back.
        """
        fate = "overflow" if max_abs(X) > SAFE_MAGNITUDE[1] else "never move"
        try:
            check_trainable_magnitude(
                X, type(self).__name__, check_offset=False,
                advice=f"Its weights would {fate}.",
            )
        except ValueError as exc:
            # scikit-learn's wording (its tests match it), which it raises
            # once the weights have overflowed; here known before epoch 1.
            raise ValueError(
                "Floating-point under-/overflow occurred at epoch #0 (found before "
                f"the first epoch: {exc}) Scaling input data with StandardScaler "
                "or MinMaxScaler might help."
            ) from None

    def _check_sample_weight(self, sample_weight, X):
        """:func:`check_sample_weight`, where with early stopping all-zero
        weights fail as the validation split would (scikit-learn's order and
        message: the validation rows are then all zero too)."""
        sample_weight = check_sample_weight(
            sample_weight, X, allow_all_zero=bool(self.early_stopping)
        )
        if not np.any(sample_weight):
            raise ValueError(
                f"{VALIDATION_WEIGHTS_ZERO} Here every sample weight is zero: give "
                "some samples a positive weight."
            )
        return sample_weight

    def _validate_training_data(self, X, y, reset, **kwargs):
        """Checked ``X`` (float64, CSR or C-ordered) and ``y``.

        Training always runs in float64; a float32 ``X`` at ``reset`` makes
        ``coef_`` and ``intercept_`` float32 (``_coef_dtype``), as
        scikit-learn keeps float32 input in float32.
        """
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32],
            order="C", reset=reset, **kwargs,
        )
        if reset:
            self._coef_dtype = X.dtype
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        return X, y

    def _new_optimizer(self):
        s = self._fit_settings
        return get_optimizer(s["optimizer"], learning_rate=_make_schedule(s))

    def _init_state(self, n_rows, n_features, coef_init, intercept_init):
        """Fresh (or user-initialised) weights, averages and optimisers."""
        coef = np.zeros((n_rows, n_features))
        intercept = np.zeros(n_rows)
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=np.float64)
            if coef_init.size != coef.size:
                raise ValueError(
                    "Provided coef_init does not match dataset: it has shape "
                    f"{coef_init.shape} but the data need "
                    f"{(n_rows, n_features) if n_rows > 1 else (n_features,)}."
                )
            coef[:] = coef_init.reshape(coef.shape)
        if intercept_init is not None:
            intercept_init = np.asarray(intercept_init, dtype=np.float64)
            if intercept_init.size != n_rows:
                raise ValueError(
                    "Provided intercept_init does not match dataset: it has shape "
                    f"{intercept_init.shape} but the data need {n_rows} "
                    "intercept(s)."
                )
            intercept[:] = intercept_init.ravel()
        for name in _STATE_NAMES:
            self.__dict__.pop(name, None)
        # The running averages exist only when averaging: n_features fewer
        # floats per binary problem (issue 20). As in scikit-learn, an
        # averaging fit keeps its plain iterate as _standard_coef /
        # _standard_intercept beside the means _average_coef /
        # _average_intercept; a plain fit has only _coef / _intercept.
        # _state_for_fit adds the averages when average is switched on
        # between partial_fit calls.
        if self._fit_settings["average"]:
            self._standard_coef, self._standard_intercept = coef, intercept
            self._average_coef = np.zeros_like(coef)
            self._average_intercept = np.zeros_like(intercept)
        else:
            self._coef, self._intercept = coef, intercept
        self._optimizers = (
            [self._new_optimizer() for _ in range(n_rows)]
            if self._fit_settings["optimizer"] != "sgd"
            else None
        )

    def _state(self):
        """(plain weight rows, plain intercepts, average rows, average intercepts).

        Without averaging the last two are placeholders the kernel never
        reads (zero-width rows).
        """
        if hasattr(self, "_average_coef"):
            return (self._standard_coef, self._standard_intercept,
                    self._average_coef, self._average_intercept)
        n_rows = self._coef.shape[0]
        return self._coef, self._intercept, np.zeros((n_rows, 0)), np.zeros(n_rows)

    def _state_for_fit(self):
        """:meth:`_state`, the averages allocated (as zeros) if averaging starts now."""
        if self._fit_settings["average"] and not hasattr(self, "_average_coef"):
            self._standard_coef = self.__dict__.pop("_coef")
            self._standard_intercept = self.__dict__.pop("_intercept")
            self._average_coef = np.zeros_like(self._standard_coef)
            self._average_intercept = np.zeros_like(self._standard_intercept)
        return self._state()

    def _publish(self):
        """Expose the averaged or the plain weights as ``coef_``/``intercept_``.

        The arrays themselves, not copies (issue 20: a copy would be the
        fit's largest allocation on wide sparse data): as in scikit-learn,
        ``partial_fit`` then updates ``coef_`` in place, while ``fit`` starts
        from new arrays.
        """
        average = self._fit_settings["average"]
        use_avg = 0 < average <= self.t_ - 1
        coef, intercept, avg_coef, avg_intercept = self._state()
        if use_avg:
            coef, intercept = avg_coef, avg_intercept
        # A float32 fit publishes float32 copies (the float64 state trains on).
        dtype = getattr(self, "_coef_dtype", np.float64)
        return coef.astype(dtype, copy=False), intercept.astype(dtype, copy=False)

    @property
    def loss_functions(self):
        """Each loss this estimator accepts -> (kernel loss code, its parameters).

        The parameter is the margin of "hinge"/"squared_hinge" (1) and
        "perceptron" (0), and the current ``epsilon`` of "huber" and the
        epsilon-insensitive losses; the other losses have none.
        """
        margins = {"hinge": 1.0, "squared_hinge": 1.0, "perceptron": 0.0}
        table = {}
        for name in self._loss_names:
            if name in margins:
                table[name] = (LOSSES[name], margins[name])
            elif name in ("huber", "epsilon_insensitive",
                          "squared_epsilon_insensitive"):
                table[name] = (LOSSES[name], getattr(self, "epsilon", 0.1))
            else:
                table[name] = (LOSSES[name],)
        return table

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _warn_if_not_converged(self):
        if self.tol is not None and self.n_iter_ == self.max_iter:
            warnings.warn(
                "Maximum number of iteration reached before convergence. Consider "
                "increasing max_iter to improve the fit.",
                ConvergenceWarning,
            )


# --------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------


class _BaseSGDClassifier(LinearClassifierMixin, _BaseSGD):
    """One-vs-rest linear classification by SGD (SGDClassifier and Perceptron)."""

    @fill_doc(x_parameter=x_parameter(), returns_self=returns_self())
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the linear model by stochastic gradient descent.

        <x_parameter>
        y : array-like of shape (n_samples,)
            Class labels.
        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial weights (``(1, n_features)`` or ``(n_features,)`` for two
            classes).
        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights, multiplied with ``class_weight``.

        <returns_self>
        """
        self._fit_settings = self._check_params()
        X, y = self._validate_training_data(X, y, reset=True)
        sample_weight = self._check_sample_weight(sample_weight, X)
        classes, y_enc = encode_labels(y, sample_weight=sample_weight)
        n_rows = 1 if len(classes) == 2 else len(classes)
        if (
            self.warm_start
            and hasattr(self, "coef_")
            and coef_init is None
            and self.coef_.shape == (n_rows, X.shape[1])
        ):
            coef_init, intercept_init = self.coef_, self.intercept_
        self.classes_ = classes
        self.t_ = 1.0
        self._init_state(n_rows, X.shape[1], coef_init, intercept_init)
        self._fit_epochs(X, y_enc, sample_weight, self.max_iter, reset_updates=True)
        self._warn_if_not_converged()
        return self

    @fill_doc(
        x_parameter=x_parameter("A batch of training data."),
        returns_self=returns_self("The updated estimator."),
    )
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one epoch of SGD on the given samples.

        <x_parameter>
        y : array-like of shape (n_samples,)
            Its class labels.
        classes : array-like of shape (n_classes,), default=None
            Every class of the whole stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights.

        <returns_self>
        """
        first_call = not hasattr(self, "classes_")
        if first_call:
            self._fit_settings = self._check_params(for_partial_fit=True)
            if classes is None:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit."
                )
            if self.class_weight == "balanced":
                # scikit-learn's wording, which its tests match.
                raise ValueError(
                    "class_weight 'balanced' is not supported for partial_fit. In "
                    "order to use 'balanced' weights, use "
                    "compute_class_weight('balanced', classes=classes, y=y). In "
                    "place of y you can use a large enough sample of the full "
                    "training set target to properly estimate the class frequency "
                    "distributions. Pass the resulting weights as the class_weight "
                    "parameter."
                )
        else:
            check_is_fitted(self)
            self._fit_settings = self._settings()
            if classes is not None and not np.array_equal(
                np.unique(classes), self.classes_
            ):
                raise ValueError(
                    f"classes={classes!r} differs from the classes of the first "
                    f"call to partial_fit, {self.classes_!r}."
                )
        X, y = self._validate_training_data(X, y, reset=first_call)
        check_classification_targets(y)
        sample_weight = self._check_sample_weight(sample_weight, X)
        if first_call:
            all_classes = np.unique(np.asarray(classes))
            if all_classes.shape[0] < 2:
                raise ValueError(
                    f"classes must hold at least 2 classes, got {all_classes!r}."
                )
            self.classes_ = all_classes
            self.t_ = 1.0
            n_rows = 1 if len(all_classes) == 2 else len(all_classes)
            self._init_state(n_rows, X.shape[1], None, None)
        y_enc = np.searchsorted(self.classes_, y)
        unknown = (y_enc >= len(self.classes_)) | (
            self.classes_[np.minimum(y_enc, len(self.classes_) - 1)] != y
        )
        if np.any(unknown):
            raise ValueError(
                f"y holds labels {np.unique(y[unknown])!r} that are not in "
                f"classes {self.classes_!r}."
            )
        self._fit_epochs(X, y_enc, sample_weight, 1, reset_updates=first_call)
        return self

    def _fit_epochs(self, X, y_enc, sample_weight, max_iter, reset_updates):
        """Run the binary problems (one, or one per class) for ``max_iter`` epochs."""
        n_classes = len(self.classes_)
        class_weight = self._class_weights(y_enc)
        val_mask = self._validation_mask(y_enc, sample_weight, stratify=True)
        rng = check_random_state(self.random_state)
        self._check_magnitude(X)
        coef, intercepts, avg_coef, avg_intercepts = self._state_for_fit()
        n_rows = coef.shape[0]
        seeds = rng.randint(MAX_INT, size=n_rows)
        cfg = self._kernel_config(max_iter, K.SCORE_ACCURACY, sparse=sp.issparse(X))

        def job(k):
            positive = 1 if n_classes == 2 else k
            # The compiled path reads the class codes as +-1 itself: no
            # n_samples copy per binary problem (issue 20).
            y_k = y_enc
            if self._optimizers is not None:
                y_k = np.where(y_enc == positive, 1.0, -1.0)
            # scikit-learn's convention: one-vs-rest negatives keep weight 1.
            neg_weight = class_weight[0] if n_classes == 2 else 1.0
            if class_weight[positive] == 1.0 and neg_weight == 1.0:
                sw_k = sample_weight  # the product would be an equal copy
            else:
                sw_k = sample_weight * np.where(
                    y_enc == positive, class_weight[positive], neg_weight
                )
            opt = None if self._optimizers is None else self._optimizers[k]
            return self._train_one(
                X, y_k, sw_k, val_mask, coef[k], intercepts[k],
                avg_coef[k], avg_intercepts[k], seeds[k], cfg,
                optimizer=opt, positive=positive,
            )

        if n_rows == 1:
            results = [job(0)]
        else:
            results = Parallel(n_jobs=self.n_jobs, require="sharedmem")(
                delayed(job)(k) for k in range(n_rows)
            )
        n_iter = 0
        n_updates = np.zeros(n_rows, dtype=np.int64)
        last_updates = np.zeros(n_rows, dtype=np.int64)
        for k, (intercept, avg_intercept, n_iter_k, n_upd, last) in enumerate(results):
            intercepts[k] = intercept
            avg_intercepts[k] = avg_intercept
            n_iter = max(n_iter, n_iter_k)
            n_updates[k], last_updates[k] = n_upd, last
        self.n_iter_ = int(n_iter)
        self.t_ += n_iter * X.shape[0]
        self.coef_, self.intercept_ = self._publish()
        self._n_updates = n_updates if reset_updates else self._n_updates + n_updates
        self._last_epoch_updates = last_updates

    def _class_weights(self, y_enc):
        """Weight of each class: ones, "balanced" (n / (k n_c)), or from a dict."""
        n_classes = len(self.classes_)
        if self.class_weight is None:
            return np.ones(n_classes)
        if self.class_weight == "balanced":
            counts = np.bincount(y_enc, minlength=n_classes).astype(np.float64)
            with np.errstate(divide="ignore"):
                return np.where(counts > 0, len(y_enc) / (n_classes * counts), 1.0)
        return class_weights_from_dict(self.class_weight, self.classes_)


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class SGDClassifier(_BaseSGDClassifier):
    """Linear classifier (SVM, logistic regression, ...) trained by SGD.

    Minimises the regularised empirical risk
    ``(1/n) sum_i s_i L(y_i, <w, x_i> + b) + alpha R(w)`` over a linear score,
    one sample at a time (notes B §6.2), with the loss ``L`` of a linear SVM
    (hinge, notes B §5.6), logistic regression, the perceptron (§3.1) or a
    smooth variant, and ``R(w) = (1 - l1_ratio)/2 ||w||^2 + l1_ratio ||w||_1``.
    More than two classes are handled one-vs-rest (notes B §3.2): one binary
    problem per class, in parallel threads with ``n_jobs``.

    Parameters
    ----------
    loss : {"hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron", \
"squared_error", "huber", "epsilon_insensitive", "squared_epsilon_insensitive"}, \
default="hinge"
        The loss ``L``. "hinge" is a linear SVM, "log_loss" logistic
        regression (gives ``predict_proba``), "modified_huber" a smooth hinge
        (also gives probabilities), "perceptron" the notes' mistake loss
        ``max(0, -y p)``; the last four are regression losses on labels +-1.
    penalty : {"l2", "l1", "elasticnet"} or None, default="l2"
        The regulariser ``R``.
    alpha : float, default=1e-4
        Regularisation strength (the notes' ``1/lambda``); also sets the
        "optimal" schedule.
    l1_ratio : float, default=0.15
        Elastic-net mixing, ``0`` is L2 and ``1`` is L1.
    fit_intercept : bool, default=True
        Learn the (unpenalised) intercept ``b``.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the data).
    tol : float or None, default=1e-3
        Stop when the epoch's average objective has not improved by ``tol``
        for ``n_iter_no_change`` epochs (or the validation score, with
        ``early_stopping``). None runs all ``max_iter`` epochs.
    shuffle : bool, default=True
        Shuffle the training rows before each epoch.
    verbose : int, default=0
        Print one line per epoch (plain SGD path).
    epsilon : float, default=0.1
        Width of the "huber" and "epsilon_insensitive" losses.
    n_jobs : int, default=None
        Threads for the one-vs-rest problems (the kernel releases the GIL).
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling and the validation split.
    learning_rate : {"optimal", "constant", "invscaling", "adaptive"}, \
default="optimal"
        Step-size schedule (notes B §6.3): "constant" ``eta0``; "optimal"
        ``1 / (alpha (t0 + t))`` with Bottou's ``t0``; "invscaling"
        ``eta0 / t**power_t``; "adaptive" ``eta0``, divided by 5 each time
        the stopping rule fires, until it falls below 1e-6.
    eta0 : float, default=0.01
        Initial step size (not used by "optimal" on the plain SGD path).
    power_t : float, default=0.5
        Exponent of "invscaling". Negative values are deprecated (a
        FutureWarning, as in scikit-learn 1.8+).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the data (stratified) and stop on
        its accuracy.
    validation_fraction : float, default=0.1
        Size of the held-out set.
    n_iter_no_change : int, default=5
        Epochs without improvement before stopping.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, multiplying the sample weights.
    warm_start : bool, default=False
        Start ``fit`` from the previous solution.
    average : bool or int, default=False
        Averaged SGD (Polyak-Ruppert): report the mean of the iterates from
        step ``average`` on (``True`` = 1). Plain SGD path only.
    optimizer : str, default="sgd"
        "sgd" runs classic per-sample SGD in a compiled kernel. Any other name
        of :data:`skml.optim.OPTIMIZERS` ("momentum", "nesterov", "adagrad",
        "rmsprop", "adadelta", "adam", "adabelief") trains on mini-batches of
        ``batch_size`` with that optimiser, the schedule chosen by
        ``learning_rate`` (the adaptive optimisers take "optimal" as the
        constant ``eta0``).
    batch_size : int, default=32
        Mini-batch size of the optimiser path.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights (one row per class for more than two classes).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    n_iter_ : int
        Epochs run (the largest over the one-vs-rest problems).
    t_ : float
        Number of sample steps taken plus one (``n_iter_ * n_samples + 1``).
    <fitted_feature_attributes>

    See Also
    --------
    Perceptron : SGD with the perceptron loss and a constant step.
    SGDRegressor : The same engine for regression.
    sklearn.linear_model.SGDClassifier : The reference implementation.

    Notes
    -----
    One epoch costs O(n_samples n_features). With the L2 penalty the weights
    are stored as ``w = wscale v``, so the shrinkage ``w <- (1 - eta alpha) w``
    is one multiplication and each step touches only the sample's features.
    Each epoch first copies the training rows in their visiting order into a
    work array (O(n_samples n_features) extra memory per binary problem being
    fitted): the per-sample loop then reads memory sequentially instead of
    waiting on a cache miss at every shuffled row.
    The L1 part uses the cumulative truncated gradient of Tsuruoka et al.
    (2009), as scikit-learn, so weights can be exactly zero.

    Mapping to the notes: ``alpha = 1/lambda`` of the notes' SVM objective
    ``(1/2 lambda) ||w||^2 + (1/n) sum_i l(y_i yhat_i)`` (catalogue B §0.1);
    ``loss="perceptron", learning_rate="constant", eta0=1, penalty=None`` is
    the notes' perceptron. The "optimal" schedule starts with
    ``t0 = 1 / (eta_start alpha)``, ``eta_start = alpha**-0.25``.

    With ``shuffle=False`` the plain path performs the same sequence of
    floating-point updates as scikit-learn; shuffled runs use another random
    generator, so they match scikit-learn in distribution, not exactly. Two
    deliberate differences: early stopping scores the current weights
    ``wscale v`` (scikit-learn scores ``v``) on labels +-1 for every loss.

    Sparse CSR input (CSC and others are converted) is trained on its stored
    entries only: an epoch costs O(nnz) instead of O(n_samples n_features),
    and memory is O(nnz + n_features). As in scikit-learn, each intercept
    step on sparse input is multiplied by 0.01 (the intercept moves at every
    sample, a sparse weight only where the sample stores it); without an
    intercept and an L1 penalty a sparse fit is the dense fit to rounding.
    With L1 the truncation reaches only the features of the current sample,
    as on scikit-learn's sparse path.

    float32 ``X`` is trained in float64 and gives float32 ``coef_`` and
    ``intercept_``.

    The mini-batch path (``optimizer`` other than "sgd") steps on
    ``(1/|B|) sum_B s_i dL/dp x_i + alpha dR/dw`` with the L1 part as the
    sub-gradient ``sign(w)`` (no exact zeros), one optimiser per binary
    problem whose state persists across ``partial_fit`` calls; an epoch costs
    O(n_samples n_features) plus ``n_samples / batch_size`` optimiser steps.

    References
    ----------
    L. Bottou, "Stochastic Gradient Descent Tricks", Neural Networks: Tricks
    of the Trade, 2012.
    Y. Tsuruoka, J. Tsujii, S. Ananiadou, "Stochastic gradient descent
    training for L1-regularized log-linear models", ACL 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import SGDClassifier
    >>> X = np.array([[-1, -1], [-2, -1], [1, 1], [2, 1]])
    >>> y = np.array([1, 1, 2, 2])
    >>> clf = SGDClassifier(random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1]])
    array([1])
    """

    _parameter_constraints = {
        **_BaseSGD._parameter_constraints,
        **_BaseSGD._sgd_constraints,
        "loss": [Options(set(LOSSES))],
        "n_jobs": [Integral, None],
        "class_weight": [Options({"balanced"}), dict, None],
    }

    def __init__(
        self,
        loss="hinge",
        *,
        penalty="l2",
        alpha=0.0001,
        l1_ratio=0.15,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        shuffle=True,
        verbose=0,
        epsilon=0.1,
        n_jobs=None,
        random_state=None,
        learning_rate="optimal",
        eta0=0.01,
        power_t=0.5,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        class_weight=None,
        warm_start=False,
        average=False,
        optimizer="sgd",
        batch_size=32,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.epsilon = epsilon
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.average = average
        self.optimizer = optimizer
        self.batch_size = batch_size

    def _check_proba(self):
        if self.loss not in ("log_loss", "modified_huber"):
            raise AttributeError(
                f"probability estimates are not available for loss={self.loss!r}"
            )
        return True

    @fill_doc(
        predict_doc=predict_doc("proba : ndarray of shape (n_samples, n_classes)")
    )
    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities (loss "log_loss" or "modified_huber").

        Binary: ``sigmoid(score)`` for log loss, ``(clip(score, -1, 1) + 1)/2``
        for modified Huber. More classes: the one-vs-rest binary estimates,
        normalised to sum to one (Zadrozny and Elkan); rows where every
        modified-Huber estimate is 0 get the uniform distribution.

        <predict_doc>
            Probabilities, columns ordered as ``classes_``.
        """
        scores = self.decision_function(X)
        if self.loss == "log_loss":
            prob = expit(scores)
        else:
            prob = (np.clip(scores, -1.0, 1.0) + 1.0) / 2.0
        if prob.ndim == 1:
            return np.column_stack([1.0 - prob, prob])
        total = prob.sum(axis=1, keepdims=True)
        zero = total[:, 0] == 0
        prob[zero] = 1.0
        total[zero] = prob.shape[1]
        return prob / total

    @fill_doc(
        predict_doc=predict_doc("log_proba : ndarray of shape (n_samples, n_classes)")
    )
    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        <predict_doc>
            Log-probabilities (``-inf`` where modified Huber gives 0).
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


# --------------------------------------------------------------------------
# Regression
# --------------------------------------------------------------------------


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class SGDRegressor(SparseCoefMixin, LinearRegressorMixin, _BaseSGD):
    """Linear regression trained by stochastic gradient descent.

    Minimises ``(1/n) sum_i s_i L(y_i, <w, x_i> + b) + alpha R(w)`` one sample
    at a time (notes B §6.2) with a schedule of notes B §6.3; the engine of
    :class:`SGDClassifier` with regression losses.

    Parameters
    ----------
    loss : {"squared_error", "huber", "epsilon_insensitive", \
"squared_epsilon_insensitive"}, default="squared_error"
        The loss: least squares (``(y - p)^2 / 2``), Huber (quadratic within
        ``epsilon``, linear beyond), or the SVR losses that ignore errors
        below ``epsilon``.
    penalty : {"l2", "l1", "elasticnet"} or None, default="l2"
        The regulariser ``R(w) = (1 - l1_ratio)/2 ||w||^2 + l1_ratio ||w||_1``.
    alpha : float, default=1e-4
        Regularisation strength.
    l1_ratio : float, default=0.15
        Elastic-net mixing.
    fit_intercept : bool, default=True
        Learn the (unpenalised) intercept.
    max_iter : int, default=1000
        Maximum number of epochs.
    tol : float or None, default=1e-3
        Stopping tolerance on the epoch objective (or validation R^2).
    shuffle : bool, default=True
        Shuffle the rows before each epoch.
    verbose : int, default=0
        Print one line per epoch (plain SGD path).
    epsilon : float, default=0.1
        Width of the "huber" and epsilon-insensitive losses.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffling and the validation split.
    learning_rate : {"invscaling", "constant", "optimal", "adaptive"}, \
default="invscaling"
        Step-size schedule, see :class:`SGDClassifier`.
    eta0 : float, default=0.01
        Initial step size.
    power_t : float, default=0.25
        Exponent of "invscaling". Negative values are deprecated (a
        FutureWarning).
    early_stopping : bool, default=False
        Stop on the R^2 of a held-out ``validation_fraction``.
    validation_fraction : float, default=0.1
        Size of the held-out set.
    n_iter_no_change : int, default=5
        Epochs without improvement before stopping.
    warm_start : bool, default=False
        Start ``fit`` from the previous solution.
    average : bool or int, default=False
        Averaged SGD from step ``average`` on.
    optimizer : str, default="sgd"
        "sgd" (compiled per-sample SGD) or a mini-batch optimiser of
        :data:`skml.optim.OPTIMIZERS`, see :class:`SGDClassifier`.
    batch_size : int, default=32
        Mini-batch size of the optimiser path.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights.
    intercept_ : ndarray of shape (1,)
        Intercept.
    n_iter_ : int
        Epochs run.
    t_ : float
        Number of sample steps taken plus one.
    <fitted_feature_attributes>

    See Also
    --------
    SGDClassifier : The same engine for classification.
    sklearn.linear_model.SGDRegressor : The reference implementation.

    Notes
    -----
    One epoch costs O(n_samples n_features); see :class:`SGDClassifier` for
    the ``wscale`` trick, the L1 treatment and the two training paths. Scale
    the features first: plain SGD is sensitive to their scale.

    References
    ----------
    L. Bottou, "Stochastic Gradient Descent Tricks", 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import SGDRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 3)
    >>> y = X @ np.array([1.0, -2.0, 0.5]) + 3.0
    >>> reg = SGDRegressor(random_state=0).fit(X, y)
    >>> bool(reg.score(X, y) > 0.99)
    True
    """

    _parameter_constraints = {
        **_BaseSGD._parameter_constraints,
        **_BaseSGD._sgd_constraints,
        "loss": [Options(set(REGRESSION_LOSSES))],
    }
    _loss_names = REGRESSION_LOSSES

    def __init__(
        self,
        loss="squared_error",
        *,
        penalty="l2",
        alpha=0.0001,
        l1_ratio=0.15,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        shuffle=True,
        verbose=0,
        epsilon=0.1,
        random_state=None,
        learning_rate="invscaling",
        eta0=0.01,
        power_t=0.25,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        warm_start=False,
        average=False,
        optimizer="sgd",
        batch_size=32,
    ):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.epsilon = epsilon
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.warm_start = warm_start
        self.average = average
        self.optimizer = optimizer
        self.batch_size = batch_size

    @fill_doc(x_parameter=x_parameter(), returns_self=returns_self())
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the linear model by stochastic gradient descent.

        <x_parameter>
        y : array-like of shape (n_samples,)
            Targets.
        coef_init : ndarray of shape (n_features,), default=None
            Initial weights.
        intercept_init : ndarray of shape (1,), default=None
            Initial intercept.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights.

        <returns_self>
        """
        self._fit_settings = self._check_params()
        X, y = self._validate_training_data(X, y, reset=True, y_numeric=True)
        sample_weight = self._check_sample_weight(sample_weight, X)
        if (
            self.warm_start
            and hasattr(self, "coef_")
            and coef_init is None
            and self.coef_.shape == (X.shape[1],)
        ):
            coef_init, intercept_init = self.coef_, self.intercept_
        self.t_ = 1.0
        self._init_state(1, X.shape[1], coef_init, intercept_init)
        self._fit_epochs(X, y, sample_weight, self.max_iter)
        self._warn_if_not_converged()
        return self

    @fill_doc(
        x_parameter=x_parameter("A batch of training data."),
        returns_self=returns_self("The updated estimator."),
    )
    def partial_fit(self, X, y, sample_weight=None):
        """Run one epoch of SGD on the given samples.

        <x_parameter>
        y : array-like of shape (n_samples,)
            Its targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights.

        <returns_self>
        """
        first_call = not hasattr(self, "coef_")
        if first_call:
            self._fit_settings = self._check_params(for_partial_fit=True)
        else:
            self._fit_settings = self._settings()
        X, y = self._validate_training_data(
            X, y, reset=first_call, y_numeric=True
        )
        sample_weight = self._check_sample_weight(sample_weight, X)
        if first_call:
            self.t_ = 1.0
            self._init_state(1, X.shape[1], None, None)
        self._fit_epochs(X, y, sample_weight, 1)
        return self

    def _fit_epochs(self, X, y, sample_weight, max_iter):
        val_mask = self._validation_mask(y, sample_weight, stratify=False)
        seed = check_random_state(self.random_state).randint(MAX_INT)
        opt = None if self._optimizers is None else self._optimizers[0]
        self._check_magnitude(X)
        coef, intercepts, avg_coef, avg_intercepts = self._state_for_fit()
        intercept, avg_intercept, n_iter, _, _ = self._train_one(
            X, y.astype(np.float64), sample_weight, val_mask, coef[0],
            intercepts[0], avg_coef[0], avg_intercepts[0], seed,
            self._kernel_config(max_iter, K.SCORE_R2, sparse=sp.issparse(X)),
            optimizer=opt,
        )
        intercepts[0] = intercept
        avg_intercepts[0] = avg_intercept
        self.n_iter_ = int(n_iter)
        self.t_ += n_iter * X.shape[0]
        coef, intercept = self._publish()
        self.coef_, self.intercept_ = coef[0], intercept
        self._check_divergence(X, y, sample_weight)

    def _check_divergence(self, X, y, sample_weight):
        """ValueError when the fit diverged on columns far from the origin.

        At X + 1e8, fixed steps of size ``eta x`` overshoot further at every
        update: after a few epochs the weights are finite but the predictions
        wild (R² -9e51). Centring would fix it but changes the trajectory (a
        different model after ``max_iter`` epochs), so the data are refused
        with what to do. Only offsets are diagnosed (a column whose mean
        exceeds 1024 times its range, ``far_offset``): divergence from
        a too large ``eta0`` alone is left as scikit-learn leaves it.
        """
        mu = far_offset(X)
        if mu is None:
            return
        rows = sample_weight > 0
        with np.errstate(over="ignore", invalid="ignore"):
            pred = X[rows] @ self.coef_ + self.intercept_[0]
        y_max = float(np.max(np.abs(y[rows]))) or 1.0
        p_max = float(np.max(np.abs(pred)))
        if np.isfinite(p_max) and p_max <= _DIVERGED * y_max:
            return
        raise ValueError(
            f"{type(self).__name__} diverged: its predictions on the training data "
            f"reach {p_max:.3g} for targets of magnitude {y_max:.3g}. The columns "
            f"of X sit far from the origin (mean up to {max_abs(mu):.3g}, over "
            "1024 times their range), too far for fixed step sizes; centre and "
            "scale X first (e.g. with StandardScaler)."
        )
