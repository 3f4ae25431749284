"""The judgement of one fitted exponent against its claim (module :mod:`.rates`): the detectable
excess of the design, the verdict in the audit's vocabulary, its robustness to the regime's
start, and the planted controls that must be caught before a claim may read as consistent.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from . import verdicts as vocab
from .controls import control_seed, run_controls
from .fits import (
    Fit,
    fit_exponent,
    verdict,
)
from .levels import (
    claimed_T_exponent,
)


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


def robustness(levels, values, claimed, direction, tol, n_boot, seed, verdict_word) -> str:
    """Whether a violation (``exceeds`` / ``below``) holds up without the smallest level.

    The fit is redone on the larger levels only (at least 2 levels must remain; fewer:
    ``untested``). ``robust``: the same violation; ``fragile``: it disappears, so it rests on the
    smallest level (for horizons: a transient before the rate the claim describes, or too little
    power without that level). The claimed exponent is the full window's (with log factors it
    is slightly above the larger window's local slope, so this errs toward ``fragile``).
    """
    x = np.asarray(levels, dtype=float)
    if verdict_word not in ("exceeds", "below") or x.size < 3:
        return "untested" if verdict_word in ("exceeds", "below") else ""
    Y = np.asarray(values, dtype=float)
    fit = fit_exponent(x[1:], Y[:, 1:], n_boot, seed)
    return "robust" if verdict(fit, claimed, direction, tol) == verdict_word else "fragile"


class Adder:
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
        grid_step=None,
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
                grid_step,
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
            if row["robustness"] == "robust":
                row["reason"] += "; robust: the violation holds without the smallest level"
            row["verdict"], row["robustness"], transient = vocab.settle_fragile(
                row["verdict"], row["robustness"]
            )
            if transient:
                row["reason"] = f"{transient}; {row['reason']}"
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
    grid_step: float | None = None,
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
    grid_step : float, optional
        Worst-case fits only: ``ln`` of the largest ratio between neighbouring gaps of the grid.
        The worst gap moves one step before the fitted exponent moves, so the detectable excess
        is at least ``tol + grid_step / ln(levels' span)``, a limit of the design that more runs
        do not lower (the reason then names a finer grid).
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
    limit = None  # the grid's step, where it sets the power (gate's clause names a finer grid)
    if grid_step is not None:  # a design limit the statistics do not see
        floor = tol + float(grid_step) / float(np.log(lv.max() / lv.min()))
        if floor > det and grid_step > 0:
            limit = float(grid_step)
        det = max(det, floor)
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
        grid_step=limit,
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
