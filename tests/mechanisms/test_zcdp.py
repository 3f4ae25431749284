"""rho-zCDP: the Gaussian calibration and the (epsilon, delta) conversions (Bun & Steinke, as
op24 uses them), their domains (delta in (0, 1), sensitivity and rho > 0) and values by hand
(docs/mutation.md)."""

import math

import numpy as np
import pytest

from dpbandits.mechanisms.zcdp import dp_to_zcdp, gaussian_sigma, pure_dp_to_zcdp, zcdp_to_dp


@pytest.mark.parametrize("eps", [0.1, 1.0, 100.0])
def test_conversion_round_trip(eps):
    rho = dp_to_zcdp(eps, 0.01)
    assert zcdp_to_dp(rho, 0.01) == pytest.approx(eps, rel=1e-9)


def test_conversion_round_trip_values():
    assert dp_to_zcdp(1.0, 0.01) == pytest.approx(0.04909, abs=5e-6)
    # values rounded to 2 decimals: within half a unit of their last digit
    for rho, eps in ((0.01, 0.44), (0.1, 1.46), (1.0, 5.29)):
        assert zcdp_to_dp(rho, 0.01) == pytest.approx(eps, abs=5e-3)
    for eps, rho, unit in ((10.0, 2.81, 0.01), (100.0, 65.3, 0.1)):
        assert dp_to_zcdp(eps, 0.01) == pytest.approx(rho, abs=unit / 2)
    assert pure_dp_to_zcdp(2.0) == 2.0
    assert math.isinf(zcdp_to_dp(math.inf, 0.01)) and gaussian_sigma(2.0, math.inf) == 0.0


@pytest.mark.parametrize("rho", [0.01, 0.5, 3.0])
def test_gaussian_calibration_against_dp_accounting(rho):
    """sigma = Delta/sqrt(2 rho) has the Renyi curve rho*alpha (dp-accounting's Gaussian event
    converts exactly like the curve rho*alpha), and the classical conversion rho + 2 sqrt(rho
    ln(1/delta)) is an upper bound on dp-accounting's tighter one."""
    from dp_accounting import GaussianDpEvent
    from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant, compute_epsilon

    Delta, delta = 2.0, 1e-5
    sigma = gaussian_sigma(Delta, rho)
    orders = np.concatenate([np.linspace(1.01, 10, 400), np.linspace(10.5, 2000, 800)])
    acc = RdpAccountant(list(orders))
    acc.compose(GaussianDpEvent(noise_multiplier=sigma / Delta))
    eps_event = acc.get_epsilon(delta)
    eps_curve, _ = compute_epsilon(orders, rho * orders, delta)
    assert eps_event == pytest.approx(eps_curve, rel=1e-9)
    assert eps_event <= zcdp_to_dp(rho, delta)


def test_bad_parameters_are_refused():
    for call in (
        lambda: zcdp_to_dp(-1.0, 0.1),
        lambda: zcdp_to_dp(1.0, 1.0),
        lambda: dp_to_zcdp(0.0, 0.1),
        lambda: gaussian_sigma(0.0, 1.0),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize(
    "eps, rho_J, sigma_n, Upsilon, nu, unit",
    [
        (1.0, 0.0491, 36.1, 2231, 24.4, (1e-4, 0.1, 1, 0.1)),
        (10.0, 2.81, 4.77, 295, 8.85, (0.01, 0.01, 1, 0.01)),
        (100.0, 65.3, 0.99, 61.2, 4.03, (0.1, 0.01, 0.1, 0.01)),
    ],
)
def test_jdp_linucb_constants_at_t_2_15(eps, rho_J, sigma_n, Upsilon, nu, unit):
    """JDP-LinUCB ([R6], [R7] of docs/papers/op24.md) at T = 2^15, d = 5, delta = delta_c = 0.01
    (m = 16): sigma_n^2 = 4 m / rho(eps, delta), Upsilon and nu. The expected values are rounded,
    computed from
    rounded intermediates: each must agree within one unit of its last printed digit."""
    from dpbandits.mechanisms.tree import n_levels, sigma_zcdp_node
    from dpbandits.policies.confidence import ZCDPTreeRegularizer

    T, d = 2**15, 5
    m = n_levels(T)
    assert m == 16
    rho = dp_to_zcdp(eps, 0.01)
    assert rho == pytest.approx(rho_J, abs=unit[0])
    s = sigma_zcdp_node(rho, m)
    assert s**2 == pytest.approx(4 * m / rho, rel=1e-12)
    assert s == pytest.approx(sigma_n, abs=unit[1])
    reg = ZCDPTreeRegularizer(s, m, d, T, 0.01)
    assert reg.Upsilon == pytest.approx(Upsilon, abs=unit[2])
    assert reg.nu == pytest.approx(nu, abs=unit[3])
    assert reg.shift == 2 * reg.Upsilon and reg.eig_floor == reg.Upsilon / 2
    # the radius at t = 1 has no data term: sqrt(2 ln(2/delta_c)) + sqrt(3 Upsilon) + nu
    want = math.sqrt(2 * math.log(200)) + math.sqrt(3 * reg.Upsilon) + reg.nu
    assert float(reg.beta(1)) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("eps,rho", [(0.2, 0.02), (1.0, 0.5), (5.0, 12.5)])
def test_pure_dp_is_half_eps_squared_zcdp(eps, rho):
    """Bun-Steinke Prop. 1.4: epsilon-DP implies (epsilon^2/2)-zCDP, by hand at epsilon = 0.2, 1,
    5 (eps^2/2 = 0.02, 0.5, 12.5; at epsilon = 2 it coincides with epsilon itself)."""
    assert pure_dp_to_zcdp(eps) == pytest.approx(rho, rel=1e-12)


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
def test_gaussian_sigma_is_delta_over_sqrt_2_rho(Delta, rho, sigma):
    # sigma = Delta / sqrt(2 rho) (Bun-Steinke Prop. 1.6), by hand at 2 rho = 1, 4, 16 (exact)
    assert gaussian_sigma(Delta, rho) == sigma
