"""Model diagnostics of the notes (notes B §2.5, §11.3-11.4).

- :func:`bias_variance_decomposition`: refit on bootstrap training sets and
  split the expected test loss into bias², variance (and noise when the
  regression function is known), the decomposition of B §2.5;
- :func:`learning_curve`: training and validation scores as the training set
  grows (B §11.3), on scikit-learn's CV splitters;
- :func:`diagnose_bias_variance`: the notes' diagnosis table (B §11.4): high
  bias (underfitting) or high variance (overfitting), with the remedies the
  notes list.
"""

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import check_random_state, indexable
from sklearn.utils.validation import _num_samples

__all__ = ["bias_variance_decomposition", "diagnose_bias_variance",
           "learning_curve"]


def _check_positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int; got {value!r}.")
    return int(value)


def _bootstrap_predictions(estimator, X, y, X_test, seed):
    rng = np.random.RandomState(seed)
    idx = rng.randint(0, _num_samples(X), _num_samples(X))
    model = clone(estimator).fit(_take(X, idx), _take(y, idx))
    return np.asarray(model.predict(X_test))


def _take(a, idx):
    return a.iloc[idx] if hasattr(a, "iloc") else a[idx]


def bias_variance_decomposition(estimator, X_train, y_train, X_test, y_test=None, *,
                                true_fn=None, n_rounds=200, loss="mse",
                                random_state=None, n_jobs=None):
    r"""Expected test loss split into bias², variance and noise (notes B §2.5).

    The estimator is refitted on ``n_rounds`` bootstrap samples ``D`` of the
    training set and predicts ``X_test`` each time. With the mean prediction
    :math:`\bar f(x) = \mathrm{mean}_D f_D(x)` and the target :math:`t(x)`
    (``true_fn(x)`` when given, else ``y_test``), for ``loss="mse"``:

    .. math::
       \mathrm{mean}_{D,x} (f_D(x) - t(x))^2 =
       \underbrace{\mathrm{mean}_x (\bar f(x) - t(x))^2}_{\text{bias}^2} +
       \underbrace{\mathrm{mean}_{D,x} (f_D(x) - \bar f(x))^2}_{\text{variance}}

    holds exactly (empirical means, ``ddof=0``). With both ``true_fn``
    (the regression function :math:`m`) and ``y_test``, the noise
    :math:`\mathrm{mean}_x (y - m(x))^2` is reported too. ``loss="0-1"``
    (classification) uses Domingos' decomposition: the main prediction is
    the most frequent one, bias the rate at which it is wrong, variance the
    rate at which a round disagrees with it (then loss ≠ bias + variance in
    general).

    Parameters
    ----------
    estimator : estimator object
        Cloned and refitted each round.
    X_train, y_train : array-like
        The training set that is resampled.
    X_test : array-like
        Where the predictions are compared.
    y_test : array-like, default=None
        Test targets; required unless ``true_fn`` is given.
    true_fn : callable, default=None
        The regression function ``m(X_test)`` of simulated data ("mse" only).
    n_rounds : int, default=200
        Bootstrap rounds.
    loss : {"mse", "0-1"}, default="mse"
    random_state : int, RandomState instance or None, default=None
        Draws the bootstrap samples (and so the same seed gives the same
        decomposition whatever ``n_jobs``).
    n_jobs : int, default=None
        Rounds in parallel (joblib).

    Returns
    -------
    result : dict
        ``expected_loss``, ``bias`` (bias² for "mse"), ``variance``, and
        ``noise`` when both ``true_fn`` and ``y_test`` are given;
        ``predictions`` of shape (n_rounds, n_test).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> from skml.model_selection import bias_variance_decomposition
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (60, 1)); y = X[:, 0] ** 2 + 0.1 * rng.normal(size=60)
    >>> r = bias_variance_decomposition(LinearRegression(), X, y, X, true_fn=lambda Z: Z[:, 0] ** 2,
    ...                                 n_rounds=50, random_state=0)
    >>> bool(np.isclose(r["expected_loss"], r["bias"] + r["variance"]))
    True
    """
    if loss not in ("mse", "0-1"):
        raise ValueError(f"loss must be 'mse' or '0-1'; got {loss!r}.")
    n_rounds = _check_positive_int("n_rounds", n_rounds)
    if y_test is None and true_fn is None:
        raise ValueError("Give y_test, or true_fn (the regression function).")
    if true_fn is not None and loss != "mse":
        raise ValueError("true_fn (the regression function) applies to loss='mse'.")
    X_train, y_train = indexable(X_train, y_train)
    if _num_samples(X_train) != _num_samples(y_train):
        raise ValueError("X_train and y_train have different numbers of samples.")
    seeds = check_random_state(random_state).randint(np.iinfo(np.int32).max,
                                                     size=n_rounds)
    preds = Parallel(n_jobs=n_jobs)(
        delayed(_bootstrap_predictions)(estimator, X_train, y_train, X_test, s)
        for s in seeds)
    P = np.stack(preds)
    if loss == "0-1":
        y = np.asarray(y_test)
        values, codes = np.unique(np.concatenate([P.ravel(), y]),
                                  return_inverse=True)
        C = codes[:P.size].reshape(P.shape)
        counts = np.apply_along_axis(np.bincount, 0, C, minlength=len(values))
        main = counts.argmax(axis=0)  # lowest code on ties
        yc = codes[P.size:]
        return {"expected_loss": float(np.mean(C != yc)),
                "bias": float(np.mean(main != yc)),
                "variance": float(np.mean(C != main)), "predictions": P}
    P = P.astype(np.float64)
    target = np.asarray(true_fn(X_test) if true_fn is not None else y_test,
                        dtype=np.float64)
    if target.shape != P.shape[1:]:
        raise ValueError(f"The target has shape {target.shape}; the predictions "
                         f"{P.shape[1:]}.")
    mean = P.mean(axis=0)
    out = {"expected_loss": float(np.mean((P - target) ** 2)),
           "bias": float(np.mean((mean - target) ** 2)),
           "variance": float(np.mean((P - mean) ** 2)), "predictions": P}
    if true_fn is not None and y_test is not None:
        out["noise"] = float(np.mean((np.asarray(y_test, dtype=float) - target) ** 2))
    return out


def _fit_and_score(estimator, X, y, train, test, n_train, scorer):
    sub = train[:n_train]
    model = clone(estimator).fit(_take(X, sub), _take(y, sub))
    return (scorer(model, _take(X, sub), _take(y, sub)),
            scorer(model, _take(X, test), _take(y, test)))


def learning_curve(estimator, X, y, *, train_sizes=(0.1, 0.325, 0.55, 0.775, 1.0),
                   cv=None, scoring=None, n_jobs=None):
    """Training and validation scores as the training set grows (notes B §11.3).

    For each split of ``cv`` and each size, the estimator is fitted on the
    first ``n`` training indices of the split and scored on them and on the
    split's validation part, as :func:`sklearn.model_selection.learning_curve`
    does (same splits, same subsets, so the same scores for a deterministic
    estimator).

    Parameters
    ----------
    estimator : estimator object
    X, y : array-like
    train_sizes : array-like, default=(0.1, 0.325, 0.55, 0.775, 1.0)
        Fractions in (0, 1] of the largest training part, or absolute sizes
        (ints).
    cv : int, cross-validation generator or iterable, default=None
        scikit-learn's meaning (5-fold; stratified for classifiers).
    scoring : str or callable, default=None
        The estimator's ``score`` by default.
    n_jobs : int, default=None

    Returns
    -------
    train_sizes_abs : ndarray of shape (n_sizes,)
    train_scores, test_scores : ndarray of shape (n_sizes, n_splits)

    Notes
    -----
    The notes' reading: curves that meet at a poor score mean high bias (more
    data will not help); a large gap that closes as data grows means high
    variance (more data helps).
    """
    X, y = indexable(X, y)
    cv = check_cv(cv, y, classifier=is_classifier(estimator))
    splits = list(cv.split(X, y))
    n_max = len(splits[0][0])  # as scikit-learn: the first split's size
    sizes = np.asarray(train_sizes)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError("train_sizes must be a non-empty 1-d array.")
    if np.issubdtype(sizes.dtype, np.floating):
        if np.any(sizes <= 0) or np.any(sizes > 1):
            raise ValueError("Fractions in train_sizes must be in (0, 1]; got "
                             f"{train_sizes!r}.")
        sizes = np.clip((sizes * n_max).astype(int), 1, n_max)
    elif np.any(sizes < 1) or np.any(sizes > n_max):
        raise ValueError(f"Sizes in train_sizes must be in [1, {n_max}]; got "
                         f"{train_sizes!r}.")
    sizes = np.unique(sizes)
    scorer = check_scoring(estimator, scoring=scoring)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(estimator, X, y, train, test, int(n), scorer)
        for train, test in splits for n in sizes)
    scores = np.array(results, dtype=float).reshape(len(splits), len(sizes), 2)
    return sizes, scores[:, :, 0].T, scores[:, :, 1].T


_REMEDIES = {
    "high_bias": ("underfitting: add features or polynomial features, a more "
                  "complex model, less regularisation; more data will not help"),
    "high_variance": ("overfitting: more data (or data augmentation), a simpler "
                      "model, feature selection, more regularisation"),
}


def diagnose_bias_variance(estimator, X, y, *, cv=5, scoring=None, err_tol=0.1,
                           gap_tol=0.05, n_jobs=None):
    """The notes' bias/variance diagnosis (notes B §11.4, D3 and D4).

    Cross-validated errors, with error = 1 − score (accuracy or R² by
    default, so both are on the same scale whatever the units):

    - **high bias** (underfitting): the training error exceeds ``err_tol``;
    - **high variance** (overfitting): the validation error is well above
      the training error, by more than ``gap_tol`` and by more than the
      training error itself (the notes' "validation ≫ training"; a model
      with a large training error and a gap small beside it is high bias
      only).

    Both can hold at once. The thresholds are heuristics, to be set for the
    task (the notes give none).

    Parameters
    ----------
    estimator : estimator object
    X, y : array-like
    cv : int, cross-validation generator or iterable, default=5
    scoring : str or callable, default=None
        A score (higher is better) in [0, 1] for the error to read as a rate.
    err_tol : float, default=0.1
    gap_tol : float, default=0.05
    n_jobs : int, default=None

    Returns
    -------
    report : dict
        ``train_error``, ``val_error`` (means over the folds), ``gap``,
        ``high_bias``, ``high_variance`` and ``advice`` (the notes' remedies
        for what was found).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> from skml.model_selection import diagnose_bias_variance
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, (200, 1)); y = X[:, 0] ** 2
    >>> diagnose_bias_variance(LinearRegression(), X, y)["high_bias"]
    True
    """
    for name, value in (("err_tol", err_tol), ("gap_tol", gap_tol)):
        if isinstance(value, bool) or not isinstance(value, Real) or not value >= 0:
            raise ValueError(f"{name} must be a non-negative number; got {value!r}.")
    X, y = indexable(X, y)
    cv = check_cv(cv, y, classifier=is_classifier(estimator))
    scorer = check_scoring(estimator, scoring=scoring)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(estimator, X, y, train, test, None, scorer)
        for train, test in cv.split(X, y))
    scores = np.array(results, dtype=float)
    train_error = float(1.0 - scores[:, 0].mean())
    val_error = float(1.0 - scores[:, 1].mean())
    report = {"train_error": train_error, "val_error": val_error,
              "gap": val_error - train_error,
              "high_bias": bool(train_error > err_tol),
              "high_variance": bool(val_error - train_error
                                    > max(gap_tol, train_error))}
    report["advice"] = [_REMEDIES[k] for k in ("high_bias", "high_variance")
                        if report[k]]
    return report
