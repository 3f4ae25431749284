"""Epsilon-greedy with a decaying exploration probability on fresh decision sets: the planted
contestant of op24's OP-E3 (docs/papers/op24.md), all trials of a chunk in one compiled call.

Not an algorithm of the papers. At round ``t`` (1-based) it explores with probability
``p_t = min(1, scale * t^(power - 1))``, playing an arm uniformly at random, and otherwise plays
the arm with the largest ``<theta^, a_k>`` (lowest index among those within ``ARGMAX_RTOL`` of
the maximum), ``theta^ = (I + sum a a^T)^{-1} sum a r`` the ridge estimate of its observations.
Its exploration alone costs ``sum_t p_t`` times the mean gap of a uniform arm, which grows like
``t^power`` (``scale t^power / power``): an anytime rate, so that one run of ``T_max`` rounds
shows it at every checkpoint. Rewards use the common uniforms ``U`` as
:mod:`dpbandits.engine.fresh_linucb`: ``+1`` if ``U[t, k] < (1 + <theta*, a_k>)/2``, else ``-1``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import ARGMAX_RTOL, argmax_first, fresh_round


@njit(cache=True)
def run_egreedy(A, U, theta_star, draws, power, scale, cps, regret):
    """All trials of a chunk.

    Parameters
    ----------
    A : (n, T, K, d) decision sets; U : (n, T, K) reward uniforms; theta_star : (n, d)
    draws : (n, T, 2) uniforms of the algorithm's own stream: ``draws[i, t, 0] < p_t`` explores,
        ``floor(draws[i, t, 1] K)`` is then the arm
    power, scale : float, the exploration schedule ``p_t = min(1, scale t^(power - 1))``
    cps : (C,) checkpoints (rounds, increasing)
    regret : (n, C) out, cumulative pseudo-regret
    """
    n, T, K, d = A.shape
    C = cps.shape[0]
    Vinv = np.zeros((d, d))
    u = np.zeros(d)
    theta = np.zeros(d)
    w = np.zeros(d)
    score = np.zeros(K)
    for i in range(n):
        Vinv[:, :] = 0.0
        for p in range(d):
            Vinv[p, p] = 1.0
        u[:] = 0.0
        theta[:] = 0.0
        cum = 0.0
        c = 0
        for t in range(T):
            if draws[i, t, 0] < min(1.0, scale * (t + 1.0) ** (power - 1.0)):
                a = min(K - 1, int(draws[i, t, 1] * K))
            else:
                for k in range(K):
                    s = 0.0
                    for p in range(d):
                        s += A[i, t, k, p] * theta[p]
                    score[k] = s
                a = argmax_first(score, ARGMAX_RTOL)
            gap, r = fresh_round(A, i, t, a, theta_star, U)
            cum += gap
            # Sherman-Morrison: (V + a a^T)^-1 = V^-1 - w w^T / (1 + a^T w), w = V^-1 a
            den = 1.0
            for p in range(d):
                s = 0.0
                for q in range(d):
                    s += Vinv[p, q] * A[i, t, a, q]
                w[p] = s
                den += A[i, t, a, p] * s
            for p in range(d):
                for q in range(d):
                    Vinv[p, q] -= w[p] * w[q] / den
                u[p] += A[i, t, a, p] * r
            for p in range(d):
                s = 0.0
                for q in range(d):
                    s += Vinv[p, q] * u[q]
                theta[p] = s
            if c < C and t + 1 == cps[c]:
                regret[i, c] = cum
                c += 1
