"""The arena's frontier figures (docs/arena.md): per suite, one panel per (d, T), the mean final
regret against the delivered epsilon on log axes, one marker per contestant and calibration
(colour: contestant; marker: calibration), with the 95 % interval as a vertical bar. Non-private
contestants (delivered epsilon infinite) are drawn as horizontal lines."""

from __future__ import annotations

import math

import numpy as np

MARKERS = ("o", "s", "^", "D", "v")


def frontier_figure(board, suite: str, title: str, pdf: str, png: str) -> None:
    """Draw suite ``suite`` of the leaderboard ``board`` (rows with status ``ran``)."""
    import matplotlib.pyplot as plt

    from dpbandits.plotting import close, save, set_style  # (sets the Agg backend)

    set_style()
    ran = board[(board["suite"] == suite) & (board["status"] == "ran")]
    points = sorted({(int(r.d), int(r.T)) for r in ran.itertuples()})
    contestants = list(dict.fromkeys(ran["contestant"]))
    calibrations = list(dict.fromkeys(ran["calibration"]))
    # 20 distinct colours: the project's palette (plotting.SERIES_COLORS) gives one colour per
    # trust model, and here contestants of different papers share a trust model
    palette = plt.get_cmap("tab20").colors
    color = {c: palette[(2 * i) % 20 + (2 * i) // 20 % 2] for i, c in enumerate(contestants)}
    marker = {c: MARKERS[i % len(MARKERS)] for i, c in enumerate(calibrations)}
    ds = sorted({d for d, _ in points})
    Ts = sorted({T for _, T in points})
    fig, axes = plt.subplots(
        len(ds), len(Ts), figsize=(4.6 * len(Ts) + 2.8, 3.6 * len(ds)), squeeze=False
    )
    eps = ran["delivered_epsilon"].astype(float)
    positive = eps[np.isfinite(eps) & (eps > 0)]
    x_hi = float(positive.max()) * 2 if len(positive) else 10.0
    # delivered epsilon 0 (the noise meets delta on its own) is drawn at the axis floor
    floor = min(float(positive.min()) / 4 if len(positive) else 1e-2, x_hi / 100)
    x_lo = floor / 2
    for i, d in enumerate(ds):
        for j, T in enumerate(Ts):
            ax = axes[i][j]
            part = ran[(ran["d"] == d) & (ran["T"] == T)]
            for r in part.itertuples():
                style = {"color": color[r.contestant], "marker": marker[r.calibration]}
                y, lo, hi = float(r.mean_regret), float(r.ci_low), float(r.ci_high)
                x = float(r.delivered_epsilon)
                if math.isfinite(x):
                    lo = lo if lo > 0 else y / 10  # a log axis cannot show a non-positive end
                    ax.errorbar(
                        [max(x, floor)],
                        [y],
                        yerr=[[y - lo], [hi - y]],
                        ls="none",
                        ms=6,
                        capsize=2,
                        mfc="none" if x <= 0 else None,
                        **style,
                    )
                else:
                    ax.axhline(y, color=style["color"], lw=1, ls=":")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(x_lo, x_hi)
            ax.set_title(f"d = {d}, T = {T:,}")
            ax.set_xlabel("delivered epsilon")
            ax.set_ylabel("final pseudo-regret")
    handles = [
        plt.Line2D([], [], color=color[c], marker="o", ls="none", label=c) for c in contestants
    ]
    handles += [
        plt.Line2D([], [], color="0.3", marker=marker[c], ls="none", label=f"calibration {c}")
        for c in calibrations
    ]
    handles.append(plt.Line2D([], [], color="0.3", ls=":", label="non-private (line)"))
    handles.append(
        plt.Line2D(
            [],
            [],
            color="0.3",
            marker="o",
            mfc="none",
            ls="none",
            label="delivered epsilon 0 (at the floor)",
        )
    )
    fig.suptitle(title)
    fig.tight_layout()
    fig.subplots_adjust(right=0.76)  # room for the legend inside the saved image
    fig.legend(handles=handles, loc="center left", bbox_to_anchor=(0.77, 0.5), fontsize=8)
    save(fig, pdf, png)
    close(fig)


__all__ = ["frontier_figure"]
