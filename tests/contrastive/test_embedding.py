"""ContrastiveEmbedding (SimCLR, notes A §8.1) and the augmentations."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.model_selection import cross_val_score
from sklearn.neighbors import KNeighborsClassifier

from skml.contrastive import ContrastiveEmbedding, jitter_mask, random_shift
from tests._data import load
from tests._parity import parity_test

SMALL = dict(hidden_layer_sizes=(16,), projection_dim=8, max_iter=30, batch_size=64)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=150, centers=3, n_features=5, cluster_std=1.5,
                      random_state=0)
    return X, y


def test_transform_is_the_encoder_not_the_projection_head(blobs):
    X, _ = blobs
    emb = ContrastiveEmbedding(n_components=3, random_state=0, **SMALL).fit(X)
    Z = emb.transform(X)
    assert Z.shape == (150, 3)
    net = emb.network_
    assert net.out_shape == (8,)          # the head's output
    Xs = (X - emb.mean_) / emb.scale_
    np.testing.assert_allclose(Z, net.forward(Xs, emb._n_encoder_layers))
    assert net.forward(Xs).shape == (150, 8)
    np.testing.assert_allclose(emb.fit_transform(X), Z)
    assert emb.get_feature_names_out().tolist() == [
        "contrastiveembedding0", "contrastiveembedding1", "contrastiveembedding2"]


def test_training_lowers_nt_xent_and_keeps_clusters_apart(blobs):
    X, y = blobs
    emb = ContrastiveEmbedding(n_components=2, random_state=0,
                               **{**SMALL, "max_iter": 60}).fit(X)
    assert emb.loss_curve_[-1] < emb.loss_curve_[0] - 0.1
    acc = cross_val_score(KNeighborsClassifier(3), emb.transform(X), y, cv=3).mean()
    assert acc > 0.9   # the blobs are separated (raw-space 3-NN: 1.0)


def test_unit_change_gives_the_same_embedding(blobs):
    X, _ = blobs
    Z = ContrastiveEmbedding(random_state=0, **SMALL).fit_transform(X)
    units = np.array([1e3, 1e-2, 7.0, 1.0, 1e5])
    Z2 = ContrastiveEmbedding(random_state=0, **SMALL).fit_transform(X * units + 5.0)
    np.testing.assert_allclose(Z2, Z, rtol=1e-6, atol=1e-6 * np.abs(Z).max())


def test_global_standardize_keeps_the_relative_spreads(blobs):
    X, _ = blobs
    Xc = np.c_[X[:, :2], np.full(len(X), 4.0), X[:, 2:] * 10.0]
    emb = ContrastiveEmbedding(standardize="global", random_state=0,
                               **{**SMALL, "max_iter": 2}).fit(Xc)
    std = Xc.std(axis=0)
    varies = std > 0
    # One scale, the root mean square of the spreads, for the varying features.
    rms = np.sqrt(np.mean(std[varies] ** 2))
    np.testing.assert_allclose(emb.scale_[varies], rms, rtol=1e-12)
    np.testing.assert_allclose(emb.mean_, Xc.mean(axis=0), rtol=1e-12)
    # A common change of units (and a shift) gives the same embedding.
    Z = emb.transform(Xc)
    Z2 = ContrastiveEmbedding(standardize="global", random_state=0,
                              **{**SMALL, "max_iter": 2}).fit_transform(Xc * 1e3 - 3.0)
    np.testing.assert_allclose(Z2, Z, rtol=1e-6, atol=1e-6 * np.abs(Z).max())


def test_callable_augment_is_used_and_its_shape_checked(blobs):
    X, _ = blobs
    calls = []

    def augment(Xb, rng):
        calls.append(Xb.shape)
        return Xb + 0.1 * rng.standard_normal(Xb.shape)

    ContrastiveEmbedding(augment=augment, random_state=0,
                         **{**SMALL, "max_iter": 2}).fit(X)
    assert calls and all(s[1] == 5 for s in calls)
    with pytest.raises(ValueError, match="augment must return"):
        ContrastiveEmbedding(augment=lambda Xb, rng: Xb[:, :2], **SMALL).fit(X)


@pytest.mark.parametrize("params, match", [
    ({"temperature": 0.0}, "temperature"),
    ({"temperature": -1.0}, "temperature"),
    ({"augment": "rotate"}, "augment"),
    ({"n_components": 0}, "n_components"),
    ({"hidden_layer_sizes": (4, 0)}, "hidden_layer_sizes"),
    ({"standardize": "none"}, "standardize"),
])
def test_bad_parameters_are_refused(blobs, params, match):
    with pytest.raises(ValueError, match=match):
        ContrastiveEmbedding(**params).fit(blobs[0])


def test_random_shift_moves_images_by_at_most_one_pixel():
    X = np.zeros((200, 64))
    X[:, 3 * 8 + 4] = 1.0   # one lit pixel at (3, 4)
    out = random_shift(X, np.random.default_rng(0))
    assert out.shape == X.shape
    rows, cols = np.divmod(out.argmax(axis=1), 8)
    assert np.all(out.sum(axis=1) == 1.0)
    assert set(zip(rows - 3, cols - 4)) == {(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    # At the border the pixel can leave the image: zero fill.
    edge = np.zeros((100, 64))
    edge[:, 0] = 1.0
    assert np.any(random_shift(edge, np.random.default_rng(0)).sum(axis=1) == 0)
    with pytest.raises(ValueError, match="square"):
        random_shift(np.zeros((2, 10)), np.random.default_rng(0))


def test_jitter_mask_noise_scale_and_mask_rate():
    rng = np.random.RandomState(0)
    X = rng.randn(4000, 3) * np.array([1.0, 10.0, 100.0])
    out = jitter_mask(X, np.random.default_rng(0), noise=0.1, mask_rate=0.0)
    np.testing.assert_allclose((out - X).std(axis=0) / X.std(axis=0), 0.1, rtol=0.05)
    out = jitter_mask(X, np.random.default_rng(0), noise=0.0, mask_rate=0.25)
    masked = np.isclose(out, X.mean(axis=0)) & ~np.isclose(X, X.mean(axis=0))
    assert masked.mean() == pytest.approx(0.25, abs=0.02)


def test_jitter_mask_at_extreme_magnitudes():
    # Regression: the column spreads were computed from squares, which
    # overflowed at 1e300 and gave NaN views.
    X = np.random.RandomState(0).rand(20, 3)
    for factor in (1e300, 1e-300):
        a = jitter_mask(X, np.random.default_rng(0))
        b = jitter_mask(X * factor, np.random.default_rng(0))
        assert np.all(np.isfinite(b))
        np.testing.assert_allclose(b / factor, a, rtol=1e-9, atol=1e-12)


def test_a_constant_feature_changes_nothing(blobs):
    X, _ = blobs
    Z = ContrastiveEmbedding(random_state=0, augment=lambda Xb, rng: Xb + 0.1,
                             **SMALL).fit_transform(X)
    Xc = np.c_[X[:, :2], np.full(len(X), -3.0), X[:, 2:]]
    Zc = ContrastiveEmbedding(random_state=0, augment=lambda Xb, rng: Xb + 0.1,
                              **SMALL).fit_transform(Xc)
    np.testing.assert_allclose(Zc, Z, rtol=1e-10, atol=1e-12)


@parity_test(ContrastiveEmbedding)
def test_parity_linear_probe_near_scikit_learn_pca_on_wine():
    # No scikit-learn counterpart: the reference is PCA at the same dimension,
    # scored by the linear evaluation protocol (a logistic-regression probe).
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load("wine")

    def probe(Z):
        clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=3000))
        return cross_val_score(clf, Z, y, cv=3).mean()

    ours = probe(ContrastiveEmbedding(n_components=2, hidden_layer_sizes=(64,),
                                      max_iter=100, random_state=0).fit_transform(X))
    ref = probe(PCA(2).fit_transform(StandardScaler().fit_transform(X)))
    # Measured 0.899 against 0.944 (chance: 0.40).
    assert ours > ref - 0.1
    assert ours > 0.8


def test_layer_norm_option(blobs):
    from skml.neural_network._modules import LayerNorm

    X, y = blobs
    emb = ContrastiveEmbedding(layer_norm=True, random_state=0,
                               **{**SMALL, "max_iter": 60}).fit(X)
    assert any(isinstance(layer, LayerNorm) for layer in emb.network_.layers)
    acc = cross_val_score(KNeighborsClassifier(3), emb.transform(X), y, cv=3).mean()
    assert acc > 0.9
