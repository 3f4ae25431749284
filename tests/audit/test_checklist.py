"""The ordering audit's evaluator, :func:`dpbandits.audit.checklist.evaluate_orderings`.

Ordering verdicts a referee would sign (docs/auditing.md, 'Reading a verdict: ordering claims'):
FAIL only with the whole interval on the wrong side, saturated ties untestable, curve crossings and
diagnostic series never deciding, the delivered epsilon of both series beside each comparison.
Each planted case of those sections reads differently under the old point-estimate rule.

Also pinned (docs/mutation.md): the rows of the ``ratio`` check (the ratio of means, of gaps over a
baseline, of another recorded column; its curve-level and wall-time rows, where being faster needs
a strictly smaller known time), the ``mean_above`` check, the ``combined`` verdict of realized and
pseudo-regret, and a series that no claim uses. Their frames have three instances per series with
final values chosen so that the ratio statistic is hand-computable: ``a = (3, 4, 8)``,
``b = (1, 2, 3)`` give ``r = 5/2`` and ``SE = 1/4`` (``a - r b = (1/2, -1, 1/2)``,
``sd(ddof=1) = sqrt(3/4)``, ``SE = sqrt(3/4)/(sqrt(3) * 2)``). Curves are linear in ``t`` (final
value ``* t / T``), so one series' mean curve is below another's at every checkpoint exactly when
its mean final value is.
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.checklist import (
    NON_PRIVATE,
    WALL_TIME_STATISTIC,
    evaluate_orderings,
    unequal_privacy,
    verdict_matrix,
)
from dpbandits.audit.ordering import paired_below, ratio_within
from dpbandits.audit.scoreboard import status

T = 100
TS = (10, 20, 50, 100)


def _frame(values, curves=None, extra=None) -> pd.DataFrame:
    """(panel, series) -> final regrets; curves linear in t unless ``curves`` gives, per key,
    the per-trial value at each t of :data:`TS`; ``extra`` (panel, series) -> {column: value}."""
    rows = []
    for (panel, series), finals in values.items():
        for trial, final in enumerate(finals):
            for k, t in enumerate(TS):
                v = curves[panel, series][k] if curves and (panel, series) in curves else None
                value = final * t / T if v is None else v
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
                    regret_realized=value,
                    regret_pseudo=value,
                )
                row.update((extra or {}).get((panel, series), {}))
                rows.append(row)
    return pd.DataFrame(rows)


def _claim(cid, **audit):
    return {"id": cid, "kind": "ordering", "audit": audit}


def _rows(res, cid):
    return res[(res.claim_id == cid) & (res.metric == "realized")].set_index("comparison")


BASE = 100 + 10 * np.random.default_rng(0).standard_normal(20)


# -- the whole interval decides ------------------------------------------------------------------


def test_a_point_estimate_reversal_is_weak():
    # A above B on average (+0.5) but the interval contains 0: WEAK (the old rule read FAIL)
    d = 0.5 + 5.0 * np.tile([1.0, -1.0], 10)
    stat = paired_below(BASE + d, BASE)
    assert stat.mean > 0 and stat.ci_low < 0 < stat.ci_high
    assert stat.verdict == "WEAK"
    res = evaluate_orderings(
        [_claim("x", check="below", panels=["p"], a="A", b=["B"])],
        _frame({("p", "A"): BASE + d, ("p", "B"): BASE}),
    )
    assert _rows(res, "x").loc["all", "verdict"] == "WEAK"
    assert status("WEAK") == "inconclusive"


def test_a_whole_interval_reversal_is_fail():
    d = 5.0 + np.tile([1.0, -1.0], 10)
    stat = paired_below(BASE + d, BASE)
    assert stat.ci_low > 0 and stat.verdict == "FAIL"
    assert status("FAIL") == "contradicted"


def test_a_ratio_interval_overlapping_the_band_is_weak():
    # ratio ~ 1.6 with an interval reaching into [0.8, 1.25] (as olucb's OGD-vs-Maler ratio
    # [1.09, 2.10] once did): WEAK, not FAIL
    rng = np.random.default_rng(1)
    b = 100 + 10 * rng.standard_normal(10)
    a = 1.6 * b + 80 * np.tile([1.0, -1.0], 5)
    stat = ratio_within(a, b, 0.8, 1.25)
    assert stat.mean > 1.25 and stat.ci_low < 1.25
    assert stat.verdict == "WEAK"
    far = ratio_within(3.0 * b + np.tile([1.0, -1.0], 5), b, 0.8, 1.25)
    assert far.ci_low > 1.25 and far.verdict == "FAIL"


# -- saturated ties --------------------------------------------------------------------------------


def test_a_saturated_exact_tie_is_untestable_and_the_others_decide():
    cap = np.full(20, 643351.0)  # both at random play on every instance, sd 0
    df = _frame({("p", "LDP"): cap, ("p", "SDP"): cap, ("p", "CDP"): cap - 1000 - BASE})
    res = evaluate_orderings(
        [
            _claim("tie", check="mean_above", panels=["p"], a="LDP", b=["SDP"]),
            _claim("mixed", check="mean_above", panels=["p"], a="LDP", b=["SDP", "CDP"]),
            _claim(
                "gap", check="ratio", panels=["p"], a="SDP", b=["LDP"], baseline="CDP", high=0.25
            ),
        ],
        df,
    )
    tie = _rows(res, "tie")
    assert tie.loc["LDP > SDP", "verdict"] == "UNTESTABLE"
    assert tie.loc["all", "verdict"] == "UNTESTABLE"  # the old rule read FAIL
    mixed = _rows(res, "mixed")
    assert mixed.loc["LDP > CDP", "verdict"] == "PASS" and mixed.loc["all", "verdict"] == "PASS"
    # the two compared series tie exactly: their gap ratio is 1 by the cap, not by the claim
    assert _rows(res, "gap").loc["all", "verdict"] == "UNTESTABLE"
    assert status("UNTESTABLE") == "untestable"


def test_both_series_at_half_the_recorded_cap_are_untestable():
    # random play's regret recorded per trial (regret_unif): both series at >= 0.5 of it
    a, b = BASE + 5.0 + np.tile([1.0, -1.0], 10), BASE
    unif = {"regret_unif": 150.0}
    df = _frame({("p", "A"): a, ("p", "B"): b}, extra={("p", "A"): unif, ("p", "B"): unif})
    claim = _claim("x", check="below", panels=["p"], a="A", b=["B"])
    assert _rows(evaluate_orderings([claim], df), "x").loc["all", "verdict"] == "UNTESTABLE"
    far = {"regret_unif": 1000.0}  # learning: the same data decide
    df = _frame({("p", "A"): a, ("p", "B"): b}, extra={("p", "A"): far, ("p", "B"): far})
    assert _rows(evaluate_orderings([claim], df), "x").loc["all", "verdict"] == "FAIL"


def test_a_comparison_records_whether_both_caps_are_known():
    # the same FAIL with and without random play's regret: only the recorded cap could have
    # told a saturated pair (the claim's reason says so where it is missing)
    a, b = BASE + 5.0 + np.tile([1.0, -1.0], 10), BASE
    far = {"regret_unif": 1000.0}
    claim = _claim("x", check="below", panels=["p"], a="A", b=["B"])
    both = _frame({("p", "A"): a, ("p", "B"): b}, extra={("p", "A"): far, ("p", "B"): far})
    one = _frame({("p", "A"): a, ("p", "B"): b}, extra={("p", "A"): far})
    none = _frame({("p", "A"): a, ("p", "B"): b})
    seen = [_rows(evaluate_orderings([claim], df), "x").loc["A < B"] for df in (both, one, none)]
    assert [r["verdict"] for r in seen] == ["FAIL"] * 3
    assert [r["cap_recorded"] for r in seen] == [True, False, False]
    # a ratio of another recorded column (not regret) has no cap to record
    cost = {"comm_reals": 4.0}
    df = _frame({("p", "A"): a, ("p", "B"): b}, extra={("p", "A"): cost, ("p", "B"): cost})
    ratio = _claim("r", check="ratio", panels=["p"], a="A", b=["B"], metric="comm_reals", high=2)
    assert pd.isna(_rows(evaluate_orderings([ratio], df), "r").loc["A / B [comm_reals] in [0, 2]",
                   "cap_recorded"])  # fmt: skip


# -- diagnostics never decide ------------------------------------------------------------------


def test_a_curve_crossing_alone_does_not_fail_a_claim():
    # A ends below B on every instance but its mean curve is above B's at t = 10: the paired
    # final-regret statistic decides (PASS), the crossing is a DIAGNOSTIC row
    a, b = BASE - 5.0, BASE
    n = len(BASE)
    curves = {("p", "A"): [30.0, 20.0, 40.0, None], ("p", "B"): [10.0, 25.0, 50.0, None]}
    df = _frame({("p", "A"): a, ("p", "B"): b}, curves=curves)
    assert df[(df.t == T) & (df.series == "A")]["regret_realized"].size == n
    res = evaluate_orderings([_claim("x", check="between", panels=["p"], pairs=[["A", "B"]])], df)
    rows = _rows(res, "x")
    assert rows.loc["A < B", "verdict"] == "PASS" and not rows.loc["A < B", "curve_below"]
    assert rows.loc["all pairs (curve level)", "verdict"] == "DIAGNOSTIC"
    assert rows.loc["all", "verdict"] == "PASS"  # the old rule read FAIL


def test_a_diagnostic_series_does_not_decide():
    covered = np.ones(20)
    oracle = np.r_[np.zeros(15), np.ones(5)]  # the oracle radius covers in 25 % of runs
    extra = {
        ("p", "theory"): None,
        ("p", "oracle"): None,
    }
    df = _frame({k: np.full(20, 10.0) for k in extra})
    df["covered"] = np.where(
        df["series"] == "theory", covered[df["trial"]], oracle[df["trial"]]
    ) * (df["t"] == T)
    audit = dict(check="metric_at_least", panels=["p"], series=["theory", "oracle"])
    audit.update(metric="covered", threshold=0.9)
    plain = _rows(evaluate_orderings([_claim("x", **audit)], df), "x")
    assert plain.loc["all", "verdict"] == "FAIL"  # through the oracle alone
    marked = _rows(evaluate_orderings([_claim("x", **audit, diagnostic=["oracle"])], df), "x")
    label = "oracle: mean covered >= 0.9 (diagnostic series; alone FAIL)"
    assert marked.loc[label, "verdict"] == "DIAGNOSTIC"
    assert marked.loc["theory: mean covered >= 0.9", "verdict"] == "PASS"
    assert marked.loc["all", "verdict"] == "PASS"
    only = _rows(
        evaluate_orderings(
            [_claim("y", **{**audit, "series": ["oracle"]}, diagnostic=["oracle"])], df
        ),
        "y",
    )
    assert only.loc["all", "verdict"] == "DIAGNOSTIC" and status("DIAGNOSTIC") == "not audited"


def test_a_threshold_of_the_projects_own_cannot_contradict_the_paper():
    # lambda_min of the played arms: mean 0.03 with sd 0.01 over 20 runs, surely below 0.05
    df = _frame({("p", "A"): np.full(20, 10.0)})
    df["lam"] = (0.03 + 0.01 * np.resize([-1.0, 1.0], len(df))) * (df["t"] == T)
    audit = dict(check="metric_at_least", panels=["p"], series=["A"], metric="lam")
    audit.update(threshold=0.05)
    stated = _rows(evaluate_orderings([_claim("x", **audit, threshold_from="paper")], df), "x")
    assert stated.loc["all", "verdict"] == "FAIL"  # planted: the paper's own number is missed
    ours = _rows(evaluate_orderings([_claim("x", **audit, threshold_from="project")], df), "x")
    label = (
        "A: mean lam >= 0.05 (our threshold; the paper states none): missed, no violation of the "
        "paper"
    )
    assert ours.loc[label, "verdict"] == "WEAK" and ours.loc["all", "verdict"] == "WEAK"
    df["lam"] = 0.2 * (df["t"] == T) + 0.0 * df["trial"]  # met: the uniform arm's 1/d at d = 5
    met = _rows(evaluate_orderings([_claim("x", **audit, threshold_from="project")], df), "x")
    assert met.loc["all", "verdict"] == "PASS"


@pytest.mark.parametrize(
    "threshold_from,refute,verdict",
    [("paper", None, "FAIL"), ("project", None, "WEAK"), ("project", [0.0, 10.0], "WEAK")]
    + [("project", [0.0, 2.0], "FAIL")],
)
def test_a_ratio_band_of_the_projects_own_fails_only_beyond_its_refutation(
    threshold_from, refute, verdict
):
    # r = 5/2, SE = 1/4 (module docstring): the interval [2.01, 2.99] lies above 1.5, above 2,
    # not above 10
    df = _frame({("p", "A"): [3.0, 4.0, 8.0], ("p", "B"): [1.0, 2.0, 3.0]})
    audit = dict(check="ratio", panels=["p"], a="A", b=["B"], high=1.5)
    audit.update(threshold_from=threshold_from)
    if refute is not None:
        audit["refute"] = refute
    rows = _rows(evaluate_orderings([_claim("x", **audit)], df), "x")
    row = rows.loc[[k for k in rows.index if k.startswith("A / B")][0]]
    assert row["mean_diff"] == pytest.approx(2.5) and row["ci_low"] == pytest.approx(2.01)
    assert row["verdict"] == verdict and rows.loc["all", "verdict"] == verdict


def test_robustness_decorates_only_a_demonstrated_violation():
    rng = np.random.default_rng(4)
    b = 10 + rng.standard_normal(40)
    weak = b - 1.0
    weak[0] = b[0] + 100.0  # point estimate above 0, interval across it
    res = evaluate_orderings(
        [_claim("x", check="below", panels=["p"], a="A", b=["B"])],
        _frame({("p", "A"): weak, ("p", "B"): b}),
    )
    row = _rows(res, "x").loc["all"]
    assert row["verdict"] == "WEAK" and pd.isna(row["robustness"])


# -- delivered epsilon beside every verdict --------------------------------------------------------


@pytest.mark.parametrize(
    "a,b,want",
    [
        (1.0, 1.1, False),  # exactly 10 %: not more
        (1.0, 1.1000001, True),
        (1.1000001, 1.0, True),
        (3.7, 0.28, True),
        (math.inf, 1.0, True),
        (math.inf, math.inf, False),
        (NON_PRIVATE, 1.0, True),
        (NON_PRIVATE, NON_PRIVATE, False),
        (NON_PRIVATE, math.inf, False),
        (math.nan, 1.0, None),
        (1.0, math.nan, None),
    ],
)
def test_unequal_privacy_flag_at_ten_percent(a, b, want):
    assert unequal_privacy(a, b) is want


def test_delivered_epsilon_is_joined_on_figure_configuration_series_and_epsilon():
    d = 5.0 + np.tile([1.0, -1.0], 10)
    df = _frame({("p", "OnlineUCB"): BASE + d, ("p", "LDP"): BASE, ("p", "LinUCB"): BASE - 50})
    df["experiment"], df["figure"], df["epsilon"] = "olucb", "olucb_fig1", 1.0
    df["private"] = df["series"] != "LinUCB"
    privacy = pd.DataFrame(
        {
            "experiment": "olucb",
            "figure": "olucb_fig1",
            "configuration": "c",
            "series": ["OnlineUCB", "LDP", "LDP"],
            "nominal_epsilon": [1.0, 1.0, 10.0],
            "delivered_epsilon": [0.28, 3.7, 218.0],
            "d": 5,
        }
    )
    claims = [
        _claim("x", check="below", panels=["p"], a="OnlineUCB", b=["LDP"]),
        _claim("y", check="below", panels=["p"], a="LinUCB", b=["OnlineUCB"]),
    ]
    res = evaluate_orderings(claims, df, privacy=privacy)
    x = _rows(res, "x")
    assert x.loc["OnlineUCB < LDP", ["epsilon_a", "epsilon_b"]].tolist() == [0.28, 3.7]
    assert bool(x.loc["OnlineUCB < LDP", "unequal_privacy"])
    assert bool(x.loc["all", "unequal_privacy"])  # a summary row: any of its comparisons
    y = _rows(res, "y").loc["LinUCB < OnlineUCB"]
    assert (y["epsilon_a"], y["epsilon_b"]) == (NON_PRIVATE, 0.28)
    # without the privacy table the delivered epsilon of a private series is unknown
    bare = _rows(evaluate_orderings(claims, df), "x").loc["OnlineUCB < LDP"]
    assert math.isnan(bare["epsilon_a"]) and pd.isna(bare["unequal_privacy"])


# -- the registry's diagnostic key ---------------------------------------------------------------


def test_the_registry_marks_the_oracle_radius_as_a_diagnostic_and_refuses_unknown_series(tmp_path):
    import yaml

    from dpbandits.claims import load_registry
    from dpbandits.config import ConfigError

    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    schema = root / "workflow/schemas/claims.schema.yaml"
    data = load_registry(root / "config/claims/olucb.yaml", schema)
    confset = next(c for c in data["claims"] if c["id"] == "olucb.lem3.3.confset")
    assert confset["audit"]["diagnostic"] == ["OnlineUCB-oracle"]
    confset["audit"]["diagnostic"] = ["OnlineUCB-nope"]
    bad = tmp_path / "olucb.yaml"
    bad.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ConfigError, match="diagnostic.0 = 'OnlineUCB-nope'.*OnlineUCB-theory"):
        load_registry(bad, schema)


# -- the ratio check and the other statistics, computed by hand ------------------------------------


A = np.array([3.0, 4.0, 8.0])
B = np.array([1.0, 2.0, 3.0])


def _linear_frame(values, pseudo=None, extra=None, T=100, ts=(10, 20, 50, 100)) -> pd.DataFrame:
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


def _metric_rows(res, cid, metric="realized"):
    return res[(res.claim_id == cid) & (res.metric == metric)]


def test_a_ratio_row_is_the_ratio_of_means_with_its_delta_method_interval():
    df = _linear_frame({("p", "A"): A, ("p", "B"): B})
    claims = [_claim("r", check="ratio", panels=["p"], a="A", b=["B"], low=2.0, high=3.0)]
    rows = _metric_rows(evaluate_orderings(claims, df), "r")
    assert list(rows.comparison) == ["A / B in [2, 3]", "all"]  # no curve, no wall-time row
    row = rows.iloc[0]
    assert row.statistic == "ratio of means a / b"
    assert row.mean_diff == 2.5  # (5 / 3) / (2 / 3), no baseline subtracted
    assert row.se_diff == pytest.approx(0.25, rel=1e-14)
    assert row.ci_low == pytest.approx(2.5 - 1.96 * 0.25, rel=1e-14)
    assert row.verdict == "PASS" and rows.iloc[1].verdict == "PASS"
    # low defaults to 0; the t interval has n - 1 = 2 degrees of freedom (t = 4.303)
    claims = [_claim("r", check="ratio", panels=["p"], a="A", b=["B"], high=3.0, interval="t")]
    row = _metric_rows(evaluate_orderings(claims, df), "r").iloc[0]
    assert row.comparison == "A / B in [0, 3]"
    assert row.ci_high == pytest.approx(2.5 + 4.303 * 0.25, abs=1e-3)
    assert row.verdict == "WEAK"


def test_a_ratio_over_a_baseline_is_the_ratio_of_the_gaps():
    # gaps A - L = (3, 4, 8) and B - L = (1, 2, 3): the same ratio 5/2
    L = np.array([10.0, 20.0, 30.0])
    df = _linear_frame({("p", "A"): A + L, ("p", "B"): B + L, ("p", "L"): L})
    claims = [
        _claim("g", check="ratio", panels=["p"], a="A", b=["B"], baseline="L", high=3.0, low=2.0)
    ]
    row = _metric_rows(evaluate_orderings(claims, df), "g").iloc[0]
    assert row.comparison == "(A - L) / (B - L) in [2, 3]"
    assert row.mean_diff == 2.5 and row.se_diff == pytest.approx(0.25, rel=1e-14)


@pytest.mark.parametrize("column", ["comm_reals", "theta_err"])
def test_a_ratio_of_another_recorded_column_uses_and_names_it(column):
    # the regret columns say the opposite (B / A), so the row must use the named column
    extra = {("p", "A"): {column: A}, ("p", "B"): {column: B}}
    df = _linear_frame({("p", "A"): B, ("p", "B"): A}, extra=extra)
    claims = [_claim("m", check="ratio", panels=["p"], a="A", b=["B"], metric=column, high=3.0)]
    res = evaluate_orderings(claims, df)
    for metric in ("realized", "pseudo"):
        row = _metric_rows(res, "m", metric).iloc[0]
        assert row.comparison == f"A / B [{column}] in [0, 3]"
        assert row.mean_diff == 2.5


def test_curve_rows_of_a_ratio_are_diagnostics_and_its_wall_time_rows_decide():
    df = _linear_frame({("p", "A"): B, ("p", "B"): A, ("p", "C"): A})  # A's curve below B's and C's
    timings = pd.DataFrame(
        dict(configuration="c", panel="p", series=["A", "B", "C"], seconds=[2.0, 4.0, 1.0])
    )
    claims = [
        _claim(
            "f", check="ratio", panels=["p"], a="A", b=["B", "C"], high=1.0, curve=True, faster=True
        )
    ]
    rows = _metric_rows(evaluate_orderings(claims, df, timings), "f").set_index("comparison")
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
    df = _linear_frame({("p", "A"): B, ("p", "B"): A})
    timings = pd.DataFrame(dict(configuration="c", panel="p", series=["A", "B"], seconds=seconds))
    claims = [_claim("f", check="ratio", panels=["p"], a="A", b=["B"], high=1.0, faster=True)]
    rows = _metric_rows(evaluate_orderings(claims, df, timings), "f")
    row = rows[rows.statistic == WALL_TIME_STATISTIC].iloc[0]
    assert row.verdict == verdict
    assert row.mean_diff == pytest.approx(seconds[0] / seconds[1], nan_ok=True)


def test_mean_above_is_the_paired_statistic_of_b_below_a():
    # D = b - a = (-2, -2, -5): mean -3, sd sqrt(3), SE 1
    df = _linear_frame({("p", "A"): A, ("p", "B"): B})
    claims = [_claim("ma", check="mean_above", panels=["p"], a="A", b=["B"])]
    row = _metric_rows(evaluate_orderings(claims, df), "ma").iloc[0]
    assert row.comparison == "A > B"
    assert row.mean_diff == -3.0 and row.se_diff == pytest.approx(1.0, rel=1e-14)
    assert row.verdict == "PASS"


def test_combined_verdict_is_inconclusive_where_the_metrics_disagree():
    # claim x: realized says A above B (FAIL), pseudo says below (PASS); claim y: the reverse
    df = _linear_frame(
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
    agree = _linear_frame({("p", "A"): B, ("p", "B"): A})
    res = evaluate_orderings(claims[:1], agree)
    assert verdict_matrix(res, "combined").set_index("claim_id")["c"].to_dict() == {"x": "PASS"}


def test_an_unused_series_with_a_single_row_is_allowed():
    # e.g. a smoke run of another series: one trial recorded only at T, used by no claim
    df = pd.concat(
        [
            _linear_frame({("p", "A"): B, ("p", "B"): A}),
            _linear_frame({("p", "S"): np.array([1.0])}, ts=(100,)),
        ]
    )
    claims = [_claim("b", check="below", panels=["p"], a="A", b=["B"])]
    row = _metric_rows(evaluate_orderings(claims, df), "b").iloc[0]
    assert row.verdict == "PASS" and bool(row.curve_below)
