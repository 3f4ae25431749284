"""AdaC-OFUL (linear contextual bandits with public contexts, rho-zCDP on the rewards; paper
002, Sec. 3; reconstruction [R4] of docs/papers/op24.md), all trials at once, round by round.

Rarely-switching OFUL: episode ``k`` starts at ``tau_k``; a new episode starts when
``ln det V_{t-1} - ln det V_{tau_k - 1} > ln 2`` (the public Gram ``V_t = lambda I + sum a_s
a_s^T`` has doubled its determinant). At the switch the open episode's exact reward-weighted sum
``e`` is released with Gaussian noise, ``U <- U + e + Y_k``, ``Y_k ~ N(0, sigma^2 I_d)``,
``sigma^2 = 2/rho`` (one reward in ``[-1, 1]`` moves ``e`` by at most ``2 ||a|| <= 2``; every
reward enters one release; episode boundaries depend only on public contexts and earlier
releases: adaptive parallel composition). For the episode, with ``V~ = V_{tau_k - 1}``:

* ``theta~_k = V~^{-1} U``;
* ``sqrt(beta_k) = sqrt(2 ln(2/delta_c) + d ln(1 + (tau_k - 1)/(d lambda))) + sqrt(lambda) S``;
* ``gamma_k = sigma sqrt(k - 1) (sqrt(d) + sqrt(2 ln(4 k^2/delta_c))) / sqrt(lambda_min(V~))``
  (``gamma_1 = 0``), width ``w_k = sqrt(beta_k) + gamma_k``;
* ``a_t = argmax_a <theta~_k, a> + w_k ||a||_{V~^{-1}}`` (lowest index among the indices within
  ``ARGMAX_RTOL`` of the maximum: ties, as at ``t = 1`` where every unit action has the same
  index, must not be broken by rounding).

``rho = inf`` is OFUL-RS (no noise, ``gamma = 0``). ``ln det V`` is tracked with the matrix
determinant lemma and ``V^{-1}`` with Sherman-Morrison (both exact up to rounding).

Contexts and rewards come from shared streams (common random numbers, OP-E3 of
docs/papers/op24.md): the caller passes the decision sets ``A`` (n, T, K, d) or a function drawing
them round by round, and the uniforms ``U`` (n, T, K): the reward of action ``k`` at round ``t``
is ``+1`` if ``U < (1 + <theta*, a>)/2``, else ``-1``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..mechanisms.zcdp import gaussian_sigma
from .kernels import ARGMAX_RTOL

#: A switch needs ``ln det V_{t-1} - ln det V_{tau_k - 1} > ln 2`` beyond rounding: with unit-norm
#: actions ``det V_1 = 2 det V_0`` exactly, which must not switch (the rule is strict).
SWITCH_LOG_RATIO = math.log(2.0) * (1.0 + 1e-10)


@dataclass(frozen=True)
class OfulConstants:
    """``lambda = 1``, ``S = 1`` (bound on ``||theta*||``), ``delta_c = 0.01`` ([R4])."""

    lam: float = 1.0
    S: float = 1.0
    delta_c: float = 0.01


def sqrt_beta(tau: np.ndarray, d: int, c: OfulConstants) -> np.ndarray:
    """``sqrt(2 ln(2/delta_c) + d ln(1 + (tau - 1)/(d lambda))) + sqrt(lambda) S``."""
    tau = np.asarray(tau, dtype=float)
    return (
        np.sqrt(2.0 * math.log(2.0 / c.delta_c) + d * np.log1p((tau - 1.0) / (d * c.lam)))
        + math.sqrt(c.lam) * c.S
    )


def gamma_width(
    k: np.ndarray, sigma: float, d: int, lam_min: np.ndarray, c: OfulConstants
) -> np.ndarray:
    """``sigma sqrt(k-1) (sqrt(d) + sqrt(2 ln(4 k^2/delta_c))) / sqrt(lambda_min)`` (0 at k = 1)."""
    k = np.asarray(k, dtype=float)
    return (
        sigma
        * np.sqrt(k - 1.0)
        * (math.sqrt(d) + np.sqrt(2.0 * np.log(4.0 * k * k / c.delta_c)))
        / np.sqrt(lam_min)
    )


def max_episodes(T: int, d: int, lam: float = 1.0) -> float:
    """The bound ``d log2(1 + T/(d lambda)) + 1`` on the number of episodes."""
    return d * math.log2(1.0 + T / (d * lam)) + 1.0


@dataclass
class OfulRun:
    """Per trial: regret at the checkpoints, episode starts and widths ``gamma_k``."""

    regret: np.ndarray
    switches: list
    gammas: list
    actions: np.ndarray


def run_adac_oful(
    A: np.ndarray,
    U: np.ndarray,
    theta: np.ndarray,
    rho: float,
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    constants: OfulConstants = OfulConstants(),
) -> OfulRun:
    """AdaC-OFUL on ``n`` trials.

    Parameters
    ----------
    A : ndarray, shape (n, T, K, d)
        Decision sets (public contexts), ``||a|| <= 1``.
    U : ndarray, shape (n, T, K)
        Reward uniforms (shared by the algorithms compared).
    theta : ndarray, shape (n, d)
        Parameters, ``||theta|| <= S``.
    rho : float
        zCDP parameter (``inf``: OFUL-RS).
    noise_rngs : sequence of numpy.random.Generator
        The algorithm's noise stream of each trial (one ``N(0, sigma^2 I_d)`` per switch).
    checkpoints : ndarray of int
        Rounds at which the pseudo-regret is recorded.
    """
    n, T, K, d = A.shape
    c = constants
    if not rho > 0:
        raise ValueError(f"rho = {rho!r}: must be > 0 (inf for OFUL-RS)")
    if U.shape != (n, T, K) or theta.shape != (n, d) or len(noise_rngs) != n:
        raise ValueError("A (n, T, K, d), U (n, T, K), theta (n, d) and n noise generators")
    private = not math.isinf(rho)
    sigma = gaussian_sigma(2.0, rho)
    cps = np.asarray(checkpoints, dtype=np.int64)
    rows = np.arange(n)
    V = np.broadcast_to(c.lam * np.eye(d), (n, d, d)).copy()
    Vinv = np.broadcast_to(np.eye(d) / c.lam, (n, d, d)).copy()
    logdet = np.full(n, d * math.log(c.lam))
    logdet_start = logdet.copy()
    Usum = np.zeros((n, d))
    e = np.zeros((n, d))
    k = np.ones(n, dtype=np.int64)
    theta_t = np.zeros((n, d))
    Vt_inv = Vinv.copy()
    width = np.full(n, float(sqrt_beta(1, d, c)))
    switches = [[1] for _ in range(n)]
    gammas = [[0.0] for _ in range(n)]
    regret = np.zeros((n, len(cps)))
    actions = np.zeros((n, T), dtype=np.int64)
    cum = np.zeros(n)
    j = 0
    for t in range(1, T + 1):
        if t > 1:
            switch = logdet - logdet_start > SWITCH_LOG_RATIO
            for i in np.flatnonzero(switch):
                noise = noise_rngs[i].normal(0.0, sigma, size=d) if private else 0.0
                Usum[i] += e[i] + noise
                e[i] = 0.0
                k[i] += 1
                logdet_start[i] = logdet[i]
                Vt_inv[i] = Vinv[i]
                theta_t[i] = np.linalg.solve(V[i], Usum[i])
                g = 0.0
                if private:
                    lam_min = float(np.linalg.eigvalsh(V[i])[0])
                    g = float(gamma_width(k[i], sigma, d, lam_min, c))
                width[i] = float(sqrt_beta(t, d, c)) + g
                switches[i].append(t)
                gammas[i].append(g)
        X = A[:, t - 1]  # (n, K, d)
        bonus = np.sqrt(np.einsum("nkd,nde,nke->nk", X, Vt_inv, X))
        index = np.einsum("nkd,nd->nk", X, theta_t) + width[:, None] * bonus
        top = index.max(axis=1, keepdims=True)
        arm = np.argmax(index >= top - ARGMAX_RTOL * np.maximum(1.0, np.abs(top)), axis=1)
        actions[:, t - 1] = arm
        a = X[rows, arm]  # (n, d)
        means = np.einsum("nkd,nd->nk", X, theta)
        r = np.where(U[:, t - 1, :][rows, arm] < (1.0 + means[rows, arm]) / 2.0, 1.0, -1.0)
        cum += means.max(axis=1) - means[rows, arm]
        e += a * r[:, None]
        Va = np.einsum("nde,ne->nd", Vinv, a)
        q = np.einsum("nd,nd->n", a, Va)
        logdet += np.log1p(q)
        Vinv -= np.einsum("nd,ne->nde", Va, Va) / (1.0 + q)[:, None, None]
        V += np.einsum("nd,ne->nde", a, a)
        while j < len(cps) and cps[j] == t:
            regret[:, j] = cum
            j += 1
    return OfulRun(regret, switches, gammas, actions)


__all__ = [
    "SWITCH_LOG_RATIO",
    "OfulConstants",
    "OfulRun",
    "gamma_width",
    "max_episodes",
    "run_adac_oful",
    "sqrt_beta",
]
