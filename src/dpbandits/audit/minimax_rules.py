"""Verdict rules of the open-problem audit (spec open-problem-002 §7.4-§7.5; statistics of
spec private-lasso-001 §4.5).

Paper 002 states minimax bounds, so a single instance family can only be consistent or
inconsistent with an upper bound's growth; lower bounds are checked on the spec's hard families
(non-private terms only). Every rule works on regret matrices ``R[j, i]`` (horizon ``T_j``, trial
``i``) and returns a :class:`RuleResult`:

* statistics: means over trials; 95 % percentile bootstrap (``B = 2000``, generator seeded with
  0) resampling trials independently per horizon (separate runs, OP-E1/E2) or the same trials
  at every horizon (``paired``: checkpoints of one run, OP-E3); a T-slope is the OLS slope of
  ``ln mean R`` on ``ln T``, refitted on every replicate;
* ``b_claim`` of a term is its secant exponent over the fit window (:func:`secant_exponent`).

Rules (tolerances ``tau_T = 0.10``, ``tau_rho = tau_K = tau_d = 0.15``): R-UP-T, R-EXC-T, R-RHO,
R-SCALE (K or d), R-LB-CONS, R-GAP-T, R-GAP-EPS; :func:`aggregate` combines per-value verdicts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .rates import _slopes, bootstrap_means, fit_exponent

TAU_T = 0.10
TAU_RHO = 0.15
TAU_SCALE = 0.15
#: Bootstrap replicates and seed (spec private-lasso-001 §4.5).
N_BOOT = 2000
BOOT_SEED = 0
#: A configuration whose mean regret reaches this share of random play's is pre-asymptotic.
SATURATION = 0.8
#: Verdict of a privacy value R-EXC-T cannot use (excess not significantly positive, or saturated).
UNUSABLE = "UNUSABLE"


@dataclass(frozen=True)
class RuleResult:
    """One rule on one configuration: the statistic, its 95 % interval and the verdict."""

    rule: str
    verdict: str
    statistic: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    claimed: float = math.nan
    note: str = ""


def secant_exponent(f: Callable[[float], float], T_lo: float, T_hi: float) -> float:
    """``(ln f(T_hi) - ln f(T_lo)) / (ln T_hi - ln T_lo)``: a term's effective T-exponent over a
    window, log factors included."""
    return (math.log(f(T_hi)) - math.log(f(T_lo))) / (math.log(T_hi) - math.log(T_lo))


def loglog_slope(
    x: Sequence[float], R: np.ndarray, paired: bool = False
) -> tuple[float, float, float]:
    """Slope of ``ln mean R`` on ``ln x`` with its 95 % percentile-bootstrap interval
    (:func:`dpbandits.audit.rates.fit_exponent`; ``R`` has one row per ``x``, one column per
    trial)."""
    fit = fit_exponent(x, np.asarray(R, dtype=float).T, N_BOOT, BOOT_SEED, paired=paired)
    return fit.slope, fit.ci_low, fit.ci_high


def _saturated(R: np.ndarray, regret_unif: np.ndarray) -> bool:
    """Mean regret at the largest T at least 0.8 of random play's (spec §7.4)."""
    return bool(np.mean(R[-1]) >= SATURATION * np.mean(regret_unif[-1]))


def _upper(rule: str, s: float, lo: float, hi: float, claimed: float, tau: float) -> RuleResult:
    if hi <= claimed + tau:
        verdict = "SUPPORTED"
    elif lo > claimed + tau:
        verdict = "CONTRADICTED"
    else:
        verdict = "INCONCLUSIVE"
    return RuleResult(rule, verdict, s, lo, hi, claimed)


def rule_up_t(
    T: Sequence[float],
    R: np.ndarray,
    regret_unif: np.ndarray | None,
    b_claim: float,
    paired: bool = False,
    tau: float = TAU_T,
) -> RuleResult:
    """R-UP-T: the regret's T-slope against the leading term's secant exponent (upper bound).
    PRE-ASYMPTOTIC when the mean regret at the largest T is at least 0.8 of random play's.

    ``regret_unif = None`` skips that gate: on the T-dependent hard families (I2, J2) random
    play's regret itself grows like ``sqrt(T)`` (the gap shrinks like ``T^{-1/2}``), so every
    algorithm's regret is a T-independent fraction of it (0.9-1.2 measured) and the gate would
    flag every run whatever its slope; the slope is the statistic there (project decision,
    spec §7.5 R-UP-T)."""
    if regret_unif is not None and _saturated(np.asarray(R, dtype=float), regret_unif):
        return RuleResult("R-UP-T", "PRE-ASYMPTOTIC", claimed=b_claim, note="saturated at T_max")
    return _upper("R-UP-T", *loglog_slope(T, R, paired), b_claim, tau)


def rule_exc_t(
    T: Sequence[float],
    R_priv: np.ndarray,
    R_ref: np.ndarray,
    regret_unif: np.ndarray,
    b_claim: float,
    paired: bool = False,
    tau: float = TAU_T,
) -> RuleResult:
    """R-EXC-T: the T-slope of the private excess ``E = R_priv - R_ref`` against the privacy
    term's secant exponent. Usable only if the excess at the largest T is significantly positive
    (bootstrap interval above 0) and the private run is not saturated; else UNUSABLE (left out
    of :func:`aggregate`, spec §7.5)."""
    R_priv, R_ref = np.asarray(R_priv, float), np.asarray(R_ref, float)
    if _saturated(R_priv, regret_unif):
        return RuleResult("R-EXC-T", UNUSABLE, claimed=b_claim, note="saturated")
    rng = np.random.default_rng(BOOT_SEED)
    if paired:  # per-trial differences (common random numbers)
        reps = bootstrap_means((R_priv - R_ref).T, N_BOOT, rng)
    else:  # independent runs: resample each side
        reps = bootstrap_means(R_priv.T, N_BOOT, rng, False) - bootstrap_means(
            R_ref.T, N_BOOT, rng, False
        )
    if np.percentile(reps[:, -1], 2.5) <= 0:
        return RuleResult("R-EXC-T", UNUSABLE, claimed=b_claim, note="excess not above 0")
    x = np.asarray(T, dtype=float)
    slope = float(_slopes(x, R_priv.mean(axis=1) - R_ref.mean(axis=1)))
    if not np.isfinite(slope):
        return RuleResult("R-EXC-T", UNUSABLE, claimed=b_claim, note="excess <= 0 at some T")
    lo, hi = np.nanquantile(_slopes(x, reps), [0.025, 0.975])
    return _upper("R-EXC-T", slope, float(lo), float(hi), b_claim, tau)


def rule_rho(
    rhos: Sequence[float],
    E: np.ndarray,
    R_inf_mean: float,
    saturated: Sequence[bool],
    tau: float = TAU_RHO,
) -> RuleResult:
    """R-RHO: the excess at T_max scales no faster than ``rho^{-1/2}`` as rho decreases.

    ``E[k, i]`` is the excess of trial ``i`` at ``rhos[k]``. The privacy-dominated set keeps the
    rho whose mean excess is at least the non-private regret ``R_inf_mean`` and that are not
    saturated; it needs two members. SUPPORTED if the slope's lower end is at least ``-0.5 -
    tau``, CONTRADICTED if its upper end is below."""
    E = np.asarray(E, dtype=float)
    keep = (E.mean(axis=1) >= R_inf_mean) & ~np.asarray(saturated, bool)
    if keep.sum() < 2:
        return RuleResult("R-RHO", "INCONCLUSIVE", claimed=-0.5, note="fewer than 2 rho values")
    s, lo, hi = loglog_slope(np.asarray(rhos, float)[keep], E[keep])
    if lo >= -0.5 - tau:
        verdict = "SUPPORTED"
    elif hi < -0.5 - tau:
        verdict = "CONTRADICTED"
    else:
        verdict = "INCONCLUSIVE"
    return RuleResult("R-RHO", verdict, s, lo, hi, -0.5)


def rule_scale(
    name: str, sizes: Sequence[float], E: np.ndarray, tau: float = TAU_SCALE
) -> RuleResult:
    """R-SCALE-K / R-SCALE-D: slope of the excess in K (or d), claimed 1 (upper bound)."""
    return _upper(name, *loglog_slope(sizes, E), 1.0, tau)


def rule_lb_cons(
    T: Sequence[float], R: np.ndarray, lower: Callable[[float], float], tau: float = TAU_T
) -> RuleResult:
    """R-LB-CONS: the ratio ``mean R(T) / LB(T)`` on a hard family must not decay: CONSISTENT if
    the upper end of its T-slope is at least ``-tau``, INCONSISTENT otherwise."""
    T = np.asarray(T, dtype=float)
    ratio = np.asarray(R, float) / np.array([lower(t) for t in T])[:, None]
    s, lo, hi = loglog_slope(T, ratio)
    verdict = "CONSISTENT" if hi >= -tau else "INCONSISTENT"
    return RuleResult("R-LB-CONS", verdict, s, lo, hi, 0.0)


def rule_gap_t(T: Sequence[float], E: np.ndarray, paired: bool = True) -> RuleResult:
    """R-GAP-T (descriptive): UB-LIKE if the excess's T-slope is surely above 0.30 (grows like a
    power of T), LB-LIKE if surely below 0.20 (essentially T-free), INTERMEDIATE otherwise."""
    s, lo, hi = loglog_slope(T, E, paired)
    verdict = "UB-LIKE" if lo > 0.30 else "LB-LIKE" if hi < 0.20 else "INTERMEDIATE"
    return RuleResult("R-GAP-T", verdict, s, lo, hi)


def rule_gap_eps(eps: Sequence[float], E: np.ndarray) -> RuleResult:
    """R-GAP-EPS (descriptive): the excess's eps-slope at T_max against -1/2 (the upper bound's
    ``eps^{-1/2}``) and -1 (the lower bound's ``1/eps``); needs three usable eps."""
    if len(eps) < 3:
        return RuleResult("R-GAP-EPS", "INCONCLUSIVE", note="fewer than 3 eps values")
    s, lo, hi = loglog_slope(eps, E)
    ub, lb = lo <= -0.5 <= hi, lo <= -1.0 <= hi
    verdict = {(True, False): "UB-LIKE", (False, True): "LB-LIKE", (True, True): "BOTH"}.get(
        (ub, lb), "NEITHER"
    )
    return RuleResult("R-GAP-EPS", verdict, s, lo, hi)


def aggregate(verdicts: Sequence[str]) -> str:
    """Per-claim verdict from per-value ones: any CONTRADICTED wins; SUPPORTED when every
    non-saturated, usable value is SUPPORTED (at least one); INCONCLUSIVE otherwise."""
    used = [v for v in verdicts if v not in ("PRE-ASYMPTOTIC", UNUSABLE)]
    if "CONTRADICTED" in used:
        return "CONTRADICTED"
    if used and all(v == "SUPPORTED" for v in used):
        return "SUPPORTED"
    return "INCONCLUSIVE"


__all__ = [
    "RuleResult",
    "aggregate",
    "loglog_slope",
    "rule_exc_t",
    "rule_gap_eps",
    "rule_gap_t",
    "rule_lb_cons",
    "rule_rho",
    "rule_scale",
    "rule_up_t",
    "secant_exponent",
]
