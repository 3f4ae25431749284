"""Fitting primitives of the rate audit: log-log slopes with paired bootstrap intervals, the
statistical verdict of a fitted exponent against a claimed one, and their combination."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

#: Precedence when fits of one claim are combined: a violation wins, then doubt, then
#: what could not be tested; ``consistent`` only when every fit is.
VERDICT_ORDER = ("exceeds", "below", "inconclusive", "untestable", "consistent")


@dataclass(frozen=True)
class Fit:
    """A fitted exponent with its bootstrap interval."""

    slope: float
    ci_low: float
    ci_high: float
    intercept: float
    n_levels: int
    n_trials: int

    def as_dict(self) -> dict:
        """Plain dict."""
        return asdict(self)


def _slopes(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """OLS slopes of each row of ``Y`` (shape (..., n_levels)) on ``x``; NaN where Y <= 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.where(Y > 0, np.log(Y), np.nan)
    lx = np.log(x)
    xc = lx - lx.mean()
    return (y * xc).sum(axis=-1) / (xc**2).sum()


def bootstrap_means(
    Y: np.ndarray, n_boot: int, rng: np.random.Generator, paired: bool = True
) -> np.ndarray:
    """Bootstrap replicates of the column means of ``Y`` (shape (n, L)), shape (n_boot, L).

    ``paired``: resample whole rows (instance ``i`` at every level: common random numbers or
    checkpoints of one run); otherwise resample each column on its own (independent runs per
    level)."""
    n, L = Y.shape
    if paired:
        idx = rng.integers(0, n, size=(n_boot, n))
        if L >= 2 and Y.dtype == np.float64:  # Y[idx].mean(axis=1) without the (n_boot, n, L) copy
            return _paired_column_means(np.ascontiguousarray(Y), idx, np.empty((n_boot, L)))
        return Y[idx].mean(axis=1)
    out = np.empty((n_boot, L))
    for j in range(L):
        out[:, j] = Y[rng.integers(0, n, size=(n_boot, n)), j].mean(axis=1)
    return out


@njit(cache=True)
def _paired_column_means(Y, idx, out):
    """``out[b, l]`` = the mean of ``Y[idx[b, :], l]``: the same bits as NumPy's
    ``Y[idx].mean(axis=1)`` for ``L >= 2`` columns, which adds the rows in order starting from
    the first (the reduced axis is not the innermost one, so no pairwise summation) and divides
    by ``n`` (tests/audit/test_fits.py compares the two)."""
    B, n = idx.shape
    L = Y.shape[1]
    for b in range(B):
        for j in range(L):
            s = Y[idx[b, 0], j]
            for i in range(1, n):
                s += Y[idx[b, i], j]
            out[b, j] = s / n
    return out


def fit_exponent(
    levels,
    values,
    n_boot: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    paired: bool = True,
) -> Fit:
    """Log-log slope of the mean of ``values`` against ``levels``, with a bootstrap interval.

    Parameters
    ----------
    levels : array_like, shape (L,)
        Positive levels (horizons T, or 1/epsilon), at least two distinct.
    values : ndarray, shape (n, L)
        Per-instance values at each level; row ``i`` is instance ``i`` at every level.
    n_boot : int
        Bootstrap resamples of the instances.
    seed : int
        Seed of the bootstrap.
    level : float
        Coverage of the percentile interval.
    paired : bool
        Resample instances across levels (default) or each level on its own
        (:func:`bootstrap_means`).

    Returns
    -------
    Fit
        ``slope`` is NaN when a mean is not positive; the interval then is NaN too.
    """
    x = np.asarray(levels, dtype=float)
    Y = np.asarray(values, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != x.shape[0] or len(np.unique(x)) < 2 or np.any(x <= 0):
        raise ValueError(
            f"need values of shape (n, {x.shape[0]}) and >= 2 distinct positive levels"
        )
    n = Y.shape[0]
    means = Y.mean(axis=0)
    slope = float(_slopes(x, means))
    if not np.isfinite(slope):
        return Fit(float("nan"), float("nan"), float("nan"), float("nan"), len(x), n)
    intercept = float(np.log(means).mean() - slope * np.log(x).mean())
    boot = _slopes(x, bootstrap_means(Y, n_boot, np.random.default_rng(seed), paired))
    alpha = (1 - level) / 2
    if np.isnan(boot).mean() > alpha:  # too many resamples with a non-positive mean
        lo, hi = float("nan"), float("nan")
    else:
        lo, hi = np.nanquantile(boot, [alpha, 1 - alpha])
    return Fit(slope, float(lo), float(hi), intercept, len(x), n)


def verdict(fit: Fit, claimed: float, direction: str = "upper", tol: float = 0.05) -> str:
    """Verdict of a fitted exponent against a claimed one (module docstring)."""
    if not (np.isfinite(fit.ci_low) and np.isfinite(fit.ci_high)):
        return "inconclusive"
    if direction == "upper":
        if fit.ci_high <= claimed + tol:
            return "consistent"
        return "exceeds" if fit.ci_low > claimed + tol else "inconclusive"
    if direction == "lower":
        if fit.ci_low >= claimed - tol:
            return "consistent"
        return "below" if fit.ci_high < claimed - tol else "inconclusive"
    raise ValueError(f"direction must be 'upper' or 'lower', got {direction!r}")


def combine(verdicts) -> str:
    """One verdict for several fits of a claim: any violation wins, then any inconclusive."""
    verdicts = list(verdicts)
    return min(verdicts, key=VERDICT_ORDER.index) if verdicts else "inconclusive"
