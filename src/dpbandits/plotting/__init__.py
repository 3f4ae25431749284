"""One plotting style for every figure of the project.

Besides the style, the shared rules every figure follows:

* identical series are said in the legend (:func:`mark_coincident`): a line hidden by another
  is never silent;
* titles are wrapped to the width they have (:func:`wrap_text`), so none is clipped;
* legends sit outside the axes (:func:`legend_below`, :func:`legend_right`);
* series without a fixed colour take colours and markers from one palette
  (:func:`distinct_styles`);
* a figure written under ``results/quick/`` says so in its title (:func:`quick_suffix`,
  enforced by :func:`save`).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.layout_engine import PlaceHolderLayoutEngine  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

from .coincidence import (  # noqa: E402, F401  (re-exported)
    COINCIDE_RTOL,
    coincidence_note,
    coincident_groups,
    mark_all_coincident,
    mark_coincident,
)
from .colors import (  # noqa: E402, F401  (re-exported)
    CYCLE,
    DISTINCT_COLORS,
    DISTINCT_MARKERS,
    FALLBACK_COLORS,
    SERIES_COLORS,
    distinct_styles,
    series_style,
)
from .layout import (  # noqa: E402, F401  (re-exported)
    axes_width_in,
    bold_headers,
    clipped_texts,
    is_quick,
    legend_below,
    legend_right,
    quick_suffix,
    section_handles,
    set_suptitle,
    set_title,
    stamp_quick,
    text_width_in,
    wrap_text,
)


def set_style() -> None:
    """The style of every figure: matplotlib's copy of seaborn's whitegrid theme.

    (The style sheet ships with matplotlib; importing seaborn itself would cost each notebook
    ~1.3 s for scipy.stats.)
    """
    plt.style.use("seaborn-v0_8-whitegrid")
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 10, "legend.fontsize": 9})


def regret_curves(
    stats: pd.DataFrame,
    series: list[str],
    title: str = "",
    ylabel: str = "Regret",
    ax=None,
    band: str = "se",
    per_round: bool = False,
):
    """Mean regret curves with a +/- 1 standard-error (or standard-deviation) band.

    The title is wrapped to the axes' width, the legend sits under the axes and series with
    identical mean curves are said in it (:func:`mark_coincident`).

    Parameters
    ----------
    stats : DataFrame
        Output of :func:`dpbandits.regret_stats.curve_stats`.
    series : list of str
        Series to draw, in legend order.
    title, ylabel : str
    ax : matplotlib Axes, optional
    band : {"se", "std"}
        Half-width of the shaded band.
    per_round : bool
        Draw ``R(t)/t`` (mean and band divided by ``t``).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, name in enumerate(series):
        s = stats[stats["series"] == name].sort_values("t")
        style = series_style(name, i)
        scale = s["t"] if per_round else 1.0
        mean, half = s["mean"] / scale, s[band] / scale
        ax.plot(s["t"], mean, label=name, lw=1.8, **style)
        ax.fill_between(s["t"], mean - half, mean + half, color=style["color"], alpha=0.25, lw=0)
    ax.xaxis.set_major_locator(MaxNLocator(5, integer=True))
    ax.xaxis.set_major_formatter(
        FuncFormatter(lambda x, _: f"{x / 1000:g}k" if x >= 1000 else f"{x:g}")
    )
    ax.set_xlabel("Round")
    ax.set_ylabel(ylabel)
    if title:
        set_title(ax, title, fontsize=10)
    mark_coincident(ax)
    legend_below(ax, fontsize=9)
    ax.set_xlim(left=0)
    if not per_round:
        ax.set_ylim(bottom=min(0.0, float(stats["mean"].min())))
    ax.figure.tight_layout()
    return ax.figure


def final_regret_points(
    points: pd.DataFrame,
    series: list[str],
    xlabel: str,
    title: str = "",
    band: str = "std",
    logx: bool = False,
    ax=None,
):
    """Mean final regret against a setting (epsilon or T), one line per series, with a band.

    Title, legend and identical series as in :func:`regret_curves`.

    Parameters
    ----------
    points : DataFrame
        Columns ``series, x, mean, std, se``.
    series : list of str
        Series to draw, in legend order.
    xlabel, title : str
    band : {"se", "std"}
    logx : bool
        Log-log axes (for horizons).
    ax : matplotlib Axes, optional
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, name in enumerate(series):
        s = points[points["series"] == name].sort_values("x")
        if s.empty:
            continue
        style = series_style(name, i)
        ax.plot(s["x"], s["mean"], marker="o", ms=4, label=name, lw=1.8, **style)
        lo = np.maximum(s["mean"] - s[band], s["mean"] * 1e-3) if logx else s["mean"] - s[band]
        ax.fill_between(s["x"], lo, s["mean"] + s[band], color=style["color"], alpha=0.25, lw=0)
    if logx:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("Final regret R(T)")
    if title:
        set_title(ax, title, fontsize=10)
    mark_coincident(ax)
    legend_below(ax, fontsize=9)
    ax.figure.tight_layout()
    return ax.figure


def close(fig) -> None:
    """Release a figure's memory."""
    plt.close(fig)


def rate_panel(
    ax,
    levels,
    values,
    slope: float,
    intercept: float,
    claimed: float | None,
    label: str,
    color: str,
) -> None:
    """Log-log points (mean +/- 1.96 SE over instances), the fitted line and the claimed slope.

    The claimed slope is drawn through the geometric centre of the points (dashed), so its
    steepness can be compared with the fit (solid) by eye. Non-positive means are not drawn.
    """
    levels = np.asarray(levels, float)
    values = np.asarray(values, float)
    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])
    ok = mean > 0
    lower = np.minimum(1.96 * se, mean * 0.999)
    ax.errorbar(
        levels[ok],
        mean[ok],
        yerr=[lower[ok], 1.96 * se[ok]],
        fmt="o",
        ms=4,
        capsize=2,
        color=color,
        label=label,
    )
    xs = np.geomspace(levels.min(), levels.max(), 50)
    if np.isfinite(slope):
        ax.plot(xs, np.exp(intercept) * xs**slope, color=color, lw=1.3)
    if claimed is not None and ok.sum() >= 2:
        lx, ly = np.log(levels[ok]), np.log(mean[ok])
        ax.plot(
            xs, np.exp(ly.mean() + claimed * (np.log(xs) - lx.mean())), color=color, lw=1, ls="--"
        )
    if not ok.any():  # nothing positive to draw: leave the axes' scale to the other series
        return
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.minorticks_off()
    # plain tick labels: log axes default to mathtext labels, whose parsing dominates the time
    ax.set_xticks(levels)
    ax.xaxis.set_major_formatter(FuncFormatter(_plain))
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(_plain))


def _plain(value: float, _pos=None) -> str:
    """Tick label without mathtext: 2500 -> '2.5k', 0.2 -> '0.2'."""
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def panel_grid(n: int):
    """A row of ``n`` panel axes for a combined figure (room under each for its legend)."""
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.8), squeeze=False)
    return fig, list(axes[0])


def footnote(fig, text: str) -> None:
    """A note under the axes (e.g. what the band is), so a PNG explains itself.

    The note is wrapped to the figure's width (:func:`wrap_text`) and the figure laid out by
    ``tight_layout`` above it.
    """
    text = wrap_text(text, fig.get_figwidth() - 0.4, 8)
    lines = text.count("\n") + 1
    bottom = max(0.05, (lines * 8 * 1.3 / 72 + 0.12) / fig.get_figheight())
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.text(0.5, 0.012, text, ha="center", va="bottom", fontsize=8, color="0.3")


def decade_labels(axes) -> None:
    """Label only the major ticks of log axes (minor labels overlap); ``axes``: one or many."""
    for ax in np.ravel(axes):
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig, pdf: str, png: str, dpi: int = 150) -> None:
    """Save as PDF and PNG without timestamps in the metadata.

    A figure written under ``results/quick/`` that does not say QUICK yet gets the suffix of
    :func:`quick_suffix` in its title first (:func:`stamp_quick`).

    A figure laid out by ``tight_layout`` keeps a placeholder layout engine, and Matplotlib
    draws a figure with any layout engine once more, unrendered, before each save; that draw
    lays out every text again and changes nothing (the placeholder does no layout), so it is
    dropped: the saved bytes are the same, each save costs one draw instead of two.
    """
    stamp_quick(fig, png)
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})
    fig.savefig(png, dpi=dpi, metadata={"Software": None})
