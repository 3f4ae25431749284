"""Tests that kill mutants left alive in audit/privacy_claims.py (docs/mutation.md).

The rules are the module's (docs/auditing.md, privacy claims): the worst delivered row is the one
furthest above its nominal epsilon as a *ratio*; an empirical lower bound is consistent with
accounting when it is at most the pair's certified epsilon (recomputed from the bounds when the
auditor's ``lb_le_delivered`` column is absent); ``nominal_epsilon`` selectors match up to 1e-9
relative. The reasons are checked word for word on hand-made rows.
"""

import pandas as pd

from dpbandits.audit.privacy_claims import privacy_claim_status, select_rows


def _d(series, nominal, delivered, verdict, lower=None) -> dict:
    where = {"experiment": "e", "figure": "fig", "configuration": "conf", "series": series}
    how = {"algorithm": series.lower(), "calibration": "cal", "mechanism": "m"}
    eps = {"nominal_epsilon": nominal, "delivered_epsilon": delivered, "verdict": verdict}
    return {**where, **how, **eps, "lower_epsilon": delivered if lower is None else lower}


def _e(case, nominal, lb, delivered) -> dict:
    # no caught / lb_le_delivered columns: the status recomputes them from the bounds
    row = {"case": case, "represents": case, "control": False, "nominal_epsilon": nominal}
    return {**row, "delivered_epsilon": delivered, "epsilon_lower_bound": lb}


def _claim(cid, selectors):
    return {"id": cid, "kind": "privacy", "audit": {"privacy_audit": selectors}}


def _reasons(claims, delivered, empirical):
    out = privacy_claim_status(claims, pd.DataFrame(delivered), pd.DataFrame(empirical))
    return out.set_index("claim_id")[["status", "reason", "delivered_summary"]]


NO_EMPIRICAL = pd.DataFrame(
    columns=["case", "control", "nominal_epsilon", "delivered_epsilon", "epsilon_lower_bound"]
)


def test_the_worst_violated_row_is_the_largest_ratio_to_nominal():
    # A: 3 at nominal 1 (ratio 3, difference 2); B: 15 at nominal 10 (ratio 1.5, difference 5)
    rows = [_d("A", 1.0, 3.0, "VIOLATED"), _d("B", 10.0, 15.0, "VIOLATED")]
    out = _reasons([_claim("p.x", [{"experiment": "e"}])], rows, NO_EMPIRICAL).loc["p.x"]
    assert out["status"] == "contradicted"
    assert out["reason"] == (
        "Lower bound 3 on epsilon above nominal 1 (VIOLATED; certified upper bound 3) in "
        "e fig conf A (cal) "
        "(2 of 2 selected rows fail their nominal epsilon)."
    )
    assert out["delivered_summary"] == "2 VIOLATED of 2 rows; largest delivered/nominal 3/1"


def test_supported_reason_for_one_row_and_for_several():
    # one row: "the one selected row"; two rows: the largest ratio is B's 3.6 / 4 = 0.9 (A's
    # is 0.8 / 1 = 0.8, though A's difference -0.2 is larger than B's -0.4)
    rows = [_d("A", 1.0, 0.8, "DELIVERED"), _d("B", 4.0, 3.6, "DELIVERED")]
    claims = [
        _claim("p.one", [{"experiment": "e", "series": "A"}]),
        _claim("p.two", [{"experiment": "e"}]),
    ]
    out = _reasons(claims, rows, NO_EMPIRICAL)
    assert (out["status"] == "supported").all()
    assert out.loc["p.one", "reason"] == (
        "The one selected row is DELIVERED (delivered epsilon 0.8 at nominal 1 in e fig conf A "
        "(cal))."
    )
    assert out.loc["p.two", "reason"] == (
        "All 2 selected rows are DELIVERED (largest delivered epsilon 3.6 at nominal 4 in e fig "
        "conf B (cal))."
    )


def test_an_empirical_bound_equal_to_the_certified_epsilon_is_consistent():
    # "eq": lower bound 0.5 = certified 0.5, below nominal 1: consistent, so the DELIVERED row
    # supports the claim and the reason names the largest lower bound; "over": 0.6 > 0.5 makes
    # the evidence inconclusive (still below nominal 1, so nothing is caught)
    rows = [_d("A", 1.0, 0.8, "DELIVERED")]
    emp = [_e("eq", 1.0, 0.5, 0.5), _e("over", 1.0, 0.6, 0.5)]
    claims = [
        _claim("p.eq", [{"experiment": "e"}, {"case": "eq"}]),
        _claim("p.over", [{"experiment": "e"}, {"case": "over"}]),
    ]
    out = _reasons(claims, rows, emp)
    assert out.loc["p.eq", "status"] == "supported"
    assert out.loc["p.eq", "reason"] == (
        "The one selected row is DELIVERED (delivered epsilon 0.8 at nominal 1 in e fig conf A "
        "(cal)) and no empirical lower bound exceeds its nominal epsilon (largest 0.5 at "
        "nominal 1)."
    )
    assert out.loc["p.over", "status"] == "inconclusive"
    assert out.loc["p.over", "reason"] == (
        "The empirical lower bound 0.6 in case 'over' exceeds the 0.5 accounting certifies for "
        "its pair."
    )


def test_a_nominal_epsilon_selector_matches_up_to_rounding_only():
    # 0.1 + 0.2 = 0.30000000000000004 is 0.3 up to 2e-16 relative (within 1e-9);
    # 0.3000003 is 1e-6 relative away (outside)
    rows = pd.DataFrame(
        [_d("A", 0.1 + 0.2, 0.2, "DELIVERED"), _d("B", 0.3000003, 0.2, "DELIVERED")]
    )
    d, _ = select_rows("p.x", [{"experiment": "e", "nominal_epsilon": 0.3}], rows, NO_EMPIRICAL)
    assert list(d["series"]) == ["A"]
