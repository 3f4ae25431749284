"""Paired ordering statistics (docs/mutation.md): the paired difference, the delta-method ratio and
the one-sample mean with their intervals and verdict boundaries, the quantiles, the input checks,
the worst verdict and the curve-level comparison.

Samples are chosen so that the statistics are hand-computable: two values ``m -/+ 1`` have
``sd(ddof=1) = sqrt(2)`` and ``SE = sqrt(2)/sqrt(2) = 1`` exactly in floating point, so with
``z = 2`` the interval is ``m -/+ 2`` exactly and the verdict boundaries can be hit exactly.
"""

import math

import numpy as np
import pytest

from dpbandits.audit.ordering import (
    Z95,
    curve_below,
    curve_checkpoints,
    mean_at_least,
    paired_below,
    quantile,
    ratio_within,
    worst,
)


def test_paired_below_has_the_mean_difference_and_its_standard_error_interval():
    # D = a - b = (-1, -2, -3): mean -2, sd 1, SE 1/sqrt(3)
    s = paired_below([1.0, 2.0, 6.0], [2.0, 4.0, 9.0])
    assert s.n == 3 and s.mean == pytest.approx(-2.0, rel=1e-15)
    assert s.se == pytest.approx(1 / math.sqrt(3), rel=1e-14)
    assert s.ci_low == pytest.approx(-2.0 - 1.96 / math.sqrt(3), rel=1e-14)
    assert s.ci_high == pytest.approx(-2.0 + 1.96 / math.sqrt(3), rel=1e-14)
    assert s.verdict == "PASS"


@pytest.mark.parametrize(
    "d,z,want",
    [
        ([-1.0, -3.0], 1.5, "PASS"),  # interval -2 +/- 1.5
        ([-1.0, -3.0], 2.0, "WEAK"),  # upper end exactly 0: not below 0
        ([-1.0, 1.0], 1.0, "WEAK"),  # mean exactly 0: interval contains 0
        ([1.0, 3.0], 2.0, "WEAK"),  # lower end exactly 0: not above 0
        ([1.0, 3.0], 1.0, "FAIL"),  # whole interval above 0
        ([1.0, 3.0], 1.5, "FAIL"),
    ],
)
def test_paired_below_decides_only_with_the_whole_interval_strictly_on_one_side(d, z, want):
    s = paired_below(np.array(d), np.zeros(2), z)
    assert s.se == 1.0
    assert s.verdict == want


@pytest.mark.parametrize(
    "a,b",
    [
        (np.ones(3), np.ones(1)),  # would broadcast: still not paired
        (np.ones(1), np.ones(3)),
        (np.ones(3), np.ones(2)),
        (np.ones((2, 2)), np.ones((2, 2))),
        (np.ones(1), np.ones(1)),
    ],
)
@pytest.mark.parametrize("fn", [paired_below, lambda a, b: ratio_within(a, b, 0.0, 2.0)])
def test_paired_tests_need_two_paired_1d_samples(fn, a, b):
    with pytest.raises(ValueError, match="need two paired 1-d samples"):
        fn(a, b)


@pytest.mark.parametrize(
    "n,t",
    # Student t 97.5 % quantiles, table values (df = n - 1 = 1, 9, 30)
    [(2, 12.706), (10, 2.262), (31, 2.042)],
)
def test_t_quantile_has_n_minus_one_degrees_of_freedom(n, t):
    assert quantile(n, "t") == pytest.approx(t, abs=5e-4)
    assert quantile(n, "z") == Z95 == 1.96


@pytest.mark.parametrize("interval", ["zz", "normal", "", "T", "u", "a"])
def test_an_unknown_interval_kind_is_refused(interval):
    with pytest.raises(ValueError, match="interval must be"):
        quantile(10, interval)


def test_ratio_within_has_the_delta_method_standard_error():
    # mean a = 5, mean b = 2, r = 5/2; a - r b = (0.5, -1, 0.5): sd(ddof=1) = sqrt(0.75),
    # SE = sqrt(0.75) / (sqrt(3) * 2) = 1/4
    s = ratio_within([3.0, 4.0, 8.0], [1.0, 2.0, 3.0], 2.0, 3.0)
    assert s.n == 3 and s.mean == 2.5
    assert s.se == pytest.approx(0.25, rel=1e-14)
    assert s.ci_low == pytest.approx(2.5 - 1.96 * 0.25, rel=1e-14)
    assert s.ci_high == pytest.approx(2.5 + 1.96 * 0.25, rel=1e-14)
    assert s.verdict == "PASS"


def test_ratio_within_with_a_constant_denominator_is_the_interval_of_a_mean():
    # b_i = 2: mean(a)/2 with SE = SE(mean a)/2 = sd(a)/(2 sqrt(n)); a = (1, 3, 5, 7)
    a = np.array([1.0, 3.0, 5.0, 7.0])
    s = ratio_within(a, np.full(4, 2.0), 0.0, 10.0, z=1.0)
    assert s.mean == 2.0
    assert s.se == pytest.approx(math.sqrt(20 / 3) / 2 / 2, rel=1e-14)


def test_ratio_within_treats_negative_means_like_positive_ones():
    # ratios of gaps can have a negative denominator: same ratio 5/2 and SE 1/4 as above
    s = ratio_within([-3.0, -4.0, -8.0], [-1.0, -2.0, -3.0], 2.0, 3.0)
    assert s.mean == 2.5 and s.se == pytest.approx(0.25, rel=1e-14)
    assert s.verdict == "PASS"


def test_ratio_within_of_a_zero_denominator_is_untestable():
    s = ratio_within([1.0, 2.0], [1.0, -1.0], 0.0, 10.0)
    assert s.verdict == "UNTESTABLE" and math.isnan(s.mean) and math.isnan(s.se)


@pytest.mark.parametrize(
    "low,high,want",
    # r = 2.5, interval 2.5 +/- 0.49 = [2.01, 2.99]
    [
        (2.0, 3.0, "PASS"),
        (2.1, 3.0, "WEAK"),  # only the point estimate is in [low, high]
        (2.0, 2.9, "WEAK"),
        (2.5, 2.5, "WEAK"),  # point estimate exactly at both ends
        (2.6, 3.0, "WEAK"),  # point estimate outside, interval overlaps the band
        (2.0, 2.4, "WEAK"),
        (2.95, 3.5, "WEAK"),  # interval's upper end inside the band
        (3.0, 3.5, "FAIL"),  # whole interval below the band
        (1.0, 2.0, "FAIL"),  # whole interval above it
    ],
)
def test_ratio_within_passes_with_the_interval_in_the_band_fails_wholly_outside(low, high, want):
    assert ratio_within([3.0, 4.0, 8.0], [1.0, 2.0, 3.0], low, high).verdict == want


@pytest.mark.parametrize(
    "threshold,want",
    # x = (1, 3): mean 2, SE 1; z = 2: interval [0, 4]
    [(-1.0, "PASS"), (0.0, "PASS"), (0.5, "WEAK"), (2.5, "WEAK"), (4.0, "WEAK"), (4.5, "FAIL")],
)
def test_mean_at_least_passes_up_to_the_low_end_and_fails_beyond_the_high_end(threshold, want):
    s = mean_at_least(np.array([1.0, 3.0]), threshold, z=2.0)
    assert (s.n, s.mean, s.se, s.ci_low, s.ci_high) == (2, 2.0, 1.0, 0.0, 4.0)
    assert s.verdict == want


def test_mean_at_least_uses_the_sample_standard_error():
    # x = (1, 2, 6): mean 3, sd(ddof=1) = sqrt(7), SE = sqrt(7/3)
    s = mean_at_least([1.0, 2.0, 6.0], 0.0)
    assert s.se == pytest.approx(math.sqrt(7 / 3), rel=1e-14)
    assert s.ci_low == pytest.approx(3.0 - 1.96 * math.sqrt(7 / 3), rel=1e-14)


@pytest.mark.parametrize("x", [np.ones(1), np.ones((2, 2)), np.ones(0)])
def test_mean_at_least_needs_a_1d_sample_of_two(x):
    with pytest.raises(ValueError, match="need a 1-d sample"):
        mean_at_least(x, 0.0)


def test_worst_ranks_verdicts_and_curve_below_is_strict_at_every_checkpoint():
    assert worst(iter(["PASS", "PASS"])) == "PASS"
    assert worst(["WEAK", "PASS"]) == "WEAK"
    assert worst(["PASS", "FAIL", "WEAK"]) == "FAIL"
    with pytest.raises(ValueError, match="no verdicts"):
        worst([])
    # untestable comparisons are set aside, diagnostics never decide
    assert worst(["UNTESTABLE", "PASS"]) == "PASS"
    assert worst(["UNTESTABLE", "WEAK", "DIAGNOSTIC"]) == "WEAK"
    assert worst(["UNTESTABLE", "UNTESTABLE"]) == "UNTESTABLE"
    assert worst(["UNTESTABLE", "DIAGNOSTIC"]) == "UNTESTABLE"
    assert worst(["DIAGNOSTIC", "DIAGNOSTIC"]) == "DIAGNOSTIC"
    assert worst(["PASS", "DIAGNOSTIC"]) == "PASS"
    with pytest.raises(ValueError, match="unknown ordering verdicts"):
        worst(["PASS", "MISSING"])
    assert curve_below([1.0, 2.0], [1.5, 2.5])
    assert not curve_below([1.0, 2.5], [1.5, 2.5])  # equal at one checkpoint: not below
    t = np.arange(1, 101)
    assert list(curve_checkpoints(t, 100)) == list(range(10, 101, 5))
    assert list(curve_checkpoints(t[:10], 10)) == list(range(1, 11))  # T < 20: every t
