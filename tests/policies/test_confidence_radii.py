"""Confidence radii of the theory calibrations at hand-computed values (paper 003: the
regularizers and widths of Theorem 3.2 and Lemma 3.9; docs/papers/cz22.md).

Every number below was evaluated by hand from the formula in the docstring of
:mod:`dpbandits.policies.confidence` (R = 1/2, S = L = 1), not from the library; the tests of the
policies only check that these radii increase in t, which leaves their constants free."""

import pytest

from dpbandits.policies.confidence import SS18Regularizer, TheoryRegularizer


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
