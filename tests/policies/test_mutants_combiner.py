"""Tests that kill mutants left alive in policies/combiner.py (docs/mutation.md).

Theorem 4.1's constants are checked at T = 256 = 2^8, d = 4, epsilon = 1 and
P = 1/ln(T)^(3/2), where they are exact: T^(1/8) = 2, sqrt(d T) = 32, P ln(T)^(3/2) = 1, so
M = 1 + ceil(8/8) = 2 bases, lambda_2 = 2^1/T^(1/8) = 1, and (paper 000, Theorem 4.1)
eta_1 = et/(sqrt(dT)(P log32 et + 1)) = 2/(32 * 3) = 1/48 (et = eps T^(1/8) = 2),
C_1 = P log32 sqrt(d)(et + 1)/et = 2 * 3/2 = 3, eta_2 = eps/(P log32 sqrt(dT)) = 1/32,
C_2 = P log32 sqrt(d)/(eps lambda_2) = 2.
"""

import math

import numpy as np
import pytest

from dpbandits.policies import Setting, make_policy
from dpbandits.policies.combiner import kappa, stacked_tables

T = 256


def _combiner(**options):
    setting = Setting(T=T, d=4, epsilon=1.0, delta=0.1)
    return make_policy("combiner", setting, P_const=1 / math.log(T) ** 1.5, **options)


def test_theorem_4_1_eta_and_C_at_an_exact_point():
    policy = _combiner()
    assert policy.n_bases == 2
    assert policy.eta == pytest.approx([1 / 48, 1 / 32], rel=1e-12)
    assert policy.C == pytest.approx([3.0, 2.0], rel=1e-12)
    assert policy.alpha.tolist() == [0.75, 0.5]


def test_target_regret_of_base_1_by_hand():
    """R_1 = C_1 T^a + kappa(a) C_1^(1/a) T eta_1^((1-a)/a) + 288 ln(T^3 M/beta) T eta_1
    + 1/eta_2 at a = 3/4 (the exponent of eta_1 is 1/3, unlike base 2's 1):
    3 * 64 + kappa(3/4) 3^(4/3) 256 (1/48)^(1/3) + 288 ln(256^3 * 2/0.1) 256/48 + 32.
    Also the theorem's R_1/T reported in the constants, under a target cap that changes R."""
    want = (
        3 * 64
        + kappa(0.75) * 3 ** (4 / 3) * 256 * (1 / 48) ** (1 / 3)
        + 288 * math.log(256**3 * 2 / 0.1) * 256 / 48
        + 32
    )
    policy = _combiner(target_cap=1.0)
    assert policy.R_paper[0] == pytest.approx(want, rel=1e-12)
    assert policy.R[0] == pytest.approx(T, rel=1e-12)  # min(R_1, 1 * T)
    assert policy.consts["R_1/T_thm"] == pytest.approx(want / T, rel=1e-12)
    assert policy.consts["R_1/T"] == pytest.approx(1.0, rel=1e-12)


def test_index_bonus_is_capped_at_one():
    """U_i = mean + min{1, (C_i n^a + w(n))/n} - R_i/T: after one play the bonus C_i + w(1)
    exceeds 1 (w(1) = 65.8 here), so the index is mean + 1 - R_i/T."""
    policy = _combiner()
    assert policy.C[1] + float(policy.width(1)) > 2
    for i in range(policy.n_bases):
        want = 0.3 + 1.0 - policy.R[i] / T
        assert policy.index(i, 1, 0.3) == pytest.approx(want, rel=1e-12)


def test_elimination_threshold_is_C_n_alpha_plus_width():
    """Step 5 eliminates when deviation >= C_i n^a_i + w(n): base 2 after n = 4 plays has
    C_2 n^(1/2) = 2 * 2 = 4, so the threshold is 4 + w(4); it fires at the threshold, not just
    below it, and not at 4 (where 4 - w(4) < 0 would)."""
    policy = _combiner()
    threshold = 4.0 + float(policy.width(4))
    assert policy.eliminates(1, 4, threshold)
    assert not policy.eliminates(1, 4, threshold * (1 - 1e-12))
    assert not policy.eliminates(1, 4, 4.0)


def test_base_tables_carry_mu_hat():
    """mu_hat = 2 (lambda_min + Delta^2): base 2 of the combiner has lambda_2 = 1 and Delta^2 = 0,
    so 2 at every play; plain OnlineUCB at T = 20000 (lambda_min = 0.125, Delta^2 = 0) 0.25."""
    policy = _combiner()
    assert np.all(policy.tab_mu_hat[1] == 2.0)
    plain = make_policy("onlineucb", Setting(T=20000, d=5, epsilon=1.0, delta=0.1))
    tab = stacked_tables(plain)["mu_hat"]
    assert tab.shape == (1, 20000)
    assert np.allclose(tab, 0.25, rtol=1e-15, atol=0)
