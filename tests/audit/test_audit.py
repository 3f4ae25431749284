"""Paired ordering statistics and the checklist evaluator (docs/auditing.md, 'Reading a verdict:
ordering claims')."""

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
            "audit": {"check": "below", "panels": ["p1"], "a": "A", "b": ["C"]},
        },
        {
            "id": "x.elsewhere",
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
    # a series missing from a panel the configuration draws is named; a configuration that
    # draws none of a claim's panels (another figure) has no row for it
    missing = res.loc[res.claim_id == "x.missing"]
    assert len(missing) and (missing["verdict"] == "MISSING").all()
    assert "p1/C" in missing["comparison"].iloc[0]
    assert "x.elsewhere" not in set(res.claim_id)
    m = verdict_matrix(res)
    assert set(m["claim_id"]) >= {"x.below", "x.sum"}


def _eps_frame(means: list[float], sd: float, eps=(0.5, 1.0, 2.0, 4.0)) -> pd.DataFrame:
    """Final regret of one series on four panels with epsilon ``eps``: per panel 20 trials with
    mean ``means[k]`` and population std ``sd`` exactly (values m -/+ sd, alternating)."""
    z = np.tile([-1.0, 1.0], 10)
    df = _frame({(f"p{k}", "A"): m + sd * z for k, m in enumerate(means)})
    df["epsilon"] = df["panel"].map({f"p{k}": e for k, e in enumerate(eps)})
    return df


SPEARMAN_CLAIM = {
    "id": "x.spearman",
    "kind": "ordering",
    "audit": {
        "check": "spearman_decreasing",
        "panels": ["p0", "p1", "p2", "p3"],
        "series": ["A"],
        "threshold": -0.8,
    },
}


@pytest.mark.parametrize(
    "means,sd,verdict,flat",
    [
        ([200.0, 150.0, 100.0, 50.0], 1.0, "PASS", False),  # decreasing in epsilon, spread out
        # paired instances with a common offset: the order of the means is the same in every
        # bootstrap draw, so "flat" (within 1 std) does not decide
        ([100.0, 99.0, 98.0, 97.0], 10.0, "PASS", True),
        ([50.0, 100.0, 150.0, 200.0], 1.0, "FAIL", False),  # increasing: whole interval at +1
        ([100.0, 101.0, 102.0, 103.0], 10.0, "FAIL", True),
    ],
)
def test_spearman_decreasing_reads_the_bootstrap_interval(means, sd, verdict, flat):
    """spearman_decreasing (checklist docstring): PASS iff the bootstrap interval of
    Spearman(epsilon, mean R(T)) is at most the threshold, FAIL iff it lies wholly above it."""
    res = evaluate_orderings([SPEARMAN_CLAIM], _eps_frame(means, sd))
    res = res[res.metric == "realized"]
    row = res[res.comparison != "all"].iloc[0]
    assert row["mean_diff"] == pytest.approx(-1.0 if means[0] > means[-1] else 1.0)
    assert ("flat" in row["comparison"]) == flat
    assert row["verdict"] == verdict
    assert res[res.comparison == "all"]["verdict"].iloc[0] == verdict


def test_spearman_decreasing_with_independent_noise_straddling_the_threshold_is_weak():
    """Means decreasing within their noise, instances independent across panels: the bootstrap
    interval reaches both sides of the threshold, WEAK (the old rule read a point estimate)."""
    rng = np.random.default_rng(5)
    df = _frame(
        {
            (f"p{k}", "A"): m + rng.normal(0, 30, size=20)
            for k, m in enumerate([104.0, 102.0, 100.0, 98.0])
        }
    )
    df["epsilon"] = df["panel"].map({f"p{k}": e for k, e in enumerate((0.5, 1.0, 2.0, 4.0))})
    res = evaluate_orderings([SPEARMAN_CLAIM], df)
    row = res[(res.metric == "realized") & (res.comparison != "all")].iloc[0]
    assert row["ci_low"] <= -0.8 < row["ci_high"]
    assert row["verdict"] == "WEAK"


def test_spearman_decreasing_with_equal_means_is_untestable(recwarn):
    """Every panel tied exactly (regret pinned at one value whatever epsilon): the tied panels
    are set aside, none remain, UNTESTABLE (the old rule read FAIL); no scipy warning."""
    res = evaluate_orderings([SPEARMAN_CLAIM], _eps_frame([100.0] * 4, 1.0))
    rows = res[res.metric == "realized"].set_index("comparison")
    row = rows.iloc[0]
    assert np.isnan(row["mean_diff"]) and "flat" in rows.index[0]
    assert "4 of 4 panels tied exactly" in rows.index[0]
    assert row["verdict"] == "UNTESTABLE" and rows.loc["all", "verdict"] == "UNTESTABLE"
    assert not [w for w in recwarn if "constant" in str(w.message)]


@pytest.mark.parametrize(
    "means,threshold_from,refute,verdict",
    [
        # ranks (3, 2, 4, 1) against epsilon: Spearman 1 - 6 * 14 / 60 = -0.4, above -0.8
        ([150.0, 100.0, 160.0, 50.0], "paper", None, "FAIL"),
        ([150.0, 100.0, 160.0, 50.0], "project", None, "WEAK"),
        ([150.0, 100.0, 160.0, 50.0], "project", 0.0, "WEAK"),  # -0.4 is not above 0
        ([50.0, 100.0, 150.0, 200.0], "project", 0.0, "FAIL"),  # +1: regret grows with epsilon
    ],
)
def test_a_spearman_cut_off_of_the_projects_own_fails_only_beyond_its_refutation(
    means, threshold_from, refute, verdict
):
    """-0.8 is this project's reading of "decreases" (ordering_checks.project_threshold): missing
    it is WEAK; only a whole interval above ``refute`` (0: regret not decreasing at all) is FAIL."""
    audit = {**SPEARMAN_CLAIM["audit"], "threshold_from": threshold_from}
    if refute is not None:
        audit["refute"] = refute
    res = evaluate_orderings([{**SPEARMAN_CLAIM, "audit": audit}], _eps_frame(means, 1.0))
    res = res[res.metric == "realized"]
    row = res[res.comparison != "all"].iloc[0]
    assert row["mean_diff"] == pytest.approx(-0.4 if means[0] == 150.0 else 1.0)
    assert row["verdict"] == verdict
    assert ("our threshold" in row["comparison"]) == (threshold_from == "project")
