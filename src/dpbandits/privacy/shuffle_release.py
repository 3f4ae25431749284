"""The shuffled scalar and vector sums of DP-DPE's privatizers (dpdpe): the certificate of
each phase's part from the exact count pmfs, its worst case over phases, and the cache of the
parts shared by a matched calibration's search and the privacy rows.
"""

from __future__ import annotations

import functools
import hashlib
import math
from pathlib import Path

import numpy as np

from dpbandits.g_optimal import support_cap

from ..mechanisms.shuffle_sum import scalar_params, vector_params
from ..policies.dpdpe import pe_sigma_noise, sigma_nl
from .accounting import Component, pmf_pair_pld
from .binomial_shift import shift_epsilon
from .release import Release, Universe

#: Phases at which DP-DPE's shuffle protocol is evaluated: 1 .. 25 spaced out (a run has at most 22
#: phases, at T = 1e7). The count view's epsilon hardly changes with the phase (the count shift
#: over the binomial std is ``g / sqrt(s n b p (1 - p))`` with ``b ~ 1/n``).
SHUFFLE_PHASES = (1, 2, 4, 8, 12, 16, 20, 25)


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


def count_shift(prm, lo: float, hi: float) -> int:
    """The most one client's rounded count of ones moves in a coordinate whose input lies in
    ``[lo, hi]``: ``ceil((hi - lo) g / scale)``."""
    return math.ceil((hi - lo) * prm.g / prm.scale - 1e-9)


def support_sizes(d: int) -> tuple[int, ...]:
    """Support sizes ``s`` at which DP-DPE's shuffle protocol is evaluated: the engine calibrates
    each phase with the support of its design over the active arms, from 1 (one arm left) to the
    cap ``floor(S)`` (``S = 4 d ln ln d + 16``, :func:`dpbandits.g_optimal.support_cap`): the powers
    of 2 below the cap, and the cap (a grid: the largest epsilon over it, not over every size)."""
    cap = int(math.floor(support_cap(d)))
    out, s = {cap}, 1
    while s < cap:
        out.add(s)
        s *= 2
    return tuple(sorted(out))


#: Users per action and phase at which DP-PE's scalar protocol is evaluated (its count shift over
#: noise std, ``g / sqrt(n b p (1 - p))``, hardly depends on ``n``).
PE_USERS = (1, 10, 100, 1000, 10000)


@functools.lru_cache(maxsize=1024)
def _shuffle_parts(eps, delta, d, B, pe, alpha, eps_hat, p_scale=1.0) -> dict[str, tuple]:
    """The protocols :func:`_shuffle_worst` maximises over, by label: DP-PE's scalar protocol per
    user count (``n=<n>``), DP-DPE's vector protocol per phase and support size
    (``l=<l>,s=<s>``); each ``(parameters, coordinates)``, with the binomial noise scale
    ``p_scale`` of :mod:`dpbandits.mechanisms.shuffle_sum`."""
    if pe:
        return {f"n={n}": (scalar_params(eps, delta, n, B, p_scale), 1) for n in PE_USERS}
    return {
        f"l={l},s={s}": (
            vector_params(
                eps, delta, math.ceil(2.0 ** (alpha * l) - 1e-9), s, B * s**0.5, eps_hat, p_scale
            ),
            s,
        )
        for l in SHUFFLE_PHASES
        for s in support_sizes(d)
    }


@functools.lru_cache(maxsize=1024)
def _shuffle_worst(
    eps: float,
    delta: float,
    d: int,
    B: float,
    pe: bool,
    alpha: float,
    eps_hat,
    p_scale: float,
    query: float,
    bound: str = "upper",
) -> float:
    """Largest count-view epsilon at ``query`` over the phases and support sizes (DP-DPE, ``n_l =
    ceil(2^(alpha l))`` clients, ``s`` in :func:`support_sizes`) or user counts (DP-PE): the
    certificate (``bound = "upper"``, :func:`shuffle_sum_certificate`) or the extreme pair's lower
    bound (``"lower"``: one client at ``-B`` vs ``+B`` in every coordinate)."""
    key = (eps, delta, d, B, pe, alpha, eps_hat, p_scale)
    parts = _shuffle_parts(*key)
    if bound == "lower":
        pairs = parts.values()
        return max(shuffle_sum_epsilon(prm, query, -B, B, k, pessimistic=False) for prm, k in pairs)
    value = max(_shuffle_part_epsilon(key, label, query) for label in parts)
    flush_part_cache()
    return value


#: Certificates of the shuffle protocols' parts already computed, on disk (relative to the working
#: directory, beside the workflow's parse caches): a matched calibration's search in one job and
#: the privacy row at its result in another share them. Keyed by the code of this module and of
#: the accountant: an edit of either computes them again.
PART_CACHE = Path(".snakemake") / "shuffle-certificates.json"

_PARTS: dict[str, float] = {}


@functools.cache
def _part_code() -> str:
    from ..fingerprint import fingerprint

    return fingerprint(__file__)


def _part_key(key: tuple, label: str, delta: float) -> str:
    text = f"{_part_code()}|{key!r}|{label}|{float(delta)!r}"
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=16384)
def _shuffle_part_epsilon(key: tuple, label: str, delta: float) -> float:
    """The certificate of one part of :func:`_shuffle_worst` (``key``: its first eight
    arguments) at ``delta``; cached in the process and in :data:`PART_CACHE`, so that a matched
    calibration's search, which evaluates the parts, and the privacy row at its result share
    them."""
    name = _part_key(key, label, delta)
    if name not in _PARTS:
        from dpbandits.runtime.atomic_files import changed_json_cache

        _PARTS.update(changed_json_cache(PART_CACHE))
    if name in _PARTS:
        return float(_PARTS[name])
    prm, k = _shuffle_parts(*key)[label]
    B = key[3]
    value = shuffle_sum_certificate(prm, delta, -B, B, k)
    _PARTS[name] = value
    _NEW[name] = value
    return value


#: Certificates computed in this process and not yet in :data:`PART_CACHE`.
_NEW: dict[str, float] = {}


def flush_part_cache() -> None:
    """Add this process's new part certificates to :data:`PART_CACHE` (best effort: a failed or
    concurrent write loses entries of the cache only). Called after each whole certificate and
    after each matched search."""
    from dpbandits.runtime.atomic_files import merge_json_cache

    if _NEW and merge_json_cache(PART_CACHE, _NEW):
        _NEW.clear()


#: Phases over which :func:`zero_everywhere` checks DP-DPE's shuffle protocol: every phase a
#: run of at most ``1e7`` rounds can reach.
EVERY_PHASE = tuple(range(1, SHUFFLE_PHASES[-1] + 1))


@functools.lru_cache(maxsize=1024)
def zero_everywhere(eps, delta, d, B, alpha, eps_hat, p_scale, query) -> bool:
    """Whether DP-DPE's shuffle protocol (calibrated at ``eps, delta``) certifies epsilon 0 at
    ``query`` at *every* phase of :data:`EVERY_PHASE` and every support size ``1 .. floor(S)``,
    not only on the grid of :func:`_shuffle_worst`: each part's total variation bound
    (:func:`dpbandits.privacy.binomial_shift._mode_total_variation`, no arrays) is within
    ``query``. Then the grid's certificate 0 is a certificate."""
    from .binomial_shift import _mode_total_variation

    cap = int(math.floor(support_cap(d)))
    for l in EVERY_PHASE:
        n = math.ceil(2.0 ** (alpha * l) - 1e-9)
        for s in range(1, cap + 1):
            prm = vector_params(eps, delta, n, s, B * s**0.5, eps_hat, p_scale)
            shift = ((count_shift(prm, -B, B), s),)
            if _mode_total_variation(prm.n * prm.b, prm.p, shift) > query:
                return False
    return True


@functools.lru_cache(maxsize=1024)
def zero_everywhere_pe(eps, delta, B, p_scale, n_max: int, query) -> bool:
    """Whether DP-PE's scalar protocol (calibrated at ``eps, delta``) certifies epsilon 0 at
    ``query`` for *every* user count ``1 .. n_max`` (vectorised total variation bounds
    ``g p_mode`` of :func:`dpbandits.privacy.binomial_shift._mode_total_variation`, the count
    shift being ``g``: :func:`count_shift` of ``[-B, B]`` at ``scale = 2B``), not only on
    :data:`PE_USERS`."""
    from scipy.stats import binom

    from ..mechanisms.shuffle_sum import scalar_knobs

    n = np.arange(1, int(n_max) + 1, dtype=float)
    _, _, g, b, p = scalar_knobs(eps, delta, n, B, p_scale)
    N = n * b
    top = binom.pmf(np.floor((N + 1) * p), N, p)
    return bool(np.all(g * top <= query))


def _every_phase_lower(eps, delta, B, alpha, eps_hat, p_scale, query) -> float:
    """Lower bound on DP-DPE's shuffle protocol at ``query``: the exact count distributions of
    one client at ``-B`` vs ``+B`` with one support action (reachable: the other users' reports
    can eliminate every other action), the largest over every phase of :data:`EVERY_PHASE`."""
    return max(
        shuffle_sum_epsilon(
            vector_params(eps, delta, math.ceil(2.0 ** (alpha * l) - 1e-9), 1, B, eps_hat, p_scale),
            query,
            -B,
            B,
            1,
            pessimistic=False,
        )
        for l in EVERY_PHASE
    )


def dpdpe_release(policy, universe: Universe | None = None) -> Release:
    """Release of DP-DPE / DP-PE (dpdpe, Sec. 4 and Appendix A; DP-PE: Appendix C.2).

    Clients are fresh in every phase (parallel composition; the engine enforces it), so the whole
    run delivers what one phase delivers. Reports are clipped to ``[-B, B]`` per coordinate, the
    bound the proofs use, so the sensitivity is the paper's (Eq. 19: ``2 B sqrt(s)/n`` for the
    central average, ``2 B sqrt(s)`` for a client's local report, ``2B`` for DP-PE's scalar).
    Gaussian privatizers: ``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` in every phase, so
    ``Delta/sigma`` does not depend on ``s``, ``n`` or the phase. Shuffle privatizers: exact count
    distributions of the extreme pair, maximised over :data:`SHUFFLE_PHASES` and the support
    sizes the engine may calibrate with (:func:`support_sizes`).
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
            notes="parallel composition over phases: fresh clients in every phase",
        )
    if priv == "shuffle":
        if policy.opts.get("U") is not None:
            raise ValueError(f"{policy.algorithm}: a fixed client count U is not private")
        s1 = not pe and policy.opts["width"] == "s1"
        alpha = 0.0 if pe else float(policy.opts["alpha"])
        key = (eps, delta, st.d, B, pe, alpha, eps if s1 else None, float(policy.opts["p_scale"]))
        what = (
            f"Algorithm 4 (scalar sum at eps/2), n users per action in {PE_USERS}"
            if pe
            else (
                f"Algorithm 2 (vector sum), support sizes s in {support_sizes(st.d)}, phases "
                f"{SHUFFLE_PHASES}"
            )
        )
        return Release(
            f"shuffle bit-sum protocol, {what}",
            (),
            method=(
                "exact count distributions: Binomial(n b, p) shifted by the most one client's "
                "rounded count can move (ceil of 2B g / scale) in every coordinate, privacy loss "
                "distributions (dp-accounting), largest over the phases"
                + (f"; p scaled by {key[-1]:.6g}" if key[-1] != 1.0 else "")
            ),
            notes="parallel composition over phases: fresh clients in every phase",
            extra={
                "epsilon_at": functools.partial(_shuffle_worst, *key),
                # the certificate is the largest of these (a matched calibration's search
                # evaluates the deciding ones: dpbandits.privacy.matching)
                "epsilon_parts": {
                    label: functools.partial(_shuffle_part_epsilon, key, label)
                    for label in _shuffle_parts(*key)
                },
                # the certificate is a maximum over a grid of its parts: a row reads DELIVERED
                # only where it is 0 at every part (dpbandits.audit.privacy.release_bounds)
                **(
                    {
                        "lower_at": lambda q, key=key: _shuffle_worst(*key, q, "lower"),
                        "lower_method": "exact count distributions of one client at -B vs +B",
                        "grid": "the largest over a grid of user counts, not over every one",
                        "zero_everywhere": functools.partial(
                            zero_everywhere_pe, eps, delta, B, key[7], st.T
                        ),
                    }
                    if pe
                    else {
                        "lower_at": functools.partial(
                            _every_phase_lower, eps, delta, B, alpha, key[6], key[7]
                        ),
                        "lower_method": "exact count distributions of one client at -B vs +B "
                        "with one support action, the largest over every phase 1..25",
                        "grid": "the largest over a grid of phases and support sizes, "
                        "not over every one",
                        "zero_everywhere": functools.partial(
                            zero_everywhere, eps, delta, st.d, B, alpha, key[6], key[7]
                        ),
                    }
                ),
            },
        )
    raise ValueError(f"no release description for privatizer {priv!r}")
