"""The analytic communication audit of DP-DPE (Theorem 5.1's reals, Theorem 5.5's bits;
docs/papers/dpdpe.md)."""

import math

import numpy as np
import pytest

from dpbandits.g_optimal import support_cap
from dpbandits.mechanisms.shuffle_sum import vector_params
from dpbandits.papers.dpdpe.communication import (
    analytic_costs,
    communication_audit,
    phase_schedule,
)
from dpbandits.policies import Setting, make_policy
from dpbandits.regret_stats import loglog_slope

S = math.floor(support_cap(20))  # 103


def test_phase_schedule_fills_the_horizon_with_completed_phases():
    for alpha in (0.5, 0.8):
        for T in (2**12, 2**20, 10**6):
            phases = phase_schedule(alpha, T, 20)
            lengths = [length for _, length, _ in phases]
            assert [h for h, _, _ in phases] == list(range(1, len(phases) + 1))
            # T_l = ceil(h_l) + S with h_l = 2^l, and the next phase would not complete
            assert lengths == [2**l + S for l in range(1, len(phases) + 1)]
            assert sum(lengths) <= T < sum(lengths) + 2 ** (len(phases) + 1) + S


def test_clients_per_phase_are_the_policys():
    """The analytic model's n_l is Algorithm 1's ceil(2^{alpha l}) as the policy computes it."""
    setting = Setting(T=10**6, d=20, epsilon=10.0, delta=0.25, K=1000)
    for alpha in (0.5, 2 / 3, 0.8):
        policy = make_policy("dpe", setting, alpha=alpha)
        for l, _, n in phase_schedule(alpha, 2**30, 20):
            assert n == policy.clients(l)


def test_costs_are_the_sums_over_completed_phases():
    costs = analytic_costs(0.8, range(16, 17), 20, 10.0, 0.25)
    phases = phase_schedule(0.8, 2**16, 20)
    reals = sum(S * n for _, _, n in phases)
    bits = 0
    for _, _, n in phases:
        prm = vector_params(10.0, 0.25, n, S, math.sqrt(S))
        bits += n * prm.bits_per_client
    row = costs.iloc[0]
    assert row["phases"] == len(phases) and row["reals"] == reals and row["bits"] == bits


def test_exponents_of_the_analytic_costs():
    """reals: sum_l S ceil(2^{alpha l}) over L ~ log2 T phases grows like T^alpha exactly in the
    limit; bits: on g's sqrt(n) branch each client sends ~ sqrt(n) bits per coordinate, so the
    exponent tends to 3 alpha/2; before the switch (alpha = 1/2 never reaches it by 2^40) the
    per-phase constant 180 g^2 ln(4s/delta)/eps_hat^2 of n b dominates and the bits grow far
    slower than T^alpha."""
    costs, summary = communication_audit(["1/2", "2/3", "4/5"], (10, 40), 20, 10.0, 0.25)
    fit = summary.set_index(["alpha", "unit"])["fitted_exponent"]
    for text, alpha in (("1/2", 0.5), ("2/3", 2 / 3), ("4/5", 0.8)):
        assert fit[(text, "reals")] == pytest.approx(alpha, abs=1e-3)
    assert fit[("4/5", "bits")] == pytest.approx(1.2, abs=0.02)
    assert fit[("1/2", "bits")] < 0.5
    assert (summary["verdict"] == "consistent").all()
    switch = summary.set_index(["alpha", "unit"])["g_sqrt_branch_from_T"]
    assert switch[("1/2", "bits")] == "not by 2^40" and switch[("4/5", "bits")] == "2^27"
    # the local slope of the bits climbs once g switches branch (alpha = 4/5)
    a = costs[costs["alpha_text"] == "4/5"].set_index("m")["slope_bits"]
    assert a[24] < 0.8 < a[32] and a[40] > a[32]


def test_the_decade_fit_recovers_a_power_law():
    T = 2.0 ** np.arange(30, 41)
    assert loglog_slope(T, 3.0 * T**0.7) == pytest.approx(0.7, abs=1e-12)


def test_bad_communication_settings_are_refused(global_config):
    from dpbandits.config import ConfigError, expand_experiment, load_yaml

    from ...conftest import ROOT

    data = load_yaml(ROOT / "config/experiments/dpdpe.yaml")
    data["communication"]["alphas"] = ["1/2", "3/2"]
    with pytest.raises(ConfigError, match=r"communication.alphas: '3/2' is not in \(0, 1\)"):
        expand_experiment(data, global_config, "dpdpe.yaml")
    data = load_yaml(ROOT / "config/experiments/dpdpe.yaml")
    data["communication"]["log2_T"] = [10, 12]
    with pytest.raises(ConfigError, match=r"log2_T = \[10, 12\]: the last m must exceed"):
        expand_experiment(data, global_config, "dpdpe.yaml")
