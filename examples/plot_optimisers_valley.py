"""
Optimisers' paths on a valley
=============================

Each optimiser of :mod:`skml.optim` is a small object with one method,
``step(params, grads)``, the update rule of notes B §6. Here each one walks
from the same start down Rosenbrock's curved valley
:math:`f(x, y) = (1 - x)^2 + 10 (y - x^2)^2` for 300 steps; the minimum is at
(1, 1). Momentum methods overshoot across the valley, adaptive ones rescale
each coordinate.
"""

import matplotlib.pyplot as plt
import numpy as np

from skml.optim import SGD, AdaDelta, AdaGrad, Adam, Momentum, Nesterov, RMSProp


def f(p):
    x, y = p
    return (1 - x) ** 2 + 10 * (y - x**2) ** 2


def grad(p):
    x, y = p
    return np.array([-2 * (1 - x) - 40 * x * (y - x**2), 20 * (y - x**2)])


optimisers = {
    "SGD": SGD(learning_rate=0.01),
    "Momentum": Momentum(learning_rate=0.002),
    "Nesterov": Nesterov(learning_rate=0.002),
    "AdaGrad": AdaGrad(learning_rate=0.3),
    "RMSProp": RMSProp(learning_rate=0.02),
    "AdaDelta": AdaDelta(),
    "Adam": Adam(learning_rate=0.05),
}

xx, yy = np.meshgrid(np.linspace(-2, 2, 300), np.linspace(-1, 3, 300))
fig, ax = plt.subplots(figsize=(8, 6))
ax.contour(xx, yy, f((xx, yy)), levels=np.logspace(-1, 3, 15), colors="0.6", linewidths=0.7)
for i, (name, opt) in enumerate(optimisers.items()):
    p = np.array([-1.5, 2.5])
    path = [p.copy()]
    for _ in range(300):
        opt.step([p], [grad(p)])
        path.append(p.copy())
    path = np.array(path)
    ax.plot(path[:, 0], path[:, 1], "-", color=f"C{i}", lw=1.2,
            label=f"{name}: f = {f(path[-1]):.2g}")
ax.plot(1, 1, "k*", ms=12)
ax.set_xlim(-2, 2)
ax.set_ylim(-1, 3)
ax.set_title("300 steps from (-1.5, 2.5) on Rosenbrock's valley")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
