"""Paired ordering statistics (docs/auditing.md, "Reading a verdict: ordering claims").

For a claim "A below B" on instances ``i = 1..n`` with common random numbers,
``D_i = R_i^A - R_i^B`` and ``SE = sd(D, ddof=1)/sqrt(n)``; the 95 % interval is
``mean(D) +/- q SE`` with ``q`` = 1.96 (cz22's figure claims) or the Student-t quantile with
``n - 1`` degrees of freedom (claims with ``interval: t``: olucb's Figure 1 claims, paired
95 % t-intervals; docs/papers/olucb.md). A claim is contradicted only by a demonstrated
violation, so the verdict reads the whole interval:

* **PASS** the whole interval is on the claimed side (``ci_high < 0``);
* **FAIL** the whole interval is on the wrong side (``ci_low > 0``);
* **WEAK** otherwise: the interval contains 0, whatever the sign of the point estimate;
* **UNTESTABLE** an exact tie with zero spread (``D_i = 0`` for every instance, e.g. two series
  both pinned at random play's regret): the comparison cannot tell the series apart.

Two more statistics of the same form:

* :func:`ratio_within`: ``mean(A)/mean(B)`` in ``[low, high]``, with the delta-method interval
  of a paired ratio of means, ``SE = sd(A_i - r B_i)/(sqrt(n) |mean(B)|)``: PASS if the interval
  lies inside the band, FAIL if it lies entirely outside it, WEAK if it overlaps the band's edge;
  UNTESTABLE where ``mean(B) = 0`` (no ratio);
* :func:`mean_at_least`: ``mean(X) >= threshold``: PASS if ``ci_low >= threshold``, FAIL if
  ``ci_high < threshold``, WEAK otherwise;
* :func:`spearman_at_most`: the Spearman correlation between a level (epsilon) and the mean over
  instances at that level is at most ``threshold``, with a seeded percentile-bootstrap interval
  over instances: PASS if ``ci_high <= threshold``, FAIL if ``ci_low > threshold``, WEAK
  otherwise. Levels whose paired values tie exactly with another level's (every instance the
  same value, e.g. regret pinned at random play's) are set aside (:func:`tied_levels`);
  UNTESTABLE when fewer than three levels remain or the means are equal in every draw.

:func:`worst` is the one place that combines the verdicts of a claim's comparisons (and of the
claims a summary claim lists): ``DIAGNOSTIC`` rows never decide; ``UNTESTABLE`` comparisons are
set aside and the others decide (FAIL over WEAK over PASS); a claim whose every deciding
comparison is untestable is ``UNTESTABLE``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

#: Verdicts of one comparison, from the claimed side to the wrong side; then the two words that
#: do not decide a claim (:func:`worst`).
VERDICTS = ("PASS", "WEAK", "FAIL")
UNTESTABLE = "UNTESTABLE"
DIAGNOSTIC = "DIAGNOSTIC"
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
    if not np.any(diff):  # an exact tie on every instance: nothing to tell apart
        return PairedStat(n, mean, se, lo, hi, UNTESTABLE)
    verdict = "PASS" if hi < 0 else ("FAIL" if lo > 0 else "WEAK")
    return PairedStat(n, mean, se, lo, hi, verdict)


def quantile(n: int, interval: str = "z") -> float:
    """Two-sided 95 % quantile: 1.96 (``z``) or Student t with ``n - 1`` df (``t``)."""
    if interval == "z":
        return Z95
    if interval == "t":
        return float(stats.t.ppf(0.975, n - 1))
    raise ValueError(f"interval must be 'z' or 't', got {interval!r}")


def _verdict_within(lo: float, hi: float, low: float, high: float) -> str:
    """PASS if ``[lo, hi]`` lies in ``[low, high]``, FAIL if it lies entirely outside, else WEAK."""
    if low <= lo and hi <= high:
        return "PASS"
    return "FAIL" if hi < low or lo > high else "WEAK"


def ratio_within(
    a: np.ndarray, b: np.ndarray, low: float, high: float, z: float = Z95
) -> PairedStat:
    """Paired test of ``low <= mean(a)/mean(b) <= high`` (module docstring).

    PASS if the whole interval ``r +/- z SE`` lies in ``[low, high]``, FAIL if it lies entirely
    outside it, WEAK if it overlaps an edge of the band; UNTESTABLE when ``mean(b) = 0`` (no
    ratio; all fields NaN). ``mean`` of the result is the ratio ``r``.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(
            f"need two paired 1-d samples of equal length >= 2, got {a.shape}, {b.shape}"
        )
    n = a.size
    mb = float(b.mean())
    if mb == 0:
        nan = float("nan")
        return PairedStat(n, nan, nan, nan, nan, UNTESTABLE)
    r = float(a.mean()) / mb
    se = float((a - r * b).std(ddof=1) / (np.sqrt(n) * abs(mb)))
    lo, hi = r - z * se, r + z * se
    return PairedStat(n, r, se, lo, hi, _verdict_within(lo, hi, low, high))


def mean_at_least(x: np.ndarray, threshold: float, z: float = Z95) -> PairedStat:
    """Test of ``mean(x) >= threshold``: PASS if the interval's lower end is at least the
    threshold, FAIL if its upper end is below it, WEAK otherwise. ``mean`` of the result is
    ``mean(x)``."""
    x = np.asarray(x, float)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"need a 1-d sample of length >= 2, got shape {x.shape}")
    n = x.size
    m = float(x.mean())
    se = float(x.std(ddof=1) / np.sqrt(n))
    lo, hi = m - z * se, m + z * se
    verdict = "PASS" if lo >= threshold else ("FAIL" if hi < threshold else "WEAK")
    return PairedStat(n, m, se, lo, hi, verdict)


#: Bootstrap draws and seed of :func:`spearman_at_most` (fixed: a verdict is a function of the
#: data alone).
SPEARMAN_DRAWS = 2000
SPEARMAN_SEED = 20240044


def _spearman(levels: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Spearman correlation of ``levels`` (shape (L,)) with each row of ``means`` (shape (B, L));
    NaN for a row without spread (or constant levels)."""
    rl = stats.rankdata(levels)
    rm = stats.rankdata(means, axis=1)
    rl = rl - rl.mean()
    rm = rm - rm.mean(axis=1, keepdims=True)
    den = np.sqrt((rl**2).sum() * (rm**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rm @ rl) / np.where(den > 0, den, 1.0), np.nan)


def tied_levels(samples: list) -> np.ndarray:
    """Mask of the levels whose sample equals another level's on every instance (paired
    samples of one length; all False otherwise)."""
    samples = [np.asarray(x, dtype=float) for x in samples]
    mask = np.zeros(len(samples), dtype=bool)
    if len({x.size for x in samples}) != 1:
        return mask
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            if np.array_equal(samples[i], samples[j]):
                mask[i] = mask[j] = True
    return mask


def spearman_at_most(
    levels,
    samples: list,
    threshold: float,
    draws: int = SPEARMAN_DRAWS,
    seed: int = SPEARMAN_SEED,
) -> PairedStat:
    """Test of ``Spearman(levels, mean per level) <= threshold`` (module docstring).

    Parameters
    ----------
    levels : array_like, shape (L,)
        The level of each sample (e.g. the panels' epsilon).
    samples : list of ndarray
        Per level, the per-instance values. When every level has the same number of instances
        they are taken as paired (common random numbers) and resampled jointly; otherwise each
        level is resampled on its own. Paired levels that tie exactly with another are set
        aside (:func:`tied_levels`).
    threshold : float
    draws, seed : int
        Bootstrap draws and the seed of their generator.

    Returns
    -------
    PairedStat
        ``mean`` is the correlation of the observed means (NaN when they are constant),
        ``ci_low``/``ci_high`` the 2.5 % and 97.5 % percentiles of the bootstrap correlations
        (a draw whose means are constant has no monotone association and counts as 0), ``se``
        their standard deviation, ``n`` the smallest number of instances of a level.
    """
    levels = np.asarray(levels, dtype=float)
    samples = [np.asarray(x, dtype=float) for x in samples]
    if levels.ndim != 1 or len(samples) != levels.size or levels.size < 2:
        raise ValueError(f"need one sample per level and >= 2 levels, got {levels.shape}")
    sizes = {x.size for x in samples}
    n = min(sizes)
    if n < 2:
        raise ValueError("need at least two instances per level")
    keep = ~tied_levels(samples)
    levels, samples = levels[keep], [x for x, k in zip(samples, keep, strict=True) if k]
    nan = float("nan")
    if levels.size < 3:
        return PairedStat(n, nan, nan, nan, nan, UNTESTABLE)
    means = np.array([x.mean() for x in samples])
    rho = float(_spearman(levels, means[None, :])[0])
    rng = np.random.default_rng(seed)
    if len(sizes) == 1:  # paired: one draw of instance indices for every level
        idx = rng.integers(0, n, size=(draws, n))
        boot = np.stack([x[idx].mean(axis=1) for x in samples], axis=1)
    else:
        boot = np.stack(
            [x[rng.integers(0, x.size, size=(draws, x.size))].mean(axis=1) for x in samples],
            axis=1,
        )
    r = _spearman(levels, boot)
    if np.all(np.isnan(r)):
        return PairedStat(n, rho, nan, nan, nan, UNTESTABLE)
    r = np.where(np.isnan(r), 0.0, r)
    lo, hi = (float(v) for v in np.percentile(r, [2.5, 97.5]))
    verdict = "PASS" if hi <= threshold else ("FAIL" if lo > threshold else "WEAK")
    return PairedStat(n, rho, float(r.std(ddof=1)), lo, hi, verdict)


def worst(verdicts) -> str:
    """The verdict of a conjunction of comparisons (module docstring).

    ``DIAGNOSTIC`` entries are dropped and ``UNTESTABLE`` ones set aside; the rest decide, the
    weakest first (FAIL > WEAK > PASS). Only untestable entries: ``UNTESTABLE``; only diagnostic
    ones: ``DIAGNOSTIC``.

    Raises
    ------
    ValueError
        For no verdicts at all, or a word outside :data:`VERDICTS`, ``UNTESTABLE`` and
        ``DIAGNOSTIC``.
    """
    verdicts = list(verdicts)
    if not verdicts:
        raise ValueError("no verdicts to combine")
    unknown = set(verdicts) - {*VERDICTS, UNTESTABLE, DIAGNOSTIC}
    if unknown:
        raise ValueError(f"unknown ordering verdicts {sorted(unknown)}")
    deciding = [v for v in verdicts if v != DIAGNOSTIC]
    if not deciding:
        return DIAGNOSTIC
    testable = [v for v in deciding if v != UNTESTABLE]
    if not testable:
        return UNTESTABLE
    return max(testable, key=VERDICTS.index)


def curve_below(mean_a: np.ndarray, mean_b: np.ndarray) -> bool:
    """Whether curve a is strictly below curve b at every given checkpoint."""
    return bool(np.all(np.asarray(mean_a) < np.asarray(mean_b)))


def curve_checkpoints(t: np.ndarray, T: int) -> np.ndarray:
    """Checkpoints of the curve-level check: ``t in {T/10, 3T/20, ..., T}`` (docs/auditing.md)."""
    t = np.asarray(t)
    step = T // 20
    return t[(t >= T // 10) & (t % step == 0)] if step > 0 else t
