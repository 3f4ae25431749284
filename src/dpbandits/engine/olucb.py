"""The OnlineUCB kernel (olucb, Algorithm 1).

Per trial and round: the UCB index ``<x, theta_hat> + sqrt(beta_t) ||x||_{V~^{-1}}`` of every arm
(per-arm quantities kept by rank-one updates, as in :mod:`.kernels`), the played arm's
privatized report, the clipped gradient at the online learner's prediction, one Maler (or OGD)
step, and the rank-one growth ``V~ += x~ x~^T``, ``u~ += <theta_t, x~> x~`` of the confidence set.
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

#: Metrics OnlineUCB records on top of :data:`dpbandits.result_columns.METRICS`, at every
#: checkpoint: ||theta_t - theta*||, ||theta_hat_t - theta*||, the radius beta_t, the cumulative
#: number of rounds whose gradient was clipped, lambda_min of the played arms' second moment
#: (1/t) sum x_s x_s^T, Maler's weight mass per expert family (NaN under OGD), and whether
#: theta* has been inside every confidence set so far, ||theta* - theta_hat||^2_V~ <= beta_t
#: (Lemma 3.3's event; 1 or 0); then the learner's realized regret ``sum_t l_t(theta_t) -
#: l_t(theta*)``, ``l_t(theta) = (<x~_t, theta> - y~_t)^2 - Sigma ||theta||^2`` (Lemma 3.5), and
#: ``sum_t ||theta_t - theta*||^2``.
OLUCB_METRICS = (
    "theta_err",
    "theta_hat_err",
    "radius",
    "clipped_gradient_rounds",
    "lambda_min_played",
    "maler_w_convex",
    "maler_w_exp_concave",
    "maler_w_strongly_convex",
    "theta_star_covered",
    "learner_regret",
    "learner_dist_sq",
)
N_BASE = 7  # len(dpbandits.result_columns.METRICS)


@njit(cache=True)
def _oracle_radius(t, M_real, S_real, D2, k_consts):
    """``D^2 + max(0, M) + K_t(S)`` with the realized learner regret and distances (oracle mode).

    ``k_consts = (D Delta^2 L, noise_term L, (ln(1/delta)/eps^2 + Delta^2) L)``, ``L = ln(T/beta)``.
    """
    return (
        D2
        + max(0.0, M_real)
        + k_consts[0] * math.sqrt(t * S_real)
        + k_consts[1]
        + k_consts[2] * S_real
    )


@njit(cache=True)
def run_onlineucb(
    X,
    mu,
    best,
    rewards,
    theta_star,
    noise_x,
    noise_y,
    zeta,
    beta,
    Sigma,
    G,
    D,
    horizon,
    n_exp,
    use_maler,
    ogd_sc,
    mu_hat,
    oracle,
    k_consts,
    cps,
    out,
):
    """Algorithm 1 on fixed arms for every trial of a chunk.

    Parameters
    ----------
    X : (n, K, d) unit-scale arms; mu : (n, K); best : (n,); rewards : (n, T, K) bool
    theta_star : (n, d) (diagnostics and the oracle radius only)
    noise_x : (n, T, d); noise_y : (n, T); zeta : (n, T, d) or (n, 0, d) when Delta^2 = 0
    beta : (T,) radius of each round (unused in oracle mode); Sigma : sigma^2 of the correction
    G, D : clipping constant and domain radius; horizon, n_exp : Maler's horizon and expert count
    use_maler, ogd_sc : learner switches; mu_hat : curvature of the strongly convex OGD step
    oracle : realized radius (diagnostic); k_consts : constants of K_t (see ``_oracle_radius``)
    cps : (C,) checkpoints; out : (n, C, 7 + 11) written in place.
    """
    n, K, d = X.shape
    T = rewards.shape[1]
    C = cps.shape[0]
    E2 = d * (d + 1) // 2
    K1 = (n_exp - 3) // 2 + 1
    kinds = np.zeros(n_exp, dtype=np.int64)
    etas = np.zeros(n_exp)
    logw = np.zeros(n_exp)
    pos = np.zeros((n_exp, d))
    A = np.zeros((K1, d, d))
    Ainv = np.zeros((K1, d, d))
    mwork = np.zeros((3, d))
    XT = np.zeros((d, K))
    PT = np.zeros((E2, K))
    V = np.zeros((d, d))
    Vinv = np.zeros((d, d))
    Gram = np.zeros((d, d))
    U = np.zeros(d)
    zero = np.zeros(d + E2)
    theta_hat = np.zeros(d)
    m = np.zeros(K)
    q = np.zeros(K)
    w = np.zeros(d)
    pbuf = np.zeros(K)
    buf = np.zeros(K)
    work = np.zeros((d, 2 * d))
    chol = np.zeros((d, d))
    vpack = np.zeros(E2)
    theta_t = np.zeros(d)
    theta_ogd = np.zeros(d)
    xt = np.zeros(d)
    g = np.zeros(d)
    played = np.zeros((d, d))
    acc = np.zeros(6)
    has_zeta = zeta.shape[1] > 0
    D2 = D * D
    for i in range(n):
        XT[:, :] = X[i].T
        pair_products(XT, PT)
        if use_maler:
            maler_init(d, D, G, horizon, kinds, etas, logw, pos, A, Ainv)
        theta_ogd[:] = 0.0
        Gram[:, :] = 0.0
        U[:] = 0.0
        played[:, :] = 0.0
        full_refresh(
            Gram, U, zero, 1.0, XT, PT, V, Vinv, theta_hat, m, q, work, chol, vpack, buf, True
        )
        acc[:] = 0.0
        clipped = 0.0
        covered = 1.0
        M_real = 0.0
        S_real = 0.0
        b = 0.0
        c = 0
        for t in range(T):
            b = _oracle_radius(t + 1.0, M_real, S_real, D2, k_consts) if oracle else beta[t]
            rb = math.sqrt(b)
            if covered > 0.0:  # Lemma 3.3: theta* in C_{t-1} = {||theta - theta_hat||_V~^2 <= b}
                quad = 0.0
                for p_ in range(d):
                    s_ = 0.0
                    for q_ in range(d):
                        s_ += V[p_, q_] * (theta_star[i, q_] - theta_hat[q_])
                    quad += (theta_star[i, p_] - theta_hat[p_]) * s_
                if quad > b:
                    covered = 0.0
            for k in range(K):
                buf[k] = m[k] + rb * math.sqrt(max(q[k], 0.0))
            a = argmax_first(buf, ARGMAX_RTOL)
            y = play(rewards[i, t], mu[i], best[i], a, False, False, acc)
            # the learner's prediction theta_t, issued before this round's report
            if use_maler:
                maler_predict(etas, logw, pos, theta_t)
            else:
                theta_t[:] = theta_ogd
            # the user's privatized report and clipped gradient
            for j in range(d):
                xt[j] = XT[j, a] + noise_x[i, t, j] + (zeta[i, t, j] if has_zeta else 0.0)
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
            # realized l_t(theta_t) - l_t(theta*) and ||theta_t - theta*||^2 (Lemma 3.5; the
            # oracle radius uses them too)
            star = 0.0
            n_t = 0.0
            n_s = 0.0
            dist = 0.0
            for j in range(d):
                star += xt[j] * theta_star[i, j]
                n_t += theta_t[j] * theta_t[j]
                n_s += theta_star[i, j] * theta_star[i, j]
                dist += (theta_t[j] - theta_star[i, j]) ** 2
            M_real += (inner - yt) ** 2 - Sigma * n_t - ((star - yt) ** 2 - Sigma * n_s)
            S_real += dist
            # server: learner step, then the confidence set grows by (x~, <theta_t, x~>)
            if use_maler:
                maler_update(g, theta_t, t + 1, D, G, kinds, etas, logw, pos, A, Ainv, mwork)
            else:
                ogd_step(theta_ogd, g, t + 1, D, G, mu_hat, ogd_sc)
            for p_ in range(d):
                U[p_] += inner * xt[p_]
                for q_ in range(d):
                    Gram[p_, q_] += xt[p_] * xt[q_]
                    played[p_, q_] += XT[p_, a] * XT[q_, a]
            if (t + 1) % RESYNC_EVERY == 0:
                full_refresh(
                    Gram,
                    U,
                    zero,
                    1.0,
                    XT,
                    PT,
                    V,
                    Vinv,
                    theta_hat,
                    m,
                    q,
                    work,
                    chol,
                    vpack,
                    buf,
                    True,
                )
            else:
                rank_one_update(xt, inner, XT, V, Vinv, theta_hat, m, q, w, pbuf)
            if c < C and cps[c] == t + 1:
                o = out[i]
                record(o, c, acc, V)
                e1 = 0.0
                e2 = 0.0
                for j in range(d):
                    e1 += (theta_t[j] - theta_star[i, j]) ** 2
                    e2 += (theta_hat[j] - theta_star[i, j]) ** 2
                o[c, N_BASE] = math.sqrt(e1)
                o[c, N_BASE + 1] = math.sqrt(e2)
                o[c, N_BASE + 2] = b
                o[c, N_BASE + 3] = clipped
                o[c, N_BASE + 4] = np.linalg.eigvalsh(played / (t + 1.0))[0]
                if use_maler:
                    top = logw.max()
                    tot = 0.0
                    fam = np.zeros(3)
                    for e in range(n_exp):
                        we = math.exp(logw[e] - top)
                        tot += we
                        fam[kinds[e]] += we
                    for f_ in range(3):
                        o[c, N_BASE + 5 + f_] = fam[f_] / tot
                else:
                    for f_ in range(3):
                        o[c, N_BASE + 5 + f_] = np.nan
                o[c, N_BASE + 8] = covered
                o[c, N_BASE + 9] = M_real
                o[c, N_BASE + 10] = S_real
                c += 1
