"""Ordering verdicts a referee would sign (docs/auditing.md, 'Reading a verdict: ordering
claims'): FAIL only with the whole interval on the wrong side, saturated ties untestable, curve
crossings and diagnostic series never deciding, the delivered epsilon of both series beside each
comparison. Each planted case below reads differently under the old point-estimate rule."""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.checklist import NON_PRIVATE, evaluate_orderings, unequal_privacy
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
