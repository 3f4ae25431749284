"""Kernel of explore-then-commit (:mod:`dpbandits.policies.etc`), the rate audit's planted
contestant: one call runs a chunk of trials over the whole horizon."""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import ARGMAX_RTOL, argmax_first, play, record


@njit(cache=True)
def run_etc(X, mu, best, rewards, n_explore, lam, cps, out):
    """Explore-then-commit on every trial of a chunk.

    Round ``t < n_explore`` plays arm ``t mod K`` and adds its observation to ``G`` and ``u``;
    at round ``n_explore`` the model ``V = lam I + G`` is solved for ``theta`` and the arm with
    the largest ``x_k^T theta`` (ties: :func:`~dpbandits.engine.kernels.argmax_first`) is played
    to the horizon. ``lambda_min`` is that of ``V``: the matrix in force (frozen at the commit).

    Parameters
    ----------
    X : (n, K, d) float64; mu : (n, K); best : (n,) int; rewards : (n, T, K) bool
    n_explore : int, ``1 <= n_explore <= T``; lam : float, ridge parameter
    cps : (C,) checkpoint rounds (1-based counts)
    out : (n, C, 7) metrics at the checkpoints (``METRICS`` order), written in place.
    """
    n, K, d = X.shape
    T = rewards.shape[1]
    C = cps.shape[0]
    V = np.zeros((d, d))
    U = np.zeros(d)
    m = np.zeros(K)
    acc = np.zeros(6)
    for i in range(n):
        V[:, :] = 0.0
        for j in range(d):
            V[j, j] = lam
        U[:] = 0.0
        acc[:] = 0.0
        c = 0
        a = 0
        for t in range(T):
            if t < n_explore:
                a = t % K
            elif t == n_explore:
                theta = np.linalg.solve(V, U)
                for k in range(K):
                    s = 0.0
                    for j in range(d):
                        s += X[i, k, j] * theta[j]
                    m[k] = s
                a = argmax_first(m, ARGMAX_RTOL)
            y = play(rewards[i, t], mu[i], best[i], a, False, False, acc)
            if t < n_explore:
                for p_ in range(d):
                    U[p_] += X[i, a, p_] * y
                    for q_ in range(d):
                        V[p_, q_] += X[i, a, p_] * X[i, a, q_]
            if c < C and cps[c] == t + 1:
                record(out[i], c, acc, V)
                c += 1
