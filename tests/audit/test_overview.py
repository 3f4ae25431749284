"""The claim overview (docs/auditing.md; docs/mutation.md) gives one row per claim: a rate claim
shows its summary row's verdict (``schedule == "all"``) and robustness, an ordering claim the
verdict on the primary configuration, ``INCONCLUSIVE`` across configurations when another
configuration differs, and under ``combined`` the common verdict of realized and pseudo-regret. The
rate and ordering tables are written out by hand, with the columns the overview reads.
"""

import pandas as pd

from dpbandits.audit.overview import claim_overview, plain_summary
from dpbandits.audit.scoreboard import scoreboard


def _claim(cid, check, **audit):
    audit = {"experiment": "x", "check": check, **audit}
    return {"id": cid, "kind": "rate" if check == "slope" else "ordering", "source": "s",
            "algorithm": "A", "T_exp": "1/2", "eps_exp": None, "audit": audit}  # fmt: skip


def _rates():
    """One rate claim on schedule p: its summary (exceeds, robust), two T fits (the last one
    consistent), a 1/epsilon fit and a T fit of the gap to the baseline."""
    cols = ["claim_id", "schedule", "variable", "slope", "claimed", "verdict", "robustness"]
    rows = [
        ("x.r", "p", "T", 0.52, 0.5, "exceeds", "robust"),
        ("x.r", "p", "T", 0.58, 0.5, "consistent", ""),
        ("x.r", "p", "1/epsilon", 0.9, 0.5, "consistent", ""),
        ("x.r", "p", "T (gap to linucb)", 0.3, 0.25, "consistent", ""),
        ("x.r", "all", "", None, None, "exceeds", "robust"),
    ]
    return pd.DataFrame(rows, columns=cols)


def _orderings(rows):
    cols = ["claim_id", "configuration", "metric", "verdict"]
    return pd.DataFrame(rows, columns=cols).assign(comparison="all")


RATE_CLAIM = _claim("x.r", "slope", sweep="s", schedules=["p"])


def test_a_rate_claim_shows_its_summary_verdict_and_robustness():
    ov = claim_overview([RATE_CLAIM], _rates(), _orderings([]), "main").iloc[0]
    assert ov["verdict"] == "exceeds" and ov["all_configurations"] == "exceeds"
    assert ov["robustness"] == "robust"
    assert ov["how"] == (
        "sweep s: p. T: fitted 0.52 to 0.58 over 2 fit(s); 1/epsilon: fitted 0.90 to 0.90 over "
        "1 fit(s); T (gap to linucb): fitted 0.30 to 0.30 over 1 fit(s)"
    )


def test_the_plain_summary_reports_only_the_plain_T_fits_of_a_schedule():
    # the T rows have slopes 0.52 and 0.58 against 0.5; the 1/epsilon fit and the gap's T fit
    # are other exponents and stay out
    rates = _rates()
    ov = claim_overview([RATE_CLAIM], rates, _orderings([]), "main")
    lines = plain_summary(scoreboard([("p", ov)]), rates, "main").splitlines()
    assert "- Schedule `p`: fitted T-exponents 0.52 to 0.58 across epsilon (claimed 0.5)." in lines
    assert sum(line.startswith("- Schedule") for line in lines) == 1


def test_combined_takes_the_common_verdict_of_realized_and_pseudo_regret():
    claims = [_claim("x.o", "below"), _claim("x.q", "below")]
    orderings = _orderings(
        [
            ("x.o", "main", "realized", "PASS"),
            ("x.o", "main", "pseudo", "PASS"),
            ("x.q", "main", "realized", "PASS"),
            ("x.q", "main", "pseudo", "FAIL"),
        ]
    )
    metric = "".join(["comb", "ined"])  # as read from a config file: built at run time
    ov = claim_overview(claims, pd.DataFrame(), orderings, "main", metric=metric)
    assert ov.set_index("claim_id")["verdict"].to_dict() == {"x.o": "PASS", "x.q": "INCONCLUSIVE"}


def test_other_configurations_are_those_of_the_same_claim_except_the_one_shown():
    # x.a: PASS on the primary "main", FAIL on "zeta" (sorted after "main"): INCONCLUSIVE across
    # configurations. x.b is checked on "main" only: no other configuration, its verdict stands
    claims = [_claim("x.a", "below"), _claim("x.b", "below")]
    orderings = _orderings(
        [
            ("x.a", "main", "realized", "PASS"),
            ("x.a", "zeta", "realized", "FAIL"),
            ("x.b", "main", "realized", "PASS"),
        ]
    )
    ov = claim_overview(claims, pd.DataFrame(), orderings, "main").set_index("claim_id")
    assert ov.loc["x.a", "verdict"] == "PASS"
    assert ov.loc["x.a", "all_configurations"] == "INCONCLUSIVE"
    assert ov.loc["x.a", "how"].endswith(
        "; other configurations: zeta FAIL (the verdict depends on the configuration)"
    )
    assert ov.loc["x.b", "all_configurations"] == "PASS"
    assert ov.loc["x.b", "how"] == "figure data (below, realized regret, configuration main)"


def test_a_verdict_untestable_on_another_configuration_is_not_established_across_them():
    # x.a: PASS on "main", every series at its cap on "theory" (UNTESTABLE): it holds where it
    # can be tested, which is not every configuration, so INCONCLUSIVE across them, saying so.
    # x.u: UNTESTABLE on "main" and PASS on "zeta": INCONCLUSIVE as well
    claims = [_claim("x.a", "below"), _claim("x.u", "below")]
    orderings = _orderings(
        [
            ("x.a", "main", "realized", "PASS"),
            ("x.a", "theory", "realized", "UNTESTABLE"),
            ("x.u", "main", "realized", "UNTESTABLE"),
            ("x.u", "zeta", "realized", "PASS"),
        ]
    )
    ov = claim_overview(claims, pd.DataFrame(), orderings, "main").set_index("claim_id")
    assert ov.loc["x.a", "verdict"] == "PASS"
    assert ov.loc["x.a", "all_configurations"] == "INCONCLUSIVE"
    assert ov.loc["x.a", "how"].endswith(
        "; other configurations: theory UNTESTABLE (not testable on every configuration)"
    )
    assert ov.loc["x.u", "all_configurations"] == "INCONCLUSIVE"
    assert ov.loc["x.u", "how"].endswith("(the verdict depends on the configuration)")


def _comparison(cid, comparison, verdict, mean, low, high, cap=None, eps=(None, None)):
    """A comparison row of the orderings table as the CSV reads back (booleans as text)."""
    return {
        "claim_id": cid, "configuration": "main", "metric": "realized", "panels": "p",
        "comparison": comparison, "statistic": "paired difference a - b", "verdict": verdict,
        "mean_diff": mean, "ci_low": low, "ci_high": high, "epsilon_a": eps[0],
        "epsilon_b": eps[1], "unequal_privacy": None if eps[1] is None else "True",
        "cap_recorded": cap,
    }  # fmt: skip


def test_a_failing_ordering_names_its_interval_and_a_missing_cap():
    # x.f fails on data without random play's regret: its reason gives the failing interval
    # and says that saturation was checked only as an exact tie; x.g fails with both caps
    # recorded (no caveat); x.p passes (nothing failing to name)
    rows = [
        _comparison("x.f", "A < B", "FAIL", 2698.1, 1391.7, 4004.5, cap="False"),
        _comparison("x.g", "A < B", "FAIL", 0.5, 0.25, 0.75, cap="True"),
        _comparison("x.p", "A < B", "PASS", -3.0, -4.0, -2.0, cap="False"),
    ]
    rows += [{**r, "comparison": "all", "mean_diff": None, "ci_low": None, "ci_high": None,
              "cap_recorded": None} for r in rows]  # fmt: skip
    rows.append({**rows[-3], "configuration": "zeta", "verdict": "PASS"})  # x.f elsewhere
    claims = [_claim(c, "below") for c in ("x.f", "x.g", "x.p")]
    how = claim_overview(claims, pd.DataFrame(), pd.DataFrame(rows), "main").set_index("claim_id")[
        "how"
    ]
    failing = "; failing: A < B (p; paired difference a - b): "
    assert how["x.f"] == (
        "figure data (below, realized regret, configuration main)" + failing + "2698 [1392, 4004]"
        "; no cap recorded (random play's regret), so a saturated pair shows only as an exact tie"
        # what fails comes first (a page shows the reason's beginning), then the rest
        "; other configurations: zeta PASS (the verdict depends on the configuration)"
    )
    assert how["x.g"].endswith(failing + "0.5 [0.25, 0.75]")
    assert "failing" not in how["x.p"]


def test_an_undecided_ordering_says_why():
    # x.w: the interval contains 0 (WEAK), so the reason gives it; x.u: every comparison has
    # both series at >= half of random play's regret, so the reason gives their shares
    rows = [
        _comparison("x.w", "A < B", "WEAK", 2.0, -1.0, 5.0, cap="True"),
        {**_comparison("x.u", "A < B", "UNTESTABLE", 1531.1, 948.0, 2114.2, cap="True"),
         "share_a": 0.527, "share_b": 0.706},
    ]  # fmt: skip
    rows += [{**r, "comparison": "all", "mean_diff": None, "ci_low": None, "ci_high": None}
             for r in rows]  # fmt: skip
    claims = [_claim(c, "below") for c in ("x.w", "x.u")]
    ov = claim_overview(claims, pd.DataFrame(), pd.DataFrame(rows), "main").set_index("claim_id")
    head = "figure data (below, realized regret, configuration main)"
    assert ov.loc["x.w", "how"] == (
        head + "; undecided: A < B (p; paired difference a - b): 2 [-1, 5]"
    )
    assert ov.loc["x.u", "how"] == (
        head + "; at the cap (both series at >= half of random play's regret, or tied exactly): "
        "A < B (p; paired difference a - b): 1531 [948, 2114], at 0.53 and 0.71 of random "
        "play's regret"
    )


def test_a_configuration_with_the_same_simulations_is_named_as_such():
    # r2 repeats r1's comparison value for value (a shared simulation); r3 differs
    base = _comparison("x.s", "A < B", "PASS", -3.0, -4.0, -2.0, cap="True")
    rows = [base, {**base, "configuration": "r2"}, {**base, "configuration": "r3", "ci_low": -5}]
    rows += [{**r, "comparison": "all", "mean_diff": None, "ci_low": None, "ci_high": None}
             for r in rows]  # fmt: skip
    how = claim_overview([_claim("x.s", "below")], pd.DataFrame(), pd.DataFrame(rows), "main")
    assert (
        how["how"]
        .iloc[0]
        .endswith("; other configurations: r2 PASS (the same simulations as main), r3 PASS")
    )


def test_a_summary_claim_shows_what_fails_in_each_claim_it_summarises():
    # the summary fails through x.b and x.c: its reason gives each one's failing interval with
    # both series' delivered epsilon, after the part's id; x.a passes and is not named; the
    # missing cap is said once
    off = "non-private"
    rows = [
        _comparison("x.a", "A / C in [0, 2]", "PASS", 1.5, 1.2, 1.8, "False", (18.4, off)),
        _comparison("x.b", "B / C in [0, 2]", "FAIL", 3.0, 2.5, 3.5, "False", (0.0, off)),
        _comparison("x.c", "D / C in [0, 2]", "FAIL", 4.0, 3.5, 4.5, "True", (1.0, off)),
    ]
    rows += [{**r, "comparison": "all", "epsilon_a": None, "epsilon_b": None} for r in rows]
    rows.append({**rows[1], "claim_id": "x.s", "comparison": "all of x.a, x.b, x.c",
                 "epsilon_a": None, "epsilon_b": None})  # fmt: skip
    claims = [_claim(c, "ratio") for c in ("x.a", "x.b", "x.c")]
    claims.append(_claim("x.s", "summary", of=["x.a", "x.b", "x.c"]))
    how = claim_overview(claims, pd.DataFrame(), pd.DataFrame(rows), "main").set_index("claim_id")[
        "how"
    ]["x.s"]
    assert how == (
        "figure data (summary, realized regret, configuration main)"
        "; x.b failing: B / C in [0, 2] (p; paired difference a - b): 3 [2.5, 3.5], delivered "
        "epsilon 0 vs non-private"
        "; x.c failing: D / C in [0, 2] (p; paired difference a - b): 4 [3.5, 4.5], delivered "
        "epsilon 1 vs non-private"
        "; no cap recorded (random play's regret), so a saturated pair shows only as an exact tie"
    )
