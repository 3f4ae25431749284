"""Negative and positive controls of the rate audit: planted violations.

For every fit, the audit redraws the same design (levels, number of instances, the observed
per-instance spread and its pairing across levels) with a *known* true exponent and runs the
same fit and verdict on it:

``planted violation``
    true exponent ``claimed + planted_excess`` (``claimed - planted_excess`` for a lower
    bound), with ``planted_excess = detectable_excess + PLANT_MARGIN``: the verdict must be
    the violation (``exceeds`` / ``below``); if it is not, the power statement is wrong and the
    family's ``consistent`` verdicts become ``untestable``;
``meets claim``
    true exponent ``claimed``: the verdict must not be a violation.

A redraw resamples the instances (rows of the observed matrix, so pairing and per-level spread
are kept) with its own seed, divides each level by its observed mean and multiplies it by the
planted curve ``m (x / x_bar)^e`` (``m``, ``x_bar`` the geometric means of the observed means and
the levels). The controls test the statistical design of each family, not the simulated
algorithm.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from .fits import fit_exponent, verdict

#: Planted excess above the family's detectable excess.
PLANT_MARGIN = 0.05
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
    "slope",
    "ci_low",
    "ci_high",
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
) -> list[dict]:
    """The planted-violation and meets-claim controls of one fit (module docstring).

    Returns
    -------
    list of dict
        One row per control: ``control``, ``planted_excess``, the fit (``slope``,
        ``ci_low``, ``ci_high``), the statistical ``verdict``, ``detected`` (the verdict is the
        violation) and ``passed`` (detected for a planted violation, not detected for the
        claim-meeting control).
    """
    violation = "exceeds" if direction == "upper" else "below"
    sign = 1.0 if direction == "upper" else -1.0
    out = []
    for name, excess in (
        ("planted violation", detectable + PLANT_MARGIN),
        ("meets claim", 0.0),
    ):
        row = {"control": name, "claimed": claimed, "planted_excess": excess}
        if not math.isfinite(excess):
            out.append(
                {
                    **row,
                    "slope": math.nan,
                    "ci_low": math.nan,
                    "ci_high": math.nan,
                    "verdict": "inconclusive",
                    "detected": False,
                    "passed": name == "meets claim",
                }
            )
            continue
        try:
            Y = redraw(levels, values, claimed + sign * excess, seed + (name == "meets claim"))
        except ValueError:
            Y = None
        fit = fit_exponent(levels, Y, n_boot, seed + 2) if Y is not None else None
        v = verdict(fit, claimed, direction, tol) if fit is not None else "inconclusive"
        detected = v == violation
        out.append(
            {
                **row,
                "slope": math.nan if fit is None else fit.slope,
                "ci_low": math.nan if fit is None else fit.ci_low,
                "ci_high": math.nan if fit is None else fit.ci_high,
                "verdict": v,
                "detected": detected,
                "passed": detected if name == "planted violation" else not detected,
            }
        )
    return out
