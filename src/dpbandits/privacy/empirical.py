"""Empirical privacy auditing: a statistically valid lower bound on epsilon from samples.

The standard distinguishing-test audit (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021): run the
mechanism many times on two neighbouring inputs ``D0``, ``D1``, reduce every output to a scalar
score, and guess ``D1`` when the score exceeds a threshold ``tau``. Any ``(epsilon, delta)``-DP
mechanism forces, for every test, ``FPR + e^eps FNR >= 1 - delta`` and
``FNR + e^eps FPR >= 1 - delta``, so

    ``epsilon >= max( ln((1 - delta - FNR)/FPR), ln((1 - delta - FPR)/FNR) )``.

Validity: the score direction and the threshold are chosen on a *selection* half of the samples;
the error rates are then measured on the other, independent half and replaced by their
one-sided Clopper-Pearson upper limits at level ``1 - alpha/2`` each. The returned bound therefore
holds with probability at least ``1 - alpha`` whatever the mechanism: if it exceeds the epsilon
an accountant certifies, the accountant (or the implementation) is wrong.

A mechanism is audited through a *sampler*: ``sampler(which, n, rng) -> array (n, k)`` draws ``n``
outputs on input ``D0`` (``which = 0``) or ``D1`` (``which = 1``) with the project's own
randomizer code; :func:`linear_score` turns vector outputs into the score.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

Sampler = Callable[[int, int, np.random.Generator], np.ndarray]
#: Samples drawn per sampler call (fixed, so the draws stay a pure function of the seed and n).
CHUNK = 50_000


def clopper_pearson_upper(k: np.ndarray, n: int, level: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper limit for ``k`` successes in ``n`` trials (exact)."""
    k = np.asarray(k, dtype=float)
    return np.where(k >= n, 1.0, beta.ppf(level, k + 1.0, np.maximum(n - k, 1e-300)))


def _rates(s0: np.ndarray, s1: np.ndarray, taus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``s0 > tau`` (false positives) and ``s1 <= tau`` (false negatives)."""
    s0, s1 = np.sort(s0), np.sort(s1)
    fp = s0.size - np.searchsorted(s0, taus, side="right")
    fn = np.searchsorted(s1, taus, side="right")
    return fp, fn


def _bound(fp_rate, fn_rate, delta: float) -> np.ndarray:
    """``max(ln((1-delta-FNR)/FPR), ln((1-delta-FPR)/FNR))`` elementwise (-inf when void)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.maximum(1.0 - delta - fn_rate, 0.0)) - np.log(fp_rate)
        b = np.log(np.maximum(1.0 - delta - fp_rate, 0.0)) - np.log(fn_rate)
    return np.nan_to_num(np.maximum(a, b), nan=-np.inf, posinf=np.inf)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit.

    Attributes
    ----------
    epsilon_lb : float
        Lower bound on epsilon at ``delta``, valid with probability ``1 - alpha`` (0 if the test
        finds nothing).
    epsilon_point : float
        The same statistic from the point estimates of the error rates (no confidence).
    threshold : float
        The selected threshold of the score.
    fpr, fnr : float
        Measured error rates on the evaluation half.
    n : int
        Samples per input in the evaluation half.
    """

    epsilon_lb: float
    epsilon_point: float
    threshold: float
    fpr: float
    fnr: float
    n: int


def threshold_audit(
    sel0: np.ndarray,
    sel1: np.ndarray,
    ev0: np.ndarray,
    ev1: np.ndarray,
    delta: float,
    alpha: float = 0.05,
    n_thresholds: int = 200,
) -> AuditResult:
    """The threshold test on scalar scores: select on ``sel*``, evaluate on ``ev*``.

    Candidate thresholds are quantiles of the pooled selection scores (plus the observed
    values of discrete scores); the one whose point-estimate bound is largest on the selection
    half is evaluated on the evaluation half with Clopper-Pearson limits.
    """
    pooled = np.concatenate([sel0, sel1])
    cands = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds)))
    distinct = np.unique(pooled)
    if distinct.size <= 4 * n_thresholds:  # discrete scores: every observed value
        cands = distinct
    fp, fn = _rates(sel0, sel1, cands)
    # smoothed point estimate (+1/2) so that empty cells do not win by division by zero
    score = _bound((fp + 0.5) / (sel0.size + 1), (fn + 0.5) / (sel1.size + 1), delta)
    tau = float(cands[int(np.argmax(score))])
    fp, fn = _rates(ev0, ev1, np.array([tau]))
    n0, n1 = ev0.size, ev1.size
    level = 1.0 - alpha / 2.0
    fpr_hi = clopper_pearson_upper(fp, n0, level)
    fnr_hi = clopper_pearson_upper(fn, n1, level)
    lb = float(_bound(fpr_hi, fnr_hi, delta)[0])
    point = float(_bound(fp / n0, fn / n1, delta)[0])
    return AuditResult(
        epsilon_lb=max(lb, 0.0),
        epsilon_point=max(point, 0.0),
        threshold=tau,
        fpr=float(fp[0] / n0),
        fnr=float(fn[0] / n1),
        n=min(n0, n1),
    )


def linear_score(sel0: np.ndarray, sel1: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """A linear score fitted on the selection half: ``o -> w . o`` with
    ``w = (mean1 - mean0) / var`` (per coordinate; the likelihood-ratio direction of a Gaussian
    with diagonal covariance). Coordinates without spread get weight from the mean difference
    alone."""
    sel0, sel1 = np.atleast_2d(sel0.T).T, np.atleast_2d(sel1.T).T
    diff = sel1.mean(axis=0) - sel0.mean(axis=0)
    var = 0.5 * (sel0.var(axis=0) + sel1.var(axis=0))
    w = np.where(var > 0, diff / np.where(var > 0, var, 1.0), diff)
    if not np.any(w):
        w = np.ones_like(w)
    return lambda out: np.atleast_2d(np.asarray(out, float).T).T @ w


def audit(
    sampler: Sampler,
    n: int,
    delta: float,
    rng: np.random.Generator,
    alpha: float = 0.05,
    score: Callable[[np.ndarray], np.ndarray] | None = None,
) -> AuditResult:
    """Lower-bound the epsilon at ``delta`` of the mechanism behind ``sampler``.

    Parameters
    ----------
    sampler : callable
        ``sampler(which, n, rng)``: ``n`` outputs on ``D0`` (which = 0) or ``D1`` (which = 1),
        an array of shape ``(n,)`` or ``(n, k)``.
    n : int
        Samples per input and per half (``4 n`` mechanism runs in all).
    delta : float
        The delta at which epsilon is bounded (the experiment's nominal delta).
    rng : numpy.random.Generator
        The auditor's seeded stream (selection half first, then evaluation).
    alpha : float
        The bound holds with probability ``1 - alpha``.
    score : callable, optional
        Output -> scalar score; default :func:`linear_score` fitted on the selection half.

    Returns
    -------
    AuditResult
    """
    if n < 10:
        raise ValueError(f"n = {n}: need at least 10 samples per input")

    def draw(which):  # in chunks, so a sampler's intermediate arrays stay small
        sizes = [min(CHUNK, n - k) for k in range(0, n, CHUNK)]
        return np.concatenate([np.asarray(sampler(which, m, rng)) for m in sizes])

    sel0, sel1 = draw(0), draw(1)
    ev0, ev1 = draw(0), draw(1)
    fn = score if score is not None else linear_score(sel0, sel1)
    return threshold_audit(fn(sel0), fn(sel1), fn(ev0), fn(ev1), delta, alpha)


def max_certifiable(n: int, delta: float, alpha: float = 0.05) -> float:
    """The largest lower bound ``n`` samples can give (a perfect test: no errors at all)."""
    up = float(clopper_pearson_upper(np.array([0]), n, 1.0 - alpha / 2.0)[0])
    return math.log((1.0 - delta) / up)


__all__ = [
    "AuditResult",
    "audit",
    "clopper_pearson_upper",
    "linear_score",
    "max_certifiable",
    "threshold_audit",
]
