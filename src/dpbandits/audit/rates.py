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
from fractions import Fraction

import numpy as np
import pandas as pd

from . import verdicts as vocab
from .controls import control_seed, planted_contestants, run_controls
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


def regime_start(finals: pd.DataFrame, series: str, eps, d, name: str, x) -> np.ndarray:
    """Per fitted horizon ``x``, the largest value over the instances of the policy constant
    ``name`` (the first horizon of the claimed rate's regime,
    :data:`dpbandits.audit.verdicts.REGIME_SUFFIX`)."""
    if name not in finals.columns:
        raise ValueError(f"audit.regime_from: no policy constant {name!r} in the sweep's files")
    sel = _at_eps(finals[finals["schedule"] == series], eps)
    if d is not None:
        sel = sel[sel["d"] == d]
    return sel.groupby("T")[name].max().reindex(x).to_numpy(dtype=float)


def batch_exponent(finals: pd.DataFrame, series: str, eps, d: int | None = None) -> float | None:
    """Log-log slope of a schedule's batch size ``B`` on ``T`` over its horizons (None when
    ``B`` does not change with ``T`` or is not recorded): the schedule actually simulated, after
    rounding ``B`` to a divisor of ``T``."""
    if "B" not in finals.columns:
        return None
    sel = _at_eps(finals[finals["schedule"] == series], eps)
    if d is not None:
        sel = sel[sel["d"] == d]
    B = sel.groupby("T")["B"].first()
    if B.nunique() < 2:
        return None
    return float(np.polyfit(np.log(B.index.to_numpy(float)), np.log(B.to_numpy(float)), 1)[0])


def eps_gap(
    finals: pd.DataFrame,
    series: str,
    baseline: str | None,
    d: int | None = None,
    with_caps: bool = False,
):
    """Epsilon levels and the (instances x epsilon) privacy cost at the largest horizon.

    With ``baseline=None`` the regret itself instead of the gap to the baseline schedule. With
    ``with_caps`` also the schedule's own mean regret and mean cap per level (regime inputs).
    """
    if d is not None:
        finals = finals[finals["d"] == d]
    Tmax = int(finals["T"].max())
    at = finals[finals["T"] == Tmax]
    sel = at[at["schedule"] == series]
    wide, caps = _wide(sel, "epsilon")
    values = wide.to_numpy()
    own = values.mean(axis=0)
    if baseline is not None:
        base = at[at["schedule"] == baseline].set_index("trial")["value"].sort_index()
        values = values - base.loc[wide.index].to_numpy()[:, None]
    e = wide.columns.to_numpy(dtype=float)
    return (e, values, Tmax, own, caps) if with_caps else (e, values, Tmax)


def d_matrix(finals: pd.DataFrame, series: str, eps, with_caps: bool = False):
    """Dimensions and the (instances x d) final values at the largest horizon and one epsilon
    (with ``with_caps`` also the mean cap per dimension)."""
    Tmax = int(finals["T"].max())
    sel = _at_eps(finals[(finals["schedule"] == series) & (finals["T"] == Tmax)], eps)
    wide, caps = _wide(sel, "d")
    x, Y = wide.columns.to_numpy(dtype=float), wide.to_numpy()
    return (x, Y, Tmax, caps) if with_caps else (x, Y, Tmax)


def separation(ctx, claimed: float, options: dict, horizons) -> float | None:
    """Distance between a T fit's claimed exponent and the nearest exponent the paper contrasts
    with it (``audit.contrasts``: claim ids, whose exponents are evaluated with their log
    factors over the same horizons and schedule options, or plain fractions), None without
    contrasts."""
    others = []
    for c in ctx.audit.get("contrasts") or ():
        c = str(c)
        if c in ctx.registry:
            others.append(claimed_T_exponent(ctx.registry[c], options, horizons))
        else:
            try:
                others.append(float(Fraction(c)))
            except ValueError:
                msg = f"{ctx.claim['id']}: contrast {c!r} is no claim id or fraction"
                raise ValueError(msg) from None
    return min(abs(o - claimed) for o in others) if others else None


def _literal_row(ctx, sched, label, fixed, fit, options, design, kw) -> None:
    """The literal reading of a paraphrase that drops its theorem's log factors
    (``logT_pow_literal``): the same fit against the exponent without them, as a row that
    is not a verdict (``variable`` ends in ``[literal]``)."""
    literal = ctx.claim.get("logT_pow_literal")
    if literal is None:
        return
    as_read = {**ctx.claim, "logT_pow": literal}
    claimed = claimed_T_exponent(as_read, options, kw["x"])
    ctx.add(sched, f"{label} [literal]", fixed, fit, claimed, counts=False, design=design, **kw)


@dataclass
class _FitContext:
    """What the fits of one claim read: the claim, its sweep's final values, the row adder and
    the fitting options of :func:`evaluate_rate_claims`."""

    claim: dict
    finals: pd.DataFrame
    add: _Adder
    metric: str
    n_boot: int
    seed: int
    baseline: str
    schedule_options: dict
    grids: dict
    grid_steps: dict
    registry: dict

    @property
    def audit(self) -> dict:
        return self.claim["audit"]


def _schedule_fits(ctx: _FitContext, sched: str) -> None:
    """A ``slope`` claim on one schedule: its T-, 1/epsilon- and d-fits (those the claim asks
    for and the sweep has levels for)."""
    claim, audit, finals = ctx.claim, ctx.audit, ctx.finals
    mine = finals[finals["schedule"] == sched]
    eps_levels = sorted(mine["epsilon"].dropna().unique())
    dims = sorted(int(d) for d in mine["d"].unique())
    if "T" in audit["fit"] and claim["T_exp"] is not None:
        _t_fits(ctx, sched, eps_levels, dims)
    if "epsilon" in audit["fit"] and claim["eps_exp"] is not None and len(eps_levels) > 1:
        _eps_fits(ctx, sched, dims)
    if "d" in audit["fit"] and claim["d_exp"] is not None and len(dims) > 1:
        _d_fits(ctx, sched, eps_levels)


def _where(eps, d, several_d: bool) -> str:
    parts = [] if eps is None else [f"epsilon={eps:g}"]
    return ", ".join(parts + ([f"d={d}"] if several_d else []))


def _t_fits(ctx: _FitContext, sched: str, eps_levels, dims) -> None:
    """T-exponent fits of one schedule, per d and epsilon (of the regret, or of its gap to the
    claim's baseline schedule: a privacy cost, paired by trial and horizon)."""
    claim, audit, finals, metric = ctx.claim, ctx.audit, ctx.finals, ctx.metric
    opts = ctx.schedule_options.get((audit["sweep"], sched), {})
    gap_to = audit.get("baseline") if audit.get("T_fit") == "gap" else None
    label = "T" if gap_to is None else f"T (gap to {gap_to})"
    if metric != "regret_pseudo":
        label += f" [{metric}]"
    for d in dims:
        for eps in eps_levels or [None]:
            x, Y, caps = level_matrix(finals, sched, eps, d, with_caps=True)
            if len(x) < 2:
                continue
            own = Y.mean(axis=0)
            if gap_to is not None:  # privacy cost: paired by trial and horizon
                xb, Yb = level_matrix(finals, gap_to, None, d)
                if not np.array_equal(xb, x):
                    raise ValueError(f"{claim['id']}: {gap_to} lacks horizons {x}")
                Y = Y - Yb
            b_exp = batch_exponent(finals, sched, eps, d)
            fit = fit_exponent(x, Y, ctx.n_boot, ctx.seed)
            claimed = claimed_T_exponent(claim, opts, x)
            note = None if b_exp is None else f"B grows like T^{b_exp:.3f}"
            kw = dict(Y=Y, x=x, own=own, caps=caps, note=note)
            if audit.get("regime_from"):
                name = audit["regime_from"]
                kw["starts"] = (name, regime_start(finals, sched, eps, d, name, x))
            design = "fixed-instance" if gap_to is None else "one-term"
            fixed = _where(eps, d, len(dims) > 1)
            ctx.add(sched, label, fixed, fit, claimed, design=design,
                    separation=separation(ctx, claimed, opts, x), **kw)  # fmt: skip
            _literal_row(ctx, sched, label, fixed, fit, opts, design, kw)


def _eps_fits(ctx: _FitContext, sched: str, dims) -> None:
    """1/epsilon-exponent fits of one schedule at its largest horizon, per d (of the gap to the
    non-private baseline, or of the regret itself with ``eps_fit: regret``); a claim with a
    literal reading of its constants gets that exponent's row too (not counted)."""
    claim, audit = ctx.claim, ctx.audit
    claimed = -_frac(claim["eps_exp"])  # exponent of 1/epsilon
    literal = claim.get("eps_exp_literal")
    ref = None if audit.get("eps_fit", "gap") == "regret" else ctx.baseline
    for d in dims:
        e, Y, Tmax, own, caps = eps_gap(ctx.finals, sched, ref, d, with_caps=True)
        fit = fit_exponent(1.0 / e, Y, ctx.n_boot, ctx.seed)
        fixed = f"T={Tmax}" + (f", d={d}" if len(dims) > 1 else "")
        kw = dict(Y=Y, x=1.0 / e, own=own, caps=caps, trend=False, design="fixed-instance")
        ctx.add(sched, "1/epsilon", fixed, fit, claimed, **kw)
        if literal is not None and _frac(literal) != _frac(claim["eps_exp"]):
            ctx.add(sched, "1/epsilon [literal]", fixed, fit, -_frac(literal), counts=False, **kw)


def _d_fits(ctx: _FitContext, sched: str, eps_levels) -> None:
    """d-exponent fits of one schedule at its largest horizon, per epsilon."""
    claimed = _frac(ctx.claim["d_exp"])
    for eps in eps_levels or [None]:
        x, Y, Tmax, caps = d_matrix(ctx.finals, sched, eps, with_caps=True)
        fixed = f"T={Tmax}" + ("" if eps is None else f", epsilon={eps:g}")
        fit = fit_exponent(x, Y, ctx.n_boot, ctx.seed)
        kw = dict(Y=Y, x=x, own=Y.mean(axis=0), caps=caps, trend=False, design="fixed-instance")
        ctx.add(sched, "d", fixed, fit, claimed, **kw)


def _trend_fits(ctx: _FitContext) -> None:
    """``slope_trend``: the T-slope difference of each consecutive pair of schedules has the
    claimed sign (decreasing: an upper bound at 0; increasing: a lower bound at 0)."""
    claim, audit, finals, add = ctx.claim, ctx.audit, ctx.finals, ctx.add
    eps_levels = sorted(finals["epsilon"].dropna().unique()) or [None]

    def levels(name, eps):  # a schedule, or its grid's worst case
        if audit.get("worst_case"):
            grid = ctx.grids.get((audit["sweep"], name), ())
            return worst_case_matrix(finals, list(grid), eps)[:3]
        return level_matrix(finals, name, eps, with_caps=True)

    for eps in eps_levels:
        for s0, s1 in zip(audit["schedules"][:-1], audit["schedules"][1:], strict=True):
            x, Y0, caps = levels(s0, eps)
            _, Y1, _ = levels(s1, eps)
            own = np.maximum(Y0.mean(axis=0), Y1.mean(axis=0))
            if audit.get("T_fit") == "gap":  # privacy costs over the baseline schedule
                Yb = level_matrix(finals, audit["baseline"], None)[1]
                Y0, Y1 = Y0 - Yb, Y1 - Yb
            # decreasing: slope(s1) - slope(s0) <= 0 (an upper bound at 0); increasing: >= 0
            add.direction = "upper" if audit["trend"] == "decreasing" else "lower"
            design = "worst-case" if audit.get("worst_case") else "fixed-instance"
            add(
                f"{s1} vs {s0}",
                f"T slope difference [{ctx.metric}]",
                "" if eps is None else f"epsilon={eps:g}",
                _difference_fit(x, Y1, Y0, ctx.n_boot, ctx.seed),
                0.0,
                x=x,
                own=own,
                caps=caps,
                design="one-term" if audit.get("T_fit") == "gap" else design,
            )
    add.direction = claim["direction"]


def _between_fits(ctx: _FitContext) -> None:
    """``slope_between``: lower <= schedule <= upper in T (the T-slopes of the two differences,
    paired bootstrap, must not be negative)."""
    claim, audit, finals, add = ctx.claim, ctx.audit, ctx.finals, ctx.add
    eps_levels = sorted(finals["epsilon"].dropna().unique())
    add.direction = "lower"  # a difference must not be negative: "below" = order reversed
    for sched in audit["schedules"]:
        for eps in eps_levels:
            x, Y, caps = level_matrix(finals, sched, eps, with_caps=True)
            _, Ylo = level_matrix(finals, audit["lower"], eps)
            _, Yhi = level_matrix(finals, audit["upper"], eps)
            for label, A, Bm in (
                (f"{sched} - {audit['lower']}", Y, Ylo),
                (f"{audit['upper']} - {sched}", Yhi, Y),
            ):
                own = np.maximum(A.mean(axis=0), Bm.mean(axis=0))
                fit = _difference_fit(x, A, Bm, ctx.n_boot, ctx.seed)
                add(sched, f"T slope of {label}", f"epsilon={eps:g}", fit, 0.0, x=x, own=own,
                    caps=caps, design="fixed-instance")  # fmt: skip
    add.direction = claim["direction"]


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
    add = _Adder(rows, judged, base, claim["direction"], st.tol, st.seed, st.max_detectable,
                 st.n_boot)  # fmt: skip
    add.bound_scope = audit.get("bound_scope", "worst-case")
    add.whole = audit.get("term_of")
    ctx = _FitContext(claim, finals, add, metric, st.n_boot, st.seed, st.baseline,
                      st.schedule_options, st.grids, st.grid_steps, st.registry)  # fmt: skip
    if check == "slope" and audit.get("worst_case"):
        _worst_case_fits(ctx)
    elif check == "slope":
        for sched in audit["schedules"]:
            _schedule_fits(ctx, sched)
    elif check == "slope_trend":  # fitted exponents move monotonically along the schedules
        _trend_fits(ctx)
    else:  # slope_between: lower <= schedule <= upper in T, paired bootstrap of differences
        _between_fits(ctx)
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


def worst_case_matrix(finals: pd.DataFrame, schedules, eps, d=None):
    """At every horizon, the schedule of ``schedules`` (one algorithm on a grid of instances,
    ordered from the largest gap to the smallest) with the largest mean final value.

    Returns
    -------
    x : ndarray
        Horizons.
    Y : ndarray, shape (n, L)
        Per-instance values of the worst schedule at each horizon.
    caps : ndarray or None
        Their caps.
    chosen : list of int
        Index in ``schedules`` of the worst schedule per horizon.
    """
    mats = [level_matrix(finals, s, eps, d, with_caps=True) for s in schedules]
    x = mats[0][0]
    for s, (xs, Ys, _) in zip(schedules, mats, strict=True):
        if not np.array_equal(xs, x) or Ys.shape != mats[0][1].shape:
            raise ValueError(f"worst case: schedule {s} lacks the horizons or trials of the grid")
    means = np.stack([m[1].mean(axis=0) for m in mats])  # (schedules, L)
    chosen = [int(k) for k in means.argmax(axis=0)]
    Y = np.stack([mats[k][1][:, j] for j, k in enumerate(chosen)], axis=1)
    caps = None
    if all(m[2] is not None for m in mats):
        caps = np.array([mats[k][2][j] for j, k in enumerate(chosen)])
    return x, Y, caps, chosen


def _worst_case_fits(ctx: _FitContext) -> None:
    """T fits of the worst case over each gap grid the claim names (minimax claims): at each
    horizon the grid series with the largest mean regret. The fit is saturated when the worst
    case sits on the grid's edge at some horizon (the grid does not reach the worst instance).

    A privacy-cost claim (``T_fit: gap``) is fitted on the difference of the two worst cases,
    ``max_gap R_private - max_gap R_baseline`` (paired by trial), the cost in the worst-case
    rate. The grid's resolution bounds what the fit can see: the worst gap moves one grid step
    (ratio ``r``) before the fitted exponent moves, so ``detectable_excess`` is at least
    ``tol + ln r / ln(T_max / T_min)``. Such a difference stands for one term of a sum bound: its
    rows are never verdicts (design ``one-term``, :func:`dpbandits.audit.verdicts.gate`).
    """
    claim, finals, add, grids = ctx.claim, ctx.finals, ctx.add, ctx.grids
    n_boot, seed, schedule_options, steps = (
        ctx.n_boot,
        ctx.seed,
        ctx.schedule_options,
        ctx.grid_steps,
    )
    audit = claim["audit"]
    for entry in audit["schedules"]:
        key = (audit["sweep"], entry)
        grid = list(grids.get(key, ()))
        if len(grid) < 2:
            raise ValueError(f"{claim['id']}: worst_case needs a gap grid; {entry!r} has none")
        opts = schedule_options.get((audit["sweep"], grid[0]), {})
        eps_levels = sorted(finals[finals["schedule"].isin(grid)]["epsilon"].dropna().unique())
        base, label = None, "T (worst case)"
        if audit.get("T_fit") == "gap":  # privacy cost: minus the baseline's worst case
            base = list(grids.get((audit["sweep"], audit["baseline"]), ()))
            label = f"T (worst case minus {audit['baseline']}'s)"
        for eps in eps_levels or [None]:
            x, Y, caps, chosen = worst_case_matrix(finals, grid, eps)
            own = Y.mean(axis=0)
            note = ", ".join(f"T={t:g}: {grid[k]}" for t, k in zip(x, chosen, strict=True))
            note = f"worst gap per horizon: {note}"
            if base is not None:
                xb, Yb, _, chosen_b = worst_case_matrix(finals, base, None)
                if not np.array_equal(xb, x):
                    raise ValueError(f"{claim['id']}: {audit['baseline']} lacks horizons {x}")
                Y = Y - Yb
                note += "; baseline's: " + ", ".join(base[k] for k in chosen_b)
            edge = [x[j] for j, k in enumerate(chosen) if k in (0, len(grid) - 1)]
            floor = add.tol + steps.get(key, 0.0) / float(np.log(x.max() / x.min()))
            fit = fit_exponent(x, Y, n_boot, seed)
            claimed = claimed_T_exponent(claim, opts, x)
            kw = dict(Y=Y, x=x, own=own, caps=caps, note=note, edge=edge, floor=floor)
            name, fixed = (
                f"{entry} (worst of {len(grid)} gaps)",
                "" if eps is None else f"epsilon={eps:g}",
            )
            design = "one-term" if base is not None else "worst-case"
            add(name, label, fixed, fit, claimed, design=design,
                separation=separation(ctx, claimed, opts, x), **kw)  # fmt: skip
            _literal_row(ctx, name, label, fixed, fit, opts, design, kw)


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


def robustness(levels, values, claimed, direction, tol, n_boot, seed, verdict_word) -> str:
    """Whether a violation (``exceeds`` / ``below``) holds up without the smallest level.

    The fit is redone on the larger levels only (at least 2 levels must remain; fewer:
    ``untested``). ``robust``: the same violation; ``fragile``: it disappears, so it rests on the
    smallest level (for horizons: a transient before the rate the claim describes). The
    claimed exponent is the full window's (with log factors it is slightly above the larger
    window's local slope, so this errs toward ``fragile``).
    """
    x = np.asarray(levels, dtype=float)
    if verdict_word not in ("exceeds", "below") or x.size < 3:
        return "untested" if verdict_word in ("exceeds", "below") else ""
    Y = np.asarray(values, dtype=float)
    fit = fit_exponent(x[1:], Y[:, 1:], n_boot, seed)
    return "robust" if verdict(fit, claimed, direction, tol) == verdict_word else "fragile"


class _Adder:
    """Appends one fit row (and its judgement, unless ``counts=False``) for one claim: the
    statistical verdict, then the gates of :mod:`dpbandits.audit.verdicts` (regime, design,
    power). ``bound_scope`` is the claim's (``audit.bound_scope``); ``whole`` names the claim
    testing the whole sum bound when this claim is one of its terms (``audit.term_of``): every
    fit of such a claim has the design ``one-term``."""

    def __init__(self, rows, judged, base, direction, tol, seed, max_detectable, n_boot):
        self.rows, self.judged, self.base = rows, judged, base
        self.direction, self.tol, self.seed = direction, tol, seed
        self.max_detectable, self.n_boot = max_detectable, n_boot
        self.bound_scope, self.whole = "worst-case", None

    def __call__(
        self,
        sched,
        variable,
        fixed,
        fit,
        claimed,
        counts=True,
        *,
        x,
        own,
        caps,
        Y=None,
        trend=True,
        note=None,
        edge=None,
        floor=None,
        design="fixed-instance",
        separation=None,
        starts=None,
    ):
        if self.whole is not None:
            design = "one-term"
        row = {
            **self.base,
            "schedule": sched,
            "variable": variable,
            "fixed": fixed,
            **fit.as_dict(),
            "claimed": claimed,
            "tolerance": self.tol,
            **judge(
                fit,
                claimed,
                self.direction,
                self.tol,
                x,
                own,
                caps,
                Y,
                trend,
                self.seed,
                self.max_detectable,
                edge,
                floor,
                design=design,
                bound_scope=self.bound_scope,
                whole=self.whole,
                separation=separation,
                starts=starts,
            ),
        }
        if note:
            row["reason"] += f"; {note}"
        if Y is not None:
            row["robustness"] = robustness(
                x, Y, claimed, self.direction, self.tol, self.n_boot, self.seed, row["verdict"]
            )
            if row["robustness"] in ("robust", "fragile"):
                row["reason"] += (
                    "; robust: the violation holds without the smallest level"
                    if row["robustness"] == "robust"
                    else "; fragile: without the smallest level the violation disappears"
                )
        elif row["verdict"] in ("exceeds", "below"):
            row["robustness"] = "untested"
        if counts:
            self.judged.append(row)
            if Y is not None:  # slope fits: planted violation and claim-meeting redraws
                key = (self.base["claim_id"], sched, variable, fixed)
                row["controls"] = [
                    {**self.base, "schedule": sched, "variable": variable, "fixed": fixed, **c}
                    for c in run_controls(
                        x,
                        Y,
                        claimed,
                        self.direction,
                        self.tol,
                        row["detectable_excess"],
                        self.n_boot,
                        control_seed(self.seed, *key),
                    )
                ]
        self.rows.append(row)


def judge(
    fit: Fit,
    claimed: float,
    direction: str,
    tol: float,
    levels,
    own,
    caps,
    values=None,
    trend: bool = True,
    seed: int = 0,
    max_detectable: float = vocab.MAX_DETECTABLE,
    edge=None,
    floor: float | None = None,
    *,
    design: str = "fixed-instance",
    bound_scope: str = "worst-case",
    whole: str | None = None,
    separation: float | None = None,
    starts=None,
) -> dict:
    """Verdict, regime, cap share, detectable excess and reason of one fit.

    Parameters
    ----------
    fit : Fit
        The fitted exponent (or difference of exponents).
    claimed, direction, tol
        The claim and the tolerance (:func:`verdict`).
    levels : array_like
        The fitted levels, increasing.
    own : array_like
        Mean regret of the algorithm(s) at each level (a privacy-cost fit passes the private
        schedule's own regret, not the cost).
    caps : array_like or None
        Mean saturation cap per level (None: unknown).
    values : ndarray, optional
        The (instances x levels) fitted values: the detectable excess then comes from the
        parametric bootstrap of :func:`dpbandits.audit.verdicts.detectable_excess`; without
        them (differences of slopes) from the normal approximation of the bootstrap interval.
    trend : bool
        Levels are horizons (the pre-asymptotic check applies).
    seed : int
        Seed of the power draws.
    max_detectable : float
        Power required of a ``consistent`` verdict.
    edge : list, optional
        Worst-case fits only: the levels where the worst instance sits on the edge of the
        instance grid. The regime is then saturated when there is any (the grid does not reach
        the worst case), learning otherwise: each cell's cap grows like ``T``, so near-cap
        regret at the worst instance is what a minimax rate measures, not saturation.
    floor : float, optional
        Lower bound on the detectable excess from the design (a worst-case grid's resolution).
    design, bound_scope, whole, separation
        What the fit measures, what the claim's bound is, the claim testing the whole bound (for
        one term of a sum) and the separation from the nearest contrasted exponent: the
        principle's gates (:func:`dpbandits.audit.verdicts.gate`).
    starts : (str, ndarray), optional
        A claim with ``audit.regime_from``: the policy constant's name and, per level, the
        first horizon of the claimed rate's regime; a fit with a level below it is
        pre-asymptotic.
    """
    stat = verdict(fit, claimed, direction, tol)
    if edge is None:
        reg, why_regime = vocab.regime(own, caps, trend=trend)
    elif edge:
        reg = "saturated"
        why_regime = (
            "the worst instance is on the edge of the instance grid at T = "
            + ", ".join(f"{t:g}" for t in edge)
            + ": the grid does not reach the worst case there"
        )
    else:
        reg, why_regime = "learning", "the worst instance lies inside the grid at every horizon"
    lv = np.asarray(levels, dtype=float)
    if starts is not None and reg != "saturated" and np.any(lv < starts[1]):
        early = lv[lv < starts[1]]
        reg = "pre-asymptotic"
        why_regime = (
            f"the claimed rate applies from T = {np.nanmax(starts[1]):.3g} on ({starts[0]}, "
            f"computed by the policy); the fit uses horizons below it ({early.min():g}"
            + (f" to {early.max():g})" if early.size > 1 else ")")
        )
    half = fit.slope - fit.ci_low if direction == "upper" else fit.ci_high - fit.slope
    if values is not None:
        det = vocab.detectable_excess(levels, vocab.log_mean_sd(values), half, tol, seed)
    elif np.isfinite(fit.ci_low) and np.isfinite(fit.ci_high):
        se = (fit.ci_high - fit.ci_low) / (2 * 1.959964)
        det = float(tol + half + 0.841621 * se)  # z_{0.8}: 80 % power under a normal slope
    else:
        det = math.inf
    if floor is not None:  # a design limit the statistics do not see (a worst-case grid's step)
        det = max(det, float(floor))
    final, why_gate = vocab.gate(
        stat,
        reg,
        det,
        max_detectable,
        design=design,
        bound_scope=bound_scope,
        whole=whole,
        separation=separation,
        tol=tol,
        n_trials=fit.n_trials,
        levels=levels,
    )
    share = (
        float(np.max(np.asarray(own, float) / np.asarray(caps, float)))
        if caps is not None
        else math.nan
    )
    reason = vocab.plain_reason(stat, fit.slope, fit.ci_low, fit.ci_high, claimed, tol)
    reason += f"; {why_regime}" + (f"; so {final}: {why_gate}" if why_gate else "")
    return {
        "verdict": final,
        "regime": reg,
        "cap_share": share,
        "detectable_excess": det,
        "reason": reason,
    }


def _difference_fit(x, A, B, n_boot, seed) -> Fit:
    """Difference of two paired slopes, with the same bootstrap resamples for both."""
    fa, fb = fit_exponent(x, A, n_boot, seed), fit_exponent(x, B, n_boot, seed)
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    idx = rng.integers(0, n, size=(n_boot, n))
    diff = _slopes(x, A[idx].mean(axis=1)) - _slopes(x, B[idx].mean(axis=1))
    if np.isnan(diff).mean() > 0.025:
        lo = hi = float("nan")
    else:
        lo, hi = (float(v) for v in np.nanquantile(diff, [0.025, 0.975]))
    return Fit(fa.slope - fb.slope, lo, hi, float("nan"), len(x), n)
