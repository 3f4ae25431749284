"""Binomial shift releases: the certificate and the lower bound of a count that one user moves by
a few units among ``N`` Bernoulli draws (the shuffled bit-sum protocols), from the privacy loss
distribution of the pair of shifted binomials.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .accounting import PLD_INTERVAL, pmf_pair_pld
from .release import LOWER_INTERVAL


def shift_counts(prm, L: float, Delta: float, d: int) -> tuple[tuple[int, int], ...]:
    """``((k, entries), ...)``: the largest count shift one user causes in an entry of P_Vec's
    statistic ``(x r, upper(x x^T))``, ``||x|| <= L``, ``r in [0, 1]``, and how many entries
    have it. An entry whose value moves by ``D`` (value units) moves the user's rounded count
    ``floor(z + U)``, ``z = (v + Delta) g / Delta``, by at most ``ceil(D g / Delta)`` under the
    coupling of the same uniform ``U``: ``D = 2L`` for ``x_k r``, ``L^2`` for ``x_k^2`` and for
    ``x_j x_k`` (range ``[-L^2/2, L^2/2]``)."""
    k_vec = math.ceil(2.0 * L * prm.g / Delta - 1e-9)
    k_mat = math.ceil(L * L * prm.g / Delta - 1e-9)
    return ((k_vec, d), (k_mat, d * (d + 1) // 2))


#: Standard deviations about the mean that :func:`binomial_arrays` keeps: the mass left out is
#: below 1e-20 (a normal tail beyond 9.5 sd is 1e-21; the binomial's is of that order), which
#: :func:`shift_epsilon` takes off delta so that its certificate stays one.
BINOMIAL_SDS = 9.5

#: Mass a :func:`binomial_arrays` array may leave out (both tails together).
BINOMIAL_TAIL = 1e-20


def binomial_window(N, p):
    """The first and last count of :func:`binomial_arrays`' window, ``max(0, floor(mean - w) -
    2)`` and ``min(N, floor(mean + w) + 2)`` for ``w`` :data:`BINOMIAL_SDS` standard deviations
    (as floats; ``N`` and ``p`` scalars or arrays, elementwise)."""
    N, p = np.asarray(N, dtype=float), np.asarray(p, dtype=float)
    mean, w = N * p, BINOMIAL_SDS * np.sqrt(N * p * (1.0 - p))
    return np.maximum(0.0, np.floor(mean - w) - 2.0), np.minimum(N, np.floor(mean + w) + 2.0)


def binomial_pmf(ks: np.ndarray, N: int, p: float) -> np.ndarray:
    """``scipy.stats.binom.pmf(ks, N, p)`` for counts ``ks`` within ``0 .. N`` and ``0 <= p <=
    1``: the same function (``scipy.special``'s binomial pmf, clipped to ``[0, 1]``) without the
    distribution's argument checks, which cost more than the values for short arrays."""
    from scipy.special import _ufuncs

    return np.clip(_ufuncs._binom_pmf(ks, N, p), 0.0, 1.0)


def binomial_arrays(N: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """``Binomial(N, p)`` as ``(counts, probabilities)`` over its mean +- :data:`BINOMIAL_SDS`
    standard deviations (the mass left out is below :data:`BINOMIAL_TAIL`; the whole support for
    small ``N``)."""
    k0, k1 = (int(k) for k in binomial_window(N, p))
    ks = np.arange(k0, k1 + 1)
    probs = binomial_pmf(ks, N, p)
    keep = probs > 0
    return ks[keep], probs[keep]


def _unmatched_mass(p, q) -> float:
    """Mass of ``q = (counts, probabilities)`` on counts where ``p`` has none (infinite loss)."""
    return float(q[1][~_members(q[0], p[0])].sum())


def _members(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``numpy.isin(a, b)``, by binary search where ``b`` is strictly increasing (count arrays
    are)."""
    if b.shape[0] == 0 or not bool(np.all(b[1:] > b[:-1])):
        return np.isin(a, b)
    pos = np.minimum(np.searchsorted(b, a), b.shape[0] - 1)
    return b[pos] == a


def _infinite_at(pairs, delta: float) -> bool:
    """Whether, in either direction, the composed mass with infinite loss of the count pairs
    ``((p, q), count)``, ``1 - prod (1 - m)^count``, exceeds ``delta``."""
    for a, b in ((0, 1), (1, 0)):
        masses = [(min(_unmatched_mass(pq[a], pq[b]), 1.0), c) for pq, c in pairs]
        if any(m >= 1.0 for m, _ in masses):
            return True
        if -math.expm1(sum(c * math.log1p(-m) for m, c in masses)) > delta:
            return True
    return False


def _composed_pld(pairs, pessimistic: bool = True):
    """Privacy loss distribution (both directions) of the composition of the count pairs, losses
    rounded up (``pessimistic``) or down; ``None`` for no pair."""
    from .pld_arrays import compose  # = .compose, faster

    dist = None
    for (p, q), c in pairs:
        # a lower bound stays valid on a coarser grid (losses rounded down): 10x fewer buckets
        step = PLD_INTERVAL if pessimistic else LOWER_INTERVAL
        one = pmf_pair_pld(p, q, count=c, pessimistic=pessimistic, interval=step)
        dist = one if dist is None else compose(dist, one)
    return dist


def pairs_epsilon(pairs, delta: float, pessimistic: bool = True) -> float:
    """Epsilon at ``delta`` of the composition of count pairs ``((p, q), count)`` (both
    directions, privacy loss distributions rounded up, or down with ``pessimistic=False``).

    ``inf`` when, in either direction, the composed mass with infinite loss,
    ``1 - prod (1 - m)^count``, exceeds ``delta`` (decided from the distributions, before any
    privacy loss distribution is built)."""
    from .pld_arrays import epsilon_for_delta

    pairs = [(pq, c) for pq, c in pairs if c > 0]
    if _infinite_at(pairs, delta):
        return math.inf
    dist = _composed_pld(pairs, pessimistic)
    return 0.0 if dist is None else epsilon_for_delta(dist, delta)


@functools.lru_cache(maxsize=1024)
def _shift_pairs(N: int, p: float, shifts: tuple[tuple[int, int], ...]):
    """The count pairs of :func:`shift_epsilon` (cached: the same protocol is asked at several
    deltas)."""
    keys, probs = binomial_arrays(int(N), float(p))
    return tuple((((keys, probs), (keys + k, probs)), c) for k, c in shifts if k > 0)


@functools.lru_cache(maxsize=1024)
def _shift_pld(N: int, p: float, shifts: tuple[tuple[int, int], ...]):
    """The composed privacy loss distribution of :func:`shift_epsilon`, whatever the delta.

    Losses are rounded up to multiples of ``PLD_INTERVAL * max(1, k / sd)`` for the largest
    shift ``k`` and the binomial's standard deviation ``sd``: the loss spans about
    ``2 BINOMIAL_SDS k / sd``, so the number of buckets stays bounded, and the rounding adds at
    most ``count`` intervals to the epsilon (where ``k / sd > 1`` such a pair's epsilon is of
    order ``count k / sd``, so at most 0.1 % of it). Where the binomial's standard deviation
    exceeds :data:`CDF_SD` the pairs are built from its CDF (:func:`_shift_pld_cdf`)."""
    from .pld_arrays import compose  # = .compose, faster

    sd = math.sqrt(N * p * (1.0 - p)) if N > 0 else 1.0
    # one interval for every pair (composition needs equal grids): the largest shift's, and at
    # least the loss range over MAX_BUCKETS (the range is about 2 BINOMIAL_SDS k / sd)
    k_max = max((k for k, _ in shifts), default=0)
    step = max(PLD_INTERVAL * max(1.0, k_max / sd), 2.0 * BINOMIAL_SDS * (k_max / sd) / MAX_BUCKETS)
    dist = None
    if sd > CDF_SD:  # from the binomial's CDF, without pmf arrays (:func:`_shift_pld_cdf`)
        for k, c in shifts:
            if k > 0 and c > 0:
                one = _shift_pld_cdf(N, p, k, c, step)
                dist = one if dist is None else compose(dist, one)
        return dist
    for (a, b), c in _shift_pairs(N, p, shifts):
        one = pmf_pair_pld(a, b, count=c, pessimistic=True, interval=step)
        dist = one if dist is None else compose(dist, one)
    return dist


#: Most loss buckets of one count pair's privacy loss distribution in :func:`_shift_pld`: the
#: interval grows with the loss range beyond it (the certificate then adds at most ``count``
#: such intervals to the epsilon).
MAX_BUCKETS = 20_000

#: Binomial standard deviation from which :func:`shift_epsilon` builds its privacy loss
#: distributions from the binomial's CDF (:func:`_shift_pld_cdf`) instead of from arrays of its
#: pmf (which hold about ``2 BINOMIAL_SDS sd`` entries).
CDF_SD = 2.0e4

#: Mass added to delta's slack of :func:`_shift_pld_cdf` certificates: the binomial CDF's
#: rounding (relative 1e-14 per value, a few thousand values).
CDF_SLACK = 1e-9


def _shift_loss(N: int, p: float, k: int, x: np.ndarray) -> np.ndarray:
    """``f(x) = ln A(x) - ln A(x - k)`` for ``A = Binomial(N, p)`` at integer ``x`` in
    ``[k, N]``: ``sum_j ln((N - x + j + 1) / (x - j)) + k ln(p / (1 - p))``, ``j < k``
    (decreasing in ``x``: ``A`` is log-concave)."""
    j = np.arange(k, dtype=float)
    xs = np.asarray(x, dtype=float)[:, None]
    return (np.log(N - xs + j + 1.0) - np.log(xs - j)).sum(axis=1) + k * math.log(p / (1.0 - p))


def _last_above(N, p, k, lo: int, hi: int, targets: np.ndarray, decreasing: bool) -> np.ndarray:
    """Per target ``t``, the largest integer ``x`` in ``[lo - 1, hi]`` with ``f(x) > t``
    (``decreasing``) or ``-f(x + k) <= t`` (the reverse direction, increasing), by bisection."""
    # invariant: the condition holds at a (or a = lo - 1) and fails at b (or b = hi + 1)
    a = np.full(targets.shape, lo - 1, dtype=np.int64)
    b = np.full(targets.shape, hi + 1, dtype=np.int64)
    while np.any(b - a > 1):
        m = (a + b) // 2
        m_ = np.clip(m, lo, hi)
        if decreasing:
            ok = _shift_loss(N, p, k, m_) > targets
        else:
            ok = -_shift_loss(N, p, k, m_ + k) <= targets
        a, b = np.where(ok, m, a), np.where(ok, b, m)
    return a


def _cdf_moved(N: int, p: float, x: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """``Binomial(N, p)``'s CDF at ``x``, each point where scipy's incomplete beta returns NaN
    (it does, near the median, for ``N`` about 1e16) moved by ``sign`` 1, 2, 4, ... counts until
    it is finite: the moved points and their CDF values. :func:`_shift_pld_cdf` moves a bucket
    boundary only towards lower losses, so the moved mass goes to a larger loss (pessimistic)."""
    from scipy.stats import binom

    x = np.asarray(x, dtype=np.int64).copy()
    out = binom.cdf(x, N, p)
    step = 1
    while np.any(np.isnan(out)):
        bad = np.isnan(out)
        x[bad] += sign * step
        out[bad] = binom.cdf(x[bad], N, p)
        step *= 2
        if step > 2**40:
            raise ArithmeticError(f"Binomial({N}, {p}): no finite CDF near {x[bad][:3]}")
    return x, out


def _shift_pld_cdf(N: int, p: float, k: int, count: int, step: float):
    """Privacy loss distribution (both directions, losses rounded up to multiples of ``step``)
    of ``A = Binomial(N, p)`` against ``A`` shifted by ``k``, composed ``count`` times, from the
    binomial's CDF: the loss ``f`` is monotone in the count, so each loss bucket is an interval
    of counts and its mass a CDF difference (no pmf arrays). Beyond ``BINOMIAL_SDS`` standard
    deviations the mass goes to the infinite loss where the loss grows and to the window's edge
    bucket where it falls: both only raise the divergence, so the epsilon stays a certificate."""
    from scipy.stats import binom

    from .pld_arrays import from_rounded, self_compose

    mean, sd = N * p, math.sqrt(N * p * (1.0 - p))
    lo = max(k, int(math.floor(mean - BINOMIAL_SDS * sd)))
    hi = min(N - k, int(math.ceil(mean + BINOMIAL_SDS * sd)))
    cdf = functools.partial(binom.cdf, n=N, p=p)
    # A against A shifted (upper A): loss f(x), decreasing; x < lo -> infinite
    f_lo, f_hi = _shift_loss(N, p, k, np.array([lo, hi]))
    j = np.arange(math.ceil(f_hi / step), math.ceil(f_lo / step) + 1)
    X = _last_above(N, p, k, lo, hi, j * step, True)  # bucket j: X_j < x <= X_{j-1}
    X, FX = _cdf_moved(N, p, X, +1)  # a larger X_j puts counts in bucket j + 1 (larger loss)
    prev_x, prev_f = hi, float(cdf(hi))
    for i in range(len(X)):  # boundaries stay ordered (a moved one may not pass the previous)
        if X[i] > prev_x:
            X[i], FX[i] = prev_x, prev_f
        prev_x, prev_f = X[i], FX[i]
    mass = np.concatenate([[cdf(hi)], FX[:-1]]) - FX
    mass[0] += 1.0 - cdf(hi)  # x > hi: losses below f(hi), rounded up to the first bucket
    one = dict(zip(j.tolist(), np.maximum(mass, 0.0).tolist(), strict=True))
    inf_one = float(cdf(lo - 1))
    # A shifted against A (upper: A(y), y = x - k): loss -f(y + k), increasing; y > hi -> infinite
    g_lo, g_hi = -_shift_loss(N, p, k, np.array([lo, hi]) + k)
    j2 = np.arange(math.ceil(g_lo / step), math.ceil(g_hi / step) + 1)
    Y = _last_above(N, p, k, lo, hi, j2 * step, False)  # bucket j: Y_{j-1} < y <= Y_j
    Y, FY = _cdf_moved(N, p, Y, -1)  # a smaller Y_j puts counts in bucket j + 1 (larger loss)
    prev_y, prev_f = lo - 1, float(cdf(lo - 1))
    for i in range(len(Y)):
        if Y[i] < prev_y:
            Y[i], FY[i] = prev_y, prev_f
        prev_y, prev_f = Y[i], FY[i]
    mass2 = FY - np.concatenate([[cdf(lo - 1)], FY[:-1]])
    mass2[0] += cdf(lo - 1)  # y < lo: losses below -f(lo + k), rounded up to the first bucket
    two = dict(zip(j2.tolist(), np.maximum(mass2, 0.0).tolist(), strict=True))
    inf_two = float(1.0 - cdf(Y[-1]))
    dist = from_rounded(two, inf_two, one, inf_one, step, True)
    return self_compose(dist, count) if count > 1 else dist


def _mode_total_variation(N: int, p: float, shifts: tuple[tuple[int, int], ...]) -> float:
    """Upper bound on the total variation distance of ``Binomial(N, p)`` counts shifted by ``k``
    in ``count`` entries, composed: ``sum count k p_mode``. A unimodal pmf moved by ``k`` differs
    from itself by at most ``k`` times its largest mass (the positive parts of ``p(x) - p(x-1)``
    add up to ``p_mode``, and a shift by ``k`` is ``k`` shifts by one); distances of independent
    entries add up at most. Needs no arrays, so it decides the huge binomials of the theory
    calibrations (``N`` up to ``1e16``) at once."""
    from scipy.stats import binom

    if N <= 0:
        return math.inf
    top = float(binom.pmf(math.floor((N + 1) * p), N, p))
    return sum(c * k * top for k, c in shifts if k > 0)


def _total_variation(pairs) -> float:
    """Upper bound on the total variation distance of the composed count pairs ``((p, q),
    count)``: the sum over entries of each pair's distance (both on the arrays' counts)."""
    total = 0.0
    for ((ka, pa), (kb, pb)), c in pairs:
        lo = min(int(ka[0]), int(kb[0]))
        a = np.zeros(max(int(ka[-1]), int(kb[-1])) - lo + 1)
        b = np.zeros(len(a))
        a[ka - lo] = pa
        b[kb - lo] = pb
        total += c * 0.5 * float(np.abs(a - b).sum())
    return total


@functools.lru_cache(maxsize=1024)
def shift_epsilon(N: int, p: float, shifts: tuple[tuple[int, int], ...], delta: float) -> float:
    """Epsilon at ``delta`` of ``Binomial(N, p)`` counts shifted by ``k`` in ``count`` entries
    (each ``(k, count)`` of ``shifts``), composed: the certificate of a bit-sum protocol whose
    user moves each entry's count by at most ``k`` (a pair with a smaller shift, or a mixture
    of such shifts, is dominated: the binomial is log-concave, and the hockey-stick divergence
    is jointly convex). ``inf`` when the shifted mass beyond the other's support exceeds
    ``delta`` (e.g. ``N = 0``: no binomial bits)."""
    from .pld_arrays import epsilon_for_delta

    if _mode_total_variation(N, p, shifts) <= delta:
        return 0.0  # delta(0), the total variation distance, is within delta (no arrays needed)
    if N > 0 and math.sqrt(N * p * (1.0 - p)) > CDF_SD:  # huge binomials: from the CDF
        if delta <= CDF_SLACK:
            return math.inf
        return epsilon_for_delta(_shift_pld(N, p, shifts), delta - CDF_SLACK)
    pairs, left_out, decided = shift_pairs_decided(N, p, shifts, delta)
    if decided is not None:
        return decided
    dist = _shift_pld(N, p, shifts)
    return 0.0 if dist is None else epsilon_for_delta(dist, delta - left_out)


def shift_pairs_decided(N: int, p: float, shifts: tuple[tuple[int, int], ...], delta: float):
    """The count pairs of :func:`shift_epsilon` (arrays), the mass their arrays leave out, and the
    epsilon at ``delta`` where it is decided without a privacy loss distribution (``inf``: the
    mass with infinite loss exceeds what is left of ``delta``; 0: the total variation distance
    is within it), else None."""
    pairs = _shift_pairs(N, p, shifts)
    # the binomial's tails left out of the arrays (below BINOMIAL_TAIL each), taken off delta:
    # a pair differing only there is told apart with at most that much more probability
    left_out = sum(c for _, c in pairs) * 2.0 * BINOMIAL_TAIL
    if _infinite_at(pairs, delta - left_out) or delta <= left_out:
        return pairs, left_out, math.inf
    if _total_variation(pairs) <= delta - left_out:
        # delta(0) is the total variation distance, at most the sum of the entries'
        return pairs, left_out, 0.0
    return pairs, left_out, None
