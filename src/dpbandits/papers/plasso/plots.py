"""Figures of the PrivateLASSO audit (docs/papers/plasso.md): regret against T with the
claimed shapes as guides, the normalised regret, the excess at T_max against eps, the ratio to
PrivateLASSO(inf), the support diagnostics and (full tier) the d / K / s0 scans.

Every function takes the run (or episode) rows of the tier and writes one PDF and one PNG.
Bands are 95 % percentile-bootstrap intervals of the mean over trials (``B = 2000``, seed 0).

Styles: the colour of a series is its epsilon (:func:`eps_colors`, the project's distinct
palette, black for infinity), its marker and line style its algorithm (:data:`ALGORITHMS`); the
legend has a section for each. Coinciding series are named in the note under the figure.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbandits.audit.minimax_rules import BOOT_SEED, N_BOOT
from dpbandits.audit.rates import bootstrap_means
from dpbandits.audit.verdicts import SATURATION_SHARE
from dpbandits.papers.plasso.plan import LABELS
from dpbandits.plotting import (
    DISTINCT_COLORS,
    bold_headers,
    close,
    decade_labels,
    distinct_styles,
    footnote,
    legend_below,
    legend_right,
    mark_all_coincident,
    save,
    section_handles,
    set_style,
)
from dpbandits.policies.private_lasso import plasso_constants

#: Algorithm -> (legend name, line style), in legend order; markers by
#: :func:`dpbandits.plotting.distinct_styles` in this order (:data:`MARKERS`).
ALGORITHMS = {
    "private_lasso": ("PrivateLASSO", "-"),
    "np_th_lasso": ("NP-TH-LASSO", "--"),
    "oracle_ols": ("Oracle-OLS", "-"),
    "oracle_tbap": ("Oracle-TBAP", ":"),
    "svt_noise_off": ("svt-noise-off", (0, (6, 1.5, 1, 1.5))),
    "tbap_noise_off": ("tbap-noise-off", (0, (3, 1, 1, 1, 1, 1))),
    "support_block_tree": (LABELS["support_block_tree"], (0, (9, 2.5))),
}
MARKERS = {alg: st["marker"] for alg, st in distinct_styles(ALGORITHMS).items()}
#: The baselines (every algorithm but PrivateLASSO): legend name, fallback colour, line style.
BASELINES = {
    alg: (name, "black", ls) for alg, (name, ls) in ALGORITHMS.items() if alg != "private_lasso"
}
#: Ablations: left out of the normalised-regret figure.
ABLATIONS = ("svt_noise_off", "tbap_noise_off", "support_block_tree")
BAND = "bands: 95% bootstrap interval of the mean over trials"


def _eps_label(eps: float) -> str:
    return "∞" if math.isinf(eps) else f"{eps:.0e}".replace("e+0", "e").replace("e+", "e")


def eps_colors(grid: list[float], *frames: pd.DataFrame) -> dict:
    """Epsilon -> colour: black for infinity; the finite values of ``grid`` (PrivateLASSO's)
    in increasing order, then the other finite values of the ``eps`` columns of ``frames``
    (other algorithms' grids) in increasing order, take the distinct palette in turn. So the
    grid's colours are the same in every figure."""
    finite = sorted(float(e) for e in grid if not math.isinf(float(e)))
    others = {float(e) for f in frames if "eps" in f for e in f["eps"].unique()}
    finite += sorted(e for e in others if not math.isinf(e) and e not in finite)
    out = {e: DISTINCT_COLORS[i % len(DISTINCT_COLORS)] for i, e in enumerate(finite)}
    out[math.inf] = "black"
    return out


def _legend(ax, s: pd.DataFrame, colors: dict, reference=()):
    """The legend of the series of ``s`` beside ``ax``: sections algorithm (marker, line
    style), epsilon (colour) and, when given, the reference lines ``reference``."""
    from matplotlib.lines import Line2D

    algs = [a for a in ALGORITHMS if a in set(s["algorithm"])]
    eps = sorted({float(e) for e in s["eps"].unique()})
    sections = {
        "algorithm (marker, line)": [
            Line2D(
                [],
                [],
                color="0.35",
                marker=MARKERS[a],
                ms=4,
                ls=ALGORITHMS[a][1],
                lw=1.2,
                label=ALGORITHMS[a][0],
            )  # fmt: skip
            for a in algs
        ],
        "ε (colour)": [
            Line2D(
                [],
                [],
                color=colors[e],
                lw=3,
                label=f"ε = {_eps_label(e)}" + (" (non-private)" if math.isinf(e) else ""),
            )  # fmt: skip
            for e in eps
        ],
        "reference": [
            Line2D(
                [],
                [],
                color=r.get_color(),
                ls=r.get_linestyle(),
                lw=r.get_linewidth(),
                label=r.get_label(),
            )  # fmt: skip
            for r in reference
        ],
    }
    legend = legend_right(ax, section_handles(sections), fontsize=7)
    bold_headers(legend, sections)


def _summary(df: pd.DataFrame, column: str = "regret_T") -> pd.DataFrame:
    """Mean and 95 % bootstrap band per (algorithm, eps, T)."""
    rng = np.random.default_rng(BOOT_SEED)
    out = []
    for (alg, eps, T), sub in df.groupby(["algorithm", "eps", "T"], sort=True):
        v = sub[column].to_numpy(float)
        boot = bootstrap_means(v[:, None], N_BOOT, rng)[:, 0]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        out.append({"algorithm": alg, "eps": eps, "T": T, "mean": v.mean(), "lo": lo, "hi": hi,
                    "unif": sub["regret_unif_T"].mean()})  # fmt: skip
    return pd.DataFrame(out)


def _series(ax, s: pd.DataFrame, colors: dict, transform=None, band=True):
    """Draw every series of one family (colour: epsilon; marker, line style: algorithm);
    ``transform(T, y)`` rescales (normalised plots)."""
    tf = transform or (lambda T, y: y)
    for (alg, eps), sub in s.groupby(["algorithm", "eps"], sort=True):
        T = sub["T"].to_numpy(float)
        name, ls = ALGORITHMS[alg]
        label = name if math.isinf(eps) and alg != "private_lasso" else (
            f"{name} ε={_eps_label(eps)}")  # fmt: skip
        color = colors[float(eps)]
        ax.plot(T, tf(T, sub["mean"].to_numpy()), ls=ls, marker=MARKERS[alg], ms=3.5, lw=1.2,
                color=color, label=label)  # fmt: skip
        if band:
            ax.fill_between(T, tf(T, sub["lo"].to_numpy()), tf(T, sub["hi"].to_numpy()),
                            color=color, alpha=0.12, lw=0)  # fmt: skip


def _summary_keys(df: pd.DataFrame) -> pd.DataFrame:
    """The (algorithm, eps) pairs of ``df`` (what a legend of its series lists)."""
    return df[["algorithm", "eps"]].drop_duplicates()


def _log_axes(ax, T, ylog: bool = True):
    """Log2 x axis labelled 2^k at the horizons (log y unless ``ylog`` is False)."""
    ax.set_xscale("log", base=2)
    if ylog:
        ax.set_yscale("log")
    ax.set_xticks(T)
    ax.set_xticklabels([f"2^{int(round(math.log2(t)))}" for t in T], fontsize=8)
    decade_labels(ax)


def regret_vs_T(runs: pd.DataFrame, grid: list[float], pdf: str, png: str) -> None:
    """Plot 1: regret against T per family, guides ``ln^3 T`` and ``sqrt(T) ln^2 T`` anchored at
    PrivateLASSO(inf) at ``T_min``, random play dotted."""
    set_style()
    e1 = runs[runs["experiment"] == "PL-E1"]
    colors = eps_colors(grid, runs)
    fams = sorted(e1["family"].unique())
    fig, axes = plt.subplots(1, len(fams), figsize=(6.2 * len(fams), 5.0), squeeze=False)
    for ax, fam in zip(axes[0], fams, strict=True):
        s = _summary(e1[e1["family"] == fam])
        _series(ax, s, colors)
        T = np.sort(s["T"].unique()).astype(float)
        unif = s.groupby("T")["unif"].mean()
        ax.plot(T, unif.loc[T], ":", color="0.5", lw=1.5, label="random play")
        ref = s[(s["algorithm"] == "private_lasso") & np.isinf(s["eps"])]
        if not ref.empty:
            y0 = float(ref.sort_values("T")["mean"].iloc[0])
            guides = (
                (lambda t: np.log(t) ** 3, r"$\propto$ ln³T", "--"),
                (lambda t: np.sqrt(t) * np.log(t) ** 2, r"$\propto$ √T ln²T", "-."),
            )
            for f, name, st in guides:
                ax.plot(T, y0 * f(T) / f(T[0]), st, color="0.3", lw=1, label=name)
        _log_axes(ax, T)
        ax.set(xlabel="T", ylabel="regret R_T", title=f"PL-E1, family {fam}")
    note = mark_all_coincident(axes)
    last = axes[0][-1]
    reference = [ln for ln in last.get_lines() if ln.get_label() == "random play"
                 or ln.get_label().startswith("$")]  # fmt: skip
    _legend(last, _summary_keys(e1), colors, reference)
    footnote(fig, BAND + "; guides anchored at PrivateLASSO(∞) at the smallest T. " + note)
    save(fig, pdf, png)
    close(fig)


def normalised(runs: pd.DataFrame, grid: list[float], pdf: str, png: str) -> None:
    """Plot 2: ``R_T / ln^3 T`` (top) and ``R_T / (sqrt(T) ln^2 T)`` (bottom) against T, linear
    y; flat or decreasing curves are consistent with Theorem 2 resp. 3."""
    set_style()
    e1 = runs[(runs["experiment"] == "PL-E1") & ~runs["algorithm"].isin(ABLATIONS)]
    colors = eps_colors(grid, runs)
    fams = sorted(e1["family"].unique())
    fig, axes = plt.subplots(2, len(fams), figsize=(6.2 * len(fams), 8.4), squeeze=False)
    norms = (
        ("R_T / ln³T (Theorem 2)", lambda T, y: y / np.log(T) ** 3),
        ("R_T / (√T ln²T) (Theorem 3)", lambda T, y: y / (np.sqrt(T) * np.log(T) ** 2)),
    )
    for col, fam in enumerate(fams):
        s = _summary(e1[e1["family"] == fam])
        T = np.sort(s["T"].unique()).astype(float)
        for row, (label, tf) in enumerate(norms):
            ax = axes[row][col]
            _series(ax, s, colors, tf)
            _log_axes(ax, T, ylog=False)
            ax.set(xlabel="T", ylabel=label, title=f"family {fam}")
    note = mark_all_coincident(axes)
    _legend(axes[0][-1], _summary_keys(e1), colors)
    footnote(fig, BAND + "; linear y: a flat or decreasing curve has the claim's shape. " + note)
    save(fig, pdf, png)
    close(fig)


def _excess_at_Tmax(df, alg, ref):
    T_max = df["T"].max()
    d = df[df["T"] == T_max]
    base = d[(d["algorithm"] == ref) & np.isinf(d["eps"])].set_index("trial")["regret_T"]
    rng = np.random.default_rng(BOOT_SEED)
    out = []
    for eps, sub in d[(d["algorithm"] == alg) & np.isfinite(d["eps"])].groupby("eps"):
        diff = sub.set_index("trial")["regret_T"] - base
        v = diff.to_numpy(float)
        boot = bootstrap_means(v[:, None], N_BOOT, rng)[:, 0]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        sat = sub["regret_T"].mean() >= SATURATION_SHARE * sub["regret_unif_T"].mean()
        out.append({"eps": eps, "mean": v.mean(), "lo": lo, "hi": hi, "saturated": sat})
    return pd.DataFrame(out)


def eps_figure(runs: pd.DataFrame, pdf: str, png: str) -> None:
    """Plot 3: excess at T_max over PrivateLASSO(inf) against eps (log-log), reference slope -1;
    saturated points hollow. Oracle-TBAP's excess over Oracle-OLS in grey."""
    set_style()
    e1 = runs[runs["experiment"] == "PL-E1"]
    fams = sorted(e1["family"].unique())
    fig, axes = plt.subplots(1, len(fams), figsize=(5.2 * len(fams), 4.4), squeeze=False)
    for ax, fam in zip(axes[0], fams, strict=True):
        d = e1[e1["family"] == fam]
        for alg, ref, color, label in (("private_lasso", "private_lasso", "#0072B2",
                                        "PrivateLASSO − PrivateLASSO(∞)"),
                                       ("oracle_tbap", "oracle_ols", "0.45",
                                        "Oracle-TBAP − Oracle-OLS")):  # fmt: skip
            ex = _excess_at_Tmax(d, alg, ref)
            if ex.empty:
                continue
            pos = ex[ex["mean"] > 0]
            ax.errorbar(pos["eps"], pos["mean"], yerr=[np.minimum(pos["mean"] - pos["lo"],
                        pos["mean"] * 0.999), pos["hi"] - pos["mean"]], fmt="none",
                        ecolor=color, capsize=2, lw=1)  # fmt: skip
            for sat, marker_face in ((False, color), (True, "white")):
                p = pos[pos["saturated"] == sat]
                ax.plot(p["eps"], p["mean"], "o", ms=6, color=color, mfc=marker_face,
                        label=label if not sat else None)  # fmt: skip
            if alg == "private_lasso":
                ax.plot([], [], "o", color=color, mfc="white", label="saturated (hollow)")
            if len(pos) >= 1 and alg == "private_lasso":
                x = np.geomspace(pos["eps"].min(), pos["eps"].max(), 20)
                x0, y0 = float(pos["eps"].iloc[0]), float(pos["mean"].iloc[0])
                ax.plot(x, y0 * (x / x0) ** -1.0, "--", color="0.3", lw=1, label="slope −1")
        ax.set(xscale="log", yscale="log", xlabel="ε", ylabel="excess regret at T_max",
               title=f"family {fam}")  # fmt: skip
        legend_below(ax, fontsize=7)
    footnote(fig, "paired excess per trial (common random numbers); error bars: 95% bootstrap "
             "interval; non-positive means not drawn")  # fmt: skip
    save(fig, pdf, png)
    close(fig)


def ratio_figure(runs: pd.DataFrame, grid: list[float], pdf: str, png: str) -> None:
    """Plot 4: ``R_eps(T) / R_inf(T)`` against T per eps (plasso.thm2.shape)."""
    set_style()
    e1 = runs[(runs["experiment"] == "PL-E1") & (runs["algorithm"] == "private_lasso")]
    colors = eps_colors(grid, runs)
    fams = sorted(e1["family"].unique())
    fig, axes = plt.subplots(1, len(fams), figsize=(5.4 * len(fams), 4.4), squeeze=False)
    for ax, fam in zip(axes[0], fams, strict=True):
        m = e1[e1["family"] == fam].groupby(["eps", "T"])["regret_T"].mean().unstack("T")
        if math.inf not in m.index:
            continue
        ref = m.loc[math.inf]
        for eps in m.index:
            if math.isinf(eps):
                continue
            ax.plot(m.columns, m.loc[eps] / ref, "o-", ms=3, color=colors[float(eps)],
                    label=f"ε={_eps_label(eps)}")  # fmt: skip
        ax.axhline(1.0, color="0.3", lw=1, ls="--")
        _log_axes(ax, np.asarray(m.columns, float))
        ax.set(ylabel="R_ε(T) / R_∞(T)", xlabel="T", title=f"family {fam}")
    note = mark_all_coincident(axes)
    legend_right(axes[0][-1], fontsize=7)
    footnote(fig, "ratio of mean regrets; plasso.thm2.shape is judged through Theorem 2's logs: "
             "the ratio may grow like log^3 T log(log T / delta), not faster. " + note)  # fmt: skip
    save(fig, pdf, png)
    close(fig)


def support_figure(episodes: pd.DataFrame, grid: list[float], pdf: str, png: str) -> None:
    """Plot 5: mean ``|S_l ∩ S| / s0`` (top) and ``|S_l \\ S|`` (bottom) against ``t_l`` per eps
    (runs at T_max), with the cap's ``c_max - s0`` line."""
    set_style()
    ep = episodes[(episodes["experiment"] == "PL-E1")
                  & episodes["algorithm"].isin(["private_lasso", "np_th_lasso"])]  # fmt: skip
    ep = ep[ep["T"] == ep["T"].max()]
    colors = eps_colors(grid, episodes)
    fams = sorted(ep["family"].unique())
    fig, axes = plt.subplots(2, len(fams), figsize=(5.6 * len(fams), 7.6), squeeze=False)
    for col, fam in enumerate(fams):
        d = ep[(ep["family"] == fam) & (ep["t_l"] >= 2)].copy()
        d["recall"] = d["true_in_S"] / d["s0"]
        d["false_pos"] = d["size_S"] - d["true_in_S"]
        m = d.groupby(["algorithm", "eps", "t_l"])[["recall", "false_pos"]].mean().reset_index()
        for (alg, eps), sub in m.groupby(["algorithm", "eps"]):
            color, (name, ls), marker = colors[float(eps)], ALGORITHMS[alg], MARKERS[alg]
            label = f"ε={_eps_label(eps)}" if alg == "private_lasso" else f"{name} (S0)"
            axes[0][col].plot(sub["t_l"], sub["recall"], ls=ls, marker=marker, ms=3,
                              color=color, label=label)  # fmt: skip
            axes[1][col].plot(sub["t_l"], sub["false_pos"], ls=ls, marker=marker, ms=3,
                              color=color, label=label)  # fmt: skip
        r = d.iloc[0]
        c_max = plasso_constants(int(r["T"]), int(r["d"]), int(r["s0"]), int(r["K"]), 1.0).c_max
        s0 = int(r["s0"])
        axes[1][col].axhline(c_max - s0, color="0.3", ls=":", lw=1, label="c_max − s0")
        for row, ylabel in enumerate(("mean |S_ℓ ∩ S| / s0", "mean |S_ℓ \\ S|")):
            ax = axes[row][col]
            ax.set_xscale("log", base=2)
            ax.set(xlabel="episode start t_ℓ", ylabel=ylabel, title=f"family {fam}")
        axes[1][col].set_yscale("symlog", linthresh=1.0)
    note = mark_all_coincident(axes)
    legend_right(axes[0][-1], fontsize=7)
    legend_right(axes[1][-1], handles=[ln for ln in axes[1][-1].get_lines()
                                       if ln.get_label() == "c_max − s0"], fontsize=7)  # fmt: skip
    footnote(fig, "means over the trials of the runs at the largest T (C_X = C_r = 4, φ² = 1); "
             "PrivateLASSO(ε) by colour, NP-TH-LASSO dashed. " + note)  # fmt: skip
    save(fig, pdf, png)
    close(fig)


def scans_figure(runs: pd.DataFrame, grid: list[float], pdf: str, png: str) -> None:
    """Plot 6 (full tier): regret at T = 2^15 against d, K - 1 and s0 (PL-E2)."""
    set_style()
    e2 = runs[runs["experiment"] == "PL-E2"]
    colors = eps_colors(grid, runs)
    fig, axes = plt.subplots(1, 3, figsize=(15.0, 4.4), squeeze=False)
    base = {"d": 100, "K": 2, "s0": 5}
    if e2.empty:
        for ax in axes[0]:
            ax.text(0.5, 0.5, "PL-E2 runs in the full tier\n(--config tier=full)",
                    ha="center", va="center", transform=ax.transAxes)  # fmt: skip
            ax.set_axis_off()
    for ax, key in zip(axes[0], ("d", "K", "s0"), strict=True):
        sel = e2
        for k in base:
            if k != key:
                sel = sel[sel[k] == base[k]]
        if sel[key].nunique() < 2:
            continue
        for (alg, eps), sub in sel.groupby(["algorithm", "eps"], sort=True):
            m = sub.groupby(key)["regret_T"].mean()
            x = m.index.to_numpy(float) - (1 if key == "K" else 0)
            name, ls = ALGORITHMS[alg]
            label = name if math.isinf(eps) and alg != "private_lasso" else (
                f"{name} ε={_eps_label(eps)}")  # fmt: skip
            ax.plot(x, m.to_numpy(), ls=ls, marker=MARKERS[alg], ms=4, color=colors[float(eps)],
                    label=label)  # fmt: skip
        ax.set(xscale="log", yscale="log", xlabel="K − 1" if key == "K" else key,
               ylabel="regret at T = 2^15", title=f"PL-E2: {key} scan")  # fmt: skip
        decade_labels(ax)
    note = mark_all_coincident(axes)
    if not e2.empty:
        legend_right(axes[0][-1], handles=axes[0][0].get_legend_handles_labels()[0], fontsize=7)
    footnote(fig, "mean regret over trials at T = 2^15. " + note)
    save(fig, pdf, png)
    close(fig)


__all__ = [
    "eps_figure",
    "normalised",
    "ratio_figure",
    "regret_vs_T",
    "scans_figure",
    "support_figure",
]
