"""Tests that kill mutants left alive in mechanisms/zcdp.py (docs/mutation.md)."""

import math

import pytest

from dpbandits.mechanisms.zcdp import dp_to_zcdp, gaussian_sigma, zcdp_to_dp


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, 2.0, -0.5])
def test_delta_outside_the_open_unit_interval_is_refused(delta):
    # Prop. 1.3 holds for delta in (0, 1) only (ln(1/delta) > 0); both conversions say so, rather
    # than dividing by zero (delta = 0) or failing in sqrt of a negative log (delta > 1)
    for call in (lambda: zcdp_to_dp(0.5, delta), lambda: dp_to_zcdp(1.0, delta)):
        with pytest.raises(ValueError, match=r"must be in \(0, 1\)"):
            call()


def test_rho_zero_is_epsilon_zero():
    # 0-zCDP (no information) is (0, delta)-DP at every delta: rho + 2 sqrt(rho ln(1/delta)) = 0
    assert zcdp_to_dp(0.0, 1e-6) == 0.0


@pytest.mark.parametrize("sensitivity,rho", [(-1.0, 0.5), (-2.0, math.inf), (1.0, -0.5)])
def test_gaussian_sigma_refuses_negative_sensitivity_or_rho(sensitivity, rho):
    # an L2 sensitivity is a norm bound (>= 0, and 0 is refused as degenerate); rho > 0
    with pytest.raises(ValueError, match="need sensitivity > 0 and rho > 0"):
        gaussian_sigma(sensitivity, rho)


@pytest.mark.parametrize("Delta,rho,sigma", [(1.0, 0.5, 1.0), (3.0, 2.0, 1.5), (2.0, 8.0, 0.5)])
def test_gaussian_sigma_values(Delta, rho, sigma):
    # sigma = Delta / sqrt(2 rho) (Bun-Steinke Prop. 1.6), by hand at 2 rho = 1, 4, 16 (exact)
    assert gaussian_sigma(Delta, rho) == sigma
