"""The shuffle-model summation protocols of Cheu, Joseph, Mao, Peng (2021) as dpdpe uses them
(Sec. 4, Algorithm 2; App. C, Algorithm 4).

**Algorithm 2 (vector average, DP-DPE's shuffle PRIVATIZER).** ``n`` clients hold reports
``y_u in R^s``, ``||y_u||_2 <= Delta2``. Parameters (Eq. 22, reconstructed; docs/papers/dpdpe.md):
``eps_hat = eps / (18 sqrt(ln(2/delta)))``,
``g = ceil(max{eps_hat sqrt(n) / (6 sqrt(5 ln(4s/delta))), sqrt(s), 10})``,
``b = ceil(180 g^2 ln(4s/delta) / (eps_hat^2 n))``, ``p = 90 g^2 ln(4s/delta) / (b eps_hat^2 n)``.
Per coordinate a client sends ``g + b`` bits of which ``floor(w g/(2 Delta2)) + gamma_1 + gamma_2``
are ones (``w = y + Delta2``, ``gamma_1`` its rounding bit, ``gamma_2 ~ Binomial(b, p)``); the
analyzer outputs ``(2 Delta2/(g n)) (ones - b n p) - Delta2``, unbiased for the average.

**Algorithm 4 (scalar sum, DP-PE's shuffle PRIVATIZER).** ``n`` inputs in ``[-B, B]``, run at
``eps/2`` (Thm. C.6): ``g = max(1, ceil(2B sqrt(n)))``, ``b = ceil(180 g^2 ln(2/delta) /
((eps/2)^2 n))``, ``p = 90 g^2 ln(2/delta) / (b (eps/2)^2 n)``; the analyzer outputs
``(2B/g)(ones - n b p) - n B``, unbiased for the sum.

**The binomial noise scale ``p_scale``** (both protocols; 1 = the paper's map): ``p`` is multiplied
by ``p_scale`` in ``(0, 1]`` with ``g`` and ``b`` held, so the privacy bits' variance moves
continuously where the map's ``ceil`` jumps. Only a matched calibration sets it below 1
(:mod:`dpbandits.privacy.matching`); the analyzers subtract ``b n p`` with the scaled ``p``.

Simulation uses the count level (identities of :mod:`..engine.phased`): the shuffler is skipped,
since the analyzer reads only the number of ones per coordinate (I7); the ``n`` clients' binomial
bits sum to one ``Binomial(n b, p)`` (I5); the rounding bits have different probabilities, so they
are drawn per client (I6). :func:`vector_messages` builds the explicit bit multisets for tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SumParams:
    """Parameters of one run of a summation protocol.

    ``scale`` is the encoding range (``2 Delta2`` or ``2B``), ``shift`` what the randomizer adds
    before encoding (``Delta2`` or ``B``), ``n`` the number of clients, ``s`` the number of
    coordinates, ``eps_hat`` the protocol's internal epsilon.
    """

    n: int
    s: int
    g: int
    b: int
    p: float
    scale: float
    shift: float
    eps_hat: float
    log_term: float

    @property
    def bits_per_client(self) -> int:
        """Bits one client sends: ``s (g + b)``."""
        return self.s * (self.g + self.b)


def _check_p_scale(p_scale: float) -> float:
    if not 0.0 < float(p_scale) <= 1.0:
        raise ValueError(f"p_scale must be in (0, 1], got {p_scale!r}")
    return float(p_scale)


def vector_params(
    eps: float,
    delta: float,
    n: int,
    s: int,
    Delta2: float,
    eps_hat: float | None = None,
    p_scale: float = 1.0,
) -> SumParams:
    """Algorithm 2's parameters (Eq. 22). ``eps_hat`` overrides ``eps/(18 sqrt(ln(2/delta)))``
    (SDP-DPE-S1 of docs/papers/dpdpe.md uses ``eps_hat = eps``; not private as analysed);
    ``p_scale`` multiplies ``p`` (module docstring)."""
    if not (eps > 0 and 0 < delta < 1 and n >= 1 and s >= 1 and Delta2 > 0):
        raise ValueError(
            f"need eps > 0, delta in (0, 1), n, s >= 1, Delta2 > 0; got {eps, delta, n, s, Delta2}"
        )
    p_scale = _check_p_scale(p_scale)
    e = eps / (18.0 * math.sqrt(math.log(2.0 / delta))) if eps_hat is None else float(eps_hat)
    L = math.log(4.0 * s / delta)
    g = math.ceil(max(e * math.sqrt(n) / (6.0 * math.sqrt(5.0 * L)), math.sqrt(s), 10.0))
    b = math.ceil(180.0 * g * g * L / (e * e * n))
    p = p_scale * 90.0 * g * g * L / (b * e * e * n)
    return SumParams(n, s, g, b, p, 2.0 * Delta2, Delta2, e, L)


def scalar_params(eps: float, delta: float, n: int, B: float, p_scale: float = 1.0) -> SumParams:
    """Algorithm 4's parameters (Eq. 60, reconstructed; docs/papers/dpdpe.md): P_1D at eps/2;
    ``p_scale`` multiplies ``p`` (module docstring)."""
    if not (eps > 0 and 0 < delta < 1 and n >= 1 and B > 0):
        raise ValueError(f"need eps > 0, delta in (0, 1), n >= 1, B > 0; got {eps, delta, n, B}")
    e, L, g, b, p = scalar_knobs(eps, delta, n, B, _check_p_scale(p_scale))
    return SumParams(n, 1, int(g), int(b), float(p), 2.0 * B, B, e, L)


def scalar_knobs(eps: float, delta: float, n, B: float, p_scale: float = 1.0):
    """Algorithm 4's ``eps_hat = eps/2``, ``L = ln(2/delta)`` and ``g, b, p`` of
    :func:`scalar_params` for one user count ``n`` or an array of them (elementwise, the same
    floating-point operations; ``g`` and ``b`` whole numbers as floats)."""
    e = eps / 2.0
    L = math.log(2.0 / delta)
    g = np.maximum(1.0, np.ceil(2.0 * B * np.sqrt(n)))
    b = np.ceil(180.0 * g * g * L / (e * e * n))
    p = p_scale * 90.0 * g * g * L / (b * e * e * n)
    return e, L, g, b, p


def count_shift(prm, lo: float, hi: float) -> int:
    """The most one client's rounded count of ones moves in a coordinate whose input lies in
    ``[lo, hi]``: ``ceil((hi - lo) g / scale)``."""
    return math.ceil((hi - lo) * prm.g / prm.scale - 1e-9)


def _encode(Y: np.ndarray, prm: SumParams) -> tuple[np.ndarray, np.ndarray]:
    """Floor part and rounding probability of every input (``n x s``)."""
    scaled = (Y + prm.shift) * prm.g / prm.scale
    floor = np.floor(scaled)
    return floor, scaled - floor


def count_ones(rng: np.random.Generator, Y: np.ndarray, prm: SumParams) -> np.ndarray:
    """Number of ones per coordinate the analyzer receives (count level, identities I5-I7).

    ``Y``: the clients' inputs, shape (n, s) (or (..., n, s) for independent repetitions),
    already within the protocol's range. Draws, in this order: the ``n x s`` rounding bits, then
    one ``Binomial(n b, p)`` per coordinate.
    """
    floor, frac = _encode(np.asarray(Y, float), prm)
    rounding = rng.random(frac.shape) < frac
    noise = rng.binomial(prm.n * prm.b, prm.p, size=frac.shape[:-2] + (frac.shape[-1],))
    return floor.sum(axis=-2) + rounding.sum(axis=-2) + noise


def analyze_vector(ones: np.ndarray, prm: SumParams) -> np.ndarray:
    """Algorithm 2's analyzer: the estimate of the clients' average, one value per coordinate."""
    z = prm.scale / (prm.g * prm.n) * (np.asarray(ones, float) - prm.b * prm.n * prm.p)
    return z - prm.shift


def analyze_scalar(ones: float, prm: SumParams) -> float:
    """Algorithm 4's analyzer: the estimate of the sum of the ``n`` inputs."""
    z = prm.scale / prm.g * (float(ones) - prm.n * prm.b * prm.p)
    return z - prm.n * prm.shift


def vector_messages(rng: np.random.Generator, y: np.ndarray, prm: SumParams) -> list[np.ndarray]:
    """One client's randomizer output, literally: per coordinate a multiset of ``g + b`` bits
    (an array of 0/1 in random order) with ``floor + gamma_1 + gamma_2`` ones."""
    floor, frac = _encode(np.asarray(y, float)[None, :], prm)
    out = []
    for j in range(prm.s):
        ones = int(floor[0, j]) + int(rng.random() < frac[0, j]) + int(rng.binomial(prm.b, prm.p))
        bits = np.zeros(prm.g + prm.b, dtype=np.int8)
        bits[:ones] = 1
        out.append(rng.permutation(bits))
    return out


def exact_variance(Y: np.ndarray, prm: SumParams, average: bool = True) -> np.ndarray:
    """Variance of the analyzer's output given the inputs, per coordinate:
    ``(scale/(g n))^2 [sum_u q(1 - q) + n b p (1 - p)]`` (average; without the ``1/n`` for sums)."""
    _, frac = _encode(Y, prm)
    c = prm.scale / (prm.g * (prm.n if average else 1))
    return c * c * ((frac * (1 - frac)).sum(axis=0) + prm.n * prm.b * prm.p * (1 - prm.p))


def hoeffding_proxy(prm: SumParams, average: bool = True) -> float:
    """Sub-Gaussian variance proxy of the output: ``(scale/(g n))^2 n (1 + b)/4`` (average)."""
    c = prm.scale / (prm.g * (prm.n if average else 1))
    return c * c * prm.n * (1 + prm.b) / 4.0


def paper_variance_bound(prm: SumParams) -> float:
    """The last line of the proof of Thm A.2: ``360 Delta2^2 ln(4s/delta) / (n^2 eps_hat^2)``."""
    Delta2 = prm.shift
    return 360.0 * Delta2**2 * prm.log_term / (prm.n**2 * prm.eps_hat**2)
