"""Numba kernels of the engine.

One call simulates a chunk of trials over the whole horizon. Per trial the kernel keeps the
exact statistics, the model matrix ``V``, its inverse, and two per-arm quantities: the
estimated mean ``m_k = x_k^T theta_hat`` and the quadratic form ``q_k = x_k^T V^{-1} x_k``.

* When a refresh adds exactly one observation and the noise in force did not change (LinUCB,
  the JDP stand-in between changes of ``k(t)``), ``V^{-1}``, ``theta_hat``, ``m`` and ``q`` are
  updated with the Sherman-Morrison identity in ``O(K d + d^2)``, with a full rebuild every
  ``RESYNC_EVERY`` refreshes to keep rounding error from accumulating.
* Otherwise ``V = lambda I + G + N`` is rebuilt and inverted (Gauss-Jordan, partial pivoting,
  any invertible ``V`` — the script's fidelity needs indefinite ``V`` too), and
  ``q_k = sum_{i<=j} c_ij x_ki x_kj (V^{-1})_ij`` uses precomputed pairwise products.

Arm choice: the index is ``m_k + beta sqrt(q_k)``. A negative ``q_k`` gives NaN (script quirk)
or is clipped at 0 (corrected). If any index is NaN the first NaN wins (``numpy.argmax``);
otherwise the lowest index within ``ARGMAX_RTOL`` (relative) of the maximum wins, which
implements the paper's "ties: lowest index" for arms that are tied mathematically (e.g. all
arms of norm sqrt(2) at ``t = 0``) without depending on rounding.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Relative tolerance under which two indices count as tied (far above rounding, ~1e-13,
#: far below any real index gap).
ARGMAX_RTOL = 1e-10

#: A rank-one refresh is replaced by a full rebuild every this many refreshes. Sherman-Morrison
#: does not correct its own rounding error; with LinUCB's lambda = 1e-4 (V^{-1} = 1e4 I at the
#: start) the error reaches ~1e-9 relative after 20000 rounds without rebuilds, and ~1e-13 with.
RESYNC_EVERY = 32


@njit(cache=True)
def prefix_rows(inc, out):
    """``out[0] = 0`` and ``out[r] = inc[0] + ... + inc[r - 1]`` for ``r < len(out)``, summed
    left to right exactly as ``numpy.cumsum`` along the rows does (row 1 a copy of ``inc[0]``,
    then one addition per row), written in place: the per-round and per-batch noise tables
    (:func:`dpbandits.engine.noise.noise_tables`)."""
    R, E = out.shape
    for e in range(E):
        out[0, e] = 0.0
    if R > 1:
        for e in range(E):
            out[1, e] = inc[0, e]
    for r in range(2, R):
        for e in range(E):
            out[r, e] = out[r - 1, e] + inc[r - 1, e]


@njit(cache=True)
def tree_rows(flat, node, parent, out):
    """Row ``t`` of the tree's prefix noise is row ``parent[t]`` plus node ``node[t]`` of
    ``flat`` (:func:`dpbandits.mechanisms.tree.tree_recursion`), row 0 zero; rows in increasing
    ``t`` (a parent comes first), the same single addition per entry as
    :func:`dpbandits.mechanisms.tree.tree_prefix_noise`, written in place."""
    R, E = out.shape
    for e in range(E):
        out[0, e] = 0.0
    for t in range(1, R):
        p = parent[t]
        k = node[t]
        for e in range(E):
            out[t, e] = out[p, e] + flat[k, e]


@njit(cache=True)
def argmax_first(idx, rtol):
    """First NaN if any, else the lowest index within ``rtol`` of the maximum."""
    K = idx.shape[0]
    m = -np.inf
    for k in range(K):
        v = idx[k]
        if v != v:
            return k
        if v > m:
            m = v
    if math.isinf(m):
        thr = m
    else:
        thr = m - rtol * max(1.0, abs(m))
    for k in range(K):
        if idx[k] >= thr:
            return k
    return 0


@njit(cache=True)
def fresh_round(A, i, t, a, theta_star, U):
    """Pseudo-regret and reward of playing arm ``a`` of trial ``i``'s fresh decision set at round
    ``t``: ``(max_k <theta*, A_k> - <theta*, A_a>, r)`` with ``r = +1`` if
    ``U[i, t, a] < (1 + <theta*, A_a>)/2`` else ``-1`` (the fresh-set engines' common uniforms)."""
    K, d = A.shape[2], A.shape[3]
    best = -np.inf
    mean_a = 0.0
    for k in range(K):
        mk = 0.0
        for p in range(d):
            mk += A[i, t, k, p] * theta_star[i, p]
        if mk > best:
            best = mk
        if k == a:
            mean_a = mk
    r = 1.0 if U[i, t, a] < 0.5 * (1.0 + mean_a) else -1.0
    return best - mean_a, r


@njit(cache=True)
def invert(A, out, work):
    """Gauss-Jordan inverse with partial pivoting, symmetrised; False if singular."""
    d = A.shape[0]
    for i in range(d):
        for j in range(d):
            work[i, j] = A[i, j]
            work[i, d + j] = 1.0 if i == j else 0.0
    for c in range(d):
        p = c
        best = abs(work[c, c])
        for r in range(c + 1, d):
            v = abs(work[r, c])
            if v > best:
                best = v
                p = r
        if best == 0.0:
            return False
        if p != c:
            for j in range(2 * d):
                tmp = work[c, j]
                work[c, j] = work[p, j]
                work[p, j] = tmp
        piv = work[c, c]
        for j in range(2 * d):
            work[c, j] /= piv
        for r in range(d):
            if r != c:
                f = work[r, c]
                if f != 0.0:
                    for j in range(2 * d):
                        work[r, j] -= f * work[c, j]
    for i in range(d):
        for j in range(d):
            out[i, j] = 0.5 * (work[i, d + j] + work[j, d + i])
    return True


@njit(cache=True)
def is_positive_definite(V, work):
    """Cholesky attempt: True iff ``V`` is (numerically) positive definite."""
    d = V.shape[0]
    for j in range(d):
        s = V[j, j]
        for k in range(j):
            s -= work[j, k] * work[j, k]
        if s <= 0.0:
            return False
        ljj = math.sqrt(s)
        work[j, j] = ljj
        for i in range(j + 1, d):
            s = V[i, j]
            for k in range(j):
                s -= work[i, k] * work[j, k]
            work[i, j] = s / ljj
    return True


@njit(cache=True)
def lower_inverse(Lc, Linv):
    """Inverse of the lower-triangular Cholesky factor ``Lc`` (lower triangle of ``Linv``)."""
    d = Lc.shape[0]
    for i in range(d):
        Linv[i, i] = 1.0 / Lc[i, i]
        for j in range(i):
            s = 0.0
            for k in range(j, i):
                s += Lc[i, k] * Linv[k, j]
            Linv[i, j] = -s * Linv[i, i]


@njit(cache=True)
def solve_with_lower_inverse(Linv, u, shift, z, out):
    """``out = Linv^T Linv (u + shift[:d])`` (``= V^{-1}(u + shift)`` for ``V = L L^T``,
    ``Linv = L^{-1}``); ``z`` is a length-d workspace. ``shift`` may be longer than ``d`` (a
    packed noise row: its first ``d`` entries are the vector part) or empty (no shift)."""
    d = Linv.shape[0]
    has_shift = shift.shape[0] > 0
    for i in range(d):
        s = 0.0
        for j in range(i + 1):
            s += Linv[i, j] * (u[j] + shift[j] if has_shift else u[j])
        z[i] = s
    for j in range(d):
        s = 0.0
        for i in range(j, d):
            s += Linv[i, j] * z[i]
        out[j] = s


@njit(cache=True)
def gram_of_lower(Linv, out):
    """``out = Linv^T Linv`` (= ``V^{-1}``) for a lower-triangular ``Linv``."""
    d = Linv.shape[0]
    for i in range(d):
        for j in range(i, d):
            s = 0.0
            for k in range(j, d):
                s += Linv[k, i] * Linv[k, j]
            out[i, j] = s
            out[j, i] = s


@njit(cache=True)
def pair_products(XT, PT):
    """``PT[e, k] = c_e x_ki x_kj`` over the upper triangle, ``c_e = 1`` (diag) or 2 (off).

    Arm-contiguous layouts (``XT`` is ``(d, K)``) keep every loop over arms unit-stride.
    """
    d, K = XT.shape
    e = 0
    for i in range(d):
        for j in range(i, d):
            c = 1.0 if i == j else 2.0
            for k in range(K):
                PT[e, k] = c * XT[i, k] * XT[j, k]
            e += 1


@njit(cache=True)
def full_refresh(
    G, U, noise, lam, XT, PT, V, Vinv, theta, m, q, work, chol, vpack, ybuf, need_vinv
):
    """Rebuild ``V = lam I + G + N``, ``u = U + n``; recompute ``theta``, ``m``, ``q``.

    If ``V`` is positive definite, everything comes from its Cholesky factor ``L``:
    ``q_k = ||L^{-1} x_k||^2`` and ``theta = L^{-T} L^{-1} u``; ``V^{-1}`` itself is formed only
    when ``need_vinv`` (the next refresh is a rank-one update). Otherwise (indefinite ``V``,
    script fidelity) ``V^{-1}`` comes from Gauss-Jordan elimination and ``q`` from the pairwise
    products ``PT``. Returns whether ``V`` is positive definite.
    """
    d, K = XT.shape
    e = d
    for i in range(d):
        for j in range(i, d):
            v = G[i, j] + noise[e]
            if i == j:
                v += lam
            V[i, j] = v
            V[j, i] = v
            e += 1
    pd = is_positive_definite(V, chol)
    q[:] = 0.0
    if pd:
        Linv = work[:, :d]
        lower_inverse(chol, Linv)
        solve_with_lower_inverse(Linv, U, noise, work[:, d], theta)
        for i in range(d):
            ybuf[:] = 0.0
            for j in range(i + 1):
                lij = Linv[i, j]
                for k in range(K):
                    ybuf[k] += lij * XT[j, k]
            for k in range(K):
                q[k] += ybuf[k] * ybuf[k]
        if need_vinv:
            gram_of_lower(Linv, Vinv)
    else:
        invert(V, Vinv, work)
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += Vinv[i, j] * (U[j] + noise[j])
            theta[i] = s
        e = 0
        for i in range(d):
            for j in range(i, d):
                vpack[e] = Vinv[i, j]
                e += 1
        for e in range(vpack.shape[0]):
            ve = vpack[e]
            for k in range(K):
                q[k] += PT[e, k] * ve
    m[:] = 0.0
    for j in range(d):
        tj = theta[j]
        for k in range(K):
            m[k] += XT[j, k] * tj
    return pd


@njit(cache=True)
def rank_one_update(v, target, XT, V, Vinv, theta, m, q, w, p):
    """Sherman-Morrison: add the observation ``(v, target)`` to the ridge model in place.

    ``V += v v^T`` and the right-hand side gains ``target * v``; ``theta``, the arms' means
    ``m_k = x_k^T theta`` and quadratic forms ``q_k = x_k^T V^{-1} x_k`` follow in ``O(K d + d^2)``.
    """
    d, K = XT.shape
    c = 1.0
    for i in range(d):
        s = 0.0
        for j in range(d):
            s += Vinv[i, j] * v[j]
        w[i] = s
        c += v[i] * s
    fit = 0.0
    for j in range(d):
        fit += v[j] * theta[j]
    resid = target - fit
    p[:] = 0.0
    for j in range(d):
        wj = w[j]
        for k in range(K):
            p[k] += XT[j, k] * wj
    inv_c = 1.0 / c
    coef = resid * inv_c
    for k in range(K):
        pk = p[k]
        q[k] -= pk * pk * inv_c
        m[k] += pk * coef
    for i in range(d):
        theta[i] += w[i] * coef
        for j in range(d):
            Vinv[i, j] -= w[i] * w[j] * inv_c
            V[i, j] += v[i] * v[j]


@njit(cache=True)
def rank_one_refresh(a, y, XT, V, Vinv, theta, m, q, w, p, v):
    """Add the observation ``(x_a, y)`` of a played arm (``v`` is a work vector)."""
    for j in range(XT.shape[0]):
        v[j] = XT[j, a]
    rank_one_update(v, y, XT, V, Vinv, theta, m, q, w, p)


@njit(cache=True)
def choose(m, q, beta, clip, buf):
    """Arm to play; also whether the index vector has a NaN and whether clipping happened."""
    K = m.shape[0]
    qmin = q[0]
    for k in range(1, K):
        qmin = min(qmin, q[k])
    negative = qmin < 0.0
    if clip and negative:
        for k in range(K):
            buf[k] = m[k] + beta * math.sqrt(max(q[k], 0.0))
    elif negative:
        for k in range(K):
            buf[k] = m[k] + beta * math.sqrt(q[k]) if q[k] >= 0.0 else np.nan
    else:
        for k in range(K):
            buf[k] = m[k] + beta * math.sqrt(q[k])
    has_nan = negative and not clip
    return argmax_first(buf, ARGMAX_RTOL), has_nan, negative and clip


# Per-trial counters of a run, in the order of dpbandits.result_columns.METRICS
# (without lambda_min).
REAL, PSEUDO, NAN_ROUNDS, CLIP_ROUNDS, NONPD, BEST = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def play(rewards_t, mu_i, kb, a, has_nan, clipped, acc):
    """Account for playing arm ``a`` in one round; returns the observed reward."""
    y = 1.0 if rewards_t[a] else 0.0
    acc[REAL] += (1.0 if rewards_t[kb] else 0.0) - y
    acc[PSEUDO] += mu_i[kb] - mu_i[a]
    if a == kb:
        acc[BEST] += 1.0
    if has_nan:
        acc[NAN_ROUNDS] += 1.0
    if clipped:
        acc[CLIP_ROUNDS] += 1.0
    return y


@njit(cache=True)
def record(out_i, c, acc, V):
    """Write the counters and ``lambda_min(V)`` at checkpoint ``c``."""
    for k in range(acc.shape[0]):
        out_i[c, k] = acc[k]
    out_i[c, acc.shape[0]] = np.linalg.eigvalsh(V)[0]


@njit(cache=True)
def run_gaussian(X, mu, best, rewards, table, index, refresh_t, beta, lam, clip, cps, out):
    """Policies with exact statistics plus additive noise known per refresh (module docstring).

    Parameters
    ----------
    X : (n, K, d) float64; mu : (n, K); best : (n,) int
    rewards : (n, T, K) bool
    table : (n, Q, E) packed noise values; index : (R,) row in force at each refresh
    refresh_t : (R,) 0-based refresh rounds; beta : (n, R) radius per refresh
    lam : float; clip : bool; cps : (C,) checkpoint rounds (1-based counts)
    out : (n, C, 7) metrics at the checkpoints (``METRICS`` order), written in place.
    """
    n, K, d = X.shape
    T = rewards.shape[1]
    R = refresh_t.shape[0]
    C = cps.shape[0]
    E2 = d * (d + 1) // 2
    G = np.zeros((d, d))
    U = np.zeros(d)
    V = np.zeros((d, d))
    Vinv = np.zeros((d, d))
    theta = np.zeros(d)
    m = np.zeros(K)
    q = np.zeros(K)
    PT = np.zeros((E2, K))
    XT = np.zeros((d, K))
    work = np.zeros((d, 2 * d))
    chol = np.zeros((d, d))
    vpack = np.zeros(E2)
    w = np.zeros(d)
    vbuf = np.zeros(d)
    pbuf = np.zeros(K)
    buf = np.zeros(K)
    acc = np.zeros(6)
    for i in range(n):
        XT[:, :] = X[i].T
        pair_products(XT, PT)
        G[:, :] = 0.0
        U[:] = 0.0
        acc[:] = 0.0
        r = 0
        c = 0
        a = 0
        y = 0.0
        pd = True
        has_nan = False
        clipped = False
        for t in range(T):
            if r < R and refresh_t[r] == t:
                if r % RESYNC_EVERY != 0 and refresh_t[r - 1] == t - 1 and index[r] == index[r - 1]:
                    rank_one_refresh(a, y, XT, V, Vinv, theta, m, q, w, pbuf, vbuf)
                    if not pd:
                        pd = is_positive_definite(V, chol)
                else:
                    nxt = r + 1
                    need_vinv = (
                        nxt < R
                        and nxt % RESYNC_EVERY != 0
                        and refresh_t[nxt] == t + 1
                        and index[nxt] == index[r]
                    )
                    pd = full_refresh(
                        G,
                        U,
                        table[i, index[r]],
                        lam,
                        XT,
                        PT,
                        V,
                        Vinv,
                        theta,
                        m,
                        q,
                        work,
                        chol,
                        vpack,
                        buf,
                        need_vinv,
                    )
                if not pd:
                    acc[NONPD] += 1.0
                a, has_nan, clipped = choose(m, q, beta[i, r], clip, buf)
                r += 1
            y = play(rewards[i, t], mu[i], best[i], a, has_nan, clipped, acc)
            for p_ in range(d):
                U[p_] += XT[p_, a] * y
                for q_ in range(d):
                    G[p_, q_] += XT[p_, a] * XT[q_, a]
            if c < C and cps[c] == t + 1:
                record(out[i], c, acc, V)
                c += 1


@njit(cache=True)
def run_vec(
    X, mu, best, rewards, uniforms, binom, B, g, p, b_debias, Delta, lam, beta, clip, cps, out
):
    """LinUCB-SDP-Vec: P_Vec messages per round, analyzer and model refresh per batch.

    Parameters
    ----------
    uniforms : (n, T, E) randomized-rounding uniforms; binom : (n, M, E) batch totals of the
        binomial privacy bits; B : batch size; g, p, b_debias : P_Vec parameters;
    Delta : (n,) encoding range per trial. Other parameters as :func:`run_gaussian`.
    """
    n, K, d = X.shape
    T = rewards.shape[1]
    C = cps.shape[0]
    E = d + d * (d + 1) // 2
    E2 = E - d
    Gt = np.zeros((d, d))
    Ut = np.zeros(d)
    zero = np.zeros(E)
    counts = np.zeros(E)
    vals = np.zeros(E)
    V = np.zeros((d, d))
    Vinv = np.zeros((d, d))
    theta = np.zeros(d)
    m = np.zeros(K)
    q = np.zeros(K)
    PT = np.zeros((E2, K))
    XT = np.zeros((d, K))
    work = np.zeros((d, 2 * d))
    chol = np.zeros((d, d))
    vpack = np.zeros(E2)
    buf = np.zeros(K)
    acc = np.zeros(6)
    for i in range(n):
        XT[:, :] = X[i].T
        pair_products(XT, PT)
        Gt[:, :] = 0.0
        Ut[:] = 0.0
        counts[:] = 0.0
        acc[:] = 0.0
        D = Delta[i]
        c = 0
        a = 0
        has_nan = False
        clipped = False
        for t in range(T):
            if t % B == 0:
                if t > 0:  # analyzer: batch t // B - 1, one output per packed entry, mirrored
                    k = t // B - 1
                    for e in range(E):
                        o = (D / g) * (counts[e] + binom[i, k, e] - p * b_debias * B) - B * D
                        vals[e] = o
                    for j in range(d):
                        Ut[j] += vals[j]
                    e = d
                    for i1 in range(d):
                        for j1 in range(i1, d):
                            Gt[i1, j1] += vals[e]
                            if j1 != i1:
                                Gt[j1, i1] += vals[e]
                            e += 1
                    counts[:] = 0.0
                pd = full_refresh(
                    Gt, Ut, zero, lam, XT, PT, V, Vinv, theta, m, q, work, chol, vpack, buf, False
                )
                if not pd:
                    acc[NONPD] += 1.0
                a, has_nan, clipped = choose(m, q, beta[i, t // B], clip, buf)
            y = play(rewards[i, t], mu[i], best[i], a, has_nan, clipped, acc)
            # this user's message: vector x*y, then the upper triangle of x x^T
            e = 0
            for j in range(d):
                vals[e] = XT[j, a] * y
                e += 1
            for i1 in range(d):
                for j1 in range(i1, d):
                    vals[e] = XT[i1, a] * XT[j1, a]
                    e += 1
            for e in range(E):
                z = (vals[e] + D) * g / D
                xb = math.floor(z)
                counts[e] += xb + (1.0 if uniforms[i, t, e] < z - xb else 0.0)
            if c < C and cps[c] == t + 1:
                record(out[i], c, acc, V)
                c += 1
