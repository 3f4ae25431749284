"""DP-DPE's shuffle certificate over every part: every phase and every support size.

DP-DPE's shuffle privatizer (dpdpe, Algorithm 2 in every phase, fresh clients per phase) is
calibrated per phase ``l`` (``n_l = ceil(2^(alpha l))`` clients) and per support size ``s`` of
the phase's design (``1 .. floor(S)``, :func:`dpbandits.g_optimal.support_cap`). Its certificate
is the largest over those parts, each a :func:`~dpbandits.privacy.binomial_shift.shift_epsilon` of
``Binomial(n b, p)`` counts shifted by ``k = ceil(g / sqrt(s))`` in ``s`` coordinates. The
discrete knobs ``g`` and ``b`` make it far from monotone in ``s`` (``k`` jumps from 1 to 2 where
``g / sqrt(s)`` passes 1), so no grid of sizes bounds it: every part is certified.

The phases are those whose clients report within the horizon (:func:`released_phases`), so there
are ``L floor(S)`` parts for ``L`` phases (1 854 at ``d = 20``, ``T = 10^6``), each composed
over up to ``floor(S)`` coordinates on the certificate's fine grid. Most are decided without it:

1. a part whose total variation bound (``s k`` times the binomial's largest mass, no arrays) is
   within ``delta`` has epsilon 0;
2. every other part gets a *screen*: the same pair's privacy loss distribution, losses rounded up
   on a coarser grid (:data:`SCREEN_INTERVALS`; an upper bound of the part's epsilon too, with
   far fewer buckets);
3. parts are certified on the fine grid in decreasing order of their screen until the next
   screen is at most the largest certificate so far (a part whose finer screen is at most it
   is passed over). The part with the largest certificate is never passed over (its screens
   are at least its certificate), so the result is the largest certificate of every part,
   whatever the screens' intervals. Every part is then bounded: the certified
   ones by their certificate, the others by a screen below it. The order is a function of the
   values (ties by label), so the result is deterministic.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpbandits.g_optimal import support_cap

from ..mechanisms.shuffle_sum import count_shift, vector_params
from .part_cache import cached_part

#: Loss intervals of the screens' privacy loss distributions (rounded up: upper bounds), coarse
#: then finer, before the certificate's own.
SCREEN_INTERVALS = (5e-3, 1e-3)


def released_phases(T: int, h1: float) -> int:
    """The last phase whose clients report within ``T`` rounds: phase ``l`` plays ``T_l >= h_l =
    h1 2^(l-1)`` rounds (``T_l(x) = ceil(h_l w(x))`` over a design ``w``) and reports only when
    it ends by ``T`` (a cut phase has no clients), so ``h1 (2^l - 1) <= T``."""
    last = 0
    while h1 * (2.0 ** (last + 1) - 1.0) <= T:
        last += 1
    return max(last, 1)


@functools.lru_cache(maxsize=64)
def labels(d: int, phases: int) -> tuple[str, ...]:
    """Every part's label ``l=<l>,s=<s>`` at dimension ``d``, phases ``1 .. phases``."""
    cap = int(math.floor(support_cap(d)))
    return tuple(f"l={l},s={s}" for l in range(1, phases + 1) for s in range(1, cap + 1))


@functools.lru_cache(maxsize=256)
def protocols(eps, delta, d, B, alpha, eps_hat, p_scale, phases) -> dict[tuple, str]:
    """Every part's count view ``(N, p, k, s)`` (``N = n b`` binomial trials, success
    probability ``p``, shift ``k`` in each of ``s`` coordinates), distinct ones only, each with
    the label ``l=<l>,s=<s>`` of its first part (phases, then sizes, increasing)."""
    cap = int(math.floor(support_cap(d)))
    out: dict[tuple, str] = {}
    for l in range(1, phases + 1):
        n = math.ceil(2.0 ** (alpha * l) - 1e-9)
        for s in range(1, cap + 1):
            prm = vector_params(eps, delta, n, s, B * s**0.5, eps_hat, p_scale)
            out.setdefault((prm.n * prm.b, prm.p, count_shift(prm, -B, B), s), f"l={l},s={s}")
    return out


def _total_variation(views: list[tuple]) -> np.ndarray:
    """Per view, its total variation bound ``s k p_mode``
    (:func:`~dpbandits.privacy.binomial_shift._mode_total_variation`, vectorised; ``inf`` without
    binomial trials)."""
    from scipy.stats import binom

    N, p, k, s = (np.array(x, dtype=float) for x in zip(*views, strict=True))
    with np.errstate(invalid="ignore"):
        top = binom.pmf(np.floor((N + 1.0) * p), N, p)
    return np.where(N > 0, s * k * top, np.inf)


@functools.lru_cache(maxsize=65536)
def screen(view: tuple, query: float, interval: float = SCREEN_INTERVALS[0]) -> float:
    """An upper bound of the part's epsilon at ``query``, cheaper than its certificate: the
    pair's privacy loss distribution with losses rounded up to multiples of ``interval``,
    composed over the ``s`` coordinates (``inf`` where the certificate would be; the certificate
    itself for binomials built from their CDF)."""
    from . import binomial_shift as bs
    from .accounting import pmf_pair_pld
    from .pld_arrays import epsilon_for_delta

    N, p, k, s = view
    if N > 0 and math.sqrt(N * p * (1.0 - p)) > bs.CDF_SD:
        return certificate(view, query)
    pairs, left_out, decided = bs.shift_pairs_decided(N, p, ((k, s),), query)
    if decided is not None:
        return decided
    (((a, b), count),) = pairs
    return epsilon_for_delta(
        pmf_pair_pld(a, b, count=count, pessimistic=True, interval=interval),
        query - left_out,
    )


def certificate(view: tuple, query: float) -> float:
    """The part's certificate at ``query``
    (:func:`~dpbandits.privacy.binomial_shift.shift_epsilon`), cached in the process and on disk
    (:data:`~dpbandits.privacy.part_cache.PART_CACHE`)."""
    from .binomial_shift import shift_epsilon

    N, p, k, s = view
    return cached_part(
        f"every|{view!r}|{float(query)!r}", lambda: shift_epsilon(N, p, ((k, s),), query)
    )


def worst(
    eps, delta, d, B, alpha, eps_hat, p_scale, phases, query
) -> tuple[float, dict[str, float]]:
    """The certificate over every part at ``query`` and the parts certified on the fine grid
    (by label), largest first: those whose screen exceeded the certificates before them. Where
    every part is within ``query`` in total variation (epsilon 0), the part closest to it, with
    its 0."""
    views = list(protocols(eps, delta, d, B, alpha, eps_hat, p_scale, phases).items())
    tv = _total_variation([v for v, _ in views])
    live = [
        (screen(v, query), label, v)
        for (v, label), t in zip(views, tv, strict=True)
        if not t <= query
    ]
    if not live:
        return 0.0, {views[int(np.argmax(tv))][1]: 0.0}
    live.sort(key=lambda t: (-t[0], t[1]))
    best, certified = 0.0, {}
    for bound, label, view in live:
        if bound <= best:
            break
        if any(screen(view, query, step) <= best for step in SCREEN_INTERVALS[1:]):
            continue
        value = certificate(view, query)
        certified[label] = value
        best = max(best, value)
    _forget_distributions()
    return best, dict(sorted(certified.items(), key=lambda t: -t[1]))


def _forget_distributions() -> None:
    """Drop the privacy loss distributions and count arrays the parts built (each part is
    certified once or twice; kept, thousands of composed distributions exhaust a job's memory)."""
    from . import binomial_shift as bs

    bs._shift_pld.cache_clear()
    bs._shift_pairs.cache_clear()


def part_epsilon(key: tuple, label: str, query: float) -> float:
    """The certificate of the part ``label`` (``l=<l>,s=<s>``) of the release ``key`` (the first
    eight arguments of :func:`worst`) at ``query``."""
    eps, delta, d, B, alpha, eps_hat, p_scale, _ = key
    l, s = (int(x.split("=")[1]) for x in label.split(","))
    prm = vector_params(
        eps, delta, math.ceil(2.0 ** (alpha * l) - 1e-9), s, B * s**0.5, eps_hat, p_scale
    )
    return certificate((prm.n * prm.b, prm.p, count_shift(prm, -B, B), s), query)
