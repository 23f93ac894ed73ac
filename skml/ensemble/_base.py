"""Plumbing shared by the ensembles: cloning members, per-member seeds, n_jobs.

Every random draw of an ensemble comes from seeds drawn up front from
``random_state`` in member order, so the members (and the bootstrap indices)
are the same whatever ``n_jobs`` and whichever worker fits which member.
"""

import numbers

import numpy as np
from sklearn import get_config
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.utils import Bunch, get_tags
from sklearn.exceptions import NotFittedError
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import (
    check_is_fitted,
    check_random_state,
    column_or_1d,
    has_fit_parameter,
)

from ..utils._parallel import fixed_chunks, resolve_n_jobs, run_in_threads

__all__ = []

# scikit-learn draws member seeds below this bound too; with the same draws
# in the same order a scikit-learn base estimator gets the same seeds here
# as inside scikit-learn's ensembles.
MAX_INT = np.iinfo(np.int32).max


def set_random_states(estimator, random_state):
    """Give every ``random_state`` parameter of ``estimator`` a fresh seed.

    Nested parameters (``pipeline__step__random_state``) are set too, in
    sorted name order, so the draws do not depend on dictionary order.
    """
    rng = check_random_state(random_state)
    to_set = {}
    for key in sorted(estimator.get_params(deep=True)):
        if key == "random_state" or key.endswith("__random_state"):
            to_set[key] = rng.randint(MAX_INT)
    if to_set:
        estimator.set_params(**to_set)
    return estimator


def member_seeds(random_state, n_done, n_total):
    """Seeds of members ``n_done`` to ``n_total - 1``, as plain ints.

    All ``n_total`` seeds are drawn from ``random_state`` in member order and
    those of the ``n_done`` members already fitted are skipped, so a warm
    start that grows an ensemble gives the members one fit of all would.
    """
    rng = check_random_state(random_state)
    return rng.randint(MAX_INT, size=n_total)[n_done:].tolist()


def fit_member(est, X, y, sample_weight=None, *, verbose=0, owner="", name=None,
               fit_params=None):
    """``est.fit(X, y)``, passing ``sample_weight`` only when given.

    ``fit_params`` (the member's routed metadata, see ``route_fit_params``)
    replaces ``sample_weight`` when not None.
    """
    if name is not None:
        log_progress(verbose, owner, f"fitting {name}")
    if fit_params is None:
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
    try:
        # The fitted member is ``est`` itself, not fit's return value (a
        # third-party fit may return None).
        est.fit(X, y, **fit_params)
        return est
    except TypeError as exc:
        if "unexpected keyword argument 'sample_weight'" in str(exc):
            raise TypeError(
                f"{owner + ': ' if owner else ''}Underlying estimator "
                f"{type(est).__name__} does not support sample weights "
                "(its fit takes no sample_weight)."
            ) from exc
        raise


def routing_enabled():
    """Whether scikit-learn's metadata routing is on (``enable_metadata_routing``)."""
    return get_config().get("enable_metadata_routing", False)


def fit_router(owner, named_estimators):
    """``get_metadata_routing`` of an ensemble whose members' ``fit`` is called by its own."""
    router = MetadataRouter(owner=owner)
    for name, est in named_estimators:
        if isinstance(est, str) and est == "drop":
            continue
        router.add(**{name: est},
                   method_mapping=MethodMapping().add(callee="fit", caller="fit"))
    return router


def refuse_unrouted(owner, params, method="fit"):
    """Without metadata routing, keywords beyond a method's own are an error.

    The message is scikit-learn's (its tests match it): the keywords are
    only routed when ``sklearn.set_config(enable_metadata_routing=True)``.
    """
    if params and not routing_enabled():
        name = owner if isinstance(owner, str) else type(owner).__name__
        raise ValueError(
            f"Passing extra keyword arguments to {name}.{method} is only supported "
            "if enable_metadata_routing=True, which you can set using "
            "`sklearn.set_config`. See the User Guide "
            "<https://scikit-learn.org/stable/metadata_routing.html> for more "
            f"details. Extra parameters passed are: {set(params)}"
        )


def route_fit_params(owner, names, sample_weight, fit_params):
    """Each member's ``fit`` keywords, by name (scikit-learn's metadata routing).

    With routing enabled (``sklearn.set_config(enable_metadata_routing=True)``)
    every keyword goes where the members requested it, and an unrequested one
    raises scikit-learn's error. Without it only ``sample_weight`` is passed
    (to every member, when given) and any other keyword is refused with a
    ValueError that says how to enable routing.
    """
    if routing_enabled():
        if sample_weight is not None:
            fit_params = {"sample_weight": sample_weight, **fit_params}
        routed = process_routing(owner, "fit", **fit_params)
        return {name: dict(routed[name].fit) for name in names}
    refuse_unrouted(owner, fit_params)
    return {name: ({} if sample_weight is None else {"sample_weight": sample_weight})
            for name in names}


def routed_to(owner, method, params, child):
    """What a call ``owner.<method>(**params)`` passes to ``child``, by callee.

    With routing enabled, scikit-learn's ``process_routing`` (an unrequested
    keyword is its error); the result maps each of the child's methods to
    its keywords (``{}`` for a method that gets none). Without routing any
    keyword is refused (see ``refuse_unrouted``) and every method gets none.
    """
    if routing_enabled():
        routed = process_routing(owner, method, **params)[child]
        return {callee: dict(kw) for callee, kw in routed.items()}
    refuse_unrouted(owner, params, method)
    return {}


def take_rows(X, rows):
    """Rows of an array, a sparse matrix, a DataFrame or a list."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if isinstance(X, list):
        return [X[i] for i in rows]
    return X[rows]


def params_at_rows(params, rows, n_samples):
    """``params`` with each per-sample entry (length ``n_samples``) cut to ``rows``.

    Metadata that is not per-sample (a string, a scalar, an array of another
    length) passes unchanged, as scikit-learn treats it.
    """
    out = {}
    for key, value in params.items():
        per_sample = (not isinstance(value, str) and hasattr(value, "__len__")
                      and len(value) == n_samples)
        out[key] = take_rows(value, rows) if per_sample else value
    return out


def make_member(base, seed):
    """A fresh clone of ``base`` with its random states drawn from ``seed``."""
    return set_random_states(clone(base), seed)


def accepts_sample_weight(estimator):
    return has_fit_parameter(estimator, "sample_weight")


def members_take_sparse(estimators):
    """Whether every member of a (name, estimator) list not dropped takes sparse X.

    False for an invalid list: fit says what is wrong with it.
    """
    try:
        members = [e for _, e in estimators if not (isinstance(e, str) and e == "drop")]
        return bool(members) and all(get_tags(e).input_tags.sparse for e in members)
    except Exception:
        return False


def member_allows_nan(estimator):
    try:
        return get_tags(estimator).input_tags.allow_nan
    except Exception:  # a third-party estimator without tags
        return False


def resolve_fraction(value, total, name):
    """``value`` as a count out of ``total``: an int is a count, a float a fraction."""
    if isinstance(value, numbers.Integral):
        count = int(value)
    else:
        count = max(1, int(value * total))
    if not 1 <= count <= total:
        raise ValueError(
            f"{name} must give between 1 and {total} (got {value!r}, i.e. {count})."
        )
    return count


def sum_over_members(func, members, n_jobs):
    """``sum(func(m) for m in members)``, in threads, a task per chunk of members.

    One task per member would make the dispatch dominate when members
    predict in microseconds; processes would pickle every member. Threads
    suit skml's members, whose kernels release the GIL. The chunks have a
    fixed size (:func:`skml.utils._parallel.fixed_chunks`), so the order of
    the floating-point sums, hence the result to the last bit, does not
    depend on ``n_jobs``.
    """
    chunks = fixed_chunks(members)

    def chunk_sum(chunk):
        total = func(chunk[0])
        for member in chunk[1:]:
            total = total + func(member)
        return total

    n_threads = min(resolve_n_jobs(n_jobs), len(chunks))
    partial = run_in_threads(chunk_sum, chunks, n_threads)
    total = partial[0]
    for part in partial[1:]:
        total = total + part
    return total


def timed_message(source, message, seconds):
    """``[source] ....... message, total=   0.1s``: one line, dots padding it
    to 70 characters, the layout of scikit-learn's per-step timing lines
    (pipelines, voting), so that logs read the same."""
    head = f"[{source}] "
    when = f"{seconds / 60:4.1f}min" if seconds > 60 else f" {seconds:5.1f}s"
    tail = f" {message}, total={when}"
    return head + "." * (70 - len(head) - len(tail)) + tail


class _MembersSequenceMixin:
    """``len(ensemble)``, ``ensemble[i]`` and ``iter(ensemble)`` over the
    fitted members ``estimators_``, as scikit-learn's ensembles offer.

    ``bool(ensemble)`` stays True (also before fit): with ``__len__`` alone,
    Python would take an unfitted or empty ensemble for false in
    ``if estimator:`` tests.
    """

    def __len__(self):
        check_is_fitted(self, "estimators_")
        return len(self.estimators_)

    def __getitem__(self, index):
        check_is_fitted(self, "estimators_")
        return self.estimators_[index]

    def __iter__(self):
        check_is_fitted(self, "estimators_")
        return iter(self.estimators_)

    def __bool__(self):
        return True


def log_progress(verbose, owner, message):
    if verbose:
        print(f"[{owner}] {message}", flush=True)


class _NamedEstimatorsMixin:
    """get_params/set_params that reach into an ``estimators`` list of (name, est).

    ``get_params(deep=True)`` lists each member under its name and its
    parameters as ``name__param``, as scikit-learn's heterogeneous ensembles
    do; ``set_params(name=est)`` replaces a member, ``set_params(name="drop")``
    drops it.
    """

    def get_params(self, deep=True):
        out = super().get_params(deep=deep)
        if not deep:
            return out
        try:
            members = [(name, est) for name, est in self.estimators]
        except (TypeError, ValueError):  # invalid until fit says so
            members = []
        for name, est in members:
            out[name] = est
            if hasattr(est, "get_params"):
                for key, value in est.get_params(deep=True).items():
                    out[f"{name}__{key}"] = value
        return out

    @property
    def named_estimators(self):
        """The members as given, by name (a ``Bunch``), as scikit-learn offers."""
        from sklearn.utils import Bunch

        return Bunch(**dict(self.estimators))

    def set_params(self, **params):
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        try:
            names = {name for name, _ in self.estimators}
        except (TypeError, ValueError):  # invalid until fit says so
            names = set()
        replaced = {k: params.pop(k) for k in list(params) if k in names}
        if replaced:
            self.estimators = [
                (name, replaced.get(name, est)) for name, est in self.estimators
            ]
        if params:
            super().set_params(**params)
        return self


class _DelegatedInputMixin:
    """Input bookkeeping delegated to the first member.

    Heterogeneous ensembles pass X to their members unchanged (a DataFrame
    stays a DataFrame for a column-based pipeline), so the members validate
    it; ``n_features_in_`` and ``feature_names_in_`` are the first member's.
    NaN is allowed when every member not dropped allows it.
    """

    @property
    def n_features_in_(self):
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(self).__name__} object has no attribute n_features_in_ "
                "before fit."
            ) from exc
        return self.estimators_[0].n_features_in_

    @property
    def feature_names_in_(self):
        try:
            check_is_fitted(self)
        except NotFittedError as exc:
            raise AttributeError(
                f"{type(self).__name__} object has no attribute feature_names_in_ "
                "before fit."
            ) from exc
        return self.estimators_[0].feature_names_in_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            members = [e for _, e in (self.estimators or []) if not isinstance(e, str)]
        except (TypeError, ValueError):  # invalid until fit says so
            members = []
        tags.input_tags.allow_nan = bool(members) and all(
            map(member_allows_nan, members))
        return tags

    def _check_input_features(self, input_features):
        check_is_fitted(self)
        if input_features is None:
            return
        if len(input_features) != self.n_features_in_:
            raise ValueError(
                "input_features should have length equal to number of features "
                f"({self.n_features_in_}), got {len(input_features)}"
            )
        names = getattr(self, "feature_names_in_", None) if hasattr(
            self.estimators_[0], "feature_names_in_") else None
        if names is not None and not np.array_equal(names, input_features):
            raise ValueError("input_features is not equal to feature_names_in_")


def check_target_1d(y, owner):
    if y is None:
        raise ValueError(f"{owner} requires y to be passed, but the target y is None.")
    return column_or_1d(y, warn=True)


def check_named_estimators(estimators, owner, *, ensemble=None, member_type=None):
    """Validate an ``estimators`` list and return the members not dropped.

    ``ensemble`` (the ensemble itself) lets a name that clashes with one of
    its constructor parameters be refused (``set_params(name=...)`` could not
    tell them apart); ``member_type`` ("classifier" or "regressor") refuses
    a member of the other kind, as scikit-learn's voting ensembles and
    ``StackingRegressor`` do. The messages are scikit-learn's (user code
    and its tests match them).
    """
    # scikit-learn's wording, which its tests match.
    invalid = (f"{owner}: Invalid 'estimators' attribute, 'estimators' should be a "
               "non-empty list of (string, estimator) tuples.")
    if estimators is None or len(estimators) == 0:
        raise ValueError(invalid)
    try:
        names, members = zip(*estimators)
    except (TypeError, ValueError) as exc:
        raise ValueError(invalid) from exc
    if not all(isinstance(name, str) for name in names):
        raise ValueError(invalid)
    if len(set(names)) != len(names):
        raise ValueError(f"{owner}: Names provided are not unique: {list(names)!r}")
    if ensemble is not None:
        clashing = sorted(set(names) & set(ensemble.get_params(deep=False)))
        if clashing:
            raise ValueError(f"{owner}: Estimator names conflict with constructor "
                             f"arguments: {clashing!r}")
    dunder = [name for name in names if "__" in name]
    if dunder:
        raise ValueError(f"{owner}: Estimator names must not contain __: got {dunder!r}")
    kept = [(n, e) for n, e in zip(names, members)
            if not (isinstance(e, str) and e == "drop")]
    if not kept:
        raise ValueError(
            f"{owner}: All estimators are dropped. At least one is required to be "
            "an estimator."
        )
    for name, est in kept:
        if not hasattr(est, "fit"):
            raise TypeError(f"{owner}: estimator {name!r} has no fit method: {est!r}.")
    if member_type is not None:
        is_type = is_classifier if member_type == "classifier" else is_regressor
        for name, est in kept:
            if not is_type(est):
                raise ValueError(f"{owner}: The estimator {type(est).__name__} "
                                 f"({name!r}) should be a {member_type}.")
    return kept


def named_members(estimators, fitted):
    """``named_estimators_`` as scikit-learn builds it: a Bunch of every
    member by name, the fitted clone of each kept one and ``"drop"`` for a
    dropped one (``fitted`` in the order of the kept members)."""
    fitted = iter(fitted)
    return Bunch(**{name: "drop" if isinstance(est, str) and est == "drop"
                    else next(fitted) for name, est in estimators})


def fitted_member_names(named_estimators):
    """Names of the members that were fitted (``"drop"`` entries left out)."""
    return [name for name, est in named_estimators.items()
            if not (isinstance(est, str) and est == "drop")]


# -- docstring blocks of the ensembles' methods (placed by ``fill_doc``) ------

MEMBERS_FIT_X = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data, passed to the members unchanged.
"""

RETURNS_FITTED_ENSEMBLE = """
Returns
-------
self : object
    The fitted ensemble.
"""
