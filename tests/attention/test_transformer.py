"""TransformerClassifier / TransformerRegressor (notes B §7.6): accuracy and API."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skml.attention import TransformerClassifier, TransformerRegressor

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def which_first(n, T=8, V=6, seed=0):
    """Tokens 3..V-1 with one token 1 and one token 2 per row; y: does 1 come first?

    The bag of tokens (the counts) is the same for every row, so a model that
    ignores the order is at chance.
    """
    rng = np.random.RandomState(seed)
    X = rng.randint(3, V, size=(n, T))
    for i in range(n):
        p, q = rng.choice(T, 2, replace=False)
        X[i, p], X[i, q] = 1, 2
    y = (np.argmax(X == 1, 1) < np.argmax(X == 2, 1)).astype(int)
    return X, y


def bag_of_tokens(X, V=6):
    return np.stack([(X == v).sum(1) for v in range(V)], axis=1)


@pytest.fixture(scope="module")
def task():
    return which_first(600, seed=0), which_first(400, seed=1)


@pytest.mark.parametrize("positional", ["sinusoidal", "rope"])
def test_order_task_near_perfect_where_bag_of_tokens_is_at_chance(task, positional):
    (X, y), (X_test, y_test) = task
    clf = TransformerClassifier(n_layers=1, d_model=16, n_heads=2, positional=positional,
                                vocab_size="auto",
                                batch_size=32, learning_rate_init=3e-3, max_iter=40,
                                random_state=0).fit(X, y)
    bag = LogisticRegression(max_iter=1000).fit(bag_of_tokens(X), y)
    acc = clf.score(X_test, y_test)
    acc_bag = bag.score(bag_of_tokens(X_test), y_test)
    # measured: 1.00 (sinusoidal and rope) against 0.5 +- 0.05 for the bag
    assert acc >= 0.95
    assert acc_bag <= 0.62
    # a transformer without positions is order-blind as well
    blind = TransformerClassifier(n_layers=1, d_model=16, n_heads=2, positional="none",
                                  vocab_size="auto",
                                  batch_size=32, learning_rate_init=3e-3, max_iter=15,
                                  random_state=0).fit(X, y)
    assert blind.score(X_test, y_test) <= 0.65


def test_learned_positions_and_cls_pooling_learn(task):
    (X, y), (X_test, y_test) = task
    clf = TransformerClassifier(n_layers=1, d_model=16, n_heads=2, positional="learned",
                                vocab_size="auto",
                                pooling="cls", batch_size=32, learning_rate_init=3e-3,
                                max_iter=60, random_state=0).fit(X, y)
    assert clf.score(X_test, y_test) >= 0.9


def test_attention_weights_rows_and_causal_mask():
    X, y = which_first(80, seed=2)
    clf = TransformerClassifier(n_layers=2, d_model=8, n_heads=2, causal=True, vocab_size=6,
                                pooling="last", max_iter=2, random_state=0).fit(X, y)
    A = clf.attention_weights(X[:5], layer=1)
    assert A.shape == (5, 2, 8, 8)
    np.testing.assert_allclose(A.sum(-1), 1.0)
    assert np.all(A[..., np.triu_indices(8, 1)[0], np.triu_indices(8, 1)[1]] == 0)
    with pytest.raises(ValueError, match="layer"):
        clf.attention_weights(X[:5], layer=2)


def test_input_kinds():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(50, 4, 3))
    y = (X[:, 0, 0] > X[:, -1, 0]).astype(int)
    kw = dict(n_layers=1, d_model=8, n_heads=2, max_iter=3, random_state=0)
    vec = TransformerClassifier(**kw).fit(X, y)
    assert vec.input_kind_ == "vectors" and vec.sequence_shape_ == (4, 3)
    flat = TransformerClassifier(sequence_shape=(4, 3), **kw).fit(X.reshape(50, 12), y)
    np.testing.assert_allclose(flat.predict_proba(X.reshape(50, 12)),
                               vec.predict_proba(X))
    sca = TransformerClassifier(**kw).fit(X[:, :, 0], y)
    assert sca.input_kind_ == "scalars" and sca.sequence_shape_ == (4, 1)
    ints = (X[:, :, 0] > 0).astype(int)
    tok = TransformerClassifier(vocab_size="auto", **kw).fit(ints, y)
    assert tok.input_kind_ == "tokens" and tok.vocab_size_ == 2
    # without vocab_size, integers are numbers: the same model as their floats
    num = TransformerClassifier(**kw).fit(ints, y)
    assert num.input_kind_ == "scalars"
    np.testing.assert_array_equal(num.predict_proba(ints),
                                  TransformerClassifier(**kw).fit(ints * 1.0, y)
                                  .predict_proba(ints * 1.0))
    with pytest.raises(ValueError, match="integer token ids"):
        tok.predict(ints + 0.5)
    with pytest.raises(ValueError, match="vocab_size"):
        TransformerClassifier(vocab_size=1, **kw).fit(ints, y)
    with pytest.raises(ValueError, match="token ids of shape"):
        TransformerClassifier(vocab_size="auto", **kw).fit(X, y)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tok.predict(np.full((2, 4), 5))
    with pytest.raises(ValueError, match="expecting 4 features"):
        vec.predict(X[:, :3])
    with pytest.raises(ValueError, match="fitted on"):
        vec.predict(X[:, :, :2])
    with pytest.raises(ValueError, match="sequence_shape"):
        TransformerClassifier(sequence_shape=(5, 3), **kw).fit(X.reshape(50, 12), y)


def test_scale_invariance_of_float_input():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(40, 5))
    y = (X[:, 0] > X[:, 4]).astype(int)
    kw = dict(n_layers=1, d_model=8, n_heads=2, max_iter=5, random_state=0)
    a = TransformerClassifier(**kw).fit(X, y).predict_proba(X)
    b = TransformerClassifier(**kw).fit(X * 1e-300, y).predict_proba(X * 1e-300)
    c = TransformerClassifier(**kw).fit(X + 1e8, y).predict_proba(X + 1e8)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-6)


def test_label_smoothing_keeps_probabilities_away_from_one(task):
    (X, y), _ = task
    kw = dict(n_layers=1, d_model=16, n_heads=2, batch_size=32, learning_rate_init=3e-3,
              max_iter=40, vocab_size="auto", random_state=0)
    hard = TransformerClassifier(**kw).fit(X, y).predict_proba(X).max(1)
    soft = TransformerClassifier(label_smoothing=0.2, **kw).fit(X, y).predict_proba(X)
    # the smoothed optimum puts 1 - eps + eps / 2 = 0.9 on the true class
    assert np.median(soft.max(1)) < 0.95 < np.median(hard)


def test_regressor_learns_an_order_dependent_target():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(400, 6))
    y = 3.0 * X[:, 0] - 2.0 * X[:, 5] + 100.0
    reg = TransformerRegressor(n_layers=1, d_model=16, n_heads=2, batch_size=32,
                               learning_rate_init=3e-3, max_iter=60,
                               random_state=0).fit(X[:300], y[:300])
    assert reg.score(X[300:], y[300:]) > 0.9
    Y2 = np.c_[y, -y]
    reg2 = TransformerRegressor(n_layers=1, d_model=8, n_heads=2, max_iter=3,
                                random_state=0).fit(X, Y2)
    assert reg2.predict(X).shape == (400, 2)


def test_early_stopping_and_dropout_run():
    X, y = which_first(200, seed=3)
    clf = TransformerClassifier(n_layers=1, d_model=8, n_heads=2, dropout=0.1, vocab_size=6,
                                early_stopping=True, n_iter_no_change=2, max_iter=50,
                                random_state=0).fit(X, y)
    assert len(clf.validation_scores_) == clf.n_iter_ == len(clf.loss_curve_)


@pytest.mark.parametrize("params, match", [
    ({"d_model": 10, "n_heads": 4}, "multiple of n_heads"),
    ({"d_model": 12, "n_heads": 4, "positional": "rope"}, "even"),
    ({"causal": True, "pooling": "cls"}, "pooling='cls'"),
    ({"positional": "relative"}, "positional"),
    ({"label_smoothing": 1.5}, "label_smoothing"),
])
def test_bad_parameters(params, match):
    X, y = which_first(20)
    with pytest.raises(ValueError, match=match):
        TransformerClassifier(max_iter=1, **params).fit(X, y)


def test_reproducible():
    X, y = which_first(60, seed=4)
    kw = dict(n_layers=1, d_model=8, n_heads=2, max_iter=3, vocab_size=6, random_state=0)
    a = TransformerClassifier(**kw).fit(X, y).predict_proba(X)
    b = TransformerClassifier(**kw).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(a, b)
