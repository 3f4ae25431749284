"""One plotting style for every figure of the project."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.layout_engine import PlaceHolderLayoutEngine  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

#: Stable colours by series label (Okabe-Ito, colour-blind safe), the same in every figure.
SERIES_COLORS = {
    "LinUCB": "#000000",
    "LinUCB-JDP": "#0072B2",
    "LinUCB-SDP-Amp": "#009E73",
    "LinUCB-SDP-Vec": "#E69F00",
    "LinUCB-LDP": "#D55E00",
    # paper 004: the same colour for the same trust model
    "DPE": "#000000",
    "CDP-DPE": "#0072B2",
    "LDP-DPE": "#D55E00",
    "SDP-DPE": "#009E73",
    "SDP-DPE-S1-diagnostic": "#999999",
    "DPE-FixedU": "#E69F00",
    "PE": "#000000",
    "CDP-PE": "#0072B2",
    "LDP-PE": "#D55E00",
    "SDP-PE": "#009E73",
}


def series_style(name: str, i: int) -> dict:
    """Colour (stable by label) and line style (dashed for diagnostics) of one series."""
    color = SERIES_COLORS.get(name, FALLBACK_COLORS[i % len(FALLBACK_COLORS)])
    return {"color": color, "ls": "--" if "diagnostic" in name else "-"}


#: Fallback colours for series without a fixed colour.
FALLBACK_COLORS = ("#CC79A7", "#56B4E9", "#F0E442", "#999999")
#: Colours of successive lines of a plot without named series.
CYCLE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999")


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
        ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", frameon=True, fontsize=9)
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
        ax.set_title(title, fontsize=10)
    ax.legend(frameon=True, fontsize=9)
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
    """A row of ``n`` panel axes for a combined figure."""
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.2), squeeze=False)
    return fig, list(axes[0])


def footnote(fig, text: str) -> None:
    """A one-line note under the axes (e.g. what the band is), so a PNG explains itself."""
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.text(0.5, 0.012, text, ha="center", va="bottom", fontsize=8, color="0.3")


def decade_labels(axes) -> None:
    """Label only the major ticks of log axes (minor labels overlap); ``axes``: one or many."""
    for ax in np.ravel(axes):
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())


def save(fig, pdf: str, png: str, dpi: int = 150) -> None:
    """Save as PDF and PNG without timestamps in the metadata.

    A figure laid out by ``tight_layout`` keeps a placeholder layout engine, and Matplotlib
    draws a figure with any layout engine once more, unrendered, before each save; that draw
    lays out every text again and changes nothing (the placeholder does no layout), so it is
    dropped: the saved bytes are the same, each save costs one draw instead of two.
    """
    if isinstance(fig.get_layout_engine(), PlaceHolderLayoutEngine):
        fig.set_layout_engine(None)
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})
    fig.savefig(png, dpi=dpi, metadata={"Software": None})
