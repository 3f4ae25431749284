"""Confidence radii (policies/confidence.py) at hand-computed values: the theory calibrations'
regularizers and widths (cz22, Theorem 3.2 and Lemma 3.9; docs/papers/cz22.md), the
published script's width, LinUCB's radius and the zCDP tree's radius (docs/mutation.md).

Every number below was evaluated by hand from the formula in the docstring of
:mod:`dpbandits.policies.confidence` (R = 1/2, S = L = 1 unless a test says otherwise), not from
the library; the tests of the policies only check that these radii increase in t, which leaves
their constants free."""

import math

import numpy as np
import pytest

from dpbandits.policies.confidence import (
    SS18Regularizer,
    TheoryRegularizer,
    ZCDPTreeRegularizer,
    linucb_sqrt_beta,
    script_width,
)


@pytest.mark.parametrize(
    "sigma_tilde,t,lam,lam_min,lam_max,nu,beta",
    [
        # sigma~ = 0.01: Sigma_N = 0.01 (4 sqrt 3 + 2 ln 2000) = 0.2213001 < 1/2, so lambda = 1
        (0.01, 100, 1.0, 0.7786999185064032, 1.2213000814935968, 0.063811721904629,
         3.510728977282715),
        # sigma~ = 0.5: Sigma_N = 11.065004, lambda = 2 Sigma_N, lambda_min = Sigma_N
        (0.5, 100, 22.130008149359675, 11.065004074679837, 33.195012224039516,
         0.8464079691550246, 8.5291739673913),
        (0.5, 0, 22.130008149359675, 11.065004074679837, 33.195012224039516,
         0.8464079691550246, 8.235542879394043),
    ],
)  # fmt: skip
def test_theory_radius_of_lemma_a2_at_hand_computed_values(
    sigma_tilde, t, lam, lam_min, lam_max, nu, beta
):
    """d = 3, M = 10, alpha = 0.01: Sigma_N = sigma~ (4 sqrt d + 2 ln(2M/alpha)), Sigma_n =
    sigma~ (sqrt d + sqrt(2 ln(2M/alpha))), lambda = max(1, 2 Sigma_N), nu = Sigma_n/sqrt(
    lambda_min), beta = R sqrt(2 ln(2/alpha) + d ln(1 + t/(d lambda_min))) + sqrt(lambda_max) +
    nu."""
    reg = TheoryRegularizer(sigma_tilde, 3, 10, 0.01)
    assert reg.lam == pytest.approx(lam, rel=1e-12)
    assert reg.lam_min == pytest.approx(lam_min, rel=1e-12)
    assert reg.lam_max == pytest.approx(lam_max, rel=1e-12)
    assert reg.nu == pytest.approx(nu, rel=1e-12)
    assert float(reg.beta(t)) == pytest.approx(beta, rel=1e-12)


@pytest.mark.parametrize("t,beta", [(500, 12.93389024456622), (0, 12.765481227317771)])
def test_ss18_radius_at_hand_computed_values(t, beta):
    """sigma_n = 0.2, m = 10, d = 3, T = 1000, alpha = 1e-3: Upsilon = sigma_n sqrt(2m) (4 sqrt d
    + 2 ln(2T/alpha)) = 32.150649, gamma = sqrt(m) sigma_n (sqrt d + sqrt(2 ln(2T/alpha)))/
    sqrt(Upsilon) = 0.7940417, beta = R sqrt(2 ln(2/alpha) + d ln(3 + t/(d Upsilon))) +
    sqrt(3 Upsilon) + gamma (rho_min = Upsilon, rho_max = 3 Upsilon)."""
    reg = SS18Regularizer(0.2, 10, 3, 1000, 1e-3)
    assert reg.Upsilon == pytest.approx(32.15064932642669, rel=1e-12)
    assert reg.shift == pytest.approx(2 * 32.15064932642669, rel=1e-12)
    assert reg.gamma == pytest.approx(0.7940417191910992, rel=1e-12)
    assert float(reg.beta(t)) == pytest.approx(beta, rel=1e-12)


# The published script's widths (docs/papers/cz22.md; L = sqrt 2, n = 20000, at t = n): (d,
# Gamma, printed width, unit of its last digit) for ldp eps = 0.2, jdp_standin eps = 1 (d = 5,
# 10), sdp_amp d = 15 and non-private LinUCB (Gamma = 1), evaluated independently of the
# library from the script's formulas.
SCRIPT_WIDTHS = [
    (5, 2836.757, 123.067, 1e-3),
    (5, 71.2816, 23.384, 1e-3),
    (10, 100.8074, 38.053, 1e-3),
    (15, 305.318, 75.120, 1e-3),
    (5, 1.0, 7.2982, 1e-4),
]


@pytest.mark.parametrize("d,Gamma,width,unit", SCRIPT_WIDTHS)
def test_script_width_reproduces_the_published_scripts_values(d, Gamma, width, unit):
    # printed values: half a unit of the last digit, plus < 0.1 unit from Gamma's own rounding
    got = script_width(Gamma, d, 20000, math.sqrt(2.0), 20000)
    assert float(got) == pytest.approx(width, abs=0.6 * unit)


def test_script_width_at_t0_and_its_t_dependence():
    """t = 0: sqrt(Gamma) sqrt(d) + R sqrt(d ln(1/alpha)) = 2 * 3 + 0.5 sqrt(9 ln 100) = 6 + 1.5 *
    2.145966 = 9.218949 (Gamma = 4, d = 9, n = 100). With L = 2 and t = e - 1, t L^2/Gamma =
    e - 1, so the log's argument is e n and the width 6 + 0.5 sqrt(9 (1 + ln 100)) = 6 + 1.5 *
    2.367524 = 9.551286."""
    assert float(script_width(4.0, 9, 100, 1.0, 0)) == pytest.approx(9.218949039, rel=1e-9)
    got = float(script_width(4.0, 9, 100, 2.0, math.e - 1.0))
    assert got == pytest.approx(6.0 + 1.5 * math.sqrt(1.0 + math.log(100.0)), rel=1e-12)
    assert got == pytest.approx(9.5512861, rel=1e-7)
    # increasing in t (more data, a wider self-normalised bound)
    w = script_width(4.0, 9, 100, 1.0, np.array([0.0, 10.0, 100.0]))
    assert np.all(np.diff(w) > 0)


def test_linucb_radius_at_round_one_has_no_data_term():
    """t = 1 (1-based): sqrt(2 ln(1/0.01)) + sqrt(1) * 1 = sqrt(9.210340) + 1 = 4.034854."""
    assert float(linucb_sqrt_beta(1, 3)) == pytest.approx(4.034854259, rel=1e-9)
    assert float(linucb_sqrt_beta(1, 7)) == pytest.approx(4.034854259, rel=1e-9)


@pytest.mark.parametrize("k,want", [(1, 7.403568486), (2, 7.983157302)])
def test_linucb_radius_where_the_log_is_an_integer(k, want):
    """t - 1 = d lambda (e^k - 1) makes d ln(1 + (t-1)/(d lambda)) = k d. d = 4, lambda = 2,
    S = 3, delta_c = 0.05 (2 ln 20 = 5.991465): k = 1: sqrt(9.991465) + 3 sqrt 2 = 3.160928 +
    4.242641; k = 2: sqrt(13.991465) + 4.242641 = 3.740517 + 4.242641."""
    t = 1.0 + 4 * 2.0 * (math.e**k - 1.0)
    got = float(linucb_sqrt_beta(t, 4, lam=2.0, delta_c=0.05, S=3.0))
    assert got == pytest.approx(want, rel=1e-9)


def test_zcdp_tree_radius_with_data_at_hand_computed_values():
    """sigma_n = 1, m = 4 (s_eff = 2), d = 3, T = 1, delta_c = 4 e^-4, so ln(4T/delta_c) = 4:
    Upsilon = 2 (3 sqrt 4 + 2 sqrt 4) = 20, nu = 2 (sqrt 3 + sqrt 8)/sqrt 20 = 2.0395077; at
    t - 1 = d Upsilon (e - 1) = 60 (e - 1) the log term is d = 3, and ln(2/delta_c) = 4 - ln 2:
    beta = sqrt(2 (4 - ln 2) + 3) + S sqrt(3 * 20) + nu = 3.1233 + 2 * 7.7460 + 2.0395
    (S = 2) = 20.632039."""
    reg = ZCDPTreeRegularizer(1.0, 4, 3, 1, 4.0 * math.exp(-4.0))
    assert reg.Upsilon == pytest.approx(20.0, rel=1e-12)
    assert reg.nu == pytest.approx(2.0395077333, rel=1e-9)
    t = 1.0 + 60.0 * (math.e - 1.0)
    assert float(reg.beta(t, S=2.0)) == pytest.approx(20.632038744, rel=1e-9)
