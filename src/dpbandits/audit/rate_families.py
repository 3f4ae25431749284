"""The fits of each rate claim family (module :mod:`.rates`): the T-exponent in the learning
regime per schedule and level, the epsilon and d exponents, trends against a baseline, orderings
between two series, and the worst case over an instance grid; each fit goes to the judge
(:mod:`.rate_judge`) with its claimed value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .fits import (
    Fit,
    _slopes,
    fit_exponent,
)
from .levels import (
    _at_eps,
    _frac,
    _wide,
    claimed_T_exponent,
    level_matrix,
)
from .rate_judge import Adder, separation


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
class FitContext:
    """What the fits of one claim read: the claim, its sweep's final values, the row adder and
    the fitting options of :func:`evaluate_rate_claims`."""

    claim: dict
    finals: pd.DataFrame
    add: Adder
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


def schedule_fits(ctx: FitContext, sched: str) -> None:
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


def _t_fits(ctx: FitContext, sched: str, eps_levels, dims) -> None:
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


def _eps_fits(ctx: FitContext, sched: str, dims) -> None:
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


def _d_fits(ctx: FitContext, sched: str, eps_levels) -> None:
    """d-exponent fits of one schedule at its largest horizon, per epsilon."""
    claimed = _frac(ctx.claim["d_exp"])
    for eps in eps_levels or [None]:
        x, Y, Tmax, caps = d_matrix(ctx.finals, sched, eps, with_caps=True)
        fixed = f"T={Tmax}" + ("" if eps is None else f", epsilon={eps:g}")
        fit = fit_exponent(x, Y, ctx.n_boot, ctx.seed)
        kw = dict(Y=Y, x=x, own=Y.mean(axis=0), caps=caps, trend=False, design="fixed-instance")
        ctx.add(sched, "d", fixed, fit, claimed, **kw)


def trend_fits(ctx: FitContext) -> None:
    """``slope_trend``: the T-slope difference of each consecutive pair of schedules has the
    claimed sign (decreasing: an upper bound at 0; increasing: a lower bound at 0). The regime
    reads each series' mean regret against its own cap (worst cases over two grids sit on
    different instances), the larger share at each level."""
    claim, audit, finals, add = ctx.claim, ctx.audit, ctx.finals, ctx.add
    eps_levels = sorted(finals["epsilon"].dropna().unique()) or [None]

    def levels(name, eps):  # a schedule, or its grid's worst case
        if audit.get("worst_case"):
            grid = ctx.grids.get((audit["sweep"], name), ())
            return worst_case_matrix(finals, list(grid), eps)[:3]
        return level_matrix(finals, name, eps, with_caps=True)

    for eps in eps_levels:
        for s0, s1 in zip(audit["schedules"][:-1], audit["schedules"][1:], strict=True):
            x, Y0, caps0 = levels(s0, eps)
            _, Y1, caps1 = levels(s1, eps)
            own, caps = np.maximum(Y0.mean(axis=0), Y1.mean(axis=0)), None
            if caps0 is not None and caps1 is not None:  # each series against its own cap
                own = np.maximum(Y0.mean(axis=0) / caps0, Y1.mean(axis=0) / caps1)
                caps = np.ones_like(own)
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


def between_fits(ctx: FitContext) -> None:
    """``slope_between``: lower <= schedule <= upper in T (the T-slopes of the two differences,
    paired bootstrap, must not be negative). A difference's slope is 0 where two rates agree, so
    the separation it must tell apart is that of the rates the paper contrasts, given as
    fractions in ``audit.contrasts`` (the power gate of
    :func:`dpbandits.audit.verdicts.power_target`)."""
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
                    caps=caps, design="fixed-instance",
                    separation=separation(ctx, 0.0, {}, x))  # fmt: skip
    add.direction = claim["direction"]


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


def worst_case_fits(ctx: FitContext) -> None:
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
            fit = fit_exponent(x, Y, n_boot, seed)
            claimed = claimed_T_exponent(claim, opts, x)
            kw = dict(
                Y=Y, x=x, own=own, caps=caps, note=note, edge=edge, grid_step=steps.get(key, 0.0)
            )
            name, fixed = (
                f"{entry} (worst of {len(grid)} gaps)",
                "" if eps is None else f"epsilon={eps:g}",
            )
            design = "one-term" if base is not None else "worst-case"
            add(name, label, fixed, fit, claimed, design=design,
                separation=separation(ctx, claimed, opts, x), **kw)  # fmt: skip
            _literal_row(ctx, name, label, fixed, fit, opts, design, kw)


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
