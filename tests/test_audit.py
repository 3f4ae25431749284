"""Paired ordering statistics and the checklist evaluator (spec 003 §7.3)."""

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.checklist import evaluate_orderings, verdict_matrix
from dpbandits.audit.ordering import curve_checkpoints, paired_below, worst


def test_paired_verdicts_on_constructed_samples():
    rng = np.random.default_rng(0)
    b = rng.normal(100, 10, size=50)
    assert paired_below(b - 5 + rng.normal(0, 1, 50), b).verdict == "PASS"
    assert paired_below(b + 5 + rng.normal(0, 1, 50), b).verdict == "FAIL"
    weak = b - 0.05 + np.tile([-3.0, 3.0], 25)  # mean difference -0.05, se ~ 0.43
    stat = paired_below(weak, b)
    assert stat.verdict == "WEAK" and stat.ci_low < 0 < stat.ci_high
    # the interval is mean +/- 1.96 sd(D, ddof=1)/sqrt(n)
    d = weak - b
    assert stat.ci_high == pytest.approx(d.mean() + 1.96 * d.std(ddof=1) / np.sqrt(50))
    with pytest.raises(ValueError):
        paired_below(b[:3], b)


def test_worst_and_curve_checkpoints():
    assert worst(["PASS", "WEAK", "PASS"]) == "WEAK"
    assert worst(["PASS", "FAIL", "WEAK"]) == "FAIL"
    t = np.arange(100, 20001, 100)
    assert list(curve_checkpoints(t, 20000)) == list(range(2000, 20001, 1000))


def _frame(values: dict[tuple[str, str], np.ndarray], T=100) -> pd.DataFrame:
    """Results of several (panel, series) with final regret `values` and linear curves."""
    rows = []
    for (panel, series), finals in values.items():
        for trial, final in enumerate(finals):
            for t in (10, 20, 50, 100):
                rows.append(
                    dict(
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
                        regret_pseudo=final * t / T,
                    )
                )
    return pd.DataFrame(rows)


def test_checklist_evaluates_each_check_type():
    rng = np.random.default_rng(1)
    base = rng.normal(100, 5, size=20)
    df = _frame(
        {
            ("p1", "A"): base,
            ("p1", "B"): base + 10,
            ("p2", "A"): base - 20,
            ("p2", "B"): base + 30,
            ("p1", "L"): base - 50,
            ("p2", "L"): base - 50,
        }
    )
    claims = [
        {
            "id": "x.below",
            "kind": "ordering",
            "audit": {"check": "below", "panels": ["p1"], "a": "A", "b": ["B"]},
        },
        {
            "id": "x.reversed",
            "kind": "ordering",
            "audit": {"check": "below", "panels": ["p1"], "a": "B", "b": ["A"]},
        },
        {
            "id": "x.between",
            "kind": "ordering",
            "audit": {"check": "between", "panels": ["p1", "p2"], "pairs": [["A", "B"]]},
        },
        {
            "id": "x.dec",
            "kind": "ordering",
            "audit": {"check": "decreasing", "panels": ["p1", "p2"], "series": ["A"]},
        },
        {
            "id": "x.gap",
            "kind": "ordering",
            "audit": {
                "check": "gap_decreasing",
                "panels": ["p1", "p2"],
                "series": ["B"],
                "baseline": "L",
            },
        },
        {
            "id": "x.sum",
            "kind": "ordering",
            "audit": {"check": "summary", "of": ["x.below", "x.dec"]},
        },
        {
            "id": "x.sum2",
            "kind": "ordering",
            "audit": {"check": "summary", "of": ["x.below", "x.reversed"]},
        },
        {
            "id": "x.missing",
            "kind": "ordering",
            "audit": {"check": "below", "panels": ["p3"], "a": "A", "b": ["B"]},
        },
        {"id": "x.rate", "kind": "rate", "audit": {"none": "not an ordering"}},
    ]
    res = evaluate_orderings(claims, df)
    summary = res[
        (res.comparison.str.startswith("all"))
        & (res.metric == "realized")
        & ~res.comparison.str.contains("curve level")
    ].set_index("claim_id")["verdict"]
    assert summary.to_dict() == {
        "x.below": "PASS",
        "x.reversed": "FAIL",
        "x.between": "PASS",
        "x.dec": "PASS",
        "x.gap": "FAIL",
        "x.sum": "PASS",
        "x.sum2": "FAIL",
    }
    assert (res.loc[res.claim_id == "x.missing", "verdict"] == "MISSING").all()
    m = verdict_matrix(res)
    assert set(m["claim_id"]) >= {"x.below", "x.sum"}
