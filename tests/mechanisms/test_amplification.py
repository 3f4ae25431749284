"""Lemma B.4 (FMT20) and Thm. 3.2's construction (CZ22 Sec. 3.2, App. B): the lemma's condition
and its value at B = 20, and the largest epsilon the construction can certify."""

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
