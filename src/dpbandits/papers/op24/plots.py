"""Figures of the open-problem audit (docs/papers/op24.md): OP-E1 and OP-E2 (regret and
private excess against T and rho) and the Section 3 gap figure (OP-E3)."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dpbandits.mechanisms.zcdp import zcdp_to_dp
from dpbandits.papers.op24.algorithms import CONTESTANT
from dpbandits.papers.op24.cells import OP_E3_DELTA
from dpbandits.plotting import (
    bold_headers,
    close,
    decade_labels,
    footnote,
    legend_below,
    mark_all_coincident,
    save,
    section_handles,
    set_style,
)

#: delta of the equivalent epsilon of a rho: JDP-LinUCB's delta in OP-E3 (docs/papers/op24.md).
DELTA_EQUIV = OP_E3_DELTA


def _means(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["algorithm", "privacy", "t"], sort=True)["regret"].mean().reset_index()


def _label(kind: str, p: float) -> str:
    return f"{'ρ' if kind == 'rho' else 'ε'} = {'∞' if math.isinf(p) else f'{p:g}'}"


def _guide(ax, x, y0, slope, label, style="--"):
    """A dashed line of the given log-log slope through ``(x[0], y0)``."""
    x = np.asarray(x, float)
    ax.plot(x, y0 * (x / x[0]) ** slope, style, color="0.4", lw=1, label=label)


def _rho_colors(df: pd.DataFrame) -> dict:
    """One colour per rho of ``df`` (viridis by rank, black for infinity), the same in every
    panel of a figure."""
    privs = sorted(df["privacy"].unique())
    finite = [p for p in privs if not math.isinf(p)]
    cmap = plt.get_cmap("viridis")
    return {
        p: "black" if math.isinf(p) else cmap(finite.index(p) / max(1, len(finite) - 1))
        for p in privs
    }


def _curves(ax, df, title, colors, guides=()):
    m = _means(df)
    for p in sorted(m["privacy"].unique()):
        sub = m[m["privacy"] == p]
        ax.plot(sub["t"], sub["regret"], "o-", ms=3, color=colors[p], label=_label("rho", p))
    for g in guides:
        g(ax)
    ax.set(xscale="log", yscale="log", xlabel="T", ylabel="regret", title=title)


def _excess(df: pd.DataFrame, ref: float = math.inf) -> pd.DataFrame:
    m = _means(df)
    base = m[m["privacy"] == ref].set_index("t")["regret"]
    out = m[m["privacy"] != ref].copy()
    out["excess"] = out["regret"].to_numpy() - base.reindex(out["t"]).to_numpy()
    return out


def finite_or_linear_figure(df: pd.DataFrame, experiment: str, out_pdf: str, out_png: str):
    """OP-E1 (I1, I2, I1b) or OP-E2 (J1, J2): regret vs T on the fixed-gap and the hard family
    with the bounds' non-private terms as guides, excess vs T, excess at T_max vs rho.

    The three top panels share one colour per rho; their legend fills the free bottom-right
    panel, the bottom panels' legends sit under them. Coinciding curves are named in the note.
    """
    fixed, hard = ("I1", "I2") if experiment == "OP-E1" else ("J1", "J2")
    set_style()
    fig, axes = plt.subplots(2, 3, figsize=(15, 9.5))
    dfx = df[df["instance"] == fixed]
    dfh = df[df["instance"] == hard]
    if not dfh.empty:  # the core configuration (K = 5, d = 5) when the full tier has several
        key = "K" if experiment == "OP-E1" else "d"
        values = sorted(dfh[key].unique())
        dfh = dfh[dfh[key] == (5 if 5 in values else values[0])]
    colors = _rho_colors(pd.concat([dfx, dfh]))  # the rho of the top row
    _curves(axes[0, 0], dfx, f"{experiment}: regret on {fixed} (fixed gaps)", colors)
    if not dfh.empty:
        T = np.sort(dfh["t"].unique()).astype(float)
        K, d = int(dfh["K"].iloc[0]), int(dfh["d"].iloc[0])
        if experiment == "OP-E1":
            up = lambda t: np.sqrt(K * t * np.log(t))  # noqa: E731
            lb = lambda t: np.sqrt(K * t)  # noqa: E731
            names = (r"$\propto$ sqrt(KT ln T) (UB)", r"$\propto$ sqrt(KT) (LB)")
        else:
            up = lambda t: np.sqrt(d * t * np.log(K * t))  # noqa: E731
            lb = lambda t: d * np.sqrt(t)  # noqa: E731
            names = (r"$\propto$ sqrt(dT ln(KT)) (UB)", r"$\propto$ d sqrt(T) (LB)")
        r0 = _means(dfh)
        y0 = r0[r0["t"] == T[0]]["regret"].mean()
        guides = (
            lambda ax: ax.plot(T, y0 * up(T) / up(T[0]), "--", color="0.3", lw=1, label=names[0]),
            lambda ax: ax.plot(T, y0 * lb(T) / lb(T[0]), ":", color="0.3", lw=1, label=names[1]),
        )
        label = f"K = {K}" if experiment == "OP-E1" else f"d = {d}, K = {K}"
        _curves(axes[0, 1], dfh, f"regret on {hard} (minimax, {label})", colors, guides)
    ex = _excess(dfx)
    ax = axes[0, 2]
    for p in sorted(ex["privacy"].unique()):
        sub = ex[(ex["privacy"] == p) & (ex["excess"] > 0)]
        ax.plot(sub["t"], sub["excess"], "o-", ms=3, color=colors[p], label=_label("rho", p))
    ax.set(xscale="log", yscale="log", xlabel="T", ylabel="excess regret over ρ = ∞",
           title=f"private excess on {fixed}")  # fmt: skip
    ax = axes[1, 0]
    last = ex[ex["t"] == ex["t"].max()]
    pos = last[last["excess"] > 0]
    ax.plot(pos["privacy"], pos["excess"], "o-", color="C0", label="excess at T_max")
    if len(pos):
        _guide(ax, pos["privacy"].to_numpy(), pos["excess"].iloc[0], -0.5, "slope -1/2")
    ax.set(xscale="log", yscale="log", xlabel="ρ", ylabel="excess at T_max",
           title=f"excess vs ρ on {fixed} (T = {int(ex['t'].max()):,})")  # fmt: skip
    ax = axes[1, 1]
    if experiment == "OP-E1" and (df["instance"] == "I1b").any():
        b = _means(df[df["instance"] == "I1b"])
        b = b[b["t"] == b["t"].max()]
        fin = b[~np.isinf(b["privacy"])]
        ax.plot(fin["privacy"], fin["regret"], "o-", label="AdaC-UCB")
        ax.axhline(b[np.isinf(b["privacy"])]["regret"].iloc[0], color="k", ls="--", label="ρ = ∞")
        ax.set(xscale="log", yscale="log", xlabel="ρ", ylabel="regret at T_max",
               title="I1b: regret at T_max vs ρ (two regimes)")  # fmt: skip
    else:
        ax.axis("off")
    note = mark_all_coincident(axes)
    for ax in axes[1, :2]:
        if ax.axison:
            legend_below(ax, fontsize=8)
    # the top row's shared legend (rho colours and the hard family's guides) in the free panel
    axes[1, 2].axis("off")
    guides = [h for h in axes[0, 1].get_lines() if h.get_label().startswith("$")]
    sections = {
        "ρ (colour, top row)": [
            plt.Line2D([], [], color=c, marker="o", ms=3, label=_label("rho", p))
            for p, c in colors.items()
        ],
        f"guides (regret on {hard})": [
            plt.Line2D([], [], ls=g.get_linestyle(), color=g.get_color(), label=g.get_label())
            for g in guides
        ],
    }
    legend = axes[1, 2].legend(handles=section_handles(sections), loc="center", ncol=2,
                               fontsize=9, frameon=True)  # fmt: skip
    bold_headers(legend, sections)
    decade_labels(axes)
    if note:
        footnote(fig, note)
    else:
        fig.tight_layout()
    save(fig, out_pdf, out_png, dpi=110)  # no timestamps in the files
    close(fig)


def gap_figure(df: pd.DataFrame, out_pdf: str, out_png: str, context: str = "C1"):
    """OP-E3: regret vs T for LinUCB, JDP-LinUCB(eps), OFUL-RS, AdaC-OFUL(rho) with guides of
    slope 0.5 and the secant exponent of ``d sqrt(T) ln T``; the excess over the non-private
    reference vs T (guides 0.5 and 0); the excess at T_max vs eps (guides -1/2 and -1), AdaC-OFUL
    placed at the equivalent eps of its rho at delta = 0.01. Legends sit under the panels;
    coinciding curves are said in them. The planted contestant is not drawn (its control rows are
    op24_controls)."""
    d3 = df[(df["instance"] == context) & (df["algorithm"] != CONTESTANT)]
    d3 = d3[(d3["d"] == d3["d"].min()) & (d3["T"] == d3["T"].max())]
    m = _means(d3)
    T = np.sort(m["t"].unique()).astype(float)
    d = int(d3["d"].iloc[0])
    set_style()
    fig, axes = plt.subplots(1, 3, figsize=(16, 7.2))
    ax = axes[0]
    styles = {"linucb": ("k", "LinUCB"), "jdp_linucb": ("C3", "JDP-LinUCB"),
              "adac_oful": ("C0", "AdaC-OFUL")}  # fmt: skip
    for alg, (color, name) in styles.items():
        sub = m[m["algorithm"] == alg]
        for k, p in enumerate(sorted(sub["privacy"].unique())):
            s = sub[sub["privacy"] == p]
            if alg == "linucb":
                lab, c, ls = name, color, "-"
            elif math.isinf(p):
                lab, c, ls = "OFUL-RS (AdaC-OFUL ρ = ∞)", "0.5", "-"
            else:
                kind = "eps" if alg == "jdp_linucb" else "rho"
                lab, c, ls = f"{name} {_label(kind, p)}", color, ["-", "--", ":", "-."][k % 4]
            ax.plot(s["t"], s["regret"], ls, marker="o", ms=3, color=c, label=lab)
    y0 = m[m["t"] == T[0]]["regret"].max()
    _guide(ax, T, y0, 0.5, "slope 0.5 (both bounds' order)", ":")
    sec = math.log((T[-1] ** 0.5 * math.log(T[-1])) / (T[0] ** 0.5 * math.log(T[0]))) / math.log(
        T[-1] / T[0]
    )
    _guide(ax, T, y0 / 2, sec, f"slope {sec:.3f} (d sqrt(T) ln T)", "--")
    ax.set(xscale="log", yscale="log", xlabel="T", ylabel="regret",
           title=f"OP-E3 ({context}, d = {d}, K = {int(d3['K'].iloc[0])})")  # fmt: skip
    ax = axes[1]
    lin = m[m["algorithm"] == "linucb"].set_index("t")["regret"]
    oful = m[(m["algorithm"] == "adac_oful") & np.isinf(m["privacy"])].set_index("t")["regret"]
    last = []
    for alg, ref, color in (("jdp_linucb", lin, "C3"), ("adac_oful", oful, "C0")):
        sub = m[(m["algorithm"] == alg) & ~np.isinf(m["privacy"])]
        for k, p in enumerate(sorted(sub["privacy"].unique())):
            s = sub[sub["privacy"] == p]
            E = s["regret"].to_numpy() - ref.reindex(s["t"]).to_numpy()
            kind = "eps" if alg == "jdp_linucb" else "rho"
            ok = E > 0
            ax.plot(s["t"].to_numpy()[ok], E[ok], ["-", "--", ":", "-."][k % 4], marker="o", ms=3,
                    color=color, label=f"{styles[alg][1]} {_label(kind, p)}")  # fmt: skip
            eq = p if alg == "jdp_linucb" else zcdp_to_dp(p, DELTA_EQUIV)
            last.append((alg, p, eq, E[-1]))
    pos = [e for e in last if e[3] > 0]
    if pos:
        y0 = max(e[3] for e in pos) / 3
        _guide(ax, T, y0, 0.5, "slope 0.5 (UB privacy term)", ":")
        _guide(ax, T, y0, 0.0, "slope 0 (LB privacy term)", "--")
    ax.set(xscale="log", yscale="log", xlabel="T", ylabel="excess over LinUCB / OFUL-RS",
           title="price of privacy vs T")  # fmt: skip
    ax = axes[2]
    for alg, color in (("jdp_linucb", "C3"), ("adac_oful", "C0")):
        pts = sorted((e[2], e[3]) for e in last if e[0] == alg and e[3] > 0)
        if pts:
            x, y = zip(*pts, strict=True)
            name = styles[alg][1] + (" (at ε of its ρ, δ = 0.01)" if alg == "adac_oful" else "")
            ax.plot(x, y, "o-", color=color, label=name)
    jdp = sorted((e[2], e[3]) for e in last if e[0] == "jdp_linucb" and e[3] > 0)
    if jdp:
        x = np.array([e[0] for e in jdp])
        _guide(ax, x, jdp[0][1], -0.5, "slope -1/2 (UB: ε^-1/2)", ":")
        _guide(ax, x, jdp[0][1], -1.0, "slope -1 (LB: 1/ε)", "--")
    ax.set(xscale="log", yscale="log", xlabel="ε (δ = 0.01)", ylabel="excess at T_max",
           title=f"excess at T = {int(T[-1]):,} vs ε")  # fmt: skip
    for ax in axes:
        mark_all_coincident([ax])
        legend_below(ax, fontsize=8)
    decade_labels(axes)
    fig.tight_layout()
    save(fig, out_pdf, out_png, dpi=110)  # no timestamps in the files
    close(fig)


__all__ = ["finite_or_linear_figure", "gap_figure"]
