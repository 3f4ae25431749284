"""Tests that kill mutants left alive in engine/phased.py (docs/mutation.md).

The phase-level identities (I1-I9 of the module docstring) are checked in distribution by
tests/engine/test_dpdpe_engine.py; here they are checked exactly, with scripted draws: an
environment whose k-th ``standard_normal`` call returns the constant ``k`` (so the order and the
scale of each draw show in the result) and a privacy-noise generator replayed from the same seed.
"""

import math

import numpy as np
import pytest

from dpbandits.engine import phased
from dpbandits.engine.phased import (
    Run,
    _add_blocks,
    _new_run,
    cached_design,
    dpdpe_aggregate,
    dppe_sums,
    regret_at,
    run_dpdpe,
    run_dppe,
    run_metrics,
)
from dpbandits.g_optimal import g_optimal_design
from dpbandits.mechanisms.shuffle_sum import count_ones, scalar_params, vector_params
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.dpdpe import dpdpe_width, pe_sigma_noise, sigma_nc, sigma_nl

EPS, DELTA = 2.0, 0.1


class _Scripted:
    """The k-th call of ``standard_normal`` (k = 1, 2, ...) returns k, in the shape asked for."""

    def __init__(self):
        self.calls = 0

    def standard_normal(self, size=None):
        self.calls += 1
        return float(self.calls) if size is None else np.full(size, float(self.calls))


class _Silent:
    """An environment without noise: every standard normal draw is 0."""

    def standard_normal(self, size=None):
        return 0.0 if size is None else np.zeros(size)


def _policy(algorithm, T=1000, K=3, d=2, **options):
    eps = None if algorithm in ("dpe", "pe") else EPS
    return make_policy(algorithm, Setting(T=T, d=d, epsilon=eps, delta=DELTA, K=K), **options)


# -- blocks, regret ------------------------------------------------------------------------------
def test_add_blocks_cuts_at_the_horizon():
    gaps = np.array([0.5, 9.0, 2.0])
    support, counts = np.array([0, 2]), np.array([3, 4])
    run = _new_run()
    assert _add_blocks(run, 0, support, counts, gaps, 7) is False  # ends exactly at T: complete
    assert (run.starts, run.lengths, run.gaps) == ([0, 3], [3, 4], [0.5, 2.0])
    run = _new_run()
    assert _add_blocks(run, 0, support, counts, gaps, 5) is True
    assert (run.starts, run.lengths) == ([0, 3], [3, 2])
    run = _new_run()
    assert _add_blocks(run, 10, support, counts, gaps, 13) is True  # second block starts at T
    assert (run.starts, run.lengths, run.gaps) == ([10], [3], [0.5])


def _hand_run():
    # rounds 1-3 on a gap-0.5 action, 4-5 on a gap-2 action (phase 1, ends at 5, 2 actions),
    # then rounds 6-9 on a gap-0 action (phase 2, not completed, 1 action)
    return Run(
        starts=[0, 3, 5],
        lengths=[3, 2, 4],
        gaps=[0.5, 2.0, 0.0],
        phase_end=[5],
        comm_reals=[6.0],
        comm_bits=[float("nan")],
        clients=[3],
        active_sizes=[2, 1],
        phase_first=[1, 6],
        log=[],
    )


def test_regret_at_sums_the_rounds_played():
    run = _hand_run()
    want = [0.0, 0.5, 1.0, 1.5, 3.5, 5.5, 5.5, 5.5, 5.5, 5.5]
    assert [regret_at(run, t) for t in range(10)] == want


def test_run_metrics_at_hand_computed_checkpoints():
    run = _hand_run()
    cps = np.array([1, 3, 4, 5, 6, 9])
    m = run_metrics(run, cps)
    assert m["regret_pseudo"].tolist() == [0.5, 1.5, 3.5, 5.5, 5.5, 5.5]
    assert m["phases_completed"].tolist() == [0, 0, 0, 1, 1, 1]
    assert m["comm_reals"].tolist() == [0, 0, 0, 6, 6, 6]
    assert m["clients"].tolist() == [0, 0, 0, 3, 3, 3]
    assert m["comm_bits"][:3].tolist() == [0, 0, 0] and np.isnan(m["comm_bits"][3:]).all()
    assert m["active_actions"].tolist() == [2, 2, 2, 2, 1, 1]
    assert all(v.dtype == np.float64 for v in m.values())


# -- designs -------------------------------------------------------------------------------------
def test_cached_design_is_the_design_of_the_active_actions():
    rng = np.random.default_rng(2)
    X1, X2 = rng.standard_normal((6, 2)), rng.standard_normal((6, 2))
    active = np.array([0, 2, 3, 5])
    for X in (X1, X2, X1):  # same shape and active set, different actions: no mix-up
        design = cached_design(X, active)
        want = g_optimal_design(X[active])
        assert np.array_equal(design.weights, want.weights)
        assert np.array_equal(design.support, want.support)
    assert cached_design(X1, active) is cached_design(X1, active)  # memoised
    assert cached_design(X1, active[:3]).weights.shape == (3,)


def test_cached_design_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(phased, "_DESIGNS", {})
    monkeypatch.setattr(phased, "_CACHE_LIMIT", 2)
    X = np.random.default_rng(3).standard_normal((4, 2))
    for active in ([0, 1], [0, 2], [1, 2], [1, 3]):
        cached_design(X, np.array(active))
        assert len(phased._DESIGNS) <= 2
    assert len(phased._DESIGNS) == 2  # cleared at the limit, then refilled


# -- DP-DPE's phase report (steps 5-7) with scripted draws -----------------------------------------
MEAN_S = np.array([0.3, -0.5, 2.5])
XS = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
COUNTS = np.array([1, 4, 9])
N = 4


def test_dpdpe_aggregate_none_is_i2():
    """xi_bar = 1 * sigma/sqrt(n) (first call, d draws), zeta(x) = 2/sqrt(n T_l(x)) (second)."""
    sigma = 0.7
    policy = _policy("dpe", sigma=sigma)
    env = _Scripted()
    y = dpdpe_aggregate(policy, MEAN_S, XS, COUNTS, N, env, None)
    want = MEAN_S + XS @ np.full(2, sigma / 2.0) + 2.0 / np.array([2.0, 4.0, 6.0])
    assert np.allclose(y, want, rtol=1e-14, atol=0)
    assert env.calls == 2


@pytest.mark.parametrize("algorithm", ["cdp_dpe", "ldp_dpe"])
def test_dpdpe_aggregate_private_clips_then_adds_one_gaussian(algorithm):
    """Reports mean + <xi_u, x> + eta_bar_u(x) with xi_u = 1 * sigma (first call) and
    eta_bar = 2/sqrt(T_l(x)) (second), clipped to [-B, B]; then the average plus
    sigma_nc N(0, 1) (central) or sigma_nl/sqrt(n) N(0, 1) (local), one draw per support action."""
    sigma, B = 0.1, 1.5
    policy = _policy(algorithm, sigma=sigma, reward_bound=B)
    env = _Scripted()
    y = dpdpe_aggregate(policy, MEAN_S, XS, COUNTS, N, env, np.random.default_rng(9))
    report = np.clip(MEAN_S + XS @ np.full(2, sigma) + 2.0 / np.sqrt(COUNTS), -B, B)
    assert report.tolist()[1:] == [-0.5 + 0.1 + 1.0, B]  # the third is clipped
    if algorithm == "cdp_dpe":
        scale = sigma_nc(3, N, EPS, DELTA, B)
    else:
        scale = sigma_nl(3, EPS, DELTA, B) / math.sqrt(N)
    want = report + np.random.default_rng(9).standard_normal(3) * scale
    assert np.allclose(y, want, rtol=1e-13, atol=1e-13)
    assert env.calls == 2


def test_policy_sigma_per_model():
    B = 1.5
    for alg, want in (
        ("cdp_dpe", sigma_nc(3, N, EPS, DELTA, B)),
        ("ldp_dpe", sigma_nl(3, EPS, DELTA, B)),
    ):
        assert phased.policy_sigma(_policy(alg, reward_bound=B), N, 3) == want


# -- the width under configuration T --------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["cdp_dpe", "ldp_dpe"])
def test_tight_width_on_orthogonal_actions(algorithm):
    """Z = I, V = diag(T_l): x'^T V^{-1} x = 1/T_l(x) for x = x', else 0, so v_l = tau^2."""
    policy = _policy(algorithm, sigma=0.2, width="tight")
    Z = np.eye(2)
    counts = np.array([3, 5])
    V = np.diag(counts.astype(float))
    h, n, s = 8.0, 3, 2
    got = phased._width(policy, h, n, s, Z, Z, V, counts, 2)
    want = dpdpe_width(h, n, 2, 0.2, math.sqrt(policy.tau2(n, s)), policy.log_inv_beta)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("algorithm,faithful", [("dpe", False), ("cdp_dpe", True)])
def test_width_noiseless_and_faithful(algorithm, faithful):
    policy = _policy(algorithm, sigma=0.2)
    counts = np.array([3, 5])
    got = phased._width(policy, 8.0, 3, 2, np.eye(2), np.eye(2), np.diag([3.0, 5.0]), counts, 2)
    sigma_n = policy.sigma_n(3, 2) if faithful else 0.0
    assert got == dpdpe_width(8.0, 3, 2, 0.2, sigma_n, policy.log_inv_beta)


# -- DP-PE's per-action sums (Eq. 53-55, I9) with scripted draws ---------------------------------
def test_dppe_sums_none_is_i9():
    """y_hat(x) = c <theta*, x> + sqrt(c) N(0, 1): the j-th draw is j."""
    policy = _policy("pe")
    y, bits = dppe_sums(policy, MEAN_S, COUNTS, _Scripted(), None)
    assert np.allclose(y, COUNTS * MEAN_S + np.sqrt(COUNTS) * [1.0, 2.0, 3.0], rtol=1e-14)
    assert bits == 0.0


@pytest.mark.parametrize("algorithm", ["cdp_pe", "ldp_pe"])
def test_dppe_sums_private(algorithm):
    """Every reward mean + j (the j-th call) clipped to [-B, B], summed over the c rounds, plus
    sigma N(0, 1) (central) or sqrt(c) sigma N(0, 1) (local), with DP-PE's
    sigma = 2B sqrt(2 ln(1.25/delta)) / eps."""
    B = 2.0
    policy = _policy(algorithm, reward_bound=B)
    y, bits = dppe_sums(policy, MEAN_S, COUNTS, _Scripted(), np.random.default_rng(4))
    clipped = np.clip(MEAN_S + [1.0, 2.0, 3.0], -B, B)  # 1.3, 1.5, 2.0 (the last clipped)
    z = np.random.default_rng(4).standard_normal(3)
    factor = np.ones(3) if algorithm == "cdp_pe" else np.sqrt(COUNTS)
    want = COUNTS * clipped + factor * pe_sigma_noise(EPS, DELTA, B) * z
    assert np.allclose(y, want, rtol=1e-13, atol=1e-13)
    assert bits == 0.0


def test_dppe_sums_shuffle_bits():
    """Algorithm 4 sends g + b bits per user, c users per action."""
    B = 1.0
    policy = _policy("sdp_pe", reward_bound=B)
    _, bits = dppe_sums(policy, MEAN_S, COUNTS, np.random.default_rng(1), np.random.default_rng(2))
    want = 0
    for c in COUNTS:
        prm = scalar_params(EPS, DELTA, int(c), B)
        want += int(c) * (prm.g + prm.b)
    assert bits == want


# -- whole runs ----------------------------------------------------------------------------------
def test_dppe_phases_on_two_orthogonal_actions():
    """DP-PE (non-private) on X = {e1, e2}, h_1 = 2, noiseless: phase 1 plays each action once
    (rounds 1-2) and eliminates e2 (gap 3 (W1 + W3) > 2 W); phases of 4 and 8 rounds on e1 follow.
    Each round is a new user: n_l = T_l, one real each."""
    X = np.eye(2)
    T = 14
    policy = _policy("pe", T=T, K=2, d=2, h1=2.0)
    W1 = math.sqrt(4.0 * 2 * policy.log_inv_beta / 2.0)
    run = run_dppe(policy, X, np.array([0.0, -3 * W1]), _Silent(), np.random.default_rng(0))
    assert run.phase_end == [2, 6, 14]
    assert run.phase_first == [1, 3, 7]
    assert run.active_sizes == [2, 1, 1]
    assert [e["T_l"] for e in run.log] == [2, 4, 8]
    assert [e["n_l"] for e in run.log] == [2, 4, 8]
    assert run.comm_reals == [2, 4, 8] and run.clients == [2, 4, 8]
    assert all(math.isnan(b) for b in run.comm_bits)
    first = run.log[0]
    assert first["l"] == 1 and first["t_start"] == 1 and first["h"] == 2.0 and first["s_l"] == 2
    assert first["W1"] == pytest.approx(W1, rel=1e-12) and first["W2"] == 0.0
    assert first["W3"] == 0.0
    assert first["active"] == 2 and first["active_next"] == 1 and first["best_active"] is True
    assert [e["h"] for e in run.log] == [2.0, 4.0, 8.0]
    assert [e["l"] for e in run.log] == [1, 2, 3]


def test_dpdpe_log_entries_on_two_orthogonal_actions():
    """DPE on {e1, e2}, h_1 = 2, sigma = 0, scripted (nonzero) reward noise that is the same for
    both actions in a phase: phase 1 plays each action once; n_1 = clients(1) clients."""
    X = np.eye(2)
    T = 14
    policy = _policy("dpe", T=T, K=2, d=2, sigma=0.0)
    n1 = policy.clients(1)
    W = sum(dpdpe_width(2.0, n1, 2, 0.0, 0.0, policy.log_inv_beta))
    run = run_dpdpe(policy, X, np.array([0.0, -3 * W]), _Scripted(), np.random.default_rng(0))
    first = run.log[0]
    assert first["l"] == 1 and first["t_start"] == 1 and first["T_l"] == 2 and first["s_l"] == 2
    assert first["n_l"] == n1 and run.clients[0] == n1 and run.comm_reals[0] == 2 * n1
    assert first["g"] == pytest.approx(2.0)  # the G-optimal value on a basis of R^2 is d
    assert first["active"] == 2 and first["active_next"] == 1 and first["best_active"] is True
    assert [e["n_l"] for e in run.log] == [policy.clients(l) for l in (1, 2, 3)]
    assert [e["h"] for e in run.log] == [2.0, 4.0, 8.0]
    assert all(math.isnan(b) for b in run.comm_bits)


def test_dpdpe_shuffle_bits_per_phase():
    X = np.eye(2)
    policy = _policy("sdp_dpe", T=14, K=2, d=2, sigma=0.0)
    run = run_dpdpe(policy, X, np.array([0.0, -0.5]), _Scripted(), np.random.default_rng(0))
    for e, bits in zip(run.log, run.comm_bits, strict=True):
        prm = policy.sdp_params(e["n_l"], e["s_l"])
        assert bits == e["s_l"] * e["n_l"] * (prm.g + prm.b)


def test_dppe_eliminates_exactly_the_gaps_above_2w():
    """PE on X = I_3, h_1 = 3 (one round each), no noise: scores are the means, W = W1 =
    sqrt(4 d ln(1/beta) / h) = sqrt(4 ln(kT)); step 10 keeps gaps below 2 W (0 and 1.9 W) and
    drops the gap 2.1 W."""
    T, k = 100, 3
    policy = _policy("pe", T=T, K=k, d=3, h1=3.0)
    W = math.sqrt(4.0 * math.log(k * T))
    assert policy.log_inv_beta == pytest.approx(math.log(k * T), rel=1e-12)
    theta = np.array([0.0, -1.9 * W, -2.1 * W])
    run = run_dppe(policy, np.eye(3), theta, _Silent(), np.random.default_rng(0))
    first = run.log[0]
    assert first["T_l"] == 3 and first["W1"] == pytest.approx(W, rel=1e-12)
    assert first["active"] == 3 and first["active_next"] == 2


@pytest.mark.parametrize("s", [1, 2, 7, 40])
@pytest.mark.parametrize("n", [1, 9, 1000])
@pytest.mark.parametrize("B", [0.5, 1e6])  # clipping active on most reports, and never
def test_clipped_report_mean_is_numpys_expression_bit_for_bit(s, n, B):
    """The compiled clients' average equals ``np.clip(...).mean(axis=0)`` exactly (the engine's
    numbers did not move when it replaced that expression), whether or not clipping acts."""
    rng = np.random.default_rng([s, n])
    signal, z = rng.standard_normal((2, n, s))
    mean_s = rng.standard_normal(s)
    sqrt_counts = np.sqrt(rng.integers(1, 50, size=s)).astype(float)
    want = np.clip(mean_s + signal + z / sqrt_counts, -B, B).mean(axis=0)
    got = phased.clipped_report_mean(signal, mean_s, z, sqrt_counts, B)
    assert np.array_equal(got, want)
    clipped = np.abs(mean_s + signal + z / sqrt_counts) > B
    assert clipped.any() == (B < 1)


@pytest.mark.parametrize("s", [1, 2, 7, 40])
@pytest.mark.parametrize("n", [1, 9, 1000])
@pytest.mark.parametrize("B", [0.5, 1e6])
def test_clipped_report_counts_are_count_ones_of_the_clipped_reports(s, n, B):
    """The compiled shuffle count (DP-DPE, I5-I7) equals ``count_ones`` of the clipped reports
    exactly and leaves the privacy-noise generator where ``count_ones`` leaves it (the same
    draws in the same order), whether or not clipping acts."""
    rng = np.random.default_rng([s, n, 7])
    signal, z = rng.standard_normal((2, n, s))
    mean_s = rng.standard_normal(s)
    sqrt_counts = np.sqrt(rng.integers(1, 50, size=s)).astype(float)
    prm = vector_params(1.0, 1e-5, n, s, B)
    reports = np.clip(mean_s + signal + z / sqrt_counts, -B, B)
    old, new = np.random.default_rng(3), np.random.default_rng(3)
    want = count_ones(old, reports, prm)
    got = phased.clipped_report_counts(new, signal, mean_s, z, sqrt_counts, B, prm)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    assert old.random() == new.random()
    if n == 1000:  # the rounding bits are exercised: some but not all reports round up
        frac = (reports + prm.shift) * prm.g / prm.scale % 1.0
        assert (frac > 0.05).any() and (frac < 0.95).any()
