"""Convolutional layers and networks (notes B §7.5)."""

import math
import pickle
import warnings

import numpy as np
import pytest
from scipy.signal import correlate
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from skml.neural_network import (
    ConvNetClassifier,
    ConvNetRegressor,
    MLPClassifier,
    conv2d_as_matrix,
    conv2d_output_shape,
    im2col,
)
from skml.neural_network._conv_modules import (
    AvgPool2D,
    Conv2D,
    ConvTranspose2D,
    Flatten,
    GlobalAvgPool,
    LpPool2D,
    MaxPool2D,
    ResidualBlock,
)
from skml.neural_network._modules import Activation, Dense, Sequential
from skml.optim import check_gradient
from tests._parity import parity_test


def _net(layers, in_shape, seed=0):
    return Sequential(layers, in_shape, rng=np.random.RandomState(seed))


def _forward(layer, X, seed=0):
    net = _net([layer], X.shape[1:], seed)
    return net, net.forward(X).copy()


# ------------------------------------------------------------ worked numbers


def test_output_size_formula_matches_random_cases():
    rng = np.random.default_rng(0)
    for _ in range(200):
        m, n = rng.integers(1, 30, size=2)
        a, b = rng.integers(1, 6, size=2)
        p, q = rng.integers(0, 3, size=2)
        s, t = rng.integers(1, 4, size=2)
        if m + 2 * p < a or n + 2 * q < b:
            continue
        expected = (math.floor(1 + (m + 2 * p - a) / s),
                    math.floor(1 + (n + 2 * q - b) / t))
        assert conv2d_output_shape((m, n), (a, b), (s, t), (p, q)) == expected
    # LeNet's first layer: 32 x 32, 5 x 5 kernel -> 28 x 28.
    assert conv2d_output_shape((32, 32, 3), 5) == (28, 28)


@pytest.mark.parametrize("m", [5, 8, 9])
@pytest.mark.parametrize("a", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("s", [1, 2, 3])
def test_same_padding_keeps_the_size(m, a, s):
    assert conv2d_output_shape((m, m), a, s, "same") == (m, m)
    # The notes' symmetric p = ceil((m (s - 1) + a - s) / 2) keeps the size
    # too, except when that total is odd with stride 1 (an even kernel):
    # there it gives m + 1 (the erratum "same" pads asymmetrically for).
    total = m * (s - 1) + a - s
    p = math.ceil(total / 2)
    notes = conv2d_output_shape((m, m), a, s, p)[0]
    assert notes == (m + 1 if (s == 1 and total % 2) else m)


def test_2x2_kernel_on_3x3_is_the_notes_4x9_matrix():
    w00, w01, w10, w11 = 2.0, 3.0, 5.0, 7.0
    M = conv2d_as_matrix(np.array([[w00, w01], [w10, w11]]), (3, 3))
    notes = np.array([
        [w00, w01, 0, w10, w11, 0, 0, 0, 0],
        [0, w00, w01, 0, w10, w11, 0, 0, 0],
        [0, 0, 0, w00, w01, 0, w10, w11, 0],
        [0, 0, 0, 0, w00, w01, 0, w10, w11],
    ])
    assert M.shape == (4, 9)
    np.testing.assert_array_equal(M, notes)
    # 4 shared weights instead of a dense layer's 36.
    assert len(np.unique(M[M != 0])) == 4 and M.size == 36
    layer = Conv2D(1, 2)
    assert math.prod(layer.param_shapes((3, 3, 1))["W"]) == 4
    assert math.prod(Dense(4).param_shapes((9,))["W"]) == 36


def test_weight_count_is_c_in_times_kernel_times_c_out():
    shapes = Conv2D(7, (3, 5)).param_shapes((10, 10, 4))
    assert math.prod(shapes["W"]) == 4 * 3 * 5 * 7 and shapes["b"] == (7,)


# ------------------------------------------------------------ convolution


def _reference_conv(X, W, b, stride, pads):
    """Per-channel scipy correlations summed, plus the bias, subsampled."""
    (top, bottom), (left, right) = pads
    n, _, _, c_in = X.shape
    Xp = np.pad(X, ((0, 0), (top, bottom), (left, right), (0, 0)))
    out = []
    for k in range(n):
        maps = []
        for f in range(W.shape[3]):
            acc = sum(correlate(Xp[k, :, :, c], W[:, :, c, f], mode="valid")
                      for c in range(c_in))
            maps.append(acc[::stride[0], ::stride[1]] + b[f])
        out.append(np.stack(maps, axis=-1))
    return np.stack(out)


@pytest.mark.parametrize("kernel, stride, padding, pads", [
    ((3, 3), (1, 1), 0, ((0, 0), (0, 0))),
    ((3, 2), (2, 1), (1, 2), ((1, 1), (2, 2))),
    ((2, 2), (1, 1), "same", ((0, 1), (0, 1))),
    ((3, 3), (2, 2), "same", ((4, 4), (5, 5))),
    ((1, 1), (1, 1), 0, ((0, 0), (0, 0))),
])
def test_conv_is_scipy_correlation_and_the_matrix_product(kernel, stride, padding,
                                                           pads):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3, 7, 9, 2))
    layer = Conv2D(4, kernel, stride, padding)
    net, Y = _forward(layer, X)
    W, b = net.params[0]["W"], net.params[0]["b"]
    np.testing.assert_allclose(Y, _reference_conv(X, W, b, stride, pads), atol=1e-12)
    M = conv2d_as_matrix(W, (7, 9, 2), stride, padding)
    np.testing.assert_allclose(
        (X.reshape(3, -1) @ M.T).reshape(Y.shape) + b, Y, atol=1e-12
    )
    cols = im2col(X, kernel, stride, padding)
    np.testing.assert_allclose(
        (cols @ W.reshape(-1, 4)).reshape(Y.shape) + b, Y, atol=1e-12
    )


def test_conv_as_matrix_matches_single_channel_scipy():
    rng = np.random.default_rng(2)
    X, W = rng.normal(size=(5, 6)), rng.normal(size=(2, 3))
    M = conv2d_as_matrix(W, (5, 6))
    np.testing.assert_allclose(M @ X.ravel(), correlate(X, W, "valid").ravel())


def test_convolution_does_not_flip_the_kernel():
    X = np.zeros((1, 3, 3, 1))
    X[0, 0, 0, 0] = 1.0  # a single 1 at the top-left corner
    net = Sequential([Conv2D(1, 2, padding=0)], (3, 3, 1))
    net.params[0]["W"][:, :, 0, 0] = [[1.0, 2.0], [3.0, 4.0]]
    assert net.forward(X)[0, 0, 0, 0] == 1.0  # w00 * x00, not w11 * x00


# ------------------------------------------------------------ gradient checks


def _gradient_errors(layers, in_shape, seed=0):
    rng = np.random.default_rng(seed)
    net = _net(layers, in_shape, seed)
    X = rng.normal(size=(3, *in_shape))
    R = rng.normal(size=(3, *net.out_shape))

    def f_theta(theta):
        net.theta[:] = theta
        return float(np.sum(net.forward(X, training=True) * R))

    def g_theta(theta):
        net.theta[:] = theta
        net.forward(X, training=True)
        net.backward(R.copy())
        return net.grad.copy()

    def f_x(x):
        return float(np.sum(net.forward(x.reshape(X.shape), training=True) * R))

    def g_x(x):
        net.forward(x.reshape(X.shape), training=True)
        return np.array(net.backward(R.copy(), input_grad=True)).ravel()

    e_theta = check_gradient(f_theta, g_theta, net.theta.copy()) if net.theta.size else 0.0
    return e_theta, check_gradient(f_x, g_x, X.ravel())


@pytest.mark.parametrize("layers, in_shape", [
    ([Conv2D(4, 3, 1, 1)], (5, 6, 2)),
    ([Conv2D(3, (2, 3), 2, "same")], (5, 6, 2)),
    ([Conv2D(3, 1)], (4, 5, 3)),  # 1 x 1 convolution
    ([Conv2D(3, 1, 2)], (5, 5, 2)),
    ([MaxPool2D(2)], (5, 6, 2)),
    ([MaxPool2D(3, 2)], (7, 6, 2)),
    ([AvgPool2D(2)], (4, 6, 2)),
    ([AvgPool2D((2, 3), 1)], (4, 6, 2)),
    ([LpPool2D(2, 3.0)], (4, 6, 2)),
    ([LpPool2D(2, 1.5)], (5, 5, 1)),
    ([GlobalAvgPool()], (3, 4, 2)),
    ([ResidualBlock(2, 3)], (5, 6, 2)),
    ([ResidualBlock(3, 3, 2)], (5, 6, 2)),
    ([ResidualBlock(2, 3, activation="tanh", projection=True)], (4, 4, 2)),
    ([ConvTranspose2D(3, 3, 2, 1)], (4, 3, 2)),
    ([ConvTranspose2D(2, (2, 3))], (3, 3, 1)),
    ([Conv2D(3, 3, padding="same"), Activation("tanh"), MaxPool2D(2), Flatten(),
      Dense(4)], (6, 6, 1)),
])
def test_gradient_check(layers, in_shape):
    e_theta, e_x = _gradient_errors(layers, in_shape)
    assert e_theta < 1e-6
    assert e_x < 1e-6


# ------------------------------------------------------------ layers' values


def test_pooling_values():
    X = np.arange(32.0).reshape(1, 4, 4, 2)
    _, Y = _forward(MaxPool2D(2), X)
    np.testing.assert_array_equal(Y[0, :, :, 0], [[10, 14], [26, 30]])
    _, Y = _forward(AvgPool2D(2), X)
    np.testing.assert_array_equal(Y[0, :, :, 1], [[6, 10], [22, 26]])
    _, Y = _forward(GlobalAvgPool(), X)
    np.testing.assert_allclose(Y, X.mean(axis=(1, 2)))
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2, 4, 6, 3))
    _, L1 = _forward(LpPool2D(2, 1.0), X)
    _, A = _forward(AvgPool2D(2), np.abs(X))
    np.testing.assert_allclose(L1, A)
    # Averaged l_p: (mean |x|^p)^(1/p) tends to max |x| as p grows.
    _, Lp = _forward(LpPool2D(2, 200.0), X)
    _, M = _forward(MaxPool2D(2), np.abs(X))
    np.testing.assert_allclose(Lp, M, rtol=0.01)


def test_max_pool_gradient_goes_to_the_first_maximum():
    X = np.zeros((1, 2, 2, 1))  # a tie: four maxima
    layer = MaxPool2D(2)
    net = Sequential([layer], (2, 2, 1))
    net.forward(X)
    dX = net.backward(np.ones((1, 1, 1, 1)), input_grad=True)
    np.testing.assert_array_equal(dX[0, :, :, 0], [[1, 0], [0, 0]])


def test_residual_block_is_identity_at_zero_weights():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(2, 5, 5, 3))
    net = _net([ResidualBlock(3, 3)], (5, 5, 3))
    assert "proj.W" not in net.params[0]
    net.theta[:] = 0.0
    np.testing.assert_array_equal(net.forward(X), X)
    # With random weights it learns F(x) + x: F is the difference.
    net = _net([ResidualBlock(3, 3)], (5, 5, 3))
    Y = net.forward(X).copy()
    F = Sequential([Conv2D(3, 3, 1, 1), Activation("relu"), Conv2D(3, 3, 1, 1)],
                   (5, 5, 3))
    p = net.params[0]
    F.params[0]["W"][:], F.params[0]["b"][:] = p["conv1.W"], p["conv1.b"]
    F.params[2]["W"][:], F.params[2]["b"][:] = p["conv2.W"], p["conv2.b"]
    np.testing.assert_allclose(Y, F.forward(X) + X, atol=1e-12)
    # Other widths or a stride: the shortcut is a 1 x 1 projection.
    net = _net([ResidualBlock(4, 3, 2)], (5, 5, 3))
    p = net.params[0]
    for name in ("conv1.W", "conv1.b", "conv2.W", "conv2.b"):
        p[name][:] = 0.0
    P = np.einsum("nhwc,cf->nhwf", X[:, ::2, ::2], p["proj.W"][0, 0]) + p["proj.b"]
    np.testing.assert_allclose(net.forward(X), P, atol=1e-12)


def test_transposed_convolution_scales_the_kernel_and_sums_overlaps():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2, 3, 4, 2))
    layer = ConvTranspose2D(3, (3, 2), stride=2)
    net, Y = _forward(layer, X)
    W, b = net.params[0]["W"], net.params[0]["b"]
    expected = np.zeros((2, (3 - 1) * 2 + 3, (4 - 1) * 2 + 2, 3))
    for k in range(2):
        for i in range(3):
            for j in range(4):
                for c in range(2):
                    expected[k, 2 * i:2 * i + 3, 2 * j:2 * j + 2, :] += X[k, i, j, c] * W[c]
    np.testing.assert_allclose(Y, expected + b, atol=1e-12)


def test_transposed_convolution_is_the_adjoint_of_convolution():
    rng = np.random.default_rng(6)
    conv = _net([Conv2D(4, 3, 2, 1)], (7, 7, 2))
    conv.params[0]["b"][:] = 0.0
    out = conv.out_shape
    tconv = _net([ConvTranspose2D(2, 3, 2, 1)], out)
    assert tconv.out_shape == (7, 7, 2)
    tconv.params[0]["W"][:] = conv.params[0]["W"].transpose(3, 0, 1, 2)
    tconv.params[0]["b"][:] = 0.0
    X, Z = rng.normal(size=(1, 7, 7, 2)), rng.normal(size=(1, *out))
    lhs = np.sum(conv.forward(X) * Z)
    rhs = np.sum(X * tconv.forward(Z))
    assert lhs == pytest.approx(rhs, rel=1e-12)


def test_bad_layer_arguments():
    with pytest.raises(ValueError, match="kernel_size"):
        Conv2D(3, 0)
    with pytest.raises(ValueError, match="padding"):
        conv2d_output_shape((5, 5), 3, padding="full")
    with pytest.raises(ValueError, match="larger than the padded input"):
        conv2d_output_shape((2, 2), 3)
    with pytest.raises(ValueError, match="odd kernel_size"):
        ResidualBlock(3, 2)
    with pytest.raises(ValueError, match="p must be"):
        LpPool2D(2, 0.5)
    with pytest.raises(ValueError, match=r"\(h, w, c\) images"):
        Sequential([Conv2D(2, 3)], (10,))


# ------------------------------------------------------------ estimators


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X / 16.0, y, test_size=0.3, random_state=0, stratify=y)


def test_convnet_beats_the_mlp_on_digits_at_equal_epochs(digits):
    X_train, X_test, y_train, y_test = digits
    common = dict(max_iter=8, learning_rate_init=0.003, batch_size=32,
                  n_iter_no_change=100, random_state=0)
    conv = ConvNetClassifier(image_shape=(8, 8), layers=[
        ("conv", 16, 3), ("maxpool", 2), ("conv", 32, 3), ("dense", 64)], **common)
    mlp = MLPClassifier((64,), **common)
    with pytest.warns(Warning):  # both stop at max_iter
        conv.fit(X_train, y_train)
        mlp.fit(X_train, y_train)
    conv_acc, mlp_acc = conv.score(X_test, y_test), mlp.score(X_test, y_test)
    assert conv_acc > mlp_acc + 0.01
    assert conv_acc > 0.95
    assert conv.n_iter_ == mlp.n_iter_ == 8 and len(conv.loss_curve_) == 8


def test_convnet_classifier_api(digits):
    X_train, X_test, y_train, _ = digits
    clf = ConvNetClassifier(image_shape=(8, 8), layers=[("conv", 4, 3), ("maxpool", 2),
                                                        ("residual", 4),
                                                        ("globalavgpool",)],
                            max_iter=2, random_state=0)
    with pytest.warns(Warning):
        clf.fit(X_train[:200], y_train[:200])
    assert clf.image_shape_ == (8, 8, 1)
    assert clf.coefs_[0].shape == (3, 3, 1, 4)
    P = clf.predict_proba(X_test[:5])
    np.testing.assert_allclose(P.sum(1), 1.0)
    assert clf.feature_maps(X_test[:5]).shape == (5, 8, 8, 4)
    assert clf.feature_maps(X_test[:5], layer=1).shape == (5, 4, 4, 4)
    G = clf.input_gradient(X_test[:5], clf.predict(X_test[:5]))
    assert G.shape == (5, 64) and np.all(np.isfinite(G))
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.predict_proba(X_test[:5]), P)
    # warm_start continues from the fitted kernels
    clf.set_params(warm_start=True, max_iter=1)
    before = clf.coefs_[0].copy()
    with pytest.warns(Warning):
        clf.fit(X_train[:200], y_train[:200])
    assert not np.array_equal(before, clf.coefs_[0])
    assert len(clf.loss_curve_) == 3


def test_input_gradient_matches_finite_differences(digits):
    X_train, X_test, y_train, _ = digits
    clf = ConvNetClassifier(image_shape=(8, 8), layers=[("conv", 3, 3), ("avgpool", 2)],
                            activation="tanh", max_iter=2, random_state=0)
    with pytest.warns(Warning):
        clf.fit(X_train[:100], y_train[:100])
    x, label = X_test[:1], clf.predict(X_test[:1])

    def f(v):
        p = clf.predict_proba(v.reshape(1, -1))[0]
        return -np.log(p[np.searchsorted(clf.classes_, label[0])])

    err = check_gradient(f, lambda v: clf.input_gradient(v.reshape(1, -1), label)[0],
                         x.ravel())
    assert err < 1e-6


def test_convnet_regressor_learns_a_local_filter():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 36))
    y = X.reshape(-1, 6, 6)[:, 2:4, 2:4].sum(axis=(1, 2))
    reg = ConvNetRegressor(image_shape=(6, 6), layers=[("conv", 4, 3)],
                           learning_rate_init=0.01, max_iter=150, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X[:300], y[:300])
    assert reg.score(X[300:], y[300:]) > 0.9


def test_multichannel_rows_and_float32():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 4 * 4 * 3)).astype(np.float32)
    y = (X.reshape(-1, 4, 4, 3)[:, :, :, 0].mean((1, 2)) > 0).astype(int)
    clf = ConvNetClassifier(image_shape=(4, 4), layers=[("conv", 2, 3), ("lppool", 2),
                                                        ("dense", 4)],
                            dtype="float32", max_iter=3, random_state=0)
    with pytest.warns(Warning):
        clf.fit(X, y)
    assert clf.image_shape_ == (4, 4, 3) and clf.coefs_[0].dtype == np.float32
    assert clf.predict_proba(X).dtype == np.float64


def test_convtranspose_and_strided_layers_in_the_estimator():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 16))
    y = rng.integers(0, 2, 40)
    clf = ConvNetClassifier(image_shape=(4, 4), layers=[
        ("conv", 2, 3, 2), ("convtranspose", 2, 2, 2), ("residual", 3, 3, 2),
        ("conv", 2, 1), ("avgpool", 5)], max_iter=2, random_state=0)
    with pytest.warns(Warning):
        clf.fit(X, y)
    assert clf.predict(X).shape == (40,)


@pytest.mark.parametrize("params, match", [
    ({"image_shape": (3, 3)}, "does not fit rows of 16"),
    ({"image_shape": (4, 0)}, "image_shape"),
    ({"layers": [("pool", 2)]}, "unknown layer"),
    ({"layers": [("conv", 4)]}, "needs 2 to 4 arguments"),
    ({"layers": [("conv", 0, 3)]}, "positive int width"),
    ({"layers": [("conv", 2, 5, 1, "valid")]}, "does not fit its input"),
    ({"layers": [("dense", 4), ("conv", 2, 3)]}, "needs an image input"),
    ({"layers": "lenet"}, "layers"),
])
def test_bad_estimator_parameters(params, match):
    X = np.random.default_rng(0).normal(size=(20, 16))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=match):
        ConvNetClassifier(max_iter=1, **params).fit(X, y)


def test_default_image_shape_and_lenet_default():
    X = np.random.default_rng(0).normal(size=(30, 64))
    y = np.arange(30) % 3
    with pytest.warns(Warning):
        clf = ConvNetClassifier(max_iter=1, random_state=0).fit(X, y)
    assert clf.image_shape_ == (8, 8, 1)
    assert [W.shape for W in clf.coefs_] == [
        (5, 5, 1, 6), (5, 5, 6, 16), (64, 120), (120, 84), (84, 3)]
    with pytest.warns(Warning):
        clf = ConvNetClassifier(max_iter=1, random_state=0).fit(X[:, :10], y)
    assert clf.image_shape_ == (1, 10, 1)


@pytest.mark.parametrize("Est", [ConvNetClassifier, ConvNetRegressor])
@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_extreme_magnitudes_are_refused_clearly(Est, scale):
    # At X * 1e-300 the network is a constant (the maps vanish against the
    # biases): refused with the reason instead of a silent constant model.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 9)) * scale
    y = np.arange(30) % 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="magnitude"):
            Est(layers=[("conv", 2, 3)], max_iter=2, random_state=0).fit(X, y)


@parity_test(ConvNetClassifier)
def test_parity_classifier_on_digits_against_scikit_learns_mlp():
    # scikit-learn has no ConvNet: its MLP at the same epochs, batch and rate.
    from sklearn.neural_network import MLPClassifier as SkMLP

    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X / 16.0, y, random_state=0, stratify=y)
    common = dict(batch_size=64, learning_rate_init=3e-3, max_iter=10,
                  n_iter_no_change=100, random_state=0)
    clf = ConvNetClassifier(image_shape=(8, 8),
                            layers=[("conv", 8, 3), ("maxpool", 2), ("dense", 32)],
                            **common)
    ref = SkMLP(hidden_layer_sizes=(32,), **common)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X_tr, y_tr)
        ref.fit(X_tr, y_tr)
    # measured: 0.958 against scikit-learn's MLP 0.927
    assert clf.score(X_te, y_te) >= ref.score(X_te, y_te) - 0.01


@parity_test(ConvNetRegressor)
def test_parity_regressor_against_scikit_learns_mlp_on_local_targets():
    # A target made of local 3 x 3 sums: a convolution's natural task.
    from sklearn.neural_network import MLPRegressor as SkMLPRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 36))
    img = X.reshape(-1, 6, 6)
    y = img[:, 0:3, 0:3].sum((1, 2)) - img[:, 3:6, 3:6].sum((1, 2))
    X_tr, X_te, y_tr, y_te = X[:450], X[450:], y[:450], y[450:]
    common = dict(batch_size=32, learning_rate_init=3e-3, max_iter=60,
                  n_iter_no_change=100, random_state=0)
    reg = ConvNetRegressor(image_shape=(6, 6), layers=[("conv", 4, 3), ("dense", 16)],
                           **common)
    ref = SkMLPRegressor(hidden_layer_sizes=(16,), **common)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X_tr, y_tr)
        ref.fit(X_tr, y_tr)
    # measured: R² 0.976 against scikit-learn's MLP 0.986 (a linear target)
    assert reg.score(X_te, y_te) >= ref.score(X_te, y_te) - 0.05


def test_convnet_label_smoothing_lowers_confidence():
    # Notes B §7.6 / D1 §12.2: with label smoothing eps the targets are
    # (1 - eps) y + eps / K, so a well-fitted network's most probable class
    # gets about 1 - eps + eps / K, not 1: the training confidence drops.
    # eps = 0 is the default network exactly.
    from sklearn.base import clone
    from sklearn.datasets import load_digits

    from skml.neural_network import ConvNetClassifier

    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16, y[:300]
    params = dict(image_shape=(8, 8), layers=[("conv", 4, 3), ("maxpool", 2)],
                  learning_rate_init=0.01, batch_size=32, max_iter=30, random_state=0)
    plain = ConvNetClassifier(**params).fit(X, y)
    zero = ConvNetClassifier(**params, label_smoothing=0.0).fit(X, y)
    np.testing.assert_array_equal(plain.predict_proba(X), zero.predict_proba(X))
    smooth = clone(ConvNetClassifier(**params, label_smoothing=0.3)).fit(X, y)
    conf_plain = plain.predict_proba(X).max(axis=1).mean()
    conf_smooth = smooth.predict_proba(X).max(axis=1).mean()
    assert conf_smooth < conf_plain - 0.1
    assert conf_smooth < 1 - 0.3 + 0.3 / 10 + 0.1
    with pytest.raises(ValueError, match="label_smoothing"):
        ConvNetClassifier(**params, label_smoothing=1.0).fit(X, y)
