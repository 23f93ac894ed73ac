"""API, state and convergence of the optimisers in skml.optim (notes B §6)."""

import numpy as np
import pytest

from skml.optim import (
    OPTIMIZERS,
    SGD,
    AdaBelief,
    AdaDelta,
    AdaGrad,
    Adam,
    ExponentialDecay,
    Momentum,
    Nesterov,
    RMSProp,
    get_optimizer,
)

CLASSES = {
    "sgd": SGD,
    "momentum": Momentum,
    "nesterov": Nesterov,
    "adagrad": AdaGrad,
    "rmsprop": RMSProp,
    "adadelta": AdaDelta,
    "adam": Adam,
    "adabelief": AdaBelief,
}

SHAPES = [(3,), (2, 4), (1,)]


def _quadratic_problems(seed=0, kappa=50.0):
    """One f_k(x) = 1/2 x'A_k x - b_k'x per parameter array, cond(A_k) = kappa."""
    rng = np.random.default_rng(seed)
    problems = []
    for shape in SHAPES:
        n = int(np.prod(shape))
        Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        A = Q @ np.diag(np.geomspace(1.0, kappa, n) if n > 1 else [kappa]) @ Q.T
        b = rng.standard_normal(n)
        problems.append((A, b, np.linalg.solve(A, b).reshape(shape)))
    return problems


def _gradients(params, problems):
    return [
        (A @ p.ravel() - b).reshape(p.shape) for p, (A, b, _) in zip(params, problems)
    ]


# Hyper-parameters that reach the minimum of the kappa=50 problems (L = 50).
# Adaptive methods oscillate near the minimum at a constant rate, hence the decays.
CONVERGING = {
    "sgd": SGD(1 / 50),
    "momentum": Momentum(1 / 50, momentum=0.9),
    "nesterov": Nesterov(1 / 50, momentum=0.9),
    "adagrad": AdaGrad(0.5),
    "rmsprop": RMSProp(ExponentialDecay(0.05, 0.99)),
    "adadelta": AdaDelta(ExponentialDecay(1.0, 0.995), eps=1e-3),
    "adam": Adam(ExponentialDecay(0.1, 0.99)),
    "adabelief": AdaBelief(ExponentialDecay(0.1, 0.99)),
    "adam-notes": Adam(
        ExponentialDecay(0.1, 0.99), bias_correction=False, eps_inside_sqrt=True
    ),
    "adabelief-notes": AdaBelief(
        ExponentialDecay(0.1, 0.99), bias_correction=False, eps_inside_sqrt=True
    ),
}


@pytest.mark.parametrize("name", CONVERGING)
def test_reaches_the_minimum_of_an_ill_conditioned_quadratic(name):
    opt = CONVERGING[name].reset()
    problems = _quadratic_problems()
    params = [np.zeros(shape) for shape in SHAPES]
    start = max(np.abs(x_star).max() for *_, x_star in problems)
    for _ in range(1500):
        opt.step(params, _gradients(params, problems))
    assert start > 0.1
    for param, (*_, x_star) in zip(params, problems):
        np.testing.assert_allclose(param, x_star, atol=1e-6)


def test_optimizers_tuple_and_get_optimizer():
    assert OPTIMIZERS == tuple(CLASSES)
    for name, cls in CLASSES.items():
        opt = get_optimizer(name, learning_rate=0.5)
        assert type(opt) is cls
        assert opt.learning_rate == 0.5 and opt.t == 0
    opt = get_optimizer("adam", learning_rate=1e-3, beta1=0.8, eps_inside_sqrt=True)
    assert (opt.beta1, opt.eps_inside_sqrt) == (0.8, True)


@pytest.mark.parametrize("name", ["lbfgs", "Adam ", "", None, 3])
def test_get_optimizer_rejects_unknown_names(name):
    with pytest.raises(ValueError, match="Unknown optimizer.*sgd"):
        get_optimizer(name)


def test_get_optimizer_rejects_foreign_keywords():
    with pytest.raises(TypeError, match="SGD.*momentum"):
        get_optimizer("sgd", momentum=0.9)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_step_updates_in_place_and_counts(name):
    rng = np.random.default_rng(1)
    params = [rng.standard_normal(shape) for shape in SHAPES]
    grads = [rng.standard_normal(shape) for shape in SHAPES]
    before = [p.copy() for p in params]
    grads_before = [g.copy() for g in grads]
    ids = [id(p) for p in params]
    opt = get_optimizer(name, learning_rate=0.1)
    assert opt.t == 0
    returned = opt.step(params, grads)
    assert returned is params and [id(p) for p in params] == ids
    assert all(not np.array_equal(p, b) for p, b in zip(params, before))
    for g, g0 in zip(grads, grads_before):  # gradients are never touched
        np.testing.assert_array_equal(g, g0)
    opt.step(params, grads)
    assert opt.t == 2
    # the state follows each array's shape, allocated once
    assert [buffers[0].shape for buffers in opt.state] == SHAPES


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_single_array_is_accepted(name):
    w = np.ones(3)
    get_optimizer(name, learning_rate=0.1).step(w, np.ones(3))
    assert np.all(w < 1)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_reset_forgets_state(name):
    rng = np.random.default_rng(2)
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(5)]

    def run(opt):
        params = [np.ones(s) for s in SHAPES]
        for g in grads:
            opt.step(params, g)
        return params

    opt = get_optimizer(name, learning_rate=0.1)
    first = run(opt)
    assert opt.reset() is opt
    assert opt.t == 0 and opt.state == []
    second = run(opt)
    fresh = run(get_optimizer(name, learning_rate=0.1))
    for a, b, c in zip(first, second, fresh):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_float32_parameters_stay_float32(name):
    w = np.ones((2, 3), dtype=np.float32)
    opt = get_optimizer(name, learning_rate=0.1)
    for _ in range(3):
        opt.step([w], [np.full((2, 3), 0.5)])
    assert w.dtype == np.float32
    assert all(buf.dtype == np.float32 for buf in opt.state[0])
    assert np.all(w < 1)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_zero_gradient_does_not_move_even_without_eps(name):
    kwargs = {} if name in ("sgd", "momentum", "nesterov", "adadelta") else {"eps": 0.0}
    opt = get_optimizer(name, learning_rate=0.1, **kwargs)
    w = np.array([1.0, -2.0])
    for _ in range(3):
        opt.step([w], [np.zeros(2)])
    np.testing.assert_array_equal(w, [1.0, -2.0])


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_schedule_is_called_with_steps_taken(name):
    calls = []

    def schedule(t):
        calls.append(t)
        return 0.01

    opt = get_optimizer(name, learning_rate=schedule)
    w = np.ones(2)
    for _ in range(4):
        opt.step([w], [np.ones(2)])
    assert calls == [0, 1, 2, 3]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_bad_step_inputs_raise(name):
    opt = get_optimizer(name, learning_rate=0.1)
    with pytest.raises(ValueError, match="2 parameter arrays but 1 gradient"):
        opt.step([np.ones(2), np.ones(3)], [np.ones(2)])
    with pytest.raises(ValueError, match="floating-point"):
        opt.step([np.ones(2, dtype=int)], [np.ones(2)])
    with pytest.raises(ValueError, match="floating-point"):
        opt.step([[1.0, 2.0]], [np.ones(2)])
    frozen = np.ones(2)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        opt.step([frozen], [np.ones(2)])
    with pytest.raises(ValueError, match="shape"):
        opt.step([np.ones(2)], [np.ones(3)])

    params = [np.ones(2), np.ones(3)]
    opt.reset().step(params, [np.ones(2), np.ones(3)])
    before = params[0].copy()
    with pytest.raises(ValueError, match="shape"):  # no half-done step
        opt.step(params, [np.ones(2), np.ones(4)])
    assert opt.t == 1
    np.testing.assert_array_equal(params[0], before)
    opt.step(params, [np.ones(2), np.ones(3)])
    assert not np.array_equal(params[0], before)

    opt.reset().step([np.ones(2)], [np.ones(2)])
    with pytest.raises(ValueError, match="reset"):
        opt.step([np.ones(2), np.ones(2)], [np.ones(2), np.ones(2)])
    with pytest.raises(ValueError, match="reset"):
        opt.step([np.ones(3)], [np.ones(3)])


@pytest.mark.parametrize("name", OPTIMIZERS)
@pytest.mark.parametrize("learning_rate", [0.0, -1, np.nan, np.inf, "0.1", True, None])
def test_bad_learning_rate_raises(name, learning_rate):
    with pytest.raises(ValueError, match="learning_rate"):
        get_optimizer(name, learning_rate=learning_rate)


@pytest.mark.parametrize(
    "name, kwargs, match",
    [
        ("momentum", {"momentum": 1.0}, "momentum"),
        ("momentum", {"momentum": -0.1}, "momentum"),
        ("nesterov", {"momentum": 1.5}, "momentum"),
        ("adagrad", {"eps": -1e-8}, "eps"),
        ("rmsprop", {"rho": 1.0}, "rho"),
        ("rmsprop", {"eps": np.nan}, "eps"),
        ("adadelta", {"eps": 0.0}, "eps"),
        ("adadelta", {"rho": -0.5}, "rho"),
        ("adam", {"beta1": 1.0}, "beta1"),
        ("adam", {"beta2": 1.2}, "beta2"),
        ("adam", {"bias_correction": "yes"}, "bias_correction"),
        ("adabelief", {"eps_inside_sqrt": 1}, "eps_inside_sqrt"),
        ("adabelief", {"beta1": "0.9"}, "beta1"),
    ],
)
def test_bad_hyperparameters_raise(name, kwargs, match):
    with pytest.raises(ValueError, match=match):
        get_optimizer(name, **kwargs)


def test_repr_lists_the_hyperparameters():
    opt = Adam(learning_rate=0.01, beta1=0.8, bias_correction=False)
    assert repr(opt) == (
        "Adam(learning_rate=0.01, beta1=0.8, beta2=0.999, eps=1e-08, "
        "bias_correction=False, eps_inside_sqrt=False)"
    )
    assert repr(Nesterov(ExponentialDecay(1.0, 0.5))) == (
        "Nesterov(learning_rate=ExponentialDecay(eta0=1.0, gamma=0.5), momentum=0.9)"
    )
