"""Tests that kill mutants left alive in audit/checklist.py (docs/mutation.md).

The frames have three instances per series with final values chosen so that the ratio statistic
is hand-computable: ``a = (3, 4, 8)``, ``b = (1, 2, 3)`` give ``r = 5/2`` and ``SE = 1/4``
(``a - r b = (1/2, -1, 1/2)``, ``sd(ddof=1) = sqrt(3/4)``, ``SE = sqrt(3/4)/(sqrt(3) * 2)``).
Curves are linear in ``t`` (final value ``* t / T``), so one series' mean curve is below
another's at every checkpoint exactly when its mean final value is.
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.checklist import WALL_TIME_STATISTIC, evaluate_orderings, verdict_matrix

A = np.array([3.0, 4.0, 8.0])
B = np.array([1.0, 2.0, 3.0])


def _frame(values, pseudo=None, extra=None, T=100, ts=(10, 20, 50, 100)) -> pd.DataFrame:
    """Rows of (panel, series) -> realized finals; ``pseudo`` the same for pseudo-regret
    (default: equal), ``extra`` (panel, series) -> {column: finals}; linear curves."""
    rows = []
    for key, finals in values.items():
        panel, series = key
        p_finals = (pseudo or {}).get(key, finals)
        cols = (extra or {}).get(key, {})
        for trial, final in enumerate(finals):
            for t in ts:
                row = dict(
                    configuration="c",
                    panel=panel,
                    series=series,
                    trial=trial,
                    t=t,
                    T=T,
                    d=5,
                    K=10,
                    instances="script",
                    regret_realized=final * t / T,
                    regret_pseudo=p_finals[trial] * t / T,
                )
                row.update({c: v[trial] * t / T for c, v in cols.items()})
                rows.append(row)
    return pd.DataFrame(rows)


def _claim(cid, **audit):
    return {"id": cid, "kind": "ordering", "audit": audit}


def _rows(res, cid, metric="realized"):
    return res[(res.claim_id == cid) & (res.metric == metric)]


def test_ratio_check_by_hand():
    df = _frame({("p", "A"): A, ("p", "B"): B})
    claims = [_claim("r", check="ratio", panels=["p"], a="A", b=["B"], low=2.0, high=3.0)]
    rows = _rows(evaluate_orderings(claims, df), "r")
    assert list(rows.comparison) == ["A / B in [2, 3]", "all"]  # no curve, no wall-time row
    row = rows.iloc[0]
    assert row.statistic == "ratio of means a / b"
    assert row.mean_diff == 2.5  # (5 / 3) / (2 / 3), no baseline subtracted
    assert row.se_diff == pytest.approx(0.25, rel=1e-14)
    assert row.ci_low == pytest.approx(2.5 - 1.96 * 0.25, rel=1e-14)
    assert row.verdict == "PASS" and rows.iloc[1].verdict == "PASS"
    # low defaults to 0; the t interval has n - 1 = 2 degrees of freedom (t = 4.303)
    claims = [_claim("r", check="ratio", panels=["p"], a="A", b=["B"], high=3.0, interval="t")]
    row = _rows(evaluate_orderings(claims, df), "r").iloc[0]
    assert row.comparison == "A / B in [0, 3]"
    assert row.ci_high == pytest.approx(2.5 + 4.303 * 0.25, abs=1e-3)
    assert row.verdict == "WEAK"


def test_ratio_of_gaps_over_a_baseline():
    # gaps A - L = (3, 4, 8) and B - L = (1, 2, 3): the same ratio 5/2
    L = np.array([10.0, 20.0, 30.0])
    df = _frame({("p", "A"): A + L, ("p", "B"): B + L, ("p", "L"): L})
    claims = [
        _claim("g", check="ratio", panels=["p"], a="A", b=["B"], baseline="L", high=3.0, low=2.0)
    ]
    row = _rows(evaluate_orderings(claims, df), "g").iloc[0]
    assert row.comparison == "(A - L) / (B - L) in [2, 3]"
    assert row.mean_diff == 2.5 and row.se_diff == pytest.approx(0.25, rel=1e-14)


@pytest.mark.parametrize("column", ["comm_reals", "theta_err"])
def test_ratio_of_another_recorded_column_names_it(column):
    # the regret columns say the opposite (B / A), so the row must use the named column
    extra = {("p", "A"): {column: A}, ("p", "B"): {column: B}}
    df = _frame({("p", "A"): B, ("p", "B"): A}, extra=extra)
    claims = [_claim("m", check="ratio", panels=["p"], a="A", b=["B"], metric=column, high=3.0)]
    res = evaluate_orderings(claims, df)
    for metric in ("realized", "pseudo"):
        row = _rows(res, "m", metric).iloc[0]
        assert row.comparison == f"A / B [{column}] in [0, 3]"
        assert row.mean_diff == 2.5


def test_ratio_with_curve_and_wall_time_rows():
    df = _frame({("p", "A"): B, ("p", "B"): A, ("p", "C"): A})  # A's curve below B's and C's
    timings = pd.DataFrame(
        dict(configuration="c", panel="p", series=["A", "B", "C"], seconds=[2.0, 4.0, 1.0])
    )
    claims = [
        _claim(
            "f", check="ratio", panels=["p"], a="A", b=["B", "C"], high=1.0, curve=True, faster=True
        )
    ]
    rows = _rows(evaluate_orderings(claims, df, timings), "f").set_index("comparison")
    assert list(rows.index) == [
        "A / B in [0, 1]",
        "A below B at every curve checkpoint",
        "wall time A < B (2 s vs 4 s)",
        "A / C in [0, 1]",
        "A below C at every curve checkpoint",
        "wall time A < C (2 s vs 1 s)",
        "all",
    ]
    # a curve-level row is a diagnostic: recorded, never deciding
    assert rows.loc["A below B at every curve checkpoint", "verdict"] == "DIAGNOSTIC"
    assert rows.loc["A below B at every curve checkpoint", "curve_below"]
    faster = rows.loc["wall time A < B (2 s vs 4 s)"]
    assert (faster.verdict, faster.mean_diff, faster.statistic) == (
        "PASS",
        0.5,
        WALL_TIME_STATISTIC,
    )
    slower = rows.loc["wall time A < C (2 s vs 1 s)"]
    assert (slower.verdict, slower.mean_diff) == ("FAIL", 2.0)
    assert rows.loc["all", "verdict"] == "FAIL"  # A is slower than C
    assert rows.loc["all", "curve_below"]  # both mean curves below


@pytest.mark.parametrize(
    "seconds,verdict",
    [
        ([3.0, 3.0], "FAIL"),  # equal times: not faster
        ([math.nan, 3.0], "FAIL"),  # a timing missing: not shown to be faster
        ([3.0, math.nan], "FAIL"),
        ([0.5, math.nan], "FAIL"),
        ([0.01, 0.03], "WEAK"),  # milliseconds: too short to time, either way
        ([0.03, 0.01], "WEAK"),
        ([0.99, 0.999], "WEAK"),
        ([0.5, 1.0], "PASS"),  # the slower one ran for MIN_TIMED_SECONDS: decided
        ([1.0, 0.5], "FAIL"),
    ],
)
def test_faster_needs_a_strictly_smaller_known_time(seconds, verdict):
    df = _frame({("p", "A"): B, ("p", "B"): A})
    timings = pd.DataFrame(dict(configuration="c", panel="p", series=["A", "B"], seconds=seconds))
    claims = [_claim("f", check="ratio", panels=["p"], a="A", b=["B"], high=1.0, faster=True)]
    rows = _rows(evaluate_orderings(claims, df, timings), "f")
    row = rows[rows.statistic == WALL_TIME_STATISTIC].iloc[0]
    assert row.verdict == verdict
    assert row.mean_diff == pytest.approx(seconds[0] / seconds[1], nan_ok=True)


def test_mean_above_is_the_paired_statistic_of_b_below_a():
    # D = b - a = (-2, -2, -5): mean -3, sd sqrt(3), SE 1
    df = _frame({("p", "A"): A, ("p", "B"): B})
    claims = [_claim("ma", check="mean_above", panels=["p"], a="A", b=["B"])]
    row = _rows(evaluate_orderings(claims, df), "ma").iloc[0]
    assert row.comparison == "A > B"
    assert row.mean_diff == -3.0 and row.se_diff == pytest.approx(1.0, rel=1e-14)
    assert row.verdict == "PASS"


def test_combined_verdict_is_inconclusive_where_the_metrics_disagree():
    # claim x: realized says A above B (FAIL), pseudo says below (PASS); claim y: the reverse
    df = _frame(
        {("p", "A"): A, ("p", "B"): B, ("p", "C"): B, ("p", "D"): A},
        pseudo={("p", "A"): B, ("p", "B"): A, ("p", "C"): A, ("p", "D"): B},
    )
    claims = [
        _claim("x", check="below", panels=["p"], a="A", b=["B"]),
        _claim("y", check="below", panels=["p"], a="C", b=["D"]),
    ]
    res = evaluate_orderings(claims, df)
    real = verdict_matrix(res, "realized").set_index("claim_id")["c"].to_dict()
    pseudo = verdict_matrix(res, "pseudo").set_index("claim_id")["c"].to_dict()
    assert real == {"x": "FAIL", "y": "PASS"}
    assert pseudo == {"x": "PASS", "y": "FAIL"}
    combined = verdict_matrix(res, "combined").set_index("claim_id")["c"].to_dict()
    assert combined == {"x": "INCONCLUSIVE", "y": "INCONCLUSIVE"}
    agree = _frame({("p", "A"): B, ("p", "B"): A})
    res = evaluate_orderings(claims[:1], agree)
    assert verdict_matrix(res, "combined").set_index("claim_id")["c"].to_dict() == {"x": "PASS"}


def test_an_unused_series_with_a_single_row_is_allowed():
    # e.g. a smoke run of another series: one trial recorded only at T, used by no claim
    df = pd.concat(
        [
            _frame({("p", "A"): B, ("p", "B"): A}),
            _frame({("p", "S"): np.array([1.0])}, ts=(100,)),
        ]
    )
    claims = [_claim("b", check="below", panels=["p"], a="A", b=["B"])]
    row = _rows(evaluate_orderings(claims, df), "b").iloc[0]
    assert row.verdict == "PASS" and bool(row.curve_below)
