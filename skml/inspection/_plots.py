"""Beeswarm (summary) and waterfall plots of an Explanation (matplotlib, optional)."""

from numbers import Integral

import numpy as np


def _pyplot(name):
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"{name} requires matplotlib, an optional dependency of skml; install it "
            "with `pip install matplotlib`."
        ) from exc
    return plt


def _values_2d(explanation, output, name):
    """The (n, d) values of one output, and that output's base values."""
    values = np.asarray(explanation.values)
    base = np.asarray(explanation.base_values)
    if values.ndim == 3:
        if output is None:
            raise ValueError(
                f"{name}: the explanation has {values.shape[2]} outputs; choose one "
                "with output=<index>."
            )
        return values[:, :, output], base[:, output]
    return values, base


def _check_max(max_display):
    if not (isinstance(max_display, Integral) and max_display >= 1):
        raise ValueError(f"max_display must be a positive integer; got {max_display!r}.")


def _start(name, explanation, output, max_display):
    """The checks of plot ``name``: ``(pyplot, values, base values, data, names)``."""
    plt = _pyplot(name)
    _check_max(max_display)
    values, base = _values_2d(explanation, output, name)
    data = np.asarray(explanation.data, dtype=np.float64)
    return plt, values, base, data, list(explanation.feature_names)


def plot_beeswarm(explanation, *, output=None, max_display=10, ax=None):
    """Summary plot: every row's attribution of the most important features.

    One line per feature, ordered by mean absolute attribution (the largest
    on top, the rest summed into one line when there are more than
    ``max_display``); one dot per explained row at its attribution, coloured
    by the feature's value (low blue, high red, scaled per feature), dots
    spread vertically where they pile up.

    Parameters
    ----------
    explanation : Explanation
        From any explainer.
    output : int, default=None
        Which output to show, for multi-output explanations.
    max_display : int, default=10
        Features shown.
    ax : matplotlib Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib Axes
    """
    plt, values, _, data, names = _start("plot_beeswarm", explanation, output,
                                         max_display)
    order = np.argsort(-np.mean(np.abs(values), axis=0), kind="stable")
    if len(order) > max_display:
        shown = order[: max_display - 1]
        rest = order[max_display - 1:]
        columns = [values[:, j] for j in shown] + [values[:, rest].sum(axis=1)]
        colours = [data[:, j] for j in shown] + [np.full(len(values), np.nan)]
        labels = [names[j] for j in shown] + [f"sum of {len(rest)} other features"]
    else:
        columns = [values[:, j] for j in order]
        colours = [data[:, j] for j in order]
        labels = [names[j] for j in order]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.45 * len(columns) + 1.2))
    rng = np.random.default_rng(0)  # jitter only: fixed for reproducible figures
    for pos, (v, c) in enumerate(zip(columns, colours)):
        y = len(columns) - 1 - pos
        # jitter grows with the local density of dots
        bins = np.digitize(v, np.linspace(v.min(), v.max() + 1e-12, 40))
        density = np.bincount(bins, minlength=42)[bins]
        jitter = rng.uniform(-1, 1, len(v)) * 0.35 * density / max(1, density.max())
        finite = np.isfinite(c)
        if finite.any():
            lo, hi = np.nanmin(c), np.nanmax(c)
            scaled = (c - lo) / (hi - lo) if hi > lo else np.full(len(c), 0.5)
        else:
            scaled = np.full(len(c), np.nan)
        ax.scatter(v[finite], y + jitter[finite], c=scaled[finite], cmap="coolwarm",
                   vmin=0, vmax=1, s=12, linewidths=0)
        ax.scatter(v[~finite], y + jitter[~finite], color="0.6", s=12, linewidths=0)
    ax.axvline(0.0, color="0.5", linewidth=0.8)
    ax.set_yticks(range(len(columns)))
    ax.set_yticklabels(labels[::-1])
    ax.set_xlabel("attribution (impact on the model output)")
    return ax


def plot_waterfall(explanation, row=0, *, output=None, max_display=10, ax=None):
    """Waterfall plot of one row: from the base value to the model output.

    Horizontal bars, one per feature in decreasing absolute attribution
    (the rest summed into one bar), each starting where the previous one
    ended: the first at the base value, the last ending at
    ``base + sum(values)`` (the model output, for efficient attributions).
    Positive contributions red, negative blue; each bar labelled with its
    value and the feature's value in the row.

    Parameters
    ----------
    explanation : Explanation
    row : int, default=0
        Which explained row.
    output : int, default=None
        Which output, for multi-output explanations.
    max_display : int, default=10
        Bars shown.
    ax : matplotlib Axes, default=None

    Returns
    -------
    ax : matplotlib Axes
    """
    plt, values, base, data, names = _start("plot_waterfall", explanation, output,
                                            max_display)
    if not (isinstance(row, Integral) and -len(values) <= row < len(values)):
        raise ValueError(f"row must index one of the {len(values)} explained rows; got {row!r}.")
    v, b, x = values[row], float(base[row]), data[row]
    order = np.argsort(-np.abs(v), kind="stable")
    if len(order) > max_display:
        shown, rest = order[: max_display - 1], order[max_display - 1:]
        contributions = list(v[shown]) + [float(v[rest].sum())]
        labels = [f"{names[j]} = {x[j]:.3g}" for j in shown] + [
            f"{len(rest)} other features"]
    else:
        contributions = list(v[order])
        labels = [f"{names[j]} = {x[j]:.3g}" for j in order]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.45 * len(contributions) + 1.2))
    start = b
    n = len(contributions)
    for i, c in enumerate(contributions):
        y = n - 1 - i
        ax.barh(y, c, left=start, color="tab:red" if c >= 0 else "tab:blue", height=0.6)
        ax.text(start + c, y, f" {c:+.3g}", va="center",
                ha="left" if c >= 0 else "right", fontsize=8)
        start += c
    ax.axvline(b, color="0.5", linestyle="--", linewidth=0.8)
    ax.axvline(start, color="0.2", linewidth=0.8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels[::-1])
    ax.set_xlabel(f"output: base {b:.3g} -> {start:.3g}")
    return ax
