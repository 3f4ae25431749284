"""Figures of the rate audit: one log-log figure per group of claims with identical fits."""

from __future__ import annotations

import shutil
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pandas as pd

from ..config import grid_members
from ..plotting import (
    CYCLE,
    close,
    footnote,
    legend_below,
    mark_all_coincident,
    plt,
    rate_panel,
    save,
    set_suptitle,
)
from .rates import (
    FINITE_T_CAVEAT,
    d_matrix,
    eps_gap,
    final_values,
    fit_exponent,
    level_matrix,
    worst_case_matrix,
)


def signature(claim: dict) -> tuple:
    """Claims with the same signature have the same fits, hence the same figure."""
    a = claim["audit"]
    return (
        a["check"],
        a["sweep"],
        tuple(a["schedules"]),
        tuple(a.get("fit", ())),
        a.get("eps_fit", "gap"),
        a.get("metric", "regret_pseudo"),
        a.get("T_fit", "value"),
        a.get("baseline"),
        a.get("trend"),
        claim["T_exp"],
        claim.get("T_exp_alpha"),
        claim.get("logT_pow"),
        claim["eps_exp"],
        claim["d_exp"] if "d" in a.get("fit", ()) else None,
        claim.get("eps_exp_literal"),
        a.get("lower"),
        a.get("upper"),
    )


def _fixed(text) -> dict:
    """``"epsilon=1, d=5"`` -> ``{"epsilon": 1.0, "d": 5}`` (``T=...`` too)."""
    out = {}
    for part in (text if isinstance(text, str) else "").split(","):
        if "=" in part:
            k, v = part.strip().split("=")
            out[k] = int(v) if k in ("d", "T") else float(v)
    return out


#: Panels of a slope figure: the fit variable, its axis label and how to get (levels, values).
_VARIABLES = ("T", "1/epsilon", "d")


#: The sweeps' results while :func:`render_rate_claims` runs: forked workers inherit them
#: instead of receiving a pickled copy with every task.
_SWEEPS: pd.DataFrame | None = None


class _Sweep:
    """The final values of one claim's sweep, and its levels (a schedule, or the worst case over
    the schedule's gap grid)."""

    def __init__(self, audit: dict):
        self.audit = audit
        self.metric = audit.get("metric", "regret_pseudo")
        self.finals = final_values(_SWEEPS[_SWEEPS["sweep"] == audit["sweep"]], self.metric)
        self.names = self.finals["schedule"].unique()
        self.ylabel = (
            "mean final pseudo-regret"
            if self.metric == "regret_pseudo"
            else f"mean final {self.metric}"
        )

    def levels(self, name, eps, d=None):
        if self.audit.get("worst_case"):
            return worst_case_matrix(self.finals, grid_members(name, self.names), eps, d)[:2]
        return level_matrix(self.finals, name, eps, d)


def _render(task) -> None:
    members, claim, rows, baseline, verdict, files = task
    sweep = _Sweep(claim["audit"])
    draw = {"slope_trend": _draw_trend, "slope": _draw_slope}.get(
        claim["audit"]["check"], _draw_between
    )
    fig = draw(sweep, rows, baseline)
    note = mark_all_coincident(fig.axes, "identical points and fits")
    for ax in fig.axes:
        legend_below(ax, fontsize=7)
    set_suptitle(fig, (", ".join(members) + f": {claim['bound']}")[:160], fontsize=9)
    footnote(fig, f"Verdict: {verdict}. {FINITE_T_CAVEAT}. {note}")
    first = files[members[0]]
    save(fig, first["pdf"], first["png"], dpi=110)
    close(fig)
    for other in members[1:]:  # the same fits: the same figure
        shutil.copyfile(first["pdf"], files[other]["pdf"])
        shutil.copyfile(first["png"], files[other]["png"])


def _draw_trend(sweep: _Sweep, rows, baseline):
    """``slope_trend``: every schedule's fit, one panel per epsilon."""
    audit, finals = sweep.audit, sweep.finals
    eps_levels = sorted(finals["epsilon"].dropna().unique()) or [None]
    n = len(eps_levels)
    fig, axes = plt.subplots(1, n, figsize=(5.0 * n, 5.0), squeeze=False)
    for ax, eps in zip(axes[0], eps_levels, strict=True):
        for k, name in enumerate(audit["schedules"]):
            x, Y = sweep.levels(name, eps)
            if audit.get("T_fit") == "gap":
                Y = Y - sweep.levels(audit["baseline"], None)[1]
            fit = fit_exponent(x, Y, n_boot=200)
            color = CYCLE[k % len(CYCLE)]
            label = f"{name}: {fit.slope:.2f}"
            rate_panel(ax, x, Y, fit.slope, fit.intercept, None, label, color)
        ax.set_title(f"exponents must be {audit['trend']} along the schedules", fontsize=9)
        ax.set_xlabel("horizon T")
        ax.set_ylabel(sweep.ylabel)
    return fig


def _draw_slope(sweep: _Sweep, rows, baseline):
    """``slope``: one panel per fitted variable (T, 1/epsilon, d), every fit with its claim."""
    audit, finals = sweep.audit, sweep.finals
    ref = None if audit.get("eps_fit", "gap") == "regret" else baseline
    groups = {
        "T": rows[rows["variable"].str.startswith("T")],
        "1/epsilon": rows[rows["variable"] == "1/epsilon"],
        "d": rows[rows["variable"] == "d"],
    }
    present = [v for v in _VARIABLES if len(groups[v])]
    ncols = max(1, len(present))
    fig, axes = plt.subplots(1, ncols, figsize=(5.5 * ncols, 5.0), squeeze=False)
    gap_to = audit.get("baseline") if audit.get("T_fit") == "gap" else None
    for ax, var in zip(axes[0], present, strict=False):
        for k, r in enumerate(groups[var].itertuples()):
            fx = _fixed(r.fixed)
            if var == "T":
                sched = r.schedule.split(" (worst of")[0]  # a worst-case row names its grid
                x, Y = sweep.levels(sched, fx.get("epsilon"), fx.get("d"))
                if gap_to is not None:
                    Y = Y - sweep.levels(gap_to, None, fx.get("d"))[1]
            elif var == "1/epsilon":
                e, Y, _ = eps_gap(finals, r.schedule, ref, fx.get("d"))
                x = 1.0 / e
            else:
                x, Y, _ = d_matrix(finals, r.schedule, fx.get("epsilon"))
            fixed = r.fixed if isinstance(r.fixed, str) else ""
            label = f"{r.schedule} {fixed.replace('epsilon', 'eps')}: {r.slope:.2f}"
            rate_panel(ax, x, Y, r.slope, r.intercept, r.claimed, label, CYCLE[k % len(CYCLE)])
        claimed = sorted(set(groups[var]["claimed"].round(3)))
        title = f"{var}-exponent (claimed {', '.join(f'{c:g}' for c in claimed)}, dashed)"
        literal = rows[rows["variable"] == f"{var} [literal]"]
        if len(literal):
            title += f"; literal reading {literal['claimed'].iloc[0]:g}"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel({"T": "horizon T", "1/epsilon": "1/epsilon", "d": "dimension d"}[var])
        if var == "1/epsilon" and ref is not None:
            ax.set_ylabel(f"privacy cost (regret - {ref}) at the largest T")
        elif var == "T" and gap_to is not None:
            ax.set_ylabel(f"{sweep.ylabel} minus {gap_to}'s")
        else:
            ax.set_ylabel(sweep.ylabel)
    return fig


def _draw_between(sweep: _Sweep, rows, baseline):
    """``slope_between``: the compared schedules at each epsilon."""
    audit, finals = sweep.audit, sweep.finals
    eps_levels = sorted(
        finals.loc[finals["schedule"] == audit["lower"], "epsilon"].dropna().unique()
    )
    n = len(eps_levels)
    fig, axes = plt.subplots(1, n, figsize=(4.6 * n, 5.0), squeeze=False)
    for ax, eps in zip(axes[0], eps_levels, strict=True):
        for k, name in enumerate([audit["lower"], *audit["schedules"], audit["upper"]]):
            x, Y = level_matrix(finals, name, eps)
            fit = fit_exponent(x, Y, n_boot=200)
            label = f"{name}: {fit.slope:.2f}"
            rate_panel(ax, x, Y, fit.slope, fit.intercept, None, label, CYCLE[k % len(CYCLE)])
        ax.set_title(f"epsilon = {eps:g}")
        ax.set_xlabel("horizon T")
    axes[0][0].set_ylabel("mean final pseudo-regret")
    return fig


def render_rate_claims(
    claims: list[dict],
    rates: pd.DataFrame,
    sweeps: pd.DataFrame,
    files: dict[str, dict],
    baseline: str = "linucb",
    workers: int = 1,
) -> list[list[str]]:
    """Write the figure of every rate claim in ``files`` (claim id -> {"pdf", "png"}).

    Parameters
    ----------
    claims : list of dict
        The registry.
    rates : DataFrame
        The fits (:func:`dpbandits.audit.rates.evaluate_rate_claims`).
    sweeps : DataFrame
        The sweeps' results (parquet layout); each claim's metric is read from them.
    files : dict
        Output files per claim id; every id must have slope or slope_between fits.
    baseline : str
        Non-private schedule of the epsilon fits.
    workers : int
        Processes to render in (the figures are independent).

    Returns
    -------
    list of list of str
        The claim groups, in registry order; each group shares one figure.
    """
    by_id = {c["id"]: c for c in claims}
    groups: dict[tuple, list[str]] = {}
    for cid in files:
        groups.setdefault(signature(by_id[cid]), []).append(cid)
    summary = rates[rates["schedule"] == "all"].set_index("claim_id")["verdict"]
    tasks = []
    for members in groups.values():
        cid = members[0]
        rows = rates[(rates["claim_id"] == cid) & (rates["schedule"] != "all")]
        tasks.append((members, by_id[cid], rows, baseline, summary[cid], files))
    global _SWEEPS
    _SWEEPS = sweeps
    try:
        if workers > 1 and len(tasks) > 1:
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
                list(pool.map(_render, tasks))
        else:
            for task in tasks:
                _render(task)
    finally:
        _SWEEPS = None
    return list(groups.values())
