"""Stacking: a final estimator combines the members' outputs (notes B §9.6)."""

from copy import deepcopy
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    TransformerMixin,
    clone,
    is_classifier,
)
from sklearn.model_selection import check_cv, cross_val_predict, train_test_split
from sklearn.utils import check_array
from sklearn.utils.metadata_routing import MethodMapping
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ..linear_model import LogisticRegression, Ridge
from ..utils import Interval, Options, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import (FITTED_FEATURE_ATTRIBUTES, PARAMETERS_X_SAMPLES,
                                 RETURNS_LABELS, fill_doc)
from ._base import (
    RETURNS_FITTED_ENSEMBLE,
    MEMBERS_FIT_X,
    _DelegatedInputMixin,
    _NamedEstimatorsMixin,
    check_named_estimators,
    check_target_1d,
    fit_member,
    fit_router,
    fitted_member_names,
    log_progress,
    members_take_sparse,
    named_members,
    params_at_rows,
    refuse_unrouted,
    route_fit_params,
    routed_to,
    routing_enabled,
    take_rows,
)

__all__ = ["StackingClassifier", "StackingRegressor"]

# The docstring blocks both stacking estimators share.
_DOC = {
    "common parameters": """
n_jobs : int, default=None
    Members fitted and cross-validated in parallel (joblib).
passthrough : bool, default=False
    Append X to the meta-features.
verbose : int, default=0
    Progress messages.
holdout_fraction : float in (0, 1), default=0.5
    With ``cv="holdout"``, the share of the rows held out for the final
    estimator (ignored otherwise).
random_state : int, RandomState instance or None, default=None
    Seed of the hold-out split with ``cv="holdout"`` (ignored otherwise;
    the folds of ``cv`` carry their own seed).
""",
    "fitted attributes": """
final_estimator_ : estimator
    The fitted combiner.
stack_method_ : list of str
    The output used for each member.
""" + FITTED_FEATURE_ATTRIBUTES,
    "references": """
References
----------
D. Wolpert, "Stacked generalization", Neural Networks 5, 1992.
""",
}
_FIT_METADATA = """
sample_weight : array-like of shape (n_samples,), default=None
    Passed to the members and the final estimator (with metadata
    routing on, to the members that request it).
**fit_params : dict
    Other metadata, only with
    ``sklearn.set_config(enable_metadata_routing=True)``: routed to
    the members' ``fit`` as they request it, and passed to the final
    estimator's ``fit`` (as scikit-learn 1.9 does).
"""
_PREDICT_PARAMS = """
**predict_params : dict
    Keywords of the final estimator's ``predict``: passed to it as
    they are, or with metadata routing on, routed as it requests
    them (as scikit-learn).
"""


def _final_has(attr):
    """``available_if`` check on the final estimator; its AttributeError is
    the cause of the one ``available_if`` raises, as in scikit-learn."""
    def check(self):
        final = getattr(self, "final_estimator_", None)
        getattr(self._final_template() if final is None else final, attr)
        return True
    return check


def _is_2d(y):
    """Whether ``y`` is two-dimensional, through ``__array__`` only (no array
    functions, which array-likes such as pandas objects need not support)."""
    if y is None or sp.issparse(y):
        return False
    try:
        return np.asarray(y).ndim == 2
    except ValueError:  # ragged nested lists: not a label matrix
        return False

class _BaseStacking(_DelegatedInputMixin, _NamedEstimatorsMixin, TransformerMixin,
                    BaseEstimator):
    _parameter_constraints = {
        "estimators": [list],
        "final_estimator": [None, object],
        "cv": [None, Integral, Options({"prefit", "holdout"}), object],
        "holdout_fraction": [Interval(Real, 0, 1, closed="neither")],
        "stack_method": [
            Options({"auto", "predict_proba", "decision_function", "predict"})
        ],
        "n_jobs": [None, Integral],
        "passthrough": ["boolean"],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
    }

    def __init__(self, estimators, final_estimator=None, *, cv=None,
                 stack_method="auto", n_jobs=None, passthrough=False, verbose=0,
                 holdout_fraction=0.5, random_state=None):
        self.estimators = estimators
        self.final_estimator = final_estimator
        self.cv = cv
        self.stack_method = stack_method
        self.n_jobs = n_jobs
        self.passthrough = passthrough
        self.verbose = verbose
        self.holdout_fraction = holdout_fraction
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # X goes to the members unchanged and, with passthrough, is stacked
        # sparse (scipy.sparse.hstack): never densified here.
        tags.input_tags.sparse = members_take_sparse(self.estimators)
        return tags

    @property
    def _holdout(self):
        """Whether ``cv="holdout"``: the notes' blending on a split of the rows."""
        return isinstance(self.cv, str) and self.cv == "holdout"

    @property
    def _prefit(self):
        """Whether ``cv="prefit"``: the members come fitted and are used as they are."""
        return isinstance(self.cv, str) and self.cv == "prefit"

    def _final_template(self):
        if self.final_estimator is None:
            return self._default_final()
        return self.final_estimator

    def _resolve_methods(self, members):
        methods = []
        for name, est in members:
            if self.stack_method == "auto":
                order = self._auto_methods
            else:
                order = [self.stack_method]
            found = next((m for m in order if hasattr(est, m)), None)
            if found is None:
                wanted = (f"the method {order[0]}" if len(order) == 1
                          else f"any of the methods {order}")
                raise ValueError(
                    f"{type(self).__name__}: estimator {name!r} does not implement "
                    f"{wanted} (stack_method={self.stack_method!r})."
                )
            methods.append(found)
        return methods

    def _fit(self, X, y, sample_weight, fit_params):
        owner = type(self).__name__
        # A regressor's members must be regressors; a classifier's may be
        # either (e.g. regressors on ordinal labels), as in scikit-learn.
        kept = check_named_estimators(
            self.estimators, owner, ensemble=self,
            member_type=None if is_classifier(self) else "regressor")
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, np.empty((len(y), 0)))
        member_params = route_fit_params(self, [n for n, _ in kept], sample_weight,
                                         fit_params)
        # As scikit-learn 1.9: the final estimator's fit is no routing target
        # and gets fit's metadata as passed (sample_weight, and with routing
        # on every other keyword too).
        final_params = dict(fit_params)
        if sample_weight is not None:
            final_params["sample_weight"] = sample_weight
        if self._prefit:
            # The notes' hold-out blending: the members were fitted on part
            # 1, fit() sees part 2 and only learns the combination.
            for name, est in kept:
                check_is_fitted(est)
            self.estimators_ = [est for _, est in kept]
            self.stack_method_ = self._resolve_methods(kept)
            predictions = [getattr(est, m)(X)
                           for est, m in zip(self.estimators_, self.stack_method_)]
        elif self._holdout:
            # The notes' blending built in (notes B §9.6, D4 "Stacking"):
            # part 1 fits the members, part 2 (holdout_fraction of the rows,
            # stratified for a classifier) only their combination, so the
            # final estimator never sees outputs on the members' own rows.
            part1, part2 = train_test_split(
                np.arange(len(y)), test_size=self.holdout_fraction,
                random_state=self.random_state,
                stratify=y if is_classifier(self) and np.ndim(y) == 1 else None)
            log_progress(self.verbose, owner,
                         f"fitting {len(kept)} members on {len(part1)} rows "
                         f"(hold-out: {len(part2)})")
            X1 = take_rows(X, part1)
            self.estimators_ = Parallel(n_jobs=self.n_jobs)(
                delayed(fit_member)(
                    clone(est), X1, y[part1], owner=owner,
                    fit_params=params_at_rows(member_params[name], part1, len(y)))
                for name, est in kept
            )
            self.stack_method_ = self._resolve_methods(kept)
            X2 = take_rows(X, part2)
            predictions = [getattr(est, m)(X2)
                           for est, m in zip(self.estimators_, self.stack_method_)]
            final_params = params_at_rows(final_params, part2, len(y))
            X, y = X2, y[part2]
        else:
            log_progress(self.verbose, owner,
                         f"fitting {len(kept)} members on all rows")
            self.estimators_ = Parallel(n_jobs=self.n_jobs)(
                delayed(fit_member)(clone(est), X, y, owner=owner,
                                    fit_params=member_params[name])
                for name, est in kept
            )
            # After the members' fits, as scikit-learn (whose errors come in
            # that order: a member's fit, then a missing output method).
            self.stack_method_ = self._resolve_methods(kept)
            cv = check_cv(self.cv, y=y, classifier=is_classifier(self))
            if hasattr(cv, "random_state") and cv.random_state is None:
                cv.random_state = np.random.RandomState()
            log_progress(self.verbose, owner, "cross-validated meta-features")
            # deepcopy(cv): every member sees the same folds.
            predictions = Parallel(n_jobs=self.n_jobs)(
                delayed(cross_val_predict)(
                    clone(est), X, y, cv=deepcopy(cv), method=m,
                    params=member_params[name], verbose=max(self.verbose - 1, 0),
                )
                for (name, est), m in zip(kept, self.stack_method_)
            )
        self.named_estimators_ = named_members(self.estimators, self.estimators_)
        X_meta = self._stack(X, predictions, record_widths=True)
        log_progress(self.verbose, owner, "fitting the final estimator")
        self.final_estimator_ = fit_member(
            clone(self._final_template()), X_meta, y, owner=owner,
            fit_params=final_params
        )
        return self

    def get_metadata_routing(self):
        """Where the metadata go, as in scikit-learn 1.9.

        ``fit``'s metadata go to each member's ``fit`` as it requests them;
        ``predict``'s go to the final estimator's ``predict``.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
            Used by scikit-learn's metadata routing (``enable_metadata_routing``).
        """
        router = fit_router(self, self.estimators)
        final = getattr(self, "final_estimator_", None)
        router.add(final_estimator_=final if final is not None else self._final_template(),
                   method_mapping=MethodMapping().add(caller="predict", callee="predict"))
        return router

    def _final_predict(self, X, params):
        """``final_estimator_.predict`` on the meta-features, with ``params``
        routed (with routing on) or passed as they are (without), as
        scikit-learn does."""
        X_meta = self.transform(X)  # first: NotFittedError before fit
        if routing_enabled():
            params = routed_to(self, "predict", params, "final_estimator_")["predict"]
        return self.final_estimator_.predict(X_meta, **params)

    def _stack(self, X, predictions, record_widths=False):
        cols = []
        binary = len(getattr(self, "classes_", ())) == 2
        for preds, method in zip(predictions, self.stack_method_):
            if isinstance(preds, list):
                # Multilabel predict_proba: one (n, n_classes) array per
                # label; all but the first column of each, as scikit-learn.
                cols.append(np.hstack([np.asarray(p, dtype=np.float64)[:, 1:]
                                       for p in preds]))
                continue
            preds = np.asarray(preds, dtype=np.float64)
            if preds.ndim == 1:
                preds = preds.reshape(-1, 1)
            elif method == "predict_proba" and binary:
                # p(class 0) = 1 - p(class 1): keep one collinear column.
                preds = preds[:, 1:]
            cols.append(preds)
        if record_widths:
            # Each member's number of meta-features, for their names.
            self._n_feature_outs = [c.shape[1] for c in cols]
        if self.passthrough:
            if sp.issparse(X):
                # As scikit-learn: a sparse X keeps its format, not densified.
                X = check_array(X, accept_sparse=["csr", "csc"], dtype=np.float64)
                return sp.hstack(cols + [X], format=X.format)
            cols.append(check_array(X, dtype=np.float64))
        return np.hstack(cols)

    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def transform(self, X):
        """The meta-features: each member's outputs (and X with passthrough).

        <X>

        Returns
        -------
        X_meta : ndarray of shape (n_samples, n_meta_features)
            Inputs of the final estimator.
        """
        # The members validate X (see _DelegatedInputMixin).
        check_is_fitted(self)
        predictions = [getattr(est, m)(X)
                       for est, m in zip(self.estimators_, self.stack_method_)]
        return self._stack(X, predictions)

    def get_feature_names_out(self, input_features=None):
        """Names of the meta-features.

        Parameters
        ----------
        input_features : array-like of str, default=None
            Names of X's columns, used with ``passthrough``.

        Returns
        -------
        names : ndarray of str
            As scikit-learn: ``<class>_<member>`` for a member giving one
            meta-feature (a prediction, a binary decision function, the
            kept probability of a binary problem), else
            ``<class>_<member><k>`` for its columns k = 0, 1, ...; then, with
            passthrough, X's names.
        """
        self._check_input_features(input_features)
        prefix = type(self).__name__.lower()
        names = []
        for name, width in zip(fitted_member_names(self.named_estimators_),
                               self._n_feature_outs):
            if width == 1:
                names.append(f"{prefix}_{name}")
            else:
                names += [f"{prefix}_{name}{k}" for k in range(width)]
        if self.passthrough:
            if input_features is None:
                input_features = getattr(self, "feature_names_in_", None)
            if input_features is None:
                input_features = [f"x{i}" for i in range(self.n_features_in_)]
            names += list(input_features)
        return np.asarray(names, dtype=object)


@fill_doc(**_DOC)
class StackingClassifier(ClassifierMixin, _BaseStacking):
    """Stacking classifier: a final classifier on cross-validated member outputs.

    The notes' stacking (notes B §9.6): the members' outputs become the
    features of a simple final classifier. The notes fit the members on one
    part of the data and the final classifier on their outputs for another
    part (hold-out blending), so that the combiner does not trust
    overfitted outputs; by default this class uses the cross-fitted form:
    the final estimator learns from out-of-fold predictions
    (``cross_val_predict``), and the members are refitted on all rows.
    ``cv="holdout"`` is the notes' blending built in (members fitted once,
    on part 1; the final classifier on part 2), and ``cv="prefit"`` the same
    by hand: fit the members on part 1, then call ``fit`` on part 2. X goes
    to the members unchanged, never densified: sparse X is taken when the
    members take it (with ``passthrough`` the meta-features stay sparse).

    Parameters
    ----------
    estimators : list of (str, estimator)
        The named members; ``"drop"`` leaves one out.
    final_estimator : estimator, default=None
        The combiner; ``None`` means ``skml.linear_model.LogisticRegression()``.
    cv : int, cross-validation generator, iterable, "prefit" or "holdout", \
            default=None
        Folds of the out-of-fold predictions (``None``: 5-fold stratified);
        ``"prefit"``: the members are already fitted and are used as they are;
        ``"holdout"``: the notes' blending, the members are fitted once on
        part 1 of the rows and the final estimator on their outputs for part
        2 (``holdout_fraction`` of the rows, stratified by class).
    stack_method : {"auto", "predict_proba", "decision_function", "predict"}, \
            default="auto"
        Member output used; "auto" takes the first available in that order.
    <common parameters>

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members, fitted on labels ``0..K-1``.
    named_estimators_ : :class:`~sklearn.utils.Bunch`
        The fitted members by name; a dropped member is ``"drop"``.
    classes_ : ndarray of shape (n_classes,) or list of ndarray
        The class labels; for a multilabel indicator ``y``, the classes of
        each label column (as scikit-learn).
    <fitted attributes>

    See Also
    --------
    sklearn.ensemble.StackingClassifier : scikit-learn's stacking.
    VotingClassifier : a fixed instead of a learnt combination.

    Notes
    -----
    As in scikit-learn, with two classes only ``predict_proba[:, 1]`` of
    each member is kept (the other column is collinear). Cost: each member
    is fitted ``n_folds + 1`` times (once with ``cv="holdout"``), then the
    final estimator once.

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from skml.ensemble import StackingClassifier
    >>> from skml.naive_bayes import GaussianNB
    >>> from skml.tree import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> stack = StackingClassifier([("nb", GaussianNB()),
    ...                             ("tree", DecisionTreeClassifier(max_depth=3))])
    >>> stack = stack.fit(X, y)
    >>> bool(stack.score(X, y) > 0.9)
    True
    """

    _auto_methods = ["predict_proba", "decision_function", "predict"]

    def _default_final(self):
        return LogisticRegression()

    @fill_doc(X=MEMBERS_FIT_X, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members and the final estimator.

        <X>
        y : array-like of shape (n_samples,) or (n_samples, n_labels)
            Class labels, or a multilabel indicator matrix (each column
            encoded on its own; a member's ``predict_proba`` list gives one
            block of columns per label, the first class of each dropped).
        <metadata>

        <returns>
        """
        refuse_unrouted(self, fit_params)  # before any other check, as scikit-learn
        validate_params(self)
        if _is_2d(y) and type_of_target(y) == "multilabel-indicator":
            # Multilabel indicator y (as scikit-learn): each label column is
            # encoded on its own, classes_ is the list of their classes.
            y = np.asarray(y)
            encoded = [encode_labels(y[:, k]) for k in range(y.shape[1])]
            self.classes_ = [c for c, _ in encoded]
            y_enc = np.column_stack([e for _, e in encoded])
        else:
            y = check_target_1d(y, "StackingClassifier")
            self.classes_, y_enc = encode_labels(y)
        if self._prefit:
            # Prefit members were fitted on the original labels.
            return self._fit(X, np.asarray(y), sample_weight, fit_params)
        return self._fit(X, y_enc, sample_weight, fit_params)

    def _decode(self, pred):
        if self._prefit:
            return np.asarray(pred)
        pred = np.asarray(pred, dtype=np.intp)
        if isinstance(self.classes_, list):  # multilabel: per label column
            return np.column_stack([c[pred[:, k]] for k, c in enumerate(self.classes_)])
        return self.classes_[pred]

    @fill_doc(X=PARAMETERS_X_SAMPLES, predict_params=_PREDICT_PARAMS,
              returns=RETURNS_LABELS)
    def predict(self, X, **predict_params):
        """The final estimator's prediction on the meta-features.

        <X>
        <predict_params>

        <returns>
        """
        return self._decode(self._final_predict(X, predict_params))

    @available_if(_final_has("predict_proba"))
    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def predict_proba(self, X):
        """The final estimator's class probabilities.

        <X>

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes) or (n_samples, n_labels)
            Probabilities in the order of ``classes_``; for a multilabel
            ``y``, the probability of each label being present.
        """
        X_meta = self.transform(X)
        proba = self.final_estimator_.predict_proba(X_meta)
        if isinstance(self.classes_, list) and isinstance(proba, list):
            # Multilabel: the probability of each label's last class (1, the
            # label present), one column per label. scikit-learn 1.9 returns
            # the first class's column (label absent) here.
            return np.column_stack([np.asarray(p)[:, -1] for p in proba])
        return proba

    @available_if(_final_has("decision_function"))
    @fill_doc(X=PARAMETERS_X_SAMPLES)
    def decision_function(self, X):
        """The final estimator's decision function.

        <X>

        Returns
        -------
        score : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Decision values.
        """
        X_meta = self.transform(X)
        return self.final_estimator_.decision_function(X_meta)


@fill_doc(**_DOC)
class StackingRegressor(RegressorMixin, _BaseStacking):
    """Stacking regressor: a final regressor on cross-validated member predictions.

    The notes' stacking (notes B §9.6) for regression; see
    :class:`StackingClassifier` for the cross-fitted and hold-out forms.

    Parameters
    ----------
    estimators : list of (str, estimator)
        The named members; ``"drop"`` leaves one out.
    final_estimator : estimator, default=None
        The combiner; ``None`` means ``skml.linear_model.Ridge()``.
    cv : int, cross-validation generator, iterable, "prefit" or "holdout", \
            default=None
        Folds of the out-of-fold predictions (``None``: 5-fold);
        ``"prefit"``: the members are already fitted; ``"holdout"``: the
        notes' blending, members fitted on part 1 of the rows, the final
        estimator on their predictions for part 2 (``holdout_fraction``).
    stack_method : {"auto", "predict"}, default="auto"
        Member output used ("auto" means ``predict``).
    <common parameters>

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted members.
    named_estimators_ : :class:`~sklearn.utils.Bunch`
        The fitted members by name; a dropped member is ``"drop"``.
    <fitted attributes>

    See Also
    --------
    sklearn.ensemble.StackingRegressor : scikit-learn's (its default final
        estimator is ``RidgeCV``).
    VotingRegressor : a fixed average.

    Notes
    -----
    Cost: each member is fitted ``n_folds + 1`` times (once with
    ``cv="holdout"``), then the final estimator once. Multi-output y is
    refused, as scikit-learn 1.9 refuses it ("y should be a 1d array").

    <references>

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from skml.ensemble import StackingRegressor
    >>> from skml.linear_model import Ridge
    >>> from skml.tree import DecisionTreeRegressor
    >>> X, y = load_diabetes(return_X_y=True)
    >>> stack = StackingRegressor([("ridge", Ridge(alpha=0.1)),
    ...                            ("tree", DecisionTreeRegressor(max_depth=3))])
    >>> stack = stack.fit(X, y)
    >>> bool(stack.score(X, y) > 0.4)
    True
    """

    _auto_methods = ["predict"]

    def _default_final(self):
        return Ridge()

    @fill_doc(X=MEMBERS_FIT_X, metadata=_FIT_METADATA,
              returns=RETURNS_FITTED_ENSEMBLE)
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the members and the final estimator.

        <X>
        y : array-like of shape (n_samples,)
            Targets.
        <metadata>

        <returns>
        """
        refuse_unrouted(self, fit_params)  # before any other check, as scikit-learn
        validate_params(self)
        y = check_target_1d(y, "StackingRegressor")
        return self._fit(X, y, sample_weight, fit_params)

    @fill_doc(X=PARAMETERS_X_SAMPLES, predict_params=_PREDICT_PARAMS)
    def predict(self, X, **predict_params):
        """The final estimator's prediction on the meta-features.

        <X>
        <predict_params>

        Returns
        -------
        y : ndarray of shape (n_samples,) or tuple
            Predictions (and what the keywords ask the final estimator for,
            e.g. ``return_std`` of a Gaussian process).
        """
        return self._final_predict(X, predict_params)
