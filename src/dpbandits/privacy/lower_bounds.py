"""Lower bounds on the epsilon of a release at its delta: from the privacy loss of the shuffled
Gaussian protocol's statistics (the maximum and the likelihood-ratio sums of the users' reports,
the other users at the first input or at a third one), composed over the rounds; a lower bound
above the label makes a row VIOLATED.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .accounting import pmf_pair_pld
from .release import LOWER_INTERVAL, Release, delivered_epsilon


def lower_epsilon(release: Release, delta: float, upper: float | None = None) -> tuple[float, str]:
    """A lower bound on the true epsilon at ``delta`` of the mechanism the release describes,
    and how it is obtained; ``nan`` with the reason (``extra["no_lower"]`` or the default) where
    none is known.

    * not private: ``inf`` (the release's notes say which pair has no finite epsilon);
    * ``extra["lower_at"]``: the release's own lower bound (e.g. exact count distributions of a
      pair of neighbouring inputs, :func:`vec_release`);
    * ``tight`` (a realizable pair attains the certified bound): the upper bound itself;
    * shuffled Gaussian messages (``shuffle_n``): :func:`shuffled_gaussian_lower`, a
      post-processing of the shuffled multisets.

    ``upper``: :func:`delivered_epsilon` at ``delta`` if the caller has it (not recomputed).
    """
    if not release.private:
        return math.inf, "no finite epsilon (a pair of inputs is told apart, see notes)"
    if "lower_at" in release.extra:
        return float(release.extra["lower_at"](delta)), release.extra.get("lower_method", "")
    if release.shuffle_n and "shuffle_parts" in release.extra:
        return shuffled_gaussian_lower(
            release.extra["shuffle_parts"],
            release.shuffle_n,
            delta,
            release.extra.get("shuffle_apex"),
        )
    if release.tight and not release.shuffle_n:
        eps = delivered_epsilon(release, delta)[0] if upper is None else upper
        return eps, "exact: a neighbouring pair attains it"
    return math.nan, "none known: " + (
        release.extra.get("no_lower")
        or "no pair of inputs is known to attain the sensitivity the certificate uses"
    )


#: Bins of the maximum statistic in :func:`shuffled_gaussian_lower` (a finer grid can only
#: raise the bound: binning is a post-processing).
MAX_STAT_BINS = 2000


def _max_stat_pair(r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Binned distributions of ``max_i <w, m_i>`` over ``n`` shuffled unit-variance Gaussian
    messages, all at 0 (``D0``: every user holds the first input) or one at ``r`` (``D1``).

    The grid stays where both distributions have representable mass (``|tau| <= 37`` about each
    mean), tail masses come from survival functions, and a bin empty under either distribution
    is merged into the next: a coarser binning, still a post-processing."""
    from scipy.special import log_ndtr

    lo, hi = max(-9.0, r - 37.0), min(r + 9.0, 37.0)
    tau = np.linspace(lo, max(hi, lo + 1.0), MAX_STAT_BINS + 1)
    out = []
    for logF in (n * log_ndtr(tau), log_ndtr(tau - r) + (n - 1) * log_ndtr(tau)):
        F, S = np.exp(logF), -np.expm1(logF)
        mid = np.where(F[1:] < 0.5, F[1:] - F[:-1], S[:-1] - S[1:])
        out.append(np.maximum(np.concatenate([[F[0]], mid, [S[-1]]]), 0.0))
    p, q = out
    keep_p, keep_q, acc_p, acc_q = [], [], 0.0, 0.0
    for a, b in zip(p, q, strict=True):
        acc_p, acc_q = acc_p + a, acc_q + b
        if acc_p > 0 and acc_q > 0:
            keep_p.append(acc_p)
            keep_q.append(acc_q)
            acc_p = acc_q = 0.0
    if keep_p:
        keep_p[-1] += acc_p
        keep_q[-1] += acc_q
    return np.array(keep_p), np.array(keep_q)


#: Levels of the quantised likelihood ratio in :func:`_lr_sum_pair` (a finer grid can only raise
#: the bound: quantising each message is a post-processing).
LR_SUM_LEVELS = 1000

#: Half-width, in standard deviations about the shifted and unshifted means, of the range in which
#: :func:`_lr_sum_pair` quantises the likelihood ratio; beyond it the ratio is clipped.
LR_SUM_RANGE = 4.0

#: Largest batch for which :func:`shuffled_gaussian_lower` convolves the likelihood-ratio sum
#: (exact convolutions cost ``n^2`` times :data:`LR_SUM_LEVELS`); in larger batches the sum of the
#: ratios is close to the sum of the messages (a central limit), whose bound is computed anyway.
LR_SUM_MAX_N = 64

#: Largest whitened distance at which the likelihood-ratio sum is convolved: beyond it the
#: largest message decides the optimal test (and the ratio's range overflows a float).
LR_SUM_MAX_R = 6.0


def _one_differs(
    others: np.ndarray, one_1: np.ndarray, one_0: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """The pmf pair ``(P, Q)`` of a sum of ``n`` independent per-message levels: ``n - 1``
    messages with pmf ``others`` and the differing user's with ``one_1`` (``P``) or ``one_0``
    (``Q``); exact convolutions, levels that neither side reaches dropped, each side
    normalised."""
    rest = np.ones(1)
    for _ in range(n - 1):
        rest = np.convolve(rest, others)
    P, Q = np.convolve(rest, one_1), np.convolve(rest, one_0)
    keep = (P > 0) | (Q > 0)
    return P[keep] / P.sum(), Q[keep] / Q.sum()


def _lr_sum_pair(r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Distributions of ``sum_i h(<w, m_i>)`` over ``n`` shuffled unit-variance Gaussian
    messages, all at 0 (``D0``) or one at ``r`` (``D1``), where ``h`` is the single message's
    likelihood ratio ``exp(r y - r^2 / 2)``, clipped to its values at ``y = -W`` and ``y = r + W``
    (``W`` = :data:`LR_SUM_RANGE`) and rounded down to one of :data:`LR_SUM_LEVELS` equal steps
    (its index).

    The optimal statistic of a shuffled multiset with one shifted message is the sum of the
    messages' likelihood ratios; ``h`` is a function of one message, so the sum of its values is a
    post-processing of the multiset and its distribution an exact convolution of ``h``'s pmf
    (``n`` copies under ``D0``; ``n - 1`` and one shifted under ``D1``).
    """
    from scipy.special import ndtr

    W = LR_SUM_RANGE
    g_lo, g_hi = math.exp(-r * W - r * r / 2), math.exp(r * (r + W) - r * r / 2)
    levels = np.linspace(g_lo, g_hi, LR_SUM_LEVELS + 1)
    y = (np.log(levels) + r * r / 2) / r  # message values where h steps up
    q = np.diff(np.concatenate([[0.0], ndtr(y), [1.0]]))
    p = np.diff(np.concatenate([[0.0], ndtr(y - r), [1.0]]))
    return _one_differs(q, p, q, n)


#: Cells per axis of the plane grid on which :func:`_plane_sum_pair` evaluates one message's
#: statistic (the grid spans the three means and :data:`PLANE_RANGE` standard deviations about
#: them; beyond it one cell per side reaches to infinity).
PLANE_CELLS = 300

#: Half-width, in standard deviations, of the grid of :func:`_plane_sum_pair` about the means.
PLANE_RANGE = 5.0

#: Levels of one message's statistic in :func:`_plane_sum_pair` (a range holding all but
#: :data:`PLANE_TAIL` of its mass under each of the three means; values outside are clipped).
PLANE_LEVELS = 1000

#: Mass left outside the quantised range of :func:`_plane_sum_pair`, per side.
PLANE_TAIL = 1e-5

#: Thresholds ``t`` of the likelihood-ratio differences :func:`shuffled_gaussian_lower` tries
#: with the other users at a third input (each gives a valid bound; the largest is kept).
APEX_THRESHOLDS = (1.0, 1.05, 1.1, 1.2)


@functools.lru_cache(maxsize=256)
def _plane_sum_pair(base: float, side: float, n: int, t: float) -> tuple[np.ndarray, np.ndarray]:
    """Distributions of ``sum_i g(m_i)`` over ``n`` shuffled unit-variance Gaussian messages:
    ``n - 1`` at a third input ``c`` and the differing user's at ``a0`` (``D0``) or ``a1``
    (``D1``), the whitened means forming an isosceles triangle in the plane they span
    (``|a1 - a0| = base``, ``|a0 - c| = |a1 - c| = side``).

    ``g = h1 - t h0`` with ``h_k(m) = exp(<m - c, a_k - c> - |a_k - c|^2 / 2)`` (the likelihood
    ratio of one message at ``a_k`` against ``c``): the multiset's likelihood ratio of ``D1``
    against ``D0`` is ``sum h1 / sum h0``, so ``sum g > 0`` is its Neyman-Pearson event at ``t``.
    ``g`` is evaluated once per cell of a grid on the plane (:data:`PLANE_CELLS`) and rounded to
    one of :data:`PLANE_LEVELS` steps: a fixed function of each message, so the sum is a
    post-processing of the shuffled multiset, and its distribution is an exact convolution of
    the cells' probabilities (products of normal CDF differences, each from the nearer tail: the
    plane coordinates of a whitened message are independent).
    """
    from scipy.special import ndtr

    h = math.sqrt(max(side * side - base * base / 4.0, 0.0))
    c, a0, a1 = np.zeros(2), np.array([h, -base / 2.0]), np.array([h, base / 2.0])
    pts = np.array([c, a0, a1])
    lo, hi = pts.min(axis=0) - PLANE_RANGE, pts.max(axis=0) + PLANE_RANGE
    edges, mids = [], []
    for j in range(2):
        inner = np.linspace(lo[j], hi[j], PLANE_CELLS + 1)
        edges.append(np.concatenate([[-np.inf], inner, [np.inf]]))
        mids.append(np.concatenate([[lo[j] - 0.5], (inner[1:] + inner[:-1]) / 2, [hi[j] + 0.5]]))
    M = np.stack(np.meshgrid(mids[0], mids[1], indexing="ij"), axis=-1)

    def ratio(a):
        return np.exp(M @ a - a @ a / 2.0)

    g = (ratio(a1) - t * ratio(a0)).ravel()

    def masses(e):  # P(e_j < X < e_{j+1}), X ~ N(0, 1): from the nearer tail (no cancellation)
        upper = e[:-1] >= 0
        return np.where(upper, ndtr(-e[:-1]) - ndtr(-e[1:]), ndtr(e[1:]) - ndtr(e[:-1]))

    def cells(mu):
        return np.outer(masses(edges[0] - mu[0]), masses(edges[1] - mu[1])).ravel()

    weights = [cells(mu) for mu in pts]
    order = np.argsort(g, kind="stable")
    mass = np.cumsum(sum(weights)[order]) / 3.0
    g_lo = g[order][min(np.searchsorted(mass, PLANE_TAIL), g.size - 1)]
    g_hi = g[order][min(np.searchsorted(mass, 1.0 - PLANE_TAIL), g.size - 1)]
    span = g_hi - g_lo if g_hi > g_lo else 1.0
    level = np.clip(((g - g_lo) / span * PLANE_LEVELS).astype(np.int64), 0, PLANE_LEVELS)
    pmf_c, pmf_0, pmf_1 = (
        np.bincount(level, weights=w, minlength=PLANE_LEVELS + 1) for w in weights
    )
    return _one_differs(pmf_c, pmf_1, pmf_0, n)


@functools.lru_cache(maxsize=1024)
def shuffled_gaussian_lower(
    parts: tuple[float, ...], n: int, delta: float, apex: tuple[float, ...] | None = None
) -> tuple[float, str]:
    """Lower bound on the epsilon of ``n`` users' Gaussian messages shuffled, one multiset per
    part (CZ22 Algorithm 1 shuffles the vector and the matrix messages separately).

    ``parts``: the whitened distances ``||m1 - m0|| / sigma`` of the differing user's messages in
    each part for a pair of neighbouring inputs the universe contains. ``apex`` (optional): per
    part, the whitened distance from a third input of the universe to both inputs of the pair
    (the same in both). Post-processings of the shuffled multisets, each a valid lower bound;
    the largest is returned:

    * the sum of each multiset (all users' statistics plus ``N(0, n sigma^2)`` per entry): a
      Gaussian mechanism of ratio ``||r|| / sqrt(n)`` (exact, :func:`gaussian_epsilon`);
    * the largest projection of each multiset on its difference direction, every other user
      holding the first input: the parts' maxima are independent, their binned distributions are
      composed by privacy loss distributions rounded down (a lower bound of the binned pair's
      epsilon, itself a post-processing);
    * the sum of each multiset's quantised likelihood ratios (:func:`_lr_sum_pair`), the same
      pair, composed the same way: close to the optimal test where the messages are noisy
      (small ``r``), where the maximum is weak;
    * with ``apex``: every other user at the third input, where the differing message stands out
      from theirs; per threshold of :data:`APEX_THRESHOLDS`, the sum of each multiset's
      likelihood-ratio differences (:func:`_plane_sum_pair`), composed the same way.
    """
    from .accounting import gaussian_epsilon

    total = math.sqrt(sum(r * r for r in parts))
    summed = gaussian_epsilon(math.sqrt(n), total, delta)
    small = n <= LR_SUM_MAX_N
    found = {  # (statistic, where the other users are): its bound
        ("largest projection", "the first input"): _composed_lower(
            [_max_stat_pair(r, n) for r in parts], delta
        ),
        ("sum of quantised likelihood ratios", "the first input"): _composed_lower(
            [_lr_sum_pair(r, n) for r in parts if 0 < r <= LR_SUM_MAX_R] if small else [],
            delta,
        ),
    }
    if apex is not None and small and max(parts) <= LR_SUM_MAX_R:
        found[("sum of likelihood-ratio differences", "a third input")] = max(
            _composed_lower(
                [_plane_sum_pair(r, s, n, t) for r, s in zip(parts, apex, strict=True) if r > 0],
                delta,
            )
            for t in APEX_THRESHOLDS
        )
    (name, others), best = max(found.items(), key=lambda kv: kv[1])
    if summed >= best:
        return summed, f"Gaussian mechanism of the shuffled batch's sum (n = {n})"
    return best, f"{name} per shuffled multiset, others at {others} (n = {n})"


def _composed_lower(pairs: list[tuple[np.ndarray, np.ndarray]], delta: float) -> float:
    """Epsilon at ``delta`` of independent pmf pairs composed (losses rounded down): a lower bound
    of the composed mechanism's epsilon; the largest single pair's where dp-accounting cannot
    compose (a pmf without finite losses)."""
    from .pld_arrays import compose, epsilon_for_delta

    if not pairs:
        return 0.0
    plds = [pmf_pair_pld(p, q, pessimistic=False, interval=LOWER_INTERVAL) for p, q in pairs]
    best = max(epsilon_for_delta(one, delta) for one in plds)  # each part alone is a bound
    if len(plds) > 1 and math.isfinite(best):
        try:
            dist = plds[0]
            for one in plds[1:]:
                dist = compose(dist, one)
            best = max(best, epsilon_for_delta(dist, delta))
        except IndexError:  # dp-accounting cannot compose a pmf without finite losses
            pass
    return best
