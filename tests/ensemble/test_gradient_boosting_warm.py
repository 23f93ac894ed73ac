"""GradientBoosting*: what a search's fits reuse (issue 15) changes no bit.

A warm-start continuation and the candidates of a search (fresh clones with
``warm_start=True`` on the same fold array) reuse the binned codes of that
array; the models must be those of one cold fit.
"""

import gc

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification, make_regression

from skml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from skml.ensemble import _gradient_boosting as gb


class _Counting(GradientBoostingClassifier):
    """Counts the binnings of X (a real subclass: the hook is a method)."""

    n_binnings = 0

    def _bin_features(self, X, n_threads):
        type(self).n_binnings += 1
        return super()._bin_features(X, n_threads)


def _same_model(a, b, X):
    assert a.estimators_.shape == b.estimators_.shape
    for ta, tb in zip(a.estimators_.ravel(), b.estimators_.ravel()):
        for name in ("children_left", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(ta.tree_, name), getattr(tb.tree_, name))
    np.testing.assert_array_equal(a.train_score_, b.train_score_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    if hasattr(a, "decision_function"):
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def _breast_cancer_half():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:284].copy(), y[:284].copy()


@pytest.mark.parametrize("Est, data", [
    (GradientBoostingClassifier, "bc"),
    (GradientBoostingClassifier, "multi"),
    (GradientBoostingRegressor, "reg"),
])
def test_warm_8_to_16_equals_cold_16(Est, data):
    if data == "bc":
        X, y = _breast_cancer_half()
    elif data == "multi":
        X, y = make_classification(n_samples=300, n_features=8, n_informative=5,
                                   n_classes=3, random_state=0)
    else:
        X, y = make_regression(n_samples=300, n_features=8, noise=1.0, random_state=0)
    cold = Est(n_estimators=16, random_state=0).fit(X, y)
    warm = Est(n_estimators=8, warm_start=True, random_state=0).fit(X, y)
    warm.set_params(n_estimators=16).fit(X, y)
    _same_model(warm, cold, X)


def test_search_candidates_share_the_codes_of_one_array():
    X, y = _breast_cancer_half()
    base = _Counting(n_estimators=4, random_state=0)
    _Counting.n_binnings = 0
    models = []
    for lr in (0.05, 0.1, 0.3):
        est = clone(base).set_params(learning_rate=lr, warm_start=True).fit(X, y)
        est.set_params(n_estimators=8).fit(X, y)
        models.append(est)
    assert _Counting.n_binnings == 1  # the first candidate's binning only
    for lr, est in zip((0.05, 0.1, 0.3), models):
        cold = GradientBoostingClassifier(n_estimators=8, learning_rate=lr,
                                          random_state=0).fit(X, y)
        _same_model(est, cold, X)


def test_shared_codes_follow_the_bytes_and_the_object():
    X, y = _breast_cancer_half()
    _Counting.n_binnings = 0
    _Counting(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    assert _Counting.n_binnings == 1
    # An equal copy is another object: not shared (no lookup by content).
    _Counting(n_estimators=3, warm_start=True, random_state=0).fit(X.copy(), y)
    assert _Counting.n_binnings == 2
    # The same object edited in place: its digest differs, re-binned, and the
    # model is the cold fit's on the edited values.
    X[::5, 2] *= 3.0
    est = _Counting(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    assert _Counting.n_binnings == 3
    _same_model(est, GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y),
                X)


def test_shared_codes_go_with_their_array():
    X, y = _breast_cancer_half()
    GradientBoostingClassifier(n_estimators=2, warm_start=True, random_state=0).fit(X, y)
    key = id(X)
    assert key in gb._SHARED_BINNED
    del X
    gc.collect()
    assert key not in gb._SHARED_BINNED


def test_no_sharing_without_warm_start():
    X, y = _breast_cancer_half()
    _Counting.n_binnings = 0
    for _ in range(2):
        _Counting(n_estimators=2, random_state=0).fit(X, y)
    assert _Counting.n_binnings == 2
    assert id(X) not in gb._SHARED_BINNED


def test_warm_fits_reuse_the_label_codes_only_for_the_same_labels():
    X, y = _breast_cancer_half()
    labels = np.array(["benign", "malignant"])[y]
    est = GradientBoostingClassifier(n_estimators=4, warm_start=True, random_state=0)
    est.fit(X, labels)
    cached = est._labels_cache
    est.set_params(n_estimators=8).fit(X, labels.copy())  # same bytes: reused
    assert est._labels_cache is cached
    cold = GradientBoostingClassifier(n_estimators=8, random_state=0).fit(X, labels)
    _same_model(est, cold, X)
    # Other labels are encoded again: the same errors as without the cache.
    other = np.where(y == 1, "malignant", "other")
    with pytest.raises(ValueError, match="same classes"):
        est.set_params(n_estimators=9).fit(X, other)
    with pytest.raises(ValueError, match="Unknown label type"):
        est.set_params(n_estimators=9).fit(X, y + 0.5)
    # Weighted fits skip the cache (the weights decide the classes counted).
    est.set_params(n_estimators=10).fit(X, labels, sample_weight=np.ones(len(y)))
    assert est.n_estimators_ == 10


@pytest.mark.parametrize("kind", ["binary", "multi", "subsample", "categorical"])
def test_warm_fit_appends_the_packing_of_one_fit(kind):
    from skml.tree._packed import pack_trees

    X, y = make_classification(n_samples=300, n_features=6, n_informative=4,
                               n_classes=3 if kind == "multi" else 2, random_state=0)
    X[::9, 2] = np.nan
    params = dict(random_state=0, warm_start=True)
    if kind == "subsample":
        params["subsample"] = 0.7
    if kind == "categorical":
        X[:, 0] = np.floor(np.abs(X[:, 0]) * 3)
        params.update(max_bins=None, categorical_features=[0])
    est = GradientBoostingClassifier(n_estimators=5, **params).fit(X, y)
    for rounds in (9, 14):
        est.set_params(n_estimators=rounds).fit(X, y)
        whole = pack_trees([e.tree_ for e in est.estimators_.ravel()])
        for a, b in zip(est._packed, whole):
            np.testing.assert_array_equal(a, b)
    cold = GradientBoostingClassifier(
        n_estimators=14, **{k: v for k, v in params.items() if k != "warm_start"})
    _same_model(est, cold.fit(X, y), X)


def _weights(n):
    return np.random.RandomState(0).uniform(0.5, 2.0, n)


@pytest.mark.parametrize("Est, weighted", [
    (GradientBoostingClassifier, False), (GradientBoostingClassifier, True),
    (GradientBoostingRegressor, False), (GradientBoostingRegressor, True),
])
def test_fused_round_gives_the_bits_of_the_separate_calls(Est, weighted):
    # A monitor makes the loop take the separate calls (leaf values, score
    # update, loss pass); without one, a one-tree round is one fused_round call.
    X, y = _breast_cancer_half()
    w = _weights(len(y)) if weighted else None
    fused = Est(n_estimators=12, random_state=0).fit(X, y, sample_weight=w)
    separate = Est(n_estimators=12, random_state=0).fit(
        X, y, sample_weight=w, monitor=lambda i, est, local: False)
    _same_model(fused, separate, X)


@pytest.mark.parametrize("change", ["none", "learning_rate", "X edited", "weights"])
def test_kept_raw_scores_give_the_model_of_walking_the_trees(change):
    # A warm-start fit on the same X starts from the scores the last fit left
    # (_raw_cache) instead of predicting them again: the same model, and no
    # reuse when they are not the scores of the trees on these rows.
    X, y = _breast_cancer_half()
    fits = []
    for keep in (True, False):
        Xk = X.copy()
        est = GradientBoostingClassifier(n_estimators=4, warm_start=True, random_state=0)
        est.fit(Xk, y)
        w = None
        if change == "learning_rate":
            est.set_params(learning_rate=0.3)
        elif change == "X edited":
            Xk[::7, 3] += 1.0
        elif change == "weights":
            w = _weights(len(y))
            w[::9] = 0.0  # zero-weight rows leave the training rows
        if not keep:
            del est._raw_cache
        fits.append(est.set_params(n_estimators=9).fit(Xk, y, sample_weight=w))
    _same_model(fits[0], fits[1], X)


def test_plain_input_shortcut_returns_what_validate_data_returns():
    from sklearn.utils.validation import validate_data

    X, y = _breast_cancer_half()
    for Xi, yi in [(X, y), (X, y.astype(float)), (np.asfortranarray(X), y),
                   (X.astype(np.float32), y), (X.tolist(), y), (X, y.tolist())]:
        a = GradientBoostingRegressor()
        b = GradientBoostingRegressor()
        Xa, ya = gb._validate_fit_data(a, Xi, yi, False, reset=True)
        Xb, yb = validate_data(b, Xi, yi, dtype=np.float64, ensure_all_finite="allow-nan",
                               accept_sparse=["csr", "csc"], y_numeric=True, reset=True)
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(ya, yb)
        assert a.n_features_in_ == b.n_features_in_ == X.shape[1]
    # Values the shortcut leaves to validate_data: the same errors.
    est = GradientBoostingRegressor(n_estimators=2)
    X_inf = X.copy()
    X_inf[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        est.fit(X_inf, y)
    y_nan = y.astype(float)
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(X, y_nan)
    X_nan = X.copy()
    X_nan[5, 2] = np.nan
    est.fit(X_nan, y)  # NaN in X is allowed
    with pytest.raises(ValueError, match="30 features"):
        est.predict(X[:, :5])
    with pytest.raises(ValueError, match="infinity"):
        est.predict(X_inf)


def test_label_codes_shared_with_a_copy_of_the_classes():
    X, y = _breast_cancer_half()
    a = GradientBoostingClassifier(n_estimators=2, warm_start=True, random_state=0)
    b = clone(a)
    a.fit(X, y)
    b.fit(X, y)  # the same y object: a's codes, its own classes_
    assert b.classes_ is not a.classes_
    np.testing.assert_array_equal(b.classes_, a.classes_)
    _same_model(b, GradientBoostingClassifier(n_estimators=2, random_state=0).fit(X, y), X)
