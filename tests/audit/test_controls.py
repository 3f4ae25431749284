"""The planted controls of the rate audit (audit/controls.py).

The planted contestant run: an explore-then-commit schedule with a known worse rate on a claim's
sweep must read ``exceeds`` against the claim, or the claim's ``consistent`` T fits become
``untestable``.

Also pinned (docs/mutation.md): the planted violation and the control that meets the claim decide
whether a family's ``consistent`` verdicts stand. Their seeds fix the reported control fits, so the
seed scheme is pinned, as are the binomial tests of the stated power and of the false-alarm rate;
the degenerate branches (no finite planted excess, a level without positive mean) are exercised.
"""

import math
import zlib

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from dpbandits.audit.controls import (
    ALPHA,
    CONTESTANT,
    CONTESTANT_MISSED,
    CONTROL_COLUMNS,
    FALSE_ALARM,
    REDRAW_BOOT,
    REDRAWS,
    contestant_control,
    control_seed,
    redraw,
    run_controls,
)
from dpbandits.audit.fits import fit_exponent
from dpbandits.audit.rates import evaluate_rate_claims
from dpbandits.audit.verdicts import POWER

T = np.array([2520, 5040, 10080, 20160, 40320], dtype=float)


def _curves(exponent, scale, n=25, seed=0):
    rng = np.random.default_rng(seed)
    c = scale * rng.lognormal(0.0, 0.1, size=(n, 1))
    return c * T**exponent * rng.lognormal(0.0, 0.02, size=(n, T.size))


def _frame(contestant_exponent: float | None, n=25):
    """A claim's schedule ``alg`` at regret 3 T^(1/2), and (unless None) the contestant
    ``etc_a`` at 0.3 T^e; caps T (random play), so both are in the learning regime."""
    rows = []
    series = [("alg", "linucb", 0.5, 3.0)]
    if contestant_exponent is not None:
        series.append(("etc_a", "etc", contestant_exponent, 0.3))
    for k, (sched, alg, e, scale) in enumerate(series):
        Y = _curves(e, scale, n, seed=k)
        for i in range(n):
            for j, t in enumerate(T):
                rows.append(dict(sweep="s", schedule=sched, algorithm=alg, epsilon=np.nan, d=5,
                                 T=int(t), t=int(t), trial=i, regret_pseudo=Y[i, j],
                                 cap=float(t)))  # fmt: skip
    return pd.DataFrame(rows)


CLAIM = {
    "id": "x.rate",
    "direction": "upper",
    "T_exp": "1/2",
    "eps_exp": None,
    "audit": {
        "experiment": "x",
        "sweep": "s",
        "check": "slope",
        "schedules": ["alg"],
        "fit": ["T"],
    },  # fmt: skip
}


def _audit(df):
    controls = []
    rates = evaluate_rate_claims([CLAIM], df, n_boot=500, seed=1, controls=controls)
    fit = rates[(rates["schedule"] == "alg") & (rates["variable"] == "T")].iloc[0]
    planted = [c for c in controls if c["control"] == CONTESTANT]
    return fit, planted


def test_a_planted_worse_rate_is_detected_and_the_verdict_stands():
    alone, none = _audit(_frame(None))
    assert alone["verdict"] == "consistent" and none == []  # no contestant: nothing to judge
    fit, planted = _audit(_frame(0.9))
    (row,) = planted
    assert set(row) == set(CONTROL_COLUMNS)
    assert row["passed"] and row["detected"] and row["verdict"] == "exceeds"
    assert row["schedule"] == "etc_a" and row["claimed"] == pytest.approx(0.5)
    assert row["slope"] == pytest.approx(0.9, abs=0.02)
    assert fit["verdict"] == "consistent"
    assert CONTESTANT_MISSED not in fit["reason"]


def test_an_undetected_contestant_turns_consistent_into_untestable():
    fit, planted = _audit(_frame(0.53))  # within claimed + tolerance: not told apart
    (row,) = planted
    assert not row["passed"] and row["verdict"] != "exceeds"
    assert fit["verdict"] == "untestable"
    assert CONTESTANT_MISSED in fit["reason"]
    rates = evaluate_rate_claims([CLAIM], _frame(0.53), n_boot=500, seed=1)
    assert rates[rates["schedule"] == "all"].iloc[0]["verdict"] == "untestable"


def test_the_control_needs_the_learning_regime():
    """A contestant whose regret reaches half of random play's is saturated: not detected,
    however steep its slope."""
    Y = _curves(0.99, 0.3)
    caps = 0.5 * T  # share 0.3 T^0.99 / (0.5 T) = 0.6 T^-0.01 > 0.5
    row = contestant_control(T, Y, caps, 0.5, 0.05, 500, 3)
    assert row["verdict"].startswith("exceeds (saturated") and not row["passed"]
    row = contestant_control(T, Y, T, 0.5, 0.05, 500, 3)
    assert row["verdict"] == "exceeds" and row["passed"]
    assert row["planted_excess"] == pytest.approx(row["slope"] - 0.5)


# -- the planted violation and the control that meets the claim ------------------------------------


LEVELS = np.array([1000.0, 2000.0, 4000.0, 8000.0])


def _values(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return 5.0 * LEVELS**0.5 * rng.lognormal(0.0, 0.2, size=(n, LEVELS.size))


def test_control_seed_is_knuths_multiplicative_hash_plus_the_crc32_of_the_names():
    # (seed * 2654435761 + crc32(names joined by "|")) mod 2^32: Knuth's multiplicative hash.
    assert control_seed(0, "a", "b") == zlib.crc32(b"a|b")
    assert control_seed(1) == 2654435761  # crc32(b"") = 0; above 2^31, below 2^32
    assert control_seed(2) == 2 * 2654435761 - 2**32  # wraps once


@pytest.mark.parametrize("direction", ["upper", "lower"])
def test_each_redraw_and_its_fit_use_the_documented_seeds(direction):
    # redraw r of control k (0 planted, 1 meets claim): seed [seed, k, r], its fit [seed, k, r, 1]
    values, seed, n_boot, claimed, det = _values(), 11, 200, 0.5, 0.1
    rows = {
        r["control"]: r
        for r in run_controls(LEVELS, values, claimed, direction, 0.05, det, n_boot, seed, 5)
    }
    sign = 1.0 if direction == "upper" else -1.0
    for k, (name, excess) in enumerate((("planted violation", det + 0.05), ("meets claim", 0.0))):
        slopes = [
            fit_exponent(
                LEVELS,
                redraw(LEVELS, values, claimed + sign * excess, [seed, k, r]),
                n_boot,
                [seed, k, r, 1],
            ).slope
            for r in range(5)
        ]
        assert rows[name]["redraws"] == 5
        assert rows[name]["slope"] == pytest.approx(np.mean(slopes), rel=1e-12)
        assert rows[name]["slope_sd"] == pytest.approx(np.std(slopes, ddof=1), rel=1e-12)


@pytest.mark.parametrize("n_boot", [REDRAW_BOOT // 2, REDRAW_BOOT, 10 * REDRAW_BOOT])
def test_redraw_fits_use_at_most_redraw_boot_resamples(monkeypatch, n_boot):
    import dpbandits.audit.controls as controls

    seen = []

    def spy(levels, Y, boot, seed):
        seen.append(boot)
        return fit_exponent(levels, Y, boot, seed)

    monkeypatch.setattr(controls, "fit_exponent", spy)
    run_controls(LEVELS, _values(), 0.5, "upper", 0.05, 0.1, n_boot, 3, 3)
    assert seen == [min(n_boot, REDRAW_BOOT)] * 6


def _scripted(monkeypatch, flagged, total, violation="exceeds"):
    """Make the controls' verdicts flag exactly ``flagged`` of ``total`` redraws."""
    import dpbandits.audit.controls as controls

    calls = iter(range(10**6))
    monkeypatch.setattr(
        controls,
        "verdict",
        lambda *a: violation if next(calls) % total < flagged else "consistent",
    )


@pytest.mark.parametrize(
    "flagged, passed",
    # one-sided binomial test of "power >= 0.8" at level 0.01 with 40 redraws:
    # P(K <= 25 | 40, 0.8) = 0.0079 <= 0.01 fails, P(K <= 26 | 40, 0.8) = 0.0194 passes
    [(40, True), (26, True), (25, False), (0, False)],
)
def test_planted_control_tests_the_stated_power(monkeypatch, flagged, passed):
    _scripted(monkeypatch, flagged, REDRAWS)
    plant, meet = run_controls(LEVELS, _values(), 0.5, "upper", 0.05, 0.1, 50, 0)
    assert plant["flagged"] == flagged and plant["redraws"] == REDRAWS
    assert plant["flag_rate"] == flagged / REDRAWS
    assert plant["detected"] is passed and plant["passed"] is passed
    assert plant["verdict"] == ("exceeds" if flagged > REDRAWS / 2 else "consistent")


@pytest.mark.parametrize(
    "flagged, passed",
    # "false alarms <= 5 %": P(K >= 7 | 40, 0.05) = 0.0034 fails, P(K >= 6 | 40, 0.05) = 0.0139
    [(0, True), (6, True), (7, False), (40, False)],
)
def test_meets_claim_control_tests_the_false_alarm_rate(monkeypatch, flagged, passed):
    _scripted(monkeypatch, flagged, REDRAWS, violation="below")
    _, meet = run_controls(LEVELS, _values(), 0.5, "lower", 0.05, 0.1, 50, 0)
    assert meet["flagged"] == flagged
    assert meet["passed"] is passed and meet["detected"] is (not passed)


def test_forty_redraws_at_level_one_percent_give_the_quoted_binomial_thresholds():
    assert binom.cdf(25, 40, POWER) == pytest.approx(0.0079, abs=1e-4)
    assert binom.cdf(26, 40, POWER) == pytest.approx(0.0194, abs=1e-4)
    assert binom.sf(6, 40, FALSE_ALARM) == pytest.approx(0.0034, abs=1e-4)
    assert binom.sf(5, 40, FALSE_ALARM) == pytest.approx(0.0139, abs=1e-4)
    assert (REDRAWS, ALPHA) == (40, 0.01)


def test_infinite_detectable_excess_fails_the_planted_control():
    rows = run_controls(LEVELS, _values(), 0.5, "upper", 0.05, math.inf, 100, 0)
    planted = next(r for r in rows if r["control"] == "planted violation")
    assert planted["passed"] is False and planted["verdict"] == "inconclusive"
    assert math.isnan(planted["slope"])


def test_a_level_without_positive_mean_gives_no_fit_and_no_redraws():
    values = _values()
    values[:, 2] = 0.0
    for row in run_controls(LEVELS, values, 0.5, "upper", 0.05, 0.1, 100, 0):
        assert row["verdict"] == "inconclusive" and row["detected"] is False
        assert math.isnan(row["slope"]) and row["redraws"] == 0
        assert math.isnan(row["flag_rate"])
