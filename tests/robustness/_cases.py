"""The cases of careless and extreme input, their oracles and the outcome rules.

Every public skml estimator (``skml.utils.discovery.all_estimators()``, with
the first instance of ``tests/estimator_instances.py``) and scikit-learn's
class of the same name, configured alike, go through the same cases on the
same small data (60 rows of iris: 4 features and 3 classes; for regressors 3
features and the petal width as target).

Outcomes
--------
Each run of a case on one library ends in exactly one of:

``clear``
    a ``ValueError`` or ``TypeError`` (not numpy's ufunc or axis errors)
    whose message matches the case's keywords (the parameter's
    name for an invalid hyper-parameter, "nan"/"finite" for NaN, "weight" for
    weights, ...) and is not one of Python's or numpy's internal messages
    (``INTERNAL_MESSAGES``: broadcasting, indexing, "'<' not supported", ...).
``accepted``
    an answer that passes the case's oracle (below).
``wrong``
    a silent wrong answer: the answer fails the oracle, contains NaN or inf,
    or the input was invalid (the case expects an error) and was taken.
``crash``
    any other exception (``IndexError``, ``ZeroDivisionError``, numba's
    ``TypingError``, ...), the process dying, or no answer within the
    runner's time limit.
``unclear``
    a ``ValueError``/``TypeError`` whose message does not name the problem.

Oracles
-------
``identical``
    value-preserving conversions (list, pandas, integer dtypes against the
    same integers as float64, Fortran order, strided views, read-only
    arrays, relabelled classes, pickle, same seed twice, ``n_jobs``): every
    output (predict, predict_proba, decision_function, transform,
    kneighbors, score_samples) equals the reference run's to
    ``IDENTICAL_RTOL`` of its largest magnitude; labels exactly.
``quality``
    magnitudes (``X * 1e300``, ``X * 1e-300``, ``X + 1e8``), float32, a NaN
    cell, a constant extra feature, one feature, sparse input, a categorical
    column: the outputs are finite and the quality (accuracy, R², adjusted
    Rand index against the classes, or the leave-one-out 3-NN accuracy in
    the first two columns of a transform's output or from the returned
    neighbours) is at least the clean run's minus ``QUALITY_TOL``. Where the
    test instance's model itself changes under the transformation
    (``NOT_INVARIANT``, each with its reason: ``Ridge(alpha=1)`` at
    ``X * 1e-300`` rightly predicts the mean), an answer at least as good as
    the other library's on the same input, minus ``QUALITY_TOL``, is right too.
``finite``
    one sample, all-identical rows, one class, negative weights, empty
    predict: finite outputs of the right length (identical rows must also
    get identical outputs from a fitted function; one class must be
    predicted). NaN or inf at predict time: finite outputs, the other rows'
    answers unchanged (a transform may keep the missing cell's row missing,
    as scikit-learn's scalers do).
``error``
    invalid input (empty X, no feature, 1-d/3-d/complex X, NaN/zero/wrong
    length weights, NaN in y, continuous or mixed labels for a classifier,
    invalid hyper-parameters, predict before fit, wrong number of features):
    only a clear error is right.

Comparison with scikit-learn
----------------------------
Outcomes are ranked ``wrong``/``crash`` < ``unclear`` < ``clear`` <=
``accepted``; for cases of valid input that scikit-learn can answer (those
with ``expect="answer"``: NaN in X, one class, labels, containers and dtypes,
magnitudes, sparse X, one feature, ...) an answer ranks above a refusal.
scikit-learn is "better" on a case when its rank is higher.
"""

from __future__ import annotations

import copy
import inspect
import numbers
import pickle
import re
import time
import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone, is_classifier, is_clusterer, is_regressor
from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score, r2_score
from sklearn.utils import get_tags
from sklearn.utils.discovery import all_estimators as sklearn_all_estimators
from sklearn.utils.validation import has_fit_parameter

from skml.utils._param_validation import Interval, Options, _satisfies
from skml.utils.discovery import all_estimators

from ..estimator_instances import TEST_PARAMS

# Answers of value-preserving conversions must agree to rounding.
IDENTICAL_RTOL = 1e-6
# Accuracy, R², ARI and 3-NN accuracy are in [0, 1] (R² can be negative): 0.1
# is six of the 60 rows, well above the seed noise of the small instances
# and far below the drop to chance (0.33) or zero that breakage gives.
QUALITY_TOL = 0.1
N_ROWS = 60

# Instances other than the first of estimator_instances.py, where that one
# cannot show a wrong answer: one mixture component gives the same labels for
# any input (ARI 0).
ROBUSTNESS_PARAMS = {
    "GaussianMixture": {"n_components": 3, "n_init": 2, "max_iter": 20},
}

METHODS = ("predict", "predict_proba", "decision_function", "transform",
           "kneighbors", "score_samples")

# Messages of Python, numpy, scipy or numba internals: they describe the
# failing line, not the user's mistake.
INTERNAL_MESSAGES = re.compile(
    "|".join([
        r"could not broadcast", r"operands could not be broadcast",
        r"index -?\d+ is out of bounds", r"out of bounds for axis",
        r"setting an array element with a sequence", r"unsupported operand type",
        r"has no len", r"not supported between instances", r"ufunc",
        r"only integer scalar arrays", r"too many indices", r"tuple index out of range",
        r"can't multiply sequence", r"unhashable type", r"must be real number",
        r"argument must be a string or a (real )?number", r"object is not subscriptable",
        r"object is not iterable", r"[Cc]annot cast", r"No loop matching", r"nopython",
        r"array must not contain infs or NaNs", r"SVD did not converge",
        r"[Ss]ingular matrix", r"not positive definite", r"takes \d+ positional argument",
        r"missing \d+ required positional", r"got an unexpected keyword",
        r"buffer source array is read-only", r"output array is read-only",
        r"cannot reshape array", r"all the input array dimensions",
        r"zero-size array to reduction", r"math domain error", r"division by zero",
        r"non-broadcastable output",
    ])
)


# On valid input an error may name a real property of the data other than
# the case's own (bool features make QDA's class covariances singular).
DATA_PROBLEM = re.compile(
    r"full rank|collinear|constant feature|zero variance|linearly separable|"
    r"identical|distinct|reg_param|regulari[sz]",
    flags=re.IGNORECASE,
)


# ---------------------------------------------------------------------------
# Data


class Data:
    """The small datasets, built once (60 rows of iris, classes interleaved)."""

    def __init__(self):
        iris = load_iris()
        rows = np.r_[0:20, 50:70, 100:120]
        order = np.random.RandomState(0).permutation(len(rows))
        rows = rows[order]
        self.X_clf = np.ascontiguousarray(iris.data[rows], dtype=np.float64)
        self.y_clf = iris.target[rows].astype(np.int64)
        self.X_reg = np.ascontiguousarray(iris.data[rows][:, :3], dtype=np.float64)
        self.y_reg = iris.data[rows][:, 3].astype(np.float64)
        self.class_names = np.array(iris.target_names)  # sorted as 0, 1, 2


DATA = Data()


# ---------------------------------------------------------------------------
# The estimators of both libraries


def skml_estimators():
    """``{name: class}`` of every public skml estimator."""
    return dict(all_estimators())


def sklearn_estimators():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(sklearn_all_estimators())


def skml_instance(name, cls=None):
    """The first test instance of ``estimator_instances.py``, seeded."""
    cls = cls or skml_estimators()[name]
    params = dict(TEST_PARAMS.get(name, [{}])[0])
    params.update(ROBUSTNESS_PARAMS.get(name, {}))
    est = cls(**params)
    return seeded(est)


def seeded(est):
    """``random_state=0`` wherever it is None, nested estimators included."""
    params = est.get_params(deep=True)
    fixed = {k: 0 for k, v in params.items()
             if (k == "random_state" or k.endswith("__random_state")) and v is None}
    if fixed:
        est.set_params(**fixed)
    return est


class NoCounterpart(Exception):
    pass


def _to_sklearn(value, sk_classes, keep_all=True):
    if isinstance(value, BaseEstimator) and type(value).__module__.startswith("skml"):
        name = type(value).__name__
        if name not in sk_classes:
            raise NoCounterpart(name)
        sk_cls = sk_classes[name]
        accepted = inspect.signature(sk_cls).parameters
        params = {}
        for key, v in value.get_params(deep=False).items():
            if key in accepted:
                params[key] = _to_sklearn(v, sk_classes)
        return sk_cls(**params)
    if isinstance(value, list):
        return [_to_sklearn(v, sk_classes) for v in value]
    if isinstance(value, tuple):
        return tuple(_to_sklearn(v, sk_classes) for v in value)
    return value


def sklearn_candidates(name, skml_est):
    """scikit-learn instances to try, best match first.

    The skml instance's parameters that scikit-learn also has; then only the
    ones the test instance sets explicitly; then scikit-learn's defaults.
    """
    sk_classes = sklearn_estimators()
    if name not in sk_classes:
        return []
    sk_cls = sk_classes[name]
    accepted = inspect.signature(sk_cls).parameters
    candidates = []
    try:
        candidates.append(seeded(_to_sklearn(skml_est, sk_classes)))
    except (NoCounterpart, TypeError, ValueError):
        pass
    explicit = dict(TEST_PARAMS.get(name, [{}])[0])
    explicit.update(ROBUSTNESS_PARAMS.get(name, {}))
    try:
        params = {k: _to_sklearn(v, sk_classes) for k, v in explicit.items() if k in accepted}
        candidates.append(seeded(sk_cls(**params)))
    except (NoCounterpart, TypeError, ValueError):
        pass
    if all(p.default is not inspect.Parameter.empty or p.kind is p.VAR_KEYWORD
           for p in accepted.values()):
        candidates.append(seeded(sk_cls()))
    return candidates


# ---------------------------------------------------------------------------
# Running an estimator and judging its outputs


def _kind(est):
    if is_classifier(est):
        return "classifier"
    if is_regressor(est):
        return "regressor"
    if is_clusterer(est) or (hasattr(est, "predict") and not hasattr(est, "transform")
                             and not hasattr(est, "kneighbors")):
        return "cluster"
    if hasattr(est, "kneighbors"):
        return "neighbors"
    return "transformer"


class Subject:
    """One library's estimator for one name: how to fit it and read its answers."""

    def __init__(self, library, name, template):
        self.library = library
        self.name = name
        self.template = template
        self.kind = _kind(template)
        tags = get_tags(template)
        self.supervised = bool(tags.target_tags.required)
        # A stateless transformer (requires_fit=False, as Normalizer) answers
        # before fit by design.
        self.requires_fit = bool(tags.requires_fit)
        self.sample_weight = has_fit_parameter(template, "sample_weight")
        self.params = template.get_params(deep=False)
        if not any(hasattr(template, m) for m in METHODS):
            self.fit_mode = "fit_predict" if hasattr(template, "fit_predict") else "fit_transform"
        else:
            self.fit_mode = "fit"
        if self.kind == "regressor":
            self.X, self.y = DATA.X_reg, DATA.y_reg
        elif self.kind == "classifier" and not tags.classifier_tags.multi_class:
            # Binary only: setosa against the rest.
            self.X, self.y = DATA.X_clf, (DATA.y_clf > 0).astype(np.int64)
        else:
            self.X, self.y = DATA.X_clf, DATA.y_clf
        self.y_true = self.y
        # Labels are what a classifier or a supervised transformer learns.
        self.labelled = self.supervised and self.kind != "regressor"

    def make(self):
        return clone(self.template)

    # -- running -------------------------------------------------------------

    def fit(self, X, y="default", sample_weight=None, est=None):
        """Fit a fresh (or the given) estimator; returns it and the fit-time output."""
        est = self.make() if est is None else est
        y = self.y if isinstance(y, str) and y == "default" else y
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        args = (X, y) if self.supervised else (X,)
        if self.fit_mode == "fit_transform":
            return est, {"embedding": _dense(est.fit_transform(*args, **kwargs))}
        if self.fit_mode == "fit_predict":
            return est, {"labels": np.asarray(est.fit_predict(*args, **kwargs))}
        est.fit(*args, **kwargs)
        return est, None

    def outputs(self, est, X):
        """Every available post-fit output on ``X``; the first error propagates."""
        out = {}
        errors = []
        for method in METHODS:
            if not hasattr(est, method):
                continue
            try:
                result = getattr(est, method)(X)
            except NotImplementedError:
                continue
            except Exception as exc:  # keep the worst error over the methods
                errors.append(exc)
                continue
            if method == "kneighbors":
                out["kneighbors_dist"], out["kneighbors_ind"] = map(np.asarray, result)
            else:
                out[method] = _dense(result)
        if errors:
            raise max(errors, key=_error_severity)
        return out

    def run(self, X, y="default", sample_weight=None, X_eval=None):
        """Fit on ``X`` and return the outputs on ``X_eval`` (default ``X``)."""
        est, fit_out = self.fit(X, y, sample_weight)
        if fit_out is not None:
            return est, fit_out
        return est, self.outputs(est, X if X_eval is None else X_eval)

    @cached_property
    def clean(self):
        """The fitted estimator and outputs on the clean data."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.run(self.X)

    @cached_property
    def clean_quality(self):
        return quality(self, self.clean[1])

    def has_post_fit(self):
        return self.fit_mode == "fit"


def _dense(a):
    if sp.issparse(a):
        return a.toarray()
    if hasattr(a, "to_numpy"):
        return a.to_numpy()
    return np.asarray(a)


def _error_severity(exc):
    if isinstance(exc, (ValueError, TypeError)) and not _is_internal_type(exc):
        return 1
    return 2


def _is_internal_type(exc):
    # numpy's UFuncTypeError, AxisError, ... and numba's errors describe the
    # failing line. A LinAlgError is judged by its message: raised on purpose
    # it can say what to do ("not full rank ... increase reg_param"), raised
    # by LAPACK it says "Singular matrix" (an internal message).
    if type(exc).__name__ == "LinAlgError":
        return False
    module = type(exc).__module__ or ""
    return module.startswith(("numpy", "numba", "scipy"))


def all_finite(out):
    for value in out.values():
        a = np.asarray(value)
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            return False
    return True


def same_outputs(a, b, rtol=IDENTICAL_RTOL):
    """Whether two output dicts agree (floats to ``rtol`` of the largest value)."""
    if set(a) != set(b):
        return False
    for key in a:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        if x.shape != y.shape:
            return False
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
                if not np.array_equal(x, y, equal_nan=True):
                    return False
                continue
            scale = max(float(np.max(np.abs(y), initial=0.0)), 1e-300)
            if not np.allclose(x, y, rtol=rtol, atol=rtol * scale):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


def _knn_vote(neighbours, y):
    votes = y[neighbours]
    return np.array([np.bincount(row).argmax() for row in votes])


def knn_accuracy(Z, y, k=3):
    """Leave-one-out k-NN accuracy in the first two output columns (scale-free).

    Two columns, not all: a full-rank rotation (PCA keeping every component,
    with any orthonormal basis) would preserve the neighbours of wrong
    components; the leading two must carry the structure.
    """
    Z = np.asarray(Z, dtype=np.float64).reshape(len(Z), -1)[:, :2]
    if not np.all(np.isfinite(Z)):
        return float("nan")
    scale = np.max(np.abs(Z), initial=0.0)
    if scale > 0:
        Z = Z / scale
    D = np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=2)
    np.fill_diagonal(D, np.inf)
    nearest = np.argsort(D, axis=1, kind="stable")[:, :k]
    return float(np.mean(_knn_vote(nearest, y) == y))


def neighbour_accuracy(ind, y, k=3):
    """k-NN vote of returned neighbours, the query itself left out."""
    ind = np.asarray(ind)
    rows = []
    for i, row in enumerate(ind):
        row = [j for j in row if j != i and 0 <= j < len(y)][:k]
        rows.append(row if row else [i])
    pred = np.array([np.bincount(y[r]).argmax() for r in rows])
    return float(np.mean(pred == y))


def quality(subject, out, y_true=None):
    """One number in about [0, 1] measuring the answer against the truth."""
    y = subject.y_true if y_true is None else y_true
    if not all_finite(out):
        return float("nan")
    kind = subject.kind
    if "embedding" in out:
        return knn_accuracy(out["embedding"], y)
    if "labels" in out:
        return float(adjusted_rand_score(y, out["labels"]))
    if kind == "classifier":
        return float(np.mean(np.asarray(out["predict"]) == y))
    if kind == "regressor":
        return float(r2_score(y, out["predict"]))
    if kind == "cluster":
        return float(adjusted_rand_score(y, out["predict"]))
    if kind == "neighbors":
        return neighbour_accuracy(out["kneighbors_ind"], y)
    if "transform" not in out and "score_samples" in out:
        # A generative model scoring points (GAN's discriminator logit).
        return knn_accuracy(np.reshape(out["score_samples"], (-1, 1)), y)
    return knn_accuracy(out["transform"], y)


# ---------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    """One case: ``expect`` is "error", "answer" or "either"; see the module doc."""

    id: str
    group: str
    expect: str
    oracle: str
    keywords: str
    run: object  # callable(subject) -> raw answer dict
    applies: object = None  # callable(subject) -> bool
    param: tuple | None = None

    def applicable(self, subject):
        return self.applies is None or bool(self.applies(subject))

    def meta(self, estimator=None):
        return {"id": self.id, "group": self.group, "expect": self.expect,
                "oracle": self.oracle, "estimator": estimator}


def raw_answer(**fields):
    fields.setdefault("status", "answer")
    return fields


def raw_error(case, exc):
    message = f"{type(exc).__name__}: {exc}"
    text = str(exc)
    if not isinstance(exc, (ValueError, TypeError)):
        clarity = "crash"
    elif _is_internal_type(exc) or INTERNAL_MESSAGES.search(text):
        clarity = "unclear"
    elif case.keywords and not re.search(case.keywords, text, flags=re.IGNORECASE) and not (
        case.expect != "error" and DATA_PROBLEM.search(text)
    ):
        clarity = "unclear"
    else:
        clarity = "clear"
    return {"status": "error", "clarity": clarity, "message": message[:300]}


def not_applicable(reason):
    return {"status": "n/a", "message": reason}


def quality_answer(subject, out, ref_quality, y_true=None, check_rows=None):
    raw = raw_answer(finite=all_finite(out), quality=quality(subject, out, y_true),
                     ref_quality=ref_quality, clean_quality=subject.clean_quality,
                     kind=subject.kind)
    if check_rows is not None:
        raw["property"] = check_rows
    return raw


def identical_answer(out, ref, note=None):
    raw = raw_answer(finite=all_finite(out), identical=same_outputs(out, ref))
    if note:
        raw["note"] = note
    return raw


def _fit_eval(subject, X, y="default", sample_weight=None, X_eval=None):
    return subject.run(X, y, sample_weight, X_eval)[1]


# -- NaN and inf --------------------------------------------------------------


def _with_cell(X, value, row=3, col=1):
    X = X.copy()
    X[row, col] = value
    return X


def _finite_except_transform_row(out, row):
    """Finite outputs, except that a transform may keep a missing cell's row missing.

    scikit-learn's scalers pass NaN through ("maintained in transform"), a
    contract, not a failure; predictions and neighbours must be finite.
    """
    keep = np.arange(len(next(iter(out.values())))) != row if out else None
    for key, value in out.items():
        a = np.asarray(value)
        if key in ("transform", "embedding") and a.ndim and len(a) == len(keep):
            a = a[keep]
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            return False
    return True


def _case_bad_cell_fit(value):
    def run(s):
        X_bad = _with_cell(s.X, value)
        est, fit_out = s.fit(X_bad)
        if fit_out is not None:
            return quality_answer(s, fit_out, s.clean_quality)
        finite = _finite_except_transform_row(s.outputs(est, X_bad), 3)
        # The model learnt with one bad cell, judged on the clean rows.
        raw = quality_answer(s, s.outputs(est, s.X), s.clean_quality)
        raw["finite"] = raw["finite"] and finite
        return raw
    return run


def _case_bad_cell_predict(value):
    def run(s):
        est = copy.deepcopy(s.clean[0])
        out = s.outputs(est, _with_cell(s.X, value))
        # Other rows must keep their clean answers (rows are predicted apart).
        keep = np.arange(len(s.X)) != 3
        ref = {k: np.asarray(v)[keep] for k, v in s.clean[1].items()}
        mine = {k: np.asarray(v)[keep] for k, v in out.items()
                if k != "kneighbors_ind" and k != "kneighbors_dist"}
        ref = {k: v for k, v in ref.items() if k in mine}
        return raw_answer(finite=_finite_except_transform_row(out, 3),
                          identical=same_outputs(mine, ref))
    return run


# -- Degenerate shapes --------------------------------------------------------


def _case_empty_X(s):
    return raw_answer(finite=all_finite(_fit_eval(s, s.X[:0], _y(s, s.y[:0]))))


def _case_no_features(s):
    return raw_answer(finite=all_finite(_fit_eval(s, s.X[:, :0], _y(s, s.y))))


def _y(s, y):
    return y if s.supervised else None


def _case_one_sample(s):
    out = _fit_eval(s, s.X[:1], _y(s, s.y[:1]))
    ok = all(np.asarray(v).shape[:1] == (1,) for v in out.values())
    return raw_answer(finite=all_finite(out), property=ok)


def _case_one_feature(s):
    col = 2  # petal length: informative for every target
    out = _fit_eval(s, np.ascontiguousarray(s.X[:, [col]]))
    # One feature is another model (a unit-norm scaling of one feature is
    # constant, three Gaussians on petal length alone find ARI 0.68 where
    # four features give 1.0): the reference is scikit-learn on the same
    # input, and without one only finiteness is checked.
    return quality_answer(s, out, None)


def _case_constant_feature(s):
    X = np.column_stack([s.X, np.full(len(s.X), 3.0)])
    return quality_answer(s, _fit_eval(s, X), s.clean_quality)


def _case_identical_rows(s):
    X = np.repeat(s.X[:1], len(s.X), axis=0)
    out = _fit_eval(s, X)
    # A fitted function gives identical rows identical answers; embeddings,
    # fit-time labels and neighbour indices break ties arbitrarily.
    same = True
    for key, value in out.items():
        if key in ("embedding", "labels", "kneighbors_ind"):
            continue
        a = np.asarray(value)
        if a.dtype.kind in "fc":
            same &= bool(np.allclose(a, a[:1], rtol=1e-9, atol=1e-12, equal_nan=True))
        else:
            same &= bool(np.all(a == a[:1]))
    return raw_answer(finite=all_finite(out), property=same)


# -- Labels -----------------------------------------------------------------


def _case_one_class(s):
    y = np.zeros(len(s.X), dtype=np.int64)
    out = _fit_eval(s, s.X, y)
    ok = True
    if "predict" in out:
        ok = bool(np.all(np.asarray(out["predict"]) == 0))
    return raw_answer(finite=all_finite(out), property=ok)


def _relabelled(mapping):
    def run(s):
        y_new = mapping(s.y)
        out = _fit_eval(s, s.X, y_new)
        if "predict" in out:
            lookup = {lab: i for i, lab in enumerate(mapping(np.arange(3)))}
            back = np.array([lookup.get(v, -1) if not isinstance(v, float) or v == v else -1
                             for v in np.asarray(out["predict"]).tolist()])
            out = dict(out, predict=back)
        return identical_answer(out, s.clean[1])
    return run


def _labels_str(y):
    return DATA.class_names[y]


def _labels_object(y):
    return DATA.class_names[y].astype(object)


def _labels_float(y):
    return y.astype(np.float64)


def _labels_noncontig(y):
    return np.array([-5, 3, 100])[y]


def _case_labels_mixed(s):
    y = np.array([1, "b", "c"], dtype=object)[s.y]
    return raw_answer(finite=all_finite(_fit_eval(s, s.X, y)))


def _case_labels_continuous(s):
    y = s.y + np.random.RandomState(0).uniform(0.01, 0.99, len(s.y))
    return raw_answer(finite=all_finite(_fit_eval(s, s.X, y)))


def _case_y_bad(value):
    def run(s):
        y = s.y.astype(np.float64)
        y[0] = value
        return raw_answer(finite=all_finite(_fit_eval(s, s.X, y)))
    return run


# -- Containers and dtypes --------------------------------------------------


def _container(convert):
    """A conversion that keeps the values: answers identical to the clean run."""
    def run(s):
        Xc = convert(s.X)
        out = _fit_eval(s, Xc)
        return identical_answer(out, s.clean[1])
    return run


def _pandas_numeric(X):
    import pandas as pd

    return pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])


def _pandas_object(X):
    import pandas as pd

    return pd.DataFrame(X.astype(object), columns=[f"f{i}" for i in range(X.shape[1])])


def _strided(X):
    big = np.zeros((2 * X.shape[0], 2 * X.shape[1]))
    big[::2, ::2] = X
    return big[::2, ::2]


def _readonly(X):
    X = X.copy()
    X.setflags(write=False)
    return X


def _case_readonly(s):
    X = _readonly(s.X)
    y = s.y.copy()
    y.setflags(write=False)
    return identical_answer(_fit_eval(s, X, y), s.clean[1])


def _int_data(s, dtype):
    if dtype is bool:
        return s.X > np.median(s.X, axis=0)
    return np.round(s.X * 10).astype(dtype)


def _case_int_dtype(dtype):
    def run(s):
        Xi = _int_data(s, dtype)
        ref = _fit_eval(s, Xi.astype(np.float64))
        return identical_answer(_fit_eval(s, Xi), ref)
    return run


def _case_float32(s):
    return quality_answer(s, _fit_eval(s, s.X.astype(np.float32)), s.clean_quality)


def _case_pandas_categorical(s):
    import pandas as pd

    df = _pandas_numeric(s.X)
    col = df.columns[0]
    codes = np.digitize(s.X[:, 0], np.quantile(s.X[:, 0], [1 / 3, 2 / 3]))
    df[col] = pd.Categorical(np.array(["low", "mid", "top"])[codes])
    X_codes = s.X.copy()
    X_codes[:, 0] = codes
    ref = quality(s, _fit_eval(s, X_codes))
    return quality_answer(s, _fit_eval(s, df), ref)


# -- Magnitudes ----------------------------------------------------------------


def _case_magnitude(transform):
    def run(s):
        return quality_answer(s, _fit_eval(s, transform(s.X)), s.clean_quality)
    return run


# -- Sparse and dimensions ------------------------------------------------------


def _sparse_values(X):
    X = X.copy()
    X[X < np.quantile(X, 0.3, axis=0)] = 0.0
    return X


def _case_sparse(s):
    Xd = _sparse_values(s.X)
    ref = quality(s, _fit_eval(s, Xd))
    return quality_answer(s, _fit_eval(s, sp.csr_matrix(Xd)), ref)


def _case_fit_shape(convert):
    def run(s):
        return raw_answer(finite=all_finite(_fit_eval(s, convert(s.X))))
    return run


# -- Sample weights -------------------------------------------------------------


def _case_weights(make):
    def run(s):
        if not s.sample_weight:
            return not_applicable(f"{type(s.template).__name__}.fit takes no sample_weight")
        return raw_answer(finite=all_finite(_fit_eval(s, s.X, sample_weight=make(len(s.X)))))
    return run


def _negative_weights(n):
    w = np.ones(n)
    w[0] = -1.0
    return w


def _nan_weights(n):
    w = np.ones(n)
    w[0] = np.nan
    return w


# -- Hyper-parameters -----------------------------------------------------------


_STRING = "__invalid__"


def invalid_values(constraints):
    """Values outside every constraint, derived from the constraints themselves."""
    candidates = [_STRING]
    for c in constraints:
        if isinstance(c, Interval):
            step = 1 if c.type is numbers.Integral else 0.5
            if c.left is not None:
                low = c.left if c.closed in ("right", "neither") else c.left - step
                candidates.append(int(low) if c.type is numbers.Integral else float(low))
            if c.right is not None:
                high = c.right if c.closed in ("left", "neither") else c.right + step
                candidates.append(int(high) if c.type is numbers.Integral else float(high))
            if c.type is numbers.Integral:
                candidates.append(1.5)
            else:
                candidates.append(float("nan"))
        elif isinstance(c, Options) and not all(isinstance(o, str) for o in c.options):
            candidates.append(-123)
    out = []
    for value in candidates:
        if any(_satisfies(value, c) for c in constraints):
            continue
        if any(_same(value, v) for v in out):
            continue
        out.append(value)
    return out[:4]


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and np.isnan(a) and np.isnan(b):
        return True
    return a == b


def _case_param(param, value):
    def run(s):
        if param not in s.params:
            return not_applicable(f"{type(s.template).__name__} has no parameter {param!r}")
        est = s.make().set_params(**{param: value})
        est, fit_out = s.fit(s.X, est=est)
        out = fit_out if fit_out is not None else s.outputs(est, s.X)
        return raw_answer(finite=all_finite(out), note="accepted")
    return run


# -- Fit / predict protocol -------------------------------------------------------


def _case_predict_before_fit(s):
    est = s.make()
    return raw_answer(finite=all_finite(s.outputs(est, s.X)))


def _case_wrong_n_features(s):
    est = copy.deepcopy(s.clean[0])
    return raw_answer(finite=all_finite(s.outputs(est, s.X[:, :-1])))


def _case_empty_predict(s):
    est = copy.deepcopy(s.clean[0])
    out = s.outputs(est, s.X[:0])
    return raw_answer(finite=all_finite(out),
                      property=all(np.asarray(v).shape[:1] == (0,) for v in out.values()))


def _case_refit_other_shape(s):
    est, _ = s.fit(s.X)
    X2 = np.ascontiguousarray(s.X[:, :-1])
    est, fit_out = s.fit(X2, est=est)
    out = fit_out if fit_out is not None else s.outputs(est, X2)
    ok = getattr(est, "n_features_in_", X2.shape[1]) == X2.shape[1]
    raw = identical_answer(out, _fit_eval(s, X2))
    raw["property"] = bool(ok)
    return raw


# -- Determinism, pickle, side effects ------------------------------------------------


def _case_same_random_state(s):
    return identical_answer(_fit_eval(s, s.X), _fit_eval(s, s.X))


def _case_n_jobs(s):
    def run(n_jobs):
        est = s.make().set_params(n_jobs=n_jobs)
        est, fit_out = s.fit(s.X, est=est)
        return fit_out if fit_out is not None else s.outputs(est, s.X)
    return identical_answer(run(2), run(1))


def _case_unmodified(s):
    X, y = s.X.copy(), s.y.copy()
    w = np.linspace(0.5, 1.5, len(X)) if s.sample_weight else None
    w0 = None if w is None else w.copy()
    est, fit_out = s.fit(X, y, sample_weight=w)
    if fit_out is None:
        s.outputs(est, X)
    same = np.array_equal(X, s.X) and np.array_equal(y, s.y)
    if w is not None:
        same &= np.array_equal(w, w0)
    return raw_answer(finite=True, identical=bool(same))


def _case_pickle(s):
    # Done by the runner: dumped here, loaded in a fresh process.
    return not_applicable("run by the runner in a fresh process")


# ---------------------------------------------------------------------------
# The case list


_NAN = "nan|finite|infinit|missing"
_INF = "inf|finite|large"
_ANY = ""  # any message that is not an internal one


def _is_labelled(s):
    return s.labelled


def _is_supervised(s):
    return s.supervised


def _has_post_fit(s):
    return s.has_post_fit()


def _needs_fit(s):
    return s.requires_fit and s.has_post_fit()


def _takes_weights(s):
    return s.sample_weight


BASE_CASES = [
    Case("nan_fit", "NaN/inf", "answer", "quality", _NAN, _case_bad_cell_fit(np.nan)),
    Case("inf_fit", "NaN/inf", "either", "quality", _INF, _case_bad_cell_fit(np.inf)),
    Case("nan_predict", "NaN/inf", "answer", "rows", _NAN, _case_bad_cell_predict(np.nan),
         _has_post_fit),
    Case("inf_predict", "NaN/inf", "either", "rows", _INF, _case_bad_cell_predict(np.inf),
         _has_post_fit),
    Case("empty_X", "shapes", "error", "error", r"0 sample|empty|at least|minimum|n_samples",
         _case_empty_X),
    Case("no_features", "shapes", "error", "error", r"0 feature|feature", _case_no_features),
    Case("one_sample", "shapes", "either", "finite",
         r"sample|class|at least|n_\w+|perplexity|split|fold|component|cluster|neighbo",
         _case_one_sample),
    Case("one_feature", "shapes", "answer", "quality", r"feature|component", _case_one_feature),
    Case("constant_feature", "shapes", "answer", "quality",
         r"feature|constant|variance|singular|collinear|rank", _case_constant_feature),
    Case("identical_rows", "shapes", "either", "finite",
         r"identical|constant|singular|collinear|variance|distinct|rank|duplicate|class|"
         r"cluster|separa|perplexity|neighbo|zero", _case_identical_rows),
    Case("one_class", "labels", "answer", "finite", r"class|label|target", _case_one_class,
         _is_labelled),
    Case("labels_str", "labels", "answer", "identical", r"label|class|string|str|type",
         _relabelled(_labels_str), _is_labelled),
    Case("labels_object", "labels", "answer", "identical", r"label|class|object|type",
         _relabelled(_labels_object), _is_labelled),
    Case("labels_float", "labels", "answer", "identical", r"label|class|float|type",
         _relabelled(_labels_float), _is_labelled),
    Case("labels_noncontig", "labels", "answer", "identical", r"label|class",
         _relabelled(_labels_noncontig), _is_labelled),
    Case("labels_mixed", "labels", "error", "error", r"type|mix|label|string|number",
         _case_labels_mixed, _is_labelled),
    Case("labels_continuous", "labels", "error", "error", r"continuous|class|label|target",
         _case_labels_continuous, _is_labelled),
    Case("y_nan", "labels", "error", "error", _NAN, _case_y_bad(np.nan), _is_supervised),
    Case("y_inf", "labels", "error", "error", _INF, _case_y_bad(np.inf), _is_supervised),
    Case("X_list", "containers", "answer", "identical", r"list|type",
         _container(np.ndarray.tolist)),
    Case("pandas_numeric", "containers", "answer", "identical", r"DataFrame|pandas|type",
         _container(_pandas_numeric)),
    Case("pandas_categorical", "containers", "answer", "quality",
         r"categor|string|str\b|convert|dtype|numeric|object", _case_pandas_categorical),
    Case("pandas_object", "containers", "answer", "identical", r"object|dtype|convert",
         _container(_pandas_object)),
    Case("X_int8", "containers", "answer", "identical", r"int|dtype", _case_int_dtype(np.int8)),
    Case("X_uint8", "containers", "answer", "identical", r"int|dtype", _case_int_dtype(np.uint8)),
    Case("X_bool", "containers", "answer", "identical", r"bool|dtype", _case_int_dtype(bool)),
    Case("X_float32", "containers", "answer", "quality", r"float32|dtype", _case_float32),
    Case("X_fortran", "containers", "answer", "identical", r"order|contiguous|fortran",
         _container(np.asfortranarray)),
    Case("X_strided", "containers", "answer", "identical", r"contiguous|stride",
         _container(_strided)),
    Case("X_readonly", "containers", "answer", "identical", r"read-only|readonly|writeable",
         _case_readonly),
    Case("scale_1e300", "magnitudes", "answer", "quality",
         r"finite|overflow|scal|large|magnitude|range|precision",
         _case_magnitude(lambda X: X * 1e300)),
    Case("scale_1e-300", "magnitudes", "answer", "quality",
         r"finite|underflow|scal|small|magnitude|range|precision|separa|zero",
         _case_magnitude(lambda X: X * 1e-300)),
    Case("offset_1e8", "magnitudes", "answer", "quality",
         r"finite|scal|large|magnitude|range|precision|center|offset",
         _case_magnitude(lambda X: X + 1e8)),
    Case("sparse_X", "sparse", "answer", "quality", r"sparse|dense", _case_sparse),
    Case("X_1d", "dimensions", "error", "error", r"2d|2-d|1d|1-d|reshape|dimension|shape",
         _case_fit_shape(lambda X: X[:, 0])),
    Case("X_3d", "dimensions", "error", "error", r"dim|2d|2-d|shape|3",
         _case_fit_shape(lambda X: X[:, :, np.newaxis]),
         # not for sequence models, whose (n, T, d) input is 3-d by design
         lambda s: not get_tags(s.template).input_tags.three_d_array),
    Case("X_complex", "dimensions", "error", "error", r"complex",
         _case_fit_shape(lambda X: X + 1j)),
    Case("sw_zero", "sample_weight", "error", "error", r"weight.*zero|zero.*weight",
         _case_weights(np.zeros), _takes_weights),
    Case("sw_negative", "sample_weight", "either", "finite", r"weight|negative",
         _case_weights(_negative_weights), _takes_weights),
    Case("sw_nan", "sample_weight", "error", "error", r"weight|nan|finite",
         _case_weights(_nan_weights), _takes_weights),
    Case("sw_wrong_length", "sample_weight", "error", "error",
         r"weight|length|shape|inconsistent|samples", _case_weights(lambda n: np.ones(n - 1)),
         _takes_weights),
    Case("predict_before_fit", "protocol", "error", "error", r"fit", _case_predict_before_fit,
         _needs_fit),
    Case("wrong_n_features", "protocol", "error", "error", r"feature", _case_wrong_n_features,
         _has_post_fit),
    Case("empty_predict", "protocol", "either", "finite", r"0 sample|empty|sample|minimum",
         _case_empty_predict, _has_post_fit),
    Case("refit_other_shape", "protocol", "answer", "identical", r"feature|shape",
         _case_refit_other_shape),
    Case("same_random_state", "determinism", "answer", "identical", _ANY,
         _case_same_random_state, lambda s: "random_state" in s.params),
    Case("n_jobs_1_vs_2", "determinism", "answer", "identical", r"n_jobs",
         _case_n_jobs, lambda s: s.library == "skml" and "n_jobs" in s.params),
    Case("pickle_fresh_process", "pickle", "answer", "identical", _ANY, _case_pickle),
    Case("inputs_unmodified", "side effects", "answer", "identical", _ANY, _case_unmodified),
]


def param_cases(template):
    """One case per invalid value of each declared hyper-parameter."""
    # A subclass of a scikit-learn class (BayesSearchCV of BaseSearchCV) keeps
    # scikit-learn's own table in _parameter_constraints and skml's for its
    # added parameters in _skml_parameter_constraints.
    constraints = getattr(type(template), "_skml_parameter_constraints", None)
    if constraints is None:
        constraints = getattr(type(template), "_parameter_constraints", {})
    params = template.get_params(deep=False)
    cases = []
    for param, allowed in constraints.items():
        if param not in params:  # a shared table may name other classes' params
            continue
        for value in invalid_values(allowed):
            cases.append(Case(
                f"param:{param}={value!r}", "hyper-parameters", "error", "error",
                re.escape(param), _case_param(param, value), param=(param, value),
            ))
    return cases


def cases_for(subject):
    """The applicable cases of one skml subject, in running order."""
    return [c for c in BASE_CASES if c.applicable(subject)] + param_cases(subject.template)


_SUBJECTS = {}


def skml_subject(name):
    if name not in _SUBJECTS:
        _SUBJECTS[name] = Subject("skml", name, skml_instance(name))
    return _SUBJECTS[name]


def case_ids(name):
    """Case ids of one estimator (cheap: no fitting), for test collection.

    A class that cannot be built from ``estimator_instances.py`` gets the
    single case "instance", which fails in the worker with the reason.
    """
    try:
        return [c.id for c in cases_for(skml_subject(name))]
    except Exception:
        return ["instance"]


# ---------------------------------------------------------------------------
# Running a case and judging it


def run_case(case, subject):
    """One library's raw result on one case (never raises)."""
    if subject is None:
        return not_applicable("no scikit-learn counterpart")
    if not case.applicable(subject):
        return not_applicable("case does not apply")
    if case.param is not None and case.param[0] not in subject.params:
        return not_applicable(f"no parameter {case.param[0]!r}")
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np_err = np.seterr(all="ignore")
        try:
            raw = case.run(subject)
        except Exception as exc:  # classified, never propagated
            raw = raw_error(case, exc)
        finally:
            np.seterr(**np_err)
    raw["seconds"] = round(time.perf_counter() - start, 3)
    return raw


def classify(meta, raw, other=None):
    """Outcome of one library's raw result: clear, accepted, wrong, crash, unclear, n/a."""
    status = raw.get("status")
    if status == "n/a":
        return "n/a"
    if status in ("died", "timeout"):
        return "crash"
    if status == "error":
        return raw["clarity"]
    # An answer.
    if meta["id"].startswith("param:") and other is not None and meta.get("side") == "sklearn":
        return "n/a"  # the value may well be valid in scikit-learn
    if meta["expect"] == "error":
        return "wrong"
    if not raw.get("finite", True) or raw.get("property") is False:
        return "wrong"
    if raw.get("identical") is False:
        return "wrong"
    oracle = meta["oracle"]
    if oracle == "quality":
        q = raw.get("quality")
        if q is None or not np.isfinite(q):
            return "wrong"
        ref = raw.get("ref_quality")
        if ref is not None and np.isfinite(ref) and q >= ref - QUALITY_TOL:
            return "accepted"
        reference = _other_reference(meta, raw, other)
        if reference is not None:
            # Compare the losses from each library's own clean run, so that
            # the test instances' different clean qualities do not count.
            other_q, other_clean = reference
            if raw["clean_quality"] - q <= other_clean - other_q + QUALITY_TOL:
                return "accepted"
        if ref is None and reference is None:
            return "accepted"  # nothing to compare with: finite is all we can check
        return "wrong"
    return "accepted"


def _other_reference(meta, raw, other):
    """The other library's (quality, clean quality) on the same input, or None.

    Only where the model itself is not invariant to the transformation
    (``NOT_INVARIANT``): elsewhere the clean run is the only reference, so
    that two libraries failing alike do not excuse each other. The other
    answer must itself be finite and no worse than the trivial answer
    (chance accuracy, R² 0, ARI 0).
    """
    if meta["id"] not in NOT_INVARIANT.get(meta.get("estimator"), ()) and (
            meta["id"] not in ALWAYS_CROSS_REFERENCED):
        return None
    if other is None or other.get("status") != "answer" or not other.get("finite"):
        return None
    q, clean = other.get("quality"), other.get("clean_quality")
    kind = raw.get("kind")
    if q is None or clean is None or not (np.isfinite(q) and np.isfinite(clean)):
        return None
    if kind not in TRIVIAL_QUALITY:
        return (q, clean) if meta["id"] in ALWAYS_CROSS_REFERENCED else None
    if q < TRIVIAL_QUALITY[kind] - QUALITY_TOL:
        return None
    return q, clean


_TINY, _HUGE, _OFFSET = "scale_1e-300", "scale_1e300", "offset_1e8"
# Test instances whose model (not only its computation) changes under a
# magnitude case, with the reason; there an answer as good as scikit-learn's
# on the same input is right. Everything else must match its clean run.
NOT_INVARIANT = {
    # An absolute penalty (alpha, 1/C) dominates a loss of order |x|² = 1e-600.
    "Ridge": {_TINY}, "Lasso": {_TINY}, "LogisticRegression": {_TINY},
    "VotingClassifier": {_TINY}, "VotingRegressor": {_TINY},  # their members
    "StackingClassifier": {_TINY}, "StackingRegressor": {_TINY},
    # Fixed step sizes and initial weights, a regularised intercept (LinearSVC).
    "LinearSVC": {_TINY, _OFFSET}, "Perceptron": {_TINY, _HUGE, _OFFSET},
    "SGDClassifier": {_TINY, _HUGE, _OFFSET}, "SGDRegressor": {_TINY, _HUGE, _OFFSET},
    "MLPClassifier": {_TINY, _HUGE, _OFFSET}, "MLPRegressor": {_TINY, _HUGE, _OFFSET},
    # reg_covar / tol are absolute variances.
    "GaussianMixture": {_TINY}, "QuadraticDiscriminantAnalysis": {_TINY},
    # binarize=0.0 is an absolute threshold.
    "BernoulliNB": {_OFFSET},
    # The rbf affinity's gamma=1.0 is absolute.
    "SpectralClustering": {_TINY, _HUGE},
}


# Cases that change the model for every estimator.
ALWAYS_CROSS_REFERENCED = {"one_feature"}

# Quality of a constant answer on the 60 rows (balanced classes).
TRIVIAL_QUALITY = {"classifier": 1 / 3, "regressor": 0.0, "cluster": 0.0}


RANK = {"wrong": 0, "crash": 0, "unclear": 1, "clear": 2}


def rank(outcome, expect):
    if outcome == "accepted":
        return 3 if expect == "answer" else 2
    return RANK[outcome]


def compare(meta, skml_outcome, sklearn_outcome):
    """"better", "worse", "same" (skml against scikit-learn) or "n/a"."""
    if sklearn_outcome == "n/a" or skml_outcome == "n/a":
        return "n/a"
    a, b = rank(skml_outcome, meta["expect"]), rank(sklearn_outcome, meta["expect"])
    return "better" if a > b else "worse" if a < b else "same"


def judge(meta, raw_skml, raw_sklearn):
    """The final record of one case."""
    outcome = classify(dict(meta, side="skml"), raw_skml, raw_sklearn)
    sk_outcome = classify(dict(meta, side="sklearn"), raw_sklearn, raw_skml)
    return {
        "case": meta["id"], "group": meta["group"], "expect": meta["expect"],
        "outcome": outcome, "sklearn": sk_outcome,
        "versus_sklearn": compare(meta, outcome, sk_outcome),
        "detail": describe(raw_skml), "sklearn_detail": describe(raw_sklearn),
        "seconds": [raw_skml.get("seconds", 0.0), raw_sklearn.get("seconds", 0.0)],
    }


def describe(raw):
    status = raw.get("status")
    if status in ("error", "n/a", "died", "timeout"):
        return raw.get("message", status)
    parts = []
    if not raw.get("finite", True):
        parts.append("non-finite output")
    if raw.get("identical") is False:
        parts.append("differs from the reference run")
    if raw.get("property") is False:
        parts.append("property violated")
    if raw.get("quality") is not None:
        ref = raw.get("ref_quality")
        parts.append(f"quality {raw['quality']:.3f}"
                     + ("" if ref is None else f" (clean {ref:.3f})"))
    return "answer: " + (", ".join(parts) if parts else "ok")


# ---------------------------------------------------------------------------
# Pickle round trip (the loading half runs in a fresh process)


def dump_fitted(subject, path):
    """Pickle the clean fitted estimator and its outputs to ``path``."""
    est, out = subject.clean
    if subject.fit_mode != "fit":
        # Fit-time outputs cannot be recomputed after loading; check that the
        # fitted state survives instead.
        out = {"state": np.array([repr(sorted(k for k in vars(est) if k.endswith("_")))])}
    with open(path, "wb") as fh:
        pickle.dump({"estimator": est, "outputs": out, "fit_mode": subject.fit_mode}, fh)


def check_loaded(name, path):
    """Load a pickle written by ``dump_fitted`` and compare its outputs."""
    with open(path, "rb") as fh:
        saved = pickle.load(fh)
    est = saved["estimator"]
    if saved["fit_mode"] != "fit":
        out = {"state": np.array([repr(sorted(k for k in vars(est) if k.endswith("_")))])}
    else:
        subject = skml_subject(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = subject.outputs(est, subject.X)
    return identical_answer(out, saved["outputs"])
