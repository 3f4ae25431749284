"""``sparse_vector_counts``: many runs of PrivateLASSO's sparse vector step at once, as the
privacy audit samples it, must be the runs of ``sparse_vector_select`` one after another.

``sparse_vector_select``'s rule (docs/mutation.md): a coordinate passes strictly above the
threshold, the noise-free limit compares ``|theta|`` with it exactly, and an integer cap stops the
loop after that many passes, the smallest indices first.
"""

import math

import numpy as np
import pytest

from dpbandits.mechanisms.svt import sparse_vector_counts, sparse_vector_select, svt_cap


@pytest.mark.parametrize(
    "S0,cap,xi",
    [
        ([0], 5.5, 0.3),  # one query (the audit's case): drawn at once
        ([4, 1, 2], 3.0, 0.2),  # |S0| = cap: no run stops early, drawn at once
        ([0, 1, 2, 3, 4], 2.0, 0.2),  # runs stop early: one call per run
        ([0, 1, 2], math.inf, 0.0),  # the noise-free limit: no draws
        ([], 1.0, 0.4),  # empty screen: no draws
    ],
)
def test_counts_are_the_runs_one_after_another(S0, cap, xi):
    theta = np.array([0.45, -0.5, 0.55, 0.2, -0.62])
    one, many = np.random.default_rng(3), np.random.default_rng(3)
    S0 = np.array(S0, dtype=np.int64)
    alone = [sparse_vector_select(theta, S0, 0.5, xi, cap, one).size for _ in range(400)]
    counts = sparse_vector_counts(theta, S0, 0.5, xi, cap, many, 400)
    assert counts.tolist() == alone
    assert one.bit_generator.state == many.bit_generator.state
    if xi > 0 and S0.size:
        assert 0 < counts.mean() < min(S0.size, cap)  # the noise decides: both outcomes occur


def test_pass_rule_is_strict():
    # Algorithm 2 / [R15]: i passes if |theta_i| + nu_i > threshold + zeta_i; without noise
    # (xi = 0) a coordinate exactly at the threshold does not pass, also for a negative theta
    theta = np.array([0.5, 0.6, -0.5, -0.7, 0.4])
    S1 = sparse_vector_select(theta, np.arange(5), 0.5, 0.0, math.inf, np.random.default_rng(0))
    assert S1.tolist() == [1, 3]


def test_noise_free_limit_compares_theta_with_the_threshold_exactly():
    # xi = 0 means zeta = nu = 0: S1 = {i : |theta_i| > threshold}, also at a tiny threshold
    theta = np.array([2e-18, 5e-19, -3e-18, 0.0])
    S1 = sparse_vector_select(theta, np.arange(4), 1e-18, 0.0, math.inf, np.random.default_rng(0))
    assert S1.tolist() == [0, 2]


@pytest.mark.parametrize("s0,s_bar,size", [(3, 0.0, 3), (1, 4.0, 3), (2, 9.0, 5)])
def test_an_integer_cap_stops_at_the_cap_smallest_indices_first(s0, s_bar, size):
    # the loop stops once s0 + sqrt(s_bar) coordinates have passed: exactly that many when the cap
    # is an integer and everything passes (threshold -inf), the smallest indices first [R14]
    cap = svt_cap(s0, s_bar)
    assert cap == size
    S1 = sparse_vector_select(np.ones(10), np.arange(10)[::-1], -math.inf, 0.0, cap, None)
    assert S1.tolist() == list(range(size))
