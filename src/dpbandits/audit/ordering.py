"""Paired ordering statistics (spec 003 §7.3).

For a claim "A below B" on instances ``i = 1..n`` with common random numbers,
``D_i = R_i^A - R_i^B``; the verdict is **PASS** if the upper end of ``mean(D) +/- 1.96 SE``
is below 0, **WEAK** if ``mean(D) < 0`` but the interval contains 0, **FAIL** otherwise, with
``SE = sd(D, ddof=1)/sqrt(n)``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

VERDICTS = ("PASS", "WEAK", "FAIL")
Z95 = 1.96


@dataclass(frozen=True)
class PairedStat:
    """Result of one paired comparison."""

    n: int
    mean: float
    se: float
    ci_low: float
    ci_high: float
    verdict: str

    def as_dict(self) -> dict:
        """Plain dict."""
        return asdict(self)


def paired_below(a: np.ndarray, b: np.ndarray, z: float = Z95) -> PairedStat:
    """Paired test of "a below b" (module docstring).

    Parameters
    ----------
    a, b : ndarray, shape (n,)
        Per-instance values, paired by index.
    z : float
        Normal quantile of the interval (1.96 for 95 %).
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(
            f"need two paired 1-d samples of equal length >= 2, got {a.shape}, {b.shape}"
        )
    diff = a - b
    n = diff.size
    mean = float(diff.mean())
    se = float(diff.std(ddof=1) / np.sqrt(n))
    lo, hi = mean - z * se, mean + z * se
    verdict = "PASS" if hi < 0 else ("WEAK" if mean < 0 else "FAIL")
    return PairedStat(n, mean, se, lo, hi, verdict)


def worst(verdicts) -> str:
    """The weakest verdict of a conjunction (FAIL > WEAK > PASS)."""
    verdicts = list(verdicts)
    if not verdicts:
        raise ValueError("no verdicts to combine")
    return max(verdicts, key=VERDICTS.index)


def curve_below(mean_a: np.ndarray, mean_b: np.ndarray) -> bool:
    """Whether curve a is strictly below curve b at every given checkpoint."""
    return bool(np.all(np.asarray(mean_a) < np.asarray(mean_b)))


def curve_checkpoints(t: np.ndarray, T: int) -> np.ndarray:
    """Checkpoints of the curve-level check: ``t in {T/10, 3T/20, ..., T}`` (spec §7.3)."""
    t = np.asarray(t)
    step = T // 20
    return t[(t >= T // 10) & (t % step == 0)] if step > 0 else t
