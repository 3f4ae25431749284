"""One plotting style for every figure of the project."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

#: Stable colours by series label (Okabe-Ito, colour-blind safe), the same in every figure.
SERIES_COLORS = {
    "LinUCB": "#000000",
    "LinUCB-JDP": "#0072B2",
    "LinUCB-SDP-Amp": "#009E73",
    "LinUCB-SDP-Vec": "#E69F00",
    "LinUCB-LDP": "#D55E00",
}


#: Fallback colours for series without a fixed colour.
FALLBACK_COLORS = ("#CC79A7", "#56B4E9", "#F0E442", "#999999")


def set_style() -> None:
    """The style of every figure: matplotlib's copy of seaborn's whitegrid theme.

    (The style sheet ships with matplotlib; importing seaborn itself would cost each notebook
    ~1.3 s for scipy.stats.)
    """
    plt.style.use("seaborn-v0_8-whitegrid")
    plt.rcParams.update({"font.size": 11, "axes.titlesize": 10, "legend.fontsize": 9})


def regret_curves(
    stats: pd.DataFrame, series: list[str], title: str = "", ylabel: str = "Regret", ax=None
):
    """Mean regret curves with a +/- 1 standard-error band.

    Parameters
    ----------
    stats : DataFrame
        Output of :func:`dpbandits.summaries.curve_stats`.
    series : list of str
        Series to draw, in legend order.
    title, ylabel : str
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    for i, name in enumerate(series):
        s = stats[stats["series"] == name].sort_values("t")
        color = SERIES_COLORS.get(name, FALLBACK_COLORS[i % len(FALLBACK_COLORS)])
        ax.plot(s["t"], s["mean"], label=name, color=color, lw=1.8)
        ax.fill_between(
            s["t"], s["mean"] - s["se"], s["mean"] + s["se"], color=color, alpha=0.25, lw=0
        )
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
    ax.set_ylim(bottom=min(0.0, float(stats["mean"].min())))
    ax.figure.tight_layout()
    return ax.figure


def close(fig) -> None:
    """Release a figure's memory."""
    plt.close(fig)


def panel_grid(n: int):
    """A row of ``n`` panel axes for a combined figure."""
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 4.2), squeeze=False)
    return fig, list(axes[0])


def footnote(fig, text: str) -> None:
    """A one-line note under the axes (e.g. what the band is), so a PNG explains itself."""
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.text(0.5, 0.012, text, ha="center", va="bottom", fontsize=8, color="0.3")


def save(fig, pdf: str, png: str) -> None:
    """Save as PDF and PNG without timestamps in the metadata."""
    fig.savefig(pdf, metadata={"CreationDate": None, "ModDate": None})
    fig.savefig(png, dpi=150, metadata={"Software": None})
