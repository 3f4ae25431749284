"""The arena's privacy-utility frontier at matched privacy (docs/arena.md): per suite, at its
first dimension and horizon, every private contestant's final regret over the frontier's
epsilons (``matched.frontier`` of config/arena.yaml), each at its delivered epsilon (matched
calibration), with the non-private references as the floor and uniform random play as the
ceiling; and which contestant leads at each epsilon."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd

from dpbandits.arena.leaderboard import ranks_with_ties

COLUMNS = [
    "suite",
    "d",
    "T",
    "epsilon",
    "contestant",
    "paper",
    "trust",
    "delivered_epsilon",
    "mean_regret",
    "ci_low",
    "ci_high",
    "rank",
    "floor_regret",
    "random_regret",
    "in_band",
    "certified",
]
LEADER_COLUMNS = [
    "suite",
    "d",
    "T",
    "epsilon",
    "leaders",
    "leader_regret",
    "contestants",
    "floor",
    "floor_regret",
    "random_regret",
]


def in_band(epsilon, delivered) -> np.ndarray:
    """Whether a certified ``delivered`` epsilon lies in the matched band of its target
    ``epsilon``, ``[(1 - TOLERANCE) epsilon, epsilon]`` (:mod:`dpbandits.privacy.matching`): False
    where the calibration's knob cannot reach it (a discrete knob jumps over the band, or the
    certificate stays below it at the least noise of the map), so the contestant runs with more
    privacy than the others at that epsilon."""
    from dpbandits.privacy.matching import TOLERANCE

    eps = np.asarray(epsilon, dtype=float)
    got = np.asarray(delivered, dtype=float)
    slack = 1e-9 * eps  # the band's ends as printed (a decimal target)
    return (got >= (1 - TOLERANCE) * eps - slack) & (got <= eps + slack)


def frontier_table(board: pd.DataFrame) -> pd.DataFrame:
    """The frontier rows (:data:`COLUMNS`) from the leaderboard: at the (suite, d, T) points
    that have frontier rows, the private contestants' matched rows (the target's from the matched
    ranking, the others from the frontier's), ranked per epsilon with ties where the 95 %
    intervals overlap; ``floor_regret``: the best non-private reference's mean at that point;
    ``in_band``: whether the certified epsilon is within the matched band (:func:`in_band`);
    ``certified``: whether the privacy audit certifies it (verdict DELIVERED)."""
    ran = board[board["status"] == "ran"]
    points = ran.loc[ran["ranking"] == "frontier", ["suite", "d", "T"]].drop_duplicates()
    out = []
    for p in points.itertuples(index=False):
        here = ran[(ran["suite"] == p.suite) & (ran["d"] == p.d) & (ran["T"] == p.T)]
        private = here[(here["trust"] != "none") & here["ranking"].isin(["matched", "frontier"])]
        refs = here[here["trust"] == "none"]
        floor = float(refs["mean_regret"].min()) if len(refs) else math.nan
        for eps, part in private.groupby("nominal_epsilon", sort=True):
            part = part.assign(
                epsilon=float(eps),
                rank=ranks_with_ties(part["ci_low"], part["ci_high"]),
                floor_regret=floor,
                in_band=in_band(float(eps), part["delivered_epsilon"]),
                certified=part["privacy_verdict"].eq("DELIVERED").to_numpy(),
            )
            out.append(part)
    if not out:
        return pd.DataFrame(columns=COLUMNS)
    table = pd.concat(out, ignore_index=True)[COLUMNS]
    return table.sort_values(["suite", "epsilon", "rank", "mean_regret"], kind="mergesort")


def leaders(table: pd.DataFrame) -> pd.DataFrame:
    """Per suite and epsilon: the contestants that lead (rank 1: no other's interval lies wholly
    below theirs; one whose certified epsilon is below the matched band is named with it, one
    whose epsilon is not certified says so), the best mean regret, how many ran, the floor and the
    ceiling."""

    def name(r) -> str:
        if not r.certified:
            return f"{r.contestant} (not certified at this epsilon)"
        if not r.in_band:
            return f"{r.contestant} (certified {r.delivered_epsilon:.3g}, below the band)"
        return r.contestant

    rows = []
    for (suite, eps), part in table.groupby(["suite", "epsilon"], sort=False):
        top = part[part["rank"] == 1].sort_values("mean_regret")
        names = [name(r) for r in top.itertuples()]
        rows.append(
            {
                "suite": suite,
                "d": int(part["d"].iloc[0]),
                "T": int(part["T"].iloc[0]),
                "epsilon": float(eps),
                "leaders": ", ".join(names),
                "leader_regret": float(top["mean_regret"].iloc[0]),
                "contestants": len(part),
                "floor": "best non-private reference",
                "floor_regret": float(part["floor_regret"].iloc[0]),
                "random_regret": float(part["random_regret"].iloc[0]),
            }
        )
    return pd.DataFrame(rows, columns=LEADER_COLUMNS)


def frontier_matched_figure(
    table: pd.DataFrame, suite: str, title: str, pdf: str, png: str, empty: str = ""
):
    """One suite's frontier: mean final regret (95 % interval bars) against the matched epsilon
    on log axes, one line per contestant (distinct colour and marker, slightly offset along x so
    that no series hides another), the floor and the ceiling as dashed lines; saved as ``pdf`` and
    ``png``. A suite without a matched contestant says so, with ``empty`` (why), instead of
    drawing empty axes."""
    import matplotlib.pyplot as plt

    from dpbandits.plotting import close, distinct_styles, save, set_style  # (Agg backend)

    set_style()
    part = table[table["suite"] == suite]
    if part.empty:
        fig, ax = plt.subplots(figsize=(9.5, 2.2))
        ax.axis("off")
        ax.set_title(title, fontsize=11)
        why = textwrap.fill(f"No contestant of this suite runs at matched privacy. {empty}", 100)
        ax.text(0.5, 0.5, why, ha="center", va="center", fontsize=9, transform=ax.transAxes)
        save(fig, pdf, png)
        close(fig)
        return
    fig, ax = plt.subplots(figsize=(9.5, 5.6))
    names = list(dict.fromkeys(part.sort_values("contestant")["contestant"]))
    styles = distinct_styles(names)
    spread = 0.03  # multiplicative offset of each series along epsilon (none hides another)
    for i, name in enumerate(names):
        rows = part[part["contestant"] == name].sort_values("epsilon")
        shift = (1 + spread) ** (i - (len(names) - 1) / 2)
        x = rows["epsilon"].to_numpy(float) * shift
        y = rows["mean_regret"].to_numpy(float)
        lo = np.clip(y - rows["ci_low"].to_numpy(float), 0, None)
        hi = np.clip(rows["ci_high"].to_numpy(float) - y, 0, None)
        ax.errorbar(x, y, yerr=[np.nan_to_num(lo), np.nan_to_num(hi)], ms=5, lw=1.3, capsize=2,
                    label=name, **styles[name])  # fmt: skip
        # certified below the band, or not certified: a hollow ring
        off = ~(rows["in_band"].to_numpy(bool) & rows["certified"].to_numpy(bool))
        if off.any():
            ax.plot(x[off], y[off], ls="none", marker="o", ms=11, mfc="none", mew=1.4,
                    color=styles[name].get("color", "0.2"))  # fmt: skip
    if len(part):
        floor, ceiling = part["floor_regret"].iloc[0], part["random_regret"].iloc[0]
        if np.isfinite(floor) and floor > 0:
            ax.axhline(floor, color="0.2", ls="--", lw=1, label="non-private floor")
        ax.axhline(ceiling, color="0.5", ls=":", lw=1.2, label="random play (ceiling)")
        d, T = int(part["d"].iloc[0]), int(part["T"].iloc[0])
        title = f"{title}\n(d = {d}, T = {T}, matched privacy)"
    ax.set_xscale("log")
    ax.set_yscale("log")
    xlabel = "matched epsilon: certified within 1 % below it (series offset by 3 % each)"
    if not (part["in_band"].astype(bool) & part["certified"].astype(bool)).all():
        xlabel += "\nringed: certified further below the band, or not certified (frontier.csv)"
    ax.set_xlabel(xlabel)
    ax.set_ylabel("mean final pseudo-regret (95 % interval)")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8, frameon=False)
    fig.tight_layout()
    save(fig, pdf, png)
    close(fig)


__all__ = [
    "COLUMNS",
    "LEADER_COLUMNS",
    "frontier_matched_figure",
    "frontier_table",
    "in_band",
    "leaders",
]
