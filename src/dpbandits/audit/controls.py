"""Negative and positive controls of the rate audit: planted violations.

For every fit, the audit redraws the same design (levels, number of instances, the observed
per-instance spread and its pairing across levels) :data:`REDRAWS` times with a *known* true
exponent and runs the same fit and verdict on each redraw:

``planted violation``
    true exponent ``claimed + planted_excess`` (``claimed - planted_excess`` for a lower
    bound), with ``planted_excess = detectable_excess + PLANT_MARGIN``. The design claims to
    detect this excess with probability at least ``POWER`` (0.8); the control is *detected*
    (passed) unless the share of redraws flagged as the violation (``exceeds`` / ``below``) is
    significantly below ``POWER`` (one-sided binomial test at level :data:`ALPHA`). A failed
    control means the power statement is wrong, and the family's ``consistent`` verdicts
    become ``untestable``;
``meets claim``
    true exponent ``claimed``: passed unless the share of redraws flagged as a violation is
    significantly above :data:`FALSE_ALARM` (same test).

Why many redraws: one redraw cannot check a power statement. At 80 % power a single planted
redraw is missed one time in five by design (at paper scale the power at
``detectable + PLANT_MARGIN`` is 0.9-1.0, so a handful of ~180 single redraws were missed with
the power statement right). With :data:`REDRAWS` = 40 the test passes a true 80 % with
probability >= 0.99 and fails a design whose real power is 50 % with probability 0.96.

A redraw resamples the instances (rows of the observed matrix, so pairing and per-level spread
are kept) with its own seed, divides each level by its observed mean and multiplies it by the
planted curve ``m (x / x_bar)^e`` (``m``, ``x_bar`` the geometric means of the observed means and
the levels). The controls test the statistical design of each family, not the simulated
algorithm.
"""

from __future__ import annotations

import math
import zlib
from collections import Counter

import numpy as np
from scipy.stats import binom

from .fits import fit_exponent, verdict
from .verdicts import POWER

#: Planted excess above the family's detectable excess.
PLANT_MARGIN = 0.05
#: Redraws per control.
REDRAWS = 40
#: Bootstrap resamples of each redraw's fit (at most; fewer when the audit uses fewer).
REDRAW_BOOT = 400
#: Level of the binomial tests on the flagged share of redraws.
ALPHA = 0.01
#: Stated false-alarm rate of a verdict at the claimed exponent: the one-sided error of the
#: 95 % percentile interval (2.5 %) doubled for the bootstrap interval's undercoverage with
#: 20 instances.
FALSE_ALARM = 0.05
CONTROL_COLUMNS = [
    "claim_id",
    "experiment",
    "sweep",
    "schedule",
    "variable",
    "fixed",
    "direction",
    "control",
    "claimed",
    "planted_excess",
    "redraws",
    "flagged",
    "flag_rate",
    "slope",
    "slope_sd",
    "verdict",
    "detected",
    "passed",
]


def control_seed(seed: int, *names) -> int:
    """A stable seed per fit: ``seed`` combined with a CRC-32 of its names."""
    return (int(seed) * 2654435761 + zlib.crc32("|".join(map(str, names)).encode())) % 2**32


def redraw(levels, values, exponent: float, seed: int) -> np.ndarray:
    """A fresh (instances x levels) matrix of the design with true exponent ``exponent``.

    Raises ``ValueError`` when a level's observed mean is not positive.
    """
    x = np.asarray(levels, dtype=float)
    Y = np.asarray(values, dtype=float)
    m = Y.mean(axis=0)
    if np.any(m <= 0):
        raise ValueError("a level's mean is not positive")
    rel = Y / m
    rows = np.random.default_rng(seed).integers(0, Y.shape[0], size=Y.shape[0])
    lx = np.log(x)
    curve = np.exp(np.log(m).mean() + exponent * (lx - lx.mean()))
    return rel[rows] * curve


def run_controls(
    levels,
    values,
    claimed: float,
    direction: str,
    tol: float,
    detectable: float,
    n_boot: int,
    seed: int,
    redraws: int = REDRAWS,
) -> list[dict]:
    """The planted-violation and meets-claim controls of one fit (module docstring).

    Redraw ``r`` of control ``k`` (0 planted, 1 meets claim) uses the seed ``[seed, k, r]`` and
    its bootstrap ``[seed, k, r, 1]`` with ``min(n_boot, REDRAW_BOOT)`` resamples.

    Returns
    -------
    list of dict
        One row per control: ``control``, ``planted_excess``, ``redraws``, ``flagged`` (redraws
        whose verdict is the violation), ``flag_rate``, the mean and sd of the redraws'
        slopes, the most frequent ``verdict``, ``detected`` (planted: the flagged share is not
        significantly below ``POWER``; meets claim: it is significantly above
        ``FALSE_ALARM``) and ``passed`` (``detected`` for the plant, not ``detected`` for the
        claim-meeting control).
    """
    violation = "exceeds" if direction == "upper" else "below"
    sign = 1.0 if direction == "upper" else -1.0
    boot = min(int(n_boot), REDRAW_BOOT)
    out = []
    for k, (name, excess) in enumerate(
        (("planted violation", detectable + PLANT_MARGIN), ("meets claim", 0.0))
    ):
        slopes, verdicts = [], []
        if math.isfinite(excess):
            for r in range(redraws):
                try:
                    Y = redraw(levels, values, claimed + sign * excess, [seed, k, r])
                except ValueError:
                    break
                fit = fit_exponent(levels, Y, boot, [seed, k, r, 1])
                slopes.append(fit.slope)
                verdicts.append(verdict(fit, claimed, direction, tol))
        flagged = sum(v == violation for v in verdicts)
        if not verdicts:  # no finite plant or no positive mean: nothing was tested
            detected = False
        elif k == 0:
            detected = bool(binom.cdf(flagged, len(verdicts), POWER) > ALPHA)
        else:
            detected = bool(binom.sf(flagged - 1, len(verdicts), FALSE_ALARM) <= ALPHA)
        out.append(
            {
                "control": name,
                "claimed": claimed,
                "planted_excess": excess,
                "redraws": len(verdicts),
                "flagged": flagged,
                "flag_rate": flagged / len(verdicts) if verdicts else math.nan,
                "slope": float(np.mean(slopes)) if slopes else math.nan,
                "slope_sd": float(np.std(slopes, ddof=1)) if len(slopes) > 1 else math.nan,
                "verdict": Counter(verdicts).most_common(1)[0][0] if verdicts else "inconclusive",
                "detected": detected,
                "passed": detected if k == 0 else not detected,
            }
        )
    return out
