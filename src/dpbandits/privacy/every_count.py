"""DP-PE's shuffle certificate over every user count.

DP-PE's shuffle privatizer (dpdpe, Appendix C.2: Algorithm 4, the scalar sum at ``eps/2``) sums
the rewards of the ``n`` users who play one action in a phase, with knobs ``g, b, p`` calibrated
per ``n`` (Eq. 60, :func:`~dpbandits.mechanisms.shuffle_sum.scalar_knobs`). ``n`` is the
action's share of its phase's design: any count from 1 to the horizon ``T``. Clients are fresh
in every phase, so the certificate is the largest over ``n = 1 .. T`` of each count's epsilon.
One user at ``-B`` against ``+B`` moves the count of ones by at most ``g``, so each count's view
is ``A = Binomial(n b, p)`` against ``A + g``: the pair of
:func:`~dpbandits.privacy.binomial_shift.shift_epsilon` in one coordinate. Every count is
bounded without privacy loss distributions, vectorised over ``n``:

1. a count whose total variation bound ``g max_k P(A = k)`` is within delta has epsilon 0;
2. otherwise the privacy loss of ``A + g`` against ``A``, ``l(i) = ln P(A = i - g) - ln P(A =
   i)``, increases in ``i`` (``A`` is log-concave), so ``delta(eps) = P(A >= j - g) - e^eps
   P(A >= j)`` at ``j = min{i : l(i) > eps}``. The binomial's tails are bounded on both sides by
   the universal inequalities of Zubkov & Serov (Theory Probab. Appl. 57(3), 2013: ``Phi(z_k)
   <= P(A <= k) <= Phi(z_{k+1})`` with ``z_k = sign(k - N p) sqrt(2 N KL(k/N || p))``, every
   ``N, p, k``). The epsilon is the fixed point of ``eps -> ln((upper(j - g) - delta) /
   lower(j))`` iterated from 0: it increases, and where ``j`` no longer moves ``delta(eps) <=
   upper(j - g) - e^eps lower(j) = delta``. The reverse pair is the same with ``p -> 1 - p``
   (``N - A`` is ``Binomial(N, 1 - p)``).

These bounds exceed the exact epsilon by about the tails' relative width, ``|z| / sd`` for the
binomial's standard deviation ``sd`` (a few per cent at ``sd`` about 100). A count with ``sd`` up
to :data:`SD_ARRAYS` is bounded from its pmf's arrays instead (exact tails: the epsilon is the
largest over ``j`` of ``ln((P(A >= j - g) - delta) / P(A >= j))``, each of them a lower bound that
the optimal ``j`` attains; the mass outside the arrays, bounded by the normal bounds, is added to
the numerator). :data:`SLACK` is taken off delta for the floating-point rounding of the loss and
the normal tails, :data:`REL` off the arrays' sums.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import numpy as np
from numba import njit

from ..mechanisms.shuffle_sum import scalar_knobs
from .part_cache import cached_part, flush_part_cache

#: Mass taken off delta for rounding (the loss to about 1e-12, the tails to 1e-15 relative).
SLACK = 1e-9

#: Binomial standard deviation up to which a count's tails come from its pmf arrays (about
#: ``2 BINOMIAL_SDS sd`` entries each).
SD_ARRAYS = 1000.0

#: Relative error allowed for a window's tail sums (:func:`from_arrays`): the mode's mass from
#: log-gammas of ``N`` up to :data:`N_ARRAYS` (about ``1e-16 N ln N`` each, below 1e-5 together
#: up to 1e9), the others by the ratios of successive masses, and sums of a few ``10^4`` terms.
REL = 1e-5

#: Most binomial draws whose tails :func:`from_arrays` sums (beyond, the normal bounds).
N_ARRAYS = 1e9

#: Counts per vectorised block (bounds the arrays' memory).
BLOCK = 1 << 14

#: Most steps of the fixed-point iteration; a count not settled by then is bounded by ``inf``.
MAX_STEPS = 200


def _stirling(x: np.ndarray) -> np.ndarray:
    """``ln Gamma(x) - (x - 1/2) ln x + x - ln(2 pi)/2`` to ``O(x^-7)`` (``x >= 10``)."""
    x2 = x * x
    return 1.0 / (12.0 * x) - 1.0 / (360.0 * x * x2) + 1.0 / (1260.0 * x * x2 * x2)


def lgamma_step(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``ln Gamma(a + g) - ln Gamma(a)`` for ``a >= 1``, ``g >= 0``, without the cancellation of
    two huge log-gammas: ``g ln a + (a + g - 1/2) ln(1 + g/a) - g`` plus Stirling's corrections
    for ``a >= 10``, scipy's ``gammaln`` below."""
    from scipy.special import gammaln

    a, g = np.asarray(a, dtype=float), np.asarray(g, dtype=float)
    big = a >= 10.0
    ab = np.where(big, a, 10.0)
    stirling = (
        g * np.log(ab) + (ab + g - 0.5) * np.log1p(g / ab) - g + _stirling(ab + g) - _stirling(ab)
    )
    a_small = np.where(big, 1.0, a)
    return np.where(big, stirling, gammaln(a_small + g) - gammaln(a_small))


def shift_loss(i: np.ndarray, N: np.ndarray, p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``l(i) = ln P(A = i - g) - ln P(A = i)`` for ``A = Binomial(N, p)`` and integer ``i`` in
    ``[g, N]``: ``ln Gamma(i + 1) - ln Gamma(i - g + 1) - ln Gamma(N - i + g + 1) + ln Gamma(N - i
    + 1) + g ln((1 - p)/p)``, increasing in ``i``."""
    return (
        lgamma_step(i - g + 1.0, g) - lgamma_step(N - i + 1.0, g) + g * (np.log1p(-p) - np.log(p))
    )


def _signed_root(k: np.ndarray, N: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``z_k = sign(k - N p) sqrt(2 N KL(k/N || p))`` for integer ``k`` in ``[0, N]``."""
    x = k / N
    d = (k - N * p) / N  # x - p, without subtracting two close fractions
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = x * np.log1p(d / p) + (1.0 - x) * np.log1p(-d / (1.0 - p))
    kl = np.where(x <= 0.0, -np.log1p(-p), np.where(x >= 1.0, -np.log(p), kl))
    return np.sign(d) * np.sqrt(np.maximum(2.0 * N * kl, 0.0))


def log_tails(j: np.ndarray, N: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Logs of a lower and an upper bound of ``P(A >= j)``, ``A = Binomial(N, p)``, for integer
    ``j``: ``Phi(-z_j)`` and ``Phi(-z_{j-1})`` (Zubkov & Serov), exact (0 and ``-inf``) outside
    ``[1, N]``."""
    from scipy.special import log_ndtr

    j = np.asarray(j, dtype=float)
    inside = (j >= 1.0) & (j <= N)
    jj = np.clip(j, 1.0, N)
    lower = log_ndtr(-_signed_root(jj, N, p))
    upper = log_ndtr(-_signed_root(jj - 1.0, N, p))
    outside = np.where(j < 1.0, 0.0, -np.inf)
    return np.where(inside, lower, outside), np.where(inside, upper, outside)


def _first_above(eps, N, p, g, a):
    """``min{i : l(i) > eps}`` in ``[g, N + 1]`` (``N + 1``: none), from ``a`` with ``l(a) <=
    eps`` (or ``a = g - 1``): doubling steps, then bisection."""
    top = N + 1.0

    def above(i):
        return (i > N) | (shift_loss(np.clip(i, g, N), N, p, g) > eps)

    step = np.ones_like(a)
    b = np.minimum(a + step, top)
    todo = ~above(b)
    while np.any(todo):  # l(b) <= eps: move a up, double the step
        a = np.where(todo, b, a)
        step = np.where(todo, 2.0 * step, step)
        b = np.where(todo, np.minimum(a + step, top), b)
        todo = todo & ~above(b)
    while True:  # l(a) <= eps < l(b)
        open_ = b - a > 1.0
        if not np.any(open_):
            return b
        m = np.floor((a + b) / 2.0)
        up = above(m)
        a = np.where(open_ & ~up, m, a)
        b = np.where(open_ & up, m, b)


def one_direction(N, p, g, delta: float) -> np.ndarray:
    """Upper bound of the epsilon at ``delta`` of ``A + g`` against ``A``, ``A = Binomial(N, p)``,
    per entry (the module's fixed point; ``inf`` where no finite epsilon is certified)."""
    N, p, g = (np.asarray(x, dtype=float) for x in (N, p, g))
    target = delta - SLACK
    eps = np.zeros(N.shape)
    a = g - 1.0
    todo = np.ones(N.shape, dtype=bool)
    for _ in range(MAX_STEPS):
        if not np.any(todo):
            return eps
        i = np.flatnonzero(todo)
        Ni, pi, gi, ei = N[i], p[i], g[i], eps[i]
        j = _first_above(ei, Ni, pi, gi, a[i])
        lower_j, _ = log_tails(j, Ni, pi)
        _, upper_jg = log_tails(j - gi, Ni, pi)
        excess = np.exp(upper_jg) - target
        with np.errstate(divide="ignore"):
            nxt = np.where(excess > 0.0, np.log(np.maximum(excess, 1e-300)) - lower_j, -np.inf)
        settled = nxt <= ei  # then delta(eps) <= upper(j - g) - e^eps lower(j) <= delta
        moved = i[~settled]
        eps[moved] = nxt[~settled]
        a[moved] = np.where(np.isfinite(nxt[~settled]), j[~settled] - 1.0, a[moved])
        todo[i[settled]] = False
        todo[moved[np.isinf(eps[moved])]] = False
    eps[todo] = math.inf
    return eps


@njit(cache=True)
def _window_epsilon(N, p, g, target, k0, k1, right, left, rel):  # pragma: no cover - compiled
    """:func:`from_arrays`' maximum over ``j`` in both directions (``A + g`` against ``A``: upper
    tails; ``A`` against ``A + g``: the lower tails, ``N - A`` being ``Binomial(N, 1 - p)``)."""
    m = k1 - k0 + 1
    pmf = np.empty(m)
    # the mode's mass from log-gammas, the others by the ratios P(k + 1) / P(k) from it
    mode = min(max(int(math.floor((N + 1.0) * p)), k0), k1)
    lp, lq = math.log(p), math.log1p(-p)
    pmf[mode - k0] = math.exp(
        math.lgamma(N + 1.0)
        - math.lgamma(mode + 1.0)
        - math.lgamma(N - mode + 1.0)
        + mode * lp
        + (N - mode) * lq
    )
    odds = p / (1.0 - p)
    for k in range(mode, k1):
        pmf[k + 1 - k0] = pmf[k - k0] * ((N - k) / (k + 1.0)) * odds
    for k in range(mode, k0, -1):
        pmf[k - 1 - k0] = pmf[k - k0] * (k / (N - k + 1.0)) / odds
    best = 1.0  # the largest ratio upper(j - g) - delta over lower(j): epsilon = its log
    tail = np.empty(m)
    for direction in range(2):
        s = 0.0
        if direction == 0:  # tail[i] = P(k0 + i <= A <= k1), beyond: right
            for i in range(m - 1, -1, -1):
                s += pmf[i]
                tail[i] = s
            out = right
        else:  # the same for N - A (window N - k1 .. N - k0), beyond: left
            for i in range(m):
                s += pmf[i]
                tail[m - 1 - i] = s
            out = left
        best = max(best, (1.0 - target) / (tail[0] * (1.0 - rel)))  # every j before the window
        for i in range(m + g):  # j = window start + i
            lower = tail[i] * (1.0 - rel) if i < m else 0.0
            ig = i - g
            if ig < 0:
                upper = 1.0
            elif ig < m:
                upper = tail[ig] * (1.0 + rel) + out
            else:
                upper = out
            excess = upper - target
            if excess > 0.0:
                if lower <= 0.0:
                    return math.inf
                best = max(best, excess / lower)
    return math.log(best)


@njit(cache=True)
def _window_epsilons(N, p, g, target, k0, k1, right, left, rel):  # pragma: no cover - compiled
    """:func:`_window_epsilon` of every entry."""
    out = np.empty(len(N))
    for i in range(len(N)):
        out[i] = _window_epsilon(N[i], p[i], g[i], target, k0[i], k1[i], right[i], left[i], rel)
    return out


def from_arrays(N, p, g, delta: float) -> np.ndarray:
    """Per entry, the epsilon at ``delta`` of ``A + g`` against ``A`` and of ``A`` against ``A +
    g`` (the larger), ``A = Binomial(N, p)``, from its pmf within
    :data:`~dpbandits.privacy.binomial_shift.BINOMIAL_SDS` standard deviations of the mean
    (the tail sums within :data:`REL`) and Zubkov & Serov's bounds on the mass outside
    (:func:`log_tails`): the largest over every integer ``j`` of ``ln((upper(j - g) - delta) /
    lower(j))`` (``inf`` where the numerator is positive and the lower tail 0)."""
    from .binomial_shift import binomial_window

    N, p, g = (np.atleast_1d(np.asarray(x, dtype=float)) for x in (N, p, g))
    k0, k1 = binomial_window(N, p)
    right = np.exp(log_tails(k1 + 1.0, N, p)[1])  # P(A > k1), an upper bound
    left = -np.expm1(log_tails(k0, N, p)[0])  # P(A < k0), an upper bound
    ints = (x.astype(np.int64) for x in (g, k0, k1))
    g_, k0_, k1_ = ints
    return _window_epsilons(N, p, g_, delta - SLACK, k0_, k1_, right, left, REL)


def count_epsilons(eps, delta, B, p_scale, counts, query) -> np.ndarray:
    """Per user count of ``counts``: an upper bound of DP-PE's scalar protocol's epsilon at
    ``query`` (calibrated at ``eps, delta`` with binomial noise scale ``p_scale``), both
    directions (the module's steps 1 and 2)."""
    from scipy.stats import binom

    n = np.asarray(counts, dtype=float)
    out = np.zeros(n.shape)
    for s in range(0, len(n), BLOCK):
        _, _, g, b, p = scalar_knobs(eps, delta, n[s : s + BLOCK], B, p_scale)
        N = n[s : s + BLOCK] * b
        top = binom.pmf(np.floor((N + 1.0) * p), N, p)
        open_ = g * top > query  # step 1: within delta in total variation -> 0
        small = open_ & (np.sqrt(N * p * (1.0 - p)) <= SD_ARRAYS) & (N <= N_ARRAYS)
        if np.any(small):
            out[s + np.flatnonzero(small)] = from_arrays(N[small], p[small], g[small], query)
        big = open_ & ~small
        if np.any(big):
            N, p, g = N[big], p[big], g[big]
            block = np.maximum(one_direction(N, p, g, query), one_direction(N, 1.0 - p, g, query))
            out[s + np.flatnonzero(big)] = np.maximum(block, 0.0)
    return out


@functools.lru_cache(maxsize=256)
def _worst(eps, delta, B, p_scale, n_max: int, query) -> tuple[float, int]:
    values = count_epsilons(eps, delta, B, p_scale, np.arange(1, int(n_max) + 1), query)
    at = int(np.argmax(values))  # the first largest: deterministic
    return float(values[at]), at + 1


def worst(eps, delta, B, p_scale, n_max: int, query) -> float:
    """DP-PE's certificate at ``query``: the largest of :func:`count_epsilons` over ``1 ..
    n_max`` users (kept on disk with the other parts, :mod:`dpbandits.privacy.part_cache`)."""
    key = f"every_count|{(eps, delta, B, p_scale, int(n_max))!r}|{float(query)!r}"
    value = cached_part(key, lambda: _worst(eps, delta, B, p_scale, n_max, query)[0])
    flush_part_cache()
    return value


def worst_parts(eps, delta, B, p_scale, n_max: int, query) -> tuple[float, dict[str, float]]:
    """:func:`worst` and the counts that reach it, by :func:`labels`' label (a matched
    calibration's search starts from them: :mod:`dpbandits.privacy.matching`)."""
    value, n = _worst(eps, delta, B, p_scale, n_max, query)
    return value, {f"n={n}": value}


def part_epsilon(eps, delta, B, p_scale, label: str, query) -> float:
    """One count's bound (``label``: ``n=<users>``)."""
    n = int(label.removeprefix("n="))
    return float(count_epsilons(eps, delta, B, p_scale, [n], query)[0])


class CountParts(Mapping):
    """The parts of :func:`worst` by label, ``n=<users>`` for ``1 .. n_max``, each a callable
    ``query -> epsilon`` (:func:`part_epsilon`), made when asked (there are up to ``T``)."""

    def __init__(self, eps, delta, B, p_scale, n_max: int):
        self._key, self._n = (eps, delta, B, p_scale), int(n_max)

    def __getitem__(self, label: str):
        digits = label.removeprefix("n=") if isinstance(label, str) else ""
        n = int(digits) if digits.isdigit() else 0
        if not 1 <= n <= self._n or label != f"n={n}":
            raise KeyError(label)
        return functools.partial(part_epsilon, *self._key, label)

    def __iter__(self):
        return (f"n={n}" for n in range(1, self._n + 1))

    def __len__(self) -> int:
        return self._n
