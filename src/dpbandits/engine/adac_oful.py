"""AdaC-OFUL (linear contextual bandits with public contexts, rho-zCDP on the rewards; op24,
Sec. 3; reconstruction [R4] of docs/papers/op24.md), all trials at once, round by round.

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
docs/papers/op24.md): the caller passes the decision sets ``A`` (n, T, K, d) and the uniforms
``U`` (n, T, K): the reward of action ``k`` at round ``t`` is ``+1`` if
``U < (1 + <theta*, a>)/2``, else ``-1``.

The trials run one after another in one compiled call (numba); the noise of every possible
switch is drawn with numpy before it, so the seeds stay the only source of randomness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..mechanisms.zcdp import gaussian_sigma
from .kernels import ARGMAX_RTOL, argmax_first

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
    """AdaC-OFUL on ``n`` trials (one compiled call, :func:`_run_trials`).

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
        The algorithm's noise stream of each trial: the ``j``-th switch adds the ``j``-th row of
        ``normal(0, sigma, size=(M, d))``, ``M`` the episode bound of :func:`max_episodes`
        (the same values as one ``normal(0, sigma, size=d)`` per switch; the generator is left
        ``M`` rows on).
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
    # Every switch at least doubles det V, and det V_T <= (lambda + T/d)^d: at most
    # floor(max_episodes) - 1 switches; one spare row.
    M = int(max_episodes(T, d, c.lam)) + 1
    noise = np.zeros((n, M if private else 0, d))
    for i in range(n if private else 0):
        noise[i] = noise_rngs[i].normal(0.0, sigma, size=(M, d))
    ks = np.arange(1, M + 2)
    gamma_coef = gamma_width(ks, sigma, d, np.ones(ks.size), c) if private else np.zeros(ks.size)
    regret = np.zeros((n, cps.size))
    actions = np.zeros((n, T), dtype=np.int64)
    starts = np.zeros((n, M + 1), dtype=np.int64)
    gammas = np.zeros((n, M + 1))
    count = np.zeros(n, dtype=np.int64)
    _run_trials(
        np.ascontiguousarray(A, dtype=float),
        np.ascontiguousarray(U, dtype=float),
        np.ascontiguousarray(theta, dtype=float),
        noise,
        sqrt_beta(np.arange(T + 1), d, c),
        gamma_coef,
        c.lam,
        cps,
        regret,
        actions,
        starts,
        gammas,
        count,
    )
    switches = [starts[i, : count[i]].tolist() for i in range(n)]
    return OfulRun(regret, switches, [gammas[i, : count[i]].tolist() for i in range(n)], actions)


@njit(cache=True)
def _run_trials(
    A, U, theta, noise, sqrt_beta_t, gamma_coef, lam, cps, regret, actions, starts, gammas, count
):
    """Every trial, round by round (the module's rule).

    ``noise`` (n, M, d): row ``j`` is added at the ``j``-th switch (M = 0: OFUL-RS);
    ``sqrt_beta_t[t]`` the radius at an episode starting at ``t``; ``gamma_coef[k - 1]`` is
    ``gamma_k`` with ``lambda_min = 1`` (divided by ``sqrt(lambda_min(V~))`` at the switch).
    Out: ``regret`` (n, C), ``actions`` (n, T), ``starts``/``gammas`` (n, M + 1) with ``count``
    entries per trial.
    """
    n, T, K, d = A.shape
    C = cps.shape[0]
    private = noise.shape[1] > 0
    V = np.empty((d, d))
    Vinv = np.empty((d, d))
    Vt_inv = np.empty((d, d))
    Usum = np.empty(d)
    e = np.empty(d)
    theta_t = np.empty(d)
    Va = np.empty(d)
    index = np.empty(K)
    means = np.empty(K)
    for i in range(n):
        V[:] = 0.0
        Vinv[:] = 0.0
        for p in range(d):
            V[p, p] = lam
            Vinv[p, p] = 1.0 / lam
        Vt_inv[:] = Vinv
        logdet = d * math.log(lam)
        logdet_start = logdet
        Usum[:] = 0.0
        e[:] = 0.0
        theta_t[:] = 0.0
        k = 1
        width = sqrt_beta_t[1]
        starts[i, 0] = 1
        gammas[i, 0] = 0.0
        count[i] = 1
        cum = 0.0
        j = 0
        for t in range(1, T + 1):
            if t > 1 and logdet - logdet_start > SWITCH_LOG_RATIO:
                if count[i] >= starts.shape[1]:
                    raise ValueError("more episodes than the bound d log2(1 + T/(d lambda)) + 1")
                for p in range(d):
                    Usum[p] += e[p] + (noise[i, k - 1, p] if private else 0.0)
                e[:] = 0.0
                k += 1
                logdet_start = logdet
                Vt_inv[:] = Vinv
                theta_t[:] = np.linalg.solve(V, Usum)
                g = 0.0
                if private:
                    g = gamma_coef[k - 1] / math.sqrt(np.linalg.eigvalsh(V)[0])
                width = sqrt_beta_t[t] + g
                starts[i, count[i]] = t
                gammas[i, count[i]] = g
                count[i] += 1
            best = -np.inf
            for a in range(K):
                x = A[i, t - 1, a]
                quad = 0.0
                for p in range(d):
                    s = 0.0
                    for q in range(d):
                        s += Vt_inv[p, q] * x[q]
                    quad += x[p] * s
                lin = 0.0
                mean = 0.0
                for p in range(d):
                    lin += x[p] * theta_t[p]
                    mean += x[p] * theta[i, p]
                index[a] = lin + width * math.sqrt(quad)
                means[a] = mean
                best = max(best, mean)
            arm = argmax_first(index, ARGMAX_RTOL)
            actions[i, t - 1] = arm
            x = A[i, t - 1, arm]
            r = 1.0 if U[i, t - 1, arm] < (1.0 + means[arm]) / 2.0 else -1.0
            cum += best - means[arm]
            qv = 0.0
            for p in range(d):
                e[p] += x[p] * r
                s = 0.0
                for q in range(d):
                    s += Vinv[p, q] * x[q]
                Va[p] = s
            for p in range(d):
                qv += x[p] * Va[p]
            logdet += math.log1p(qv)
            for p in range(d):
                for q in range(d):
                    Vinv[p, q] -= Va[p] * Va[q] / (1.0 + qv)
                    V[p, q] += x[p] * x[q]
            while j < C and cps[j] == t:
                regret[i, j] = cum
                j += 1


__all__ = [
    "SWITCH_LOG_RATIO",
    "OfulConstants",
    "OfulRun",
    "gamma_width",
    "max_episodes",
    "run_adac_oful",
    "sqrt_beta",
]
