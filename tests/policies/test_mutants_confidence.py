"""Tests that kill mutants left alive in policies/confidence.py (docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.policies.confidence import ZCDPTreeRegularizer, linucb_sqrt_beta, script_width

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


def test_zcdp_tree_radius_with_data():
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
