"""Phase-level simulation of DP-DPE (dpdpe, Algorithm 1) and DP-PE (Algorithm 3).

Exactness (docs/papers/dpdpe.md): the regret depends only on the action schedule, and the reports a
phase produces have closed forms, so nothing is simulated per round. Every identity is stated
where it is used (I1-I10); ``tests/engine/test_phased.py`` compares I1-I9 with a
per-round, per-client simulation, and ``tests/engine/test_phased_etc.py`` checks I10 through a
probability computed by hand. A run is a loop over its (about log2 T) phases; each phase is
vectorised over clients and actions. Designs depend only on the active set, so they are cached
(exactly) across runs and cells of a job.

Streams: ``env`` (client heterogeneity and reward noise) is the same for every algorithm and
privacy level of a trial (approximate common random numbers); ``noise`` is the algorithm's.
Within a phase the draws are, in order: the heterogeneity, the reward noise, the privacy noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from dpbandits.g_optimal import Design, g_optimal_design

from ..mechanisms.shuffle_sum import analyze_scalar, analyze_vector, count_ones, scalar_params
from ..normals import standard_normal

#: Metrics recorded at every checkpoint (cumulative up to the checkpoint round, except
#: ``active_actions``: the size of the active set in the phase containing that round).
PHASED_METRICS = (
    "regret_pseudo",
    "comm_reals",
    "comm_bits",
    "clients",
    "phases_completed",
    "active_actions",
)

_DESIGNS: dict[tuple, Design] = {}
_CACHE_LIMIT = 4096


def cached_design(X: np.ndarray, active: np.ndarray) -> Design:
    """:func:`~dpbandits.g_optimal.g_optimal_design` of ``X[active]``, memoised on the active set
    (the design is a deterministic function of the actions)."""
    key = (X.shape, hash(X.tobytes()), active.tobytes())
    design = _DESIGNS.get(key)
    if design is None:
        if len(_DESIGNS) >= _CACHE_LIMIT:
            _DESIGNS.clear()
        design = g_optimal_design(X[active])
        _DESIGNS[key] = design
    return design


@dataclass
class Run:
    """The record of one run: blocks of play and the phase log."""

    starts: list
    lengths: list
    gaps: list
    phase_end: list  # last round (1-based) of each completed phase
    comm_reals: list
    comm_bits: list
    clients: list
    active_sizes: list  # |D_l| of every phase (completed or not), with its first round
    phase_first: list
    log: list


def _new_run() -> Run:
    return Run([], [], [], [], [], [], [], [], [], [])


def _add_blocks(run: Run, t0: int, support, counts, gaps, T: int) -> bool:
    """Blocks in play order (Alg. 1, line 6; ascending index, docs/papers/dpdpe.md), cut at ``T``.

    Returns whether the phase was cut (the run then stops; docs/papers/dpdpe.md)."""
    t = t0
    for x, c in zip(support, counts, strict=True):
        if t >= T:
            break
        length = int(min(c, T - t))
        run.starts.append(t)
        run.lengths.append(length)
        run.gaps.append(float(gaps[x]))
        t += length
    return t0 + int(np.sum(counts)) > T


def _log_phase(run, t0, Tl, reals, bits, clients, phase, h, s, design, W, active, keep, best):
    """Append a completed phase: its end, communication, clients and its log entry."""
    run.phase_end.append(t0 + Tl)
    run.comm_reals.append(reals)
    run.comm_bits.append(bits)
    run.clients.append(clients)
    run.log.append(
        {
            "l": phase,
            "t_start": t0 + 1,
            "h": h,
            "T_l": Tl,
            "s_l": s,
            "n_l": clients,
            "g": design.g,
            "W1": W[0],
            "W2": W[1],
            "W3": W[2],
            "active": len(active),
            "active_next": int(keep.sum()),
            "best_active": bool(best in set(active[keep].tolist())),
        }
    )


def run_dpdpe(policy, X, theta, env, noise) -> Run:
    """One run of Algorithm 1 (DP-DPE, DPE, DPE-FixedU) on actions ``X`` (k x d)."""
    st, o = policy.setting, policy.opts
    T, d = st.T, X.shape[1]
    means = X @ theta
    gaps = means.max() - means
    best = int(np.argmax(means))
    active = np.arange(X.shape[0])
    h, t0, phase, used = float(o["h1"]), 0, 1, 0
    run = _new_run()
    priv = policy.privatizer
    while t0 < T:
        design = cached_design(X, active)
        support = active[design.support]  # ascending: the block order of step 4
        w = design.weights[design.support]
        counts = np.ceil(h * w - 1e-9).astype(np.int64)  # T_l(x), step 3
        s, Tl = len(support), int(counts.sum())
        run.active_sizes.append(len(active))
        run.phase_first.append(t0 + 1)
        if _add_blocks(run, t0, support, counts, gaps, T):
            break  # truncated phase: no clients, no report, no elimination (docs/papers/dpdpe.md)
        n = policy.clients(phase)
        if used + n > int(o["population"]):
            raise RuntimeError(f"population exhausted: {used} + {n} > {o['population']} users")
        y_hat = dpdpe_aggregate(policy, means[support], X[support], counts, n, env, noise)
        # least squares in the coordinates of span(D_l) (step 8; Remark 3.2)
        Z, Zs, V, theta_hat = phase_estimate(X[active], design, counts, y_hat)
        W1, W2, W3 = _width(policy, h, n, s, Z, Zs, V, counts, d)
        W = W1 + W2 + W3
        scores = Z @ theta_hat
        keep = scores >= scores.max() - 2.0 * W  # step 10
        if priv == "shuffle":
            prm = policy.sdp_params(n, s)
            bits = s * n * (prm.g + prm.b)
        else:
            bits = float("nan")
        _log_phase(
            run, t0, Tl, s * n, bits, n, phase, h, s, design, (W1, W2, W3), active, keep, best
        )
        active = active[keep]
        h, t0, phase, used = 2.0 * h, t0 + Tl, phase + 1, used + n
    return run


def dpdpe_aggregate(policy, mean_s, Xs, counts, n, env, noise) -> np.ndarray:
    """The server's estimate ``y_hat_l`` of one phase of Algorithm 1 (steps 5-7): the (private)
    average over ``n`` new clients of their per-action average rewards.

    Parameters
    ----------
    policy : DPDPE
    mean_s : ndarray, shape (s,)
        ``<theta*, x>`` of the support actions.
    Xs : ndarray, shape (s, d)
        The support actions.
    counts : ndarray of int, shape (s,)
        ``T_l(x)``, the rounds every client plays each support action.
    n : int
        Clients of the phase.
    env, noise : numpy.random.Generator
        Environment stream (heterogeneity, reward noise) and privacy-noise stream.
    """
    o = policy.opts
    B, sigma = float(o["reward_bound"]), float(o["sigma"])
    s, d = Xs.shape
    priv = policy.privatizer
    if priv == "none":
        # I2: the average over n clients of <xi_u, x> + mean noise is <xi_bar, x> + zeta(x)
        # with xi_bar ~ N(0, sigma^2 I/n) and zeta(x) ~ N(0, 1/(n T_l(x))), independent
        xi_bar = env.standard_normal(d) * (sigma / math.sqrt(n))
        zeta = env.standard_normal(s) / np.sqrt(n * counts)
        return mean_s + Xs @ xi_bar + zeta
    # I1: client u's average reward of x is <theta*, x> + <xi_u, x> + eta_bar_u(x), with
    # eta_bar_u(x) ~ N(0, 1/T_l(x)) independent over (u, x) (disjoint rounds); xi_u is one
    # d-vector per client, shared by its coordinates. Reports are clipped to [-B, B]
    # (Sec. 2 bounds |y| by B; docs/papers/dpdpe.md) before the privatizer.
    xi = standard_normal(env, (n, d))
    xi *= sigma  # in place: the same products as ``standard_normal(...) * sigma``
    z = np.asarray(standard_normal(env, (n, s)), dtype=float)  # eta_bar = z / sqrt(T_l(x))
    signal = np.ascontiguousarray(xi @ Xs.T, dtype=float)  # (n, s): <xi_u, x>
    sqrt_counts = np.sqrt(counts).astype(float)
    mean_s = np.asarray(mean_s, dtype=float)
    if priv == "central":  # I3: one Gaussian draw per phase on the average
        avg = clipped_report_mean(signal, mean_s, z, sqrt_counts, B)
        return avg + noise.standard_normal(s) * policy_sigma(policy, n, s)
    if priv == "local":
        # I4: the average of n clients' N(0, sigma_nl^2) is N(0, sigma_nl^2/n), added after
        # clipping, so exact
        avg = clipped_report_mean(signal, mean_s, z, sqrt_counts, B)
        return avg + noise.standard_normal(s) * (policy_sigma(policy, n, s) / math.sqrt(n))
    # Algorithm 2 at the count level (I5-I7; mechanisms.shuffle_sum)
    prm = policy.sdp_params(n, s)
    return analyze_vector(clipped_report_counts(noise, signal, mean_s, z, sqrt_counts, B, prm), prm)


def clipped_report_mean(signal, mean_s, z, sqrt_counts, B: float) -> np.ndarray:
    """The clients' average report of each support action, ``mean_u clip(mean_s + signal_u +
    z_u / sqrt_counts, -B, B)`` (shapes (n, s), (s,), (n, s), (s,)).

    Bit for bit NumPy's ``np.clip(mean_s + signal + z / sqrt_counts, -B, B).mean(axis=0)``, which
    it is for one support action (NumPy then sums the contiguous column pairwise); for more, one
    compiled pass without the (n, s) temporaries: the same operations in the same order per
    element, and NumPy's mean over the first axis of a C-ordered array is the row-by-row sum
    divided by ``n`` (checked by the tests).
    """
    if signal.shape[1] == 1:
        return np.clip(mean_s + signal + z / sqrt_counts, -B, B).mean(axis=0)
    return _clipped_report_mean(signal, mean_s, z, sqrt_counts, float(B))


def clipped_report_counts(rng, signal, mean_s, z, sqrt_counts, B: float, prm) -> np.ndarray:
    """Algorithm 2's count of ones per support action for the clients' clipped reports (I5-I7).

    The same numbers, and the same draws from ``rng``, as
    ``count_ones(rng, np.clip(mean_s + signal + z / sqrt_counts, -B, B), prm)``
    (:func:`dpbandits.mechanisms.shuffle_sum.count_ones`): the ``n x s`` rounding uniforms, then
    one binomial per action; the reports' encoding and rounding in one compiled pass without the
    (n, s) temporaries. The floors and the rounding bits are integers, summed as integers, so the
    order of summation cannot change the counts (checked against ``count_ones`` by the tests).
    """
    uniforms = rng.random(signal.shape)
    floor_sum, rounded = _report_counts(
        signal,
        mean_s,
        z,
        sqrt_counts,
        float(B),
        float(prm.shift),
        float(prm.g),
        float(prm.scale),
        uniforms,
    )
    noise = rng.binomial(prm.n * prm.b, prm.p, size=signal.shape[1])
    return floor_sum + rounded + noise


@njit(cache=True)
def _report_counts(signal, mean_s, z, sqrt_counts, B, shift, g, scale, uniforms):
    """Per action: the sum of the encoded reports' floors and the number of rounding-up bits
    (:func:`dpbandits.mechanisms.shuffle_sum.count_ones`' ``_encode`` and ``random() < frac``),
    action by action so that the loop over clients has no branch and no float reduction."""
    n, s = signal.shape
    floor_sum = np.zeros(s, dtype=np.int64)
    rounded = np.zeros(s, dtype=np.int64)
    for j in range(s):
        m_j, c_j = mean_s[j], sqrt_counts[j]
        fs = 0
        r = 0
        for u in range(n):
            v = min(max(m_j + signal[u, j] + z[u, j] / c_j, -B), B)
            scaled = (v + shift) * g / scale
            f = np.floor(scaled)
            fs += np.int64(f)
            r += np.int64(uniforms[u, j] < scaled - f)
        floor_sum[j] = fs
        rounded[j] = r
    return floor_sum.astype(np.float64), rounded


@njit(cache=True)
def _clipped_report_mean(signal, mean_s, z, sqrt_counts, B):
    """:func:`clipped_report_mean` for ``s >= 2``, row by row."""
    n, s = signal.shape
    out = np.zeros(s)
    for u in range(n):
        for j in range(s):
            v = mean_s[j] + signal[u, j] + z[u, j] / sqrt_counts[j]
            out[j] += min(max(v, -B), B)
    for j in range(s):
        out[j] /= n
    return out


def phase_estimate(X_active, design: Design, counts, y_hat, sums: bool = False):
    """Least squares of a phase in the coordinates of ``span(D_l)`` (Remark 3.2).

    ``V = sum_x T_l(x) z z^T`` over the support and ``theta_hat = V^{-1} sum_x T_l(x) y_hat(x) z``
    (Algorithm 1, step 8: ``y_hat`` are averages) or ``V^{-1} sum_x y_hat(x) z`` (Algorithm 3,
    Eq. 53: ``y_hat`` are sums).

    Returns
    -------
    Z, Zs, V, theta_hat
        Reduced coordinates of the active and the support actions, the design matrix and the
        estimate (scores of the active actions are ``Z @ theta_hat``).
    """
    Z = X_active @ design.basis
    Zs = Z[design.support]
    V = (Zs * counts[:, None]).T @ Zs
    rhs = Zs.T @ y_hat if sums else (Zs * counts[:, None]).T @ y_hat
    return Z, Zs, V, np.linalg.solve(V, rhs)


def policy_sigma(policy, n: int, s: int) -> float:
    """Std of the Gaussian privacy noise of a phase: ``sigma_nc`` (central) or the per-client
    ``sigma_nl`` (local)."""
    from ..policies.dpdpe import sigma_nc, sigma_nl

    st, B = policy.setting, float(policy.opts["reward_bound"])
    if policy.privatizer == "central":
        return sigma_nc(s, n, st.epsilon, st.delta, B)
    return sigma_nl(s, st.epsilon, st.delta, B)


def _width(policy, h, n, s, Z, Zs, V, counts, d):
    """``W_l``'s three terms (Eq. (3)) under width configuration F or T (docs/papers/dpdpe.md)."""
    from ..policies.dpdpe import dpdpe_width

    sigma = float(policy.opts["sigma"])
    if policy.privatizer == "none":
        sigma_n = 0.0
    elif policy.opts["width"] == "faithful":
        sigma_n = policy.sigma_n(n, s)
    else:
        # configuration T (and s1): v_l = max_{x'} sum_x (x'^T V^{-1} x)^2 T_l(x)^2 tau^2
        A = Z @ np.linalg.solve(V, Zs.T)
        v = float(np.max((A**2 * (counts**2)[None, :]).sum(axis=1))) * policy.tau2(n, s)
        sigma_n = math.sqrt(v)
    return dpdpe_width(h, n, d, sigma, sigma_n, policy.log_inv_beta)


def run_etc(policy, X, theta, env, noise) -> Run:
    """One run of explore-then-commit (:class:`dpbandits.policies.etc.PhasedExploreThenCommit`):
    ``n`` exploration rounds round-robin over the ``K`` actions (round ``t`` plays ``t mod K``),
    the ridge estimate ``theta_hat = (I + sum_k c_k x_k x_k^T)^{-1} sum_k x_k S_k`` from the
    exploration sums ``S_k``, then the action with the largest ``x^T theta_hat`` (lowest index
    on ties) until ``T``. ``noise`` is not used (not private).

    I10: action ``k``'s ``c_k`` exploration rounds are ``c_k`` clients, each with its own
    ``xi ~ N(0, sigma^2 I)`` and ``eta ~ N(0, 1)``, so ``S_k ~ N(c_k <theta*, x_k>,
    c_k (1 + sigma^2 ||x_k||^2))``, independent over actions (disjoint rounds). The exploration
    is recorded in blocks, action by action: the regret at every round from ``n`` on is
    round-robin play's.
    """
    T, K = policy.setting.T, X.shape[0]
    means = X @ theta
    gaps = means.max() - means
    n = policy.n_explore
    counts = np.full(K, n // K, dtype=np.int64)
    counts[: n % K] += 1
    sigma = float(policy.opts["sigma"])
    sd = np.sqrt(counts * (1.0 + sigma * sigma * np.einsum("kd,kd->k", X, X)))
    sums = counts * means + sd * env.standard_normal(K)
    G = np.eye(X.shape[1]) * policy.lam + (X * counts[:, None]).T @ X
    theta_hat = np.linalg.solve(G, X.T @ sums)
    chosen = int(np.argmax(X @ theta_hat))
    run = _new_run()
    played = np.flatnonzero(counts)
    _add_blocks(run, 0, played, counts[played], gaps, T)
    if n < T:
        _add_blocks(run, n, [chosen], [T - n], gaps, T)
    run.active_sizes.extend([K, 1])
    run.phase_first.extend([1, n + 1])
    run.phase_end.append(n)
    run.comm_reals.append(0.0)
    run.comm_bits.append(float("nan"))
    run.clients.append(n)
    run.log.append({"l": 1, "t_start": 1, "T_l": n, "n_l": n, "committed": chosen})
    return run


def run_dppe(policy, X, theta, env, noise) -> Run:
    """One run of Algorithm 3 (DP-PE and PE) on actions ``X`` (k x d)."""
    st = policy.setting
    T, d = st.T, X.shape[1]
    means = X @ theta
    gaps = means.max() - means
    best = int(np.argmax(means))
    active = np.arange(X.shape[0])
    h, t0, phase = policy.h1, 0, 1
    run = _new_run()
    priv = policy.privatizer
    while t0 < T:
        design = cached_design(X, active)
        support = active[design.support]
        w = design.weights[design.support]
        counts = np.ceil(h * w - 1e-9).astype(np.int64)
        s, Tl = len(support), int(counts.sum())
        run.active_sizes.append(len(active))
        run.phase_first.append(t0 + 1)
        if _add_blocks(run, t0, support, counts, gaps, T):
            break  # the pulls reach T: exit (Algorithm 3, line 10)
        y_hat, bits = dppe_sums(policy, means[support], counts, env, noise)
        Z, _, _, theta_hat = phase_estimate(X[active], design, counts, y_hat, sums=True)
        W1, W3 = pe_width(policy, h, s, counts, d)
        scores = Z @ theta_hat
        keep = scores >= scores.max() - 2.0 * (W1 + W3)
        bits = bits if priv == "shuffle" else float("nan")
        _log_phase(
            run, t0, Tl, Tl, bits, Tl, phase, h, s, design, (W1, 0.0, W3), active, keep, best
        )
        active = active[keep]
        h, t0, phase = 2.0 * h, t0 + Tl, phase + 1
    return run


def pe_width(policy, h, s, counts, d) -> tuple[float, float]:
    """DP-PE's width terms ``(W1, W3)`` of one phase (Algorithm 3, Thm. C.11):
    ``W1 = sqrt(4 d ln(1/beta)/h)`` and ``W3 = sqrt(2 sigma_n^2 ln(1/beta))`` with the policy's
    ``sigma_n`` of the phase's ``s`` support actions and counts (0 without privacy)."""
    W1 = math.sqrt(4.0 * d * policy.log_inv_beta / h)
    W3 = math.sqrt(2.0 * policy.sigma_n(s, h, counts) ** 2 * policy.log_inv_beta)
    return W1, W3


def dppe_sums(policy, mean_s, counts, env, noise) -> tuple[np.ndarray, float]:
    """The (private) per-action reward sums ``y_hat_l(x)`` of one phase of Algorithm 3 and the
    bits the shuffle protocol sent (0 otherwise): each of the ``T_l(x)`` rounds of ``x`` is a new
    user.

    Parameters
    ----------
    policy : DPPE
    mean_s : ndarray, shape (s,)
        ``<theta*, x>`` of the support actions.
    counts : ndarray of int, shape (s,)
        ``T_l(x)``.
    env, noise : numpy.random.Generator
    """
    from ..policies.dpdpe import pe_sigma_noise

    st = policy.setting
    B = float(policy.opts["reward_bound"])
    priv = policy.privatizer
    y_hat = np.zeros(len(counts))
    bits = 0.0
    for j, c in enumerate(counts):
        c = int(c)
        if priv == "none":
            # I9: the sum of c rewards N(<theta*, x>, 1) is N(c <theta*, x>, c)
            y_hat[j] = c * mean_s[j] + math.sqrt(c) * env.standard_normal()
            continue
        # private: every reward is clipped to [-B, B] (App. C; docs/papers/dpdpe.md): each drawn
        y = np.clip(mean_s[j] + env.standard_normal(c), -B, B)
        if priv == "central":  # Eq. 55: the sum plus one N(0, sigma_nc^2)
            y_hat[j] = y.sum() + pe_sigma_noise(st.epsilon, st.delta, B) * noise.standard_normal()
        elif priv == "local":  # I9: c users' N(0, sigma_nl^2) sum to N(0, c sigma_nl^2)
            y_hat[j] = (
                y.sum()
                + math.sqrt(c) * pe_sigma_noise(st.epsilon, st.delta, B) * noise.standard_normal()
            )
        else:  # Algorithm 4 at the count level (I5-I7, rounding bits per user: I6)
            prm = scalar_params(st.epsilon, st.delta, c, B, float(policy.opts["p_scale"]))
            y_hat[j] = analyze_scalar(count_ones(noise, y[:, None], prm)[0], prm)
            bits += c * (prm.g + prm.b)
    return y_hat, bits


def run_metrics(run: Run, checkpoints: np.ndarray) -> dict[str, np.ndarray]:
    """:data:`PHASED_METRICS` of one run at the checkpoints (piecewise linear regret, Eq. (1))."""
    cps = np.asarray(checkpoints, dtype=np.int64)
    starts = np.asarray(run.starts, dtype=np.int64)
    lengths = np.asarray(run.lengths, dtype=np.int64)
    gaps = np.asarray(run.gaps)
    done = np.concatenate([[0.0], np.cumsum(lengths * gaps)])
    # the block containing round c (1-based): the last block starting before c
    k = np.searchsorted(starts, cps - 1, side="right") - 1
    inside = np.minimum(cps - starts[k], lengths[k])
    regret = done[k] + inside * gaps[k]
    ends = np.asarray(run.phase_end, dtype=np.int64)
    m = np.searchsorted(ends, cps, side="right")  # phases completed by round c

    def cum(values):
        c = np.concatenate([[0.0], np.cumsum(np.asarray(values, dtype=float))])
        return c[m]

    first = np.asarray(run.phase_first, dtype=np.int64)
    j = np.searchsorted(first, cps, side="right") - 1
    return {
        "regret_pseudo": regret,
        "comm_reals": cum(run.comm_reals),
        "comm_bits": cum(run.comm_bits),
        "clients": cum(run.clients),
        "phases_completed": m.astype(float),
        "active_actions": np.asarray(run.active_sizes, dtype=float)[j],
    }


def regret_at(run: Run, t: int) -> float:
    """``R(t)`` by a direct sum over rounds (for tests of :func:`run_metrics`)."""
    total = 0.0
    for s0, length, gap in zip(run.starts, run.lengths, run.gaps, strict=True):
        total += max(0, min(length, t - s0)) * gap
    return total
