"""GradientBoosting*: the notes' line search, gradients, parity with scikit-learn."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse
from scipy.optimize import check_grad, minimize_scalar
from sklearn import datasets
from sklearn.datasets import make_classification, make_regression
from sklearn import ensemble as sken
from sklearn.model_selection import train_test_split

from skml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from skml.ensemble._gb_kernels import subsample_mask
from skml.ensemble._gb_losses import leaf_quantile, make_loss
from tests._parity import parity_test


def _regression(seed, n=80, p=3):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p))
    y = X[:, 0] ** 2 + np.sin(2 * X[:, 1]) + 0.3 * rng.normal(size=n)
    return X, y


# -- notes B §9.5 / §16 item 10: with the squared loss the line search gives 1 ----
@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), rounds=st.integers(1, 4),
       max_bins=st.sampled_from([None, 16, 256]), weighted=st.booleans())
def test_squared_loss_optimal_step_is_one(seed, rounds, max_bins, weighted):
    X, y = _regression(seed)
    w = None
    if weighted:
        w = np.random.RandomState(seed + 1).uniform(0.5, 2.0, size=y.shape[0])
    gb = GradientBoostingRegressor(n_estimators=rounds, learning_rate=0.5, max_depth=2,
                                   max_bins=max_bins, random_state=0)
    gb.fit(X, y, sample_weight=w)
    w = np.ones_like(y) if w is None else w
    staged = [np.full_like(y, gb.init_[0])] + list(gb.staged_predict(X))
    for t in range(rounds):
        r = y - staged[t]  # the pseudo-residuals the tree t was fitted to
        h = gb.estimators_[t, 0].predict(X)
        alpha_closed = np.sum(w * r * h) / np.sum(w * h * h)
        alpha_search = minimize_scalar(lambda a: np.sum(w * (r - a * h) ** 2)).x
        assert alpha_closed == pytest.approx(1.0, abs=1e-10)
        assert alpha_search == pytest.approx(1.0, abs=1e-6)


# -- every loss's gradient by finite differences ---------------------------------------
@pytest.mark.parametrize("name, n_classes", [
    ("squared_error", 1), ("absolute_error", 1), ("huber", 1), ("quantile", 1),
    ("log_loss", 2), ("log_loss", 4), ("exponential", 2),
])
def test_loss_gradient_finite_differences(name, n_classes):
    rng = np.random.RandomState(0)
    n = 30
    loss = make_loss(name, n_classes, alpha=0.7)
    K = loss.K
    if loss.is_classification:
        y = rng.randint(n_classes, size=n).astype(float)
    else:
        y = rng.normal(size=n)
    raw0 = rng.normal(size=(n, K))
    if name in ("absolute_error", "quantile", "huber"):
        # Keep the residuals away from the kinks (0 and +-delta).
        raw0[:, 0] = y + np.where(rng.rand(n) < 0.5, -1, 1) * rng.uniform(0.2, 2.0, n)
        loss.begin_round(y, raw0, np.ones(n))
        loss.delta = 1.0
        raw0[:, 0] = np.where(np.abs(np.abs(y - raw0[:, 0]) - 1.0) < 0.05,
                              raw0[:, 0] + 0.2, raw0[:, 0])
    w = np.ones(n)

    def f(flat):
        return n * loss(y, flat.reshape(n, K), w) / loss.score_factor

    def grad(flat):
        return loss.gradient(y, flat.reshape(n, K)).ravel()

    assert check_grad(f, grad, raw0.ravel(), epsilon=1e-7) < 1e-5


@pytest.mark.parametrize("name",
                         ["absolute_error", "quantile", "huber", "squared_error"])
def test_leaf_values_minimise_each_leafs_loss(name):
    # The line search of notes B §9.5: gamma_j = argmin sum_{R_j} l(y, F + gamma).
    rng = np.random.RandomState(1)
    n = 200
    loss = make_loss(name, 1, alpha=0.8)
    y = rng.standard_t(3, size=n)
    raw = rng.normal(scale=0.3, size=(n, 1))
    w = rng.uniform(0.2, 3.0, size=n)
    leaf = rng.randint(3, size=n)
    loss.begin_round(y, raw, w)
    g = -loss.gradient(y, raw)[:, 0]
    gamma = loss.leaf_values(y, raw, g, leaf, w, 3, 0)
    for j in range(3):
        m = leaf == j

        def leaf_loss(c):
            return loss(y[m], raw[m] + c, w[m])

        best = minimize_scalar(leaf_loss, bounds=(-5, 5), method="bounded",
                               options={"xatol": 1e-10}).fun
        if name == "huber":  # one-step estimate: close to, not at, the minimum
            assert leaf_loss(gamma[j]) <= best * 1.02
        else:
            assert leaf_loss(gamma[j]) <= best + 1e-9


def test_leaf_quantile_matches_numpy_inverted_cdf():
    rng = np.random.RandomState(0)
    v = rng.normal(size=101)
    leaf = rng.randint(4, size=101)
    out = leaf_quantile(v, leaf, np.ones(101), 0.3, 4)
    for j in range(4):
        assert out[j] == np.percentile(v[leaf == j], 30, method="inverted_cdf")


@pytest.mark.parametrize("loss", ["squared_error", "absolute_error", "quantile"])
def test_training_loss_non_increasing_with_line_search(loss):
    X, y = _regression(3, n=120)
    gb = GradientBoostingRegressor(loss=loss, n_estimators=30, learning_rate=1.0,
                                   max_depth=2, max_bins=None, random_state=0).fit(X, y)
    assert np.all(np.diff(gb.train_score_) <= 1e-12)


# -- parity with scikit-learn ----------------------------------------------------
def _split(loader, stratify=True):
    X, y = loader(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=0,
                            stratify=y if stratify else None)


@parity_test(GradientBoostingClassifier, GradientBoostingRegressor)
@pytest.mark.parametrize("loader", [datasets.load_breast_cancer, datasets.load_iris,
                                    datasets.load_wine])
@pytest.mark.parametrize("max_bins", [256, None])
def test_parity_classifier_accuracy(loader, max_bins):
    X_tr, X_te, y_tr, y_te = _split(loader)
    ours = GradientBoostingClassifier(max_bins=max_bins, random_state=0).fit(X_tr, y_tr)
    ref = sken.GradientBoostingClassifier(random_state=0).fit(X_tr, y_tr)
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) <= 0.02 + 1e-12
    assert ours.estimators_.shape == ref.estimators_.shape


@parity_test(GradientBoostingRegressor)
@pytest.mark.parametrize("loss", ["squared_error", "huber", "absolute_error"])
def test_parity_regressor_r2(loss):
    X_tr, X_te, y_tr, y_te = _split(datasets.load_diabetes, stratify=False)
    ours = GradientBoostingRegressor(loss=loss, random_state=0).fit(X_tr, y_tr)
    ref = sken.GradientBoostingRegressor(loss=loss, random_state=0).fit(X_tr, y_tr)
    assert abs(ours.score(X_te, y_te) - ref.score(X_te, y_te)) < 0.03


@pytest.mark.parametrize("loader, loss, rtol", [
    (datasets.load_iris, "log_loss", 1e-6),       # multinomial: K trees per round
    (datasets.load_diabetes, "squared_error", 1e-6),
    (datasets.load_breast_cancer, "log_loss", 0.1),  # float32 ties move a few splits
    (datasets.load_breast_cancer, "exponential", 0.1),
])
def test_exact_mode_train_loss_trajectory_close_to_sklearn(loader, loss, rtol):
    X, y = loader(return_X_y=True)
    kind = "Regressor" if loss == "squared_error" else "Classifier"
    ours = {"Classifier": GradientBoostingClassifier,
            "Regressor": GradientBoostingRegressor}[kind](
        loss=loss, n_estimators=30, max_bins=None, random_state=0).fit(X, y)
    ref = getattr(sken, f"GradientBoosting{kind}")(
        loss=loss, n_estimators=30, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=rtol)


def test_zero_init_unit_rate_matches_sklearn_on_tie_free_data():
    # Notes B §9.5: squared loss, learning_rate=1, g_0 = 0 (D4's presentation).
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(60, 3))
    y = np.sin(4 * X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=60)
    params = dict(learning_rate=1.0, init="zero", n_estimators=5, max_depth=2)
    ours = GradientBoostingRegressor(max_bins=None, random_state=0, **params).fit(X, y)
    ref = sken.GradientBoostingRegressor(random_state=0, **params).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-10)


# -- API behaviour ---------------------------------------------------------------
@pytest.fixture(scope="module")
def iris_split():
    return _split(datasets.load_iris)


def test_staged_methods_end_at_the_final_model(iris_split):
    X_tr, X_te, y_tr, _ = iris_split
    clf = GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X_tr, y_tr)
    staged = list(clf.staged_predict(X_te))
    assert len(staged) == clf.n_estimators_ == 15
    np.testing.assert_array_equal(staged[-1], clf.predict(X_te))
    np.testing.assert_allclose(list(clf.staged_predict_proba(X_te))[-1],
                               clf.predict_proba(X_te))
    np.testing.assert_allclose(list(clf.staged_decision_function(X_te))[-1],
                               clf.decision_function(X_te))
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X_te)),
                               clf.predict_proba(X_te))
    leaves = clf.apply(X_te)
    assert leaves.shape == (X_te.shape[0], 15, 3)
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    X, y = _regression(0)
    reg = GradientBoostingRegressor(n_estimators=7, random_state=0).fit(X, y)
    np.testing.assert_allclose(list(reg.staged_predict(X))[-1], reg.predict(X))
    assert reg.apply(X).shape == (X.shape[0], 7)
    # Each tree is a usable skml tree holding the unshrunk leaf values.
    tree = reg.estimators_[0, 0]
    np.testing.assert_array_equal(tree.apply(X), reg.apply(X)[:, 0])
    np.testing.assert_allclose(reg.init_[0] + reg.learning_rate * tree.predict(X),
                               next(reg.staged_predict(X)))


def test_binary_decision_function_and_labels():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    labels = np.where(y == 1, "yes", "no")
    clf = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(X, labels)
    d = clf.decision_function(X)
    assert d.shape == (X.shape[0],)
    np.testing.assert_array_equal(clf.predict(X), np.where(d > 0, "yes", "no"))
    assert clf.apply(X).shape == (X.shape[0], 10, 1)


def test_early_stopping_stops():
    X, y = _regression(0, n=300)
    gb = GradientBoostingRegressor(n_estimators=1000, learning_rate=0.5, max_depth=4,
                                   n_iter_no_change=5, random_state=0).fit(X, y)
    assert gb.n_estimators_ < 1000
    assert gb.estimators_.shape[0] == gb.train_score_.shape[0] == gb.n_estimators_
    clf = GradientBoostingClassifier(n_estimators=500, n_iter_no_change=3,
                                     validation_fraction=0.2, random_state=0)
    X, y = datasets.load_breast_cancer(return_X_y=True)
    assert clf.fit(X, y).n_estimators_ < 500


def test_subsample_out_of_bag():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    clf = GradientBoostingClassifier(n_estimators=40, subsample=0.5, random_state=0)
    clf.fit(X, y)
    assert clf.oob_improvement_.shape == clf.oob_scores_.shape == (40,)
    assert clf.oob_score_ == clf.oob_scores_[-1]
    # The first rounds improve the held-out loss; the oob loss ends far below the start.
    assert clf.oob_improvement_[0] > 0
    assert clf.oob_scores_[-1] < 0.5 * (clf.oob_scores_[0] + clf.oob_improvement_[0])
    np.testing.assert_allclose(np.diff(clf.oob_scores_), -clf.oob_improvement_[1:])
    plain = GradientBoostingClassifier(n_estimators=5).fit(X, y)
    assert not hasattr(plain, "oob_improvement_")


def test_subsample_mask_draws_exactly_n_inbag_rows_uniformly():
    # Selection sampling: every call takes exactly n_inbag rows, and over many
    # draws each of the C(5, 2) = 10 subsets comes up 1/10 of the time
    # (20000 draws: standard error 0.0021, bound 0.01).
    rng = np.random.RandomState(0)
    counts = {}
    inbag = np.empty(5, dtype=bool)
    for _ in range(20000):
        subsample_mask(rng.uniform(size=5), 2, inbag)
        assert inbag.sum() == 2
        key = tuple(np.flatnonzero(inbag))
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 10
    assert max(abs(c / 20000 - 0.1) for c in counts.values()) < 0.01
    for n, n_inbag in [(1, 1), (7, 7), (1000, 1), (1000, 999)]:
        inbag = np.empty(n, dtype=bool)
        subsample_mask(rng.uniform(size=n), n_inbag, inbag)
        assert inbag.sum() == n_inbag


@parity_test(GradientBoostingClassifier, GradientBoostingRegressor)
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_subsamples_are_scikit_learns(seed):
    # The same random_state gives scikit-learn's subsamples: a first round's
    # in-bag loss is a function of the in-bag rows (another subsample of the
    # rows gives another value). (Whole fits can still part: tied split gains
    # go by each library's own feature order, and its trees split float32 X.)
    for ours_cls, ref_cls, load in [
            (GradientBoostingRegressor, sken.GradientBoostingRegressor,
             datasets.load_diabetes),
            (GradientBoostingClassifier, sken.GradientBoostingClassifier,
             datasets.load_breast_cancer)]:
        X, y = load(return_X_y=True)
        kw = dict(n_estimators=1, subsample=0.6, random_state=seed)
        ours = ours_cls(max_bins=None, **kw).fit(X, y)
        ref = ref_cls(**kw).fit(X, y)
        np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-9)
        assert ours.estimators_[0, 0].tree_.n_node_samples[0] == int(0.6 * len(y))


def test_quantile_loss_coverage():
    rng = np.random.RandomState(0)
    X = rng.uniform(-2, 2, size=(2000, 2))
    y = X[:, 0] + rng.normal(scale=0.5 + 0.3 * np.abs(X[:, 1]), size=2000)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)
    for alpha in (0.1, 0.9):
        gb = GradientBoostingRegressor(loss="quantile", alpha=alpha, n_estimators=100,
                                       random_state=0).fit(X_tr, y_tr)
        coverage = np.mean(y_te <= gb.predict(X_te))
        assert coverage == pytest.approx(alpha, abs=0.05)


@pytest.mark.parametrize("max_bins", [256, None])
def test_missing_values(max_bins):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    # Missingness itself carries the label: NaN exactly where y == 1 in column 1.
    X[:, 1] = np.where(y == 1, np.nan, X[:, 1])
    X[rng.rand(400) < 0.5, 0] = np.nan
    clf = GradientBoostingClassifier(n_estimators=20, max_bins=max_bins,
                                     random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert np.all(np.isfinite(clf.predict_proba(X)))
    # The one-pass kernel over the packed trees equals the trees one by one.
    X_new = rng.normal(size=(50, 3))
    X_new[rng.rand(50, 3) < 0.3] = np.nan
    by_tree = clf.init_[0] + sum(clf.learning_rate * est.predict(X_new)
                                 for est in clf.estimators_[:, 0])
    np.testing.assert_allclose(clf.decision_function(X_new), by_tree, atol=1e-12)


def test_sample_weight_integer_equals_repetition_exact_mode():
    X, y = _regression(5, n=40)
    w = np.random.RandomState(0).randint(0, 3, size=40)
    a = GradientBoostingRegressor(n_estimators=10, max_bins=None, random_state=0)
    b = GradientBoostingRegressor(n_estimators=10, max_bins=None, random_state=0)
    a.fit(X, y, sample_weight=w)
    b.fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=1e-10)


def test_warm_start_equals_one_fit():
    X, y = _regression(1)
    full = GradientBoostingRegressor(n_estimators=20, subsample=0.7, random_state=0)
    full.fit(X, y)
    warm = GradientBoostingRegressor(n_estimators=10, subsample=0.7, warm_start=True,
                                     random_state=0).fit(X, y)
    warm.set_params(n_estimators=20).fit(X, y)
    np.testing.assert_allclose(warm.predict(X), full.predict(X))
    with pytest.raises(ValueError, match="n_estimators"):
        warm.set_params(n_estimators=5).fit(X, y)


def test_verbose_prints_progress(capsys):
    X, y = _regression(0)
    GradientBoostingRegressor(n_estimators=12, subsample=0.8, verbose=1,
                              random_state=0).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert "Train Loss" in out[0] and "OOB Improve" in out[0]
    assert len(out) == 1 + 10 + 0  # rounds 1..10, then every 10th (none up to 12)


@pytest.mark.parametrize("params, match", [
    ({"loss": "hinge"}, "loss"),
    ({"max_bins": 2}, "max_bins"),
    ({"max_bins": 300}, "max_bins"),
    ({"n_estimators": 0}, "n_estimators"),
    ({"subsample": 0.0}, "subsample"),
    ({"learning_rate": -1.0}, "learning_rate"),
    ({"validation_fraction": 1.0}, "validation_fraction"),
    ({"init": "mean"}, "init"),
])
def test_bad_parameters(params, match):
    X, y = _regression(0)
    with pytest.raises(ValueError, match=match):
        GradientBoostingRegressor(**params).fit(X, y)


def test_bad_input():
    X, y = _regression(0)
    with pytest.raises(ValueError, match="alpha"):
        GradientBoostingRegressor(loss="quantile", alpha=1.5).fit(X, y)
    with pytest.raises(ValueError, match="exponential"):
        GradientBoostingClassifier(loss="exponential").fit(X, np.arange(80) % 3)
    with pytest.raises(ValueError, match="class"):
        GradientBoostingClassifier().fit(X, np.zeros(80))
    with pytest.raises(ValueError, match="sparse X must be finite"):
        GradientBoostingRegressor().fit(sparse.csr_matrix(np.where(X > 1, np.nan, X)), y)
    with pytest.raises(ValueError, match="[Ii]nf"):
        GradientBoostingRegressor().fit(np.where(X > 1, np.inf, X), y)
    with pytest.raises(ValueError, match="NaN"):
        GradientBoostingRegressor().fit(X, np.where(y > 1, np.nan, y))
    with pytest.raises(ValueError, match="weight"):
        GradientBoostingRegressor().fit(X, y, sample_weight=np.zeros(80))
    fitted = GradientBoostingRegressor(n_estimators=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X[:, :2])


def test_categorical_features_multiway_exact_mode():
    rng = np.random.RandomState(0)
    n = 300
    cat = rng.randint(5, size=n).astype(float) * 10  # values 0, 10, ..., 40
    effect = np.array([0.0, 3.0, -2.0, 5.0, 1.0])
    X = np.column_stack([cat, rng.normal(size=n)])
    y = effect[(cat // 10).astype(int)] + 0.5 * X[:, 1] + 0.1 * rng.normal(size=n)
    gb = GradientBoostingRegressor(n_estimators=30, max_depth=1, learning_rate=0.5,
                                   max_bins=None, categorical_features=[0],
                                   random_state=0).fit(X, y)
    np.testing.assert_array_equal(gb.categories_[0], [0, 10, 20, 30, 40])
    # A depth-1 tree on the categorical feature is one multiway split: all
    # five categories separated in one round.
    first = gb.estimators_[0, 0].tree_
    assert first.has_categorical_nodes and first.n_leaves == 5
    assert gb.score(X, y) > 0.95
    # An unseen category goes to a child instead of failing.
    X_new = X[:3].copy()
    X_new[:, 0] = 55.0
    assert np.all(np.isfinite(gb.predict(X_new)))
    np.testing.assert_array_equal(gb.estimators_[3, 0].apply(X), gb.apply(X)[:, 3])
    with pytest.raises(ValueError, match="max_bins=None"):
        GradientBoostingRegressor(categorical_features=[0]).fit(X, y)
    with pytest.raises(ValueError, match="categorical_features"):
        GradientBoostingRegressor(categorical_features=[7], max_bins=None).fit(X, y)


def test_exact_mode_early_stopping_and_weights_match_sklearn():
    # Same validation split (train_test_split with the same seed), same
    # stopping rule: the same number of rounds.
    X, y = datasets.load_diabetes(return_X_y=True)
    params = dict(n_estimators=500, n_iter_no_change=5, random_state=0)
    ours = GradientBoostingRegressor(max_bins=None, **params).fit(X, y)
    ref = sken.GradientBoostingRegressor(**params).fit(X, y)
    assert ours.n_estimators_ == ref.n_estimators_ < 500
    w = np.random.RandomState(1).uniform(0.5, 2.0, size=y.shape[0])
    for loss in ("huber", "quantile"):
        ours = GradientBoostingRegressor(loss=loss, n_estimators=20, max_bins=None,
                                         random_state=0).fit(X, y, sample_weight=w)
        ref = sken.GradientBoostingRegressor(loss=loss, n_estimators=20,
                                             random_state=0).fit(X, y, sample_weight=w)
        np.testing.assert_allclose(ours.init_, ref.init_.constant_.ravel())
        np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-6)
    X, y = datasets.load_iris(return_X_y=True)
    w = w[:y.shape[0]]
    ours = GradientBoostingClassifier(n_estimators=20, max_bins=None,
                                      random_state=0).fit(X, y, sample_weight=w)
    ref = sken.GradientBoostingClassifier(n_estimators=20, random_state=0).fit(
        X, y, sample_weight=w)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)


def test_categorical_trees_predict_through_the_packed_layout():
    # Multiway nodes are packed like binary ones: the one-pass prediction,
    # the staged scores and apply equal the member trees one by one.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(300, 3))
    X[:, 0] = rng.randint(0, 6, 300)
    X[rng.rand(300) < 0.1, 0] = np.nan
    y = np.nan_to_num(X[:, 0], nan=2.5) + X[:, 1] + rng.normal(scale=0.1, size=300)
    reg = GradientBoostingRegressor(n_estimators=15, max_bins=None, categorical_features=[0],
                                    random_state=0).fit(X, y)
    assert all(est.tree_.has_categorical_nodes for est in reg.estimators_[:, 0])
    X_new = rng.normal(size=(80, 3))
    X_new[:, 0] = rng.randint(-1, 8, 80)
    X_new[rng.rand(80) < 0.2, 0] = np.nan
    members = [reg.learning_rate * est.predict(X_new) for est in reg.estimators_[:, 0]]
    np.testing.assert_allclose(reg.predict(X_new), reg.init_[0] + sum(members), atol=1e-12)
    staged = list(reg.staged_predict(X_new))
    np.testing.assert_allclose(staged[4], reg.init_[0] + sum(members[:5]), atol=1e-12)
    leaves = np.column_stack([est.apply(X_new) for est in reg.estimators_[:, 0]])
    np.testing.assert_array_equal(reg.apply(X_new), leaves)


class _CountingClassifier(GradientBoostingClassifier):
    """Counts the binnings of X (a real subclass: the hook is a method)."""

    n_binnings = 0

    def _bin_features(self, X, n_threads):
        type(self).n_binnings += 1
        return super()._bin_features(X, n_threads)


def _same_trees(a, b):
    assert a.estimators_.shape == b.estimators_.shape
    for ta, tb in zip(a.estimators_.ravel(), b.estimators_.ravel()):
        for name in ("children_left", "feature", "threshold", "missing_go_to_left",
                     "value", "impurity", "n_node_samples"):
            np.testing.assert_array_equal(getattr(ta.tree_, name), getattr(tb.tree_, name))


@pytest.mark.parametrize("subsample", [1.0, 0.7])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_warm_start_bins_once_and_equals_cold_fit(n_classes, subsample):
    X, y = make_classification(n_samples=600, n_features=6, n_informative=4,
                               n_classes=n_classes, random_state=0)
    X[::7, 1] = np.nan
    _CountingClassifier.n_binnings = 0
    cold = _CountingClassifier(n_estimators=12, subsample=subsample,
                               random_state=0).fit(X, y)
    assert _CountingClassifier.n_binnings == 1
    warm = _CountingClassifier(n_estimators=4, subsample=subsample, warm_start=True,
                               random_state=0)
    for rounds in (4, 8, 12):
        warm.set_params(n_estimators=rounds).fit(X, y)
    assert _CountingClassifier.n_binnings == 2  # the warm fits binned once
    _same_trees(warm, cold)
    np.testing.assert_array_equal(warm.decision_function(X), cold.decision_function(X))
    np.testing.assert_array_equal(warm.train_score_, cold.train_score_)


def test_warm_start_rebins_changed_data_and_does_not_pickle_codes():
    X, y = make_classification(n_samples=400, n_features=5, random_state=1)
    _CountingClassifier.n_binnings = 0
    est = _CountingClassifier(n_estimators=3, warm_start=True, random_state=0).fit(X, y)
    X2 = X.copy()
    X2[5, 3] += 1.0  # one value differs: the codes may differ
    est.set_params(n_estimators=6).fit(X2, y)
    assert _CountingClassifier.n_binnings == 2
    est.set_params(n_estimators=9).fit(X2[:, :], y)  # equal bytes: reused
    assert _CountingClassifier.n_binnings == 2
    restored = pickle.loads(pickle.dumps(est))
    assert not hasattr(restored, "_binned_cache")
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))
    # The restored estimator has no codes: an equal copy of X2 (another
    # object) is re-binned; X2 itself (alive, same bytes) has its codes beside it.
    restored.set_params(n_estimators=10).fit(X2.copy(), y)  # re-bins, still correct
    assert _CountingClassifier.n_binnings == 3
    pickle.loads(pickle.dumps(est)).set_params(n_estimators=10).fit(X2, y)
    assert _CountingClassifier.n_binnings == 3


@pytest.mark.parametrize("kind", ["binary", "multiclass", "regression"])
def test_training_scores_from_growth_equal_a_fresh_prediction(kind):
    # The histogram mode updates the training scores from the leaf each row
    # reached during growth (the binary loss fused with the next gradient);
    # the last training loss must be the fitted model's loss on X. (With a
    # subsample, the warm-start tests compare against re-predicted scores.)
    if kind == "regression":
        X, y = make_regression(n_samples=500, n_features=6, noise=3.0, random_state=2)
        est = GradientBoostingRegressor(n_estimators=15, random_state=0).fit(X, y)
        raw = est.predict(X)[:, None]
    else:
        X, y = make_classification(n_samples=500, n_features=6, n_informative=4,
                                   n_classes=2 if kind == "binary" else 3,
                                   random_state=2)
        est = GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X, y)
        raw = est.decision_function(X)
        raw = raw[:, None] if raw.ndim == 1 else raw
    expected = est._loss(y.astype(np.float64), raw, np.ones(X.shape[0]))
    np.testing.assert_allclose(est.train_score_[-1], expected, rtol=1e-10)


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_n_jobs_gives_the_one_thread_model_and_restores_numba_threads(n_jobs):
    # The histograms are summed with the features shared among threads, each
    # feature's sums in the one-thread order: the same trees to the bit.
    import numba

    X, y = make_classification(n_samples=12000, n_features=8, n_informative=5,
                               n_classes=3, random_state=0)
    X[::11, 2] = np.nan
    w = np.random.default_rng(0).integers(1, 3, X.shape[0]).astype(float)
    kw = dict(n_estimators=3, max_depth=4, random_state=0)
    one = GradientBoostingClassifier(**kw).fit(X, y, sample_weight=w)
    outer = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        many = GradientBoostingClassifier(n_jobs=n_jobs, **kw).fit(X, y, sample_weight=w)
        assert numba.get_num_threads() == 1  # set for the fit, restored after
    finally:
        numba.set_num_threads(outer)
    _same_trees(one, many)
    np.testing.assert_array_equal(one.decision_function(X), many.decision_function(X))
    np.testing.assert_array_equal(one.train_score_, many.train_score_)


def test_n_jobs_is_validated():
    X, y = make_regression(n_samples=50, n_features=3, random_state=0)
    with pytest.raises(ValueError, match="n_jobs"):
        GradientBoostingRegressor(n_jobs="all").fit(X, y)


@pytest.mark.parametrize("kind", ["binary", "regression"])
@pytest.mark.parametrize("weighted", [False, True])
def test_n_jobs_two_on_threaded_row_passes_gives_the_one_thread_model(kind, weighted):
    # Above PARALLEL_MIN_ROWS / PARTITION_MIN_ROWS rows a fit with n_jobs=2
    # also takes the fused loss/gradient pass, the partitions of large nodes
    # and the leaf ids on threads (and bins two columns at a time): the same
    # trees, scores and training losses to the bit.
    from skml.ensemble._gb_kernels import PARALLEL_MIN_ROWS
    from skml.tree._hist_kernels import PARTITION_MIN_ROWS

    n = max(PARALLEL_MIN_ROWS, PARTITION_MIN_ROWS) + 7001
    if kind == "binary":
        X, y = make_classification(n_samples=n, n_features=6, n_informative=4,
                                   random_state=1)
        est = GradientBoostingClassifier
    else:
        X, y = make_regression(n_samples=n, n_features=6, n_informative=4, noise=5.0,
                               random_state=1)
        est = GradientBoostingRegressor
    X[::13, 3] = np.nan
    w = (np.random.default_rng(1).integers(0, 3, n).astype(float) if weighted else None)
    kw = dict(n_estimators=4, max_depth=3, random_state=0)
    one = est(n_jobs=1, **kw).fit(X, y, sample_weight=w)
    two = est(n_jobs=2, **kw).fit(X, y, sample_weight=w)
    _same_trees(one, two)
    np.testing.assert_array_equal(one.train_score_, two.train_score_)
    scores = "decision_function" if kind == "binary" else "predict"
    np.testing.assert_array_equal(getattr(one, scores)(X), getattr(two, scores)(X))


def test_param_names_cached_per_class():
    # _get_param_names is found once per class (and __init__): the same names
    # as scikit-learn's signature inspection, a subclass's own ones.
    from sklearn.base import BaseEstimator, clone

    class Sub(GradientBoostingRegressor):
        def __init__(self, *, extra=1, n_estimators=100):
            super().__init__(n_estimators=n_estimators)
            self.extra = extra

    for cls in (GradientBoostingRegressor, GradientBoostingClassifier, Sub):
        names = BaseEstimator._get_param_names.__func__(cls)
        assert cls._get_param_names() == names
        got = cls._get_param_names()
        got.append("x")  # a caller's list, not the cache
        assert cls._get_param_names() == names
    assert Sub._get_param_names() == ["extra", "n_estimators"]
    est = GradientBoostingClassifier(n_estimators=7, max_depth=2)
    assert clone(est).get_params() == est.get_params()
    assert est.set_params(max_depth=4).max_depth == 4
