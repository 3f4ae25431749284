"""Rate audit: fitted exponents of regret in T (and in 1/epsilon) against the claimed ones.

Fit. For levels ``x_j`` (horizons, or privacy levels) and per-instance final pseudo-regrets
``R_ij`` (instance ``i``; instances are shared by every level, so the data are paired), the
exponent is the OLS slope of ``ln(mean_i R_ij)`` on ``ln x_j``. Its 95 % interval is the
percentile interval of the same slope over bootstrap resamples of the *instances* (rows of ``R``
resampled together across levels).

The epsilon fit uses the privacy cost ``gap_j = mean_i (R_ij^A - R_i^LinUCB)`` at the largest
horizon (``eps_fit: gap``, the default), or the regret itself (``eps_fit: regret``, for claims
whose bound is the whole regret). A claim ``regret = O(epsilon^e)`` with ``e < 0`` says the cost
grows like ``(1/epsilon)^{-e}``; the audit fits the exponent of ``1/epsilon`` (minus the slope in
``epsilon``) so that "larger than claimed" means "worse than claimed" for both fits. Where the
registry gives a literal reading of the epsilon exponent (``eps_exp_literal``), the same fit is
also compared with it in an extra row (``variable`` ends in ``[literal]``) that does not enter the
claim's summary verdict. The ``d`` fit is the slope of the final regret in ``d`` at the largest
horizon, per epsilon (sweeps over several dimensions).

Statistical verdicts (``tol`` = configured tolerance), before the gates of
:mod:`dpbandits.audit.verdicts`, where the principle lives (a saturated fit is ``untestable``; a
violation stands only in the learning regime on a design that can show it; ``consistent`` needs
the learning regime and enough power, also against the rates the claim lists in
``audit.contrasts``). Each fit has a design: ``worst-case`` (``worst_case`` claims: the maximum
over a gap grid at each horizon), ``fixed-instance`` (every other slope, 1/epsilon and d fit)
or ``one-term`` (a difference of regrets, ``T_fit: gap``, and every fit of a claim with
``audit.term_of``: one term of a sum bound, never a verdict). A claim's bound is ``worst-case``
unless ``audit.bound_scope`` says ``instance``. A paraphrase that drops its theorem's logs is
fitted against the theorem's function (``logT_pow``); ``logT_pow_literal`` adds the literal
reading as a ``[literal]`` row that is not a verdict.

upper-bound claim
    ``consistent`` if the interval's upper end <= claimed + tol; ``exceeds`` if its lower end
    > claimed + tol; ``inconclusive`` otherwise.
lower-bound claim
    ``consistent`` if the interval's lower end >= claimed - tol; ``below`` if its upper end
    < claimed - tol; ``inconclusive`` otherwise.

A finite-horizon slope cannot establish an asymptotic rate: a verdict says whether the growth
seen over the simulated range is compatible with the claim, nothing more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import verdicts as vocab
from .controls import planted_contestants
from .fits import (  # noqa: F401  (re-exported: the rate audit's public fitting API)
    VERDICT_ORDER,
    Fit,
    _slopes,
    bootstrap_means,
    combine,
    fit_exponent,
    verdict,
)
from .levels import (  # noqa: F401  (re-exported: the rate audit's public API)
    _at_eps,
    _frac,
    _wide,
    claimed_T_exponent,
    final_values,
    level_matrix,
    log_factor_slope,
)
from .rate_families import (  # noqa: F401  (re-exported: the rate audit's public API)
    FitContext,
    batch_exponent,
    between_fits,
    d_matrix,
    eps_gap,
    regime_start,
    schedule_fits,
    trend_fits,
    worst_case_fits,
    worst_case_matrix,
)
from .rate_judge import (  # noqa: F401  (re-exported: the rate audit's public API)
    Adder,
    judge,
    robustness,
    separation,
)

#: Shown next to every rate verdict.
FINITE_T_CAVEAT = (
    "finite-horizon fit: indicates whether the growth over the simulated range is compatible "
    "with the claim; it cannot prove or refute an asymptotic rate"
)

REGIME_ORDER = ("saturated", "pre-asymptotic", "learning")

#: Columns of the rate table (also when it is empty).
RATE_COLUMNS = [
    "claim_id",
    "experiment",
    "sweep",
    "direction",
    "check",
    "schedule",
    "variable",
    "fixed",
    "slope",
    "ci_low",
    "ci_high",
    "intercept",
    "n_levels",
    "n_trials",
    "claimed",
    "tolerance",
    "verdict",
    "regime",
    "cap_share",
    "detectable_excess",
    "robustness",
    "reason",
    "caveat",
]


@dataclass(frozen=True)
class _FitSettings:
    """The arguments of :func:`evaluate_rate_claims` that every claim's fits share."""

    baseline: str
    tol: float
    n_boot: int
    seed: int
    schedule_options: dict
    max_detectable: float
    grids: dict
    grid_steps: dict
    registry: dict


def _fit_claim(claim: dict, all_finals: pd.DataFrame, metric: str, st: _FitSettings, rows):
    """Append the fits of one rate claim to ``rows`` (its fit rows, their controls, and a
    placeholder for its summary row, filled in once every family's controls are in)."""
    audit = claim["audit"]
    check = audit["check"]
    finals = all_finals[all_finals["sweep"] == audit["sweep"]]
    if finals.empty:
        raise ValueError(f"{claim['id']}: no data of sweep {audit['sweep']!r}")
    base = {
        "claim_id": claim["id"],
        "experiment": audit["experiment"],
        "sweep": audit["sweep"],
        "direction": claim["direction"],
        "check": check,
    }
    judged: list[dict] = []
    add = Adder(rows, judged, base, claim["direction"], st.tol, st.seed, st.max_detectable,
                 st.n_boot)  # fmt: skip
    add.bound_scope = audit.get("bound_scope", "worst-case")
    add.whole = audit.get("term_of")
    ctx = FitContext(claim, finals, add, metric, st.n_boot, st.seed, st.baseline,
                      st.schedule_options, st.grids, st.grid_steps, st.registry)  # fmt: skip
    if check == "slope" and audit.get("worst_case"):
        worst_case_fits(ctx)
    elif check == "slope":
        for sched in audit["schedules"]:
            schedule_fits(ctx, sched)
    elif check == "slope_trend":  # fitted exponents move monotonically along the schedules
        trend_fits(ctx)
    else:  # slope_between: lower <= schedule <= upper in T, paired bootstrap of differences
        between_fits(ctx)
    if judged:
        rows.append({"summary_of": (base, judged)})  # filled in once the controls are in


def evaluate_rate_claims(
    claims: list[dict],
    df: pd.DataFrame,
    baseline: str = "linucb",
    tol: float = 0.05,
    n_boot: int = 2000,
    seed: int = 0,
    schedule_options: dict | None = None,
    max_detectable: float = vocab.MAX_DETECTABLE,
    controls: list | None = None,
    grids: dict | None = None,
    grid_steps: dict | None = None,
) -> pd.DataFrame:
    """Fit every ``slope``, ``slope_between`` and ``slope_trend`` claim of a sweep.

    Parameters
    ----------
    claims : list of dict
        Registry entries; only those whose ``audit.check`` is ``slope``, ``slope_between`` or
        ``slope_trend`` are evaluated.
    df : DataFrame
        Results of the sweep (the parquet layout, one series per schedule), with a ``cap``
        column (random play's regret per instance) for the regime gate.
    baseline : str
        Non-private schedule the epsilon fits subtract.
    tol, n_boot, seed
        Tolerance of the verdicts, bootstrap resamples and seed.
    schedule_options : dict, optional
        ``(sweep, schedule) -> options`` of the schedules (for claims whose exponent depends on
        an option, e.g. ``alpha``).
    max_detectable : float
        Largest ``detectable_excess`` with which a fit may be called ``consistent``
        (:func:`dpbandits.audit.verdicts.gate`).
    controls : list, optional
        Receives one row per control of every slope fit (:mod:`dpbandits.audit.controls`,
        columns :data:`~dpbandits.audit.controls.CONTROL_COLUMNS`). A family (experiment,
        sweep, schedule, variable) with an undetected planted violation has its ``consistent``
        fits turned ``untestable``. So has a claim whose planted contestant run (a sweep schedule of
        algorithm ``etc``) is not detected, for its T fits
        (:func:`dpbandits.audit.controls.planted_contestants`).
    grids : dict, optional
        ``(sweep, schedule entry) -> series`` of the gap grids, for claims with ``worst_case``
        (their ``schedules`` name grid entries).
    grid_steps : dict, optional
        ``(sweep, schedule entry) -> ln`` of the largest ratio between neighbouring gaps of the
        grid (the resolution of a worst-case fit).

    Returns
    -------
    DataFrame
        One row per fit (claim, schedule, variable, fixed level) and one summary row per claim
        (``schedule == "all"``), with the fitted exponent, its interval, the claimed exponent,
        the verdict, regime, detectable excess, reason and the finite-horizon caveat.
    """
    rows = []
    if df is None or df.empty:
        return pd.DataFrame(rows, columns=RATE_COLUMNS)
    registry = {c["id"]: c for c in claims}
    settings = _FitSettings(baseline, tol, n_boot, seed, schedule_options or {},
                            max_detectable, grids or {}, grid_steps or {}, registry)  # fmt: skip
    by_metric: dict[str, pd.DataFrame] = {}
    for claim in claims:
        audit = claim["audit"]
        if audit.get("check") not in ("slope", "slope_between", "slope_trend"):
            continue
        metric = audit.get("metric", "regret_pseudo")
        if metric not in by_metric:
            by_metric[metric] = final_values(df, metric)
        _fit_claim(claim, by_metric[metric], metric, settings, rows)
    control_rows = [c for r in rows if "controls" in r for c in r.pop("controls")]
    control_rows += planted_contestants(claims, df, rows, tol, n_boot, seed,
                                        settings.schedule_options, baseline)  # fmt: skip
    _gate_families(rows, control_rows)
    rows = [_summary_row(*r["summary_of"], tol) if "summary_of" in r else r for r in rows]
    if controls is not None:
        controls.extend(control_rows)
    out = pd.DataFrame(rows, columns=RATE_COLUMNS)
    out["caveat"] = FINITE_T_CAVEAT
    return out


def _family(row: dict) -> tuple:
    return (row["experiment"], row["sweep"], row["schedule"], row["variable"])


def _gate_families(rows: list[dict], control_rows: list[dict]) -> None:
    """Turn the ``consistent`` fits of every family whose planted violation went undetected
    into ``untestable`` (in place)."""
    missed = {
        _family(c) for c in control_rows if c["control"] == "planted violation" and not c["passed"]
    }
    for r in rows:
        if "summary_of" not in r and r["verdict"] == "consistent" and _family(r) in missed:
            r["verdict"] = "untestable"
            r["reason"] += (
                "; so untestable: a planted violation of this family (same sweep, schedule and "
                "variable) went undetected, so its power statement does not hold"
            )


def _summary_row(base: dict, judged: list[dict], tol: float) -> dict:
    """The claim's row: combined verdict, worst regime, largest detectable excess, counts."""
    v = combine(j["verdict"] for j in judged)
    counts = pd.Series([j["verdict"] for j in judged]).value_counts()
    tally = ", ".join(f"{counts[k]} {k}" for k in VERDICT_ORDER if k in counts)
    det = [j["detectable_excess"] for j in judged if np.isfinite(j["detectable_excess"])]
    shares = [j["cap_share"] for j in judged if np.isfinite(j["cap_share"])]
    return {
        **base,
        "schedule": "all",
        "variable": "",
        "fixed": "",
        "n_levels": None,
        "n_trials": None,
        "claimed": None,
        "tolerance": tol,
        "verdict": v,
        "regime": min((j["regime"] for j in judged), key=REGIME_ORDER.index),
        "cap_share": max(shares) if shares else math.nan,
        "detectable_excess": max(det) if len(det) == len(judged) else math.inf,
        "robustness": _claim_robustness(judged, v),
        "reason": f"{tally} of {len(judged)} fits",
    }


def _claim_robustness(judged: list[dict], combined: str) -> str:
    """``robust`` when every fit with the claim's violation keeps it on its larger horizons,
    ``fragile`` when one does not, ``''`` when the claim has no violation."""
    if combined not in ("exceeds", "below"):
        return ""
    marks = [j.get("robustness", "") for j in judged if j["verdict"] == combined]
    if any(m == "fragile" for m in marks):
        return "fragile"
    return "robust" if marks and all(m == "robust" for m in marks) else "untested"
