"""Paired ordering statistics (docs/auditing.md, "Reading a verdict: ordering claims").

For a claim "A below B" on instances ``i = 1..n`` with common random numbers,
``D_i = R_i^A - R_i^B``; the verdict is **PASS** if the upper end of ``mean(D) +/- q SE``
is below 0, **WEAK** if ``mean(D) < 0`` but the interval contains 0, **FAIL** otherwise, with
``SE = sd(D, ddof=1)/sqrt(n)`` and ``q`` = 1.96 (paper 003's figure claims) or the Student-t
quantile with ``n - 1`` degrees of freedom (claims with ``interval: t``: paper 000's Figure 1
claims, paired 95 % t-intervals; docs/papers/olucb.md).

Two more statistics of the same PASS/WEAK/FAIL form:

* :func:`ratio_within`: ``mean(A)/mean(B)`` in ``[low, high]``, with the delta-method interval
  of a paired ratio of means, ``SE = sd(A_i - r B_i)/(sqrt(n) |mean(B)|)``;
* :func:`mean_at_least`: ``mean(X) >= threshold`` with the interval of the mean.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

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


def quantile(n: int, interval: str = "z") -> float:
    """Two-sided 95 % quantile: 1.96 (``z``) or Student t with ``n - 1`` df (``t``)."""
    if interval == "z":
        return Z95
    if interval == "t":
        return float(stats.t.ppf(0.975, n - 1))
    raise ValueError(f"interval must be 'z' or 't', got {interval!r}")


def _verdict_within(point: float, lo: float, hi: float, low: float, high: float) -> str:
    if low <= lo and hi <= high:
        return "PASS"
    return "WEAK" if low <= point <= high else "FAIL"


def ratio_within(
    a: np.ndarray, b: np.ndarray, low: float, high: float, z: float = Z95
) -> PairedStat:
    """Paired test of ``low <= mean(a)/mean(b) <= high`` (module docstring).

    PASS if the whole interval ``r +/- z SE`` lies in ``[low, high]``, WEAK if only the point
    estimate does, FAIL otherwise. ``mean`` of the result is the ratio ``r``.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(
            f"need two paired 1-d samples of equal length >= 2, got {a.shape}, {b.shape}"
        )
    n = a.size
    mb = float(b.mean())
    if mb == 0:
        return PairedStat(n, float("nan"), float("nan"), float("nan"), float("nan"), "FAIL")
    r = float(a.mean()) / mb
    se = float((a - r * b).std(ddof=1) / (np.sqrt(n) * abs(mb)))
    lo, hi = r - z * se, r + z * se
    return PairedStat(n, r, se, lo, hi, _verdict_within(r, lo, hi, low, high))


def mean_at_least(x: np.ndarray, threshold: float, z: float = Z95) -> PairedStat:
    """Test of ``mean(x) >= threshold``: PASS if the interval's lower end is, WEAK if only the
    mean is, FAIL otherwise. ``mean`` of the result is ``mean(x)``."""
    x = np.asarray(x, float)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"need a 1-d sample of length >= 2, got shape {x.shape}")
    n = x.size
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(n))
    lo, hi = m - z * se, m + z * se
    verdict = "PASS" if lo >= threshold else ("WEAK" if m >= threshold else "FAIL")
    return PairedStat(n, m, se, lo, hi, verdict)


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
    """Checkpoints of the curve-level check: ``t in {T/10, 3T/20, ..., T}`` (docs/auditing.md)."""
    t = np.asarray(t)
    step = T // 20
    return t[(t >= T // 10) & (t % step == 0)] if step > 0 else t
