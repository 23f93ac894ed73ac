"""Numba kernel of AdaBoost's default weak learner: a weighted Gini stump.

A round of AdaBoost with ``skml.tree.DecisionTreeClassifier(max_depth=1)``
spends most of its time sorting every feature at the root (the tree
builder presorts the features for each tree). The samples and the feature
values do not change between rounds, only the weights do, so the order is
computed once per fit (:func:`skml.tree._splitter_kernels.presort_features`,
the builder's own sort, so that ties keep the builder's order) and each
round costs one O(n) scan per feature plus the training-set predictions.

:func:`gini_stump` replays the builder's root step for ``max_depth=1``,
Gini, every feature examined, no missing values, positive weights: the
node sums in sample order, the feature order drawn from the root's random
stream, the threshold scan (values closer than ``FEATURE_THRESHOLD`` kept
together, a tie keeps the first feature found), the midpoint threshold, the
children's statistics in sample order. The stump is the one
``DecisionTreeClassifier(max_depth=1).fit`` grows, array for array (checked
by ``tests/ensemble/test_adaboost.py``).
"""

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to skml/tree/_splitter_kernels.py,
# change this file too (this comment will do).
from ..tree._splitter_kernels import (
    EPSILON,
    FEATURE_THRESHOLD,
    root_key,
    rng_randint,
)

__all__ = ["gini_stump"]


@njit(cache=True, nogil=True)
def _gini(counts, total):
    if total <= 0.0:
        return 0.0
    s = 0.0
    for c in counts:
        s += c * c
    return 1.0 - s / (total * total)


@njit(cache=True, nogil=True)
def gini_stump(X, order, y, w, n_classes, seed, value, stats, pred):
    """Grow the stump of ``DecisionTreeClassifier(max_depth=1)`` on (X, y, w).

    ``X`` Fortran (n, p) float64 without NaN; ``order[j]`` the samples sorted
    by feature ``j`` (``presort_features``); ``y`` class indices; ``w``
    positive weights. Writes the nodes' class proportions to ``value``
    (3, n_classes), ``stats[node] = (impurity, n_samples, weight)`` and each
    sample's predicted class to ``pred``. Returns ``(feature, threshold,
    missing_left)``; ``feature = -1`` when the root stays a leaf.
    """
    n, n_features = X.shape
    # Root statistics, summed in sample order as the builder does.
    ctot = np.zeros(n_classes)
    wn = 0.0
    for i in range(n):
        ctot[y[i]] += w[i]
        wn += w[i]
    w_root = 0.0
    for i in range(n):
        w_root += w[i]
    imp = _gini(ctot, wn)
    stats[0, 0] = imp
    stats[0, 1] = n
    stats[0, 2] = wn
    for k in range(n_classes):
        value[0, k] = ctot[k] / wn if wn > 0.0 else ctot[k]
    best_feature = -1
    best_thr = 0.0
    best_ml = 0
    if not (n < 2 or imp <= EPSILON):
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = root_key(seed)
        features = np.arange(n_features)
        cl = np.empty(n_classes)
        best_proxy = -np.inf
        best_gain = 0.0
        for f_i in range(n_features):
            r = f_i + rng_randint(rng, n_features - f_i)
            j = features[r]
            features[r] = features[f_i]
            features[f_i] = j
            row = order[j]
            col = X[:, j]
            if col[row[n - 1]] <= col[row[0]] + FEATURE_THRESHOLD:
                continue  # constant feature
            cl[:] = 0.0
            wl = 0.0
            fbest = -np.inf
            fpos = -1
            for p in range(n - 1):
                i = row[p]
                wi = w[i]
                wl += wi
                cl[y[i]] += wi
                if col[row[p + 1]] <= col[i] + FEATURE_THRESHOLD:
                    continue
                wr = wn - wl
                if wl <= 0.0 or wr <= 0.0:
                    continue
                sl2 = 0.0
                sr2 = 0.0
                for k in range(n_classes):
                    a = cl[k]
                    b = ctot[k] - a
                    sl2 += a * a
                    sr2 += b * b
                proxy = sl2 / wl + sr2 / wr
                if proxy > fbest:
                    fbest = proxy
                    fpos = p + 1
            if fbest == -np.inf:
                continue
            if fbest > best_proxy:
                best_proxy = fbest
                best_feature = j
                lo = col[row[fpos - 1]]
                hi = col[row[fpos]]
                thr = 0.5 * (lo + hi)
                if thr == hi or thr == np.inf or thr == -np.inf:
                    thr = lo
                best_thr = thr
                best_ml = 1 if fpos > n - fpos else 0
                best_gain = imp - (wn - fbest) / wn
        if best_feature >= 0:
            # Weighted impurity decrease (min_impurity_decrease = 0).
            if wn / w_root * best_gain + EPSILON < 0.0:
                best_feature = -1
    if best_feature < 0:
        k_best = 0
        for k in range(1, n_classes):
            if value[0, k] > value[0, k_best]:
                k_best = k
        pred[:] = k_best
        return best_feature, best_thr, best_ml
    # The children, in sample order.
    col = X[:, best_feature]
    cl = np.zeros(n_classes)
    cr = np.zeros(n_classes)
    wl = 0.0
    wr = 0.0
    nl = 0
    for i in range(n):
        if col[i] <= best_thr:
            cl[y[i]] += w[i]
            wl += w[i]
            nl += 1
        else:
            cr[y[i]] += w[i]
            wr += w[i]
    stats[1, 0] = _gini(cl, wl)
    stats[1, 1] = nl
    stats[1, 2] = wl
    stats[2, 0] = _gini(cr, wr)
    stats[2, 1] = n - nl
    stats[2, 2] = wr
    for k in range(n_classes):
        value[1, k] = cl[k] / wl if wl > 0.0 else cl[k]
        value[2, k] = cr[k] / wr if wr > 0.0 else cr[k]
    k_left = 0
    k_right = 0
    for k in range(1, n_classes):
        if value[1, k] > value[1, k_left]:
            k_left = k
        if value[2, k] > value[2, k_right]:
            k_right = k
    for i in range(n):
        pred[i] = k_left if col[i] <= best_thr else k_right
    return best_feature, best_thr, best_ml
