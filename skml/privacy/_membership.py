r"""Membership inference attacks (notes B §13.6).

Given black-box access to a trained model, decide whether a record
:math:`(x, y)` was in its training set. Both attacks here read the model's
``predict_proba`` (classifiers) or ``predict`` (regressors) only.

- :class:`LossThresholdMembershipInference` (Yeom et al., 2018): a record
  is a member when the model's loss on it is small; the score is minus the
  loss, the threshold the mean training loss of a shadow model (or given).
- :class:`MembershipInferenceAttack` (Shokri et al., 2017; the notes'
  shadow training): shadow models are trained on disjoint "in" halves of
  public data; an attack classifier learns (shadow output on a record, its
  true label) -> in/out, one per class when ``per_class``; it is then applied
  to the target model's outputs.

Both are driven by overfitting: the gap between the loss on training and
unseen data. Differential privacy bounds any attack's advantage (TPR - FPR)
by :math:`e^\varepsilon - 1 + \delta`-ish, and in practice makes it vanish.

These are not scikit-learn estimators (their ``predict`` takes the target
model), so they stay out of the common checks.
"""

import numbers

import numpy as np
from scipy.stats import rankdata
from sklearn.base import clone, is_classifier

from ._validation import _rng

__all__ = [
    "LossThresholdMembershipInference",
    "MembershipInferenceAttack",
    "attack_advantage",
    "attack_auc",
]


def attack_auc(membership, scores):
    """Area under the ROC curve of membership ``scores`` (Mann-Whitney, ties halved)."""
    m = np.asarray(membership).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    n1, n0 = int(m.sum()), int((~m).sum())
    if n1 == 0 or n0 == 0:
        raise ValueError("membership must contain both members and non-members.")
    ranks = rankdata(s)
    return float((ranks[m].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def attack_advantage(membership, scores):
    """Membership advantage: the largest TPR - FPR over all thresholds on ``scores``."""
    m = np.asarray(membership).astype(bool)
    s = np.asarray(scores, dtype=np.float64)
    n1, n0 = int(m.sum()), int((~m).sum())
    if n1 == 0 or n0 == 0:
        raise ValueError("membership must contain both members and non-members.")
    order = np.argsort(-s, kind="stable")
    s_sorted, m_sorted = s[order], m[order]
    tpr = np.cumsum(m_sorted) / n1
    fpr = np.cumsum(~m_sorted) / n0
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]  # thresholds between distinct scores
    return float(max(0.0, np.max((tpr - fpr)[last])))


def _per_record_loss(model, X, y):
    """Cross-entropy of the true class (classifiers) or squared error (regressors)."""
    if is_classifier(model) or hasattr(model, "predict_proba"):
        P = np.asarray(model.predict_proba(X), dtype=np.float64)
        col = _class_columns(model, y)
        p_true = np.where(col >= 0, P[np.arange(len(col)), np.maximum(col, 0)], 0.0)
        return -np.log(np.clip(p_true, 1e-300, 1.0)), P, col
    pred = np.asarray(model.predict(X), dtype=np.float64).reshape(len(y), -1)
    err = pred - np.asarray(y, dtype=np.float64).reshape(len(y), -1)
    return np.einsum("ij,ij->i", err, err), None, None


def _class_columns(model, y):
    classes = np.asarray(model.classes_)
    y = np.asarray(y)
    idx = np.searchsorted(classes, y)
    idx = np.clip(idx, 0, len(classes) - 1)
    return np.where(classes[idx] == y, idx, -1)  # -1: a label the model never saw


def _check_xy(X, y):
    if len(X) != len(y):
        raise ValueError(f"X and y have different lengths ({len(X)} and {len(y)}).")
    if len(y) == 0:
        raise ValueError("X and y are empty.")
    return X, np.asarray(y)


class _AttackBase:
    def score(self, target_model, X, y, membership):
        """AUC of the attack on records whose true ``membership`` (bool) is known."""
        return attack_auc(membership, self.predict_proba(target_model, X, y))

    def evaluate(self, target_model, X, y, membership):
        """``{"auc", "advantage", "accuracy"}`` of the attack on known memberships."""
        scores = self.predict_proba(target_model, X, y)
        membership = np.asarray(membership).astype(bool)
        return {
            "auc": attack_auc(membership, scores),
            "advantage": attack_advantage(membership, scores),
            "accuracy": float(np.mean(self.predict(target_model, X, y) == membership)),
        }


class LossThresholdMembershipInference(_AttackBase):
    """Loss-threshold membership inference (Yeom et al., 2018; notes B §13.6).

    A record is called a member when the target's loss on it is at most
    ``threshold``. ``predict_proba`` returns ``exp(-loss)`` (the probability
    of the true class for a classifier), a membership score.

    Parameters
    ----------
    threshold : float, default=None
        The loss threshold. None: learnt by :meth:`fit` as the mean training
        loss of a shadow model (``shadow_estimator`` trained on half the
        public data), or, without a shadow model or a fit, the median loss
        of the records attacked.
    shadow_estimator : estimator, default=None
        Unfitted model like the target, for calibrating the threshold.
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    threshold_ : float or None
        After :meth:`fit`: the calibrated threshold, or None without a
        ``shadow_estimator`` (then the median rule).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skml.neighbors import KNeighborsClassifier
    >>> from skml.privacy import LossThresholdMembershipInference
    >>> X, y = make_classification(1000, 10, flip_y=0.2, random_state=0)
    >>> target = KNeighborsClassifier(n_neighbors=1).fit(X[:500], y[:500])
    >>> member = np.r_[np.ones(500, bool), np.zeros(500, bool)]
    >>> attack = LossThresholdMembershipInference()
    >>> bool(attack.score(target, X, y, member) > 0.6)
    True
    """

    def __init__(self, threshold=None, shadow_estimator=None, random_state=None):
        self.threshold = threshold
        self.shadow_estimator = shadow_estimator
        self.random_state = random_state

    def fit(self, X_public, y_public):
        """Calibrate the threshold on a shadow model trained on half the public data."""
        if self.threshold is not None:
            self.threshold_ = float(self.threshold)
            return self
        X_public, y_public = _check_xy(X_public, y_public)
        if self.shadow_estimator is None:
            # Nothing to calibrate on: the median rule applies at predict time.
            self.threshold_ = None
            return self
        rng = _rng(self.random_state)
        perm = rng.permutation(len(y_public))
        half = perm[: len(perm) // 2]
        shadow = clone(self.shadow_estimator).fit(X_public[half], y_public[half])
        self.threshold_ = float(np.mean(_per_record_loss(shadow, X_public[half],
                                                         y_public[half])[0]))
        return self

    def _threshold(self, loss):
        if self.threshold is not None:
            return float(self.threshold)
        fitted = getattr(self, "threshold_", None)
        return float(np.median(loss)) if fitted is None else fitted

    def predict_proba(self, target_model, X, y):
        """Membership scores ``exp(-loss)`` in [0, 1] (higher: more likely a member)."""
        X, y = _check_xy(X, y)
        return np.exp(-_per_record_loss(target_model, X, y)[0])

    def predict(self, target_model, X, y):
        """True where the target's loss on the record is at most the threshold."""
        X, y = _check_xy(X, y)
        loss = _per_record_loss(target_model, X, y)[0]
        return loss <= self._threshold(loss)


class MembershipInferenceAttack(_AttackBase):
    """Shadow-model membership inference (Shokri et al., 2017; notes B §13.6).

    ``fit`` trains ``n_shadow_models`` copies of ``shadow_estimator``, each
    on a random "in" half of its share of the public data, and records each
    shadow's output on its "in" records (label 1) and its disjoint "out"
    records (label 0). An attack classifier (one per true class when
    ``per_class``) learns membership from the features

    - the model's class probabilities, in the order of the classes, and the
      loss on the true class (classifiers);
    - the prediction, the target and the squared error (regressors).

    ``predict_proba(target_model, X, y)`` applies it to the target's outputs.

    Parameters
    ----------
    shadow_estimator : estimator
        Unfitted, configured like the target (same algorithm, similar size).
    attack_estimator : classifier, default=None
        None: skml's ``RandomForestClassifier(n_estimators=50,
        min_samples_leaf=5)``.
    n_shadow_models : int, default=5
    shadow_size : int, default=None
        Rows of each shadow's training ("in") set, as many again held out;
        None: ``n_public // (2 n_shadow_models)``, so that the shadows' shares
        of the public data are disjoint (``n_public // 2`` with overlapping
        shares when there are fewer than ``4 n_shadow_models`` rows).
    per_class : bool, default=True
        One attack model per true class (classifiers).
    random_state : None, int, RandomState or Generator, default=None

    Attributes
    ----------
    shadow_models_ : list of fitted estimators
    shadow_splits_ : list of (ndarray, ndarray)
        Indices into the public data of each shadow's in and out records
        (disjoint).
    attack_models_ : dict
        ``{class label or None: fitted attack classifier}``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from skml.tree import DecisionTreeClassifier
    >>> from skml.privacy import MembershipInferenceAttack
    >>> X, y = make_classification(3000, 10, flip_y=0.2, random_state=0)
    >>> target = DecisionTreeClassifier(random_state=0).fit(X[:500], y[:500])
    >>> attack = MembershipInferenceAttack(DecisionTreeClassifier(random_state=0),
    ...                                    n_shadow_models=3, random_state=0)
    >>> attack = attack.fit(X[1000:], y[1000:])
    >>> member = np.r_[np.ones(500, bool), np.zeros(500, bool)]
    >>> bool(attack.score(target, X[:1000], y[:1000], member) > 0.6)
    True
    """

    def __init__(self, shadow_estimator, attack_estimator=None, n_shadow_models=5,
                 shadow_size=None, per_class=True, random_state=None):
        self.shadow_estimator = shadow_estimator
        self.attack_estimator = attack_estimator
        self.n_shadow_models = n_shadow_models
        self.shadow_size = shadow_size
        self.per_class = per_class
        self.random_state = random_state

    def _features(self, model, X, y):
        loss, P, _ = _per_record_loss(model, X, y)
        if P is None:
            pred = np.asarray(model.predict(X), dtype=np.float64).reshape(len(y), -1)
            yy = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
            return np.hstack([pred, yy, loss[:, None]])
        if P.shape[1] < len(self.classes_):  # a model that saw fewer classes
            full = np.zeros((P.shape[0], len(self.classes_)))
            pos = np.searchsorted(self.classes_, model.classes_)
            full[:, pos] = P
            P = full
        return np.hstack([P, np.minimum(loss, 50.0)[:, None]])

    def fit(self, X_public, y_public):
        """Train the shadow models and the attack model(s) on public data."""
        X_public, y_public = _check_xy(X_public, y_public)
        k = self.n_shadow_models
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_shadow_models must be an int >= 1; got {k!r}.")
        n = len(y_public)
        size = self.shadow_size
        if size is None:
            size = max(1, min(n // (2 * k) if n >= 4 * k else n // 2, n // 2))
        elif isinstance(size, bool) or not isinstance(size, numbers.Integral) or not (
            1 <= size <= n // 2
        ):
            raise ValueError(
                f"shadow_size must be an int in [1, n_public // 2 = {n // 2}]; got {size!r}.")
        rng = _rng(self.random_state)
        self.classifier_ = is_classifier(self.shadow_estimator)
        self.classes_ = np.unique(y_public) if self.classifier_ else None
        self.shadow_models_, self.shadow_splits_ = [], []
        feats, labels, ys = [], [], []
        disjoint_shares = n >= 2 * k * size
        perm = rng.permutation(n)
        for s in range(k):
            if disjoint_shares:
                share = perm[2 * s * size: 2 * (s + 1) * size]
            else:
                share = rng.permutation(n)[: 2 * size]
            idx_in, idx_out = share[:size], share[size:2 * size]
            model = clone(self.shadow_estimator)
            if hasattr(model, "random_state") and "random_state" in model.get_params():
                model.set_params(random_state=int(rng.integers(2**31 - 1)))
            model.fit(X_public[idx_in], y_public[idx_in])
            self.shadow_models_.append(model)
            self.shadow_splits_.append((idx_in, idx_out))
            for idx, label in ((idx_in, 1), (idx_out, 0)):
                feats.append(self._features(model, X_public[idx], y_public[idx]))
                labels.append(np.full(len(idx), label))
                ys.append(y_public[idx])
        F, L, Y = np.vstack(feats), np.concatenate(labels), np.concatenate(ys)
        self.attack_models_ = {}
        groups = [(c, Y == c) for c in self.classes_] if (
            self.per_class and self.classifier_) else [(None, np.ones(len(L), bool))]
        for c, mask in groups:
            if mask.sum() == 0:
                continue
            if len(np.unique(L[mask])) < 2:
                self.attack_models_[c] = float(L[mask][0])
                continue
            self.attack_models_[c] = self._attack(rng).fit(F[mask], L[mask])
        return self

    def _attack(self, rng):
        if self.attack_estimator is not None:
            return clone(self.attack_estimator)
        from ..ensemble import RandomForestClassifier
        return RandomForestClassifier(n_estimators=50, min_samples_leaf=5,
                                      random_state=int(rng.integers(2**31 - 1)))

    def predict_proba(self, target_model, X, y):
        """Probability that each record was in the target's training set."""
        if not hasattr(self, "attack_models_"):
            raise ValueError("This MembershipInferenceAttack is not fitted yet; call fit.")
        X, y = _check_xy(X, y)
        F = self._features(target_model, X, y)
        out = np.full(len(y), 0.5)
        for c, model in self.attack_models_.items():
            mask = np.ones(len(y), bool) if c is None else (y == c)
            if not mask.any():
                continue
            if isinstance(model, float):
                out[mask] = model
            else:
                proba = model.predict_proba(F[mask])
                col = list(model.classes_).index(1) if 1 in model.classes_ else None
                out[mask] = proba[:, col] if col is not None else 0.0
        return out

    def predict(self, target_model, X, y):
        """True for records the attack calls members (probability >= 0.5)."""
        return self.predict_proba(target_model, X, y) >= 0.5
