"""One verdict vocabulary for every rate fit of every paper: verdict, regime, power, reason.

The principle
    A claim is contradicted only by a demonstrated violation; it is supported only by a test
    that could tell it from the rates the paper contrasts it with; everything else is
    ``inconclusive`` (or ``untestable``) with the reason. :func:`gate` applies it to every fit:

    * a violation stands only from a design that can show one, and ``exceeds`` only in the
      learning regime (:func:`violation_blocker`): against a worst-case
      (problem-independent) bound, the worst case over an instance grid at each level; a slope
      on fixed instances can only be compared with an instance-dependent bound;
    * one term of a sum bound is never judged on its own (design ``one-term``): a fit of a
      difference of regrets is no verdict, whatever its interval says;
    * ``consistent`` needs the learning regime and a detectable excess at most
      :data:`MAX_DETECTABLE`, and at most half the separation between the claimed exponent and
      the nearest exponent the paper contrasts it with (both with their log factors, over the
      fitted levels); the reason of a weaker design states the power it has and what would
      reach the target (:func:`reach`).

Verdicts
    ``consistent``   the growth over the simulated range is compatible with the claim, in the
                     learning regime, and the design would have seen a violation and the
                     contrasted rates (:func:`power_target`);
    ``exceeds``      a demonstrated violation of an upper bound: the fitted exponent is
                     significantly above the claimed one, in the learning regime, on a design
                     that can show a violation of this bound;
    ``below``        the same for a lower bound (significantly below it);
    ``inconclusive`` neither, or a design that cannot show a violation, or too weak to call it
                     ``consistent``, or a violation that disappears without the smallest level
                     (:func:`settle_fragile`);
    ``untestable``   the fit leans on saturated levels (regret near its cap), or the family's
                     planted violation went undetected: the experiment cannot tell.

Regimes
    ``saturated``      some fitted level's mean regret is at least :data:`SATURATION_SHARE` of
                       its cap (random play's regret, or ``T * gap`` on gap-scaled instances):
                       the cap, not the algorithm, sets the slope there;
    ``pre-asymptotic`` no level saturated, but the regret's share of its cap does not fall over
                       the fitted range: the algorithm is not yet learning faster than random play;
    ``learning``       otherwise.

Power. ``detectable_excess`` is the smallest excess of the true exponent over the claimed one
(shortfall, for lower bounds) that the design flags (``exceeds``, ``below``) with probability
:data:`POWER`, from a parametric bootstrap of the fit: the per-level log-means are redrawn around
the fitted line with the observed per-level spread (the delta-method variance
``var_i(R_ij) / (n mean_j^2)`` of ``ln mean_j``) and judged with the observed interval's
half-width on the violating side.
"""

from __future__ import annotations

import math

import numpy as np

from ..normals import standard_normal

VERDICTS = ("consistent", "exceeds", "below", "inconclusive", "untestable")
REGIMES = ("learning", "saturated", "pre-asymptotic")
#: Suffix of a policy constant giving the first horizon of a claimed rate's regime (e.g.
#: OnlineUCB's ``lemma35_regime_T``): the rate audit reads such constants from the sweep files
#: (:func:`dpbandits.audit.sweeps.read_sweeps`), and a fit of a claim with ``audit.regime_from:
#: <name>`` on a horizon below it is pre-asymptotic.
REGIME_SUFFIX = "_regime_T"
#: A level whose mean regret reaches this share of its cap is saturated (issue 19).
SATURATION_SHARE = 0.5
#: Largest ``detectable_excess`` a ``consistent`` verdict may have: an exponent excess of 0.1
#: (config/config.yaml ``audit.max_detectable_excess`` holds the same value).
MAX_DETECTABLE = 0.1
#: What a paper's bound is. ``worst-case``: problem-independent (minimax style), so it binds
#: only at the worst instance and only a fit of the worst case over an instance grid can show
#: a violation; ``instance``: instance-dependent, valid on each instance it covers, so a fit on
#: fixed instances of that class can.
BOUND_SCOPES = ("worst-case", "instance")
#: What a fit measures. ``worst-case``: the maximum over an instance grid at each level;
#: ``fixed-instance``: the same instances at every level; ``one-term``: a difference of regrets
#: standing for one term of a sum bound (never a verdict).
DESIGNS = ("worst-case", "fixed-instance", "one-term")
#: Probability with which ``detectable_excess`` is detected.
POWER = 0.8
#: Parametric-bootstrap draws of the power computation.
N_POWER_DRAWS = 4000


def regime(means, caps, trend: bool = True) -> tuple[str, str]:
    """Regime of a fit from its levels' mean regrets and caps (same order as the levels).

    Parameters
    ----------
    means, caps : array_like, shape (L,)
        Mean regret and its cap at each fitted level (levels in increasing order). ``caps`` may
        be None (no cap known): the regime is then ``learning`` with a reason that says so.
    trend : bool
        Check the pre-asymptotic condition (levels are horizons, whose cap grows with them);
        False for fits in epsilon or d, where only saturation is checked.

    Returns
    -------
    (str, str)
        The regime and one plain sentence on why.
    """
    if caps is None:
        return "learning", "no regret cap known for these levels; saturation not checked"
    m = np.asarray(means, dtype=float)
    c = np.asarray(caps, dtype=float)
    if m.shape != c.shape or np.any(~np.isfinite(c)) or np.any(c <= 0):
        raise ValueError(f"need one positive cap per level, got means {m} and caps {c}")
    share = m / c
    hot = np.flatnonzero(share >= SATURATION_SHARE)
    if hot.size:
        return "saturated", (
            f"{hot.size} of {share.size} levels have mean regret >= {SATURATION_SHARE:g} of "
            f"the cap (largest share {share.max():.2f}): the cap sets the slope there"
        )
    if trend and share.size > 1 and share[-1] >= share[0]:
        return "pre-asymptotic", (
            f"regret's share of the cap does not fall over the range ({share[0]:.2f} -> "
            f"{share[-1]:.2f}): not yet learning faster than random play"
        )
    return "learning", (
        f"regret is {share[0]:.2f} -> {share[-1]:.2f} of the cap over the fitted levels"
    )


def log_mean_sd(values) -> np.ndarray:
    """Delta-method standard deviation of ``ln mean_j`` per level of an (n, L) matrix."""
    Y = np.asarray(values, dtype=float)
    n = Y.shape[0]
    m = Y.mean(axis=0)
    sd = Y.std(axis=0, ddof=1) if n > 1 else np.zeros(Y.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m > 0, sd / (np.sqrt(n) * m), np.inf)


def detectable_excess(
    levels,
    log_sd,
    half_width: float,
    tol: float,
    seed: int = 0,
    power: float = POWER,
    n_draws: int = N_POWER_DRAWS,
) -> float:
    """Smallest excess over the claimed exponent detected with probability ``power``.

    A design flags a violation when the fitted slope minus ``half_width`` (the observed
    interval's half-width on the violating side) exceeds ``claimed + tol``. Under a true
    exponent ``claimed + x`` the fitted slope is ``claimed + x + e`` with ``e`` the OLS slope of
    independent normal errors (sd ``log_sd`` per level) on ``ln levels``; so the detection
    probability is ``P(e > tol + half_width - x)`` and the smallest ``x`` reaching ``power`` is
    ``tol + half_width - q_{1-power}(e)``.

    Parameters
    ----------
    levels : array_like, shape (L,)
        The fitted levels (horizons, 1/epsilon or d).
    log_sd : array_like, shape (L,)
        Standard deviation of each level's log-mean (:func:`log_mean_sd`).
    half_width : float
        ``slope - ci_low`` (upper-bound claims) or ``ci_high - slope`` (lower-bound claims).
    tol : float
        The verdicts' tolerance.
    seed : int
        Seed of the parametric draws.
    power, n_draws
        Detection probability and number of draws.

    Returns
    -------
    float
        The detectable excess (``inf`` when the spread or the interval is not finite).
    """
    lx = np.log(np.asarray(levels, dtype=float))
    sd = np.asarray(log_sd, dtype=float)
    if not (np.all(np.isfinite(sd)) and math.isfinite(half_width)):
        return math.inf
    xc = lx - lx.mean()
    w = xc / (xc**2).sum()
    e = standard_normal(np.random.default_rng(seed), (n_draws, lx.size)) @ (w * sd)
    return float(tol + half_width - np.quantile(e, 1.0 - power))


def violation_blocker(
    design: str, bound_scope: str = "worst-case", whole: str | None = None
) -> str:
    """Why a fit of ``design`` cannot demonstrate a violation of a ``bound_scope`` bound.

    Parameters
    ----------
    design : str
        One of :data:`DESIGNS`.
    bound_scope : str
        One of :data:`BOUND_SCOPES`.
    whole : str, optional
        One-term fits only: the claim that tests the whole bound, named in the sentence.

    Returns
    -------
    str
        One plain sentence, or ``''`` when the design can show a violation: a worst-case grid
        can for every bound, fixed instances only for an instance-dependent one, one term of a
        sum never.
    """
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {DESIGNS}, got {design!r}")
    if bound_scope not in BOUND_SCOPES:
        raise ValueError(f"bound_scope must be one of {BOUND_SCOPES}, got {bound_scope!r}")
    if design == "one-term":
        where = f" (the whole bound is tested by {whole})" if whole else ""
        return (
            "this fit measures one term of a sum bound, which no data can violate on its own"
            f"{where}; the whole bound, or the ratio of private to non-private regret on the "
            "same instances against what the theorem implies, would reach a verdict"
        )
    if design == "fixed-instance" and bound_scope == "worst-case":
        return (
            "the bound is a worst case over instances and these levels share fixed instances, "
            "whose slope may be steeper than the worst case's (on a gapped instance regret "
            "scales like the squared confidence width); the maximum over an instance (gap) grid "
            "at each level would reach a verdict"
        )
    return ""


#: The sentence of a violation that rests on the smallest level (:func:`settle_fragile`).
TRANSIENT = (
    "the violation holds only with the smallest level: refitted on the larger levels alone, the "
    "interval no longer lies beyond the claim (a transient, or too little power without that "
    "level), so the violation is not demonstrated"
)


def settle_fragile(verdict: str, robustness: str) -> tuple[str, str, str]:
    """A violation stands only where it holds up without the smallest level.

    Parameters
    ----------
    verdict : str
        The fit's shared verdict (:data:`VERDICTS`).
    robustness : str
        The refit's word: ``robust``, ``fragile``, ``untested`` or ``''``.

    Returns
    -------
    (verdict, robustness, reason) : tuple of str
        ``exceeds`` / ``below`` marked ``fragile`` become ``inconclusive`` with robustness
        ``''`` (it decorates only a demonstrated violation) and the reason :data:`TRANSIENT`;
        everything else is returned as it is, with reason ``''``.
    """
    if verdict in ("exceeds", "below") and robustness == "fragile":
        return "inconclusive", "", TRANSIENT
    return verdict, robustness, ""


#: Shared verdicts of a rule or family whose rows decide nothing: a claim's reason says why
#: (:func:`why_undecided`).
UNDECIDED = ("untestable", "inconclusive")

#: Why a fit reaches no verdict, by a phrase of the sentence that says so (:func:`regime`,
#: :func:`violation_blocker`, :func:`gate`): the short name a claim's summary counts.
UNDECIDED_WHY = (
    ("the cap sets the slope there", "saturated at a fitted level"),
    ("not yet learning faster than random play", "pre-asymptotic"),
    ("one term of a sum bound", "one term of a sum bound"),
    ("these levels share fixed instances", "fixed instances against a worst-case bound"),
    ("this design detects only", "too little power"),
    ("interval straddles the claim's edge", "interval straddles the claim's edge"),
    ("holds only with the smallest level", "the violation rests on the smallest level"),
)


def why_undecided(reasons) -> str:
    """Counts of the short reasons (:data:`UNDECIDED_WHY`) among the sentences ``reasons`` of
    fits that reached no verdict, most frequent first (ties in the order first seen), e.g.
    ``one term of a sum bound: 8 of 9; saturated at a fitted level: 1 of 9``; a sentence
    matching none counts under its first clause (up to ``:`` or ``;``). Empty for no
    reasons."""
    reasons = [str(r) for r in reasons]
    counts: dict[str, int] = {}
    for r in reasons:
        name = next((n for phrase, n in UNDECIDED_WHY if phrase in r), None)
        if name is None:
            name = r.replace(";", ":").split(":", 1)[0].strip() or "no reason given"
        counts[name] = counts.get(name, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])  # stable: first seen first on ties
    return "; ".join(f"{name}: {k} of {len(reasons)}" for name, k in ranked)


def power_target(max_detectable: float = MAX_DETECTABLE, separation: float | None = None) -> float:
    """Largest detectable excess a ``consistent`` verdict may have: ``max_detectable``, and at
    most half the ``separation`` between the claimed exponent and the nearest contrasted one
    (None: the paper contrasts no rate with this one)."""
    if separation is None or not math.isfinite(separation):
        return float(max_detectable)
    return float(min(max_detectable, abs(separation) / 2))


def reach(
    detectable: float,
    target: float,
    tol: float,
    n_trials=None,
    levels=None,
    grid_step: float | None = None,
) -> str:
    """What design would bring ``detectable`` down to ``target``, as a plain clause.

    The statistical part of the detectable excess, ``detectable - tol``, scales like
    ``1 / sqrt(trials)`` and like ``1 / sd(ln levels)``: a target at or below the tolerance
    cannot be reached by any design; otherwise the clause names the number of trials, or the
    span of levels (same number of levels, same smallest level), that would reach it.

    Where a worst-case grid's resolution sets the detectable excess (``grid_step``: ``ln`` of
    the largest ratio between neighbouring gaps, given only when that floor, ``tol + grid_step
    / ln(span of levels)``, is above the statistical part), more trials do not help: the clause
    names the finer grid, or the span of levels, that would reach the target.
    """
    if not math.isfinite(detectable):
        return "no finite power: some level's spread is not finite"
    if target <= tol:
        return (
            f"the target {target:.3f} is within the verdicts' tolerance {tol:g}, so no design "
            "reaches it with this tolerance"
        )
    k = (detectable - tol) / (target - tol)
    if k <= 1:
        return ""
    parts = []
    if grid_step is not None and levels is not None and len(levels) > 1:
        finer = math.exp(grid_step / k)
        parts.append(
            f"a gap grid with at most a ratio {finer:.3g} between neighbouring gaps instead of "
            f"{math.exp(grid_step):.3g}"
        )
        n_trials = None  # the grid's step, not the spread, sets the power
    if n_trials:
        parts.append(
            f"about {math.ceil(n_trials * k * k - 1e-9)} trials instead of {int(n_trials)}"
        )
    if levels is not None and len(levels) > 1:
        lv = np.asarray(levels, dtype=float)
        span = float(lv.max() / lv.min())
        parts.append(f"levels spanning a factor {span**k:.3g} instead of {span:.3g}")
    return ("would need " + " or ".join(parts)) if parts else ""


def gate(
    verdict: str,
    regime_name: str,
    detectable: float,
    max_detectable: float = MAX_DETECTABLE,
    *,
    design: str = "worst-case",
    bound_scope: str = "worst-case",
    whole: str | None = None,
    separation: float | None = None,
    tol: float = 0.05,
    n_trials: int | None = None,
    levels=None,
    grid_step: float | None = None,
) -> tuple[str, str]:
    """Final verdict of a fit under the principle (module docstring), and the reason for a change.

    Parameters
    ----------
    verdict : str
        The statistical verdict of the interval (``consistent``, ``exceeds``, ``below``,
        ``inconclusive``).
    regime_name : str
        One of :data:`REGIMES`.
    detectable : float
        The fit's detectable excess.
    max_detectable : float
        The power required of ``consistent`` before contrasts.
    design, bound_scope, whole
        What the fit measures and what the bound is (:func:`violation_blocker`).
    separation : float, optional
        Distance between the claimed exponent and the nearest contrasted one over the fitted
        levels (:func:`power_target`).
    tol, n_trials, levels, grid_step
        The verdicts' tolerance, the trials and levels of the fit and, where a worst-case
        grid's resolution sets ``detectable``, the grid's step: what :func:`reach` needs.

    Returns
    -------
    (str, str)
        The final verdict and one plain clause on why it differs from ``verdict`` (``''``
        when it does not). One-term fits are ``inconclusive`` whatever their interval;
        saturated fits ``untestable``; a violation stands only on a design that can show it,
        and an ``exceeds`` only in the learning regime (growth like random play's is what an
        unfinished warm-up shows; it cannot lower a regret below a lower bound);
        ``consistent`` needs the learning regime and
        ``detectable <= power_target(max_detectable, separation)``.
    """
    blocker = violation_blocker(design, bound_scope, whole)
    if design == "one-term":
        return "inconclusive", blocker
    if regime_name == "saturated":
        return "untestable", "fit leans on saturated levels: the cap, not the algorithm, sets it"
    if verdict in ("exceeds", "below"):
        if blocker:
            return "inconclusive", f"no demonstrated violation: {blocker}"
        if verdict == "exceeds" and regime_name != "learning":
            return "inconclusive", (
                f"no demonstrated violation: the regime is {regime_name}, not learning"
            )
        return verdict, ""
    if verdict == "consistent" and regime_name != "learning":
        return "inconclusive", f"interval within the claim, but the regime is {regime_name}"
    target = power_target(max_detectable, separation)
    if verdict == "consistent" and not detectable <= target:
        why = f"the {max_detectable:g} required"
        if target < max_detectable:
            why = (
                f"the {target:.3f} required (half the separation {separation:.3f} from the "
                "nearest rate the paper contrasts with this one)"
            )
        more = reach(detectable, target, tol, n_trials, levels, grid_step)
        return "inconclusive", (
            f"interval within the claim, but this design detects only excesses >= "
            f"{detectable:.3f} (80 % power), above {why}" + (f"; {more}" if more else "")
        )
    return verdict, ""


def plain_reason(verdict: str, slope: float, lo: float, hi: float, claimed, tol: float) -> str:
    """One sentence on a statistical verdict before the gates."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "no interval: some level's mean is not positive"
    c = "n/a" if claimed is None or not np.isfinite(claimed) else f"{claimed:.3f}"
    span = f"fitted {slope:.3f} [{lo:.3f}, {hi:.3f}] against claimed {c} (tolerance {tol:g})"
    return {
        "consistent": f"{span}: interval within the claim",
        "exceeds": f"{span}: interval above the claim",
        "below": f"{span}: interval below the claim",
    }.get(verdict, f"{span}: interval straddles the claim's edge")
