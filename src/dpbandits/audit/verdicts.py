"""One verdict vocabulary for every rate fit of every paper: verdict, regime, power, reason.

Verdicts
    ``consistent``   the growth over the simulated range is compatible with the claim, in the
                     learning regime, and the design would have seen a violation
                     (``detectable_excess <= max_detectable``);
    ``exceeds``      the fitted exponent is significantly above the claimed one (upper bounds);
    ``below``        significantly below it (lower bounds);
    ``inconclusive`` neither, or the design is too weak to call it ``consistent``;
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
#: A level whose mean regret reaches this share of its cap is saturated (issue 19).
SATURATION_SHARE = 0.5
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


def gate(
    verdict: str,
    regime_name: str,
    detectable: float,
    max_detectable: float,
) -> tuple[str, str]:
    """Final verdict of a fit after the regime and power gates, and the reason for a change.

    A saturated fit is ``untestable``; a ``consistent`` verdict needs the learning regime and
    ``detectable <= max_detectable`` (else ``inconclusive``). Violations (``exceeds``,
    ``below``) outside saturation stand.
    """
    if regime_name == "saturated":
        return "untestable", "fit leans on saturated levels: the cap, not the algorithm, sets it"
    if verdict == "consistent" and regime_name != "learning":
        return "inconclusive", f"interval within the claim, but the regime is {regime_name}"
    if verdict == "consistent" and not detectable <= max_detectable:
        return "inconclusive", (
            f"interval within the claim, but this design detects only excesses >= "
            f"{detectable:.2f} (80 % power), above the {max_detectable:g} required"
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
