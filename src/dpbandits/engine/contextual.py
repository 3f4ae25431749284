"""Kernel of OnlineUCB, Algorithm 7 and the combiner, fresh arms (docs/papers/olucb.md, setting F).

With fresh arms every round there are no per-arm quantities to carry: each base keeps ``V~^{-1}``
(Sherman-Morrison, rebuilt by inversion every ``RESYNC_EVERY`` of its plays), ``u~`` and its centre
``theta_hat = V~^{-1} u~``, and the index of each of the round's ``K`` arms costs ``O(d^2)``.
Plain OnlineUCB is the one-base case without selection (its per-play tables are constant; see
:func:`dpbandits.policies.combiner.stacked_tables`). Rewards are ``+-1`` with
``P(+1) = (1 + <x, theta*>)/2`` from the trial's common uniforms
(:mod:`dpbandits.envs.contextual`); regrets are against the round's best arm.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..learners.maler import maler_init, maler_predict, maler_update, ogd_step
from .combiner import BASE_PLAY_METRICS, RECORDED_BASES, combiner_width, n_experts_of
from .kernels import ARGMAX_RTOL, BEST, PSEUDO, REAL, RESYNC_EVERY, argmax_first

#: Metrics recorded on fresh arms on top of :data:`dpbandits.result_columns.METRICS` (whose
#: ``lambda_min`` is that of the playing base's ``V~``): ``||theta_t - theta*||`` and
#: ``||theta_hat - theta*||`` of the playing base, its radius, the cumulative number of clipped
#: gradients, lambda_min of the played arms' second moment, plays of base 1, active bases,
#: refused eliminations and the plays of bases 2..4 (the last six are trivial for a single base),
#: then the online learners' realized regret ``sum_t l_t(theta_t) - l_t(theta*)`` with
#: ``l_t(theta) = (<x~_t, theta> - y~_t)^2 - Sigma ||theta||^2`` (the loss whose clipped gradient
#: the learner steps on; OnlineUCB's Lemma 3.5) and ``sum_t ||theta_t - theta*||^2``, summed over
#: rounds (of whichever base played; one learner for OnlineUCB).
CONTEXTUAL_METRICS = (
    "theta_err",
    "theta_hat_err",
    "radius",
    "clipped_gradient_rounds",
    "lambda_min_played",
    "base1_plays",
    "active_bases",
    "refused_eliminations",
    *BASE_PLAY_METRICS[1:],
    "learner_regret",
    "learner_dist_sq",
)
N_BASE = 7  # len(dpbandits.result_columns.METRICS)
#: Index in the output of ``learner_regret`` (``learner_dist_sq`` follows).
LEARNER_AT = N_BASE + len(CONTEXTUAL_METRICS) - 2


@njit(cache=True)
def _reset(Vinv_b, V_b, U_b, theta_b):
    d = V_b.shape[0]
    for i in range(d):
        U_b[i] = 0.0
        theta_b[i] = 0.0
        for j in range(d):
            v = 1.0 if i == j else 0.0
            V_b[i, j] = v
            Vinv_b[i, j] = v


@njit(cache=True)
def run_contextual(
    arms,
    theta_star,
    uniforms,
    zeta,
    zeta_scaled,
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
    """All trials of a chunk on fresh arms.

    Parameters
    ----------
    arms : (n, T, K, d) unit arms of every round; theta_star : (n, d); uniforms : (n, T, K)
    zeta : (n, T, d) or (n, 0, d); zeta_scaled : zeta is the perturbation itself (OnlineUCB's
    draws) rather than a standard normal to scale by ``sqrt(Delta^2)`` (the combiner's)
    noise_x : (n, T, d); noise_y : (n, T)
    tab_*, select, C_i, alpha_i, R_i, p_index, sigma2, log_const, D, use_maler, ogd_sc :
    as :func:`dpbandits.engine.combiner.run_combiner`
    cps : (C,) checkpoints; out : (n, C, 7 + len(CONTEXTUAL_METRICS))
    """
    n, T, K, d = arms.shape
    M = tab_radius.shape[0]
    C = cps.shape[0]
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
    V = np.zeros((M, d, d))
    Vinv = np.zeros((M, d, d))
    U = np.zeros((M, d))
    theta_hat = np.zeros((M, d))
    theta_ogd = np.zeros((M, d))
    VT = np.zeros((d, d))
    Vx = np.zeros(d)
    means = np.zeros(K)
    idx = np.zeros(K)
    theta_t = np.zeros(d)
    xt = np.zeros(d)
    g = np.zeros(d)
    w = np.zeros(d)
    played = np.zeros((d, d))
    acc = np.zeros(6)
    plays = np.zeros(M, dtype=np.int64)
    mean = np.zeros(M)
    dev = np.zeros(M)
    active = np.zeros(M, dtype=np.bool_)
    has_zeta = zeta.shape[1] > 0
    v_noise = 1.0 + sigma2
    for i in range(n):
        played[:, :] = 0.0
        acc[:] = 0.0
        plays[:] = 0
        mean[:] = 0.0
        dev[:] = 0.0
        active[:] = True
        n_active = M
        refused = 0.0
        clipped = 0.0
        rad = 0.0
        m_real = 0.0
        s_real = 0.0
        n_star = 0.0
        for j in range(d):
            n_star += theta_star[i, j] * theta_star[i, j]
        c = 0
        for t in range(T):
            X = arms[i, t]
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
            if tab_restart[b, nb]:
                _reset(Vinv[b], V[b], U[b], theta_hat[b])
                theta_ogd[b] = 0.0
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
            rad = tab_radius[b, nb]
            rb = math.sqrt(rad)
            Vb = Vinv[b]
            th = theta_hat[b]
            # the index's (V~^{-1} x)_p = sum_q V~^{-1}_pq x_q for every p at once: VT holds
            # V~^{-1} transposed, so each sum runs over q in order (the same bits as a row-by-row
            # dot product) with the d sums side by side over contiguous memory
            for p_ in range(d):
                for q_ in range(d):
                    VT[q_, p_] = Vb[p_, q_]
            for k in range(K):
                for p_ in range(d):
                    Vx[p_] = 0.0
                for q_ in range(d):
                    xq = X[k, q_]
                    for p_ in range(d):
                        Vx[p_] += VT[q_, p_] * xq
                mk = 0.0
                qk = 0.0
                mt = 0.0
                for p_ in range(d):
                    xp = X[k, p_]
                    mk += xp * th[p_]
                    mt += xp * theta_star[i, p_]
                    qk += xp * Vx[p_]
                idx[k] = mk + rb * math.sqrt(max(qk, 0.0))
                means[k] = mt
            a = argmax_first(idx, ARGMAX_RTOL)
            kb = 0
            for k in range(1, K):
                if means[k] > means[kb]:
                    kb = k
            y = 1.0 if uniforms[i, t, a] < (1.0 + means[a]) / 2.0 else -1.0
            y_best = 1.0 if uniforms[i, t, kb] < (1.0 + means[kb]) / 2.0 else -1.0
            acc[REAL] += y_best - y
            acc[PSEUDO] += means[kb] - means[a]
            if a == kb:
                acc[BEST] += 1.0
            # the user's report and clipped gradient at the learner's prediction (Algorithm 1)
            if use_maler:
                maler_predict(etas[b, :E], logw[b, :E], pos[b, :E], theta_t)
            else:
                theta_t[:] = theta_ogd[b]
            sd = math.sqrt(tab_Delta2[b, nb])
            for j in range(d):
                z = 0.0
                if has_zeta:
                    z = zeta[i, t, j] if zeta_scaled else sd * zeta[i, t, j]
                xt[j] = X[a, j] + z + noise_x[i, t, j]
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
                clipped += 1.0
                for j in range(d):
                    g[j] *= G / nrm
            star = 0.0
            n_t = 0.0
            for j in range(d):
                star += xt[j] * theta_star[i, j]
                n_t += theta_t[j] * theta_t[j]
                s_real += (theta_t[j] - theta_star[i, j]) ** 2
            m_real += (inner - yt) ** 2 - Sigma * n_t - ((star - yt) ** 2 - Sigma * n_star)
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
            # the confidence set grows by (x~, <theta_t, x~>)
            Vf = V[b]
            for p_ in range(d):
                U[b, p_] += inner * xt[p_]
                for q_ in range(d):
                    Vf[p_, q_] += xt[p_] * xt[q_]
                    played[p_, q_] += X[a, p_] * X[a, q_]
            if local % RESYNC_EVERY == 0:
                Vb[:, :] = np.linalg.inv(Vf)
            else:
                cden = 1.0
                for p_ in range(d):
                    s = 0.0
                    for q_ in range(d):
                        s += Vb[p_, q_] * xt[q_]
                    w[p_] = s
                    cden += xt[p_] * s
                for p_ in range(d):
                    for q_ in range(d):
                        Vb[p_, q_] -= w[p_] * w[q_] / cden
            for p_ in range(d):
                s = 0.0
                for q_ in range(d):
                    s += Vb[p_, q_] * U[b, q_]
                th[p_] = s
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
                for k in range(6):
                    o[c, k] = acc[k]
                o[c, 6] = np.linalg.eigvalsh(Vf)[0]
                e1 = 0.0
                e2 = 0.0
                for j in range(d):
                    e1 += (theta_t[j] - theta_star[i, j]) ** 2
                    e2 += (th[j] - theta_star[i, j]) ** 2
                o[c, N_BASE] = math.sqrt(e1)
                o[c, N_BASE + 1] = math.sqrt(e2)
                o[c, N_BASE + 2] = rad
                o[c, N_BASE + 3] = clipped
                o[c, N_BASE + 4] = np.linalg.eigvalsh(played / (t + 1.0))[0]
                o[c, N_BASE + 5] = plays[0]
                o[c, N_BASE + 6] = n_active
                o[c, N_BASE + 7] = refused
                for j in range(1, RECORDED_BASES):
                    o[c, N_BASE + 7 + j] = plays[j] if j < M else 0
                o[c, LEARNER_AT] = m_real
                o[c, LEARNER_AT + 1] = s_real
                c += 1
