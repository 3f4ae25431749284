"""Verdict rules of the open-problem audit (op24; docs/papers/op24.md#verdicts), with the
statistics the PrivateLASSO audit of plasso shares (docs/audit/rates.md).

op24 states minimax bounds, so a single instance family can only be consistent or
inconsistent with an upper bound's growth; lower bounds are checked on the standard hard families
I2 / J2 (non-private terms only). Every rule works on regret matrices ``R[j, i]`` (horizon
``T_j``, trial ``i``) and returns a :class:`RuleResult`:

* statistics: means over trials; 95 % percentile bootstrap (``B = 2000``, generator seeded with
  0) resampling trials independently per horizon (separate runs, OP-E1/E2) or the same trials
  at every horizon (``paired``: checkpoints of one run, OP-E3); a T-slope is the OLS slope of
  ``ln mean R`` on ``ln T``, refitted on every replicate;
* ``b_claim`` of a term is its secant exponent over the fit window (:func:`secant_exponent`).

Rules (tolerances ``tau_T = 0.10``, ``tau_rho = tau_K = tau_d = 0.15``): R-UP-T, R-EXC-T, R-RHO,
R-SCALE (K or d), R-LB-CONS, R-GAP-T, R-GAP-EPS; :func:`aggregate` combines per-value verdicts in
the rules' own words, :func:`combine` in the shared vocabulary.

Shared vocabulary (issue 19, :mod:`dpbandits.audit.verdicts`). Every rate rule (R-UP-T, R-EXC-T,
R-RHO, R-SCALE, R-LB-CONS) keeps its own word in :attr:`RuleResult.verdict` and also returns the
shared verdict (:attr:`RuleResult.shared`: consistent / exceeds / below / inconclusive /
untestable, :func:`shared_verdict`), the fit's regime, its ``detectable_excess`` and a one-sentence
reason. Saturation is decided by :func:`dpbandits.audit.verdicts.regime` for every paper: a level
is saturated when its mean regret reaches ``SATURATION_SHARE`` (0.5) of its cap, random play's
regret at that level (``regret_unif``, recorded per trial by the engine); a T-fit with a saturated
level is ``untestable`` (its own word PRE-ASYMPTOTIC, or UNUSABLE for R-EXC-T), on every family.
This replaces the former constant ``SATURATION = 0.8`` checked at the largest horizon only, and the
exemption of the T-dependent hard families I2 and J2: those are the minimax constructions behind
the lower bounds of Table 1 (Azize and Basu 2024, Table 1, rows 1 and 2: gap ``sqrt(K/T)`` on I2,
``theta* ~ sqrt(d/T)`` on the hypercube J2), on which every algorithm's regret is capped by
``T * Delta_T`` (``sqrt(KT)`` on I2, ``d sqrt(T)`` on J2) and sits at 0.9-1.2 of random play's;
the slope there is the cap's, so those fits are ``untestable``. A ``consistent`` verdict further
needs the learning regime and ``detectable_excess <= MAX_DETECTABLE`` (0.1)
(:func:`dpbandits.audit.verdicts.gate`); for fits over rho, K or d (one horizon) only the
saturation part of the regime applies (:func:`fit_regime`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import verdicts as vocab
from .fits import _slopes, bootstrap_means, fit_exponent

#: Tolerances of the rules' exponent checks (T, rho, K or d): the rate audit's 0.05
#: (``audit.tolerance`` of config/config.yaml). A tolerance at or above the power a
#: ``consistent`` verdict needs (:data:`MAX_DETECTABLE`, 0.1) could never give one: the
#: detectable excess of a design is at least its tolerance.
TAU_T = 0.05
TAU_RHO = 0.05
TAU_SCALE = 0.05
#: Bootstrap replicates and seed (shared with the PrivateLASSO audit; docs/audit/rates.md).
N_BOOT = 2000
BOOT_SEED = 0
#: Largest ``detectable_excess`` a ``consistent`` verdict may have (80 % power): the shared
#: vocabulary's value.
MAX_DETECTABLE = vocab.MAX_DETECTABLE
#: Verdict of a privacy value R-EXC-T cannot use (excess not significantly positive, or saturated).
UNUSABLE = "UNUSABLE"
#: Own word of a T-fit with a saturated level (R-UP-T, R-LB-CONS, PrivateLASSO's R-SHAPE).
PRE_ASYMPTOTIC = "PRE-ASYMPTOTIC"
#: Rules' own words -> the shared vocabulary, for upper- and lower-bound rules.
SHARED_WORDS = {
    "upper": {
        "SUPPORTED": "consistent",
        "CONTRADICTED": "exceeds",
        "INCONCLUSIVE": "inconclusive",
        PRE_ASYMPTOTIC: "untestable",
        UNUSABLE: "untestable",
    },
    "lower": {
        "SUPPORTED": "consistent",
        "CONSISTENT": "consistent",
        "CONTRADICTED": "below",
        "INCONSISTENT": "below",
        "INCONCLUSIVE": "inconclusive",
        PRE_ASYMPTOTIC: "untestable",
        UNUSABLE: "untestable",
    },
}


@dataclass(frozen=True)
class RuleResult:
    """One rule on one configuration: the statistic, its 95 % interval and the verdict.

    ``verdict`` is the rule's own word (SUPPORTED, CONTRADICTED, ...); rate rules also fill the
    shared columns: ``shared`` (the verdict in :data:`dpbandits.audit.verdicts.VERDICTS`),
    ``regime``, ``detectable_excess`` (NaN when no slope was fitted) and ``reason``. Rules that
    are not rate fits (descriptive, not run) leave ``shared`` empty.
    """

    rule: str
    verdict: str
    statistic: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    claimed: float = math.nan
    note: str = ""
    shared: str = ""
    regime: str = ""
    detectable_excess: float = math.nan
    reason: str = ""


def shared_verdict(word: str, direction: str = "upper") -> str:
    """The shared verdict of a rule's own word (``direction``: the claim is an upper or a lower
    bound): SUPPORTED / CONSISTENT -> consistent; CONTRADICTED / INCONSISTENT -> exceeds (upper)
    or below (lower); INCONCLUSIVE -> inconclusive; PRE-ASYMPTOTIC, UNUSABLE -> untestable."""
    try:
        return SHARED_WORDS[direction][word]
    except KeyError:
        raise ValueError(f"no shared verdict for {word!r} ({direction} bound)") from None


def fit_regime(means, caps, over: str = "T") -> tuple[str, str]:
    """Regime of a fit (:func:`dpbandits.audit.verdicts.regime`) from its levels' mean regrets and
    caps, levels in increasing order. ``over`` names the fitted variable: for a fit over rho, K,
    d or eps (one horizon) only saturation applies; the learning check over T does not."""
    name, why = vocab.regime(
        np.asarray(means, float), None if caps is None else np.asarray(caps, float)
    )
    if over != "T" and name == "pre-asymptotic":
        share = np.asarray(means, float) / np.asarray(caps, float)
        return "learning", (
            f"no level saturated (largest share of the cap {share.max():.2f}); a fit over "
            f"{over} at one horizon has no learning check"
        )
    return name, why


def level_saturated(mean: float, cap: float) -> bool:
    """Whether one level is saturated under the shared rule (mean regret >= the share of its
    cap)."""
    return vocab.regime([float(mean)], [float(cap)])[0] == "saturated"


def judge(
    res: RuleResult,
    direction: str,
    tol: float,
    levels=None,
    log_sd=None,
    regime: tuple[str, str] = ("learning", "no regret cap known; saturation not checked"),
    tol_flag: float | None = None,
    side: str | None = None,
    max_detectable: float = MAX_DETECTABLE,
    design: str = "worst-case",
    bound_scope: str = "worst-case",
    separation: float | None = None,
) -> RuleResult:
    """Fill the shared columns of a rate rule's result.

    ``levels`` and ``log_sd`` (per-level sd of the log-mean, :func:`dpbandits.audit.verdicts.
    log_mean_sd`) give the power of the fit (None: no slope, ``detectable_excess`` NaN); the
    half-width is the observed interval's on the violating side (``slope - ci_low`` for upper
    bounds, ``ci_high - slope`` for lower ones; ``side`` overrides it: R-RHO bounds the growth
    in ``1/rho``, a violation is a slope in rho *below* the claim). ``tol_flag`` is the excess
    over the claimed exponent at which the rule flags a violation when it is not ``tol``
    (R-DIM). A saturated fit
    gets the own word PRE-ASYMPTOTIC (UNUSABLE stays); the shared verdict goes through
    :func:`dpbandits.audit.verdicts.gate` with :data:`MAX_DETECTABLE`, the fit's ``design`` and
    the claim's ``bound_scope`` (a violation on fixed instances of a worst-case bound, or on one
    term of a sum, is no verdict) and the ``separation`` from a contrasted exponent."""
    reg, reg_why = regime
    fitted = levels is not None and math.isfinite(res.statistic)
    word = res.verdict
    if reg == "saturated" and fitted and word != UNUSABLE:
        word = PRE_ASYMPTOTIC
    if fitted:
        low = (side or direction) == "upper"  # the violation is flagged by the interval's low end
        hw = (res.statistic - res.ci_low) if low else (res.ci_high - res.statistic)
        flag = tol if tol_flag is None else tol_flag
        det = vocab.detectable_excess(levels, log_sd, float(hw), flag)
    else:
        det = math.nan
    final, gate_why = vocab.gate(
        shared_verdict(word, direction),
        reg,
        det if fitted else math.inf,
        max_detectable,
        design=design,
        bound_scope=bound_scope,
        separation=separation,
        tol=flag if fitted else tol,
        levels=levels,
    )
    if fitted:
        span = (
            f"fitted {res.statistic:.3f} [{res.ci_low:.3f}, {res.ci_high:.3f}] against claimed "
            f"{res.claimed:.3f} ({direction} bound, tolerance {tol:g}): "
            f"{_OWN_WORDS.get(res.verdict, res.verdict)}"
        )
    else:
        span = f"no slope fitted ({res.note or res.verdict})"
    if reg == "saturated":
        reason = f"saturated, {reg_why}; {span}"
    elif gate_why:
        reason = f"{gate_why}; {span}" + ("" if reg == "learning" else f"; {reg_why}")
    else:
        reason = span if reg == "learning" else f"{span}; {reg_why}"
    return RuleResult(
        res.rule, word, res.statistic, res.ci_low, res.ci_high, res.claimed, res.note,
        final, reg, det, reason,
    )  # fmt: skip


_OWN_WORDS = {
    "SUPPORTED": "interval within the claim",
    "CONSISTENT": "the interval does not surely fall below the claim",
    "CONTRADICTED": "interval beyond the claim",
    "INCONSISTENT": "interval below the claim",
    "INCONCLUSIVE": "interval straddles the claim's edge",
}


def refit_robustness(res: RuleResult, fit: Callable[..., RuleResult], levels, *arrays) -> str:
    """Whether a rate rule's violation holds up without its smallest level (issue 19).

    ``fit(levels, *arrays)`` is the rule (its claimed exponent computed over the levels it is
    given); it is redone on ``levels[1:]`` and every array's rows ``[1:]`` (rows are levels),
    provided at least three levels remain. ``robust``: the same shared violation (``exceeds`` /
    ``below``); ``fragile``: it disappears, so it rests on the smallest level; ``untested``:
    too few levels for a refit; ``''`` when ``res`` is no violation.
    """
    if res.shared not in ("exceeds", "below"):
        return ""
    if len(levels) < 4:
        return "untested"
    again = fit(levels[1:], *(a[1:] for a in arrays))
    return "robust" if again.shared == res.shared else "fragile"


def claim_robustness(rows, verdict: str) -> str:
    """A claim's robustness from its rows (``verdict`` and ``robustness`` columns): for a claim
    whose verdict is a violation, ``fragile`` if one row with that violation is, ``robust`` if
    every one is, else ``untested``; ``''`` for a claim without a violation."""
    if verdict not in ("exceeds", "below"):
        return ""
    marks = [m for v, m in zip(rows["verdict"], rows["robustness"], strict=True) if v == verdict]
    if "fragile" in marks:
        return "fragile"
    return "robust" if marks and all(m == "robust" for m in marks) else "untested"


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


def _caps(R: np.ndarray, regret_unif) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-level mean regret and mean cap (random play's regret; None: no cap)."""
    means = np.asarray(R, dtype=float).mean(axis=1)
    if regret_unif is None:
        return means, None
    return means, np.asarray(regret_unif, dtype=float).mean(axis=1)


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
    max_detectable: float = MAX_DETECTABLE,
) -> RuleResult:
    """R-UP-T: the regret's T-slope against the leading term's secant exponent (upper bound).

    The slope is always fitted; the fit is saturated (own word PRE-ASYMPTOTIC, shared
    ``untestable``) when the mean regret at any fitted horizon reaches the shared share of
    random play's (``regret_unif``, same shape as ``R``), on every family: on the T-dependent hard
    families I2 and J2 random play's regret itself grows like ``sqrt(T)`` and every algorithm
    sits at 0.9-1.2 of it, so the slope there is the cap's (module docstring).
    ``regret_unif = None``: no cap known, saturation not checked."""
    R = np.asarray(R, dtype=float)
    res = _upper("R-UP-T", *loglog_slope(T, R, paired), b_claim, tau)
    regime = fit_regime(*_caps(R, regret_unif))
    log_sd = vocab.log_mean_sd(R.T)
    return judge(res, "upper", tau, T, log_sd, regime, max_detectable=max_detectable)


def _excess_log_sd(R_priv: np.ndarray, R_ref: np.ndarray, paired: bool) -> np.ndarray:
    """Delta-method sd of ``ln mean E_j`` for the excess ``E = R_priv - R_ref`` per level (rows
    are levels): per-trial differences if paired, else the two sides' variances added."""
    if paired:
        return vocab.log_mean_sd((R_priv - R_ref).T)
    n_p, n_r = R_priv.shape[1], R_ref.shape[1]
    var = R_priv.var(axis=1, ddof=1) / n_p + R_ref.var(axis=1, ddof=1) / n_r
    m = R_priv.mean(axis=1) - R_ref.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m > 0, np.sqrt(var) / m, np.inf)


def rule_exc_t(
    T: Sequence[float],
    R_priv: np.ndarray,
    R_ref: np.ndarray,
    regret_unif: np.ndarray,
    b_claim: float,
    paired: bool = False,
    tau: float = TAU_T,
    max_detectable: float = MAX_DETECTABLE,
    design: str = "worst-case",
) -> RuleResult:
    """R-EXC-T: the T-slope of the private excess ``E = R_priv - R_ref`` against the privacy
    term's secant exponent. ``design`` (:data:`dpbandits.audit.verdicts.DESIGNS`) says what the
    fit measures: the excess on fixed instances of a minimax bound (``fixed-instance``) or the
    privacy term of a sum bound (``one-term``) cannot demonstrate a violation. Usable only if
    the private run is not saturated at any fitted horizon (shared rule, ``regret_unif`` its
    cap) and the excess at the largest T is
    significantly positive (bootstrap interval above 0); else UNUSABLE (shared ``untestable``,
    left out of :func:`aggregate` and :func:`combine` unless every value is;
    docs/papers/op24.md#verdicts)."""
    R_priv, R_ref = np.asarray(R_priv, float), np.asarray(R_ref, float)
    regime = fit_regime(*_caps(R_priv, regret_unif))

    def unusable(note: str) -> RuleResult:
        return judge(RuleResult("R-EXC-T", UNUSABLE, claimed=b_claim, note=note), "upper", tau,
                     regime=regime, max_detectable=max_detectable, design=design)  # fmt: skip

    if regime[0] == "saturated":
        return unusable("saturated")
    rng = np.random.default_rng(BOOT_SEED)
    if paired:  # per-trial differences (common random numbers)
        reps = bootstrap_means((R_priv - R_ref).T, N_BOOT, rng)
    else:  # independent runs: resample each side
        reps = bootstrap_means(R_priv.T, N_BOOT, rng, False) - bootstrap_means(
            R_ref.T, N_BOOT, rng, False
        )
    if np.percentile(reps[:, -1], 2.5) <= 0:
        return unusable("excess not above 0")
    x = np.asarray(T, dtype=float)
    slope = float(_slopes(x, R_priv.mean(axis=1) - R_ref.mean(axis=1)))
    if not np.isfinite(slope):
        return unusable("excess <= 0 at some T")
    lo, hi = np.nanquantile(_slopes(x, reps), [0.025, 0.975])
    res = _upper("R-EXC-T", slope, float(lo), float(hi), b_claim, tau)
    log_sd = _excess_log_sd(R_priv, R_ref, paired)
    return judge(res, "upper", tau, x, log_sd, regime, max_detectable=max_detectable, design=design)


def rule_rho(
    rhos: Sequence[float],
    E: np.ndarray,
    R_inf_mean: float,
    saturated: Sequence[bool],
    tau: float = TAU_RHO,
    means: Sequence[float] | None = None,
    caps: Sequence[float] | None = None,
    max_detectable: float = MAX_DETECTABLE,
    design: str = "worst-case",
) -> RuleResult:
    """R-RHO: the excess at T_max scales no faster than ``rho^{-1/2}`` as rho decreases
    (``design`` as for :func:`rule_exc_t`: the excess of a sum bound is one term).

    ``E[k, i]`` is the excess of trial ``i`` at ``rhos[k]``. The privacy-dominated set keeps the
    rho whose mean excess is at least the non-private regret ``R_inf_mean`` and that are not
    saturated (``saturated``: :func:`level_saturated` of each rho's mean regret and cap); it
    needs two members. SUPPORTED if the slope's lower end is at least ``-0.5 - tau``,
    CONTRADICTED if its upper end is below (an upper bound on the growth in ``1/rho``: shared
    ``exceeds``). ``means`` and ``caps`` (per rho) give the fitted set's regime; when saturation
    leaves fewer than two members the fit is saturated (``untestable``)."""
    E = np.asarray(E, dtype=float)
    sat = np.asarray(saturated, bool)
    dominated = E.mean(axis=1) >= R_inf_mean
    keep = dominated & ~sat
    have_caps = means is not None and caps is not None
    if keep.sum() < 2:
        if (dominated & sat).any():
            regime = ("saturated", f"{int((dominated & sat).sum())} privacy-dominated rho "
                      f"saturated, {int(keep.sum())} left")  # fmt: skip
        else:
            regime = ("learning", "no privacy-dominated rho is saturated")
        res = RuleResult("R-RHO", "INCONCLUSIVE", claimed=-0.5, note="fewer than 2 rho values")
        return judge(res, "upper", tau, regime=regime, max_detectable=max_detectable, design=design)
    rho_k = np.asarray(rhos, float)[keep]
    s, lo, hi = loglog_slope(rho_k, E[keep])
    if lo >= -0.5 - tau:
        verdict = "SUPPORTED"
    elif hi < -0.5 - tau:
        verdict = "CONTRADICTED"
    else:
        verdict = "INCONCLUSIVE"
    res = RuleResult("R-RHO", verdict, s, lo, hi, -0.5)
    regime = (
        fit_regime(np.asarray(means, float)[keep], np.asarray(caps, float)[keep], over="rho")
        if have_caps
        else ("learning", "no regret cap given; saturation not checked")
    )
    # the violation is a slope below -0.5 - tau: in 1/rho, an exponent above 0.5 + tau, flagged
    # when the interval's upper end is below; its half-width on that side is hi - s
    log_sd = vocab.log_mean_sd(E[keep].T)
    return judge(
        res,
        "upper",
        tau,
        rho_k,
        log_sd,
        regime,
        side="lower",
        max_detectable=max_detectable,
        design=design,
    )


def rule_scale(
    name: str,
    sizes: Sequence[float],
    E: np.ndarray,
    tau: float = TAU_SCALE,
    means: Sequence[float] | None = None,
    caps: Sequence[float] | None = None,
    max_detectable: float = MAX_DETECTABLE,
) -> RuleResult:
    """R-SCALE-K / R-SCALE-D: slope of the excess in K (or d), claimed 1 (upper bound).
    ``means`` and ``caps`` (the private runs' mean regret and random play's, per size) give the
    regime: saturated if any size is."""
    E = np.asarray(E, dtype=float)
    res = _upper(name, *loglog_slope(sizes, E), 1.0, tau)
    over = "K" if name.endswith("K") else "d"
    regime = (
        fit_regime(means, caps, over=over)
        if means is not None and caps is not None
        else ("learning", "no regret cap given; saturation not checked")
    )
    log_sd = vocab.log_mean_sd(E.T)
    return judge(res, "upper", tau, sizes, log_sd, regime, max_detectable=max_detectable)


def rule_lb_cons(
    T: Sequence[float],
    R: np.ndarray,
    lower: Callable[[float], float],
    tau: float = TAU_T,
    regret_unif: np.ndarray | None = None,
    max_detectable: float = MAX_DETECTABLE,
) -> RuleResult:
    """R-LB-CONS: the ratio ``mean R(T) / LB(T)`` on a hard family must not decay: CONSISTENT if
    the upper end of its T-slope is at least ``-tau``, INCONSISTENT otherwise (shared:
    ``consistent`` / ``below``). Saturated (own word PRE-ASYMPTOTIC, ``untestable``) when the
    mean regret at any fitted horizon reaches the shared share of random play's
    (``regret_unif``): on I2 and J2 that is the case for every algorithm (module docstring)."""
    T = np.asarray(T, dtype=float)
    R = np.asarray(R, float)
    ratio = R / np.array([lower(t) for t in T])[:, None]
    s, lo, hi = loglog_slope(T, ratio)
    verdict = "CONSISTENT" if hi >= -tau else "INCONSISTENT"
    res = RuleResult("R-LB-CONS", verdict, s, lo, hi, 0.0)
    regime = fit_regime(*_caps(R, regret_unif))
    log_sd = vocab.log_mean_sd(R.T)
    return judge(res, "lower", tau, T, log_sd, regime, max_detectable=max_detectable)


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


def combine(verdicts: Sequence[str]) -> str:
    """One shared verdict from per-value shared ones (the counterpart of :func:`aggregate`): a
    violation (``exceeds``, then ``below``) wins; ``untestable`` values are left out unless every
    value is (then ``untestable``: a claim whose every value is untestable is never
    ``consistent``); ``consistent`` when every testable value is; else ``inconclusive``."""
    v = list(verdicts)
    bad = set(v) - set(vocab.VERDICTS)
    if bad:
        raise ValueError(f"not shared verdicts: {sorted(bad)}")
    for word in ("exceeds", "below"):
        if word in v:
            return word
    used = [x for x in v if x != "untestable"]
    if not used:
        return "untestable" if v else "inconclusive"
    return "consistent" if all(x == "consistent" for x in used) else "inconclusive"


def combine_rules(verdicts: Sequence[str]) -> str:
    """A claim's shared verdict from its rules' (each already combined over its values): a
    violation wins, then ``inconclusive``, then ``untestable``; ``consistent`` only when every
    rule is (the precedence of :data:`dpbandits.audit.rates.VERDICT_ORDER`). Each rule tests a
    different part of a claim (growth in T, the privacy term's growth, rho, K or d), so one
    untestable rule leaves the claim untested: a consistent rho-slope does not make a claim whose
    T-exponent fits are saturated consistent."""
    v = list(verdicts)
    bad = set(v) - set(vocab.VERDICTS)
    if bad:
        raise ValueError(f"not shared verdicts: {sorted(bad)}")
    for word in ("exceeds", "below", "inconclusive", "untestable"):
        if word in v:
            return word
    return "consistent" if v else "inconclusive"


__all__ = [
    "MAX_DETECTABLE",
    "RuleResult",
    "aggregate",
    "combine",
    "combine_rules",
    "fit_regime",
    "judge",
    "level_saturated",
    "shared_verdict",
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
