"""Tests that kill mutants left alive in audit/verdicts.py (docs/mutation.md).

The regime, the power (detectable excess) and the gates decide the verdict users read for every
rate claim; each test pins one boundary or one formula against the math in the docstrings.
"""

import math

import numpy as np
import pytest

from dpbandits.audit import verdicts as vocab

Z80 = 0.8416212335729143  # standard normal quantile at 0.8 (= -q_0.2)


def test_log_mean_sd_uses_unbiased_sd():
    # Y = (1, 2, 3): mean 2, sample sd (ddof=1) exactly 1, so sd/(sqrt(n) mean) = 1/(2 sqrt 3).
    got = vocab.log_mean_sd(np.array([[1.0], [2.0], [3.0]]))
    assert got[0] == pytest.approx(1.0 / (2.0 * math.sqrt(3.0)), rel=1e-12)


@pytest.mark.parametrize("sd", [0.05, 0.1, 0.3])
def test_detectable_excess_matches_normal_quantile(sd):
    # Levels 1, e, e^2: ln levels 0, 1, 2, centred sum of squares S = 2, so the OLS slope error
    # is N(0, sd^2 / S) and the detectable excess is tol + hw + z_0.8 sd / sqrt(S). The
    # Monte Carlo quantile of 4000 draws has SE sqrt(0.8*0.2/4000)/phi(z_0.8) = 0.0226 sigma;
    # allow 5 SE. Without centring, S would be 5 (sigma 37 % smaller, ~16 SE away).
    levels = np.exp([0.0, 1.0, 2.0])
    sigma = sd / math.sqrt(2.0)
    got = vocab.detectable_excess(levels, np.full(3, sd), half_width=0.1, tol=0.05)
    assert got == pytest.approx(0.05 + 0.1 + Z80 * sigma, abs=5 * 0.0226 * sigma)


def test_detectable_excess_does_not_depend_on_level_units():
    # A slope in ln levels is unchanged by rescaling the levels (horizons in thousands, say).
    levels = np.array([2500.0, 5000.0, 10000.0, 20000.0, 40000.0])
    sd = np.full(5, 0.1)
    a = vocab.detectable_excess(levels, sd, half_width=0.05, tol=0.05, seed=3)
    b = vocab.detectable_excess(levels / 1000.0, sd, half_width=0.05, tol=0.05, seed=3)
    assert b == pytest.approx(a, rel=1e-9)


def test_regime_single_level_has_no_trend():
    # One level: the pre-asymptotic trend (share at the last level >= share at the first) needs
    # two levels to mean anything; one unsaturated level is learning.
    assert vocab.regime([1.0], [10.0])[0] == "learning"
    assert vocab.regime([1.0, 1.0], [10.0, 10.0])[0] == "pre-asymptotic"


def test_gate_detectable_equal_to_max_is_consistent():
    # The docstring's condition is detectable <= max_detectable, boundary included.
    assert vocab.gate("consistent", "learning", 0.2, 0.2) == ("consistent", "")
    assert vocab.gate("consistent", "learning", 0.2000001, 0.2)[0] == "inconclusive"


@pytest.mark.parametrize("verdict", ["exceeds", "below", "inconclusive", "untestable"])
def test_gate_power_applies_only_to_consistent(verdict):
    # Violations and other verdicts stand outside saturation, whatever the power.
    assert vocab.gate(verdict, "learning", math.inf, 0.2) == (verdict, "")


def test_plain_reason_finite_interval():
    got = vocab.plain_reason("consistent", 0.5, 0.4, 0.6, 0.5, 0.05)
    assert got.startswith("fitted 0.500 [0.400, 0.600] against claimed 0.500")
    assert got.endswith("interval within the claim")
    assert vocab.plain_reason("exceeds", 0.5, 0.4, math.inf, 0.5, 0.05).startswith("no interval")


def test_log_mean_sd_small_positive_means():
    # Means below 1 are positive: Y = (0.1, 0.2, 0.3) has mean 0.2 and sd 0.1.
    got = vocab.log_mean_sd(np.array([[0.1], [0.2], [0.3]]))
    assert got[0] == pytest.approx(0.1 / (math.sqrt(3.0) * 0.2), rel=1e-12)
    assert vocab.log_mean_sd(np.array([[0.0], [0.0]]))[0] == math.inf


@pytest.mark.parametrize("means,caps", [([1.0, 2.0, 3.0], [10.0, 10.0]), ([1.0], [2.0, 3.0])])
def test_regime_needs_one_cap_per_level(means, caps):
    with pytest.raises(ValueError, match="one positive cap per level"):
        vocab.regime(means, caps)


def test_regime_reasons_quote_first_and_last_share():
    # shares 0.1, 0.2, 0.3 (rising: pre-asymptotic) and 0.3, 0.2, 0.1 (falling: learning)
    name, why = vocab.regime([1.0, 2.0, 3.0], [10.0, 10.0, 10.0])
    assert name == "pre-asymptotic" and "(0.10 -> 0.30)" in why
    name, why = vocab.regime([3.0, 2.0, 1.0], [10.0, 10.0, 10.0])
    assert name == "learning" and "regret is 0.30 -> 0.10 of the cap" in why


def test_plain_reason_without_claim():
    got = vocab.plain_reason("inconclusive", 0.5, 0.4, 0.6, None, 0.05)
    assert "against claimed n/a" in got and got.endswith("straddles the claim's edge")
