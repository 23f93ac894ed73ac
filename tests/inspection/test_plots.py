"""Beeswarm and waterfall plots."""

import numpy as np
import pytest

from skml.inspection import Explanation, plot_beeswarm, plot_waterfall

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _explanation(k=None, d=12, n=30):
    rng = np.random.default_rng(0)
    shape = (n, d) if k is None else (n, d, k)
    scale = (4.0 ** -np.arange(d)).reshape((1, d) + (() if k is None else (1,)))
    values = rng.normal(size=shape) * scale  # f0 far more important than f1, ...
    base = np.full((n,) if k is None else (n, k), 0.25)
    return Explanation(values=values, base_values=base, data=rng.normal(size=(n, d)),
                       feature_names=[f"f{j}" for j in range(d)])


def test_waterfall_ends_at_the_output():
    ex = _explanation()
    ax = plot_waterfall(ex, row=3, max_display=5)
    bars = ax.patches
    assert len(bars) == 5
    end = bars[-1].get_x() + bars[-1].get_width()
    assert abs(end - (0.25 + ex.values[3].sum())) < 1e-12
    assert abs(bars[0].get_x() - 0.25) < 1e-12
    assert ax.get_yticklabels()[0].get_text() == "8 other features"
    plt.close("all")


def test_beeswarm_orders_features_by_importance():
    ex = _explanation()
    ax = plot_beeswarm(ex, max_display=4)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[::-1] == ["f0", "f1", "f2", "sum of 9 other features"]
    plt.close("all")


def test_multi_output_needs_an_output():
    ex = _explanation(k=3)
    with pytest.raises(ValueError, match="output="):
        plot_waterfall(ex)
    with pytest.raises(ValueError, match="output="):
        plot_beeswarm(ex)
    plot_beeswarm(ex, output=2)
    with pytest.raises(ValueError, match="row must"):
        plot_waterfall(ex, row=99, output=0)
    with pytest.raises(ValueError, match="max_display"):
        plot_waterfall(ex, output=0, max_display=0)
    plt.close("all")
