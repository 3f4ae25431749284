"""Lemma B.4 (FMT20) and Thm. 3.2's construction (CZ22 Sec. 3.2, App. B): the lemma's condition
and its value at B = 20, and the largest epsilon the construction can certify; the lemma's
delta~ and epsilon~ in closed form at points computed by hand, its condition at equality, and the
construction's local delta / B (docs/mutation.md)."""

import math

import pytest

from dpbandits.mechanisms import amplification as amp


def test_u20_lemma_b4_at_b_20():
    assert amp.fmt20_condition_rhs(20, 0.05) == pytest.approx(-1.0822, abs=1e-4)
    assert amp.fmt20_epsilon(0.5168, 20, 0.05) == pytest.approx(0.8735, abs=1e-4)
    assert not amp.fmt20_condition_holds(0.01, 20, 0.05)  # no epsilon_0 > 0 is admissible
    assert amp.thm32_max_certifiable_epsilon(0.1) == pytest.approx(0.16576, abs=1e-5)


def test_theorem_3_2_budget_and_range_at_b_20():
    assert amp.thm32_epsilon_range(0.1, 20) == pytest.approx(0.38702, abs=1e-5)
    for eps, eps0 in [(0.2, 0.5168), (1.0, 2.5838), (10.0, 25.838)]:
        assert amp.thm32_local_budget(eps, 0.1, 20)[0] == pytest.approx(eps0, rel=1e-4)
    # the lemma's epsilon~ when its condition (which fails at B = 20) is ignored
    assert amp.fmt20_epsilon(2.5838, 20, 0.05) == pytest.approx(2.849, abs=1e-3)
    assert amp.fmt20_epsilon(25.838, 20, 0.05) == pytest.approx(24.92, abs=1e-2)


def test_lemma_b4_holds_with_enough_users():
    # at delta' = 0.05 the condition needs n > 16 ln(40) = 59.02 before any epsilon_0 > 0
    assert amp.fmt20_condition_rhs(59, 0.05) < 0 < amp.fmt20_condition_rhs(60, 0.05)
    assert amp.fmt20_condition_holds(0.5, 200, 0.05)
    assert amp.fmt20_epsilon(0.5, 10_000, 0.05) < 0.5  # amplification: below the local epsilon


@pytest.mark.parametrize(
    "eps_tilde,eps0,want",
    [
        # (e^eps~ + 1)(1 + e^-eps0 / 2) = 2 * 3/2 = 3 at eps~ = eps0 = 0 (exact)
        (0.0, 0.0, 0.01 + 3 * 10 * 1e-3),
        # = (3 + 1)(1 + 1/4) = 5 at eps~ = ln 3, eps0 = ln 2
        (math.log(3.0), math.log(2.0), 0.01 + 5 * 10 * 1e-3),
    ],
)
def test_fmt20_delta_is_delta_prime_plus_the_local_deltas_term(eps_tilde, eps0, want):
    # Lemma B.4 of cz22: delta~ = delta' + (e^eps~ + 1)(1 + e^-eps0 / 2) n delta0, at n = 10,
    # delta' = 0.01, delta0 = 1e-3; exp(ln x) and the sums round, so rel 1e-12
    assert amp.fmt20_delta(eps_tilde, eps0, 10, 0.01, 1e-3) == pytest.approx(want, rel=1e-12)


def test_fmt20_delta_is_delta_prime_without_local_delta():
    # a pure (delta0 = 0) local randomizer adds nothing to delta'; delta~ grows linearly in n delta0
    assert amp.fmt20_delta(1.3, 0.7, 50, 0.02, 0.0) == 0.02
    one = amp.fmt20_delta(1.3, 0.7, 50, 0.0, 1e-4)
    assert amp.fmt20_delta(1.3, 0.7, 100, 0.0, 1e-4) == pytest.approx(2 * one, rel=1e-14)
    assert amp.fmt20_delta(1.3, 0.7, 50, 0.0, 3e-4) == pytest.approx(3 * one, rel=1e-14)


def test_fmt20_epsilon_by_hand_and_zero_for_a_zero_ldp_randomizer():
    # eps0 = ln 3, delta' = 4/e (ln(4/delta') = 1), n = 3: (3-1)/(3+1) (8 sqrt(3)/sqrt(3) + 8*3/3)
    # = 8, so eps~ = ln 9; a 0-LDP randomizer stays 0-DP (factor e^0 - 1 = 0)
    assert amp.fmt20_epsilon(math.log(3.0), 3, 4.0 / math.e) == pytest.approx(
        math.log(9.0), rel=1e-12
    )
    assert amp.fmt20_epsilon(0.0, 3, 0.05) == 0.0


def test_fmt20_condition_holds_at_equality():
    # Lemma B.4's condition is epsilon_0 <= ln(n / (16 ln(2/delta'))): it holds at equality
    for n, dp in ((200, 0.05), (10_000, 1e-6)):
        rhs = amp.fmt20_condition_rhs(n, dp)
        assert amp.fmt20_condition_holds(rhs, n, dp)
        assert not amp.fmt20_condition_holds(math.nextafter(rhs, math.inf), n, dp)


def test_thm32_local_delta_is_delta_over_b():
    # Thm. 3.2's construction: each user's randomizer is (epsilon_0, delta / B)-LDP
    assert amp.thm32_local_budget(1.0, 0.1, 20)[1] == pytest.approx(0.005, rel=1e-15)
    assert amp.thm32_local_budget(1.0, 0.3, 3)[1] == pytest.approx(0.1, rel=1e-15)
