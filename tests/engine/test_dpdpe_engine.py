"""The phase-level engine of paper 004 (:mod:`dpbandits.engine.phased`) against per-round,
per-client simulation, and run-level properties (allocation, regret and communication
bookkeeping, widths, coverage, the explicit bound of Appendix B.1).

Statistical comparisons use two independent samples of the same phase: means agree within 4
standard errors of the difference, covariances within 5 (the standard error of a sample
covariance is sqrt((s_i^2 s_j^2 + s_ij^2)/N)), and per coordinate a two-sample KS test has
p > 0.001.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import ks_2samp

from dpbandits.engine.phased import (
    _width,
    dpdpe_aggregate,
    dppe_sums,
    phase_estimate,
    regret_at,
    run_dpdpe,
    run_dppe,
    run_metrics,
)
from dpbandits.g_optimal import g_optimal_design, support_cap
from dpbandits.mechanisms.shuffle_sum import (
    analyze_scalar,
    analyze_vector,
    scalar_params,
    vector_messages,
)
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.dpdpe import pe_sigma_noise, sigma_nc, sigma_nl

EPS, DELTA = 10.0, 0.25
MEAN_S = np.array([0.6, -0.2, 0.9])  # three support actions; B = 1 clips many reports
XS = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
COUNTS = np.array([1, 4, 7])
N_CLIENTS = 5


def _policy(algorithm, T=10_000, K=3, d=2, **options):
    st = Setting(T=T, d=d, epsilon=None if algorithm in ("dpe", "pe") else EPS, delta=DELTA, K=K)
    return make_policy(algorithm, st, **options)


# -- per-round, per-client reference simulations of one phase -----------------------------------
def _brute_dpdpe(policy, rng, reps):
    """Algorithm 1, steps 5-7, literally: every client draws xi_u, plays every support action
    T_l(x) rounds, averages, clips (private), privatizes; the server aggregates."""
    o = policy.opts
    B, sigma = float(o["reward_bound"]), float(o["sigma"])
    s, d = XS.shape
    n = N_CLIENTS
    xi = rng.standard_normal((reps, n, d)) * sigma
    avg = np.empty((reps, n, s))
    for j in range(s):
        rounds = MEAN_S[j] + (xi @ XS[j])[..., None] + rng.standard_normal((reps, n, COUNTS[j]))
        avg[..., j] = rounds.mean(axis=-1)
    if policy.privatizer == "none":
        return avg.mean(axis=1)
    reports = np.clip(avg, -B, B)
    if policy.privatizer == "central":
        return reports.mean(axis=1) + rng.standard_normal((reps, s)) * sigma_nc(s, n, EPS, DELTA, B)
    if policy.privatizer == "local":
        gamma = rng.standard_normal((reps, n, s)) * sigma_nl(s, EPS, DELTA, B)
        return (reports + gamma).mean(axis=1)
    prm = policy.sdp_params(n, s)
    out = np.empty((reps, s))
    for r in range(reps):  # literal messages and one real permutation of all of them
        tags, bits = [], []
        for u in range(n):
            for j, m in enumerate(vector_messages(rng, reports[r, u], prm)):
                tags.append(np.full(m.size, j))
                bits.append(m)
        order = rng.permutation(sum(m.size for m in bits))
        tag, bit = np.concatenate(tags)[order], np.concatenate(bits)[order]
        out[r] = analyze_vector(np.bincount(tag, weights=bit, minlength=s), prm)
    return out


def _brute_dppe(policy, rng, reps):
    """Algorithm 3's reports literally: T_l(x) new users per action, one reward each, clipped
    (private), privatized per user (local, shuffle) or on the sum (central)."""
    B = float(policy.opts["reward_bound"])
    s = len(COUNTS)
    out = np.empty((reps, s))
    for j in range(s):
        c = int(COUNTS[j])
        y = MEAN_S[j] + rng.standard_normal((reps, c))
        if policy.privatizer == "none":
            out[:, j] = y.sum(axis=1)
            continue
        y = np.clip(y, -B, B)
        s0 = pe_sigma_noise(EPS, DELTA, B)
        if policy.privatizer == "central":
            out[:, j] = y.sum(axis=1) + s0 * rng.standard_normal(reps)
        elif policy.privatizer == "local":
            out[:, j] = (y + s0 * rng.standard_normal((reps, c))).sum(axis=1)
        else:  # Algorithm 4's randomizer per user: floor + rounding bit + Binomial(b, p)
            prm = scalar_params(EPS, DELTA, c, B)
            scaled = (y + B) * prm.g / (2 * B)
            fl = np.floor(scaled)
            ones = fl + (rng.random(fl.shape) < scaled - fl) + rng.binomial(prm.b, prm.p, fl.shape)
            out[:, j] = [analyze_scalar(v, prm) for v in ones.sum(axis=1)]
    return out


def _compare(a, b):
    n1, n2 = len(a), len(b)
    se = np.sqrt(a.var(axis=0) / n1 + b.var(axis=0) / n2)
    assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) < 4 * se), (a.mean(0), b.mean(0))
    ca, cb = np.cov(a.T), np.cov(b.T)
    va, vb = np.diag(ca), np.diag(cb)
    se_cov = np.sqrt((np.outer(va, va) + ca**2) / n1 + (np.outer(vb, vb) + cb**2) / n2)
    assert np.all(np.abs(ca - cb) < 5 * se_cov), (ca, cb)
    for j in range(a.shape[1]):
        assert ks_2samp(a[:, j], b[:, j]).pvalue > 1e-3, j


@pytest.mark.parametrize(
    "algorithm,options,reps",
    [
        ("dpe", {}, 20_000),  # I2 (no clipping)
        ("cdp_dpe", {}, 20_000),  # I1 + I3
        ("ldp_dpe", {}, 20_000),  # I1 + I4
        ("sdp_dpe", {"width": "s1"}, 2_000),  # I1 + I5-I7 (eps_hat = eps: small b, cheap bits)
    ],
)
def test_dpdpe_phase_identities_match_per_client_simulation(algorithm, options, reps):
    policy = _policy(algorithm, sigma=0.5, **options)  # sigma = 0.5: visible shared xi_u
    brute = _brute_dpdpe(policy, np.random.default_rng(1), reps)
    env, noise = np.random.default_rng(2), np.random.default_rng(3)
    fast = np.array(
        [dpdpe_aggregate(policy, MEAN_S, XS, COUNTS, N_CLIENTS, env, noise) for _ in range(reps)]
    )
    _compare(fast, brute)
    if algorithm == "dpe":  # the shared heterogeneity correlates the coordinates (I1)
        c = np.cov(fast.T)
        assert c[0, 2] > 5 * math.sqrt((c[0, 0] * c[2, 2] + c[0, 2] ** 2) / reps)


@pytest.mark.parametrize("algorithm", ["pe", "cdp_pe", "ldp_pe", "sdp_pe"])
def test_dppe_phase_identities_match_per_user_simulation(algorithm):
    policy = _policy(algorithm)
    reps = 10_000
    brute = _brute_dppe(policy, np.random.default_rng(4), reps)
    env, noise = np.random.default_rng(5), np.random.default_rng(6)
    fast = np.array([dppe_sums(policy, MEAN_S, COUNTS, env, noise)[0] for _ in range(reps)])
    _compare(fast, brute)
    bits = dppe_sums(policy, MEAN_S, COUNTS, env, noise)[1]
    if algorithm == "sdp_pe":
        expected = sum(
            int(c)
            * (scalar_params(EPS, DELTA, int(c), 1.0).g + scalar_params(EPS, DELTA, int(c), 1.0).b)
            for c in COUNTS
        )
        assert bits == expected
    else:
        assert bits == 0.0


# -- run-level facts on a small instance ---------------------------------------------------------
def _instance(k=12, d=3, seed=7):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((k, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    theta = rng.standard_normal(d)
    return X, theta / np.linalg.norm(theta)


def _run(algorithm, T=200_000, seed=0, **options):
    X, theta = _instance()
    policy = _policy(algorithm, T=T, K=X.shape[0], d=X.shape[1], **options)
    runner = run_dppe if algorithm.endswith("pe") and "dpe" not in algorithm else run_dpdpe
    env, noise = np.random.default_rng([seed, 1]), np.random.default_rng([seed, 2])
    return policy, X, theta, runner(policy, X, theta, env, noise)


@pytest.mark.parametrize("algorithm", ["dpe", "cdp_dpe", "sdp_dpe", "pe", "ldp_pe"])
def test_allocation_regret_bookkeeping_and_communication(algorithm):
    policy, X, theta, run = _run(algorithm)
    T = policy.setting.T
    means = X @ theta
    gaps = means.max() - means
    # allocation: h_l <= T_l <= h_l + s_l (every T_l(x) >= 1)
    for e in run.log:
        assert e["h"] <= e["T_l"] <= e["h"] + e["s_l"] and e["T_l"] >= e["s_l"]
    # regret bookkeeping: R(T) = sum of T_l(x) gaps over played blocks (truncated at T); the
    # piecewise-linear curve equals the per-round sum; nondecreasing; R(t) <= 2t (gaps <= 2 on the
    # sphere)
    played = np.repeat(np.asarray(run.gaps), np.asarray(run.lengths))
    assert played.size == T
    per_round = np.cumsum(played)
    cps = np.unique(np.r_[np.linspace(1, T, 97).astype(int), run.phase_end, T])
    metrics = run_metrics(run, cps)
    assert np.allclose(metrics["regret_pseudo"], per_round[cps - 1], rtol=1e-9)  # cumsum error
    assert np.allclose([regret_at(run, int(t)) for t in cps[::10]], per_round[cps[::10] - 1])
    assert np.all(np.diff(metrics["regret_pseudo"]) >= 0)
    assert np.all(metrics["regret_pseudo"] <= 2 * cps)
    assert set(np.round(run.gaps, 12)) <= set(np.round(gaps, 12))
    # communication = sum over completed phases of s_l n_l reals (bits: times g_l + b_l)
    done = len(run.phase_end)
    assert metrics["phases_completed"][-1] == done
    if "dpe" in algorithm:
        reals = sum(e["s_l"] * e["n_l"] for e in run.log)
    else:  # DP-PE: every round is a new user sending one real
        reals = sum(e["T_l"] for e in run.log)
    assert metrics["comm_reals"][-1] == reals
    if algorithm == "sdp_dpe":
        bits = 0
        for e in run.log:
            prm = policy.sdp_params(e["n_l"], e["s_l"])
            bits += e["s_l"] * e["n_l"] * (prm.g + prm.b)
        assert metrics["comm_bits"][-1] == bits
    if algorithm == "dpe":
        cap = math.floor(support_cap(X.shape[1]))
        assert reals <= cap * sum(2 ** (0.8 * l) + 1 for l in range(1, done + 1))
        # DPE's width is strictly decreasing in l
        W = [e["W1"] + e["W2"] + e["W3"] for e in run.log]
        assert np.all(np.diff(W) < 0)


def test_population_is_never_exceeded():
    _, _, _, run = _run("cdp_dpe", T=100_000)
    used = sum(run.clients)
    with pytest.raises(RuntimeError, match="population exhausted"):
        _run("cdp_dpe", T=100_000, population=used - 1)
    _, _, _, again = _run("cdp_dpe", T=100_000, population=used)  # exactly enough
    assert sum(again.clients) == used


class _Silent:
    """An environment without noise: every standard normal draw is 0."""

    def standard_normal(self, size=None):
        return 0.0 if size is None else np.zeros(size)


def test_noise_free_estimation_is_exact():
    """With sigma = 0 and no reward noise, theta_hat is the projection of theta* onto the
    span of the active actions (scores = true means), also for a rank-deficient active set, and
    the best action is never eliminated."""
    rng = np.random.default_rng(8)
    Q = np.linalg.qr(rng.standard_normal((5, 2)))[0]
    X = rng.standard_normal((20, 2)) @ Q.T  # rank 2 in R^5
    theta = rng.standard_normal(5)
    design = g_optimal_design(X)
    counts = np.ceil(64 * design.weights[design.support] - 1e-9).astype(int)
    y = X[design.support] @ theta
    for sums, values in ((False, y), (True, y * counts)):
        Z, _, _, th = phase_estimate(X, design, counts, values, sums=sums)
        assert np.allclose(Z @ th, X @ theta, atol=1e-10)
    X, theta = _instance()
    policy = _policy("dpe", T=100_000, K=X.shape[0], d=X.shape[1], sigma=0.0)
    run = run_dpdpe(policy, X, theta, _Silent(), np.random.default_rng(0))
    assert all(e["best_active"] for e in run.log)
    assert run.log[-1]["active_next"] == 1


@pytest.mark.parametrize(
    "algorithm,width,bound",
    [
        ("dpe", "faithful", 2),
        ("cdp_dpe", "tight", 3),
        ("ldp_dpe", "tight", 3),
        ("cdp_dpe", "faithful", 3),
    ],
)
def test_coverage_of_the_width(algorithm, width, bound):
    """With beta = 0.05 the one-sided exceedance frequency of <theta_hat - theta*, x> > W_l
    over phases and actions is at most 2 beta (DPE) or 3 beta (private)."""
    X, theta = _instance(k=30, d=4, seed=9)
    beta, h, n = 0.05, 16.0, 8
    policy = _policy(
        algorithm, K=30, d=4, beta=beta, sigma=0.3, reward_bound=4.0, width=width
    )  # B = 4: clipping never binds, so the estimate is unbiased
    design = g_optimal_design(X)
    support = design.support
    counts = np.ceil(h * design.weights[support] - 1e-9).astype(int)
    env, noise = np.random.default_rng(10), np.random.default_rng(11)
    means = X @ theta
    exceed = []
    for _ in range(3000):
        y_hat = dpdpe_aggregate(policy, means[support], X[support], counts, n, env, noise)
        Z, Zs, V, th = phase_estimate(X, design, counts, y_hat)
        W = sum(_width(policy, h, n, len(support), Z, Zs, V, counts, 4))
        exceed.append(Z @ th - means > W)
    freq = np.mean(exceed)
    assert freq <= bound * beta


def test_width_ordering_tight_below_faithful():
    """For the same phase W3 of configuration T <= W3 of configuration F."""
    X, theta = _instance(k=40, d=5, seed=12)
    design = g_optimal_design(X)
    support = design.support
    for h, n in ((32.0, 4), (1024.0, 300), (2.0**15, 5000)):
        counts = np.ceil(h * design.weights[support] - 1e-9).astype(int)
        Z = X @ design.basis
        Zs = Z[support]
        V = (Zs * counts[:, None]).T @ Zs
        for algorithm in ("cdp_dpe", "ldp_dpe", "sdp_dpe"):
            f = _policy(algorithm, K=40, d=5, width="faithful")
            t = _policy(algorithm, K=40, d=5, width="tight")
            s = len(support)
            prm = f.sdp_params(n, s)
            if algorithm == "sdp_dpe" and prm.g**2 < prm.eps_hat**2 * n / (90 * prm.log_term):
                # the paper's variance bound holds only under this condition (proof of Thm. A.2)
                continue
            W3f = _width(f, h, n, s, Z, Zs, V, counts, 5)[2]
            W3t = _width(t, h, n, s, Z, Zs, V, counts, 5)[2]
            assert 0 < W3t <= W3f


def test_dpe_regret_below_the_explicit_bound_in_the_figure_2_setting():
    """Mean DPE regret <= the explicit (pre-O) bound of the proof of Thm. B.1 (App. B.1) in the
    Figure 2 setting (d = 20, k = 1000, T = 1e6, alpha = 0.8, sigma = 0.1, h_1 = 2,
    beta = 1/(kT))."""
    from dpbandits.envs.linear import make_instances

    d, k, T, alpha, sigma, h1 = 20, 1000, 1_000_000, 0.8, 0.1, 2.0
    inst = make_instances("fixed_sphere", 3, k, d, seed=20220712)
    policy = make_policy("dpe", Setting(T=T, d=d, K=k))
    regrets = []
    for r in range(3):
        run = run_dpdpe(
            policy,
            inst.X[r],
            inst.theta[r],
            np.random.default_rng([r, 1]),
            np.random.default_rng(0),
        )
        regrets.append(regret_at(run, T))
    S, L = support_cap(d), math.log(k * T)
    C0 = 1 / (1 - 2 ** (-(1 - alpha) / 2))
    C1 = 1 / (1 - 2 ** (-alpha / 2))
    bound = (
        2 * (h1 + S)
        + 8 * C0 * math.sqrt(2 * d * h1**alpha * T ** (1 - alpha) * L)
        + 8 * S * math.sqrt(2 * d * L / h1) / (2 ** ((1 + alpha) / 2) - 1)
        + 16 * sigma * math.sqrt(2 * h1**alpha * L) * T ** (1 - alpha / 2)
        + 4 * C1 * S * sigma * math.sqrt(2 * L)
        + 4 * math.log2(2 * T / h1)
    )
    assert 5e4 < bound < 2e5  # about 9e4 in this setting
    assert np.mean(regrets) <= bound


# -- the elimination rule and the phase boundaries on hand-built instances -----------------------
@pytest.mark.parametrize("algorithm", ["dpe", "pe"])
def test_elimination_keeps_gaps_below_2W_and_drops_gaps_above(algorithm):
    """Step 10 of Algorithm 1 (and line 9 of Algorithm 3): after a phase, an action stays active
    iff its estimated gap is at most 2 W_l. Noise-free estimation (silent environment, sigma = 0)
    makes the estimated gaps the true ones: gaps 0, 1.5 W and 3 W in phase 1, so exactly the
    action with gap 3 W is eliminated (with a threshold W the 1.5 W action would go too, with
    3 W none would)."""
    from dpbandits.policies.dpdpe import dpdpe_width

    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    policy = _policy(algorithm, T=1000, K=3, d=2, **({"sigma": 0.0} if algorithm == "dpe" else {}))
    L = policy.log_inv_beta
    if algorithm == "dpe":  # phase 1: h_1 = 2, n_1 = ceil(2^0.8) = 2, sigma_n = 0
        W = sum(dpdpe_width(2.0, policy.clients(1), 2, 0.0, 0.0, L))
    else:  # W_1 = sqrt(4 d ln(1/beta)/h_1) + 0 (no privacy term)
        W = math.sqrt(4 * 2 * L / policy.h1)
    # means 0, -1.5 W, -3 W: the third action's gap is 3 W (> 2 W), the second's 1.5 W (< 2 W)
    theta = np.array([0.0, -1.5 * W])
    runner = run_dpdpe if algorithm == "dpe" else run_dppe
    run = runner(policy, X, theta, _Silent(), np.random.default_rng(0))
    first = run.log[0]
    assert first["active"] == 3 and first["active_next"] == 2
    assert first["W1"] + first["W2"] + first["W3"] == pytest.approx(W, rel=1e-12)
    # phase 2 plays only the two kept actions (gaps 0 and 1.5 W)
    later = np.asarray(run.gaps)[np.asarray(run.starts) >= run.phase_end[0]]
    assert set(np.round(later / W, 9)) == {0.0, 1.5}


def test_phase_lengths_ends_and_first_rounds_on_two_orthogonal_actions():
    """DPE on X = {e1, e2} (G-optimal design 1/2 each) with h_1 = 2: phase 1 plays each action
    ceil(2 x 1/2) = 1 round, eliminates e2 (gap 3 W_1), then phases of h_l = 4, 8 rounds on e1.
    Rounds 1-2, 3-6, 7-14: a phase that ends exactly at T = 14 is complete (its report and
    elimination happen); at T = 13 it is cut. run_metrics counts a phase as completed from its last
    round on, and reports the active set of the phase a round belongs to from its first round."""
    from dpbandits.policies.dpdpe import dpdpe_width

    X = np.eye(2)
    for T, ends in ((14, [2, 6, 14]), (13, [2, 6])):
        policy = _policy("dpe", T=T, K=2, d=2, sigma=0.0)
        W = sum(dpdpe_width(2.0, policy.clients(1), 2, 0.0, 0.0, policy.log_inv_beta))
        run = run_dpdpe(policy, X, np.array([0.0, -3 * W]), _Silent(), np.random.default_rng(0))
        assert run.phase_end == ends
        assert run.phase_first == [1, 3, 7]
        assert [e["t_start"] for e in run.log] == [1, 3, 7][: len(ends)]
        assert [e["T_l"] for e in run.log] == [2, 4, 8][: len(ends)]
        assert run.active_sizes == [2, 1, 1]
        assert sum(run.lengths) == T
        cps = np.arange(1, T + 1)
        m = run_metrics(run, cps)
        completed = [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3][:T]
        assert list(m["phases_completed"]) == completed
        assert list(m["active_actions"]) == [2, 2] + [1] * (T - 2)
        # round 2 is e2's block (blocks in ascending action order): the only regret
        assert np.allclose(m["regret_pseudo"], np.where(cps >= 2, 3 * W, 0.0))
