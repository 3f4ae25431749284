"""The accountant (privacy/accounting.py), where the epsilons of the privacy tables come from:
its domain checks and closed forms (Balle & Wang 2018 Thm. 8, Laplace pure DP, merging identical
Gaussians), component kinds compared by value, and a pmf pair composed ``count`` times
(docs/mutation.md).
"""

import math

import pytest
from scipy.stats import norm

from dpbandits.privacy import accounting as acc


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5])
def test_epsilon_functions_reject_delta_outside_open_unit_interval(delta):
    comp = [acc.Component("gaussian", 1.0, 1.0)]
    for call in (
        lambda: acc.gaussian_epsilon(1.0, 1.0, delta),
        lambda: acc.composed_epsilon(comp, delta),
        lambda: acc.zcdp_epsilon(0.1, delta),
        lambda: acc.pmf_pair_epsilon([0.5, 0.5], [0.4, 0.6], delta),
    ):
        with pytest.raises(ValueError, match="must be in \\(0, 1\\)"):
            call()


def test_laplace_allows_delta_zero_only_at_the_lower_end():
    # pure DP: epsilon = D / b exactly
    assert acc.laplace_epsilon(2.0, 1.0, 0.0) == 0.5
    for delta in (1.0, -1e-9):
        with pytest.raises(ValueError, match="must be in \\[0, 1\\)"):
            acc.laplace_epsilon(2.0, 1.0, delta)


@pytest.mark.parametrize("sigma,D", [(1.0, 1.0), (2.0, 0.5), (0.7, 3.0)])
def test_gaussian_delta_at_zero_epsilon_is_the_total_variation(sigma, D):
    # eps = 0: delta = Phi(D/2s) - Phi(-D/2s) = 2 Phi(D/2s) - 1 (total variation distance)
    want = 2.0 * norm.cdf(D / (2.0 * sigma)) - 1.0
    assert acc.gaussian_delta(0.0, sigma, D) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("eps,sigma,D", [(0.5, 2.0, 1.0), (1.0, 1.0, 1.0), (2.0, 0.8, 1.5)])
def test_gaussian_delta_is_balle_wang_thm_8_and_gaussian_epsilon_inverts_it(eps, sigma, D):
    a, b = D / (2 * sigma), eps * sigma / D
    want = norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)
    got = acc.gaussian_delta(eps, sigma, D)
    assert got == pytest.approx(want, rel=1e-10)
    # gaussian_epsilon inverts the profile (bisection tolerance 1e-12 on sigma/D; eps to 1e-6)
    assert acc.gaussian_epsilon(sigma, D, got) == pytest.approx(eps, abs=1e-6)


def test_identical_gaussians_merge_to_sqrt_count_sensitivity():
    # count k releases of sensitivity D at std s = one release of sensitivity sqrt(k) D
    got = acc.composed_epsilon([acc.Component("gaussian", 3.0, 1.0, count=4)], 1e-5)
    assert got == pytest.approx(acc.gaussian_epsilon(3.0, 2.0, 1e-5), rel=1e-12)


def test_zero_sensitivity_releases_cost_nothing():
    # A release that does not depend on the data (D = 0) costs epsilon 0, whatever its noise,
    # noiseless (scale 0) included.
    assert acc.gaussian_epsilon(1.0, 0.0, 1e-5) == 0.0
    assert acc.composed_epsilon([acc.Component("gaussian", 0.0, 0.0)], 1e-5) == 0.0
    assert acc.composed_epsilon([acc.Component("laplace", 0.0, 0.0, count=3)], 1e-5) == 0.0


@pytest.mark.parametrize("sigma", [0.0, -1.0, -0.5])
def test_gaussian_delta_without_noise_is_one(sigma):
    # sigma <= 0 is no noise: the mechanism is not private at any epsilon (delta = 1).
    assert acc.gaussian_delta(1.0, sigma, 1.0) == 1.0


@pytest.mark.parametrize("kind", ["zcdp", "Laplace", "gauss", "a"])
def test_composed_epsilon_rejects_unknown_kinds(kind):
    with pytest.raises(ValueError, match="unknown component kind"):
        acc.composed_epsilon([acc.Component(kind, 1.0, 1.0)], 1e-5)


def test_component_kind_is_compared_by_value():
    # A kind read at run time is equal to, not identical with, the literal.
    built = "".join(list("gaussian"))
    assert built is not "gaussian"  # noqa: F632
    got = acc.composed_epsilon([acc.Component(built, 2.0, 1.0)], 1e-5)
    assert got == acc.gaussian_epsilon(2.0, 1.0, 1e-5)


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_noiseless_laplace_is_not_private(delta):
    # scale b = 0 (no noise) with D > 0: epsilon = D / b = inf, at delta 0 and above.
    assert acc.laplace_epsilon(0.0, 1.0, delta) == math.inf
    assert acc.composed_epsilon([acc.Component("laplace", 0.0, 1.0)], 1e-5) == math.inf


@pytest.mark.parametrize("count", [1, 2, 3])
def test_pmf_pair_composes_count_times(count):
    # Randomised response with odds 3 (p = (3/4, 1/4), q = (1/4, 3/4)) is (ln 3, 0)-DP; k
    # independent releases are (k ln 3, delta)-DP and no better once delta is below the mass
    # 0.75^k of the worst outcome. Pessimistic PLD rounds each loss up by at most the grid
    # step 1e-4, so the result lies within k * 1e-4 above k ln 3 (allow 1e-3).
    got = acc.pmf_pair_epsilon([0.75, 0.25], [0.25, 0.75], 1e-9, count=count)
    assert got == pytest.approx(count * math.log(3.0), abs=1e-3)
