"""Tests that kill mutants left alive in mechanisms/svt.py (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.mechanisms.svt import sparse_vector_select, svt_cap


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
def test_integer_cap_stops_at_the_cap(s0, s_bar, size):
    # the loop stops once s0 + sqrt(s_bar) coordinates have passed: exactly that many when the cap
    # is an integer and everything passes (threshold -inf), the smallest indices first [R14]
    cap = svt_cap(s0, s_bar)
    assert cap == size
    S1 = sparse_vector_select(np.ones(10), np.arange(10)[::-1], -math.inf, 0.0, cap, None)
    assert S1.tolist() == list(range(size))
