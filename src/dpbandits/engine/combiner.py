"""Kernel of Algorithm 2 (Private Bandit Combiner) and Algorithm 7 (doubling OnlineUCB), olucb
(Sec. 4; the policies are :mod:`dpbandits.policies.combiner`).

Every base keeps the state of one OnlineUCB (Algorithm 1): its confidence set (``V~``, ``u~``
with the per-arm rank-one caches of :mod:`.kernels`) and its online learner. A base reads its
constants from the policy's per-play tables at its own play count ``n``: the radius, ``G``,
``Delta^2``, ``Sigma``, Maler's horizon, and whether play ``n`` starts a new epoch (Algorithm 7's
restarts, which reset the whole state). Only the selected base is touched in a round (Algorithm
2, server step). The user's perturbation is ``sqrt(Delta^2) zeta`` with the round's standard
normal ``zeta``, so the same draws serve every base.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..learners.maler import maler_init, maler_predict, maler_update, ogd_step
from .kernels import (
    ARGMAX_RTOL,
    RESYNC_EVERY,
    argmax_first,
    full_refresh,
    pair_products,
    play,
    rank_one_update,
    record,
)

#: Bases whose plays are recorded (``base1_plays`` .. ``base4_plays``): the combiner has
#: ``M = 1 + ceil(log2(T)/8) <= 4`` bases for every ``T <= 2^24``; absent bases record 0.
RECORDED_BASES = 4
#: ``base<i>_plays``: plays of base ``i`` (base 1 is Algorithm 7) up to the checkpoint.
BASE_PLAY_METRICS = tuple(f"base{i}_plays" for i in range(1, RECORDED_BASES + 1))
#: Metrics the combiner records on top of :data:`dpbandits.result_columns.METRICS`: plays of base 1
#: (Algorithm 7), the number of active bases, lambda_min of the played arms' second moment
#: ``(1/t) sum x_s x_s^T``, eliminations refused because the base was the last active one, then
#: the plays of bases 2..4 (per-trial base shares: :func:`base_shares`).
COMBINER_METRICS = (
    "base1_plays",
    "active_bases",
    "lambda_min_played",
    "refused_eliminations",
    *BASE_PLAY_METRICS[1:],
)
N_BASE = 7  # len(dpbandits.result_columns.METRICS)


def base_shares(plays: np.ndarray, rounds: np.ndarray | int) -> dict[str, np.ndarray]:
    """How the combiner shared the rounds among its bases, from per-trial play counts.

    Parameters
    ----------
    plays : (n_trials, M) plays of each base (the ``base<i>_plays`` metrics at one checkpoint)
    rounds : rounds played at that checkpoint (scalar or one per trial)

    Returns
    -------
    dict of (M,) arrays: ``round_share`` (mean over trials of the fraction of rounds the base
    played), ``trial_share`` (fraction of trials in which the base played the most rounds; ties
    to the lowest index) and ``played_share`` (fraction of trials in which it played at all).
    """
    plays = np.asarray(plays, dtype=float)
    if plays.ndim != 2 or plays.shape[0] == 0:
        raise ValueError(f"plays must have shape (n_trials, M), got {plays.shape}")
    rounds = np.broadcast_to(np.asarray(rounds, dtype=float), plays.shape[:1])
    M = plays.shape[1]
    top = np.argmax(plays, axis=1)
    return {
        "round_share": (plays / rounds[:, None]).mean(axis=0),
        "trial_share": np.bincount(top, minlength=M)[:M] / plays.shape[0],
        "played_share": (plays > 0).mean(axis=0),
    }


@njit(cache=True)
def n_experts_of(H):
    """``2 ceil(log2(max(H, 2))/2) + 3`` (:func:`dpbandits.learners.maler.n_experts`)."""
    return 2 * int(math.ceil(0.5 * math.log2(max(H, 2)))) + 3


@njit(cache=True)
def combiner_width(n, p, v, log_const):
    """``w(n) = p sqrt(n v log(T^3 M max{1, log n} v / beta))``.

    ``log_const = log(T^3 M v / beta)``, ``v = 1 + sigma^2``.
    """
    return p * math.sqrt(n * v * (log_const + math.log(max(1.0, math.log(n)))))


@njit(cache=True)
def run_combiner(
    X,
    mu,
    best,
    rewards,
    zeta,
    noise_x,
    noise_y,
    tab_radius,
    tab_G,
    tab_Delta2,
    tab_Sigma,
    tab_mu_hat,
    tab_restart,
    tab_local,
    tab_horizon,
    select,
    C_i,
    alpha_i,
    R_i,
    p_index,
    sigma2,
    log_const,
    D,
    use_maler,
    ogd_sc,
    cps,
    out,
):
    """Algorithm 2 (``select``) or Algorithm 7 alone (one base, no selection) on fixed arms.

    Parameters
    ----------
    X : (n, K, d) unit-scale arms; mu : (n, K); best : (n,); rewards : (n, T, K) bool
    zeta, noise_x : (n, T, d) standard normal and sigma-scaled; noise_y : (n, T)
    tab_* : (M, T) per-play tables of every base (:class:`~dpbandits.policies.combiner.BaseTables`)
    select : run the combiner (else base 0 plays every round)
    C_i, alpha_i, R_i : (M,) constants of Theorem 4.1; p_index : p; sigma2 : sigma^2
    log_const : ``log(T^3 M (1 + sigma^2)/beta)``; D : domain radius
    use_maler, ogd_sc : learner switches; cps : (C,) checkpoints;
    out : (n, C, 7 + len(COMBINER_METRICS))
    """
    n, K, d = X.shape
    T = rewards.shape[1]
    M = tab_radius.shape[0]
    C = cps.shape[0]
    E2 = d * (d + 1) // 2
    E_max = n_experts_of(T)
    K1_max = (E_max - 3) // 2 + 1
    kinds = np.zeros((M, E_max), dtype=np.int64)
    etas = np.zeros((M, E_max))
    logw = np.zeros((M, E_max))
    pos = np.zeros((M, E_max, d))
    A = np.zeros((M, K1_max, d, d))
    Ainv = np.zeros((M, K1_max, d, d))
    n_exp = np.zeros(M, dtype=np.int64)
    mwork = np.zeros((3, d))
    XT = np.zeros((d, K))
    PT = np.zeros((E2, K))
    V = np.zeros((M, d, d))
    Vinv = np.zeros((M, d, d))
    Gram = np.zeros((M, d, d))
    U = np.zeros((M, d))
    theta_hat = np.zeros((M, d))
    m = np.zeros((M, K))
    q = np.zeros((M, K))
    theta_ogd = np.zeros((M, d))
    zero = np.zeros(d + E2)
    w = np.zeros(d)
    pbuf = np.zeros(K)
    buf = np.zeros(K)
    work = np.zeros((d, 2 * d))
    chol = np.zeros((d, d))
    vpack = np.zeros(E2)
    theta_t = np.zeros(d)
    xt = np.zeros(d)
    g = np.zeros(d)
    played = np.zeros((d, d))
    acc = np.zeros(6)
    plays = np.zeros(M, dtype=np.int64)
    mean = np.zeros(M)
    dev = np.zeros(M)
    active = np.zeros(M, dtype=np.bool_)
    v_noise = 1.0 + sigma2
    for i in range(n):
        XT[:, :] = X[i].T
        pair_products(XT, PT)
        played[:, :] = 0.0
        acc[:] = 0.0
        plays[:] = 0
        mean[:] = 0.0
        dev[:] = 0.0
        active[:] = True
        n_active = M
        refused = 0.0
        c = 0
        for t in range(T):
            # the combiner's choice of base (Algorithm 2: U(i, t-1), i_t; ties: lowest index)
            b = 0
            if select:
                top = -np.inf
                for j in range(M):
                    if not active[j]:
                        continue
                    nj = plays[j]
                    if nj == 0:
                        u_j = 1.0 - R_i[j] / T
                    else:
                        bonus = (
                            C_i[j] * nj ** alpha_i[j]
                            + combiner_width(nj, p_index, v_noise, log_const)
                        ) / nj
                        u_j = mean[j] + min(1.0, bonus) - R_i[j] / T
                    if u_j > top:
                        top = u_j
                        b = j
            nb = plays[b]
            if tab_restart[b, nb]:  # a fresh Algorithm 1 (first play, or an epoch of Alg. 7)
                Gram[b] = 0.0
                U[b] = 0.0
                theta_ogd[b] = 0.0
                full_refresh(
                    Gram[b],
                    U[b],
                    zero,
                    1.0,
                    XT,
                    PT,
                    V[b],
                    Vinv[b],
                    theta_hat[b],
                    m[b],
                    q[b],
                    work,
                    chol,
                    vpack,
                    buf,
                    True,
                )
                if use_maler:
                    E = n_experts_of(tab_horizon[b, nb])
                    n_exp[b] = E
                    K1 = (E - 3) // 2 + 1
                    maler_init(
                        d,
                        D,
                        tab_G[b, nb],
                        tab_horizon[b, nb],
                        kinds[b, :E],
                        etas[b, :E],
                        logw[b, :E],
                        pos[b, :E],
                        A[b, :K1],
                        Ainv[b, :K1],
                    )
            E = n_exp[b]
            K1 = (E - 3) // 2 + 1
            G = tab_G[b, nb]
            Sigma = tab_Sigma[b, nb]
            local = tab_local[b, nb]
            # base b's UCB step (Algorithm 1, local step)
            rb = math.sqrt(tab_radius[b, nb])
            for k in range(K):
                buf[k] = m[b, k] + rb * math.sqrt(max(q[b, k], 0.0))
            a = argmax_first(buf, ARGMAX_RTOL)
            y = play(rewards[i, t], mu[i], best[i], a, False, False, acc)
            if use_maler:
                maler_predict(etas[b, :E], logw[b, :E], pos[b, :E], theta_t)
            else:
                theta_t[:] = theta_ogd[b]
            sd = math.sqrt(tab_Delta2[b, nb])
            for j in range(d):
                xt[j] = XT[j, a] + sd * zeta[i, t, j] + noise_x[i, t, j]
            yt = y + noise_y[i, t]
            inner = 0.0
            for j in range(d):
                inner += xt[j] * theta_t[j]
            nrm = 0.0
            for j in range(d):
                g[j] = 2.0 * xt[j] * (inner - yt) - 2.0 * Sigma * theta_t[j]
                nrm += g[j] * g[j]
            nrm = math.sqrt(nrm)
            if nrm > G:
                for j in range(d):
                    g[j] *= G / nrm
            if use_maler:
                maler_update(
                    g,
                    theta_t,
                    local,
                    D,
                    G,
                    kinds[b, :E],
                    etas[b, :E],
                    logw[b, :E],
                    pos[b, :E],
                    A[b, :K1],
                    Ainv[b, :K1],
                    mwork,
                )
            else:
                ogd_step(theta_ogd[b], g, local, D, G, tab_mu_hat[b, nb], ogd_sc)
            Gb = Gram[b]
            for p_ in range(d):
                U[b, p_] += inner * xt[p_]
                for q_ in range(d):
                    Gb[p_, q_] += xt[p_] * xt[q_]
                    played[p_, q_] += XT[p_, a] * XT[q_, a]
            if local % RESYNC_EVERY == 0:
                full_refresh(
                    Gram[b],
                    U[b],
                    zero,
                    1.0,
                    XT,
                    PT,
                    V[b],
                    Vinv[b],
                    theta_hat[b],
                    m[b],
                    q[b],
                    work,
                    chol,
                    vpack,
                    buf,
                    True,
                )
            else:
                rank_one_update(xt, inner, XT, V[b], Vinv[b], theta_hat[b], m[b], q[b], w, pbuf)
            # the combiner's statistics of base b (Algorithm 2: running mean, elimination test)
            plays[b] += 1
            nn = plays[b]
            dev[b] += mean[b] - yt
            mean[b] += (yt - mean[b]) / nn
            if select:
                thr = C_i[b] * nn ** alpha_i[b] + combiner_width(nn, p_index, v_noise, log_const)
                if dev[b] >= thr:
                    if n_active > 1:
                        active[b] = False
                        n_active -= 1
                    else:
                        refused += 1.0
            if c < C and cps[c] == t + 1:
                o = out[i]
                record(o, c, acc, V[b])
                o[c, N_BASE] = plays[0]
                o[c, N_BASE + 1] = n_active
                o[c, N_BASE + 2] = np.linalg.eigvalsh(played / (t + 1.0))[0]
                o[c, N_BASE + 3] = refused
                for j in range(1, RECORDED_BASES):
                    o[c, N_BASE + 3 + j] = plays[j] if j < M else 0
                c += 1
