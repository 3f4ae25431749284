"""Gaussian randomizers and their calibrations (CZ22 Alg. 2, Prop. F.1, Thm. 3.2, Thm. E.3).

Three ways of making a symmetric Gaussian matrix appear in the papers and the script; each is a
``convention`` here and determines the std of every packed entry (see :mod:`.packing`):

``upper_mirror``
    CZ22 Alg. 2 (``R_Amp``): ``N_ij ~ N(0, sigma^2)`` i.i.d. for ``i <= j``, mirrored. Vector
    noise ``N(0, sigma^2)``.
``half_sum``
    The script (quirk 4 of docs/design.md): ``(W + W^T)/2`` with ``W_ij ~ N(0, s^2)``, so the
    diagonal has variance ``s^2`` and off-diagonal entries ``s^2/2``. Vector noise ``N(0, s^2)``.
``ss18``
    SS18's node noise ``(W + W^T)/sqrt(2)`` on the (d+1)x(d+1) matrix ``(x, y)(x, y)^T``: the
    Gram block has diagonal variance ``2 sigma^2`` and off-diagonal ``sigma^2``; the vector
    (last column, off-diagonal) ``sigma^2``.
"""

from __future__ import annotations

import math

import numpy as np

from ..normals import standard_normal
from .packing import is_diagonal, unpack

CONVENTIONS = ("upper_mirror", "half_sum", "ss18")


def entry_scales(d: int, std: float, convention: str) -> np.ndarray:
    """Standard deviation of every packed entry of one noise draw.

    Parameters
    ----------
    d : int
        Dimension.
    std : float
        The convention's scale parameter (``sigma`` or ``s``).
    convention : {"upper_mirror", "half_sum", "ss18"}

    Returns
    -------
    ndarray, shape (d + d(d+1)/2,)
    """
    diag = is_diagonal(d)
    if convention == "upper_mirror":
        mat = np.full(diag.shape, std)
    elif convention == "half_sum":
        mat = np.where(diag, std, std / math.sqrt(2.0))
    elif convention == "ss18":
        mat = np.where(diag, std * math.sqrt(2.0), std)
    else:
        raise ValueError(f"unknown convention {convention!r}; allowed: {', '.join(CONVENTIONS)}")
    return np.concatenate([np.full(d, float(std)), mat])


def draw_packed(rng: np.random.Generator, rows: int, scales: np.ndarray) -> np.ndarray:
    """``rows`` independent packed noise draws with the given per-entry stds, shape (rows, E)."""
    return standard_normal(rng, (rows, scales.shape[0])) * scales


def gaussian_randomizer(
    x: np.ndarray, y: float, std: float, rng: np.random.Generator, convention: str = "upper_mirror"
) -> tuple[np.ndarray, np.ndarray]:
    """One user's local randomizer ``R = (R_1, R_2)`` (CZ22 Alg. 2; ZCH+20's Gaussian mechanism).

    Parameters
    ----------
    x : ndarray, shape (d,)
        The user's feature vector ``phi_t``.
    y : float
        The user's reward.
    std : float
        Noise scale (``sigma_1 = sigma_2`` of the theorems, or the script's ``s``).
    rng : numpy.random.Generator
    convention : str
        Symmetrisation convention (module docstring).

    Returns
    -------
    (ndarray, ndarray)
        ``x*y + n`` and ``x x^T + N``.
    """
    d = x.shape[0]
    noise = draw_packed(rng, 1, entry_scales(d, std, convention))[0]
    vec, mat = unpack(noise, d)
    return x * y + vec, np.outer(x, x) + mat


# --- calibrations ------------------------------------------------------------------------------


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Classical Gaussian mechanism: ``sigma = Delta sqrt(2 ln(1.25/delta)) / epsilon``.

    (Dwork & Roth Thm. A.1; valid for ``epsilon <= 1``.)
    """
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def sigma_ldp_theory(epsilon: float, delta: float) -> float:
    """``sigma_0 = 4 sqrt(2 ln(2.5/delta)) / epsilon`` (CZ22 Prop. F.1, ZCH+20).

    The vector and the matrix each get ``(epsilon/2, delta/2)`` and have l2 sensitivity 2
    under Assumption 3.1, so this is ``classic_gaussian_sigma(2, epsilon/2, delta/2)``.
    Valid for ``epsilon <= 1``.
    """
    return classic_gaussian_sigma(2.0, epsilon / 2.0, delta / 2.0)


def sigma_amp_theory(epsilon: float, delta: float, B: int) -> float:
    """Thm. 3.2: ``sigma_1 = sigma_2 = 4 sqrt(2 ln(2.5B/delta) ln(2/delta)) / (eps sqrt(B))``."""
    return (
        4.0
        * math.sqrt(2.0 * math.log(2.5 * B / delta) * math.log(2.0 / delta))
        / (epsilon * math.sqrt(B))
    )


def amp_ru_batch_budget(epsilon: float, delta: float, M: int) -> tuple[float, float]:
    """Per-batch budget of the returning-user variants (CZ22 Thm. E.2 / E.3, Sec. 4).

    Advanced composition over ``M`` batches with ``delta' = delta/2``:
    ``epsilon_m = epsilon / (2 sqrt(2 M ln(2/delta)))``, ``delta_m = delta / (2M)``.
    """
    return epsilon / (2.0 * math.sqrt(2.0 * M * math.log(2.0 / delta))), delta / (2.0 * M)


def sigma_amp_ru_theory(epsilon: float, delta: float, B: int, T: int) -> float:
    """Thm. E.3 by substituting :func:`amp_ru_batch_budget` into Thm. 3.2 (docs/papers/cz22.md).

    Equals ``16 sqrt(T ln(2/delta) ln(5T/delta) ln(4M/delta)) / (epsilon B)``, ``M = T/B``.
    """
    eps_m, delta_m = amp_ru_batch_budget(epsilon, delta, T // B)
    return sigma_amp_theory(eps_m, delta_m, B)


def sigma_amp_ru_stated(epsilon: float, delta: float, B: int, T: int) -> float:
    """Thm. 4.2(i)/E.3 as printed: ``16 ln(2/delta) sqrt(T ln(5T/delta)) / (epsilon B)``."""
    return 16.0 * math.log(2.0 / delta) * math.sqrt(T * math.log(5.0 * T / delta)) / (epsilon * B)


def s_ldp_experiment(epsilon: float, delta: float) -> float:
    """Script's LDP noise ``s = sqrt(ln(2.5/delta)) / epsilon`` (the authors' script)."""
    return math.sqrt(math.log(2.5 / delta)) / epsilon


def s_amp_experiment(epsilon: float, delta: float, B: int) -> float:
    """Script's SDP-Amp noise ``s = sqrt(ln(2.5 B/delta)) / (epsilon sqrt(B))`` (the script)."""
    return math.sqrt(math.log(2.5 * B / delta)) / (epsilon * math.sqrt(B))


# --- P_Amp shuffler and analyzer (CZ22 Alg. 3-4) ----------------------------------------------


def amp_shuffle(messages: list, rng: np.random.Generator) -> list:
    """``S_Amp``: one uniform random permutation of the batch's messages."""
    return [messages[i] for i in rng.permutation(len(messages))]


def amp_analyze(messages: list[np.ndarray]) -> np.ndarray:
    """``A_Amp``: the entrywise sum of the received messages.

    Summed exactly (``math.fsum``), so the output does not depend on the order of the messages
    (shuffling is moot); the simulations use the batch aggregate directly (:mod:`..engine.noise`).
    """
    stacked = np.stack([np.asarray(m, dtype=float) for m in messages])
    flat = stacked.reshape(len(messages), -1)
    total = np.array([math.fsum(flat[:, j]) for j in range(flat.shape[1])])
    return total.reshape(stacked.shape[1:])
