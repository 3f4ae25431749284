"""LinUCB and JDP-LinUCB on fresh decision sets (OP-E3 of docs/papers/op24.md), all
trials of a chunk in one compiled call.

At round ``t`` (1-based) the policy sees the noisy prefix of the ``t - 1`` observations,
``V~ = sum a a^T + N_V(t-1) + shift I`` and ``u~ = sum a r + N_u(t-1)``, where ``N(t-1)`` is the
noise in force after ``t - 1`` leaves (the binary tree's prefix noise for JDP-LinUCB, zero for
LinUCB). If ``floor > 0`` and ``lambda_min(V~) < floor`` (outside the good event) the small
eigenvalues of ``V~`` are raised to ``floor`` ([R7] of op24.md). Then ``theta~ = V~^{-1} u~`` and
``a_t = argmax_k <theta~, a_k> + sqrt(beta_t) ||a_k||_{V~^{-1}}`` (lowest index among the
indices within ``ARGMAX_RTOL`` of the maximum).

The tree noise changes every round, so ``V~`` is rebuilt and factorised every round (Cholesky,
``O(d^3)``; ``d + 1 <= 21`` here). Rewards use the common uniforms ``U`` (OP-E3): ``+1`` if
``U[t, k] < (1 + <theta*, a_k>)/2``, else ``-1``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from dpbandits.runtime.job_memory import CHUNK_BYTES

from ..mechanisms.packing import n_entries
from ..policies.base import Policy
from .kernels import (
    ARGMAX_RTOL,
    argmax_first,
    fresh_round,
    is_positive_definite,
    lower_inverse,
    solve_with_lower_inverse,
)
from .noise import draw_raw, noise_tables

#: Memory budget of one chunk of trials (decision sets, uniforms and noise tables).


@njit(cache=True)
def _floor_eigenvalues(V, floor):
    """Raise the eigenvalues of the symmetric ``V`` below ``floor`` to ``floor`` (in place)."""
    w, Q = np.linalg.eigh(V)
    d = V.shape[0]
    for i in range(d):
        for j in range(d):
            s = 0.0
            for k in range(d):
                s += Q[i, k] * max(w[k], floor) * Q[j, k]
            V[i, j] = s


@njit(cache=True)
def run_fresh_linucb(
    A, U, theta_star, noise, shift, floor, sqrt_beta, cps, regret, actions, events
):
    """All trials of a chunk.

    Parameters
    ----------
    A : (n, T, K, d) decision sets; U : (n, T, K) reward uniforms; theta_star : (n, d)
    noise : (n, T, E) packed prefix noise in force at each round (vector part first, then the
        upper triangle of the Gram part; ``E = d + d(d+1)/2``), or (n, 0, E) for none
    shift : float, added to the Gram diagonal; floor : float, eigenvalue floor (0: none)
    sqrt_beta : (T,) radius at each round
    cps : (C,) checkpoints (rounds, increasing)
    regret : (n, C) out, cumulative pseudo-regret; actions : (n, T) out (int64)
    events : (n, C) out, number of rounds up to each checkpoint at which the eigenvalue floor
        acted
    """
    n, T, K, d = A.shape
    C = cps.shape[0]
    G = np.zeros((d, d))
    u = np.zeros(d)
    V = np.zeros((d, d))
    chol = np.zeros((d, d))
    Linv = np.zeros((d, d))
    z = np.zeros(d)
    theta = np.zeros(d)
    idx = np.zeros(K)
    y = np.zeros(d)
    has_noise = noise.shape[1] > 0
    empty = np.zeros(0)
    for i in range(n):
        G[:, :] = 0.0
        u[:] = 0.0
        cum = 0.0
        c = 0
        n_events = 0
        for t in range(T):
            e = d
            for p in range(d):
                for q in range(p, d):
                    v = G[p, q]
                    if has_noise:
                        v += noise[i, t, e]
                    if p == q:
                        v += shift
                    V[p, q] = v
                    V[q, p] = v
                    e += 1
            if floor > 0.0:
                for p in range(d):
                    V[p, p] -= floor
                ok = is_positive_definite(V, chol)
                for p in range(d):
                    V[p, p] += floor
                if not ok:
                    _floor_eigenvalues(V, floor)
                    n_events += 1
            if not is_positive_definite(V, chol):  # only without a floor: refuse to guess
                raise ValueError("V~ is not positive definite and no eigenvalue floor is set")
            lower_inverse(chol, Linv)
            solve_with_lower_inverse(Linv, u, noise[i, t] if has_noise else empty, z, theta)
            rb = sqrt_beta[t]
            for k in range(K):
                m = 0.0
                qf = 0.0
                for p in range(d):
                    m += A[i, t, k, p] * theta[p]
                    s = 0.0
                    for q in range(p + 1):
                        s += Linv[p, q] * A[i, t, k, q]
                    y[p] = s
                    qf += s * s
                idx[k] = m + rb * math.sqrt(qf)
            a = argmax_first(idx, ARGMAX_RTOL)
            actions[i, t] = a
            gap, r = fresh_round(A, i, t, a, theta_star, U)
            cum += gap
            for p in range(d):
                ap = A[i, t, a, p]
                u[p] += ap * r
                for q in range(d):
                    G[p, q] += ap * A[i, t, a, q]
            if c < C and t + 1 == cps[c]:
                regret[i, c] = cum
                events[i, c] = n_events
                c += 1


@dataclass
class FreshRun:
    """Per trial: regret at the checkpoints (n, C), actions (n, T), eigenvalue-floor events up to
    each checkpoint (n, C) and the wall seconds of the whole run."""

    regret: np.ndarray
    actions: np.ndarray
    floor_events: np.ndarray
    seconds: float


def policy_tables(policy: Policy) -> tuple[float, float, np.ndarray]:
    """``(shift, floor, sqrt_beta per round)`` of a LinUCB-type policy with the ``op24``
    calibration (docs/papers/op24.md, 'Algorithms')."""
    if "fresh" not in policy.runs_on(policy.calibration):
        raise ValueError(f"{policy.algorithm}: fresh decision sets need calibration 'op24'")
    floor = policy.reg.eig_floor if policy.scheme == "tree" else 0.0
    return float(policy.lam), float(floor), policy.radius(1.0)


def simulate_fresh(
    policy: Policy,
    A: np.ndarray,
    U: np.ndarray,
    theta: np.ndarray,
    noise_rngs: Sequence[np.random.Generator],
    checkpoints: np.ndarray,
    chunk_bytes: int = CHUNK_BYTES,
) -> FreshRun:
    """Run ``policy`` (LinUCB or JDP-LinUCB, calibration ``op24``) on every trial.

    Parameters
    ----------
    policy : Policy
        Its ``setting.T`` is the horizon (and the tree's size).
    A : ndarray, shape (n, T, K, d)
        Decision sets (shared by the algorithms compared).
    U : ndarray, shape (n, T, K)
        Reward uniforms (shared).
    theta : ndarray, shape (n, d)
    noise_rngs : sequence of numpy.random.Generator
        The algorithm's noise stream of each trial (node noises, level by level).
    checkpoints : ndarray of int
        Rounds at which the cumulative pseudo-regret is recorded.
    chunk_bytes : int
        Memory budget of a chunk of trials; the numbers do not depend on it.

    Returns
    -------
    FreshRun
    """
    start = time.perf_counter()
    n, T, K, d = A.shape
    if T != policy.setting.T or d != policy.setting.d:
        raise ValueError(f"A has T = {T}, d = {d}; the policy was set up for {policy.setting}")
    if U.shape != (n, T, K) or theta.shape != (n, d) or len(noise_rngs) != n:
        raise ValueError("need U (n, T, K), theta (n, d) and one noise generator per trial")
    cps = np.asarray(checkpoints, dtype=np.int64)
    if cps.size == 0 or np.any(np.diff(cps) <= 0) or cps[0] < 1 or cps[-1] > T:
        raise ValueError(f"checkpoints must increase within [1, {T}], got {cps}")
    shift, floor, beta = policy_tables(policy)
    E = n_entries(d)
    private = policy.scheme != "none"
    chunk = max(1, int(chunk_bytes // (8 * T * (K * d + K + (E if private else 0)))))
    regret = np.zeros((n, cps.size))
    actions = np.zeros((n, T), dtype=np.int64)
    events = np.zeros((n, cps.size), dtype=np.int64)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        if private:
            rngs = noise_rngs[lo:hi]
            noise = noise_tables(policy, hi - lo, lambda j, g=rngs: draw_raw(policy, g[j]))[0]
        else:
            noise = np.zeros((hi - lo, 0, E))
        run_fresh_linucb(
            np.ascontiguousarray(A[lo:hi]),
            np.ascontiguousarray(U[lo:hi]),
            np.ascontiguousarray(theta[lo:hi]),
            noise,
            shift,
            floor,
            beta,
            cps,
            regret[lo:hi],
            actions[lo:hi],
            events[lo:hi],
        )
    return FreshRun(regret, actions, events, time.perf_counter() - start)


__all__ = ["FreshRun", "policy_tables", "run_fresh_linucb", "simulate_fresh"]
