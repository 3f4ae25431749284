"""The arena's frontier figures (docs/arena.md): per suite, one panel per (d, T), the mean final
regret against the delivered epsilon on log axes, one marker per contestant and calibration
(colour and marker shape: contestant, from :func:`dpbandits.plotting.distinct_styles`; fill:
calibration), with the 95 % interval as a vertical bar.

The privacy target (the nominal epsilon the private contestants are calibrated to) is a labelled
vertical line. Delivered epsilons off the log axis are drawn at marked edges, never dropped: an
infinite (or undefined) delivered epsilon - a non-private contestant, or a private one whose
noise delivers no finite epsilon - at the right edge, in a band labelled ``ε = ∞ (not
private)``; a delivered epsilon of 0 (the noise meets delta on its own) at the left edge, in a
band labelled ``ε = 0``. Contestants with identical points (the same delivered epsilon and
regret) are drawn as rings around each other and named in the note under the panels."""

from __future__ import annotations

import math

import numpy as np

#: Fill of a marker per calibration, in order of first appearance (cycled beyond five).
FILLS = ("full", "left", "bottom", "right", "top")
#: Label of the right-edge band.
INFINITE_LABEL = "ε = ∞ (not private)"
#: Label of the left-edge band.
ZERO_LABEL = "ε = 0"


def _edges(eps: np.ndarray, target: float | None) -> tuple[float, float, float, float]:
    """``(x_zero, x_inf, x_lo, x_hi)``: where delivered epsilon 0 and infinity are drawn, and
    the x limits, on a log axis holding every finite positive epsilon and the target."""
    finite = [float(e) for e in eps if math.isfinite(e) and e > 0]
    if target is not None and math.isfinite(target) and target > 0:
        finite.append(target)
    lo, hi = (min(finite), max(finite)) if finite else (0.1, 10.0)
    lo, hi = min(lo, hi / 10), max(hi, lo * 10)
    x_zero, x_inf = lo / 6, hi * 6
    return x_zero, x_inf, x_zero / 2.2, x_inf * 2.2


def _vertical_label(ax, x: float, y_frac: float, label: str, **style) -> None:
    """``label`` written upwards at data position ``x`` and height ``y_frac`` of the axes."""
    ax.text(x, y_frac, label, rotation=90, fontsize=7, transform=ax.get_xaxis_transform(), **style)


def _edge_band(ax, x: float, label: str, ymax_frac: float = 0.98) -> None:
    """A grey band around ``x`` (a log position) with ``label`` written up it."""
    ax.axvspan(x / 1.7, x * 1.7, color="0.88", lw=0, zorder=0)
    _vertical_label(ax, x / 1.45, ymax_frac, label, ha="center", va="top", color="0.25")


def _coincidence_text(coincident: dict, n_panels: int, note) -> str:
    """One sentence per group of identical points: in which panels (all: "every panel")."""
    where: dict[tuple, list] = {}
    for (d, T), groups in coincident.items():
        for g in groups:
            where.setdefault(tuple(g), []).append(f"d = {d}, T = {T:,}")
    by_place: dict[str, list] = {}
    for g, panels in where.items():
        place = "Every panel" if len(panels) == n_panels else "; ".join(panels)
        by_place.setdefault(place, []).append(g)
    return " ".join(
        note(groups, place, "the same delivered ε and mean regret")
        for place, groups in by_place.items()
    )


def frontier_axes(board, suite: str, title: str, png: str | None = None):
    """The frontier figure of suite ``suite`` of the leaderboard ``board``, not saved.

    Parameters
    ----------
    board : pandas.DataFrame
        Leaderboard rows (:func:`dpbandits.arena.leaderboard.leaderboard`); rows with status
        ``ran`` of the suite are drawn. ``nominal_epsilon``'s finite value is the target.
    suite, title : str
    png : str, optional
        Output path: a path under ``results/quick/`` adds the QUICK suffix to the title.

    Returns
    -------
    matplotlib.figure.Figure
        With ``fig.coincident``: the groups of contestants with identical points, per panel.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from dpbandits.plotting import (  # (sets the Agg backend)
        bold_headers,
        coincidence_note,
        distinct_styles,
        mark_coincident,
        quick_suffix,
        section_handles,
        set_style,
        set_suptitle,
        set_title,
        wrap_text,
    )

    set_style()
    ran = board[(board["suite"] == suite) & (board["status"] == "ran")]
    points = sorted({(int(r.d), int(r.T)) for r in ran.itertuples()})
    contestants = list(dict.fromkeys(ran["contestant"]))
    calibrations = list(dict.fromkeys(ran["calibration"]))
    styles = distinct_styles(contestants)
    fill = {c: FILLS[i % len(FILLS)] for i, c in enumerate(calibrations)}
    nominal = ran["nominal_epsilon"].astype(float)
    targets = sorted(set(nominal[np.isfinite(nominal)]))
    target = targets[0] if len(targets) == 1 else None
    eps = ran["delivered_epsilon"].astype(float).to_numpy()
    x_zero, x_inf, x_lo, x_hi = _edges(eps, target)
    has_inf = bool((~np.isfinite(eps)).any())
    has_zero = bool((np.isfinite(eps) & (eps <= 0)).any())
    ds = sorted({d for d, _ in points}) or [None]
    Ts = sorted({T for _, T in points}) or [None]
    fig, axes = plt.subplots(
        len(ds), len(Ts), figsize=(4.6 * len(Ts) + 3.2, 3.6 * len(ds) + 0.6), squeeze=False
    )
    fig.coincident = {}
    for i, d in enumerate(ds):
        for j, T in enumerate(Ts):
            ax = axes[i][j]
            part = ran[(ran["d"] == d) & (ran["T"] == T)]
            for r in part.itertuples():
                st = styles[r.contestant]
                y, lo, hi = float(r.mean_regret), float(r.ci_low), float(r.ci_high)
                x = float(r.delivered_epsilon)
                x = x_inf if not math.isfinite(x) else (x_zero if x <= 0 else x)
                lo = lo if lo > 0 else y / 10  # a log axis cannot show a non-positive end
                ax.errorbar(
                    [x],
                    [y],
                    yerr=[[y - lo], [hi - y]],
                    fmt="none",
                    capsize=2,
                    ecolor=st["color"],
                    lw=1,
                )
                # the point itself: a labelled line, so that mark_coincident sees it
                ax.plot(
                    [x],
                    [y],
                    ls="none",
                    ms=6,
                    color=st["color"],
                    marker=st["marker"],
                    fillstyle=fill[r.calibration],
                    label=f"{r.contestant} ({r.calibration})",
                )
            groups = mark_coincident(ax)
            if groups:
                fig.coincident[(d, T)] = groups
            if target is not None:
                ax.axvline(target, color="0.2", lw=1, ls="--", zorder=1)
                _vertical_label(
                    ax, target * 1.08, 0.02, f"target ε = {target:g}", ha="left", va="bottom",
                    color="0.2",
                )  # fmt: skip
            if has_inf:
                _edge_band(ax, x_inf, INFINITE_LABEL)
            if has_zero:
                _edge_band(ax, x_zero, ZERO_LABEL)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(x_lo, x_hi)
            ticks = [t for t in 10.0 ** np.arange(-6, 7) if x_zero * 1.8 < t < x_inf / 1.8]
            labels = [f"{t:g}" for t in ticks]
            if has_zero:
                ticks, labels = [x_zero, *ticks], ["0", *labels]
            if has_inf:
                ticks, labels = [*ticks, x_inf], [*labels, "∞"]
            ax.set_xticks(ticks, labels)
            ax.minorticks_off()
            set_title(ax, f"d = {d}, T = {T:,}" if d is not None else "no runs")
            ax.set_xlabel("delivered epsilon")
            ax.set_ylabel("final pseudo-regret")
    sections = {
        "contestant": [
            Line2D([], [], color=st["color"], marker=st["marker"], ls="none", label=c)
            for c, st in styles.items()
        ],
        "calibration (fill)": [
            Line2D([], [], color="0.3", marker="o", fillstyle=fill[c], ls="none", label=c)
            for c in calibrations
        ],
        "marks": [],
    }
    if target is not None:
        sections["marks"].append(
            Line2D([], [], color="0.2", ls="--", lw=1, label=f"target ε = {target:g} (nominal)")
        )
    if has_inf:
        sections["marks"].append(
            plt.Rectangle((0, 0), 1, 1, color="0.88", label=f"{INFINITE_LABEL}: right edge")
        )
    if has_zero:
        sections["marks"].append(
            plt.Rectangle((0, 0), 1, 1, color="0.88", label=f"{ZERO_LABEL}: left edge")
        )
    if fig.coincident:
        sections["marks"].append(
            Line2D(
                [],
                [],
                color="0.3",
                marker="o",
                mfc="none",
                ms=9,
                ls="none",
                label="ring: same point as the one inside",
            )
        )
    trials = sorted(set(ran["trials"].dropna().astype(int))) if "trials" in ran else []
    suffix = quick_suffix(png, trials[0] if len(trials) == 1 else None) if png else ""
    set_suptitle(fig, title + suffix, fontsize=12)
    parts = [
        "Bars: 95 % interval of the mean final pseudo-regret.",
        _coincidence_text(fig.coincident, len(ds) * len(Ts), coincidence_note),
    ]
    broken = ran[np.isfinite(nominal) & ~np.isfinite(ran["delivered_epsilon"].astype(float))]
    if len(broken):
        names = ", ".join(
            dict.fromkeys(f"{r.contestant} ({r.calibration})" for r in broken.itertuples())
        )
        parts.append(f"Calibrated to a finite ε but delivering none (drawn at ε = ∞): {names}.")
    note = " ".join(p for p in parts if p)
    note = wrap_text(note, fig.get_figwidth() - 0.4, 8)
    lines = note.count("\n") + 1
    bottom = (lines * 8 * 1.3 / 72 + 0.15) / fig.get_figheight()
    fig.tight_layout(rect=(0, bottom, 0.78, 1))
    fig.text(0.5, 0.01, note, ha="center", va="bottom", fontsize=8, color="0.3")
    handles = section_handles(sections)
    # two columns when one would be taller than the figure
    ncol = 1 if len(handles) * 8 * 1.7 / 72 < 0.95 * fig.get_figheight() else 2
    legend = fig.legend(
        handles=handles,
        loc="center left",
        bbox_to_anchor=(0.785, 0.5),
        fontsize=8,
        frameon=True,
        ncol=ncol,
    )
    bold_headers(legend, sections)
    return fig


def frontier_figure(board, suite: str, title: str, pdf: str, png: str) -> None:
    """Draw suite ``suite`` of the leaderboard ``board`` (rows with status ``ran``) and write
    it as ``pdf`` and ``png`` (:func:`frontier_axes`)."""
    from dpbandits.plotting import close, save

    fig = frontier_axes(board, suite, title, png)
    save(fig, pdf, png)
    close(fig)


__all__ = ["frontier_axes", "frontier_figure"]
