"""The shuffled scalar and vector sums of DP-DPE's privatizers (dpdpe): the certificate of
each phase's part from the exact count pmfs, its worst case over phases, and the cache of the
parts shared by a matched calibration's search and the privacy rows.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from dpbandits.g_optimal import support_cap

from ..mechanisms.shuffle_sum import count_shift, scalar_params, vector_params
from ..policies.dpdpe import pe_sigma_noise, sigma_nl
from .accounting import Component, pmf_pair_pld
from .binomial_shift import shift_epsilon
from .part_cache import cached_part, flush_part_cache
from .release import Release, Universe


def count_pmf_pair(prm, lo: float, hi: float) -> tuple[dict, dict]:
    """Distributions of one coordinate's count of ones when one client's input is ``lo`` or
    ``hi`` and every other client's encoding is an integer (no rounding noise): the client's
    ``floor(z) + Bernoulli(frac(z))`` plus ``Binomial(n b, p)`` (shuffle_sum count level, I5-I7).
    Returned as ``{count: probability}`` over the binomial's mean +- 14 standard deviations (the
    mass left out is below 1e-40); :func:`count_pmf_arrays` as arrays."""
    return tuple(
        dict(zip(keys.tolist(), probs.tolist(), strict=True))
        for keys, probs in count_pmf_arrays(prm, lo, hi)
    )


def count_pmf_arrays(prm, lo: float, hi: float):
    """:func:`count_pmf_pair` as ``(counts, probabilities)`` array pairs (positive masses, in
    increasing count)."""
    from scipy.stats import binom

    N = prm.n * prm.b
    mean, sd = N * prm.p, math.sqrt(N * prm.p * (1.0 - prm.p))
    k0 = max(0, int(mean - 14.0 * sd) - 2)
    k1 = min(N, int(mean + 14.0 * sd) + 2)
    base = binom.pmf(np.arange(k0, k1 + 1), N, prm.p)
    out = []
    for y in (lo, hi):
        z = (y + prm.shift) * prm.g / prm.scale
        f = math.floor(z)
        q = z - f
        pmf = np.zeros(k1 - k0 + 2)
        pmf[:-1] += (1.0 - q) * base
        pmf[1:] += q * base
        keep = np.flatnonzero(pmf > 0)
        out.append((k0 + f + keep, pmf[keep]))
    return out[0], out[1]


@functools.lru_cache(maxsize=4096)
def _shuffle_pld(prm, lo: float, hi: float, coords: int, pessimistic: bool = True):
    """Privacy loss distribution of the count view, both directions (cached per protocol)."""
    return pmf_pair_pld(*count_pmf_arrays(prm, lo, hi), count=coords, pessimistic=pessimistic)


def shuffle_sum_epsilon(
    prm, delta: float, lo: float, hi: float, coords: int, pessimistic: bool = True
) -> float:
    """Epsilon at ``delta`` of the shuffler's view (counts of ones) of a bit-sum protocol for the
    pair ``lo``/``hi`` in each of ``coords`` coordinates (composed), by privacy loss
    distributions of the exact count distributions (:func:`count_pmf_pair`), both directions:
    an upper bound of this pair's epsilon (``pessimistic``) or a lower bound (``False``), hence
    of the protocol's."""
    from .pld_arrays import epsilon_for_delta  # = .get_epsilon_for_delta, compiled

    return epsilon_for_delta(_shuffle_pld(prm, lo, hi, coords, pessimistic), delta)


def shuffle_sum_certificate(prm, delta: float, lo: float, hi: float, coords: int) -> float:
    """Certified epsilon at ``delta`` of a bit-sum protocol whose inputs lie in ``[lo, hi]`` per
    coordinate: :func:`shift_epsilon` of ``Binomial(n b, p)`` shifted by
    ``ceil((hi - lo) g / scale)`` in each of ``coords`` coordinates (the user's rounded count
    moves by at most that; the other clients' rounding bits are independent of the user's input,
    a post-processing)."""
    return shift_epsilon(prm.n * prm.b, prm.p, ((count_shift(prm, lo, hi), coords),), delta)


#: User counts at which the lower bound of DP-PE's scalar protocol is evaluated (its count shift
#: over the noise's standard deviation, ``g / sqrt(n b p (1 - p))``, hardly depends on ``n``).
PE_USERS = (1, 10, 100, 1000, 10000)


@functools.lru_cache(maxsize=1024)
def pe_lower(eps: float, delta: float, B: float, p_scale: float, n_max: int, query: float) -> float:
    """Lower bound at ``query`` of DP-PE's scalar protocol (calibrated at ``eps, delta``): the
    exact count distributions of one client at ``-B`` vs ``+B``, the largest over the user counts
    of :data:`PE_USERS` up to ``n_max``."""
    return max(
        shuffle_sum_epsilon(scalar_params(eps, delta, n, B, p_scale), query, -B, B, 1, False)
        for n in PE_USERS
        if n <= max(1, n_max)
    )


def dpdpe_worst_parts(eps, delta, d, B, alpha, eps_hat, p_scale, phases, query):
    """DP-DPE's certificate over every phase and support size with the parts certified on the
    way (:func:`dpbandits.privacy.every_part.worst`); the certificate and the new parts kept on
    disk (:func:`dpdpe_worst` reads it there)."""
    from .every_part import worst

    key = (eps, delta, d, B, alpha, eps_hat, p_scale, phases)
    value, parts = worst(*key, query)
    cached_part(f"worst|{key!r}|{float(query)!r}", lambda: value)
    flush_part_cache()
    return value, parts


@functools.lru_cache(maxsize=1024)
def dpdpe_worst(eps, delta, d, B, alpha, eps_hat, p_scale, phases, query) -> float:
    """DP-DPE's certificate over every phase and support size (:func:`dpdpe_worst_parts`), from
    disk where a matched calibration's search computed it."""
    key = (eps, delta, d, B, alpha, eps_hat, p_scale, phases)
    return cached_part(f"worst|{key!r}|{float(query)!r}", lambda: dpdpe_worst_parts(*key, query)[0])


def _every_phase_lower(eps, delta, B, alpha, eps_hat, p_scale, phases, query) -> float:
    """Lower bound on DP-DPE's shuffle protocol at ``query``: the exact count distributions of
    one client at ``-B`` vs ``+B`` with one support action (reachable: the other users' reports
    can eliminate every other action), the largest over the phases ``1 .. phases`` that report
    (:func:`dpbandits.privacy.every_part.released_phases`)."""
    return max(
        shuffle_sum_epsilon(
            vector_params(eps, delta, math.ceil(2.0 ** (alpha * l) - 1e-9), 1, B, eps_hat, p_scale),
            query,
            -B,
            B,
            1,
            pessimistic=False,
        )
        for l in range(1, phases + 1)
    )


#: The note of every DP-DPE / DP-PE release: the run delivers what one phase delivers.
PARALLEL = "parallel composition over phases: fresh clients in every phase"


def dpdpe_release(policy, universe: Universe | None = None) -> Release:
    """Release of DP-DPE / DP-PE (dpdpe, Sec. 4 and Appendix A; DP-PE: Appendix C.2).

    Clients are fresh in every phase (parallel composition; the engine enforces it), so the whole
    run delivers what one phase delivers. Reports are clipped to ``[-B, B]`` per coordinate, the
    bound the proofs use, so the sensitivity is the paper's (Eq. 19: ``2 B sqrt(s)/n`` for the
    central average, ``2 B sqrt(s)`` for a client's local report, ``2B`` for DP-PE's scalar).
    Gaussian privatizers: ``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` in every phase, so
    ``Delta/sigma`` does not depend on ``s``, ``n`` or the phase. Shuffle privatizers: exact count
    distributions of the extreme pair: DP-DPE's maximised over every phase and every support size
    the engine may calibrate with (:mod:`dpbandits.privacy.every_part`), DP-PE's over every user
    count per action (:mod:`dpbandits.privacy.every_count`).
    """
    st, B = policy.setting, float(policy.opts["reward_bound"])
    eps, delta = st.epsilon, st.delta
    priv = policy.privatizer
    pe = policy.algorithm.endswith("_pe")
    if priv in ("central", "local"):
        sigma = pe_sigma_noise(eps, delta, B) if pe else sigma_nl(1, eps, delta, B)
        where = (
            "the phase's noisy sum per action"
            if pe
            else (
                "the server's noisy average ``y_hat``"
                if priv == "central"
                else "each client's report"
            )
        )
        return Release(
            f"{priv} Gaussian mechanism on {where}",
            (Component("gaussian", sigma, 2.0 * B),),
            tight=True,  # a client at -B vs +B in every coordinate
            method=(
                "analytic Gaussian (dp-accounting); Delta/sigma = eps / sqrt(2 ln(1.25/delta)) in "
                "every phase (the classical calibration, proven for eps <= 1)"
            ),
            notes=PARALLEL,
        )
    if priv == "shuffle":
        from . import every_count, every_part

        if policy.opts.get("U") is not None:
            raise ValueError(f"{policy.algorithm}: a fixed client count U is not private")
        p_scale = float(policy.opts["p_scale"])
        scaled = f"; p scaled by {p_scale:.6g}" if p_scale != 1.0 else ""
        method = (
            "exact count distributions: Binomial(n b, p) shifted by the most one client's "
            "rounded count can move (ceil of 2B g / scale) in every coordinate, privacy loss "
            "distributions (dp-accounting), largest over "
        )
        if pe:
            key = (eps, delta, B, p_scale, st.T)
            return Release(
                f"shuffle bit-sum protocol, Algorithm 4 (scalar sum at eps/2), every user count "
                f"per action (1..{st.T})",
                (),
                method="exact count distributions: Binomial(n b, p) against it shifted by g (one "
                "client at -B vs +B), at every user count: total variation, else the hockey-stick "
                "divergence from the binomial's tails, exact sums of its pmf or Zubkov-Serov "
                "normal bounds (every_count)" + scaled,
                notes=PARALLEL,
                extra={
                    "epsilon_at": functools.partial(every_count.worst, *key),
                    # the certificate is the largest of these (a matched calibration's search
                    # evaluates the deciding ones: dpbandits.privacy.matching)
                    "epsilon_parts": every_count.CountParts(*key),
                    "worst_parts": functools.partial(every_count.worst_parts, *key),
                    "lower_at": functools.partial(pe_lower, *key),
                    "lower_method": "exact count distributions of one client at -B vs +B, the "
                    f"largest over the user counts {', '.join(map(str, PE_USERS))}",
                    "no_small_delta": "at such a delta few user counts are decided by their "
                    "total variation, and bounding each of them (up to T) is beyond the build's "
                    "time budget",
                },
            )
        s1 = policy.opts["width"] == "s1"
        phases = every_part.released_phases(st.T, float(policy.opts["h1"]))
        key = (
            eps,
            delta,
            st.d,
            B,
            float(policy.opts["alpha"]),
            eps if s1 else None,
            p_scale,
            phases,
        )
        cap = int(math.floor(support_cap(st.d)))
        return Release(
            f"shuffle bit-sum protocol, Algorithm 2 (vector sum), every phase that reports "
            f"(1..{phases}) and support size 1..{cap}",
            (),
            method=method + "every phase and support size (screened: every_part)" + scaled,
            notes=PARALLEL,
            extra={
                "epsilon_at": functools.partial(dpdpe_worst, *key),
                # the certificate is the largest of these (a matched calibration's search
                # evaluates the deciding ones: dpbandits.privacy.matching); ``worst_parts``
                # gives it with the parts certified on the way, largest first
                "epsilon_parts": {
                    label: functools.partial(every_part.part_epsilon, key, label)
                    for label in every_part.labels(st.d, phases)
                },
                "worst_parts": functools.partial(dpdpe_worst_parts, *key),
                "lower_at": functools.partial(_every_phase_lower, *key[:2], *key[3:]),
                "lower_method": "exact count distributions of one client at -B vs +B with one "
                "support action, the largest over every phase",
                "no_small_delta": "at such a delta few of the parts (every phase and support "
                "size) are decided by their total variation or screen, and certifying each of "
                "them is beyond the build's time budget",
            },
        )
    raise ValueError(f"no release description for privatizer {priv!r}")
