"""The non-robust-features dataset of Ilyas et al. (notes A §10.3 (b))."""

import numpy as np
from sklearn.utils.validation import check_random_state

from ._attacks import PGD, _Scores

__all__ = ["make_nonrobust_dataset"]


def make_nonrobust_dataset(estimator, X, y, eps, *, target="shift", n_iter=20,
                           step_size=None, norm=np.inf, clip=None, random_state=None):
    """Perturb each row towards a wrong class and relabel it as that class.

    Notes A §10.3 (b) (Ilyas et al., 2019): a targeted PGD moves every row
    ``x`` of class ``y`` towards a class ``t != y`` inside the ``eps`` ball,
    and the row is relabelled ``t``. To a human (and to a robust model) the
    new rows still look like class ``y``; what makes them class ``t`` are the
    small-margin, "non-robust" features the attack changed. A model trained
    on ``(X_new, y_new)`` that still scores well on the *original* test set
    shows those features alone are predictive.

    Parameters
    ----------
    estimator : fitted classifier
        The (standard, non-robust) model whose gradients craft the rows.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    eps : float
        Radius of the perturbation ball.
    target : {"shift", "random"}, default="shift"
        "shift": ``t`` is the next class in ``classes_`` order (cyclic; the
        other class for two classes), Ilyas et al.'s deterministic set;
        "random": uniform over all the classes (Ilyas et al.'s random set,
        where the robust features carry no information about ``y_new``; a row
        whose target is its own class is pushed deeper into it).
    n_iter : int, default=20
    step_size : float, default=None
        ``2.5 * eps / n_iter`` when None.
    norm : {np.inf, 2}, default=np.inf
    clip : (float, float), default=None
    random_state : int, RandomState or None, default=None
        Draws the random targets and the PGD random starts.

    Returns
    -------
    X_new : ndarray of shape (n_samples, n_features)
        Every row within ``eps`` of its original.
    y_new : ndarray of shape (n_samples,)
        The target labels ``t``, whether or not the attack reached them
        (never equal to ``y`` with ``target="shift"``).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.adversarial import make_nonrobust_dataset
    >>> from skml.linear_model import LogisticRegression
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.2], [1.0, 0.8]])
    >>> y = np.array([0, 1, 0, 1])
    >>> clf = LogisticRegression().fit(X, y)
    >>> X_new, y_new = make_nonrobust_dataset(clf, X, y, eps=0.1, random_state=0)
    >>> y_new.tolist()
    [1, 0, 1, 0]
    """
    if target not in ("shift", "random"):
        raise ValueError(f"target must be 'shift' or 'random'; got {target!r}.")
    scores = _Scores(estimator)
    y = np.asarray(y)
    n = np.asarray(X).shape[0] if hasattr(X, "shape") else len(X)
    y_idx = scores.index(y, "y", n)
    k = scores.k
    rng = check_random_state(random_state)
    if target == "shift":
        t_idx = (y_idx + 1) % k
    else:
        t_idx = rng.randint(0, k, size=n)
    y_new = scores.classes[t_idx]
    attack = PGD(estimator, eps=eps, step_size=step_size, n_iter=n_iter, norm=norm,
                 clip=clip, targeted=True, early_stop=False, random_state=rng)
    # y=None: the targets alone drive the attack (a "random" target may be y)
    return attack.generate(X, None, y_new), y_new
