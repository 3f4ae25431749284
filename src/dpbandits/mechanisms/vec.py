"""The bit-sum protocol P_Vec (CZ22 Sec. 3.3, App. C, Alg. 5-7; CJMP21).

A user encodes each entry ``v in [-Delta, Delta]`` of its statistic as a count of one-bits:
``w = v + Delta``, ``z = w g / Delta``, ``x_bar = floor(z)``, ``gamma_1 ~ Bernoulli(z - x_bar)``
(randomized rounding), ``gamma_2 ~ Binomial(b, p)`` (privacy noise); it sends
``x_bar + gamma_1 + gamma_2`` ones labelled with the entry. The shuffler permutes all bits of
the batch; the analyzer counts the ones of each label and returns
``(Delta/g)(count - p b B) - B Delta`` (Alg. 7 with the paper's ``B Delta`` correction).

``p_scale`` (every calibration below; 1 = the paper's ``p = 1/4``) multiplies ``p`` with ``g`` and
``b`` held, so the privacy bits' variance moves continuously where ``b``'s rounding jumps; only a
matched calibration sets it below 1 (:mod:`dpbandits.privacy.matching`).

Only the count of ones reaches the analyzer, so simulations work with counts (a message
needs ``2g + b`` bits, not Alg. 5's ``g + b``, because ``w`` reaches ``2 Delta``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .gaussian import amp_ru_batch_budget


@dataclass(frozen=True)
class VecParams:
    """Parameters of P_Vec.

    Attributes
    ----------
    g : float
        Accuracy (number of rounding levels per ``Delta``).
    b : float
        Binomial trials per user as calibrated (may be real-valued in the script).
    p : float
        Bernoulli parameter of the privacy bits.
    b_trials : int
        Trials actually drawn per user (``floor(b)`` in the script, quirk 1 of docs/design.md).
    b_debias : float
        The ``b`` the analyzer subtracts (``b`` itself in the script, ``b_trials`` corrected).
    """

    g: float
    b: float
    p: float
    b_trials: int
    b_debias: float

    def bias_per_batch(self, B: int, Delta: float) -> float:
        """Deterministic error per entry and batch, ``(Delta/g) p B (b_trials - b_debias)``.

        Zero unless the script's truncation is on (quirk 1 of docs/design.md).
        """
        return (Delta / self.g) * self.p * B * (self.b_trials - self.b_debias)

    def noise_std_per_batch(self, B: int, Delta: float) -> float:
        """Std of the binomial part of one analyzed entry, ``(Delta/g) sqrt(B b_trials p(1-p))``."""
        return (Delta / self.g) * math.sqrt(B * self.b_trials * self.p * (1.0 - self.p))


#: Most binomial bits per entry a simulated batch may draw: the engine draws
#: ``Binomial(period * b_trials, p)`` with int64 trials (numpy); 2^62 leaves room for the sum.
MAX_BATCH_TRIALS = 2**62


def check_simulable(params: VecParams, period: int) -> None:
    """Refuse (``ValueError``, with what is allowed) a calibration whose batch draws cannot be
    simulated: ``period * b_trials`` binomial trials per entry above :data:`MAX_BATCH_TRIALS`
    (a tiny epsilon or delta; the analytic accounting and the communication count still take
    any ``b``)."""
    trials = period * params.b_trials
    if trials > MAX_BATCH_TRIALS:
        raise ValueError(
            f"P_Vec would draw {period} x {params.b_trials:.3g} = {trials:.3g} binomial trials "
            f"per entry and batch (b = {params.b:.3g}, g = {params.g:.3g}); allowed: at most "
            "2^62 (b grows like 1/epsilon^2 and log^2(1/delta): raise epsilon or delta)"
        )


def _finish(g: float, b: float, p: float, truncate_b: bool, p_scale: float = 1.0) -> VecParams:
    if not 0.0 < float(p_scale) <= 1.0:
        raise ValueError(f"P_Vec's p_scale must be in (0, 1], got {p_scale!r}")
    p = float(p_scale) * p
    if not (math.isfinite(b) and math.isfinite(g)):
        raise ValueError(
            f"P_Vec's g = {g!r}, b = {b!r} are not finite; allowed: an epsilon and delta whose "
            "calibration is finite"
        )
    if truncate_b:
        return VecParams(g=g, b=b, p=p, b_trials=int(math.floor(b)), b_debias=b)
    b_int = int(math.ceil(b))
    return VecParams(g=g, b=b, p=p, b_trials=b_int, b_debias=float(b_int))


def vec_g(B: int, d: int) -> float:
    """``g = max{2 sqrt(B), d, 4}`` (CZ22 Thm. 3.5 / C.1)."""
    return max(2.0 * math.sqrt(B), float(d), 4.0)


def vec_params_theory(
    epsilon: float, delta: float, B: int, d: int, integer: bool = True, p_scale: float = 1.0
) -> VecParams:
    """Theory calibration of CZ22 Thm. C.1 (docs/papers/cz22.md).

    ``p = 1/4``, ``g = max{2 sqrt(B), d, 4}``,
    ``b = 24*10^4 g^2 ln^2(4(d^2+1)/delta) / (epsilon^2 B)``. Thm. 3.5 needs integers: with
    ``integer=True`` both ``g`` and ``b`` are rounded up (``g`` first, then ``b`` from it).
    """
    g = vec_g(B, d)
    if integer:
        g = float(math.ceil(g))
    b = 24e4 * g**2 * math.log(4.0 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B)
    if integer:
        b = float(math.ceil(b))
    return _finish(g, b, 0.25, truncate_b=False, p_scale=p_scale)


def vec_params_local(epsilon0: float, delta0: float, d: int, p_scale: float = 1.0) -> VecParams:
    """Privacy-targeted calibration of CZ22 Cor. C.3: ``g = max{d, 4}``,
    ``b = 24*10^4 g^2 ln^2(4(d^2+1)/delta0) / epsilon0^2``, ``p = 1/4``, so that one user's bits
    are ``(epsilon0, delta0)``-LDP for every batch size.

    It is Thm. C.1's calibration at ``B = 1`` (``2 sqrt(1) < 4``), rounded up the same way.
    """
    return vec_params_theory(epsilon0, delta0, 1, d, p_scale=p_scale)


def corC2_local_budget(epsilon: float, delta: float, B: int) -> tuple[float, float]:
    """Local budget that CZ22 states for P_Vec (Remark 3.7, proof of Cor. C.2): comparing Thm.
    C.1's ``b`` at batch size ``B`` with its value at ``B = 1``, ``(epsilon sqrt(B), delta)``."""
    return epsilon * math.sqrt(B), delta


def vec_params_experiment(
    epsilon: float,
    delta: float,
    B: int,
    d: int,
    vec_scale: float = 1.0,
    truncate_b: bool = True,
    p_scale: float = 1.0,
) -> VecParams:
    """The script's calibration (the authors' experiment script).

    ``g = max(2 sqrt(B), d, 4)`` real-valued, ``b = vec_scale g^2 ln(d/delta)^2 / (epsilon^2 B)``
    real-valued, ``p = 1/4``. With ``truncate_b`` (the script) the sampler draws ``floor(b)``
    trials while the analyzer subtracts ``p b B``; otherwise ``ceil(b)`` on both sides.
    """
    g = vec_g(B, d)
    b = vec_scale * g**2 * math.log(d / delta) ** 2 / (epsilon**2 * B)
    return _finish(g, b, 0.25, truncate_b, p_scale)


def vec_params_ru_theory(
    epsilon: float, delta: float, B: int, d: int, T: int, p_scale: float = 1.0
) -> VecParams:
    """Returning-user calibration of CZ22 Thm. E.5 (Sec. 4), ``g`` and ``b`` rounded up.

    ``b = 10^7 ln(2/delta) g^2 T ln^2(8T(d^2+1)/(B delta)) / (epsilon^2 B^2)``.
    """
    g = float(math.ceil(vec_g(B, d)))
    b = 1e7 * math.log(2.0 / delta) * g**2 * T * math.log(8.0 * T * (d**2 + 1) / (B * delta)) ** 2
    b = float(math.ceil(b / (epsilon**2 * B**2)))
    return _finish(g, b, 0.25, truncate_b=False, p_scale=p_scale)


def vec_params_ru_experiment(
    epsilon: float,
    delta: float,
    B: int,
    d: int,
    T: int,
    vec_scale: float = 1.0,
    truncate_b: bool = True,
    p_scale: float = 1.0,
) -> VecParams:
    """Experiment-style returning-user calibration: the script's, at the per-batch budget."""
    eps_m, delta_m = amp_ru_batch_budget(epsilon, delta, T // B)
    return vec_params_experiment(eps_m, delta_m, B, d, vec_scale, truncate_b, p_scale)


# --- randomizer, shuffler, analyzer ------------------------------------------------------------


def encode(values: np.ndarray, g: float, Delta: float, uniforms: np.ndarray) -> np.ndarray:
    """Randomized rounding of entries ``v in [-Delta, Delta]`` to counts (Alg. 5, first part).

    ``x_hat = floor(z) + 1{u < z - floor(z)}`` with ``z = (v + Delta) g / Delta``; the uniforms
    ``u`` are supplied so that callers control the random stream.
    """
    z = (values + Delta) * g / Delta
    x_bar = np.floor(z)
    return x_bar + (uniforms < z - x_bar)


def scalar_randomizer(
    value: float, params: VecParams, Delta: float, rng: np.random.Generator
) -> np.ndarray:
    """One user's message for one entry as an explicit bit vector (Alg. 5).

    Returns ``2g + b_trials`` bits (not Alg. 5's ``g + b``) of which ``x_hat + gamma_2`` are ones.
    """
    x_hat = int(encode(np.array([value]), params.g, Delta, rng.random(1))[0])
    ones = x_hat + int(rng.binomial(params.b_trials, params.p))
    n_bits = int(math.ceil(2 * params.g)) + params.b_trials
    bits = np.zeros(n_bits, dtype=np.int8)
    bits[:ones] = 1
    return bits


def shuffle_bits(messages: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """``S_Vec``: concatenate the batch's bits and apply one uniform random permutation."""
    allbits = np.concatenate(messages)
    return allbits[rng.permutation(allbits.shape[0])]


def analyze(count: np.ndarray, n_users: int, params: VecParams, Delta: float) -> np.ndarray:
    """``A_Vec``: ``(Delta/g)(count - p b_debias n) - n Delta`` per entry (Alg. 6-7).

    The re-centring subtracts one ``Delta`` per user (``B Delta`` for a batch), the paper's
    stated correction of CJMP21 (App. C.1), which makes the output unbiased for ``sum_i v_i``.
    """
    return (Delta / params.g) * (count - params.p * params.b_debias * n_users) - n_users * Delta


def analyzer_variance(values: np.ndarray, params: VecParams, Delta: float) -> float:
    """Exact variance of one analyzed entry over ``len(values)`` users (App. C.3, exact form).

    ``(Delta/g)^2 (sum_i q_i(1-q_i) + B b_trials p(1-p))`` with ``q_i = frac((v_i+Delta) g/Delta)``.
    """
    z = (np.asarray(values) + Delta) * params.g / Delta
    q = z - np.floor(z)
    B = len(values)
    return (Delta / params.g) ** 2 * (
        float(np.sum(q * (1 - q))) + B * params.b_trials * params.p * (1 - params.p)
    )
