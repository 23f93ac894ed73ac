"""Per-sample stochastic gradient descent for linear models, compiled by numba.

One call runs whole epochs for one weight vector (one binary problem or one
regression target): notes B §3.1 (perceptron), §5.6 (SVM by sub-gradient) and
§6.2-6.3 (SGD and its step-size schedules). The estimators in
``_stochastic_gradient.py`` choose the loss, penalty and schedule with the
small integer codes below and run one kernel call per binary problem.

The weight vector is stored as ``w = wscale * v`` (``v`` the array passed in)
so that the L2 shrinkage ``w <- (1 - eta alpha) w`` is a scalar update: each
step then costs O(n_features) for the dot product and the ``x`` update only,
as in Bottou's SGD and scikit-learn's ``WeightVector``.

The training rows are either a dense C-contiguous array or a ``CSRRows``
record (a CSR matrix's three arrays, :mod:`skml.utils._csr_rows`). The kernels
read a row only through ``row_span`` and ``row_entry``, overloaded on the
container type, so one loop serves both and numba compiles one specialisation
per container: the dense one is the plain ``for j in range(n_features)`` loop
it always was, the sparse one visits the stored entries only (O(nnz) per
epoch). On CSR input the L1
truncation touches only the features of the current sample (the lazy update of
scikit-learn's sparse path), so with an L1 penalty sparse and dense fits differ
as they do in scikit-learn; without it they are the same model.

CSR rows are visited in place, in the epoch's shuffled order, so each step
would first wait on memory for the row's position and entries; the loop
prefetches the rows a few steps ahead (``_prefetch_row``, an LLVM prefetch
hint), which changes no arithmetic.
"""

import math
from collections import namedtuple

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from skml.optim._plateau_kernels import plateau_update
from skml.utils._csr_rows import (  # noqa: F401 (CSRRows, as_rows: callers')
    CSRRows,
    as_rows,
    epoch_rows,
    is_sparse_rows,
    n_rows,
    row_entry,
    refresh_epoch_rows,
    row_span,
    work_row,
)

# Loss codes. Classification losses take y in {-1, +1}.
HINGE = 0
PERCEPTRON = 1
SQUARED_HINGE = 2
LOG_LOSS = 3
MODIFIED_HUBER = 4
SQUARED_ERROR = 5
HUBER = 6
EPSILON_INSENSITIVE = 7
SQUARED_EPSILON_INSENSITIVE = 8

# Penalty codes (scikit-learn's numbering).
NO_PENALTY = 0
L1 = 1
L2 = 2
ELASTICNET = 3

# Learning-rate codes (scikit-learn's numbering).
CONSTANT = 1
OPTIMAL = 2
INVSCALING = 3
ADAPTIVE = 4

# Validation scores for early stopping.
SCORE_ACCURACY = 0
SCORE_R2 = 1

# Gradients beyond this are clipped: one outlier must not overflow the weights.
MAX_DLOSS = 1e12
# Below this the scale is folded back into v, before it underflows.
WSCALE_MIN = 1e-9

# The fixed settings of one fit, passed to the kernel as one record (numba
# compiles a namedtuple of scalars to a struct). Callers must pass every field
# with its documented Python type (int, float, bool) or numba compiles a new
# specialisation.
SGDConfig = namedtuple(
    "SGDConfig",
    [
        "loss",  # int: loss code
        "epsilon",  # float: width of huber and the epsilon-insensitive losses
        "penalty",  # int: penalty code
        "alpha",  # float
        "l1_ratio",  # float
        "learning_rate",  # int: learning-rate code
        "eta0",  # float
        "power_t",  # float
        "fit_intercept",  # bool
        "intercept_decay",  # float: multiplier of the intercept step
        "average",  # int: step from which weights are averaged (0: none)
        "max_iter",  # int
        "tol",  # float: -inf disables the stopping rule
        "n_iter_no_change",  # int
        "shuffle",  # bool
        "early_stopping",  # bool: stop on the validation score
        "score",  # int: SCORE_ACCURACY or SCORE_R2
        "verbose",  # int
    ],
)

# Validation data for early stopping (arrays may be empty).
Validation = namedtuple("Validation", ["X", "y", "sample_weight"])

# One binary problem of a classifier without a +-1 copy of its labels: the
# integer class code of each sample and the code that counts as +1 (the
# others are -1). Kernels read targets only through _target.
OneVsRest = namedtuple("OneVsRest", ["codes", "positive"])


# How many rows ahead of the current step the CSR rows are prefetched (their
# index pointer twice as far ahead): see _prefetch_row.
PREFETCH_ROWS = 4
# The prefetch intrinsic's name is mangled on the pointer type, which changed
# with LLVM 15's opaque pointers ("p0"; "p0i8" before). On an older LLVM
# (numba < 0.60) no prefetch is emitted rather than risk a wrong declaration:
# the results are the same, only the sparse epochs are slower.
PREFETCH_INTRINSIC = ("llvm.prefetch.p0" if llvm_binding.llvm_version_info >= (15,)
                      else None)


@intrinsic
def _prefetch(typingctx, arr, i):
    """Hint the CPU to bring ``arr[i]`` into cache (no bounds check, no effect
    on results: a prefetch of any address is harmless)."""
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        # Any integer index (the epoch order may be int32) as a machine word.
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        ptr = cgutils.get_item_pointer(
            context, builder, aryty, ary, [index], wraparound=False,
            boundscheck=False,
        )
        i32 = ir.IntType(32)
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, PREFETCH_INTRINSIC)
        # read, keep in all cache levels, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0),
                          ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


def _prefetch_row(X, idx, k):
    """Prefetch the rows the epoch visits a few steps after step ``k``."""


@overload(_prefetch_row, inline="always")
def _ov_prefetch_row(X, idx, k):
    # Dense rows are read from a contiguous copy in visiting order: the
    # hardware prefetcher already streams them.
    if isinstance(X, types.Array) or PREFETCH_INTRINSIC is None:
        return lambda X, idx, k: None

    def impl(X, idx, k):
        # CSR rows are visited in shuffled order: each step would otherwise
        # wait on memory for indptr[r] and then for the row's first entries
        # (a serial chain of cache misses: ~60% of an epoch on a 28 MB
        # matrix). Prefetch indptr 2D rows ahead and the entries D rows ahead
        # (whose indptr arrived D steps ago).
        n = idx.shape[0]
        k2 = k + 2 * PREFETCH_ROWS
        if k2 < n:
            _prefetch(X.indptr, idx[k2])
        k1 = k + PREFETCH_ROWS
        if k1 < n:
            r = idx[k1]
            a = X.indptr[r]
            b = X.indptr[r + 1]
            if b > a:
                for p in range(a, b, 8):  # 8 float64 a 64-byte line
                    _prefetch(X.data, p)
                _prefetch(X.data, b - 1)
                for p in range(a, b, 16):
                    _prefetch(X.indices, p)
                _prefetch(X.indices, b - 1)

    return impl


_U64_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_U64_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_U64_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True)
def loss_value(code, y, p, epsilon):
    """Loss of prediction ``p`` for target ``y`` (``epsilon``: width of huber etc.)."""
    z = p * y
    if code == HINGE:
        return 1.0 - z if z <= 1.0 else 0.0
    if code == PERCEPTRON:
        return -z if z <= 0.0 else 0.0
    if code == SQUARED_HINGE:
        r = 1.0 - z
        return r * r if r > 0.0 else 0.0
    if code == LOG_LOSS:
        # log(1 + exp(p)) - y01 p = log(1 + exp(-z)), with y01 = (y + 1)/2,
        # by scikit-learn's branches (same rounding, same stopping epoch).
        y01 = 1.0 if y > 0.0 else 0.0
        if p <= -37.0:
            lpe = math.exp(p)
        elif p <= -2.0:
            lpe = math.log1p(math.exp(p))
        elif p <= 18.0:
            lpe = math.log(1.0 + math.exp(p))
        elif p <= 33.3:
            lpe = p + math.exp(-p)
        else:
            lpe = p
        return lpe - y01 * p
    if code == MODIFIED_HUBER:
        if z >= 1.0:
            return 0.0
        if z >= -1.0:
            return (1.0 - z) * (1.0 - z)
        return -4.0 * z
    r = y - p
    if code == SQUARED_ERROR:
        return 0.5 * r * r
    if code == HUBER:
        a = abs(r)
        return 0.5 * a * a if a <= epsilon else epsilon * (a - 0.5 * epsilon)
    if code == EPSILON_INSENSITIVE:
        a = abs(r) - epsilon
        return a if a > 0.0 else 0.0
    # SQUARED_EPSILON_INSENSITIVE
    a = abs(r) - epsilon
    return a * a if a > 0.0 else 0.0


@njit(cache=True, nogil=True)
def loss_derivative(code, y, p, epsilon):
    """Derivative of the loss with respect to the prediction ``p``.

    At the kinks the value is the one scikit-learn uses (hinge: ``-y`` at
    ``z = 1``; perceptron: ``-y`` at ``z = 0``, the notes' mistake rule).
    """
    z = p * y
    if code == HINGE:
        return -y if z <= 1.0 else 0.0
    if code == PERCEPTRON:
        return -y if z <= 0.0 else 0.0
    if code == SQUARED_HINGE:
        r = 1.0 - z
        return -2.0 * y * r if r > 0.0 else 0.0
    if code == LOG_LOSS:
        # sigmoid(p) - y01 = -y sigmoid(-z), in scikit-learn's finite form.
        y01 = 1.0 if y > 0.0 else 0.0
        if p > -37.0:
            e = math.exp(-p)
            return ((1.0 - y01) - y01 * e) / (1.0 + e)
        return math.exp(p) - y01
    if code == MODIFIED_HUBER:
        if z >= 1.0:
            return 0.0
        if z >= -1.0:
            return -2.0 * (1.0 - z) * y
        return -4.0 * y
    r = p - y
    if code == SQUARED_ERROR:
        return r
    if code == HUBER:
        if abs(r) <= epsilon:
            return r
        return epsilon if r >= 0.0 else -epsilon
    if code == EPSILON_INSENSITIVE:
        if -r > epsilon:
            return -1.0
        if r > epsilon:
            return 1.0
        return 0.0
    # SQUARED_EPSILON_INSENSITIVE
    if -r > epsilon:
        return -2.0 * (-r - epsilon)
    if r > epsilon:
        return 2.0 * (r - epsilon)
    return 0.0


@njit(cache=True, nogil=True)
def _next_u64(state):
    """splitmix64: a tiny seeded generator private to this call (thread-safe)."""
    state[0] = state[0] + _U64_GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _U64_MIX1
    z = (z ^ (z >> np.uint64(27))) * _U64_MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def _shuffle(idx, state):
    """Fisher-Yates shuffle of ``idx`` in place."""
    for i in range(idx.shape[0] - 1, 0, -1):
        # Lemire's multiply-shift maps the top 32 random bits to [0, i]
        # without a 64-bit division (bias below 2**-32 * n).
        hi = _next_u64(state) >> np.uint64(32)
        j = np.int64((hi * np.uint64(i + 1)) >> np.uint64(32))
        tmp = idx[i]
        idx[i] = idx[j]
        idx[j] = tmp


def _target(y, i):
    """Target of row ``i``: ``y[i]`` for a float array; for :data:`OneVsRest`
    ``+1.0`` where the row's class code is the positive one, else ``-1.0``."""


@overload(_target, inline="always")
def _ov_target(y, i):
    if isinstance(y, types.Array):
        return lambda y, i: y[i]
    return lambda y, i: 1.0 if y.codes[i] == y.positive else -1.0


@njit(cache=True, nogil=True)
def _gather(y, sample_weight, idx, yw, sww):
    """Copy the entries ``idx`` of the per-row arrays, in that order."""
    for k in range(idx.shape[0]):
        i = idx[k]
        yw[k] = _target(y, i)
        sww[k] = sample_weight[i]


@njit(cache=True, nogil=True)
def _validation_score(X_val, y_val, sw_val, v, wscale, intercept, score_code):
    """Weighted accuracy (labels +-1) or weighted R^2 of the current weights."""
    n = n_rows(X_val)
    total = 0.0
    good = 0.0
    y_mean = 0.0
    for i in range(n):
        total += sw_val[i]
        y_mean += sw_val[i] * y_val[i]
    if total <= 0.0:
        return 0.0
    y_mean /= total
    ss_res = 0.0
    ss_tot = 0.0
    for i in range(n):
        p = intercept
        s = 0.0
        a, b = row_span(X_val, i)
        for q in range(a, b):
            j, x = row_entry(X_val, i, q)
            s += x * v[j]
        p += wscale * s
        if score_code == SCORE_ACCURACY:
            pred = 1.0 if p > 0.0 else -1.0
            if pred == y_val[i]:
                good += sw_val[i]
        else:
            ss_res += sw_val[i] * (y_val[i] - p) ** 2
            ss_tot += sw_val[i] * (y_val[i] - y_mean) ** 2
    if score_code == SCORE_ACCURACY:
        return good / total
    if ss_tot == 0.0:
        return 1.0 if ss_res == 0.0 else 0.0
    return 1.0 - ss_res / ss_tot


@njit(cache=True, nogil=True)
def plain_sgd(
    X, y, sample_weight, train_idx, v, intercept, avg_v, avg_intercept, t, seed,
    cfg, validation,
):
    """Run up to ``cfg.max_iter`` epochs of per-sample SGD on one weight vector.

    Minimises ``(1/n) sum_i s_i L(y_i, <w, x_i> + b) + alpha R(w)`` with
    ``R(w) = (1 - l1_ratio)/2 ||w||^2 + l1_ratio ||w||_1``, one sample at a
    time: ``w <- (1 - eta alpha (1 - l1_ratio)) w - eta s_i L'(y_i, p_i) x_i``
    and ``b <- b - eta s_i L'(y_i, p_i) intercept_decay``, then the L1 part by
    Tsuruoka et al.'s cumulative truncated gradient (as scikit-learn).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or CSRRows
        C-contiguous float64, or a CSR matrix's arrays (:func:`as_rows`).
    y : ndarray of shape (n_samples,) or OneVsRest
        Float targets (+-1 for the classification losses), or class codes
        with the positive one (:data:`OneVsRest`), read as +-1 in place (no
        +-1 copy per one-vs-rest problem).
    sample_weight : ndarray of shape (n_samples,)
        Per-sample multipliers of the gradient (sample weight x class weight).
    train_idx : ndarray of int32 or int64
        Rows to learn from, in the order of the first epoch; shuffled in
        place each epoch when ``shuffle``.
    v, avg_v : ndarray of shape (n_features,)
        Weights (updated in place) and their running average (ASGD, used
        only when ``average > 0``).
    intercept, avg_intercept : float
    t : float
        Step counter at the start (1 for a fresh fit; ``t_`` of a warm one).
    seed : int
        Seed of the shuffling generator.
    cfg : SGDConfig
        Loss, penalty, schedule and stopping settings (see ``SGDConfig``).
    validation : Validation
        Validation data for ``cfg.early_stopping`` (may be empty); its
        targets are floats (+-1 for classification).

    Returns
    -------
    intercept, avg_intercept : float
    n_iter : int
        Number of epochs run.
    t : float
        Step counter at the end.
    n_updates : int
        Steps with a non-zero loss gradient (perceptron: mistakes).
    last_epoch_updates : int
        The same, for the last epoch only (0 means the last epoch was clean).
    status : int
        0 on success, 1 if the weights overflowed.
    """
    loss_code = cfg.loss
    epsilon = cfg.epsilon
    penalty_code = cfg.penalty
    alpha = cfg.alpha
    l1_ratio = cfg.l1_ratio
    lr_code = cfg.learning_rate
    eta0 = cfg.eta0
    power_t = cfg.power_t
    fit_intercept = cfg.fit_intercept
    intercept_decay = cfg.intercept_decay
    average = cfg.average
    tol = cfg.tol
    early_stopping = cfg.early_stopping
    verbose = cfg.verbose
    n_features = v.shape[0]
    n_train = train_idx.shape[0]
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed)

    # The epoch objective (for the tol rule) needs ||w||^2 and ||w||_1 at
    # every step. With L1 they are recomputed in the update loop, exactly as
    # scikit-learn (before the L1 truncation); with L2 only, ||v||^2 is
    # updated in O(1) from <v, x> and ||x||^2, so the update is a plain axpy.
    need_objective = verbose > 0 or (not early_stopping and tol > -np.inf)
    exact_norms = penalty_code == L1 or penalty_code == ELASTICNET
    # On CSR rows a full pass over the features per step would cost O(p) and
    # undo the sparsity: there ||v||^2 and ||v||_1 follow the touched entries.
    sparse_norms = is_sparse_rows(X) and exact_norms  # constant False on dense
    # ||x||^2 of the step's row (for the O(1) ||v||^2 recursion) is summed in
    # the dot-product loop: no per-row array, and the same sum, in the same
    # order, as a pass of its own.
    track_sq = need_objective and penalty_code == L2

    # The epochs read their rows from contiguous work arrays in visiting
    # order. Reading X in shuffled order stalls every step on a cache miss
    # (the update chain is serial); one gather per epoch has no such
    # dependency. (The work arrays also keep read-only inputs read-only.)
    # CSR rows are read in place through train_idx (work_row): a copy would
    # double the memory of the data for little gain, rows being reached
    # through indptr anyway. Their targets and weights are read in place too
    # (yw, sww are y and sample_weight, indexed by the row): memory O(nnz +
    # n_features), no copy of the per-row arrays (issue 20).
    Xw = epoch_rows(X, train_idx)
    gathered = not is_sparse_rows(X)
    yw = np.empty(n_train if gathered else 0)
    sww = np.empty(n_train if gathered else 0)
    if gathered:
        _gather(y, sample_weight, train_idx, yw, sww)

    wscale = 1.0
    sq_norm = 0.0  # ||w||^2, with exact_norms
    l1_norm = 0.0  # ||w||_1, with exact_norms
    raw_sq = 0.0  # ||v||^2, with track_sq
    for j in range(n_features):
        sq_norm += v[j] * v[j]
        l1_norm += abs(v[j])
    raw_sq = sq_norm
    raw_l1 = l1_norm  # ||v||_1, with sparse_norms
    # ASGD bookkeeping: average = (avg_v + average_a * v) / average_b.
    average_a = 0.0
    average_b = 1.0

    if penalty_code == L2:
        l1_ratio = 0.0
    elif penalty_code == L1:
        l1_ratio = 1.0
    q = np.zeros(n_features if penalty_code == L1 or penalty_code == ELASTICNET else 0)
    u = 0.0

    eta = eta0
    optimal_init = 0.0
    if lr_code == OPTIMAL:
        # Bottou's heuristic: start with the step a typical weight of size
        # 1/sqrt(alpha) would take, so t0 depends on alpha only.
        typw = math.sqrt(1.0 / math.sqrt(alpha))
        initial_eta0 = typw / max(1.0, loss_derivative(loss_code, 1.0, -typw, epsilon))
        optimal_init = 1.0 / (initial_eta0 * alpha)

    best_objective = np.inf
    best_score = -np.inf
    no_improvement = 0
    n_updates = 0
    epoch_updates = 0
    status = 0
    epoch = 0
    for epoch in range(cfg.max_iter):
        if cfg.shuffle:
            _shuffle(train_idx, state)
            refresh_epoch_rows(X, train_idx, Xw)
            if gathered:
                _gather(y, sample_weight, train_idx, yw, sww)
        objective_sum = 0.0
        sumloss = 0.0
        epoch_updates = 0
        if track_sq or sparse_norms:
            # Restart the O(1) recursion from the exact value: no drift.
            raw_sq = 0.0
            raw_l1 = 0.0
            for j in range(n_features):
                raw_sq += v[j] * v[j]
                raw_l1 += abs(v[j])
        for k in range(n_train):
            _prefetch_row(Xw, train_idx, k)
            s = 0.0
            x_sq = 0.0
            r = work_row(Xw, train_idx, k)
            ka, kb = row_span(Xw, r)
            # Unsigned positions and feature indices: numba then skips its
            # negative-index wraparound test on every access, ~1/3 of the
            # time of these two loops on CSR rows (same arithmetic, same w).
            if track_sq:
                for pk in range(ka, kb):
                    j, x = row_entry(Xw, r, np.uintp(pk))
                    s += x * v[np.uintp(j)]
                    x_sq += x * x
            else:
                for pk in range(ka, kb):
                    j, x = row_entry(Xw, r, np.uintp(pk))
                    s += x * v[np.uintp(j)]
            p = wscale * s + intercept
            if lr_code == OPTIMAL:
                eta = 1.0 / (alpha * (optimal_init + t - 1.0))
            elif lr_code == INVSCALING:
                eta = eta0 / t**power_t
            # The k-th row of the epoch: position k of the dense work arrays,
            # row r of y and sample_weight for CSR (there r = train_idx[k]).
            if gathered:
                yi = yw[k]
                swi = sww[k]
            else:
                yi = _target(y, r)
                swi = sample_weight[r]
            if need_objective:
                cur = loss_value(loss_code, yi, p, epsilon)
                sumloss += cur
                objective_sum += cur
                if penalty_code != NO_PENALTY:
                    if track_sq or sparse_norms:
                        sq_norm = raw_sq * (wscale * wscale)
                    if sparse_norms:
                        l1_norm = raw_l1 * wscale
                    # SGD minimises alpha/2 ||w||^2 for the L2 part.
                    objective_sum += alpha * (
                        (1.0 - l1_ratio) * 0.5 * sq_norm + l1_ratio * l1_norm
                    )
            dloss = loss_derivative(loss_code, yi, p, epsilon)
            if dloss < -MAX_DLOSS:
                dloss = -MAX_DLOSS
            elif dloss > MAX_DLOSS:
                dloss = MAX_DLOSS
            update = -eta * dloss * swi

            if penalty_code == L2 or penalty_code == ELASTICNET:
                # Never flip the sign of w when eta * alpha is large: clip at 0.
                c = max(0.0, 1.0 - (1.0 - l1_ratio) * eta * alpha)
                wscale *= c
                sq_norm *= c * c
                l1_norm *= c
                if wscale < WSCALE_MIN:
                    if average > 0:
                        for j in range(n_features):
                            avg_v[j] = (avg_v[j] + average_a * v[j]) / average_b
                        average_a = 0.0
                        average_b = 1.0
                    for j in range(n_features):
                        v[j] *= wscale
                    s *= wscale
                    raw_sq *= wscale * wscale
                    raw_l1 *= wscale
                    wscale = 1.0

            if update != 0.0:
                n_updates += 1
                epoch_updates += 1
                step = update / wscale
                if sparse_norms:
                    for pk in range(ka, kb):
                        j, x = row_entry(Xw, r, np.uintp(pk))
                        ju = np.uintp(j)
                        z = v[ju]
                        vj = z + x * step
                        v[ju] = vj
                        raw_sq += vj * vj - z * z
                        raw_l1 += abs(vj) - abs(z)
                elif exact_norms:
                    sq = 0.0
                    l1 = 0.0
                    # Dense rows only (CSR rows take the branch above):
                    # the span is every feature, so the norms are exact.
                    for pk in range(ka, kb):
                        j, x = row_entry(Xw, r, pk)
                        v[j] += x * step
                        sq += v[j] * v[j]
                        l1 += abs(v[j])
                    sq_norm = sq * (wscale * wscale)
                    l1_norm = l1 * wscale
                else:
                    for pk in range(ka, kb):
                        j, x = row_entry(Xw, r, np.uintp(pk))
                        v[np.uintp(j)] += x * step
                    if track_sq:
                        # ||v + step x||^2 = ||v||^2 + step (2 <v, x> + step ||x||^2)
                        raw_sq = max(0.0, raw_sq + step * (2.0 * s + step * x_sq))
                if fit_intercept:
                    intercept += update * intercept_decay

            if average > 0 and average <= t:
                num_iter = t - average + 1.0
                mu = 1.0 / num_iter
                if update != 0.0:
                    corr = -average_a * update / wscale
                    for pk in range(ka, kb):
                        j, x = row_entry(Xw, r, np.uintp(pk))
                        avg_v[np.uintp(j)] += x * corr
                if num_iter > 1.0:
                    average_b /= 1.0 - mu
                average_a += mu * average_b * wscale
                avg_intercept += (intercept - avg_intercept) / num_iter

            if penalty_code == L1 or penalty_code == ELASTICNET:
                # Cumulative L1 penalty (Tsuruoka, Tsujii & Ananiadou 2009):
                # u is the total L1 step so far, q[j] what w_j has received.
                # Dense rows span every feature; CSR rows their own entries.
                u += l1_ratio * eta * alpha
                for pk in range(ka, kb):
                    j, x = row_entry(Xw, r, np.uintp(pk))
                    ju = np.uintp(j)
                    z = v[ju]
                    qj = q[ju]
                    vj = z
                    if wscale * z > 0.0:
                        vj = max(0.0, z - (u + qj) / wscale)
                    elif wscale * z < 0.0:
                        vj = min(0.0, z + (u - qj) / wscale)
                    v[ju] = vj
                    q[ju] = qj + wscale * (vj - z)
                    if sparse_norms:
                        raw_sq += vj * vj - z * z
                        raw_l1 += abs(vj) - abs(z)
            t += 1.0

        finite = math.isfinite(intercept) and math.isfinite(wscale)
        for j in range(n_features):
            if not math.isfinite(v[j]):
                finite = False
                break
        if not finite:
            status = 1
            break

        if early_stopping:
            score = _validation_score(
                validation.X, validation.y, validation.sample_weight, v, wscale,
                intercept, cfg.score,
            )
            if verbose > 0:
                print("-- Epoch", epoch + 1, "Bias:", intercept, "T:", t - 1.0,
                      "Avg. loss:", sumloss / max(n_train, 1),
                      "Validation score:", score)
            best_score, no_improvement = plateau_update(
                score, best_score, no_improvement, tol, True)
        else:
            objective = objective_sum / max(n_train, 1)
            if verbose > 0:
                norm = 0.0
                for j in range(n_features):
                    norm += v[j] * v[j]
                print("-- Epoch", epoch + 1, "Norm:", wscale * math.sqrt(norm),
                      "Bias:", intercept, "T:", t - 1.0,
                      "Avg. loss:", sumloss / max(n_train, 1), "Objective:", objective)
            best_objective, no_improvement = plateau_update(
                objective, best_objective, no_improvement, tol, False)

        if no_improvement >= cfg.n_iter_no_change:
            if lr_code == ADAPTIVE and eta > 1e-6:
                eta = eta / 5.0
                no_improvement = 0
            else:
                if verbose > 0:
                    print("Convergence after", epoch + 1, "epochs")
                break

    if average > 0:
        for j in range(n_features):
            avg_v[j] = (avg_v[j] + average_a * v[j]) / average_b
    for j in range(n_features):
        v[j] *= wscale
    return intercept, avg_intercept, epoch + 1, t, n_updates, epoch_updates, status
