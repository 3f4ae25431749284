"""The P_Vec bit-sum protocol's release (cz22, Algorithm 5): its certificate from the
binomial shifts of the users' bits and its lower bound from exact count pairs.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .binomial_shift import binomial_arrays, pairs_epsilon, shift_counts, shift_epsilon
from .release import Release


def vec_count_pair(prm, B: int, Delta: float, v0: float, v1: float, others: float = 0.0):
    """Exact distributions of one entry's count of ones in a batch of ``B`` P_Vec users when one
    user holds ``v0`` or ``v1`` and the ``B - 1`` others hold ``others``: the user's rounded
    count, the others' (``B - 1`` Bernoulli rounding bits on a fixed floor) and
    ``Binomial(B b_trials, p)``; ``(counts, probabilities)`` pairs on a common origin."""
    keys, probs = binomial_arrays(B * prm.b_trials, prm.p)
    zo = (others + Delta) * prm.g / Delta
    qo = zo - math.floor(zo)
    from scipy.stats import binom

    rest = np.convolve(probs, binom.pmf(np.arange(B), B - 1, qo))
    base = keys[0] + (B - 1) * math.floor(zo)
    out = []
    for v in (v0, v1):
        z = (v + Delta) * prm.g / Delta
        f = math.floor(z)
        q = z - f
        pmf = np.convolve(rest, [1.0 - q, q])
        keep = np.flatnonzero(pmf > 0)
        out.append((base + f + keep, pmf[keep]))
    return out[0], out[1]


def _vec_pairs(L: float, d: int) -> dict[str, list[tuple[float, float]]]:
    """Pairs of neighbouring users of P_Vec's universe, as the entries of ``(x r, upper(x x^T))``
    that differ (``(v0, v1)`` per entry, others hold ``x = 0``): ``x = +-L e_1`` (one vector
    entry moves by ``2L``), and the pair attaining ``Delta_J(L)`` in the span of ``e_1, e_2``."""
    from ..mechanisms.packing import pack

    def entries(x0, x1):
        a, b = pack(x0, np.outer(x0, x0)), pack(x1, np.outer(x1, x1))
        return [(float(u), float(v)) for u, v in zip(a, b, strict=True) if u != v]

    e1 = np.zeros(d)
    e1[0] = L
    pairs = {"x = +-L e1": entries(e1, -e1)}
    if d >= 2 and 2 * L * L >= 1:
        c = -1.0 / (2.0 * L * L)
        x1 = np.zeros(d)
        x1[0], x1[1] = L * c, L * math.sqrt(1.0 - c * c)
        pairs["Delta_J pair"] = entries(e1, x1)
    return pairs


@functools.lru_cache(maxsize=512)
def vec_lower_epsilon(prm, B: int, d: int, L: float, Delta: float, batches: int, delta: float):
    """Lower bound on P_Vec's epsilon at ``delta``: the largest exact epsilon of the pairs of
    :func:`_vec_pairs` (exact count distributions, :func:`vec_count_pair`, composed over the
    entries that differ and the ``batches`` a returning user is in, losses rounded down);
    ``inf`` when the mass told apart with certainty exceeds ``delta``."""
    best = 0.0
    for entries in _vec_pairs(L, d).values():
        pairs = [(vec_count_pair(prm, B, Delta, v0, v1), batches) for v0, v1 in entries]
        best = max(best, pairs_epsilon(pairs, delta, pessimistic=False))
    return best


def vec_release(
    prm, B: int, d: int, L: float, Delta: float, batches: int = 1, delta: float = 0.1
) -> Release:
    """Release of P_Vec (CZ22 Sec. 3.3, Alg. 5-7) for one batch of ``B`` users (``batches``: a
    returning user's batches, composed), by exact count distributions.

    Upper bound: :func:`shift_epsilon` with the shifts of :func:`shift_counts` (a certificate).
    Lower bound: :func:`vec_lower_epsilon`. Both count ``Binomial(B b_trials, p)`` privacy bits
    per entry: with one trial per user a count near the ends of its range tells the pair apart.
    ``delta``: where the notes quote CZ22 Thm. C.1's certificate.
    """
    shifts = tuple((k, n * batches) for k, n in shift_counts(prm, L, Delta, d))
    N = B * prm.b_trials
    cert = vec_certified_epsilon(prm, B, d, delta) if batches == 1 else math.inf
    return Release(
        "bit-sum protocol P_Vec: binomial noise on the per-entry counts of a batch",
        (),
        method=(
            f"exact count distributions: Binomial(B b_trials = {N}, p) shifted by at most "
            f"{', '.join(f'{k} in {n}' for k, n in shifts)} entries, composed (dp-accounting PLD)"
        ),
        notes=f"certificate of CZ22 Thm C.1 (CJMP21) at this b: eps = {cert:.4g}"
        + (" (Thm C.1 needs eps <= 15, integer g and b)" if not math.isfinite(cert) else ""),
        extra={
            "certified_epsilon": cert,
            "epsilon_at": functools.partial(shift_epsilon, N, prm.p, shifts),
            **(
                {
                    "lower_at": functools.partial(vec_lower_epsilon, prm, B, d, L, Delta, 1),
                    "lower_method": "exact count distributions of a pair (others at x = 0)",
                }
                if batches == 1
                else {}
            ),
        },
    )


def vec_certified_epsilon(prm, B: int, d: int, delta: float) -> float:
    """The epsilon CZ22 Thm. C.1 certifies for P_Vec at the drawn ``b``: the smallest ``eps``
    with ``b >= 24e4 g^2 ln^2(4(d^2+1)/delta) / (eps^2 B)``, i.e.
    ``eps = sqrt(24e4 g^2 ln^2(4(d^2+1)/delta) / (b B))``; ``inf`` when the theorem does not apply
    (``g`` or ``b`` not an integer, no binomial bits, or ``eps > 15``)."""
    g, b = prm.g, prm.b_trials
    if b <= 0 or not float(g).is_integer() or float(prm.b) != float(b) or prm.p != 0.25:
        return math.inf
    eps = math.sqrt(24e4 * g * g * math.log(4.0 * (d * d + 1) / delta) ** 2 / (b * B))
    return eps if eps <= 15.0 else math.inf
