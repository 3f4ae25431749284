"""Exponent fits of the rate audit (docs/mutation.md): the OLS slope and intercept of the log mean
on the log level, the percentile bootstrap interval (paired or per level) and the resamples it
sets aside, the checks of levels and shapes, the verdict boundaries, the precedence of
:func:`~dpbandits.audit.fits.combine`, and defaults equal to the configured audit.

Most bootstrap tests use two levels ``x = (1, e)`` (so the slope is ``ln(m_2 / m_1)``) and two
instances: a resample of the two rows has column mean ``v_1``, ``(v_1 + v_2)/2`` or ``v_2`` with
probabilities 1/4, 1/2, 1/4, so the percentile interval is known exactly. With 2000 resamples the
share of each group is within 0.15 of its probability with probability above 1 - 1e-40 (15
binomial SE), far more margin than the quantile positions used below need.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from dpbandits.audit.fits import Fit, bootstrap_means, combine, fit_exponent, verdict
from dpbandits.config import load_yaml

X2 = np.array([1.0, math.e])
ROOT = Path(__file__).resolve().parents[2]


def test_exact_power_law_gives_slope_intercept_and_a_point_interval():
    # identical rows c x^k: every resample has the same means, so the interval is the slope
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    Y = np.tile(3.0 * x**0.5, (4, 1))
    fit = fit_exponent(x, Y, n_boot=50)
    assert fit.slope == pytest.approx(0.5, rel=1e-12)
    assert fit.intercept == pytest.approx(math.log(3.0), rel=1e-12)
    assert fit.ci_low == pytest.approx(0.5, rel=1e-12)
    assert fit.ci_high == pytest.approx(0.5, rel=1e-12)
    assert (fit.n_levels, fit.n_trials) == (5, 4)
    assert fit.as_dict()["intercept"] == fit.intercept


def test_the_intercept_is_ln_c_at_levels_away_from_one():
    # ln m = ln c + k ln x with c = 0.2, k = -1.5; the mean of ln x is ln 10 != 0 or 1
    x = np.array([1.0, 10.0, 100.0])
    fit = fit_exponent(x, np.tile(0.2 * x**-1.5, (3, 1)), n_boot=20)
    assert fit.slope == pytest.approx(-1.5, rel=1e-12)
    assert fit.intercept == pytest.approx(math.log(0.2), rel=1e-12)


@pytest.mark.parametrize(
    "level,lo,hi",
    [
        # 95 %: the 2.5 % and 97.5 % quantiles fall in the outer groups (1/4 each)
        (0.95, 0.0, math.log(3.0)),
        # 20 %: the 40 % and 60 % quantiles fall in the middle group (cumulative 1/4 .. 3/4)
        (0.2, math.log(2.0), math.log(2.0)),
    ],
)
@pytest.mark.parametrize("paired", [True, False])
def test_the_interval_is_the_bootstrap_percentile_interval_at_the_level(level, lo, hi, paired):
    # column 1 is constant, so paired and per-column resampling have the same law here
    Y = np.array([[1.0, 1.0], [1.0, 3.0]])
    fit = fit_exponent(X2, Y, n_boot=2000, seed=5, level=level, paired=paired)
    assert fit.slope == pytest.approx(math.log(2.0), rel=1e-12)
    assert fit.ci_low == pytest.approx(lo, abs=1e-12)
    assert fit.ci_high == pytest.approx(hi, abs=1e-12)


def test_paired_resampling_keeps_instances_together():
    # instance effects only (rows 1 and 3 at both levels): a paired resample has the same
    # mean at both levels (slope 0); per-column resampling can pair 1 with 3 (each extreme
    # combination has probability 1/16, so the 2.5 % / 97.5 % quantiles are -ln 3 / ln 3)
    Y = np.array([[1.0, 1.0], [3.0, 3.0]])
    paired = fit_exponent(X2, Y, n_boot=2000, seed=1)
    assert (paired.ci_low, paired.ci_high) == (pytest.approx(0.0, abs=1e-12),) * 2
    indep = fit_exponent(X2, Y, n_boot=2000, seed=1, paired=False)
    assert indep.ci_low == pytest.approx(-math.log(3.0), abs=1e-12)
    assert indep.ci_high == pytest.approx(math.log(3.0), abs=1e-12)


@pytest.mark.parametrize("paired", [True, False])
def test_bootstrap_means_draw_every_row_with_equal_probability(paired):
    # each of 3 rows is picked with probability 1/3: over 3000 resamples of 3 rows the mean of
    # the resample means of column values (0, 1, 2) is 1 within 5 SE (SE = sqrt(2/3/9000))
    Y = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    reps = bootstrap_means(Y, 3000, np.random.default_rng(0), paired)
    assert reps.shape == (3000, 2)
    assert reps.min() == 0.0 and reps.max() == 2.0
    assert reps.mean(axis=0) == pytest.approx([1.0, 1.0], abs=5 * math.sqrt(2 / 3 / 9000))


def test_paired_bootstrap_means_equal_numpys_indexed_means_bit_for_bit():
    # the compiled resampling gives exactly Y[idx].mean(axis=1), the expression it replaced
    # (the audit's verdict tables are compared byte for byte between builds)
    rng = np.random.default_rng(5)
    for n, L in [(2, 2), (3, 7), (20, 2), (50, 5), (50, 12), (129, 3), (300, 9)]:
        Y = rng.lognormal(3.0, 2.0, size=(n, L)) * rng.choice([1.0, -1.0, 1e-12], size=(n, L))
        seed = int(rng.integers(1 << 30))
        reps = bootstrap_means(Y, 257, np.random.default_rng(seed))
        idx = np.random.default_rng(seed).integers(0, n, size=(257, n))
        assert np.array_equal(reps, Y[idx].mean(axis=1)), (n, L)
    Y[0, 0] = np.nan  # a missing value propagates as in NumPy
    reps = bootstrap_means(Y, 64, np.random.default_rng(1))
    idx = np.random.default_rng(1).integers(0, Y.shape[0], size=(64, Y.shape[0]))
    assert np.array_equal(reps, Y[idx].mean(axis=1), equal_nan=True)


def test_too_many_resamples_with_a_zero_mean_give_no_interval():
    # column 2 is (0, 2): mean 1 > 0, so the slope (0) is finite, but a quarter of the resamples
    # have mean 0 (no log): more than alpha = 2.5 %, so no interval
    Y = np.array([[1.0, 0.0], [1.0, 2.0]])
    fit = fit_exponent(X2, Y, n_boot=2000, seed=3)
    assert fit.slope == pytest.approx(0.0, abs=1e-15)
    assert math.isnan(fit.ci_low) and math.isnan(fit.ci_high)
    assert verdict(fit, 0.0) == "inconclusive"
    # at level 0.2 (alpha = 0.4 > 1/4) the interval is taken over the other resamples: means
    # 1 (2/3 of them) and 2 (1/3), so both the 40 % and 60 % quantiles are ln 1 = 0
    fit = fit_exponent(X2, Y, n_boot=2000, seed=3, level=0.2)
    assert (fit.ci_low, fit.ci_high) == (pytest.approx(0.0, abs=1e-15),) * 2


def test_a_zero_mean_gives_a_nan_fit():
    fit = fit_exponent(X2, np.array([[1.0, 0.0], [1.0, 0.0]]))
    assert all(math.isnan(v) for v in (fit.slope, fit.ci_low, fit.ci_high, fit.intercept))
    assert (fit.n_levels, fit.n_trials) == (2, 2)


@pytest.mark.parametrize(
    "levels",
    [[1.0, 1.0, 1.0], [0.0, 1.0, 2.0], [-1.0, 1.0, 2.0], [1.0, 2.0, -4.0]],
)
def test_levels_must_be_positive_and_at_least_two_distinct(levels):
    with pytest.raises(ValueError, match="distinct positive levels"):
        fit_exponent(levels, np.ones((3, 3)))


def test_two_distinct_levels_are_enough():
    fit = fit_exponent([2.0, 2.0, 8.0], np.tile([1.0, 1.0, 4.0], (2, 1)), n_boot=10)
    # OLS on ln x = (ln 2, ln 2, 3 ln 2), ln m = (0, 0, 2 ln 2): slope 1
    assert fit.slope == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("shape", [(3,), (3, 2), (1, 3, 3)])
def test_values_must_be_instances_by_levels(shape):
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        fit_exponent([1.0, 2.0, 3.0], np.ones(shape))


def _fit(lo, hi):
    return Fit((lo + hi) / 2, lo, hi, 0.0, 3, 10)


@pytest.mark.parametrize(
    "lo,hi,want",
    # claimed 0.5, tol 0.25 (exact in binary): the boundary is 0.75
    [
        (0.5, 0.75, "consistent"),  # upper end exactly at claimed + tol
        (0.5, 0.8, "inconclusive"),
        (0.75, 0.8, "inconclusive"),  # lower end exactly at the boundary: not above it
        (0.76, 0.8, "exceeds"),
        (-math.inf, 0.6, "inconclusive"),  # an interval end that is not finite
        (0.1, math.inf, "inconclusive"),
        (math.nan, 0.6, "inconclusive"),
    ],
)
def test_an_upper_bound_holds_up_to_claimed_plus_tol_and_is_exceeded_only_above(lo, hi, want):
    assert verdict(_fit(lo, hi), 0.5, "upper", 0.25) == want


@pytest.mark.parametrize(
    "lo,hi,want",
    # claimed 0.5, tol 0.25: the boundary is 0.25
    [
        (0.25, 0.5, "consistent"),  # lower end exactly at claimed - tol
        (0.2, 0.5, "inconclusive"),
        (0.2, 0.25, "inconclusive"),  # upper end exactly at the boundary: not below it
        (0.2, 0.24, "below"),
        (0.3, math.inf, "inconclusive"),
    ],
)
def test_a_lower_bound_holds_down_to_claimed_minus_tol_and_is_below_only_under(lo, hi, want):
    assert verdict(_fit(lo, hi), 0.5, "lower", 0.25) == want


@pytest.mark.parametrize("direction", ["up", "sideways", "down", "Upper", "lowerr", ""])
def test_an_unknown_direction_is_refused(direction):
    with pytest.raises(ValueError, match="direction must be"):
        verdict(_fit(0.1, 0.2), 0.5, direction, 0.25)


def test_the_default_tolerance_and_bootstrap_are_the_configured_audit_values():
    # config/config.yaml audit: tolerance 0.05, bootstrap 2000. The defaults (used by the paper
    # tables and plots) must give the same verdicts and intervals as the configured audit.
    audit = load_yaml(ROOT / "config/config.yaml")["audit"]
    tol = audit["tolerance"]
    assert verdict(_fit(0.3, 0.5 + tol), 0.5) == "consistent"
    assert verdict(_fit(0.3, 0.5 + tol + 0.01), 0.5) == "inconclusive"
    assert verdict(_fit(0.5 + tol + 0.01, 0.7), 0.5) == "exceeds"
    rng = np.random.default_rng(7)
    x = np.array([1.0, 2.0, 4.0])
    Y = rng.lognormal(0.0, 0.5, size=(40, 3)) * x**0.5  # 40 rows: few tied resample means
    default = fit_exponent(x, Y)
    configured = fit_exponent(x, Y, n_boot=audit["bootstrap"], seed=0)
    assert default == configured


def test_combine_takes_the_first_verdict_in_precedence_order_and_inconclusive_when_empty():
    order = ["exceeds", "below", "inconclusive", "untestable", "consistent"]
    for i, v in enumerate(order):
        assert combine(order[i:]) == v
        assert combine(reversed(order[i:])) == v
        assert combine(iter([v, "consistent"])) == v
    assert combine([]) == "inconclusive"
